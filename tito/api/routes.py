"""TITO API: tickets (look-up, images, printable ticket), machine two-phase ticket-in, cage
drawer sessions and redemption, kiosks, supervisor actions, reports. Thin: each route
validates its body (pydantic), names the caller and the request (``once_key``: the path and
payload each service documents), calls one service and answers its result."""

from __future__ import annotations

from typing import Annotated, Literal

from apiflask import APIBlueprint
from flask import Response
from pydantic import ConfigDict, Field

from slotsys.kernel.api.common import AUTH_DOC, QueryModel, StrictModel, Won, once_key, principal, reply_once, services
from slotsys.kernel.api.exports import ExportQuery, report
from tito.domain.rendering import itf_barcode_png, qr_png
from tito.domain.validation import compact
from tito.services.admin import promo_reason, promo_station, stated
from tito.services.container import TitoServices
from tito.services.machine_in import reject_reason
from tito.services.tickets import parse_number
from slotsys.kernel.api.contract import CSV, PDF, PNG, Shape, answers
from tito.services.results import (
    CageRedemption, CreditLimitView, DrawerSessionView, HandpayReceipt, KioskFill, KioskRedemption, KioskStatus,
    PromoApproval, PromoIssue, PromoRefusal, PromoRequests, TicketInAuthorisation, TicketInCredit, TicketInRejected, TicketLookup,
    TicketView, ValidationView, VoidResult,
)


bp = APIBlueprint("tickets", __name__, url_prefix="/api/v1", tag="Tickets")

WonOrZero = Annotated[int, Field(strict=True, ge=0, le=10**12, description="integer won")]
Code = Annotated[str, Field(min_length=1, max_length=20)]
Reason = Annotated[str, Field(min_length=1, max_length=200)]
Txn = Annotated[str, Field(min_length=1, max_length=32)]
Int24 = Annotated[int, Field(strict=True, ge=0, le=0xFFFFFF)]


def tito() -> TitoServices:
    return services().tito


class RedeemIn(StrictModel):
    validation_number: str
    amount: Won | None = None


class NumberIn(StrictModel):
    validation_number: str


class HoldIn(StrictModel):
    validation_number: str
    transaction_id: Txn


class RejectIn(HoldIn):
    reason: Annotated[str, Field(max_length=100)] | None = None


class SessionIn(StrictModel):
    drawer: Code
    opening_float: WonOrZero


class CloseIn(StrictModel):
    counted_cash: WonOrZero


class FillIn(StrictModel):
    amount: Won


class ReasonIn(StrictModel):
    reason: Reason


class PromoIn(StrictModel):
    amount: Won
    station: Code | None = None
    credit_type: Literal["restricted", "nonrestricted"] = "restricted"
    reason: Reason | None = None


class CreditLimitIn(StrictModel):
    credit_limit: WonOrZero | None


class RotateIn(StrictModel):
    reason: Reason | None = None


class ValidationIn(StrictModel):
    scheme: Literal["system", "sas"]
    sas_validation_id: Int24 | None = None
    sas_sequence: Int24 | None = None


IsoDate = Annotated[str, Field(max_length=10, pattern=r"^([0-9]{4}-[0-9]{2}-[0-9]{2})?$",
                               description="YYYY-MM-DD (empty: today)")]


class RangeQuery(ExportQuery):
    """``?from=YYYY-MM-DD&to=YYYY-MM-DD`` (gaming days, 06:00 to 06:00 local by default, inclusive; default the current one): 422 naming ``from`` / ``to``."""

    model_config = ConfigDict(populate_by_name=True)
    from_: IsoDate | None = Field(None, alias="from")
    to: IsoDate | None = None


class TicketImageQuery(QueryModel):
    dpi: Literal["203", "300"] = "300"


def _range(query: RangeQuery) -> tuple[str | None, str | None]:
    return query.from_, query.to


def _json(result) -> dict:
    return result.model_dump(mode="json")


# ------------------------------------------------------------------ tickets
class TicketReport(Shape):
    report: str
    generated_at: str
    timezone: str


@bp.get("/tickets/<number>")
@bp.doc(summary="Look a ticket up: status as of now and its event trail (cashier, auditor, operator, supervisor)",
        **AUTH_DOC)
@answers(TicketLookup)
def lookup(number: str):
    return _json(tito().cage.lookup(principal(), number))


@bp.get("/tickets/<number>/barcode.png")
@bp.doc(summary="Interleaved 2 of 5 barcode of a validation number (PNG)", **AUTH_DOC)
@answers(media=PNG)
def barcode(number: str):
    principal()
    return Response(itf_barcode_png(parse_number(number)), mimetype="image/png")


