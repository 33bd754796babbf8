"""`plpuzzle sudoku similar`, and the similarity part of `grade`, as real
processes on real folders: what they print, write and exit with."""

from __future__ import annotations

import csv
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from run_plpuzzle import plpuzzle

REPO = Path(__file__).resolve().parents[2]
EVIDENCE = REPO / "tests" / "fixtures" / "similarity"
EVAL = REPO / "tests" / "fixtures" / "similarity_eval" / "class"
SUITE = REPO / "tests" / "fixtures" / "grading_suite"
SCRIPT = Path(sys.executable).with_name("plpuzzle")


@pytest.fixture
def klass(tmp_path: Path) -> Path:
    """vilma, a reordered copy of her file (as a folder), and two others."""
    folder = tmp_path / "class"
    folder.mkdir()
    for name in ("vilma", "gyula", "petra"):
        shutil.copy(EVIDENCE / "independent" / f"{name}.pl", folder / f"{name}.pl")
    (folder / "olga").mkdir()
    shutil.copy(EVIDENCE / "copies" / "vilma_order.pl", folder / "olga" / "sudoku.pl")
    (folder / "notes.txt").write_text("not a hand-in")
    return folder


def test_text_names_the_pairs_and_the_reports(klass: Path, tmp_path: Path) -> None:
    out = tmp_path / "report"
    run = plpuzzle("sudoku", "similar", klass, "--out", out)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0] == "Similar hand-ins: 4 compared, 1 pair(s) at or above 65%"
    row = next(line.split() for line in lines if line.strip().startswith("1 "))
    assert row == ["1", "olga", "vilma", "100%", "100%", row[-1]]
    assert lines[-1] == (
        f"Reports: {out}/similarity.csv, {out}/similarity.json, {out}/similarity.html"
    )
    assert "plpuzzle: not compared: notes: notes.txt is neither" in run.stderr
    rows = list(csv.DictReader((out / "similarity.csv").open()))
    assert (rows[0]["student_a"], rows[0]["student_b"], rows[0]["at_or_above_threshold"]) == (
        "olga", "vilma", "yes",
    )  # fmt: skip
    assert all(r["at_or_above_threshold"] == "no" for r in rows[1:])
    assert 'id="similarity-table"' in (out / "similarity.html").read_text()


def test_json_is_the_summary_on_stdout(klass: Path, tmp_path: Path) -> None:
    run = plpuzzle("sudoku", "similar", klass, "--out", tmp_path / "r", "--format", "json")
    assert run.returncode == 0, run.stderr
    data = json.loads(run.stdout)
    assert [(p["student_a"], p["student_b"]) for p in data["pairs"]] == [("olga", "vilma")]
    assert data["settings"]["k"] == 12 and data["settings"]["threshold"] == 0.65
    assert json.loads((tmp_path / "r" / "similarity.json").read_text())["pairs"] == data["pairs"]
    assert data["not_compared"] and data["outputs"]


def test_a_lower_threshold_and_quiet(klass: Path, tmp_path: Path) -> None:
    run = plpuzzle("sudoku", "similar", klass, "--threshold", "5", "-q", "--out", tmp_path / "r")
    assert run.returncode == 0, run.stderr
    assert "at or above 5%" in run.stdout
    assert "not compared" not in run.stderr  # -q: results only


def share(report: Path, a: str, b: str) -> float:
    """The larger share of a pair in a similarity.csv (0: not listed)."""
    for r in csv.DictReader((report / "similarity.csv").open()):
        if (r["student_a"], r["student_b"]) == (a, b):
            return max(float(r["share_of_a"]), float(r["share_of_b"]))
    return 0.0


@pytest.mark.slow
def test_base_names_a_file_every_student_was_given(klass: Path, tmp_path: Path) -> None:
    for entry in klass.glob("*.pl"):
        entry.write_text(entry.read_text() + (EVIDENCE / "frame.pl").read_text())
    plain = plpuzzle("sudoku", "similar", klass, "--out", tmp_path / "a")
    based = plpuzzle("sudoku", "similar", klass, "--out", tmp_path / "b", "--format", "json",
                     "--base", EVIDENCE / "frame.pl")  # fmt: skip
    assert plain.returncode == based.returncode == 0
    settings = json.loads(based.stdout)["settings"]
    assert settings["base"] == ["frame.pl"] and settings["base_fingerprints"] > 0
    assert share(tmp_path / "a", "gyula", "petra") > share(tmp_path / "b", "gyula", "petra") + 0.2


def test_without_swipl_it_is_a_setup_error(klass: Path, tmp_path: Path) -> None:
    env = {"PATH": str(tmp_path)}  # no swipl on it
    run = plpuzzle("sudoku", "similar", klass, "--out", tmp_path / "r", env=env)
    assert run.returncode == 3
    assert run.stderr == "plpuzzle: error: SWI-Prolog (swipl) is not installed\n"


