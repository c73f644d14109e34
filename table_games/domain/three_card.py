"""Three card poker: its own hand ranking, the round (ante, play or fold), pair plus, ante bonus, the
progressive side bet, settlement and the exact edges.

Rules (seed page 000 "3Card Poker", DESIGN §5): one 52-card deck; each box with an ante gets three cards,
then the dealer three. Each box, in turn, **plays** (a play bet equal to the ante) or **folds** (loses the
ante). The dealer qualifies with Q-high or better; not qualifying: the ante pays 1:1 and the play bet
pushes; qualifying: the higher hand wins ante and play 1:1, equal hands push. The **ante bonus**
(straight 1, three of a kind 4, straight flush 5 to 1) is paid whenever the player plays, whatever the
dealer holds. **Pair plus** (40/30/6/4/1 by default) is independent of the dealer (and of folding); it
needs an ante. The optional **progressive** (fixed stake) pays on three of a kind or better (mini royal
A-K-Q suited 100% of the meter, straight flush 10%, three of a kind a fixed amount by default), reported
as :class:`~table_games.domain.poker_table.ProgressiveAward` for the jackpot controller.

Ranking (three cards rank differently from five): straight flush > three of a kind > **straight > flush** >
pair > high card; A-K-Q is the top straight, A-2-3 the lowest (the ace plays low only there). Suits never
break ties; equal hands push.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import combinations
from typing import Any

from table_games.domain import limits as L
from table_games.domain.cards import Card, card_strings, deck, parse_cards
from table_games.domain.errors import TableRuleError
from table_games.domain.poker_table import new_deck  # noqa: F401  (part of this game's interface)
from table_games.domain.poker_table import (
    PROGRESSIVE, BoxStake, ProgressivePay, TurnOrder, ante_game_spot, ante_progressive_awards, best_award, box_hand,
    box_stakes, by_net, check_ante_game_bet, paytable_from_dict, pays, play_out, require_one_deck, settle_progressive,
)
from table_games.domain.settlement import Bet, Settlement, Void, lost, pushed, void_all, won
from table_games.domain.shoe import Shoe

GAME = "three_card_poker"
STRAIGHT_FLUSH, THREE_KIND, STRAIGHT, FLUSH, PAIR, HIGH_CARD = (
    "straight_flush", "three_kind", "straight", "flush", "pair", "high_card")
MINI_ROYAL = "mini_royal"  # A-K-Q suited: the progressive's top line (a straight flush in the game)
CATEGORIES = (STRAIGHT_FLUSH, THREE_KIND, STRAIGHT, FLUSH, PAIR, HIGH_CARD)  # best first
_CAT_VALUE = {c: 5 - i for i, c in enumerate(CATEGORIES)}
PLAY, FOLD = "play", "fold"


# ------------------------------------------------------------------------------------------- ranking
def _hi(rank: int) -> int:
    return 14 if rank == 1 else rank


def hand_key(cards: Sequence[Card]) -> tuple[int, ...]:
    """A comparable key: (category value 5..0, ranks that break ties, high first). Equal keys push."""
    if len(cards) != 3:
        raise TableRuleError("cards", "a three card poker hand has three cards")
    r = sorted((_hi(c.rank) for c in cards), reverse=True)
    flush = cards[0].suit == cards[1].suit == cards[2].suit
    if r[0] == r[1] == r[2]:
        return (4, r[0])
    straight_top = 0
    if r[0] - r[1] == 1 and r[1] - r[2] == 1:
        straight_top = r[0]
    elif r == [14, 3, 2]:
        straight_top = 3  # A-2-3: the lowest straight
    if straight_top:
        return (5 if flush else 3, straight_top)
    if flush:
        return (2, *r)
    if r[0] == r[1] or r[1] == r[2]:
        pair = r[1]
        kicker = r[2] if r[0] == r[1] else r[0]
        return (1, pair, kicker)
    return (0, *r)


def category(cards: Sequence[Card]) -> str:
    return CATEGORIES[5 - hand_key(cards)[0]]


def is_mini_royal(cards: Sequence[Card]) -> bool:
    return hand_key(cards) == (5, 14)


def dealer_qualifies(cards: Sequence[Card], rules: ThreeCardRules | None = None) -> bool:
    q = (rules or STANDARD).dealer_qualifies_with
    k = hand_key(cards)
    return k[0] > 0 or k[1] >= q


#: the classic strategy: play Q-6-4 or better, fold below
Q64 = (0, 12, 6, 4)


def plays_q64(cards: Sequence[Card]) -> bool:
    return hand_key(cards) >= Q64


# ------------------------------------------------------------------------------------------- rules
def _pp() -> dict[str, int]:
    return {STRAIGHT_FLUSH: 40, THREE_KIND: 30, STRAIGHT: 6, FLUSH: 4, PAIR: 1}


def _bonus() -> dict[str, int]:
    return {STRAIGHT_FLUSH: 5, THREE_KIND: 4, STRAIGHT: 1}


def _prog() -> dict[str, ProgressivePay]:
    return {MINI_ROYAL: ProgressivePay(meter_ppm=1_000_000), STRAIGHT_FLUSH: ProgressivePay(meter_ppm=100_000),
            THREE_KIND: ProgressivePay(fixed=150_000)}


@dataclass(frozen=True)
class ThreeCardRules:
    """A table's variant (data). Paytables map a category to ``n`` (n to 1)."""

    pair_plus: Mapping[str, int] = field(default_factory=_pp)
    ante_bonus: Mapping[str, int] = field(default_factory=_bonus)
    dealer_qualifies_with: int = 12  # Q-high (ranks 2..14, A = 14)
    progressive_stake: int = 5_000
    progressive: Mapping[str, ProgressivePay] = field(default_factory=_prog)
    progressive_shared: tuple[str, ...] = (MINI_ROYAL,)

    def __post_init__(self) -> None:
        known = set(CATEGORIES)
        for name, table in (("pair_plus", self.pair_plus), ("ante_bonus", self.ante_bonus)):
            if not set(table) <= known:
                raise ValueError(f"{name}: unknown categories {sorted(set(table) - known)}")
        if not set(self.progressive) <= known | {MINI_ROYAL}:
            raise ValueError("progressive: unknown categories")

    def to_dict(self) -> dict[str, Any]:
        return {"pair_plus": dict(self.pair_plus), "ante_bonus": dict(self.ante_bonus),
                "dealer_qualifies_with": self.dealer_qualifies_with, "progressive_stake": self.progressive_stake,
                "progressive": {k: v.to_dict() for k, v in self.progressive.items()},
                "progressive_shared": list(self.progressive_shared)}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> ThreeCardRules:
        d = dict(d)
        if "progressive" in d:
            d["progressive"] = paytable_from_dict(d["progressive"])
        if "progressive_shared" in d:
            d["progressive_shared"] = tuple(d["progressive_shared"])
        return cls(**d)


