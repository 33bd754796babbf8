"""The red-team class: submissions that attack the grader, graded end to end.

Every submission in tests/fixtures/redteam/ says in its header comment what
it attacks and what the grader should do about it. The class is graded once,
through the command line, on a fast test of the grading suite and a K=5
test whose request is larger than a page (tests/fixtures/big_request): two
runs of each submission, so that what one run leaves behind meets the next
(a third proved nothing more: every attack gets the same grade on each); what
cannot live in git (symbolic links to the suite's expected files and to
other students' work, a fifo, the native code two attackers hand in,
compiled from native.c.txt, a .zip hand-in) is made at test time in a copy
of the class.

The attacks of the second round: pipe stalls (pipe_shrink, pipe_fill),
descendants reaped unseen (reaped_burner), floods of each output channel
(flood_answers, flood_exception, flood_load, flood_gig), markup in every
report format (markup, html_inject) and reconnaissance of the sandbox
(recon). The run must finish, with every attack at 0 and the controls at
full marks, the grader's memory flat and every report file small.

Most submissions solve correctly after (or instead of) their attack, with
the same solving core. It is kept once, in core.pl.txt (not a .pl file nor a
folder, so not a submission), and each submission holds only the line
`% @solving-core@` where it goes; the copy gets the core in that line's
place, so that the grader sees every submission self-contained, as a
student's must be (one file, or one folder).

Other graders may run on the same machine meanwhile (another test suite,
another teacher), so the checks for leftovers look at what belongs to our
own grading runs: each run's id is read from the lock file its grader holds
open, and control groups, run folders and processes are matched by that id.
"""

from __future__ import annotations

import contextlib
import glob
import hashlib
import json
import os
import re
import secrets
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from as_nobody import peak_memory_mb
from once_per_run import once_per_run

from plpuzzle.sandbox import cgroups
from plpuzzle.sandbox.workspace import RunFolder

# Grades the whole red-team class (minutes): `make test-all`.
pytestmark = [pytest.mark.slow, pytest.mark.sandbox]

REPO = Path(__file__).resolve().parents[2]
REDTEAM = REPO / "tests" / "fixtures" / "redteam"
SUITE = REPO / "tests" / "fixtures" / "grading_suite"
BIG = REPO / "tests" / "fixtures" / "big_request"
TESTS = ("test001", "test101")
#: The test whose request is larger than a page (4 KiB): a shrunk pipe stalls it.
BIG_TEST = "test101"
#: The wall-clock backstop is below the product's (2 x 5 + 10 s), to keep the
#: sleeper's runs short, but not so far below that a flood at load 10 meets it:
#: at 8 s, flood_exception once did, after 2.4 s of CPU.
WALL_LIMIT = 12
LIMITS = ("--time-limit", "5", "--wall-limit", str(WALL_LIMIT), "--memory-limit", "1024",
          "--jobs", "2", "--shrink-seconds", "5")  # fmt: skip
#: The grader's own memory, and every report file, whatever the class prints.
GRADER_MB = 400
REPORT_FILE_MB = 8
#: The uids of sandboxes (plpuzzle.sandbox.jail.SANDBOX_UID_BASE and up).
SANDBOX_UID_BASE = 2_146_400_000
FIFO_NAME = "<img src=x onerror=alert(1)>.fifo"
#: The solving core that submissions share, and the line that stands for it.
#: Code that several submissions share, kept once and written into each copy.
SNIPPETS = {
    b"% @solving-core@\n": REDTEAM / "core.pl.txt",  # a correct solver
    b"% @forge@\n": REDTEAM / "forge.pl.txt",  # writing a line into the reply pipe
}
MEMORY = frozenset({"memory limit", "crashed"})