@bp.get("/tickets/<number>/qr.png")
@bp.doc(summary="QR code of a validation number (PNG)", **AUTH_DOC)
@answers(media=PNG)
def qr(number: str):
    principal()
    return Response(qr_png(parse_number(number)), mimetype="image/png")


@bp.get("/tickets/<number>/ticket.png")
@bp.input(TicketImageQuery, location="query", arg_name="query")
@bp.doc(summary="The printable ticket, 156 × 65 mm, as a PNG (?dpi=203|300; the issuing machine or staff)",
        **AUTH_DOC)
@answers(media=PNG)
def ticket_png(number: str, query: TicketImageQuery):
    return Response(tito().printing.png(principal(), number, dpi=int(query.dpi)), mimetype="image/png")


@bp.get("/tickets/<number>/ticket.pdf")
@bp.doc(summary="The printable ticket, 156 × 65 mm, as a PDF (the issuing machine or staff)", **AUTH_DOC)
@answers(media=PDF)
def ticket_pdf(number: str):
    return Response(tito().printing.pdf(principal(), number), mimetype="application/pdf",
                    headers={"Content-Disposition": f'inline; filename="ticket-{number}.pdf"'})


@bp.post("/tickets/<number>/void")
@bp.input(ReasonIn, arg_name="body")
@bp.doc(summary="Void an unredeemed ticket with a reason (supervisor); needs Idempotency-Key", **AUTH_DOC)
@answers(VoidResult, once=True)
def void(number: str, body: ReasonIn):
    key = once_key("tickets/void", [compact(number), stated(body.reason)])
    return reply_once(tito().admin.void(principal(), number, body.reason, key))


@bp.post("/tickets/<number>/expiry-override")
@bp.input(ReasonIn, arg_name="body")
@bp.doc(summary="Approve paying one expired ticket at the cage (supervisor; logged)", **AUTH_DOC)
@answers(TicketView)
def expiry_override(number: str, body: ReasonIn):
    return _json(tito().admin.approve_expired(principal(), number, body.reason))


@bp.post("/tickets/promotional")
@bp.input(PromoIn, arg_name="body")
@bp.doc(summary="Print a promotional ticket at a station (supervisor; 202 pending when dual control applies); needs Idempotency-Key", **AUTH_DOC)
@answers(PromoIssue, status=(201, 202), once=True)
def promotional(body: PromoIn):
    key = once_key("tickets/promotional",
                   [body.amount, promo_station(body.station), body.credit_type, promo_reason(body.reason)],
                   status=_promo_status)
    once = tito().admin.issue_promotional(principal(), body.amount, body.station, key, body.credit_type, body.reason)
    return reply_once(once, status=_promo_status)


def _promo_status(issue: PromoIssue) -> int:
    """201 printed, 202 pending a second supervisor (dual control)."""
    return 202 if issue.pending else 201


class PromoRequestsQuery(QueryModel):
    status: Literal["pending", "approved", "refused", "all"] = "pending"


@bp.get("/tickets/promotional/requests")
@bp.input(PromoRequestsQuery, location="query", arg_name="query")
@bp.doc(summary="Promotional ticket requests awaiting dual control (?status=pending|approved|refused|all; "
                "supervisor, operator, auditor)", **AUTH_DOC)
@answers(PromoRequests)
def promotional_requests(query: PromoRequestsQuery):
    return _json(tito().admin.promo_requests(principal(), None if query.status == "all" else query.status))


@bp.post("/tickets/promotional/requests/<int:request_id>/approve")
@bp.doc(summary="Dual control: a second supervisor approves a promotional ticket request (prints it); "
                "needs Idempotency-Key", **AUTH_DOC)
@answers(PromoApproval, status=201, once=True)
def promotional_approve(request_id: int):
    key = once_key(f"tickets/promotional/{request_id}/approve", None, status=201)
    return reply_once(tito().admin.approve_promotional(principal(), request_id, key), status=201)


@bp.post("/tickets/promotional/requests/<int:request_id>/refuse")
@bp.input(ReasonIn, arg_name="body")
@bp.doc(summary="Refuse (or withdraw) a promotional ticket request (supervisor)", **AUTH_DOC)
@answers(PromoRefusal)
def promotional_refuse(request_id: int, body: ReasonIn):
    return _json(tito().admin.refuse_promotional(principal(), request_id, body.reason))


# --------------------------------------------------------- machine ticket-in
@bp.post("/machines/<asset>/ticket-in/authorize")
@bp.input(NumberIn, arg_name="body")
@bp.doc(summary="Ticket-in phase 1: hold a ticket for this machine (15 s); needs Idempotency-Key", **AUTH_DOC)
@answers(TicketInAuthorisation, once=True, throttled=True)
def ticket_in_authorize(asset: str, body: NumberIn):
    key = once_key(f"ticket-in/authorize/{asset}", compact(body.validation_number))
    return reply_once(tito().machine.authorize(principal(), asset, body.validation_number, key))


