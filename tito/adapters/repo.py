"""TITO persistence.

Every state change of a ticket is one conditional UPDATE (``WHERE id = ? AND status = ?``)
on a row the caller has locked ``FOR UPDATE`` in the same transaction, so on PostgreSQL
concurrent presentations of one ticket serialise on its row and exactly one wins.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import and_, func, insert, or_, select, text, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from slotsys.floor.adapters.tables import Machine
from slotsys.kernel.adapters.write_behind import execute_or_defer
from tito.adapters.tables import DrawerSession, PromoTicketRequest, TerminalGuard, Ticket, TicketEvent, TitoCounter
from tito.domain.tickets import EXPIRED, ISSUED, OUTSTANDING_STATES, PENDING, PROMO_TYPES, REDEEMED


def _insert(session: Session, table):
    dialect = session.get_bind().dialect.name
    return (postgresql.insert if dialect == "postgresql" else sqlite.insert)(table)


_NEW_EVENT = insert(TicketEvent.__table__).inline()  # built once; no implicit RETURNING (write-behind)


class TicketRepo:
    def __init__(self, session: Session) -> None:
        self.s = session

    # ------------------------------------------------------------------ tickets
    def add(self, ticket: Ticket) -> Ticket:
        self.s.add(ticket)
        self.s.flush()
        return ticket

    def exists(self, validation_number: str) -> bool:
        return self.s.scalar(select(Ticket.id).where(Ticket.validation_number == validation_number)) is not None

    def get(self, validation_number: str, *, for_update: bool = False) -> Ticket | None:
        stmt = select(Ticket).where(Ticket.validation_number == validation_number)
        if for_update:  # and reload: the identity map must not hide a change committed while we waited
            stmt = stmt.with_for_update().execution_options(populate_existing=True)
        return self.s.scalar(stmt)

    def get_for_presentation(self, validation_number: str, terminal: str) -> tuple[Ticket | None, datetime | None]:
        """The ticket locked ``FOR UPDATE`` and the presenting terminal's guard lock-out, in one round trip.

        Returns ``(ticket or None, blocked_until or None)``; when the ticket is not on file
        the lock-out is not read (the caller's failure path reads it).
        """
        blocked = (select(TerminalGuard.blocked_until).where(TerminalGuard.terminal == terminal)
                   .scalar_subquery().label("blocked_until"))
        row = self.s.execute(
            select(Ticket, blocked).where(Ticket.validation_number == validation_number)
            .with_for_update(of=Ticket).execution_options(populate_existing=True)
        ).first()
        return (row[0], row[1]) if row is not None else (None, None)

    def transition(self, ticket_id: int, from_status: str, **values) -> bool:
        """``from_status`` → ``values`` (which include the new ``status``); False if the status moved."""
        t = Ticket.__table__  # Core: no ORM persistence layer on the redemption path
        res = self.s.connection().execute(update(t).where(t.c.id == ticket_id, t.c.status == from_status).values(**values))
        return res.rowcount == 1

    def mark_redeemed(
        self, ticket_id: int, *, from_status: str, at: datetime, channel: str, location: str, by: str,
        entry_id: int, session_id: int | None = None,
    ) -> bool:
        """``from_status`` (issued, pending or expired) → redeemed, clearing any hold."""
        return self.transition(
            ticket_id, from_status, status=REDEEMED, redeemed_at=at, redeemed_channel=channel, redeemed_location=location,
            redeemed_by=by, redeem_entry_id=entry_id, redeemed_session_id=session_id, pending_location=None,
            pending_txn=None, pending_until=None,
        )

    def release_expired_holds(self, now: datetime) -> list[tuple[int, str, str | None]]:
        """Pending tickets whose hold has passed → issued. Returns (id, number, location) of each."""
        rows = self.s.execute(
            select(Ticket.id, Ticket.validation_number, Ticket.pending_location)
            .where(Ticket.status == PENDING, Ticket.pending_until <= now).with_for_update(skip_locked=True)
        ).all()
        released = []
        for tid, vn, loc in rows:
            if self.transition(tid, PENDING, status=ISSUED, pending_location=None, pending_txn=None, pending_until=None,
                               pending_since=None):
                released.append((tid, vn, loc))
        return released

    def expire_due(self, now: datetime) -> int:
        """Issued tickets (or pending ones whose hold has passed) past their expiry → expired."""
        res = self.s.execute(
            update(Ticket)
            .where(Ticket.expires_at <= now,
                   or_(Ticket.status == ISSUED, and_(Ticket.status == PENDING, Ticket.pending_until <= now)))
            .values(status=EXPIRED, pending_location=None, pending_txn=None, pending_until=None, pending_since=None)
        )
        return res.rowcount

    def outstanding_total(self) -> int:
        return int(
            self.s.scalar(select(func.coalesce(func.sum(Ticket.amount), 0)).where(Ticket.status.in_(OUTSTANDING_STATES)))
        )

    def counts(self) -> dict[str, int]:
        rows = self.s.execute(select(Ticket.status, func.count()).group_by(Ticket.status)).all()
        return {status: int(n) for status, n in rows}

    def integrity_issues(self) -> list[dict]:
        """Tickets whose record contradicts its state (for the audit): a redeemed ticket with no
        redemption entry, a voided one with no void entry, a pending one with no hold."""
        bad = self.s.execute(
            select(Ticket.validation_number, Ticket.status).where(
                or_(and_(Ticket.status == REDEEMED, Ticket.redeem_entry_id.is_(None)),
                    and_(Ticket.status == "voided", Ticket.void_entry_id.is_(None)),
                    and_(Ticket.status == PENDING, Ticket.pending_until.is_(None)))
            ).limit(20)
        ).all()
        return [{"validation_number": vn, "status": st} for vn, st in bad]

    # ------------------------------------------------------------------- events
    def log(self, kind: str, *, actor: str, at: datetime, ticket_id: int | None = None,
            validation_number: str | None = None, channel: str | None = None, location: str | None = None,
            **detail) -> None:
        """Append one event (a plain INSERT, in the caller's transaction; with the commit when the
        unit of work batches its writes)."""
        execute_or_defer(self.s, _NEW_EVENT, {
            "ticket_id": ticket_id, "validation_number": validation_number, "kind": kind, "channel": channel,
            "location": location, "actor": actor[:80], "at": at, "detail": detail})

    def events(self, ticket_id: int) -> list[TicketEvent]:
        return list(self.s.scalars(select(TicketEvent).where(TicketEvent.ticket_id == ticket_id).order_by(TicketEvent.id)))

    def events_of_kind(self, kinds: tuple[str, ...], since: datetime, until: datetime, limit: int = 1000) -> list[TicketEvent]:
        return list(self.s.scalars(
            select(TicketEvent).where(TicketEvent.kind.in_(kinds), TicketEvent.at >= since, TicketEvent.at < until)
            .order_by(TicketEvent.id).limit(limit)
        ))

    # --------------------------------------------------------------------- guard
    def guard(self, terminal: str, *, for_update: bool = False) -> TerminalGuard | None:
        if for_update:
            self.s.execute(_insert(self.s, TerminalGuard).values(terminal=terminal, failures=0)
                           .on_conflict_do_nothing(index_elements=["terminal"]))
            return self.s.scalar(select(TerminalGuard).where(TerminalGuard.terminal == terminal).with_for_update())
        return self.s.get(TerminalGuard, terminal)

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

    def machine_with_validation_id(self, validation_id: int, *, besides: int) -> str | None:
        """Asset number of another machine using this SAS validation ID, if any."""
        return self.s.scalar(select(Machine.asset_number).where(
            Machine.sas_validation_id == validation_id, Machine.id != besides))

    # ------------------------------------------------------------------- reports
    def sas_tickets_between(self, since: datetime, until: datetime):
        """(machine asset, validation number, ID generation, SAS sequence) of the SAS tickets issued
        in [since, until), per machine in arrival order (ticket id)."""
        return self.s.execute(
            select(Ticket.issued_by, Ticket.validation_number, Ticket.sas_generation, Ticket.sas_sequence)
            .where(Ticket.scheme == "sas", Ticket.sas_sequence.is_not(None), Ticket.issued_at >= since,
                   Ticket.issued_at < until)
            .order_by(Ticket.issued_by, Ticket.id)
        ).all()

    def issued_between(self, since: datetime, until: datetime):
        return self.s.execute(
            select(Ticket.issued_at, Ticket.issued_by, Ticket.type, Ticket.amount)
            .where(Ticket.issued_at >= since, Ticket.issued_at < until)
        ).all()

    def redeemed_between(self, since: datetime, until: datetime):
        return self.s.execute(
            select(Ticket.redeemed_at, Ticket.redeemed_channel, Ticket.redeemed_location, Ticket.type, Ticket.amount)
            .where(Ticket.status == REDEEMED, Ticket.redeemed_at >= since, Ticket.redeemed_at < until)
        ).all()

    def list_where(self, *conditions, limit: int = 10_000) -> list[Ticket]:
        return list(self.s.scalars(
            select(Ticket).where(*conditions).order_by(Ticket.issued_at, Ticket.issued_by, Ticket.sequence).limit(limit)
        ))

    def machine_ticket_totals(self) -> dict[int, dict[str, int]]:
        """Per issuing/accepting machine id: tickets printed (cashable + promotional) and accepted."""
        out: dict[int, dict[str, int]] = {}
        issued = self.s.execute(
            select(Ticket.issued_machine_id, func.count(), func.coalesce(func.sum(Ticket.amount), 0))
            .where(Ticket.issued_machine_id.is_not(None), Ticket.type.in_(("cashable", "promotional")))
            .group_by(Ticket.issued_machine_id)
        ).all()
        for mid, n, s in issued:
            out.setdefault(mid, {})["issued"] = (int(n), int(s))
        accepted = self.s.execute(
            select(Machine.id, func.count(), func.coalesce(func.sum(Ticket.amount), 0))
            .join(Machine, Machine.asset_number == Ticket.redeemed_location)
            .where(Ticket.status == REDEEMED, Ticket.redeemed_channel == "machine")
            .group_by(Machine.id)
        ).all()
        for mid, n, s in accepted:
            out.setdefault(mid, {})["accepted"] = (int(n), int(s))
        return out


class PromoRequestRepo:
    """Dual-control requests for promotional tickets (``promo_ticket_requests``)."""

    def __init__(self, session: Session) -> None:
        self.s = session

    def add(self, req: PromoTicketRequest) -> PromoTicketRequest:
        self.s.add(req)
        self.s.flush()
        return req

    def get(self, request_id: int, *, for_update: bool = False) -> PromoTicketRequest | None:
        q = select(PromoTicketRequest).where(PromoTicketRequest.id == request_id)
        return self.s.scalar(q.with_for_update() if for_update else q)

    def list(self, status: str | None, limit: int = 200) -> list[PromoTicketRequest]:
        q = select(PromoTicketRequest).order_by(PromoTicketRequest.id.desc()).limit(limit)
        if status:
            q = q.where(PromoTicketRequest.status == status)
        return list(self.s.scalars(q))


PROMO_ISSUE_LOCK = 0x510750_9E0_1  # pg_advisory_xact_lock key: "slotsys promotional issue" (any constant bigint)


class PromoIssueRepo:
    """What has been printed or asked for in promotional tickets, for the cumulative dual-control
    rule (:func:`tito.domain.promo.promo_issue_decision`)."""

    def __init__(self, session: Session) -> None:
        self.s = session

    def lock(self) -> None:
        """Serialise promotional issues floor-wide until this transaction ends (PostgreSQL: a
        transaction-scoped advisory lock, released at COMMIT / ROLLBACK; SQLite: writers already
        serialise). Taken before the totals are read, so two issues cannot both read a total that
        omits the other (READ COMMITTED: each statement after the lock sees what the last holder
        committed)."""
        if self.s.get_bind().dialect.name == "postgresql":
            self.s.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": PROMO_ISSUE_LOCK})

    def totals(self, issuer: str, since: datetime) -> tuple[int, int]:
        """(issuer's, floor's) promotional won since ``since``: station-printed promotional tickets
        of either kind (voided ones too: a void does not give the allowance back) plus pending
        requests. A machine's cash-out ticket of restricted credits is not an issue and is not
        counted; an approved request is counted once, as its ticket (printed as the requester)."""
        printed = (select(TicketEvent.actor, Ticket.amount)
                   .join(Ticket, Ticket.id == TicketEvent.ticket_id)
                   .where(TicketEvent.kind == "issued", TicketEvent.channel == "station",
                          Ticket.type.in_(PROMO_TYPES), Ticket.issued_at >= since))
        pending = (select(PromoTicketRequest.requested_by, PromoTicketRequest.amount)
                   .where(PromoTicketRequest.status == "pending", PromoTicketRequest.requested_at >= since))
        mine = floor = 0
        for who, amount in [*self.s.execute(printed), *self.s.execute(pending)]:
            floor += amount
            if who == issuer:
                mine += amount
        return mine, floor


class DrawerRepo:
    def __init__(self, session: Session) -> None:
        self.s = session

    def add(self, ds: DrawerSession) -> DrawerSession:
        self.s.add(ds)
        self.s.flush()
        return ds

    def open_for_cashier(self, cashier: str, *, for_update: bool = False) -> DrawerSession | None:
        stmt = select(DrawerSession).where(DrawerSession.open_cashier == cashier)
        if for_update:
            stmt = stmt.with_for_update()
        return self.s.scalar(stmt)

    def open_for_drawer(self, key: str) -> DrawerSession | None:
        return self.s.scalar(select(DrawerSession).where(DrawerSession.open_drawer == key))

    def get(self, session_id: int) -> DrawerSession | None:
        return self.s.get(DrawerSession, session_id)

    def redeemed_in(self, session_id: int) -> tuple[int, int]:
        n, s = self.s.execute(
            select(func.count(), func.coalesce(func.sum(Ticket.amount), 0)).where(Ticket.redeemed_session_id == session_id)
        ).one()
        return int(n), int(s)