STANDARD = ThreeCardRules()
PAIR_PLUS_40_30_6_3_1 = ThreeCardRules(pair_plus={STRAIGHT_FLUSH: 40, THREE_KIND: 30, STRAIGHT: 6, FLUSH: 3, PAIR: 1})


# ------------------------------------------------------------------------------------------- the round
@dataclass(frozen=True)
class BoxHand:
    box: str
    player: str
    cards: tuple[Card, ...]
    played: bool

    def to_dict(self) -> dict[str, Any]:
        return {"box": self.box, "player": self.player, "cards": card_strings(self.cards),
                "category": category(self.cards), "played": self.played}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> BoxHand:
        return cls(d["box"], d["player"], tuple(parse_cards(d["cards"])), bool(d["played"]))


@dataclass(frozen=True)
class ThreeCardOutcome:
    dealer: tuple[Card, ...]
    boxes: Mapping[str, BoxHand]

    @property
    def dealer_qualifies(self) -> bool:
        return dealer_qualifies(self.dealer)

    def to_dict(self) -> dict[str, Any]:
        return {"dealer": card_strings(self.dealer), "dealer_category": category(self.dealer),
                "dealer_qualifies": self.dealer_qualifies, "boxes": [b.to_dict() for b in self.boxes.values()]}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> ThreeCardOutcome:
        boxes = [BoxHand.from_dict(b) for b in d["boxes"]]
        return cls(tuple(parse_cards(d["dealer"])), {b.box: b for b in boxes})