@bp.post("/machines/<asset>/ticket-in/commit")
@bp.input(HoldIn, arg_name="body")
@bp.doc(summary="Ticket-in phase 2: the ticket is stacked, credit it; needs Idempotency-Key", **AUTH_DOC)
@answers(TicketInCredit, once=True)
def ticket_in_commit(asset: str, body: HoldIn):
    key = once_key(f"ticket-in/commit/{asset}", [compact(body.validation_number), body.transaction_id])
    return reply_once(tito().machine.commit(principal(), asset, body.validation_number, body.transaction_id, key))


@bp.post("/machines/<asset>/ticket-in/reject")
@bp.input(RejectIn, arg_name="body")
@bp.doc(summary="Ticket-in phase 2: the ticket was returned, release it; needs Idempotency-Key", **AUTH_DOC)
@answers(TicketInRejected, once=True)
def ticket_in_reject(asset: str, body: RejectIn):
    key = once_key(f"ticket-in/reject/{asset}",
                   [compact(body.validation_number), body.transaction_id, reject_reason(body.reason)])
    return reply_once(tito().machine.reject(principal(), asset, body.validation_number, body.transaction_id,
                                            body.reason, key))


@bp.post("/machines/<asset>/handpay")
@bp.doc(summary="Pay a machine's cashable credits by hand with a handpay receipt (attendant); needs Idempotency-Key",
        **AUTH_DOC)
@answers(HandpayReceipt, status=201, once=True)
def handpay(asset: str):
    key = once_key(f"handpay/{asset}", None, status=201)
    return reply_once(tito().admin.handpay(principal(), asset, key), status=201)


@bp.get("/machines/<asset>/validation")
@bp.doc(summary="A machine's validation scheme (the machine, operator, auditor)", **AUTH_DOC)
@answers(ValidationView)
def get_validation(asset: str):
    return _json(tito().admin.validation(principal(), asset))


@bp.put("/machines/<asset>/validation")
@bp.input(ValidationIn, arg_name="body")
@bp.doc(summary="Set a machine's validation scheme: system or SAS secure enhanced (operator)", **AUTH_DOC)
@answers(ValidationView)
def set_validation(asset: str, body: ValidationIn):
    return _json(tito().admin.set_validation(principal(), asset, body.scheme, body.sas_validation_id,
                                             body.sas_sequence))


@bp.post("/machines/<asset>/validation/rotate")
@bp.input(RotateIn, arg_name="body")
@bp.doc(summary="Draw a new SAS validation ID and sequence start from the CSPRNG (supervisor, admin)", **AUTH_DOC)
@answers(ValidationView)
def rotate_validation_id(asset: str, body: RotateIn):
    return _json(tito().admin.rotate_validation_id(principal(), asset, body.reason))


# --------------------------------------------------------------------- cage
@bp.post("/cage/redeem")
@bp.input(RedeemIn, arg_name="body")
@bp.doc(summary="Pay a ticket in cash from the cashier's open drawer, exactly once (cashier); needs Idempotency-Key",
        **AUTH_DOC)
@answers(CageRedemption, once=True, throttled=True)
def redeem(body: RedeemIn):
    key = once_key("cage/redeem", [compact(body.validation_number), body.amount])
    return reply_once(tito().cage.redeem(principal(), body.validation_number, body.amount, key))


@bp.post("/cage/sessions")
@bp.input(SessionIn, arg_name="body")
@bp.doc(summary="Open a drawer session with a float from the cage bank (cashier); needs Idempotency-Key", **AUTH_DOC)
@answers(DrawerSessionView, status=201, once=True)
def open_session(body: SessionIn):
    key = once_key("cage/sessions", [body.drawer, body.opening_float], status=201)
    return reply_once(tito().cage.open_session(principal(), body.drawer, body.opening_float, key), status=201)


@bp.get("/cage/sessions/current")
@bp.doc(summary="The cashier's open drawer session; expected cash = the drawer's ledger balance (cashier)",
        **AUTH_DOC)
@answers(DrawerSessionView)
def current_session():
    return _json(tito().cage.current_session(principal()))


@bp.post("/cage/sessions/current/close")
@bp.input(CloseIn, arg_name="body")
@bp.doc(summary="Count out and close the drawer; variance posted (cashier); needs Idempotency-Key", **AUTH_DOC)
@answers(DrawerSessionView, once=True)
def close_session(body: CloseIn):
    key = once_key("cage/sessions/close", body.counted_cash)
    return reply_once(tito().cage.close_session(principal(), body.counted_cash, key))


