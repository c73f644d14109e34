"""The attendants' screens in Chromium: the alert queue updates live (over the console's stream, well before its
15 s poll) and its buttons move an alert through its states; the handpay queue's two-person sign-off (the
attendant signs, the same attendant cannot sign twice, a supervisor's second signature pays it); the machine page
shows human meter labels and the event log."""

from __future__ import annotations

import time

from tests.e2e.browser.conftest import login, shot


def test_alert_queue_updates_live_and_acknowledge_dispatch_resolve(page, live):
    server, api = live
    page.goto(server.url + "/console/alerts")
    login(page, api, "attendant")
    page.wait_for_selector('#live[data-state="connected"]')
    t0 = time.monotonic()
    r = api.as_machine("M015", "POST", "/api/v1/machines/M015/events", {"sas_code": 0x15})  # logic door opened
    assert r.status_code == 201, r.json
    aid = r.json["events"][0]["alert_id"]
    row = f'tr[data-alert="{aid}"]'
    page.wait_for_selector(f'{row}[data-state="open"]', timeout=8_000)
    assert time.monotonic() - t0 < 8  # the stream's notice, not the 15 s poll
    assert "SECURITY" in page.inner_text(row) and "Card cage (logic door) opened" in page.inner_text(row)
    shot(page, "alerts-1-live")

    page.click(f'{row} button[data-action="acknowledge"]')
    page.wait_for_selector(f'{row}[data-state="acknowledged"]')
    page.click(f'{row} button[data-action="dispatch"]')
    page.wait_for_selector(f'{row}[data-state="dispatched"]')
    assert "attendant" in page.inner_text(row)
    page.click('[data-lang="ko"]')
    assert "보안" in page.inner_text(row) and "출동" in page.inner_text(row)
    shot(page, "alerts-2-dispatched-ko")
    page.click('[data-lang="en"]')
    page.click(f'{row} button[data-action="resolve"]')
    page.wait_for_selector(row, state="detached")  # the queue lists active alerts only
    a = next(a for a in api.as_staff("auditor", "GET", "/api/v1/alerts?machine=M015", key=None).json["alerts"]
             if a["id"] == aid)
    assert a["state"] == "resolved" and a["acknowledged_by"] == a["dispatched_to"] == a["resolved_by"] == "attendant"
    assert a["response"]["resolve_s"] >= a["response"]["ack_s"] >= 0


def _sign_in_as(page, api, role: str) -> None:
    page.evaluate("() => sessionStorage.clear()")
    page.reload()
    login(page, api, role)


def test_handpay_two_person_sign_off(page, live):
    server, api = live
    svc = api.app.extensions["slotsys"].events
    saved = svc.settings
    svc.settings = saved.model_copy(update={"handpay_two_person_won": 100_000})
    try:
        for _ in range(3):
            assert api.as_machine("M016", "POST", "/api/v1/machines/M016/bill-in", {"amount": 50_000}).status_code == 200
        assert api.as_machine("M016", "POST", "/api/v1/machines/M016/events", {"kind": "handpay_pending"}).status_code == 201
        page.goto(server.url + "/console/handpays")
        login(page, api, "attendant")
        row = 'tr[data-machine="M016"][data-state="pending"]'
        page.wait_for_selector(row)
        assert "₩150,000" in page.inner_text(row) and "0/2" in page.inner_text(row)
        assert page.inner_text("#threshold") == "₩100,000"
        page.click(f"{row} button[data-action=sign]")
        page.wait_for_function("() => document.querySelector('tr[data-machine=\"M016\"] .signers').textContent.includes('1/2')")
        page.click(f"{row} button[data-action=sign]")  # the same attendant again: refused, explained
        page.wait_for_function("() => document.getElementById('error').textContent.includes('different person')")
        shot(page, "handpays-1-first-signature")

        _sign_in_as(page, api, "supervisor")
        page.wait_for_selector(row)
        assert page.inner_text(f"{row} button[data-action=sign]") == "Sign and pay"
        page.click(f"{row} button[data-action=sign]")
        page.wait_for_selector('tr[data-machine="M016"][data-state="paid"]')
        assert "attendant (attendant) + supervisor (supervisor)" in page.inner_text('tr[data-machine="M016"]')
        shot(page, "handpays-2-paid")
    finally:
        svc.settings = saved
    hp = next(h for h in api.as_staff("auditor", "GET", "/api/v1/handpays?state=paid", key=None).json["handpays"]
              if h["machine"] == "M016")
    assert (hp["signer1"], hp["signer2"], hp["amount"]) == ("attendant", "supervisor", 150_000)
    assert api.as_machine("M016", "GET", "/api/v1/machines/M016/meters", key=None).json["credits"] == 0


def test_machine_page_human_meter_labels_and_event_log(page, live):
    server, api = live
    api.as_machine("M017", "POST", "/api/v1/machines/M017/bill-in", {"amount": 10_000})
    api.as_machine("M017", "POST", "/api/v1/machines/M017/events", {"events": [{"kind": "printer_paper_low"},
                                                                               {"sas_code": 0x11}]})
    page.goto(server.url + "/console/machines/M017")
    login(page, api, "attendant")
    page.wait_for_selector('tr[data-meter="bills_in"]')
    assert page.inner_text('tr[data-meter="bills_in"] th') == "Bills in"
    page.wait_for_selector('tr[data-kind="main_door_opened"]')
    assert "Slot (main) door opened" in page.inner_text('tr[data-kind="main_door_opened"]')
    assert "0x11" in page.inner_text('tr[data-kind="main_door_opened"]')
    assert "online" in page.inner_text("#link")
    page.click('[data-lang="ko"]')
    assert page.inner_text('tr[data-meter="bills_in"] th') == "지폐 투입"
    assert "메인 도어 열림" in page.inner_text('tr[data-kind="main_door_opened"]')
    shot(page, "machine-events-ko")
    page.click('[data-lang="en"]')
