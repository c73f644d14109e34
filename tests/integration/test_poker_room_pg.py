"""Poker room on PostgreSQL: concurrent identical action requests apply once (same Idempotency-Key → one result
replayed; different keys → the table row lock and ``seq`` let one through), and concurrent buy-ins across tables
never overdraw the wallet; the ledger stays balanced."""

from __future__ import annotations

import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest

pytestmark = pytest.mark.integration
RULES = {"variant": "NL", "seats": 6, "small_blind": 1_000, "big_blind": 2_000, "min_buy_in": 40_000,
         "max_buy_in": 1_000_000}


def _player(api, fund: int) -> int:
    r = api.as_staff("host", "POST", "/api/v1/players", {"name": f"P {uuid.uuid4().hex[:6]}", "pin": "2468"})
    assert r.status_code == 201, r.json
    pid = r.json["player"]
    r = api.as_staff("cashier", "POST", f"/api/v1/players/{pid}/deposit", {"amount": fund})
    assert r.status_code == 200, r.json
    return pid


def _cashable(api, pid) -> int:
    return api.as_staff("host", "GET", f"/api/v1/players/{pid}", key=None).json["wallet"]["cashable"]


def _table(api, code):
    r = api.as_staff("pit", "POST", "/api/v1/poker/tables", {"code": code, "rules": RULES}, key=None)
    assert r.status_code == 201, r.json


def _sit(api, code, seat, pid):
    r = api.as_staff("pit", "POST", f"/api/v1/poker/tables/{code}/seats", {"seat": seat, "player_id": pid}, key=None)
    assert r.status_code == 201, r.json


def _fire(app, token, path, bodies_keys):
    def one(job):
        body, key = job
        return app.test_client().post(path, json=body, headers={"Authorization": f"Bearer {token}",
                                                                "Idempotency-Key": key})

    with ThreadPoolExecutor(max_workers=8) as pool:
        return list(pool.map(one, bodies_keys))


def test_concurrent_identical_actions_apply_once(pg_app, pg_api):
    api = pg_api
    _table(api, "PG-NL")
    pids = [_player(api, 500_000) for _ in range(3)]
    for i, pid in enumerate(pids):
        _sit(api, "PG-NL", i + 1, pid)
        r = api.as_staff("pit", "POST", "/api/v1/poker/tables/PG-NL/buy-in", {"player_id": pid, "amount": 100_000})
        assert r.status_code == 200, r.json
    h = api.as_staff("pit", "POST", "/api/v1/poker/tables/PG-NL/hands", key=None).json
    base = f"/api/v1/poker/tables/PG-NL/hands/{h['hand']}"
    token = api.staff_token("pit")  # the dealer acts for the seat to act

    # 1. eight copies of one request with ONE key: applied once, the others get the stored reply
    seat = h["to_act"]["seat"]
    body = {"action": "raise", "amount": 6_000, "seat": seat, "seq": 0}
    key = uuid.uuid4().hex
    res = _fire(pg_app, token, f"{base}/actions", [(body, key)] * 8)
    assert [r.status_code for r in res] == [200] * 8, [r.json for r in res]
    assert sum(r.headers.get("Idempotent-Replayed") == "true" for r in res) == 7
    assert len({str(r.json) for r in res}) == 1
    view = api.as_staff("pit", "GET", base, key=None).json
    assert view["seq"] == 1 and view["actions"][0].endswith("cbr 6000")

    # 2. eight copies with DIFFERENT keys: one is applied; the rest are refused (stale seq / not that seat's turn)
    seat = view["to_act"]["seat"]
    body = {"action": "call", "seat": seat, "seq": 1}
    res = _fire(pg_app, token, f"{base}/actions", [(body, uuid.uuid4().hex) for _ in range(8)])
    codes = sorted(r.status_code for r in res)
    assert codes.count(200) == 1 and all(c in (409, 422) for c in codes if c != 200), [r.json for r in res]
    view = api.as_staff("pit", "GET", base, key=None).json
    assert view["seq"] == 2
    # without seq, copies still cannot act twice: after the call it is another seat's turn
    seat = view["to_act"]["seat"]
    res = _fire(pg_app, token, f"{base}/actions",
                [({"action": "call", "seat": seat}, uuid.uuid4().hex) for _ in range(8)])
    assert sorted(r.status_code for r in res).count(200) == 1, [r.json for r in res]
    view = api.as_staff("pit", "GET", base, key=None).json
    assert view["seq"] == 3
    while view["status"] == "in_play":
        ta = view["to_act"]
        r = api.as_staff("pit", "POST", f"{base}/actions",
                         {"action": "check" if "check" in ta["actions"] else "call", "seat": ta["seat"],
                          "seq": view["seq"]})
        assert r.status_code == 200, r.json
        view = r.json
    assert sum(view["results"]["net"].values()) == 0 and view["pot"] == 0
    stacks = [s["stack"] for s in api.as_staff("pit", "GET", "/api/v1/poker/tables/PG-NL", key=None).json["seats"]]
    assert sum(stacks) == 300_000
    rp = api.as_staff("auditor", "GET", f"{base}/replay", key=None).json
    assert rp["matches"] is True
    assert api.audit()["balanced"]


def test_concurrent_buy_ins_cannot_overdraw(pg_app, pg_api):
    api = pg_api
    for code in ("PG-A", "PG-B"):
        _table(api, code)
    pid = _player(api, 250_000)  # enough for two buy-ins of 100,000, not three
    _sit(api, "PG-A", 1, pid)
    _sit(api, "PG-B", 1, pid)
    token = api.staff_token("pit")
    jobs = []
    for code in ("PG-A", "PG-B"):
        jobs += [(code, uuid.uuid4().hex) for _ in range(4)]

    def one(job):
        code, key = job
        return pg_app.test_client().post(f"/api/v1/poker/tables/{code}/buy-in",
                                         json={"player_id": pid, "amount": 100_000},
                                         headers={"Authorization": f"Bearer {token}", "Idempotency-Key": key})

    with ThreadPoolExecutor(max_workers=8) as pool:
        res = list(pool.map(one, jobs))
    codes = [r.status_code for r in res]
    assert codes.count(200) == 2 and codes.count(409) == 6, [r.json for r in res]
    assert all(r.json["type"].endswith("insufficient-funds") for r in res if r.status_code == 409)
    assert _cashable(api, pid) == 50_000
    stacks = [api.as_staff("pit", "GET", f"/api/v1/poker/tables/{c}", key=None).json["seats"][0]["stack"]
              for c in ("PG-A", "PG-B")]
    assert sum(stacks) == 200_000
    assert api.audit()["balanced"]
