"""Game approval under dual control on PostgreSQL: upload → a second admin approves → assignable and playable;
two approvers racing on one upload approve it once (the conditional update on status = 'pending'); two uploads
of one game id racing store one (the partial unique index on pending / approved uploads)."""

from __future__ import annotations

import threading
from pathlib import Path

import sqlalchemy as sa

from slotsys.floor.services.catalogue import assignable

LUCKY = (Path(__file__).parents[1] / "data" / "games" / "lucky_three.yaml").read_text(encoding="utf-8")
PASSWORD = "a long enough passphrase 42"


def _token(api, username: str, role: str) -> str:
    r = api.as_staff("admin", "POST", "/api/v1/staff/users", {"username": username, "password": PASSWORD, "role": role},
                     key=None)
    assert r.status_code == 201, r.json
    r = api.client.post("/api/v1/auth/login", json={"username": username, "password": PASSWORD})
    assert r.status_code == 200, r.json
    return r.json["token"]


def _assignable(app, game_id: str, variation: str | None) -> bool:
    with app.extensions["slotsys"].uow(readonly=True) as uow:
        return assignable(uow, game_id, variation)


def test_upload_second_admin_approves_then_assignable_and_a_race_approves_once(pg_api, pg_app):
    api, app = pg_api, pg_app
    admin2 = {"Authorization": f"Bearer {_token(api, 'admin2', 'admin')}"}
    sup = {"Authorization": f"Bearer {_token(api, 'sup2', 'supervisor')}"}

    up = api.as_staff("admin", "POST", "/api/v1/games", {"definition": LUCKY}, key=None)
    assert up.status_code == 201, up.json
    assert not _assignable(app, "lucky_three", "76")
    r = api.client.post(f"/api/v1/games/{up.json['id']}/approve", json={}, headers=admin2)
    assert r.status_code == 200 and r.json["approved_variations"] == ["76", "81"], r.json
    assert _assignable(app, "lucky_three", "76") and _assignable(app, "lucky_three", "81")
    with app.extensions["slotsys"].uow.engine.begin() as c:
        c.execute(sa.text("UPDATE machines SET game_id = 'lucky_three', variation = '81' WHERE asset_number = 'M002'"))
    assert api.as_machine("M002", "POST", "/api/v1/machines/M002/bill-in", {"amount": 5000}).status_code == 200
    r = api.as_machine("M002", "POST", "/api/v1/machines/M002/spin", {"lines": 1, "multiplier": 1})
    assert r.status_code == 200, r.json

    # races: the same upload approved by two people at once, five times over
    results = []

    # each race's own upload, barrier and answers are passed in: a thread outliving its join cannot write
    # into the next race
    def approve(rid, barrier, statuses, headers):
        client = app.test_client()
        barrier.wait()
        statuses.append(client.post(f"/api/v1/games/{rid}/approve", json={"variations": ["76"]},
                                    headers=headers).status_code)

    for i in range(5):
        text = LUCKY.replace("id: lucky_three", f"id: lucky_race_{i}")
        rid = api.as_staff("admin", "POST", "/api/v1/games", {"definition": text}, key=None).json["id"]
        barrier = threading.Barrier(2)
        statuses: list[int] = []
        threads = [threading.Thread(target=approve, args=(rid, barrier, statuses, h)) for h in (admin2, sup)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        results.append(sorted(statuses))
        assert _assignable(app, f"lucky_race_{i}", "76") and not _assignable(app, f"lucky_race_{i}", "81")
    assert results == [[200, 409]] * 5
    with app.extensions["slotsys"].uow.engine.connect() as c:
        done = c.execute(sa.text("SELECT subject, count(*) FROM audit_log WHERE action = 'game.approve' "
                                 "AND outcome = 'done' GROUP BY subject")).all()
        refused = c.execute(sa.text("SELECT count(*) FROM audit_log WHERE action = 'game.approve' "
                                    "AND outcome = 'refused'")).scalar_one()
    assert sorted(done) == sorted([("game:lucky_three", 1)] + [(f"game:lucky_race_{i}", 1) for i in range(5)])
    assert refused == 5


def test_racing_uploads_of_one_game_id_store_one(pg_api, pg_app):
    api, app = pg_api, pg_app
    op = {"Authorization": f"Bearer {api.staff_token('operator')}"}
    adm = {"Authorization": f"Bearer {api.staff_token('admin')}"}
    results = []

    def post(text, barrier, statuses, headers):
        client = app.test_client()
        barrier.wait()
        statuses.append(client.post("/api/v1/games", json={"definition": text}, headers=headers).status_code)

    for i in range(3):
        text = LUCKY.replace("id: lucky_three", f"id: lucky_twin_{i}")
        barrier = threading.Barrier(2)
        statuses: list[int] = []
        threads = [threading.Thread(target=post, args=(text, barrier, statuses, h)) for h in (op, adm)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        results.append(sorted(statuses))
    assert results == [[201, 409]] * 3
    with app.extensions["slotsys"].uow.engine.connect() as c:
        rows = c.execute(sa.text("SELECT game_id, count(*) FROM game_definitions GROUP BY game_id")).all()
    assert sorted(rows) == [(f"lucky_twin_{i}", 1) for i in range(3)]
