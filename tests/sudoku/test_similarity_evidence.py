"""Evidence that the similarity report separates disguised copies from
independent work, on a class built for it (tests/fixtures/similarity):

- independent: the 12 students of the SICStus class, the red team's two
  controls (as they are in git), and six solutions written in other
  styles (independent/);
- copies: nine disguised copies (copies/, described in copies.toml):
  renamed variables, renamed predicates and atoms, reordered clauses and
  predicates, new comments and layout, a helper inlined, helpers split, a
  copy with clauses added, and all of these at once.

Every pair of a copy and what it was made from (or another copy of it) is
at or above the threshold; no pair of independent hand-ins is. The test
prints both distributions and the margin (run it with -s to see them).
The class is built by the lab (plpuzzle_lab.similarity_bench), whose
`python -m plpuzzle_lab similarity --sweep` compares it with other values
of k and the window.
"""

from __future__ import annotations

import itertools
import shutil
from pathlib import Path

import pytest
from once_per_run import once_per_run

from plpuzzle.sudoku.grading import similarity
from plpuzzle.sudoku.grading.similarity import compare_class
from plpuzzle.sudoku.grading.similarity.reading import PROLOG
from plpuzzle_lab.similarity_bench import evidence_class, separation

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures"
EVIDENCE = FIXTURES / "similarity"
#: The least distance between the lowest copy pair and the highest
#: independent pair; the threshold lies between them.
MARGIN = 0.1


@pytest.fixture(scope="module")
def evidence(request: pytest.FixtureRequest) -> tuple[similarity.Similarity, dict]:
    """The evidence class compared once in the run (once_per_run)."""

    def make(work: Path) -> tuple[similarity.Similarity, dict]:
        origin = evidence_class(work / "class")
        sim, left_out = compare_class(work / "class", jobs=2)
        assert left_out == []
        return sim, origin

    return once_per_run(request, make)


def _histogram(scores: list[float]) -> str:
    bins = [0] * 10
    for s in scores:
        bins[min(int(s * 10), 9)] += 1
    return "  ".join(f"{10 * i}-{10 * i + 10}%: {n}" for i, n in enumerate(bins) if n)


def test_copies_are_above_the_threshold_and_independent_work_below(
    evidence: tuple[similarity.Similarity, dict],
) -> None:
    sim, origin = evidence
    settings = sim.settings
    copied, independent = separation(sim, origin)
    assert len(independent) == 20 * 19 // 2 and len(copied) == 10
    low, high = copied[0], independent[-1]
    print(f"\nthreshold {settings.threshold:.0%} (and evidence {settings.min_shared}), "
          f"k = {settings.k}, window = {settings.window}")  # fmt: skip
    print(f"copy pairs ({len(copied)}): " + _histogram([s for s, *_ in copied]))
    for score, evidence, a, b in copied:
        print(f"  {score:6.1%} {evidence:6.1f}  {a} ~ {b}")
    print(f"independent pairs ({len(independent)}): " + _histogram([s for s, *_ in independent]))
    for score, evidence, a, b in independent[-5:]:
        print(f"  {score:6.1%} {evidence:6.1f}  {a} ~ {b}")
    print(
        f"lowest copy pair {low[0]:.1%} ({low[2]} ~ {low[3]}), highest independent "
        f"pair {high[0]:.1%} ({high[2]} ~ {high[3]}): margin {low[0] - high[0]:.1%}"
    )
    for score, evidence, a, b in copied:
        assert score >= settings.threshold and evidence >= settings.min_shared, (a, b)
    above = [(a, b) for s, n, a, b in independent
             if s >= settings.threshold and n >= settings.min_shared]  # fmt: skip
    assert above == []
    assert low[0] - high[0] >= MARGIN


def test_every_hand_in_was_read_by_prolog_but_the_one_with_a_syntax_error(
    evidence: tuple[similarity.Similarity, dict],
) -> None:
    sim, _ = evidence
    how = {c.student: c.how for c in sim.handins}
    assert how.pop("ferenc") == "partly as tokens"
    assert set(how.values()) == {PROLOG}


def test_a_hand_in_and_its_two_copies_form_a_group(
    evidence: tuple[similarity.Similarity, dict],
) -> None:
    sim, _ = evidence
    assert ["copy_rozsa_order", "copy_rozsa_vars", "rozsa"] in sim.clusters()
    assert all(len(g) == 3 for g in sim.clusters())  # no group of independent work


def test_the_red_team_controls_with_their_shared_core_are_found(tmp_path: Path) -> None:
    """As graded, both controls hold the solving core of core.pl.txt (the
    red team's tests write it into each copy): the same code, found."""
    folder = tmp_path / "class"
    folder.mkdir()
    core = (FIXTURES / "redteam" / "core.pl.txt").read_text()
    plain = (FIXTURES / "redteam" / "ctl_plain.pl").read_text()
    (folder / "ctl_plain.pl").write_text(plain.replace("% @solving-core@\n", core))
    shutil.copytree(FIXTURES / "redteam" / "ctl_folder", folder / "ctl_folder")
    model = folder / "ctl_folder" / "model.pl"
    model.write_text(model.read_text().replace("% @solving-core@\n", core))
    shutil.copy(EVIDENCE / "independent" / "vilma.pl", folder)
    sim, _ = compare_class(folder)
    assert [(sim.student(p.a), sim.student(p.b)) for p in sim.above()] == [
        ("ctl_folder", "ctl_plain")
    ]


def test_base_code_is_left_out(tmp_path: Path) -> None:
    """Four independent solutions, each handed in with the course's frame
    program pasted in, and one copy: the frame makes independent work look
    alike until --base names it; the copy stays."""
    folder = tmp_path / "class"
    folder.mkdir()
    frame = (EVIDENCE / "frame.pl").read_text()
    names = ["rozsa", "vilma", "zoltan", "gyula"]
    for name in names:
        own = (EVIDENCE / "independent" / f"{name}.pl").read_text()
        (folder / f"{name}.pl").write_text(own + "\n" + frame)
    copy = (EVIDENCE / "copies" / "vilma_order.pl").read_text()
    (folder / "copy_vilma.pl").write_text(frame + "\n" + copy)
    with_frame, _ = compare_class(folder)
    without_frame, _ = compare_class(folder, base=[EVIDENCE / "frame.pl"])
    assert without_frame.base_prints > 0
    assert without_frame.settings.base == ("frame.pl",)

    def scores(sim: similarity.Similarity) -> dict[tuple[str, str], float]:
        return {(sim.student(p.a), sim.student(p.b)): p.score for p in sim.pairs}

    before, after = scores(with_frame), scores(without_frame)
    independent = [(a, b) for a, b in itertools.combinations(sorted(names), 2)]
    # Held by all five, the frame makes about 40% of each pair (popularity
    # weighs nothing down since issue 57: the teacher names the frame);
    # with --base it is gone.
    for pair in independent:
        assert 0.3 <= before[pair] < 0.6 and after.get(pair, 0.0) < 0.2, pair
        assert after.get(pair, 0.0) < before[pair], pair
    for sim in (with_frame, without_frame):
        assert [(sim.student(p.a), sim.student(p.b)) for p in sim.above()] == [
            ("copy_vilma", "vilma")
        ]
