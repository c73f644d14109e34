"""Baccarat (punto banco): the drawing tableau, coups from the shoe, bet spots, settlement, exact odds.

Rules (seed page 000, DESIGN §5): 8 decks, cut card (the coup in progress when it comes out is the last of
the shoe), burn at the start of a shoe; cards P, B, P, B; a natural (8/9 on two cards) on either side ends
the coup (both naturals: the higher wins, equal is a tie); the player draws on 0-5 and stands on 6-7; a
banker who did not see a player third card draws on 0-5; otherwise the banker follows
:data:`BANKER_DRAWS` (its total against the player's third card). Player pays 1:1; banker 1:1 less 5%
commission (rounded up to the table's commission unit) or, on a no-commission table, 1:1 except a banker
win with 6 which pays 1:2 (rounded down); tie pays 8:1 and player/banker bets push on a tie; player pair
and banker pair pay 11:1 when the side's first two cards have the same **rank**.

The tableau lives in two tables (:data:`PLAYER_DRAWS`, :data:`BANKER_DRAWS`) read by one function,
:func:`next_to_draw`; live coups, dealer input and the exact enumeration (:func:`enumerate_outcomes`) all
go through it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from slotsys.kernel.money import commission_ceil, payout_floor
from table_games.domain import limits as L
from table_games.domain.cards import Card, card_strings, parse_cards
from table_games.domain.errors import ShoeExhausted, TableRuleError
from table_games.domain.settlement import Bet, Settlement, Void, lost, pushed, void_all, won
from table_games.domain.shoe import Shoe

GAME = "baccarat"
PLAYER, BANKER, TIE = "player", "banker", "tie"

# ------------------------------------------------------------------------------------------- the tableau
#: player's two-card total → draws a third card (0-5 draw, 6-7 stand; 8-9 are naturals, handled first)
PLAYER_DRAWS: tuple[bool, ...] = (True, True, True, True, True, True, False, False, False, False)
#: banker's total → player's third-card point value (0-9) → banker draws (page 000's table)
BANKER_DRAWS: tuple[tuple[bool, ...], ...] = (
    (True,) * 10,                                                           # 0
    (True,) * 10,                                                           # 1
    (True,) * 10,                                                           # 2
    tuple(v != 8 for v in range(10)),                                       # 3: not on 8
    tuple(v in (2, 3, 4, 5, 6, 7) for v in range(10)),                      # 4: 2-7
    tuple(v in (4, 5, 6, 7) for v in range(10)),                            # 5: 4-7
    tuple(v in (6, 7) for v in range(10)),                                  # 6: 6-7
    (False,) * 10,                                                          # 7: stands
)
#: banker's total → draws when the player stood on two cards (0-5 draw, 6-7 stand)
BANKER_DRAWS_PLAYER_STOOD: tuple[bool, ...] = PLAYER_DRAWS


def points(values: Iterable[int]) -> int:
    return sum(values) % 10


def next_to_draw(player: Sequence[int], banker: Sequence[int]) -> str | None:
    """Who takes the next card given the point values dealt so far (``None``: the coup is complete)."""
    n_p, n_b = len(player), len(banker)
    if n_b < 2:
        return PLAYER if n_p <= n_b else BANKER
    if n_p == 2 and n_b == 2:
        pt, bt = points(player), points(banker)
        if pt >= 8 or bt >= 8:
            return None
        if PLAYER_DRAWS[pt]:
            return PLAYER
        return BANKER if BANKER_DRAWS_PLAYER_STOOD[bt] else None
    if n_p == 3 and n_b == 2:
        return BANKER if BANKER_DRAWS[points(banker)][player[2]] else None
    return None


def winner_of(player_total: int, banker_total: int) -> str:
    return PLAYER if player_total > banker_total else BANKER if banker_total > player_total else TIE


# ------------------------------------------------------------------------------------------- rules
@dataclass(frozen=True)
class BaccaratRules:
    """A table's rules variant (data)."""

    commission: bool = True  # False: no-commission (banker win with 6 pays banker_six_pays)
    commission_ppm: int = 50_000  # 5%
    commission_unit: int = 100  # won; commissions round UP to it
    banker_six_pays: tuple[int, int] = (1, 2)  # no-commission banker win on 6: 1:2
    tie_pays: int = 8
    pair_pays: int = 11
    squeeze: bool = False  # squeeze table: the highest bettor on each side turns that side's cards
    decks: int = 8
    cut_card_from_end: int = 14

    def to_dict(self) -> dict[str, Any]:
        return {"commission": self.commission, "commission_ppm": self.commission_ppm,
                "commission_unit": self.commission_unit, "banker_six_pays": list(self.banker_six_pays),
                "tie_pays": self.tie_pays, "pair_pays": self.pair_pays, "squeeze": self.squeeze,
                "decks": self.decks, "cut_card_from_end": self.cut_card_from_end}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> BaccaratRules:
        d = dict(d)
        if "banker_six_pays" in d:
            d["banker_six_pays"] = tuple(d["banker_six_pays"])
        return cls(**d)


