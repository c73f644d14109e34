"""Staff sign-in as a bank does it (docs/staff-auth.md), through the real app on SQLite.

Throttling (429 + Retry-After), the per-username lock-out (kept in the database: it survives a restart,
passes with its window or an admin unlock), the same work for unknown usernames, the bounded hashing
slots (503 + Retry-After), logout, deactivation, password change and admin reset revoking tokens, the
no-store headers and the sign-in audit trail.
"""

from __future__ import annotations

import statistics
import time
from datetime import datetime, timedelta, timezone

import pytest
import sqlalchemy as sa

from slotsys.kernel.settings import Settings
from tests.conftest import _make_app

LOGIN = "/api/v1/auth/login"


def creds(api, role: str) -> dict:
    return next(s for s in api.creds["staff"] if s["role"] == role)


def login(api, username: str, password: str, addr: str = "127.0.0.1"):
    return api.client.post(LOGIN, json={"username": username, "password": password},
                           environ_base={"REMOTE_ADDR": addr})


def bearer(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def events(app, kind: str | None = None, username: str | None = None) -> list[tuple]:
    q = "SELECT kind, username, actor FROM staff_auth_events"
    conds, params = [], {}
    if kind:
        conds.append("kind = :k")
        params["k"] = kind
    if username:
        conds.append("username = :u")
        params["u"] = username
    if conds:
        q += " WHERE " + " AND ".join(conds)
    with app.extensions["slotsys"].uow.engine.connect() as c:
        return [tuple(r) for r in c.execute(sa.text(q + " ORDER BY id"), params)]


def assert_problem(r, status: int, code: str | None = None):
    assert r.status_code == status, (r.status_code, r.json)
    assert r.headers["Content-Type"] == "application/problem+json"
    if code:
        assert r.json["type"].endswith("/" + code), r.json


def lock_out(api, username: str, n: int = 5) -> None:
    for i in range(n):
        r = login(api, username, f"wrong-{i}")
        assert_problem(r, 401, "unauthorized")


# ------------------------------------------------------------------ throttling and lock-out
def test_five_wrong_passwords_lock_the_username_even_for_the_right_one(api, app):
    op = creds(api, "operator")
    lock_out(api, op["username"])
    r = login(api, op["username"], op["password"])  # the right password does not help while locked
    assert_problem(r, 429, "login-throttled")
    assert r.json["field"] == "username"
    wait = int(r.headers["Retry-After"])
    assert 0 < wait <= 900
    assert [k for k, *_ in events(app, username=op["username"])] == ["login_failed"] * 5 + ["locked_out"]
    with app.extensions["slotsys"].uow.engine.connect() as c:
        until = c.execute(sa.text("SELECT locked_until FROM staff_login_throttle WHERE username = :u"),
                          {"u": op["username"]}).scalar_one()
    assert until is not None
    # another user is not affected
    assert login(api, creds(api, "cashier")["username"], creds(api, "cashier")["password"]).status_code == 200


def test_an_unknown_username_is_locked_out_like_a_real_one(api):
    lock_out(api, "no-such-user")
    r = login(api, "no-such-user", "anything")
    assert_problem(r, 429, "login-throttled")
    assert int(r.headers["Retry-After"]) > 0


def test_admin_unlock_lifts_the_lockout(api, app):
    op = creds(api, "operator")
    lock_out(api, op["username"])
    assert login(api, op["username"], op["password"]).status_code == 429
    url = f"/api/v1/staff/users/{op['username']}/unlock"
    r = api.client.post(url, headers=bearer(api.staff_token("supervisor")))
    assert_problem(r, 403, "forbidden")  # admins only
    assert login(api, op["username"], op["password"]).status_code == 429
    r = api.client.post(url, headers=bearer(api.staff_token("admin")))
    assert r.status_code == 200 and r.json == {"username": op["username"], "was_locked": True}, r.json
    assert login(api, op["username"], op["password"]).status_code == 200
    admin = creds(api, "admin")["username"]
    assert ("unlocked", op["username"], admin) in events(app, kind="unlocked")


def test_the_lockout_passes_when_its_time_is_up(api, app):
    op = creds(api, "operator")
    lock_out(api, op["username"])
    ctx = app.extensions["slotsys"].ctx

    class Later:
        def now(self):
            return datetime.now(timezone.utc) + timedelta(seconds=ctx.settings.staff_lockout_s + 1)

    old, ctx.clock = ctx.clock, Later()
    try:
        assert login(api, op["username"], op["password"]).status_code == 200
    finally:
        ctx.clock = old


def test_the_lockout_survives_a_restart(app, tmp_path):
    from tests.conftest import Api

    api = Api(app)
    op = creds(api, "operator")
    lock_out(api, op["username"])
    settings = app.extensions["slotsys"].settings
    app.extensions["slotsys"].jackpots.driver.stop()
    from slotsys.app.factory import create_app

    restarted = create_app(settings)  # a new process's app on the same database: nothing in memory carries over
    try:
        c = restarted.test_client()
        r = c.post(LOGIN, json={"username": op["username"], "password": op["password"]})
        assert_problem(r, 429, "login-throttled")
    finally:
        restarted.extensions["slotsys"].jackpots.driver.stop()
        restarted.extensions["slotsys"].uow.engine.dispose()


def test_the_console_lifts_the_only_admins_lockout(api, app):
    """Anyone can lock a username out by guessing; when that is the only admin, `slotsys staff-unlock` on the
    server's console lifts it (no admin token needed), recorded as an unlock by `console`."""
    import os
    import subprocess
    import sys

    adm = creds(api, "admin")
    lock_out(api, adm["username"])
    assert_problem(login(api, adm["username"], adm["password"]), 429, "login-throttled")
    env = {**os.environ, "DATABASE_URL": str(app.extensions["slotsys"].settings.database_url)}
    env.pop("REDIS_URL", None)
    out = subprocess.run([sys.executable, "-m", "slotsys.app.cli", "staff-unlock", adm["username"]], env=env,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert '"was_locked": true' in out.stdout, out.stdout
    assert login(api, adm["username"], adm["password"]).status_code == 200
    assert ("unlocked", adm["username"], "console") in events(app, kind="unlocked")


@pytest.fixture
def strict_app(tmp_path):
    """The app with a tight per-address limit (3 failures / 5 min) and one hashing slot, waited for 0.5 s at most."""
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'floor.db'}", redis_url=None, celery_eager=True,
                        credentials_file=tmp_path / "creds.json", staff_login_address_limit="3/5 minutes",
                        staff_login_hash_slots=1, staff_login_hash_wait_s=0.5)
    a = _make_app(settings)
    yield a
    a.extensions["slotsys"].jackpots.driver.stop()
    a.extensions["slotsys"].uow.engine.dispose()