#: The grade every test of a submission must get (or one of a set of grades).
EXPECTED: dict[str, str | frozenset[str]] = {
    # controls: correct solvers, which the attacks beside them must not disturb
    "ctl_plain": "correct",
    "ctl_folder": "correct",  # a folder with a helper file
    # links: never followed
    "links_expected": "wrong",  # links to the suite's expected solutions
    "ctl_zip": "correct",  # a .zip of a folder, as course platforms download it
    "link_solver": "no submission",  # its sudoku.pl links to ctl_plain.pl
    "link_top": "no submission",  # the whole submission is a link to ctl_plain.pl
    "link_dir": "no submission",  # the whole submission is a link to ctl_folder/
    "fifo_student": "correct",  # harmless: the fifo is refused, the solver is fine
    # the project's own solver is out of sight
    "own_solver": "wrong",
    # forged replies on the grader's channel
    "forge_x": "error",
    "forge_json": "error",
    "forge_end": "error",
    "forge_done": "error",
    "forge_flood": "error",  # 2 GiB without a newline
    # the loader redefined at load time
    "redef_answer": "wrong",
    "redef_run_test": "wrong",
    "hide_syntax": "load error",  # a message hook hides its syntax error
    # memory
    "mem_fork": MEMORY,  # 4 forked processes of ~700 MB each
    "stack_raise": MEMORY,  # lifts the Prolog stack limit
    # the machine's files, processes, disk and network
    "exfil": "error",
    "forkbomb": "wrong",
    "killparent": "crashed",
    "killall": "crashed",
    "burner": "correct",  # harmless: its leftover CPU burner dies with the sandbox
    "disk": "error",
    "net": "wrong",
    "privesc": "wrong",
    # loading and waiting
    "halt_load": "load error",
    "load_loop": "load error",
    "sleeper": "timeout",
    # the reports
    "html_inject": "error",
    # -- the second round --
    # pipe stalls: no write or read blocks the grader
    "pipe_shrink": "timeout",  # shrinks its request pipe to 4 KiB, stops reading
    "pipe_fill": "timeout",  # fills its request pipe (when it may), stops reading
    # descendants reaped unseen
    "reaped_burner": "timeout",  # CPU in children the kernel reaps (SIGCHLD ignored)
    # floods of each output channel
    "flood_answers": "wrong",  # 1.5 million copies of the right answer
    "flood_exception": "error",  # a 60 MB exception
    "flood_load": "wrong",  # 60 MB of load messages on the reply pipe
    "flood_gig": "error",  # 1 GB on the reply pipe and on standard error
    # markup in every report format
    "markup": "error",
    # reconnaissance of the sandbox
    "recon": "error",
}

#: Full marks for these; every other submission must score 0.
HARMLESS = {"ctl_plain", "ctl_folder", "ctl_zip", "fifo_student", "burner"}

#: A word that the detail or evidence of every test must hold: what happened.
WORDS = {
    "links_expected": "missing",
    "link_solver": "symbolic link",
    "link_top": "symbolic link",
    "link_dir": "symbolic link",
    "own_solver": "missing",
    "forge_x": "after the run ended",
    "forge_json": "unexpected reply line",
    "forge_end": "after the run ended",
    "forge_done": "reply channel",
    "forge_flood": "unexpected reply line",
    "redef_answer": "missing",
    "redef_run_test": "missing",
    "hide_syntax": "does not define sudoku/2",
    "exfil": "stolen",
    "forkbomb": "missing",
    "killparent": "sandbox ended",
    "killall": "sandbox ended",
    "disk": "xfsz",
    "net": "missing",
    "privesc": "missing",
    "halt_load": "halt",
    "load_loop": "loading was stopped",
    "sleeper": "wall-clock backstop",
    "html_inject": "redteam",
    "pipe_shrink": "wall-clock backstop",
    "pipe_fill": "wall-clock backstop",
    "reaped_burner": "CPU limit",
    "flood_answers": "too many answers (at least",
    "flood_exception": "bytes more)",
    "flood_load": "missing",
    "flood_gig": "reply",
    "markup": "Score: 3/3",
    "recon": "recon([])",
}

#: Files the attackers try to create outside their sandbox (and beside the class).
MARKER = "plpuzzle-redteam-marker.txt"
MARKERS = [Path(d) / MARKER for d in ("/tmp", "/root", "/work", "/var/tmp")]
BIG_FILE = Path("/tmp/plpuzzle-redteam-big.bin")
#: Files with a secret that exfil.pl tries to read.
CANARIES = [Path(d) / "plpuzzle-canary.txt" for d in ("/tmp", "/root", "/work", "/var/tmp")]


# -- helpers ------------------------------------------------------------------------


def grade_command(submissions: Path, report: Path, suite: Path) -> list[str]:
    return [sys.executable, "-m", "plpuzzle", "sudoku", "grade", str(submissions),
            "--suite", str(suite), *LIMITS, "--out", str(report)]  # fmt: skip


def make_suite(folder: Path, tests: tuple[str, ...] = TESTS) -> Path:
    """The red team's suite: tests of the grading suite and the K=5 one."""
    suite = folder / "suite"
    suite.mkdir()
    for test in tests:
        source = BIG if test == BIG_TEST else SUITE
        for kind in "ds":
            shutil.copy(source / f"{test}{kind}.txt", suite / f"{test}{kind}.txt")
    return suite


