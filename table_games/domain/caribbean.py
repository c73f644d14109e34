"""Caribbean stud poker: the round (ante, call 2× ante or fold), dealer qualification, the call paytable, the
progressive side bet, the misdeal rules, settlement and the five-card census.

Rules (seed page 003, DESIGN §5): one 52-card deck; five cards to each box with an ante, then five to the
dealer, whose last card is dealt face up (``deal="groups"`` as from a shuffler, or ``"one_at_a_time"``).
Each box, in turn, **calls** (a call bet of exactly twice the ante) or **folds** (loses the ante). The dealer
qualifies with **A-K or better**; not qualifying: every ante pays 1:1 and call bets push. Qualifying: a
player hand above the dealer's wins the ante 1:1 and the call by the paytable (royal flush 100, straight
flush 50, four of a kind 20, full house 7, flush 5, straight 4, three of a kind 3, two pair 2, one pair or
less 1); equal hands push; a lower hand loses both. Hands are ranked by the standard five-card order
(phevaluator, :mod:`table_games.domain.poker_eval`).

**Progressive** (a fixed stake, placed with the ante): royal flush 100% of the meter, straight flush 10%,
four of a kind / full house / flush fixed amounts (the page's $500 / $100 / $50, here ₩500,000 / ₩100,000 /
₩50,000 as configuration); several qualifying royal flushes in one round share the meter. The engine
reports the awards (:func:`progressive_awards`); the jackpot controller keeps the meter and the framework
pays. A folded hand forfeits its progressive (the page collects folded cards before the showdown).

**Misdeals** (page 003): a box dealt other than five cards is a dead hand -- its bets are returned (it keeps
its ante and bets). The dealer dealt other than five cards is a misdeal of the table: no decisions, antes
returned, and the players' hands are used for the progressive only (qualifying hands are paid; the others'
progressive stakes stay in the meter, as the page keeps only the ante and bet). In input mode the dealer
enters the hands as dealt, miscounts included (:func:`round_from_hands`); the live path deals from the shoe
through the same constructor.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from table_games.domain import limits as L
from table_games.domain import poker_eval as E
from table_games.domain.cards import Card, card_strings, parse_cards
from table_games.domain.errors import TableRuleError
from table_games.domain.poker_table import new_deck  # noqa: F401  (part of this game's interface)
from table_games.domain.poker_table import (
    PROGRESSIVE, BoxStake, ProgressivePay, TurnOrder, ante_game_spot, ante_progressive_awards, best_award, box_hand,
    box_stakes, check_ante_game_bet, paytable_from_dict, pays, play_out, require_one_deck, settle_progressive,
)
from table_games.domain.settlement import Bet, Settlement, Void, lost, pushed, void_all, voided, won
from table_games.domain.shoe import Shoe

GAME = "caribbean_stud"
CALL, FOLD = "call", "fold"
DEALER = "dealer"


def _call_pays() -> dict[str, int]:
    return {E.ROYAL_FLUSH: 100, E.STRAIGHT_FLUSH: 50, E.FOUR_KIND: 20, E.FULL_HOUSE: 7, E.FLUSH: 5,
            E.STRAIGHT: 4, E.THREE_KIND: 3, E.TWO_PAIR: 2, E.ONE_PAIR: 1, E.HIGH_CARD: 1}


def _prog() -> dict[str, ProgressivePay]:
    return {E.ROYAL_FLUSH: ProgressivePay(meter_ppm=1_000_000), E.STRAIGHT_FLUSH: ProgressivePay(meter_ppm=100_000),
            E.FOUR_KIND: ProgressivePay(fixed=500_000), E.FULL_HOUSE: ProgressivePay(fixed=100_000),
            E.FLUSH: ProgressivePay(fixed=50_000)}


@dataclass(frozen=True)
class CaribbeanRules:
    call_pays: Mapping[str, int] = field(default_factory=_call_pays)
    call_multiple: int = 2  # the call bet is exactly this many antes
    progressive_stake: int = 1_000
    progressive: Mapping[str, ProgressivePay] = field(default_factory=_prog)
    progressive_shared: tuple[str, ...] = (E.ROYAL_FLUSH,)
    progressive_requires_call: bool = True  # a folded hand forfeits the progressive
    deal: str = "groups"  # "groups" (five at a time, shuffler) | "one_at_a_time"

    def __post_init__(self) -> None:
        if self.deal not in ("groups", "one_at_a_time"):
            raise ValueError("deal is 'groups' or 'one_at_a_time'")
        if not set(self.call_pays) <= set(E.CATEGORIES) or not set(self.progressive) <= set(E.CATEGORIES):
            raise ValueError("unknown hand categories in a paytable")

    def to_dict(self) -> dict[str, Any]:
        return {"call_pays": dict(self.call_pays), "call_multiple": self.call_multiple,
                "progressive_stake": self.progressive_stake,
                "progressive": {k: v.to_dict() for k, v in self.progressive.items()},
                "progressive_shared": list(self.progressive_shared),
                "progressive_requires_call": self.progressive_requires_call, "deal": self.deal}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> CaribbeanRules:
        d = dict(d)
        if "progressive" in d:
            d["progressive"] = paytable_from_dict(d["progressive"])
        if "progressive_shared" in d:
            d["progressive_shared"] = tuple(d["progressive_shared"])
        return cls(**d)


STANDARD = CaribbeanRules()


# ------------------------------------------------------------------------------------------- hands
def qualifies_ids(ids: Sequence[int], phe_rank: int | None = None) -> bool:
    """A-K or better, from evaluator ids (the census runs on this; :func:`dealer_qualifies` too)."""
    r = E.phe_rank(ids) if phe_rank is None else phe_rank
    if r < E.HIGH_CARD_FROM:  # a pair or better
        return True
    ranks = {i // 4 for i in ids}
    return 12 in ranks and 11 in ranks  # an ace and a king


def dealer_qualifies(cards: Sequence[Card]) -> bool:
    return qualifies_ids([E.card_id(c) for c in cards])


@dataclass(frozen=True)
class StudHand:
    box: str
    player: str
    cards: tuple[Card, ...]
    called: bool = False
    dead: bool = False  # dealt other than five cards

    @property
    def category(self) -> str | None:
        return None if self.dead else E.category(self.cards)

    def to_dict(self) -> dict[str, Any]:
        return {"box": self.box, "player": self.player, "cards": card_strings(self.cards),
                "category": self.category, "called": self.called, "dead": self.dead}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> StudHand:
        return cls(d["box"], d["player"], tuple(parse_cards(d["cards"])), bool(d.get("called")), bool(d.get("dead")))


@dataclass(frozen=True)
class CaribbeanOutcome:
    dealer: tuple[Card, ...]
    boxes: Mapping[str, StudHand]

    @property
    def misdeal(self) -> bool:
        """The dealer was dealt other than five cards: the table's misdeal."""
        return len(self.dealer) != 5

    @property
    def dealer_qualifies(self) -> bool:
        return not self.misdeal and dealer_qualifies(self.dealer)

    @property
    def upcard(self) -> Card | None:
        return self.dealer[-1] if self.dealer else None

    def to_dict(self) -> dict[str, Any]:
        return {"dealer": card_strings(self.dealer), "misdeal": self.misdeal,
                "dealer_category": None if self.misdeal else E.category(self.dealer),
                "dealer_qualifies": self.dealer_qualifies, "boxes": [b.to_dict() for b in self.boxes.values()]}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> CaribbeanOutcome:
        boxes = [StudHand.from_dict(b) for b in d["boxes"]]
        return cls(tuple(parse_cards(d["dealer"])), {b.box: b for b in boxes})


