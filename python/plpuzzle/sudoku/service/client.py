"""The JSON API from a terminal: what `plpuzzle sudoku submit` calls."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

#: How long one HTTP request may take (the upload includes the load check).
REQUEST_SECONDS = 120.0


class ClientError(Exception):
    """The service refused (`status` its HTTP status) or could not be reached (0)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def _call(method: str, url: str, token: str, **kwargs: Any) -> Any:
    headers = {"Authorization": f"Bearer {token}", "Accept": "application/json"}
    try:
        response = httpx.request(method, url, headers=headers, timeout=REQUEST_SECONDS, **kwargs)
    except httpx.HTTPError as e:
        raise ClientError(0, f"{url}: cannot reach the service ({e})") from None
    try:
        body = response.json()
    except ValueError:
        body = {"error": response.text.strip()[:300] or response.reason_phrase}
    if response.status_code >= 400:
        message = body.get("error") if isinstance(body, dict) else None
        raise ClientError(response.status_code, str(message or response.reason_phrase))
    return body


def submit(server: str, token: str, path: Path) -> dict[str, Any]:
    """Upload `path`; the service's answer (the load check already done)."""
    with path.open("rb") as handle:
        files = {"file": (path.name, handle, "application/octet-stream")}
        answer = _call("POST", f"{server.rstrip('/')}/api/uploads", token, files=files)
    return answer


def upload(server: str, token: str, upload_id: int) -> dict[str, Any]:
    return _call("GET", f"{server.rstrip('/')}/api/uploads/{upload_id}", token)


#: States after which an upload's results change no more.
FINAL = ("done", "failed", "replaced")


def shown_in_full(state: dict[str, Any]) -> bool:
    """Whether an upload's answer holds all its reader may see: graded,
    or its public tests graded while the others are not shown yet."""
    if state["state"] in FINAL:
        return True
    return bool(state.get("public_ready")) and not state.get("complete")


def wait(
    server: str, token: str, upload_id: int, on_progress: Callable[[dict[str, Any]], None],
    poll_seconds: float = 2.0,
) -> dict[str, Any]:  # fmt: skip
    """Poll an upload until what its reader may see of it is graded."""
    while True:
        state = upload(server, token, upload_id)
        if shown_in_full(state):
            return state
        on_progress(state)
        time.sleep(poll_seconds)
