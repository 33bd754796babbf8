"""One file that holds a running service: `sudoku backup` and `restore`.

The copy is consistent without stopping the service because of the order
it is taken in: the database first (SQLite's online backup API, or
pg_dump's one snapshot), then the gradebook, then the files. An upload's
file is stored before its row is committed, and a grading's reports are
written before its row says so; files are never changed once stored
(only added), so every row of the copied database finds its files in
the copy. What arrives after the database was copied is not in it (its
file may be: an extra file is harmless).
"""

from __future__ import annotations

import glob
import json
import os
import shutil
import sqlite3
import subprocess
import tarfile
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy.engine import make_url

#: The archive's layout version (manifest.json's "format").
FORMAT = 1
#: Data-folder files not copied as they are: the databases (copied
#: online), their journals, and files being written.
LIVE = tuple(f"{db}.sqlite{end}" for db in ("service", "grades")
             for end in ("", "-wal", "-shm", "-journal"))  # fmt: skip


class BackupError(Exception):
    """A backup or restore that cannot be done, said plainly."""


class ToolError(BackupError):
    """pg_dump or pg_restore missing, or failed (the setup's fault)."""


@dataclass(frozen=True)
class Done:
    """What a backup or restore handled."""

    file: Path
    database: str
    files: int
    course: bool


def _pg_tool(name: str) -> str:
    """Debian's newest pg_dump / pg_restore, else the one on PATH."""
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"),
                   key=lambda p: int(v) if (v := p.split("/")[4]).isdigit() else 0)  # fmt: skip
    tool = found[-1] if found else shutil.which(name)
    if tool is None:
        raise ToolError(f"{name} is not installed (Debian package postgresql-client)")
    return tool


def _libpq(url: str) -> tuple[str, dict[str, str]]:
    """A SQLAlchemy URL as libpq takes it, and the environment that holds
    its password (never on a command line, where `ps` shows it)."""
    parsed = make_url(url)
    env = {**os.environ}
    if parsed.password:
        env["PGPASSWORD"] = str(parsed.password)
    plain = parsed.set(drivername="postgresql", password=None)
    return plain.render_as_string(hide_password=False), env


def _kind(url: str | None) -> str:
    if url is None:
        return "sqlite"
    name = make_url(url).get_backend_name()
    if name not in ("sqlite", "postgresql"):
        raise BackupError(f"--database-url: {name} databases are not backed up by plpuzzle "
                          "(SQLite and PostgreSQL are)")  # fmt: skip
    return name


def _sqlite_copy(source: Path, target: Path) -> None:
    """SQLite's online backup: a consistent copy while writers go on."""
    src = sqlite3.connect(f"file:{source}?mode=ro", uri=True, timeout=30)
    try:
        dst = sqlite3.connect(target)
        try:
            src.backup(dst)
        finally:
            dst.close()
    finally:
        src.close()


def _run(args: list[str], env: dict[str, str], what: str) -> None:
    run = subprocess.run(args, env=env, capture_output=True, text=True)
    if run.returncode != 0:
        raise ToolError(f"{what} failed: {run.stderr.strip()[-600:]}")


