"""Mahjong on PostgreSQL: concurrent scoring of the same hand — many requests with the same Idempotency-Key
and many with different keys for the same hand number — settle it exactly once (the table row lock, the
hand-number check and the unique (table, number) row); the stacks move once and the ledger balances."""

from __future__ import annotations

import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest

pytestmark = pytest.mark.integration
CODE = "MJ-PG"
MANGAN_OPEN = {"hand": "111234567m99m", "win_tile": "5m", "melds": [{"type": "pon", "tiles": "888m"}]}


def _player(api, fund: int) -> int:
    r = api.as_staff("host", "POST", "/api/v1/players", {"name": f"MJ {uuid.uuid4().hex[:6]}", "pin": "2468"})
    assert r.status_code == 201, r.json
    pid = r.json["player"]
    r = api.as_staff("cashier", "POST", f"/api/v1/players/{pid}/deposit", {"amount": fund})
    assert r.status_code == 200, r.json
    return pid


def _stacks(api) -> dict[str, int]:
    r = api.as_staff("pit", "GET", f"/api/v1/mahjong/tables/{CODE}", key=None)
    return {s["seat"]: s["stack"] for s in r.json["seats"]}


def test_concurrent_scoring_of_one_hand_settles_once(pg_app, pg_api):
    api = pg_api
    r = api.as_staff("pit", "POST", "/api/v1/mahjong/tables",
                     {"code": CODE, "point_value": 10, "fee_ppm": 50_000, "min_buy_in": 100_000,
                      "max_buy_in": 1_000_000}, key=None)
    assert r.status_code == 201, r.json
    pids = {}
    for seat in "ESWN":
        pids[seat] = _player(api, 1_000_000)
        r = api.as_staff("pit", "POST", f"/api/v1/mahjong/tables/{CODE}/seats",
                         {"seat": seat, "player_id": pids[seat], "buy_in": 500_000})
        assert r.status_code == 201, r.json
    token = api.staff_token("pit")
    body = {"number": 1, "winner": "E", "discarder": "S", "dealer": "E", **MANGAN_OPEN}  # dealer mangan ron 12,000
    shared_key = uuid.uuid4().hex

    def post(key: str):
        return pg_app.test_client().post(f"/api/v1/mahjong/tables/{CODE}/hands", json=body,
                                         headers={"Authorization": f"Bearer {token}", "Idempotency-Key": key})

    keys = [shared_key] * 8 + [uuid.uuid4().hex for _ in range(8)]
    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(post, keys))
    assert all(r.status_code in (201, 409) for r in results), [(r.status_code, r.json) for r in results]
    same = [r for k, r in zip(keys, results) if k == shared_key]
    others = [r for k, r in zip(keys, results) if k != shared_key]
    winners = [r for r in results if r.status_code == 201 and r.headers.get("Idempotent-Replayed") != "true"]
    assert len(winners) == 1, [(r.status_code, r.headers.get("Idempotent-Replayed")) for r in results]
    entry = winners[0].json["entry"]
    # every 201 is that one settlement (the first, or its stored reply); every 409 names the hand number
    assert all(r.json["entry"] == entry for r in results if r.status_code == 201)
    assert all(r.json["field"] == "number" for r in results if r.status_code == 409)
    if winners[0] in same:
        assert all(r.status_code == 201 for r in same)
        assert all(r.status_code == 409 for r in others)
    # money moved once: ₩120,000 from S to E, less the 5% fee (₩6,000)
    assert _stacks(api) == {"E": 614_000, "S": 380_000, "W": 500_000, "N": 500_000}
    r = api.as_staff("pit", "GET", f"/api/v1/mahjong/tables/{CODE}/hands", key=None)
    assert [h["number"] for h in r.json["hands"]] == [1]
    audit = api.audit()
    assert audit["balanced"], audit
    # the next hand is 2, and the replay with the shared key still answers with hand 1's settlement
    assert post(shared_key).json["entry"] == entry


def test_table_rules_round_trip_and_nagashi_paid_as_a_draw_on_postgresql(pg_app, pg_api):
    """The table's rule options (JSON on PostgreSQL) read back as sent; the dealer follows renchan from the stored
    hands; a nagashi mangan paid as a draw leaves the pot on the table (one balanced entry)."""
    api = pg_api
    rules = {"rule_set": "riichi", "kiriage": True, "nagashi_payment": "draw", "has_aka_dora": True}
    r = api.as_staff("pit", "POST", "/api/v1/mahjong/tables",
                     {"code": "MJ-PGR", "point_value": 10, "min_buy_in": 100_000, "max_buy_in": 1_000_000,
                      "rules": rules}, key=None)
    assert r.status_code == 201, r.json
    stored = api.as_staff("pit", "GET", "/api/v1/mahjong/tables/MJ-PGR", key=None).json
    assert (stored["rules"]["kiriage"], stored["rules"]["aka_dora"], stored["rules"]["nagashi_payment"]) == \
        (True, True, "draw")
    for seat in "ESWN":
        r = api.as_staff("pit", "POST", "/api/v1/mahjong/tables/MJ-PGR/seats",
                         {"seat": seat, "player_id": _player(api, 1_000_000), "buy_in": 500_000})
        assert r.status_code == 201, r.json
    r = api.as_staff("pit", "POST", "/api/v1/mahjong/tables/MJ-PGR/draws",
                     {"number": 1, "riichi_seats": ["N"], "dealer_tenpai": True})
    assert r.status_code == 201, r.json
    assert api.as_staff("pit", "GET", "/api/v1/mahjong/tables/MJ-PGR", key=None).json["dealer"] == "E"
    # hand 2: S's nagashi mangan, E deals: E 4,000, W and N 2,000 points (₩10 each); the pot's stick stays
    r = api.as_staff("pit", "POST", "/api/v1/mahjong/tables/MJ-PGR/hands",
                     {"number": 2, "winner": "S", "honba": 1, "conditions": ["nagashi_mangan"]})
    assert r.status_code == 201, r.json
    assert r.json["result"]["payments"] == {"dealer": 4000, "non_dealer": 2000}  # no honba: the hand is a draw
    state = api.as_staff("pit", "GET", "/api/v1/mahjong/tables/MJ-PGR", key=None).json
    assert (state["riichi_pot"], state["dealer"]) == (1, "S")
    assert _stacks_of(api, "MJ-PGR") == {"E": 460_000, "S": 580_000, "W": 480_000, "N": 470_000}
    audit = api.audit()
    assert audit["balanced"], audit


def _stacks_of(api, code: str) -> dict[str, int]:
    r = api.as_staff("pit", "GET", f"/api/v1/mahjong/tables/{code}", key=None)
    return {s["seat"]: s["stack"] for s in r.json["seats"]}
