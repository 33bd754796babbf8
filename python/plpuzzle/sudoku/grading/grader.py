"""A teacher's grading run: submissions in, gradebook kept, reports out.

The command line only parses options and prints; this module does the
work: checks that the machine can sandbox, reads the submissions and the
suite, grades what the gradebook does not hold yet (grading), and writes
grades.csv, grades.json and grades.html.
"""

from __future__ import annotations

import os
import shutil
import socket
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager, nullcontext
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from plpuzzle.i18n import LANGUAGES, speaking
from plpuzzle.sandbox import cgroups, jail
from plpuzzle.sandbox.meter import WITHOUT_GROUPS, accounting
from plpuzzle.sandbox.program import LoadReport, SandboxSetupError
from plpuzzle.sandbox.workspace import WorkspaceError, new_run_id, run_is_alive, shown_path
from plpuzzle.sudoku.domain.evidence import evidence_in_words
from plpuzzle.sudoku.domain.model import Grid, Puzzle, Rules
from plpuzzle.sudoku.domain.textformat import FormatError
from plpuzzle.sudoku.grading.feedback.build import (
    FEEDBACK_FOLDER,
    ShrinkPolicy,
    feedback_name,
    write_feedback,
)
from plpuzzle.sudoku.grading.gradebook import Gradebook
from plpuzzle.sudoku.grading.intake import Intake, load_roster, read_class
from plpuzzle.sudoku.grading.model import (
    Grade,
    GradeSettings,
    GradingError,
    Submission,
    TestGrade,
    case_key,
)
from plpuzzle.sudoku.grading.report import StudentGrades, write_wide_csv
from plpuzzle.sudoku.grading.report import build as build_report
from plpuzzle.sudoku.grading.report import to_csv as report_csv
from plpuzzle.sudoku.grading.report import to_json as report_json
from plpuzzle.sudoku.grading.requirements import check_submissions
from plpuzzle.sudoku.grading.scheduling.local_pool import LocalPool, hidden_paths
from plpuzzle.sudoku.grading.scheduling.on_dask import ClusterUnreachable, DaskCluster
from plpuzzle.sudoku.grading.scheduling.protocol import ClassRun, Hooks, Scheduler
from plpuzzle.sudoku.grading.similarity import (
    ReaderUnavailable,
    Similarity,
    compare_submissions,
    read_base,
)
from plpuzzle.sudoku.grading.similarity import Settings as SimilaritySettings
from plpuzzle.sudoku.grading.similarity.class_report import CSV_NAME as SIMILARITY_CSV
from plpuzzle.sudoku.grading.similarity.class_report import ungraded_hand_ins
from plpuzzle.sudoku.grading.similarity.report import summary as similarity_summary
from plpuzzle.sudoku.grading.similarity.report import to_csv as similarity_csv
from plpuzzle.sudoku.runs.suite import SuiteCase, SuiteError, discover, load_case
from plpuzzle.sudoku.runs.suite_config import (
    MANIFEST_NAME,
    OFF,
    Manifest,
    Points,
    RequirementsPolicy,
    check_points,
    check_rules,
    load_manifest,
    load_points,
    near,
    read_toml,
)
from plpuzzle.untrusted import one_line


class SetupProblem(Exception):
    """The machine cannot grade safely (no SWI-Prolog, no bubblewrap)."""


#: The settings a suite.toml may declare, as GradeSettings fields.
MANIFEST_SETTINGS = ("rules", "time_limit", "memory_mb")


