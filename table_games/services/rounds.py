"""Rounds at the house-banked tables, up to their settlement: open betting, bets (a seated player with their own
token, or a dealer on their behalf; spectators backing a box with the seated player's permission), no more bets,
the deal and one decision at a time (blackjack and the poker games), the pai gow bank and hand-setting helpers,
the baccarat shoe. Every game through its engine (:mod:`table_games.domain.engines`).

Bets and the bets decisions place are debited from the player's wallet when made (``table:<code>:bets``); a
roulette colour-chip bet moves chips ``table:<code>:chips`` → ``table:<code>:bets``. The table row lock
(``for_update``) serialises the bets of one table, so the limits hold under concurrency. Money-moving use cases
run exactly once per ``Idempotency-Key`` (:func:`slotsys.kernel.idempotency.run_once`).

Errors: ``NotFound`` (404), ``Conflict`` (409: table closed, round in play, not dealt), ``BettingClosed`` (409),
``TableRuleError`` / ``ValidationFailed`` (422), ``Forbidden`` (403), ``InsufficientFunds`` (409).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Sequence

from slotsys.kernel import accounts
from slotsys.kernel import ledger as L
from slotsys.kernel.checks import require_role
from slotsys.kernel.context import Principal
from slotsys.kernel.errors import Conflict, Forbidden, InsufficientFunds, NotFound, ValidationFailed
from slotsys.kernel.idempotency import Once, OnceKey, run_once
from table_games.domain.engines.base import BankingGame, BetContext, ColourChipGame, DealerInput, Decision, ShoeGame
from table_games.domain.errors import BettingClosed, TableRuleError
from table_games.domain.model import IN_PLAY, PlacedBet, Round, Table
from table_games.domain.poker_table import PROGRESSIVE
from table_games.domain.settlement import Bet
from table_games.services.common import (
    DEALER_ROLES, READ_ROLES, TableGamesService, engine, limits_of, play_of, round_fields, rules_of, seat_map,
)
from table_games.services.ports import TablesUnitOfWork
from table_games.services.results import BankTaken, BetPlaced, DecisionMade, RoundDealt, RoundView, ShoeShuffled


@dataclass(frozen=True)
class PlaceBet:
    """A bet: ``spot`` and ``amount`` (won) for ``player_id`` (staff name the player; a player's own token bets
    for themself), on ``box`` where the game has boxes; ``accepted_over_max``: the pit accepted it over the
    maximum (paid or taken only up to it)."""

    spot: str
    amount: int
    player_id: int | None = None
    box: str | None = None
    accepted_over_max: bool = False


def bettor(principal: Principal, player_id: int | None) -> int | None:
    """Whose bet it is: a player token bets for themself only (``Forbidden`` for another player); staff name the
    player (None when they did not; :meth:`RoundService.place_bet` refuses that)."""
    if principal.kind == "player":
        me = int(principal.name)
        if player_id not in (None, me):
            raise Forbidden("a player bets only for themself", field="player_id")
        return me
    return player_id


class RoundService(TableGamesService):
    """Rounds up to their settlement (see the module doc)."""

    # ------------------------------------------------------------------ rounds
    def open_round(self, principal: Principal, code: str) -> RoundView:
        """Open betting on the table's next round (the one before must be settled or void)."""
        require_role(principal, *DEALER_ROLES)
        with self.ctx.uow() as uow:
            t = uow.tables.get(code, for_update=True)
            if t.status == "closed":
                raise Conflict(f"table {code} is closed", field="code")
            if t.round_seq:
                last = uow.tables.round(t.id, t.round_seq)
                if last.status in IN_PLAY:
                    raise Conflict(f"round {last.number} is still in play", field="round")
            t = replace(t, round_seq=t.round_seq + 1)
            uow.tables.save(t)
            r = uow.tables.add_round(Round(id=0, table_id=t.id, number=t.round_seq, status="betting",
                                           shoe_no=t.shoe_no, opened_at=self.ctx.clock.now()))
            out = RoundView(**round_fields(t, r, []))
            uow.commit()
            return out

    def no_more_bets(self, principal: Principal, code: str, number: int) -> RoundView:
        require_role(principal, *DEALER_ROLES)
        with self.ctx.uow() as uow:
            t = uow.tables.get(code, for_update=True)
            r = uow.tables.round(t.id, number, for_update=True)
            if r.status != "betting":
                raise BettingClosed(f"round {number} is {r.status}")
            r = replace(r, status="no_more_bets")
            uow.tables.save_round(r)
            out = RoundView(**round_fields(t, r, uow.tables.bets(r.id)))
            uow.commit()
            return out

    def get_round(self, principal: Principal, code: str, number: int) -> RoundView:
        """A round's record; while a dealt round is decided, how it stands (``play``); pai gow: who banks."""
        require_role(principal, *READ_ROLES)
        with self.ctx.uow(readonly=True) as uow:
            t = uow.tables.get(code)
            r = uow.tables.round(t.id, number)
            rows = uow.tables.bets(r.id)
            shown = engine(t).round_view(play_of(t, [b.bet() for b in rows], r.state, {}), r.status)
            return RoundView(**round_fields(t, r, rows), **shown)

    # ------------------------------------------------------------------ bets
    def place_bet(self, principal: Principal, code: str, number: int, cmd: PlaceBet, key: OnceKey) -> Once[BetPlaced]:
        """A bet by the player (player token: for themself only) or by a dealer on a seated player's behalf,
        checked by the game against the table's limits, then debited."""
        player_id = bettor(principal, cmd.player_id)
        if principal.kind != "player":
            require_role(principal, *DEALER_ROLES)
            if player_id is None:
                raise ValidationFailed("player_id is required when staff place a bet", field="player_id")
        assert player_id is not None
        spot, amount, box = cmd.spot, cmd.amount, cmd.box
        over_max = bool(cmd.accepted_over_max)
        if over_max and principal.kind == "player":  # only the dealer can make (and own) that mistake
            raise Forbidden("only the pit accepts a bet over the maximum", field="accepted_over_max")

        def fn(uow: TablesUnitOfWork) -> BetPlaced:
            t = uow.tables.get(code, for_update=True)
            if t.status == "closed":
                raise Conflict(f"table {code} is closed", field="code")
            r = uow.tables.round(t.id, number, for_update=True)
            seats = uow.tables.seats(t.id)
            existing = [b.bet() for b in uow.tables.bets(r.id)]
            game, rules = engine(t), rules_of(t)
            by_seat = seat_map(seats)
            if not game.boxed and box is not None:
                raise TableRuleError("box", f"{t.game} bets have no box")
            backing = box is not None and box in by_seat and by_seat[box] != str(player_id)
            if backing and game.owner_only_boxes:  # one hand, one player: the engines play a box per ante
                raise TableRuleError("box", f"box {box} is {by_seat[box]}'s: at {game.title} a box's "
                                            "ante and side bets are the seated player's own")
            if str(spot).strip().lower() == PROGRESSIVE and game.progressive_spot:
                self._progressive_open(uow, t)
            permissions: frozenset[tuple[str, str]] = frozenset()
            if backing:  # a spectator (or another seated player) backing someone's box: a live permission
                holder = int(by_seat[box])
                if not any(b.player_id == player_id and b.granted_by_player == holder
                           for b in uow.tables.backers(t.id, box)):
                    raise Forbidden(f"player {player_id} may back box {box} only with the seated player's permission",
                                    field="box")
                permissions = frozenset({(box, str(player_id))})
                if not any(b.box == box and b.player == by_seat[box] and b.spot == "main" for b in existing):
                    raise Conflict(f"the seated player has no main bet on box {box} to back yet", field="box")
            elif not any(s.player_id == player_id for s in seats):
                raise Conflict(f"player {player_id} is not seated at {code}", field="player_id")
            stack = uow.tables.stack(t.id, player_id) if isinstance(game, ColourChipGame) else None
            ctx = BetContext(betting_open=r.status == "betting",
                             participants=frozenset({b.player for b in existing} | {str(player_id)}),
                             seats=by_seat if game.boxed else None, permissions=permissions,
                             accept_over_max=over_max, chip_value=stack.chip_value if stack else None)
            bet = game.check_bet(Bet(spot=spot, amount=amount, player=str(player_id), box=box), limits_of(t),
                                 existing, rules, ctx)
            refs = {"table": code, "round": number, "spot": bet.spot, "player": player_id}
            if stack is not None:  # a colour-chip player bets whole chips of their colour
                if stack.value < bet.amount:
                    raise InsufficientFunds(f"the {stack.colour} stack holds {stack.chips} chips of "
                                            f"₩{stack.chip_value:,}, less than ₩{bet.amount:,}", field="amount")
                stack = replace(stack, chips=stack.chips - bet.amount // stack.chip_value)
                uow.tables.save_stack(stack)
                e = L.EntryBuilder("table.colour_bet", f"{stack.colour} chips bet at {code}")
                e.add(debit=accounts.table_chips(code), credit=accounts.table_bets(code), amount=bet.amount)
                entry = uow.ledger.post(e.build({**refs, "colour": stack.colour}))
            else:
                entry = self.wallet.debit_for_table(uow, player_id, accounts.table_bets(code), bet.amount, refs=refs)
            row = uow.tables.add_bet(PlacedBet(id=0, round_id=r.id, player_id=player_id, spot=bet.spot,
                                               amount=bet.amount, box=bet.box, cap=bet.cap, entry_id=entry,
                                               colour=stack.colour if stack else None, placed_by=principal.id))
            out: dict[str, Any] = {
                "table": code, "round": number,
                "bet": {"id": row.id, "player_id": player_id, "spot": bet.spot, "box": bet.box, "amount": bet.amount,
                        "cap": bet.cap, "entry": entry, "colour": row.colour},
                "wallet": self.wallet.balances(uow, player_id)}
            if stack is not None:
                out["colour_stack"] = {"colour": stack.colour, "chip_value": stack.chip_value, "chips": stack.chips}
            return BetPlaced(**out)

        return run_once(self.ctx, key, fn, result=BetPlaced)

    def _progressive_open(self, uow: TablesUnitOfWork, t: Table) -> None:
        """A progressive bet needs the table's level on the jackpot controller, not paused."""
        if not t.progressive_level:
            raise TableRuleError("spot", f"table {t.code} offers no progressive (no progressive level is set)")
        if self.progressives.table_level(uow, t.progressive_level).paused:
            raise Conflict(f"the progressive {t.progressive_level} is paused", field="spot")

    # ------------------------------------------------------------------ the deal and the decisions
    def deal(self, principal: Principal, code: str, number: int, inp: DealerInput) -> RoundDealt:
        """The first deal after no more bets, once: blackjack (the dealer's ``cards`` in input mode, else the
        CSPRNG) and the poker games (the dealer's hands as dealt, else the CSPRNG shuffles a deck; pai gow also
        rolls the dice). The result is what the table shows."""
        require_role(principal, *DEALER_ROLES)
        with self.ctx.uow() as uow:
            t = uow.tables.get(code, for_update=True)
            game = engine(t)
            if not game.dealt:
                raise ValidationFailed("only blackjack and the poker games are dealt and played decision by decision",
                                       field="code")
            r = uow.tables.round(t.id, number, for_update=True)
            if r.status != "no_more_bets" or r.dealt:
                raise Conflict(f"round {number} is {r.status}{' and already dealt' if r.dealt else ''}: "
                               "deal once, after no more bets", field="round")
            bets = [b.bet() for b in uow.tables.bets(r.id)]
            dealt = game.deal(play_of(t, bets, r.state, seat_map(uow.tables.seats(t.id))), inp, self.ctx.rng)
            uow.tables.save_round(replace(r, state=dealt.state, mode=dealt.state["mode"]))
            out = RoundDealt(table=code, round=number, **dealt.view)
            uow.commit()
            return out

    def decide(self, principal: Principal, code: str, number: int, decision: Decision, cards: Sequence[str] | None,
               key: OnceKey) -> Once[DecisionMade]:
        """One decision in turn by the box's seated player (player token) or the dealer: blackjack (hit, stand,
        double, split, surrender, insurance, even money, no insurance; ``cards``: what it draws in input mode),
        play / call / a street bet (debited now) / check / fold, a pai gow hand setting."""
        if principal.kind != "player":
            require_role(principal, *DEALER_ROLES)

        def fn(uow: TablesUnitOfWork) -> DecisionMade:
            t = uow.tables.get(code, for_update=True)
            r = uow.tables.round(t.id, number, for_update=True)
            game = engine(t)
            if not game.dealt or not r.dealt or r.status != "no_more_bets":
                raise Conflict(f"round {number} is not being played (deal it first)", field="round")
            seats = uow.tables.seats(t.id)
            if principal.kind == "player" and {s.seat: s.player_id for s in seats}.get(decision.box) != int(principal.name):
                raise Forbidden(f"box {decision.box} is not the player's", field="box")
            bets = [b.bet() for b in uow.tables.bets(r.id)]
            done = game.decide(play_of(t, bets, r.state, seat_map(seats)), decision, cards)
            debited = [self.debit_decision_bet(uow, principal, t, r, x)[1] for x in done.placed]
            uow.tables.save_round(replace(r, state=done.state))
            return DecisionMade(table=code, round=number, decision=done.record, debited=debited, **done.view)

        return run_once(self.ctx, key, fn, result=DecisionMade)

    # ------------------------------------------------------------------ pai gow: the bank, the helpers
    def take_bank(self, principal: Principal, code: str, number: int, seat: str, key: OnceKey) -> Once[BankTaken]:
        """The player seated at ``seat`` banks this hand (after no more bets, before the dice).

        Rules (seed page 001, :meth:`~table_games.domain.engines.pai_gow.PaiGowPoker.bank_cover`): once every
        ``bank_every`` (7) hands, having played the previous hand, able to cover the action: every other place's
        bets plus the house's bet against the banker (= the player's bet on the previous hand). The cover is
        debited from the wallet now (a ``bank`` bet) and settled with the round. The banking player's place has
        no main bet of its own."""
        if principal.kind != "player":
            require_role(principal, *DEALER_ROLES)

        def fn(uow: TablesUnitOfWork) -> BankTaken:
            t = uow.tables.get(code, for_update=True)
            game = engine(t)
            if not isinstance(game, BankingGame):
                raise ValidationFailed("players bank at pai gow poker only", field="code")
            r = uow.tables.round(t.id, number, for_update=True)
            if r.status != "no_more_bets" or r.state:
                raise Conflict(f"round {number}: the bank is taken once, after no more bets and before the deal",
                               field="round")
            pid = {s.seat: s.player_id for s in uow.tables.seats(t.id)}.get(seat)
            if pid is None:
                raise NotFound(f"nobody sits at seat {seat}", field="seat")
            if principal.kind == "player" and pid != int(principal.name):
                raise Forbidden(f"seat {seat} is not the player's", field="seat")
            bets = [b.bet() for b in uow.tables.bets(r.id)]
            rules = rules_of(t)
            earlier = [x for x in uow.tables.rounds(t.id, limit=game.bank_window(rules)) if x.number < number]
            prev = next((x for x in earlier if x.number == number - 1), None)
            house_bet = sum(b.amount for b in (uow.tables.bets(prev.id) if prev else [])
                            if b.player_id == pid and b.spot == "main")
            banked = [x.number for x in earlier if (x.state or {}).get("banker_player") == pid]
            cover = game.bank_cover(rules, seat, number, bets, house_bet=house_bet, banked=banked,
                                    bankroll=self.wallet.balances(uow, pid)["cashable"])
            _, escrow = self.debit_decision_bet(uow, principal, t, r, Bet("bank", cover, str(pid), seat))
            uow.tables.save_round(replace(r, state=game.bank_state(seat, pid, house_bet)))
            return BankTaken(table=code, round=number, banker=seat, player_id=pid, cover=cover, house_bet=house_bet,
                             entry=escrow["entry"], wallet=self.wallet.balances(uow, pid))

        return run_once(self.ctx, key, fn, result=BankTaken)

    def hand_help(self, principal: Principal, code: str, number: int, place: str, kind: str,
                  samples: int = 1_000) -> dict[str, Any]:
        """Pai gow helpers for a dealt hand (the seated player's token, or staff): ``house_way`` -- how the
        table's house way sets it ("house way for me"); ``optimal`` -- every non-foul setting valued against
        the dealer's house way (``samples`` dealer hands from the unseen cards, CSPRNG), best first, with the
        house way's own value. The valuation runs after the read transaction is closed (≈ 1 s per 1,000
        samples)."""
        if principal.kind != "player":
            require_role(principal, *READ_ROLES)
        with self.ctx.uow(readonly=True) as uow:
            t = uow.tables.get(code)
            game = engine(t)
            if not isinstance(game, BankingGame):
                raise ValidationFailed("hand-setting helpers are for pai gow poker", field="code")
            state = uow.tables.round(t.id, number).state or {}
            rules = rules_of(t)
        owner = game.hand_owner(state, number, place)
        if principal.kind == "player" and owner != principal.name:
            raise Forbidden(f"place {place} is not the player's", field="box")
        return {"table": code, "round": number, **game.hand_help(rules, state, place, kind, self.ctx.rng, samples)}

    # ------------------------------------------------------------------ the baccarat shoe
    def new_shoe(self, principal: Principal, code: str) -> ShoeShuffled:
        """A fresh shoe shuffled by the CSPRNG and a new shoe number (its roadmaps start empty)."""
        require_role(principal, *DEALER_ROLES)
        with self.ctx.uow() as uow:
            t = uow.tables.get(code, for_update=True)
            game = engine(t)
            if not isinstance(game, ShoeGame):
                raise ValidationFailed("only baccarat tables keep a shoe", field="code")
            if t.round_seq and uow.tables.round(t.id, t.round_seq).status in IN_PLAY:
                raise Conflict("finish the round in play first", field="round")
            shoe = game.shuffle(rules_of(t), self.ctx.rng)
            t = replace(t, shoe_no=t.shoe_no + 1, shoe=shoe)
            uow.tables.save(t)
            out = ShoeShuffled(table=code, shoe_no=t.shoe_no, burned=shoe["burned"],
                               cards_left=len(shoe["cards"]) - shoe["pos"])
            uow.commit()
            return out
