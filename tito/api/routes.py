"""Ticket API: cashier lookup and redemption; barcode images."""

from __future__ import annotations

from apiflask import APIBlueprint
from flask import Response

from slotsys.api.common import AUTH_DOC, StrictModel, Won, idem_key, principal, reply, services
from tito.domain.rendering import itf_barcode_png, qr_png
from tito.services.tickets import parse_number

bp = APIBlueprint("tickets", __name__, url_prefix="/api/v1", tag="Tickets")


class RedeemIn(StrictModel):
    validation_number: str
    amount: Won | None = None


@bp.get("/tickets/<number>")
@bp.doc(summary="Look a ticket up by validation number (cashier, auditor, operator)", **AUTH_DOC)
def lookup(number: str):
    return services().cage.lookup(principal(), number)


@bp.post("/cage/redeem")
@bp.input(RedeemIn, arg_name="body")
@bp.doc(summary="Pay a ticket in cash at the cage, exactly once (cashier); needs Idempotency-Key", **AUTH_DOC)
def redeem(body: RedeemIn):
    return reply(*services().cage.redeem(principal(), body.validation_number, body.amount, idem_key()))


@bp.get("/tickets/<number>/barcode.png")
@bp.doc(summary="Interleaved 2 of 5 barcode of a validation number (PNG)", **AUTH_DOC)
def barcode(number: str):
    principal()
    return Response(itf_barcode_png(parse_number(number)), mimetype="image/png")


@bp.get("/tickets/<number>/qr.png")
@bp.doc(summary="QR code of a validation number (PNG)", **AUTH_DOC)
def qr(number: str):
    principal()
    return Response(qr_png(parse_number(number)), mimetype="image/png")
