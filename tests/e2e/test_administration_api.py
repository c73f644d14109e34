"""Game approval under dual control, staff administration and the audit log, through the real app on SQLite
(docs/games-and-staff-administration.md)."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import sqlalchemy as sa

from slotsys.floor.services.catalogue import assignable

LUCKY = (Path(__file__).parents[1] / "data" / "games" / "lucky_three.yaml").read_text(encoding="utf-8")
PASSWORD = "a long enough passphrase 42"


def bearer(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def login(api, username: str, password: str) -> str:
    r = api.client.post("/api/v1/auth/login", json={"username": username, "password": password})
    assert r.status_code == 200, r.json
    return r.json["token"]


def create_user(api, username: str, role: str, password: str = PASSWORD) -> str:
    r = api.as_staff("admin", "POST", "/api/v1/staff/users", {"username": username, "password": password,
                                                               "role": role}, key=None)
    assert r.status_code == 201, r.json
    return login(api, username, password)


def count(app, table: str) -> int:
    with app.extensions["slotsys"].uow.engine.connect() as c:
        return c.execute(sa.text(f"SELECT count(*) FROM {table}")).scalar_one()


def audit_rows(app, action: str | None = None) -> list[tuple]:
    q = "SELECT actor, action, subject, outcome FROM audit_log"
    params = {}
    if action:
        q += " WHERE action = :a"
        params["a"] = action
    with app.extensions["slotsys"].uow.engine.connect() as c:
        return [tuple(r) for r in c.execute(sa.text(q + " ORDER BY id"), params)]


def assert_problem(r, status: int, field: str | None = None):
    assert r.status_code == status, (r.status_code, r.json)
    assert r.headers["Content-Type"] == "application/problem+json"
    if field is not None:
        assert r.json["field"] == field, r.json


def upload(api, text: str = LUCKY, role: str = "admin"):
    return api.as_staff(role, "POST", "/api/v1/games", {"definition": text}, key=None)


def is_assignable(app, game_id: str, variation: str | None) -> bool:
    with app.extensions["slotsys"].uow(readonly=True) as uow:
        return assignable(uow, game_id, variation)


# ------------------------------------------------------------------ games
def test_upload_then_second_person_approves_then_assignable_and_playable(api, app):
    assert is_assignable(app, "dragon_pearl_50", "92") and is_assignable(app, "tiger_reels_243", None)
    assert not is_assignable(app, "dragon_pearl_50", "99")
    r = upload(api, role="operator")
    assert r.status_code == 201, r.json
    up = r.json
    assert up["status"] == "pending" and up["uploaded_by"] == "operator" and len(up["sha256"]) == 64
    assert set(up["par_sheet_summary"]) == {"76", "81"}
    assert abs(up["par_sheet_summary"]["76"]["rtp_full_bet"] - 0.765625) < 1e-12
    assert not is_assignable(app, "lucky_three", "76")  # pending: not yet

    full = api.as_staff("auditor", "GET", f"/api/v1/games/{up['id']}", key=None).json
    assert full["definition"] == LUCKY and full["par_sheet"]["81"]["variation"] == "81"

    # the uploader cannot approve their own upload: 403 naming the actor, recorded as refused
    r = api.as_staff("operator", "POST", f"/api/v1/games/{up['id']}/approve", {}, key=None)
    assert r.status_code == 403  # operator is not an approver at all (the auth layer)
    r = api.as_staff("supervisor", "POST", f"/api/v1/games/{up['id']}/approve", {"variations": ["76"],
                                                                                  "reason": "lab cert 123"}, key=None)
    assert r.status_code == 200, r.json
    assert r.json["status"] == "approved" and r.json["approved_variations"] == ["76"]
    assert r.json["decided_by"] == "supervisor"
    assert is_assignable(app, "lucky_three", "76") and is_assignable(app, "lucky_three", None)
    assert not is_assignable(app, "lucky_three", "81")  # not approved
    # decided once
    assert_problem(api.as_staff("admin", "POST", f"/api/v1/games/{up['id']}/reject", {"reason": "x"}, key=None), 409, "id")

    # a machine assigned the approved game (E1's game change does this) spins it
    with app.extensions["slotsys"].uow.engine.begin() as c:
        c.execute(sa.text("UPDATE machines SET game_id = 'lucky_three', variation = '76' WHERE asset_number = 'M001'"))
    assert api.as_machine("M001", "POST", "/api/v1/machines/M001/bill-in", {"amount": 10000}).status_code in (200, 201)
    r = api.as_machine("M001", "POST", "/api/v1/machines/M001/spin", {"lines": 3, "multiplier": 2})
    assert r.status_code in (200, 201), r.json
    assert r.json["bet"]["credits"] == 6 and len(r.json["window"]) == 3
    assert api.audit()["balanced"] is True

    actions = [a for _, a, _, o in audit_rows(app) if a.startswith("game.")]
    assert actions == ["game.upload", "game.approve", "game.reject"]
    assert audit_rows(app, "game.reject")[0][3] == "refused"


def test_self_approval_is_refused_naming_the_actor_and_recorded(api, app):
    up = upload(api).json  # uploaded by admin
    before = count(app, "game_definitions")
    r = api.as_staff("admin", "POST", f"/api/v1/games/{up['id']}/approve", {}, key=None)
    assert_problem(r, 403, "actor")
    assert r.json["actor"] == "admin"
    assert count(app, "game_definitions") == before
    assert api.as_staff("admin", "GET", f"/api/v1/games/{up['id']}", key=None).json["status"] == "pending"
    assert audit_rows(app, "game.approve") == [("admin", "game.approve", "game:lucky_three", "refused")]
    # a second admin rejects it with a reason; the id may then be uploaded again
    tok = create_user(api, "admin2", "admin")
    assert_problem(api.client.post(f"/api/v1/games/{up['id']}/reject", json={"reason": " "}, headers=bearer(tok)),
                   422, "reason")
    r = api.client.post(f"/api/v1/games/{up['id']}/reject", json={"reason": "pays table typo"}, headers=bearer(tok))
    assert r.status_code == 200 and r.json["status"] == "rejected" and r.json["reason"] == "pays table typo"
    assert not is_assignable(app, "lucky_three", "76")
    assert upload(api).status_code == 201


def test_bad_definitions_are_422_listing_field_and_line_and_change_nothing(api, app):
    before = count(app, "game_definitions")
    bad = {
        "malformed YAML": (LUCKY.replace("rows: 3\n", "rows: [3\n"), "yaml", 6),
        "unknown symbol": (LUCKY.replace("SEVEN, CHERRY, BELL, BAR, CHERRY, BELL, BAR, SEVEN",
                                         "SEVEN, CHERRY, QX, BAR, CHERRY, BELL, BAR, SEVEN"),
                           "variations.81.reels[2][2]", 30),
        "negative pay": (LUCKY.replace("pays: {3: 20}", "pays: {3: -20}"), "symbols[1].pays[3]", 9),
        "not a mapping": ("- 1\n- 2\n", "$", 1),
    }
    for what, (text, field, line) in bad.items():
        r = upload(api, text)
        assert_problem(r, 422, field)
        assert r.json["errors"][0]["line"] == line, (what, r.json)
        assert r.json["errors"][0]["field"] == field
    assert_problem(upload(api, LUCKY.replace("id: lucky_three", "id: dragon_pearl_50")), 409, "id")
    assert upload(api).status_code == 201
    assert_problem(upload(api), 409, "id")  # pending upload of the same id
    assert count(app, "game_definitions") == before + 1
    refused = [r for r in audit_rows(app, "game.upload") if r[3] == "refused"]
    assert len(refused) == len(bad) + 2
    r = api.as_staff("admin", "POST", "/api/v1/games", {"definition": "x" * 70_000}, key=None)
    assert r.status_code in (413, 422)


# ------------------------------------------------------------------ staff
def test_staff_create_list_role_change_disable_enable_and_sessions(api, app):
    tok = create_user(api, "cashier2", "cashier")
    users = api.as_staff("admin", "GET", "/api/v1/staff/users", key=None).json["users"]
    me = next(u for u in users if u["username"] == "cashier2")
    assert me == {"username": "cashier2", "role": "cashier", "active": True, "sessions": 1}

    sessions = api.as_staff("admin", "GET", "/api/v1/staff/sessions?username=cashier2", key=None).json["sessions"]
    assert len(sessions) == 1 and sessions[0]["address"] == "127.0.0.1" and sessions[0]["issued_at"]
    assert api.client.get("/api/v1/floor/overview", headers=bearer(tok)).status_code == 403

    r = api.as_staff("admin", "PATCH", "/api/v1/staff/users/cashier2", {"role": "attendant"}, key=None)
    assert r.status_code == 200 and r.json["role"] == "attendant"
    assert api.client.get("/api/v1/floor/overview", headers=bearer(tok)).status_code == 200  # the new role, at once

    # end the session: the token is refused at once
    sid = sessions[0]["session_id"]
    r = api.as_staff("admin", "DELETE", f"/api/v1/staff/sessions/{sid}", key=None)
    assert r.status_code == 200 and r.json["username"] == "cashier2"
    assert api.client.get("/api/v1/floor/overview", headers=bearer(tok)).status_code == 401
    assert_problem(api.as_staff("admin", "DELETE", f"/api/v1/staff/sessions/{sid}", key=None), 404, "session_id")

    tok = login(api, "cashier2", PASSWORD)
    r = api.as_staff("admin", "PATCH", "/api/v1/staff/users/cashier2", {"active": False, "reason": "left"}, key=None)
    assert r.status_code == 200 and r.json["active"] is False and r.json["revoked_tokens"] == 1
    assert api.client.get("/api/v1/floor/overview", headers=bearer(tok)).status_code == 401
    assert api.client.post("/api/v1/auth/login", json={"username": "cashier2", "password": PASSWORD}).status_code == 401
    assert api.as_staff("admin", "PATCH", "/api/v1/staff/users/cashier2", {"active": True}, key=None).status_code == 200
    login(api, "cashier2", PASSWORD)

    # reset (the existing path) is audited too, never with the password
    r = api.as_staff("admin", "POST", "/api/v1/staff/users/cashier2/password", {"new_password": "another passphrase 7"},
                     key=None)
    assert r.status_code == 200
    acts = [(a, s, o) for _, a, s, o in audit_rows(app) if a.startswith("staff.")]
    assert acts == [("staff.create", "user:cashier2", "done"), ("staff.role", "user:cashier2", "done"),
                    ("staff.session_end", "user:cashier2", "done"), ("staff.disable", "user:cashier2", "done"),
                    ("staff.enable", "user:cashier2", "done"), ("staff.password_reset", "user:cashier2", "done")]
    with app.extensions["slotsys"].uow.engine.connect() as c:
        dump = " ".join(str(tuple(r)) for r in c.execute(sa.text("SELECT * FROM audit_log")))
    assert PASSWORD not in dump and "another passphrase" not in dump and "st_" not in dump


def test_staff_bad_input_is_refused_naming_the_field_and_recorded(api, app):
    create_user(api, "host2", "host")
    users = count(app, "staff_users")
    cases = [({"username": "host2", "password": PASSWORD, "role": "host"}, 409, "username"),
             ({"username": "newbie", "password": PASSWORD, "role": "croupier"}, 422, "role"),
             ({"username": "newbie", "password": "short", "role": "host"}, 422, "password"),
             ({"username": "x", "password": PASSWORD, "role": "host"}, 422, "username")]
    for body, status, field in cases:
        assert_problem(api.as_staff("admin", "POST", "/api/v1/staff/users", body, key=None), status, field)
    assert count(app, "staff_users") == users
    assert len([r for r in audit_rows(app, "staff.create") if r[3] == "refused"]) == len(cases)
    assert_problem(api.as_staff("admin", "PATCH", "/api/v1/staff/users/admin", {"role": "host"}, key=None), 409,
                   "username")
    assert_problem(api.as_staff("admin", "PATCH", "/api/v1/staff/users/admin", {"active": False}, key=None), 409,
                   "username")
    assert_problem(api.as_staff("admin", "PATCH", "/api/v1/staff/users/nobody", {"active": False}, key=None), 404,
                   "username")
    assert_problem(api.as_staff("admin", "PATCH", "/api/v1/staff/users/host2", {"role": "croupier"}, key=None), 422,
                   "role")
    assert_problem(api.as_staff("admin", "PATCH", "/api/v1/staff/users/host2", {"active": "no"}, key=None), 422,
                   "active")
    assert api.as_staff("operator", "POST", "/api/v1/staff/users",
                        {"username": "sneaky", "password": PASSWORD, "role": "admin"}, key=None).status_code == 403
    assert count(app, "staff_users") == users


# ------------------------------------------------------------------ the audit log
def test_audit_log_filters_cursor_validation_and_csv_export(api, app):
    for i in range(5):
        create_user(api, f"att{i}", "attendant")
    api.as_staff("admin", "POST", "/api/v1/staff/users", {"username": "=HYPERLINK(1)", "password": PASSWORD,
                                                         "role": "host"}, key=None)
    upload(api)
    get = lambda q: api.as_staff("auditor", "GET", "/api/v1/audit/log" + q, key=None)  # noqa: E731

    page1 = get("?action=staff&limit=2").json
    assert [e["subject"] for e in page1["entries"]] == ["user:=HYPERLINK(1)", "user:att4"]
    page2 = get(f"?action=staff.&limit=2&cursor={page1['next_cursor']}").json
    assert [e["subject"] for e in page2["entries"]] == ["user:att3", "user:att2"]
    seen, cursor = [], None
    while True:
        page = get("?action=staff.create&limit=4" + (f"&cursor={cursor}" if cursor else "")).json
        seen += page["entries"]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert len(seen) == 6 and len({e["id"] for e in seen}) == 6
    assert [e["action"] for e in get("?subject=game:lucky_three").json["entries"]] == ["game.upload"]
    assert [e["subject"] for e in get("?outcome=refused").json["entries"]] == ["user:=HYPERLINK(1)"]
    assert get("?actor=auditor").json["entries"] == []
    assert len(get("?from=2000-01-01T00:00:00Z&to=2999-01-01T00:00:00Z&action=game").json["entries"]) == 1
    assert get("?to=2000-01-01T00:00:00%2B09:00").json["entries"] == []

    for q, field in (("?limit=abc", "limit"), ("?limit=0", "limit"), ("?limit=1001", "limit"),
                     ("?cursor=-1", "cursor"), ("?outcome=maybe", "outcome"), ("?from=yesterday", "from"),
                     ("?from=2026-01-01T00:00:00", "from"), ("?format=xml", "format")):
        assert_problem(get(q), 422, field)

    r = get("?format=csv&action=staff")
    assert r.status_code == 200 and r.mimetype == "text/csv"
    rows = list(csv.DictReader(io.StringIO(r.get_data(as_text=True).lstrip("\ufeff"))))
    assert len(rows) == 6
    assert rows[0]["subject"] == "'user:=HYPERLINK(1)" or rows[0]["subject"] == "user:=HYPERLINK(1)"
    assert not any(v.startswith(("=", "+", "-", "@")) for row in rows for v in row.values())

    # the ledger audit is another endpoint, unchanged
    assert api.as_staff("auditor", "GET", "/api/v1/audit/ledger", key=None).json["balanced"] is True
    assert api.as_staff("operator", "GET", "/api/v1/audit/log", key=None).status_code == 403
