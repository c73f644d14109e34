"""Blackjack behind the engine interface: dealt after no more bets from a freshly shuffled shoe (CSPRNG) or the
cards the dealer enters, then decided one decision at a time (hit, stand, double, split, surrender, insurance,
even money, no insurance). The round's state is the cards in dealing order and the decisions so far; every call
rebuilds the round from them through :class:`~table_games.domain.blackjack.BlackjackRound` (a stacked shoe), so the
live deal, the dealer's input and a replay take one code path. When the cards entered run out, the refusal says
which card to enter next."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from slotsys.kernel.errors import ValidationFailed
from slotsys.kernel.ports import Rng
from table_games.domain import blackjack as BJ
from table_games.domain.cards import Card, card_strings, parse_cards
from table_games.domain.engines.base import (
    SETTLE_INPUT, BetContext, Dealt, DealerInput, Decided, Decision, GameEngine, Resolution, RoundPlay,
)
from table_games.domain.errors import ShoeExhausted, TableRuleError
from table_games.domain.limits import TableLimits
from table_games.domain.settlement import Bet, Settlement
from table_games.domain.shoe import Shoe

RECORDED = ("box", "action", "amount")  # what a blackjack decision records


class _Round(BJ.BlackjackRound):
    def finish_checked(self) -> BJ.BlackjackOutcome:
        """The dealer's hand from the cards given; raises :class:`TableRuleError` (``cards``) naming the card the
        dealer still needs (``dealer_needs``: the second card, or the next card while drawing to 17)."""
        try:
            return self.finish()
        except ShoeExhausted:
            need = self.dealer_needs or "next card"
            raise TableRuleError("cards", f"enter the dealer's {need}", dealer_needs=need) from None


def _apply(rnd: BJ.BlackjackRound, d: Mapping[str, Any]) -> Any:
    a = d.get("action")
    if a == "insurance":
        return rnd.insure(d["box"], d.get("amount"))
    if a == "even_money":
        return rnd.take_even_money(d["box"])
    if a == "no_insurance":
        return rnd.decline_insurance(d["box"])
    return rnd.act(d["box"], a, d.get("amount"))


def _card_prompt(rnd: BJ.BlackjackRound | None, n_boxes: int, last: Sequence[Mapping[str, Any]]) -> str:
    """What to type when the cards entered so far run out: the initial deal's cards, a split hand's second card,
    or the card the last decision draws."""
    if rnd is None:
        return f"enter the initial deal: {2 * n_boxes + 1} cards (each box, the dealer's upcard, each box)"
    waiting = rnd.hand_waiting_for_card()
    if waiting is not None:
        return f"enter box {waiting[0]} hand {waiting[1]}'s second card"
    if last and last[0].get("action") in ("hit", "double"):
        return f"enter the card box {last[0].get('box')} draws ({last[0]['action']})"
    return "enter the next card (the cards given have run out)"


def table_view(rnd: BJ.BlackjackRound) -> dict[str, Any]:
    """What the table shows during play: the upcard, every hand, who acts and what they may do, and
    ``dealer_needs`` once every hand is played: ``"second card"``, ``"next card"`` (drawing to 17) or None (settle:
    the dealer's hand is complete, or no bet depends on it and it stays at the upcard)."""
    try:
        allowed = rnd.allowed_actions() if not rnd.finished else []
    except ShoeExhausted:
        allowed = []
    cur = rnd.current
    return {"dealer": card_strings(rnd.dealer), "insurance_open": rnd.insurance_open, "dealer_needs": rnd.dealer_needs,
            "to_act": {"box": cur[0], "hand": cur[1], "allowed": allowed} if cur else None,
            "boxes": {bx.box: {"player_id": int(bx.player), "insurance": bx.insurance, "even_money": bx.even_money,
                               "hands": [{"id": h.id, "cards": card_strings(h.cards), "total": h.total,
                                          "stake": h.stake, "double": h.double, "surrendered": h.surrendered,
                                          "done": h.done} for h in (bx.hand(i) for i in bx.order)]}
                      for bx in rnd.boxes.values()}}


class Blackjack(GameEngine):
    name = "blackjack"
    default_rules = BJ.S17
    dealt = True
    boxed = True

    def rules_from_dict(self, d: Mapping[str, Any]) -> BJ.BlackjackRules:
        return BJ.BlackjackRules.from_dict(d)

    def default_limits(self, rules: Any = None, *, chip_unit: int = 1_000) -> TableLimits:
        return BJ.default_limits(chip_unit=chip_unit)

    def seats_per_player(self, rules: Any) -> int:
        """A player sits in a seat per box played (``rules.boxes_per_player``)."""
        return rules.boxes_per_player

    def check_bet(self, bet: Bet, limits: TableLimits, existing: Sequence[Bet], rules: Any, ctx: BetContext) -> Bet:
        return BJ.check_bet(bet, limits, existing, rules=rules, **ctx.limits())

    # -------------------------------------------------------------- the round, rebuilt from its cards
    def play(self, play: RoundPlay, cards: Sequence[str], done: Sequence[Mapping[str, Any]],
             new: Sequence[Mapping[str, Any]]) -> tuple[_Round, list[Bet]]:
        """The round rebuilt from ``cards`` (dealing order) and the decisions ``done``, then the ``new`` ones
        applied. Returns (round, the bets the new decisions place). The boxes are the seated players' main bets,
        in seat order (the dealer's left first)."""
        stakes: dict[str, tuple[str, int]] = {}
        for b in play.bets:
            if b.spot == "main" and b.box is not None:
                owner, amt = stakes.get(b.box, (b.player, 0))
                if owner == b.player:
                    stakes[b.box] = (owner, amt + b.amount)
        order = sorted(stakes, key=lambda b: (len(b), b))
        boxes = [BJ.BoxStake(box, *stakes[box]) for box in order]
        extra: list[Bet] = []
        rnd = None
        try:
            rnd = _Round(play.rules, Shoe.stacked(parse_cards(cards)), boxes, chip_unit=play.chip_unit)
            for d in done:
                _apply(rnd, d)
            for d in new:
                x = _apply(rnd, d)
                if isinstance(x, Bet):
                    extra.append(x)
        except ShoeExhausted:
            raise TableRuleError("cards", _card_prompt(rnd, len(boxes), [*done, *new][-1:])) from None
        except KeyError as e:
            raise TableRuleError("decisions", f"a decision needs {e.args[0]}") from None
        return rnd, extra

    @staticmethod
    def shoe_cards(rules: Any, rng: Rng) -> list[Card]:
        """A freshly shuffled shoe for the round (one card burned): the cards still to deal."""
        shoe = BJ.new_shoe(rules, rng)
        return [shoe.draw() for _ in range(shoe.remaining)]

    def deal(self, play: RoundPlay, inp: DealerInput, rng: Rng) -> Dealt:
        """Input mode: the dealer's ``cards`` (at least the initial deal; more may follow with decisions);
        otherwise a shoe shuffled by the CSPRNG."""
        if inp.cards:
            state = {"mode": "input", "cards": list(inp.cards), "decisions": []}
        else:
            state = {"mode": "rng", "cards": card_strings(self.shoe_cards(play.rules, rng)), "decisions": []}
        rnd, _ = self.play(play, state["cards"], [], [])
        return Dealt(state, table_view(rnd))

    def decide(self, play: RoundPlay, decision: Decision, cards: Sequence[str] | None = None) -> Decided:
        """A double / split / insurance places a bet (debited now); ``cards``: what the decision draws, on an
        input-mode round (``ValidationFailed`` field ``cards`` otherwise)."""
        state = dict(play.state or {})
        if cards:
            if state["mode"] != "input":
                raise ValidationFailed("cards are entered only on an input-mode round", field="cards")
            state["cards"] = state["cards"] + list(cards)
        record = {k: v for k, v in decision.to_dict().items() if k in RECORDED}
        rnd, extra = self.play(play, state["cards"], state["decisions"], [record])
        state["decisions"] = state["decisions"] + [record]
        return Decided(state, tuple(extra), record, table_view(rnd))

    # -------------------------------------------------------------- outcome and settlement
    def outcome(self, play: RoundPlay, inp: DealerInput, rng: Rng) -> Resolution:
        """A dealt round finishes from its cards (plus any the dealer enters now) and decisions (plus
        ``inp.decisions``, whose bets are debited with the settlement); an undealt one is played in one go from
        the dealer's ``cards`` or a shuffled shoe. Records the outcome with the decisions' log and the cards dealt."""
        state = play.state or {}
        mode = "input" if inp.has(*SETTLE_INPUT) else "rng"
        if state:
            mode = state["mode"]
            cards = state["cards"] + list(inp.cards or [])
        elif mode == "input":
            if inp.cards is None:
                raise TableRuleError("cards", "enter the cards in dealing order")
            cards = list(inp.cards)
        else:
            cards = card_strings(self.shoe_cards(play.rules, rng))
        rnd, extra = self.play(play, cards, state.get("decisions") or [], [d.to_dict() for d in inp.decisions])
        out = rnd.finish_checked()
        record = out.to_dict()
        record["log"] = list(rnd.log)
        record["cards_dealt"] = card_strings(rnd.shoe.dealt())
        return Resolution(out, mode, tuple(extra), record=record)

    def settle(self, bets: Sequence[Bet], outcome: Any, rules: Any) -> list[Settlement]:
        return BJ.settle(bets, outcome, rules)

    def _outcome_from_dict(self, d: Mapping[str, Any]) -> BJ.BlackjackOutcome:
        return BJ.BlackjackOutcome.from_dict(d)
