"""Machine API: a machine key acts only as its own machine."""

from __future__ import annotations

from typing import Any

from apiflask import APIBlueprint
from pydantic import ConfigDict, Field

from slotsys.kernel.api.common import AUTH_DOC, SmallInt, StrictModel, Won, once_key, principal, reply_once, services
from slotsys.kernel.errors import HandpayRequired
from slotsys.floor.services.play import BillInResult, CashOutResult, SpinResult
from slotsys.kernel.api.contract import Shape, answers


bp = APIBlueprint("machines", __name__, url_prefix="/api/v1/machines", tag="Machines")


class BillIn(StrictModel):
    model_config = ConfigDict(json_schema_extra={"examples": [{"amount": 10_000}]})

    amount: Won


class SpinIn(StrictModel):
    model_config = ConfigDict(json_schema_extra={"examples": [{"lines": 20, "multiplier": 1}]})

    lines: SmallInt | None = None
    reels: SmallInt | None = None
    multiplier: SmallInt
    choice: SmallInt | None = None  # free-games choice index (games with a choice); default: the game's


class TicketInIn(StrictModel):
    validation_number: str


class MachineMeters(Shape):
    asset: str
    status: str
    credits: int
    denomination: int
    meters: dict[str, int]
    bet_options: list[dict[str, Any]]


class GameRecall(Shape):
    machine: str
    games: list[dict[str, Any]] = Field(description="the last 10 games, newest first (GLI-11)")


@bp.post("/<asset>/bill-in")
@bp.input(BillIn, arg_name="body")
@bp.doc(summary="Insert a bill (₩1,000 / ₩5,000 / ₩10,000 / ₩50,000); needs Idempotency-Key", **AUTH_DOC)
@answers(BillInResult, once=True)
def bill_in(asset: str, body: BillIn):
    return reply_once(services().floor.bill_in(principal(), asset, body.amount, once_key(f"bill-in/{asset}", body.amount)))


@bp.post("/<asset>/spin")
@bp.input(SpinIn, arg_name="body")
@bp.doc(summary="Play one game; needs Idempotency-Key", **AUTH_DOC)
@answers(SpinResult, once=True)
def spin(asset: str, body: SpinIn):
    bet = body.model_dump()
    return reply_once(services().floor.spin(principal(), asset, bet, once_key(f"spin/{asset}", bet)))


@bp.post("/<asset>/cash-out")
@bp.doc(summary="Cash out all credits to a TITO ticket; needs Idempotency-Key", **AUTH_DOC)
@answers(CashOutResult, status=201, once=True)
def cash_out(asset: str):
    try:
        key = once_key(f"cash-out/{asset}", status=201)
        return reply_once(services().floor.cash_out(principal(), asset, key), status=201)
    except HandpayRequired as e:  # the cancelled credits join the attendants' handpay queue
        services().events.handpay_required(asset, e.extra["amount"])
        raise


@bp.post("/<asset>/ticket-in")
@bp.input(TicketInIn, arg_name="body")
@bp.doc(summary="Insert a ticket printed by any machine; needs Idempotency-Key", **AUTH_DOC)
@answers('TicketInCredit', once=True, throttled=True)
def ticket_in(asset: str, body: TicketInIn):
    return reply_once(services().floor.ticket_in(principal(), asset, body.validation_number,
                                                 once_key(f"ticket-in/{asset}", body.validation_number)))


@bp.get("/<asset>/meters")
@bp.doc(summary="Credits and meters of a machine", **AUTH_DOC)
@answers(MachineMeters)
def meters(asset: str):
    p = principal()
    if p.kind == "staff":
        from slotsys.kernel.checks import require_role

        require_role(p, "operator", "attendant", "auditor")
    return services().floor.meters(p, asset)


@bp.get("/<asset>/games")
@bp.doc(summary="Recall of the last 10 games (GLI-11)", **AUTH_DOC)
@answers(GameRecall)
def recall(asset: str):
    p = principal()
    if p.kind == "staff":
        from slotsys.kernel.checks import require_role

        require_role(p, "operator", "attendant", "auditor")
    return services().floor.recall(p, asset)
