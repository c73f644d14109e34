"""The poker tables' progressive on PostgreSQL (issue 8): concurrent settlement retries of a round with a royal
flush pay it once, while the jackpot sequencer folds (locking every level) at the same time; two royals in one
round share the meter exactly (no milli-won created or lost: meter + awards = contributions + seeds)."""

from __future__ import annotations

import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest

pytestmark = pytest.mark.integration
T = "/api/v1/tables"


def _player(api, fund: int = 1_000_000) -> int:
    r = api.as_staff("host", "POST", "/api/v1/players", {"name": f"P {uuid.uuid4().hex[:6]}", "pin": "2468"})
    assert r.status_code == 201, r.json
    pid = r.json["player"]
    r = api.as_staff("cashier", "POST", f"/api/v1/players/{pid}/deposit", {"amount": fund})
    assert r.status_code == 200, r.json
    return pid


def _cashable(api, pid) -> int:
    return api.as_staff("host", "GET", f"/api/v1/players/{pid}", key=None).json["wallet"]["cashable"]


def _ok(r, status=200):
    assert r.status_code == status, r.json
    return r.json


def _level(api, code) -> dict:
    return _ok(api.as_staff("operator", "GET", f"/api/v1/jackpots/levels/{code}", key=None))


def _round(api, code, bets: list[tuple[int, str, str, int]]) -> int:
    n = _ok(api.as_staff("pit", "POST", f"{T}/{code}/rounds", key=None), 201)["round"]
    for pid, box, spot, amount in bets:
        _ok(api.as_staff("pit", "POST", f"{T}/{code}/rounds/{n}/bets",
                         {"spot": spot, "amount": amount, "player_id": pid, "box": box}), 201)
    _ok(api.as_staff("pit", "POST", f"{T}/{code}/rounds/{n}/no-more-bets", key=None))
    return n


def _books(api) -> dict:
    a = api.audit()
    assert a["balanced"], a
    assert all(j["agrees"] for j in a["jackpots"]), a["jackpots"]
    return a


def _accounted(lv: dict) -> bool:
    """The controller's identity: nothing created or lost, to the milli-won."""
    return (lv["value_milli"] + lv["reserve_milli"] + lv["overflow_milli"] + 1000 * lv["total_won"]
            == lv["contributed_milli"] + 1000 * lv["seeded"])


def test_concurrent_settlement_retries_pay_the_royal_once(pg_app, pg_api):
    api = pg_api
    token = api.staff_token("supervisor")  # a ₩5M royal on dealer-entered cards is settled by a supervisor
    a, b = _player(api), _player(api)
    for seat, pid in (("1", a), ("2", b)):
        _ok(api.as_staff("pit", "POST", f"{T}/CSP-01/seats", {"seat": seat, "player_id": pid}, key=None), 201)
    n = _round(api, "CSP-01", [(a, "1", "ante", 10_000), (a, "1", "progressive", 1_000),
                               (b, "2", "ante", 10_000), (b, "2", "progressive", 1_000)])
    _ok(api.as_staff("pit", "POST", f"{T}/CSP-01/rounds/{n}/deal",
                     {"hands": {"1": ["AS", "KS", "QS", "JS", "TS"], "2": ["2C", "2D", "7H", "9S", "JD"]},
                      "dealer": ["AH", "KD", "8C", "6D", "3S"]}, key=None), 201)
    for box in ("1", "2"):
        _ok(api.as_staff("pit", "POST", f"{T}/CSP-01/rounds/{n}/decisions", {"box": box, "action": "call"}))
    before = _level(api, "CSP_PROG")
    wallets = {a: _cashable(api, a), b: _cashable(api, b)}
    shared_key = uuid.uuid4().hex
    jackpots = pg_app.extensions["slotsys"].jackpots

    def settle(key):
        if key == "fold":  # the sequencer locks every level row meanwhile
            return jackpots.fold_all()
        return pg_app.test_client().post(f"{T}/CSP-01/rounds/{n}/settle", json={},
                                         headers={"Authorization": f"Bearer {token}", "Idempotency-Key": key})

    jobs = [shared_key] * 4 + [uuid.uuid4().hex for _ in range(4)] + ["fold"] * 2
    with ThreadPoolExecutor(max_workers=8) as pool:
        results = [r for r in pool.map(settle, jobs) if not isinstance(r, int)]
    statuses = sorted(r.status_code for r in results)
    assert all(s in (200, 409) for s in statuses), [r.json for r in results if r.status_code not in (200, 409)]
    ok = [r for r in results if r.status_code == 200]
    assert ok and all(r.json == ok[0].json for r in ok)  # the first response, replayed under its key
    assert statuses.count(409) >= 4  # the other keys find the round settled
    body = ok[0].json
    meter = before["value"] + 500  # two ₩1,000 stakes at 25%
    assert [(x["box"], x["hand"], x["amount"]) for x in body["progressive"]["awards"]] == [("1", "royal_flush", meter)]
    after = _level(api, "CSP_PROG")
    assert after["hits"] == before["hits"] + 1 and after["cycle"] == before["cycle"] + 1
    assert after["value"] == after["reset"] == 5_000_000 and after["total_won"] == before["total_won"] + meter
    # A: ante 1:1 + call 100:1 + the meter, once; B: pair of twos beats A-K high: ante 1:1, call 1:1
    assert _cashable(api, a) == wallets[a] + 20_000 + 20_000 + 2_000_000 + meter
    assert _cashable(api, b) == wallets[b] + 20_000 + 40_000
    events = api.as_staff("auditor", "GET", "/api/v1/jackpots/events?level=CSP_PROG", key=None).json["events"]
    assert sum(e["kind"] == "table_award" for e in events) == 1
    assert _accounted(after)
    _books(api)