def build_native(target: Path) -> None:
    """native.c.txt compiled as a student would, into `target` (a .so)."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.fail("the red team's native attacks need a C compiler (cc): apt-get install gcc")
    home = subprocess.run(["swipl", "--dump-runtime-variables"], capture_output=True,
                          text=True, check=True).stdout  # fmt: skip
    plbase = re.search(r'PLBASE="([^"]+)"', home)
    assert plbase, home
    source = target.with_suffix(".c")
    shutil.copy(REDTEAM / "native.c.txt", source)
    subprocess.run([compiler, "-shared", "-fPIC", "-O1", f"-I{plbase.group(1)}/include",
                    "-o", str(target), str(source)], check=True)  # fmt: skip
    source.unlink()


def tree_digest(folder: Path) -> str:
    """A digest of a folder as it is: names, types, contents, link targets."""
    h = hashlib.sha256()
    for root, dirs, files in os.walk(folder, followlinks=False):
        dirs.sort()
        for name in sorted(dirs + files):
            path = Path(root) / name
            info = path.lstat()
            h.update(f"{path.relative_to(folder)}\0{stat.S_IFMT(info.st_mode)}\0".encode())
            if stat.S_ISLNK(info.st_mode):
                h.update(os.readlink(path).encode())
            elif stat.S_ISREG(info.st_mode):
                h.update(path.read_bytes())
    return h.hexdigest()


def run_folders_of(pid: int) -> dict[str, Path]:
    """The grading runs of process `pid`: run id -> run folder (from its open lock)."""
    found = {}
    try:
        fds = list(Path(f"/proc/{pid}/fd").iterdir())
    except OSError:
        return found
    for fd in fds:
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        match = re.fullmatch(r"(.*/plpuzzle-grading-(r[0-9a-z]+))/lock", target)
        if match:
            found[match.group(2)] = Path(match.group(1))
    return found


def cgroup_entries(run_id: str) -> list[str]:
    """Control groups of run `run_id` in any hierarchy, at most 4 folders deep."""
    found: list[str] = []
    for depth in range(1, 5):
        found += glob.glob("/sys/fs/cgroup/" + "*/" * depth + f"plpuzzle-{run_id}-*")
    return sorted(found)


def _own_memory_group() -> str:
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        if "memory" in controllers.split(","):
            return path
    return "/"


def sandbox_processes(run_ids: set[str]) -> dict[int, str]:
    """Processes under a sandbox uid that are ours: in a control group of one of
    `run_ids`, or in none of plpuzzle's at all (escaped) within our own memory
    group (on a machine where each session has one; else anywhere)."""
    own = _own_memory_group().rstrip("/") + "/"
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            status = (entry / "status").read_text()
            groups = (entry / "cgroup").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        uids = next((ln.split()[1:] for ln in status.splitlines() if ln.startswith("Uid:")), [])
        if not uids or max(map(int, uids)) < SANDBOX_UID_BASE:
            continue
        memory = next((ln.split(":", 2)[2] for ln in groups.splitlines()
                       if "memory" in ln.split(":")[1].split(",")), "/")  # fmt: skip
        mine = any(f"plpuzzle-{r}-" in groups for r in run_ids)
        escaped = "plpuzzle-" not in groups and (memory + "/").startswith(own)
        if mine or escaped:
            found[int(entry.name)] = cmdline
    return found


def stray_processes(run_ids: set[str]) -> dict[int, str]:
    """`sandbox_processes` that are still there a little later (not just ending)."""
    first = sandbox_processes(run_ids)
    if not first:
        return first
    time.sleep(2)
    later = sandbox_processes(run_ids)
    return {pid: cmd for pid, cmd in later.items() if pid in first}


class Listener:
    """A TCP server on 127.0.0.1 that notes every connection it gets."""

    def __init__(self) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen()
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.connections: list[tuple[str, int]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, peer = self.sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self.connections.append(peer)
            conn.close()

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        self.sock.close()


def with_core(source: str | os.PathLike[str], target: str | os.PathLike[str]) -> None:
    """Copy a submission's file, with the shared snippets in place of their markers.

    A student's submission is self-contained: the grader must see the code in
    the file itself, not a file beside the class that it would never get.
    (Also the copy function of shutil.copytree, hence the plain paths.)
    """
    text = Path(source).read_bytes()
    if Path(source).suffix != ".pl" or not any(m in text for m in SNIPPETS):
        shutil.copy2(source, target)
        return
    for marker, snippet in SNIPPETS.items():
        text = text.replace(marker, snippet.read_bytes())
    Path(target).write_bytes(text)
    shutil.copystat(source, target)


def prepare_class(folder: Path, port: int) -> Path:
    """A copy of the red-team class, with what git cannot hold made now."""
    target = folder / "class"
    shutil.copytree(
        REDTEAM,
        target,
        symlinks=True,
        copy_function=with_core,
        ignore=shutil.ignore_patterns("*.pl.txt", "*.c.txt"),  # snippets, not submissions
    )
    for expected in sorted(SUITE.glob("test*s.txt")):
        (target / "links_expected" / expected.name).symlink_to(expected)
    (target / "link_solver" / "sudoku.pl").unlink()
    (target / "link_solver" / "sudoku.pl").symlink_to(target / "ctl_plain.pl")
    (target / "link_top.pl").symlink_to(target / "ctl_plain.pl")
    (target / "link_dir").symlink_to(target / "ctl_folder", target_is_directory=True)
    os.mkfifo(target / "fifo_student" / FIFO_NAME)
    (target / "net" / "port.txt").write_text(f"{port}.\n")
    for student in ("pipe_shrink", "reaped_burner"):
        build_native(target / student / "native.so")
    with zipfile.ZipFile(target / "ctl_zip.zip", "w") as archive:
        for path in sorted((target / "ctl_folder").iterdir()):
            archive.write(path, f"ctl_zip/{path.name}")
    return target


def remove_markers() -> None:
    for path in [*MARKERS, BIG_FILE]:
        path.unlink(missing_ok=True)


@dataclass
class Graded:
    """What one grading of the red-team class left for the tests to check."""

    returncode: int
    output: str
    report: Path
    data: dict
    run_folders: dict[str, Path]
    submissions: Path
    digest_before: str
    digest_after: str
    connections: list[tuple[str, int]]
    canaries: dict[str, str] = field(default_factory=dict)
    elapsed: float = 0.0
    #: The grader's peak resident memory (VmHWM), in MB.
    grader_mb: float = 0.0

    def results(self, student: str) -> list[dict]:
        return next(s["results"] for s in self.data["students"] if s["id"] == student)

    def student(self, student: str) -> dict:
        return next(s for s in self.data["students"] if s["id"] == student)

    def report_texts(self) -> dict[str, str]:
        return {
            name: (self.report / name).read_bytes().decode("utf-8", errors="replace")
            for name in ("grades.json", "grades.csv", "grades.html")
        }


@pytest.fixture(scope="module")
def graded(request: pytest.FixtureRequest) -> Graded:
    """The red-team class graded once in the whole run, whichever worker
    asks first: two gradings at once would share CANARIES and MARKERS."""
    return once_per_run(request, grade_the_class)


def grade_the_class(work: Path) -> Graded:
    """Grade the red-team class in `work`, watching the grader from outside."""
    listener = Listener()
    canaries = {str(p): f"canary-{secrets.token_hex(12)}" for p in CANARIES}
    canaries["env"] = f"envcanary{secrets.token_hex(12)}"
    canaries["PATH"] = f"pathcanary{secrets.token_hex(12)}"
    env = {
        **os.environ,
        "PLPUZZLE_REDTEAM_CANARY": canaries["env"],
        "PATH": f"{os.environ.get('PATH', '/usr/bin:/bin')}:/nonexistent/{canaries['PATH']}",
    }
    remove_markers()
    try:
        for path in CANARIES:
            path.write_text(canaries[str(path)] + "\n")
        submissions = prepare_class(work, listener.port)
        before = tree_digest(submissions)
        report = work / "report"
        out_path = work / "grader-output.txt"
        start = time.monotonic()
        peak = 0.0
        with open(out_path, "wb") as out:
            proc = subprocess.Popen(
                grade_command(submissions, report, make_suite(work)),
                stdout=out,
                stderr=subprocess.STDOUT,
                env=env,
                start_new_session=True,
            )
            runs: dict[str, Path] = {}
            try:
                while proc.poll() is None and time.monotonic() - start < 900:
                    runs.update(run_folders_of(proc.pid))
                    peak = max(peak, peak_memory_mb(proc.pid))
                    time.sleep(0.05)
            finally:
                if proc.poll() is None:
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        elapsed = time.monotonic() - start
        print(f"red team: graded in {elapsed:.0f} s, grader peak {peak:.0f} MB")
        output = out_path.read_text(errors="replace")
        data = {}
        if (report / "grades.json").is_file():
            data = json.loads((report / "grades.json").read_text())
        return Graded(
            returncode=proc.returncode,
            output=output,
            report=report,
            data=data,
            run_folders=runs,
            submissions=submissions,
            digest_before=before,
            digest_after=tree_digest(submissions),
            connections=list(listener.connections),
            canaries=canaries,
            elapsed=elapsed,
            grader_mb=peak,
        )
    finally:
        listener.close()
        for path in CANARIES:
            path.unlink(missing_ok=True)


# -- the grading run ------------------------------------------------------------------


def test_the_grader_finishes_and_writes_every_report(graded: Graded) -> None:
    assert graded.returncode == 0, graded.output
    for name in ("grades.json", "grades.csv", "grades.html", "grades.sqlite"):
        assert (graded.report / name).is_file(), name
    assert sorted(s["id"] for s in graded.data["students"]) == sorted(EXPECTED)
    assert [t["name"] for t in graded.data["tests"]] == list(TESTS)
    # One grading run, watched throughout, and then the feedback's search for
    # smaller failing puzzles in a run folder of its own.
    assert 1 <= len(graded.run_folders) <= 2, graded.run_folders


@pytest.mark.parametrize("student", sorted(EXPECTED))
def test_each_submission_gets_the_grade_it_deserves(graded: Graded, student: str) -> None:
    assert graded.returncode == 0, graded.output
    expected = EXPECTED[student]
    for result in graded.results(student):
        grade, said = result["grade"], f"{result['detail']}\n{result['evidence']}"
        if isinstance(expected, frozenset):
            assert grade in expected, f"{student} {result['test']}: {grade}: {said}"
        else:
            assert grade == expected, f"{student} {result['test']}: {grade}: {said}"
        if student in WORDS:
            assert WORDS[student] in said, f"{student} {result['test']}: {said}"
    score = graded.student(student)["score"]
    assert score == (len(TESTS) if student in HARMLESS else 0)


def test_refused_links_and_fifos_are_named_in_the_notes(graded: Graded) -> None:
    notes = {s["id"]: s["notes"] for s in graded.data["students"]}
    expected_links = sorted(p.name for p in SUITE.glob("test*s.txt"))
    assert notes["links_expected"] == [
        f"not graded: {name}: a symbolic link (links are not followed)" for name in expected_links
    ]
    link = "sudoku.pl: a symbolic link (links are not followed)"
    assert notes["link_solver"] == [f"no .pl file in the submission folder (not taken: {link})"]
    for student in ("link_top", "link_dir"):
        name = "link_top.pl" if student == "link_top" else student
        assert notes[student] == [
            f"nothing could be read (not taken: {link.replace('sudoku.pl', name, 1)})"
        ]
    assert len(notes["fifo_student"]) == 1
    assert FIFO_NAME in notes["fifo_student"][0]
    assert "not a regular file" in notes["fifo_student"][0]
    refusing = {"links_expected", "link_solver", "link_top", "link_dir", "fifo_student"}
    # No one else had anything refused (what loading printed is other notes).
    refused = {s: [x for x in n if x.startswith("not graded:")] for s, n in notes.items()}
    assert {s: r for s, r in refused.items() if r and s not in refusing} == {}


def test_the_html_report_shows_submissions_text_as_text(graded: Graded) -> None:
    html = graded.report_texts()["grades.html"]
    assert "&lt;script&gt;alert(" in html  # html_inject's exception, escaped
    assert "<script>alert" not in html
    assert "<img src=x" not in html  # html_inject's payload and the fifo's name
    assert "</table><script>" not in html


def test_nothing_of_the_machine_leaks_into_the_reports(graded: Graded) -> None:
    """exfil.pl reads /etc/shadow, /etc/passwd, /proc/1/environ, /root, /work and
    canary files, and throws all of it as its exception."""
    texts = graded.report_texts()
    passwd = Path("/etc/passwd").read_text().splitlines()[0]
    shadow_like = re.compile(r"\b[a-z_][a-z0-9_-]*:[^:\s]*:\d{3,6}:\d*:\d*:\d*:")
    for name, text in texts.items():
        for path in CANARIES:
            assert graded.canaries[str(path)] not in text, f"{path} in {name}"
        assert passwd not in text, f"/etc/passwd in {name}"
        assert not shadow_like.search(text), f"an /etc/shadow entry in {name}"
    assert "stolen(" in texts["grades.json"]  # the attack did report what it found


def test_the_graders_environment_does_not_reach_the_sandbox(graded: Graded) -> None:
    """Not a variable of the grader's environment, not its PATH (exfil.pl reads
    /proc/1/environ, which in the sandbox is bubblewrap's)."""
    for name, text in graded.report_texts().items():
        assert graded.canaries["env"] not in text, f"the grader's environment in {name}"
        assert graded.canaries["PATH"] not in text, f"the grader's PATH in {name}"


