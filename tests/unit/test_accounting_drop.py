"""Drop and count (slotsys.accounting.domain.drop): schedule, planted count variances and their acceptance,
cage and kiosk accountability per shift."""

from __future__ import annotations

from datetime import date, datetime, timezone

import pytest

from slotsys.accounting.domain import drop as D
from slotsys.accounting.domain.day_close import close_day
from slotsys.kernel.errors import Conflict, Forbidden, ValidationFailed
from tests.unit.accounting_floor import par, two_day_floor

UTC = timezone.utc
AT = datetime(2026, 12, 2, 23, tzinfo=UTC)


def test_schedule_weekdays_interval_and_period():
    monday_thursday = D.DropRule(frozenset({1, 4}))
    sched = D.DropSchedule(D.DropRule(), {"M2": monday_thursday,
                                          "M3": D.DropRule(every_days=3, anchor=date(2026, 11, 29))})
    tue, wed, thu = date(2026, 12, 1), date(2026, 12, 2), date(2026, 12, 3)
    assert sched.dropped_on(["M1", "M2", "M3"], tue) == ["M1"]
    assert sched.dropped_on(["M1", "M2", "M3"], wed) == ["M1", "M3"]
    assert sched.dropped_on(["M1", "M2", "M3"], thu) == ["M1", "M2"]
    assert sched.period("M1", wed) == (wed, wed)
    assert sched.period("M2", thu) == (date(2026, 12, 1), thu)  # since Monday 2026-11-30
    assert sched.period("M3", wed) == (date(2026, 11, 30), wed)
    assert sched.period("M2", thu, since=date(2026, 12, 2)) == (date(2026, 12, 2), thu)  # enrolled Wednesday
    with pytest.raises(ValueError, match="not a drop day"):
        sched.period("M2", wed)
    with pytest.raises(ValueError):
        D.DropRule(every_days=2)
    with pytest.raises(ValueError):
        D.DropRule(frozenset({0}))


def _count(asset="M1", counter="kim", bills=None, tickets=(), day=date(2026, 12, 1)):
    return D.StackerCount(asset, f"S-{asset}", day, counter, AT, bills if bills is not None else {}, tuple(tickets))


def test_count_validation():
    with pytest.raises(ValidationFailed, match="not a note"):
        _count(bills={2_000: 1})
    with pytest.raises(ValidationFailed):
        _count(bills={1_000: -1})
    with pytest.raises(ValidationFailed, match="twice"):
        _count(tickets=[D.CountedTicket("1", 100), D.CountedTicket("1", 100)])
    with pytest.raises(ValidationFailed):
        _count(counter="")
    c = _count(bills={50_000: 3, 10_000: 2, 1_000: 7})
    assert (c.bills_won, c.notes) == (177_000, 12)  # 150,000 + 20,000 + 7,000
    assert c.to_dict()["notes_50000"] == 3


@pytest.fixture(scope="module")
def day1():
    f, d1, _ = two_day_floor()
    return f, d1, close_day(f.machines.values(), f.day_snapshots(d1), f.day_plays(d1), par)


def test_a_count_that_agrees_is_balanced(day1):
    f, d1, close = day1
    m = close.machine("M2").figures.meters  # ₩60,000 in bills (50,000 + 10,000), one ticket of ₩23,400
    exp = D.expectation("M2", d1, [m], [D.CountedTicket("000111222333444555", 23_400)])
    count = _count("M2", bills={50_000: 1, 10_000: 1}, tickets=[D.CountedTicket("000111222333444555", 23_400)])
    vs = D.count_variances(count, exp)
    assert [v.state for v in vs] == [D.BALANCED] * 3
    with pytest.raises(Conflict):
        vs[0].accept(by="lee", role="supervisor", reason="x", at=AT)


