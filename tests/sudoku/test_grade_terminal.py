"""`plpuzzle sudoku grade` on a real terminal (a pty): what the screen shows."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from terminal import run_on_pty, screen

REPO = Path(__file__).resolve().parents[2]
SUITE = REPO / "tests" / "fixtures" / "grading_suite"
FIXTURES = REPO / "tests" / "fixtures"


def test_the_screen_replays_what_rich_draws() -> None:
    """The replay can fail: a bar that is redrawn and then left shows."""
    drawn = "one\r\n\x1b[?25l\r\x1b[2K\x1b[32mbar 1\x1b[0m\r\x1b[2Kbar 2"
    assert screen(drawn) == ["one", "bar 2"]
    assert screen(drawn + "\r\n\x1b[?25h\r\x1b[1A\x1b[2Kdone\r\n") == ["one", "done", ""]


@pytest.mark.sandbox
def test_ctrl_c_stops_the_progress_bar_before_the_summary(tmp_path: Path) -> None:
    """Ctrl-C while the bar is live: the summary of what was kept is the
    last thing on the screen, and no bar is drawn into it or below it."""
    class_dir = tmp_path / "class"
    class_dir.mkdir()
    shutil.copy(FIXTURES / "solvers" / "loops.pl", class_dir / "lou.pl")
    shutil.copy(FIXTURES / "class" / "alice.pl", class_dir / "alice.pl")
    args = ["sudoku", "grade", class_dir, "--suite", SUITE, "--out", tmp_path / "out",
            "--time-limit", "60", "--jobs", "1", "--no-feedback"]  # fmt: skip
    # Once alice's tests are being graded (lou's loop until the limit).
    graded = re.compile(r"grading .* [1-9][0-9]*/12\b")
    run = run_on_pty(args, tmp_path, interrupt_when=lambda out: bool(graded.search(out)))
    assert run.returncode == 130, run.text
    assert "grading" in run.text  # the bar was drawn: this was a terminal
    shown = [line for line in screen(run.text) if line]
    [summary] = [i for i, line in enumerate(shown) if "interrupted after" in line]
    assert shown[summary].startswith("plpuzzle: interrupted after"), shown
    assert shown[-1] == "plpuzzle: interrupted", shown
    assert not [line for line in shown if "━" in line or "grading" in line], shown