COMMISSION = BaccaratRules()
NO_COMMISSION = BaccaratRules(commission=False)


# ------------------------------------------------------------------------------------------- the coup
@dataclass(frozen=True)
class Coup:
    player: tuple[Card, ...]
    banker: tuple[Card, ...]
    last_of_shoe: bool = False

    @property
    def player_total(self) -> int:
        return points(c.baccarat_value for c in self.player)

    @property
    def banker_total(self) -> int:
        return points(c.baccarat_value for c in self.banker)

    @property
    def winner(self) -> str:
        return winner_of(self.player_total, self.banker_total)

    @property
    def natural(self) -> bool:
        return len(self.player) == 2 and len(self.banker) == 2 and max(
            points(c.baccarat_value for c in self.player[:2]), points(c.baccarat_value for c in self.banker[:2])) >= 8

    @property
    def player_pair(self) -> bool:
        return self.player[0].rank == self.player[1].rank

    @property
    def banker_pair(self) -> bool:
        return self.banker[0].rank == self.banker[1].rank

    @property
    def banker_wins_with_six(self) -> bool:
        return self.winner == BANKER and self.banker_total == 6

    def dealing_order(self) -> list[Card]:
        """The cards in the order they left the shoe: P1 B1 P2 B2 [P3] [B3]."""
        order = [self.player[0], self.banker[0], self.player[1], self.banker[1]]
        if len(self.player) == 3:
            order.append(self.player[2])
        if len(self.banker) == 3:
            order.append(self.banker[2])
        return order

    def to_dict(self) -> dict[str, Any]:
        return {"player": card_strings(self.player), "banker": card_strings(self.banker),
                "player_total": self.player_total, "banker_total": self.banker_total, "winner": self.winner,
                "natural": self.natural, "player_pair": self.player_pair, "banker_pair": self.banker_pair,
                "banker_wins_with_six": self.banker_wins_with_six, "last_of_shoe": self.last_of_shoe}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Coup:
        return cls(tuple(parse_cards(d["player"])), tuple(parse_cards(d["banker"])), bool(d.get("last_of_shoe")))


def deal_coup(draw: Callable[[], Card]) -> Coup:
    """Deal one coup, taking cards from ``draw`` as the tableau asks for them."""
    player: list[Card] = []
    banker: list[Card] = []
    while (side := next_to_draw([c.baccarat_value for c in player], [c.baccarat_value for c in banker])) is not None:
        (player if side == PLAYER else banker).append(draw())
    return Coup(tuple(player), tuple(banker))


def play_coup(shoe: Shoe) -> Coup:
    """A coup from the shoe (live or stacked). Raises :class:`ShoeExhausted` (misdeal) if it runs out."""
    coup = deal_coup(shoe.draw)
    return Coup(coup.player, coup.banker, last_of_shoe=shoe.cut_card_out)


def coup_from_cards(cards: str | Sequence[str | Card]) -> Coup:
    """Input mode: the dealer enters the cards in dealing order; the tableau decides who gets each."""
    try:
        return play_coup(Shoe.stacked(parse_cards(cards)))
    except ShoeExhausted:
        raise TableRuleError("cards", "the tableau needs another card") from None


def coup_from_hands(player: str | Sequence[str | Card], banker: str | Sequence[str | Card]) -> Coup:
    """Input mode by hand: checks that the hands are what the tableau deals (no missing or extra card)."""
    p, b = parse_cards(player, field="player"), parse_cards(banker, field="banker")
    if not (2 <= len(p) <= 3 and 2 <= len(b) <= 3):
        raise TableRuleError("cards", "each hand has two or three cards")
    order = [p[0], b[0], p[1], b[1], *p[2:], *b[2:]]
    coup = coup_from_cards(order)
    if list(coup.player) != p or list(coup.banker) != b:
        raise TableRuleError("cards", f"the tableau deals player {' '.join(map(str, coup.player))} / "
                                      f"banker {' '.join(map(str, coup.banker))} from these cards")
    return coup


