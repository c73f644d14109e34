"""The ante-poker base and its three games: three card poker, Caribbean stud and Texas hold'em bonus.

What they share (:class:`AntePokerGame`): one box per ante, dealt in seat order (the dealer's left first); side bets
(pair plus, bonus, the progressive) need the same player's ante on the box, and a box's bets are the seated
player's own (one hand, one player); one deck shuffled by the CSPRNG or the hands the dealer enters; the decision
bets (play, call, the street bets) priced off the ante; a progressive side bet whose claims the jackpot controller
pays, best paytable line first. A game says only how its round is built from the cards (:meth:`new_round`,
:meth:`entered_round`, :meth:`stored_round`) and shown (:meth:`view`).
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Mapping, Sequence
from types import ModuleType
from typing import Any, ClassVar

from slotsys.kernel.ports import Rng
from table_games.domain import caribbean as C
from table_games.domain import holdem_bonus as H
from table_games.domain import poker_eval as E
from table_games.domain import three_card as T
from table_games.domain.cards import card_strings, parse_cards
from table_games.domain.engines.base import DEAL_INPUT, BetContext, DealerInput, RoundPlay
from table_games.domain.engines.poker import PokerEngine, seat_order
from table_games.domain.errors import TableRuleError
from table_games.domain.limits import TableLimits
from table_games.domain.poker_table import PROGRESSIVE, BoxStake, ProgressiveAward
from table_games.domain.settlement import Bet, Settlement
from table_games.domain.shoe import Shoe


def ante_boxes(bets: Sequence[Bet]) -> list[BoxStake]:
    """The boxes in play (one per ante), in dealing order, with the seated player's total ante (won)."""
    stakes: dict[str, tuple[str, int]] = {}
    for b in bets:
        if b.spot == "ante" and b.box is not None:
            player, amount = stakes.get(b.box, (b.player, 0))
            stakes[b.box] = (player, amount + b.amount)
    if not stakes:
        raise TableRuleError("round", "no box has an ante: nothing to deal")
    return [BoxStake(box, *stakes[box]) for box in sorted(stakes, key=seat_order)]


def entered_hands(boxes: Sequence[BoxStake], inp: DealerInput) -> dict[str, Any]:
    """The dealer's ``hands`` for exactly the boxes in play, in dealing order (``TableRuleError("hands")``)."""
    hands = inp.hands
    if not isinstance(hands, Mapping):
        raise TableRuleError("hands", "enter each box's cards: {box: [cards]}")
    names = [b.box for b in boxes]
    extra = sorted(set(hands) - set(names))
    if extra:
        raise TableRuleError("hands", f"box {extra[0]} has no ante in this round")
    missing = [b for b in names if b not in hands]
    if missing:
        raise TableRuleError("hands", f"enter the cards of box {missing[0]}")
    return {b: hands[b] for b in names}


def boxes_view(rnd: Any, cards: Mapping[str, Sequence[Any]]) -> dict[str, dict[str, Any]]:
    return {b: {"player_id": int(s.player), "ante": s.ante, "cards": card_strings(cards[b])}
            for b, s in rnd.boxes.items()}


class AntePokerGame(PokerEngine):
    """An ante poker game; ``module`` is its domain module (rules, round, bets, settlement, outcome)."""

    owner_only_boxes = True
    module: ClassVar[ModuleType]
    outcome_type: ClassVar[type]

    # -------------------------------------------------------------- rules, limits, bets
    def rules_from_dict(self, d: Mapping[str, Any]) -> Any:
        return type(self.default_rules).from_dict(d)

    def default_limits(self, rules: Any = None, *, chip_unit: int = 1_000) -> TableLimits:
        return self.module.default_limits(chip_unit=chip_unit)

    @property
    def offers_progressive(self) -> bool:
        return True

    def check_bet(self, bet: Bet, limits: TableLimits, existing: Sequence[Bet], rules: Any, ctx: BetContext) -> Bet:
        """Before the deal: the ante; side bets after the same player's ante on the box; the progressive is
        exactly ``rules.progressive_stake``."""
        return self.module.check_bet(bet, limits, existing, rules=rules, **ctx.limits())

    # -------------------------------------------------------------- the deal
    @abstractmethod
    def new_round(self, rules: Any, deck: Shoe, boxes: Sequence[BoxStake]) -> Any:
        """The round dealt from a shuffled deck."""

    @abstractmethod
    def entered_round(self, rules: Any, boxes: Sequence[BoxStake], inp: DealerInput) -> Any:
        """The round dealt from the hands the dealer entered (a stacked shoe in the round's drawing order)."""

    def stored_round(self, rules: Any, cards: Shoe, boxes: Sequence[BoxStake], state: Mapping[str, Any]) -> Any:
        """The round from its stored cards (the game's extras in ``state``)."""
        return self.new_round(rules, cards, boxes)

    def deal_record(self, rnd: Any) -> dict[str, Any]:
        """What the state records besides the cards (nothing by default)."""
        return {}

    def deal_state(self, play: RoundPlay, inp: DealerInput, rng: Rng) -> dict[str, Any]:
        boxes = ante_boxes(play.bets)
        if inp.has(*DEAL_INPUT):
            rnd, mode = self.entered_round(play.rules, boxes, inp), "input"
        else:
            rnd, mode = self.new_round(play.rules, self.module.new_deck(rng), boxes), "rng"
        return {"mode": mode, "cards": card_strings(rnd.shoe.dealt()), **self.deal_record(rnd)}

    def build(self, rules: Any, bets: Sequence[Bet], state: Mapping[str, Any]) -> Any:
        return self.stored_round(rules, Shoe.stacked(parse_cards(state["cards"])), ante_boxes(bets), state)

    # -------------------------------------------------------------- settlement
    def settle(self, bets: Sequence[Bet], outcome: Any, rules: Any) -> list[Settlement]:
        return self.module.settle(bets, outcome, rules)

    def _outcome_from_dict(self, d: Mapping[str, Any]) -> Any:
        return self.outcome_type.from_dict(d)

    def progressive_awards(self, bets: Sequence[Bet], outcome: Any, rules: Any) -> list[ProgressiveAward]:
        """The progressive claims, best paytable line first (each line's hands share that line)."""
        if not any(b.spot == PROGRESSIVE for b in bets):
            return []
        lines = list(rules.progressive)
        return sorted(self.module.progressive_awards(bets, outcome, rules), key=lambda a: lines.index(a.hand))


