"""Composition root: builds the engine, unit of work, Celery and every service once."""

from __future__ import annotations

from dataclasses import dataclass

import structlog

from jackpot_controller.adapters.lease import AdvisoryLease
from jackpot_controller.services.controller import JackpotService
from slotsys.kernel.adapters.broadcast import make_publisher
from slotsys.server.celery_app import make_celery
from slotsys.kernel.adapters.db import make_engine
from slotsys.kernel.adapters.uow import UowFactory
from slotsys.kernel.ports import Csprng, SystemClock
from slotsys.kernel.ledger_audit import AuditService
from slotsys.kernel.context import ServiceContext
from slotsys.floor.services.play import FloorService
from slotsys.floor.services.events import FloorEventsService
from slotsys.floor.services.admin import FloorAdminService
from slotsys.floor.services.catalogue import assignable as game_catalogue_assignable
from slotsys.staff.services.auth import AuthService
from slotsys.kernel.settings import Settings, get_settings
from tito.services.cage import CageService

log = structlog.get_logger("slotsys")


@dataclass
class Services:
    settings: Settings
    ctx: ServiceContext
    uow: UowFactory
    celery: object
    auth: AuthService
    floor: FloorService
    cage: CageService
    jackpots: JackpotService
    audit: AuditService
    publisher: object
    events: FloorEventsService | None = None
    floor_admin: FloorAdminService | None = None


_current: Services | None = None


def build_services(settings: Settings | None = None) -> Services:
    global _current
    settings = settings or get_settings()
    engine = make_engine(settings.database_url, pool_size=settings.db_pool_size,
                         max_overflow=settings.db_max_overflow, pool_timeout=settings.db_pool_timeout_s,
                         pool_pre_ping=settings.db_pool_pre_ping)
    uow = UowFactory(engine)
    celery = make_celery(settings)

    def enqueue(name: str, *args) -> None:
        try:
            celery.tasks[name].delay(*args)
        except Exception:  # the broker may be down: the beat sweep picks the work up later
            log.warning("task.enqueue_failed", task=name, args=args, exc_info=True)

    publisher = make_publisher(settings.redis_url)
    ctx = ServiceContext(uow=uow, rng=Csprng(), clock=SystemClock(), settings=settings, enqueue=enqueue,
                         publish=publisher.publish)
    svc = Services(
        settings=settings, ctx=ctx, uow=uow, celery=celery, auth=AuthService(ctx), floor=FloorService(ctx),
        cage=CageService(ctx), jackpots=JackpotService(ctx, publisher.publish, lease=AdvisoryLease(engine)), audit=AuditService(ctx),
        publisher=publisher,
    )
    from slotsys.floor.games import set_uploaded_source
    from slotsys.floor.services.catalogue import UploadedGames

    set_uploaded_source(UploadedGames(uow))  # machines assigned an approved uploaded game can play it
    svc.events = FloorEventsService(ctx, publisher.publish, jackpots=svc.jackpots)
    svc.floor_admin = FloorAdminService(ctx, assignable=game_catalogue_assignable,
                                        announce_revoked=svc.auth.announce_revoked)
    _current = svc
    return svc


def services() -> Services:
    """The process's services (built from the environment on first use, e.g. in a worker)."""
    return _current or build_services()
