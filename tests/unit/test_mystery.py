"""Mystery (must-hit-by) rules, pure: the trigger, the crossing wager, the carry, uniformity."""

import random
from math import exp, sqrt

import pytest

from jackpot_controller.domain.levels import LevelConfigError, LevelParams
from jackpot_controller.domain.mystery import draw_trigger
from jackpot_controller.domain.pool import Pool, Wager, apply_wager, fold, open_cycle

MINOR = LevelParams("mystery", reset=30_000, ceiling=100_000, rate_ppm=5_000, scope="zone", zone="MASS")


class SeededRng:
    def __init__(self, seed):
        self.r = random.Random(seed)

    def randbelow(self, n):
        return self.r.randrange(n)


def pool(params=MINOR, value=30_000_000, trigger=90_000_000, **kw) -> Pool:
    return Pool(id=1, code="MINOR", params=params, value_milli=value, trigger_milli=trigger, cycle=1, **kw)


def wager(bet, i=1, zone="MASS", asset="M001", bank="M1", prog=()):
    return Wager(i, 1, asset, bank, zone, bet, prog)


def test_trigger_is_drawn_in_range_in_whole_won():
    rng = SeededRng(1)
    seen = set()
    for _ in range(5_000):
        t = draw_trigger(30_000, 30_009, rng)
        assert 30_000_000 <= t <= 30_009_000 and t % 1000 == 0
        seen.add(t)
    assert len(seen) == 10  # both ends included


def test_the_wager_that_reaches_the_trigger_wins_and_excess_carries():
    p = pool(value=49_990_000, trigger=50_000_000)
    hits = apply_wager([p], wager(6_000), SeededRng(2))  # +30 won → 50,020 won ≥ trigger 50,000
    assert len(hits) == 1 and hits[0].amount == 50_000 and hits[0].cycle == 1
    assert p.value_milli == 30_000_000 + 20_000  # reset + excess 20 won
    assert p.cycle == 2 and 30_000_000 <= p.trigger_milli <= 100_000_000
    assert p.flows.award == 50_000 and p.flows.seed == 30_000


def test_below_trigger_accumulates_without_hit():
    p = pool()
    assert apply_wager([p], wager(100), SeededRng(3)) == []
    assert p.value_milli == 30_000_500 and p.coin_in == 100 and p.contributed_milli == 500


def test_min_bet_and_eligibility_exclude_wagers():
    p = pool(params=LevelParams("mystery", 30_000, 100_000, 5_000, min_bet=1_000, scope="zone", zone="MASS"))
    apply_wager([p], wager(999), SeededRng(1))
    apply_wager([p], wager(5_000, zone="VIP"), SeededRng(1))
    assert p.value_milli == 30_000_000 and p.coin_in == 0


def test_value_never_exceeds_ceiling_and_hits_are_uniform():
    """10,000 cycles: every hit within [reset, ceiling], Kolmogorov–Smirnov p > 0.01, and the
    crossing wagers' bets vary (any bet can win)."""
    p_ = LevelParams("mystery", reset=30_000, ceiling=100_000, rate_ppm=100_000)  # 10 %: fast cycles
    rng = SeededRng(42)
    value, trigger = open_cycle(p_, rng)
    pl = pool(params=p_, value=value, trigger=trigger)
    hits, bets = [], random.Random(7)
    i = 0
    while len(hits) < 10_000:
        i += 1
        for h in apply_wager([pl], wager(bets.choice((1_000, 5_000, 20_000, 50_000)), i), rng):
            hits.append(h.amount)
        assert pl.value_milli <= p_.ceiling * 1000
    assert min(hits) >= 30_000 and max(hits) <= 100_000
    xs = sorted((h - 30_000) / 70_000 for h in hits)
    n = len(xs)
    d = max(max((k + 1) / n - x, x - k / n) for k, x in enumerate(xs))
    lam = (sqrt(n) + 0.12 + 0.11 / sqrt(n)) * d
    p_value = 2 * sum((-1) ** (k - 1) * exp(-2 * k * k * lam * lam) for k in range(1, 100))
    assert p_value > 0.01, (d, p_value)


def test_fold_is_the_same_as_one_wager_after_another():
    rng_a, rng_b = SeededRng(5), SeededRng(5)
    a, b = pool(value=30_000_000, trigger=31_000_000), pool(value=30_000_000, trigger=31_000_000)
    ws = [wager(10_000 + 7 * i, i) for i in range(1, 400)]
    hits_a = fold([a], ws, rng_a)
    hits_b = [h for w in ws for h in apply_wager([b], w, rng_b)]
    assert [(h.wager.id, h.amount) for h in hits_a] == [(h.wager.id, h.amount) for h in hits_b]
    assert (a.value_milli, a.trigger_milli, a.cycle) == (b.value_milli, b.trigger_milli, b.cycle)


@pytest.mark.parametrize(
    "kw,field",
    [
        (dict(reset=100, ceiling=50, rate_ppm=5000), "reset"),  # reset above the ceiling
        (dict(reset=100, ceiling=100, rate_ppm=5000), "ceiling"),
        (dict(reset=100, ceiling=500, rate_ppm=0), "rate_ppm"),
        (dict(reset=100, ceiling=500, rate_ppm=100_001), "rate_ppm"),
        (dict(reset=100, ceiling=500, rate_ppm=-5), "rate_ppm"),
        (dict(reset=-1, ceiling=500, rate_ppm=5), "reset"),
        (dict(reset=100, ceiling=500, rate_ppm=5, reserve_rate_ppm=200_000), "reserve_rate_ppm"),
        (dict(reset=100, ceiling=500, rate_ppm=5, start=50), "start"),
        (dict(reset=100, ceiling=500, rate_ppm=5, min_bet=-1), "min_bet"),
        (dict(reset=100, ceiling=500, rate_ppm=5, scope="zone"), "zone"),
        (dict(reset=100, ceiling=500, rate_ppm=5, scope="floor", zone="VIP"), "zone"),
        (dict(reset=100, ceiling=500, rate_ppm=5, combination="grand"), "combination"),
        (dict(reset=100.0, ceiling=500, rate_ppm=5), "reset"),
    ],
)
def test_bad_configuration_is_refused_naming_the_field(kw, field):
    with pytest.raises(LevelConfigError) as e:
        LevelParams("mystery", **kw).validate()
    assert e.value.field == field