@dataclass
class GradingRequest:
    """What to grade, and how.

    `given` names the GradeSettings fields set explicitly (on the command
    line): those win over the suite's suite.toml; the others come from it
    when it declares them. `students` (--student) regrades only those;
    `roster` lists who should have handed something in.
    """

    submissions: Path
    suite: Path
    settings: GradeSettings
    report_dir: Path
    db: Path | None = None
    points_file: Path | None = None
    jobs: int = 1
    given: frozenset[str] = frozenset(MANIFEST_SETTINGS)
    students: tuple[str, ...] = ()
    roster: Path | None = None
    #: Write feedback/<student>.md and .html; `shrink_seconds` is the
    #: wall-clock budget per student for minimal counterexamples (0: none);
    #: `tell_identical` names, in a student's feedback, the others who
    #: handed in the same files (the reports always do).
    feedback: bool = True
    tell_identical: bool = False
    #: More feedback, on a subset of the tests each: (folder, tests); the
    #: files go to report_dir/folder/feedback (the service's public view).
    feedback_views: tuple[tuple[str, tuple[str, ...]], ...] = ()
    shrink_seconds: float = ShrinkPolicy().seconds_per_student
    #: A Dask scheduler (tcp://HOST:PORT) to run on, instead of the local
    #: pool; or a Scheduler made by the caller (a service's, sharing turns).
    scheduler: str | Scheduler | None = None
    #: Grade only the tests whose name matches (as `sudoku test --only`).
    only: str | None = None
    #: Grade only these tests (by name; empty: every test that counts).
    tests: tuple[str, ...] = ()
    #: Held while the reports and the feedback are written (its search
    #: runs sandboxes): a service takes a turn of its share so.
    finishing: Callable[[], AbstractContextManager[object]] = nullcontext
    #: Compare the hand-ins for similarity (the section of grades.html and
    #: similarity.csv), leaving out what they share with the `base` files.
    similarity: bool = True
    base: tuple[Path, ...] = ()
    #: Check the course requirements (clpfd, head comments, layout,
    #: documentation) as the suite's [requirements] table says.
    requirements: bool = True
    #: The language of the feedback files (i18n.LANGUAGES): the course's,
    #: and the students' own choices by id (see feedback_language).
    language: str = "en"
    languages: Mapping[str, str] = field(default_factory=dict)


@dataclass
class GradingOutcome:
    report: dict
    new: int
    reused: int
    db: Path
    paths: list[Path]
    run: ClassRun
    warnings: list[str] = field(default_factory=list)
    #: On the roster, with no submission.
    missing: list[str] = field(default_factory=list)
    #: Entries graded 0 because they hold no sudoku.pl (or no usable id).
    ungradable: list[str] = field(default_factory=list)
    #: Everyone graded 0 without a run (nothing to run, or it did not
    #: load): (student, "grade: why"), for the summary.
    not_graded: list[tuple[str, str]] = field(default_factory=list)
    #: The class compared for similarity (None: --no-similarity, or it failed).
    similarity: Similarity | None = None
    #: How many of `warnings` (the first ones) on_warning was told already.
    told: int = 0


class GradingInterrupted(KeyboardInterrupt):
    """Ctrl-C during grading: what was done by then, all of it kept."""

    def __init__(self, new: int, reused: int, total: int, counts: dict[str, int], db: Path):
        super().__init__()
        self.new, self.reused, self.total, self.counts, self.db = new, reused, total, counts, db


def check_machine() -> list[str]:
    """Raise SetupProblem when grading cannot be made safe; return warnings."""
    if shutil.which("swipl") is None:
        raise SetupProblem(
            "SWI-Prolog (swipl) is not installed: install the Debian package swi-prolog-nox "
            "(make setup does)"
        )
    if jail.bubblewrap(jail.sandbox_uid(0)) is None:
        raise SetupProblem(
            "bubblewrap cannot build a sandbox here, and submissions are never run without "
            "one: install the Debian package bubblewrap, and allow unprivileged user "
            "namespaces (sysctl user.max_user_namespaces > 0)"
        )
    try:
        jail.system_view()
    except OSError as e:
        raise SetupProblem(f"cannot build the sandbox's view of SWI-Prolog: {e}") from None
    warnings = []
    how = accounting()
    if not how.by_kernel:
        warnings.append(
            f"{WITHOUT_GROUPS}: CPU time is charged as wall time x {how.cores} core(s), so a "
            "test's CPU limit is reached after that share of it in wall time; memory is "
            "sampled and limited per process (address space), and processes per uid"
        )
    elif "memory" not in (cgroups.layout() or cgroups.Layout(0, {})).controllers:
        warnings.append(
            "the control group has no memory controller: memory is sampled and limited per "
            "process (address space)"
        )
    if os.geteuid() != 0:
        warnings.append("not root: submissions run under your own uid, inside the sandbox")
    return warnings


def release_dead_claims(book: Gradebook, host: str) -> None:
    """Drop the claims of graders on this machine that are gone (killed)."""
    for other in book.claim_owners():
        other_host, _, run_id = other.partition(":")
        if other_host == host and run_is_alive(run_id) is False:
            book.release_claims(other)


Loaded = dict[str, tuple[Puzzle, list[Grid] | None]]


