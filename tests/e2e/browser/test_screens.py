"""The people's screens in a real browser (issue 10): cashier, signage, operator, kiosk, reports.

Each test drives the pages as staff would (logging in through the page's form, typing like a
keyboard-wedge scanner) and checks the outcome through the API as well."""

from __future__ import annotations

import csv
import io
import re
import time

from tests.e2e.browser.conftest import CuttableProxy, cash_out_ticket, login, shot

LEVELS = "/api/v1/jackpots/levels"


def test_cashier_scans_pays_prints_and_a_second_scan_says_already_redeemed(page, live):
    server, api = live
    vn = cash_out_ticket(api, "M003", 50_000)
    drawer_before = api.as_staff("cashier", "GET", "/api/v1/cage/sessions/current", key=None).json["expected_cash"]

    page.goto(server.url + "/cashier")
    login(page, api, "cashier")
    page.wait_for_selector("#expected-cash")
    page.click("#scan")
    page.keyboard.type(vn, delay=5)  # a keyboard-wedge scanner: the digits, then Enter
    page.keyboard.press("Enter")
    page.wait_for_selector('#verdict[data-reason="payable"]')
    assert page.inner_text("#amount") == "₩50,000"
    assert "M003" in page.inner_text("#result")
    shot(page, "cashier-1-scanned")

    page.click("#pay")
    page.wait_for_selector('#verdict[data-reason="paid"]')
    assert "₩50,000" in page.inner_text("#verdict")
    page.wait_for_function("(b) => document.getElementById('expected-cash').textContent === b",
                           arg=f"₩{drawer_before - 50_000:,}")
    shot(page, "cashier-2-paid")
    t = api.as_staff("cashier", "GET", f"/api/v1/tickets/{vn}", key=None).json
    assert t["status"] == "redeemed" and t["redeemed_channel"] == "cage" and t["redeemed_location"] == "MAIN"

    # the printable receipt
    page.click("#receipt-link")
    page.wait_for_url(re.compile(r"/cashier/receipt/\d{18}$"))
    page.wait_for_function("() => document.getElementById('amount').textContent === '₩50,000'")
    assert t["display_number"] in page.inner_text("#slip")
    page.emulate_media(media="print")
    shot(page, "cashier-3-receipt")
    page.emulate_media(media="screen")

    # the same ticket presented again: refused, with when and where it was paid
    page.goto(server.url + "/cashier")
    page.wait_for_selector("#expected-cash")
    page.click("#scan")
    page.keyboard.type(vn, delay=5)
    page.keyboard.press("Enter")
    page.wait_for_selector('#verdict[data-reason="already_redeemed"]')
    assert "already redeemed" in page.inner_text("#verdict").lower()
    facts = page.inner_text("#refusal-facts")
    assert "cage MAIN" in facts and "KST" in facts, facts
    shot(page, "cashier-4-already-redeemed")

    # a mistyped number (check digit) is told apart from one not on file
    page.click("#scan")
    page.keyboard.type(vn[:-1] + str((int(vn[-1]) + 1) % 10))
    page.keyboard.press("Enter")
    page.wait_for_selector('#verdict[data-reason="check-digit-wrong"]')

    # closing count: ₩1,000 short is posted as the variance; then a new session opens with a float
    expected = api.as_staff("cashier", "GET", "/api/v1/cage/sessions/current", key=None).json["expected_cash"]
    page.fill("#close-form input[name=counted_cash]", str(expected - 1_000))
    page.click("#close-form button[type=submit]")
    page.wait_for_selector("#close-summary")
    assert "-₩1,000" in page.inner_text("#close-summary") and f"₩{expected:,}" in page.inner_text("#close-summary")
    shot(page, "cashier-5-closed")
    page.fill("#open-form input[name=drawer]", "D1")
    page.fill("#open-form input[name=opening_float]", "5000000")
    page.click("#open-form button[type=submit]")
    page.wait_for_function("() => document.getElementById('expected-cash')?.textContent === '₩5,000,000'")


