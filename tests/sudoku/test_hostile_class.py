"""One hand-in never stops the class: the third round of attacks, graded.

The whole third round (every kind of hostile hand-in of
tests/fixtures/python/hostile.py, beside an honest student, alice) is
graded once as one class through the real command line, on the local
pool: it is graded (exit 0), alice gets full marks, a feedback file and
her report row, each hostile entry gets a verdict or a note that says in
words what happened, and the grader's memory and the reports' sizes are
bounded. The colluders are also graded alone beside alice, where their
pair is drawn side by side. In CI (slow), each kind is also graded alone
beside alice, with the kind's own options, by a grader that is not root
and on a Dask cluster.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import hostile
import pytest
from as_nobody import AS_NOBODY, NOBODY, nobody_python, peak_memory_mb, shared_folder
from clusters import cluster

pytestmark = [pytest.mark.sandbox]

#: The limits of every grading here: small, so that the class is quick.
LIMITS = ("--time-limit", "5", "--wall-limit", "15", "--memory-limit", "1024", "--jobs", "2")
#: What a grading may take before the test calls it a hang.
HANG_SECONDS = 300
#: Bounds on the whole third round at once.
CLASS_GRADER_MB = 1024
CLASS_REPORT_MB = 20


@dataclass
class Graded:
    """One grading run: how it ended and what it wrote."""

    returncode: int
    stdout: str
    stderr: str
    out: Path
    seconds: float = 0.0
    grader_mb: float = 0.0

    @property
    def said(self) -> str:
        return f"exit {self.returncode}\n{self.stdout[-3000:]}\n{self.stderr[-3000:]}"

    @property
    def report(self) -> dict:
        return json.loads((self.out / "grades.json").read_text(encoding="utf-8"))

    def student(self, key: str) -> dict:
        """The row whose id is `key`, or else the only one that holds it."""
        rows = self.report["students"]
        exact = [s for s in rows if s["id"] == key]
        found = exact or [s for s in rows if key in s["id"]]
        assert len(found) == 1, (key, [s["id"] for s in rows])
        return found[0]

    def csv_rows(self, name: str = "grades.csv") -> list[list[str]]:
        return list(csv.reader(io.StringIO((self.out / name).read_text(encoding="utf-8"))))


def grade(
    klass: Path,
    suite: Path,
    out: Path,
    *extra: str,
    prefix: tuple[str, ...] = (),
    env: dict[str, str] | None = None,
    python: str = sys.executable,
    hang_seconds: float = HANG_SECONDS,
) -> Graded:
    """`plpuzzle sudoku grade` on the class, watched: its time and peak memory."""
    argv = [*prefix, python, "-m", "plpuzzle", "sudoku", "grade", str(klass),
            "--suite", str(suite), "--out", str(out), *LIMITS, *extra]  # fmt: skip
    start = time.monotonic()
    with tempfile.TemporaryFile() as stdout, tempfile.TemporaryFile() as stderr:
        proc = subprocess.Popen(
            argv, stdout=stdout, stderr=stderr, start_new_session=True,
            env={**os.environ, **(env or {}), "PYTHONIOENCODING": "utf-8"},
        )  # fmt: skip
        peak = 0.0
        try:
            while proc.poll() is None:
                if time.monotonic() - start > hang_seconds:
                    pytest.fail(f"the grading hung: still running after {hang_seconds:g} s")
                peak = max(peak, peak_memory_mb(proc.pid))
                time.sleep(0.05)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, 9)
            proc.wait()
        stdout.seek(0)
        stderr.seek(0)
        texts = [f.read().decode("utf-8", errors="replace") for f in (stdout, stderr)]
    return Graded(proc.returncode, *texts, out, time.monotonic() - start, peak)


def options(kind: hostile.Kind) -> list[str]:
    extra = [] if kind.similarity else ["--no-similarity"]
    return [*extra, "--shrink-seconds", f"{kind.shrink_seconds:g}"]


# -- what every grading must show ---------------------------------------------------------


def check_honest(graded: Graded) -> None:
    """alice: full marks, her row in every report, her feedback files."""
    assert graded.returncode == 0, graded.said
    alice = graded.student(hostile.HONEST)
    assert alice["score"] == alice["max_score"] > 0, alice
    assert all(r["grade"] == "correct" for r in alice["results"]), alice["results"]
    for name in ("grades.csv", "grades-wide.csv"):
        rows = [row for row in graded.csv_rows(name) if row[0] == hostile.HONEST]
        assert len(rows) == 1, name
    for suffix in (".md", ".html"):
        path = graded.out / "feedback" / f"{hostile.HONEST}{suffix}"
        assert path.is_file() and path.stat().st_size > 0, path
    assert hostile.HONEST in (graded.out / "grades.html").read_text(encoding="utf-8")


def check_hostile(graded: Graded, kind: hostile.Kind) -> None:
    """Each hostile entry: a grade it may get, and what happened in words."""
    for key, want in kind.expect.items():
        row = graded.student(key)
        said = " ".join(row["notes"])
        for result in row["results"]:
            assert result["grade"] in want.grades, (key, result["test"], result["grade"], said)
            said += f" {result['detail']} {result['evidence']}"
        assert want.words in said, (key, want.words, said[:2000])


def check_kind(graded: Graded, kind: hostile.Kind, alone: bool = True) -> None:
    """What a kind asks beyond grades and notes (`alone`: graded beside
    alice only, with the kind's own options)."""
    stdout, stderr = graded.stdout, graded.stderr
    assert "\x1b" not in stdout + stderr, "a submission's control character reached the terminal"
    data = graded.report
    if kind.name == "forged_gap":
        detail = graded.student("gap_forger")["results"][0]["detail"]
        assert "plpuzzle's gap" not in detail and data["not_emulated"] == [], detail
    if kind.name == "bad_ids":
        ids = [row[0] for row in graded.csv_rows()[1:]]
        assert f"'{hostile.FORMULA}" in ids, ids
        assert not [i for i in ids if i.startswith(("=", "+", "-", "@"))], ids
        for name in ("grades-wide.csv",):
            assert not [r[0] for r in graded.csv_rows(name)[1:] if r[0].startswith("=")]
        lookalike = graded.student("\\u0430lice")["id"]
        assert lookalike != hostile.HONEST and "\\u0430" in lookalike, lookalike
    if kind.name == "long_id":
        names = {p.name for p in (graded.out / "feedback").iterdir()}
        assert len(names) >= 4, names  # alice's and the long id's, .md and .html
        assert all(len(n.encode()) <= 255 for n in names)
    if kind.name in ("huge_names", "bzip2_bomb", "comma_floods"):
        assert (graded.out / "grades.json").stat().st_size < 1 << 20
    if kind.name == "wrong_on_k6":
        row = graded.student("k6_wrong")
        k6 = next(r for r in row["results"] if r["test"] == hostile.K6_TEST)
        assert k6["grade"] == "wrong", k6
        assert (graded.out / "feedback" / "k6_wrong.md").is_file()
    if kind.similarity:
        pairs = {(r[0], r[1]): r for r in graded.csv_rows("similarity.csv")[1:]}
        if kind.name == "colluders":
            assert pairs[("twin_a", "twin_b")][-1] == "yes", pairs
            page = (graded.out / "grades.html").read_text(encoding="utf-8")
            assert not alone or "Only part of what they share is marked" in page
        if kind.name == "hidden_copies":
            for copier in ("padded", "sneaky"):
                pair = pairs.get(("alice", copier)) or pairs.get((copier, "alice"))
                assert pair is not None and pair[-1] == "yes", (copier, pairs)


def check_all(graded: Graded, kind: hostile.Kind) -> None:
    assert 0 < graded.grader_mb < CLASS_GRADER_MB, graded.grader_mb
    check_honest(graded)
    check_hostile(graded, kind)
    check_kind(graded, kind)


def class_of(work: Path, kind: hostile.Kind) -> tuple[Path, Path]:
    klass = hostile.make_class(work / "class", [kind])
    suite = hostile.make_suite(work / "suite", kind.tests)
    return klass, suite


KINDS = {k.name: k for k in hostile.KINDS}


# -- the whole round at once, locally ------------------------------------------------------


@pytest.mark.slow  # a whole class graded; the colluders alone stay in the default run
def test_the_whole_third_round_as_one_class(tmp_path: Path) -> None:
    """Every hostile kind in one class beside alice, with similarity and
    feedback, graded once: it is graded (exit 0), alice is whole, every
    kind's entries get what they may and its own checks hold (all kinds
    checked, the failures named by kind), the grader stays under 1 GB and
    no report file passes 20 MB. The time it took is printed (every step
    has a budget; the figure is the docs', not an assertion)."""
    klass = hostile.make_class(tmp_path / "class", hostile.KINDS)
    tests = tuple(dict.fromkeys(t for k in hostile.KINDS for t in k.tests))
    suite = hostile.make_suite(tmp_path / "suite", tests)
    graded = grade(klass, suite, tmp_path / "out", "--shrink-seconds", "8", hang_seconds=1800)
    entries = len(list(klass.iterdir()))
    sizes = {
        str(p.relative_to(graded.out)): p.stat().st_size
        for p in graded.out.rglob("*")
        if p.is_file() and p.name != "grades.sqlite"
    }
    largest = max(sizes.items(), key=lambda item: item[1])
    print(
        f"the third round as one class: {entries} entries, {len(tests)} tests, "
        f"graded in {graded.seconds:.0f} s, grader peak {graded.grader_mb:.0f} MB, "
        f"largest report file {largest[0]} ({largest[1] / 1e6:.2f} MB)"
    )
    check_honest(graded)
    failed: dict[str, str] = {}
    for kind in hostile.KINDS:
        try:
            check_hostile(graded, kind)
            check_kind(graded, kind, alone=False)
        except AssertionError as e:
            failed[kind.name] = str(e)[:1500]
    assert not failed, failed
    assert 0 < graded.grader_mb < CLASS_GRADER_MB
    assert largest[1] < CLASS_REPORT_MB << 20, largest


@pytest.mark.slow
def test_the_colluders_alone_beside_an_honest_student(tmp_path: Path) -> None:
    """Alone, the colluders' pair is drawn side by side (in the whole round
    the page's room goes to other pairs first), its marking cut short."""
    kind = KINDS["colluders"]
    klass, suite = class_of(tmp_path, kind)
    check_all(grade(klass, suite, tmp_path / "out", *options(kind)), kind)


# -- each kind alone beside alice: as nobody, on Dask -------------------------------------


@pytest.fixture
def world_readable() -> Iterator[Path]:
    """A folder the unprivileged user may read and write in."""
    with shared_folder("plpuzzle-hostile-") as work:
        yield work


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(KINDS))
def test_each_hostile_kind_graded_by_a_grader_that_is_not_root(
    world_readable: Path, name: str
) -> None:
    kind = KINDS[name]
    klass, suite = class_of(world_readable, kind)
    out = world_readable / "out"
    out.mkdir()
    for path in [world_readable, *world_readable.rglob("*")]:
        with contextlib.suppress(OSError):
            os.chown(path, NOBODY, NOBODY, follow_symlinks=False)
    python, env = nobody_python()
    graded = grade(klass, suite, out, *options(kind), prefix=AS_NOBODY, python=python,
                   env={**env, "HOME": str(out), "TMPDIR": "/tmp"})  # fmt: skip
    assert "not root" in graded.stderr, graded.said
    check_all(graded, kind)


@pytest.fixture(scope="module")
def dask_cluster() -> Iterator[str]:
    with cluster(2) as (address, _client):
        yield address


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(KINDS))
def test_each_hostile_kind_graded_on_a_dask_cluster(
    tmp_path: Path, name: str, dask_cluster: str
) -> None:
    kind = KINDS[name]
    klass, suite = class_of(tmp_path, kind)
    graded = grade(klass, suite, tmp_path / "out", *options(kind), "--scheduler", dask_cluster)
    check_all(graded, kind)
    ran = {r["ran_on"] for r in graded.student(hostile.HONEST)["results"]}
    assert all("dask worker" in place for place in ran), ran
