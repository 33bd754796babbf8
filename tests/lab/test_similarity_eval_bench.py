"""The lab's evaluation of the similarity report on the labelled set:
`python -m plpuzzle_lab similarity-eval` prints precision and recall and
exits 1 when a pair is falsely reported or a copy missed."""

from __future__ import annotations

import subprocess
import sys

from plpuzzle_lab.similarity_eval import Evaluation, Labels, labels


def test_the_command_prints_precision_and_recall() -> None:
    run = subprocess.run(
        [sys.executable, "-m", "plpuzzle_lab", "similarity-eval", "--jobs", "2"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    lines = run.stdout.splitlines()
    assert lines[2] == "precision 100.0%, recall 100.0%"
    assert "0 false" in lines[1]


def test_the_figures_count_what_they_say() -> None:
    """Precision and recall from hand-made rows: a false pair lowers the
    one, a missed copy the other (and the exit code would say so)."""
    found = Evaluation(["a", "b", "c", "d"], 0.65, 30.0)
    found.found = [(1.0, 50.0, "a", "b")]
    found.false = [(0.7, 31.0, "c", "d")]
    found.missed = [(0.5, 40.0, "a", "c")]
    assert found.precision == 0.5 and found.recall == 0.5
    assert "  false pair: c ~ d (70%, evidence 31.0)" in found.lines()
    assert "  missed copy: a ~ c (50%, evidence 40.0)" in found.lines()


def test_the_labels_pair_copies_with_their_origins() -> None:
    truth = labels()
    assert isinstance(truth, Labels) and len(truth.origin) == 8
    assert truth.is_copy("fam_joao", "copy_fam_joao")
    assert not truth.is_copy("fam_joao", "fam_klaus")
    assert set(truth.kinds) >= set(truth.origin) | set(truth.origin.values())