# ------------------------------------------------------------------------------------------- the round


class CaribbeanRound:
    """Deal, then each live box in turn calls or folds (:meth:`act`), then :meth:`finish`.

    ``counts`` (input mode) says how many cards each box and the ``"dealer"`` actually received; a box
    with other than five is dead, a dealer with other than five makes the round a misdeal (no decisions).
    """

    def __init__(self, rules: CaribbeanRules, shoe: Shoe, boxes: Sequence[BoxStake | tuple[str, str, int]],
                 *, counts: Mapping[str, int] | None = None) -> None:
        self.rules, self.shoe = rules, shoe
        self.boxes = {b.box: b for b in box_stakes(boxes)}
        counts = dict(counts or {})
        want = {p: counts.get(p, 5) for p in [*self.boxes, DEALER]}
        self.cards: dict[str, list[Card]] = {p: [] for p in want}
        if rules.deal == "groups":
            for p, n in want.items():
                self.cards[p] += [shoe.draw() for _ in range(n)]
        else:
            for i in range(max(want.values())):
                for p, n in want.items():
                    if i < n:
                        self.cards[p].append(shoe.draw())
        self.dealer = self.cards.pop(DEALER)
        self.dead = {b for b, cs in self.cards.items() if len(cs) != 5}
        self.misdeal = len(self.dealer) != 5
        live = [] if self.misdeal else [b for b in self.boxes if b not in self.dead]
        self.turns = TurnOrder(live)
        self.calls: dict[str, bool] = {}
        self.log: list[dict[str, Any]] = []
        self.finished = False

    @property
    def current(self) -> str | None:
        return self.turns.current

    def act(self, box: str, action: str) -> Bet | None:
        """``"call"`` (returns the call bet to debit: ``call_multiple`` × the ante) or ``"fold"``."""
        if self.finished:
            raise TableRuleError("action", "the round is over")
        if box in self.dead:
            raise TableRuleError("box", f"box {box} is a dead hand (dealt other than five cards)")
        if self.misdeal:
            raise TableRuleError("action", "misdeal: the dealer's hand is dead, no decisions")
        self.turns.expect(box)
        if action not in (CALL, FOLD):
            raise TableRuleError("action", f"unknown decision {action!r} (call or fold)")
        self.turns.done(box)
        self.calls[box] = action == CALL
        self.log.append({"box": box, "action": action})
        b = self.boxes[box]
        return Bet("call", b.ante * self.rules.call_multiple, b.player, box) if action == CALL else None

    def finish(self) -> CaribbeanOutcome:
        if self.turns.current is not None:
            raise TableRuleError("action", f"box {self.turns.current} has not decided")
        self.finished = True
        return self.outcome()

    def outcome(self) -> CaribbeanOutcome:
        return CaribbeanOutcome(tuple(self.dealer), {
            b: StudHand(b, s.player, tuple(self.cards[b]), self.calls.get(b, False), b in self.dead)
            for b, s in self.boxes.items()})


