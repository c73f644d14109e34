"""Table progressives on the jackpot controller: the meter of a table game's progressive side bet (Caribbean
stud, three card poker, hold'em bonus) is a ``table`` level here.

The table service calls :meth:`TableProgressives.settle_round` inside the round's settlement transaction,
after it locked the table and round rows and the level row (lock order: table → round → level → accounts, the
sequencer's order level → accounts is a suffix of it). In that one transaction:

1. the round's progressive stakes contribute ``rate_ppm`` of each stake to the meter (milli-won);
2. the hands the game's paytable names are paid, best line first (:func:`~jackpot_controller.domain.pool.table_round`:
   several royals share the meter equally, a 100% line resets the level to its seed);
3. ONE journal entry moves the whole-won part: contributions → liability (and reserve / overflow),
   liability → payable for meter awards, seed → payable for fixed awards (house-funded), seed →
   liability for the reset; then each award goes payable → the player's cashable wallet (the
   :class:`~jackpot_controller.services.ports.TableWallet` port), so ``:payable`` is back to 0 when the
   transaction commits;
4. the meters are written on the level row and each award is logged as a ``table_award`` event
   (table, round, box, player, hand, amount, meter, cycle) for the auditor; after the commit the meters
   go to signage (at once when a hand was paid).

Exactly once: the settlement transaction is guarded by the round row (a settled round is refused) and
the request's Idempotency-Key; nothing here runs outside it, so a retried or concurrent settlement
either replays the recorded response or is refused, and a crash rolls everything back together.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from jackpot_controller.domain.pool import TableClaim, TablePaid, table_round
from jackpot_controller.domain.records import Level
from jackpot_controller.services.levels import ensure_accounts
from jackpot_controller.services.ports import JackpotUnitOfWork, TableWallet
from jackpot_controller.services.results import TableRound
from jackpot_controller.services.sequencer import pool_of
from jackpot_controller.services.signage import Signage
from slotsys.kernel import accounts
from slotsys.kernel import ledger as L
from slotsys.kernel.context import ServiceContext
from slotsys.kernel.errors import Conflict, NotFound
from slotsys.kernel.money import milli_to_won_floor


@dataclass(frozen=True)
class TableAward:
    """A hand's claim as the table reports it: who is paid (``player_id``), for which box, bet and hand;
    ``meter_ppm`` of the meter (1,000,000 = all of it) shared by ``shared_by`` hands, or ``fixed`` won."""

    player_id: int
    box: str
    hand: str
    meter_ppm: int = 0
    fixed: int = 0
    shared_by: int = 1
    bet_id: str | None = None


def table_level(uow: JackpotUnitOfWork, code: str, *, for_update: bool = False) -> Level:
    """The ``table`` level ``code`` (``NotFound`` if missing, ``Conflict`` if it is not a table level; both
    naming ``progressive_level``). ``for_update``: take its row lock."""
    lv = uow.levels.get(code, for_update=for_update)
    if lv is None:
        raise NotFound(f"jackpot level {code!r} does not exist", field="progressive_level")
    if lv.kind != "table":
        raise Conflict(f"jackpot level {code!r} is a {lv.kind} level, not a table progressive",
                       field="progressive_level")
    return lv


class TableProgressives:
    """``wallet``: the players' wallets the awards are paid into; ``signage``: the meters after a round."""

    def __init__(self, ctx: ServiceContext, *, wallet: TableWallet, signage: Signage) -> None:
        self.ctx = ctx
        self.wallet = wallet
        self.signage = signage

    def level(self, uow: JackpotUnitOfWork, code: str, *, for_update: bool = False) -> Level:
        """See :func:`table_level`."""
        return table_level(uow, code, for_update=for_update)

    def settle_round(self, uow: JackpotUnitOfWork, code: str, *, stakes: list[int], awards: list[TableAward],
                     refs: Mapping[str, Any]) -> TableRound:
        """Contributions and awards of one table round on level ``code`` (see the module doc), and the meters
        broadcast after the commit.

        ``stakes``: the action (won) of every progressive bet in play (not voided); ``awards``: the claims,
        best line first; ``refs``: the table and round, recorded on the entries and events."""
        out = self.settle_round_in(uow, code, stakes=stakes, awards=awards, refs=refs)
        uow.after_commit(lambda: self.signage.publish_meters(force=bool(out.awards)))
        return out

    def settle_round_in(self, uow: JackpotUnitOfWork, code: str, *, stakes: list[int], awards: list[TableAward],
                        refs: Mapping[str, Any]) -> TableRound:
        """:meth:`settle_round` without the broadcast."""
        refs = dict(refs)
        row = table_level(uow, code, for_update=True)
        before = row.value_milli
        pool = pool_of(row)
        claims = [TableClaim(a.hand, a.meter_ppm, a.fixed, a.shared_by) for a in awards]
        contributed0 = pool.contributed_milli
        paid: list[TablePaid] = table_round(pool, stakes, claims, self.ctx.rng, now=self.ctx.clock.now())
        if pool.changed:
            ensure_accounts(uow, code)
            entry = L.EntryBuilder("jackpot.table", f"{code}: table {refs.get('table')} round {refs.get('round')}")
            for debit, credit, amount in pool.ledger_legs():
                entry.add(debit=debit, credit=credit, amount=amount)
            if not entry.empty:
                uow.ledger.post(entry.build({"level": code, **refs}))
        uow.levels.save_pools([pool])
        out = []
        now = self.ctx.clock.now()
        for a, p in zip(awards, paid):
            entry_id = None
            if p.amount > 0:
                entry_id = self.wallet.pay_table_award(uow, a.player_id, accounts.jackpot_payable(code), p.amount,
                                                       refs={**refs, "level": code, "box": a.box, "hand": a.hand})
            d = {"player_id": a.player_id, "box": a.box, "hand": a.hand, "amount": p.amount,
                 "from_meter": p.from_meter, "from_house": p.from_house, "meter": p.meter, "cycle": p.cycle,
                 "entry": entry_id}
            if a.meter_ppm:
                d.update(meter_ppm=a.meter_ppm, shared_by=a.shared_by)
            out.append(d)
            uow.levels.add_event(kind="table_award", level_code=code, machine=str(refs.get("table", ""))[:20],
                                 actor="table", reason=f"{a.hand} on box {a.box}: ₩{p.amount:,}",
                                 detail={**refs, **d, "bet": a.bet_id}, created_at=now)
        return TableRound(level=code, cycle=pool.cycle, meter_before=milli_to_won_floor(before),
                          meter_after=milli_to_won_floor(pool.value_milli),
                          contributed_milli=pool.contributed_milli - contributed0, awards=out)
