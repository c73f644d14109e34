"""Machine API: a machine key acts only as its own machine."""

from __future__ import annotations

from apiflask import APIBlueprint

from slotsys.kernel.api.common import AUTH_DOC, SmallInt, StrictModel, Won, idem_key, principal, reply, services

bp = APIBlueprint("machines", __name__, url_prefix="/api/v1/machines", tag="Machines")


class BillIn(StrictModel):
    amount: Won


class SpinIn(StrictModel):
    lines: SmallInt | None = None
    reels: SmallInt | None = None
    multiplier: SmallInt
    choice: SmallInt | None = None  # free-games choice index (games with a choice); default: the game's


class TicketInIn(StrictModel):
    validation_number: str


@bp.post("/<asset>/bill-in")
@bp.input(BillIn, arg_name="body")
@bp.doc(summary="Insert a bill (₩1,000 / ₩5,000 / ₩10,000 / ₩50,000); needs Idempotency-Key", **AUTH_DOC)
def bill_in(asset: str, body: BillIn):
    return reply(*services().floor.bill_in(principal(), asset, body.amount, idem_key()))


@bp.post("/<asset>/spin")
@bp.input(SpinIn, arg_name="body")
@bp.doc(summary="Play one game; needs Idempotency-Key", **AUTH_DOC)
def spin(asset: str, body: SpinIn):
    return reply(*services().floor.spin(principal(), asset, body.model_dump(), idem_key()))


@bp.post("/<asset>/cash-out")
@bp.doc(summary="Cash out all credits to a TITO ticket; needs Idempotency-Key", **AUTH_DOC)
def cash_out(asset: str):
    from tito.services.tickets import HandpayRequired

    try:
        return reply(*services().floor.cash_out(principal(), asset, idem_key()))
    except HandpayRequired as e:  # the cancelled credits join the attendants' handpay queue
        services().events.handpay_required(asset, e.extra["amount"])
        raise


@bp.post("/<asset>/ticket-in")
@bp.input(TicketInIn, arg_name="body")
@bp.doc(summary="Insert a ticket printed by any machine; needs Idempotency-Key", **AUTH_DOC)
def ticket_in(asset: str, body: TicketInIn):
    return reply(*services().floor.ticket_in(principal(), asset, body.validation_number, idem_key()))


@bp.get("/<asset>/meters")
@bp.doc(summary="Credits and meters of a machine", **AUTH_DOC)
def meters(asset: str):
    p = principal()
    if p.kind == "staff":
        from slotsys.kernel.checks import require_role

        require_role(p, "operator", "attendant", "auditor")
    return services().floor.meters(p, asset)


@bp.get("/<asset>/games")
@bp.doc(summary="Recall of the last 10 games (GLI-11)", **AUTH_DOC)
def recall(asset: str):
    p = principal()
    if p.kind == "staff":
        from slotsys.kernel.checks import require_role

        require_role(p, "operator", "attendant", "auditor")
    return services().floor.recall(p, asset)
