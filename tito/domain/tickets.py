"""TITO ticket rules, pure: types, states, which channel may pay which ticket, and why not.

Types (SAS §15 ticket types; G2S voucher class ``creditType``): one credit type per ticket.

=================  ===========================  ==========================================
type               printed title                paid at
=================  ===========================  ==========================================
``cashable``       CASHOUT TICKET               machine (credit meter), cage, kiosk
``promotional``    PROMOTIONAL TICKET           machine only (restricted promo meter); never for cash
``nonrestricted_promo`` PROMOTIONAL TICKET      machine only (non-restricted promo meter: the
                   (NON-RESTRICTED)             credits are cashable once on the machine)
``handpay_receipt`` HANDPAY RECEIPT             cage or kiosk (cash); not a machine voucher
=================  ===========================  ==========================================

States (G2S voucher status, GLI-13 §2.6)::

    issued ──authorise (machine)──▶ pending ──commit──▶ redeemed
      ▲                               │
      └──── reject / hold expired ◀───┘
    issued ──redeem (cage, kiosk, single-call machine)──▶ redeemed
    issued|expired ──void (supervisor, reason)──▶ voided
    issued ──expiry date passes──▶ expired ──cage with supervisor approval──▶ redeemed

A ``pending`` ticket whose hold (15 s, G2S default) has passed counts as ``issued``
everywhere (:func:`effective_status`), so a lost commit never strands a ticket even
before the sweeper releases it; an ``issued`` ticket past its expiry counts as
``expired`` even before the expiry task marks it. Unredeemed tickets (issued, pending,
expired) are outstanding liability; breakage is never automatic (see
:mod:`tito.services.admin`).

Standard library only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Final

__all__ = [
    "ACCEPTED_AT",
    "CASHABLE",
    "CHANNELS",
    "DEFAULT_HOLD",
    "EXPIRED",
    "HANDPAY_RECEIPT",
    "ISSUED",
    "NONRESTRICTED_PROMO",
    "PROMO_TYPES",
    "OUTSTANDING_STATES",
    "PENDING",
    "PROMOTIONAL",
    "REDEEMED",
    "STATES",
    "TITLES",
    "TYPES",
    "VOIDED",
    "NewTicket",
    "Refusal",
    "Ticket",
    "TicketEventRecord",
    "TicketSnapshot",
    "check_presentation",
    "effective_status",
]

CASHABLE: Final = "cashable"
PROMOTIONAL: Final = "promotional"
HANDPAY_RECEIPT: Final = "handpay_receipt"
NONRESTRICTED_PROMO: Final = "nonrestricted_promo"
"""SAS ticket type 0x02 (non-restricted promotional); ``promotional`` is 0x01 (restricted)."""
TYPES: Final = (CASHABLE, PROMOTIONAL, HANDPAY_RECEIPT, NONRESTRICTED_PROMO)
PROMO_TYPES: Final = (PROMOTIONAL, NONRESTRICTED_PROMO)

TITLES: Final = {CASHABLE: "CASHOUT TICKET", PROMOTIONAL: "PROMOTIONAL TICKET", HANDPAY_RECEIPT: "HANDPAY RECEIPT",
                 NONRESTRICTED_PROMO: "PROMOTIONAL TICKET"}
"""The ticket-type line printed on the face."""

ISSUED: Final = "issued"
PENDING: Final = "pending"
REDEEMED: Final = "redeemed"
VOIDED: Final = "voided"
EXPIRED: Final = "expired"
STATES: Final = (ISSUED, PENDING, REDEEMED, VOIDED, EXPIRED)
OUTSTANDING_STATES: Final = (ISSUED, PENDING, EXPIRED)
"""States that are still a liability: the audit sums these against ``tito:outstanding``."""

MACHINE: Final = "machine"
CAGE: Final = "cage"
KIOSK: Final = "kiosk"
CHANNELS: Final = (MACHINE, CAGE, KIOSK)

ACCEPTED_AT: Final = {
    MACHINE: frozenset({CASHABLE, PROMOTIONAL, NONRESTRICTED_PROMO}),
    CAGE: frozenset({CASHABLE, HANDPAY_RECEIPT}),
    KIOSK: frozenset({CASHABLE, HANDPAY_RECEIPT}),
}
"""Ticket types each channel may redeem."""

DEFAULT_HOLD: Final = timedelta(seconds=15)
"""How long a machine's authorisation holds a ticket pending before it is released (G2S)."""