def test_signage_celebrates_a_hit_triggered_through_the_api_within_two_seconds(page, live):
    server, api = live
    proxy = CuttableProxy(server.port)  # the sign reaches the server through a line we can cut
    try:
        _signage(page, api, proxy)
    finally:
        proxy.close()


def _signage(page, api, proxy):
    page.goto(proxy.url + "/signage/MASS")
    login(page, api, "attendant")
    page.wait_for_selector('#conn[data-state="connected"]')
    page.wait_for_selector('.lv[data-level="MASS_MINOR"] .val')
    shown = {el.get_attribute("data-level") for el in page.query_selector_all(".lv")}
    assert shown == {"MASS_MINOR", "MASS_MAJOR", "MASS_GRAND", "MEGA", "PREMIUM"}  # the zone's levels + floor-wide
    assert re.fullmatch(r"₩\d{1,3}(,\d{3})+", page.inner_text('.lv[data-level="MEGA"] .val'))
    shot(page, "signage-1-mass")

    # an operator corrects Minor to its ceiling; the next qualifying spin on a MASS machine hits it
    r = api.as_staff("operator", "POST", f"{LEVELS}/MASS_MINOR/corrections", {"value": 100_000, "reason": "signage test"})
    assert r.status_code == 200, r.json
    assert api.as_machine("M007", "POST", "/api/v1/machines/M007/bill-in", {"amount": 10_000}).status_code == 200
    t0 = time.monotonic()
    r = api.as_machine("M007", "POST", "/api/v1/machines/M007/spin", {"lines": 10, "multiplier": 1})
    assert r.status_code == 200, r.json
    hit = next(j for j in r.json["jackpots"] if j["level"] == "MASS_MINOR")
    page.wait_for_selector("#celebrate:not([hidden])", timeout=2_000)
    elapsed = time.monotonic() - t0
    assert elapsed < 2.0
    assert page.inner_text("#cel-amount") == f"₩{hit['amount']:,}"
    assert "M007" in page.inner_text("#cel-machine") and "Minor" in page.inner_text("#cel-level")
    shot(page, "signage-2-hit")

    # the line is cut: the sign says so, and while it is down an operator pauses Premium
    proxy.cut()
    page.wait_for_selector('#conn[data-state="reconnecting"]', timeout=5_000)
    assert api.as_staff("operator", "POST", f"{LEVELS}/PREMIUM/pause", {"reason": "signage test"}).status_code == 200
    shot(page, "signage-3-connection-lost")
    time.sleep(1.5)
    proxy.restore()
    # it reconnects by itself (fresh stream token) and shows what changed while it was away
    page.wait_for_selector('.lv.paused[data-level="PREMIUM"]', timeout=15_000)
    assert api.as_staff("operator", "POST", f"{LEVELS}/PREMIUM/resume", {"reason": "signage test"}).status_code == 200
    page.wait_for_selector('.lv:not(.paused)[data-level="PREMIUM"]', timeout=5_000)
    assert page.get_attribute("#conn", "data-state") == "connected"
    page.wait_for_selector('#conn[data-state="connected"]')