def load_cases(
    suite: Path,
    points: Points,
    loaded: Loaded | None = None,
    only: str | None = None,
    names: tuple[str, ...] = (),
) -> list[SuiteCase]:
    """The tests that count (of those, the ones `only` matches), after
    checking that every one of them can be graded: a puzzle that parses,
    and an expected-solution file that exists and parses. Raises
    GradingError listing every problem, before anyone is graded: a broken
    suite must not be charged to the students. `loaded` gets each test's
    puzzle and solutions, so as not to parse them twice."""
    if not suite.is_dir():
        raise GradingError(f"{suite}: no such suite folder (use --suite DIR)")
    cases = discover(suite)
    if not cases:
        raise GradingError(f"{suite}: no testNNNd.txt puzzles")
    check_points(points, [c.name for c in cases])
    cases = [c for c in cases if points.counts(c.name)]
    if only:
        chosen = {c.name for c in discover(suite, only)}
        cases = [c for c in cases if c.name in chosen]
        if not cases:
            raise GradingError(f"--only {only!r}: no test of {suite} that counts matches it")
    if names:
        cases = [c for c in cases if c.name in names]
        if not cases:
            raise GradingError(f"{suite}: none of the tests {', '.join(names)} counts")
    problems = []
    for case in cases:
        try:
            puzzle, expected = load_case(case)
        except FormatError as e:
            problems.append(str(e))
            continue
        if loaded is not None:
            loaded[case.name] = (puzzle, expected)
        if expected is None:
            problems.append(
                f"{case.expected_path}: missing (the expected solutions of {case.name})"
            )
    if problems:
        shown = problems[:10] + (
            [f"... and {len(problems) - 10} more"] if len(problems) > 10 else []
        )
        raise GradingError(
            f"{suite}: this suite cannot be used, so nobody was graded:\n  " + "\n  ".join(shown)
        )
    return cases


def resolve(request: GradingRequest) -> tuple[GradeSettings, Points, Manifest | None]:
    """The settings and points to grade with: the command line's where
    given, else the suite's suite.toml, else the defaults."""
    manifest = load_manifest(request.suite) if request.suite.is_dir() else None
    settings = request.settings
    if manifest is not None:
        given = request.given
        if manifest.rules is not None and "rules" not in given:
            settings = replace(settings, rules=manifest.rules)
        if manifest.time_limit is not None and "time_limit" not in given:
            settings = replace(settings, time_limit=manifest.time_limit)
        if manifest.memory_limit is not None and "memory_mb" not in given:
            settings = replace(settings, memory_mb=manifest.memory_limit)
    if request.points_file:
        points = load_points(request.points_file)
    elif manifest is not None and manifest.points is not None:
        points = manifest.points
    else:
        points = Points()
    return settings, points, manifest


def _select(intake: Intake, roster: list[str], names: tuple[str, ...]) -> set[str]:
    """The students --student names, each one checked."""
    known = set(intake.students) | set(roster)
    for name in names:
        if name not in known:
            raise GradingError(f"--student {name}: no such student{near(name, known)}")
    return set(names)


def in_words(
    students: list[StudentGrades], cases: list[SuiteCase], rules: Rules
) -> list[StudentGrades]:
    """The grades as reports show them: a wrong test's first extra and
    missing solutions drawn as boards, with the rules an extra one breaks
    named by the validator (the gradebook keeps the grids as lists)."""
    puzzles = {c.name: load_case(c)[0] for c in cases}
    return [
        replace(
            s,
            grades=[
                replace(g, evidence=evidence_in_words(g.evidence, puzzles[g.test], rules))
                if g.grade is Grade.WRONG and g.test in puzzles
                else g
                for g in s.grades
            ],
        )
        for s in students
    ]


@dataclass
class Prepared:
    """Everything checked before anyone is graded."""

    intake: Intake
    settings: GradeSettings
    points: Points
    cases: list[SuiteCase]
    #: On the roster, with no submission; the students --student names.
    missing: list[str]
    selected: set[str]
    warnings: list[str]
    #: Whether this machine can sandbox (for the feedback's search).
    local_sandbox: bool
    #: The course requirements to check (the suite's [requirements]).
    requirements: RequirementsPolicy = field(default_factory=RequirementsPolicy)


@dataclass
class Graded:
    """What the scheduled runs gave: each student's row, and the tallies."""

    students: list[StudentGrades]
    new: int
    reused: int
    db: Path
    run: ClassRun
    hidden: list[Path]


