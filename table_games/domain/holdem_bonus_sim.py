"""Texas Hold'em Bonus: a stated playing strategy, the fast simulation kernel and the exact values that
measure how far the strategy is from optimal play.

No exact published house edge exists for this game's ante/flop/turn/river (only "about 2%" for optimal
play; reference file: ``house_edge`` ``null``), and exact optimal play is out of reach in Python (each flop
decision alone needs ~10⁶ showdowns). So the edge is **estimated** for a **stated strategy** and the
strategy's distance from optimal is **measured**:

* :func:`play_hand` -- one hand on evaluator ids with the strategy below; its result is replayed against the
  engine (:mod:`table_games.domain.holdem_bonus`) hand for hand in the tests;
* :func:`simulate` -- many hands (seeded), returning the mean net per ante and its standard error;
* :func:`exact_turn_value` / :func:`exact_flop_value` -- E[result | cards seen] over every unseen river (and
  turn) and every dealer hand. The turn and river bets are each 1× ante and can never be taken back or
  followed by a fold, so the optimal rule for each is exactly "bet iff E[result | what you see] > 0"; the
  **regret** of the stated rule at a decision is ``max(E, 0) − bet·E``. Averaged over sampled decisions it
  is what optimal turn/river play would gain (:func:`regret_sample`).

The stated strategy ("S1"):

* before the flop: fold only unsuited 2-3 … 2-7 (the published advice), otherwise make the flop bet;
* on the flop (turn bet): bet when the hole cards improve the hand (its category is above the flop's own:
  a pair with a hole card, two pair … ) -- except a pocket pair below every board card --, or make four to
  a flush or four to a straight with a hole card;
* on the turn (river bet): bet when the hole cards improve the hand over the four-card board, except a
  pocket pair below every board card.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

from table_games.domain import poker_eval as E

_E5, _E6, _E7 = E._E5, E._E6, E._E7
STRAIGHT_OR_BETTER = 1609  # phevaluator ranks 1..1609: straight or better
FLUSH_OR_BETTER = 1599
#: phevaluator band starts, as category values 0 (high card) .. 8 (straight flush)
_BANDS = (6186, 3326, 2468, 1610, 1600, 323, 167, 11, 1)


def _cat(rank: int) -> int:
    """Category value of a phevaluator rank: 0 high card, 1 pair, 2 two pair, 3 trips, 4 straight, 5 flush,
    6 full house, 7 quads, 8 straight flush."""
    for v, lo in enumerate(_BANDS):
        if rank >= lo:
            return v
    return 8


def _board_cat(ids: Sequence[int]) -> int:
    counts = sorted((sum(1 for i in ids if i // 4 == r) for r in {i // 4 for i in ids}), reverse=True)
    if counts[0] == 4:
        return 7
    if counts[0] == 3:
        return 6 if len(counts) > 1 and counts[1] >= 2 else 3
    if counts[0] == 2:
        return 2 if len(counts) > 1 and counts[1] == 2 else 1
    return 0


def folds_preflop(hole: Sequence[int]) -> bool:
    a, b = hole
    if a % 4 == b % 4:
        return False
    lo, hi = sorted((a // 4, b // 4))
    return lo == 0 and 1 <= hi <= 5  # 2 with 3..7 (rank index 0 = deuce)


def _four_straight(hole: Sequence[int], cards: Sequence[int]) -> bool:
    """Four consecutive ranks (the ace also low) among ``cards``, using a hole card: a straight draw."""
    ranks = {i // 4 + 2 for i in cards}
    if 14 in ranks:
        ranks.add(1)
    mine = {i // 4 + 2 for i in hole} | ({1} if any(i // 4 == 12 for i in hole) else set())
    return any(set(range(lo, lo + 4)) <= ranks and mine & set(range(lo, lo + 4)) for lo in range(1, 12))


def _under_pair(hole: Sequence[int], board: Sequence[int]) -> bool:
    """A pocket pair below every board card."""
    a, b = (i // 4 for i in hole)
    return a == b and a < min(i // 4 for i in board)


def bets_flop(hole: Sequence[int], flop: Sequence[int]) -> bool:
    if _cat(_E5(*hole, *flop)) > _board_cat(flop) and not _under_pair(hole, flop):
        return True
    for s in range(4):
        if sum(1 for i in (*hole, *flop) if i % 4 == s) >= 4 and any(i % 4 == s for i in hole):
            return True
    return _four_straight(hole, (*hole, *flop))


def bets_turn(hole: Sequence[int], board4: Sequence[int]) -> bool:
    return _cat(_E6(*hole, *board4)) > _board_cat(board4) and not _under_pair(hole, board4)


@dataclass(frozen=True)
class HandResult:
    net: int  # in antes
    folded: bool
    turn_bet: bool
    river_bet: bool


def play_hand(cards: Sequence[int], *, ante_from: int = STRAIGHT_OR_BETTER) -> HandResult:
    """One hand from nine card ids in the engine's drawing order: board 5, the player's 2, the dealer's 2."""
    board, hole, dealer = cards[0:5], cards[5:7], cards[7:9]
    if folds_preflop(hole):
        return HandResult(-1, True, False, False)
    t = bets_flop(hole, board[:3])
    r = bets_turn(hole, board[:4])
    p, q = _E7(*hole, *board), _E7(*dealer, *board)
    if p < q:
        net = (1 if p <= ante_from else 0) + 2 + t + r
    elif p == q:
        net = 0
    else:
        net = -(3 + t + r)
    return HandResult(net, False, t, r)


