"""The results of TITO's use cases (pydantic models), as the API answers them (``model_dump(mode="json")``).

Amounts are integer won; times are ISO 8601 strings (UTC, as ``datetime.isoformat`` writes them). Some
keys appear only in some states (a ticket's hold, its void, an expiry approval; a closed drawer's
count-out; a machine's validation secret): each model drops the groups that do not apply when it is
dumped, so a result stored for an idempotent replay reads back and renders the same.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, model_serializer


def _drop(data: dict, keys: tuple[str, ...]) -> None:
    for k in keys:
        data.pop(k, None)


class TicketView(BaseModel):
    """A ticket as the API shows it. ``effective_status`` (the status as of now: a passed hold counts as
    issued, a passed expiry as expired) only when asked; the ``pending_*`` group while a machine holds or
    held it; the ``void*`` group once voided; the ``expiry_override_*`` group once a supervisor approved
    paying it expired."""

    validation_number: str
    display_number: str
    scheme: str
    type: str
    amount: int
    status: str
    issued_by: str
    issued_location: str
    sequence: int
    issued_at: str
    expires_at: str
    redeemed_at: str | None = None
    redeemed_channel: str | None = None
    redeemed_location: str | None = None
    redeemed_by: str | None = None
    barcode_url: str
    qr_url: str
    ticket_png_url: str
    ticket_pdf_url: str
    effective_status: str | None = None
    pending_location: str | None = None
    pending_since: str | None = None
    pending_until: str | None = None
    voided_at: str | None = None
    voided_by: str | None = None
    void_reason: str | None = None
    expiry_override_by: str | None = None
    expiry_override_at: str | None = None
    expiry_override_reason: str | None = None

    @model_serializer(mode="wrap")
    def _groups(self, handler) -> dict:
        data = handler(self)
        if self.effective_status is None:
            data.pop("effective_status", None)
        if not self.pending_location:
            _drop(data, ("pending_location", "pending_since", "pending_until"))
        if not self.voided_at:
            _drop(data, ("voided_at", "voided_by", "void_reason"))
        if not self.expiry_override_by:
            _drop(data, ("expiry_override_by", "expiry_override_at", "expiry_override_reason"))
        return data


class TicketLookup(TicketView):
    """A ticket on file with its event trail: each event ``{"kind", "at", "actor", "channel", "location",
    ...its own facts}``."""

    events: list[dict[str, Any]]


class CashOut(BaseModel):
    """A machine's cash-out: ``ticket`` (the first) and every ticket printed (one per credit type), and the
    machine's credit meters after it (``credits`` cashable, ``promo_credits`` = restricted + non-restricted)."""

    machine: str
    ticket: TicketView
    tickets: list[TicketView]
    credits: int
    promo_credits: int
    restricted_credits: int
    nonrestricted_credits: int


class TicketPrinted(BaseModel):
    """A ticket a machine printed with its own number, on file: ``ticket``; ``verified`` False for a secure
    enhanced number that matches none of the machine's next 64 sequences; the machine's credit meters after it
    (won)."""

    machine: str
    ticket: TicketView
    verified: bool
    credits: int
    promo_credits: int
    restricted_credits: int
    nonrestricted_credits: int


class HandpayReceipt(BaseModel):
    """A handpay of a machine's cashable credits with its receipt ticket; ``credits``: the cashable meter after."""

    machine: str
    ticket: TicketView
    credits: int
    attendant: str


class TicketInAuthorisation(BaseModel):
    """Ticket-in phase 1: the ticket held for ``machine`` under ``transaction_id`` until ``hold_until``;
    ``credit_meter`` the meter the commit credits (cashable | promotional (restricted) | nonrestricted)."""

    machine: str
    validation_number: str
    transaction_id: str
    type: str
    amount: int
    credit_meter: str
    hold_until: str
    hold_seconds: float


class TicketInCredit(BaseModel):
    """A ticket credited onto a machine (commit, or the single call), with its meters after."""

    machine: str
    ticket: TicketView
    credits: int
    promo_credits: int
    restricted_credits: int
    nonrestricted_credits: int