def round_from_hands(rules: CaribbeanRules, boxes: Sequence[BoxStake | tuple[str, str, int]],
                     hands: Mapping[str, Sequence[Card | str]], dealer: Sequence[Card | str]) -> CaribbeanRound:
    """Input mode: the hands as the dealer dealt them (miscounts included), through the round's own deal."""
    stakes = box_stakes(boxes)
    parsed = {b.box: parse_cards(hands.get(b.box, ()), field=f"hands.{b.box}") for b in stakes}
    ds = parse_cards(dealer, field="dealer")
    cards = require_one_deck([c for b in stakes for c in parsed[b.box]] + ds)
    counts = {b: len(cs) for b, cs in parsed.items()} | {DEALER: len(ds)}
    if rules.deal != "groups":
        rules = CaribbeanRules.from_dict(rules.to_dict() | {"deal": "groups"})  # entered hand by hand
    return CaribbeanRound(rules, Shoe.stacked(cards), stakes, counts=counts)


def replay(rules: CaribbeanRules, cards: Sequence[Card | str], boxes: Sequence[BoxStake | tuple[str, str, int]],
           decisions: Sequence[Mapping[str, Any]], *, counts: Mapping[str, int] | None = None) -> CaribbeanRound:
    return play_out(CaribbeanRound(rules, Shoe.stacked(parse_cards(cards)), boxes, counts=counts), decisions)


# ------------------------------------------------------------------------------------------- bets
SPOTS = ("ante", PROGRESSIVE)
SIDE = (PROGRESSIVE,)


def parse_spot(spot: str) -> L.SpotInfo:
    """A spot before the deal, or the call bet (two antes)."""
    return ante_game_spot(spot, "Caribbean stud", SPOTS, {"call": 2})


