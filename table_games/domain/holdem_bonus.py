"""Progressive Texas hold'em (the page's game is Texas Hold'em Bonus): the round, settlement, the hole-card
bonus and the progressive side bet.

Rules (seed page 000 "Progressive Texas Hold'em Poker", DESIGN §5): one 52-card deck. The dealer lays out
the five community cards face down, then deals two hole cards to each box with an ante and two to itself.
Each box, in turn: **flop bet** (2× ante) or fold (loses the ante); the flop is shown; **turn bet** (1×) or
check; the turn is shown; **river bet** (1×) or check; the river is shown and the dealer's cards are
exposed. Best five of seven (phevaluator) decides: a player above the dealer wins the flop, turn and river
bets 1:1 and the ante 1:1 **only with a straight or better** (``ante_pays_from``: "flush" on the
Atlantic-City variant), else the ante pushes; equal hands push everything; a lower hand loses everything.
There is no dealer qualifier.

Side bets (need the ante): the **bonus** on the two hole cards, paid whatever happens in the hand (the
default table is the reference's: A-A with the dealer's A-A 1000, A-A 30, A-K suited 25, A-Q/A-J suited 20,
A-K 15, K-K/Q-Q/J-J 10, A-Q/A-J 5, 2-2 … 10-10 3 to 1); the **progressive** (fixed stake) on the hole
cards and the flop (five cards): royal flush 100% of the meter, straight flush 10%, four of a kind / full
house / flush fixed amounts, reported as awards for the jackpot controller (a hand folded before the flop
forfeits it).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
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
from table_games.domain.settlement import Bet, Settlement, Void, lost, pushed, void_all, won
from table_games.domain.shoe import Shoe

GAME = "holdem_bonus"
PREFLOP, FLOP, TURN, SHOWDOWN = "preflop", "flop", "turn", "showdown"
BET, FOLD, CHECK = "bet", "fold", "check"
#: the bet each street's decision places (named after the card it is made before)
STREET_BET = {PREFLOP: "flop", FLOP: "turn", TURN: "river"}

# bonus paytable lines (hole cards), best first
AA_VS_DEALER_AA, AA, AK_SUITED, AQ_AJ_SUITED, AK_OFFSUIT, JJ_QQ_KK, AQ_AJ_OFFSUIT, PAIR_2_10 = (
    "aa_vs_dealer_aa", "aa", "ak_suited", "aq_aj_suited", "ak_offsuit", "jj_qq_kk", "aq_aj_offsuit", "pair_2_10")
BONUS_LINES = (AA_VS_DEALER_AA, AA, AK_SUITED, AQ_AJ_SUITED, AK_OFFSUIT, JJ_QQ_KK, AQ_AJ_OFFSUIT, PAIR_2_10)


def _bonus() -> dict[str, int]:
    return {AA_VS_DEALER_AA: 1000, AA: 30, AK_SUITED: 25, AQ_AJ_SUITED: 20, AK_OFFSUIT: 15, JJ_QQ_KK: 10,
            AQ_AJ_OFFSUIT: 5, PAIR_2_10: 3}


def _prog() -> dict[str, ProgressivePay]:
    return {E.ROYAL_FLUSH: ProgressivePay(meter_ppm=1_000_000), E.STRAIGHT_FLUSH: ProgressivePay(meter_ppm=100_000),
            E.FOUR_KIND: ProgressivePay(fixed=500_000), E.FULL_HOUSE: ProgressivePay(fixed=75_000),
            E.FLUSH: ProgressivePay(fixed=50_000)}


@dataclass(frozen=True)
class HoldemBonusRules:
    ante_pays_from: str = E.STRAIGHT  # the ante wins only with this category or better
    flop_multiple: int = 2
    turn_multiple: int = 1
    river_multiple: int = 1
    bonus: Mapping[str, int] = field(default_factory=_bonus)
    progressive_stake: int = 5_000
    progressive: Mapping[str, ProgressivePay] = field(default_factory=_prog)
    progressive_shared: tuple[str, ...] = (E.ROYAL_FLUSH,)
    progressive_requires_play: bool = True  # folding before the flop forfeits the progressive

    def __post_init__(self) -> None:
        if self.ante_pays_from not in E.CATEGORIES:
            raise ValueError(f"ante_pays_from: unknown category {self.ante_pays_from!r}")
        if not set(self.bonus) <= set(BONUS_LINES):
            raise ValueError(f"bonus: unknown lines {sorted(set(self.bonus) - set(BONUS_LINES))}")
        if not set(self.progressive) <= set(E.CATEGORIES):
            raise ValueError("progressive: unknown categories")

    def multiple(self, street: str) -> int:
        return {PREFLOP: self.flop_multiple, FLOP: self.turn_multiple, TURN: self.river_multiple}[street]

    def to_dict(self) -> dict[str, Any]:
        return {"ante_pays_from": self.ante_pays_from, "flop_multiple": self.flop_multiple,
                "turn_multiple": self.turn_multiple, "river_multiple": self.river_multiple, "bonus": dict(self.bonus),
                "progressive_stake": self.progressive_stake,
                "progressive": {k: v.to_dict() for k, v in self.progressive.items()},
                "progressive_shared": list(self.progressive_shared),
                "progressive_requires_play": self.progressive_requires_play}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> HoldemBonusRules:
        d = dict(d)
        if "progressive" in d:
            d["progressive"] = paytable_from_dict(d["progressive"])
        if "progressive_shared" in d:
            d["progressive_shared"] = tuple(d["progressive_shared"])
        return cls(**d)


STANDARD = HoldemBonusRules()
FLUSH_ANTE = HoldemBonusRules(ante_pays_from=E.FLUSH)  # Atlantic City / Star City


# ------------------------------------------------------------------------------------------- hands
def bonus_line(hole: Sequence[Card], dealer: Sequence[Card] | None = None) -> str | None:
    """The bonus line the two hole cards make (``aa_vs_dealer_aa`` needs the dealer's two cards)."""
    a, b = (14 if c.rank == 1 else c.rank for c in hole)
    hi, lo = max(a, b), min(a, b)
    suited = hole[0].suit == hole[1].suit
    if hi == lo:
        if hi == 14:
            if dealer is not None and all(c.rank == 1 for c in dealer):
                return AA_VS_DEALER_AA
            return AA
        return JJ_QQ_KK if hi >= 11 else PAIR_2_10
    if hi == 14 and lo == 13:
        return AK_SUITED if suited else AK_OFFSUIT
    if hi == 14 and lo in (11, 12):
        return AQ_AJ_SUITED if suited else AQ_AJ_OFFSUIT
    return None


@dataclass(frozen=True)
class HoldemHand:
    box: str
    player: str
    hole: tuple[Card, ...]
    folded: bool = False
    turn_bet: bool = False
    river_bet: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"box": self.box, "player": self.player, "hole": card_strings(self.hole), "folded": self.folded,
                "turn_bet": self.turn_bet, "river_bet": self.river_bet}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> HoldemHand:
        return cls(d["box"], d["player"], tuple(parse_cards(d["hole"])), bool(d.get("folded")),
                   bool(d.get("turn_bet")), bool(d.get("river_bet")))