class ThreeCardRound:
    """One round: deal (three cards per box in dealing order, then the dealer), then each box in turn
    plays or folds (:meth:`act`), then :meth:`finish` exposes the dealer's hand."""

    def __init__(self, rules: ThreeCardRules, shoe: Shoe, boxes: Sequence[BoxStake | tuple[str, str, int]]) -> None:
        self.rules, self.shoe = rules, shoe
        self.boxes = {b.box: b for b in box_stakes(boxes)}
        self.cards: dict[str, list[Card]] = {b: [shoe.draw() for _ in range(3)] for b in self.boxes}
        self.dealer = [shoe.draw() for _ in range(3)]
        self.decisions: dict[str, bool] = {}
        self.turns = TurnOrder(self.boxes)
        self.log: list[dict[str, Any]] = []
        self.finished = False

    @property
    def current(self) -> str | None:
        return self.turns.current

    def act(self, box: str, action: str) -> Bet | None:
        """``"play"`` (returns the play bet to debit, equal to the ante) or ``"fold"``."""
        if self.finished:
            raise TableRuleError("action", "the round is over")
        self.turns.expect(box)
        if action not in (PLAY, FOLD):
            raise TableRuleError("action", f"unknown decision {action!r} (play or fold)")
        self.turns.done(box)
        self.decisions[box] = action == PLAY
        self.log.append({"box": box, "action": action})
        b = self.boxes[box]
        return Bet("play", b.ante, b.player, box) if action == PLAY else None

    def finish(self) -> ThreeCardOutcome:
        if self.turns.current is not None:
            raise TableRuleError("action", f"box {self.turns.current} has not decided")
        self.finished = True
        return self.outcome()

    def outcome(self) -> ThreeCardOutcome:
        return ThreeCardOutcome(tuple(self.dealer), {
            b: BoxHand(b, s.player, tuple(self.cards[b]), self.decisions.get(b, False)) for b, s in self.boxes.items()})


def dealing_order(hands: Mapping[str, Sequence[Card | str]], dealer: Sequence[Card | str]) -> list[Card]:
    """Input mode: the cards in the order the round draws them (each box's three, then the dealer's)."""
    out: list[Card] = []
    for box, cards in hands.items():
        cs = parse_cards(cards, field=f"hands.{box}")
        if len(cs) != 3:
            raise TableRuleError(f"hands.{box}", "a three card poker hand has three cards")
        out += cs
    ds = parse_cards(dealer, field="dealer")
    if len(ds) != 3:
        raise TableRuleError("dealer", "the dealer's hand has three cards")
    out += ds
    return require_one_deck(out)


def replay(rules: ThreeCardRules, cards: Sequence[Card | str], boxes: Sequence[BoxStake | tuple[str, str, int]],
           decisions: Sequence[Mapping[str, Any]]) -> ThreeCardRound:
    return play_out(ThreeCardRound(rules, Shoe.stacked(parse_cards(cards)), boxes), decisions)


# ------------------------------------------------------------------------------------------- bets
SPOTS = ("ante", "pair_plus", PROGRESSIVE)
SIDE = ("pair_plus", PROGRESSIVE)


