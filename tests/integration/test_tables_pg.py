"""Table games on PostgreSQL: concurrent bets from several players on one round — the table limits
hold (the table row lock serialises a table's bets), wallets never overdraw, and the ledger balances."""

from __future__ import annotations

import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest

pytestmark = pytest.mark.integration
CODE = "BAC-01"


def _player(api, fund: int) -> int:
    r = api.as_staff("host", "POST", "/api/v1/players", {"name": f"T {uuid.uuid4().hex[:6]}", "pin": "2468"})
    assert r.status_code == 201, r.json
    pid = r.json["player"]
    r = api.as_staff("cashier", "POST", f"/api/v1/players/{pid}/deposit", {"amount": fund})
    assert r.status_code == 200, r.json
    return pid


def _cashable(api, pid) -> int:
    return api.as_staff("host", "GET", f"/api/v1/players/{pid}", key=None).json["wallet"]["cashable"]


def test_concurrent_bets_on_one_round_hold_the_limits(pg_app, pg_api):
    api = pg_api
    token = api.staff_token("pit")
    funds = [5_000_000] * 5 + [2_500_000]  # the last player can afford only two of the ₩1,000,000 bets
    pids = [_player(api, f) for f in funds]
    for i, pid in enumerate(pids):
        r = api.as_staff("pit", "POST", f"/api/v1/tables/{CODE}/seats", {"seat": str(i + 1), "player_id": pid}, key=None)
        assert r.status_code == 201, r.json
    r = api.as_staff("pit", "POST", f"/api/v1/tables/{CODE}/rounds", key=None)
    n = r.json["round"]

    def place(job):
        pid, spot, amount = job
        return pg_app.test_client().post(
            f"/api/v1/tables/{CODE}/rounds/{n}/bets", json={"spot": spot, "amount": amount, "player_id": pid},
            headers={"Authorization": f"Bearer {token}", "Idempotency-Key": uuid.uuid4().hex})

    # each player fires five ₩1,000,000 banker bets (the banker maximum is ₩3,000,000 per player)
    # and two ₩200,000 tie bets (tie ₩300,000 per player, shared: total ≤ ₩300,000 × players in the game)
    jobs = [(pid, "banker", 1_000_000) for pid in pids for _ in range(5)]
    jobs += [(pid, "tie", 200_000) for pid in pids for _ in range(2)]
    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(place, jobs))
    assert all(r.status_code in (201, 409, 422) for r in results), [r.json for r in results if r.status_code >= 500]
    rec = api.as_staff("pit", "GET", f"/api/v1/tables/{CODE}/rounds/{n}", key=None).json
    by_player: dict[int, int] = {}
    for b in rec["bets"]:
        if b["spot"] == "banker":
            by_player[b["player_id"]] = by_player.get(b["player_id"], 0) + b["amount"]
    assert all(v <= 3_000_000 for v in by_player.values()), by_player
    assert all(by_player.get(p) == 3_000_000 for p in pids[:5]), by_player  # refused only over the limit
    assert by_player.get(pids[5]) == 2_000_000, by_player  # the third would overdraw the wallet
    statuses = [r.status_code for r in results]
    assert statuses.count(422) >= 10 and statuses.count(409) >= 3, statuses  # over the maximum / insufficient funds
    tie_total = sum(b["amount"] for b in rec["bets"] if b["spot"] == "tie")
    participants = {b["player_id"] for b in rec["bets"]}
    assert tie_total <= 300_000 * len(participants)
    staked = sum(b["amount"] for b in rec["bets"])
    assert api.as_staff("pit", "GET", f"/api/v1/tables/{CODE}", key=None).json["bets_in_play"] == staked
    for pid, fund in zip(pids, funds):
        mine = sum(b["amount"] for b in rec["bets"] if b["player_id"] == pid)
        assert _cashable(api, pid) == fund - mine >= 0
    assert api.audit()["balanced"]

    assert api.as_staff("pit", "POST", f"/api/v1/tables/{CODE}/rounds/{n}/no-more-bets", key=None).status_code == 200
    late = place((pids[0], "player", 10_000))
    assert late.status_code == 409
    s = api.as_staff("pit", "POST", f"/api/v1/tables/{CODE}/rounds/{n}/settle", {})
    assert s.status_code == 200, s.json
    payouts = s.json["payouts"]
    for pid, fund in zip(pids, funds):
        mine = sum(b["amount"] for b in rec["bets"] if b["player_id"] == pid)
        assert _cashable(api, pid) == fund - mine + payouts.get(str(pid), 0)
    assert s.json["house_net"] == staked - sum(payouts.values())
    assert api.as_staff("pit", "GET", f"/api/v1/tables/{CODE}", key=None).json["bets_in_play"] == 0
    rp = api.as_staff("auditor", "GET", f"/api/v1/tables/{CODE}/rounds/{n}/replay", key=None).json
    assert rp["matches"]
    assert api.audit()["balanced"]
