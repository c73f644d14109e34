"""The reports screen as an auditor closing a gaming day reads it (docs/accounting.md, "The reports screen"), in
Chromium: a floor of its own played across hours of one gaming day (a jackpot hit, two short stackers: one
variance accepted, one left open) and closed; the day report labelled in English and in Korean (no raw field
names), its totals rows equal to the API's floor figures, a zone filter, the API's cursor paging, the variances
by state, a server-built document, a TITO report, and the three charts loaded as images."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

import pytest
import time_machine

from slotsys.kernel.gaming_day import GamingDay
from tests.e2e.browser.conftest import LiveServer, login, shot

GD = GamingDay(6, "Asia/Seoul")
HANGUL = re.compile(r"[\uac00-\ud7a3]")
BASE = "/api/v1/accounting"
CHARTS_LOADED = ("() => ['chart-hold', 'chart-coin-in', 'chart-jackpot'].every(id => { const i = document.getElementById(id);"
                 " return i.src.startsWith('blob:') && i.complete && i.naturalWidth > 0"
                 " && i.dataset.shown === i.dataset.want; })")


def _ok(r, status=200):
    assert r.status_code == status, (r.status_code, r.get_json(silent=True))
    return r.json


@pytest.fixture(scope="module")
def closed_floor(chromium_path, tmp_path_factory):
    """(server, api, day, report): a seeded floor of its own, played in three hours of gaming day ``day`` and
    closed (with the floor's first close the day before), two stackers counted short, one variance accepted."""
    from jackpot_controller.adapters.tables import JackpotLevel
    from slotsys.kernel.settings import Settings
    from tests.conftest import Api, _make_app

    tmp = tmp_path_factory.mktemp("reports-day")
    app = _make_app(Settings(database_url=f"sqlite:///{tmp / 'floor.db'}", redis_url=None, celery_eager=True,
                             credentials_file=tmp / "creds.json"))
    app.config["TESTING"] = False
    server = LiveServer(app)
    api = Api(app)
    d0 = GD.day_of(datetime.now(timezone.utc)) + timedelta(days=2)
    day = d0 + timedelta(days=1)
    start, end = GD.bounds(day)
    line = {"lines": 20, "multiplier": 1}

    def play(asset: str, spins: int, bet: dict) -> None:
        _ok(api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/bill-in", {"amount": 50_000}))
        for _ in range(spins):
            _ok(api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/spin", bet))

    with time_machine.travel(start + timedelta(minutes=3), tick=True) as t:
        _ok(api.as_staff("auditor", "POST", f"{BASE}/days/{d0.isoformat()}/close"), 201)
        play("M001", 8, line)
        play("V001", 5, {"lines": 1, "multiplier": 1})
        t.move_to(start + timedelta(hours=3, minutes=20))
        api._tokens.clear()
        with app.extensions["slotsys"].uow() as uow:  # the next qualifying wager in the Mass zone hits the Minor
            lv = uow.session.query(JackpotLevel).filter_by(code="MASS_MINOR").one()
            lv.trigger_milli = lv.value_milli + 1
            uow.commit()
        play("M003", 4, line)
        t.move_to(start + timedelta(hours=15, minutes=5))
        api._tokens.clear()
        play("M011", 3, line)
        t.move_to(end + timedelta(minutes=5))
        api._tokens.clear()
        _ok(api.as_staff("auditor", "POST", f"{BASE}/days/{day.isoformat()}/close"), 201)
        for asset in ("M001", "M011"):  # each stacker one ₩50,000 note short of its bills-in meter
            counted = _ok(api.as_staff("cashier", "POST", f"{BASE}/drops/{asset}/count",
                                       {"day": day.isoformat(), "bills": {}}), 201)
            if asset == "M011":
                bills = next(v for v in counted["variances"] if v["kind"] == "bills_vs_meter")
                _ok(api.as_staff("supervisor", "POST", f"{BASE}/variances/{bills['id']}/accept",
                                 {"reason": "note found under the stacker"}))
        report = _ok(api.as_staff("auditor", "GET", f"{BASE}/days/{day.isoformat()}?limit=500", key=None))
    api._tokens.clear()  # back in real time: the page logs in afresh
    yield server, api, day, report
    server.stop()
    app.extensions["slotsys"].jackpots.driver.stop()
    app.extensions["slotsys"].uow.engine.dispose()


def _open_day(page, server, api, day) -> None:
    page.goto(server.url + "/reports")
    login(page, api, "auditor")
    # the screen opens on the latest closed day, offered among the closed days
    page.wait_for_selector("#t-machines tbody tr.totals")
    assert page.input_value("#day") == day.isoformat() and page.input_value("#day-pick") == day.isoformat()
    picks = page.eval_on_selector_all("#day-pick option", "os => os.map(o => o.value)")
    assert picks[1:] == [day.isoformat(), (day - timedelta(days=1)).isoformat()]
    page.fill("#day", day.isoformat())
    page.click("#day-load")
    page.wait_for_selector("#t-machines tbody tr.totals")


def _heads(page, table: str) -> list[tuple[str, str]]:
    return page.eval_on_selector_all(f"#{table} th", "els => els.map(e => [e.dataset.col, e.textContent])")


def _rows(page, table: str) -> int:
    return len(page.query_selector_all(f"#{table} tbody tr:not(.totals)"))


def _total(page, table: str, col: str) -> str:
    return page.inner_text(f'#{table} tr.totals td[data-col="{col}"]')


def test_the_auditor_reads_a_closed_day_filters_pages_and_opens_documents_charts_and_tito_reports(page, closed_floor):
    server, api, day, report = closed_floor
    floor = report["floor"]
    _open_day(page, server, api, day)
    assert page.inner_text("#day-label") == report["label"] and "KST" in report["label"]
    assert re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d KST", page.inner_text("#day-facts"))
    # every column labelled: no raw field name (nothing with an underscore, nothing equal to its field)
    for table in ("t-floor", "t-zones", "t-banks", "t-games", "t-machines", "t-liabilities"):
        heads = _heads(page, table)
        assert heads and [c for c, text in heads if "_" in text or text == c or not text.strip()] == [], (table, heads)
    heads = dict(_heads(page, "t-machines"))
    assert heads["coin_in"] == "Coin-in" and heads["theo_won"] == "Theoretical hold" and heads["z"] == "z-score"
    assert heads["flagged"] == "Outside k SD" and heads["hold_pct"] == "Hold %"
    # totals rows: the floor's figures, to the won
    assert _total(page, "t-machines", "coin_in") == f"₩{floor['coin_in']:,}"
    assert _total(page, "t-machines", "hold") == ("-" if floor["hold"] < 0 else "") + f"₩{abs(floor['hold']):,}"
    assert _total(page, "t-zones", "games_played") == f"{floor['games_played']:,}"
    assert _total(page, "t-games", "theo_won") == f"₩{floor['theo_won']:,}"
    assert page.inner_text('#t-machines tr.totals td[data-col="asset"]') == "Total · Floor"
    assert _rows(page, "t-machines") == 30 and page.is_disabled("#page-next")
    # the API's cursor pages: 25 then 5
    page.select_option("#f-limit", "25")
    page.wait_for_function("() => document.querySelectorAll('#t-machines tbody tr:not(.totals)').length === 25")
    page.click("#page-next")
    page.wait_for_function("() => document.querySelectorAll('#t-machines tbody tr:not(.totals)').length === 5")
    assert page.inner_text("#page-no").strip() == "Page 2"
    page.click("#page-prev")
    page.wait_for_function("() => document.querySelectorAll('#t-machines tbody tr:not(.totals)').length === 25")
    # a zone filter: its machines, its total
    page.select_option("#f-zone", "VIP")
    page.wait_for_function("() => document.querySelectorAll('#t-machines tbody tr:not(.totals)').length === 10")
    assets = page.eval_on_selector_all("#t-machines tbody tr:not(.totals)", "rs => rs.map(r => r.dataset.row)")
    assert all(a.startswith("V") for a in assets), assets
    vip = next(z for z in report["zones"] if z["zone"] == "VIP")
    assert page.inner_text('#t-machines tr.totals td[data-col="asset"]') == "Total · VIP"
    assert _total(page, "t-machines", "coin_in") == f"₩{vip['coin_in']:,}"
    page.wait_for_function(CHARTS_LOADED, timeout=30_000)
    page.select_option("#f-zone", "")
    page.wait_for_function("() => document.querySelectorAll('#t-machines tbody tr:not(.totals)').length === 25")
    # the variances: one open, one accepted; the state filter
    assert page.inner_text("#v-open") == "1" and page.inner_text("#v-accepted") == "1"
    page.select_option("#v-state", "accepted")
    page.wait_for_function("() => { const rs = document.querySelectorAll('#t-variances tbody tr');"
                           " return rs.length === 1 && rs[0].textContent.includes('note found'); }")
    assert "accepted" in page.inner_text("#t-variances tbody tr")
    # the liabilities, against the ledger
    assert "tito:outstanding" in page.inner_text("#t-liabilities")
    # a server-built document
    with page.expect_download() as dl:
        page.click('[data-doc="pdf"]')
    assert dl.value.suggested_filename == f"day_report-{day.isoformat()}.pdf"
    assert open(dl.value.path(), "rb").read(5) == b"%PDF-"
    # the charts, rendered: the jackpot level chosen from the day's levels
    page.wait_for_function(CHARTS_LOADED, timeout=30_000)
    levels = page.eval_on_selector_all("#chart-level option", "os => os.map(o => o.value)")
    assert "MASS_MINOR" in levels
    page.select_option("#chart-level", "MASS_MINOR")
    page.wait_for_function(CHARTS_LOADED, timeout=30_000)
    assert "/charts/jackpot/MASS_MINOR.svg?lang=en" in page.get_attribute("#chart-jackpot", "data-shown")
    assert "/charts/hold.svg?lang=en" in page.get_attribute("#chart-hold", "data-shown")
    shot(page, "reports-day-1-english")
    # every TITO report is reachable from the screen
    options = page.eval_on_selector_all("#report option", "os => os.map(o => o.value)")
    assert {"issued", "redeemed", "outstanding", "expired", "voided", "reconciliation", "security"} <= set(options)
    page.select_option("#report", "reconciliation")
    page.wait_for_selector('#tables [data-table="machines"] tbody tr')
    page.select_option("#report", "issued")
    page.wait_for_selector("#tables [data-table]")
    page.click("#range-day")  # the ticket reports over the gaming day of the day report
    assert page.input_value("#from") == page.input_value("#to") == day.isoformat()
    page.wait_for_selector("#tables [data-table]")
    shot(page, "reports-day-2-tito")


def test_the_day_report_in_korean_labels_every_column_and_redraws_the_charts(page, closed_floor):
    server, api, day, report = closed_floor
    _open_day(page, server, api, day)
    page.wait_for_function(CHARTS_LOADED, timeout=30_000)
    before = page.eval_on_selector("#chart-hold", "i => i.src")
    with page.expect_response(lambda r: "/charts/hold.svg" in r.url and "lang=ko" in r.url) as korean:
        page.click("button[data-lang=ko]")
    assert korean.value.ok and korean.value.headers["content-type"].startswith("image/svg+xml")
    svg = api.as_staff("auditor", "GET", korean.value.url.split("127.0.0.1:" + str(server.port))[1], key=None)
    assert svg.mimetype == "image/svg+xml" and svg.data.count(b'id="hold-') == 30  # the same chart, one bar a machine
    page.wait_for_function("() => document.documentElement.lang === 'ko'")
    page.wait_for_function("() => document.querySelector('#t-machines th[data-col=coin_in]').textContent === '코인인'")
    for table in ("t-floor", "t-zones", "t-banks", "t-games", "t-machines", "t-liabilities", "t-variances"):
        page.wait_for_selector(f"#{table} th")
        heads = _heads(page, table)
        assert heads and [c for c, text in heads if not HANGUL.search(text)] == [], (table, heads)
    assert page.inner_text('#t-machines tr.totals td[data-col="asset"]').startswith("합계")
    assert page.inner_text("[data-section=machines] h2") == "머신별"
    assert page.inner_text('[data-doc="xlsx"]') == "영업일 보고서 (XLSX)"
    # the charts are drawn again with Korean labels (lang=ko), and load
    page.wait_for_function(f"() => document.getElementById('chart-hold').src !== {before!r}")
    page.wait_for_function(CHARTS_LOADED, timeout=30_000)
    shot(page, "reports-day-3-korean")