def test_an_address_that_keeps_failing_is_throttled_whatever_the_username(strict_app):
    from tests.conftest import Api

    api = Api(strict_app)
    for name in ("guess-a", "guess-b", "guess-c"):  # three usernames: no username lock-out involved
        assert_problem(login(api, name, "x", addr="10.9.8.7"), 401)
    r = login(api, "guess-d", "x", addr="10.9.8.7")
    assert_problem(r, 429, "login-throttled")
    assert 0 < int(r.headers["Retry-After"]) <= 300
    op = creds(api, "operator")
    assert login(api, op["username"], op["password"], addr="10.9.8.7").status_code == 429  # no password checked
    assert login(api, op["username"], op["password"], addr="10.9.8.8").status_code == 200  # another address is fine
    assert len(events(strict_app, kind="login_failed")) == 3  # throttled tries write no rows


def test_behind_the_proxy_the_throttle_counts_the_client_address_not_the_proxys(tmp_path):
    """Behind nginx every request comes from the proxy's address: with SLOTSYS_TRUSTED_PROXIES=1 the per-address
    budget is the client's (X-Forwarded-For, which docker/nginx.conf sets to the address it saw)."""
    from tests.conftest import Api

    settings = Settings(database_url=f"sqlite:///{tmp_path / 'floor.db'}", redis_url=None, celery_eager=True,
                        credentials_file=tmp_path / "creds.json", staff_login_address_limit="3/5 minutes",
                        trusted_proxies=1)
    app = _make_app(settings)
    try:
        api = Api(app)

        def via_proxy(name: str, password: str, client: str):
            return api.client.post(LOGIN, json={"username": name, "password": password},
                                   environ_base={"REMOTE_ADDR": "127.0.0.1"}, headers={"X-Forwarded-For": client})

        for name in ("guess-a", "guess-b", "guess-c"):
            assert_problem(via_proxy(name, "x", "10.1.1.1"), 401)
        assert_problem(via_proxy("guess-d", "x", "10.1.1.1"), 429, "login-throttled")
        op = creds(api, "operator")
        assert via_proxy(op["username"], op["password"], "10.1.1.2").status_code == 200  # same proxy, another client
    finally:
        app.extensions["slotsys"].jackpots.driver.stop()
        app.extensions["slotsys"].uow.engine.dispose()


