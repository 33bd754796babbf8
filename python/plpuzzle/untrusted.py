"""Text that came from a submission: bounded, and never live in any format.

A submission decides what it prints, throws and names its files. Every
layer that keeps or shows such text goes through these few functions, so
that the rules are written once:

- `clip` keeps at most a budget of it, and says how much was cut;
- `printable` shows control characters (a NUL, an escape sequence for
  the terminal, a bidirectional override that reorders a line) as
  escapes instead of keeping them; `one_line` also escapes line breaks
  and tabs, and leaves out the middle of long text;
- `spreadsheet_cell` keeps a CSV cell from being taken for a formula,
  and `spreadsheet_csv` writes every CSV meant for spreadsheets with it;
- `xml_text` drops what XML 1.0 cannot hold at all;
- `md_fence` wraps it in a Markdown code fence that it cannot close.

HTML escaping is the standard library's (`html.escape`), and JSON for
consumers that paste it into pages is written by `json_for_pages`.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterable
from typing import Any

#: Characters that change how text is shown rather than being shown: C0
#: and C1 controls (tab and newline excepted), DEL, the bidirectional
#: embeddings, overrides and isolates, and the line/paragraph separators.
_CONTROL = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]"
)

#: Code points XML 1.0 does not allow in a document, even escaped.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


def cut_note(more: int) -> str:
    """How a budget says that it cut text: `(cut: N bytes more)`."""
    return f"(cut: {more} bytes more)"


def clip(text: str, budget: int, tail: bool = False) -> str:
    """At most `budget` bytes (UTF-8) of `text`, then a cut note if any was cut.

    `tail` keeps the end instead of the start (what a program printed
    last is what tells why it stopped). A character split by the cut
    is dropped.
    """
    data = text.encode("utf-8", errors="replace")
    if len(data) <= budget:
        return text
    more = len(data) - budget
    if tail:
        kept = data[more:].decode("utf-8", errors="ignore")
        return f"{cut_note(more).replace('more', 'before')}\n{kept}"
    kept = data[:budget].decode("utf-8", errors="ignore")
    return f"{kept}\n{cut_note(more)}"


def printable(text: str) -> str:
    """Text from a submission with its control characters shown as escapes."""
    return _CONTROL.sub(lambda m: f"\\u{ord(m.group()):04x}" if ord(m.group()) > 0xFF
                        else f"\\x{ord(m.group()):02x}", text)  # fmt: skip


def one_line(text: str, budget: int = 120) -> str:
    """Text from a submission on one line (control characters, line
    breaks and tabs as escapes), its middle left out past `budget`
    characters, with its length."""
    shown = printable(text).replace("\n", "\\n").replace("\t", "\\t")
    if len(shown) <= budget:
        return shown
    half = budget // 2
    return f"{shown[:half]}\u2026{shown[-half:]} ({len(text):,} characters)"


#: What makes a spreadsheet read a cell as a formula (OWASP, CSV injection),
#: with the full-width forms some spreadsheets take for the same.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\n", "\uff1d", "\uff0b", "\uff0d",
                  "\uff20")  # fmt: skip


def spreadsheet_cell(text: str) -> str:
    """A CSV cell from a submission that a spreadsheet shows as text: one
    that would start a formula, even after leading spaces (which some
    imports trim), gets a leading apostrophe, which spreadsheets take for
    "this is text" (OWASP's advice on CSV injection)."""
    return f"'{text}" if text.lstrip(" ").startswith(_FORMULA_START) else text


def spreadsheet_csv(rows: Iterable[Iterable[Any]]) -> str:
    """CSV for spreadsheets with every text cell through `spreadsheet_cell`
    (numbers stay numbers): every CSV a person may open in a spreadsheet is
    written here, so that no column is left unguarded."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    for row in rows:
        writer.writerow([spreadsheet_cell(c) if isinstance(c, str) else c for c in row])
    return out.getvalue()


def xml_text(text: str) -> str:
    """Text that an XML 1.0 document can hold (the escaping of <, > and &
    is the XML writer's): characters it cannot hold become escapes."""
    return _NOT_XML.sub(lambda m: f"\\x{ord(m.group()):02x}", printable(text))


def md_fence(text: str, info: str = "text") -> list[str]:
    """`text` as the lines of a Markdown code fence that it cannot close.

    The fence is made of more backticks than the longest run of them in
    the text, so no line inside can end it; inside a fence nothing is
    markup (no heading, link, image or HTML).
    """
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return [fence + info, *printable(text).splitlines(), fence]


def md_code(text: str) -> str:
    """`text` as inline Markdown code that no backtick in it can end
    (one line; longer text belongs in `md_fence`)."""
    one = " ".join(printable(text).split())
    longest = max((len(run) for run in re.findall(r"`+", one)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if one.startswith("`") or one.endswith("`") or not one else ""
    return f"{ticks}{pad}{one}{pad}{ticks}"


def json_for_pages(data: Any, indent: int | None = 2, ensure_ascii: bool = False) -> str:
    """JSON whose strings are safe to paste into HTML or a script: <, >
    and & are written as \\u escapes (the same data once parsed), and so
    are U+2028 and U+2029, which end a line in older JavaScript."""
    text = json.dumps(data, indent=indent, ensure_ascii=ensure_ascii)
    for char in "<>&\u2028\u2029":
        text = text.replace(char, f"\\u{ord(char):04x}")
    return text
