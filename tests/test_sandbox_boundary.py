"""The sandbox's trust boundary, second round: nothing a submission does to its
pipes, its output or its processes can block the grader or fill its memory,
and what a submission can see of the machine is only what SWI-Prolog needs.

Each test runs real SWI-Prolog in the real sandbox, on small programs that
attack one thing each.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest
from tiny_solver import GOAL, SOLVER

from plpuzzle.sandbox import cgroups, jail
from plpuzzle.sandbox.jail import Limits
from plpuzzle.sandbox.program import TEXT_BUDGET, RunEnd, SandboxedProgram, SandboxSetupError
from plpuzzle.sandbox.workspace import RunFolder, SubmissionFiles

pytestmark = [pytest.mark.sandbox]


def program(
    run: RunFolder, source: str, cpu: float = 3.0, wall: float = 6.0, name: str = "sudoku.pl"
) -> SandboxedProgram:
    """A program with tight limits per test; loading gets room of its own,
    so that a loaded machine cannot stop it before the tests begin."""
    files = SubmissionFiles(((name, source.encode()),), ())
    limits = Limits(cpu_seconds=cpu, wall_seconds=wall, memory_mb=512,
                    load_cpu_seconds=60, load_wall_seconds=120)  # fmt: skip
    return SandboxedProgram(run, files, name, "sudoku/2", "swi", limits)


def test_a_sandbox_that_stops_reading_cannot_block_the_request() -> None:
    """The loader is replaced at load time by one that never reads again; the
    request is far larger than any pipe. The grader's write must not block:
    the run meets its wall-clock limit and says why."""
    source = SOLVER + (
        ":- abolish(sandbox_loader:serve/1).\n"
        ":- assertz((sandbox_loader:serve(_) :- repeat, sleep(1), fail)).\n"
    )
    padding = "x" * 400_000  # much more than a pipe's 64 KiB
    with RunFolder() as run, program(run, source, wall=2.0) as prog:
        assert prog.load().loaded
        start = time.monotonic()
        obs = prog.run(f"(atom_length('{padding}', _), {GOAL})", "S")
        took = time.monotonic() - start
    assert obs.end is RunEnd.WALL_LIMIT, obs
    assert "stopped reading its request" in obs.detail, obs.detail
    # Its limits, not a blocked write, ended it: the loader it put in place
    # sleeps for ever, and the backstop (stretched on a busy machine) is
    # at most three times 2 s.
    assert took < 60, took


def test_an_exception_and_load_messages_are_kept_to_their_budget() -> None:
    """20 MB of exception text, and 500 warnings of 20 KB each while loading
    (as much again goes to standard error, under its 16 MB file limit): the
    grader keeps a few KB of each, and says how much it cut."""
    source = SOLVER.replace("sudoku(", "real_sudoku(") + (
        "big(A) :- length(L, 1000000), maplist(=(0'y), L), atom_codes(M, L),\n"
        "    length(Ms, 20), maplist(=(M), Ms), atomic_list_concat(Ms, A).\n"
        "sudoku(_, _) :- big(A), throw(error(flood(A), _)).\n"
        ":- forall(between(1, 500, _), (length(L, 20000), maplist(=(0'm), L), "
        "atom_codes(A, L), print_message(warning, format('~w', [A])))).\n"
    )
    with RunFolder() as run, program(run, source, cpu=20, wall=40) as prog:
        report = prog.load()
        assert report.loaded
        kept = "\n".join(report.messages)
        assert len(kept.encode()) < TEXT_BUDGET["msg"] + 200
        assert report.messages[-1].startswith("(cut: ") and "bytes more)" in report.messages[-1]
        more = int(report.messages[-1].split()[1])
        assert more > 9_000_000  # the rest of the warnings, counted
        obs = prog.run(GOAL, "S")
    assert obs.end is RunEnd.RAISED, obs.detail
    assert len(obs.exception.encode()) < TEXT_BUDGET["x"] + 200
    assert obs.exception.endswith("bytes more)")
    assert int(obs.exception.rsplit("(cut: ", 1)[1].split()[0]) > 19_000_000


def test_answers_past_what_the_caller_can_use_stop_the_run() -> None:
    with RunFolder() as run, program(run, SOLVER) as prog:
        assert prog.load().loaded
        obs = prog.run(GOAL, "S", max_answers=5)
    assert obs.end is RunEnd.TOO_MANY_ANSWERS
    assert obs.detail == "too many answers (at least 6)"
    assert len(obs.answers) == 5


RECON = r"""
:- use_module(library(lists)).
seen(f(Key, Value)) :- member(Key, ['/proc/self/mountinfo', '/proc/1/cmdline',
                                   '/proc/self/cgroup', '/etc/hostname']),
    catch(read_file_to_string(Key, Value, []), E, Value = failed(E)).