def test_sign_in_is_refused_503_when_every_hashing_slot_is_busy(strict_app):
    from tests.conftest import Api

    api = Api(strict_app)
    auth = strict_app.extensions["slotsys"].auth
    op = creds(api, "operator")
    with auth.hash_gate.slot():  # another request is hashing on this process's only slot
        r = login(api, op["username"], op["password"])
    assert_problem(r, 503, "login-busy")
    assert r.headers["Retry-After"] == "1"
    assert events(strict_app, username=op["username"]) == []  # nothing recorded, nothing counted
    assert login(api, op["username"], op["password"]).status_code == 200


def test_an_unknown_username_costs_the_same_as_a_wrong_password(api):
    """The tester saw 3.5 ms for an unknown username against 110 ms for a real one: both are now a full scrypt."""
    known = [s["username"] for s in api.creds["staff"]][:6]

    def median_ms(names):
        times = []
        for n in names:
            t = time.perf_counter()
            r = login(api, n, "definitely-wrong")
            times.append((time.perf_counter() - t) * 1000)
            assert r.status_code == 401
        return statistics.median(times)

    median_ms(["warm-up"])
    real = median_ms(known)
    unknown = median_ms([f"nobody-{i}" for i in range(6)])
    assert unknown > 0.6 * real and real > 0.6 * unknown, (real, unknown)


# ------------------------------------------------------------------ tokens
def test_login_and_logout_responses_are_not_stored_and_logout_revokes_only_that_token(api, app):
    cashier = creds(api, "cashier")
    r1, r2 = login(api, cashier["username"], cashier["password"]), login(api, cashier["username"], cashier["password"])
    assert r1.status_code == r2.status_code == 200
    assert r1.headers["Cache-Control"] == "no-store" and r1.headers["Pragma"] == "no-cache"
    t1, t2 = r1.json["token"], r2.json["token"]
    expires = datetime.fromisoformat(r1.json["expires_at"])
    assert timedelta(hours=7, minutes=59) < expires - datetime.now(timezone.utc) <= timedelta(hours=8)
    assert api.client.get("/api/v1/cage/sessions/current", headers=bearer(t1)).status_code != 401  # cached now
    r = api.client.post("/api/v1/auth/logout", headers=bearer(t1))
    assert r.status_code == 200 and r.json["revoked"] is True and r.headers["Cache-Control"] == "no-store"
    assert_problem(api.client.get("/api/v1/cage/sessions/current", headers=bearer(t1)), 401)
    assert_problem(api.client.post("/api/v1/auth/logout", headers=bearer(t1)), 401)
    assert api.client.get("/api/v1/cage/sessions/current", headers=bearer(t2)).status_code != 401
    r = api.client.post("/api/v1/auth/logout", headers=bearer(api.key("M001")))
    assert_problem(r, 403)  # a machine key is not a staff session
    assert ("logout", cashier["username"], None) in events(app, kind="logout")


