"""Players under real concurrency on PostgreSQL: a card-out racing games, transfers racing the
daily limit, redemptions racing the points balance."""

from __future__ import annotations

import threading
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest

from slotsys.players.adapters.tables import PlayerSession
from tests.conftest import Api

pytestmark = pytest.mark.integration
PIN = "2468"


def _enrol(api: Api) -> dict:
    r = api.as_staff("host", "POST", "/api/v1/players", {"name": f"P {uuid.uuid4().hex[:6]}", "pin": PIN})
    assert r.status_code == 201, r.json
    return r.json


def _post(app, token: str, path: str, body=None):
    return app.test_client().post(path, json=body, headers={"Authorization": f"Bearer {token}",
                                                            "Idempotency-Key": uuid.uuid4().hex})


def test_card_out_during_play_ends_the_session_at_a_game_boundary(pg_app, pg_api):
    api, asset = pg_api, "M004"
    p = _enrol(api)
    api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/bill-in", {"amount": 50_000})
    assert api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/card-in", {"card_number": p["card_number"]}).status_code == 201
    key = api.key(asset)
    before = api.as_machine(asset, "GET", f"/api/v1/machines/{asset}/meters", key=None).json["meters"]
    done = []
    ten_done = threading.Event()

    def spin(i):
        r = _post(pg_app, key, f"/api/v1/machines/{asset}/spin", {"reels": 1, "multiplier": 1})  # ₩100
        done.append(i)
        if len(done) >= 10:
            ten_done.set()
        return r

    def card_out():
        ten_done.wait(30)  # while games are still being played
        return _post(pg_app, key, f"/api/v1/machines/{asset}/card-out")

    with ThreadPoolExecutor(max_workers=6) as pool:
        out = pool.submit(card_out)
        spins = list(pool.map(spin, range(60)))
        closed = out.result()
    assert closed.status_code == 200, closed.json
    assert all(r.status_code == 200 for r in spins), [r.json for r in spins if r.status_code != 200]
    carded = [r.json for r in spins if r.json["player"] is not None]
    s = closed.json["session"]
    # every game counted wholly in the session or wholly outside it
    assert s["meters"]["games_played"] == len(carded) and 10 <= len(carded) < 60
    assert s["meters"]["coin_in"] == 100 * len(carded)
    assert s["points_earned_milli"] == sum(g["player"]["points_earned_milli"] for g in carded)
    with pg_app.extensions["slotsys"].uow(readonly=True) as uow:
        row = uow.session.get(PlayerSession, s["session"])
        assert (row.coin_in, row.games_played) == (s["meters"]["coin_in"], len(carded))
    after = api.as_machine(asset, "GET", f"/api/v1/machines/{asset}/meters", key=None).json["meters"]
    assert after["games_played"] - before["games_played"] == 60
    audit = api.audit()
    assert audit["balanced"] and audit["players"]["agrees"], audit["players"]


def test_concurrent_transfers_never_pass_the_daily_limit(pg_app, pg_api):
    api, asset = pg_api, "M006"
    p = _enrol(api)
    assert api.as_staff("cashier", "POST", f"/api/v1/players/{p['player']}/deposit", {"amount": 5_000_000}).status_code == 200
    r = api.as_staff("admin", "PATCH", "/api/v1/players/config/program",
                     {"per_transfer_max_won": 300_000, "daily_to_machine_max_won": 1_000_000}, key=None)
    assert r.status_code == 200
    api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/card-in", {"card_number": p["card_number"]})
    key = api.key(asset)
    body = {"card_number": p["card_number"], "pin": PIN, "amount": 200_000}
    with ThreadPoolExecutor(max_workers=12) as pool:
        results = list(pool.map(lambda _: _post(pg_app, key, f"/api/v1/machines/{asset}/wallet/to-machine", body),
                                range(12)))
    codes = sorted(r.status_code for r in results)
    assert codes == [200] * 5 + [409] * 7, [r.json for r in results]
    assert all(r.json["type"].endswith("daily-limit-reached") for r in results if r.status_code == 409)
    view = api.as_staff("host", "GET", f"/api/v1/players/{p['player']}", key=None).json
    assert view["wallet"]["cashable"] == 4_000_000
    assert api.as_machine(asset, "GET", f"/api/v1/machines/{asset}/meters", key=None).json["credits"] == 1_000_000
    assert api.audit()["balanced"]


def test_concurrent_redemptions_never_spend_more_points_than_there_are(pg_app, pg_api):
    api, asset = pg_api, "M008"
    p = _enrol(api)
    r = api.as_staff("pit", "POST", f"/api/v1/players/{p['player']}/ratings",
                     {"table": "BJ-01", "area": "PIT", "game": "blackjack", "average_bet": 50_000, "minutes": 120,
                      "decisions_per_hour": 60, "house_edge_ppm": 5_000})
    assert r.status_code == 201 and r.json["points"] == 600
    api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/card-in", {"card_number": p["card_number"]})
    key = api.key(asset)
    body = {"card_number": p["card_number"], "pin": PIN, "points": 100, "kind": "cash"}
    with ThreadPoolExecutor(max_workers=10) as pool:
        requests = list(pool.map(lambda _: _post(pg_app, key, f"/api/v1/machines/{asset}/redemptions", body), range(10)))
    ok = [r.json["redemption"] for r in requests if r.status_code == 201]
    assert len(ok) == 6, [r.json for r in requests]
    assert all(r.json["type"].endswith("insufficient-points") for r in requests if r.status_code != 201)
    with ThreadPoolExecutor(max_workers=6) as pool:
        acks = list(pool.map(lambda rid: _post(pg_app, key, f"/api/v1/machines/{asset}/redemptions/{rid}/ack"), ok))
    assert [a.status_code for a in acks] == [200] * 6
    view = api.as_staff("host", "GET", f"/api/v1/players/{p['player']}", key=None).json
    assert view["points"]["balance_milli"] == 0 and view["points"]["held"] == 0
    assert api.as_machine(asset, "GET", f"/api/v1/machines/{asset}/meters", key=None).json["credits"] == 6 * 100 * 5
    audit = api.audit()
    assert audit["balanced"] and audit["players"]["agrees"], audit["players"]
