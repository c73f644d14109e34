"""In-memory fakes of TITO's repositories and of the ports it needs from other features, for service unit tests
that need no database (with :mod:`tests.fakes.kernel`).

They apply the rules the SQL ones apply where a use case can tell: a ticket changes state only from the status
the caller read (``from_status``), validation numbers are unique, one open drawer per cashier and per drawer, a
machine's credits are its ledger balances. :func:`tito_context` builds a context with all of them registered on
the fake unit of work (so a transaction that is not committed leaves none of their changes behind) and the TITO
services wired as the composition root wires them.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from slotsys.kernel import accounts
from slotsys.kernel import ledger as L
from slotsys.kernel.context import Principal, ServiceContext
from slotsys.kernel.credits import Credits
from slotsys.kernel.errors import NotFound
from tests.fakes.kernel import fake_context
from tito.domain.cage import CLOSED, OPEN, DrawerSession
from tito.domain.guard import GuardState
from tito.domain.machines import MachineTicketMeters, MachineView, TicketNumbering
from tito.domain.promo import PromoRequest
from tito.domain.tickets import (
    EXPIRED,
    ISSUED,
    PENDING,
    PROMO_TYPES,
    REDEEMED,
    VOIDED,
    NewTicket,
    Ticket,
    TicketEventRecord,
)
from tito.settings import TitoSettings


class SeededRng:
    """Reproducible randomness for validation numbers and secrets (``randbelow`` from a seeded PRNG)."""

    def __init__(self, seed: int = 7) -> None:
        self._r = random.Random(seed)

    def randbelow(self, n: int) -> int:
        return self._r.randrange(n)


class FakeTickets:
    """:class:`tito.services.ports.TicketRepository` in memory."""

    def __init__(self) -> None:
        self.rows: dict[int, Ticket] = {}
        self.by_number: dict[str, int] = {}
        self.trail: list[TicketEventRecord] = []
        self.guards: dict[str, GuardState] = {}
        self.counters: dict[str, int] = {}

    # ------------------------------------------------------------------ tickets
    def exists(self, validation_number: str) -> bool:
        return validation_number in self.by_number

    def get(self, validation_number: str, *, for_update: bool = False) -> Ticket | None:
        tid = self.by_number.get(validation_number)
        return self.rows[tid] if tid is not None else None

    def get_for_presentation(self, validation_number: str, terminal: str) -> tuple[Ticket | None, datetime | None]:
        t = self.get(validation_number, for_update=True)
        if t is None:
            return None, None
        guard = self.guards.get(terminal)
        return t, guard.blocked_until if guard else None

    def add(self, ticket: NewTicket) -> Ticket:
        if ticket.validation_number in self.by_number:
            raise ValueError(f"duplicate validation number {ticket.validation_number}")  # the unique index
        t = Ticket(id=len(self.rows) + 1, status=ISSUED, **ticket.__dict__)
        self.rows[t.id] = t
        self.by_number[t.validation_number] = t.id
        return t

    def _transition(self, ticket_id: int, from_status: str, **values: Any) -> bool:
        t = self.rows[ticket_id]
        if t.status != from_status:
            return False
        self.rows[ticket_id] = replace(t, **values)
        return True

    def hold(self, ticket_id: int, from_status: str, *, location: str, transaction_id: str, since: datetime,
             until: datetime) -> bool:
        return self._transition(ticket_id, from_status, status=PENDING, pending_location=location,
                                pending_txn=transaction_id, pending_since=since, pending_until=until)

    def release_hold(self, ticket_id: int) -> bool:
        return self._transition(ticket_id, PENDING, status=ISSUED, pending_location=None, pending_txn=None,
                                pending_until=None, pending_since=None)

    def mark_redeemed(self, ticket_id: int, *, from_status: str, at: datetime, channel: str, location: str, by: str,
                      entry_id: int, session_id: int | None = None) -> bool:
        return self._transition(ticket_id, from_status, status=REDEEMED, redeemed_at=at, redeemed_channel=channel,
                                redeemed_location=location, redeemed_by=by, redeem_entry_id=entry_id,
                                redeemed_session_id=session_id, pending_location=None, pending_txn=None,
                                pending_until=None)

    def void(self, ticket_id: int, from_status: str, *, at: datetime, by: str, reason: str, entry_id: int) -> bool:
        return self._transition(ticket_id, from_status, status=VOIDED, voided_at=at, voided_by=by, void_reason=reason,
                                void_entry_id=entry_id, pending_location=None, pending_txn=None, pending_until=None)

    def approve_expired(self, ticket_id: int, *, by: str, at: datetime, reason: str) -> None:
        self.rows[ticket_id] = replace(self.rows[ticket_id], expiry_override_by=by, expiry_override_at=at,
                                       expiry_override_reason=reason)

    def release_expired_holds(self, now: datetime) -> list[tuple[int, str, str | None]]:
        due = [t for t in self.rows.values() if t.status == PENDING and t.pending_until and t.pending_until <= now]
        return [(t.id, t.validation_number, t.pending_location) for t in due if self.release_hold(t.id)]

    def expire_due(self, now: datetime) -> int:
        n = 0
        for t in list(self.rows.values()):
            if t.expires_at <= now and (t.status == ISSUED or (t.status == PENDING and t.pending_until
                                                                and t.pending_until <= now)):
                self.rows[t.id] = replace(t, status=EXPIRED, pending_location=None, pending_txn=None,
                                          pending_until=None, pending_since=None)
                n += 1
        return n

    # ------------------------------------------------------------------ events
    def log(self, kind: str, *, actor: str, at: datetime, ticket_id: int | None = None,
            validation_number: str | None = None, channel: str | None = None, location: str | None = None,
            **detail: Any) -> None:
        self.trail.append(TicketEventRecord(kind=kind, at=at, actor=actor[:80], channel=channel, location=location,
                                            validation_number=validation_number, ticket_id=ticket_id, detail=detail))

    def events(self, ticket_id: int) -> list[TicketEventRecord]:
        return [e for e in self.trail if e.ticket_id == ticket_id]

    def kinds(self, ticket_id: int | None = None) -> list[str]:
        """The kinds of the trail (of one ticket), oldest first: for tests."""
        return [e.kind for e in self.trail if ticket_id is None or e.ticket_id == ticket_id]

    # ------------------------------------------------------------------ guard, counters, queries
    def guard_state(self, terminal: str) -> GuardState:
        return self.guards.setdefault(terminal, GuardState())

    def save_guard_state(self, terminal: str, state: GuardState) -> None:
        self.guards[terminal] = state

    def next_value(self, name: str) -> int:
        self.counters[name] = self.counters.get(name, 0) + 1
        return self.counters[name]

    def paid_in_session(self, session_id: int) -> tuple[int, int]:
        paid = [t.amount for t in self.rows.values() if t.redeemed_session_id == session_id]
        return len(paid), sum(paid)

    def promotional_printed_since(self, since: datetime) -> list[tuple[str, int]]:
        return [(e.actor, self.rows[e.ticket_id].amount) for e in self.trail
                if e.kind == "issued" and e.channel == "station" and e.ticket_id is not None
                and self.rows[e.ticket_id].type in PROMO_TYPES and self.rows[e.ticket_id].issued_at >= since]


class FakeDrawers:
    """:class:`tito.services.ports.DrawerRepository` in memory (one open session per cashier and per drawer)."""

    def __init__(self) -> None:
        self.sessions: dict[int, DrawerSession] = {}

    def _open_where(self, match) -> DrawerSession | None:
        return next((d for d in self.sessions.values() if d.status == OPEN and match(d)), None)

    def open_for_cashier(self, cashier: str, *, for_update: bool = False) -> DrawerSession | None:
        return self._open_where(lambda d: d.cashier == cashier)

    def open_for_drawer(self, key: str) -> DrawerSession | None:
        return self._open_where(lambda d: d.key == key)

    def open(self, *, cage: str, drawer: str, cashier: str, opening_float: int, at: datetime) -> DrawerSession:
        if self.open_for_cashier(cashier) or self.open_for_drawer(f"{cage}/{drawer}"):
            raise ValueError("an open session exists")  # the unique indexes
        ds = DrawerSession(id=len(self.sessions) + 1, cage=cage, drawer=drawer, cashier=cashier, status=OPEN,
                           opening_float=opening_float, opened_at=at)
        self.sessions[ds.id] = ds
        return ds

    def close(self, session_id: int, *, at: datetime, expected: int, counted: int, variance: int) -> DrawerSession:
        self.sessions[session_id] = replace(self.sessions[session_id], status=CLOSED, closed_at=at,
                                            expected_cash=expected, counted_cash=counted, variance=variance)
        return self.sessions[session_id]


class FakePromoRequests:
    """:class:`tito.services.ports.PromoRequestRepository` in memory."""

    def __init__(self) -> None:
        self.requests: dict[int, PromoRequest] = {}
        self.issue_locks = 0

    def add(self, *, amount: int, credit_type: str, station: str, reason: str, requested_by: str,
            requested_at: datetime) -> PromoRequest:
        r = PromoRequest(id=len(self.requests) + 1, amount=amount, credit_type=credit_type, station=station,
                         reason=reason, status="pending", requested_by=requested_by, requested_at=requested_at)
        self.requests[r.id] = r
        return r

    def get(self, request_id: int, *, for_update: bool = False) -> PromoRequest | None:
        return self.requests.get(request_id)

    def list(self, status: str | None, limit: int = 200) -> list[PromoRequest]:
        rows = sorted(self.requests.values(), key=lambda r: -r.id)
        return [r for r in rows if status is None or r.status == status][:limit]

    def decide(self, request_id: int, *, status: str, by: str, at: datetime, ticket_id: int | None = None,
               reason: str | None = None) -> PromoRequest:
        r = self.requests[request_id]
        self.requests[request_id] = replace(r, status=status, decided_by=by, decided_at=at,
                                            ticket_id=ticket_id if ticket_id is not None else r.ticket_id,
                                            reason=reason if reason is not None else r.reason)
        return self.requests[request_id]

    def lock_issues(self) -> None:
        self.issue_locks += 1  # one writer at a time already: the count shows the lock was taken

    def pending_since(self, since: datetime) -> list[tuple[str, int]]:
        return [(r.requested_by, r.amount) for r in self.requests.values()
                if r.status == "pending" and r.requested_at >= since]


@dataclass
class FakeMachine:
    """One machine's state: what the floor's row holds for TITO."""

    view: MachineView
    meters: dict[str, int] = field(default_factory=dict)


class FakeMachines:
    """:class:`tito.services.ports.TicketMachines` in memory. A machine's credits are its ledger balances
    (``machine:<asset>:credits`` must exist; the promo meters count 0 until opened), as on the floor.
    Register it on the fake unit of work too (:func:`tito_context` does) so a rollback restores it."""

    def __init__(self) -> None:
        self.machines: dict[str, FakeMachine] = {}
        self.locks: list[str] = []

    def add(self, uow_factory, asset: str, *, zone: str = "MASS", credit_limit: int | None = None,
            numbering: TicketNumbering = TicketNumbering(), status: str = "active") -> MachineView:
        """Put a machine on the floor with its ledger accounts (as the floor's enrolment opens them)."""
        view = MachineView(id=len(self.machines) + 1, asset_number=asset, zone=zone, status=status,
                           credit_limit=credit_limit, numbering=numbering)
        self.machines[asset] = FakeMachine(view)
        ledger = uow_factory.repos["ledger"]
        ledger.ensure_account(accounts.machine_credits(asset), L.AccountType.LIABILITY, non_negative=True)
        ledger.ensure_account(accounts.machine_drop(asset), L.AccountType.ASSET, non_negative=True)
        ledger.ensure_account(accounts.machine_restricted(asset), L.AccountType.LIABILITY, non_negative=True)
        return view

    def _machine(self, asset: str) -> FakeMachine:
        if asset not in self.machines:
            raise NotFound(f"machine {asset!r} is not on the floor", field="asset")
        return self.machines[asset]

    def _by_id(self, machine_id: int) -> FakeMachine:
        return next(m for m in self.machines.values() if m.view.id == machine_id)

    def lock(self, uow: Any, asset: str) -> MachineView:
        self.locks.append(asset)
        return self._machine(asset).view

    def get(self, uow: Any, asset: str) -> MachineView:
        return self._machine(asset).view

    def all(self, uow: Any, *, include_retired: bool = False) -> list[MachineView]:
        return [m.view for m in self.machines.values()]

    def credits(self, uow: Any, asset: str) -> Credits:
        def balance(code: str, required: bool) -> int:
            try:
                return uow.ledger.balance(code)
            except NotFound:
                if required:
                    raise
                return 0

        return Credits(balance(accounts.machine_credits(asset), True),
                       balance(accounts.machine_restricted(asset), False),
                       balance(accounts.machine_nonrestricted(asset), False))

    def add_ticket_meters(self, uow: Any, machine_id: int, **meters: int) -> None:
        m = self._by_id(machine_id)
        for name, value in meters.items():
            if value < 0:
                raise ValueError("meters never go backwards")
            m.meters[name] = m.meters.get(name, 0) + value

    def save_numbering(self, uow: Any, machine_id: int, numbering: TicketNumbering) -> None:
        m = self._by_id(machine_id)
        m.view = replace(m.view, numbering=numbering)

    def validation_id_owner(self, uow: Any, validation_id: int, *, besides: int) -> str | None:
        return next((m.view.asset_number for m in self.machines.values()
                     if m.view.numbering.sas_validation_id == validation_id and m.view.id != besides), None)

    def set_credit_limit(self, uow: Any, machine_id: int, limit: int | None) -> None:
        m = self._by_id(machine_id)
        m.view = replace(m.view, credit_limit=limit)

    def ticket_meters(self, uow: Any) -> list[MachineTicketMeters]:
        return [MachineTicketMeters(m.view.id, a, m.meters.get("tickets_out", 0), m.meters.get("tickets_out_count", 0),
                                    m.meters.get("tickets_in", 0), m.meters.get("tickets_in_count", 0))
                for a, m in self.machines.items()]


class FakeKiosks:
    """:class:`tito.services.ports.KioskDirectory`: the kiosk codes."""

    def __init__(self, *codes: str) -> None:
        self.codes = set(codes)

    def is_kiosk(self, uow: Any, code: str) -> bool:
        return code in self.codes


@dataclass
class TitoFloor:
    """A fake floor for TITO's use cases: the context, the repositories and ports, the services."""

    ctx: ServiceContext
    tickets: FakeTickets
    drawers: FakeDrawers
    requests: FakePromoRequests
    machines: FakeMachines
    kiosks: FakeKiosks
    services: Any

    @property
    def ledger(self):
        return self.ctx.uow.repos["ledger"]  # type: ignore[attr-defined]

    def machine(self, asset: str, **kw) -> MachineView:
        return self.machines.add(self.ctx.uow, asset, **kw)

    def credit(self, asset: str, won: int, *, meter: str = "cashable") -> None:
        """Bill-in (or promotional credits) onto a machine: ``Dr machine:<a>:drop / Cr <meter>``."""
        code = {"cashable": accounts.machine_credits(asset), "restricted": accounts.machine_restricted(asset),
                "nonrestricted": accounts.machine_nonrestricted(asset)}[meter]
        self.ledger.ensure_account(code, L.AccountType.LIABILITY, non_negative=True)
        self.ledger.post(L.EntryBuilder("test.credit").add(debit=accounts.machine_drop(asset), credit=code,
                                                             amount=won).build())

    def cage_bank(self, won: int) -> None:
        """The cage bank's float from house capital."""
        bank = accounts.cage_bank(accounts.MAIN_CAGE)
        self.ledger.ensure_account(bank, L.AccountType.ASSET, non_negative=True)
        self.ledger.ensure_account(accounts.HOUSE_CAPITAL, L.AccountType.EQUITY)
        self.ledger.post(L.EntryBuilder("test.float").add(debit=bank, credit=accounts.HOUSE_CAPITAL, amount=won)
                         .build())


def tito_context(settings: TitoSettings | None = None, kiosks: tuple[str, ...] = ("kiosk1",), **kw) -> TitoFloor:
    """A fake floor with TITO's services assembled as the composition root assembles them
    (:meth:`tito.services.container.TitoServices.assemble`), the fake machines and kiosks in place of the
    floor's and staff's. The ledger holds ``tito:outstanding``."""
    from tito.services.container import TitoServices

    tickets, drawers, requests, machines = FakeTickets(), FakeDrawers(), FakePromoRequests(), FakeMachines()
    kw.setdefault("rng", SeededRng())
    ctx = fake_context(tickets=tickets, cage_drawers=drawers, promo_requests=requests, fake_machines=machines, **kw)
    directory = FakeKiosks(*kiosks)
    services = TitoServices.assemble(ctx, settings or TitoSettings(), machines, directory)  # no read model: SQL
    floor = TitoFloor(ctx, tickets, drawers, requests, machines, directory, services)
    floor.ledger.ensure_account(accounts.TICKETS_OUTSTANDING, L.AccountType.LIABILITY, non_negative=True)
    return floor


def staff(name: str, role: str) -> Principal:
    return Principal("staff", name, role)


def machine(asset: str) -> Principal:
    return Principal("machine", asset)