def test_signage_does_not_celebrate_a_hit_held_for_verification_until_it_is_paid(page, live):
    """The outside tester's "Congratulations! ₩42,949,672 Machine V005": a hit above its level's
    maximum is held for verification; the sign marks the level and shows no celebration and no
    amount; once an operator decides to pay it (a handpay), the sign celebrates what is paid."""
    from jackpot_controller.adapters.tables import JackpotLevel

    server, api = live
    r = api.as_staff("operator", "POST", LEVELS, {
        "code": "VIP_CAP", "name": "Vip Capped", "kind": "mystery", "scope": "zone", "zone": "VIP",
        "reset": 1_000, "ceiling": 5_000, "rate_ppm": 100_000, "max_award": 5_000})
    assert r.status_code == 201, r.json
    with server.app.extensions["slotsys"].uow() as uow:  # a faulty controller: a trigger above the maximum
        lv = uow.session.query(JackpotLevel).filter_by(code="VIP_CAP").one()
        lv.trigger_milli = lv.value_milli + 5_000_000
        uow.commit()
    page.goto(server.url + "/signage/VIP")
    login(page, api, "attendant")
    page.wait_for_selector('#conn[data-state="connected"]')
    page.wait_for_selector('.lv[data-level="VIP_CAP"] .val')
    held = None
    for _ in range(60):
        r = api.as_machine("V005", "POST", "/api/v1/machines/V005/spin", {"lines": 50, "multiplier": 1})
        if r.status_code == 409 and r.json.get("field") == "multiplier":  # out of credits
            assert api.as_machine("V005", "POST", "/api/v1/machines/V005/bill-in", {"amount": 50_000}).status_code == 200
            continue
        assert r.status_code == 200, r.json
        held = next((j for j in r.json["jackpots"] if j["level"] == "VIP_CAP"), None)
        if held:
            break
    assert held and held["status"] == "verification" and held["amount"] == 6_000, held
    page.wait_for_selector('.lv.verification[data-level="VIP_CAP"]', timeout=2_000)
    time.sleep(0.5)
    assert page.is_hidden("#celebrate") and page.text_content("#cel-amount") == ""
    assert "6,000" not in page.inner_text('.lv[data-level="VIP_CAP"]')
    shot(page, "signage-4-verification")
    r = api.as_staff("operator", "POST", f"/api/v1/jackpots/hits/{held['hit']}/verify",
                     {"decision": "pay", "reason": "checked with the manufacturer"})
    assert r.status_code == 200 and r.json["status"] == "handpay", r.json
    page.wait_for_selector("#celebrate:not([hidden])", timeout=2_000)
    assert page.inner_text("#cel-amount") == "₩6,000" and "V005" in page.inner_text("#cel-machine")
    assert page.get_attribute("#celebrate", "data-hit") == str(held["hit"])
    page.wait_for_selector('.lv:not(.verification)[data-level="VIP_CAP"]')
    assert api.as_staff("attendant", "POST", f"/api/v1/jackpots/hits/{held['hit']}/handpay").status_code == 200
    assert api.as_staff("operator", "POST", f"{LEVELS}/VIP_CAP/pause", {"reason": "test level"}).status_code == 200


