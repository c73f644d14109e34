"""Caribbean stud: the exact house edge of the ante, by complete enumeration, and a seeded simulation.

The exact figure (the standard method of the published analyses): every one of the 2,598,960 player hands,
reduced to its **134,459 suit-isomorphism classes** (weighted by class size), × each of the 47 cards the
dealer's **upcard** can be, against **every dealer hand holding that upcard** (C(46,4) = 163,185) — i.e.
every one of the C(47,5) = 1,533,939 dealer hands five times, once per upcard: 19,933,230,517,200
player/dealer pairs, the player deciding with the five cards and the upcard in view.

The dealer's hands are never walked one by one. Everything the call needs from a player hand ``P`` is how
many disjoint dealer hands rank at or above a given evaluator rank, and that count is an **inclusion–
exclusion** over the subsets ``S`` of ``P``'s cards (with the upcard ``u`` added to each)::

    #{D : D ∩ P = ∅, u ∈ D, rank(D) ≤ x} = Σ_{S ⊆ P} (−1)^|S| · #{D ⊇ S ∪ {u} : rank(D) ≤ x}

where the right-hand counts come from sorted tables of all 2,598,960 hands' ranks, one segment per k-card
subset (k = 0 … 5, keyed by the subset's colex index), so each is one ``numpy.searchsorted``. Ranks are
phevaluator's (1 = royal flush … 7,462 = 7-5-4-3-2; smaller is stronger), ties are exact equality (no suit
order), and the dealer qualifies iff rank ≤ rank(A-K-4-3-2) (A-K high or better is a rank band).
:func:`self_check` compares these counts with a direct walk over all hands.

Per ante (call = 2 antes), for the call paytable ``pays`` (:data:`caribbean.STANDARD`'s 100/50/20/7/5/4/3/2/1):

* dealer does not qualify → +1 (ante 1:1, call pushes);
* dealer qualifies, player higher → +1 + 2·pays[category(P)]; equal → 0; lower → −3;
* fold → −1.

:func:`exact_edge` returns the edge under the **optimal** strategy (call iff E[call | five cards, upcard] >
−1), optimal play ignoring the upcard, and fixed published rules (:data:`STRATEGIES`), each with its
element of risk (edge ÷ average total bet). Results are
fractions of integer counts (exact); only the final division is floating point.

:func:`simulate` deals seeded random hands through the same evaluator for a fixed strategy (the fast unit
test's cross-check; 95% CI = mean ± 1.96 s.e.).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations, permutations
from math import comb

import numpy as np

from table_games.domain import caribbean as C
from table_games.domain import poker_eval as E
from table_games.domain.cards import parse_cards
from table_games.domain.holdem_bonus_sim import SimResult  # hands, total, sum of squares: mean, SE, 95% CI

N5 = comb(52, 5)  # 2,598,960
N_DEALER = comb(47, 5)  # 1,533,939
_BINOM = np.array([[comb(n, k) for k in range(6)] for n in range(53)], dtype=np.int64)
_STRIDE = E.TOP + 1  # 7,463: segment stride of the keyed tables (rank 0 … 7,462)


def _rank_of(text: str) -> int:
    return E.phe_rank([E.card_id(c) for c in parse_cards(text)])


_AK432 = _rank_of("AS KH 4D 3C 2S")
_AKJ83 = _rank_of("AS KH JD 8C 3S")


def qualify_threshold() -> int:
    """phevaluator rank of A-K-4-3-2 (the weakest qualifying dealer hand): the dealer qualifies iff rank ≤ it."""
    return _AK432


def _colex(cards: np.ndarray) -> np.ndarray:
    """Colex index of each row of ascending card ids (n, k) → (n,) int64, 0 … C(52,k) − 1."""
    out = np.zeros(len(cards), dtype=np.int64)
    for i in range(cards.shape[1]):
        out += _BINOM[cards[:, i].astype(np.int64), i + 1]
    return out


def all_hands() -> tuple[np.ndarray, np.ndarray]:
    """Every five-card hand in colex order: ids (2,598,960 × 5, ascending in a row) and phevaluator ranks."""
    flat = np.fromiter((c for h in combinations(range(52), 5) for c in h), dtype=np.int8, count=N5 * 5)
    hands = flat.reshape(N5, 5)
    order = np.argsort(_colex(hands))
    hands = np.ascontiguousarray(hands[order])
    f = E._E5
    ranks = np.fromiter((f(*h) for h in hands.tolist()), dtype=np.int32, count=N5)
    return hands, ranks


@dataclass
class SubsetTables:
    """For k = 1 … 4: every hand's rank keyed by each of its k-card subsets, sorted (``seg·7463 + rank``);
    k = 0 is the sorted ranks, k = 5 the rank of the hand itself by colex index."""

    ranks: np.ndarray
    sorted0: np.ndarray
    keyed: dict[int, np.ndarray]

    @classmethod
    def build(cls, hands: np.ndarray, ranks: np.ndarray) -> SubsetTables:
        keyed = {}
        for k in range(1, 5):
            parts = []
            for pos in combinations(range(5), k):
                seg = _colex(hands[:, list(pos)])
                parts.append((seg * _STRIDE + ranks).astype(np.int32))
            a = np.concatenate(parts)
            a.sort()
            keyed[k] = a
        return cls(ranks, np.sort(ranks), keyed)

    def at_most(self, k: int, seg: np.ndarray, x: np.ndarray) -> np.ndarray:
        """#hands containing the k-subset ``seg`` (colex) with rank ≤ ``x`` (vectorised)."""
        if k == 0:
            return np.searchsorted(self.sorted0, x, side="right")
        if k == 5:
            return (self.ranks[seg] <= x).astype(np.int64)
        keys = (seg * _STRIDE + x).astype(np.int32)
        return np.searchsorted(self.keyed[k], keys, side="right") - seg * comb(52 - k, 5 - k)