def default_limits(chip_unit: int = 1_000, minimum: int = 10_000, maximum: int = 500_000,
                   progressive_stake: int = 1_000) -> L.TableLimits:
    return L.TableLimits(chip_unit, {"ante": L.SpotLimit(minimum, maximum),
                                     PROGRESSIVE: L.SpotLimit(progressive_stake, progressive_stake)})


def check_bet(bet: Bet, limits: L.TableLimits, existing: Sequence[Bet] = (), *,
              rules: CaribbeanRules = STANDARD, **ctx: Any) -> Bet:
    """A bet before the deal: the ante; the progressive (exactly ``rules.progressive_stake``) needs the ante."""
    return check_ante_game_bet(bet, limits, existing, game="Caribbean stud", spots=SPOTS, side_spots=SIDE,
                               progressive_stake=rules.progressive_stake, **ctx)


# ------------------------------------------------------------------------------------------- settlement
def _hand(outcome: CaribbeanOutcome, b: Bet) -> StudHand:
    return box_hand(outcome.boxes, b)


def progressive_hand(h: StudHand, outcome: CaribbeanOutcome, rules: CaribbeanRules) -> str | None:
    if h.dead:
        return None
    if rules.progressive_requires_call and not outcome.misdeal and not h.called:
        return None
    return best_award([h.category], rules.progressive)


def progressive_awards(bets: Sequence[Bet], outcome: CaribbeanOutcome | Void,
                       rules: CaribbeanRules = STANDARD) -> list:
    """The progressive awards of the round's live hands (a dead hand claims nothing)."""
    return ante_progressive_awards(bets, outcome, rules, lambda h: progressive_hand(h, outcome, rules),
                                   in_play=lambda h: not h.dead)


def settle(bets: Sequence[Bet], outcome: CaribbeanOutcome | Void, rules: CaribbeanRules = STANDARD) -> list[Settlement]:
    if isinstance(outcome, Void):
        return void_all(bets)
    qualifies = outcome.dealer_qualifies
    ds = None if outcome.misdeal else E.strength(outcome.dealer)
    out: list[Settlement] = []
    for b in bets:
        h = _hand(outcome, b)
        if h.dead:
            out.append(voided(b))
            continue
        if b.spot == PROGRESSIVE:
            out.append(settle_progressive(b, progressive_hand(h, outcome, rules)))
            continue
        if b.spot not in ("ante", "call"):
            raise TableRuleError("spot", f"unknown Caribbean stud spot {b.spot!r}")
        if outcome.misdeal:
            out.append(voided(b))
            continue
        if b.spot == "call" and not h.called:
            raise TableRuleError("spot", f"box {h.box} folded: it has no call bet")
        if not h.called:
            out.append(lost(b))
            continue
        if not qualifies:
            out.append(won(b, b.action) if b.spot == "ante" else pushed(b))
            continue
        ps = E.strength(h.cards)
        if ps == ds:
            out.append(pushed(b))
        elif ps < ds:
            out.append(lost(b))
        elif b.spot == "ante":
            out.append(won(b, b.action))
        else:
            out.append(pays(b, rules.call_pays[E.category(ps)]))
    return out


# ------------------------------------------------------------------------------------------- census
@dataclass
class FiveCardCensus:
    total: int
    categories: dict[str, int]
    dealer_qualifies: int
    ace_king_high: int


def five_card_census() -> FiveCardCensus:
    """Every one of the C(52,5) = 2,598,960 hands through the evaluator and :func:`qualifies_ids`."""
    ranks = [0] * (E.TOP + 1)
    qual = ak = 0
    f = E.phe_rank
    for ids in combinations(range(52), 5):
        r = f(ids)
        ranks[r] += 1
        if qualifies_ids(ids, r):
            qual += 1
            ak += r >= E.HIGH_CARD_FROM
    cats = {c: 0 for c in E.CATEGORIES}
    for r, n in enumerate(ranks):
        if n:
            cats[E.category_of_phe(r)] += n
    return FiveCardCensus(sum(ranks), cats, qual, ak)