@dataclass(frozen=True)
class HoldemOutcome:
    board: tuple[Card, ...]
    dealer: tuple[Card, ...]
    boxes: Mapping[str, HoldemHand]

    def strength(self, hole: Sequence[Card]) -> int:
        return E.strength([*hole, *self.board])

    @property
    def dealer_strength(self) -> int:
        return self.strength(self.dealer)

    def to_dict(self) -> dict[str, Any]:
        boxes = []
        for h in self.boxes.values():
            d = h.to_dict()
            s = self.strength(h.hole)
            d.update(category=E.category(s), best_five=card_strings(E.best_five([*h.hole, *self.board])))
            boxes.append(d)
        return {"board": card_strings(self.board), "dealer": card_strings(self.dealer),
                "dealer_category": E.category(self.dealer_strength),
                "dealer_best_five": card_strings(E.best_five([*self.dealer, *self.board])), "boxes": boxes}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> HoldemOutcome:
        boxes = [HoldemHand.from_dict(b) for b in d["boxes"]]
        return cls(tuple(parse_cards(d["board"])), tuple(parse_cards(d["dealer"])), {b.box: b for b in boxes})


# ------------------------------------------------------------------------------------------- the round


class HoldemBonusRound:
    """Deal (board face down, two hole cards per box, the dealer's two), then three streets of decisions,
    each box in turn: preflop ``bet`` (the flop bet) / ``fold``; on the flop and the turn ``bet`` / ``check``.
    Each ``bet`` returns the bet to debit (``flop``, ``turn``, ``river``). :attr:`visible_board` is what the
    players see; :meth:`finish` after the last street gives the outcome."""

    def __init__(self, rules: HoldemBonusRules, shoe: Shoe, boxes: Sequence[BoxStake | tuple[str, str, int]]) -> None:
        self.rules, self.shoe = rules, shoe
        self.boxes = {b.box: b for b in box_stakes(boxes)}
        self.board = [shoe.draw() for _ in range(5)]
        self.hole = {b: [shoe.draw(), shoe.draw()] for b in self.boxes}
        self.dealer = [shoe.draw(), shoe.draw()]
        self.street = PREFLOP
        self.folded: set[str] = set()
        self.bets: dict[str, set[str]] = {b: set() for b in self.boxes}
        self.turns = TurnOrder(self.boxes)
        self.log: list[dict[str, Any]] = []

    @property
    def visible_board(self) -> list[Card]:
        return self.board[: {PREFLOP: 0, FLOP: 3, TURN: 4, SHOWDOWN: 5}[self.street]]

    @property
    def current(self) -> str | None:
        return self.turns.current

    def allowed_actions(self) -> list[str]:
        if self.street == SHOWDOWN or self.current is None:
            return []
        return [BET, FOLD] if self.street == PREFLOP else [BET, CHECK]

    def act(self, box: str, action: str) -> Bet | None:
        if self.street == SHOWDOWN:
            raise TableRuleError("action", "the round is over")
        self.turns.expect(box)
        if action not in self.allowed_actions():
            raise TableRuleError("action", f"{action!r} is not a decision {'before the flop' if self.street == PREFLOP else 'on the ' + self.street} "
                                           f"({' or '.join(self.allowed_actions())})")
        self.turns.done(box)
        self.log.append({"box": box, "street": self.street, "action": action})
        out = None
        if action == FOLD:
            self.folded.add(box)
        elif action == BET:
            name = STREET_BET[self.street]
            self.bets[box].add(name)
            b = self.boxes[box]
            out = Bet(name, b.ante * self.rules.multiple(self.street), b.player, box)
        if self.turns.current is None:
            self._next_street()
        return out

    def _next_street(self) -> None:
        live = [b for b in self.boxes if b not in self.folded]
        self.street = {PREFLOP: FLOP, FLOP: TURN, TURN: SHOWDOWN}[self.street]
        if not live:
            self.street = SHOWDOWN
        self.turns.next_street(live if self.street != SHOWDOWN else [])

    def finish(self) -> HoldemOutcome:
        if self.street != SHOWDOWN:
            raise TableRuleError("action", f"box {self.current} has not decided ({self.street})")
        return self.outcome()

    def outcome(self) -> HoldemOutcome:
        return HoldemOutcome(tuple(self.board), tuple(self.dealer), {
            b: HoldemHand(b, s.player, tuple(self.hole[b]), b in self.folded, "turn" in self.bets[b],
                          "river" in self.bets[b]) for b, s in self.boxes.items()})