def test_two_royals_in_one_round_share_the_meter_exactly(pg_app, pg_api):
    api = pg_api
    # a table level whose contributions leave sub-won parts: 33.3333% of a ₩1,000 stake = ₩333.333
    r = api.as_staff("operator", "POST", "/api/v1/jackpots/levels",
                     {"code": "CSP_SHARE", "name": "Shared royal", "kind": "table", "reset": 1_000_001,
                      "ceiling": 100_000_000, "rate_ppm": 333_333, "reserve_rate_ppm": 10_000})
    assert r.status_code == 201, r.json
    _ok(api.as_staff("operator", "POST", T, {"code": "CSP-S", "game": "caribbean_stud",
                                             "progressive_level": "CSP_SHARE"}), 201)
    players = [_player(api) for _ in range(3)]
    for i, pid in enumerate(players, 1):
        _ok(api.as_staff("pit", "POST", f"{T}/CSP-S/seats", {"seat": str(i), "player_id": pid}, key=None), 201)
    stakes = [(pid, str(i), spot, amt) for i, pid in enumerate(players, 1)
              for spot, amt in (("ante", 10_000), ("progressive", 1_000))]
    # a few rounds without a qualifying hand grow the meter (everybody folds: the antes are lost)
    for _ in range(3):
        n = _round(api, "CSP-S", stakes)
        _ok(api.as_staff("pit", "POST", f"{T}/CSP-S/rounds/{n}/deal", {}, key=None), 201)
        for box in ("1", "2", "3"):
            _ok(api.as_staff("pit", "POST", f"{T}/CSP-S/rounds/{n}/decisions", {"box": box, "action": "fold"}))
        _ok(api.as_staff("pit", "POST", f"{T}/CSP-S/rounds/{n}/settle", {}))
    grown = _level(api, "CSP_SHARE")
    assert grown["value_milli"] == 1_000_001_000 + 9 * 333_333 and grown["hits"] == 0
    wallets = {pid: _cashable(api, pid) for pid in players}
    # two royal flushes and a pair in one round
    n = _round(api, "CSP-S", stakes)
    _ok(api.as_staff("pit", "POST", f"{T}/CSP-S/rounds/{n}/deal",
                     {"hands": {"1": ["AS", "KS", "QS", "JS", "TS"], "2": ["AH", "KH", "QH", "JH", "TH"],
                                "3": ["2C", "2D", "7C", "9S", "JD"]},
                      "dealer": ["AC", "KD", "8C", "6D", "3S"]}, key=None), 201)
    for box in ("1", "2", "3"):
        _ok(api.as_staff("pit", "POST", f"{T}/CSP-S/rounds/{n}/decisions", {"box": box, "action": "call"}))
    s = _ok(api.as_staff("supervisor", "POST", f"{T}/CSP-S/rounds/{n}/settle", {}))  # verified awards
    meter_milli = grown["value_milli"] + 3 * 333_333  # this round's contributions come first
    share = meter_milli // 1000 // 2
    awards = s["progressive"]["awards"]
    assert [(x["box"], x["hand"], x["amount"], x["shared_by"]) for x in awards] == [
        ("1", "royal_flush", share, 2), ("2", "royal_flush", share, 2)]
    after = _level(api, "CSP_SHARE")
    # what the two shares leave (the odd won and the sub-won milli) carries over onto the new seed
    assert after["value_milli"] == 1_000_001_000 + meter_milli - 2 * share * 1000
    assert after["cycle"] == 2 and after["hits"] == 2 and after["total_won"] == 2 * share
    # the reset was funded from the reserve first (1% of each stake), the house seed for the rest
    assert after["reserve_milli"] == 12 * 10_000 - 1000 * (12 * 10_000 // 1000)
    assert after["seeded"] == 1_000_001 + 1_000_001 - 12 * 10_000 // 1000
    assert _accounted(after) and _accounted(grown)
    for pid in players[:2]:
        assert _cashable(api, pid) == wallets[pid] - 11_000 - 20_000 + 20_000 + 20_000 + 2_000_000 + share
    rp = _ok(api.as_staff("auditor", "GET", f"{T}/CSP-S/rounds/{n}/replay", key=None))
    assert rp["matches"] and rp["deal_matches"] and rp["progressive_matches"]
    _books(api)