def test_deactivation_revokes_every_token_and_refuses_sign_in(api, app):
    cashier = creds(api, "cashier")
    token = api.staff_token("cashier")
    assert api.client.get("/api/v1/cage/sessions/current", headers=bearer(token)).status_code != 401
    admin = bearer(api.staff_token("admin"))
    assert_problem(api.client.post(f"/api/v1/staff/users/{cashier['username']}/deactivate",
                                   headers=bearer(api.staff_token("operator"))), 403)
    r = api.client.post(f"/api/v1/staff/users/{cashier['username']}/deactivate", headers=admin)
    assert r.status_code == 200 and r.json["active"] is False and r.json["revoked_tokens"] == 1, r.json
    assert_problem(api.client.get("/api/v1/cage/sessions/current", headers=bearer(token)), 401)
    assert_problem(login(api, cashier["username"], cashier["password"]), 401, "unauthorized")
    assert_problem(api.client.post("/api/v1/staff/users/nobody/deactivate", headers=admin), 404)
    r = api.client.post(f"/api/v1/staff/users/{creds(api, 'admin')['username']}/deactivate", headers=admin)
    assert_problem(r, 409)  # not yourself
    assert ("deactivated", cashier["username"], creds(api, "admin")["username"]) in events(app, kind="deactivated")


def test_password_change_needs_the_old_one_and_revokes_every_token(api, app):
    cashier = creds(api, "cashier")
    token = api.staff_token("cashier")
    other = login(api, cashier["username"], cashier["password"]).json["token"]
    url = "/api/v1/auth/password"
    r = api.client.post(url, json={"old_password": "wrong-old-password", "new_password": "a-new-long-password"},
                        headers=bearer(token))
    assert_problem(r, 422)
    assert r.json["field"] == "old_password"
    r = api.client.post(url, json={"old_password": cashier["password"], "new_password": "short"}, headers=bearer(token))
    assert_problem(r, 422)
    assert r.json["field"] == "new_password"
    assert login(api, cashier["username"], cashier["password"]).status_code == 200  # nothing changed so far
    r = api.client.post(url, json={"old_password": cashier["password"], "new_password": "a-new-long-password"},
                        headers=bearer(token))
    assert r.status_code == 200 and r.json["revoked_tokens"] == 3, r.json
    assert r.headers["Cache-Control"] == "no-store"
    for t in (token, other):
        assert_problem(api.client.get("/api/v1/cage/sessions/current", headers=bearer(t)), 401)
    assert_problem(login(api, cashier["username"], cashier["password"]), 401)
    assert login(api, cashier["username"], "a-new-long-password").status_code == 200
    kinds = [k for k, *_ in events(app, username=cashier["username"])]
    assert "password_change_failed" in kinds and "password_changed" in kinds


def test_guessing_the_old_password_with_a_stolen_token_locks_the_user_and_ends_the_session(api):
    cashier = creds(api, "cashier")
    token = api.staff_token("cashier")
    for i in range(5):
        r = api.client.post("/api/v1/auth/password", json={"old_password": f"guess-{i}-xxxxxxxx",
                                                           "new_password": "a-new-long-password"},
                            headers=bearer(token))
        assert_problem(r, 422)
    assert_problem(api.client.get("/api/v1/cage/sessions/current", headers=bearer(token)), 401)
    assert_problem(login(api, cashier["username"], cashier["password"]), 429, "login-throttled")