@dataclass(frozen=True)
class TicketSnapshot:
    """What the rules need to know about one ticket (times are aware UTC datetimes)."""

    status: str
    type: str
    amount: int
    expires_at: datetime
    pending_location: str | None = None
    pending_until: datetime | None = None
    pending_since: datetime | None = None
    redeemed_at: datetime | None = None
    redeemed_channel: str | None = None
    redeemed_location: str | None = None
    voided_at: datetime | None = None
    voided_by: str | None = None
    void_reason: str | None = None
    expiry_override_by: str | None = None


@dataclass(frozen=True)
class Refusal:
    """Why a presentation is refused. ``reason`` is one of:

    ``already_redeemed``, ``voided``, ``pending_elsewhere``, ``not_accepted_here``
    (``promotional_at_cage`` for a promotional ticket at the cage), ``expired``,
    ``amount_mismatch``, ``zero_amount``. ``extra`` holds the facts to show (where and
    when it was paid, where it is pending, the amount on file ...).
    """

    reason: str
    detail: str
    extra: dict = field(default_factory=dict)


def effective_status(t: TicketSnapshot, now: datetime) -> str:
    """The status as of ``now``: an expired hold counts as issued, a passed expiry as expired."""
    status = t.status
    if status == PENDING and (t.pending_until is None or t.pending_until <= now):
        status = ISSUED
    if status == ISSUED and t.expires_at <= now:
        return EXPIRED
    return status


def _iso(ts: datetime | None) -> str | None:
    return ts.isoformat() if ts else None


def check_presentation(
    t: TicketSnapshot,
    *,
    channel: str,
    location: str,
    now: datetime,
    expected_amount: int | None = None,
) -> Refusal | None:
    """``None`` if ``channel`` at ``location`` may redeem (or, for a machine, authorise)
    the ticket now; otherwise the :class:`Refusal`, checked in this order:

    1. redeemed → ``already_redeemed`` (with where and when);
    2. voided → ``voided`` (when, by whom, why);
    3. pending under a live hold at another location → ``pending_elsewhere`` (a machine
       asking again for a ticket it holds itself is allowed: its new authorisation
       replaces the old one);
    4. type not paid by this channel → ``promotional_at_cage`` / ``not_accepted_here``;
    5. expired → ``expired``, except at the cage with a supervisor's approval recorded
       on the ticket (house rule: the cage may honour an expired ticket);
    6. ``expected_amount`` given and different → ``amount_mismatch`` (``amount_on_file``);
    7. amount 0 → ``zero_amount``.
    """
    if channel not in CHANNELS:
        raise ValueError(f"unknown channel {channel!r}")
    status = effective_status(t, now)
    if status == REDEEMED:
        where = f"{t.redeemed_channel} {t.redeemed_location}"
        return Refusal(
            "already_redeemed",
            f"ticket already redeemed at {where} on {_iso(t.redeemed_at)}",
            {"redeemed_at": _iso(t.redeemed_at), "redeemed_channel": t.redeemed_channel,
             "redeemed_location": t.redeemed_location},
        )
    if status == VOIDED:
        return Refusal(
            "voided",
            f"ticket was voided on {_iso(t.voided_at)} by {t.voided_by}: {t.void_reason}",
            {"voided_at": _iso(t.voided_at), "voided_by": t.voided_by, "void_reason": t.void_reason},
        )
    if status == PENDING and not (channel == MACHINE and t.pending_location == location):
        return Refusal(
            "pending_elsewhere",
            f"ticket is in process at {t.pending_location} since {_iso(t.pending_since)}",
            {"pending_location": t.pending_location, "pending_since": _iso(t.pending_since),
             "pending_until": _iso(t.pending_until)},
        )
    if t.type not in ACCEPTED_AT[channel]:
        if t.type in (PROMOTIONAL, NONRESTRICTED_PROMO) and channel == CAGE:
            return Refusal("promotional_at_cage",
                           "a promotional ticket is not cashable: play it on a machine", {"ticket_type": t.type})
        places = {MACHINE: "a machine", CAGE: "the cage", KIOSK: "a kiosk"}
        return Refusal("not_accepted_here", f"a {t.type.replace('_', ' ')} is not accepted at {places[channel]}",
                       {"ticket_type": t.type})
    if status == EXPIRED and not (channel == CAGE and t.expiry_override_by):
        hint = " (the cage may honour it with a supervisor's approval)" if channel == CAGE else ""
        return Refusal("expired", f"ticket expired on {_iso(t.expires_at)}{hint}", {"expires_at": _iso(t.expires_at)})
    if expected_amount is not None and expected_amount != t.amount:
        return Refusal("amount_mismatch", f"amount differs from the one on file (₩{t.amount:,})",
                       {"amount_on_file": t.amount})
    if t.amount <= 0:
        return Refusal("zero_amount", "ticket amount is zero")
    return None


