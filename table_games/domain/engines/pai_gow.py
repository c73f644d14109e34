"""Pai gow poker behind the engine interface: the dice deal seven hands of seven (the CSPRNG shuffles 53 cards and
shakes the dice, or the dealer enters the dice and the hands as dealt), each player sets a high and a low hand
(``set``, or the table's ``house_way``), the banker plays every place; a seated player may bank the round
(:class:`~table_games.domain.engines.base.BankingGame`); hand-setting help ("house way for me", the optimal
setting valued against the dealer's house way)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from slotsys.kernel.errors import Conflict, NotFound, ValidationFailed
from slotsys.kernel.ports import Rng
from table_games.domain import paigow as PG
from table_games.domain.engines.base import DEAL_INPUT, BankingGame, BetContext, DealerInput, RoundPlay
from table_games.domain.engines.poker import PokerEngine, seat_order
from table_games.domain.errors import TableRuleError
from table_games.domain.limits import TableLimits
from table_games.domain.settlement import Bet, Settlement

BANK_KEYS = ("banker", "banker_player", "house_bet")


def players_of(bets: Sequence[Bet], seats: Mapping[str, str], state: Mapping[str, Any]) -> dict[str, str]:
    """Place → seated player for every place with a main bet, and the banking player's place."""
    places = {b.box for b in bets if b.spot == "main" and b.box is not None}
    banker = state.get("banker")
    if banker and banker != PG.DEALER:
        places.add(banker)
    if not places - {banker}:
        raise TableRuleError("round", "no place has a bet: nothing to deal")
    return {p: seats[p] for p in sorted(places, key=seat_order)}


