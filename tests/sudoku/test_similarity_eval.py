"""The similarity report on a labelled set of realistic hand-ins
(tests/fixtures/similarity_eval, described in its labels.toml): family
trees, road and train graphs, list exercises, unrelated fact files and
sudoku solvers, in the styles students write them, eight of them disguised
copies. The report must accuse no one falsely (no pair of independent or
unrelated hand-ins at or above the threshold) and find every copy.

`python -m plpuzzle_lab similarity-eval` prints the same figures.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from once_per_run import once_per_run

from plpuzzle.sudoku.grading import similarity
from plpuzzle.sudoku.grading.similarity.reading import PROLOG
from plpuzzle_lab.similarity_eval import CLASS, Evaluation, evaluate, labels


@pytest.fixture(scope="module")
def compared(request: pytest.FixtureRequest) -> tuple[similarity.Similarity, Evaluation]:
    """The labelled class compared once in the run (once_per_run)."""

    def make(_: Path) -> tuple[similarity.Similarity, Evaluation]:
        sim, left_out = similarity.compare_class(CLASS, jobs=2)
        return sim, evaluate(sim, labels(), left_out)

    return once_per_run(request, make)


def test_no_pair_is_falsely_reported_and_every_copy_is_found(
    compared: tuple[similarity.Similarity, Evaluation],
) -> None:
    _, found = compared
    print("\n" + "\n".join(found.lines()))
    assert found.false == []
    assert found.missed == []
    assert found.precision == 1.0 and found.recall == 1.0
    assert len(found.found) == len(labels().origin) == 8


def test_every_hand_in_is_compared_and_read_by_prolog(
    compared: tuple[similarity.Similarity, Evaluation],
) -> None:
    """Multi-file hand-ins without sudoku.pl included; Latin-1, CRLF and
    SWI-Prolog 7's `ler()` all read."""
    sim, found = compared
    assert found.not_compared == []
    assert {c.student for c in sim.handins} >= {"lab_hans", "lab_piotr", "copy_lab_hans"}
    assert {c.student: c.how for c in sim.handins if c.how != PROLOG} == {}


def test_groups_are_only_of_hand_ins_that_all_match(
    compared: tuple[similarity.Similarity, Evaluation],
) -> None:
    """Each copy of the set is a pair: there is no group. (Linked through
    single pairs, independent family trees and list exercises made two.)"""
    _, found = compared
    assert found.groups == []


def test_two_family_trees_match_by_their_people_not_their_shape(
    compared: tuple[similarity.Similarity, Evaluation],
) -> None:
    """Independent family trees have rules of one shape (father, mother,
    grandparent...) and different people: far below the threshold; the
    copy that renamed every predicate but kept the people is at 100%."""
    sim, _ = compared
    score = {frozenset((sim.student(p.a), sim.student(p.b))): p.score for p in sim.pairs}
    families = ["fam_joao", "fam_klaus", "fam_eszter", "fam_ana", "fam_sicstus"]
    for a in families:
        for b in families:
            if a < b:
                assert score.get(frozenset((a, b)), 0.0) < 0.4, (a, b)
    assert score[frozenset(("fam_joao", "copy_fam_joao"))] == 1.0


def test_short_files_alike_are_not_enough_evidence(
    compared: tuple[similarity.Similarity, Evaluation],
) -> None:
    """Four independent list exercises are largely alike (everyone writes
    length/2 and append/3 one way), but too short to prove anything: a
    high share, and not reported."""
    sim, _ = compared
    pairs = {frozenset((sim.student(p.a), sim.student(p.b))): p for p in sim.pairs}
    alike = pairs[frozenset(("listex_a", "listex_b"))]
    assert alike.score >= sim.settings.threshold
    assert alike.evidence < sim.settings.min_shared
    assert alike not in sim.above()


def test_a_chain_of_copies_is_no_group_of_unrelated_work(tmp_path: Path) -> None:
    """One takes roads_be's facts, another its rules (with roads of its
    own): each is like roads_be, not like each other, so the three are no group (a chain
    through single links would have made one)."""
    folder = tmp_path / "class"
    folder.mkdir()
    lines = (CLASS / "roads_be.pl").read_text().splitlines(keepends=True)
    facts = [line for line in lines if line.startswith("road(")]
    rules = [line for line in lines if not line.startswith("road(")]
    for name in ("roads_be", "estrada_pt", "fam_joao", "sud_b"):
        shutil.copy(CLASS / f"{name}.pl", folder)
    (folder / "chain_facts.pl").write_text("".join(facts) + "far(X, Y) :- road(X, Y, D), D > 50.\n")
    own = "road(utrecht, breda, 70).\nroad(breda, tilburg, 25).\nroad(tilburg, eindhoven, 36).\n"
    (folder / "chain_rules.pl").write_text(own + "".join(rules))
    sim, _ = similarity.compare_class(folder, jobs=2)
    above = {frozenset((sim.student(p.a), sim.student(p.b))) for p in sim.above()}
    assert above == {
        frozenset(("chain_facts", "roads_be")),
        frozenset(("chain_rules", "roads_be")),
    }
    assert sim.clusters() == []


def test_notes_name_each_file_as_handed_in(tmp_path: Path) -> None:
    """A lone frank.pl is loaded as sudoku.pl, but its notes say frank.pl,
    and its syntax error's line is where SWI-Prolog puts it (after the
    comments above the clause)."""
    folder = tmp_path / "class"
    folder.mkdir()
    text = "ok.\n% a comment\n% and another\n\nsudoku(_, L) :-\n    L = [a b].\n"
    (folder / "frank.pl").write_text(text)
    shutil.copy(CLASS / "sud_a.pl", folder / "ida.pl")
    sim, _ = similarity.compare_class(folder)
    frank = next(c for c in sim.handins if c.student == "frank")
    assert [f.name for f in frank.handin.files] == ["frank.pl"]
    (note,) = frank.notes
    assert note.startswith("frank.pl: 1 clause(s) with syntax errors"), note
    assert "the first at line 6:" in note