@pytest.mark.sandbox
@pytest.mark.slow
def test_grade_compares_the_class_unless_told_not_to(klass: Path, tmp_path: Path) -> None:
    args = ["sudoku", "grade", klass, "--suite", SUITE, "--only", "test001", "--no-feedback",
            "--time-limit", "10", "--memory-limit", "1024", "--jobs", "2"]  # fmt: skip
    run = plpuzzle(*args, "--out", tmp_path / "on")
    assert run.returncode == 0, run.stderr
    assert (
        "Similar hand-ins: 1 pair(s) at or above 65%: olga & vilma (100%/100%) "
        "(side by side in grades.html; every pair in similarity.csv)"
    ) in run.stdout
    assert (tmp_path / "on" / "similarity.csv").exists()
    page = (tmp_path / "on" / "grades.html").read_text()
    assert 'id="similarity"' in page and 'id="similar-pair-1"' in page
    data = json.loads((tmp_path / "on" / "grades.json").read_text())
    assert data["similarity"]["pairs"][0]["student_a"] == "olga"
    off = plpuzzle(*args, "--out", tmp_path / "off", "--no-similarity")
    assert off.returncode == 0, off.stderr
    assert "Similar hand-ins" not in off.stdout
    assert not (tmp_path / "off" / "similarity.csv").exists()
    assert "similarity" not in json.loads((tmp_path / "off" / "grades.json").read_text())
    missing = plpuzzle(*args, "--out", tmp_path / "x", "--base", tmp_path / "nope.pl")
    assert missing.returncode == 2
    assert missing.stderr.startswith("plpuzzle: error: --base ")


def _readers(tmp: Path) -> list[int]:
    """Live reader processes of a plpuzzle whose temporary folder is `tmp`
    (a reader's standard input is a file there), so that readers of other
    tests running beside this one do not count."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                command = (entry / "cmdline").read_bytes()
                stdin = os.readlink(entry / "fd" / "0")
            except OSError:
                continue
            if b"similarity_reader" in command and stdin.startswith(str(tmp)):
                found.append(int(entry.name))
    return found


@pytest.mark.slow
def test_ctrl_c_stops_the_readers_and_exits_130(tmp_path: Path) -> None:
    from plpuzzle_lab.similarity_bench import synthetic_class

    klass = synthetic_class(tmp_path / "class", students=400)
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    proc = subprocess.Popen(
        [str(SCRIPT), "sudoku", "similar", klass, "--out", tmp_path / "r", "--jobs", "2"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "TMPDIR": str(tmp)},
    )
    try:
        assert proc.stderr is not None
        first = proc.stderr.readline()
        assert first.startswith("plpuzzle: comparing the hand-ins of "), first
        deadline = time.monotonic() + 30
        while not _readers(tmp) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _readers(tmp), "no reader started"
        proc.send_signal(signal.SIGINT)
        rest = proc.stderr.read()
        assert proc.wait(timeout=60) == 130
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert rest.endswith("plpuzzle: interrupted\n") and "Traceback" not in rest
    deadline = time.monotonic() + 5
    while _readers(tmp) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _readers(tmp) == []
    assert not (tmp_path / "r").exists()


def test_a_hand_in_of_several_files_without_sudoku_pl_is_compared(tmp_path: Path) -> None:
    """It cannot be graded (which file is the solver?), but each of its
    .pl files is read, and a copy of it is found."""
    folder = tmp_path / "class"
    shutil.copytree(EVAL / "lab_hans", folder / "hans")
    shutil.copytree(EVAL / "copy_lab_hans", folder / "jan")
    shutil.copy(EVAL / "roads_be.pl", folder / "ana.pl")
    run = plpuzzle("sudoku", "similar", folder, "--out", tmp_path / "r", "--format", "json")
    assert run.returncode == 0, run.stderr
    data = json.loads(run.stdout)
    assert data["not_compared"] == []
    assert [(p["student_a"], p["student_b"]) for p in data["pairs"]] == [("hans", "jan")]
    hans = next(h for h in data["handins"] if h["student"] == "hans")
    assert hans["fingerprints"] > 0 and any("no sudoku.pl" in n for n in hans["notes"])
    text = plpuzzle("sudoku", "similar", folder, "--out", tmp_path / "r")
    assert "Compared though they have no sudoku.pl (every .pl file): hans, jan" in text.stdout


def test_a_saved_report_keeps_the_scores_with_long_ids(tmp_path: Path) -> None:
    """Off a terminal the width is 80, and still each pair is one line
    with both ids whole (they used to fold into 11-character pieces)."""
    folder = tmp_path / "class"
    folder.mkdir()
    long_a, long_b = "a" * 30 + "_student_one", "b" * 30 + "_student_two"
    shutil.copy(EVIDENCE / "independent" / "vilma.pl", folder / f"{long_a}.pl")
    shutil.copy(EVIDENCE / "copies" / "vilma_order.pl", folder / f"{long_b}.pl")
    run = plpuzzle("sudoku", "similar", folder, "--out", tmp_path / "r")
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    header = next(line for line in lines if "hand-in A" in line)
    assert header.split()[-3:] == ["fingerprints", "in", "common"]
    row = next(line.split() for line in lines if line.strip().startswith("1 "))
    assert row[:3] == ["1", long_a, long_b]
    assert row[-3:-1] == ["100%", "100%"] and row[-1].isdigit()


@pytest.mark.sandbox
def test_grade_compares_the_hand_ins_it_cannot_grade_too(klass: Path, tmp_path: Path) -> None:
    """Several .pl files and no sudoku.pl: graded 0 (which is the solver?),
    and compared all the same."""
    shutil.copytree(EVAL / "lab_hans", klass / "hans")
    shutil.copytree(EVAL / "copy_lab_hans", klass / "jan")
    run = plpuzzle("sudoku", "grade", klass, "--suite", SUITE, "--only", "test001",
                   "--no-feedback", "--time-limit", "10", "--memory-limit", "1024",
                   "--jobs", "2", "--out", tmp_path / "on")  # fmt: skip
    assert run.returncode == 0, run.stderr
    data = json.loads((tmp_path / "on" / "grades.json").read_text())
    assert {"hans", "jan"} <= set(data["ungradable"])
    pairs = [(p["student_a"], p["student_b"]) for p in data["similarity"]["pairs"]]
    assert ("hans", "jan") in pairs and ("olga", "vilma") in pairs