def test_nothing_outside_the_sandbox_changed(graded: Graded) -> None:
    assert graded.digest_after == graded.digest_before
    beside = [graded.submissions.parent / MARKER, graded.submissions / MARKER]  # ../MARKER
    assert [str(p) for p in [*MARKERS, *beside, BIG_FILE] if p.exists()] == []
    assert graded.connections == []  # net.pl never reached the test's listener


def test_nothing_is_left_behind(graded: Graded) -> None:
    """No run folder, control group or process of the run outlives the grader."""
    assert graded.run_folders
    for run_id, folder in graded.run_folders.items():
        assert not folder.exists(), folder
        assert cgroup_entries(run_id) == []
    assert stray_processes(set(graded.run_folders)) == {}


# -- the second round ---------------------------------------------------------------------


def test_the_grader_stays_small_and_so_do_its_reports(graded: Graded) -> None:
    """1 GB printed, 60 MB thrown, 60 MB of load messages, 1.5 million answers:
    the grader's memory stays flat and no report file grows with them."""
    assert graded.returncode == 0, graded.output
    assert 0 < graded.grader_mb < GRADER_MB, graded.grader_mb
    files = [p for p in graded.report.rglob("*") if p.is_file()]
    assert len(files) > 2 * len(EXPECTED)  # the reports and a feedback file pair each
    sizes = {str(p.relative_to(graded.report)): p.stat().st_size for p in files}
    assert {n: b for n, b in sizes.items() if b >= REPORT_FILE_MB << 20} == {}
    for student in ("flood_exception", "flood_gig", "flood_load"):
        kept = json.dumps(graded.student(student))
        assert len(kept) < 64_000, (student, len(kept))
    notes = graded.student("flood_load")["notes"]
    assert notes[-1].startswith("while loading: (cut: ") and notes[-1].endswith(" bytes more)")
    assert sum(map(len, notes)) < 10_000


