"""Mystery (must-hit-by) rules, pure: the trigger, the crossing wager, the carry, uniformity."""

import random
from math import exp, sqrt

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jackpot_controller.domain.levels import LevelConfigError, LevelParams
from jackpot_controller.domain.mystery import draw_trigger
from jackpot_controller.domain.pool import (Pool, Wager, apply_wager, corrected_trigger, displayed_won, fold, open_cycle,
                                           payout_if_hit_now)

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


# ------------------------------------------------ the meter never shows more than the next hit pays
class FixedDraws:
    """A random source returning the given draws in order (then the CSPRNG is not needed)."""

    def __init__(self, *draws):
        self.draws = list(draws)

    def randbelow(self, n):
        d = self.draws.pop(0)
        assert 0 <= d < n
        return d


def test_carried_excess_above_the_new_trigger_waits_in_overflow_not_on_the_meter():
    """The outside tester's case: ₩10 carried past the trigger onto a reset of ₩99,999, new trigger
    ₩100,004: the meter read ₩100,009 while the hit paid ₩100,004. Now it reads the trigger and
    the ₩5 above it wait in overflow (released at a later reset): nothing is lost."""
    prm = LevelParams("mystery", reset=99_999, ceiling=100_010, rate_ppm=100_000, scope="zone", zone="MASS")
    p = pool(params=prm, value=99_999_000, trigger=100_000_000)
    hits = apply_wager([p], wager(110), FixedDraws(5))  # +₩11 → ₩100,010 ≥ ₩100,000; new trigger ₩100,004
    assert [h.amount for h in hits] == [100_000] and p.trigger_milli == 100_004_000
    assert displayed_won(p.value_milli, "mystery", p.trigger_milli) == p.value_milli // 1000 == 100_004
    assert p.overflow_milli == 5_000 and p.flows.cap == 5  # 100,009 → 100,004 on the meter, 5 waiting
    # conservation: ₩11 in, ₩100,000 paid, reset ₩99,999 seeded
    assert p.value_milli + p.overflow_milli == 99_999_000 + 11_000 - 100_000_000 + 99_999_000
    nxt = apply_wager([p], wager(10, 2), FixedDraws(0))  # the next qualifying wager pays what the sign showed
    assert [h.amount for h in nxt] == [100_004]


MYSTERY_PARAMS = st.builds(
    lambda reset, gap, rate, reserve: LevelParams("mystery", reset=reset, ceiling=reset + gap, rate_ppm=rate,
                                                  reserve_rate_ppm=reserve, scope="floor"),
    reset=st.integers(1, 200_000), gap=st.integers(1, 5_000), rate=st.integers(1, 100_000),
    reserve=st.integers(0, 100_000))


@settings(max_examples=200, deadline=None)
@given(prm=MYSTERY_PARAMS, pending=st.one_of(st.none(), MYSTERY_PARAMS), seed=st.integers(0, 10**9),
       bets=st.lists(st.integers(1, 2_000_000), min_size=1, max_size=150), batch=st.integers(1, 30),
       overflow=st.integers(0, 10_000_000))
def test_displayed_value_never_exceeds_what_the_hit_would_pay(prm, pending, seed, bets, batch, overflow):
    """Any mystery level (small gaps make carried excess large against the reset–trigger gap), any
    pending change, any overflow waiting, any bets, folded in batches: after every fold the sign's
    value (whole won) ≤ the amount the level's next hit pays (its trigger), every hit pays the
    trigger it reached, and no milli-won is created or lost."""
    rng = SeededRng(seed)
    value, trigger = open_cycle(prm, rng)
    p = pool(params=prm, value=value, trigger=trigger, pending=pending, overflow_milli=overflow)
    start = p.value_milli + p.reserve_milli + p.overflow_milli
    paid = seeded = 0
    ws = [wager(b, i + 1) for i, b in enumerate(bets)]
    for k in range(0, len(ws), batch):
        p.flows = type(p.flows)()
        for h in fold([p], ws[k:k + batch], rng):
            assert h.amount == h.trigger_milli // 1000 <= h.value_milli // 1000
        shown = displayed_won(p.value_milli, "mystery", p.trigger_milli)
        assert shown == p.value_milli // 1000 <= payout_if_hit_now(p) == p.trigger_milli // 1000
        assert p.params.reset * 1000 <= p.trigger_milli <= p.params.ceiling * 1000
        paid += p.flows.award
        seeded += p.flows.seed
    assert p.value_milli + p.reserve_milli + p.overflow_milli == start + p.contributed_milli + 1000 * (seeded - paid)


# ------------------------------------------------ corrections redraw the trigger
def test_a_correction_that_raises_the_value_redraws_the_trigger_above_it():
    """Redraw, not refuse (docs/jackpots.md): a rise past the old trigger no longer pays the old
    trigger (less than the corrected meter), and a rise below it redraws too, so a correction
    reveals nothing about the trigger."""
    rng = SeededRng(11)
    for new_won in (30_001, 45_000, 89_999, 95_000, 99_999):
        t = corrected_trigger(MINOR, 40_000_500, new_won * 1000 + 500, 90_000_000, rng)
        assert new_won + 1 <= t // 1000 <= 100_000 and t % 1000 == 0
    assert corrected_trigger(MINOR, 40_000_500, 100_000_500, 90_000_000, rng) == 100_000_000  # to the ceiling
    assert corrected_trigger(MINOR, 40_000_500, 35_000_500, 90_000_000, rng) == 90_000_000  # a fall keeps it
    prog = LevelParams("linked", 30_000, 100_000, 5_000, scope="zone", zone="MASS", combination="grand")
    assert corrected_trigger(prog, 1, 2_000, 0, rng) == 0
    # the old bug: corrected to ₩95,000 above the trigger ₩90,000 → the next wager paid ₩90,000
    p = pool(value=95_000_500, trigger=corrected_trigger(MINOR, 40_000_500, 95_000_500, 90_000_000, rng))
    assert displayed_won(p.value_milli, "mystery", p.trigger_milli) <= payout_if_hit_now(p)
    h = []
    i = 0
    while not h:
        i += 1
        h = apply_wager([p], wager(20_000, i), rng)
    assert h[0].amount >= 95_000


@pytest.mark.parametrize("max_award,ok", [(None, True), (100_000, True), (150_000, True), (99_999, False),
                                          (30_000, False), (1, False)])
def test_the_maximum_award_is_at_least_the_ceiling(max_award, ok):
    prm = LevelParams("mystery", reset=30_000, ceiling=100_000, rate_ppm=5_000, max_award=max_award)
    if ok:
        prm.validate()
    else:
        with pytest.raises(LevelConfigError) as e:
            prm.validate()
        assert e.value.field == "max_award" and "ceiling" in e.value.message
