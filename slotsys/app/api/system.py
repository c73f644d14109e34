"""Unauthenticated probes and Prometheus metrics."""

from __future__ import annotations

from typing import Literal

from apiflask import APIBlueprint
from flask import Response
from pydantic import BaseModel, Field
from sqlalchemy import text

from slotsys.server import metrics as prometheus
from slotsys.kernel.api import problems
from slotsys.kernel.api.common import services
from slotsys.kernel.api.contract import PROMETHEUS, answers


bp = APIBlueprint("system", __name__, tag="System")


class Health(BaseModel):
    status: Literal["ok"]


class Ready(BaseModel):
    status: Literal["ok"]
    checks: dict[str, str] = Field(description='each check and "ok" (database; redis when configured)')


@bp.get("/healthz")
@bp.doc(summary="Liveness: the process answers")
@answers(Health)
def healthz():
    return {"status": "ok"}


@bp.get("/readyz")
@bp.doc(summary="Readiness: the database (and Redis, when configured) answer; 503 problem+json naming the "
                "failed checks otherwise")
@answers(Ready)
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
    if not ok:
        failed = sorted(k for k, v in checks.items() if v != "ok")
        return problems.problem(503, "Service unavailable", f"not ready: {', '.join(failed)} did not answer",
                                code="not-ready", field=failed[0], checks=checks)
    return {"status": "ok", "checks": checks}


@bp.get("/metrics")
@bp.doc(summary="Prometheus metrics: every gunicorn worker's samples (multiprocess mode), the Celery queue depth "
                "(see slotsys/server/metrics.py)")
@answers(media=PROMETHEUS)
def metrics():
    body, content_type = prometheus.exposition(services().settings.redis_url)
    return Response(body, content_type=content_type)
