"""`plpuzzle sudoku backup` and `restore`: a running service into one
file, and back into a data folder that `serve` starts from."""

from __future__ import annotations

from pathlib import Path

import click

from plpuzzle.clitools import InputError, SetupError, format_option, note, write_json
from plpuzzle.sudoku.presentation.commands.serve import SERVE_HINT, database_option


def _need_serve_extra() -> None:
    """One clear error when the serve extra is not installed."""
    try:
        import sqlalchemy  # noqa: F401
    except ImportError as e:
        raise SetupError(f"backups need {SERVE_HINT} ({e.name} is missing)") from None


@click.command()
@click.argument("file", type=click.Path(path_type=Path, dir_okay=False))
@click.option("--data", type=click.Path(path_type=Path, file_okay=False, exists=True),
              required=True, help="The running service's data folder.")  # fmt: skip
@database_option
@click.option("--course", type=click.Path(path_type=Path, file_okay=False, exists=True),
              help="The course folder (suite.toml and the tests) to keep in the backup "
              "too.")  # fmt: skip
@format_option(("text", "json"), "text: for people; json: what was written, on stdout.")
def backup(file: Path, data: Path, database_url: str | None, course: Path | None,
           fmt: str) -> None:  # fmt: skip
    """Write one consistent copy of a service into FILE (a .tar.gz readable
    by you only), while it runs: its database (SQLite's online backup, or
    pg_dump for PostgreSQL), the gradebook, the stored files and reports,
    its signing key and, with --course, the course folder. Exit code 2
    for bad input, 3 when a tool (pg_dump) is missing or fails.
    """
    _need_serve_extra()
    from plpuzzle.sudoku.service.backup import BackupError, ToolError
    from plpuzzle.sudoku.service.backup import backup as take

    try:
        done = take(data, file, database_url, course)
    except ToolError as e:
        raise SetupError(str(e)) from None
    except BackupError as e:
        raise InputError(str(e)) from None
    if fmt == "json":
        write_json({"file": str(done.file), "database": done.database, "files": done.files,
                    "course": done.course})  # fmt: skip
        return
    note(f"backed up the {done.database} database and {done.files} file(s) into {done.file}"
         + (" (the course folder too)" if done.course else ""))  # fmt: skip


@click.command()
@click.argument("file", type=click.Path(path_type=Path, dir_okay=False, exists=True))
@click.option("--data", type=click.Path(path_type=Path, file_okay=False), required=True,
              help="The new data folder (absent or empty).")  # fmt: skip
@database_option
@click.option("--course", type=click.Path(path_type=Path, file_okay=False),
              help="Write the backed-up course folder here (a new folder).")  # fmt: skip
@format_option(("text", "json"), "text: for people; json: what was restored, on stdout.")
def restore(file: Path, data: Path, database_url: str | None, course: Path | None,
            fmt: str) -> None:  # fmt: skip
    """Make a new data folder from a backup FILE, which `serve COURSE
    --data DATA` starts from with every account, upload, document, result
    and mail of the backup. A PostgreSQL backup goes into the new, empty
    database --database-url names. Exit code 2 for bad input, 3 when
    pg_restore is missing or fails.
    """
    _need_serve_extra()
    from plpuzzle.sudoku.service.backup import BackupError, ToolError
    from plpuzzle.sudoku.service.backup import restore as put_back

    try:
        done = put_back(file, data, database_url, course)
    except ToolError as e:
        raise SetupError(str(e)) from None
    except BackupError as e:
        raise InputError(str(e)) from None
    if fmt == "json":
        write_json({"data": str(data), "database": done.database, "files": done.files,
                    "course": str(course) if course else None})  # fmt: skip
        return
    note(f"restored {done.files} file(s) into {data} and the {done.database} database"
         + (f"; the course folder into {course}" if course else ""))  # fmt: skip