def backup(data: Path, file: Path, database_url: str | None = None,
           course: Path | None = None) -> Done:  # fmt: skip
    """Write one consistent copy of the service of `data` (and its course
    folder, if given) into `file`, readable by its owner only."""
    kind = _kind(database_url)
    data = data.resolve()
    if not data.is_dir():
        raise BackupError(f"--data {data}: no such data folder")
    if kind == "sqlite" and database_url is None and not (data / "service.sqlite").exists():
        raise BackupError(f"--data {data}: no service.sqlite in it (a PostgreSQL service? "
                          "give its --database-url)")  # fmt: skip
    file = file.resolve()
    if file.is_relative_to(data):
        raise BackupError(f"{file}: inside the data folder it backs up; write it elsewhere")
    file.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="plpuzzle-backup-", dir=file.parent) as tmp:
        stage = Path(tmp)
        if kind == "sqlite":
            source = (data / "service.sqlite" if database_url is None
                      else Path(make_url(database_url).database or ""))  # fmt: skip
            _sqlite_copy(source, stage / "service.sqlite")
        else:
            assert database_url is not None
            uri, env = _libpq(database_url)
            _run([_pg_tool("pg_dump"), "--format=custom", "--no-owner", "--no-privileges",
                  "--file", str(stage / "service.pgdump"), "--dbname", uri],
                 env, "pg_dump")  # fmt: skip
        if (data / "grades.sqlite").exists():
            _sqlite_copy(data / "grades.sqlite", stage / "grades.sqlite")
        manifest = {"format": FORMAT, "database": kind, "made": datetime.now(UTC).isoformat(),
                    "data": str(data),
                    "course": str(course.resolve()) if course else None}  # fmt: skip
        (stage / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
        partial = stage / "backup.tar.gz"
        fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        files = 0
        with os.fdopen(fd, "wb") as raw, tarfile.open(fileobj=raw, mode="w:gz") as tar:
            for name in ("manifest.json", "service.sqlite", "service.pgdump", "grades.sqlite"):
                if (stage / name).exists():
                    tar.add(stage / name, arcname=name)
            files += _add_tree(tar, data, "data", skip_top=LIVE)
            if course is not None:
                files += _add_tree(tar, course.resolve(), "course", skip_top=())
        os.replace(partial, file)
    return Done(file, kind, files, course is not None)


def _add_tree(tar: tarfile.TarFile, root: Path, under: str, skip_top: tuple[str, ...]) -> int:
    """Every file under `root`, as it is now; a file that goes away
    meanwhile (a grading's reports redone) or is being written (*.tmp) is
    left out."""
    count = 0
    for folder, dirs, names in os.walk(root):
        dirs.sort()
        here = Path(folder)
        for name in sorted(names):
            path = here / name
            if (here == root and name in skip_top) or name.endswith(".tmp"):
                continue
            try:
                tar.add(path, arcname=f"{under}/{path.relative_to(root)}", recursive=False)
                count += 1
            except FileNotFoundError:
                continue
    return count


def restore(file: Path, data: Path, database_url: str | None = None,
            course: Path | None = None) -> Done:  # fmt: skip
    """Make a data folder (and, for a PostgreSQL backup, fill the empty
    database of `database_url`) that `serve` starts from; with `course`,
    write the backed-up course folder there too."""
    if not file.is_file():
        raise BackupError(f"{file}: no such backup file")
    if data.exists() and any(data.iterdir()):
        raise BackupError(f"--data {data}: not empty; restore into a new folder")
    if course is not None and course.exists():
        raise BackupError(f"--course {course}: exists already; name a new folder")
    with tempfile.TemporaryDirectory(prefix="plpuzzle-restore-") as tmp:
        stage = Path(tmp)
        try:
            with tarfile.open(file, "r:gz") as tar:
                tar.extractall(stage, filter="data")
            manifest: dict[str, Any] = json.loads((stage / "manifest.json").read_text())
        except (tarfile.TarError, OSError, ValueError) as e:
            raise BackupError(f"{file}: not a plpuzzle backup ({e})") from None
        if manifest.get("format") != FORMAT:
            raise BackupError(f"{file}: a backup of format {manifest.get('format')}, not "
                              f"{FORMAT}")  # fmt: skip
        kind = manifest["database"]
        if kind == "postgresql" and database_url is None:
            raise BackupError("this backup holds a PostgreSQL database: give --database-url "
                              "of a new, empty database to restore it into")  # fmt: skip
        if kind == "sqlite" and database_url is not None:
            raise BackupError("this backup holds a SQLite database: restore it without "
                              "--database-url (it goes into the data folder)")  # fmt: skip
        if course is not None and not (stage / "course").is_dir():
            raise BackupError(f"{file}: holds no course folder (backed up without --course)")
        if kind == "postgresql":
            assert database_url is not None
            uri, env = _libpq(database_url)
            _run([_pg_tool("pg_restore"), "--no-owner", "--no-privileges", "--exit-on-error",
                  "--single-transaction", "--dbname", uri, str(stage / "service.pgdump")],
                 env, "pg_restore (into an empty database)")  # fmt: skip
        data.mkdir(parents=True, exist_ok=True)
        files = 0
        if (stage / "data").is_dir():
            for entry in (stage / "data").iterdir():
                shutil.move(str(entry), data / entry.name)
            files = sum(1 for p in data.rglob("*") if p.is_file())
        for name in ("service.sqlite", "grades.sqlite"):
            if (stage / name).exists():
                shutil.move(str(stage / name), data / name)
        if course is not None:
            shutil.move(str(stage / "course"), course)
    return Done(file, kind, files, course is not None)
