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
from slotsys.api.common import principal
from slotsys.bootstrap import build_services
from slotsys.domain.errors import DomainError
from slotsys.logging import configure_logging
from slotsys.settings import Settings, get_settings

log = structlog.get_logger("slotsys.http")
PUBLIC_ENDPOINTS = {"staff.login", "players.login"}  # every other /api/v1 endpoint needs a key or a token
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
    app.config["PROVIDE_AUTOMATIC_OPTIONS"] = False  # OPTIONS gets a 405 problem, not an empty 200
    app.security_schemes = {"BearerAuth": {"type": "http", "scheme": "bearer"}}
    app.extensions["slotsys"] = build_services(settings)

    from jackpot_controller.api.routes import bp as jackpots_bp
    from slotsys.api.machines import bp as machines_bp
    from slotsys.api.players import bp as players_bp, machines_bp as player_machines_bp
    from slotsys.api.staff import bp as staff_bp
    from slotsys.api.system import bp as system_bp
    from table_games.api.routes import bp as tables_bp
    from tito.api.routes import bp as tickets_bp

    for bp in (system_bp, staff_bp, machines_bp, tickets_bp, jackpots_bp, players_bp, player_machines_bp, tables_bp):
        app.register_blueprint(bp)

    @app.before_request
    def _start():
        g.t0 = time.perf_counter()
        rid = request.headers.get("X-Request-ID") or uuid.uuid4().hex
        g.request_id = rid[:100]
        structlog.contextvars.clear_contextvars()
        structlog.contextvars.bind_contextvars(request_id=g.request_id, method=request.method, path=request.path)
        if request.path.startswith("/api/v1/") and request.endpoint and request.endpoint not in PUBLIC_ENDPOINTS:
            principal()  # authenticate before the body is even parsed: 401 comes first
        if request.method in ("POST", "PUT", "PATCH") and (request.content_length or 0) > 0 and not request.is_json:
            return problems.problem(415, "Unsupported media type", "send the body as application/json (UTF-8)",
                                    code="unsupported-media-type", field="Content-Type")

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
        if err.code == 400:
            return problems.problem(400, "Bad request", "the request body is not valid JSON (UTF-8)", code="malformed-body",
                                    field="body")
        resp = problems.problem(err.code or 500, err.name, err.description or err.name, code=str(err.code))
        if err.code == 413:
            resp.headers["Connection"] = "close"  # the oversized body was not read: do not reuse the connection
        return resp

    @app.errorhandler(RecursionError)
    def _too_deep(err: RecursionError):
        return problems.problem(400, "Bad request", "the JSON body is nested too deeply", code="malformed-body", field="body")

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
