"""APIFlask application factory."""

from __future__ import annotations

import logging
import secrets
import time

import structlog
from apiflask import APIFlask
from flask import g, request
from werkzeug.exceptions import HTTPException

from slotsys.server import admission, metrics
from slotsys.app.api import guards
from slotsys.kernel.api import contract, problems
from slotsys.kernel.api.common import principal
from slotsys.app.bootstrap import build_services
from slotsys.kernel.errors import DomainError
from slotsys.staff.services.results import SessionEnded, StaffSessions, StaffUser, StaffUserChanged, StaffUsers
from slotsys.kernel.logging import bind_machine, configure_logging
from slotsys.kernel.settings import Settings, get_settings

log = structlog.get_logger("slotsys.http")
PUBLIC_ENDPOINTS = {"staff.login", "players.login", "screens.jackpot_stream"}  # every other /api/v1 endpoint needs a key or a token


def _nul_in_url(req) -> str | None:
    """The path variable or query parameter holding a NUL character, if any."""
    for name, value in (req.view_args or {}).items():
        if isinstance(value, str) and "\x00" in value:
            return name
    if "\x00" in req.path:
        return "path"
    qs = req.environ.get("QUERY_STRING", "")
    if "\x00" not in qs and "%00" not in qs:  # a NUL reaches a value only raw or as %00: no query to parse
        return None
    for name, value in req.args.items(multi=True):
        if "\x00" in name or "\x00" in value:
            return name.replace("\x00", "") or "query"
    return None


