"""Table progressives on the jackpot controller (issue 8): the meter of a table game's progressive side
bet (Caribbean stud, three card poker, hold'em bonus) is a ``table`` level here.

The table service calls :func:`settle_table_round` inside the round's settlement transaction, after it
locked the table and round rows and the level row (lock order: table → round → level → accounts, the
sequencer's order level → accounts is a suffix of it). In that one transaction:

1. the round's progressive stakes contribute ``rate_ppm`` of each stake to the meter (milli-won);
2. the hands the game's paytable names are paid, best line first (:func:`~jackpot_controller.domain.pool.table_round`:
   several royals share the meter equally, a 100% line resets the level to its seed);
3. ONE journal entry moves the whole-won part: contributions → liability (and reserve / overflow),
   liability → payable for meter awards, seed → payable for fixed awards (house-funded), seed →
   liability for the reset; then each award goes payable → the player's cashable wallet
   (``WalletService.credit_from_table``), so ``:payable`` is back to 0 when the transaction commits;
4. the meters are written on the level row and each award is logged as a ``table_award`` event
   (table, round, box, player, hand, amount, meter, cycle) for the auditor.

Exactly once: the settlement transaction is guarded by the round row (a settled round is refused) and
the request's Idempotency-Key; nothing here runs outside it, so a retried or concurrent settlement
either replays the recorded response or is refused, and a crash rolls everything back together.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from jackpot_controller.adapters.tables import JackpotLevel
from slotsys.kernel import accounts
from jackpot_controller.domain.pool import TableClaim, TablePaid, table_round
from jackpot_controller.services.levels import ensure_accounts, pool_of, write_pool
from slotsys.kernel import ledger as L
from slotsys.kernel.errors import Conflict, NotFound
from slotsys.kernel.money import milli_to_won_floor
from slotsys.players.services.wallet import WalletService


@dataclass(frozen=True)
class TableAward:
    """A hand's claim as the table reports it: who is paid, for which bet and hand."""

    player_id: int
    box: str
    hand: str
    meter_ppm: int = 0
    fixed: int = 0
    shared_by: int = 1
    bet_id: str | None = None


def table_level(uow, code: str, *, for_update: bool = False) -> JackpotLevel:
    """The ``table`` level ``code`` (404 if missing, 409 if it is not a table level)."""
    lv = uow.levels.get(code, for_update=for_update)
    if lv is None:
        raise NotFound(f"jackpot level {code!r} does not exist", field="progressive_level")
    if lv.kind != "table":
        raise Conflict(f"jackpot level {code!r} is a {lv.kind} level, not a table progressive",
                       field="progressive_level")
    return lv


def settle_table_round(uow, ctx, code: str, *, stakes: list[int], awards: list[TableAward],
                       refs: dict[str, Any]) -> dict:
    """Contributions and awards of one table round on level ``code`` (see the module doc).

    ``stakes``: the action (won) of every progressive bet in play (not voided); ``awards``: the claims,
    best line first. Returns {"level", "cycle", "meter_before", "meter_after", "contributed_milli",
    "awards": [{player_id, box, hand, amount, from_meter, from_house, meter, cycle, entry}]}."""
    row = table_level(uow, code, for_update=True)
    before = row.value_milli
    pool = pool_of(row)
    claims = [TableClaim(a.hand, a.meter_ppm, a.fixed, a.shared_by) for a in awards]
    contributed0 = pool.contributed_milli
    paid: list[TablePaid] = table_round(pool, stakes, claims, ctx.rng, now=ctx.clock.now())
    if pool.changed:
        ensure_accounts(uow, code)
        entry = L.EntryBuilder("jackpot.table", f"{code}: table {refs.get('table')} round {refs.get('round')}")
        for debit, credit, amount in pool.ledger_legs():
            entry.add(debit=debit, credit=credit, amount=amount)
        if not entry.empty:
            uow.ledger.post(entry.build({"level": code, **refs}))
    write_pool(row, pool)
    out = []
    now = ctx.clock.now()
    for a, p in zip(awards, paid):
        entry_id = None
        if p.amount > 0:
            entry_id = WalletService.credit_from_table(uow, a.player_id, accounts.jackpot_payable(code), p.amount,
                                                       refs={**refs, "level": code, "box": a.box, "hand": a.hand})
        d = {"player_id": a.player_id, "box": a.box, "hand": a.hand, "amount": p.amount, "from_meter": p.from_meter,
             "from_house": p.from_house, "meter": p.meter, "cycle": p.cycle, "entry": entry_id}
        if a.meter_ppm:
            d.update(meter_ppm=a.meter_ppm, shared_by=a.shared_by)
        out.append(d)
        uow.levels.add_event(kind="table_award", level_code=code, machine=str(refs.get("table", ""))[:20],
                             actor="table", reason=f"{a.hand} on box {a.box}: ₩{p.amount:,}",
                             detail={**refs, **d, "bet": a.bet_id}, created_at=now)
    return {"level": code, "cycle": pool.cycle, "meter_before": milli_to_won_floor(before),
            "meter_after": milli_to_won_floor(pool.value_milli),
            "contributed_milli": pool.contributed_milli - contributed0, "awards": out}