@dataclass
class SimResult:
    hands: int
    total: int
    total_sq: int

    @property
    def mean(self) -> float:
        return self.total / self.hands

    @property
    def se(self) -> float:
        return max(self.total_sq / self.hands - self.mean ** 2, 0.0) ** 0.5 / self.hands ** 0.5

    @property
    def house_edge(self) -> float:
        return -self.mean

    def ci95(self) -> tuple[float, float]:
        return self.house_edge - 1.96 * self.se, self.house_edge + 1.96 * self.se

    def __add__(self, o: SimResult) -> SimResult:
        return SimResult(self.hands + o.hands, self.total + o.total, self.total_sq + o.total_sq)


def simulate(hands: int, seed: int | str, *, ante_from: int = STRAIGHT_OR_BETTER) -> SimResult:
    r = random.Random(seed)
    deck = range(52)
    sample = r.sample
    tot = sq = 0
    for _ in range(hands):
        n = play_hand(sample(deck, 9), ante_from=ante_from).net
        tot += n
        sq += n * n
    return SimResult(hands, tot, sq)


def _sign_sum(hole: Sequence[int], board: Sequence[int], unseen: Sequence[int]) -> tuple[int, int]:
    """Σ sign(player − dealer) over every dealer hand from ``unseen`` with a full five-card board."""
    p = _E7(*hole, *board)
    s = n = 0
    for a, b in combinations(unseen, 2):
        q = _E7(a, b, *board)
        s += (q > p) - (q < p)
        n += 1
    return s, n


def exact_turn_value(hole: Sequence[int], board4: Sequence[int]) -> float:
    """E[result] (+1 win, −1 loss) seen from the turn: every river × every dealer hand (46 × 990)."""
    known = set(hole) | set(board4)
    rest = [i for i in range(52) if i not in known]
    s = n = 0
    for river in rest:
        unseen = [i for i in rest if i != river]
        a, b = _sign_sum(hole, (*board4, river), unseen)
        s += a
        n += b
    return s / n


def exact_flop_value(hole: Sequence[int], flop: Sequence[int]) -> float:
    """E[result] seen from the flop: every turn-river pair × every dealer hand (1,081 × 990)."""
    known = set(hole) | set(flop)
    rest = [i for i in range(52) if i not in known]
    s = n = 0
    for tr in combinations(rest, 2):
        unseen = [i for i in rest if i not in tr]
        a, b = _sign_sum(hole, (*flop, *tr), unseen)
        s += a
        n += b
    return s / n


@dataclass
class Regret:
    decisions: int
    total: float
    total_sq: float
    bets: int

    @property
    def mean(self) -> float:
        return self.total / self.decisions

    @property
    def se(self) -> float:
        var = self.total_sq / self.decisions - self.mean ** 2
        return (max(var, 0.0) / self.decisions) ** 0.5

    def __add__(self, o: Regret) -> Regret:
        return Regret(self.decisions + o.decisions, self.total + o.total, self.total_sq + o.total_sq,
                      self.bets + o.bets)


def regret_sample(street: str, decisions: int, seed: int | str) -> Regret:
    """Mean regret (antes per played hand) of the stated rule on the flop or the turn, from ``decisions``
    random played hands valued exactly."""
    r = random.Random(seed)
    tot = sq = 0.0
    bets = done = 0
    while done < decisions:
        c = r.sample(range(52), 7)
        board, hole = c[0:5], c[5:7]
        if folds_preflop(hole):
            continue
        if street == "turn":
            e = exact_turn_value(hole, board[:4])
            bet = bets_turn(hole, board[:4])
        else:
            e = exact_flop_value(hole, board[:3])
            bet = bets_flop(hole, board[:3])
        g = max(e, 0.0) - (e if bet else 0.0)
        tot += g
        sq += g * g
        bets += bet
        done += 1
    return Regret(done, tot, sq, bets)
