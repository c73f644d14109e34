"""The composition root: builds the engine, the unit of work (with every feature's repositories), Celery, the
live channel and every service of every feature, once per process, for the web nodes, the Celery worker and
the command line alike. Settings are passed in (the environment is read once, by the caller).

Features never find each other: each service gets what it needs here, as constructor arguments. A feature that
needs another declares a port (a Protocol in its ``services/ports.py``) and this module passes the other
feature's object that fills it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import structlog

from jackpot_controller.adapters.uow import REPOSITORIES as JACKPOT_REPOSITORIES
from jackpot_controller.services.container import JackpotServices
from jackpot_controller.settings import JackpotSettings
from slotsys.accounting.adapters.uow import REPOSITORIES as ACCOUNTING_REPOSITORIES
from slotsys.kernel.gaming_day import GamingDay
from slotsys.accounting.services import AccountingServices
from slotsys.accounting.settings import AccountingSettings
from slotsys.app.screens import ScreensService
from slotsys.app.wiring.jackpots import build_jackpot_services
from slotsys.floor.adapters.uow import REPOSITORIES as FLOOR_REPOSITORIES
from slotsys.floor.read_model import FloorViewService
from slotsys.floor.services.admin import FloorAdminService
from slotsys.floor.services.catalogue import GameCatalogueService, UploadedGames
from slotsys.floor.services.catalogue import assignable as game_catalogue_assignable
from slotsys.floor.services.events import FloorEventsService
from slotsys.floor.services.games import GameLibrary
from slotsys.floor.services.play import FloorService, PlayPorts
from slotsys.floor.settings import EventsSettings, PlaySettings
from slotsys.app.wiring.floor import FloorJackpots
from slotsys.app.wiring.players import CageCashDesk
from slotsys.app.wiring.tito import build_tito
from slotsys.players.services.loyalty_play import LoyaltyAccrual
from slotsys.floor.services.reported_games import MachineGameService
from slotsys.kernel.adapters.broadcast import make_publisher
from slotsys.kernel.adapters.db import make_engine
from slotsys.kernel.adapters.uow import UowFactory
from slotsys.kernel.audit_reader import AuditLogReader
from slotsys.kernel.context import ServiceContext
from slotsys.app.ledger_audit import AuditService
from slotsys.kernel.ports import Csprng, SystemClock
from slotsys.kernel.settings import Settings
from slotsys.players.adapters.uow import REPOSITORIES as PLAYER_REPOSITORIES
from slotsys.sas.adapters.uow import REPOSITORIES as SAS_REPOSITORIES
from slotsys.sas.services.link_state import LinkStateService
from slotsys.players.services.players import PlayerService
from slotsys.players.services.aft import AftService
from slotsys.players.services.sessions import SessionService
from slotsys.server.celery_app import make_celery
from slotsys.server.metrics import PrometheusMetrics
from slotsys.staff.adapters.uow import REPOSITORIES as STAFF_REPOSITORIES
from slotsys.staff.services.admin import StaffAdminService
from slotsys.staff.adapters.sign_in import AddressLimiter, make_revocation_bus, namespace
from slotsys.staff.services.auth import AuthService
from slotsys.app.wiring.tables import ControllerTableProgressives, TableWallet
from table_games.adapters.uow import REPOSITORIES as TABLE_REPOSITORIES
from table_games.services.container import TableGames
from table_games.services.mahjong import MahjongService
from table_games.services.poker_room import PokerRoomService
from tito.adapters.uow import REPOSITORIES as TITO_REPOSITORIES
from tito.services.container import TitoServices
from tito.settings import TitoSettings

log = structlog.get_logger("slotsys")

REPOSITORIES = (FLOOR_REPOSITORIES, PLAYER_REPOSITORIES, STAFF_REPOSITORIES, JACKPOT_REPOSITORIES,
                TITO_REPOSITORIES, TABLE_REPOSITORIES, ACCOUNTING_REPOSITORIES, SAS_REPOSITORIES)


def make_uow(engine) -> UowFactory:
    """The unit-of-work factory with the kernel's repositories and every feature's."""
    uow = UowFactory(engine)
    for repositories in REPOSITORIES:
        uow.register(repositories)
    return uow


@dataclass
class Services:
    """Every service of the process, built once by :func:`build_services`."""

    settings: Settings
    ctx: ServiceContext
    uow: UowFactory
    celery: Any
    publisher: Any
    # staff
    auth: AuthService
    staff_admin: StaffAdminService
    # the slot floor
    game_library: GameLibrary
    floor: FloorService
    reported_games: MachineGameService
    floor_admin: FloorAdminService
    events: FloorEventsService
    games: GameCatalogueService
    floor_view: FloorViewService
    # the jackpot controller
    jackpots: JackpotServices
    # TITO
    tito: TitoServices
    # players
    players: PlayerService
    sessions: SessionService
    aft: AftService  # AFT transfers between a carded player's wallet and a SAS machine
    # table games (house-banked tables: tables, rounds, settlement)
    tables: TableGames
    poker: PokerRoomService
    mahjong: MahjongService
    # gaming-day accounting (above the features: it reads them all)
    accounting: AccountingServices
    # the SAS links as their hosts last published them (the console's view)
    sas_links: LinkStateService
    # the kernel's reads and the screens
    audit: AuditService
    audit_log: AuditLogReader
    screens: ScreensService


def build_services(settings: Settings) -> Services:
    """Build every service for ``settings`` (the process's environment, read once by the caller)."""
    engine = make_engine(settings.database_url, pool_size=settings.db_pool_size,
                         max_overflow=settings.db_max_overflow, pool_timeout=settings.db_pool_timeout_s,
                         pool_pre_ping=settings.db_pool_pre_ping)
    uow = make_uow(engine)
    events_settings = EventsSettings()
    accounting_settings = AccountingSettings()
    celery = make_celery(settings, offline_sweep_s=events_settings.machine_offline_sweep_s,
                         accounting_beat_s=accounting_settings.beat_interval_s)

    def enqueue(name: str, *args) -> None:
        try:
            celery.tasks[name].delay(*args)
        except Exception:  # the broker may be down: the beat sweep picks the work up later
            log.warning("task.enqueue_failed", task=name, args=args, exc_info=True)

    publisher = make_publisher(settings.redis_url)
    ctx = ServiceContext(uow=uow, rng=Csprng(), clock=SystemClock(), settings=settings, enqueue=enqueue,
                         publish=publisher.publish, metrics=PrometheusMetrics())
    sign_in_ns = namespace(settings.database_url)
    auth = AuthService(ctx, addresses=AddressLimiter(settings.staff_login_address_limit, settings.redis_url, sign_in_ns),
                       bus=make_revocation_bus(settings.redis_url, sign_in_ns))
    jackpots = build_jackpot_services(ctx, engine=engine, publish=publisher.publish, settings=JackpotSettings())
    gaming_day = GamingDay(settings.gaming_day_start_hour, settings.gaming_day_tz)  # THE gaming day of every report
    tito_settings = TitoSettings()  # the environment's SLOTSYS_TITO_*, read once
    if "timezone" not in tito_settings.model_fields_set:  # ticket faces and report dates: the casino's zone
        tito_settings = tito_settings.model_copy(update={"timezone": settings.gaming_day_tz})
    tito = build_tito(ctx, tito_settings, gaming_day)
    # the slot floor and its ports
    games = GameLibrary(UploadedGames(uow))  # machines assigned an approved uploaded game can play it
    floor_jackpots, floor_tickets = FloorJackpots(ctx, jackpots), tito.desk  # TITO's desk fills the ticket port
    play = PlayPorts(games=games, jackpots=floor_jackpots,
                     loyalty=LoyaltyAccrual(settings))
    floor = FloorService(ctx, games=games, jackpots=floor_jackpots, tickets=floor_tickets, loyalty=play.loyalty,
                         settings=PlaySettings())
    table_games = TableGames.build(ctx, wallet=TableWallet(), progressives=ControllerTableProgressives(ctx, jackpots))
    accounting = AccountingServices.build(ctx, gaming_day=gaming_day, par_sheets=games, settings=accounting_settings)
    svc = Services(
        settings=settings, ctx=ctx, uow=uow, celery=celery, publisher=publisher,
        auth=auth, staff_admin=StaffAdminService(ctx, auth),
        game_library=games, floor=floor, reported_games=MachineGameService(ctx, play=play),
        floor_admin=FloorAdminService(ctx, jackpots=floor_jackpots, tickets=floor_tickets,
                                      assignable=game_catalogue_assignable, announce_revoked=auth.announce_revoked),
        events=FloorEventsService(ctx, settings=events_settings, jackpots=floor_jackpots, tickets=floor_tickets,
                                  publish=publisher.publish),
        games=GameCatalogueService(ctx), floor_view=FloorViewService(ctx, floor=floor, gaming_day=gaming_day),
        jackpots=jackpots,
        tito=tito,
        players=PlayerService(ctx, cash_desk=CageCashDesk()), sessions=SessionService(ctx, gaming_day),
        aft=AftService(ctx, gaming_day, timeout_s=settings.aft_pending_timeout_s),
        tables=table_games, poker=table_games.poker, mahjong=table_games.mahjong,
        accounting=accounting, sas_links=LinkStateService(ctx),
        audit=AuditService(ctx), audit_log=AuditLogReader(ctx), screens=ScreensService(ctx),
    )
    celery.services = svc  # the tasks reach their services through their Celery app (``self.app.services``)
    return svc
