"""The documentation: the README stays short and its links hold, and the
MkDocs site (docs/, mkdocs.yml) builds with --strict, with the CLI
reference generated from the commands and the bench report included."""

from __future__ import annotations

import html
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site, built into a tmp folder (mkdocs runs at the repo root,
    where mkdocs.yml and the snippets' paths are)."""
    mkdocs = Path(sys.executable).with_name("mkdocs")
    if not mkdocs.exists():
        pytest.skip("mkdocs is not installed (the dev extra has it)")
    out = tmp_path_factory.mktemp("site")
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