def test_an_operator_pauses_a_level_and_a_spin_no_longer_contributes(page, live):
    server, api = live
    # a hit for the history: Minor corrected to its ceiling, then a spin
    assert api.as_staff("operator", "POST", f"{LEVELS}/MASS_MINOR/corrections",
                        {"value": 100_000, "reason": "history"}).status_code == 200
    assert api.as_machine("M009", "POST", "/api/v1/machines/M009/bill-in", {"amount": 50_000}).status_code == 200
    r = api.as_machine("M009", "POST", "/api/v1/machines/M009/spin", {"lines": 10, "multiplier": 1})
    assert "MASS_MINOR" in [j["level"] for j in r.json["jackpots"]], r.json
    page.on("dialog", lambda d: d.accept("display fault"))
    page.goto(server.url + "/console/jackpots")
    login(page, api, "operator")
    row = 'tr[data-level="MASS_MAJOR"]'
    page.wait_for_selector(f'{row}[data-status="active"]')
    page.wait_for_function("() => document.getElementById('live').textContent === '● live'")  # values over SSE
    page.click(f'{row} button[data-action="pause"]')
    page.wait_for_selector(f'{row}[data-status="paused"]')
    shot(page, "jackpots-1-paused")

    def level():
        return api.as_staff("operator", "GET", f"{LEVELS}/MASS_MAJOR", key=None).json

    assert level()["paused"] is True
    def coin_in():
        return api.as_staff("operator", "GET", "/api/v1/machines/M009/meters", key=None).json["meters"]["coin_in"]

    v0, coin_in0 = level()["value_milli"], coin_in()
    r = api.as_machine("M009", "POST", "/api/v1/machines/M009/spin", {"lines": 10, "multiplier": 1})
    assert r.status_code == 200, r.json
    assert coin_in() == coin_in0 + 1_000
    assert level()["value_milli"] == v0  # the paused level took nothing
    minor = api.as_staff("operator", "GET", f"{LEVELS}/MASS_MINOR", key=None).json  # the others still contribute
    assert minor["qualifying_coin_in"] > 0

    page.click(f'{row} button[data-action="resume"]')
    page.wait_for_selector(f'{row}[data-status="active"]')
    r = api.as_machine("M009", "POST", "/api/v1/machines/M009/spin", {"lines": 10, "multiplier": 1})
    assert r.status_code == 200, r.json
    assert level()["value_milli"] == v0 + 1_000 * 3_000 // 1_000  # 0.3 % of ₩1,000 = ₩3 = 3,000 milli-won
    kinds = [e["kind"] for e in api.as_staff("operator", "GET", "/api/v1/jackpots/events?level=MASS_MAJOR", key=None).json["events"]]
    assert kinds[:2] == ["resumed", "paused"]

    # edit: effective after the next hit, shown as pending
    page.click(f'{row} button[data-action="edit"]')
    page.fill("#edit-form input[name=rate_ppm]", "4000")
    page.fill("#edit-form input[name=reason]", "new season")
    page.click("#edit-form button[type=submit]")
    page.wait_for_function("() => document.querySelector('tr[data-level=\"MASS_MAJOR\"] .pending').textContent === 'rate_ppm=4000'")
    assert level()["pending"]["rate_ppm"] == 4_000 and level()["rate_ppm"] == 3_000
    page.wait_for_selector('#hits tbody tr td:has-text("M009")')  # the hit in the history
    shot(page, "jackpots-2-edit-pending")


def test_operator_floor_and_machine_detail_show_state_credits_and_reel_windows(page, live):
    server, api = live
    assert api.as_machine("M001", "POST", "/api/v1/machines/M001/bill-in", {"amount": 50_000}).status_code == 200
    for _ in range(3):
        assert api.as_machine("M001", "POST", "/api/v1/machines/M001/spin", {"lines": 20, "multiplier": 1}).status_code == 200
    page.goto(server.url + "/console")
    login(page, api, "operator")
    page.wait_for_selector('.mc[data-asset="M001"]')
    assert page.get_attribute('.mc[data-asset="M001"]', "data-state") == "in_play"
    assert page.get_attribute('.mc[data-asset="V002"]', "data-state") == "idle"
    credits = api.as_machine("M001", "GET", "/api/v1/machines/M001/meters", key=None).json["credits"]
    assert page.inner_text('.mc[data-asset="M001"] .credits') == f"₩{credits:,}"
    assert set(page.eval_on_selector_all(".zone", "els => els.map(e => e.dataset.zone)")) == {"VIP", "MASS"}
    assert len(page.query_selector_all('.zone[data-zone="MASS"] .bank')) == 4
    shot(page, "console-1-floor")
    page.click("button[data-lang=ko]")
    page.wait_for_function("() => document.querySelector('.mc[data-asset=\"M001\"] .st').textContent === '게임 중'")
    shot(page, "console-2-floor-korean")
    page.click("button[data-lang=en]")

    page.click('.mc[data-asset="M001"]')
    page.wait_for_selector(".gamecard")
    cards = page.query_selector_all(".gamecard")
    assert len(cards) >= 3
    assert len(page.query_selector_all(".gamecard:first-child .sym")) == 20  # 4 rows × 5 reels
    recall = api.as_staff("operator", "GET", "/api/v1/machines/M001/games", key=None).json["games"][0]
    first = [el.inner_text() for el in page.query_selector_all(".gamecard:first-child .sym")]
    assert first == [s for row in recall["window"] for s in row]
    shot(page, "console-3-machine")


