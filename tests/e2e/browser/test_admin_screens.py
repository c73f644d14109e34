"""The administration screens in a real browser: games (upload, errors with their line, par sheet summary, the
second person's approval), staff (create, role, sessions, disable) and the audit log (filters, CSV export).
Each step is checked through the API too."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from tests.e2e.browser.conftest import login, shot

LUCKY = (Path(__file__).parents[2] / "data" / "games" / "lucky_three.yaml").read_text(encoding="utf-8")
PASSWORD = "browser passphrase 2026"


def _switch_user(page, server, path: str, api, role: str) -> None:
    page.evaluate("() => sessionStorage.clear()")
    page.goto(server.url + path)
    login(page, api, role)


def test_games_screen_upload_errors_and_second_person_approval(page, live):
    server, api = live
    text = LUCKY.replace("id: lucky_three", "id: lucky_browser")
    page.goto(server.url + "/console/games")
    login(page, api, "operator")
    page.wait_for_selector("#catalogue li")
    # a definition with an unknown symbol: the error names the field and the YAML line, nothing is stored
    page.fill("#definition", text.replace("SEVEN, CHERRY, BELL, BAR, CHERRY, BELL, BAR, SEVEN",
                                          "SEVEN, CHERRY, QX, BAR, CHERRY, BELL, BAR, SEVEN"))
    page.click("#upload")
    page.wait_for_selector('#upload-errors li[data-field="variations.81.reels[2][2]"]')
    assert "line 30" in page.inner_text("#upload-errors") and "QX" in page.inner_text("#upload-errors")
    shot(page, "games-1-upload-error")
    page.fill("#definition", text)
    page.click("#upload")
    page.wait_for_selector('#detail-sheet tr[data-variation="76"]')
    assert "76.56%" in page.inner_text("#detail-sheet")
    row = page.locator('#uploads tr[data-status="pending"]', has_text="lucky_browser")
    assert row.count() == 1 and row.locator("button.approve").count() == 0  # the operator cannot decide
    shot(page, "games-2-uploaded")

    _switch_user(page, server, "/console/games", api, "supervisor")
    row = page.locator("#uploads tr", has_text="lucky_browser")
    row.locator("input.reason").fill("lab certificate 42")
    row.locator("button.approve").click()
    page.wait_for_selector('#uploads tr[data-status="approved"]:has-text("lucky_browser")')
    shot(page, "games-3-approved")
    ups = api.as_staff("auditor", "GET", "/api/v1/games/uploads", key=None).json["games"]
    up = next(u for u in ups if u["game_id"] == "lucky_browser")
    assert up["status"] == "approved" and up["decided_by"] == "supervisor" and up["reason"] == "lab certificate 42"


def test_staff_screen_create_role_sessions_and_disable(page, live):
    server, api = live
    page.goto(server.url + "/console/staff")
    login(page, api, "admin")
    page.wait_for_selector('#users tr[data-user="admin"]')
    page.fill("#create-form input[name=username]", "browser_cashier")
    page.fill("#create-form input[name=password]", PASSWORD)
    page.select_option("#create-form select[name=role]", "cashier")
    page.click("#create-form button[type=submit]")
    page.wait_for_selector('#users tr[data-user="browser_cashier"]')
    page.select_option('#users tr[data-user="browser_cashier"] select.role', "attendant")
    page.wait_for_function("() => document.querySelector('#users tr[data-user=browser_cashier] select.role').value === 'attendant'")
    users = api.as_staff("admin", "GET", "/api/v1/staff/users", key=None).json["users"]
    assert next(u for u in users if u["username"] == "browser_cashier")["role"] == "attendant"

    token = api.client.post("/api/v1/auth/login", json={"username": "browser_cashier", "password": PASSWORD}).json["token"]
    page.reload()
    page.wait_for_selector('#sessions tr[data-user="browser_cashier"]')
    shot(page, "staff-1-sessions")
    page.click('#sessions tr[data-user="browser_cashier"] button.end')
    page.wait_for_selector('#sessions tr[data-user="browser_cashier"]', state="detached")
    assert api.client.get("/api/v1/floor/overview", headers={"Authorization": f"Bearer {token}"}).status_code == 401

    page.click('#users tr[data-user="browser_cashier"] button.toggle')
    page.wait_for_selector('#users tr[data-user="browser_cashier"][data-active="false"]')
    assert api.client.post("/api/v1/auth/login",
                           json={"username": "browser_cashier", "password": PASSWORD}).status_code == 401
    shot(page, "staff-2-disabled")


def test_audit_log_screen_filters_and_exports_csv(page, live):
    server, api = live
    api.as_staff("admin", "POST", "/api/v1/staff/users", {"username": "browser_audit", "password": PASSWORD,
                                                         "role": "host"}, key=None)
    api.as_staff("admin", "POST", "/api/v1/staff/users", {"username": "browser_audit", "password": PASSWORD,
                                                         "role": "host"}, key=None)  # refused: a duplicate
    page.goto(server.url + "/console/audit-log")
    login(page, api, "auditor")
    page.wait_for_selector("#entries tbody tr")
    page.fill("#filters input[name=subject]", "user:browser_audit")
    page.click("#apply")
    page.wait_for_function("() => document.querySelectorAll('#entries tbody tr').length === 2")
    assert page.locator('#entries tr[data-outcome="refused"]').count() == 1
    assert "already exists" in page.inner_text('#entries tr[data-outcome="refused"]')
    shot(page, "audit-log-1-filtered")
    with page.expect_download() as dl:
        page.click("#export")
    rows = list(csv.DictReader(io.StringIO(Path(dl.value.path()).read_text(encoding="utf-8-sig"))))
    assert [(r["action"], r["outcome"]) for r in rows] == [("staff.create", "refused"), ("staff.create", "done")]