def test_planted_drop_variance_is_open_then_accepted_by_a_supervisor(day1):
    f, d1, close = day1
    m1 = close.machine("M1").figures.meters
    assert (m1["bills_in"], m1["tickets_in"], m1["tickets_in_count"]) == (60_000, 23_400, 1)
    system = [D.CountedTicket("100000000000000001", 23_400)]
    # planted: one ₩10,000 note short, and a stray ticket that was redeemed elsewhere
    count = _count("M1", counter="kim", bills={50_000: 1},
                   tickets=[D.CountedTicket("100000000000000001", 23_400), D.CountedTicket("900000000000000009", 5_000)])
    bills, vs_meter, vs_system = D.count_variances(count, D.expectation("M1", d1, [m1], system))
    assert (bills.kind, bills.counted, bills.expected, bills.difference, bills.state) == \
        ("bills_vs_meter", 50_000, 60_000, -10_000, D.OPEN)
    assert (vs_meter.difference, vs_meter.count_difference, vs_meter.state) == (5_000, 1, D.OPEN)
    assert (vs_system.difference, vs_system.extra, vs_system.missing) == (5_000, ("900000000000000009",), ())

    with pytest.raises(Forbidden, match="counted this"):
        bills.accept(by="kim", role="supervisor", reason="recount", at=AT)
    with pytest.raises(Forbidden, match="may not accept"):
        bills.accept(by="park", role="cashier", reason="recount", at=AT)
    with pytest.raises(ValidationFailed) as e:
        bills.accept(by="lee", role="supervisor", reason="  ", at=AT)
    assert e.value.field == "reason"
    ok = bills.accept(by="lee", role="supervisor", reason="note jammed in the validator; found at the recount", at=AT)
    assert (ok.state, ok.accepted_by, ok.accepted_role, ok.accepted_at) == (D.ACCEPTED, "lee", "supervisor", AT)
    assert ok.difference == -10_000  # accepted, not corrected
    assert bills.state == D.OPEN  # the original is unchanged (the record of the open variance)
    with pytest.raises(Conflict, match="already accepted"):
        ok.accept(by="choi", role="admin", reason="again", at=AT)
    summary = D.variance_summary([ok, vs_meter, vs_system])
    assert summary["open"] == ["tickets_vs_meter:M1", "tickets_vs_system:M1"] and summary["accepted"] == 1
    assert summary["net_difference"] == 0  # −10,000 + 5,000 + 5,000


def test_missing_ticket_against_the_system():
    exp = D.DropExpectation("M1", date(2026, 12, 1), 0, 10_000, 1, (D.CountedTicket("A", 10_000),))
    (_, meter, system) = D.count_variances(_count(), exp)
    assert system.missing == ("A",) and system.difference == -10_000 and meter.count_difference == -1
    with pytest.raises(ValueError):
        D.count_variances(_count(asset="M2"), exp)


def test_cage_and_kiosk_accountability_per_shift():
    day = date(2026, 12, 1)
    rows = [
        D.ShiftAccount("cage", "D1", "day", day, 5_000_000, {"fills": 2_000_000, "chips_sold": 300_000},
                       {"tickets_redeemed": 3_100_000, "handpays": 1_500_000}, 2_700_000, counter="cashier1"),
        D.ShiftAccount("cage", "D2", "day", day, 3_000_000, {}, {"tickets_redeemed": 450_000}, 2_551_000,
                       counter="cashier2"),
        D.ShiftAccount("kiosk", "K1", "day", day, 10_000_000, {}, {"tickets_paid": 1_234_000}, None),
    ]
    acc = D.shift_accountability(rows)
    r = {(x["kind"], x["location"]): x for x in acc["rows"]}
    assert (r[("cage", "D1")]["expected"], r[("cage", "D1")]["variance"], r[("cage", "D1")]["status"]) == \
        (2_700_000, 0, "balanced")
    assert (r[("cage", "D2")]["expected"], r[("cage", "D2")]["variance"], r[("cage", "D2")]["status"]) == \
        (2_550_000, 1_000, "over")
    assert r[("kiosk", "K1")]["status"] == "not_counted" and acc["not_counted"] == ["kiosk:K1:day"]
    assert acc["totals"]["cage"] == {"opening": 8_000_000, "in": 2_300_000, "out": 5_050_000, "expected": 5_250_000,
                                     "counted": 5_251_000, "variance": 1_000}
    assert acc["totals"]["kiosk"]["variance"] == 0 and acc["totals"]["kiosk"]["counted"] == 0
    v = rows[1].as_variance()
    assert (v.kind, v.subject, v.difference, v.state) == ("shift_count", "cage:D2:day", 1_000, D.OPEN)
    with pytest.raises(Forbidden):
        v.accept(by="cashier2", role="supervisor", reason="own", at=AT)
    assert v.accept(by="sup1", role="supervisor", reason="customer change returned", at=AT).state == D.ACCEPTED
    assert rows[0].as_variance().state == D.BALANCED and rows[2].as_variance() is None
    with pytest.raises(ValidationFailed):
        D.ShiftAccount("bar", "X", "day", day, 0, {}, {}, 0)