class ThreeCardPoker(AntePokerGame):
    name = "three_card_poker"
    default_rules = T.STANDARD
    module = T
    outcome_type = T.ThreeCardOutcome
    actions = ("play", "fold")

    def new_round(self, rules: Any, deck: Shoe, boxes: Sequence[BoxStake]) -> T.ThreeCardRound:
        return T.ThreeCardRound(rules, deck, boxes)

    def entered_round(self, rules: Any, boxes: Sequence[BoxStake], inp: DealerInput) -> T.ThreeCardRound:
        cards = T.dealing_order(entered_hands(boxes, inp), inp.dealer or [])
        return T.ThreeCardRound(rules, Shoe.stacked(cards), boxes)

    def view(self, rnd: T.ThreeCardRound) -> dict[str, Any]:
        boxes = boxes_view(rnd, rnd.cards)
        for b, v in boxes.items():
            v["category"] = T.category(rnd.cards[b])
            v["decision"] = None if b not in rnd.decisions else ("play" if rnd.decisions[b] else "fold")
        cur = rnd.current
        return {"to_act": {"box": cur, "allowed": ["play", "fold"], "bet": rnd.boxes[cur].ante} if cur else None,
                "boxes": boxes, "dealer": card_strings(rnd.dealer) if cur is None else []}


class CaribbeanStud(AntePokerGame):
    """The state also records how many cards each hand received (dead hands, a misdeal) and the dealing
    pattern the cards were drawn in."""

    name = "caribbean_stud"
    default_rules = C.STANDARD
    module = C
    outcome_type = C.CaribbeanOutcome
    actions = ("call", "fold")

    def new_round(self, rules: Any, deck: Shoe, boxes: Sequence[BoxStake]) -> C.CaribbeanRound:
        return C.CaribbeanRound(rules, deck, boxes)

    def entered_round(self, rules: Any, boxes: Sequence[BoxStake], inp: DealerInput) -> C.CaribbeanRound:
        return C.round_from_hands(rules, boxes, entered_hands(boxes, inp), inp.dealer or [])

    def deal_record(self, rnd: C.CaribbeanRound) -> dict[str, Any]:
        counts = {b: len(cs) for b, cs in rnd.cards.items()} | {C.DEALER: len(rnd.dealer)}
        return {"counts": counts, "deal": rnd.rules.deal}

    def stored_round(self, rules: Any, cards: Shoe, boxes: Sequence[BoxStake],
                     state: Mapping[str, Any]) -> C.CaribbeanRound:
        if rules.deal != state["deal"]:
            rules = C.CaribbeanRules.from_dict(rules.to_dict() | {"deal": state["deal"]})
        return C.CaribbeanRound(rules, cards, boxes, counts=state["counts"])

    def view(self, rnd: C.CaribbeanRound) -> dict[str, Any]:
        boxes = boxes_view(rnd, rnd.cards)
        for b, v in boxes.items():
            v["dead"] = b in rnd.dead
            v["category"] = None if b in rnd.dead else E.category(rnd.cards[b])
            v["decision"] = None if b not in rnd.calls else ("call" if rnd.calls[b] else "fold")
        cur = rnd.current
        return {"to_act": {"box": cur, "allowed": ["call", "fold"],
                           "bet": rnd.boxes[cur].ante * rnd.rules.call_multiple} if cur else None,
                "misdeal": rnd.misdeal, "boxes": boxes,
                "dealer_upcard": str(rnd.dealer[-1]) if rnd.dealer and not rnd.misdeal else None}


class HoldemBonus(AntePokerGame):
    name = "holdem_bonus"
    default_rules = H.STANDARD
    module = H
    outcome_type = H.HoldemOutcome
    actions = ("bet", "check", "fold")

    def new_round(self, rules: Any, deck: Shoe, boxes: Sequence[BoxStake]) -> H.HoldemBonusRound:
        return H.HoldemBonusRound(rules, deck, boxes)

    def entered_round(self, rules: Any, boxes: Sequence[BoxStake], inp: DealerInput) -> H.HoldemBonusRound:
        cards = H.dealing_order(inp.board or [], entered_hands(boxes, inp), inp.dealer or [])
        return H.HoldemBonusRound(rules, Shoe.stacked(cards), boxes)

    def view(self, rnd: H.HoldemBonusRound) -> dict[str, Any]:
        boxes = boxes_view(rnd, rnd.hole)
        for b, v in boxes.items():
            v.update(folded=b in rnd.folded, bets=sorted(rnd.bets[b]))
        cur = rnd.current
        return {"street": rnd.street, "board": card_strings(rnd.visible_board),
                "to_act": {"box": cur, "allowed": rnd.allowed_actions(),
                           "bet": rnd.boxes[cur].ante * rnd.rules.multiple(rnd.street)} if cur else None,
                "boxes": boxes, "dealer": card_strings(rnd.dealer) if rnd.street == H.SHOWDOWN else []}
