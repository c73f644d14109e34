"""Unauthenticated probes and Prometheus metrics."""

from __future__ import annotations

from apiflask import APIBlueprint
from flask import Response
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from sqlalchemy import text

from slotsys.api.common import services

bp = APIBlueprint("system", __name__, tag="System")


@bp.get("/healthz")
@bp.doc(summary="Liveness: the process answers")
def healthz():
    return {"status": "ok"}


@bp.get("/readyz")
@bp.doc(summary="Readiness: the database (and Redis, when configured) answer")
def readyz():
    svc = services()
    checks: dict[str, str] = {}
    ok = True
    try:
        with svc.uow.engine.connect() as conn:
            conn.execute(text("SELECT 1"))
        checks["database"] = "ok"
    except Exception as e:  # report, don't raise: this is the probe
        checks["database"] = f"error: {type(e).__name__}"
        ok = False
    if svc.settings.redis_url:
        try:
            import redis

            redis.Redis.from_url(svc.settings.redis_url, socket_timeout=1, socket_connect_timeout=1).ping()
            checks["redis"] = "ok"
        except Exception as e:
            checks["redis"] = f"error: {type(e).__name__}"
            ok = False
    return {"status": "ok" if ok else "unavailable", "checks": checks}, 200 if ok else 503


@bp.get("/metrics")
@bp.doc(summary="Prometheus metrics")
def metrics():
    return Response(generate_latest(), mimetype=CONTENT_TYPE_LATEST)
