"""Every HTML page the grader writes, drawn by Jinja2 from templates.

The pages (the class report, a student's feedback, the similarity
section and its page of its own) are templates in templates/, their
styles and the report's one script are files in static/, all shipped as
package data. Python prepares the data; the templates draw it. A page
must open from disk as one file, so the styles and the script are
inlined when a page is drawn, and the script's digest for the page's
Content-Security-Policy is computed then, from the very bytes inlined.

Autoescaping is on for every template, and no template marks anything
safe: what a student wrote (ids, file names, messages, code) can reach a
page only as an escaped variable. The only text put in unescaped is our
own (the static files) and the JSON data block, which is escaped for the
inside of a script element by untrusted.json_for_pages (every <, > and &
as a JSON escape); both are marked in Python, here and in report_html.

Our words are gettext's (`_`, Jinja2's i18n extension): a page is drawn
in the language in force (plpuzzle.i18n), and the grader's stored
findings are said in it by grading.said (`said`).
"""

from __future__ import annotations

import base64
import functools
import hashlib
from importlib.resources import files
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from markupsafe import Markup

from plpuzzle import i18n
from plpuzzle.sudoku.grading.said import said

_PACKAGE = __name__


@functools.cache
def asset_text(name: str) -> str:
    """One of our static files (a style sheet, the script), as text."""
    return files(_PACKAGE).joinpath("static", name).read_text(encoding="utf-8")


def asset(name: str) -> Markup:
    """A static file, to be inlined as it is: ours, never a student's."""
    return Markup(asset_text(name))


def script_digest(name: str) -> Markup:
    """The Content-Security-Policy source of an inlined script file: its
    SHA-256, of exactly the text the page inlines (ours: put in as it is)."""
    digest = hashlib.sha256(asset_text(name).encode("utf-8")).digest()
    return Markup(f"'sha256-{base64.b64encode(digest).decode()}'")


@functools.cache
def environment() -> Environment:
    env = Environment(
        loader=PackageLoader(_PACKAGE, "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        extensions=["jinja2.ext.i18n"],
    )
    # `_` translates into the language in force as a page is drawn (i18n).
    env.install_gettext_callables(  # type: ignore[attr-defined]
        gettext=i18n._, ngettext=i18n.ngettext, newstyle=True
    )
    env.globals.update(asset=asset, script_digest=script_digest, said=said)
    return env


def render(template: str, **context: Any) -> str:
    """A page (or a part of one) drawn from `template` with `context`."""
    return environment().get_template(template).render(**context)
