"""Fast Monte Carlo of one blackjack box played by basic strategy, for the house-edge figure.

The kernel (:func:`play_round`) plays the **same rules as** :class:`~table_games.domain.blackjack.BlackjackRound`
on card values (ace = 1, tens = 10) from a list, with the decisions of
:meth:`~table_games.domain.blackjack_strategy.Strategy.decide` flattened into lookup tables, and draws the
cards in the engine's order (box, upcard, box; split hands take their second card when reached; the dealer's
second card only if a bet still depends on it). ``tests/unit/test_table_blackjack.py`` replays thousands of
rounds through the engine and this kernel on the same shoes and requires the same result for every round;
the kernel exists only because the engine's bookkeeping is too slow for 10^7 rounds.

Money: the box stakes 2 units (so 3:2 and surrender halves are whole); results are in those units.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from table_games.domain.blackjack import DOUBLE, HIT, SPLIT, STAND, SURRENDER, BlackjackRules
from table_games.domain.blackjack_strategy import Strategy, basic_strategy

A_HIT, A_STAND, A_DOUBLE, A_SPLIT, A_SURRENDER = 0, 1, 2, 3, 4
_CODE = {HIT: A_HIT, STAND: A_STAND, DOUBLE: A_DOUBLE, SPLIT: A_SPLIT, SURRENDER: A_SURRENDER}


def _key(kind: int, total: int, up: int) -> int:
    return (kind * 32 + total) * 11 + up


@dataclass
class Tables:
    first: list  # _key(kind, total, up) → tuple of action codes, best first (kind 0 hard, 1 soft, 2 pair)
    hit_more: list  # (hard*2 + ace)*11 + up → bool

    @classmethod
    def of(cls, s: Strategy) -> Tables:
        first: list = [None] * (_key(2, 31, 10) + 1)
        for (kind, total, up), acts in s.first.items():
            k = {"hard": 0, "soft": 1, "pair": 2}[kind]
            first[_key(k, total, up)] = tuple(_CODE[a] for a, _ in acts)
        hit_more = [False] * ((32 * 2) * 11)
        for (hard, ace, up), v in s.hit_more.items():
            hit_more[(hard * 2 + ace) * 11 + up] = v
        return cls(first, hit_more)


def new_shoe(decks: int, rnd: random.Random) -> list[int]:
    shoe = ([1, 2, 3, 4, 5, 6, 7, 8, 9] * 4 + [10] * 16) * decks
    rnd.shuffle(shoe)
    return shoe


class _Hand:
    """One box hand in play: card values, and whether it was doubled, came from a split, is a split-aces hand,
    was surrendered."""

    __slots__ = ("cards", "doubled", "from_split", "split_aces", "surrendered")

    def __init__(self, cards: list[int], *, from_split: bool = False, split_aces: bool = False) -> None:
        self.cards = cards
        self.doubled = False
        self.from_split = from_split
        self.split_aces = split_aces
        self.surrendered = False


def play_round(shoe: list[int], pos: int, r: BlackjackRules, t: Tables) -> tuple[int, int]:
    """Play one round for one box from ``shoe[pos:]``. Returns (net in half-stakes, new position)."""
    first, hit_more = t.first, t.hit_more
    p1 = shoe[pos]
    up = shoe[pos + 1]
    p2 = shoe[pos + 2]
    pos += 3
    dealer_can_bj = up == 1 or up == 10
    if p1 + p2 == 11 and (p1 == 1 or p2 == 1):  # player blackjack: paid 3:2 at once against a 2-9 upcard
        if not dealer_can_bj:
            return 3, pos
        hole = shoe[pos]  # against an ace or a ten the dealer takes its second card: a blackjack pushes
        pos += 1
        if up + hole == 11 and (up == 1 or hole == 1):
            return 0, pos
        return 3, pos
    das, max_hands, resplit_aces = r.double_after_split, r.max_hands, r.resplit_aces
    can_surr_rule = r.surrender != "none"
    hands = [_Hand([p1, p2])]
    i = 0
    while i < len(hands):
        h = hands[i]
        cards = h.cards
        done = False
        if len(cards) == 1:  # a split hand takes its second card when play reaches it
            cards.append(shoe[pos])
            pos += 1
            hard = cards[0] + cards[1]
            if h.split_aces and not (resplit_aces and cards[1] == 1 and len(hands) < max_hands):
                done = True
            elif hard == 11 and 1 in cards:
                done = True
        while not done:
            n = len(cards)
            hard = sum(cards)
            ace = 1 in cards
            if n == 2:
                cd = not h.split_aces and (das or not h.from_split)
                cs = cards[0] == cards[1] and len(hands) < max_hands and (resplit_aces or not h.split_aces)
                cr = can_surr_rule and not h.from_split and len(hands) == 1
            else:
                cd = cs = cr = False
            if h.split_aces:  # split aces: one card (a resplit of A,A is the only decision)
                cd = False
            action = -1
            if n == 2 and (cd or cs or cr):
                if cards[0] == cards[1] and cs:
                    key = _key(2, cards[0], up)
                elif ace and hard + 10 <= 21:
                    key = _key(1, hard + 10, up)
                else:
                    key = _key(0, hard, up)
                for a in first[key]:
                    if (a == A_SPLIT and not cs) or (a == A_DOUBLE and not cd) or (a == A_SURRENDER and not cr):
                        continue
                    action = a
                    break
            if action < 0:
                action = A_HIT if hit_more[(hard * 2 + ace) * 11 + up] else A_STAND
            if action == A_HIT:
                if h.split_aces:
                    action = A_STAND  # (cannot happen: strategy never hits split aces; engine forbids it)
                else:
                    cards.append(shoe[pos])
                    pos += 1
                    hard = sum(cards)
                    best = hard + 10 if (1 in cards and hard + 10 <= 21) else hard
                    if best >= 21:
                        done = True
                    continue
            if action == A_STAND:
                done = True
            elif action == A_DOUBLE:
                h.doubled = True
                cards.append(shoe[pos])
                pos += 1
                done = True
            elif action == A_SURRENDER:
                h.surrendered = True
                done = True
            elif action == A_SPLIT:
                aces = cards[0] == 1
                new = _Hand([cards.pop()], from_split=True, split_aces=aces)
                h.from_split, h.split_aces = True, aces
                hands.insert(i + 1, new)
                cards.append(shoe[pos])
                pos += 1
                hard = cards[0] + cards[1]
                if aces and not (resplit_aces and cards[1] == 1 and len(hands) < max_hands):
                    done = True
                elif hard == 11 and 1 in cards:
                    done = True
        i += 1
    # the dealer
    late = r.surrender == "late"
    totals = []
    need_hole = need_draws = False
    for h in hands:
        hard = sum(h.cards)
        best = hard + 10 if (1 in h.cards and hard + 10 <= 21) else hard
        totals.append(best)
        if best > 21:
            continue
        if h.surrendered:
            if late and dealer_can_bj:  # a late surrender is lost to a dealer blackjack
                need_hole = True
            continue
        need_hole = need_draws = True
    dealer_bj = False
    dealer_total = up + 10 if up == 1 else up
    if need_hole:
        hole = shoe[pos]
        pos += 1
        dealer_bj = up + hole == 11 and (up == 1 or hole == 1)
        dh = up + hole
        dace = up == 1 or hole == 1
        if not dealer_bj and need_draws:
            h17 = r.dealer_hits_soft_17
            while True:
                soft = dace and dh + 10 <= 21
                dt = dh + 10 if soft else dh
                if dt < 17 or (dt == 17 and soft and h17):
                    c = shoe[pos]
                    pos += 1
                    dh += c
                    dace = dace or c == 1
                else:
                    break
        dealer_total = dh + 10 if (dace and dh + 10 <= 21) else dh
    enhc = r.dealer_blackjack_takes == "all"
    net = 0
    for idx, h in enumerate(hands):
        stake = 4 if h.doubled else 2
        tot = totals[idx]
        if h.surrendered:
            net += -2 if (late and dealer_bj) else -1
        elif tot > 21:
            net -= stake
        elif dealer_bj:
            if enhc:
                net -= stake
            elif idx == 0:
                net -= 2
        elif dealer_total > 21 or tot > dealer_total:
            net += stake
        elif tot < dealer_total:
            net -= stake
    return net, pos


@dataclass
class SimResult:
    rounds: int = 0
    total: int = 0  # sum of nets (half-stakes)
    total_sq: int = 0

    def merge(self, o: SimResult) -> SimResult:
        return SimResult(self.rounds + o.rounds, self.total + o.total, self.total_sq + o.total_sq)

    @property
    def edge(self) -> float:
        """House edge per initial bet (a stake is 2 half-units)."""
        return -self.total / (2 * self.rounds)

    @property
    def stderr(self) -> float:
        n = self.rounds
        mean = self.total / n
        var = (self.total_sq / n - mean * mean) * n / (n - 1)
        return math.sqrt(var / n) / 2

    def ci95(self) -> tuple[float, float]:
        return self.edge - 1.96 * self.stderr, self.edge + 1.96 * self.stderr


def simulate(rules: BlackjackRules, rounds: int, seed: int, strategy: Strategy | None = None) -> SimResult:
    """Play ``rounds`` rounds for one box from shuffled shoes (1 card burned, cut card per the rules)."""
    t = Tables.of(strategy or basic_strategy(rules))
    rnd = random.Random(seed)
    cut = 52 * rules.decks - rules.cut_card_from_end
    shoe = new_shoe(rules.decks, rnd)
    pos = 1
    total = total_sq = 0
    for _ in range(rounds):
        if pos > cut:
            shoe = new_shoe(rules.decks, rnd)
            pos = 1
        net, pos = play_round(shoe, pos, rules, t)
        total += net
        total_sq += net * net
    return SimResult(rounds, total, total_sq)