def grade(
    request: GradingRequest,
    on_start: Callable[[int], Callable[[bool], None]] | None = None,
    on_phase: Callable[[str], None] | None = None,
    on_warning: Callable[[str], None] | None = None,
) -> GradingOutcome:
    """Grade the class of `request`; `on_start(total)` returns a per-grade tick
    (told whether the grade is fresh or from the gradebook), `on_phase`
    hears of the long steps after grading (the feedback), and `on_warning`
    of each warning known before grading starts (not on the roster, the
    rules, what intake left out), at once rather than after a long run;
    the outcome's `told` says how many of its warnings it heard.

    The stages: prepare (the machine, the class, the suite, the roster,
    --student: everything that can be checked, before anyone is graded),
    schedule (the runs, through the gradebook), then the class report,
    the similarity section and the feedback. Raises GradingInterrupted on
    Ctrl-C, with what was done by then.
    """
    prepared = prepare(request)
    if on_warning is not None:
        for warning in prepared.warnings:
            on_warning(warning)
    told = len(prepared.warnings) if on_warning is not None else 0
    graded = schedule(request, prepared, on_start)
    students = graded.students + absent_rows(prepared)
    warnings = prepared.warnings
    with request.finishing():
        alike = _similarity(request, prepared.intake, prepared.settings, warnings,
                            on_phase)  # fmt: skip
        students = with_requirements(request, prepared, students, alike, on_phase)
        report, paths = write_reports(request, prepared, students, alike)
        if request.feedback:
            paths.append(feedback(request, prepared, graded, students, on_phase))
            for folder, tests in request.feedback_views:
                view = _view(prepared, students, tests)
                feedback(request, view, graded, _rows_on(students, tests), on_phase, folder)
    warnings += graded.run.problems
    return GradingOutcome(
        report, graded.new, graded.reused, graded.db, paths, graded.run, warnings,
        prepared.missing, [u.student for u in prepared.intake.ungradable], not_graded(students),
        alike, told,
    )  # fmt: skip


def machine_warnings(request: GradingRequest) -> tuple[list[str], bool]:
    """The machine's warnings, and whether it can sandbox; on a cluster the
    workers sandbox the runs, and here only the feedback's search would."""
    if request.scheduler is None:
        return check_machine(), True
    try:
        return check_machine(), True
    except SetupProblem as e:
        return [f"no feedback counterexamples: this machine cannot sandbox ({e})"], False


def prepare(request: GradingRequest) -> Prepared:
    """Check the machine, read the class, settle the settings and the
    tests, check the rules, the roster and --student: all before any run."""
    warnings, local_sandbox = machine_warnings(request)
    intake = read_class(request.submissions, request.jobs)
    settings, points, manifest = resolve(request)
    parsed: Loaded = {}
    cases = load_cases(request.suite, points, parsed, request.only, request.tests)
    warnings += check_rules(cases, settings.rules, manifest, parsed)
    roster = load_roster(request.roster) if request.roster else []
    selected = _select(intake, roster, request.students)
    if request.similarity:
        read_base(request.base)  # a missing --base file is the user's error, found now
    present = set(intake.students)
    if roster and (strays := sorted(present - set(roster))):
        warnings.append(f"not on the roster {request.roster}, graded anyway: {', '.join(strays)}")
    warnings += intake.skipped
    missing = [r for r in roster if r not in present]
    policy = (manifest.requirements if manifest else None) or RequirementsPolicy()
    return Prepared(
        intake, settings, points, cases, missing, selected, warnings, local_sandbox, policy
    )