def test_a_stalled_request_pipe_ends_at_the_backstop_with_a_verdict(graded: Graded) -> None:
    big = {s: next(r for r in graded.results(s) if r["test"] == BIG_TEST)
           for s in ("pipe_shrink", "pipe_fill")}  # fmt: skip
    # Its pipe shrunk to a page, the 6 KB request could not all go in.
    assert "stopped reading its request (it took 4096 of " in big["pipe_shrink"]["detail"]
    backstop = f"wall-clock backstop of {WALL_LIMIT} s"
    assert all(backstop in r["detail"] for r in big.values()), big


def test_cpu_in_children_the_kernel_reaps_is_counted(graded: Graded) -> None:
    for result in graded.results("reaped_burner"):
        assert result["grade"] == "timeout" and "CPU limit" in result["detail"], result
        assert result["cpu_seconds"] >= 5, result


def test_feedback_markdown_of_every_student_renders_as_plain_text(graded: Graded) -> None:
    from markdown_it import MarkdownIt

    parser = MarkdownIt("commonmark").enable("table")
    ours = {"Sudoku assignment: feedback", "Notes", "Tests", "Errors", "Wrong answers",
            "Course requirements",
            *(g for g in graded.data["grades"])}  # fmt: skip
    for path in sorted((graded.report / "feedback").glob("*.md")):
        tokens = parser.parse(path.read_text())
        kinds = {t.type for t in tokens} | {c.type for t in tokens for c in t.children or []}
        assert not kinds & {"image", "link_open", "html_block", "html_inline"}, path.name
        headings = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open"]
        for heading in headings:
            assert (
                heading in ours
                or heading.startswith("A smaller puzzle your solver gets wrong")
                or re.fullmatch(r"test\d+: [a-z0-9 ,()-]+", heading)
            ), (path.name, heading)
    markup = (graded.report / "feedback" / "markup.md").read_text()
    assert "Score: 3/3" in markup and "\x1b" not in markup  # shown, as text only
    assert not set("<>&") & set(graded.report_texts()["grades.json"])