def parse_spot(spot: str) -> L.SpotInfo:
    """A spot before the deal, or the play bet (one ante)."""
    return ante_game_spot(spot, "three card poker", SPOTS, {"play": 1})


def default_limits(chip_unit: int = 1_000, minimum: int = 10_000, maximum: int = 1_000_000,
                   pair_plus_minimum: int = 5_000, pair_plus_maximum: int = 200_000,
                   progressive_stake: int = 5_000) -> L.TableLimits:
    return L.TableLimits(chip_unit, {"ante": L.SpotLimit(minimum, maximum),
                                     "pair_plus": L.SpotLimit(pair_plus_minimum, pair_plus_maximum),
                                     PROGRESSIVE: L.SpotLimit(progressive_stake, progressive_stake)})


def check_bet(bet: Bet, limits: L.TableLimits, existing: Sequence[Bet] = (), *,
              rules: ThreeCardRules = STANDARD, **ctx: Any) -> Bet:
    """A bet before the deal: ante; pair plus and progressive need the same player's ante on the box."""
    return check_ante_game_bet(bet, limits, existing, game="three card poker", spots=SPOTS, side_spots=SIDE,
                               progressive_stake=rules.progressive_stake, **ctx)


# ------------------------------------------------------------------------------------------- settlement
def progressive_hand(cards: Sequence[Card], rules: ThreeCardRules) -> str | None:
    cats = ([MINI_ROYAL] if is_mini_royal(cards) else []) + [category(cards)]
    return best_award(cats, rules.progressive)


def progressive_awards(bets: Sequence[Bet], outcome: ThreeCardOutcome | Void,
                       rules: ThreeCardRules = STANDARD) -> list:
    """The progressive awards the round's hands qualify for (paid by the framework via the controller)."""
    return ante_progressive_awards(bets, outcome, rules, lambda h: progressive_hand(h.cards, rules))


def settle(bets: Sequence[Bet], outcome: ThreeCardOutcome | Void, rules: ThreeCardRules = STANDARD) -> list[Settlement]:
    """Settle ``ante`` / ``play`` / ``pair_plus`` / ``progressive`` bets (progressive: see
    :func:`progressive_awards`)."""
    if isinstance(outcome, Void):
        return void_all(bets)
    dk = hand_key(outcome.dealer)
    qualifies = dealer_qualifies(outcome.dealer, rules)
    out: list[Settlement] = []
    for b in bets:
        h = box_hand(outcome.boxes, b)
        pk = hand_key(h.cards)
        cat = CATEGORIES[5 - pk[0]]
        cmp = (pk > dk) - (pk < dk)
        a = b.action
        if b.spot == "ante":
            if not h.played:
                out.append(lost(b))
                continue
            bonus = a * rules.ante_bonus.get(cat, 0)
            if not qualifies or cmp > 0:
                out.append(by_net(b, a, a + bonus))
            elif cmp == 0:
                out.append(by_net(b, a, bonus))
            else:
                out.append(by_net(b, 0, bonus))
        elif b.spot == "play":
            if not h.played:
                raise TableRuleError("spot", f"box {h.box} folded: it has no play bet")
            if not qualifies or cmp == 0:
                out.append(pushed(b))
            else:
                out.append(won(b, a) if cmp > 0 else lost(b))
        elif b.spot == "pair_plus":
            n = rules.pair_plus.get(cat, 0)
            out.append(pays(b, n) if n else lost(b))
        elif b.spot == PROGRESSIVE:
            out.append(settle_progressive(b, progressive_hand(h.cards, rules)))
        else:
            raise TableRuleError("spot", f"unknown three card poker spot {b.spot!r}")
    return out


# ------------------------------------------------------------------------------------------- exact odds
def all_hands() -> list[tuple[Card, Card, Card]]:
    return list(combinations(deck(), 3))


def category_counts() -> dict[str, int]:
    """Every one of the C(52,3) = 22,100 hands through :func:`hand_key`, by category."""
    counts = {c: 0 for c in CATEGORIES}
    for h in all_hands():
        counts[category(h)] += 1
    return counts


