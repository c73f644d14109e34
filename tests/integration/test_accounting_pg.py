"""The gaming-day close on the real PostgreSQL: auditors closing the same day at once close it once (one meter
read, one closed day, one audit entry; the others get the day as it was), while machines go on playing; the
meter read's lock makes every machine's meters tie to its ledger postings exactly, even for games played
during the read."""

from __future__ import annotations

import threading
import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta, timezone

import pytest
import sqlalchemy as sa
import time_machine

from slotsys.kernel.gaming_day import GamingDay

pytestmark = pytest.mark.integration

GD = GamingDay(6, "Asia/Seoul")
PLAYERS = [f"M{n:03d}" for n in range(1, 21, 2)]  # the line games of the demo floor


def _post(client, token, path, body=None):
    return client.post(path, json=body, headers={"Authorization": f"Bearer {token}",
                                                 "Idempotency-Key": uuid.uuid4().hex})


def _count(app, sql: str) -> int:
    with app.extensions["slotsys"].uow.engine.connect() as c:
        return int(c.execute(sa.text(sql)).scalar_one())


def test_a_day_closed_by_several_auditors_at_once_closes_once_while_machines_play(pg_app, pg_api):
    api = pg_api
    day = GD.day_of(datetime.now(timezone.utc)) + timedelta(days=1)
    with time_machine.travel(GD.bounds(day)[0] + timedelta(hours=2), tick=True) as traveller:
        api._tokens.clear()
        for asset in PLAYERS:
            assert api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/bill-in", {"amount": 50_000}).status_code == 200
            for _ in range(3):
                r = api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/spin", {"lines": 1, "multiplier": 1})
                assert r.status_code == 200, r.json
        traveller.move_to(GD.bounds(day)[1] + timedelta(seconds=30))
        api._tokens.clear()
        auditor, admin = api.staff_token("auditor"), api.staff_token("admin")
        keys = {a: api.key(a) for a in PLAYERS}
        stop = threading.Event()

        def close(i: int):
            return _post(pg_app.test_client(), auditor if i % 2 else admin, f"/api/v1/accounting/days/{day}/close")

        def play(asset: str) -> int:  # games of the next gaming day, some of them during the meter read
            c, n = pg_app.test_client(), 0
            while not stop.is_set() and n < 40:
                r = _post(c, keys[asset], f"/api/v1/machines/{asset}/spin", {"lines": 1, "multiplier": 1})
                assert r.status_code in (200, 409), r.json  # 409: out of credits
                n += r.status_code == 200
            return n

        with ThreadPoolExecutor(max_workers=len(PLAYERS)) as players, ThreadPoolExecutor(max_workers=6) as closers:
            games = [players.submit(play, a) for a in PLAYERS]
            results = list(closers.map(close, range(6)))
            stop.set()
            played = sum(g.result() for g in games)
        statuses = sorted(r.status_code for r in results)
        assert statuses == [200] * 5 + [201], [(r.status_code, r.json) for r in results]
        bodies = [r.json for r in results]
        assert sum(b["newly_closed"] for b in bodies) == 1
        assert len({(b["closed_at"], b["read_at"], b["coin_in"], b["hold"]) for b in bodies}) == 1
        assert played > 0
        assert _count(pg_app, "SELECT count(*) FROM closed_gaming_days") == 1
        assert _count(pg_app, "SELECT count(*) FROM day_meter_reads") == 1
        assert _count(pg_app, "SELECT count(*) FROM day_meter_snapshots") == 30
        assert _count(pg_app, "SELECT count(*) FROM closed_day_machines") == 30
        assert _count(pg_app, "SELECT count(*) FROM audit_log WHERE action = 'gaming_day.close'") == 1

        rep = api.as_staff("auditor", "GET", f"/api/v1/accounting/days/{day}?limit=500", key=None)
        assert rep.status_code == 200, rep.json
        # games played between the day's end and the read count in the day, on the meters and the ledger alike
        assert rep.json["ties"]["agree"], rep.json["ties"]
        assert rep.json["floor"]["games_played"] >= 30 and rep.json["journal"]["balanced"]
        assert sum(m["coin_in"] for m in rep.json["machines"]) == rep.json["floor"]["coin_in"]


def test_the_charts_queries_on_postgresql_tie_the_hours_to_the_closed_days_coin_in(pg_app, pg_api):
    """The charts' reads (the recall's rounds by time, a ledger account's movements by entry, a level's hits) on
    PostgreSQL: the hours of a closed day sum to its coin-in, the staircase ends at the ledger's balance."""
    from slotsys.kernel.context import Principal

    api = pg_api
    day = GD.day_of(datetime.now(timezone.utc)) + timedelta(days=1)
    start, end = GD.bounds(day)
    with time_machine.travel(start + timedelta(minutes=20), tick=True) as traveller:
        api._tokens.clear()
        for i, asset in enumerate(PLAYERS[:3]):
            traveller.move_to(start + timedelta(hours=3 * i, minutes=20))
            assert api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/bill-in", {"amount": 50_000}).status_code == 200
            for _ in range(2):
                assert api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/spin",
                                      {"lines": 1, "multiplier": 1}).status_code == 200
        traveller.move_to(end + timedelta(seconds=30))
        api._tokens.clear()
        r = api.as_staff("auditor", "POST", f"/api/v1/accounting/days/{day}/close")
        assert r.status_code in (200, 201), r.json
    days = pg_app.extensions["slotsys"].accounting.days
    auditor = Principal("staff", "auditor", "auditor")
    report = days.day_report(auditor, day, limit=500)
    hours = days.coin_in_by_hour(auditor, day)
    assert sum(h.coin_in for h in hours) == report.floor["coin_in"] > 0
    assert {h.index for h in hours if h.coin_in} <= {0, 3, 6}
    one = days.coin_in_by_hour(auditor, day, machine=PLAYERS[1])
    assert [h.index for h in one if h.coin_in] == [3]
    line = next(x for x in report.liabilities["jackpots"]["lines"] if x["part"] == "liability")
    history = days.jackpot_history(auditor, day, line["level"])
    assert history.steps[0].at == start and history.steps[-1].at == end
    for chart in ("hold.svg", "coin-in.svg", f"jackpot/{line['level']}.svg"):
        r = api.as_staff("auditor", "GET", f"/api/v1/accounting/days/{day}/charts/{chart}?lang=ko", key=None)
        assert r.status_code == 200 and r.mimetype == "image/svg+xml", (chart, r.status_code)