def dealing_order(board: Sequence[Card | str], hole: Mapping[str, Sequence[Card | str]],
                  dealer: Sequence[Card | str]) -> list[Card]:
    """Input mode: the cards in the round's drawing order (board, each box's two, the dealer's two)."""
    bd = parse_cards(board, field="board")
    if len(bd) != 5:
        raise TableRuleError("board", "the board has five cards")
    out = list(bd)
    for box, cs in hole.items():
        h = parse_cards(cs, field=f"hole.{box}")
        if len(h) != 2:
            raise TableRuleError(f"hole.{box}", "two hole cards")
        out += h
    dl = parse_cards(dealer, field="dealer")
    if len(dl) != 2:
        raise TableRuleError("dealer", "the dealer has two cards")
    out += dl
    return require_one_deck(out)


def replay(rules: HoldemBonusRules, cards: Sequence[Card | str], boxes: Sequence[BoxStake | tuple[str, str, int]],
           decisions: Sequence[Mapping[str, Any]]) -> HoldemBonusRound:
    return play_out(HoldemBonusRound(rules, Shoe.stacked(parse_cards(cards)), boxes), decisions)


# ------------------------------------------------------------------------------------------- bets
SPOTS = ("ante", "bonus", PROGRESSIVE)
SIDE = ("bonus", PROGRESSIVE)


def parse_spot(spot: str) -> L.SpotInfo:
    """A spot before the deal, or a street's bet (flop: two antes, turn and river: one; the chips the limit
    checks are per ante unit)."""
    return ante_game_spot(spot, "hold'em bonus", SPOTS, {"flop": 1, "turn": 1, "river": 1})


def default_limits(chip_unit: int = 1_000, minimum: int = 10_000, maximum: int = 500_000,
                   bonus_minimum: int = 5_000, bonus_maximum: int = 100_000,
                   progressive_stake: int = 5_000) -> L.TableLimits:
    return L.TableLimits(chip_unit, {"ante": L.SpotLimit(minimum, maximum),
                                     "bonus": L.SpotLimit(bonus_minimum, bonus_maximum),
                                     PROGRESSIVE: L.SpotLimit(progressive_stake, progressive_stake)})


