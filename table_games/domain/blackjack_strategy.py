"""Basic strategy for a blackjack rules variant, computed (not copied from a chart).

Total-dependent strategy from an infinite-deck analysis with the dealer's upcard removed from a
``rules.decks`` shoe (draw probabilities p(1..10) fixed after removing the upcard). Everything is computed
conditional on the dealer *not* having blackjack (European no hole card: the player acts first), then the
blackjack case is added back with what it takes: ``EV = P(no BJ)·EV_noBJ − P(BJ)·L`` where L is the stake
lost to a dealer blackjack -- all the stakes on the table (doubles and splits too) under ENHC, only the
original stake under "original bets only". Late surrender keeps half only when the dealer has no blackjack.

Splits: to ``rules.max_hands`` hands (resplitting while allowed), double after split per the rules, split
aces take one card (a later ace resplits only if ``rules.resplit_aces``).

The result, :class:`Strategy`, gives for each first-decision situation the actions in order of expected
value, so the best *allowed* one is played (e.g. "double, else hit"); hands of three or more cards hit or
stand. :func:`chart` renders it like a printed strategy card.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

from table_games.domain.blackjack import DOUBLE, HIT, SPLIT, STAND, SURRENDER, BlackjackRules

UPCARDS = (2, 3, 4, 5, 6, 7, 8, 9, 10, 1)


def _probs(decks: int, up: int) -> tuple[float, ...]:
    counts = [0] + [4 * decks] * 9 + [16 * decks]
    counts[up] -= 1
    n = sum(counts)
    return tuple(c / n for c in counts)


def _best(hard: int, ace: bool) -> int:
    return hard + 10 if ace and hard + 10 <= 21 else hard


def dealer_outcomes(up: int, p: tuple[float, ...], h17: bool) -> dict[int | str, float]:
    """Dealer final totals {17..21, 'bust', 'bj'} from the upcard (second card drawn after the players)."""
    res: dict[int | str, float] = {}

    def rec(hard: int, ace: bool, n: int, prob: float) -> None:
        t = _best(hard, ace)
        soft = ace and hard + 10 <= 21
        if n == 2 and t == 21:
            res["bj"] = res.get("bj", 0.0) + prob
            return
        if t > 21:
            res["bust"] = res.get("bust", 0.0) + prob
            return
        if n >= 2 and t >= 17 and not (t == 17 and soft and h17):
            res[t] = res.get(t, 0.0) + prob
            return
        for c in range(1, 11):
            rec(hard + c, ace or c == 1, n + 1, prob * p[c])

    rec(up, up == 1, 1, 1.0)
    return res


@dataclass
class _Analysis:
    rules: BlackjackRules
    up: int
    p: tuple[float, ...] = field(init=False)
    pbj: float = field(init=False)
    dist: dict[object, float] = field(init=False)

    def __post_init__(self) -> None:
        self.p = _probs(self.rules.decks, self.up)
        d = dealer_outcomes(self.up, self.p, self.rules.dealer_hits_soft_17)
        self.pbj = d.pop("bj", 0.0)
        n = 1.0 - self.pbj
        self.dist = {k: v / n for k, v in d.items()}
        self._stand: dict[int, float] = {}
        self._hs: dict[tuple[int, bool], float] = {}

    @property
    def pn(self) -> float:
        return 1.0 - self.pbj

    def stand(self, t: int) -> float:
        if t > 21:
            return -1.0
        if t not in self._stand:
            ev = 0.0
            for o, pr in self.dist.items():
                if o == "bust" or (isinstance(o, int) and t > o):
                    ev += pr
                elif isinstance(o, int) and t < o:
                    ev -= pr
            self._stand[t] = ev
        return self._stand[t]

    def hit(self, hard: int, ace: bool) -> float:
        return sum(self.p[c] * self.best_hs(hard + c, ace or c == 1) for c in range(1, 11))

    def best_hs(self, hard: int, ace: bool) -> float:
        if hard > 21:
            return -1.0
        key = (hard, ace)
        if key not in self._hs:
            t = _best(hard, ace)
            s = self.stand(t)
            self._hs[key] = s if t == 21 else max(s, self.hit(hard, ace))
        return self._hs[key]

    def double(self, hard: int, ace: bool) -> float:
        return 2.0 * sum(self.p[c] * self.stand(_best(hard + c, ace or c == 1)) for c in range(1, 11))

    # ---- full EVs (dealer blackjack included), per unit of the hand's stake
    def loss(self, action: str, post_split: bool = False) -> float:
        enhc = self.rules.dealer_blackjack_takes == "all"
        if post_split:
            return (2.0 if action == DOUBLE else 1.0) if enhc else 0.0
        if action == DOUBLE:
            return 2.0 if enhc else 1.0
        return 1.0

    def full(self, action: str, hard: int, ace: bool, post_split: bool = False) -> float:
        if action == STAND:
            evn = self.stand(_best(hard, ace))
        elif action == HIT:
            evn = self.hit(hard, ace)
        elif action == DOUBLE:
            evn = self.double(hard, ace)
        elif action == SURRENDER:
            if self.rules.surrender == "early":
                return -0.5
            evn = -0.5
        else:
            raise ValueError(action)
        return self.pn * evn - self.pbj * self.loss(action, post_split)

    def split_hand(self, v: int, c: int) -> float:
        """Full EV of one post-split hand v + c played without a further split."""
        hard, ace = v + c, v == 1 or c == 1
        if v == 1:
            return self.pn * self.stand(_best(hard, ace)) - self.pbj * self.loss(STAND, True)
        acts = [STAND, HIT] + ([DOUBLE] if self.rules.double_after_split else [])
        return max(self.full(a, hard, ace, post_split=True) for a in acts)

    def split(self, v: int) -> float:
        r = self.rules
        q = self.p[v]
        h_any = sum(self.p[c] * self.split_hand(v, c) for c in range(1, 11))
        h_non = sum(self.p[c] * self.split_hand(v, c) for c in range(1, 11) if c != v)
        can_resplit = v != 1 or r.resplit_aces

        @lru_cache(maxsize=None)
        def e(n: int, m: int) -> float:
            if n == 0:
                return 0.0
            if m >= r.max_hands or not can_resplit:
                return n * h_any
            return q * e(n + 1, m + 1) + h_non + (1 - q) * e(n - 1, m)

        total = e(2, 2)
        if r.dealer_blackjack_takes != "all":
            total -= self.pbj  # the original stake is lost once
        return total


@dataclass
class Strategy:
    rules: BlackjackRules
    #: ("hard"|"soft"|"pair", total or pair value, upcard) → actions, best first, with their EVs
    first: dict[tuple[str, int, int], list[tuple[str, float]]]
    #: (hard, ace, upcard) → True if hitting beats standing (hands of 3+ cards, or when nothing else is allowed)
    hit_more: dict[tuple[int, bool, int], bool]

    def decide(self, values: list[int], up: int, *, can_double: bool, can_split: bool,
               can_surrender: bool) -> str:
        """The play for a hand (card values 1..10, ace = 1) against the upcard value."""
        hard = sum(values)
        ace = 1 in values
        if len(values) == 2 and (can_double or can_split or can_surrender):
            if values[0] == values[1] and can_split:
                key = ("pair", values[0], up)
            else:
                key = ("soft" if ace and hard + 10 <= 21 else "hard", _best(hard, ace), up)
            for action, _ in self.first[key]:
                if action == SPLIT and not can_split:
                    continue
                if action == DOUBLE and not can_double:
                    continue
                if action == SURRENDER and not can_surrender:
                    continue
                return action
        return HIT if self.hit_more.get((hard, ace, up), False) else STAND


def basic_strategy(rules: BlackjackRules) -> Strategy:
    first: dict[tuple[str, int, int], list[tuple[str, float]]] = {}
    hit_more: dict[tuple[int, bool, int], bool] = {}
    for up in UPCARDS:
        a = _Analysis(rules, up)
        for hard in range(2, 22):
            for ace in (False, True):
                if ace and hard > 21:
                    continue
                t = _best(hard, ace)
                hit_more[(hard, ace, up)] = t < 21 and a.hit(hard, ace) > a.stand(t)
        options = [STAND, HIT, DOUBLE] + ([SURRENDER] if rules.surrender != "none" else [])
        for t in range(4, 21):  # two-card hard totals 4..20
            first[("hard", t, up)] = _ranked([(x, a.full(x, t, False)) for x in options])
        for t in range(12, 22):  # soft 12 (A,A as a total) .. soft 21
            hard = t - 10
            first[("soft", t, up)] = _ranked([(x, a.full(x, hard, True)) for x in options])
        for v in range(1, 11):
            hard, ace = 2 * v, v == 1
            evs = [(x, a.full(x, hard, ace)) for x in options] + [(SPLIT, a.split(v))]
            first[("pair", v, up)] = _ranked(evs)
    return Strategy(rules, first, hit_more)


def _ranked(evs: list[tuple[str, float]]) -> list[tuple[str, float]]:
    return sorted(evs, key=lambda x: -x[1])


_SYMBOL = {HIT: "H", STAND: "S", DOUBLE: "D", SPLIT: "P", SURRENDER: "R"}


def _cell(s: Strategy, key: tuple[str, int, int]) -> str:
    acts = [x for x, _ in s.first[key]]
    top = acts[0]
    if top in (DOUBLE, SURRENDER):  # show the fallback when the best play is not allowed
        fallback = next(x for x in acts if x in (HIT, STAND) or (top == SURRENDER and x == SPLIT))
        return _SYMBOL[top] + _SYMBOL[fallback].lower()
    return _SYMBOL[top]


def chart(s: Strategy) -> str:
    """A printed strategy card: rows hard 5-20, soft 13-20, pairs; columns upcard 2..10, A.

    ``H`` hit, ``S`` stand, ``P`` split, ``Dh``/``Ds`` double else hit/stand, ``Rh``/``Rs``/``Rp`` surrender else
    hit/stand/split.
    """
    head = "        " + " ".join(f"{('A' if u == 1 else str(u)):>3}" for u in UPCARDS)
    lines = [head]
    for t in range(5, 21):
        lines.append(f"hard {t:>2} " + " ".join(f"{_cell(s, ('hard', t, u)):>3}" for u in UPCARDS))
    for t in range(13, 21):
        lines.append(f"soft {t:>2} " + " ".join(f"{_cell(s, ('soft', t, u)):>3}" for u in UPCARDS))
    for v in (1, 10, 9, 8, 7, 6, 5, 4, 3, 2):
        name = "A,A" if v == 1 else ("T,T" if v == 10 else f"{v},{v}")
        lines.append(f"{name:>7} " + " ".join(f"{_cell(s, ('pair', v, u)):>3}" for u in UPCARDS))
    return "\n".join(lines)
