"""What TITO's use cases need from outside, as Protocols: its own repositories on the unit of work
(:class:`TitoUnitOfWork`) and what it needs from other features — a slot machine
(:class:`TicketMachines`, filled by the slot floor) and the kiosk accounts (:class:`KioskDirectory`,
filled by staff). The composition root (``slotsys.app.wiring.tito``) passes the objects that fill
them. Amounts in integer won; times aware UTC.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Protocol

from slotsys.kernel.credits import Credits
from slotsys.kernel.ports import UnitOfWork
from tito.domain.cage import DrawerSession
from tito.domain.guard import GuardState
from tito.domain.machines import MachineTicketMeters, MachineView, TicketNumbering
from tito.domain.promo import PromoRequest
from tito.domain.tickets import NewTicket, Ticket, TicketEventRecord


# ------------------------------------------------------------------ TITO's repositories
class TicketRepository(Protocol):
    """The tickets on file, their event trail, the terminals' brute-force guard and the station counters.

    Every change of a ticket's state is conditional on the status the caller read (``from_status``)
    and returns False if it moved meanwhile; on PostgreSQL the caller holds the ticket's row lock
    (``for_update`` / :meth:`get_for_presentation`), so exactly one of concurrent presentations wins."""

    def exists(self, validation_number: str) -> bool: ...

    def get(self, validation_number: str, *, for_update: bool = False) -> Ticket | None:
        """The ticket, ``for_update`` locked (and read again: a change committed while waiting shows)."""
        ...

    def get_for_presentation(self, validation_number: str, terminal: str) -> tuple[Ticket | None, datetime | None]:
        """The ticket locked for update and the presenting terminal's lock-out end (``None`` if not
        locked out; not read when the ticket is not on file), in one round trip."""
        ...

    def add(self, ticket: NewTicket) -> Ticket:
        """Put a new ticket on file (status ``issued``)."""
        ...

    def hold(self, ticket_id: int, from_status: str, *, location: str, transaction_id: str, since: datetime,
             until: datetime) -> bool:
        """``from_status`` → ``pending`` at ``location`` under ``transaction_id`` until ``until``."""
        ...

    def release_hold(self, ticket_id: int) -> bool:
        """``pending`` → ``issued``, the hold cleared."""
        ...

    def mark_redeemed(self, ticket_id: int, *, from_status: str, at: datetime, channel: str, location: str, by: str,
                      entry_id: int, session_id: int | None = None) -> bool:
        """``from_status`` (issued, pending or expired) → ``redeemed``, any hold cleared."""
        ...

    def void(self, ticket_id: int, from_status: str, *, at: datetime, by: str, reason: str, entry_id: int) -> bool:
        """``from_status`` → ``voided`` with who, when, why and the void's journal entry; any hold cleared."""
        ...

    def approve_expired(self, ticket_id: int, *, by: str, at: datetime, reason: str) -> None:
        """Record a supervisor's approval to pay this expired ticket at the cage."""
        ...

    def release_expired_holds(self, now: datetime) -> list[tuple[int, str, str | None]]:
        """Pending tickets whose hold has passed → issued; (id, number, location) of each."""
        ...

    def expire_due(self, now: datetime) -> int:
        """Issued tickets (and pending ones whose hold passed) past their expiry → expired; how many."""
        ...

    def log(self, kind: str, *, actor: str, at: datetime, ticket_id: int | None = None,
            validation_number: str | None = None, channel: str | None = None, location: str | None = None,
            **detail: Any) -> None:
        """Append one event to the trail (in the caller's transaction; ``detail`` JSON-able)."""
        ...

    def events(self, ticket_id: int) -> list[TicketEventRecord]:
        """A ticket's trail, oldest first."""
        ...

    def guard_state(self, terminal: str) -> GuardState:
        """The terminal's brute-force guard counter, locked for update (created at zero if new)."""
        ...

    def save_guard_state(self, terminal: str, state: GuardState) -> None: ...

    def next_value(self, name: str) -> int:
        """Increment and return the named counter (a station's ticket sequence); serialises issuers."""
        ...

    def paid_in_session(self, session_id: int) -> tuple[int, int]:
        """(number, won) of the tickets paid in this cage drawer session."""
        ...

    def promotional_printed_since(self, since: datetime) -> list[tuple[str, int]]:
        """(issuer, won) of every promotional ticket a station printed since ``since`` (voided ones too);
        the issuer is the principal id of the ``issued`` event."""
        ...


