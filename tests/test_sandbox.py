"""The sandbox's parts: reply grammar, copies, run folders, and a loaded program."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

import pytest
from tiny_solver import GOAL, SOLVER

from plpuzzle.sandbox import cgroups
from plpuzzle.sandbox.jail import Limits
from plpuzzle.sandbox.program import ReplyError, ReplyReader, RunEnd, SandboxedProgram
from plpuzzle.sandbox.workspace import (
    FOLDER_PREFIX,
    RunFolder,
    read_regular_files,
)

# Every test here builds or checks the grading sandbox.
pytestmark = [pytest.mark.sandbox]

TAGS = frozenset({"a", "end", "done"})


def test_reply_lines_are_split_and_checked() -> None:
    reader = ReplyReader(TAGS, 1000, 50)
    assert reader.feed(b"a [[1]]\nen") == [("a", "[[1]]")]
    assert reader.feed(b"d\ndone 1 x\n") == [("end", ""), ("done", "1 x")]
    with pytest.raises(ReplyError) as bad:
        reader.feed(b'{"status":"ok"}\n')
    assert bad.value.end is RunEnd.BROKEN_REPLY


@pytest.mark.parametrize(
    ("chunks", "end"),
    [
        ([b"a " + b"1" * 60], RunEnd.TOO_MUCH_REPLY),
        ([b"a 1\n"] * 300, RunEnd.TOO_MUCH_REPLY),
        # No tag of the grammar in its first bytes: refused before the line ends.
        ([b"x" * 30, b"x" * 30], RunEnd.BROKEN_REPLY),
    ],
)
def test_reply_bounds_hold_without_a_newline(chunks: list[bytes], end: RunEnd) -> None:
    """Neither one endless line nor many lines get past the bounds."""
    reader = ReplyReader(TAGS, 1000, 50)
    with pytest.raises(ReplyError) as bad:
        for chunk in chunks:
            reader.feed(chunk)
    assert bad.value.end is end


def test_text_replies_are_kept_to_a_budget_and_the_rest_is_counted() -> None:
    """An exception's lines are kept up to their budget however long they
    are, across lines, and what is cut is counted, not buffered."""
    reader = ReplyReader(frozenset({"x", "a"}), 10_000, 50, {"x": 30})
    got = reader.feed(b"x " + b"e" * 20 + b"\nx " + b"f" * 400)
    assert got == [("x", "e" * 20)]
    assert reader.pending()
    got = reader.feed(b"f" * 500 + b"\nx g\na 1\n")
    assert got == [("x", "f" * 10), ("x", ""), ("a", "1")]
    assert reader.cut == {"x": 890 + 1}
    assert not reader.pending()


def test_only_regular_files_are_read(tmp_path: Path) -> None:
    sub = tmp_path / "sub"
    (sub / "lib").mkdir(parents=True)
    (sub / "sudoku.pl").write_text("sudoku(_, _).\n")
    (sub / "lib" / "helper.pl").write_text("h.\n")
    secret = tmp_path / "test001s.txt"
    secret.write_text("[].\n")
    (sub / "test001s.txt").symlink_to(secret)
    (sub / "linked_dir").symlink_to(tmp_path)
    os.mkfifo(sub / "pipe")
    files = read_regular_files(sub)
    assert [name for name, _ in files.files] == ["lib/helper.pl", "sudoku.pl"]
    assert sorted(r.split(":")[0] for r in files.refused) == ["linked_dir", "pipe", "test001s.txt"]
    before = files.digest()
    (sub / "lib" / "helper.pl").write_text("h2.\n")
    assert read_regular_files(sub).digest() != before
    linked = tmp_path / "eve.pl"
    linked.symlink_to(sub / "sudoku.pl")
    single = read_regular_files(linked, "sudoku.pl")
    assert single.files == () and "symbolic link" in single.refused[0]


def test_stale_run_folders_are_removed(tmp_path: Path) -> None:
    dead = tmp_path / f"{FOLDER_PREFIX}rdead"
    dead.mkdir()
    (dead / "lock").write_text("")
    live = tmp_path / f"{FOLDER_PREFIX}rlive"
    live.mkdir()
    lock = os.open(live / "lock", os.O_RDWR | os.O_CREAT)
    fcntl.flock(lock, fcntl.LOCK_EX)
    try:
        with RunFolder(tmp_path) as run:
            assert not dead.exists()
            assert live.exists()
            assert run.path.exists()
        assert not run.path.exists()
    finally:
        os.close(lock)


@pytest.fixture(params=["cgroup", "process tree"])
def meter(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run with the machine's control groups, and without them."""
    if request.param == "cgroup" and cgroups.layout() is None:
        pytest.skip("no writable control groups on this machine")
    if request.param == "process tree":
        monkeypatch.setattr(cgroups, "layout", lambda: None)
    return request.param