def check_bet(bet: Bet, limits: L.TableLimits, existing: Sequence[Bet] = (), *,
              rules: HoldemBonusRules = STANDARD, **ctx: Any) -> Bet:
    """A bet before the deal: the ante; bonus and progressive need the same player's ante on the box."""
    return check_ante_game_bet(bet, limits, existing, game="hold'em bonus", spots=SPOTS, side_spots=SIDE,
                               progressive_stake=rules.progressive_stake, **ctx)


# ------------------------------------------------------------------------------------------- settlement
def _hand(outcome: HoldemOutcome, b: Bet) -> HoldemHand:
    return box_hand(outcome.boxes, b)


def progressive_hand(h: HoldemHand, outcome: HoldemOutcome, rules: HoldemBonusRules) -> str | None:
    if h.folded and rules.progressive_requires_play:
        return None
    return best_award([E.category([*h.hole, *outcome.board[:3]])], rules.progressive)


def progressive_awards(bets: Sequence[Bet], outcome: HoldemOutcome | Void, rules: HoldemBonusRules = STANDARD) -> list:
    """The progressive awards of the round's hands (the hole cards and the flop)."""
    return ante_progressive_awards(bets, outcome, rules, lambda h: progressive_hand(h, outcome, rules))


def settle(bets: Sequence[Bet], outcome: HoldemOutcome | Void, rules: HoldemBonusRules = STANDARD) -> list[Settlement]:
    if isinstance(outcome, Void):
        return void_all(bets)
    ds = outcome.dealer_strength
    out: list[Settlement] = []
    for b in bets:
        h = _hand(outcome, b)
        if b.spot == "bonus":
            line = bonus_line(h.hole, outcome.dealer)
            n = rules.bonus.get(line, 0) if line else 0
            if line == AA_VS_DEALER_AA and not n:
                n = rules.bonus.get(AA, 0)
            out.append(pays(b, n) if n else lost(b))
            continue
        if b.spot == PROGRESSIVE:
            out.append(settle_progressive(b, progressive_hand(h, outcome, rules)))
            continue
        if b.spot not in ("ante", "flop", "turn", "river"):
            raise TableRuleError("spot", f"unknown hold'em bonus spot {b.spot!r}")
        if h.folded:
            if b.spot != "ante":
                raise TableRuleError("spot", f"box {h.box} folded before the flop: it has no {b.spot} bet")
            out.append(lost(b))
            continue
        if (b.spot == "turn" and not h.turn_bet) or (b.spot == "river" and not h.river_bet):
            raise TableRuleError("spot", f"box {h.box} checked: it has no {b.spot} bet")
        ps = outcome.strength(h.hole)
        if ps == ds:
            out.append(pushed(b))
        elif ps < ds:
            out.append(lost(b))
        elif b.spot == "ante":
            out.append(won(b, b.action) if E.at_least(E.category(ps), rules.ante_pays_from) else pushed(b))
        else:
            out.append(won(b, b.action))
    return out


# ------------------------------------------------------------------------------------------- exact odds
def bonus_edge(rules: HoldemBonusRules = STANDARD, stake: int = 10_000):
    """Exact bonus-bet edge: every two-card hole (1,326), and for A-A every dealer hand from the other 50
    cards, settled by :func:`settle`."""
    from fractions import Fraction
    from itertools import combinations

    from table_games.domain.cards import deck

    cards = deck()
    board = tuple(parse_cards("2C 3C 4D 5D 7H"))
    total = n = 0
    for hole in combinations(cards, 2):
        bet = [Bet("bonus", stake, "p", "1")]
        box = {"1": HoldemHand("1", "p", hole)}
        if all(c.rank == 1 for c in hole):
            rest = [c for c in cards if c not in hole]
            aa = sum(1 for d in combinations(rest, 2) if all(c.rank == 1 for c in d))
            other = len(rest) * (len(rest) - 1) // 2 - aa
            dealer_aa = tuple(c for c in rest if c.rank == 1)
            win_aa = settle(bet, HoldemOutcome(board, dealer_aa, box), rules)[0].net
            win = settle(bet, HoldemOutcome(board, tuple(parse_cards("KS KH")), box), rules)[0].net
            total += Fraction(aa * win_aa + other * win, aa + other)
        else:
            total += settle(bet, HoldemOutcome(board, tuple(parse_cards("KS KH")), box), rules)[0].net
        n += 1
    return -Fraction(total) / (n * stake)