class TicketInRejected(BaseModel):
    """The machine returned the ticket: it is ``issued`` again, payable anywhere."""

    machine: str
    validation_number: str
    status: str
    reason: str


class CageRedemption(BaseModel):
    """A ticket paid in cash at the cage: ``drawer`` the drawer's expected cash after paying; ``session`` the
    drawer session; ``honoured_expired`` when an expired ticket was paid on a supervisor's approval."""

    ticket: TicketView
    paid: int
    drawer: int
    session: int
    honoured_expired: bool


class DrawerSessionView(BaseModel):
    """A drawer session: float, tickets paid and ``expected_cash`` (while open: the drawer's ledger balance);
    once closed also ``closed_at``, ``counted_cash`` and ``variance``."""

    session: int
    cage: str
    drawer: str
    cashier: str
    status: str
    opened_at: str
    opening_float: int
    tickets_paid: int
    tickets_paid_amount: int
    closed_at: str | None = None
    expected_cash: int | None = None
    counted_cash: int | None = None
    variance: int | None = None

    @model_serializer(mode="wrap")
    def _closed(self, handler) -> dict:
        data = handler(self)
        if self.status == "open":
            _drop(data, ("closed_at", "counted_cash", "variance"))
        return data


class KioskRedemption(BaseModel):
    """A ticket paid from a kiosk's cassette; ``cassette`` what it holds after (won)."""

    ticket: TicketView
    paid: int
    kiosk: str
    cassette: int


class KioskFill(BaseModel):
    kiosk: str
    filled: int
    cassette: int


class KioskStatus(BaseModel):
    kiosk: str
    cassette: int


class VoidResult(BaseModel):
    """A voided ticket and where its liability went: ``tito:voids`` (live) or ``tito:breakage`` (expired)."""

    ticket: TicketView
    written_off_to: str


class PromoRequestView(BaseModel):
    id: int
    amount: int
    credit_type: str
    station: str
    reason: str
    status: str
    requested_by: str
    requested_at: str
    decided_by: str | None = None
    decided_at: str | None = None
    ticket_id: int | None = None


class PromoIssue(BaseModel):
    """A promotional ticket printed (``ticket``), or — dual control — a request stored for a second
    supervisor (``request``, the rules that asked for it in ``dual_control``, the threshold and the
    issuer's and floor's totals in the window)."""

    ticket: TicketView | None = None
    request: PromoRequestView | None = None
    dual_control: list[str] | None = None
    dual_control_above: int | None = None
    issuer_total: int | None = None
    floor_total: int | None = None

    @property
    def pending(self) -> bool:
        return self.request is not None

    @model_serializer(mode="wrap")
    def _outcome(self, handler) -> dict:
        data = handler(self)
        if self.request is None:
            _drop(data, ("request", "dual_control", "dual_control_above", "issuer_total", "floor_total"))
        else:
            data.pop("ticket", None)
        return data


class PromoApproval(BaseModel):
    ticket: TicketView
    request: PromoRequestView


class PromoRefusal(BaseModel):
    request: PromoRequestView


class PromoRequests(BaseModel):
    requests: list[PromoRequestView]


class ValidationView(BaseModel):
    """A machine's validation settings. The SAS validation ID (and its hex form) and the next sequence are
    the machine's secret: present only in the machine's own view. ``rotated_at`` after a rotation."""

    machine: str
    scheme: str
    sas_validation_id_set: bool
    sas_generation: int
    ticket_sequence: int
    sas_validation_id: int | None = None
    sas_validation_id_hex: str | None = None
    sas_next_sequence: int | None = None
    rotated_at: str | None = None
    secret: bool = False

    @model_serializer(mode="wrap")
    def _secret(self, handler) -> dict:
        data = handler(self)
        data.pop("secret", None)
        if not self.secret:
            _drop(data, ("sas_validation_id", "sas_validation_id_hex", "sas_next_sequence"))
        if self.rotated_at is None:
            data.pop("rotated_at", None)
        return data


class CreditLimitView(BaseModel):
    """A machine's credit limit (won): the one in force, its own (``None``: the floor default) and the default."""

    machine: str
    credit_limit: int
    own_limit: int | None
    floor_default: int
