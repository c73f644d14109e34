"""In-memory fakes of the slot floor's repositories and of the ports it uses (jackpots, tickets, loyalty), for
service unit tests with no database. They keep real state and apply the rules a use case could tell apart: a
machine not on the floor is ``NotFound``, meters only add up, credit meters are the ledger's accounts."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from slotsys.floor.domain.machine import Machine
from slotsys.kernel import accounts
from slotsys.kernel.credits import Credits
from slotsys.kernel.errors import Conflict, NotFound
from slotsys.kernel.ledger import AccountType, EntryBuilder


class FakeMachines:
    """``uow.machines``; reads its credit meters from the unit of work's ledger (``ledger``, set by the factory)."""

    def __init__(self, ledger, machines: list[Machine] = (), carded: set[int] = frozenset()) -> None:
        self.ledger = ledger
        self.rows: dict[str, Machine] = {}
        self.carded = set(carded)
        for m in machines:
            self.add(m)

    def add(self, m: Machine) -> Machine:
        m.id = m.id or len(self.rows) + 1
        self.rows[m.asset_number] = m
        for code, type_ in ((accounts.machine_credits(m.asset_number), AccountType.LIABILITY),
                            (accounts.machine_restricted(m.asset_number), AccountType.LIABILITY),
                            (accounts.machine_nonrestricted(m.asset_number), AccountType.LIABILITY)):
            self.ledger.ensure_account(code, type_, non_negative=True)
        self.ledger.ensure_account(accounts.machine_drop(m.asset_number), AccountType.ASSET, non_negative=True)
        self.ledger.ensure_account(accounts.machine_hold(m.asset_number), AccountType.REVENUE)
        return m

    def get(self, asset: str, *, for_update: bool = False) -> Machine:
        m = self.rows.get(asset)
        if m is None:
            raise NotFound(f"machine {asset!r} is not on the floor", field="asset")
        return m

    def get_by_id(self, machine_id: int) -> Machine:
        return next(m for m in self.rows.values() if m.id == machine_id)

    def credits(self, asset: str) -> Credits:
        return Credits(self.ledger.balance(accounts.machine_credits(asset)),
                       self.ledger.balance(accounts.machine_restricted(asset)),
                       self.ledger.balance(accounts.machine_nonrestricted(asset)))

    def get_for_play(self, asset: str) -> tuple[Machine, Credits, bool]:
        m = self.get(asset, for_update=True)
        return m, self.credits(asset), m.id in self.carded

    def add_meters(self, machine, *, set_values: dict | None = None, **deltas: int) -> None:
        m = machine if isinstance(machine, Machine) else self.get_by_id(machine)
        for k, v in deltas.items():
            if v < 0:
                raise ValueError(f"meter {k} would go backwards")
            setattr(m, k, getattr(m, k) + v)
        for k, v in (set_values or {}).items():
            setattr(m, k, v)

    def all(self, *, include_retired: bool = False) -> list[Machine]:
        return list(self.rows.values())

    def zones(self) -> list:
        return []


class FakeRounds:
    def __init__(self) -> None:
        self.rows: list[dict] = []

    def add(self, **row: Any) -> None:
        self.rows.append(row)

    def recent(self, machine_id: int, limit: int = 10) -> list:
        return [r for r in reversed(self.rows) if r["machine_id"] == machine_id][:limit]


@dataclass
class FakeJackpots:
    """The jackpot port: records every wager (no level here decides a hit)."""

    wagers: list[tuple[str, int, int]] = field(default_factory=list)

    def on_wager(self, uow, machine, bet_won, game_number, outcome):
        self.wagers.append((machine.asset_number, bet_won, game_number))
        return [], 0


class FakeLoyalty:
    def on_game(self, uow, machine, option, **kw):
        return None


class FakeTickets:
    """The ticket port: a cash-out prints one cashable ticket for the machine's cashable credits
    (``Dr machine:<a>:credits / Cr tito:outstanding``), as TITO does."""

    def __init__(self, ledger) -> None:
        ledger.ensure_account(accounts.TICKETS_OUTSTANDING, AccountType.LIABILITY, non_negative=True)
        self.printed: list[dict] = []

    def cash_out(self, uow, machine: Machine) -> dict:
        credits = uow.ledger.balance(accounts.machine_credits(machine.asset_number))
        if credits <= 0:
            raise Conflict(f"machine {machine.asset_number} has no credits to cash out")
        uow.ledger.post(EntryBuilder("tito.issue").add(debit=accounts.machine_credits(machine.asset_number),
                                                      credit=accounts.TICKETS_OUTSTANDING, amount=credits).build())
        ticket = {"validation_number": f"{len(self.printed) + 1:018d}", "amount": credits, "type": "cashable"}
        self.printed.append(ticket)
        uow.machines.add_meters(machine, tickets_out=credits, tickets_out_count=1)
        return {"machine": machine.asset_number, "ticket": ticket, "tickets": [ticket], "credits": 0,
                "promo_credits": 0}

    def credit_limit(self, machine) -> int:
        return 0