def program(tmp_path: Path, source: str, run: RunFolder, cpu: float = 2.0) -> SandboxedProgram:
    """A tiny program with a tight limit per test; loading gets room of its
    own, so that a loaded machine (where CPU time may be charged as wall
    time) cannot stop it before the tests begin."""
    folder = run.folder("sub")
    (folder / "sudoku.pl").write_text(source)
    limits = Limits(cpu_seconds=cpu, wall_seconds=cpu + 4, memory_mb=512,
                    load_cpu_seconds=60, load_wall_seconds=120)  # fmt: skip
    return SandboxedProgram(run, folder, "sudoku.pl", "sudoku/2", "swi", limits)


def test_a_loaded_program_answers_every_test_from_a_fresh_child(tmp_path: Path, meter: str) -> None:
    source = SOLVER + ":- dynamic seen/0.\nsudoku(_, _) :- seen, !, fail.\n"
    with RunFolder() as run, program(tmp_path, source, run) as prog:
        assert prog.load().loaded
        counts = []
        for _ in range(3):
            obs = prog.run(f"({GOAL}, assertz(seen))", "S")
            assert obs.end is RunEnd.FINISHED, obs.detail
            counts.append(len(obs.answers))
        # 4x4 latin squares with a 1 in the corner (576 / 4): the same every time,
        # since what one test asserts dies with its child.
        assert counts == [144, 144, 144]
        assert all(ground for ground, _ in obs.answers)


def test_cpu_limit_and_a_forged_reply_end_only_their_run(tmp_path: Path, meter: str) -> None:
    source = (
        SOLVER
        + "sudoku(loop, _) :- repeat, fail.\n"
        + "sudoku(forge, _) :- stream_property(S, file_no(1)), "
        + 'format(S, \'{"status":"ok"}~n\', []), flush_output(S).\n'
    )
    with RunFolder() as run, program(tmp_path, source, run, cpu=1.5) as prog:
        assert prog.load().loaded
        looped = prog.run("sudoku(loop, S)", "S")
        assert looped.end is RunEnd.CPU_LIMIT
        assert looped.cpu_seconds >= 1.5  # how far past it depends on the machine's load
        assert not prog.alive
        assert prog.load().loaded
        forged = prog.run("sudoku(forge, S)", "S")
        assert forged.end is RunEnd.BROKEN_REPLY
        assert "status" in forged.detail
        assert prog.load().loaded
        assert prog.run(GOAL, "S").end is RunEnd.FINISHED
    assert prog.problems == []
    assert not run.path.exists()


@pytest.mark.parametrize(
    "head",
    [
        "% UTF-8 with a byte order mark: \u00e9\n".encode("utf-8-sig"),
        "% Latin-1, as SICStus users wrote Hungarian: \u00e1rv\u00edzt\u00fcr\u00f6\n".encode(
            "latin-1"
        ),
    ],
    ids=["utf8-bom", "latin1"],
)
def test_sicstus_files_load_in_their_encoding(tmp_path: Path, head: bytes) -> None:
    with RunFolder() as run:
        folder = run.folder("sub")
        (folder / "sudoku.pl").write_bytes(head + b"sudoku(_, [[1]]).\n")
        limits = Limits(cpu_seconds=5, wall_seconds=10, memory_mb=512)
        with SandboxedProgram(run, folder, "sudoku.pl", "sudoku/2", "sicstus4", limits) as prog:
            report = prog.load()
            assert report.loaded and report.messages == []
            assert prog.run("sudoku(s(1, [[[]]]), S)", "S").answers == [(True, "[[1]]")]
