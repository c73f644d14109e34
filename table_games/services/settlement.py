"""Settling a house-banked round, replaying it, and the baccarat roadmaps.

Settlement, in ONE transaction (exactly once per ``Idempotency-Key``; a settled round is refused): the engine
decides the outcome (dealer input or the CSPRNG) and settles every bet (:class:`Settlement`: stake returned +
win − commission); the bets the last decisions place are debited first. Then the house's net moves between
``table:<code>:bets`` and ``table:<code>:hold`` (one entry), each player's payout is credited to their wallet from
the bet account (one entry per player; colour-chip bets are paid in the player's colour while they hold it) and
the progressive side bet's stakes and awards are posted on the jackpot controller's level
(:class:`~table_games.services.ports.TableProgressives`). A void round returns every bet. Lock order: table row →
round row → progressive level row → player row → accounts.

A progressive award of at least ``Settings.table_progressive_verify_won`` on dealer-entered cards is verified and
settled by a supervisor (``Forbidden`` field ``round`` for the pit; nothing moves).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from slotsys.kernel import accounts
from slotsys.kernel import ledger as L
from slotsys.kernel.checks import require_role
from slotsys.kernel.context import Principal
from slotsys.kernel.errors import Conflict, Forbidden, ValidationFailed
from slotsys.kernel.idempotency import Once, OnceKey, run_once
from table_games.domain.engines.base import DealerInput, ShoeGame
from table_games.domain.model import FINISHED, Table
from table_games.domain.poker_table import PROGRESSIVE
from table_games.domain.settlement import VOID, Bet, Settlement
from table_games.services.common import (
    DEALER_ROLES, READ_ROLES, TableGamesService, engine, play_of, round_fields, rules_of, seat_map,
)
from table_games.services.ports import TablesUnitOfWork
from table_games.services.results import RoundReplayed, RoundSettled


@dataclass(frozen=True)
class Posted:
    """What a settlement moved: the house's net (won: stakes − payouts), the payout per player credited to the
    wallet and paid in colour chips (won), and the journal entries posted."""

    house_net: int
    payouts: dict[int, int]
    in_chips: dict[int, int]
    entries: list[int]


class SettlementService(TableGamesService):
    """Settlement, replay and roadmaps (see the module doc)."""

    def settle(self, principal: Principal, code: str, number: int, inp: DealerInput,
               key: OnceKey) -> Once[RoundSettled]:
        """The outcome (``inp``: the dealer's input, or nothing for the CSPRNG; ``void`` returns every bet) and
        the settlement of round ``number``, in one transaction."""
        require_role(principal, *DEALER_ROLES, "supervisor")

        def fn(uow: TablesUnitOfWork) -> RoundSettled:
            t = uow.tables.get(code, for_update=True)
            r = uow.tables.round(t.id, number, for_update=True)
            if r.status in FINISHED:
                raise Conflict(f"round {number} is already {r.status}", field="round")
            game, rules = engine(t), rules_of(t)
            rows = uow.tables.bets(r.id)
            bets = [b.bet() for b in rows]
            progressive = game.progressive_spot and any(b.spot == PROGRESSIVE for b in rows)
            if progressive:  # lock order: table → round → level → accounts
                self.progressives.table_level(uow, t.progressive_level, for_update=True)
            res = game.resolve(play_of(t, bets, r.state, seat_map(uow.tables.seats(t.id))), inp, self.ctx.rng)
            t = replace(t, shoe_no=t.shoe_no if res.shoe_no is None else res.shoe_no,
                        shoe=t.shoe if res.shoe is None else res.shoe)
            for x in res.placed:  # blackjack doubles / splits / insurance, poker bets: debited now, settled now
                row, _ = self.debit_decision_bet(uow, principal, t, r, x)
                rows.append(row)
                bets.append(row.bet())
            settlements = game.settle(bets, res.outcome, rules)
            posted = self._post(uow, t, number, settlements, {b.id: b.colour for b in rows})
            outcome = res.recorded()
            paid: dict[str, Any] | None = None
            if progressive:
                paid = self._pay_progressive(uow, t, number, rules, bets, res.outcome, settlements)
                outcome = {**outcome, "progressive": paid}
                self._verify_progressive(principal, res.mode, number, paid)
            r = replace(r, outcome=outcome, state=r.state if res.state is None else res.state, mode=res.mode,
                        shoe_no=t.shoe_no, status="void" if res.void else "settled",
                        settlements=[s.to_dict() for s in settlements], house_net=posted.house_net,
                        settled_at=self.ctx.clock.now())
            uow.tables.save_round(r)
            uow.tables.save(t)
            out: dict[str, Any] = {**round_fields(t, r, rows),
                                   "payouts": {str(k): v for k, v in sorted(posted.payouts.items())}}
            if posted.in_chips:
                out["payouts_in_chips"] = {str(k): v for k, v in sorted(posted.in_chips.items())}
            out["entries"] = posted.entries
            if paid is not None:
                out["progressive"] = paid
            return RoundSettled(**out)

        return run_once(self.ctx, key, fn, result=RoundSettled)

    def _verify_progressive(self, principal: Principal, mode: str, number: int, progressive: dict[str, Any]) -> None:
        """Dealer-entered cards that win a large progressive award: a supervisor settles (verifies) the round."""
        big = max((a["amount"] for a in progressive.get("awards", [])), default=0)
        limit = self.ctx.settings.table_progressive_verify_won
        if mode == "input" and big >= limit and principal.role not in ("supervisor", "admin"):
            raise Forbidden(f"round {number}: a progressive award of ₩{big:,} on dealer-entered cards (₩{limit:,} or "
                            f"more) is verified and settled by a supervisor", field="round")

    def _pay_progressive(self, uow: TablesUnitOfWork, t: Table, number: int, rules: Any, bets: list[Bet],
                         outcome: Any, settlements: list[Settlement]) -> dict[str, Any]:
        """The round's progressive on the jackpot controller, in this transaction: every progressive stake
        still in play (not returned) contributes to the meter; the qualifying hands are paid from it (or
        the fixed amounts by the house) into the players' wallets. Signage shows the new meter after the commit
        (at once after an award)."""
        assert t.progressive_level is not None
        stakes = [s.bet.action for s in settlements if s.bet.spot == PROGRESSIVE and s.result != VOID]
        claims = engine(t).progressive_awards(bets, outcome, rules)
        out = self.progressives.settle_round(uow, t.progressive_level, stakes=stakes, awards=claims,
                                             refs={"table": t.code, "round": number})
        force = bool(out["awards"])
        uow.after_commit(lambda: self.progressives.announce(force=force))
        return out

    def _post(self, uow: TablesUnitOfWork, t: Table, number: int, settlements: list[Settlement],
              colours: dict[int, str | None]) -> Posted:
        """The settlement's money: the house funds the winnings from the hold (or keeps the losing stakes),
        each player's payout goes to their wallet, colour-chip bets are paid in the player's colour (to the
        wallet if the colour was cashed out meanwhile or the payout is not whole chips)."""
        staked = sum(s.bet.amount for s in settlements)
        payouts: dict[int, int] = {}
        in_chips: dict[int, int] = {}
        for s in settlements:
            pid = int(s.bet.player)
            if colours.get(int(s.bet.id) if s.bet.id else -1):
                in_chips[pid] = in_chips.get(pid, 0) + s.payout
            else:
                payouts[pid] = payouts.get(pid, 0) + s.payout
        for pid, won in list(in_chips.items()):
            stack = uow.tables.stack(t.id, pid)
            if stack is None or won % stack.chip_value:
                payouts[pid] = payouts.get(pid, 0) + in_chips.pop(pid)
        house_net = staked - sum(payouts.values()) - sum(in_chips.values())
        refs = {"table": t.code, "round": number}
        bets_account, hold = accounts.table_bets(t.code), accounts.table_hold(t.code)
        entries = []
        if house_net < 0:
            e = L.EntryBuilder("table.settle", f"table {t.code} round {number}: house pays")
            e.add(debit=hold, credit=bets_account, amount=-house_net)
            entries.append(uow.ledger.post(e.build(refs)))
        for pid in sorted(payouts):
            if payouts[pid] > 0:
                entries.append(self.wallet.credit_from_table(uow, pid, bets_account, payouts[pid], refs=refs))
        for pid in sorted(in_chips):
            if in_chips[pid] > 0:
                stack = uow.tables.stack(t.id, pid)
                assert stack is not None
                stack = replace(stack, chips=stack.chips + in_chips[pid] // stack.chip_value)
                uow.tables.save_stack(stack)
                e = L.EntryBuilder("table.colour_pay", f"{stack.colour} chips paid at {t.code}")
                e.add(debit=bets_account, credit=accounts.table_chips(t.code), amount=in_chips[pid])
                entries.append(uow.ledger.post(e.build({**refs, "player": pid, "colour": stack.colour})))
        if house_net > 0:
            e = L.EntryBuilder("table.settle", f"table {t.code} round {number}: house wins")
            e.add(debit=bets_account, credit=hold, amount=house_net)
            entries.append(uow.ledger.post(e.build(refs)))
        return Posted(house_net, payouts, in_chips, entries)

    # ------------------------------------------------------------------ replay + roadmaps
    def replay(self, principal: Principal, code: str, number: int) -> RoundReplayed:
        """Recompute the settlement from the stored outcome, bets and rules; compare with the record (a dealt
        round is also played again from its recorded cards and decisions)."""
        require_role(principal, *READ_ROLES)
        with self.ctx.uow(readonly=True) as uow:
            t = uow.tables.get(code)
            r = uow.tables.round(t.id, number)
            if r.status not in FINISHED:
                raise Conflict(f"round {number} is not settled", field="round")
            game, rules = engine(t), rules_of(t)
            bets = [b.bet() for b in uow.tables.bets(r.id)]
            recorded = r.outcome or {}
            again = [s.to_dict() for s in game.settle(bets, game.outcome_from_dict(recorded), rules)]
            out: dict[str, Any] = {"table": code, "round": number, "settlements": again,
                                   "matches": again == r.settlements,
                                   "house_net": sum(s["bet"]["amount"] - s["payout"] for s in again)}
            if r.status == "settled":
                out.update(game.replay_checks(rules, bets, r.state, recorded))
            return RoundReplayed(**out)

    def roadmaps(self, principal: Principal, code: str, shoe_no: int | None = None) -> dict[str, Any]:
        """Baccarat: the scoreboard of the current shoe (or shoe ``shoe_no``)."""
        require_role(principal, *READ_ROLES)
        with self.ctx.uow(readonly=True) as uow:
            t = uow.tables.get(code)
            game = engine(t)
            if not isinstance(game, ShoeGame):
                raise ValidationFailed("roadmaps are for baccarat tables", field="code")
            n = t.shoe_no if shoe_no is None else shoe_no
            rounds = [r for r in reversed(uow.tables.rounds(t.id, shoe_no=n, limit=1000)) if r.status == "settled"]
            return {"table": code, "shoe_no": n, **game.scoreboard([r.outcome or {} for r in rounds])}
