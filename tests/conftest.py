"""Shared pytest fixtures, and the rules every test runs under.

Markers (registered in pyproject.toml, `--strict-markers`): `slow` tests are
left out of the default `make test` and run by `make test-all` and CI;
`browser` tests drive Chromium (see the `browser` fixture); `sandbox` tests
grade code in the bubblewrap sandbox.

The tests that need the course's official suite take the `official_suite`
fixture: `--suite DIR` or PLPUZZLE_SUITE name its folder, or it is looked
for (docs/development.md, "The course suite").

Every test runs in its own tmp_path as the working directory, so whatever
it (or a command it starts) writes to "." stays out of the checkout; a
check at the end of the session fails if the checkout gained files anyway.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from hypothesis import settings
from hypothesis.configuration import set_hypothesis_home_dir

if TYPE_CHECKING:
    from selenium.webdriver.remote.webdriver import WebDriver

REPO_ROOT = Path(__file__).resolve().parents[1]

#: Python modules of the tests' own, e.g. worker_hooks, which a worker
#: child may call: its folder goes on PYTHONPATH (inherited by every
#: worker and subprocess a test starts) and the module is named in
#: PLPUZZLE_WORKER_MODULES, without which a worker calls only plpuzzle's.
TEST_MODULES = REPO_ROOT / "tests" / "fixtures" / "python"
sys.path.insert(0, str(TEST_MODULES))
os.environ["PYTHONPATH"] = os.pathsep.join(
    filter(None, [str(TEST_MODULES), os.environ.get("PYTHONPATH")])
)
os.environ["PLPUZZLE_WORKER_MODULES"] = "worker_hooks"
#: --cpu-durations=N (tests/fixtures/python/cpu_durations.py).
pytest_plugins = ["cpu_durations", "timeline"]
#: Passwords hashed at argon2-cffi's cost made for test suites (the
#: service's accounts.hasher): the tests sign in hundreds of times, each a
#: fifth of a second of one core at the standard cost. Inherited by every
#: `serve` a test starts; the tests about the cost itself set `standard`.
os.environ["PLPUZZLE_PASSWORD_COST"] = "cheapest"
BUNDLED = REPO_ROOT / "puzzles" / "sudoku" / "consecutive"

#: The hand-made part of the bundled consecutive suite; the generated part
#: (test011 on) is checked as a whole by a few tests only, as it is slower.
HAND_MADE = tuple(f"test{i:03d}" for i in range(1, 11))

# Hypothesis keeps no example database: it would be written to .hypothesis/
# in the working directory. Each fuzz test names its regressions with @example.
settings.register_profile("plpuzzle", database=None)
settings.load_profile("plpuzzle")

#: Files that may appear in the checkout during a run (tools' caches).
_TOOL_LEFTOVERS = (".pytest_cache/", "__pycache__/", ".mypy_cache/", ".ruff_cache/")


def _untracked(repo: Path) -> set[str] | None:
    """Untracked and ignored paths of the checkout, or None outside git."""
    if shutil.which("git") is None or not (repo / ".git").exists():
        return None
    try:
        out = subprocess.run(
            ["git", "-C", str(repo), "status", "--porcelain", "--ignored", "-uall"],
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    paths = {line[3:] for line in out.splitlines() if line[:2] in ("??", "!!")}
    return {
        p
        for p in paths
        if not p.startswith(".venv/")
        and ".egg-info/" not in p
        and not any(part in p for part in _TOOL_LEFTOVERS)
    }


@pytest.hookimpl(trylast=True)
def pytest_configure(config: pytest.Config) -> None:
    """Hypothesis caches Unicode tables and constants in .hypothesis/ under
    the directory it was started from (the checkout), from collection on:
    point it at the session's tmp path before anything is collected. A
    suite named with --suite or PLPUZZLE_SUITE that is not one stops the
    run here, rather than skipping the tests it was meant for."""
    factory = getattr(config, "_tmp_path_factory", None)
    if factory is not None:
        set_hypothesis_home_dir(str(factory.mktemp("hypothesis")))
    suite, named = find_official_suite(config.getoption("suite"), os.environ)
    if named and not holds_a_suite(suite):
        source = "--suite" if config.getoption("suite") else "PLPUZZLE_SUITE"
        raise pytest.UsageError(
            f"{source}: {suite} holds no test*d.txt and test*s.txt files "
            "(name the folder of the official suite's puzzles)"
        )


@pytest.fixture(scope="session", autouse=True)
def _checkout_stays_clean(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Run the session outside the checkout, and fail if a test wrote into it."""
    before = _untracked(REPO_ROOT)
    patch = pytest.MonkeyPatch()
    patch.chdir(tmp_path_factory.mktemp("cwd"))
    yield
    patch.undo()
    after = _untracked(REPO_ROOT)
    if after is not None and os.environ.get("PLPUZZLE_SCREENSHOTS") == "1":
        after = {p for p in after if not p.startswith("docs/service/")}  # asked for
    if before is not None and after is not None and after - before:
        pytest.fail(
            f"tests wrote into the checkout {REPO_ROOT}: {sorted(after - before)}; "
            "write to tmp_path instead",
            pytrace=False,
        )


@pytest.fixture(autouse=True)
def _in_tmp_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test's working directory is its own tmp_path."""
    monkeypatch.chdir(tmp_path)


