"""The screens under their Content-Security-Policy (slotsys/app/api/guards.py) in headless Chromium: every page's
scripts and styles are its own files (the ``page`` fixture fails a test on any CSP violation it reports); the
offline Swagger UI page runs under a script policy of 'self'; a page refuses to be framed; the reports'
CSV export comes from the server with formula-like text neutralised."""

from __future__ import annotations

import csv
import io

from tests.e2e.browser.conftest import cash_out_ticket, login

PAGES = ["/", "/console", "/console/jackpots", "/console/par-sheets", "/cashier", "/kiosk", "/signage/VIP", "/reports",
         "/console/games", "/console/staff", "/console/audit-log",
         "/console/machines/M001"]


def test_every_page_loads_under_its_csp(page, live):
    server, _ = live
    for path in PAGES:
        r = page.goto(server.url + path)
        assert r.status == 200 and "default-src 'self'" in r.headers["content-security-policy"], path
        page.wait_for_load_state("load")
        assert page.evaluate("() => typeof window.SS") == "object", path  # app.js ran


def test_the_docs_run_swagger_ui_under_a_script_policy_of_self(browser, live):
    """The offline Swagger UI page: its scripts are the app's own files (no inline script, no eval), and it
    renders the operations under that policy with every other origin blocked."""
    server, _ = live
    ctx = browser.new_context()
    pg = ctx.new_page()
    pg.route("https://**/*", lambda route: route.abort())  # no CDN: nothing outside the app may be needed
    errors: list[str] = []
    blocked: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.on("console", lambda m: blocked.append(m.text) if "Content Security Policy" in m.text else None)
    r = pg.goto(server.url + "/docs")
    script_src = next(d for d in r.headers["content-security-policy"].split(";") if d.strip().startswith("script-src"))
    assert "unsafe-inline" not in script_src and "unsafe-eval" not in script_src, script_src
    pg.wait_for_selector("#swagger-ui .opblock", timeout=20_000)
    ctx.close()
    assert not errors, errors
    assert not blocked, blocked


def test_pages_refuse_to_be_framed(browser, live):
    server, _ = live
    ctx = browser.new_context()
    pg = ctx.new_page()
    pg.set_content(f'<iframe id="f" src="{server.url}/cashier"></iframe>')
    pg.wait_for_timeout(1500)
    frame = pg.frame_locator("#f")
    assert frame.locator("#login-form").count() == 0  # the cashier page did not render inside the frame
    ctx.close()


def test_reports_csv_neutralises_formula_text(page, live):
    server, api = live
    vn = cash_out_ticket(api, "M011", 1_000)
    r = api.as_staff("supervisor", "POST", f"/api/v1/tickets/{vn}/void", {"reason": "=HYPERLINK(\"http://evil\")"})
    assert r.status_code in (200, 201), r.json
    page.goto(server.url + "/reports")
    login(page, api, "auditor")
    page.select_option("#report", "voided")
    page.wait_for_selector('[data-table="tickets"] tbody tr')
    with page.expect_download() as dl:
        page.click('[data-csv="tickets"]')
    rows = list(csv.DictReader(io.StringIO(open(dl.value.path(), encoding="utf-8-sig").read())))
    mine = [row for row in rows if row["validation_number"] == vn]
    assert mine and mine[0]["reason"] == "'=HYPERLINK(\"http://evil\")", mine
