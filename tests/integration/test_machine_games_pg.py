"""Machine-reported games on the real PostgreSQL (write-behind commit), Redis and a real Celery worker: two
machines in machine mode each report N games while every report is sent three times at once under one
Idempotency-Key (each game is accounted once), a mystery level armed to hit is awarded as a bonus, bad reports
change nothing, the meters reconcile to zero difference and the ledger audit balances."""

from __future__ import annotations

import time
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy import func, select

from jackpot_controller.adapters.tables import JackpotHit, JackpotLevel
from slotsys.floor.adapters.tables import GameRound, Machine
from slotsys.kernel.adapters.db import JournalEntryRow
from slotsys.floor.domain.evaluator import SeededRng, spin as play
from slotsys.floor.games import load_game
from slotsys.floor.services.reported_games import reconcile_floor
from tests.conftest import Api

pytestmark = pytest.mark.integration

GAMES = 12
RETRIES = 3


def wait_until(pred, timeout=30.0, step=0.2):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if pred():
            return True
        time.sleep(step)
    return pred()


def test_reported_games_concurrent_retries_mystery_hit_and_reconciliation(pg_app, celery_worker_running):
    svc = pg_app.extensions["slotsys"]
    api = Api(pg_app)
    assets = ("M001", "M003")  # MASS ₩100 Dragon Pearl: every MASS mystery level is eligible
    for a in assets:
        svc.reported_games.set_outcome_source(None, a, "machine")
        assert api.as_machine(a, "POST", f"/api/v1/machines/{a}/bill-in", {"amount": 50_000}).status_code == 200
    with svc.uow() as uow:  # arm MASS_MINOR: the first contribution crosses its trigger
        lv = uow.session.query(JackpotLevel).filter_by(code="MASS_MINOR").with_for_update().one()
        lv.trigger_milli = lv.value_milli + 1
        uow.commit()

    game = load_game("dragon_pearl_50")
    option = game.resolve_bet(lines=10, multiplier=1)  # ₩1,000 a game

    def machine(asset: str) -> dict:
        """The machine: decides each game with its own RNG, keeps its meters, reports each game 3× at once."""
        rng = SeededRng(asset)
        client = pg_app.test_client()
        coin_in = coin_out = 0
        statuses = []
        for n in range(1, GAMES + 1):
            o = play(game, option, rng)
            coin_in += option.credits * 100
            coin_out += o.total_win_credits * 100
            body = {"game_number": n, "denomination": 100, "bet_credits": option.credits,
                    "win_credits": o.total_win_credits, "lines": option.lines, "multiplier": option.multiplier,
                    "stops": list(o.stops), "free_stops": [list(f.stops) for f in o.free_games] or None,
                    "meters": {"coin_in": coin_in, "coin_out": coin_out, "games_played": n}}
            headers = {"Authorization": f"Bearer {api.key(asset)}", "Idempotency-Key": uuid.uuid4().hex}
            with ThreadPoolExecutor(max_workers=RETRIES) as pool:
                rs = list(pool.map(lambda _: client.post(f"/api/v1/machines/{asset}/games", json=body,
                                                         headers=headers), range(RETRIES)))
            statuses.append([r.status_code for r in rs])
            assert len({r.data for r in rs}) == 1, [r.json for r in rs]  # one answer: the first, replayed
        return {"statuses": statuses, "coin_in": coin_in, "coin_out": coin_out}

    with ThreadPoolExecutor(max_workers=len(assets)) as pool:
        played = dict(zip(assets, pool.map(machine, assets)))
    for a in assets:
        assert all(s == [200] * RETRIES for s in played[a]["statuses"]), played[a]["statuses"]

    # the armed level hit once and its award was paid on the winning machine as a bonus
    def awarded():
        with svc.uow(readonly=True) as uow:
            return [(h.machine_id, h.amount_won) for h in uow.session.scalars(select(JackpotHit))
                    if h.status == "awarded"]
    assert wait_until(awarded)
    ((winner_id, amount),) = awarded()
    with svc.uow(readonly=True) as uow:
        winner = uow.session.get(Machine, winner_id)
        assert winner.asset_number in assets and winner.jackpot_out == amount > 0
        for a in assets:
            m = uow.machines.get(a)
            # each game accounted once: N rounds, N entries, the meters of N games
            assert uow.session.scalar(select(func.count()).select_from(GameRound)
                                      .where(GameRound.machine_id == m.id)) == GAMES
            assert m.games_played == GAMES and m.game_seq == GAMES
            assert (m.coin_in, m.coin_out) == (played[a]["coin_in"], played[a]["coin_out"])
        assert uow.session.scalar(select(func.count()).select_from(JournalEntryRow)
                                  .where(JournalEntryRow.kind == "machine.game_report")) == GAMES * len(assets)

    # bad reports: a repeated game number (new key) and a meter going backwards change nothing
    a = assets[0]
    before = api.as_machine(a, "GET", f"/api/v1/machines/{a}/meters", key=None).json
    o = play(game, option, SeededRng(1))
    bad = {"game_number": GAMES, "denomination": 100, "bet_credits": option.credits,
           "win_credits": o.total_win_credits}
    r = api.as_machine(a, "POST", f"/api/v1/machines/{a}/games", bad)
    assert r.status_code == 409 and r.json["field"] == "game_number"
    r = api.as_machine(a, "POST", f"/api/v1/machines/{a}/meters",
                       {"meters": {"coin_in": played[a]["coin_in"] - 100, "coin_out": played[a]["coin_out"],
                                   "games_played": GAMES + 1}})
    assert r.status_code == 422 and r.json["field"] == "meters.coin_in"
    assert api.as_machine(a, "GET", f"/api/v1/machines/{a}/meters", key=None).json == before

    # the machines' meters reconcile to zero difference, per machine and at the gaming-day close
    for a in assets:
        rec = api.as_staff("auditor", "GET", f"/api/v1/machines/{a}/reconciliation", key=None).json
        assert rec["balanced"] is True and rec["mismatches"] == [] and rec["exceptions"] == []
        assert rec["reported"]["coin_in"] == rec["system"]["coin_in"] == played[a]["coin_in"]
        assert len(rec["refused_reports"]) == (2 if a == assets[0] else 0)
    assert reconcile_floor(svc.ctx) == {"machines": 2, "mismatched": [], "not_comparable": []}
    audit = api.audit()
    assert audit["balanced"] and all(j["agrees"] for j in audit["jackpots"])

    # a skipped game number with meters the host disagrees with: accounted, both exceptions recorded on
    # PostgreSQL's write-behind commit, the reconciliation shows the difference (never corrected)
    b = assets[1]
    o = play(game, option, SeededRng(2))
    body = {"game_number": GAMES + 3, "denomination": 100, "bet_credits": option.credits,
            "win_credits": o.total_win_credits,
            "meters": {"coin_in": played[b]["coin_in"] + 3_000,
                       "coin_out": played[b]["coin_out"] + o.total_win_credits * 100, "games_played": GAMES + 3}}
    r = api.as_machine(b, "POST", f"/api/v1/machines/{b}/games", body)
    assert r.status_code == 200, r.json
    assert r.json["skipped"] == {"first": GAMES + 1, "last": GAMES + 2}
    assert {m["meter"] for m in r.json["reconciliation"]["mismatches"]} == {"coin_in", "games_played"}
    rec = api.as_staff("auditor", "GET", f"/api/v1/machines/{b}/reconciliation", key=None).json
    assert rec["balanced"] is False and len(rec["exceptions"]) == 1 and len(rec["skipped_games"]) == 1
    assert rec["system"]["coin_in"] == played[b]["coin_in"] + 1_000
    assert api.audit()["balanced"]