def create_app(settings: Settings | None = None) -> APIFlask:
    settings = settings or get_settings()
    configure_logging(settings.log_json, settings.log_level)
    log_requests = getattr(logging, settings.log_level.upper(), logging.INFO) <= logging.INFO  # the INFO line per request
    app = APIFlask("slotsys", title="Slot floor & jackpot system", version="1.0", spec_path="/openapi.json",
                   docs_path="/docs")
    app.config["MAX_CONTENT_LENGTH"] = settings.max_body_bytes
    app.url_map.converters["int"] = guards.IdConverter  # before any route: <int:…> outside INTEGER is a 422 (below)
    app.json = guards.StrictJSONProvider(app)  # bodies: UTF-8 only, no duplicate keys (400 naming the key)
    app.request_class = guards.StrictRequest
    app.config["VALIDATION_ERROR_STATUS_CODE"] = 422
    app.config["PROVIDE_AUTOMATIC_OPTIONS"] = False  # OPTIONS gets a 405 problem, not an empty 200
    app.security_schemes = {"BearerAuth": {"type": "http", "scheme": "bearer"}}
    # the contract (operationIds, success schemas and media types, exactly-once headers), then errors as problem+json
    # results the floor's administration routes answer for the staff feature (which they may not import)
    contract.provide(SessionEnded, StaffSessions, StaffUser, StaffUserChanged, StaffUsers)
    app.spec_processor(lambda spec: problems.document_problems(contract.document_contract(app, spec)))
    app.extensions["slotsys"] = svc = build_services(settings)
    svc.game_library.warm()  # every game's par sheet now, never on the spin path with a machine row locked

    from jackpot_controller.api.routes import bp as jackpots_bp
    from slotsys.floor.api.admin import bp as floor_admin_bp
    from slotsys.floor.api.machines import bp as machines_bp
    from slotsys.floor.api.reported_games import bp as machine_games_bp
    from slotsys.players.api.routes import bp as players_bp, machines_bp as player_machines_bp
    from slotsys.staff.api.routes import bp as staff_bp
    from slotsys.app.api.system import bp as system_bp
    from table_games.api.routes import bp as tables_bp
    from table_games.api.poker_room import bp as poker_bp  # the poker room
    app.register_blueprint(poker_bp)
    from table_games.api.mahjong import bp as mahjong_bp  # mahjong
    app.register_blueprint(mahjong_bp)
    from tito.api.routes import bp as tickets_bp

    for bp in (system_bp, staff_bp, machines_bp, machine_games_bp, tickets_bp, jackpots_bp, players_bp, player_machines_bp,
               tables_bp, floor_admin_bp):
        app.register_blueprint(bp)
    from slotsys.floor.api.catalogue import bp as administration_bp  # game approval, staff administration, audit log
    app.register_blueprint(administration_bp)
    from slotsys.floor.api.events import bp as floor_events_bp  # machine events, alerts, handpays
    app.register_blueprint(floor_events_bp)
    from slotsys.accounting.api.routes import bp as accounting_bp  # the gaming-day close, drop and count
    app.register_blueprint(accounting_bp)
    from slotsys.sas.api.routes import bp as sas_bp  # the SAS links' state for the console
    app.register_blueprint(sas_bp)
    from slotsys.app.web.pages import register_screens  # the pages + their read-only API
    register_screens(app)
    from slotsys.app.web.apidocs import register_api_docs  # /docs offline: Swagger UI from a package, no CDN
    register_api_docs(app)

    @app.before_request
    def _start():
        req = request._get_current_object()  # type: ignore[attr-defined]  # the proxy resolved once, not per use
        g.t0 = time.perf_counter()
        g.queue_wait = admission.queue_wait_s()  # behind AdmissionWorker, which already refused it if too long
        rid = req.headers.get("X-Request-ID") or secrets.token_hex(16)  # 32 hex digits, as uuid4().hex
        g.request_id = rid = rid[:100]
        path, endpoint, view_args = req.path, req.endpoint, req.view_args
        structlog.contextvars.clear_contextvars()
        structlog.contextvars.bind_contextvars(request_id=rid, method=req.method, path=path)
        bind_machine((view_args or {}).get("asset"))  # every log line of a machine's request names it
        if path.startswith("/api/v1/") and endpoint and endpoint not in PUBLIC_ENDPOINTS:
            p = principal()  # authenticate before the body is even parsed: 401 comes first
            if p.kind == "machine":
                bind_machine(p.name)
        nul = _nul_in_url(req)
        if nul:  # PostgreSQL text cannot hold NUL: refuse it before any lookup
            return problems.problem(400, "Bad request", f"{nul} must not contain the NUL character",
                                    code="malformed-url", field=nul)
        bad_id = guards.path_id_out_of_range(req.url_rule, view_args)
        if bad_id:  # the id columns are INTEGER: never hand the database a number it cannot hold
            return problems.problem(422, "The request is not valid", f"{bad_id} must be between 1 and {guards.MAX_ID:,}",
                                    code="validation-failed", field=bad_id)
        # body_length: Content-Length, or a chunked body read to at most the limit + 1 bytes (413 above it)
        if req.method in ("POST", "PUT", "PATCH") and req.body_length() > 0:
            if not req.is_json:
                return problems.problem(415, "Unsupported media type", "send the body as application/json (UTF-8)",
                                        code="unsupported-media-type", field="Content-Type")
            req.get_json()  # parsed (and cached) before any route: malformed, non-UTF-8, duplicate keys → 400

    @app.after_request
    def _finish(resp):
        req, gv = request._get_current_object(), g._get_current_object()  # type: ignore[attr-defined]
        headers = resp.headers
        headers["X-Request-ID"] = gv.get("request_id", "")
        endpoint = req.endpoint
        now = time.perf_counter()
        elapsed = now - gv.get("t0", now)
        wait = gv.get("queue_wait")
        metrics.observe_request(endpoint or "unknown", resp.status_code, elapsed, wait)
        p = gv.get("principal")
        # W3C Server-Timing: the client (a machine's log, a browser's dev tools, bench/floor_wrk.lua) sees both parts
        headers["Server-Timing"] = f"app;dur={elapsed * 1000:.2f}" + (
            f", queue;dur={wait * 1000:.2f}" if wait is not None else "")
        guards.security_headers(resp, endpoint)
        if log_requests:  # the request log line (INFO): its fields are built only when it is written
            queued = {} if wait is None else {"queue_ms": round(wait * 1000, 2)}  # behind AdmissionWorker only
            log.info("http.request", status=resp.status_code, ms=round(elapsed * 1000, 2), **queued,
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
            resp = problems.problem(413, err.name, f"the body is larger than {settings.max_body_bytes:,} bytes",
                                    code="413", field="body")
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

    if settings.trusted_proxies:  # the client's address from the proxy's X-Forwarded-For (docs/proxy.md)
        from werkzeug.middleware.proxy_fix import ProxyFix

        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=settings.trusted_proxies, x_proto=settings.trusted_proxies)
    return app
