"""``slotsys streams``: the event-loop stream server (aiohttp) for ``/api/v1/jackpots/stream`` and
``/api/v1/screens/jackpot-stream``, behind nginx (``proxy_buffering off``) on ``SLOTSYS_STREAM_PORT`` (8001).

Same events and credentials as the Flask routes (:mod:`slotsys.server.streams.gate`; database reads in the loop's
executor), fed by ONE Redis pub/sub subscription per process (:func:`~slotsys.server.streams.hub.redis_feed`)
fanned out to every client by the :class:`~slotsys.server.streams.hub.Hub`, with its per-principal cap (429), global
cap (503), heartbeat snapshots, maximum lifetime and slow-reader disconnect. ``GET /healthz`` answers
``{"status": "ok", "streams": n}`` for the proxy's and the orchestrator's checks.
"""

from __future__ import annotations

import asyncio
import os
import resource

import structlog
from aiohttp import web

from slotsys.kernel.errors import DomainError
from slotsys.server.streams import gate
from slotsys.server.streams.hub import Hub, Limits, TooManyStreams, redis_feed

log = structlog.get_logger("slotsys.server.streams")

HUB = web.AppKey("hub", Hub)
SERVICES = web.AppKey("services", object)
WRITE_TIMEOUT_S = 10.0


def _problem(status: int, body: bytes, headers) -> web.Response:
    return web.Response(status=status, body=body, headers=dict(headers), content_type="application/problem+json")


async def stream(request: web.Request) -> web.StreamResponse:
    hub, services = request.app[HUB], request.app[SERVICES]
    path = request.path
    try:
        args = gate.query_args(request.query_string)
        limit = gate.max_seconds(args)
        authorization = request.headers.get("Authorization")
        principal = await asyncio.get_running_loop().run_in_executor(
            None, gate.authenticate, services, path, authorization, args)
        client = hub.open(gate.principal_key(principal), limit, gate.credential(path, authorization, args))
    except DomainError as err:
        return _problem(*gate.from_domain(err, path))
    except TooManyStreams as exc:
        return _problem(*gate.too_many(exc, path))
    try:
        resp = web.StreamResponse(status=200, headers=dict(gate.SSE_HEADERS))
        resp.force_close()  # the stream's end closes the connection (EventSource reconnects with a new request)
        await resp.prepare(request)
        async for frame in client.frames():
            await asyncio.wait_for(resp.write(frame), WRITE_TIMEOUT_S)
        return resp
    except (ConnectionError, asyncio.TimeoutError) as exc:  # aiohttp's ClientConnectionResetError is one
        log.info("stream.client_disconnected", path=path, principal=client.key, reason=type(exc).__name__)
        return resp
    finally:
        hub.close(client)


async def healthz(request: web.Request) -> web.Response:
    return web.json_response({"status": "ok", "streams": len(request.app[HUB].clients)})


def make_app(services, limits: Limits, channel: str) -> web.Application:
    app = web.Application()
    hub = Hub(limits, services.jackpots.meters_message, lambda cred: gate.recheck(services, cred))
    app[HUB], app[SERVICES] = hub, services
    app.router.add_get(gate.JACKPOT_STREAM, stream)
    app.router.add_get(gate.SCREENS_STREAM, stream)
    app.router.add_get("/healthz", healthz)

    async def feed(app: web.Application):
        task = asyncio.create_task(redis_feed(hub, services.settings.redis_url, channel))
        yield
        task.cancel()

    app.cleanup_ctx.append(feed)
    return app


def raise_open_files(want: int) -> int:
    """Raise the soft open-files limit towards ``want`` (each stream is a descriptor); returns the limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = want if hard == resource.RLIM_INFINITY else min(want, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        except (ValueError, OSError):
            pass
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def run(services, settings, host: str, port: int) -> None:
    """Serve until SIGINT/SIGTERM with ``services`` (built by the caller for ``settings``). Needs ``REDIS_URL``
    (the web nodes publish there)."""
    from jackpot_controller.domain.signage import CHANNEL

    if not settings.redis_url:
        raise SystemExit("slotsys streams needs REDIS_URL (the web nodes publish the signage channel there); "
                         "the embedded default (make run) serves streams inside its gunicorn worker instead")
    raise_open_files(settings.stream_max_total + 200)
    if settings.stream_nice:
        os.nice(settings.stream_nice)  # spins before signage on a shared node (Settings.stream_nice)
    services.jackpots.stop()  # this process folds nothing; the web nodes and beat do
    limits = Limits.from_settings(settings)
    log.info("streams.serving", host=host, port=port, per_principal=limits.per_principal, max_total=limits.max_total)
    web.run_app(make_app(services, limits, CHANNEL), host=host, port=port, print=None, access_log=None,
                handle_signals=True, shutdown_timeout=2)
