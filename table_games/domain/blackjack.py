"""Blackjack, European no-hole-card: rules as data, the round engine, bet spots and settlement.

Rules (seed page 000): the dealer deals each box two cards and itself one (the upcard); players act; then
the dealer takes its second card -- only if a bet still depends on it -- and draws to 17 (stands on soft 17;
H17 variant) only against a hand that stood (:attr:`BlackjackRound.dealer_needs`). Blackjack
(A + a ten on the first two cards of an unsplit hand) pays 3:2 (rounded down to the won), a push against a
dealer blackjack. A player may play 1–3 boxes. Decisions: hit, stand, double (on any first two cards, for
up to the hand's stake: "double for less"; after a split too), split (two cards of equal value, 10-K
included, for exactly the hand's stake, to 3 hands; split aces take one card each), surrender (first two
cards of an unsplit hand: half the stake back). With an ace up: insurance up to half the box's stake pays
2:1; a blackjack may take even money (1:1 at once). Pair side bet: the box's first two cards of the same
rank pay 11:1.

Dealer blackjack (ENHC): by default (``dealer_blackjack_takes="all"``) it takes the doubled and split stakes
too; ``"original"`` ("original bets only") takes only the box's original stake and returns the rest.
Surrender: ``"late"`` (default) keeps half only if the dealer does not make blackjack; ``"early"`` returns
half regardless; ``"none"``.

The round (:class:`BlackjackRound`) is a state machine over a :class:`~table_games.domain.shoe.Shoe`
(shuffled, or stacked from dealer/test input). Every decision is logged, so a round replays from its cards
and decisions (:func:`replay`). Each money-moving decision (insurance, double, split) returns the
:class:`~table_games.domain.settlement.Bet` the framework must debit; bets name their hand by a stable id
(``double:0``, ``split:1`` ...). :func:`settle` turns the bets and the :class:`BlackjackOutcome` into
settlements.

Spectators backing a box ("bet behind") follow the seated player's decisions for even money and surrender,
take no part in doubles and splits, and ride on the box's first hand.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from slotsys.kernel.money import format_won, payout_floor
from table_games.domain import limits as L
from table_games.domain.cards import Card, card_strings, parse_cards
from table_games.domain.errors import TableRuleError
from table_games.domain.settlement import (
    Bet, Settlement, Void, lost, pushed, returned_part, void_all, won,
)
from table_games.domain.shoe import Shoe

GAME = "blackjack"
HIT, STAND, DOUBLE, SPLIT, SURRENDER = "hit", "stand", "double", "split", "surrender"
ACTIONS = (HIT, STAND, DOUBLE, SPLIT, SURRENDER)


# ------------------------------------------------------------------------------------------- rules
@dataclass(frozen=True)
class BlackjackRules:
    decks: int = 6
    dealer_hits_soft_17: bool = False  # S17 by default
    blackjack_pays: tuple[int, int] = (3, 2)
    dealer_blackjack_takes: str = "all"  # "all" (ENHC) | "original" (original bets only)
    max_hands: int = 3  # hands per box after splits (2 splits)
    resplit_aces: bool = False
    double_after_split: bool = True
    surrender: str = "late"  # "none" | "late" | "early"
    insurance_pays: int = 2
    even_money: bool = True
    pair_pays: int = 11
    boxes_per_player: int = 3
    cut_card_from_end: int = 78

    def __post_init__(self) -> None:
        if self.dealer_blackjack_takes not in ("all", "original"):
            raise ValueError("dealer_blackjack_takes is 'all' or 'original'")
        if self.surrender not in ("none", "late", "early"):
            raise ValueError("surrender is 'none', 'late' or 'early'")
        if self.max_hands < 1:
            raise ValueError("max_hands >= 1")

    def to_dict(self) -> dict[str, Any]:
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in self.__dict__.items()}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> BlackjackRules:
        d = dict(d)
        if "blackjack_pays" in d:
            d["blackjack_pays"] = tuple(d["blackjack_pays"])
        return cls(**d)


S17 = BlackjackRules()
H17 = BlackjackRules(dealer_hits_soft_17=True)
ORIGINAL_BETS_ONLY = BlackjackRules(dealer_blackjack_takes="original")


def hand_value(cards: Iterable[Card]) -> tuple[int, bool]:
    """(best total, soft) -- an ace counts 11 when that does not bust the hand."""
    vals = [c.blackjack_value for c in cards]
    total = sum(vals)
    if 1 in vals and total + 10 <= 21:
        return total + 10, True
    return total, False


def is_natural(cards: Sequence[Card], from_split: bool = False) -> bool:
    return len(cards) == 2 and not from_split and hand_value(cards)[0] == 21


# ------------------------------------------------------------------------------------------- round state
@dataclass
class Hand:
    id: int
    cards: list[Card]
    stake: int
    double: int = 0
    from_split: bool = False
    split_aces: bool = False
    surrendered: bool = False
    done: bool = False

    @property
    def total(self) -> int:
        return hand_value(self.cards)[0]

    @property
    def soft(self) -> bool:
        return hand_value(self.cards)[1]

    @property
    def busted(self) -> bool:
        return self.total > 21

    @property
    def blackjack(self) -> bool:
        return is_natural(self.cards, self.from_split)


@dataclass
class Box:
    box: str
    player: str
    stake: int
    hands: list[Hand] = field(default_factory=list)
    order: list[int] = field(default_factory=list)  # hand ids in playing order
    insurance: int = 0
    insurance_decided: bool = False
    even_money: bool = False

    def hand(self, hid: int) -> Hand:
        return next(h for h in self.hands if h.id == hid)


@dataclass(frozen=True)
class HandOutcome:
    id: int
    cards: tuple[Card, ...]
    stake: int
    double: int = 0
    from_split: bool = False
    surrendered: bool = False

    @property
    def total(self) -> int:
        return hand_value(self.cards)[0]

    @property
    def blackjack(self) -> bool:
        return is_natural(self.cards, self.from_split)

    @property
    def busted(self) -> bool:
        return self.total > 21

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "cards": card_strings(self.cards), "total": self.total, "stake": self.stake,
                "double": self.double, "from_split": self.from_split, "surrendered": self.surrendered,
                "blackjack": self.blackjack, "busted": self.busted}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> HandOutcome:
        return cls(d["id"], tuple(parse_cards(d["cards"])), d["stake"], d.get("double", 0),
                   d.get("from_split", False), d.get("surrendered", False))


@dataclass(frozen=True)
class BoxOutcome:
    box: str
    player: str
    first_two: tuple[Card, Card]
    hands: tuple[HandOutcome, ...]
    insurance: int = 0
    even_money: bool = False

    @property
    def pair(self) -> bool:
        return self.first_two[0].rank == self.first_two[1].rank

    def to_dict(self) -> dict[str, Any]:
        return {"box": self.box, "player": self.player, "first_two": card_strings(self.first_two),
                "pair": self.pair, "hands": [h.to_dict() for h in self.hands], "insurance": self.insurance,
                "even_money": self.even_money}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> BoxOutcome:
        a, b = parse_cards(d["first_two"])
        return cls(d["box"], d["player"], (a, b), tuple(HandOutcome.from_dict(h) for h in d["hands"]),
                   d.get("insurance", 0), d.get("even_money", False))


@dataclass(frozen=True)
class BlackjackOutcome:
    dealer: tuple[Card, ...]
    boxes: Mapping[str, BoxOutcome]
    last_of_shoe: bool = False

    @property
    def dealer_total(self) -> int:
        return hand_value(self.dealer)[0]

    @property
    def dealer_blackjack(self) -> bool:
        return is_natural(self.dealer)

    def to_dict(self) -> dict[str, Any]:
        return {"dealer": card_strings(self.dealer), "dealer_total": self.dealer_total,
                "dealer_blackjack": self.dealer_blackjack, "last_of_shoe": self.last_of_shoe,
                "boxes": [b.to_dict() for b in self.boxes.values()]}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> BlackjackOutcome:
        boxes = [BoxOutcome.from_dict(b) for b in d["boxes"]]
        return cls(tuple(parse_cards(d["dealer"])), {b.box: b for b in boxes}, d.get("last_of_shoe", False))


@dataclass(frozen=True)
class BoxStake:
    """A box in play: its id, the seated player, and the box's stake (the seated player's main bet)."""

    box: str
    player: str
    stake: int


class BlackjackRound:
    """One round at the table, from the initial deal to the dealer's hand.

    ``boxes`` are in dealing order (the dealer's left first). ``chip_unit`` is the table's unit, for double /
    insurance amounts. Raises :class:`TableRuleError` for any decision the hand does not allow.
    """

    def __init__(self, rules: BlackjackRules, shoe: Shoe, boxes: Sequence[BoxStake | tuple[str, str, int]],
                 *, chip_unit: int = 1) -> None:
        if not boxes:
            raise TableRuleError("boxes", "a round needs at least one box with a bet")
        self.rules, self.shoe, self.chip_unit = rules, shoe, chip_unit
        self.boxes: dict[str, Box] = {}
        per_player: dict[str, int] = {}
        for b in boxes:
            b = b if isinstance(b, BoxStake) else BoxStake(*b)
            if b.box in self.boxes:
                raise TableRuleError("boxes", f"box {b.box} appears twice")
            if b.stake <= 0:
                raise TableRuleError("amount", f"box {b.box} has no stake")
            per_player[b.player] = per_player.get(b.player, 0) + 1
            if per_player[b.player] > rules.boxes_per_player:
                raise TableRuleError("boxes", f"a player may play at most {rules.boxes_per_player} boxes")
            self.boxes[b.box] = Box(b.box, b.player, b.stake, [Hand(0, [], b.stake)], [0])
        self.dealer: list[Card] = []
        self.log: list[dict[str, Any]] = []
        self.finished = False
        for bx in self.boxes.values():
            bx.hands[0].cards.append(self._draw())
        self.dealer.append(self._draw())
        for bx in self.boxes.values():
            bx.hands[0].cards.append(self._draw())
        for bx in self.boxes.values():
            h = bx.hands[0]
            if h.total == 21:
                h.done = True
        self.insurance_open = self.dealer[0].rank == 1 and (rules.insurance_pays > 0 or rules.even_money)
        if not self.insurance_open:
            for bx in self.boxes.values():
                bx.insurance_decided = True

    # -------------------------------------------------------------------- helpers
    def _draw(self) -> Card:
        return self.shoe.draw()

    @property
    def upcard(self) -> Card:
        return self.dealer[0]

    def _box(self, box: str) -> Box:
        bx = self.boxes.get(box)
        if bx is None:
            raise TableRuleError("box", f"box {box} is not in this round")
        return bx

    def _unit_amount(self, amount: Any, field_: str = "amount") -> int:
        if isinstance(amount, bool) or not isinstance(amount, int) or amount <= 0:
            raise TableRuleError(field_, "an amount is a positive whole number of won")
        if amount % self.chip_unit:
            raise TableRuleError(field_, f"must be a multiple of the chip unit {format_won(self.chip_unit)}")
        return amount

    # -------------------------------------------------------------------- insurance / even money
    def _insurance_box(self, box: str) -> Box:
        if not self.insurance_open:
            raise TableRuleError("action", "insurance and even money are offered only with an ace up, "
                                           "before the first decision")
        bx = self._box(box)
        if bx.insurance_decided:
            raise TableRuleError("action", f"box {box} has already answered insurance")
        return bx

    def insure(self, box: str, amount: int | None) -> Bet:
        """Insure ``box`` for ``amount`` won (at most half its stake, in chip units). Returns the insurance bet to
        debit. Raises :class:`TableRuleError` (``action``) when insurance is not open to the box or it holds a
        blackjack, (``amount``) for a missing, non-whole or too large amount."""
        bx = self._insurance_box(box)
        if bx.hands[0].blackjack:
            raise TableRuleError("action", "a blackjack takes even money rather than insurance")
        amount = self._unit_amount(amount)
        if 2 * amount > bx.stake:
            raise TableRuleError("amount", f"insurance is at most half the box's stake ({format_won(bx.stake // 2)})")
        bx.insurance, bx.insurance_decided = amount, True
        self.log.append({"box": box, "action": "insurance", "amount": amount})
        self._close_insurance_if_all_answered()
        return Bet("insurance", amount, bx.player, box)

    def take_even_money(self, box: str) -> None:
        bx = self._insurance_box(box)
        if not (self.rules.even_money and bx.hands[0].blackjack):
            raise TableRuleError("action", "even money is for a blackjack against an ace")
        bx.even_money, bx.insurance_decided = True, True
        self.log.append({"box": box, "action": "even_money"})
        self._close_insurance_if_all_answered()

    def decline_insurance(self, box: str) -> None:
        bx = self._insurance_box(box)
        bx.insurance_decided = True
        self.log.append({"box": box, "action": "no_insurance"})
        self._close_insurance_if_all_answered()

    def _close_insurance_if_all_answered(self) -> None:
        """The insurance round ends when every box has answered (or at the first playing decision)."""
        if self.insurance_open and all(bx.insurance_decided for bx in self.boxes.values()):
            self.close_insurance()

    def close_insurance(self) -> None:
        """End the insurance round (boxes that did not answer declined)."""
        if self.insurance_open:
            self.insurance_open = False
            for bx in self.boxes.values():
                bx.insurance_decided = True
            self.log.append({"action": "close_insurance"})

    # -------------------------------------------------------------------- playing the hands
    @property
    def current(self) -> tuple[str, int] | None:
        """(box, hand id) to act now, or ``None`` when every hand is done (the dealer's turn)."""
        for bx in self.boxes.values():
            for hid in bx.order:
                h = bx.hand(hid)
                if not h.done:
                    return bx.box, hid
        return None

    def _ensure_two_cards(self, h: Hand) -> None:
        # a hand made by a split takes its second card when play reaches it
        if len(h.cards) == 1:
            h.cards.append(self._draw())
            if h.split_aces and not self._can_resplit_aces(h):
                h.done = True
            elif h.total == 21:
                h.done = True

    def _can_resplit_aces(self, h: Hand) -> bool:
        bx = next(b for b in self.boxes.values() if h in b.hands)
        return (self.rules.resplit_aces and len(h.cards) == 2 and h.cards[0].rank == h.cards[1].rank == 1
                and len(bx.hands) < self.rules.max_hands)

    def _settle_pointer(self) -> None:
        """Deal pending second cards (split hands) until the current hand has two cards."""
        while True:
            cur = self.current
            if cur is None:
                return
            h = self.boxes[cur[0]].hand(cur[1])
            if len(h.cards) >= 2:
                return
            self._ensure_two_cards(h)

    def allowed_actions(self) -> list[str]:
        self._settle_pointer()
        cur = self.current
        if cur is None:
            return []
        bx = self.boxes[cur[0]]
        h = bx.hand(cur[1])
        return [a for a in ACTIONS if self._why_not(bx, h, a) is None]

    def _why_not(self, bx: Box, h: Hand, action: str) -> str | None:
        r = self.rules
        if action == HIT:
            if h.split_aces:
                return "split aces take one card only"
            return None
        if action == STAND:
            return None
        if action == DOUBLE:
            if len(h.cards) != 2:
                return "double only on the first two cards of a hand"
            if h.split_aces:
                return "split aces take one card only"
            if h.from_split and not r.double_after_split:
                return "no double after a split at this table"
            return None
        if action == SPLIT:
            if len(h.cards) != 2:
                return "split only a hand of two cards"
            a, b = h.cards
            if a.blackjack_value != b.blackjack_value:
                return "split needs two cards of equal value"
            if len(bx.hands) >= r.max_hands:
                return f"at most {r.max_hands} hands per box"
            if h.split_aces and not r.resplit_aces:
                return "split aces may not be split again"
            return None
        if action == SURRENDER:
            if r.surrender == "none":
                return "no surrender at this table"
            if len(h.cards) != 2 or h.from_split or len(bx.hands) > 1:
                return "surrender only on the first two cards, before any split"
            return None
        return f"unknown decision {action!r} (one of {', '.join(ACTIONS)})"

    def act(self, box: str, action: str, amount: int | None = None) -> Bet | None:
        """Apply a decision for the hand to act. Returns the extra bet to debit (double, split) or ``None``."""
        if self.finished:
            raise TableRuleError("action", "the round is over")
        if self.insurance_open:
            self.close_insurance()
        self._settle_pointer()
        cur = self.current
        if cur is None:
            raise TableRuleError("action", "every hand has been played: the dealer's turn")
        if box != cur[0]:
            raise TableRuleError("box", f"box {cur[0]} is to act, not box {box}")
        bx = self.boxes[box]
        h = bx.hand(cur[1])
        why = self._why_not(bx, h, action)
        if why is not None:
            raise TableRuleError("action", why)
        extra: Bet | None = None
        if action == HIT:
            h.cards.append(self._draw())
            if h.total >= 21:
                h.done = True
        elif action == STAND:
            h.done = True
        elif action == DOUBLE:
            amt = h.stake if amount is None else self._unit_amount(amount)
            if amt > h.stake:
                raise TableRuleError("amount", f"double for at most the hand's stake ({format_won(h.stake)})")
            h.double = amt
            h.cards.append(self._draw())
            h.done = True
            extra = Bet(f"double:{h.id}", amt, bx.player, box)
        elif action == SPLIT:
            if amount is not None and amount != h.stake:
                raise TableRuleError("amount", f"a split takes exactly the hand's stake ({format_won(h.stake)})")
            aces = h.cards[0].rank == 1
            new = Hand(max(x.id for x in bx.hands) + 1, [h.cards.pop()], h.stake, from_split=True, split_aces=aces)
            h.from_split, h.split_aces = True, aces
            bx.hands.append(new)
            bx.order.insert(bx.order.index(h.id) + 1, new.id)
            self._ensure_two_cards(h)
            extra = Bet(f"split:{new.id}", new.stake, bx.player, box)
        elif action == SURRENDER:
            h.surrendered = True
            h.done = True
        self.log.append({"box": box, "hand": h.id, "action": action, **({"amount": extra.amount} if extra else {})})
        self._settle_pointer()
        return extra

    def hand_waiting_for_card(self) -> tuple[str, int] | None:
        """(box, hand id) of a split hand still waiting for its second card (dealt when play reaches it), or None.
        With dealer input that card comes with the decision that moves play to the hand (or with the split)."""
        for bx in self.boxes.values():
            for hid in bx.order:
                h = bx.hand(hid)
                if len(h.cards) == 1 and not h.done:
                    return bx.box, hid
        return None

    # -------------------------------------------------------------------- the dealer
    @property
    def dealer_can_make_blackjack(self) -> bool:
        """Whether the dealer's second card can still make a blackjack: an ace or a ten-value card up."""
        return self.upcard.rank == 1 or self.upcard.blackjack_value == 10

    def _hand_needs_hole_card(self, bx: Box, h: Hand) -> bool:
        """Whether the dealer's second card can change hand ``h``'s settlement (European no hole card): a bust
        loses whatever the dealer holds; even money is paid at once; a blackjack against a 2-9 upcard is paid
        3:2 whatever comes (against an ace or a ten-value card a dealer blackjack pushes it); an early
        surrender keeps half whatever comes, a late one only when the dealer cannot make blackjack."""
        if h.busted:
            return False
        if h.blackjack:
            return not bx.even_money and self.dealer_can_make_blackjack
        if h.surrendered:
            return self.rules.surrender == "late" and self.dealer_can_make_blackjack
        return True

    def _needs_hole_card(self) -> bool:
        """Some bet depends on the dealer's second card: an insurance bet, or a hand it can still change."""
        return any(bx.insurance or any(self._hand_needs_hole_card(bx, h) for h in bx.hands)
                   for bx in self.boxes.values())

    def _needs_dealer_draws(self) -> bool:
        """Some hand stood (not busted, surrendered or blackjack): the dealer completes the hand to 17."""
        return any(not (h.busted or h.surrendered or h.blackjack) for bx in self.boxes.values() for h in bx.hands)

    @property
    def dealer_needs(self) -> str | None:
        """The card the dealer takes next once every hand has been played, as the dealer-entered mode asks for it:
        ``"second card"`` when some bet still depends on it, ``"next card"`` while the dealer draws to 17 (S17 /
        H17) against a hand that stood, ``None`` when the dealer's hand is complete -- or is left with the upcard
        alone because no bet depends on it (every hand busted, surrendered, paid as a blackjack or even money: the
        European no-hole-card dealer does not complete the hand). ``None`` too while a box still has to act or
        answer insurance."""
        if self.finished or self.insurance_open or self.current is not None:
            return None
        if len(self.dealer) == 1:
            return "second card" if self._needs_hole_card() else None
        if is_natural(self.dealer) or not self._needs_dealer_draws():
            return None
        total, soft = hand_value(self.dealer)
        if total < 17 or (total == 17 and soft and self.rules.dealer_hits_soft_17):
            return "next card"
        return None

    def finish(self) -> BlackjackOutcome:
        """The dealer's turn: the second card only if a bet still depends on it, then draw to 17 (S17 / H17) only
        if a hand stood (:attr:`dealer_needs`). Raises ``ShoeExhausted`` when the shoe (dealer input) runs out
        before the dealer's hand is done; the round can then be finished once the card is given."""
        if self.finished:
            return self.outcome()
        if self.insurance_open:
            self.close_insurance()
        self._settle_pointer()
        if self.current is not None:
            raise TableRuleError("action", f"box {self.current[0]} has not finished playing")
        while self.dealer_needs is not None:
            self.dealer.append(self._draw())
        self.finished = True
        return self.outcome()

    def outcome(self) -> BlackjackOutcome:
        boxes = {}
        for bx in self.boxes.values():
            first_two = self._first_two(bx)
            hands = tuple(HandOutcome(h.id, tuple(h.cards), h.stake, h.double, h.from_split, h.surrendered)
                          for h in sorted(bx.hands, key=lambda x: bx.order.index(x.id)))
            boxes[bx.box] = BoxOutcome(bx.box, bx.player, first_two, hands, bx.insurance, bx.even_money)
        return BlackjackOutcome(tuple(self.dealer), boxes, self.shoe.cut_card_out)

    def _first_two(self, bx: Box) -> tuple[Card, Card]:
        # the box's first two cards: hand 0's first card and the card dealt second to the box
        h0 = bx.hand(0)
        if len(bx.hands) == 1:
            return h0.cards[0], h0.cards[1]  # the deal gave every box two cards before any decision
        # after a split hand 0 keeps its first card; the second original card moved to the first split hand
        first_split = bx.hand(1)
        return h0.cards[0], first_split.cards[0]


def new_shoe(rules: BlackjackRules, rng) -> Shoe:
    """A shuffled shoe for the table (cut card ``rules.cut_card_from_end`` from the end), one card burned."""
    shoe = Shoe.shuffled(rules.decks, rng, cut_card_from_end=rules.cut_card_from_end)
    shoe.burn(1)
    return shoe


def replay(rules: BlackjackRules, cards: Sequence[Card | str], boxes: Sequence[BoxStake | tuple[str, str, int]],
           decisions: Iterable[Mapping[str, Any]], *, chip_unit: int = 1) -> BlackjackRound:
    """Replay a recorded round (its cards in dealing order and its decision log)."""
    rnd = BlackjackRound(rules, Shoe.stacked(parse_cards(cards)), boxes, chip_unit=chip_unit)
    for d in decisions:
        a = d["action"]
        if a == "insurance":
            rnd.insure(d["box"], d["amount"])
        elif a == "even_money":
            rnd.take_even_money(d["box"])
        elif a == "no_insurance":
            rnd.decline_insurance(d["box"])
        elif a == "close_insurance":
            rnd.close_insurance()
        else:
            rnd.act(d["box"], a, d.get("amount"))
    rnd.finish()
    return rnd


# ------------------------------------------------------------------------------------------- bet spots
SPOTS = ("main", "pair")
SHARED = frozenset({"pair"})


def parse_spot(spot: str) -> L.SpotInfo:
    s = str(spot).strip().lower()
    if s in ("main", "pair"):
        return L.SpotInfo(s, s, shared=s in SHARED)
    raise TableRuleError("spot", f"unknown blackjack spot {spot!r} (bets before the deal: main, pair)")


def default_limits(chip_unit: int = 1_000, minimum: int = 10_000, maximum: int = 2_000_000,
                   pair_minimum: int = 1_000, pair_maximum: int = 200_000) -> L.TableLimits:
    return L.TableLimits(chip_unit, {"main": L.SpotLimit(minimum, maximum), "pair": L.SpotLimit(pair_minimum, pair_maximum)})


def check_bet(bet: Bet, limits: L.TableLimits, existing: Sequence[Bet] = (), *, rules: BlackjackRules = S17,
              seats: Mapping[str, str] | None = None, **ctx: Any) -> Bet:
    """Validate a bet before the deal: a main or pair bet on a box (``seats``: box → seated player).

    A pair bet needs a main bet on the box; a seated player plays at most ``rules.boxes_per_player`` boxes.
    """
    if bet.box is None:
        raise TableRuleError("box", "a blackjack bet names its box")
    info = parse_spot(bet.spot)
    parsed = [(b, parse_spot(b.spot)) for b in existing if b.spot in SPOTS]
    accepted = L.check_bet(bet, info, limits, parsed, seats=seats, **ctx)
    if seats is not None and info.spot == "main" and seats.get(bet.box) == bet.player:
        own_boxes = {b for b, p in seats.items() if p == bet.player}
        if len(own_boxes) > rules.boxes_per_player:
            raise TableRuleError("box", f"a player may play at most {rules.boxes_per_player} boxes")
    return accepted


# ------------------------------------------------------------------------------------------- settlement
def _vs_dealer(h: HandOutcome, dealer_total: int) -> int:
    """+1 win, 0 push, -1 lose for a hand that stood (not busted, not blackjack) against a dealer non-blackjack."""
    if dealer_total > 21 or h.total > dealer_total:
        return 1
    return 0 if h.total == dealer_total else -1


def _settle_stake(bet: Bet, h: HandOutcome, box: BoxOutcome, out: BlackjackOutcome, rules: BlackjackRules,
                  *, original: bool, doubled_part: bool = False) -> Settlement:
    """Settle ``bet`` as a stake on hand ``h`` (``original``: the box's original stake; else split/double)."""
    a = bet.action
    dbj = out.dealer_blackjack
    if h.surrendered:
        if rules.surrender == "late" and dbj:
            return lost(bet)
        return returned_part(bet, payout_floor(a, 1, 2))
    if h.blackjack and not doubled_part:
        if box.even_money:
            return won(bet, a)
        if dbj:
            return pushed(bet)
        return won(bet, payout_floor(a, *rules.blackjack_pays))
    if h.busted:
        return lost(bet)
    if dbj:
        if original or rules.dealer_blackjack_takes == "all":
            return lost(bet)
        return pushed(bet)
    r = _vs_dealer(h, out.dealer_total)
    return won(bet, a) if r > 0 else pushed(bet) if r == 0 else lost(bet)


def settle(bets: Sequence[Bet], outcome: BlackjackOutcome | Void, rules: BlackjackRules = S17) -> list[Settlement]:
    """Settle the round's bets: ``main`` / ``pair`` per box, and the ``insurance`` / ``double:<hand>`` /
    ``split:<hand>`` bets the round returned. A backer's ``main`` rides on the box's first hand."""
    if isinstance(outcome, Void):
        return void_all(bets)
    out: list[Settlement] = []
    for b in bets:
        box = outcome.boxes.get(b.box or "")
        if box is None:
            raise TableRuleError("box", f"bet on box {b.box} which was not in the round")
        hands = {h.id: h for h in box.hands}
        kind, _, ref = b.spot.partition(":")
        if kind == "main":
            h = hands[0]
            if b.player != box.player:  # a backer: original stake on the first hand, no double
                out.append(_settle_stake(b, h, box, outcome, rules, original=True, doubled_part=False))
            else:
                out.append(_settle_stake(b, h, box, outcome, rules, original=True))
        elif kind == "split":
            out.append(_settle_stake(b, hands[int(ref)], box, outcome, rules, original=False))
        elif kind == "double":
            out.append(_settle_stake(b, hands[int(ref)], box, outcome, rules, original=False, doubled_part=True))
        elif kind == "pair":
            out.append(won(b, b.action * rules.pair_pays) if box.pair else lost(b))
        elif kind == "insurance":
            out.append(won(b, b.action * rules.insurance_pays) if outcome.dealer_blackjack else lost(b))
        else:
            raise TableRuleError("spot", f"unknown blackjack spot {b.spot!r}")
    return out


def pair_probability(decks: int) -> tuple[int, int]:
    """(same-rank first-two-card deals, all deals) for a ``decks`` shoe, counted by the engine's pair rule."""
    n_rank, n = 4 * decks, 52 * decks
    hits = 0
    for r1 in range(1, 14):
        for r2 in range(1, 14):
            box = BoxOutcome("b", "p", (Card(r1, "S"), Card(r2, "H")), ())
            if box.pair:
                hits += n_rank * (n_rank - 1)
    return hits, n * (n - 1)