def test_the_sandbox_shows_nothing_to_look_for(graded: Graded) -> None:
    """recon searched its sandbox for its id, the grader's folders, the
    machine's paths and any shell, interpreter or compiler: nothing."""
    for result in graded.results("recon"):
        assert "recon([])" in result["evidence"], result["evidence"]


# -- a killed grader ---------------------------------------------------------------------


def test_a_killed_graders_leftovers_are_removed_by_the_next_run(tmp_path: Path) -> None:
    sub = tmp_path / "class"
    sub.mkdir()
    # sleeper keeps a sandbox busy for WALL_LIMIT seconds a test
    with_core(REDTEAM / "sleeper.pl", sub / "sleeper.pl")
    with_core(REDTEAM / "ctl_plain.pl", sub / "ctl_plain.pl")
    suite = make_suite(tmp_path, ("test001", "test005"))
    proc = subprocess.Popen(
        grade_command(sub, tmp_path / "first", suite),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    runs: dict[str, Path] = {}
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None:
            runs.update(run_folders_of(proc.pid))
            if runs and all(cgroup_entries(r) for r in runs):
                break
            time.sleep(0.05)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    assert len(runs) == 1, "the grader's run folder never appeared"
    (run_id, folder), = runs.items()  # fmt: skip
    assert folder.is_dir()
    assert cgroup_entries(run_id) != []

    tiny = tmp_path / "tiny"
    tiny.mkdir()
    with_core(REDTEAM / "ctl_plain.pl", tiny / "ctl_plain.pl")
    second = subprocess.run(
        grade_command(tiny, tmp_path / "second", suite),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert second.returncode == 0, second.stdout + second.stderr
    assert not folder.exists()
    assert cgroup_entries(run_id) == []
    assert stray_processes({run_id}) == {}


# -- two graders at once -------------------------------------------------------------


def test_a_grader_in_another_temp_folder_spares_live_sandboxes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A grader with another TMPDIR (another teacher; the test suite's own
    RunFolder(tmp_path)) must not take a live run's control groups for stale
    ones: removing them kills that run's sandboxes.

    Checked on a stand-in for the machine's hierarchies, so that no real
    sandbox is killed if it fails.
    """
    hierarchy = tmp_path / "cgroup"
    hierarchy.mkdir()
    monkeypatch.setattr(cgroups, "layout", lambda: cgroups.Layout(2, {"unified": hierarchy}))
    (tmp_path / "teacher_a").mkdir()
    (tmp_path / "teacher_b").mkdir()
    with RunFolder(tmp_path / "teacher_a") as live:
        group = hierarchy / f"{cgroups.PREFIX}{live.run_id}-0123abcd"
        group.mkdir()
        RunFolder.remove_stale(tmp_path / "teacher_b")  # how another grader starts
        assert group.is_dir(), "a live run's control group was removed as stale"


# -- a grader that is not root ---------------------------------------------------------

#: The unprivileged user the grader runs as here (nobody).
NOBODY = 65534


def cgroup2_root() -> Path | None:
    for line in Path("/proc/self/mounts").read_text().splitlines():
        fields = line.split()
        if len(fields) > 2 and fields[2] == "cgroup2":
            return Path(fields[1])
    return None


@contextlib.contextmanager
def delegated_group() -> Iterator[Path]:
    """A cgroup v2 group handed to NOBODY, as systemd's Delegate=yes or an
    administrator does: the folder and its procs, threads and subtree files
    are theirs."""
    root = cgroup2_root()
    if root is None:
        pytest.skip("no cgroup v2 hierarchy on this machine")
    group = root / f"plpuzzle-test-delegated-{secrets.token_hex(4)}"
    try:
        group.mkdir()
    except OSError as e:
        pytest.skip(f"cannot make a cgroup v2 group here ({e.strerror})")
    try:
        for path in [group, *(group / n for n in ("cgroup.procs", "cgroup.threads",
                                                   "cgroup.subtree_control"))]:  # fmt: skip
            os.chown(path, NOBODY, NOBODY)
        yield group
    finally:
        for sub in sorted(group.glob("*/"), reverse=True):
            if sub.is_dir():
                with contextlib.suppress(OSError):
                    sub.rmdir()
        with contextlib.suppress(OSError):
            group.rmdir()


def grade_as_nobody(
    work: Path, students: dict[str, str], tests: tuple[str, ...], group: Path | None
) -> tuple[subprocess.CompletedProcess[str], dict]:
    """Grade fixture `students` (name -> fixture path) as NOBODY, in `group`
    (its process moved there first, by root, as a delegation does) or in
    none; the run and its grades.json."""
    subs = work / "class"
    subs.mkdir()
    for name, fixture in students.items():
        source = REDTEAM / fixture
        if source.is_dir():
            (subs / name).mkdir()
            with_core(source / "sudoku.pl", subs / name / "sudoku.pl")
            if name in ("pipe_shrink", "reaped_burner"):
                build_native(subs / name / "native.so")
        else:
            with_core(source, subs / f"{name}.pl")
    suite = make_suite(work, tests)
    out = work / "report"
    out.mkdir()
    os.chown(out, NOBODY, NOBODY)
    for path in [work, *work.rglob("*")]:
        path.chmod(path.stat().st_mode | 0o755 if path.is_dir() else 0o644)

    def join_group() -> None:  # as root, before the grader starts: what delegation does
        if group is not None:
            (group / "cgroup.procs").write_text("0\n")

    # setpriv drops to NOBODY for good: the grader runs with no capability at
    # all (it only keeps them up to its exec, since this machine's Python may
    # lie in a folder of root's).
    nobody = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
    env = {**os.environ, "HOME": str(out), "TMPDIR": "/tmp"}
    run = subprocess.run(
        [*nobody, *grade_command(subs, out, suite), "--no-feedback"],
        capture_output=True, text=True, timeout=600, env=env, preexec_fn=join_group,
    )  # fmt: skip
    data = json.loads((out / "grades.json").read_text()) if (out / "grades.json").exists() else {}
    return run, data


@pytest.fixture
def world_readable(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A folder NOBODY can read (pytest's own are root's alone)."""
    if os.geteuid() != 0:
        pytest.skip("needs root, to run the grader as another, unprivileged user")
    nobody = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
    probe = subprocess.run(
        [*nobody, sys.executable, "-c", "import plpuzzle"], capture_output=True, check=False
    )
    if probe.returncode != 0:
        pytest.skip(f"nobody cannot import plpuzzle from {sys.prefix} (a folder of root's alone)")
    work = Path(tempfile.mkdtemp(prefix="plpuzzle-nonroot-"))
    work.chmod(0o755)
    try:
        yield work
    finally:
        shutil.rmtree(work, ignore_errors=True)


@pytest.mark.parametrize("accounting", ["delegated cgroup", "no cgroup"])
def test_without_root_cpu_hidden_in_reaped_children_is_stopped_at_the_limit(
    world_readable: Path, accounting: str
) -> None:
    """reaped_burner burns 8 s of CPU in children the kernel reaps, under a
    5 s limit, with a grader that is not root: a delegated cgroup v2 group
    counts them; without one, wall time is charged for every core."""
    students = {"reaped_burner": "reaped_burner", "ctl_plain": "ctl_plain.pl"}
    with contextlib.ExitStack() as stack:
        group = stack.enter_context(delegated_group()) if accounting != "no cgroup" else None
        run, data = grade_as_nobody(world_readable, students, ("test001",), group)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "not root" in run.stderr
    how = data["settings"]["accounting"]
    if group is not None:
        assert "counted by the kernel" in how and "delegated to this user" in how, how
    else:
        assert "charged as wall time" in how, how
        assert "no control group could be made" in run.stderr
    grades = {s["id"]: s["results"][0] for s in data["students"]}
    burner = grades["reaped_burner"]
    assert burner["grade"] == "timeout" and "CPU limit" in burner["detail"], burner
    assert burner["cpu_seconds"] >= 5, burner
    assert grades["ctl_plain"]["grade"] == "correct", grades["ctl_plain"]


@pytest.mark.parametrize("accounting", ["delegated cgroup", "no cgroup"])
def test_without_root_a_request_pipe_refilled_through_proc_does_not_block(
    world_readable: Path, accounting: str
) -> None:
    """pipe_fill opens its own standard input for writing (possible when the
    grader is not root) and fills it; no request fits, and none blocks: the
    run meets the wall-clock backstop, or (charged) the CPU limit, first."""
    with contextlib.ExitStack() as stack:
        group = stack.enter_context(delegated_group()) if accounting != "no cgroup" else None
        run, data = grade_as_nobody(
            world_readable, {"pipe_fill": "pipe_fill.pl"}, ("test001", BIG_TEST), group
        )
    assert run.returncode == 0, run.stdout + run.stderr
    limit = "wall-clock backstop" if group is not None else "CPU limit"
    for result in data["students"][0]["results"]:
        assert result["grade"] == "timeout" and limit in result["detail"], result
        assert "the sandbox stopped reading its request (it took 0 of" in result["detail"], result