def new_shoe(rules: BaccaratRules, rng) -> tuple[Shoe, list[Card]]:
    """A shuffled shoe with its cut card, after the opening burn. Returns (shoe, burned cards)."""
    shoe = Shoe.shuffled(rules.decks, rng, cut_card_from_end=rules.cut_card_from_end)
    return shoe, shoe.burn_baccarat()


# ------------------------------------------------------------------------------------------- bet spots
SPOTS = ("player", "banker", "tie", "player_pair", "banker_pair")
SHARED = frozenset({"tie", "player_pair", "banker_pair"})


def parse_spot(spot: str) -> L.SpotInfo:
    s = str(spot).strip().lower()
    if s not in SPOTS:
        raise TableRuleError("spot", f"unknown baccarat spot {spot!r} (one of {', '.join(SPOTS)})")
    return L.SpotInfo(s, s, shared=s in SHARED)


def default_limits(chip_unit: int = 1_000, minimum: int = 10_000, maximum: int = 3_000_000,
                   side_minimum: int = 1_000, side_maximum: int = 300_000) -> L.TableLimits:
    return L.TableLimits(chip_unit, {
        "player": L.SpotLimit(minimum, maximum), "banker": L.SpotLimit(minimum, maximum),
        "tie": L.SpotLimit(side_minimum, side_maximum), "player_pair": L.SpotLimit(side_minimum, side_maximum),
        "banker_pair": L.SpotLimit(side_minimum, side_maximum)})


def check_bet(bet: Bet, limits: L.TableLimits, existing: Sequence[Bet] = (), **ctx: Any) -> Bet:
    """Validate a baccarat bet (see :func:`table_games.domain.limits.check_bet` for ``ctx``)."""
    return L.check_bet(bet, parse_spot(bet.spot), limits, [(b, parse_spot(b.spot)) for b in existing], **ctx)


def squeezers(bets: Sequence[Bet], rules: BaccaratRules) -> dict[str, str | None]:
    """On a squeeze table, who turns each side's cards: the highest bettor on that side (first on ties).

    Sides nobody bet on (or a table without squeeze, or a coup with only tie/pair bets) are dealt open.
    """
    out: dict[str, str | None] = {PLAYER: None, BANKER: None}
    if not rules.squeeze:
        return out
    for side in (PLAYER, BANKER):
        totals: dict[str, int] = {}
        for b in bets:
            if b.spot == side:
                totals[b.player] = totals.get(b.player, 0) + b.action
        if totals:
            best = max(totals.values())
            out[side] = next(p for p, t in totals.items() if t == best)
    return out


# ------------------------------------------------------------------------------------------- settlement
def settle(bets: Sequence[Bet], outcome: Coup | Void, rules: BaccaratRules = COMMISSION) -> list[Settlement]:
    if isinstance(outcome, Void):
        return void_all(bets)
    w = outcome.winner
    out: list[Settlement] = []
    for b in bets:
        a, spot = b.action, b.spot
        if spot == PLAYER:
            out.append(won(b, a) if w == PLAYER else pushed(b) if w == TIE else lost(b))
        elif spot == BANKER:
            if w == BANKER:
                if rules.commission:
                    out.append(won(b, a, commission_ceil(a, rules.commission_ppm, rules.commission_unit)))
                elif outcome.banker_total == 6:
                    out.append(won(b, payout_floor(a, *rules.banker_six_pays)))
                else:
                    out.append(won(b, a))
            else:
                out.append(pushed(b) if w == TIE else lost(b))
        elif spot == TIE:
            out.append(won(b, a * rules.tie_pays) if w == TIE else lost(b))
        elif spot == "player_pair":
            out.append(won(b, a * rules.pair_pays) if outcome.player_pair else lost(b))
        elif spot == "banker_pair":
            out.append(won(b, a * rules.pair_pays) if outcome.banker_pair else lost(b))
        else:
            raise TableRuleError("spot", f"unknown baccarat spot {spot!r}")
    return out