# ------------------------------------------------------------------- kiosks
@bp.post("/kiosk/redeem")
@bp.input(NumberIn, arg_name="body")
@bp.doc(summary="Pay a ticket from this kiosk's cassette, exactly once (kiosk); needs Idempotency-Key", **AUTH_DOC)
@answers(KioskRedemption, once=True, throttled=True)
def kiosk_redeem(body: NumberIn):
    key = once_key("kiosk/redeem", compact(body.validation_number))
    return reply_once(tito().kiosk.redeem(principal(), body.validation_number, key))


@bp.get("/kiosks/<code>")
@bp.doc(summary="A kiosk's cassette balance (the kiosk, cashier, supervisor, auditor)", **AUTH_DOC)
@answers(KioskStatus)
def kiosk_status(code: str):
    return _json(tito().kiosk.status(principal(), code))


@bp.post("/kiosks/<code>/fill")
@bp.input(FillIn, arg_name="body")
@bp.doc(summary="Fill a kiosk's cassette from the cage bank (cashier, supervisor); needs Idempotency-Key", **AUTH_DOC)
@answers(KioskFill, once=True)
def kiosk_fill(code: str, body: FillIn):
    return reply_once(tito().kiosk.fill(principal(), code, body.amount, once_key(f"kiosks/{code}/fill", body.amount)))


# ------------------------------------------------------------------ reports
_REPORT_DOC = ("Dates are gaming days (SLOTSYS_GAMING_DAY_START_HOUR in SLOTSYS_GAMING_DAY_TZ), ?from=YYYY-MM-DD&to=YYYY-MM-DD inclusive (default the current one); ?format=csv&table=NAME "
               "downloads one table as CSV (formula cells neutralised)")


@bp.get("/tito/reports/issued")
@bp.input(RangeQuery, location="query", arg_name="query")
@bp.doc(summary="Tickets issued by date, machine and type (auditor)", description=_REPORT_DOC, **AUTH_DOC)
@answers(TicketReport, media=CSV)
def report_issued(query: RangeQuery):
    return report(tito().reports.issued(principal(), *_range(query)), query, "issued")


@bp.get("/tito/reports/redeemed")
@bp.input(RangeQuery, location="query", arg_name="query")
@bp.doc(summary="Tickets redeemed by date and channel (auditor)", description=_REPORT_DOC, **AUTH_DOC)
@answers(TicketReport, media=CSV)
def report_redeemed(query: RangeQuery):
    return report(tito().reports.redeemed(principal(), *_range(query)), query, "redeemed")


@bp.get("/tito/reports/outstanding")
@bp.input(ExportQuery, location="query", arg_name="query")
@bp.doc(summary="Outstanding ticket liability by issue date and sequence, against the ledger (auditor)", **AUTH_DOC)
@answers(TicketReport, media=CSV)
def report_outstanding(query: ExportQuery):
    return report(tito().reports.outstanding(principal()), query, "outstanding")


@bp.get("/tito/reports/expired")
@bp.input(RangeQuery, location="query", arg_name="query")
@bp.doc(summary="Expired tickets, unpaid and honoured (auditor)", description=_REPORT_DOC, **AUTH_DOC)
@answers(TicketReport, media=CSV)
def report_expired(query: RangeQuery):
    return report(tito().reports.expired(principal(), *_range(query)), query, "expired")


@bp.get("/tito/reports/voided")
@bp.input(RangeQuery, location="query", arg_name="query")
@bp.doc(summary="Voided tickets with who, when, why (auditor)", description=_REPORT_DOC, **AUTH_DOC)
@answers(TicketReport, media=CSV)
def report_voided(query: RangeQuery):
    return report(tito().reports.voided(principal(), *_range(query)), query, "voided")


@bp.get("/tito/reports/reconciliation")
@bp.input(ExportQuery, location="query", arg_name="query")
@bp.doc(summary="Each machine's tickets-out / tickets-in meters against the tickets on file (auditor)", **AUTH_DOC)
@answers(TicketReport, media=CSV)
def report_reconciliation(query: ExportQuery):
    return report(tito().reports.reconciliation(principal()), query, "reconciliation")


@bp.get("/tito/reports/security")
@bp.input(RangeQuery, location="query", arg_name="query")
@bp.doc(summary="Unknown / mistyped presentations, refusals, lock-outs, voids (auditor, supervisor)",
        description=_REPORT_DOC, **AUTH_DOC)
@answers(TicketReport, media=CSV)
def report_security(query: RangeQuery):
    return report(tito().reports.security(principal(), *_range(query)), query, "security")


@bp.put("/machines/<asset>/credit-limit")
@bp.input(CreditLimitIn, arg_name="body")
@bp.doc(summary="Set a machine's credit limit in won (null: the floor default; operator); ticket-in above it is "
                "refused", **AUTH_DOC)
@answers(CreditLimitView)
def set_credit_limit(asset: str, body: CreditLimitIn):
    return _json(tito().admin.set_credit_limit(principal(), asset, body.credit_limit))