class BookHooks:
    """The scheduler's hooks on one gradebook: stored grades (a twin's
    too), claims shared with other graders, and every grade recorded."""

    def __init__(
        self, book: Gradebook, prepared: Prepared, tick: Callable[[bool], None], lease: float
    ) -> None:
        self.book, self.selected, self.tick, self.lease = book, prepared.selected, tick, lease
        self.skey = prepared.settings.key()
        self.ckeys = {c.name: case_key(c) for c in prepared.cases}
        self.host = socket.gethostname()
        self.owner = f"{self.host}:{new_run_id()}"
        self.grades: dict[tuple[str, str], TestGrade] = {}
        self.counts = {"new": 0, "reused": 0}

    def hooks(self) -> Hooks:
        return Hooks(self.stored, self.record, self.claim, self.loaded)

    def stored(self, sub: Submission, case: SuiteCase) -> TestGrade | None:
        own = self.book.get(sub, case.name, self.ckeys[case.name], self.skey)
        if own is not None or sub.student in self.selected:
            return own  # a student regraded with --student runs afresh
        twin = self.book.get_twin(sub, case.name, self.ckeys[case.name], self.skey)
        if twin is not None:  # the same files, run for another student: a row of their own
            self.book.put(sub, self.ckeys[case.name], self.skey, twin)
        return twin

    def claim(self, sub: Submission, case: SuiteCase) -> bool:
        key = (sub.digest, case.name, self.ckeys[case.name], self.skey)
        if self.book.claim(*key, self.owner, self.lease, sub.student):
            return True
        release_dead_claims(self.book, self.host)  # a grader killed here need not hold us up
        return self.book.claim(*key, self.owner, self.lease, sub.student)

    def loaded(self, sub: Submission, report: LoadReport) -> None:
        self.book.put_load(sub.digest, self.skey, "\n".join(report.messages))

    def record(self, sub: Submission, case: SuiteCase, g: TestGrade, fresh: bool) -> None:
        if fresh:
            self.book.put(sub, self.ckeys[case.name], self.skey, g)
        self.counts["new" if fresh else "reused"] += 1
        self.grades[(sub.student, case.name)] = g
        self.tick(fresh)

    def interrupted(self, total: int, db: Path) -> GradingInterrupted:
        tally: dict[str, int] = {}
        for g in self.grades.values():
            tally[g.grade.value] = tally.get(g.grade.value, 0) + 1
        return GradingInterrupted(self.counts["new"], self.counts["reused"], total, tally, db)


def forget_selected(book: Gradebook, prepared: Prepared, db: Path) -> None:
    """--student: drop the named students' grades, once the rest of the
    class is known to be fully graded with these settings."""
    subs, skey = prepared.intake.submissions, prepared.settings.key()
    ckeys = {c.name: case_key(c) for c in prepared.cases}
    others = [
        s.student
        for s in subs
        if s.student not in prepared.selected
        and any(book.get(s, c.name, ckeys[c.name], skey) is None for c in prepared.cases)
    ]
    if others:
        raise GradingError(
            f"--student regrades students of a class graded before, but "
            f"{len(others)} other student(s) are not fully graded in {db} with these "
            f"settings ({', '.join(others[:5])}{', ...' if len(others) > 5 else ''}): "
            "grade the whole class first"
        )
    for s in subs:
        if s.student in prepared.selected:
            book.forget(s.digest, skey, s.student)  # only theirs, not a twin's


def schedule(
    request: GradingRequest,
    prepared: Prepared,
    on_start: Callable[[int], Callable[[bool], None]] | None,
) -> Graded:
    """Run what the gradebook does not hold yet, on the local pool or a
    cluster; each student's row, as named by them, with their notes."""
    subs, cases, settings = prepared.intake.submissions, prepared.cases, prepared.settings
    request.report_dir.mkdir(parents=True, exist_ok=True)
    db = request.db or request.report_dir / "grades.sqlite"
    total = len(subs) * len(cases)
    hidden = hidden_paths(request.suite, request.report_dir, request.submissions, db)
    with Gradebook(db) as book:
        if prepared.selected:
            forget_selected(book, prepared, db)
        tick = on_start(total) if on_start else (lambda _fresh: None)
        hooks = BookHooks(book, prepared, tick, lease=settings.wall_seconds * 2 + 120)
        scheduler: Scheduler
        if request.scheduler is None:
            scheduler = LocalPool(request.jobs, hidden)
        elif isinstance(request.scheduler, str):
            scheduler = DaskCluster(request.scheduler)
        else:
            scheduler = request.scheduler
        try:
            run = scheduler.run(subs, cases, settings, hooks.hooks())
        except (SandboxSetupError, WorkspaceError, ClusterUnreachable) as e:
            raise SetupProblem(str(e)) from None
        except KeyboardInterrupt:
            raise hooks.interrupted(total, db) from None
        finally:
            book.release_claims(hooks.owner)
        twins = identical(subs)
        students = [
            StudentGrades(
                s.student,
                shown_path(s.solver),
                [as_named(s, hooks.grades[(s.student, c.name)]) for c in cases],
                s.notes(book.get_load(s.digest, hooks.skey) or ""),
                twins.get(s.student, []),
            )
            for s in subs
        ]
    return Graded(students, hooks.counts["new"], hooks.counts["reused"], db, run, hidden)


