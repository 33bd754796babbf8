"""Every sample of plpuzzle's output in the README and the docs is what
the command prints today.

A sample is a fenced block whose first line is `$ plpuzzle ...` and which
holds no other `$` line (blocks that set things up first are the
walk-throughs', checked by their own tests), and which is not marked
`<!-- sample: not run (why) -->` on the line before. Each is run from a folder
that sees the checkout's puzzles, tests and the shared course suite under
the same relative names, with stdout and stderr in the order written, and
compared with the block after figures that vary from run to run (times)
are masked. `PLPUZZLE_UPDATE_SAMPLES=1` (`make docs-samples`) writes the
real output into the documents instead of comparing.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DOCUMENTS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
SHARED = Path(os.environ.get("PLPUZZLE_SHARED", REPO.parent / "shared"))
SCRIPT = Path(sys.executable).with_name("plpuzzle")
UPDATE = os.environ.get("PLPUZZLE_UPDATE_SAMPLES") == "1"
#: Commands whose samples take long (a class graded, every square toured).
SLOW_WORDS = ("grade", "survey", "generate", "1000000")
#: Samples of commands that run until stopped (a server): not run.
SERVERS = ("plpuzzle cluster local --workers",)


@dataclass(frozen=True)
class Sample:
    document: Path
    line: int  # of the `$ plpuzzle` line, 1-based
    command: str
    shown: str  # the output lines of the block

    @property
    def name(self) -> str:
        return f"{self.document.name}:{self.line}"


def samples() -> list[Sample]:
    found = []
    for document in DOCUMENTS:
        lines = document.read_text().splitlines()
        i = 0
        while i < len(lines):
            if lines[i].startswith("```") and i + 1 < len(lines):
                end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
                body = lines[i + 1 : end]
                dollars = [b for b in body if b.startswith("$ ")]
                server = any(body and body[0][2:].startswith(s) for s in SERVERS)
                continued = bool(body) and body[0].endswith("\\")  # a walk-through's
                marked = i > 0 and lines[i - 1].startswith("<!-- sample: not run")
                plain = not (server or continued or marked) and len(dollars) == 1
                if body and body[0].startswith("$ plpuzzle ") and plain:
                    found.append(Sample(document, i + 2, body[0][2:], "\n".join(body[1:])))
                i = end
            i += 1
    return found


def matches(shown: str, output: str) -> bool:
    """Whether the output is the sample's, a line `...` of the sample
    standing for any lines (a sample may leave out the middle)."""
    parts = [re.escape(line) if line != "..." else r"(?:[^\n]*\n)*?[^\n]*"
             for line in masked(shown).split("\n")]  # fmt: skip
    return re.fullmatch("\n".join(parts), masked(output)) is not None


def masked(text: str) -> str:
    """The output with what varies from run to run masked: decimal figures,
    the order of the slowest tests, trailing spaces."""
    lines = []
    for line in text.rstrip("\n").splitlines():
        line = re.sub(r"\d+\.\d+", "#", line.rstrip())
        line = re.sub(r"^(slowest:).*", r"\1 ...", line)
        lines.append(line)
    return "\n".join(lines)


def run_sample(sample: Sample, where: Path) -> str:
    """The command's output as a terminal-less user sees it: stdout and
    stderr interleaved in the order written."""
    for name in ("puzzles", "tests", "prolog", "bench", "docs"):
        link = where / "work" / name
        if not link.exists():
            link.parent.mkdir(parents=True, exist_ok=True)
            link.symlink_to(REPO / name)
    if not (where / "shared").exists():
        (where / "shared").symlink_to(SHARED)
    argv = shlex.split(sample.command)
    run = subprocess.run(
        [str(SCRIPT), *argv[1:]],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=600,
        cwd=where / "work",
        env={**os.environ, "PYTHONUNBUFFERED": "1", "COLUMNS": "100"},
    )
    return run.stdout


def write_back(sample: Sample, output: str) -> None:
    """Replace the sample's output lines in its document."""
    lines = sample.document.read_text().splitlines()
    # Found by its command: earlier samples written back may have moved it.
    start = lines.index(f"$ {sample.command}") + 1
    end = next(j for j in range(start, len(lines)) if lines[j].startswith("```"))
    fresh = [line.rstrip() for line in output.rstrip("\n").splitlines()]
    lines[start:end] = fresh
    sample.document.write_text("\n".join(lines) + "\n")


def test_the_documents_have_samples() -> None:
    names = {s.document.name for s in samples()}
    assert {"README.md", "students.md", "engines.md", "other-puzzles.md"} <= names


@pytest.mark.parametrize(
    "sample",
    [
        pytest.param(
            s,
            id=s.name,
            marks=[pytest.mark.slow] if any(w in s.command for w in SLOW_WORDS) else [],
        )
        for s in samples()
    ],
)
def test_a_sample_is_what_the_command_prints(sample: Sample, tmp_path: Path) -> None:
    if "../shared" in sample.command and not SHARED.is_dir():
        pytest.skip(f"the course's suite is not in {SHARED} (set PLPUZZLE_SHARED)")
    output = run_sample(sample, tmp_path)
    if UPDATE:
        if not matches(sample.shown, output):
            write_back(sample, output)
        return
    assert matches(sample.shown, output), f"{sample.name}: {sample.command}\n{output}"
