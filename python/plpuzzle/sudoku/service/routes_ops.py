"""What an administrator's tools read: /healthz for a load balancer or a
monitor, /metrics for Prometheus (watch.py)."""

from __future__ import annotations

import ipaddress

import anyio
from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import JSONResponse, Response
from prometheus_client import CONTENT_TYPE_LATEST

from plpuzzle.sudoku.service.routing import api_user, deps
from plpuzzle.sudoku.service.watch import health, metrics_text

router = APIRouter()


@router.get("/healthz")
async def healthz(request: Request) -> Response:
    """200 when the database answers and grading runs, else 503 and why."""
    d = deps(request)
    found = await anyio.to_thread.run_sync(health, d.service, d.queue)
    if found.ok:
        return JSONResponse({"status": "ok"})
    return JSONResponse({"status": "unhealthy", "reason": found.problem}, status_code=503)


def may_read_metrics(request: Request) -> bool:
    """Loopback clients (a Prometheus on this machine; behind the proxy,
    the client it names) and teachers' API tokens; no one else."""
    address = request.client.host if request.client else ""
    try:
        if ipaddress.ip_address(address).is_loopback:
            return True
    except ValueError:
        pass
    if not request.headers.get("authorization"):
        return False
    try:
        return api_user(request).teacher
    except HTTPException:
        return False


@router.get("/metrics")
async def metrics(request: Request) -> Response:
    if not await anyio.to_thread.run_sync(may_read_metrics, request):
        return JSONResponse({"error": "the metrics are for this machine's clients and "
                             "teachers' API tokens (Authorization: Bearer TOKEN)"},
                            status_code=403)  # fmt: skip
    d = deps(request)
    body = await anyio.to_thread.run_sync(metrics_text, d.service, d.queue, d.guard)
    return Response(body, media_type=CONTENT_TYPE_LATEST)
