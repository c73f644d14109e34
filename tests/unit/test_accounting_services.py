"""Gaming-day accounting's use cases on in-memory fakes (no database): the meter read and the close in order and
exactly once, the figures tied to the postings, the beat's catch-up, a drop count's variances and their
acceptance by a supervisor who did not count."""

from __future__ import annotations

import random
from datetime import date, datetime, timedelta, timezone

import pytest

from slotsys.kernel.gaming_day import GamingDay
from slotsys.accounting.services import AccountingServices
from slotsys.accounting.services.drops import CountCommand
from slotsys.accounting.settings import AccountingSettings
from slotsys.floor.domain.parsheet import par_sheet
from slotsys.floor.games import load_game
from slotsys.kernel.context import Principal
from slotsys.kernel.errors import Conflict, Forbidden, NotFound, ValidationFailed
from slotsys.kernel.idempotency import OnceKey
from tests.fakes.accounting import FakeDayClose, FakeDrops, FakeFloor
from tests.fakes.kernel import FixedClock, fake_context

GD = GamingDay()
D1, D2 = date(2026, 12, 1), date(2026, 12, 2)
AUDITOR = Principal("staff", "auditor", "auditor")
CASHIER = Principal("staff", "cashier", "cashier")
SUPERVISOR = Principal("staff", "supervisor", "supervisor")
SUPERVISOR2 = Principal("staff", "super2", "supervisor")


class Library:
    def par_sheet(self, game_id, variation):
        return par_sheet(load_game(game_id), variation or None)


def _key(name: str) -> OnceKey:
    return OnceKey("staff:test", name, name)


@pytest.fixture
def world():
    clock = FixedClock(GD.bounds(D1)[0] - timedelta(days=3))
    floor = FakeFloor()
    floor.enrol(1, "M1", "MASS", "B1", "dragon_pearl_50", "92", 100, clock.at)
    floor.enrol(2, "M2", "MASS", "B2", "dragon_pearl_50", "92", 100, clock.at)
    ctx = fake_context(clock=clock, day_close=FakeDayClose(), drops=FakeDrops(), day_sources=floor)
    acc = AccountingServices.build(ctx, gaming_day=GD, par_sheets=Library(),
                                   settings=AccountingSettings(flag_min_games=1))
    return ctx, clock, floor, acc


def _play(floor: FakeFloor, day: date, rng: random.Random, games: int = 40) -> int:
    start = GD.bounds(day)[0]
    hold = 0
    for i in range(games):
        mid = 1 + i % 2
        at = start + timedelta(minutes=10 + i)
        bet = 20 * 100  # 20 lines × ₩100
        win = rng.choice([0, 0, 0, 1_000, 2_000, 4_000])
        floor.game(mid, at, lines=20, multiplier=1, bet=bet, win=win)
        hold += bet - win
    floor.bill(1, start + timedelta(minutes=5), 50_000)
    return hold


def test_a_day_is_closed_once_in_order_and_its_figures_tie_to_the_postings(world):
    ctx, clock, floor, acc = world
    days = acc.days
    hold1 = _play(floor, D1, random.Random(1))
    clock.at = GD.bounds(D1)[0] + timedelta(hours=3)
    with pytest.raises(Conflict) as e:  # the day has not ended
        days.close_day(AUDITOR, D1, _key("a"))
    assert e.value.field == "day"
    with pytest.raises(Forbidden):
        days.close_day(CASHIER, D1, _key("b"))
    clock.at = GD.bounds(D2)[1] + timedelta(minutes=5)
    days.read_meters(AUDITOR, D2)  # the floor's first read: D2
    with pytest.raises(Conflict) as e:  # an earlier day can no longer be read
        days.read_meters(AUDITOR, D1)
    assert e.value.field == "day" and "later gaming day" in e.value.detail
    first = days.close_day(AUDITOR, D2, _key("c"))
    assert first.result.newly_closed and first.result.machines == 2
    # D2 was the floor's first close: it counted the machines since their enrolment, D1's play included
    assert first.result.hold == hold1 and first.result.coin_in == 40 * 2_000 and first.result.ties_agree
    rep = days.day_report(AUDITOR, D2)
    assert {e["code"] for m in rep.machines for e in m["exceptions"]} == {"opened_at_enrolment"}
    assert rep.floor["bills_in"] == 50_000 and rep.journal["balanced"] is True
    assert rep.exceptions == []  # read 5 minutes after the day's end: not late
    # idempotent: a replayed key returns the first result; another key returns the day, not newly closed
    assert days.close_day(AUDITOR, D2, _key("c")).replayed
    again = days.close_day(AUDITOR, D2, _key("d")).result
    assert not again.newly_closed and again.closed_at == first.result.closed_at
    assert [r["action"] for r in ctx.uow.repos["audit_log"].rows] == ["gaming_day.close"]