class DrawerRepository(Protocol):
    """Cashiers' drawer sessions: at most one open session per cashier and per drawer."""

    def open_for_cashier(self, cashier: str, *, for_update: bool = False) -> DrawerSession | None: ...

    def open_for_drawer(self, key: str) -> DrawerSession | None:
        """The open session of drawer ``<cage>/<drawer>``, if any."""
        ...

    def open(self, *, cage: str, drawer: str, cashier: str, opening_float: int, at: datetime) -> DrawerSession: ...

    def close(self, session_id: int, *, at: datetime, expected: int, counted: int, variance: int) -> DrawerSession:
        """Close the session with its count-out (the drawer and cashier are free again)."""
        ...


class PromoRequestRepository(Protocol):
    """Dual-control requests for promotional tickets."""

    def add(self, *, amount: int, credit_type: str, station: str, reason: str, requested_by: str,
            requested_at: datetime) -> PromoRequest:
        """A new ``pending`` request."""
        ...

    def get(self, request_id: int, *, for_update: bool = False) -> PromoRequest | None: ...

    def list(self, status: str | None, limit: int = 200) -> list[PromoRequest]:
        """Newest first; ``status`` None for all."""
        ...

    def decide(self, request_id: int, *, status: str, by: str, at: datetime, ticket_id: int | None = None,
               reason: str | None = None) -> PromoRequest:
        """``pending`` → ``status`` (approved | refused) by ``by`` at ``at``; ``reason`` replaces the request's."""
        ...

    def lock_issues(self) -> None:
        """Serialise promotional issues floor-wide until the transaction ends: taken before the cumulative
        totals are read, so two issues cannot both pass under a limit."""
        ...

    def pending_since(self, since: datetime) -> list[tuple[str, int]]:
        """(requester, won) of every request still pending that was made since ``since``."""
        ...


class TitoUnitOfWork(UnitOfWork, Protocol):
    """One transaction with TITO's repositories (registered by ``tito.adapters.uow``) and the kernel's."""

    tickets: TicketRepository
    cage_drawers: DrawerRepository
    promo_requests: PromoRequestRepository


# ------------------------------------------------------------------ other features
class MachineRef(Protocol):
    """A slot machine as another feature hands it to TITO (the slot floor's own machine object)."""

    @property
    def asset_number(self) -> str: ...

    @property
    def credit_limit(self) -> int | None:
        """Its own credit limit in won (``None``: the floor default; 0: none)."""
        ...


class TicketMachines(Protocol):
    """The slot machines, as TITO needs them (filled by the slot floor). Each method works in the caller's
    transaction ``uow``. Unknown machines raise ``NotFound`` (404, field ``asset``).

    Lock order: a use case that changes a machine's credits takes its row lock (:meth:`lock`) before any
    ticket row or account row."""

    def lock(self, uow: Any, asset: str) -> MachineView:
        """The machine, its row locked until the transaction ends (cash-out, ticket-in, handpay and
        validation changes serialise on it)."""
        ...

    def get(self, uow: Any, asset: str) -> MachineView: ...

    def all(self, uow: Any, *, include_retired: bool = False) -> list[MachineView]:
        """The machines on the floor (``include_retired``: with the retired ones)."""
        ...

    def credits(self, uow: Any, asset: str) -> Credits:
        """Its three credit meters (cashable, restricted and non-restricted promotional), won."""
        ...

    def add_ticket_meters(self, uow: Any, machine_id: int, *, tickets_in: int = 0, tickets_in_count: int = 0,
                          tickets_out: int = 0, tickets_out_count: int = 0, handpay_out: int = 0,
                          handpay_out_count: int = 0) -> None:
        """Advance its ticket and handpay meters (won, counts; never backwards)."""
        ...

    def save_numbering(self, uow: Any, machine_id: int, numbering: TicketNumbering) -> None:
        """Store how the machine numbers its tickets (TITO's columns of the machine); visible to the
        transaction's next reads (a validation-ID draw checks uniqueness against it)."""
        ...

    def validation_id_owner(self, uow: Any, validation_id: int, *, besides: int) -> str | None:
        """The asset number of another machine (not ``besides``) using this SAS validation ID, if any."""
        ...

    def set_credit_limit(self, uow: Any, machine_id: int, limit: int | None) -> None:
        """The machine's own credit limit in won (``None``: the floor default; 0: none)."""
        ...

    def ticket_meters(self, uow: Any) -> list[MachineTicketMeters]:
        """Every machine's ticket meters, retired ones included (their tickets still count)."""
        ...


class KioskDirectory(Protocol):
    """Which staff accounts are kiosks (filled by staff): a kiosk is a principal with role ``kiosk``
    whose username is its code."""

    def is_kiosk(self, uow: Any, code: str) -> bool: ...
