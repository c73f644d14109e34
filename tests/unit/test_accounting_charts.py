"""The charts' figures (slotsys.accounting.domain.charts): hourly bucketing of a gaming day (24 hours, a DST
day's 23 and 25, the seconds after the end in the last hour), the flag band E[hold] ± k·SD, the jackpot
staircase."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from slotsys.accounting.domain.charts import LevelHit, hold_band, hourly_coin_in, value_history
from slotsys.kernel.gaming_day import GamingDay

SEOUL = GamingDay(6, "Asia/Seoul")
DAY = date(2026, 12, 1)


def test_rounds_fall_in_the_hour_of_the_gaming_day_they_were_played_in():
    start, end = SEOUL.bounds(DAY)  # 2026-11-30 21:00 UTC … 2026-12-01 21:00 UTC
    rounds = [(start, 100, 1), (start + timedelta(minutes=59, seconds=59), 200, 1),
              (start + timedelta(hours=1), 400, 1),
              (start + timedelta(hours=21, minutes=57), 800, 3),  # 03:57 KST on Dec 2: still gaming day Dec 1
              (end - timedelta(seconds=1), 1_600, 1),
              (end + timedelta(seconds=4), 3_200, 1)]  # played before the meter read: counts in the day's last hour
    hours = hourly_coin_in(SEOUL, DAY, rounds)
    assert len(hours) == 24
    assert [h.label for h in hours[:3]] == ["06:00", "07:00", "08:00"] and hours[-1].label == "05:00"
    assert hours[18].label == "00:00" and hours[21].label == "03:00"
    assert (hours[0].coin_in, hours[0].games) == (300, 2)
    assert hours[1].coin_in == 400 and (hours[21].coin_in, hours[21].games) == (800, 3)
    assert hours[23].coin_in == 1_600 + 3_200
    assert sum(h.coin_in for h in hours) == sum(r[1] for r in rounds)
    assert all(h.coin_in == 0 for h in hours if h.index not in (0, 1, 21, 23))
    assert hours[5].start == start + timedelta(hours=5)


def test_a_dst_day_has_23_or_25_hours_and_a_repeated_hour_shows_twice():
    ny = GamingDay(1, "America/New_York")  # 01:00 local: the fall-back hour 01:00-02:00 repeats inside the day
    autumn = hourly_coin_in(ny, date(2026, 11, 1), [])
    assert len(autumn) == 25 and [h.label for h in autumn[:3]] == ["01:00", "01:00", "02:00"]
    spring = hourly_coin_in(ny, date(2026, 3, 8), [])
    assert len(spring) == 23 and [h.label for h in spring[:2]] == ["01:00", "03:00"]


def test_a_round_before_the_day_or_without_a_zone_is_refused():
    start, _ = SEOUL.bounds(DAY)
    with pytest.raises(ValueError, match="before gaming day"):
        hourly_coin_in(SEOUL, DAY, [(start - timedelta(seconds=1), 100, 1)])
    with pytest.raises(ValueError, match="aware"):
        hourly_coin_in(SEOUL, DAY, [(start.replace(tzinfo=None), 100, 1)])


def test_the_band_is_the_expected_hold_plus_minus_k_sd_as_the_flag_rule_reads_it():
    rows = [{"asset": "M001", "hold": 9_000, "theo_won": 8_000, "expected_hold": 8_000.4, "sd_hold": 500.0, "z": 2.0,
             "games_played": 400, "flagged": False},
            {"asset": "M002", "hold": -20_000, "theo_won": 8_000, "expected_hold": 8_000.0, "sd_hold": 5_000.0,
             "z": -5.6, "games_played": 300, "flagged": True},
            {"asset": "M003", "hold": 0, "theo_won": 0, "expected_hold": 0.0, "sd_hold": None, "z": None,
             "games_played": 0, "flagged": False},
            {"asset": "M004", "hold": 700, "theo_won": 50, "expected_hold": 55.0, "sd_hold": 20.0, "z": None,
             "games_played": 12, "flagged": False}]  # unattributed coin-in: no z, so no band
    a, b, c, d = hold_band(rows, 3)
    assert (a.low, a.high) == pytest.approx((6_500.4, 9_500.4)) and not a.outside and a.theo == 8_000
    assert (b.low, b.high) == (-7_000.0, 23_000.0) and b.outside and b.flagged
    assert c.low is c.high is None and not c.outside
    assert d.low is None and d.expected == 55.0
    with pytest.raises(ValueError):
        hold_band(rows, 0)


def test_the_jackpot_staircase_keeps_the_last_value_per_minute_and_ends_at_the_closing_value():
    start, end = SEOUL.bounds(DAY)
    moves = [(start + timedelta(seconds=10), 5), (start + timedelta(seconds=50), 7),  # the same minute: one step
             (start + timedelta(minutes=3), -1_000), (start + timedelta(minutes=3, seconds=1), 300)]
    hit = LevelHit(start + timedelta(minutes=3), 1_012, 1_012)
    h = value_history("MINOR", SEOUL, DAY, 1_000, moves, [hit])
    assert [(s.at - start, s.value) for s in h.steps] == [
        (timedelta(0), 1_000), (timedelta(seconds=50), 1_012), (timedelta(minutes=3, seconds=1), 312),
        (end - start, 312)]
    assert h.hits == [hit]
    assert [s.value for s in value_history("MINOR", SEOUL, DAY, 50, []).steps] == [50, 50]
    with pytest.raises(ValueError):
        value_history("MINOR", SEOUL, DAY, 0, [(end, 1)])
    with pytest.raises(ValueError):
        value_history("MINOR", SEOUL, DAY, 0, [(start + timedelta(hours=2), 1), (start + timedelta(hours=1), 1)])