@pytest.fixture
def hand_made_suite(tmp_path: Path) -> Path:
    """A copy of the hand-made bundled puzzles, in tmp_path/tests, that a
    test may change."""
    folder = tmp_path / "tests"
    folder.mkdir()
    for name in HAND_MADE:
        for kind in "ds":
            shutil.copy(BUNDLED / f"{name}{kind}.txt", folder)
    return folder


#: How to point the tests at the course's official suite, for messages.
SUITE_HOW = (
    "point at it with --suite DIR or PLPUZZLE_SUITE=DIR (a folder of its test*d.txt and "
    "test*s.txt files), or PLPUZZLE_SHARED=DIR (a folder holding bme-2013-oddsum/tests)"
)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--suite",
        metavar="DIR",
        default=None,
        help="the course's official suite, for the tests that use it: a folder of its "
        "test*d.txt and test*s.txt files (default: $PLPUZZLE_SUITE, else "
        "$PLPUZZLE_SHARED/bme-2013-oddsum/tests, else ../shared/bme-2013-oddsum/tests)",
    )


def holds_a_suite(folder: Path) -> bool:
    """Whether `folder` holds puzzles and expected solutions (test*d.txt, test*s.txt)."""
    return any(folder.glob("test*d.txt")) and any(folder.glob("test*s.txt"))


def find_official_suite(option: str | None, environ: Mapping[str, str]) -> tuple[Path, bool]:
    """Where the official suite should be, and whether it was named
    explicitly (--suite, then PLPUZZLE_SUITE) rather than looked for
    (PLPUZZLE_SHARED, then the `shared` folder beside the checkout)."""
    if option:
        return Path(option).resolve(), True
    if environ.get("PLPUZZLE_SUITE"):
        return Path(environ["PLPUZZLE_SUITE"]).resolve(), True
    shared = Path(environ.get("PLPUZZLE_SHARED") or REPO_ROOT.parent / "shared")
    return (shared / "bme-2013-oddsum" / "tests").resolve(), False


@pytest.fixture(scope="session")
def official_suite(pytestconfig: pytest.Config) -> Path:
    """The folder of the course's official suite (271 puzzles), or skip.

    A folder named by --suite or PLPUZZLE_SUITE must hold the suite: the
    run stops otherwise (see pytest_configure). Looked for without them,
    in $PLPUZZLE_SHARED/bme-2013-oddsum/tests or beside the checkout, a
    missing suite skips the tests that need it.
    """
    suite, _ = find_official_suite(pytestconfig.getoption("suite"), os.environ)
    if not holds_a_suite(suite):
        pytest.skip(f"official suite not found at {suite}: {SUITE_HOW}")
    return suite


@pytest.fixture(scope="session")
def official_golden(official_suite: Path) -> Path:
    """The folder of the course harness's printouts (test*t.txt) of the
    official suite: beside the puzzles, or in a `golden` folder next to
    theirs (as in bme-2013-oddsum); skip when there are none."""
    for folder in (official_suite, official_suite.parent / "golden"):
        if any(folder.glob("test*t.txt")):
            return folder
    pytest.skip(f"no golden printouts (test*t.txt) in {official_suite} or ../golden")


@pytest.fixture(scope="session")
def official_reference_times(official_suite: Path) -> Path:
    """The course's reference-times.csv: beside the puzzles or one folder up."""
    for folder in (official_suite, official_suite.parent):
        if (folder / "reference-times.csv").is_file():
            return folder / "reference-times.csv"
    pytest.skip(f"no reference-times.csv in {official_suite} or its parent")


def _browser_paths() -> tuple[Path | None, Path | None]:
    """Debian's Chromium and its chromedriver, where they are installed."""

    def find(*names: str) -> Path | None:
        for name in names:
            for found in (shutil.which(name), f"/usr/bin/{name}"):
                if found and os.access(found, os.X_OK):
                    return Path(found)
        return None

    return find("chromium", "chromium-browser"), find("chromedriver")


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebDriver]:
    """Headless Debian Chromium through its own chromedriver: nothing is downloaded.

    Skips, saying why, when Chromium, chromedriver or Selenium is missing
    (`make test` installs them when it runs as root or with sudo); with
    PLPUZZLE_REQUIRE_BROWSER=1 (as in CI) it fails instead, so that a page
    is never left untested unnoticed. One browser per module: tests
    elsewhere check that pytest has no child processes left.
    """
    chromium, chromedriver = _browser_paths()
    missing = [name for name, path in (("chromium", chromium), ("chromedriver", chromedriver))
               if path is None]  # fmt: skip
    problem = None
    if missing:
        problem = (
            f"browser test needs {' and '.join(missing)}: install the Debian packages "
            "chromium and chromium-driver (as root: apt-get install chromium chromium-driver)"
        )
    else:
        try:
            from selenium import webdriver
            from selenium.webdriver.chrome.service import Service
        except ImportError:
            problem = "browser test needs selenium: pip install -e '.[dev]'"
    if problem is not None:
        if os.environ.get("PLPUZZLE_REQUIRE_BROWSER") == "1":
            pytest.fail(problem, pytrace=False)
        pytest.skip(problem)
    assert chromium is not None and chromedriver is not None
    options = webdriver.ChromeOptions()
    options.binary_location = str(chromium)
    profile = tmp_path_factory.mktemp("chromium-profile")
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--window-size=1280,900",
        f"--user-data-dir={profile}",
    ):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(str(chromedriver)), options=options)
    driver.set_page_load_timeout(15)
    try:
        yield driver
    finally:
        driver.quit()
