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
