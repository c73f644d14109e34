"""APIFlask application factory."""

from __future__ import annotations

import time
import uuid

import structlog
from apiflask import APIFlask
from flask import g, request
from prometheus_client import Counter, Histogram
from werkzeug.exceptions import HTTPException

from slotsys.api import problems
from slotsys.bootstrap import build_services
from slotsys.domain.errors import DomainError
from slotsys.logging import configure_logging
from slotsys.settings import Settings, get_settings

log = structlog.get_logger("slotsys.http")
REQUESTS = Counter("slotsys_http_requests_total", "HTTP requests", ["endpoint", "status"])
LATENCY = Histogram("slotsys_http_request_seconds", "HTTP request latency", ["endpoint"],
                    buckets=(0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5))


def create_app(settings: Settings | None = None) -> APIFlask:
    settings = settings or get_settings()
    configure_logging(settings.log_json, settings.log_level)
    app = APIFlask("slotsys", title="Slot floor & jackpot system", version="1.0", spec_path="/openapi.json",
                   docs_path="/docs")
    app.config["MAX_CONTENT_LENGTH"] = settings.max_body_bytes
    app.config["VALIDATION_ERROR_STATUS_CODE"] = 422
    app.security_schemes = {"BearerAuth": {"type": "http", "scheme": "bearer"}}
    app.extensions["slotsys"] = build_services(settings)

    from jackpot_controller.api.routes import bp as jackpots_bp
    from slotsys.api.machines import bp as machines_bp
    from slotsys.api.staff import bp as staff_bp
    from slotsys.api.system import bp as system_bp
    from tito.api.routes import bp as tickets_bp

    for bp in (system_bp, staff_bp, machines_bp, tickets_bp, jackpots_bp):
        app.register_blueprint(bp)

    @app.before_request
    def _start():
        g.t0 = time.perf_counter()
        rid = request.headers.get("X-Request-ID") or uuid.uuid4().hex
        g.request_id = rid[:100]
        structlog.contextvars.clear_contextvars()
        structlog.contextvars.bind_contextvars(request_id=g.request_id, method=request.method, path=request.path)

    @app.after_request
    def _finish(resp):
        resp.headers["X-Request-ID"] = g.get("request_id", "")
        endpoint = request.endpoint or "unknown"
        elapsed = time.perf_counter() - g.get("t0", time.perf_counter())
        REQUESTS.labels(endpoint, str(resp.status_code)).inc()
        LATENCY.labels(endpoint).observe(elapsed)
        p = g.get("principal")
        log.info("http.request", status=resp.status_code, ms=round(elapsed * 1000, 2),
                 principal=p.id if p else None)
        return resp

    @app.error_processor
    def _apiflask_error(err):
        if err.status_code == 422 and isinstance(err.detail, dict) and err.detail:
            return problems.from_validation(err.detail)
        return problems.problem(err.status_code, err.message or "Error", str(err.detail or err.message or ""),
                                code=str(err.status_code))

    @app.errorhandler(DomainError)
    def _domain_error(err: DomainError):
        log.info("request.refused", code=err.code, detail=err.detail, field=err.field)
        return problems.from_domain(err)

    @app.errorhandler(HTTPException)
    def _http_error(err: HTTPException):
        return problems.problem(err.code or 500, err.name, err.description or err.name, code=str(err.code))

    @app.errorhandler(Exception)
    def _unexpected(err: Exception):
        log.error("request.failed", exc_info=err)
        from sqlalchemy.exc import OperationalError

        if isinstance(err, OperationalError):
            return problems.problem(503, "Service unavailable", "the database is unavailable; retry with the same Idempotency-Key",
                                    code="unavailable")
        return problems.problem(500, "Internal error", "an unexpected error occurred; nothing was applied",
                                code="internal", request_id=g.get("request_id"))

    return app
