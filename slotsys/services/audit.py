"""The auditor's proof that the books balance, and that sub-ledgers agree with the ledger."""

from __future__ import annotations

from slotsys.domain import ledger as L
from slotsys.domain.money import milli_to_won_floor
from slotsys.services.context import ServiceContext


class AuditService:
    def __init__(self, ctx: ServiceContext) -> None:
        self.ctx = ctx

    def report(self) -> dict:
        """Ledger invariants (sum zero, cached = postings, no forbidden negatives), plus:
        outstanding-ticket liability = sum of unredeemed tickets; each jackpot liability =
        the whole-won part of its meter."""
        with self.ctx.uow(readonly=True) as uow:
            out = uow.ledger.audit()
            tickets_ledger = uow.ledger.balance(L.TICKETS_OUTSTANDING)
            tickets_file = uow.tickets.outstanding_total()
            jackpots = []
            for lv in uow.levels.all():
                ledger_value = uow.ledger.balance(L.jackpot_liability(lv.code))
                jackpots.append({"level": lv.code, "ledger": ledger_value, "meter": milli_to_won_floor(lv.value_milli),
                                 "agrees": ledger_value == milli_to_won_floor(lv.value_milli)})
            out["tickets"] = {"ledger_outstanding": tickets_ledger, "tickets_on_file_outstanding": tickets_file,
                              "agrees": tickets_ledger == tickets_file, "by_status": uow.tickets.counts()}
            out["jackpots"] = jackpots
            out["balanced"] = bool(out["balanced"] and out["tickets"]["agrees"] and all(j["agrees"] for j in jackpots))
            return out
