"""Progressive pools, pure: ceilings and overflow, reserve, resets, second hits, parameter
changes after a hit, zone moves, and the ledger legs that keep each account = floor(pool)."""

from __future__ import annotations

import random
from collections import defaultdict

from hypothesis import given, settings
from hypothesis import strategies as st

from slotsys.kernel import accounts
from jackpot_controller.domain.levels import LevelConfigError, LevelParams
from jackpot_controller.domain.pool import Pool, Wager, apply_wager, correction_legs, fold

import pytest


class Rng:
    def __init__(self, seed=1):
        self.r = random.Random(seed)

    def randbelow(self, n):
        return self.r.randrange(n)


def linked(**kw) -> LevelParams:
    base = dict(reset=10_000, ceiling=20_000, rate_ppm=10_000, scope="bank", bank="B1", combination="grand")
    return LevelParams("linked", **{**base, **kw})


def mk(params, code="L", id=1, value=None, trigger=0, **kw) -> Pool:
    return Pool(id=id, code=code, params=params, value_milli=(params.reset if value is None else value) * 1000,
                trigger_milli=trigger, cycle=1, **kw)


def w(bet, i=1, prog=(), asset="M001", bank="B1", zone="MASS", machine_id=1):
    return Wager(i, machine_id, asset, bank, zone, bet, tuple(prog))


def test_progressive_combination_wins_the_value_after_its_own_contribution():
    p = mk(linked(), value=12_345)
    hits = apply_wager([p], w(10_000, prog=["grand"]), Rng())  # +₩100
    assert [h.amount for h in hits] == [12_445]
    assert p.value_milli == 10_000_000 and p.cycle == 2 and p.hits == 1 and p.total_won == 12_445


def test_an_ineligible_machine_neither_contributes_nor_wins():
    p = mk(linked(), value=12_345)
    assert apply_wager([p], w(10_000, prog=["grand"], bank="B2"), Rng()) == []
    assert p.value_milli == 12_345_000 and p.coin_in == 0


def test_contributions_past_the_ceiling_go_to_overflow_and_join_the_next_reset():
    p = mk(linked(), value=19_990)
    apply_wager([p], w(5_000), Rng())  # +₩50: ₩10 to the value, ₩40 to overflow
    assert p.value_milli == 20_000_000 and p.overflow_milli == 40_000
    apply_wager([p], w(100_000, i=2), Rng())  # +₩1,000, all overflow
    assert p.value_milli == 20_000_000 and p.overflow_milli == 1_040_000
    apply_wager([p], w(100, i=3, prog=["grand"]), Rng())  # its ₩1 goes to overflow too, then it wins ₩20,000
    assert p.value_milli == 10_000_000 + 1_041_000 and p.overflow_milli == 0  # reset + overflow
    assert p.flows.release == 1_041 and p.flows.award == 20_000


def test_overflow_divert_goes_to_the_other_levels_overflow():
    a = mk(linked(overflow="divert", overflow_to="B"), code="A", id=1, value=20_000)
    b = mk(LevelParams("mystery", reset=1_000, ceiling=5_000, rate_ppm=1_000, scope="floor"), code="B", id=2,
           value=1_000, trigger=4_000_000)
    apply_wager([a, b], w(10_000), Rng())
    assert a.overflow_milli == 0 and b.overflow_milli == 100_000 and b.value_milli == 1_010_000


def test_reserve_funds_the_reset_and_the_house_seeds_the_rest():
    p = mk(linked(reserve_rate_ppm=5_000))
    apply_wager([p], w(1_000_000), Rng())  # value +10,000 → capped at 20,000; reserve +5,000
    assert p.reserve_milli == 5_000_000
    apply_wager([p], w(100, i=2, prog=["grand"]), Rng())
    assert p.flows.reserve_used == 5_000 and p.flows.seed == 5_000 and p.reserve_milli == 500  # ₩0.5 of the 2nd bet
    assert p.value_milli // 1000 == 10_001  # reset + the 2nd bet's ₩1 that went to overflow


