import random

import pytest

from jackpot_controller.domain.mystery import (
    LevelConfigError, MysteryParams, MysteryState, contribute, draw_trigger, start,
)

MINOR = MysteryParams(reset_won=30_000, ceiling_won=100_000, rate_ppm=5_000)


class SeededRng:
    def __init__(self, seed):
        self.r = random.Random(seed)

    def randbelow(self, n):
        return self.r.randrange(n)


def test_trigger_is_drawn_in_range_in_whole_won():
    rng = SeededRng(1)
    for _ in range(2_000):
        t = draw_trigger(MINOR, rng)
        assert 30_000_000 <= t <= 100_000_000 and t % 1000 == 0


def test_the_wager_that_reaches_the_trigger_wins_and_excess_carries():
    st = MysteryState(value_milli=49_990_000, trigger_milli=50_000_000)
    res = contribute(MINOR, st, 6_000, SeededRng(2))  # +30 won → 50,020 won > trigger 50,000
    assert res.hit and res.award_won == 50_000
    assert res.state.value_milli == 30_000_000 + 20_000  # reset + excess 20 won
    assert res.state.cycle == 2 and 30_000_000 <= res.state.trigger_milli <= 100_000_000


def test_below_trigger_accumulates_without_hit():
    st = MysteryState(value_milli=30_000_000, trigger_milli=90_000_000)
    res = contribute(MINOR, st, 100, SeededRng(3))
    assert not res.hit and res.contribution_milli == 500 and res.state.value_milli == 30_000_500


def test_min_bet_excludes_small_wagers():
    p = MysteryParams(30_000, 100_000, 5_000, min_bet_won=1_000)
    st = MysteryState(30_000_000, 90_000_000)
    assert contribute(p, st, 999, SeededRng(1)).contribution_milli == 0


def test_value_never_exceeds_ceiling_and_hits_are_uniform():
    """10,000 cycles: every hit within [reset, ceiling], KS test of uniformity p > 0.01."""
    from math import exp, sqrt

    p = MysteryParams(reset_won=30_000, ceiling_won=100_000, rate_ppm=100_000)  # 10%: fast cycles
    rng = SeededRng(42)
    st = start(p, rng)
    hits = []
    while len(hits) < 10_000:
        res = contribute(p, st, 50_000, rng)  # ₩5,000 per wager
        assert res.state.value_milli <= p.ceiling_won * 1000
        if res.hit:
            hits.append(res.award_won)
        st = res.state
    assert min(hits) >= 30_000 and max(hits) <= 100_000
    xs = sorted((h - 30_000) / 70_000 for h in hits)
    n = len(xs)
    d = max(max((i + 1) / n - x, x - i / n) for i, x in enumerate(xs))
    lam = (sqrt(n) + 0.12 + 0.11 / sqrt(n)) * d
    p_value = 2 * sum((-1) ** (k - 1) * exp(-2 * k * k * lam * lam) for k in range(1, 100))
    assert p_value > 0.01, (d, p_value)


@pytest.mark.parametrize(
    "kw,field",
    [
        (dict(reset_won=100, ceiling_won=50, rate_ppm=5000), "ceiling_won"),
        (dict(reset_won=100, ceiling_won=500, rate_ppm=0), "rate_ppm"),
        (dict(reset_won=100, ceiling_won=500, rate_ppm=100_001), "rate_ppm"),
        (dict(reset_won=-1, ceiling_won=500, rate_ppm=5), "reset_won"),
    ],
)
def test_bad_configuration_is_refused_naming_the_field(kw, field):
    with pytest.raises(LevelConfigError) as e:
        MysteryParams(**kw).validate()
    assert e.value.field == field