def absent_rows(prepared: Prepared) -> list[StudentGrades]:
    """Rows of zeros for the entries that could not be graded and for the
    students on the roster who handed in nothing."""
    cases = prepared.cases
    rows = []
    for u in prepared.intake.ungradable:
        zero = [TestGrade(u.student, c.name, u.grade, u.note) for c in cases]
        rows.append(StudentGrades(u.student, shown_path(u.source), zero, [u.note]))
    for m in prepared.missing:
        none = [TestGrade(m, c.name, Grade.MISSING, "no submission") for c in cases]
        rows.append(StudentGrades(m, "", none, ["no submission: on the roster, not handed in"]))
    return rows


def _view(prepared: Prepared, students: list[StudentGrades], tests: tuple[str, ...]) -> Prepared:
    """`prepared` seen through a subset of its tests."""
    return replace(prepared, cases=[c for c in prepared.cases if c.name in tests])


def _rows_on(students: list[StudentGrades], tests: tuple[str, ...]) -> list[StudentGrades]:
    """Each student's row with the grades of `tests` only."""
    return [replace(s, grades=[g for g in s.grades if g.test in tests]) for s in students]


def write_reports(
    request: GradingRequest,
    prepared: Prepared,
    students: list[StudentGrades],
    alike: Similarity | None,
) -> tuple[dict, list[Path]]:
    """The class report (CSV, JSON, HTML, the wide CSV, similarity.csv)."""
    from plpuzzle.sudoku.grading.report_html import render_html

    cases, settings = prepared.cases, prepared.settings
    shown = in_words(students, cases, settings.rules)
    report = build_report(shown, [c.name for c in cases], prepared.points, settings)
    report["missing"] = prepared.missing
    report["ungradable"] = [u.student for u in prepared.intake.ungradable]
    if alike is not None:
        report["similarity"] = similarity_summary(alike)
    if any(s.requirements is not None for s in students):
        report["requirements"] = asdict(prepared.requirements)
    if request.feedback:  # which file is whose, whatever the id makes of a name
        for row in report["students"]:
            row["feedback"] = f"{FEEDBACK_FOLDER}/{feedback_name(row['id'])}.html"
    folder = request.report_dir
    paths = [folder / n for n in ("grades.csv", "grades.json", "grades.html")]
    paths[0].write_text(report_csv(report))
    paths[1].write_text(report_json(report))
    with speaking(request.language):  # the class report in the course's language
        paths[2].write_text(render_html(report, alike))
    paths.append(write_wide_csv(report, folder / "grades-wide.csv"))
    if alike is not None:
        paths.append(folder / SIMILARITY_CSV)
        paths[-1].write_text(similarity_csv(alike), encoding="utf-8")
    return report, paths


def course_language(suite: Path) -> str:
    """The language a suite's course speaks ([course] language in its
    suite.toml, as the service reads it), for `grade` given none: English
    when it names none there is a catalogue for. A suite.toml that cannot
    be read is the grading's to report, not this."""
    path = suite / MANIFEST_NAME
    try:
        table = read_toml(path)[1].get("course", {}) if path.is_file() else {}
    except SuiteError:
        return "en"
    language = table.get("language") if isinstance(table, dict) else None
    return language if language in LANGUAGES else "en"


def feedback_language(request: GradingRequest, student: str) -> str:
    """The language of a student's feedback files: the student's own
    choice, else the course's (English when neither is a language there
    is a catalogue for)."""
    for language in (request.languages.get(student), request.language):
        if language in LANGUAGES:
            return language
    return "en"


def feedback(
    request: GradingRequest,
    prepared: Prepared,
    graded: Graded,
    students: list[StudentGrades],
    on_phase: Callable[[str], None] | None,
    folder: str = "",
) -> Path:
    """A feedback file per student, with the smallest failing puzzle
    found within the budget when this machine can sandbox; into the
    report folder's `folder` (a view on some tests) when given."""

    def on_search(searched: int) -> None:
        if on_phase is not None:
            on_phase(
                f"writing feedback: looking for the smallest failing puzzle of {searched} "
                f"student(s) with wrong answers, up to {request.shrink_seconds:g} s each"
            )

    policy = (
        ShrinkPolicy.per_student(request.shrink_seconds)
        if request.shrink_seconds > 0 and prepared.local_sandbox
        else None
    )
    return write_feedback(
        request.report_dir / folder,
        students,
        prepared.cases,
        prepared.settings,
        points=prepared.points,
        submissions=prepared.intake.submissions,
        policy=policy,
        hidden=graded.hidden,
        jobs=request.jobs,
        on_search=on_search,
        problems=prepared.warnings,
        tell_identical=request.tell_identical,
        language=lambda student: feedback_language(request, student),
    )