@dataclass(frozen=True, kw_only=True)
class Ticket:
    """One ticket on file, as the services see it (the repository's row, read-only). Amounts in won;
    times aware UTC. ``issued_machine_id`` is the issuing machine's id (``None`` for a station);
    ``sas_sequence`` / ``sas_generation`` are set for SAS secure enhanced numbers only; the
    ``pending_*`` fields hold a machine's authorisation (ticket-in phase 1); the ``*_entry_id``
    are the journal entries of issue, redemption and void."""

    id: int
    validation_number: str
    scheme: str
    type: str
    amount: int
    status: str
    issued_machine_id: int | None
    issued_by: str
    issued_location: str
    sequence: int
    issued_at: datetime
    expires_at: datetime
    issue_entry_id: int
    sas_sequence: int | None = None
    sas_generation: int | None = None
    pending_location: str | None = None
    pending_txn: str | None = None
    pending_since: datetime | None = None
    pending_until: datetime | None = None
    redeemed_at: datetime | None = None
    redeemed_channel: str | None = None
    redeemed_location: str | None = None
    redeemed_by: str | None = None
    redeemed_session_id: int | None = None
    redeem_entry_id: int | None = None
    voided_at: datetime | None = None
    voided_by: str | None = None
    void_reason: str | None = None
    void_entry_id: int | None = None
    expiry_override_by: str | None = None
    expiry_override_at: datetime | None = None
    expiry_override_reason: str | None = None

    def snapshot(self) -> TicketSnapshot:
        """What the presentation rules (:func:`check_presentation`, :func:`effective_status`) read."""
        return TicketSnapshot(
            status=self.status, type=self.type, amount=self.amount, expires_at=self.expires_at,
            pending_location=self.pending_location, pending_until=self.pending_until,
            pending_since=self.pending_since, redeemed_at=self.redeemed_at, redeemed_channel=self.redeemed_channel,
            redeemed_location=self.redeemed_location, voided_at=self.voided_at, voided_by=self.voided_by,
            void_reason=self.void_reason, expiry_override_by=self.expiry_override_by,
        )

    @property
    def validity_days(self) -> int:
        """The ticket's validity in whole days (at least 1), as printed: "VOID AFTER N DAYS"."""
        return max(1, round((self.expires_at - self.issued_at).total_seconds() / 86_400))


@dataclass(frozen=True, kw_only=True)
class NewTicket:
    """A ticket to put on file (:meth:`tito.services.ports.TicketRepository.add`); status ``issued``."""

    validation_number: str
    scheme: str
    type: str
    amount: int
    issued_machine_id: int | None
    issued_by: str
    issued_location: str
    sequence: int
    issued_at: datetime
    expires_at: datetime
    issue_entry_id: int
    sas_sequence: int | None = None
    sas_generation: int | None = None


@dataclass(frozen=True)
class TicketEventRecord:
    """One line of a ticket's event trail (or of a presented number not on file: ``ticket_id`` None).
    ``detail`` holds the event's own facts (amount, reason, transaction id ...)."""

    kind: str
    at: datetime
    actor: str
    channel: str | None = None
    location: str | None = None
    validation_number: str | None = None
    ticket_id: int | None = None
    detail: dict = field(default_factory=dict)