def test_admin_reset_sets_the_password_revokes_tokens_and_lifts_the_lockout(api, app):
    cashier = creds(api, "cashier")
    token = api.staff_token("cashier")
    lock_out(api, cashier["username"])
    url = f"/api/v1/staff/users/{cashier['username']}/password"
    assert_problem(api.client.post(url, json={"new_password": "reset-by-the-admin"},
                                   headers=bearer(api.staff_token("supervisor"))), 403)
    r = api.client.post(url, json={"new_password": "reset-by-the-admin"}, headers=bearer(api.staff_token("admin")))
    assert r.status_code == 200 and r.json["revoked_tokens"] == 1, r.json
    assert_problem(api.client.get("/api/v1/cage/sessions/current", headers=bearer(token)), 401)
    assert login(api, cashier["username"], "reset-by-the-admin").status_code == 200
    assert ("password_reset", cashier["username"], creds(api, "admin")["username"]) in events(app, kind="password_reset")


def test_an_expiry_moved_in_the_database_is_honoured_within_a_second(api, app):
    token = api.staff_token("auditor")
    h = bearer(token)
    assert api.client.get("/api/v1/audit/ledger", headers=h).status_code == 200  # cached now
    with app.extensions["slotsys"].uow.engine.begin() as c:
        c.execute(sa.text("UPDATE staff_tokens SET expires_at = :t"),
                  {"t": datetime.now(timezone.utc) - timedelta(minutes=1)})
    time.sleep(1.05)
    assert_problem(api.client.get("/api/v1/audit/ledger", headers=h), 401)


def test_the_audit_trail_is_readable_by_auditors(api):
    op = creds(api, "operator")
    login(api, op["username"], "wrong-password")
    auditor = bearer(api.staff_token("auditor"))
    r = api.client.get(f"/api/v1/staff/auth-events?username={op['username']}&kind=login_failed", headers=auditor)
    assert r.status_code == 200, r.json
    [e] = r.json["events"]
    assert e["kind"] == "login_failed" and e["detail"]["reason"] == "wrong_password" and e["address"] == "127.0.0.1"
    r = api.client.get("/api/v1/staff/auth-events?kind=login", headers=auditor)
    assert {e["username"] for e in r.json["events"]} >= {creds(api, "auditor")["username"]}
    assert_problem(api.client.get("/api/v1/staff/auth-events?kind=bogus", headers=auditor), 422)
    assert_problem(api.client.get("/api/v1/staff/auth-events?limit=0", headers=auditor), 422)
    assert_problem(api.client.get("/api/v1/staff/auth-events", headers=bearer(api.staff_token("cashier"))), 403)


def test_the_audit_trail_pages_by_cursor(api):
    """?limit= pages, newest first, each naming the next one's ?cursor= (null on the last): together exactly the
    unpaged trail; a new sign-in never shifts an older page; a bad cursor is a 422 naming it."""
    op = creds(api, "operator")
    for _ in range(5):
        login(api, op["username"], "wrong-password")
    auditor = bearer(api.staff_token("auditor"))
    url = f"/api/v1/staff/auth-events?username={op['username']}"
    whole = api.client.get(url, headers=auditor).json
    assert len(whole["events"]) >= 5 and whole["next_cursor"] is None
    ids, cursor = [], None
    while True:
        r = api.client.get(f"{url}&limit=2" + (f"&cursor={cursor}" if cursor else ""), headers=auditor)
        assert r.status_code == 200, r.json
        assert len(r.json["events"]) <= 2
        ids += [e["id"] for e in r.json["events"]]
        cursor = r.json["next_cursor"]
        if cursor is None:
            break
    assert ids == [e["id"] for e in whole["events"]]
    first = api.client.get(f"{url}&limit=2", headers=auditor).json
    login(api, op["username"], "wrong-password")
    older = api.client.get(f"{url}&limit=2&cursor={first['next_cursor']}", headers=auditor).json
    assert [e["id"] for e in older["events"]] == ids[2:4]
    for bad in ("abc", "0", "-1"):
        r = api.client.get(f"{url}&cursor={bad}", headers=auditor)
        assert_problem(r, 422)
        assert r.json["field"] == "cursor"