class PaiGowPoker(PokerEngine, BankingGame):
    name = "pai_gow_poker"
    default_rules = PG.HOUSE_WAY_91
    actions = ("set", "house_way")

    def rules_from_dict(self, d: Mapping[str, Any]) -> PG.PaiGowRules:
        return PG.PaiGowRules.from_dict(d)

    def table_rules(self, given: Mapping[str, Any] | None, *, commission_unit: int) -> PG.PaiGowRules:
        """The variant with its 5% commission rounded up to the table's ``commission_unit`` (won)."""
        rules = super().table_rules(given, commission_unit=commission_unit)
        return self.rules_from_dict({**rules.to_dict(), "commission_unit": commission_unit})

    def default_limits(self, rules: Any = None, *, chip_unit: int = 1_000) -> TableLimits:
        return PG.default_limits(chip_unit=chip_unit)

    def check_seat(self, rules: Any, seat: str) -> None:
        """The dice count the places of the ring: a seat is one of them."""
        places = [p for p in rules.ring if p != PG.DEALER]
        if seat not in places:
            raise ValidationFailed(f"a pai gow seat is one of {', '.join(sorted(places))}", field="seat")

    def check_bet(self, bet: Bet, limits: TableLimits, existing: Sequence[Bet], rules: Any, ctx: BetContext) -> Bet:
        return PG.check_bet(bet, limits, existing, **ctx.limits())

    # -------------------------------------------------------------- deal, build, act, view
    def deal_state(self, play: RoundPlay, inp: DealerInput, rng: Rng) -> dict[str, Any]:
        """The dice and the seven hands; the state keeps the bank (if a player took it), the places' players
        and where the deal started."""
        state = dict(play.state or {})
        banker = state.get("banker", PG.DEALER)
        players = players_of(play.bets, play.seats, state)
        entered = inp.has(*DEAL_INPUT)
        if entered:
            if not isinstance(inp.dice, list):
                raise TableRuleError("dice", "enter the three dice")
            if not isinstance(inp.hands, Mapping):
                raise TableRuleError("hands", "enter each place's cards as dealt: {place: [cards]}")
            dealt = PG.deal_from_hands(inp.dice, inp.hands, play.rules, banker=banker)
        else:
            dealt = PG.deal_live(rng, play.rules, banker=banker)
        return {**state, "mode": "input" if entered else "rng", "deal": dealt.to_dict(), "players": players,
                "first": PG.first_position(dealt.dice, play.rules, banker)}

    def build(self, rules: Any, bets: Sequence[Bet], state: Mapping[str, Any]) -> PG.PaiGowRound:
        return PG.PaiGowRound(rules, PG.PaiGowDeal.from_dict(state["deal"]), state["players"],
                              house_bet=state.get("house_bet", 0))

    def act(self, rnd: PG.PaiGowRound, d: Mapping[str, Any]) -> None:
        """``set`` (``high`` five cards, ``low`` two; ``confirm_foul`` accepts a foul) or ``house_way``."""
        if d["action"] == "house_way":
            rnd.set_house_way(d["box"])
        elif d["action"] == "set":
            if d.get("high") is None or d.get("low") is None:
                raise TableRuleError("high", "a hand setting names its five-card high and two-card low hands")
            rnd.set_hand(d["box"], d["high"], d["low"], confirm_foul=bool(d.get("confirm_foul")))
        else:
            raise TableRuleError("action", f"unknown decision {d['action']!r} (set or house_way)")
        return None

    def view(self, rnd: PG.PaiGowRound) -> dict[str, Any]:
        places = {}
        for p, player in rnd.players.items():
            s = rnd.settings.get(p)
            places[p] = {"player_id": int(player), "cards": PG.pg_strings(rnd.cards(p)), "dead": rnd.deal.dead(p),
                         "banker": p == rnd.banker, "set": s.to_dict() if s else None,
                         "house_way": p in rnd.by_house_way}
        return {"dice": list(rnd.deal.dice), "banker": rnd.banker, "house_bet": rnd.house_bet,
                "all_dead": rnd.all_dead,
                "to_act": {"places": rnd.waiting(), "allowed": ["set", "house_way"]} if rnd.waiting() else None,
                "places": places, "house_way_policy": rnd.rules.house_way}

    def round_view(self, play: RoundPlay, status: str) -> dict[str, Any]:
        """How the dealt round stands while decided; otherwise who banks it."""
        shown = super().round_view(play, status)
        if not shown and play.state:
            return {"bank": self.bank_view(play.state)}
        return shown

    # -------------------------------------------------------------- settlement
    def settle(self, bets: Sequence[Bet], outcome: Any, rules: Any) -> list[Settlement]:
        return PG.settle(bets, outcome, rules)

    def _outcome_from_dict(self, d: Mapping[str, Any]) -> PG.PaiGowOutcome:
        return PG.PaiGowOutcome.from_dict(d)

    # -------------------------------------------------------------- the players' bank (seed page 001)
    def bank_window(self, rules: Any) -> int:
        return rules.bank_every + 1

    def bank_cover(self, rules: Any, seat: str, number: int, bets: Sequence[Bet], *, house_bet: int,
                   banked: Sequence[int], bankroll: int) -> int:
        """The banker covers the action: every other place's bets plus the house's bet against the banker
        (``house_bet`` = the player's main bet on the previous hand). Once every ``bank_every`` hands, having
        played the previous hand (a bet on it, or its bank), able to cover from the cashable ``bankroll``
        (:func:`table_games.domain.paigow.check_banker`). The banking player's place has no bets of its own."""
        if any(b.box == seat for b in bets):
            raise TableRuleError("seat", f"place {seat} has bets this hand: the banking player's place plays none")
        cover = PG.banker_cover(bets, seat, house_bet)
        if cover == 0:
            raise TableRuleError("seat", "no player has a bet: there is no action to bank")
        PG.check_banker(seat, number, rules, played_previous=bool(house_bet) or number - 1 in banked,
                        last_banked=max(banked, default=None), bankroll=bankroll, cover=cover)
        return cover

    def bank_state(self, seat: str, player_id: int, house_bet: int) -> dict[str, Any]:
        return {"banker": seat, "banker_player": player_id, "house_bet": house_bet}

    def bank_view(self, state: Mapping[str, Any]) -> dict[str, Any]:
        return {k: state[k] for k in BANK_KEYS if k in state}

    def hand_owner(self, state: Mapping[str, Any], number: int, place: str) -> str:
        if "deal" not in state:
            raise Conflict(f"round {number} has not been dealt", field="round")
        if place not in state["players"]:
            raise NotFound(f"no hand at place {place} in round {number}", field="box")
        return state["players"][place]

    def hand_help(self, rules: Any, state: Mapping[str, Any], place: str, kind: str, rng: Rng,
                  samples: int) -> dict[str, Any]:
        """``house_way``: how the table's house way sets the hand; ``optimal``: every non-foul setting valued
        against the dealer's house way (``samples`` dealer hands from the unseen cards), best five first, with the
        house way's own value (EV per unit bet after the 5% commission, ± its standard error; ≈ 1 s per 1,000
        samples). ``TableRuleError("box")`` for a dead hand."""
        dealt = PG.PaiGowDeal.from_dict(state["deal"])
        if dealt.dead(place):
            raise TableRuleError("box", f"the hand at place {place} is dead (dealt other than seven cards)")
        cards = dealt.hands[place]
        hw = PG.house_way(cards, rules.house_way)
        out: dict[str, Any] = {"box": place, "cards": PG.pg_strings(cards), "house_way_policy": rules.house_way,
                               "house_way": hw.to_dict()}
        if kind == "optimal":
            vals = PG.optimal_setting(cards, rng, policy=rules.house_way, samples=samples)

            def row(v: PG.SettingValue) -> dict[str, Any]:
                return {**v.setting.to_dict(), "ev": round(v.ev, 4), "se": round(v.se, 4), "win": round(v.win, 4),
                        "push": round(v.push, 4), "lose": round(v.lose, 4)}

            mine = next(v for v in vals if (v.setting.high_key, v.setting.low_key) == (hw.high_key, hw.low_key))
            out.update(samples=samples, settings=[row(v) for v in vals[:5]], house_way=row(mine))
        return out
