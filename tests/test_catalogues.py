"""The catalogues are complete and current: every message of the files
converted to gettext is in the Hungarian catalogue, translated and not
fuzzy, with the same placeholders, and the committed .mo is that .po
compiled (so `submit` reads what the .po says)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

babel = pytest.importorskip("babel")

from babel.messages.extract import extract_from_dir  # noqa: E402
from babel.messages.mofile import write_mo  # noqa: E402
from babel.messages.pofile import read_po  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "python" / "plpuzzle"
HU_PO = PACKAGE / "locale" / "hu" / "LC_MESSAGES" / "plpuzzle.po"

#: Files with messages for people not yet through gettext: each is taken
#: off this list when it is converted (the class report's similarity
#: section, drawn by these two, comes next).
NOT_YET_CONVERTED = {
    "sudoku/grading/pages/templates/similarity.html.j2",
    "sudoku/grading/similarity/html.py",
}

TEMPLATES = ("sudoku/service/templates/**.j2", "sudoku/grading/pages/templates/**.j2")
METHODS = [("**.py", "python"), *((t, "jinja2") for t in TEMPLATES)]
OPTIONS = {t: {"trim_blocks": "true", "lstrip_blocks": "true"} for t in TEMPLATES}


def extracted() -> set[str]:
    """The messages of the code and the pages' templates, as `make
    catalogues` extracts them (msgid; a plural by its singular)."""
    found = set()
    for _name, _line, message, _comments, _context in extract_from_dir(
        str(PACKAGE), METHODS, options_map=OPTIONS
    ):
        found.add(message[0] if isinstance(message, tuple) else message)
    return found


def catalogue() -> dict[str, object]:
    with HU_PO.open("rb") as f:
        po = read_po(f)
    return {(m.id[0] if isinstance(m.id, tuple) else m.id): m for m in po if m.id}


def test_every_message_is_in_the_hungarian_catalogue() -> None:
    missing = sorted(extracted() - set(catalogue()))
    assert not missing, f"run `make catalogues` and translate: {missing}"


def test_every_message_is_translated_not_fuzzy_with_its_placeholders() -> None:
    with HU_PO.open("rb") as f:
        po = read_po(f)
    bad = []
    for message in po:
        if not message.id:
            continue
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        if message.fuzzy or not all(strings):
            bad.append(f"{message.id!r}: {'fuzzy' if message.fuzzy else 'untranslated'}")
    bad += [f"{m.id!r}: {', '.join(map(str, errors))}" for m, errors in po.check()]
    assert not bad, "\n".join(bad)


def test_no_message_of_the_catalogue_is_gone_from_the_code() -> None:
    """Stale entries: left when a message changes; `make catalogues` marks
    them obsolete."""
    stale = sorted(set(catalogue()) - extracted())
    assert not stale, f"run `make catalogues`: {stale}"


def test_the_committed_mo_is_the_po_compiled() -> None:
    with HU_PO.open("rb") as f:
        po = read_po(f)
    compiled = io.BytesIO()
    write_mo(compiled, po)
    assert HU_PO.with_suffix(".mo").read_bytes() == compiled.getvalue(), (
        "the .mo is not the .po compiled: run `make catalogues`"
    )


def test_the_files_not_yet_converted_still_exist() -> None:
    """The list above shrinks as files are converted; a name that no longer
    exists there is a mistake."""
    gone = sorted(n for n in NOT_YET_CONVERTED if not (PACKAGE / n).exists())
    assert not gone, gone