def test_parameter_changes_take_effect_after_the_next_hit():
    p = mk(linked(), value=15_000, pending=linked(reset=12_000, ceiling=30_000, rate_ppm=20_000))
    apply_wager([p], w(10_000), Rng())
    assert p.value_milli == 15_100_000  # still 1 %
    apply_wager([p], w(10_000, i=2, prog=["grand"]), Rng())
    assert p.params.reset == 12_000 and p.pending is None and p.value_milli == 12_000_000
    apply_wager([p], w(10_000, i=3), Rng())
    assert p.value_milli == 12_200_000  # now 2 %


def test_second_hit_next_value_pays_the_new_cycle():
    p = mk(linked(), value=15_000)
    hits = fold([p], [w(100, 1, ["grand"]), w(100, 2, ["grand"], asset="M002", machine_id=2)], Rng())
    assert [h.amount for h in hits] == [15_001, 10_001] and hits[1].second_hit and hits[1].rule == "next_value"
    assert not hits[0].second_hit and hits[1].open_claim_amount == 15_001


def test_second_hit_same_amount_is_topped_up_by_the_house():
    p = mk(linked(second_hit_rule="same_amount"), value=15_000, open_claims=[14_000])  # a claim still open
    hits = apply_wager([p], w(100, 1, ["grand"]), Rng())
    assert hits[0].second_hit and hits[0].amount == 15_001 and hits[0].topup == 0  # value above the open claim
    hits = apply_wager([p], w(100, 2, ["grand"]), Rng())
    assert hits[0].amount == 15_001 and hits[0].topup == 15_001 - 10_001
    assert p.flows.topup == 5_000


def test_a_paused_level_takes_nothing_and_pays_nothing():
    p = mk(linked(), value=15_000, paused=True)
    assert apply_wager([p], w(10_000, prog=["grand"]), Rng()) == [] and p.value_milli == 15_000_000


def test_a_moved_machine_counts_in_its_old_zone_until_the_levels_next_reset():
    vip = mk(LevelParams("mystery", reset=1_000, ceiling=2_000, rate_ppm=100_000, scope="zone", zone="VIP"),
             code="VIP", value=1_000, trigger=1_500_000, cycle_started=0)
    moved_at = 5  # the machine moved from MASS to VIP at t=5; the VIP cycle started at t=0

    def zone_of(pool, wager):
        return "VIP" if (pool.cycle_started or 0) >= moved_at else "MASS"

    apply_wager([vip], w(1_000, zone="VIP"), Rng(), now=10, zone_of=zone_of)
    assert vip.value_milli == 1_000_000  # not yet
    vip.trigger_milli = 1_000_000  # a VIP machine's wager resets the level at t=10
    apply_wager([vip], w(1_000, asset="V001", zone="VIP", machine_id=2), Rng(), now=10)
    assert vip.cycle == 2 and vip.cycle_started == 10
    vip.trigger_milli = 2_000_000
    before = vip.value_milli
    apply_wager([vip], w(1_000, zone="VIP"), Rng(), now=11, zone_of=zone_of)
    assert vip.value_milli == before + 100_000  # counts from the new cycle


def test_correction_keeps_the_sub_won_part_and_posts_the_difference():
    new, legs = correction_legs("L", 12_345_678, 12_000)
    assert new == 12_000_678 and legs == [(accounts.jackpot_liability("L"), accounts.jackpot_adjustments("L"), 345)]
    new, legs = correction_legs("L", 12_345_678, 13_000)
    assert new == 13_000_678 and legs == [(accounts.jackpot_adjustments("L"), accounts.jackpot_liability("L"), 655)]


def test_linked_needs_a_combination_and_standalone_one_machine():
    with pytest.raises(LevelConfigError) as e:
        linked(combination=None).validate()
    assert e.value.field == "combination"
    with pytest.raises(LevelConfigError) as e:
        LevelParams("standalone", 100, 200, 10, scope="zone", zone="VIP", combination="x").validate()
    assert e.value.field == "scope"
    LevelParams("standalone", 100, 200, 10, scope="machine", machine="M001", combination="x").validate()