# ------------------------------------------------------------------------------------------- exact odds
@dataclass
class Enumeration:
    """Counts of every ordered 6-card deal (``decks·52`` falling 6), by outcome class, from the tableau."""

    total: int = 0
    counts: dict[tuple[str, int], int] = field(default_factory=dict)  # (winner, banker_total) → count

    def count(self, winner: str) -> int:
        return sum(n for (w, _), n in self.counts.items() if w == winner)

    @property
    def banker_wins_with_six(self) -> int:
        return self.counts.get((BANKER, 6), 0)


def _falling(n: int, k: int) -> int:
    out = 1
    for i in range(k):
        out *= n - i
    return out


def enumerate_outcomes(decks: int = 8) -> Enumeration:
    """Every distinct deal of the first six cards of a ``decks``-deck shoe, run through :func:`next_to_draw`.

    A coup that uses k cards stands for the ``(N-k)·…·(N-5)`` orderings of the cards it does not use, so the
    counts are over ``N·(N-1)·…·(N-5)`` sequences (N = 52·decks): for 8 decks 4,998,398,275,503,360.
    """
    n = 52 * decks
    left = [16 * decks] + [4 * decks] * 9  # point value 0 (10/J/Q/K) and 1..9
    tails = [_falling(n - k, 6 - k) for k in range(7)]
    res = Enumeration(total=_falling(n, 6))
    counts = res.counts

    def walk(player: list[int], banker: list[int], weight: int, used: int) -> None:
        side = next_to_draw(player, banker)
        if side is None:
            pt, bt = points(player), points(banker)
            key = (winner_of(pt, bt), bt)
            counts[key] = counts.get(key, 0) + weight * tails[used]
            return
        hand = player if side == PLAYER else banker
        for v in range(10):
            c = left[v]
            if c:
                left[v] = c - 1
                hand.append(v)
                walk(player, banker, weight * c, used + 1)
                hand.pop()
                left[v] = c

    walk([], [], 1, 0)
    return res


def outcome_probabilities(decks: int = 8) -> dict[str, Fraction]:
    e = enumerate_outcomes(decks)
    return {w: Fraction(e.count(w), e.total) for w in (BANKER, PLAYER, TIE)}


def house_edges(rules: BaccaratRules = COMMISSION, *, stake: int = 20_000, decks: int = 8) -> dict[str, Fraction]:
    """Exact house edge of every spot, from the enumeration and the engine's own :func:`settle`.

    The stake is chosen so the commission is exact (5% of ₩20,000 = ₩1,000 with a ₩100 unit).
    """
    e = enumerate_outcomes(decks)
    edges: dict[str, Fraction] = {}
    for spot in (PLAYER, BANKER, TIE):
        ev = 0
        for (w, bt), n in e.counts.items():
            coup = _class_coup(w, bt)
            ev += n * settle([Bet(spot, stake)], coup, rules)[0].net
        edges[spot] = -Fraction(ev, e.total * stake)
    p_pair = pair_probability(decks)
    for spot in ("player_pair", "banker_pair"):
        hit = settle([Bet(spot, stake)], _pair_coup(True, spot), rules)[0].net
        miss = settle([Bet(spot, stake)], _pair_coup(False, spot), rules)[0].net
        edges[spot] = -(p_pair * hit + (1 - p_pair) * miss) / stake
    return edges


def _class_coup(winner: str, banker_total: int) -> Coup:
    """A coup whose winner and banker total are as given (used only to price a class through settle)."""
    def c(v: int, s: str) -> Card:
        return Card(v if v else 10, s)
    for pt in range(10):
        if winner_of(pt, banker_total) == winner:
            return Coup((c(pt, "S"), c(0, "H")), (c(banker_total, "D"), c(0, "C")))
    raise ValueError((winner, banker_total))


def _pair_coup(pair: bool, spot: str) -> Coup:
    a, b = (Card(5, "S"), Card(5, "H")) if pair else (Card(5, "S"), Card(6, "H"))
    other = (Card(2, "D"), Card(3, "C"))
    return Coup((a, b), other) if spot == "player_pair" else Coup(other, (a, b))


def pair_probability(decks: int = 8) -> Fraction:
    """P(a side's first two cards have the same rank), counted with the engine's pair rule."""
    n_rank = 4 * decks
    hits = sum(n_rank * (n_rank - (1 if r1 == r2 else 0)) for r1 in range(1, 14) for r2 in range(1, 14)
               if Coup((Card(r1, "S"), Card(r2, "H")), (Card(1, "S"), Card(2, "S"))).player_pair)
    n = 52 * decks
    return Fraction(hits, n * (n - 1))
