"""The languages the course's service and `submit` speak: English (the
messages as written in the code) and Hungarian (python/plpuzzle/locale).

The catalogues are gettext's: `hu/LC_MESSAGES/plpuzzle.po` is edited, its
compiled `.mo` is committed beside it (tests/test_catalogues.py checks that
it is the `.po` compiled, and that every message of the converted files is
translated), so that `submit` needs nothing but the standard library to
speak Hungarian. Babel (the `serve` extra) extracts the messages, picks a
browser's language and writes dates in a locale's form.

The language in force is a context variable: a request of the service
sets it once (routing's middleware), a mail sets it for its recipient,
`submit` from the terminal's locale; `_` translates into it.
"""

from __future__ import annotations

import gettext
import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import datetime
from functools import cache
from pathlib import Path

#: The languages there is a catalogue for; the first is the code's own.
LANGUAGES = ("en", "hu")
#: Their names, each in itself (a language is chosen by its own name).
LANGUAGE_NAMES = {"en": "English", "hu": "magyar"}
DOMAIN = "plpuzzle"
LOCALE_DIR = Path(__file__).parent / "locale"

_language: ContextVar[str] = ContextVar("plpuzzle_language", default="en")


@cache
def translations(language: str) -> gettext.NullTranslations:
    """The catalogue of `language` (English: the messages as they are)."""
    if language not in LANGUAGES[1:]:
        return gettext.NullTranslations()
    return gettext.translation(DOMAIN, LOCALE_DIR, [language])


def current() -> str:
    """The language in force here ("en" unless something chose one)."""
    return _language.get()


def choose(language: str) -> None:
    """Make `language` (one of LANGUAGES, else English) the one in force
    for the rest of this context: a request, a command."""
    _language.set(language if language in LANGUAGES else "en")


@contextmanager
def speaking(language: str) -> Iterator[None]:
    """`language` in force for a block (a mail to its recipient)."""
    token = _language.set(language if language in LANGUAGES else "en")
    try:
        yield
    finally:
        _language.reset(token)


def _(message: str) -> str:
    """`message` in the language in force."""
    return translations(_language.get()).gettext(message)


def ngettext(singular: str, plural: str, count: int) -> str:
    """The form of a message for `count`, in the language in force."""
    return translations(_language.get()).ngettext(singular, plural, count)


def N_(message: str) -> str:
    """Marks a message for the catalogue where it is defined; it is
    translated (`_`) where it is shown, in the reader's language."""
    return message


def terminal_language(environ: Mapping[str, str] | None = None) -> str:
    """The language of a terminal, as gettext reads its locale: LC_ALL,
    else LC_MESSAGES, else LANG (hu_HU.UTF-8: Hungarian); English when
    none names a language there is a catalogue for."""
    env = os.environ if environ is None else environ
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(name, "")
        if value:
            code = value.split(".")[0].split("@")[0].split("_")[0].lower()
            return code if code in LANGUAGES else "en"
    return "en"


def browser_language(accept: str) -> str | None:
    """The language a browser's Accept-Language asks for first, of those
    there is a catalogue for (None: it asks for none of them). Babel's
    negotiation; the header is the client's, so only its first 20
    entries are read."""
    from babel import negotiate_locale

    asked: list[tuple[float, int, str]] = []
    for place, part in enumerate(accept.split(",")[:20]):
        tag, _sep, params = part.strip().partition(";")
        weight = 1.0
        if params.strip().startswith("q="):
            try:
                weight = float(params.strip()[2:])
            except ValueError:
                continue
        if tag and weight > 0:
            asked.append((-weight, place, tag.strip()[:35]))
    preferred = [tag for _w, _p, tag in sorted(asked)]
    return negotiate_locale(preferred, list(LANGUAGES), sep="-")


#: How a time is written in English (the service's ISO form, by the
#: standard library, so that `submit` needs no Babel), and in the other
#: languages (Babel's patterns; Hungarian: 2026. december 12. 23:59).
_ENGLISH = ("%Y-%m-%d %H:%M", "%Y-%m-%d %H:%M:%S")
_SHAPES = {"hu": ("y. MMMM d. H:mm", "y. MMMM d. H:mm:ss")}


def moment_text(local: datetime, seconds: bool = True) -> str:
    """A time (already in the zone it is shown in) in the form of the
    language in force."""
    shapes = _SHAPES.get(_language.get())
    if shapes is None:
        return local.strftime(_ENGLISH[seconds])
    from babel.dates import format_datetime

    return format_datetime(local, shapes[seconds], tzinfo=local.tzinfo, locale=_language.get())
