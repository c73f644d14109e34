"""structlog configuration: JSON in production, console in development; the request id (and the machine, for a
machine's request) bound per request (``slotsys/app/factory.py``), so every line of a request carries
``request_id`` and ``machine``."""

from __future__ import annotations

import logging

import structlog


def configure_logging(json_logs: bool, level: str = "INFO") -> None:
    logging.basicConfig(format="%(message)s", level=getattr(logging, level.upper(), logging.INFO))
    processors = [
        structlog.contextvars.merge_contextvars,
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
        structlog.processors.format_exc_info,
        structlog.processors.JSONRenderer() if json_logs else structlog.dev.ConsoleRenderer(colors=False),
    ]
    structlog.configure(
        processors=processors,
        wrapper_class=structlog.make_filtering_bound_logger(getattr(logging, level.upper(), logging.INFO)),
        cache_logger_on_first_use=True,
    )


def bind_machine(asset: object) -> None:
    """Name the machine (``machine=<asset>``) on every log line of the current request; the app binds the
    path's asset and, for a machine key, the calling machine (which wins: the path may name another)."""
    if isinstance(asset, str) and asset:
        structlog.contextvars.bind_contextvars(machine=asset[:40])
