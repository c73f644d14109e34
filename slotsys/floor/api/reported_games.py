"""Machine-reported games (the machine decides the outcome) and meter reconciliation: thin routes over
``slotsys.floor.services.reported_games``; docs/machine-reported-games.md."""

from __future__ import annotations

from typing import Annotated

from apiflask import APIBlueprint
from pydantic import Field

from slotsys.kernel.api.common import (
    AUTH_DOC,
    MAX_WON,
    SmallInt,
    StrictModel,
    Won,
    once_key,
    principal,
    reply_once,
    services,
)
from slotsys.floor.domain.machine_reports import GameReport
from slotsys.floor.services.reported_games import MachineGameService
from slotsys.floor.services.reported_games import MachineReconciliation, ReportedGame, ReportedMeters
from slotsys.kernel.api.contract import answers


bp = APIBlueprint("machine_games", __name__, url_prefix="/api/v1/machines", tag="Machine-reported games")

Amount = Annotated[int, Field(strict=True, ge=0, le=MAX_WON, description="integer won, ≥ 0")]
Count = Annotated[int, Field(strict=True, ge=0, le=MAX_WON, description="a count or credits, ≥ 0")]
GameNumber = Annotated[int, Field(strict=True, ge=1, le=2**62, description="the machine's game number")]
Stop = Annotated[int, Field(strict=True, ge=0, le=10**6)]


class MetersIn(StrictModel):
    """The machine's meters (SAS: coin in, coin out, games played, jackpot, games won), won and counts."""

    coin_in: Amount
    coin_out: Amount
    games_played: Count
    jackpot: Amount | None = None
    games_won: Count | None = None


class GameReportIn(StrictModel):
    game_number: GameNumber
    denomination: Won
    bet_credits: Count | None = None
    bet_won: Amount | None = None
    win_credits: Count | None = None
    win_won: Amount | None = None
    variation: str | None = Field(default=None, max_length=20, description="the paytable (variation key)")
    lines: SmallInt | None = None
    reels: SmallInt | None = None
    multiplier: SmallInt | None = None
    choice: SmallInt | None = None
    stops: list[Stop] | None = Field(default=None, max_length=10)
    free_stops: list[Annotated[list[Stop], Field(max_length=10)]] | None = Field(default=None, max_length=1000)
    meters: MetersIn | None = None


class MetersReportIn(StrictModel):
    meters: MetersIn


def _svc() -> MachineGameService:
    return services().reported_games


@bp.post("/<asset>/games")
@bp.input(GameReportIn, arg_name="body")
@bp.doc(summary="Report a game the machine decided (machine mode); needs Idempotency-Key", **AUTH_DOC)
@answers(ReportedGame, once=True)
def report_game(asset: str, body: GameReportIn):
    report = body.model_dump()
    return reply_once(_svc().report_game(principal(), asset, GameReport(**report), once_key(f"games/{asset}", report)))


@bp.post("/<asset>/meters")
@bp.input(MetersReportIn, arg_name="body")
@bp.doc(summary="Report the machine's meters at game end (machine mode); needs Idempotency-Key", **AUTH_DOC)
@answers(ReportedMeters, once=True)
def report_meters(asset: str, body: MetersReportIn):
    meters = body.meters.model_dump()
    return reply_once(_svc().report_meters(principal(), asset, meters, once_key(f"meters/{asset}", meters)))


@bp.get("/<asset>/reconciliation")
@bp.doc(summary="The machine's reported meters against the system's, with the exceptions recorded", **AUTH_DOC)
@answers(MachineReconciliation)
def reconciliation(asset: str):
    from slotsys.kernel.checks import require_role

    require_role(principal(), "operator", "attendant", "auditor")
    return _svc().reconciliation(asset).model_dump(mode="json")