KINDS = st.sampled_from([
    linked(),
    linked(reserve_rate_ppm=3_000, ceiling=11_000),
    linked(overflow="divert", overflow_to="P2", ceiling=10_500),
    LevelParams("standalone", reset=2_000, ceiling=2_500, rate_ppm=30_000, scope="machine", machine="M001",
                combination="major", reserve_rate_ppm=777),
    LevelParams("mystery", reset=1_000, ceiling=3_000, rate_ppm=50_000, scope="floor", reserve_rate_ppm=1_234),
])


@settings(max_examples=60, deadline=None)
@given(kinds=st.lists(KINDS, min_size=1, max_size=3), seed=st.integers(0, 10**6),
       bets=st.lists(st.tuples(st.integers(1, 200_000), st.booleans(), st.booleans(), st.sampled_from(["B1", "B2"])),
                     min_size=1, max_size=120), batch=st.integers(1, 40))
def test_no_contribution_is_lost_and_each_account_equals_its_pool(kinds, seed, bets, batch):
    """Any mix of levels and wagers, folded in batches: Σ contributions = growth of (value +
    reserve + overflow) + 1000 × (awards − seeds), every value ≤ its ceiling, and after each
    batch's ledger legs every account equals floor(pool / 1000) and payable = Σ awards."""
    rng = Rng(seed)
    pools = []
    for i, prm in enumerate(kinds):
        start = prm.reset
        trig = (start + rng.randbelow(prm.ceiling - start + 1)) * 1000 if prm.kind == "mystery" else 0
        pools.append(Pool(id=i + 1, code=f"P{i + 1}", params=prm, value_milli=start * 1000, trigger_milli=trig, cycle=1))
    if not any(p.code == "P2" for p in pools):
        pools = [p for p in pools if p.params.overflow != "divert"] or [mk(linked(), code="P1")]
    acc = defaultdict(int)  # credit-normal view of the liability accounts
    for p in pools:
        acc[accounts.jackpot_liability(p.code)] = p.value_milli // 1000
    start_total = sum(p.value_milli + p.reserve_milli + p.overflow_milli for p in pools)
    wagers = [w(b, i + 1, ["grand", "major"] if win else [], asset="M001" if own else "M002", bank=bank,
                machine_id=1 if own else 2) for i, (b, win, own, bank) in enumerate(bets)]
    awards = seeds = 0
    for k in range(0, len(wagers), batch):
        live = [Pool(id=p.id, code=p.code, params=p.params, pending=p.pending, value_milli=p.value_milli,
                     trigger_milli=p.trigger_milli, cycle=p.cycle, reserve_milli=p.reserve_milli,
                     overflow_milli=p.overflow_milli, contributed_milli=p.contributed_milli) for p in pools]
        hits = fold(live, wagers[k:k + batch], rng)
        for p in live:
            assert p.value_milli <= p.params.ceiling * 1000
            for debit, credit, amount in p.ledger_legs():
                assert amount >= 0
                acc[debit] -= amount
                acc[credit] += amount
            assert acc[accounts.jackpot_liability(p.code)] == p.value_milli // 1000
            assert acc[accounts.jackpot_reserve(p.code)] == p.reserve_milli // 1000
            assert acc[accounts.jackpot_overflow(p.code)] == p.overflow_milli // 1000
            awards += p.flows.award + p.flows.topup
            seeds += p.flows.seed + p.flows.topup
        assert sum(h.amount for h in hits) == sum(p.flows.award + p.flows.topup for p in live)
        pools = live
    assert sum(acc[accounts.jackpot_payable(p.code)] for p in pools) == awards
    contributed = sum(p.contributed_milli for p in pools)
    end_total = sum(p.value_milli + p.reserve_milli + p.overflow_milli for p in pools)
    assert contributed == end_total - start_total + 1000 * (awards - seeds)
