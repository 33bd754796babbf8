"""Shared pytest fixtures, and the rules every test runs under.

Markers (registered in pyproject.toml, `--strict-markers`): `slow` tests are
left out of the default `make test` and run by `make test-all` and CI;
`browser` tests drive Chromium (see the `browser` fixture); `sandbox` tests
grade code in the bubblewrap sandbox.

Every test runs in its own tmp_path as the working directory, so whatever
it (or a command it starts) writes to "." stays out of the checkout; a
check at the end of the session fails if the checkout gained files anyway.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
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
    point it at the session's tmp path before anything is collected."""
    factory = getattr(config, "_tmp_path_factory", None)
    if factory is not None:
        set_hypothesis_home_dir(str(factory.mktemp("hypothesis")))


@pytest.fixture(scope="session", autouse=True)
def _checkout_stays_clean(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Run the session outside the checkout, and fail if a test wrote into it."""
    before = _untracked(REPO_ROOT)
    patch = pytest.MonkeyPatch()
    patch.chdir(tmp_path_factory.mktemp("cwd"))
    yield
    patch.undo()
    after = _untracked(REPO_ROOT)
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


@pytest.fixture(scope="session")
def official_suite() -> Path:
    """The course's official test suite (`bme-2013-oddsum/`), or skip.

    It lives in the `shared` folder beside the repository root; the
    environment variable PLPUZZLE_SHARED names another `shared` folder.
    """
    shared = Path(os.environ.get("PLPUZZLE_SHARED") or REPO_ROOT.parent / "shared")
    suite = shared / "bme-2013-oddsum"
    if not (suite / "tests").is_dir():
        pytest.skip(f"official suite not found at {suite} (set PLPUZZLE_SHARED)")
    return suite


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