def suit_classes(hands: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The suit-isomorphism classes of the hands: (representative hand indices, class sizes). The canonical
    form is the smallest colex index over the 24 suit relabellings; 134,459 classes for five cards."""
    rank, suit = hands // 4, hands % 4

    def relabelled_colex(perm: tuple[int, ...]) -> np.ndarray:
        return _colex(np.sort(rank * 4 + np.array(perm, dtype=np.int8)[suit], axis=1))

    perms = permutations(range(4))
    best = relabelled_colex(next(perms))
    for perm in perms:
        best = np.minimum(best, relabelled_colex(perm))
    _, first, sizes = np.unique(best, return_index=True, return_counts=True)
    return first, sizes


@dataclass(frozen=True)
class CallCounts:
    """Dealer hands (of the 1,533,939 disjoint from the player's) by outcome of a call."""

    not_qualifying: np.ndarray
    lower: np.ndarray  # dealer qualifies and ranks below the player
    equal: np.ndarray
    higher: np.ndarray


def _colex_with(cards: np.ndarray, up: np.ndarray) -> np.ndarray:
    """Colex index of each row's ascending ids with the card ``up`` (not among them) inserted."""
    below = np.zeros(len(up), dtype=np.int64)
    out = np.zeros(len(up), dtype=np.int64)
    for i in range(cards.shape[1]):
        c = cards[:, i]
        above = c > up
        out += _BINOM[c, i + 1 + above]
        below += ~above
    return out + _BINOM[up, below + 1]


def call_counts(tables: SubsetTables, hands: np.ndarray, ranks: np.ndarray,
                upcards: np.ndarray | None = None) -> CallCounts:
    """Inclusion–exclusion over the subsets of each player hand (rows of ``hands``, ranks ``ranks``): the
    dealer hands from the other 47 cards (1,533,939), or, with ``upcards``, those holding that card
    (C(46,4) = 163,185 each)."""
    t = qualify_threshold()
    n = len(hands)
    points = (np.minimum(ranks - 1, t), np.minimum(ranks, t), np.full_like(ranks, t))
    acc = [np.zeros(n, dtype=np.int64) for _ in points]
    for k in range(6 if upcards is None else 5):
        sign = -1 if k % 2 else 1
        for pos in combinations(range(5), k):
            sub = hands[:, list(pos)]
            if upcards is None:
                level, seg = k, (_colex(sub) if k else np.zeros(n, dtype=np.int64))
            else:
                level, seg = k + 1, _colex_with(sub, upcards)
            for a, x in zip(acc, points):
                a += sign * tables.at_most(level, seg, x)
    below, upto, qual = acc
    total = N_DEALER if upcards is None else comb(46, 4)
    return CallCounts(total - qual, qual - upto, upto - below, below)


def _category_pay(ranks: np.ndarray, pays: Mapping[str, int]) -> np.ndarray:
    bands = np.array([lo for lo, _ in E._BANDS])
    names = [n for _, n in E._BANDS]
    idx = np.searchsorted(bands, ranks, side="right") - 1
    return np.array([pays[n] for n in names], dtype=np.int64)[idx]


#: fixed published raise rules on the player's evaluator rank (call when true), for arrays or ints
STRATEGIES: dict[str, Callable] = {
    "pair_or_better": lambda r: r < E.HIGH_CARD_FROM,
    "AKJ83_or_better": lambda r: r <= _AKJ83,
    "any_AK": lambda r: r <= _AK432,
}


@dataclass(frozen=True)
class ExactEdge:
    """Edges per ante as exact fractions of the 2,598,960 × 1,533,939 pairs; ``call_rate`` of player hands."""

    strategy: str
    edge: Fraction
    call_hands: Fraction  # player hands that call (a fraction of a hand when the call depends on the upcard)

    @property
    def call_rate(self) -> Fraction:
        return Fraction(self.call_hands, N5)

    @property
    def element_of_risk(self) -> Fraction:
        """Edge ÷ average total wagered (1 ante + 2 antes on a call)."""
        return self.edge / (1 + 2 * self.call_rate)

    def to_dict(self) -> dict:
        return {"strategy": self.strategy, "house_edge": float(self.edge), "element_of_risk":
                float(self.element_of_risk), "call_rate": float(self.call_rate), "call_hands": float(self.call_hands),
                "edge_fraction": f"{self.edge.numerator}/{self.edge.denominator}"}


N_UP = comb(46, 4)  # 163,185 dealer hands hold a given upcard


def self_check(samples: int = 6, seed: int = 5,
               prebuilt: tuple[np.ndarray, np.ndarray, SubsetTables] | None = None) -> list[str]:
    """Check the machinery against brute force: for ``samples`` random player hands, with and without a
    random upcard, the inclusion–exclusion counts equal a direct walk over all 2,598,960 hands (disjoint
    by bit mask); and the suit classes number 134,459 with sizes summing to C(52,5). Returns the
    mismatches (empty when all agree); ~30 s (it builds the tables unless ``prebuilt``)."""
    hands, ranks, tables = prebuilt or (*all_hands(), None)
    tables = tables or SubsetTables.build(hands, ranks)
    bad = []
    reps, sizes = suit_classes(hands)
    if (len(reps), int(sizes.sum())) != (134_459, N5):
        bad.append(f"suit classes {len(reps)} of total {int(sizes.sum())}")
    masks = np.bitwise_or.reduce(np.left_shift(np.uint64(1), hands.astype(np.uint64)), axis=1)
    t = qualify_threshold()
    rng = np.random.default_rng(seed)
    for i in rng.choice(len(hands), samples, replace=False):
        h, p = hands[i:i + 1].astype(np.int64), ranks[i:i + 1].astype(np.int64)
        disjoint = (masks & masks[i]) == 0
        up = int(rng.choice([c for c in range(52) if c not in set(h[0].tolist())]))
        holds_up = ((masks >> np.uint64(up)) & np.uint64(1)).astype(bool)
        for upcard, keep in ((None, disjoint), (up, disjoint & holds_up)):
            cc = call_counts(tables, h, p, None if upcard is None else np.array([upcard]))
            d = ranks[keep]
            q = d[d <= t]
            walked = (len(d), int((d > t).sum()), int((q > p[0]).sum()), int((q == p[0]).sum()), int((q < p[0]).sum()))
            counted = (N_DEALER if upcard is None else N_UP, int(cc.not_qualifying[0]), int(cc.lower[0]),
                       int(cc.equal[0]), int(cc.higher[0]))
            if walked != counted:
                bad.append(f"hand {h[0].tolist()} upcard {upcard}: walked {walked} counted {counted}")
    return bad


def exact_edge(rules: C.CaribbeanRules = C.STANDARD, *, chunk: int = 2_000,
               progress: Callable[[int, int], None] | None = None,
               prebuilt: tuple[np.ndarray, np.ndarray, SubsetTables] | None = None) -> dict[str, ExactEdge]:
    """The ante's exact house edge under optimal play and each fixed rule of :data:`STRATEGIES`.

    ``"optimal"`` calls iff E[call | the five cards and the dealer's upcard] > −1 (every (hand, upcard)
    pair: 2,598,960 × 47, each against the 163,185 dealer hands holding that upcard);
    ``"optimal_no_upcard"`` decides on the five cards alone. A non-2× ``call_multiple`` is honoured.
    Needs under 1 GB and 5–10 minutes of one core (numpy); ``prebuilt`` = (hands, ranks, tables) to reuse."""
    hands, ranks, tables = prebuilt or (*all_hands(), None)
    tables = tables or SubsetTables.build(hands, ranks)
    reps, sizes = suit_classes(hands)
    m = rules.call_multiple
    names = ("optimal", "optimal_no_upcard", *STRATEGIES)
    totals = dict.fromkeys(names, 0)  # Σ weight × net, in antes × 5 × N_DEALER (= 47 × N_UP)
    calls = dict.fromkeys(names, 0)  # Σ weight × calling (hand, upcard) pairs
    fold = -N_UP
    for lo in range(0, len(reps), chunk):
        idx = reps[lo:lo + chunk]
        w = sizes[lo:lo + chunk].astype(np.int64)
        h, r = hands[idx].astype(np.int64), ranks[idx].astype(np.int64)
        free = np.ones((len(h), 52), dtype=bool)
        np.put_along_axis(free, h, False, axis=1)
        ups = np.nonzero(free)[1].reshape(len(h), 47)
        cc = call_counts(tables, np.repeat(h, 47, axis=0), np.repeat(r, 47), ups.reshape(-1))
        pay = np.repeat(_category_pay(r, rules.call_pays), 47)
        call = (cc.not_qualifying + cc.lower * (1 + m * pay) - cc.higher * (1 + m)).reshape(len(h), 47)
        by_hand = call.sum(axis=1)  # net of always calling this hand, whatever the upcard
        best = np.maximum(call, fold)
        totals["optimal"] += int(np.sum(w * best.sum(axis=1)))
        calls["optimal"] += int(np.sum(w * (call > fold).sum(axis=1)))
        take = {"optimal_no_upcard": by_hand > 47 * fold} | {n: f(r) for n, f in STRATEGIES.items()}
        for name, c in take.items():
            totals[name] += int(np.sum(w * np.where(c, by_hand, 47 * fold)))
            calls[name] += int(np.sum(w[c])) * 47
        if progress:
            progress(min(lo + chunk, len(reps)), len(reps))
    return {n: ExactEdge(n, -Fraction(totals[n], N5 * 47 * N_UP), Fraction(calls[n], 47)) for n in names}


# ------------------------------------------------------------------------------------------- simulation
def play(player: Sequence[int], dealer: Sequence[int], calls: bool, rules: C.CaribbeanRules = C.STANDARD) -> int:
    """Net in antes of one hand on evaluator ids (player 5, dealer 5) with the call decision given."""
    if not calls:
        return -1
    p, d = E._E5(*player), E._E5(*dealer)
    if d > qualify_threshold():
        return 1
    if p < d:
        return 1 + rules.call_multiple * rules.call_pays[E.category_of_phe(p)]
    return 0 if p == d else -(1 + rules.call_multiple)


def simulate(hands: int, seed: int | str, strategy: str = "AKJ83_or_better",
             rules: C.CaribbeanRules = C.STANDARD) -> SimResult:
    """``hands`` seeded deals (10 cards from a fresh deck each) played by a fixed rule of :data:`STRATEGIES`."""
    rng = random.Random(seed)
    rule = STRATEGIES[strategy]
    tot = sq = 0
    for _ in range(hands):
        c = rng.sample(range(52), 10)
        n = play(c[:5], c[5:], bool(rule(E._E5(*c[:5]))), rules)
        tot += n
        sq += n * n
    return SimResult(hands, tot, sq)
