"""Loyalty rules (pure): accrual, tiers, expiry, redemption, limits, gaming day, PIN throttle, cards."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from slotsys.players.domain import loyalty as LY
from slotsys.kernel.errors import ValidationFailed
from slotsys.kernel.money import theoretical_milli

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=timezone.utc)
COIN_1000 = LY.AccrualRule("coin_in", 1_000)
THEO_50 = LY.AccrualRule("theo", 50, "zone", "VIP")
RTP = Fraction(939954, 1_000_000)  # a 93.9954% game


def test_coin_in_accrual_one_point_per_1000_won():
    a = LY.accrue(COIN_1000, 6_000, 1 - RTP, 1_000)
    assert (a.base_milli, a.points_milli) == (6_000, 6_000)
    assert a.theo_milli == 360_276  # 6,000 × 6.0046% = ₩360.276
    # ₩100 bets carry: each is 0.1 point, exactly
    assert LY.accrue(COIN_1000, 100, 1 - RTP, 1_000).points_milli == 100
    # a ₩250 bet is 250 milli-points; ₩1 is 1 milli-point
    assert LY.accrue(COIN_1000, 1, 1 - RTP, 1_000).points_milli == 1


def test_tier_multiplier_applies_to_the_base_and_rounds_down():
    a = LY.accrue(COIN_1000, 6_000, 1 - RTP, 1_250)
    assert (a.base_milli, a.points_milli) == (6_000, 7_500)
    b = LY.accrue(COIN_1000, 1, 1 - RTP, 1_500)  # 1 × 1.5 = 1.5 → 1
    assert (b.base_milli, b.points_milli) == (1, 1)


def test_theo_accrual_points_per_50_won_of_theoretical_win():
    # ₩20,000 at RTP 93.9954%: theo ₩1,200.92 → 1,200,920 milli-won → / 50 = 24,018 milli-points
    a = LY.accrue(THEO_50, 20_000, 1 - RTP, 1_000)
    assert a.theo_milli == 1_200_920
    assert a.base_milli == 24_018 and a.points_milli == 24_018
    assert LY.accrue(THEO_50, 20_000, Fraction(0), 1_000).points_milli == 0  # a 100% game earns no theo points


def test_theoretical_milli_rounds_down():
    assert theoretical_milli(1, Fraction(1, 3)) == 333
    assert theoretical_milli(3, Fraction(1, 3)) == 1_000
    assert theoretical_milli(Fraction(7, 2), Fraction(1, 10)) == 350


@settings(max_examples=100, database=None)
@given(st.lists(st.integers(min_value=1, max_value=10**7), min_size=1, max_size=30),
       st.sampled_from([1_000, 1_250, 1_500, 2_000]))
def test_carried_progress_never_exceeds_the_exact_total(bets, mult):
    """Summing per-game milli-points never credits more than the exact points of the total play,
    and loses less than one milli-point per game (per rounding step)."""
    per_game = sum(LY.accrue(COIN_1000, b, 1 - RTP, mult).points_milli for b in bets)
    exact = Fraction(sum(bets) * 1000, 1000) * mult / 1000  # milli-points, unrounded
    assert per_game <= exact < per_game + 2 * len(bets)


def test_rule_resolution_machine_over_zone_over_default():
    rules = [COIN_1000, THEO_50, LY.AccrualRule("coin_in", 500, "machine", "M020"), LY.AccrualRule("theo", 40, "table", "BJ-01"),
             LY.AccrualRule("theo", 60, "zone", "PIT")]
    assert LY.resolve_rule(rules, machine="M020", zone="MASS").won_per_point == 500
    assert LY.resolve_rule(rules, machine="M001", zone="MASS") is COIN_1000
    assert LY.resolve_rule(rules, machine="V001", zone="VIP") is THEO_50
    assert LY.resolve_rule(rules, table="BJ-01", zone="PIT").won_per_point == 40
    assert LY.resolve_rule(rules, table="BJ-02", zone="PIT").won_per_point == 60
    with pytest.raises(LookupError):
        LY.resolve_rule([THEO_50], machine="M001", zone="MASS")


@pytest.mark.parametrize("kwargs,field", [
    ({"basis": "coin_in", "won_per_point": 0}, "won_per_point"),
    ({"basis": "coin_in", "won_per_point": 1.5}, "won_per_point"),
    ({"basis": "coin_in", "won_per_point": 10, "scope": "zone"}, "key"),
    ({"basis": "coin_in", "won_per_point": 10, "scope": "planet", "key": "x"}, "scope"),
])
def test_bad_rules_are_refused(kwargs, field):
    with pytest.raises(ValidationFailed) as e:
        LY.AccrualRule(**kwargs)
    assert e.value.field == field
    with pytest.raises(ValueError):
        LY.AccrualRule("points", 10)


def test_tiers_by_threshold():
    tiers = [LY.Tier("CLASSIC", "Classic", 0, 1000), LY.Tier("GOLD", "Gold", 5_000, 1250),
             LY.Tier("PLATINUM", "Platinum", 25_000, 1500)]
    assert LY.tier_for(tiers, 0).code == "CLASSIC"
    assert LY.tier_for(tiers, 4_999_999).code == "CLASSIC"
    assert LY.tier_for(tiers, 5_000_000).code == "GOLD"
    assert LY.tier_for(tiers, 10**12).code == "PLATINUM"


def test_table_rating_theo():
    # ₩50,000 average bet, 2 hours, 60 decisions an hour, 0.5% edge:
    # handle ₩6,000,000; theo ₩30,000; theo ₩50/pt → 600 points
    handle, edge = LY.rated_play(50_000, 120, 60, 5_000)
    assert handle == 6_000_000 and edge == Fraction(1, 200)
    a = LY.accrue(LY.AccrualRule("theo", 50, "zone", "PIT"), handle, edge, 1_000)
    assert a.theo_milli == 30_000_000 and a.points_milli == 600_000
    # 7 minutes at 50 decisions an hour: handle = 10,000 × 7/60 × 50 = 58,333.33…
    handle, _ = LY.rated_play(10_000, 7, 50, 14_000)
    assert handle == Fraction(175_000, 3)
    assert LY.accrue(COIN_1000, handle, Fraction(14, 1000), 1_000).base_milli == 58_333
    with pytest.raises(ValidationFailed) as e:
        LY.rated_play(10_000, 0, 50, 14_000)
    assert e.value.field == "minutes"
    with pytest.raises(ValidationFailed) as e:
        LY.rated_play(10_000, 10, 50, 1_000_000)
    assert e.value.field == "house_edge_ppm"


def test_points_expire_after_the_idle_period():
    assert not LY.points_expired(T0, T0 + timedelta(days=364, hours=23), 365)
    assert LY.points_expired(T0, T0 + timedelta(days=365), 365)
    assert LY.points_expire_at(T0, 30) == T0 + timedelta(days=30)


def test_redemption_value_and_availability():
    assert LY.redemption_value(250, 10) == 2_500
    LY.check_available(5, 5_999, 0)
    with pytest.raises(LY.InsufficientPoints) as e:
        LY.check_available(6, 5_999, 0)  # 5.999 points are 5 whole points
    assert e.value.field == "points" and e.value.extra["available"] == 5
    with pytest.raises(LY.InsufficientPoints):
        LY.check_available(3, 5_000, 3_000)  # 3 are held by a pending redemption
    for bad in (0, -1, 1.0, True, "3"):
        with pytest.raises(ValidationFailed):
            LY.require_points(bad)


def test_transfer_limits():
    lim = LY.TransferLimits(per_transfer_won=1_000_000, daily_to_machine_won=3_000_000, daily_to_wallet_won=5_000_000)
    LY.check_transfer(lim, "to_machine", 1_000_000, 2_000_000)
    with pytest.raises(LY.TransferAboveLimit) as e:
        LY.check_transfer(lim, "to_machine", 1_000_001, 0)
    assert e.value.status == 422 and e.value.field == "amount"
    with pytest.raises(LY.DailyLimitReached) as e:
        LY.check_transfer(lim, "to_machine", 500_000, 2_600_000)
    assert e.value.status == 409 and e.value.extra["remaining"] == 400_000
    LY.check_transfer(lim, "to_wallet", 1_000_000, 3_500_000)  # each direction has its own daily limit


def test_pin_throttle_after_three_and_block_at_five():
    failures, blocked = 0, False
    history = []
    for _ in range(5):
        failures, blocked = LY.after_pin_failure(failures)
        history.append((failures, blocked))
    assert history == [(1, False), (2, False), (3, False), (4, False), (5, True)]
    assert LY.pin_retry_after(2, T0, T0) == 0
    assert LY.pin_retry_after(3, T0, T0) == LY.PIN_THROTTLE_SECONDS
    assert LY.pin_retry_after(3, T0, T0 + timedelta(seconds=59.5)) == 1
    assert LY.pin_retry_after(3, T0, T0 + timedelta(seconds=60)) == 0
    for bad in ("123", "1234567", "12a4", 1234, None):
        with pytest.raises(ValidationFailed) as e:
            LY.require_pin_format(bad)
        assert e.value.field == "pin"
    assert LY.require_pin_format("0042") == "0042"


def test_card_numbers_carry_a_luhn_digit():
    seq = iter([3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5])
    n = LY.new_card_number(lambda k: next(seq))
    assert n.startswith(LY.CARD_PREFIX) and len(n) == 16
    assert LY.normalize_card_number(f"{n[:4]} {n[4:8]}-{n[8:12]} {n[12:]}") == n
    wrong = n[:-1] + str((int(n[-1]) + 1) % 10)
    with pytest.raises(ValidationFailed) as e:
        LY.normalize_card_number(wrong)
    assert e.value.field == "card_number" and "check digit" in e.value.detail
    assert LY.luhn_check_digit("7992739871") == "3"  # the textbook example
    for bad in ("123", 4111111111111111, None):
        with pytest.raises(ValidationFailed):
            LY.normalize_card_number(bad)


def test_session_meters_are_deltas():
    start = {"coin_in": 100, "coin_out": 50, "jackpot_out": 0, "games_played": 3, "games_won": 1}
    end = {"coin_in": 700, "coin_out": 80, "jackpot_out": 30_000, "games_played": 9, "games_won": 4}
    assert LY.meter_delta(start, end) == {"coin_in": 600, "coin_out": 30, "jackpot_out": 30_000, "games_played": 6,
                                          "games_won": 3}
