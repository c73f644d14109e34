"""The pages' "Log out" button revokes the token on the server (docs/staff-auth.md), not only in the tab."""

from __future__ import annotations

import json

from tests.e2e.browser.conftest import login


def test_log_out_button_revokes_the_token(page, live):
    server, api = live
    page.goto(server.url + "/reports")
    login(page, api, "auditor")
    token = json.loads(page.evaluate("() => sessionStorage.getItem('slotsys.auth')"))["token"]
    h = {"Authorization": f"Bearer {token}"}
    assert api.client.get("/api/v1/audit/ledger", headers=h).status_code == 200
    page.click("#logout")
    page.wait_for_selector("#login:not([hidden])")
    assert page.evaluate("() => sessionStorage.getItem('slotsys.auth')") is None
    r = api.client.get("/api/v1/audit/ledger", headers=h)
    assert r.status_code == 401 and r.headers["Content-Type"] == "application/problem+json"