def test_the_beat_reads_at_the_days_end_and_closes_after_the_settle_time(world):
    ctx, clock, floor, acc = world
    days = acc.days
    clock.at = GD.bounds(D1)[0] + timedelta(minutes=3)  # past the settle time (120 s): read and closed at once
    assert days.close_due().model_dump() == {"read": [D1 - timedelta(days=1)], "closed": [D1 - timedelta(days=1)],
                                             "waiting": None}
    hold = _play(floor, D1, random.Random(2))
    end = GD.bounds(D1)[1]
    clock.at = end + timedelta(seconds=5)
    out = days.close_due()
    assert out.read == [D1] and out.closed == [] and "closes at" in out.waiting
    floor.game(1, end + timedelta(seconds=10), lines=20, multiplier=1, bet=2_000, win=0)  # after the read: D2's
    clock.at = end + timedelta(minutes=3)
    out = days.close_due()
    assert out.read == [] and out.closed == [D1]
    rep = days.day_report(SUPERVISOR, D1)
    assert rep.floor["hold"] == hold and rep.ties["agree"] and rep.exceptions == []
    assert all(m["exceptions"] == [] for m in rep.machines)
    assert sum(m["theo_won"] for m in rep.machines) == rep.floor["theo_won"] > 0
    page = days.day_report(SUPERVISOR, D1, limit=1)
    assert [m["asset"] for m in page.machines] == ["M1"] and page.next_cursor
    nxt = days.day_report(SUPERVISOR, D1, limit=1, cursor=page.next_cursor)
    assert [m["asset"] for m in nxt.machines] == ["M2"] and nxt.next_cursor is None
    with pytest.raises(ValidationFailed) as e:
        days.day_report(SUPERVISOR, D1, cursor="@@")
    assert e.value.field == "cursor"
    with pytest.raises(NotFound):
        days.day_report(SUPERVISOR, D2)


def test_a_count_variance_is_accepted_by_a_supervisor_who_did_not_count(world):
    ctx, clock, floor, acc = world
    clock.at = GD.bounds(D1)[0] + timedelta(minutes=1)
    acc.days.close_due()  # D1 − 1: the floor's first close
    _play(floor, D1, random.Random(3))
    clock.at = GD.bounds(D1)[1] + timedelta(minutes=5)
    acc.days.close_due()
    drops = acc.drops
    with pytest.raises(ValidationFailed) as e:
        drops.record_count(CASHIER, CountCommand("M1", D1, "main", {2_000: 1}), _key("x"))
    assert e.value.field == "bills"
    counted = drops.record_count(SUPERVISOR, CountCommand("M1", D1, "main", {10_000: 4}), _key("k")).result
    bills = next(v for v in counted.variances if v.kind == "bills_vs_meter")
    assert (bills.counted, bills.expected, bills.state) == (40_000, 50_000, "open")
    assert drops.record_count(SUPERVISOR, CountCommand("M1", D1, "main", {10_000: 4}), _key("k")).replayed
    with pytest.raises(Conflict):
        drops.record_count(SUPERVISOR, CountCommand("M1", D1, "main", {10_000: 5}), _key("k2"))
    assert [v.id for v in drops.variances(SUPERVISOR, state="open").variances] == [bills.id]
    with pytest.raises(Forbidden):  # the counter may not accept their own count
        drops.accept(SUPERVISOR, bills.id, "jam", _key("a1"))
    refused = [r for r in ctx.uow.repos["audit_log"].rows if r["action"] == "variance.accept"]
    assert refused and refused[-1]["outcome"] == "refused"
    with pytest.raises(ValidationFailed):
        drops.accept(SUPERVISOR2, bills.id, "  ", _key("a2"))
    done = drops.accept(SUPERVISOR2, bills.id, "note jammed in the validator", _key("a3")).result
    assert done.state == "accepted" and done.accepted_by == "super2" and done.difference == -10_000
    with pytest.raises(Conflict):
        drops.accept(SUPERVISOR2, bills.id, "again", _key("a4"))
    assert drops.variances(SUPERVISOR, state="open").variances == []
    with pytest.raises(NotFound):
        drops.accept(SUPERVISOR2, 999, "x", _key("a5"))
    accepted_log = [r for r in ctx.uow.repos["audit_log"].rows if r["action"] == "variance.accept" and
                    r["outcome"] == "done"]
    assert accepted_log[0]["reason"] == "note jammed in the validator"