def test_par_sheet_page_shows_the_exact_figures_and_charts(page, live):
    server, api = live
    page.goto(server.url + "/console/par-sheets")
    login(page, api, "operator")
    page.wait_for_selector("#rtp-full")
    assert page.inner_text("#rtp-full").startswith("92.0")
    page.wait_for_selector("#options th >> nth=3")
    heads = [th.inner_text() for th in page.query_selector_all("#options th")]
    assert heads[2].startswith("Hit frequency (any win") and heads[3].startswith("Line/way hit frequency")
    first = [td.inner_text() for td in page.query_selector_all("#options tr:nth-child(2) td")]
    assert float(first[3]) < float(first[2])  # line hits only, fewer than any win
    page.wait_for_function("() => [...document.querySelectorAll('img.chart')].length === 3 && "
                           "[...document.querySelectorAll('img.chart')].every(i => i.complete && i.naturalWidth > 0)",
                           timeout=20_000)
    shot(page, "parsheet-1-dragon-pearl")


def test_kiosk_dispenses_and_explains_a_refusal_in_korean_and_english(page, live):
    server, api = live
    assert api.as_staff("cashier", "POST", "/api/v1/kiosks/kiosk1/fill", {"amount": 1_000_000}).status_code == 200
    vn = cash_out_ticket(api, "M011", 10_000)
    page.goto(server.url + "/kiosk")
    login(page, api, "kiosk")
    page.click("#scan")
    page.keyboard.type(vn)
    page.keyboard.press("Enter")
    page.wait_for_selector("#dispensed")
    assert page.inner_text("#dispensed") == "₩10,000"
    shot(page, "kiosk-1-dispensed")
    t = api.as_staff("auditor", "GET", f"/api/v1/tickets/{vn}", key=None).json
    assert t["status"] == "redeemed" and t["redeemed_channel"] == "kiosk" and t["redeemed_location"] == "kiosk1"
    page.click("#scan")
    page.keyboard.type(vn)
    page.keyboard.press("Enter")
    page.wait_for_selector('#refusal-ko[data-reason="already_redeemed"]')
    assert page.inner_text("#refusal-ko") == "이미 지급된 티켓입니다"
    assert page.inner_text("#refusal-en") == "Ticket already redeemed"
    shot(page, "kiosk-2-refused")


def test_reports_for_the_auditor_with_csv_export(page, live):
    server, api = live
    cash_out_ticket(api, "M013", 5_000)  # at least one outstanding ticket
    page.goto(server.url + "/reports")
    login(page, api, "auditor")
    page.wait_for_selector('[data-table="dates.tickets"] tbody tr')
    ledger = api.as_staff("auditor", "GET", "/api/v1/tito/reports/outstanding", key=None).json["ledger_outstanding"]
    assert f"₩{ledger:,}" in page.inner_text("#report-summary")
    with page.expect_download() as dl:
        page.click('[data-csv="dates.tickets"]')
    text = open(dl.value.path(), encoding="utf-8-sig").read()
    rows = list(csv.DictReader(io.StringIO(text)))
    assert rows and "validation_number" in rows[0] and sum(int(r["amount"]) for r in rows) == ledger
    shot(page, "reports-1-liability")
    for kind, table in (("hits", "hits"), ("meters", "machines"), ("voided", "tickets"), ("expired", "expired_unpaid.tickets")):
        page.select_option("#report", kind)
        page.wait_for_selector(f'[data-table="{table}"]')
        shot(page, f"reports-{kind}")
    page.select_option("#report", "meters")
    page.wait_for_selector('[data-table="machines"] tbody tr')
    assert len(page.query_selector_all('[data-table="machines"] tbody tr')) == 30


def test_index_links_every_screen(page, live):
    server, _ = live
    page.goto(server.url + "/")
    hrefs = page.eval_on_selector_all("#screens a", "els => els.map(e => e.getAttribute('href'))")
    assert {"/console", "/console/jackpots", "/console/par-sheets", "/cashier", "/kiosk", "/signage/VIP", "/reports"} <= set(hrefs)
    shot(page, "index")
