"""Running the service for a term: /healthz and /metrics scraped from a
real `serve` (on SQLite and on a real PostgreSQL server), backups of a
running service restored on both databases, a clean stop on SIGTERM,
and the JSON access log."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from postgres import postgres_server
from prometheus_client.parser import text_string_to_metric_families
from service_kit import (
    CLASS,
    COURSE_TOML,
    Server,
    api_shown,
    api_tokens,
    api_upload,
    app_of,
    make_course,
    make_service,
    wait_for,
)

pytestmark = pytest.mark.sandbox

ALICE = (CLASS / "alice.pl").read_bytes()


def scrape(url: str, **headers: str) -> dict[str, dict[tuple[tuple[str, str], ...], float]]:
    """GET /metrics, parsed: sample name -> labels -> value."""
    r = httpx.get(f"{url}/metrics", headers=headers, timeout=60)
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("text/plain")
    out: dict[str, dict[tuple[tuple[str, str], ...], float]] = {}
    for family in text_string_to_metric_families(r.text):
        assert family.name.startswith("plpuzzle_"), family.name
        for sample in family.samples:
            out.setdefault(sample.name, {})[tuple(sorted(sample.labels.items()))] = sample.value
    return out


def pending(figures: dict[str, Any]) -> float:
    return sum(figures["plpuzzle_uploads"].values())


# -- health and metrics -------------------------------------------------------------------


def test_metrics_scraped_during_a_burst_count_every_upload_once(tmp_path: Path) -> None:
    course = make_course(tmp_path / "course")
    data = tmp_path / "data"
    students = [f"s{n}" for n in range(4)]
    tokens = api_tokens(course, data, students)
    with Server(course, data, 2) as server:
        assert httpx.get(f"{server.url}/healthz", timeout=30).json() == {"status": "ok"}
        ids: list[int] = []
        scrapes = []

        def hand_in(login: str) -> None:
            r = api_upload(server.url, tokens[login], ALICE + f"% {login}\n".encode())
            assert r.status_code == 201, r.text
            ids.append(r.json()["id"])

        burst = [threading.Thread(target=hand_in, args=(s,)) for s in students]
        for thread in burst:
            thread.start()
        while any(t.is_alive() for t in burst):
            scrapes.append(scrape(server.url))
        for thread in burst:
            thread.join()
        scrapes.append(scrape(server.url))

        def graded() -> bool:
            scrapes.append(figures := scrape(server.url))
            return figures["plpuzzle_wait_all_results_seconds_count"][()] == len(students)

        wait_for("every upload graded, as /metrics says", 600, graded, every=0.5)
        for figures in scrapes:  # each scrape one snapshot: an upload is pending or done, once
            done = figures["plpuzzle_wait_all_results_seconds_count"][()]
            assert pending(figures) + done <= len(students)
        last = scrapes[-1]
        assert pending(last) == 0
        assert last["plpuzzle_students_with_upload"][()] == len(students)
        assert last["plpuzzle_wait_public_results_seconds_count"][()] == len(students)
        for name in ("plpuzzle_wait_public_results_seconds", "plpuzzle_wait_all_results_seconds"):
            buckets = last[f"{name}_bucket"]
            assert buckets[(("le", "+Inf"),)] == len(students)
            assert list(buckets.values()) == sorted(buckets.values())  # cumulative
        cpu = last["plpuzzle_grading_cpu_seconds_count"]
        assert sum(cpu.values()) == len(students) * 6  # six tests each, graded once
        assert last["plpuzzle_grading_cpu_seconds_sum"][(("test", "test001"),)] > 0
        assert last["plpuzzle_mails"] == {(("state", "failed"),): 0, (("state", "waiting"),): 0}
        assert last["plpuzzle_signins_throttled_total"][()] == 0
        for i in ids:
            assert api_shown(server.url, tokens["tina"], i)["state"] == "done"

        # Through a proxy, a client elsewhere: only a teacher's token reads the figures.
        away = {"X-Forwarded-For": "203.0.113.9"}
        refused = httpx.get(f"{server.url}/metrics", headers=away, timeout=30)
        assert refused.status_code == 403 and "plpuzzle_" not in refused.text
        student = {**away, "Authorization": f"Bearer {tokens['s0']}"}
        assert httpx.get(f"{server.url}/metrics", headers=student, timeout=30).status_code == 403
        forged = {**away, "Authorization": "Bearer not-a-token"}
        assert httpx.get(f"{server.url}/metrics", headers=forged, timeout=30).status_code == 403
        assert pending(scrape(server.url, **away, Authorization=f"Bearer {tokens['tina']}")) == 0


def test_healthz_says_503_and_why_when_grading_does_not_run(tmp_path: Path) -> None:
    service = make_service(tmp_path, COURSE_TOML)
    try:
        with TestClient(app_of(service, grade=False)) as client:
            r = client.get("/healthz")
            assert r.status_code == 503
            assert r.json() == {"status": "unhealthy", "reason": "grading is not running"}
    finally:
        service.close()


def test_healthz_says_503_when_the_database_is_gone(tmp_path: Path) -> None:
    course = make_course(tmp_path / "course")
    data = tmp_path / "data"
    server = Server(course, data, 1)
    try:
        with postgres_server() as url:
            server.extra = ("--database-url", url)
            server.start()
            assert httpx.get(f"{server.url}/healthz", timeout=30).status_code == 200
        # The PostgreSQL server stopped under the running service.
        r = httpx.get(f"{server.url}/healthz", timeout=60)
        assert r.status_code == 503
        assert r.json()["reason"].startswith("the database does not answer")
    finally:
        server.stop()
