"""The conventions every `plpuzzle` command follows, checked on the real
commands: as real processes where the process matters (exit codes, stdin,
signals, imports), and by walking the click tree for option defaults."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import zipfile
from collections.abc import Iterator
from importlib.metadata import version
from pathlib import Path

import click
import pytest

from plpuzzle.cli import GROUPS, main
from plpuzzle.clitools import DEFAULT_TIME_LIMIT, ENGINE_DEFAULT_RULE

REPO = Path(__file__).resolve().parents[1]
BUNDLED = REPO / "puzzles" / "sudoku" / "consecutive"
EXAMPLE = BUNDLED / "test001d.txt"
SOLVERS = REPO / "tests" / "fixtures" / "solvers"
SCRIPT = Path(sys.executable).with_name("plpuzzle")

#: Commands that run several engines (--engines LIST); the others run one.
COMPARING = {"sudoku check", "sudoku test", "knight count", "flag"}


def command_line() -> list[str]:
    """The installed `plpuzzle` script, or `python -m plpuzzle` without one."""
    return [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "plpuzzle"]


def plpuzzle(
    *args: str | Path, cwd: Path = REPO, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*command_line(), *map(str, args)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
        input=stdin,
    )


def without_matplotlib(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    """plpuzzle in a process where `import matplotlib` fails, as when the
    `plots` extra is not installed."""
    code = (
        "import sys; sys.modules['matplotlib'] = None; sys.argv[0] = 'plpuzzle'; "
        "from plpuzzle.cli import main; main()"
    )
    return subprocess.run(
        [sys.executable, "-c", code, *map(str, args)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
    )


def all_commands() -> Iterator[tuple[str, click.Command]]:
    """Every leaf command, by its full name (e.g. `sudoku solve`)."""
    ctx = click.Context(main)
    for name in main.list_commands(ctx):
        group = main.get_command(ctx, name)
        assert group is not None
        if isinstance(group, click.Group):
            for sub in group.list_commands(ctx):
                command = group.get_command(ctx, sub)
                assert command is not None
                yield f"{name} {sub}", command
        else:
            yield name, group


def param(command: click.Command, name: str) -> click.Parameter | None:
    return next((p for p in command.params if p.name == name), None)


# --- loading lazily, --version -------------------------------------------------


def test_help_lists_the_groups_without_importing_them() -> None:
    code = (
        "import sys\n"
        "from plpuzzle.cli import main\n"
        "try:\n"
        "    main(['--help'], prog_name='plpuzzle')\n"
        "except SystemExit:\n"
        "    pass\n"
        "heavy = ['plpuzzle.sudoku', 'plpuzzle.knight', 'plpuzzle.flag', 'matplotlib',\n"
        "         'pyswip', 'plpuzzle.runtime', 'rich']\n"
        "print('LOADED', [m for m in heavy if m in sys.modules])\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert "LOADED []" in run.stdout
    for name, (_, short_help) in GROUPS.items():
        assert f"{name}  " in run.stdout and short_help in run.stdout


def test_the_lazy_help_lines_are_the_groups_own() -> None:
    ctx = click.Context(main)
    for name, (_, short_help) in GROUPS.items():
        group = main.get_command(ctx, name)
        assert group is not None and group.get_short_help_str(limit=200) == short_help


def test_a_sudoku_command_loads_its_own_module_only() -> None:
    """`sudoku solve` runs without loading the other commands' modules,
    grading, the service or similarity (each command a test starts pays
    the import time of what it loads)."""
    code = (
        "import sys\n"
        "from plpuzzle.cli import main\n"
        "try:\n"
        f"    main(['sudoku', 'solve', '--engine', 'python', {str(EXAMPLE)!r}],\n"
        "         prog_name='plpuzzle')\n"
        "except SystemExit as e:\n"
        "    print('EXIT', e.code)\n"
        "here = 'plpuzzle.sudoku.presentation.commands.'\n"
        "mine = [m for m in sys.modules if m.startswith(here)]\n"
        "heavy = [m for m in sys.modules if m.startswith(('plpuzzle.sudoku.grading',\n"
        "         'plpuzzle.sudoku.service', 'jinja2', 'plpuzzle.sudoku.api'))]\n"
        "print('MINE', sorted(mine))\n"
        "print('HEAVY', heavy)\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=REPO
    )
    assert "EXIT 0" in run.stdout, run.stdout + run.stderr
    here = "plpuzzle.sudoku.presentation.commands."
    assert f"MINE {sorted([here + 'common', here + 'solve'])!r}" in run.stdout, run.stdout
    assert "HEAVY []" in run.stdout, run.stdout


def test_every_commands_help_works_and_names_the_command() -> None:
    """Each command's --help, loaded through its group as `plpuzzle`
    loads it: exit 0 and its own usage line; each group lists all its
    commands."""
    from click.testing import CliRunner

    runner = CliRunner()
    names = [name for name, _ in all_commands()]
    assert {"sudoku solve", "sudoku grade", "sudoku serve", "sudoku restore", "knight tour"} <= set(
        names
    )
    for name in names:
        result = runner.invoke(main, [*name.split(), "--help"], prog_name="plpuzzle")
        assert result.exit_code == 0, (name, result.output)
        assert result.output.startswith(f"Usage: plpuzzle {name} "), (name, result.output)
    for group in GROUPS:
        shown = runner.invoke(main, [group, "--help"], prog_name="plpuzzle").output
        for name in names:
            if name.startswith(f"{group} "):
                assert f"  {name.split()[1]}  " in shown, (group, name, shown)


@pytest.mark.parametrize("args", [("nosuch",), ("sudoku", "nosuch"), ("knight", "nosuch")])
def test_an_unknown_command_is_a_clear_usage_error(args: tuple[str, ...]) -> None:
    run = plpuzzle(*args)
    assert run.returncode == 2, run.stderr
    assert f"Error: No such command '{args[-1]}'." in run.stderr
    assert "Traceback" not in run.stderr


def test_version_is_the_installed_distributions() -> None:
    for flag in ("--version", "-V"):
        run = plpuzzle(flag)
        assert run.returncode == 0
        assert run.stdout == f"plpuzzle, version {version('plpuzzle')}\n"


# --- one error style and exit codes ------------------------------------------------


def test_a_missing_file_is_a_file_level_error_without_a_position() -> None:
    run = plpuzzle("sudoku", "solve", "nowhere.txt")
    assert run.returncode == 2
    assert run.stderr == ("plpuzzle: error: nowhere.txt: cannot read: No such file or directory\n")


def test_a_bad_field_is_reported_with_its_position(tmp_path: Path) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_text("2\n- - - -\n- x - -\n- - - -\n- - - -\n")
    run = plpuzzle("sudoku", "solve", bad)
    assert run.returncode == 2
    assert run.stderr.startswith(f"plpuzzle: error: {bad}:3:3: ")
    assert run.stderr.count("\n") == 1


@pytest.mark.parametrize(
    "args",
    [
        ("sudoku", "solve", "nowhere.txt"),
        ("sudoku", "check", "nowhere.txt"),
        ("sudoku", "test", "no-such-folder"),
        ("sudoku", "generate", "--k", "2", "--solutions", "3..1"),
        ("sudoku", "generate", "--k", "99"),
        ("sudoku", "grade", "no-such-class"),
        ("sudoku", "similar", "no-such-class"),
        ("sudoku", "similar", "tests/fixtures/class", "--base", "no-such-frame.pl"),
        ("sudoku", "similar", "tests/fixtures/class", "--threshold", "0"),
        ("sudoku", "requirements", "no-such-class"),
        ("sudoku", "solve", EXAMPLE, "--solver", "no-such.pl"),
        ("knight", "tour", "--board", "0x9"),
        ("knight", "count", "--start", "z9"),
        ("knight", "survey", "--size", "3", "--png", "/no/such/dir/x.png"),
        ("flag", "RWX"),
        ("flag",),
    ],
)
def test_user_errors_are_one_plpuzzle_line_and_exit_2(args: tuple[str | Path, ...]) -> None:
    run = plpuzzle(*args)
    assert run.returncode == 2, run.stderr
    assert run.stderr.startswith("plpuzzle: error: "), run.stderr
    assert run.stderr.count("\n") == 1, run.stderr
    assert "Error:" not in run.stderr and "Traceback" not in run.stderr
    assert ":0:0" not in run.stderr


def test_a_plot_without_matplotlib_is_a_setup_error_exit_3(tmp_path: Path) -> None:
    run = without_matplotlib("knight", "survey", "--size", "3", "--png", "x.png", cwd=tmp_path)
    assert run.returncode == 3, run.stderr
    assert run.stderr == (
        "plpuzzle: error: --png x.png: the heat map needs matplotlib "
        "(pip install 'plpuzzle[plots]')\n"
    )
    assert "a tour from" in run.stdout  # the survey itself was still printed
    assert not (tmp_path / "x.png").exists()


# --- '-' for stdin and stdout ----------------------------------------------------


def test_dash_reads_the_puzzle_from_stdin_and_writes_to_stdout() -> None:
    run = plpuzzle("sudoku", "solve", "-", "-o", "-", stdin=EXAMPLE.read_text())
    assert run.returncode == 0, run.stderr
    assert run.stdout == plpuzzle("sudoku", "solve", EXAMPLE).stdout
    assert run.stdout.startswith("\n-----\n")


def test_dash_in_check_and_a_bad_stdin_names_stdin() -> None:
    run = plpuzzle("sudoku", "check", "-", "--format", "json", stdin=EXAMPLE.read_text())
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["puzzles"][0]["puzzle"] == "-"
    bad = plpuzzle("sudoku", "solve", "-", stdin="x\n")
    assert bad.returncode == 2 and bad.stderr.startswith("plpuzzle: error: <stdin>:1:1: ")


# --- the same option names and defaults everywhere ----------------------------------


def test_every_time_limit_has_the_one_default_shown_in_help() -> None:
    seen = []
    for name, command in all_commands():
        option = param(command, "time_limit")
        if option is None:
            continue
        seen.append(name)
        assert option.default == DEFAULT_TIME_LIMIT == 120.0, name
        assert isinstance(option, click.Option) and option.show_default, name
    assert {"sudoku solve", "sudoku grade", "knight tour", "flag"} <= set(seen)


def test_one_engine_is_engine_name_and_several_are_engines_list() -> None:
    """--engine NAME (default prolog) where one engine runs, --engines LIST
    where several may; never a pseudo-engine such as 'both'."""
    several = set()
    for name, command in all_commands():
        one, many = param(command, "engine"), param(command, "engines")
        assert not (one and many), name
        if one is not None:
            assert isinstance(one.type, click.Choice), name
            assert one.default == "prolog" and "both" not in one.type.choices, name
        if many is not None:
            assert isinstance(many, click.Option) and many.metavar == "LIST", name
            several.add(name)
    assert several == COMPARING
    assert " ".join(ENGINE_DEFAULT_RULE.split()[:3]) in plpuzzle("--help").stdout


def test_engines_lists_are_checked_the_same_way_everywhere() -> None:
    for args in (("flag", "RWB"), ("knight", "count", "--size", "5"),
                 ("sudoku", "check", EXAMPLE), ("sudoku", "test", BUNDLED)):  # fmt: skip
        unknown = plpuzzle(*args, "--engines", "prolog,cobol")
        assert unknown.returncode == 2, args
        assert unknown.stderr.startswith("plpuzzle: error: --engines: unknown engine 'cobol'")
        twice = plpuzzle(*args, "--engines", "Python,python")
        assert twice.stderr == "plpuzzle: error: --engines: python is named twice\n", args
    one = plpuzzle("sudoku", "check", EXAMPLE, "--engines", "prolog")
    assert one.returncode == 2 and "name at least 2 of prolog, python, cpsat" in one.stderr


def test_human_output_is_format_text_and_files_are_o_or_out() -> None:
    """--format's first (default) choice is text on every command; a single
    output file is -o/--output FILE, a folder of them --out DIR."""
    for name, command in all_commands():
        fmt = next(p for p in command.params if "--format" in p.opts)
        assert isinstance(fmt.type, click.Choice) and fmt.default == "text", name
        assert fmt.type.choices[0] == "text", name
        for p in command.params:
            if "--out" in p.opts:
                assert isinstance(p.type, click.Path) and not p.type.file_okay, name
                assert p.metavar == "DIR", name
            if "--output" in p.opts:
                assert p.opts == ["-o", "--output"] and p.metavar == "FILE", name


@pytest.mark.slow
def test_the_suite_is_named_the_same_way_in_test_and_grade(tmp_path: Path) -> None:
    commands = dict(all_commands())
    test_suite, grade_suite = (param(commands[n], "suite") for n in ("sudoku test", "sudoku grade"))
    assert test_suite is not None and grade_suite is not None
    assert (test_suite.opts, test_suite.help) == (grade_suite.opts, grade_suite.help)
    by_option = plpuzzle("sudoku", "test", "--suite", BUNDLED, "--only", "test001",
                         "--out", tmp_path, "-q")  # fmt: skip
    by_position = plpuzzle("sudoku", "test", BUNDLED, "--only", "test001", "--out", tmp_path, "-q")
    assert by_option.returncode == by_position.returncode == 0, by_option.stderr
    assert by_option.stdout.splitlines()[0] == by_position.stdout.splitlines()[0]
    assert by_option.stdout.splitlines()[0] == "1 tests: 1 correct"
    both = plpuzzle("sudoku", "test", BUNDLED, "--suite", tmp_path)
    assert both.returncode == 2 and "name the suite once" in both.stderr


def test_every_command_states_its_exit_codes() -> None:
    for name, command in all_commands():
        assert "Exit code" in " ".join((command.help or "").split()), name


def test_grade_writes_to_out_and_keeps_report_as_a_hidden_alias() -> None:
    help_text = plpuzzle("sudoku", "grade", "--help").stdout
    assert "--out DIR" in help_text and "--report" not in help_text
    run = plpuzzle(
        "sudoku", "grade", "tests/fixtures/class", "--suite", "no-such-suite", "--report", "r"
    )
    assert "plpuzzle: warning: --report is deprecated: use --out" in run.stderr
    assert run.returncode == 2 and "no-such-suite: no such suite folder" in run.stderr


def test_every_choice_ignores_case() -> None:
    for name, command in all_commands():
        for p in command.params:
            if isinstance(p.type, click.Choice):
                assert not p.type.case_sensitive, f"{name} {p.name}"


def test_an_upper_case_choice_is_normalised() -> None:
    run = plpuzzle("sudoku", "solve", EXAMPLE, "--engine", "PYTHON", "--format", "JSON")
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["engine"] == "python"
    assert plpuzzle("flag", "RWB", "--engines", "Prolog").returncode == 0


# --- --format json on every command that reports --------------------------------------


def test_every_command_offers_json() -> None:
    for name, command in all_commands():
        option = next((p for p in command.params if "--format" in p.opts), None)
        assert option is not None, name
        assert isinstance(option.type, click.Choice) and "json" in option.type.choices, name


@pytest.fixture
def tiny_class(tmp_path: Path) -> tuple[Path, Path]:
    """One student with our solver, and a suite of one test."""
    subs, suite = tmp_path / "class", tmp_path / "suite"
    subs.mkdir()
    suite.mkdir()
    shutil.copy(REPO / "prolog" / "sudoku.pl", subs / "s1.pl")
    for suffix in ("d", "s"):
        shutil.copy(BUNDLED / f"test001{suffix}.txt", suite)
    return subs, suite


def json_runs(tmp: Path, tiny_class: tuple[Path, Path]) -> dict[str, tuple[str | Path, ...]]:
    subs, suite = tiny_class
    return {
        "sudoku solve": ("sudoku", "solve", EXAMPLE),
        "sudoku check": ("sudoku", "check", EXAMPLE),
        "sudoku test": ("sudoku", "test", BUNDLED, "--only", "test001", "--out", tmp / "t"),
        "sudoku generate": ("sudoku", "generate", "--k", "2", "--seed", "1", "--out", tmp / "g"),
        "sudoku grade": ("sudoku", "grade", subs, "--suite", suite, "--out", tmp / "r"),
        "sudoku similar": ("sudoku", "similar", subs, "--out", tmp / "s"),
        "sudoku requirements": ("sudoku", "requirements", subs, "--suite", suite),
        "knight tour": ("knight", "tour", "--size", "5"),
        "knight count": ("knight", "count", "--size", "5"),
        "knight survey": ("knight", "survey", "--size", "5"),
        "flag": ("flag", "RWBWR"),
        "cluster local": ("cluster", "local", "--workers", "1", "--port", "0", "--check"),
        "sudoku serve": ("sudoku", "serve", suite, "--data", tmp / "d", "--check"),
        "sudoku accounts": ("sudoku", "accounts", suite, "--data", tmp / "d", "--teacher", "t",
                            "-o", tmp / "links.csv"),
    }  # fmt: skip


#: Commands whose JSON run needs a running service: in tests/sudoku/test_service_cli.py
#: (submit, login), tests/sudoku/test_service_mail_and_small.py (results) and
#: tests/sudoku/test_service_ops.py (backup, restore).
JSON_WITH_A_SERVER = {
    "sudoku submit",
    "sudoku login",
    "sudoku results",
    "sudoku backup",
    "sudoku restore",
}


#: The commands whose JSON run takes long: covered by the full run.
SLOW_JSON = {"sudoku generate", "sudoku grade", "knight survey"}


def test_every_command_has_a_json_run(tmp_path: Path, tiny_class: tuple[Path, Path]) -> None:
    covered = set(json_runs(tmp_path, tiny_class)) | JSON_WITH_A_SERVER
    assert covered == {name for name, _ in all_commands()}


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(name, marks=[pytest.mark.slow] if name in SLOW_JSON else [])
        for name in sorted(json_runs(Path("tmp"), (Path("subs"), Path("suite"))))
    ],
)
def test_json_is_stdout_alone_and_parses(
    name: str, tmp_path: Path, tiny_class: tuple[Path, Path]
) -> None:
    run = plpuzzle(*json_runs(tmp_path, tiny_class)[name], "--format", "json")
    assert run.returncode in (0, 1), (name, run.stderr)
    data = json.loads(run.stdout)
    assert isinstance(data, dict) and data, name


# --- -q and -v --------------------------------------------------------------------


@pytest.mark.slow
def test_quiet_keeps_only_the_final_lines_and_verbose_adds_detail(tmp_path: Path) -> None:
    args = ["sudoku", "test", BUNDLED, "--only", "test00[12]", "--out", tmp_path]
    normal, quiet = plpuzzle(*args), plpuzzle("-q", *args)
    assert normal.returncode == quiet.returncode == 0
    per_test = re.compile(r"^test001 +K=2", re.MULTILINE)
    assert per_test.search(normal.stdout) and not per_test.search(quiet.stdout)
    assert quiet.stdout.splitlines()[0] == "2 tests: 2 correct"
    loud = plpuzzle("-v", "sudoku", "solve", EXAMPLE)
    assert loud.stdout == plpuzzle("sudoku", "solve", EXAMPLE).stdout
    assert "plpuzzle: solving" in loud.stderr and "megoldásszám:   1" in loud.stderr
    assert plpuzzle("-q", "-v", "flag", "RWB").returncode == 2


# --- Ctrl-C ------------------------------------------------------------------------


def interrupt(args: list[str | Path], wait_for: str) -> tuple[int, str]:
    """Start plpuzzle, wait for a line on stderr, send SIGINT; exit code and stderr."""
    proc = subprocess.Popen(
        [*command_line(), *map(str, args)],
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stderr is not None
        first = ""
        while wait_for not in first:  # the run's own first lines come before
            line = proc.stderr.readline()
            assert line, first
            first += line
        time.sleep(2)  # into the engine's search (a busy loop) by now
        os.kill(proc.pid, signal.SIGINT)
        rest = proc.stderr.read()
        return proc.wait(timeout=60), first + rest
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_ctrl_c_is_one_line_and_exit_130() -> None:
    args = ["-v", "sudoku", "solve", EXAMPLE, "--solver", SOLVERS / "loops.pl"]
    code, stderr = interrupt([*args, "--time-limit", "100"], "plpuzzle: solving")
    assert code == 130
    assert stderr.endswith("plpuzzle: interrupted\n")
    assert "Traceback" not in stderr and "Aborted" not in stderr


@pytest.mark.slow
def test_an_installed_wheel_finds_the_bundled_puzzles(tmp_path: Path) -> None:
    """A regular (non-editable) install has no source tree to look in; and
    the wheel holds no benchmark code."""
    wheels, env, source = tmp_path / "wheels", tmp_path / "venv", tmp_path / "source"
    # Built from a copy: a build writes build/ beside pyproject.toml.
    for part in ("python", "prolog", "puzzles"):
        shutil.copytree(REPO / part, source / part, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / name, source / name)
    pip = [sys.executable, "-m", "pip"]
    subprocess.run(
        [*pip, "wheel", "--no-deps", "-q", "-w", wheels, source],
        check=True,
        capture_output=True,
    )
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", env], check=True)
    python = env / "bin" / "python"
    (wheel,) = wheels.glob("plpuzzle-*.whl")
    subprocess.run(
        [*pip, "--python", python, "install", "--no-deps", "-q", wheel],
        check=True,
        capture_output=True,
    )
    # The dependencies (click, rich, pyswip) come from this venv, but not its
    # editable plpuzzle: a PYTHONPATH entry's .pth files are not run.
    site = next(p for p in sys.path if p.endswith("site-packages"))
    environ = {**os.environ, "PYTHONPATH": site}
    work = tmp_path / "elsewhere"
    work.mkdir()
    code = (
        "import plpuzzle; from plpuzzle.sudoku.runs.suite import bundled_suite; "
        "print(plpuzzle.__file__); print(bundled_suite())"
    )
    where = subprocess.run(
        [python, "-c", code], capture_output=True, text=True, cwd=work, env=environ, check=True
    )
    module, suite = where.stdout.splitlines()
    assert module.startswith(str(env)) and suite.startswith(str(env))
    assert (Path(suite) / "test001d.txt").is_file()
    # The bundled suite runs from there as it does from the checkout.
    args = ["sudoku", "test", suite, "--only", "test001", "--engines", "python", "--format", "json"]
    run = subprocess.run(
        [env / "bin" / "plpuzzle", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=work,
        env=environ,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    # The lab (the benchmarks) is not part of what ships.
    names = zipfile.ZipFile(wheel).namelist()
    assert not [n for n in names if "bench" in n or n.endswith("/machine.py")], names


@pytest.mark.slow
def test_ctrl_c_while_grading_keeps_the_graded_runs(tmp_path: Path) -> None:
    out = tmp_path / "report"
    args = ["sudoku", "grade", REPO / "tests/fixtures/class"]
    args += ["--suite", REPO / "tests/fixtures/grading_suite", "--time-limit", "10"]
    proc = subprocess.Popen(
        [*command_line(), *map(str, [*args, "--out", out])],
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 120
        while not (out / "grades.sqlite").exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        time.sleep(5)  # some tests graded by now
        proc.send_signal(signal.SIGINT)
        _, stderr = proc.communicate(timeout=180)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, stderr
    assert re.search(r"plpuzzle: interrupted after [1-9]\d* of \d+ test run\(s\)", stderr)
    assert stderr.endswith("plpuzzle: interrupted\n") and "Traceback" not in stderr


# --- -q/-v anywhere, '-' everywhere, JSON even on failure ---------------------------


def test_every_command_takes_q_and_v_after_it_too() -> None:
    for name, command in all_commands():
        opts = {o for p in command.params for o in p.opts}
        assert {"-q", "--quiet", "-v", "--verbose"} <= opts, name


@pytest.mark.slow
def test_q_after_the_command_is_the_q_before_the_group() -> None:
    loud = plpuzzle("flag", "RWBWRRB")
    after, before = plpuzzle("flag", "RWBWRRB", "-q"), plpuzzle("-q", "flag", "RWBWRRB")
    assert after.returncode == before.returncode == loud.returncode == 0
    assert after.stdout == before.stdout
    assert "sequence" in loud.stdout and "sequence" not in after.stdout
    assert "python " in plpuzzle("flag", "RWBWRRB", "--verbose").stdout  # each engine's answer
    both = plpuzzle("flag", "RWB", "-q", "-v")
    assert both.returncode == 2
    assert both.stderr == "plpuzzle: error: -q and -v: give one of them, not both\n"


def test_flag_reads_dash_from_stdin() -> None:
    run = plpuzzle("flag", "-", "-q", stdin="RWBWRRB\n")
    assert run.returncode == 0, run.stderr
    assert run.stdout == plpuzzle("flag", "RWBWRRB", "-q").stdout
    bad = plpuzzle("flag", "-", stdin="RQ\n")
    assert bad.returncode == 2 and bad.stderr.startswith("plpuzzle: error: <stdin>: ")


def test_a_knight_tour_that_cannot_be_found_still_answers_in_json() -> None:
    run = plpuzzle("knight", "tour", "--size", "5", "--start", "b1", "--format", "json")
    assert run.returncode == 1
    answer = json.loads(run.stdout)
    assert (answer["status"], answer["start"], answer["path"]) == ("no_tour", "b1", None)
    assert "no open knight's tour" in run.stderr


def test_only_is_offered_wherever_tests_are_chosen(tiny_class: tuple[Path, Path]) -> None:
    """One --only option, in test and grade alike; in grade it picks the
    tests to run, and a pattern that matches none is the user's error."""
    commands = dict(all_commands())
    test_only, grade_only = (param(commands[n], "only") for n in ("sudoku test", "sudoku grade"))
    assert test_only is not None and grade_only is not None
    assert (test_only.opts, test_only.help) == (grade_only.opts, grade_only.help)
    subs, suite = tiny_class
    none = plpuzzle(
        "sudoku", "grade", subs, "--suite", suite, "--only", "test9", "--out", subs.parent / "r0"
    )
    assert none.returncode == 2
    assert none.stderr.startswith("plpuzzle: error: --only 'test9': no test of ")
    one = plpuzzle("sudoku", "grade", subs, "--suite", suite, "--only", "001", "--no-feedback",
                   "--out", subs.parent / "r", "--format", "json")  # fmt: skip
    assert one.returncode == 0, one.stderr
    assert [t["name"] for t in json.loads(one.stdout)["tests"]] == ["test001"]


@pytest.mark.slow
def test_a_long_run_shows_a_spinner_on_a_terminal_only(tmp_path: Path) -> None:
    """Progress goes to a terminal (with the seconds of the limit), never
    into a pipe: the same run piped prints no spinner text."""
    from terminal import run_on_pty

    args = ["flag", "--random", "1000000", "--no-show", "--engines", "prolog"]
    shown = run_on_pty(args, tmp_path).text
    assert re.search(r"the prolog engine: \d+ s of 120 s", shown), shown[-1000:]
    piped = plpuzzle(*args, cwd=tmp_path)
    assert piped.returncode == 0 and "s of 120 s" not in piped.stdout + piped.stderr
