"""Floor administration on the real PostgreSQL: a machine enrolled through the API is played (the write-behind
spin), moved into another zone (the jackpot controller's zone history), re-gamed, switched to machine-reported
play (it decides its own games and reports them; its meters reconcile with the system's) and retired, with the
ledger audit balanced and every step in the audit log; concurrent enrolments of one asset number, or into one
floor-plan cell, enrol one machine and refuse the rest with a 409 naming the field (never a 500)."""

from __future__ import annotations

import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest
import sqlalchemy as sa

from slotsys.floor.domain.evaluator import SeededRng
from slotsys.floor.domain.evaluator import spin as play
from slotsys.floor.games import load_game

pytestmark = pytest.mark.integration

ENROL = {"asset_number": "P001", "bank": "M4", "game": "dragon_pearl_50", "denomination": 100,
         "denominations": [100, 200], "x": 9, "y": 0, "serial": "PG-1", "reason": "integration"}


def _post(client, token, path, body=None):
    return client.post(path, json=body, headers={"Authorization": f"Bearer {token}", "Idempotency-Key": uuid.uuid4().hex})


def test_enrol_play_move_regame_and_retire_with_the_books_balanced(pg_app, pg_api):
    api = pg_api
    r = api.as_staff("operator", "POST", "/api/v1/machines", ENROL)
    assert r.status_code == 201, r.json
    key = r.json["key"]
    c = pg_app.test_client()
    assert _post(c, key, "/api/v1/machines/P001/bill-in", {"amount": 50_000}).status_code == 200
    for _ in range(10):
        s = _post(c, key, "/api/v1/machines/P001/spin", {"lines": 10, "multiplier": 1})
        assert s.status_code == 200 and s.json["game"] == "dragon_pearl_50", s.json

    r = api.as_staff("operator", "POST", "/api/v1/machines/P001/move", {"bank": "V2", "x": 9, "y": 2, "reason": "VIP"})
    assert r.status_code == 200 and r.json["zone"] == "VIP", r.json
    with pg_app.extensions["slotsys"].uow.engine.connect() as conn:
        zones = conn.execute(sa.text("SELECT z.zone FROM jackpot_zone_moves z JOIN machines m ON m.id = z.machine_id "
                                     "WHERE m.asset_number = 'P001' ORDER BY z.id")).scalars().all()
    assert zones == ["MASS", "VIP"]  # its history: each level takes the move at its next reset
    s = _post(c, key, "/api/v1/machines/P001/spin", {"lines": 10, "multiplier": 1})
    assert s.status_code == 200, s.json

    r = api.as_staff("operator", "POST", "/api/v1/machines/P001/game",
                     {"game": "tiger_reels_243", "denomination": 200, "reason": "new title"})
    assert r.status_code == 409 and r.json["field"] == "credits", r.json
    assert _post(c, key, "/api/v1/machines/P001/cash-out").status_code == 201
    r = api.as_staff("operator", "POST", "/api/v1/machines/P001/game",
                     {"game": "tiger_reels_243", "denomination": 200, "reason": "new title"})
    assert r.status_code == 200 and r.json["denomination"] == 200, r.json
    assert _post(c, key, "/api/v1/machines/P001/bill-in", {"amount": 10_000}).status_code == 200
    s = _post(c, key, "/api/v1/machines/P001/spin", {"reels": 3, "multiplier": 1})
    assert s.status_code == 200 and s.json["bet"]["won"] == 7 * 200, s.json
    assert _post(c, key, "/api/v1/machines/P001/cash-out").status_code == 201

    # machine-reported play: the machine decides (its own RNG, the catalogue game) and reports; the host accounts
    r = api.as_staff("operator", "PATCH", "/api/v1/machines/P001", {"outcome_source": "machine", "reason": "SAS SMIB"})
    assert r.status_code == 200 and r.json["outcome_source"] == "machine", r.json
    assert _post(c, key, "/api/v1/machines/P001/spin", {"reels": 3, "multiplier": 1}).status_code == 409
    assert _post(c, key, "/api/v1/machines/P001/bill-in", {"amount": 50_000}).status_code == 200
    game = load_game("tiger_reels_243")
    option, rng = game.resolve_bet(reels=3, multiplier=1), SeededRng(11)
    for number in (13, 14, 15):  # the machine's game numbers go on from the 12 games the service decided
        meters = c.get("/api/v1/machines/P001/meters", headers={"Authorization": f"Bearer {key}"}).json["meters"]
        outcome = play(game, option, rng)
        body = {"game_number": number, "denomination": 200, "bet_credits": option.credits,
                "win_credits": outcome.total_win_credits, "reels": 3, "multiplier": 1, "stops": list(outcome.stops),
                "free_stops": [list(f.stops) for f in outcome.free_games] or None,
                "meters": {"coin_in": meters["coin_in"] + option.credits * 200,
                           "coin_out": meters["coin_out"] + outcome.total_win_credits * 200,
                           "games_played": meters["games_played"] + 1}}
        g = _post(c, key, "/api/v1/machines/P001/games", body)
        assert g.status_code == 200 and g.json["reconciliation"]["balanced"] is True, g.json
    rec = api.as_staff("auditor", "GET", "/api/v1/machines/P001/reconciliation", key=None).json
    assert rec["balanced"] is True and rec["mismatches"] == [], rec
    assert _post(c, key, "/api/v1/machines/P001/cash-out").status_code == 201

    r = api.as_staff("admin", "POST", "/api/v1/machines/P001/retire", {"reason": "end of trial"})
    assert r.status_code == 200 and r.json["final_meters"]["games_played"] == 15, r.json
    assert _post(c, key, "/api/v1/machines/P001/bill-in", {"amount": 10_000}).status_code == 401
    r = api.as_staff("operator", "POST", "/api/v1/machines", {**ENROL, "x": 9, "y": 4})
    assert r.status_code == 409 and r.json["field"] == "asset_number"

    audit = api.audit()
    assert audit["balanced"] is True, audit
    with pg_app.extensions["slotsys"].uow.engine.connect() as conn:
        actions = conn.execute(sa.text("SELECT action || ':' || outcome FROM audit_log WHERE subject = 'machine:P001' "
                                       "ORDER BY id")).scalars().all()
        snaps = conn.execute(sa.text("SELECT kind FROM machine_meter_snapshots s JOIN machines m ON m.id = s.machine_id "
                                     "WHERE m.asset_number = 'P001' ORDER BY s.id")).scalars().all()
    assert actions == ["machine.enrol:done", "machine.move:done", "machine.game_change:refused",
                       "machine.game_change:done", "machine.update:done", "machine.retire:done", "machine.enrol:refused"]
    assert snaps == ["game_change_before", "game_change_after", "retire"]


def test_concurrent_enrolments_enrol_one_machine_and_refuse_the_rest(pg_app, pg_api):
    api = pg_api
    token = api.staff_token("operator")

    def enrol(body):
        return _post(pg_app.test_client(), token, "/api/v1/machines", body)

    with ThreadPoolExecutor(6) as pool:  # one asset number, six cells
        same_asset = list(pool.map(enrol, [{**ENROL, "asset_number": "P100", "x": 20 + i, "y": 20} for i in range(6)]))
        same_cell = list(pool.map(enrol, [{**ENROL, "asset_number": f"P2{i:02d}", "x": 30, "y": 30} for i in range(6)]))
    for results, field in ((same_asset, "asset_number"), (same_cell, "x")):
        statuses = sorted(r.status_code for r in results)
        assert statuses == [201] + [409] * 5, [(r.status_code, r.json) for r in results]
        assert all(r.json["field"] == field for r in results if r.status_code == 409)
    plan = api.as_staff("operator", "GET", "/api/v1/floor/plan", key=None).json
    assert sum(1 for m in plan["machines"] if m["position"] == {"x": 30, "y": 30}) == 1
    assert sum(1 for m in plan["machines"] if m["asset_number"] == "P100") == 1
    assert api.audit()["balanced"] is True
