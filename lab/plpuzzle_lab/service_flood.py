"""Anonymous clients flooding a service's sign-in form, in a process of
their own (so that their work does not slow the bench's own clients):

    python -m plpuzzle_lab.service_flood URL CLIENTS SECONDS FIRST

Each of CLIENTS threads is a client with an address of its own
(X-Forwarded-For 10.0.x.y, numbered from FIRST, which the service trusts
from loopback) and a login of its own; it posts a wrong password as fast
as it is answered, taking the form's token from the last page as a
browser does, for SECONDS. Prints the answers by HTTP status as JSON.
"""

from __future__ import annotations

import json
import re
import sys
import threading
import time

import httpx


def flood(
    url: str, index: int, until: float, answers: dict[int, int], lock: threading.Lock
) -> None:
    address = {"X-Forwarded-For": f"10.0.{index // 250}.{index % 250 + 1}"}
    with httpx.Client(base_url=url, timeout=60, headers=address) as client:
        page = client.get("/signin").text
        while time.monotonic() < until:
            found = re.search(r'name="pre" value="([^"]+)"', page)
            form = {"login": f"nobody{index}", "password": "guess",
                    "pre": found.group(1) if found else ""}  # fmt: skip
            try:
                r = client.post("/signin", data=form)
            except httpx.HTTPError:
                continue
            page = r.text
            with lock:
                answers[r.status_code] = answers.get(r.status_code, 0) + 1


def main(argv: list[str]) -> None:
    url, clients, seconds, first = argv[0], int(argv[1]), float(argv[2]), int(argv[3])
    answers: dict[int, int] = {}
    lock = threading.Lock()
    until = time.monotonic() + seconds
    threads = [threading.Thread(target=flood, args=(url, first + i, until, answers, lock))
               for i in range(clients)]  # fmt: skip
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print(json.dumps(answers))


if __name__ == "__main__":
    main(sys.argv[1:])
