"""The documentation: the README stays short and its links hold, and the
MkDocs site (docs/, mkdocs.yml) builds with --strict, with the CLI
reference generated from the commands and the bench report included."""

from __future__ import annotations

import html
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
from once_per_run import once_per_run

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"


@pytest.fixture(scope="module")
def site(request: pytest.FixtureRequest) -> Path:
    """The site, built once in the run (once_per_run)."""
    return once_per_run(request, build_site)


def build_site(out: Path) -> Path:
    """The site, built into `out` (mkdocs runs at the repo root, where
    mkdocs.yml and the snippets' paths are)."""
    mkdocs = Path(sys.executable).with_name("mkdocs")
    if not mkdocs.exists():
        pytest.skip("mkdocs is not installed (the dev extra has it)")
    run = subprocess.run(
        [mkdocs, "build", "--strict", "--site-dir", out],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    return out


def test_the_cli_reference_lists_the_lazily_loaded_commands(site: Path) -> None:
    page = (site / "cli" / "index.html").read_text()
    for text in ("plpuzzle sudoku grade", "plpuzzle knight tour", "plpuzzle flag", "--time-limit"):
        assert text in page, text


def test_the_performance_page_includes_the_committed_reports(site: Path) -> None:
    page = (site / "performance" / "index.html").read_text()
    text = html.unescape(page)
    for report in ("REPORT.md", "KNIGHT.md"):
        first = (REPO / "bench" / report).read_text().splitlines()[0]
        assert first.startswith("# ")
        assert first[2:] in text, report
    # The report's plot, referred to relatively, is in the site where the page finds it.
    assert 'src="../times-by-k.png"' in page
    assert (site / "times-by-k.png").read_bytes() == (REPO / "bench/times-by-k.png").read_bytes()


def test_the_readme_is_short() -> None:
    assert len(README.read_text().splitlines()) < 250


def test_every_relative_link_of_the_readme_exists() -> None:
    links = re.findall(r"\]\(([^)\s]+)\)", README.read_text())
    relative = [link for link in links if not re.match(r"[a-z]+:", link)]
    assert relative, "no relative links found: the pattern is wrong"
    for link in relative:
        path = link.split("#", 1)[0]
        assert path, f"{link}: an anchor of the README itself, which moved to docs/"
        assert (REPO / path).exists(), link


# -- the site renders what the Markdown says ----------------------------------------------


class _Rendered(HTMLParser):
    """What a page's main part renders: the numbers its ordered lists show,
    the list items nested in others, <pre> blocks, fences left as text."""

    def __init__(self) -> None:
        super().__init__()
        self.lists: list[list] = []  # open ol/ul: [tag, start, items so far]
        self.numbers: list[int] = []
        self.nested = 0
        self.items_open = 0
        self.pre = 0
        self.pres = 0
        self.rules = 0
        self.fences_in_text = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("ol", "ul"):
            self.lists.append([tag, int(dict(attrs).get("start") or 1), 0])
        elif tag == "li":
            self.nested += self.items_open > 0
            self.items_open += 1
            if self.lists and self.lists[-1][0] == "ol":
                top = self.lists[-1]
                self.numbers.append(top[1] + top[2])
                top[2] += 1
        elif tag == "pre":
            self.pre += 1
            self.pres += 1
        elif tag == "hr":
            self.rules += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in ("ol", "ul") and self.lists:
            self.lists.pop()
        elif tag == "li":
            self.items_open -= 1
        elif tag == "pre":
            self.pre -= 1

    def handle_data(self, data: str) -> None:
        if not self.pre and "```" in data:
            self.fences_in_text += 1


def _written(markdown: str) -> tuple[list[int], int, int]:
    """What the Markdown asks for: the numbers of its ordered items, its
    nested list items, its fenced blocks (a fence may nest a shorter one)."""
    numbers, nested, fences = [], 0, 0
    fence = ""
    for line in markdown.splitlines():
        opening = re.match(r"^\s*(`{3,}|~{3,})", line)
        if fence:
            if opening and opening.group(1).startswith(fence) and not line.strip(fence[0]).strip():
                fence = ""
            continue
        if opening:
            fence = opening.group(1)
            fences += 1
        elif number := re.match(r"^\s*(\d+)\. ", line):
            numbers.append(int(number.group(1)))
        elif re.match(r"^ {2,}[-*] ", line):
            nested += 1
    return numbers, nested, fences


@pytest.mark.parametrize("page", sorted(p.stem for p in (REPO / "docs").glob("*.md")))
def test_each_page_renders_its_lists_and_fenced_blocks(site: Path, page: str) -> None:
    """Fenced blocks inside list items become <pre> (not running text with
    literal backticks), ordered lists count up, nested lists stay nested,
    and a puzzle's `- - - -` line is no horizontal rule."""
    markdown = (REPO / "docs" / f"{page}.md").read_text()
    built = (site / ("" if page == "index" else page) / "index.html").read_text()
    main = built[built.index('role="main"') :]
    rendered = _Rendered()
    rendered.feed(main)
    numbers, nested, fences = _written(markdown)
    assert rendered.fences_in_text == 0
    assert rendered.pres >= fences
    assert rendered.numbers == numbers
    assert rendered.nested == nested
    assert rendered.rules <= markdown.count("\n---\n") + 1  # the theme's footer has one
