"""TITO persistence: the repositories of :mod:`tito.services.ports` over TITO's tables (SQLAlchemy Core on the
redemption path: rows become the frozen domain objects, no ORM identity map).

Every state change of a ticket is one conditional UPDATE (``WHERE id = ? AND status = ?``)
on a row the caller has locked ``FOR UPDATE`` in the same transaction, so on PostgreSQL
concurrent presentations of one ticket serialise on its row and exactly one wins.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import and_, bindparam, func, insert, or_, select, text, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from slotsys.kernel.adapters.write_behind import execute_or_defer
from tito.adapters.tables import DrawerSession as DrawerRow
from tito.adapters.tables import PromoTicketRequest, TerminalGuard, TicketEvent, TitoCounter
from tito.adapters.tables import Ticket as TicketRow
from tito.domain.cage import CLOSED, OPEN, DrawerSession
from tito.domain.guard import GuardState
from tito.domain.promo import PromoRequest
from tito.domain.tickets import (
    EXPIRED,
    ISSUED,
    OUTSTANDING_STATES,
    PENDING,
    PROMO_TYPES,
    REDEEMED,
    VOIDED,
    NewTicket,
    Ticket,
    TicketEventRecord,
)

_T = TicketRow.__table__
_TICKET_COLUMNS = tuple(_T.c)
# the presentation path's statements, built once (their compiled form is cached) and run on the connection:
# Core rows, no ORM loading
_TICKET_BY_NUMBER = select(*_TICKET_COLUMNS).where(_T.c.validation_number == bindparam("vn"))
_TICKET_BY_NUMBER_LOCKED = _TICKET_BY_NUMBER.with_for_update()
_G = TerminalGuard.__table__
_TICKET_FOR_PRESENTATION = (
    select(*_TICKET_COLUMNS, select(_G.c.blocked_until).where(_G.c.terminal == bindparam("terminal"))
           .scalar_subquery().label("guard_blocked_until"))
    .where(_T.c.validation_number == bindparam("vn")).with_for_update(of=_T))
_NEW_EVENT = insert(TicketEvent.__table__).inline()  # built once; no implicit RETURNING (write-behind)
_D = DrawerRow.__table__
_P = PromoTicketRequest.__table__


def _insert(session: Session, table):
    dialect = session.get_bind().dialect.name
    return (postgresql.insert if dialect == "postgresql" else sqlite.insert)(table)


def _ticket(row) -> Ticket:
    return Ticket(**row._mapping)


class TicketRepo:
    """:class:`tito.services.ports.TicketRepository` (and the ledger audit's ``outstanding_total``,
    ``counts``, ``integrity_issues``)."""

    def __init__(self, session: Session) -> None:
        self.s = session

    # ------------------------------------------------------------------ tickets
    def add(self, ticket: NewTicket) -> Ticket:
        values = dict(ticket.__dict__, status=ISSUED)
        tid = self.s.execute(insert(_T).values(**values).returning(_T.c.id)).scalar_one()
        return Ticket(id=int(tid), **values)

    def exists(self, validation_number: str) -> bool:
        return self.s.scalar(select(_T.c.id).where(_T.c.validation_number == validation_number)) is not None

    def get(self, validation_number: str, *, for_update: bool = False) -> Ticket | None:
        stmt = _TICKET_BY_NUMBER_LOCKED if for_update else _TICKET_BY_NUMBER
        row = self.s.connection().execute(stmt, {"vn": validation_number}).first()
        return _ticket(row) if row is not None else None

    def get_for_presentation(self, validation_number: str, terminal: str) -> tuple[Ticket | None, datetime | None]:
        """The ticket locked ``FOR UPDATE`` and the presenting terminal's guard lock-out, in one round trip.

        Returns ``(ticket or None, blocked_until or None)``; when the ticket is not on file
        the lock-out is not read (the caller's failure path reads it).
        """
        row = self.s.connection().execute(_TICKET_FOR_PRESENTATION, {"vn": validation_number, "terminal": terminal}).first()
        if row is None:
            return None, None
        values = dict(row._mapping)
        until = values.pop("guard_blocked_until")
        return Ticket(**values), until

    def _transition(self, ticket_id: int, from_status: str, **values: Any) -> bool:
        """``from_status`` → ``values`` (which include the new ``status``); False if the status moved."""
        res = self.s.connection().execute(
            update(_T).where(_T.c.id == ticket_id, _T.c.status == from_status).values(**values))
        return res.rowcount == 1

    def hold(self, ticket_id: int, from_status: str, *, location: str, transaction_id: str, since: datetime,
             until: datetime) -> bool:
        return self._transition(ticket_id, from_status, status=PENDING, pending_location=location,
                                pending_txn=transaction_id, pending_since=since, pending_until=until)

    def release_hold(self, ticket_id: int) -> bool:
        return self._transition(ticket_id, PENDING, status=ISSUED, pending_location=None, pending_txn=None,
                                pending_until=None, pending_since=None)

    def mark_redeemed(
        self, ticket_id: int, *, from_status: str, at: datetime, channel: str, location: str, by: str,
        entry_id: int, session_id: int | None = None,
    ) -> bool:
        """``from_status`` (issued, pending or expired) → redeemed, clearing any hold."""
        return self._transition(
            ticket_id, from_status, status=REDEEMED, redeemed_at=at, redeemed_channel=channel, redeemed_location=location,
            redeemed_by=by, redeem_entry_id=entry_id, redeemed_session_id=session_id, pending_location=None,
            pending_txn=None, pending_until=None,
        )

    def void(self, ticket_id: int, from_status: str, *, at: datetime, by: str, reason: str, entry_id: int) -> bool:
        return self._transition(ticket_id, from_status, status=VOIDED, voided_at=at, voided_by=by, void_reason=reason,
                                void_entry_id=entry_id, pending_location=None, pending_txn=None, pending_until=None)

    def approve_expired(self, ticket_id: int, *, by: str, at: datetime, reason: str) -> None:
        self.s.connection().execute(update(_T).where(_T.c.id == ticket_id).values(
            expiry_override_by=by, expiry_override_at=at, expiry_override_reason=reason))

    def release_expired_holds(self, now: datetime) -> list[tuple[int, str, str | None]]:
        """Pending tickets whose hold has passed → issued. Returns (id, number, location) of each."""
        rows = self.s.execute(
            select(_T.c.id, _T.c.validation_number, _T.c.pending_location)
            .where(_T.c.status == PENDING, _T.c.pending_until <= now).with_for_update(skip_locked=True)
        ).all()
        return [(tid, vn, loc) for tid, vn, loc in rows if self.release_hold(tid)]

    def expire_due(self, now: datetime) -> int:
        """Issued tickets (or pending ones whose hold has passed) past their expiry → expired."""
        res = self.s.execute(
            update(_T)
            .where(_T.c.expires_at <= now,
                   or_(_T.c.status == ISSUED, and_(_T.c.status == PENDING, _T.c.pending_until <= now)))
            .values(status=EXPIRED, pending_location=None, pending_txn=None, pending_until=None, pending_since=None)
        )
        return res.rowcount

    # ------------------------------------------------------------------- audit
    def outstanding_total(self) -> int:
        return int(self.s.scalar(select(func.coalesce(func.sum(_T.c.amount), 0))
                                 .where(_T.c.status.in_(OUTSTANDING_STATES))))

    def counts(self) -> dict[str, int]:
        rows = self.s.execute(select(_T.c.status, func.count()).group_by(_T.c.status)).all()
        return {status: int(n) for status, n in rows}

    def integrity_issues(self) -> list[dict]:
        """Tickets whose record contradicts its state (for the audit): a redeemed ticket with no
        redemption entry, a voided one with no void entry, a pending one with no hold."""
        bad = self.s.execute(
            select(_T.c.validation_number, _T.c.status).where(
                or_(and_(_T.c.status == REDEEMED, _T.c.redeem_entry_id.is_(None)),
                    and_(_T.c.status == VOIDED, _T.c.void_entry_id.is_(None)),
                    and_(_T.c.status == PENDING, _T.c.pending_until.is_(None)))
            ).limit(20)
        ).all()
        return [{"validation_number": vn, "status": st} for vn, st in bad]

    # ------------------------------------------------------------------- events
    def log(self, kind: str, *, actor: str, at: datetime, ticket_id: int | None = None,
            validation_number: str | None = None, channel: str | None = None, location: str | None = None,
            **detail: Any) -> None:
        """Append one event (a plain INSERT, in the caller's transaction; with the commit when the
        unit of work batches its writes)."""
        execute_or_defer(self.s, _NEW_EVENT, {
            "ticket_id": ticket_id, "validation_number": validation_number, "kind": kind, "channel": channel,
            "location": location, "actor": actor[:80], "at": at, "detail": detail})

    def events(self, ticket_id: int) -> list[TicketEventRecord]:
        e = TicketEvent.__table__
        rows = self.s.execute(select(e.c.kind, e.c.at, e.c.actor, e.c.channel, e.c.location, e.c.validation_number,
                                     e.c.ticket_id, e.c.detail).where(e.c.ticket_id == ticket_id).order_by(e.c.id))
        return [TicketEventRecord(**r._mapping) for r in rows]

    # --------------------------------------------------------------------- guard
    def guard_state(self, terminal: str) -> GuardState:
        self.s.execute(_insert(self.s, TerminalGuard).values(terminal=terminal, failures=0)
                       .on_conflict_do_nothing(index_elements=["terminal"]))
        g = TerminalGuard.__table__
        row = self.s.execute(select(g.c.window_start, g.c.failures, g.c.blocked_until)
                             .where(g.c.terminal == terminal).with_for_update()).one()
        return GuardState(row.window_start, int(row.failures or 0), row.blocked_until)

    def save_guard_state(self, terminal: str, state: GuardState) -> None:
        g = TerminalGuard.__table__
        self.s.execute(update(g).where(g.c.terminal == terminal).values(
            window_start=state.window_start, failures=state.failures, blocked_until=state.blocked_until))

    def blocked_until(self, terminal: str) -> datetime | None:
        return self.s.scalar(select(TerminalGuard.blocked_until).where(TerminalGuard.terminal == terminal))

    # ------------------------------------------------------------------ counters
    def next_value(self, name: str) -> int:
        """Increment and return the named counter (the row lock serialises issuers)."""
        self.s.execute(_insert(self.s, TitoCounter).values(name=name, value=0)
                       .on_conflict_do_nothing(index_elements=["name"]))
        return int(self.s.execute(
            update(TitoCounter).where(TitoCounter.name == name).values(value=TitoCounter.value + 1)
            .returning(TitoCounter.value)
        ).scalar_one())

    # ------------------------------------------------------------ what was paid / printed
    def paid_in_session(self, session_id: int) -> tuple[int, int]:
        n, s = self.s.execute(
            select(func.count(), func.coalesce(func.sum(_T.c.amount), 0)).where(_T.c.redeemed_session_id == session_id)
        ).one()
        return int(n), int(s)

    def promotional_printed_since(self, since: datetime) -> list[tuple[str, int]]:
        """A machine's cash-out ticket of restricted credits is not an issue and is not listed."""
        e = TicketEvent.__table__
        return [(who, int(won)) for who, won in self.s.execute(
            select(e.c.actor, _T.c.amount).join(_T, _T.c.id == e.c.ticket_id)
            .where(e.c.kind == "issued", e.c.channel == "station", _T.c.type.in_(PROMO_TYPES),
                   _T.c.issued_at >= since))]


_OPEN_FOR_CASHIER = select(_D).where(_D.c.open_cashier == bindparam("cashier"))
_OPEN_FOR_CASHIER_LOCKED = _OPEN_FOR_CASHIER.with_for_update()


def _drawer(row) -> DrawerSession:
    m = row._mapping
    return DrawerSession(id=m["id"], cage=m["cage"], drawer=m["drawer"], cashier=m["cashier"], status=m["status"],
                         opening_float=m["opening_float"], opened_at=m["opened_at"], closed_at=m["closed_at"],
                         expected_cash=m["expected_cash"], counted_cash=m["counted_cash"], variance=m["variance"])


class DrawerRepo:
    """:class:`tito.services.ports.DrawerRepository`."""

    def __init__(self, session: Session) -> None:
        self.s = session

    def _one(self, *conditions, for_update: bool = False) -> DrawerSession | None:
        stmt = select(_D).where(*conditions)
        row = self.s.connection().execute(stmt.with_for_update() if for_update else stmt).first()
        return _drawer(row) if row is not None else None

    def open_for_cashier(self, cashier: str, *, for_update: bool = False) -> DrawerSession | None:
        stmt = _OPEN_FOR_CASHIER_LOCKED if for_update else _OPEN_FOR_CASHIER  # every cage redemption reads it
        row = self.s.connection().execute(stmt, {"cashier": cashier}).first()
        return _drawer(row) if row is not None else None

    def open_for_drawer(self, key: str) -> DrawerSession | None:
        return self._one(_D.c.open_drawer == key)

    def get(self, session_id: int) -> DrawerSession | None:
        return self._one(_D.c.id == session_id)

    def open(self, *, cage: str, drawer: str, cashier: str, opening_float: int, at: datetime) -> DrawerSession:
        sid = self.s.execute(insert(_D).values(
            cage=cage, drawer=drawer, cashier=cashier, status=OPEN, open_drawer=f"{cage}/{drawer}",
            open_cashier=cashier, opening_float=opening_float, opened_at=at).returning(_D.c.id)).scalar_one()
        return DrawerSession(id=int(sid), cage=cage, drawer=drawer, cashier=cashier, status=OPEN,
                             opening_float=opening_float, opened_at=at)

    def close(self, session_id: int, *, at: datetime, expected: int, counted: int, variance: int) -> DrawerSession:
        self.s.execute(update(_D).where(_D.c.id == session_id).values(
            status=CLOSED, open_drawer=None, open_cashier=None, closed_at=at, expected_cash=expected,
            counted_cash=counted, variance=variance))
        closed = self.get(session_id)
        assert closed is not None
        return closed


PROMO_ISSUE_LOCK = 0x510750_9E0_1  # pg_advisory_xact_lock key: "slotsys promotional issue" (any constant bigint)


def _request(row) -> PromoRequest:
    return PromoRequest(**row._mapping)


class PromoRequestRepo:
    """:class:`tito.services.ports.PromoRequestRepository` (``promo_ticket_requests``)."""

    def __init__(self, session: Session) -> None:
        self.s = session

    def add(self, *, amount: int, credit_type: str, station: str, reason: str, requested_by: str,
            requested_at: datetime) -> PromoRequest:
        values = dict(amount=amount, credit_type=credit_type, station=station, reason=reason, status="pending",
                      requested_by=requested_by, requested_at=requested_at)
        rid = self.s.execute(insert(_P).values(**values).returning(_P.c.id)).scalar_one()
        return PromoRequest(id=int(rid), **values)

    def get(self, request_id: int, *, for_update: bool = False) -> PromoRequest | None:
        q = select(_P).where(_P.c.id == request_id)
        row = self.s.execute(q.with_for_update() if for_update else q).first()
        return _request(row) if row is not None else None

    def list(self, status: str | None, limit: int = 200) -> list[PromoRequest]:
        q = select(_P).order_by(_P.c.id.desc()).limit(limit)
        if status:
            q = q.where(_P.c.status == status)
        return [_request(r) for r in self.s.execute(q)]

    def decide(self, request_id: int, *, status: str, by: str, at: datetime, ticket_id: int | None = None,
               reason: str | None = None) -> PromoRequest:
        values: dict[str, Any] = {"status": status, "decided_by": by, "decided_at": at}
        if ticket_id is not None:
            values["ticket_id"] = ticket_id
        if reason is not None:
            values["reason"] = reason
        self.s.execute(update(_P).where(_P.c.id == request_id).values(**values))
        decided = self.get(request_id)
        assert decided is not None
        return decided

    def lock_issues(self) -> None:
        """Serialise promotional issues floor-wide until this transaction ends (PostgreSQL: a
        transaction-scoped advisory lock, released at COMMIT / ROLLBACK; SQLite: writers already
        serialise). Taken before the totals are read, so two issues cannot both read a total that
        omits the other (READ COMMITTED: each statement after the lock sees what the last holder
        committed)."""
        if self.s.get_bind().dialect.name == "postgresql":
            self.s.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": PROMO_ISSUE_LOCK})

    def pending_since(self, since: datetime) -> list[tuple[str, int]]:
        return [(who, int(won)) for who, won in self.s.execute(
            select(_P.c.requested_by, _P.c.amount).where(_P.c.status == "pending", _P.c.requested_at >= since))]
