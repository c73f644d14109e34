"""The screens under their Content-Security-Policy (slotsys/api/guards.py) in headless Chromium: every page's
scripts and styles are its own files (the ``page`` fixture fails a test on any CSP violation it reports); the
Swagger UI page's inline initialisation runs, allowed by its hash; a page refuses to be framed; the reports'
CSV export comes from the server with formula-like text neutralised."""

from __future__ import annotations

import csv
import io

from tests.e2e.browser.conftest import cash_out_ticket, login

PAGES = ["/", "/console", "/console/jackpots", "/console/par-sheets", "/cashier", "/kiosk", "/signage/VIP", "/reports",
         "/console/machines/M001"]


def test_every_page_loads_under_its_csp(page, live):
    server, _ = live
    for path in PAGES:
        r = page.goto(server.url + path)
        assert r.status == 200 and "default-src 'self'" in r.headers["content-security-policy"], path
        page.wait_for_load_state("load")
        assert page.evaluate("() => typeof window.SS") == "object", path  # app.js ran


def test_the_docs_inline_init_runs_under_its_hash(browser, live):
    server, _ = live
    ctx = browser.new_context()
    pg = ctx.new_page()
    pg.route("https://**/*", lambda route: route.abort())  # no CDN here: only the page's own inline script matters
    errors: list[str] = []
    blocked: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.on("console", lambda m: blocked.append(m.text) if "Content Security Policy" in m.text else None)
    r = pg.goto(server.url + "/docs")
    assert "sha256-" in r.headers["content-security-policy"]
    pg.wait_for_load_state("load")
    pg.wait_for_timeout(300)
    ctx.close()
    # the inline script ran (allowed by its hash): it stops only for want of the Swagger UI bundle (no CDN here)
    assert any("SwaggerUIBundle is not defined" in e for e in errors), errors
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
