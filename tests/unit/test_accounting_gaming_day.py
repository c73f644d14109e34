"""The gaming day (slotsys.kernel.gaming_day): 06:00 KST edges, DST zones, the display format."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta, timezone
from zoneinfo import ZoneInfoNotFoundError

import pytest

from slotsys.kernel.gaming_day import GamingDay

UTC = timezone.utc
KST = GamingDay()  # default: 06:00 Asia/Seoul


def kst(y, m, d, hh, mm=0, ss=0) -> datetime:
    return datetime(y, m, d, hh, mm, ss, tzinfo=KST.tz)


def test_default_policy_is_0600_seoul():
    assert (KST.start_hour, KST.zone, KST.start_minute) == (6, "Asia/Seoul", 0)


def test_0559_59_belongs_to_the_previous_day_and_0600_to_the_new_one():
    assert KST.day_of(kst(2026, 12, 2, 5, 59, 59)) == date(2026, 12, 1)
    assert KST.day_of(kst(2026, 12, 2, 6, 0, 0)) == date(2026, 12, 2)
    assert KST.day_of(kst(2026, 12, 2, 6, 0, 0) - timedelta(microseconds=1)) == date(2026, 12, 1)


def test_play_at_0357_kst_is_the_previous_gaming_day():
    played = datetime(2026, 12, 1, 18, 57, tzinfo=UTC)  # 2026-12-02 03:57 KST
    assert KST.format(played) == "2026-12-02 03:57:00 KST"
    assert KST.day_of(played) == date(2026, 12, 1)


def test_bounds_are_half_open_utc_and_contain_exactly_their_instants():
    start, end = KST.bounds(date(2026, 12, 1))
    assert (start, end) == (datetime(2026, 11, 30, 21, tzinfo=UTC), datetime(2026, 12, 1, 21, tzinfo=UTC))
    assert start.tzinfo is UTC and end.tzinfo is UTC
    assert KST.contains(date(2026, 12, 1), start)
    assert not KST.contains(date(2026, 12, 1), end)
    assert KST.contains(date(2026, 12, 2), end)
    assert KST.hours(date(2026, 12, 1)) == 24


def test_naive_datetimes_are_refused():
    with pytest.raises(ValueError, match="naive"):
        KST.day_of(datetime(2026, 12, 2, 3, 57))
    with pytest.raises(ValueError, match="naive"):
        KST.format(datetime(2026, 12, 2, 3, 57))


def test_display_format_labels_the_zone():
    assert KST.format(datetime(2026, 12, 1, 18, 50, 48, tzinfo=UTC)) == "2026-12-02 03:50:48 KST"
    assert KST.describe(date(2026, 12, 1)) == \
        "2026-12-01 (2026-12-01 06:00:00 KST – 2026-12-02 06:00:00 KST)"


# ------------------------------------------------------------------ DST (America/New_York)
NY = GamingDay(6, "America/New_York")


def test_dst_days_are_23_and_25_hours_with_the_day_starting_at_local_0600():
    # The clocks change at 02:00, inside the gaming day that started at 06:00 the calendar day before.
    assert NY.hours(date(2026, 3, 7)) == 23  # spring forward on 2026-03-08: 02:00 EST → 03:00 EDT
    assert NY.hours(date(2026, 10, 31)) == 25  # fall back on 2026-11-01: 02:00 EDT → 01:00 EST
    assert NY.hours(date(2026, 3, 8)) == NY.hours(date(2026, 11, 1)) == 24
    assert NY.bounds(date(2026, 3, 7)) == (datetime(2026, 3, 7, 11, tzinfo=UTC), datetime(2026, 3, 8, 10, tzinfo=UTC))
    assert NY.format(NY.bounds(date(2026, 3, 7))[0]) == "2026-03-07 06:00:00 EST"
    assert NY.format(NY.bounds(date(2026, 3, 7))[1]) == "2026-03-08 06:00:00 EDT"
    assert NY.day_of(datetime(2026, 3, 8, 9, 59, 59, tzinfo=UTC)) == date(2026, 3, 7)  # 05:59:59 EDT
    assert NY.day_of(datetime(2026, 3, 8, 10, tzinfo=UTC)) == date(2026, 3, 8)  # 06:00:00 EDT


def test_every_instant_of_a_dst_week_has_exactly_one_gaming_day_and_days_never_go_back():
    t = datetime(2026, 10, 30, tzinfo=UTC)
    last = None
    while t < datetime(2026, 11, 4, tzinfo=UTC):
        day = NY.day_of(t)
        start, end = NY.bounds(day)
        assert start <= t < end
        assert last is None or day >= last
        last = day
        t += timedelta(minutes=7)


def test_start_time_in_a_spring_forward_gap_starts_the_day_at_the_transition():
    g = GamingDay(2, "America/New_York", 30)  # 02:30 does not exist on 2026-03-08
    start = g.bounds(date(2026, 3, 8))[0]
    assert start == datetime(2026, 3, 8, 7, tzinfo=UTC)
    assert g.format(start) == "2026-03-08 03:00:00 EDT"
    assert g.day_of(start - timedelta(seconds=1)) == date(2026, 3, 7)  # 01:59:59 EST
    assert g.day_of(start) == date(2026, 3, 8)
    assert g.hours(date(2026, 3, 7)) == g.hours(date(2026, 3, 8)) == 23.5


def test_start_time_in_a_fall_back_overlap_starts_at_its_first_occurrence():
    g = GamingDay(1, "America/New_York", 30)  # 01:30 happens twice on 2026-11-01
    start, end = g.bounds(date(2026, 11, 1))
    assert g.format(start) == "2026-11-01 01:30:00 EDT"
    assert g.format(end) == "2026-11-02 01:30:00 EST"
    second = start + timedelta(hours=1)  # 01:30 EST, the repeated wall time
    assert g.format(second) == "2026-11-01 01:30:00 EST"
    assert g.day_of(second - timedelta(minutes=20)) == date(2026, 11, 1)  # 01:10 EST: still the same day
    assert g.hours(date(2026, 11, 1)) == 25


def test_shifts_tile_the_day():
    shifts = KST.shifts(date(2026, 12, 1))
    assert [s.name for s in shifts] == ["day", "swing", "grave"]
    assert shifts[0].start == KST.bounds(date(2026, 12, 1))[0] and shifts[-1].end == KST.bounds(date(2026, 12, 1))[1]
    assert all(a.end == b.start for a, b in zip(shifts, shifts[1:]))
    assert KST.format(shifts[2].start) == "2026-12-01 22:00:00 KST"
    with pytest.raises(ValueError):
        KST.shifts(date(2026, 12, 1), (("late", time(7)),))
    ny = NY.shifts(date(2026, 10, 31))
    assert sum((s.end - s.start).total_seconds() for s in ny) == 25 * 3600


def test_policy_validation():
    with pytest.raises(ValueError):
        GamingDay(24)
    with pytest.raises(ZoneInfoNotFoundError):
        GamingDay(6, "Mars/Olympus_Mons")


def test_the_shifts_follow_the_start_hour_of_the_day():
    """Any start hour (a setting): three eight-hour shifts from it, the last ending with the day."""
    one = GamingDay(1, "Asia/Seoul")
    names = [(s.name, s.start.astimezone(one.tz).strftime("%H:%M")) for s in one.shifts(date(2026, 12, 2))]
    assert names == [("day", "01:00"), ("swing", "09:00"), ("grave", "17:00")]
    assert one.shifts(date(2026, 12, 2))[-1].end == one.bounds(date(2026, 12, 2))[1]
    half = GamingDay(18, "UTC", start_minute=30)
    assert [s.start.strftime("%H:%M") for s in half.shifts(date(2026, 12, 2))] == ["18:30", "02:30", "10:30"]
    assert [x for x, _ in KST.default_shifts()] == ["day", "swing", "grave"]
    assert [t.hour for _, t in KST.default_shifts()] == [6, 14, 22]