def test_a_day_before_an_unclosed_day_is_refused_and_a_meter_going_backwards_stops_the_close(world):
    ctx, clock, floor, acc = world
    d0 = D1 - timedelta(days=1)
    clock.at = GD.bounds(D1)[0] + timedelta(minutes=1)
    acc.days.read_meters(None, d0)  # read, not closed
    floor.game(2, GD.bounds(D1)[0] + timedelta(hours=1), lines=20, multiplier=1, bet=2_000, win=0)
    clock.at = GD.bounds(D1)[1] + timedelta(minutes=1)
    with pytest.raises(Conflict) as e:
        acc.days.close_day(AUDITOR, D1, _key("o"))
    assert e.value.field == "day" and f"close gaming day {d0.isoformat()} first" in e.value.detail
    acc.days.close_day(AUDITOR, d0, _key("p"))
    records = ctx.uow.repos["day_close"]
    records.snapshots[d0][2][0].meters["coin_in"] = 10**9  # as if M2's RAM had been cleared since that read
    with pytest.raises(Conflict) as e:
        acc.days.close_day(AUDITOR, D1, _key("q"))
    assert e.value.field == "meters" and e.value.extra["asset"] == "M2" and "backwards" in e.value.detail
    assert records.closed(D1) is None and records.read(D1) is not None  # read, not closed: explained first


@pytest.mark.parametrize("when", [datetime(2026, 12, 1, 20, 59, 59, tzinfo=timezone.utc)])
def test_the_gaming_day_comes_from_the_settings(when):
    from slotsys.kernel.settings import Settings

    s = Settings(database_url="sqlite://", gaming_day_start_hour=6, gaming_day_tz="Asia/Seoul")
    assert GamingDay(s.gaming_day_start_hour, s.gaming_day_tz).day_of(when) == date(2026, 12, 1)
    with pytest.raises(ValueError):
        Settings(database_url="sqlite://", gaming_day_tz="Mars/Olympus")


def test_the_charts_figures_come_from_the_closed_day_its_recall_and_its_filters(world):
    ctx, clock, floor, acc = world
    days = acc.days
    _play(floor, D1, random.Random(3))  # 40 games from 06:10 KST, a minute apart: the first hour
    clock.at = GD.bounds(D1)[1] + timedelta(minutes=5)
    with pytest.raises(NotFound):
        days.coin_in_by_hour(AUDITOR, D1)
    days.close_day(AUDITOR, D1, _key("close"))
    hours = days.coin_in_by_hour(AUDITOR, D1)
    assert len(hours) == 24 and [h.coin_in for h in hours[:2]] == [40 * 2_000, 0]
    figures = days.day_report(AUDITOR, D1).floor
    assert sum(h.coin_in for h in hours) == figures["coin_in"] and sum(h.games for h in hours) == 40
    only = days.coin_in_by_hour(SUPERVISOR, D1, bank="B2")
    assert sum(h.coin_in for h in only) == 20 * 2_000
    points, k = days.hold_chart(AUDITOR, D1)
    assert [p.asset for p in points] == ["M1", "M2"] and k == 3
    assert all(p.low is not None and p.low < p.expected < p.high for p in points)
    with pytest.raises(Forbidden):
        days.hold_chart(CASHIER, D1)
    with pytest.raises(NotFound) as e:
        days.jackpot_history(AUDITOR, D1, "MINOR")  # this floor has no jackpot level's account
    assert e.value.field == "level"


def test_the_closed_days_newest_first_in_pages(world):
    ctx, clock, floor, acc = world
    days = acc.days
    assert days.closed_days(AUDITOR).days == []
    clock.at = GD.bounds(D2)[1] + timedelta(minutes=5)
    days.close_day(AUDITOR, D1, _key("d1"))
    days.close_day(AUDITOR, D2, _key("d2"))
    page = days.closed_days(SUPERVISOR, limit=1)
    assert [d.day for d in page.days] == [D2] and page.days[0].label == GD.describe(D2) and page.next_cursor
    rest = days.closed_days(AUDITOR, cursor=page.next_cursor, limit=1)
    assert [d.day for d in rest.days] == [D1] and rest.next_cursor is None
    with pytest.raises(ValidationFailed):
        days.closed_days(AUDITOR, limit=0)
    with pytest.raises(Forbidden):
        days.closed_days(CASHIER)