seen(f(dir(D), Es)) :- member(D, ['/', '/usr', '/usr/bin', '/usr/local/bin', '/bin', '/tmp',
                                 '/submission', '/sandbox', '/home', '/etc', '/work', '/root']),
    catch((directory_files(D, Es0), msort(Es0, Es)), E, Es = failed(E)).
seen(f(exe(F), Yes)) :- member(F, ['/bin/sh', '/usr/bin/sh', '/bin/bash', '/usr/bin/perl',
                                  '/usr/bin/python3', '/usr/bin/gcc', '/usr/bin/cc',
                                  '/usr/local/bin/python3', '/usr/bin/env']),
    ( exists_file(F) -> Yes = yes ; Yes = no ).
seen(f(host, H)) :- gethostname(H).
seen(f(env, Env)) :- findall(N=V, (member(N, ['PATH', 'HOME', 'USER', 'PWD']), getenv(N, V)), Env).
seen(f(cwd, D)) :- working_directory(D, D).
sudoku(_, All) :- findall(S, seen(S), All).
"""


def test_a_submission_sees_only_swi_prolog_and_nothing_that_names_anyone(
    tmp_path: Path,
) -> None:
    """No shell, interpreter or compiler; no mount, command line or name
    that shows the student, the run's folder or the machine's paths."""
    student = "recon_student_q7z"
    files = SubmissionFiles((("sudoku.pl", RECON.encode()), ("notes/readme.txt", b"hello\n")), ())
    limits = Limits(cpu_seconds=5, wall_seconds=10, memory_mb=512)
    with RunFolder(tmp_path) as run:
        # The grader's own names, which must not show inside.
        folder = files.write(run.path / f"sub-{student}")
        with SandboxedProgram(run, folder, "sudoku.pl", "sudoku/2", "swi", limits) as prog:
            assert prog.load().loaded
            obs = prog.run(GOAL, "S")
        run_path = str(run.path)
    assert obs.end is RunEnd.FINISHED and len(obs.answers) == 1, obs
    seen = obs.answers[0][1]
    asked = seen
    for folder_asked in ("/work", "/root"):  # what was asked for, and the error naming it
        asked = asked.replace(f"dir('{folder_asked}')", "").replace(f"file,'{folder_asked}'", "")
    for name in (student, run_path, "plpuzzle-grading", str(tmp_path), "/work", "/root"):
        assert name not in asked, name
    shells_and_compilers = ("/bin/sh", "/usr/bin/sh", "/bin/bash", "/usr/bin/perl",
                            "/usr/bin/python3", "/usr/bin/gcc", "/usr/bin/cc",
                            "/usr/local/bin/python3", "/usr/bin/env")  # fmt: skip
    for exe in shells_and_compilers:
        assert f"f(exe('{exe}'),no)" in seen, exe
    for folder_in, listing in [
        ("/usr/bin", "['.',..,swipl]"),
        ("/tmp", "['.',..]"),
        ("/submission", "['.',..,notes,'sudoku.pl']"),
        ("/usr", "['.',..,bin,lib,lib64]"),
    ]:
        assert f"f(dir('{folder_in}'),{listing})" in seen, (folder_in, seen)
    for missing in ("/usr/local/bin", "/etc", "/home"):
        assert f"f(dir('{missing}'),failed(" in seen, missing
    assert "f(host,sandbox)" in seen
    assert "f(cwd,'/submission/')" in seen
    assert "f(env,[=('PATH','/usr/bin'),=('HOME','/tmp'),=('PWD','/submission')])" in seen


def test_slots_are_unique_on_the_machine() -> None:
    """Two graders (here: this process and a child) never hold one slot."""
    with jail.claim_slot() as mine:
        code = "from plpuzzle.sandbox import jail\nwith jail.claim_slot() as s:\n    print(s)\n"
        other = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=60
        )
        assert other.returncode == 0, other.stderr
        assert int(other.stdout) != mine


def test_without_control_groups_cpu_time_is_charged_by_the_wall_clock(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """No kernel count: a sandbox is charged wall time times its cores,
    which no arrangement of processes can escape, and the verdict says so."""
    monkeypatch.setattr(cgroups, "layout", lambda: None)
    cores = len(os.sched_getaffinity(0))
    with RunFolder() as run, program(run, SOLVER + "sudoku(loop, _) :- sleep(30).\n") as prog:
        assert prog.load().loaded
        obs = prog.run("sudoku(loop, S)", "S")
    assert obs.end is RunEnd.CPU_LIMIT
    assert f"charged as wall time x {cores} core(s)" in obs.detail
    # Sleeping costs as much as computing: it was stopped at the CPU limit,
    # long before its 30 s of sleep (how long after the limit depends on
    # the machine's load, so that is not asserted).
    assert obs.cpu_seconds >= 3 and obs.wall_seconds < 30


def test_the_graders_memory_stays_flat_while_a_run_floods_its_replies() -> None:
    """A run writes 1 GB of well-formed exception lines on the reply pipe;
    the grader reads until its reply cap and keeps a few KB."""
    source = SOLVER + (
        "sudoku(flood, _) :- stream_property(S, file_no(1)), "
        "length(L, 1000000), maplist(=(0'z), L), atom_codes(A, L), "
        "forall(between(1, 1000, _), format(S, 'x ~w~n', [A])), fail.\n"
    )
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with RunFolder() as run, program(run, source, cpu=30, wall=60) as prog:
        assert prog.load().loaded
        obs = prog.run("sudoku(flood, S)", "S")
    grew_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert obs.end is RunEnd.TOO_MUCH_REPLY, obs.detail
    assert len(obs.exception.encode()) < TEXT_BUDGET["x"] + 200
    assert grew_mb < 64, grew_mb


# -- the third round: whose fault a sandbox that never started is ---------------------------


def test_a_sandbox_that_cannot_be_built_for_a_hand_in_is_that_hand_ins_load_error() -> None:
    """A file and a folder of one name (intake refuses them; here they reach
    the sandbox anyway): bubblewrap cannot lay them out, while a control
    sandbox without them starts, so loading fails for this hand-in, in
    words, and the machine is not blamed."""
    files = SubmissionFiles(
        (("sudoku.pl", SOLVER.encode()), ("x.pl", b"x.\n"), ("x.pl/y.pl", b"y.\n")), ()
    )
    limits = Limits(cpu_seconds=3, wall_seconds=6, memory_mb=512)
    with RunFolder() as run, SandboxedProgram(run, files, "sudoku.pl", "sudoku/2", "swi",
                                              limits) as prog:  # fmt: skip
        report = prog.load()
    assert not report.loaded
    assert "could not be built with this hand-in's files" in report.reason, report.reason
    assert "x.pl" in report.reason  # what bubblewrap said, on one line


def test_what_a_hand_in_prints_never_makes_the_machine_at_fault() -> None:
    """bubblewrap's own words for a machine that cannot sandbox, printed by
    a submission that then halts: loading failed, and that is all."""
    source = (
        ':- format(user_error, "bwrap: Creating new namespace failed: '
        'Operation not permitted~n", []), halt.\n'
    )
    with RunFolder() as run, program(run, source) as prog:
        report = prog.load()
    assert not report.loaded
    assert "ended while it was being loaded" in report.reason, report.reason


def test_a_sandbox_that_starts_for_no_one_is_the_machines_fault() -> None:
    """With 4 MB, not even an empty hand-in's sandbox starts: that is what
    the grader observes itself, and it stops the class (SandboxSetupError)."""
    files = SubmissionFiles((("sudoku.pl", SOLVER.encode()),), ())
    limits = Limits(cpu_seconds=3, wall_seconds=6, memory_mb=4)
    with (
        RunFolder() as run,
        SandboxedProgram(run, files, "sudoku.pl", "sudoku/2", "swi", limits) as prog,
        pytest.raises(SandboxSetupError, match="even with an empty hand-in"),
    ):
        prog.load()
