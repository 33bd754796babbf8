"""Issue 57: a solution many students hand in, each changing it a little,
is reported as a group with every member, in `similar` and `grade`; a
short guided lab is judged on its own scale. The classes are made by
lab/plpuzzle_lab/similarity_rings.py from a small solver written for it
and the fixtures' independent solutions."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest
from run_plpuzzle import plpuzzle

from plpuzzle.sudoku.grading import similarity
from plpuzzle_lab.similarity_rings import LAB_FACTS, guided_lab, ring_class

REPO = Path(__file__).resolve().parents[2]
SUITE = REPO / "tests" / "fixtures" / "grading_suite"


def _similar_json(folder: Path, out: Path, *extra: str) -> dict:
    run = plpuzzle("sudoku", "similar", folder, "--out", out, "--format", "json", *extra)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def _check_ring(found: dict, members: list[str]) -> None:
    """Every member in the first ring, every pair of them reported, and
    no pair with anyone else."""
    ring = found["rings"][0]
    assert ring["students"] == sorted(members) and ring["size"] == len(members)
    assert ring["common_fingerprints"] >= similarity.MIN_SHARED
    pairs = {frozenset((p["student_a"], p["student_b"])) for p in found["pairs"]}
    assert pairs == {frozenset(p) for p in itertools.combinations(members, 2)}
    assert all(p["why"].endswith(f"one of a group of {len(members)} that all match")
               for p in found["pairs"])  # fmt: skip


def test_ten_of_eighteen_with_one_solution_are_one_group(tmp_path: Path) -> None:
    """Verbatim, behind an include from a hidden folder, behind a megabyte
    of comment, renamed, reordered...: 100% alike, and no longer hidden by
    how many hold it."""
    members = ring_class(tmp_path / "class", 18, 10)
    found = _similar_json(tmp_path / "class", tmp_path / "r")
    _check_ring(found, members)
    assert len(found["handins"]) == 18
    text = plpuzzle("sudoku", "similar", tmp_path / "class", "--out", tmp_path / "t")
    lines = text.stdout.splitlines()
    assert lines[1].startswith("Group of 10 that all match: ")
    assert lines[1].endswith(", ".join(sorted(members)))


def test_a_ring_of_nine_disguised_copies_in_thirty_six(tmp_path: Path) -> None:
    members = ring_class(tmp_path / "class", 36, 9)
    found = _similar_json(tmp_path / "class", tmp_path / "r")
    _check_ring(found, members)
    assert found["scale"]["cut"] == similarity.THRESHOLD  # honest sudoku pairs are far apart


def test_a_ring_of_a_third_of_the_class(tmp_path: Path) -> None:
    members = ring_class(tmp_path / "class", 36, 12)
    _check_ring(_similar_json(tmp_path / "class", tmp_path / "r"), members)


def test_a_guided_lab_is_judged_on_its_own_scale(tmp_path: Path) -> None:
    """Twenty-four independent answers to the same six small questions,
    with the handed-out facts named by --base: honest pairs reach 85% and
    more, the class's scale raises the cut over them, and none is shown."""
    guided_lab(tmp_path / "class", 24)
    facts = tmp_path / "facts.pl"
    facts.write_text(LAB_FACTS)
    found = _similar_json(tmp_path / "class", tmp_path / "r", "--base", str(facts))
    assert found["scale"]["raised"] and found["scale"]["cut"] > 0.65
    assert found["pairs"] == [] and found["rings"] == []
    assert found["same_after_normalisation"] == []


@pytest.mark.sandbox
def test_grade_names_every_member_of_the_ring(tmp_path: Path) -> None:
    members = ring_class(tmp_path / "class", 18, 10)
    run = plpuzzle("sudoku", "grade", tmp_path / "class", "--suite", SUITE, "--only", "test001",
                   "--no-feedback", "--time-limit", "10", "--memory-limit", "1024",
                   "--jobs", "2", "--out", tmp_path / "on")  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "Group of 10 that all match: " in run.stdout
    line = next(x for x in run.stdout.splitlines() if x.startswith("Group of 10"))
    assert line.endswith(", ".join(sorted(members)))
    data = json.loads((tmp_path / "on" / "grades.json").read_text())
    _check_ring(data["similarity"], members)
    assert 'id="similarity-rings"' in (tmp_path / "on" / "grades.html").read_text()