def _similarity(
    request: GradingRequest,
    intake: Intake,
    settings: GradeSettings,
    warnings: list[str],
    on_phase: Callable[[str], None] | None,
) -> Similarity | None:
    """The class compared for similarity, unless --no-similarity, with the
    entries that cannot be graded but hold .pl files (no sudoku.pl); a
    reader that cannot run costs the section (with a warning), never the
    grades."""
    subs = intake.submissions
    if not request.similarity or not subs:
        return None
    more = ungraded_hand_ins(intake.ungradable)
    if on_phase:
        on_phase(f"comparing {len(subs) + len(more)} hand-in(s) for similarity")
    try:
        return compare_submissions(
            subs, request.base, SimilaritySettings(settings.dialect), request.jobs, more
        )
    except ReaderUnavailable as e:
        warnings.append(f"no similarity report: {e}")
        return None
    except Exception as e:  # the similarity section's loss, never the grades'
        words = one_line(f"{type(e).__name__}: {e}", 300)
        warnings.append(f"no similarity report: it failed ({words}); plpuzzle's fault")
        return None


def with_requirements(
    request: GradingRequest,
    prepared: Prepared,
    students: list[StudentGrades],
    alike: Similarity | None,
    on_phase: Callable[[str], None] | None,
) -> list[StudentGrades]:
    """Each student's row with the course requirements as found, read
    from the similarity comparison's reading when there is one. A reader
    that cannot run costs the requirements (with a warning), never the
    grades."""
    policy, subs = prepared.requirements, prepared.intake.submissions
    checks = (policy.clpfd, policy.head_comments, policy.layout, policy.documentation)
    if not request.requirements or not subs or all(c == OFF for c in checks):
        return students
    if on_phase:
        on_phase(f"checking the course requirements of {len(subs)} hand-in(s)")
    dialect = prepared.settings.dialect
    try:
        found = check_submissions(subs, policy, dialect, request.jobs, alike)
    except ReaderUnavailable as e:
        prepared.warnings.append(f"no course requirements report: {e}")
        return students
    except Exception as e:  # the section's loss, never the grades'
        words = one_line(f"{type(e).__name__}: {e}", 300)
        prepared.warnings.append(f"no course requirements report: it failed ({words})")
        return students
    by_student = {r.student: r.to_json() for r in found}
    return [replace(s, requirements=by_student.get(s.student)) for s in students]


def as_named(sub: Submission, grade: TestGrade) -> TestGrade:
    """A grade as the student knows their file: the sandbox loads a lone
    `frank.pl` as sudoku.pl, and the gradebook keeps what Prolog said of
    it (twins share it), so the place is put back for each student."""
    if sub.renamed() is None:
        return grade
    return replace(grade, detail=sub.as_named(grade.detail), evidence=sub.as_named(grade.evidence))


def identical(subs: list[Submission]) -> dict[str, list[str]]:
    """student -> the other students who handed in the same files (by digest)."""
    by_digest: dict[str, list[str]] = {}
    for sub in subs:
        by_digest.setdefault(sub.digest, []).append(sub.student)
    return {
        student: sorted(o for o in group if o != student)
        for group in by_digest.values()
        if len(group) > 1
        for student in group
    }


#: Grades that mean a submission never ran a test.
NOT_RUN = (Grade.NO_SUBMISSION, Grade.NOT_LOADABLE, Grade.LOAD_ERROR)


def not_graded(students: list[StudentGrades]) -> list[tuple[str, str]]:
    """(student, "grade: why") for each student none of whose tests ran."""
    out = []
    for s in sorted(students, key=lambda s: s.student):
        if s.grades and all(g.grade in NOT_RUN for g in s.grades):
            first = s.grades[0]
            out.append((s.student, f"{first.grade.value}: {first.detail}"))
    return out