def pair_plus_edge(rules: ThreeCardRules = STANDARD, stake: int = 10_000) -> Fraction:
    """Exact pair plus edge: every hand settled by :func:`settle` (the dealer is irrelevant)."""
    dealer = tuple(parse_cards("2S 3H 5D"))
    total = 0
    hands = all_hands()
    for h in hands:
        o = ThreeCardOutcome(dealer, {"1": BoxHand("1", "p", h, True)})
        total += settle([Bet("pair_plus", stake, "p", "1")], o, rules)[0].net
    return -Fraction(total, len(hands) * stake)


@dataclass
class AntePlayResult:
    edge: Fraction  # house edge per ante
    hands_played: int
    pairs: int  # player × dealer hand pairs counted (22,100 × 18,424)
    counts: dict[str, int]  # dealer outcome classes over played hands: not_qualified / win / tie / lose


def ante_play_edge(rules: ThreeCardRules = STANDARD, play=plays_q64, stake: int = 10_000) -> AntePlayResult:
    """Exact ante + play edge per ante: every player hand × every dealer hand drawn from the other 49 cards.

    Each player hand's 18,424 dealer hands are sorted into not-qualifying / player wins / tie / dealer wins
    (vectorised with card bitmasks) and each class is priced by :func:`settle` with one of its own dealer hands;
    folds are priced the same way. Hands that differ only by a renaming of suits have the same counts and
    prices, so each of the 1,755 suit patterns is computed once and counted for all its hands.
    """
    import numpy as np
    from itertools import permutations

    hands = all_hands()
    keys = [hand_key(h) for h in hands]
    distinct = sorted(set(keys))
    order = {k: i for i, k in enumerate(distinct)}
    kid = np.array([order[k] for k in keys], dtype=np.int32)
    qual = np.array([dealer_qualifies(h, rules) for h in hands])
    pos = {c: i for i, c in enumerate(deck())}
    masks = np.array([(1 << pos[a]) | (1 << pos[b]) | (1 << pos[c]) for a, b, c in hands], dtype=np.int64)
    perms = [dict(zip("SHDC", p)) for p in permutations("SHDC")]
    cache: dict[tuple, tuple[int, int, dict[str, int]]] = {}
    total_net = 0
    played = pairs = 0
    counts = {"not_qualified": 0, "win": 0, "tie": 0, "lose": 0}
    for i, h in enumerate(hands):
        canon = min(tuple(sorted((c.rank, p[c.suit]) for c in h)) for p in perms)
        if canon not in cache:
            ok = (masks & masks[i]) == 0
            n_ok = int(ok.sum())
            box = {"1": BoxHand("1", "p", h, bool(play(h)))}
            bets = [Bet("ante", stake, "p", "1")] + ([Bet("play", stake, "p", "1")] if box["1"].played else [])
            if box["1"].played:
                classes = {"not_qualified": ok & ~qual, "win": ok & qual & (kid < kid[i]),
                           "tie": ok & qual & (kid == kid[i]), "lose": ok & qual & (kid > kid[i])}
            else:
                classes = {"fold": ok}
            net_total, by_class = 0, {}
            for name, sel in classes.items():
                n = int(sel.sum())
                if not n:
                    continue
                by_class[name] = n
                rep = int(np.flatnonzero(sel)[0])
                net_total += n * sum(x.net for x in settle(bets, ThreeCardOutcome(hands[rep], box), rules))
            cache[canon] = (n_ok, net_total, by_class)
        n_ok, net_total, by_class = cache[canon]
        pairs += n_ok
        total_net += net_total
        if "fold" not in by_class:
            played += 1
            for name, n in by_class.items():
                counts[name] += n
    return AntePlayResult(-Fraction(total_net, pairs * stake), played, pairs, counts)
