"""The JSON API from a terminal: what `plpuzzle sudoku submit` and
`login` call, and the tokens `login` keeps.

Everything the service answers is bounded here (MAX_ANSWER bytes); what
of it is printed is the command's to escape.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from plpuzzle import i18n

#: How long one HTTP request may take (the upload includes the load check).
REQUEST_SECONDS = 120.0
#: The most bytes of one answer read: more is the service's fault.
MAX_ANSWER = 4 << 20


class ClientError(Exception):
    """The service refused (`status` its HTTP status) or could not be reached (0)."""

    def __init__(self, status: int, message: str, retry_after: int | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.retry_after = retry_after


def check_server(server: str) -> str:
    """The service's address, checked: http:// or https:// and a host."""
    address = server.strip().rstrip("/")
    scheme, _, rest = address.partition("://")
    if scheme.lower() not in ("http", "https") or not rest or " " in address:
        raise ValueError(
            f"{server!r} is not a service's address: give it with http:// or https://, "
            "such as https://sudoku.example.edu"
        )
    return address


def _call(method: str, url: str, token: str | None, **kwargs: Any) -> Any:
    # The service answers in the language in force here (the terminal's).
    headers = {"Accept": "application/json", "Accept-Language": i18n.current()}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    try:
        with httpx.stream(method, url, headers=headers, timeout=REQUEST_SECONDS,
                          **kwargs) as response:  # fmt: skip
            data = bytearray()
            for chunk in response.iter_bytes():
                data += chunk
                if len(data) > MAX_ANSWER:
                    raise ClientError(0, f"{url}: the service's answer is larger than "
                                      f"{MAX_ANSWER >> 20} MB; not read")  # fmt: skip
    except httpx.HTTPError as e:
        raise ClientError(0, f"{url}: cannot reach the service ({e})") from None
    try:
        body = json.loads(data)
    except ValueError:
        body = {"error": data.decode("utf-8", "replace").strip()[:300] or response.reason_phrase}
    if response.status_code >= 400:
        message = body.get("error") if isinstance(body, dict) else None
        retry = response.headers.get("retry-after", "")
        raise ClientError(response.status_code, str(message or response.reason_phrase),
                          int(retry) if retry.isdigit() else None)  # fmt: skip
    return body


def submit(server: str, token: str, path: Path) -> dict[str, Any]:
    """Upload `path`; the service's answer (the load check done, or going on)."""
    with path.open("rb") as handle:
        files = {"file": (path.name, handle, "application/octet-stream")}
        answer = _call("POST", f"{server}/api/uploads", token, files=files)
    return answer


def submit_document(server: str, token: str, path: Path) -> dict[str, Any]:
    """Hand in the documentation `path`; the service's answer."""
    with path.open("rb") as handle:
        files = {"file": (path.name, handle, "application/octet-stream")}
        answer: dict[str, Any] = _call("POST", f"{server}/api/documents", token, files=files)
    return answer


def upload(server: str, token: str, upload_id: int) -> dict[str, Any]:
    return _call("GET", f"{server}/api/uploads/{upload_id}", token)


def uploads(server: str, token: str) -> list[dict[str, Any]]:
    """The user's uploads, each one's state (GET /api/uploads)."""
    answer: list[dict[str, Any]] = _call("GET", f"{server}/api/uploads", token)
    return answer


#: States after which an upload's results change no more.
FINAL = ("done", "failed", "replaced")


def shown_in_full(state: dict[str, Any]) -> bool:
    """Whether an upload's answer holds all its reader may see: graded,
    or its public tests graded while the others are not shown yet."""
    if state["state"] in FINAL:
        return True
    return bool(state.get("public_ready")) and not state.get("complete")


class GaveUp(Exception):
    """Waiting for the results took longer than asked; the last answer."""

    def __init__(self, state: dict[str, Any]) -> None:
        super().__init__("gave up waiting")
        self.state = state


def wait(
    server: str, token: str, upload_id: int, on_progress: Callable[[dict[str, Any]], None],
    seconds: float, poll_seconds: float = 2.0,
) -> dict[str, Any]:  # fmt: skip
    """Poll an upload until what its reader may see of it is graded;
    GaveUp after `seconds`."""
    deadline = time.monotonic() + seconds
    while True:
        state = upload(server, token, upload_id)
        if shown_in_full(state):
            return state
        if time.monotonic() >= deadline:
            raise GaveUp(state)
        on_progress(state)
        time.sleep(poll_seconds)


def new_token(server: str, login: str, password: str, label: str,
              device: str = "") -> dict[str, Any]:  # fmt: skip
    """A new API token for the account, by its password; `device` is what
    the last sign-in from here answered (lets this terminal through when
    the login is guessed at from elsewhere)."""
    form = {"login": login, "password": password, "label": label, "device": device}
    return _call("POST", f"{server}/api/tokens", None, data=form)


def first_sign_in(server: str, link_token: str, password: str, label: str) -> dict[str, Any]:
    """Set the password with a one-time sign-in link's token; a new API token."""
    form = {"password": password, "label": label}
    return _call("POST", f"{server}/api/welcome/{link_token}", None,
                 data=form)  # fmt: skip


# -- the tokens `login` keeps -------------------------------------------------------


def tokens_file() -> Path:
    """$XDG_CONFIG_HOME/plpuzzle/tokens.json (~/.config by default)."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "plpuzzle" / "tokens.json"


def saved() -> dict[str, dict[str, str]]:
    """server -> {"token", "login", "device"} of the tokens kept (none: {})."""
    try:
        data = json.loads(tokens_file().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    servers = data.get("servers") if isinstance(data, dict) else None
    return {k: v for k, v in (servers or {}).items()
            if isinstance(v, dict) and isinstance(v.get("token"), str)}  # fmt: skip


def save(server: str, token: str, login: str, device: str = "") -> Path:
    """Keep a token for a server, readable by its owner only, with the
    device value of that sign-in (for the next one); the file."""
    path = tokens_file()
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    kept = saved()
    kept[server] = {"token": token, "login": login, "device": device}
    tmp = path.with_name(".tokens.json.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump({"servers": kept}, handle, indent=1)
    os.replace(tmp, path)
    return path
