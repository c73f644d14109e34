"""The auditor's proof that the books balance, and that every feature's sub-ledger agrees with the ledger: the app
shell composes the kernel's ledger audit with the tickets, jackpot levels, players and tables checks."""

from __future__ import annotations

from sqlalchemy import text

from jackpot_controller.services.audit import jackpot_audit
from slotsys.kernel import accounts
from slotsys.kernel.errors import NotFound
from slotsys.kernel.context import ServiceContext


class AuditService:
    def __init__(self, ctx: ServiceContext) -> None:
        self.ctx = ctx

    def report(self) -> dict:
        """Ledger invariants (sum zero, cached = postings, no forbidden negatives), plus:
        outstanding-ticket liability = sum of unredeemed tickets (issued, pending, expired) and
        every ticket record consistent with its state; each jackpot liability =
        the whole-won part of its meter (and reserve, overflow; payable = unpaid hits)."""
        with self.ctx.uow(readonly=True) as uow:
            if uow.session.get_bind().dialect.name == "postgresql":
                # one snapshot for every query below: writers committing meanwhile (spins, the jackpot
                # sequencer) must not make a sub-ledger disagree with a ledger read a moment earlier
                uow.session.execute(text("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY"))
            out = uow.ledger.audit()
            tickets_ledger = uow.ledger.balance(accounts.TICKETS_OUTSTANDING)
            tickets_file = uow.tickets.outstanding_total()
            # each level: liability/reserve/overflow = floor of its meters, payable = its unpaid hits
            jackpots = jackpot_audit(uow)
            ticket_issues = uow.tickets.integrity_issues()  # redeemed/voided without their entry, pending without hold
            out["tickets"] = {"ledger_outstanding": tickets_ledger, "tickets_on_file_outstanding": tickets_file,
                              "agrees": tickets_ledger == tickets_file and not ticket_issues,
                              "by_status": uow.tickets.counts(), "record_issues": ticket_issues}
            out["jackpots"] = jackpots
            # players: points = their journal (never negative, never below holds); session meters = machine meters' change
            out["players"] = uow.players.audit()
            # tables: a table's bets account holds only the stakes of rounds still in play
            tables = []
            for t in uow.tables.all():
                in_play = [r for r in uow.tables.rounds(t.id, limit=1000) if r.status not in ("settled", "void")]
                try:
                    held = uow.ledger.balance(accounts.table_bets(t.code))
                except NotFound:
                    held = 0
                tables.append({"table": t.code, "bets_account": held, "rounds_in_play": len(in_play),
                               "agrees": held == 0 if not in_play else held >= 0})
            out["tables"] = tables
            out["balanced"] = bool(out["balanced"] and out["tickets"]["agrees"] and all(j["agrees"] for j in jackpots)
                                   and out["players"]["agrees"] and all(t["agrees"] for t in tables))
            return out
