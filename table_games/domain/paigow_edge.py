"""Pai gow poker: the house edge as player and as banker under each house way, by seeded simulation.

Exact enumeration (C(53,7) × C(46,7) ≈ 8·10¹⁵ deals, each set by a house way) is out of reach, so deals are
simulated: each deal is 14 cards from a shuffled 53-card deck (the joker the bug), two seven-card hands
``A`` and ``B``, **both set by the same house way** (:func:`paigow.house_way`, policy 9-1, 9-2 or 9-3) —
a player who asks for "house way" against the dealer's house way, copies to the banker
(:func:`paigow.result`).

Each deal is used **twice** (an antithetic pair): ``A`` plays against ``B`` banking, and ``B`` against
``A`` banking. Both orderings have exactly the game's distribution, and their results are strongly
negatively correlated (a player who wins both hands is a banker who loses both), so the pair's mean has a
much smaller variance than two independent deals. The sample is kept as the 3 × 3 count table of
(result of A vs B, result of B vs A), results −1 / 0 / +1 from the player's side; every figure below is a
function of that table, the stake and the commission:

* **player**: a win pays ``stake − commission`` (5% rounded **up** to the table's commission unit,
  :func:`slotsys.kernel.money.commission_ceil`, as :func:`paigow.settle` does), a loss costs the stake;
  house edge = −E[net] / stake;
* **banker** (a player banking against one player's equal bet, the house's hand included): a banker win
  pays the stake less the same commission, a banker loss costs the stake; the house's edge against the
  banking player is −E[banker net] / stake.

95% confidence interval = estimate ± 1.96 standard errors of the pair means.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from math import sqrt

from slotsys.kernel.money import commission_ceil
from table_games.domain import paigow as P

OUTCOMES = (-1, 0, 1)  # the player's result: loses both / push / wins both


@dataclass
class PaiGowSample:
    """Counts of (result of A vs banker B, result of B vs banker A) over ``pairs`` deals, one house way."""

    policy: str
    counts: list[list[int]] = field(default_factory=lambda: [[0] * 3 for _ in range(3)])

    @property
    def pairs(self) -> int:
        return sum(map(sum, self.counts))

    def add(self, ab: int, ba: int) -> None:
        self.counts[ab + 1][ba + 1] += 1

    def __add__(self, o: PaiGowSample) -> PaiGowSample:
        if o.policy != self.policy:
            raise ValueError("samples of different house ways")
        return PaiGowSample(self.policy, [[a + b for a, b in zip(r, s)] for r, s in zip(self.counts, o.counts)])

    def probabilities(self) -> dict[str, float]:
        """P(player wins both), P(push), P(banker wins both) over the 2 × ``pairs`` games."""
        n = 2 * self.pairs
        by = [sum(self.counts[i]) + sum(row[i] for row in self.counts) for i in range(3)]
        return {"player_wins": by[2] / n, "push": by[1] / n, "banker_wins": by[0] / n}

    def edge(self, side: str = "player", *, stake: int = 10_000, commission_ppm: int = 50_000,
             commission_unit: int = 100) -> Estimate:
        """House edge of ``side`` ("player" | "banker") per unit staked, with its standard error.

        A win's net is ``stake − commission_ceil(stake, …)`` (DESIGN rounding: up to the unit)."""
        if side not in ("player", "banker"):
            raise ValueError("side is 'player' or 'banker'")
        win = (stake - commission_ceil(stake, commission_ppm, commission_unit)) / stake
        sign = 1 if side == "player" else -1

        def net(r: int) -> float:
            r *= sign
            return win if r > 0 else (-1.0 if r < 0 else 0.0)

        n = self.pairs
        s = sq = 0.0
        for i, a in enumerate(OUTCOMES):
            for j, b in enumerate(OUTCOMES):
                c = self.counts[i][j]
                v = (net(a) + net(b)) / 2
                s += c * v
                sq += c * v * v
        mean = s / n
        return Estimate(-mean, sqrt(max(sq / n - mean * mean, 0.0) / n), 2 * n)

    def to_dict(self) -> dict:
        return {"policy": self.policy, "pairs": self.pairs, "counts": self.counts}

    @classmethod
    def from_dict(cls, d: dict) -> PaiGowSample:
        return cls(d["policy"], [list(r) for r in d["counts"]])


@dataclass(frozen=True)
class Estimate:
    value: float  # house edge, fraction of the stake
    se: float
    games: int

    def ci95(self) -> tuple[float, float]:
        return self.value - 1.96 * self.se, self.value + 1.96 * self.se


def simulate(deals: int, seed: int | str, policy: str = "9-1") -> PaiGowSample:
    """``deals`` seeded deals (14 of the 53 cards each), both hands set by ``policy``'s house way."""
    rng = random.Random(seed)
    deck = P.deck53()
    way = P.HOUSE_WAYS[policy]
    out = PaiGowSample(policy)
    for _ in range(deals):
        c = rng.sample(deck, 14)
        a, b = way(c[:7]), way(c[7:])
        out.add(P.result(a, b), P.result(b, a))
    return out
