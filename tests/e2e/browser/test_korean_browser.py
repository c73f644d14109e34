"""The screens in Korean mode: the console's states, zone and meter names, the cashier's refusal and ticket
facts, the reports' column headers all come from the message catalogue, and times read YYYY-MM-DD HH:MM:SS KST."""

from __future__ import annotations

import re

from tests.e2e.browser.conftest import cash_out_ticket, login, shot

HANGUL = re.compile(r"[\uac00-\ud7a3]")
WHEN = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d KST")


def test_console_machine_cashier_and_reports_in_korean_show_no_english_names(page, live):
    server, api = live
    vn = cash_out_ticket(api, "M005", 10_000)
    assert api.as_staff("cashier", "POST", "/api/v1/cage/redeem", {"validation_number": vn}).status_code == 200
    cash_out_ticket(api, "M006", 5_000)  # one outstanding ticket for the liability report

    page.goto(server.url + "/console")
    login(page, api, "operator")
    page.wait_for_selector('.mc[data-asset="M001"]')
    page.click("button[data-lang=ko]")
    page.wait_for_function("() => document.documentElement.lang === 'ko'")
    assert page.inner_text('.zone[data-zone="VIP"] h2') == "VIP 구역 (VIP)"
    states = page.eval_on_selector_all(".mc .st", "els => els.map(e => e.textContent)")
    assert states and all(HANGUL.search(s) for s in states), states
    assert WHEN.search(page.inner_text("#day")), page.inner_text("#day")

    page.goto(server.url + "/console/machines/M001")  # the language stays chosen (localStorage)
    page.wait_for_selector("#meters tr[data-meter]")
    meters = page.eval_on_selector_all("#meters tr[data-meter]",
                                       "rows => rows.map(r => [r.dataset.meter, r.querySelector('th').textContent])")
    assert len(meters) >= 12
    assert [k for k, name in meters if not HANGUL.search(name)] == []  # no raw bills_in, tickets_in_count …
    assert dict(meters)["bills_in"] == "지폐 투입" and dict(meters)["tickets_in_count"] == "티켓 투입 (매수)"
    assert page.inner_text("#machine-status") == "운영 중"
    shot(page, "korean-1-machine")

    page.goto(server.url + "/cashier")
    login(page, api, "cashier")  # the operator's token is not a cashier's: the page asks again
    page.wait_for_selector("#expected-cash")
    page.fill("#scan", vn)
    page.press("#scan", "Enter")
    page.wait_for_selector('#verdict[data-reason="already_redeemed"]')
    assert page.inner_text("#verdict") == "지급 불가: 이미 지급된 티켓입니다"
    facts = page.inner_text("#refusal-facts")
    assert "케이지 MAIN" in facts and WHEN.search(facts), facts
    result = page.inner_text("#result")
    assert "redeemed" not in result.lower() and "cashable" not in result, result
    shot(page, "korean-2-cashier-refusal")
    page.click("button[data-lang=en]")  # the refusal on the screen is drawn again in the language chosen
    page.wait_for_function("() => document.getElementById('verdict').textContent === 'Cannot be paid: Ticket already redeemed'")
    assert "cage MAIN" in page.inner_text("#refusal-facts")
    page.click("button[data-lang=ko]")

    page.goto(server.url + "/reports")
    login(page, api, "auditor")
    page.wait_for_selector('[data-table="dates.tickets"] tbody tr')
    heads = page.eval_on_selector_all('[data-table="dates.tickets"] th', "els => els.map(e => [e.dataset.col, e.textContent])")
    assert dict(heads)["validation_number"] == "검증 번호"
    assert [c for c, text in heads if not HANGUL.search(text)] == []
    page.select_option("#report", "meters")
    page.wait_for_selector('[data-table="machines"] tbody tr')
    heads = page.eval_on_selector_all('[data-table="machines"] th', "els => els.map(e => [e.dataset.col, e.textContent])")
    assert dict(heads)["meters.bills_in"] == "지폐 투입"
    assert [c for c, text in heads if not HANGUL.search(text)] == []
    statuses = page.eval_on_selector_all('[data-table="machines"] tbody tr', "rows => rows.map(r => r.textContent)")
    assert statuses and not any("active" in s for s in statuses)
    shot(page, "korean-3-reports")
