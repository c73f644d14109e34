"""The gaming-day close through the API, on the demo floor: play across two gaming days (the clock moved with
time-machine: every ``datetime.now`` of the app, the ledger's and the recall's time stamps included), close
both, and tie the day report to the ledger to the won; a drop count with a planted variance stays open until a
supervisor accepts it; the XLSX, PDF and CSV documents read back."""

from __future__ import annotations

import io
import uuid
from collections import defaultdict
from datetime import date, datetime, timedelta, timezone

import openpyxl
import pypdfium2 as pdfium
import pytest
import sqlalchemy as sa
import time_machine

from jackpot_controller.adapters.tables import JackpotLevel
from slotsys.kernel.gaming_day import GamingDay
from slotsys.kernel.adapters.db import Account, JournalEntryRow, PostingRow

GD = GamingDay(6, "Asia/Seoul")  # the settings' defaults: SLOTSYS_GAMING_DAY_START_HOUR=6, _TZ=Asia/Seoul
BASE = "/api/v1/accounting"


def _ok(r, status=200):
    assert r.status_code == status, (r.status_code, r.get_json(silent=True))
    return r.json


def _problem(r, status, field):
    assert r.status_code == status and r.mimetype == "application/problem+json", (r.status_code, r.get_data(as_text=True))
    assert r.json.get("field") == field, r.json
    return r.json


class Play:
    """What the test itself saw happen, per gaming day and machine (the independent count)."""

    def __init__(self, api) -> None:
        self.api = api
        self.figures: dict[tuple[date, str], dict[str, int]] = defaultdict(lambda: defaultdict(int))

    def day(self) -> date:
        return GD.day_of(datetime.now(timezone.utc))

    def add(self, asset: str, **deltas: int) -> None:
        f = self.figures[(self.day(), asset)]
        for k, v in deltas.items():
            f[k] += v

    def bill(self, asset: str, amount: int) -> None:
        _ok(self.api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/bill-in", {"amount": amount}))
        self.add(asset, bills_in=amount)

    def spins(self, asset: str, n: int, bet: dict) -> None:
        for _ in range(n):
            r = _ok(self.api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/spin", bet))
            jackpot = r["credits"] - (r["credits_before"] - r["bet"]["won"] + r["total_win"])
            self.add(asset, coin_in=r["bet"]["won"], coin_out=r["total_win"], games_played=1, jackpot_out=jackpot)

    def cash_out(self, asset: str) -> dict:
        r = _ok(self.api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/cash-out"), 201)
        self.add(asset, tickets_out=r["ticket"]["amount"], tickets_out_count=1)
        return r["ticket"]

    def ticket_in(self, asset: str, ticket: dict) -> None:
        _ok(self.api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/ticket-in",
                                {"validation_number": ticket["validation_number"]}))
        self.add(asset, tickets_in=ticket["amount"], tickets_in_count=1)

    def total(self, day: date, figure: str) -> int:
        return sum(f[figure] for (d, _), f in self.figures.items() if d == day)


def _set_trigger(app, code: str, above_milli: int) -> None:
    with app.extensions["slotsys"].uow() as uow:
        lv = uow.session.query(JackpotLevel).filter_by(code=code).one()
        lv.trigger_milli = lv.value_milli + above_milli
        uow.commit()


def _ledger_movement(app, prefix: str, suffix: str, start: datetime, end: datetime) -> int:
    """Credits − debits of the accounts ``prefix…suffix`` from the entries made in ``[start, end)``."""
    with app.extensions["slotsys"].uow(readonly=True) as uow:
        total = uow.session.scalar(
            sa.select(sa.func.coalesce(sa.func.sum(PostingRow.amount), 0)).select_from(PostingRow)
            .join(JournalEntryRow, JournalEntryRow.id == PostingRow.entry_id)
            .join(Account, Account.id == PostingRow.account_id)
            .where(Account.code.like(f"{prefix}%{suffix}"), JournalEntryRow.created_at >= start,
                   JournalEntryRow.created_at < end))
    return -int(total)


def _close(api, day: date, key: str | None = "auto"):
    return api.as_staff("auditor", "POST", f"{BASE}/days/{day.isoformat()}/close", key=key)


@pytest.fixture
def floor_days(app, api):
    """Three gaming days after the seeded floor's enrolment: d0 (no play; the floor's first close), d1 and d2
    with play; yields (play, traveller, d0, d1, d2) with the clock inside d1 after d0's close."""
    d0 = GD.day_of(datetime.now(timezone.utc)) + timedelta(days=2)
    d1, d2 = d0 + timedelta(days=1), d0 + timedelta(days=2)
    with time_machine.travel(GD.bounds(d1)[0] + timedelta(minutes=3), tick=True) as traveller:
        api._tokens.clear()  # staff tokens issued before the jump would be hours from their expiry
        body = _ok(_close(api, d0), 201)
        assert body["newly_closed"] and body["machines"] == 30 and body["coin_in"] == 0
        yield Play(api), traveller, d0, d1, d2


def test_two_gaming_days_close_and_tie_to_the_ledger_to_the_won(app, api, floor_days):
    play, traveller, d0, d1, d2 = floor_days
    line = {"lines": 20, "multiplier": 1}
    # ---- gaming day d1: bills, spins, a cash-out ticket inserted at another machine, a cage redemption, a jackpot
    play.bill("M001", 50_000)
    play.bill("M001", 50_000)
    play.spins("M001", 25, line)
    t1 = play.cash_out("M001")
    play.bill("M002", 50_000)
    play.ticket_in("M002", t1)
    play.spins("M002", 10, {"reels": 5, "multiplier": 1})
    t2 = play.cash_out("M002")
    _ok(api.as_staff("cashier", "POST", "/api/v1/cage/redeem", {"validation_number": t2["validation_number"]}))
    play.bill("M003", 50_000)
    _set_trigger(app, "MASS_MINOR", 1)  # the next qualifying wager in the Mass zone hits the Minor
    play.spins("M003", 1, line)
    assert play.total(d1, "jackpot_out") > 0
    play.spins("M003", 5, line)
    # ---- gaming day d2: play, and a game change on M005 between its games
    traveller.move_to(GD.bounds(d2)[0] + timedelta(hours=5))
    api._tokens.clear()
    r = _close(api, d1)
    d1_close = _ok(r, 201)
    assert d1_close["newly_closed"] and r.headers.get("Idempotent-Replayed") is None
    play.bill("M005", 50_000)
    play.spins("M005", 8, line)
    play.cash_out("M005")
    _ok(api.as_staff("operator", "POST", "/api/v1/machines/M005/game", {"game": "tiger_reels_243",
                                                                         "reason": "floor refresh"}))
    play.bill("M005", 50_000)
    play.spins("M005", 6, {"reels": 5, "multiplier": 1})
    play.bill("M001", 50_000)
    play.spins("M001", 4, line)
    traveller.move_to(GD.bounds(d2)[1] + timedelta(minutes=5))
    api._tokens.clear()
    # the beat's task closes d2 (its meters read, the day closed: the settle time has passed)
    celery = app.extensions["slotsys"].celery
    done = celery.tasks["slotsys.accounting_close_due"].delay().get()
    assert done["closed"] == [d2.isoformat()] and done["read"] == [d2.isoformat()], done

    for day in (d1, d2):
        start, end = GD.bounds(day)
        rep = _ok(api.as_staff("auditor", "GET", f"{BASE}/days/{day.isoformat()}?limit=500", key=None))
        floor = rep["floor"]
        # the floor's totals are the test's own count of the play …
        for figure in ("coin_in", "coin_out", "bills_in", "jackpot_out", "tickets_in", "tickets_out", "games_played"):
            assert floor[figure] == play.total(day, figure), (day, figure, floor[figure], play.total(day, figure))
        assert floor["hold"] == play.total(day, "coin_in") - play.total(day, "coin_out")
        # … and tie to the ledger to the won: the slot win (4110) and the drop (1210) of the day's journal
        assert floor["hold"] == _ledger_movement(app, "machine:", ":hold", start, end)
        assert floor["bills_in"] == -_ledger_movement(app, "machine:", ":drop", start, end)
        journal = _ok(api.as_staff("supervisor", "GET", f"{BASE}/days/{day.isoformat()}/journal", key=None))
        assert journal["balanced"] and journal["total"]["debits"] == journal["total"]["credits"] > 0
        gl = {row["gl"]: row for row in journal["rows"]}
        assert gl["4110"]["normal_net"] == floor["hold"] and gl["1210"]["debits"] == floor["bills_in"]
        assert rep["ties"]["agree"] and rep["ties"]["differences"] == []
        assert rep["journal"]["balanced"] and rep["liabilities"]["all_agree"], rep["liabilities"]["differences"]
        # every total is the sum of its rows
        machines = rep["machines"]
        assert len(machines) == 30 and rep["next_cursor"] is None
        for figure in ("coin_in", "hold", "theo_won", "bills_in"):
            assert sum(m[figure] for m in machines) == floor[figure]
            assert sum(z[figure] for z in rep["zones"]) == floor[figure] == sum(b[figure] for b in rep["banks"])
        assert all(m["exceptions"] == [] for m in machines), [m["exceptions"] for m in machines if m["exceptions"]]
        played = {m["asset"]: m for m in machines if m["games_played"]}
        for m in played.values():
            assert m["theo_won"] > 0 and m["coin_in_unattributed"] == 0 and m["z"] is not None
            assert m["ties"] and all(t["difference"] == 0 for t in m["ties"])
    # M005 changed game during d2: it counts in both games, a part each
    rep2 = _ok(api.as_staff("auditor", "GET", f"{BASE}/days/{d2.isoformat()}?machine=M005", key=None))
    (m5,) = rep2["machines"]
    assert m5["games"] == "dragon_pearl_50,tiger_reels_243" and len(m5["parts"]) == 2
    assert sum(p["coin_in"] for p in m5["parts"]) == m5["coin_in"] == play.figures[(d2, "M005")]["coin_in"]
    games = {g["game"]: g for g in rep2["games"]}
    assert sum(g["coin_in"] for g in games.values()) == rep2["floor"]["coin_in"]

    # the close is idempotent: a closed day is returned (200), a replayed key answers as the first time
    again = _ok(_close(api, d1), 200)
    assert again["newly_closed"] is False and again["coin_in"] == d1_close["coin_in"]
    key = uuid.uuid4().hex
    first = _close(api, d2, key=key)
    replay = _close(api, d2, key=key)
    assert first.status_code == replay.status_code == 200 and replay.headers["Idempotent-Replayed"] == "true"
    assert replay.json == first.json


def test_paging_filters_and_bad_input(app, api, floor_days):
    play, traveller, d0, d1, d2 = floor_days
    play.bill("V001", 50_000)
    play.spins("V001", 3, {"lines": 1, "multiplier": 1})
    traveller.move_to(GD.bounds(d1)[1] + timedelta(minutes=5))
    api._tokens.clear()
    _ok(_close(api, d1), 201)
    url = f"{BASE}/days/{d1.isoformat()}"
    seen, cursor = [], None
    while True:
        page = _ok(api.as_staff("auditor", "GET", url + "?limit=7" + (f"&cursor={cursor}" if cursor else ""), key=None))
        seen += [m["asset"] for m in page["machines"]]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert seen == sorted(seen) and len(seen) == len(set(seen)) == 30
    vip = _ok(api.as_staff("supervisor", "GET", url + "?zone=VIP", key=None))
    assert {m["zone"] for m in vip["machines"]} == {"VIP"} and len(vip["machines"]) == 10
    assert [z["zone"] for z in vip["zones"]] == ["VIP"] and vip["floor"]["coin_in"] == play.total(d1, "coin_in")
    bank = _ok(api.as_staff("auditor", "GET", url + "?bank=M1", key=None))
    assert {m["bank"] for m in bank["machines"]} == {"M1"} and [b["bank"] for b in bank["banks"]] == ["M1"]
    # bad input: 422 problem+json naming the field
    _problem(api.as_staff("auditor", "GET", url + "?cursor=nonsense", key=None), 422, "cursor")
    _problem(api.as_staff("auditor", "GET", url + "?limit=0", key=None), 422, "limit")
    _problem(api.as_staff("auditor", "GET", f"{BASE}/days/2026-13-01", key=None), 422, "day")
    _problem(api.as_staff("auditor", "GET", f"{BASE}/days/0001-01-01", key=None), 422, "day")
    _problem(_close(api, d1 + timedelta(days=5)), 409, "day")  # not ended
    _problem(_close(api, d1, key=None), 422, "Idempotency-Key")
    _problem(api.as_staff("auditor", "GET", f"{BASE}/days/{(d0 - timedelta(days=30)).isoformat()}", key=None), 404,
             "day")
    _problem(api.as_staff("auditor", "GET", f"{url}/export.csv?section=nope", key=None), 422, "section")
    _problem(api.as_staff("cashier", "GET", url, key=None), 403, None)


def test_a_planted_drop_variance_stays_open_until_a_supervisor_accepts_it(app, api, floor_days):
    play, traveller, d0, d1, d2 = floor_days
    play.bill("M011", 50_000)
    play.bill("M011", 10_000)
    play.spins("M011", 3, {"lines": 20, "multiplier": 1})
    ticket = play.cash_out("M011")
    play.ticket_in("M012", ticket)
    traveller.move_to(GD.bounds(d1)[1] + timedelta(minutes=5))
    api._tokens.clear()
    count_url = f"{BASE}/drops/M011/count"
    # the day is not closed yet: the drop's expectation does not exist
    _problem(api.as_staff("cashier", "POST", count_url, {"day": d1.isoformat(), "bills": {"50000": 1}}), 409, "day")
    _ok(_close(api, d1), 201)
    # M011's stacker: one ₩10,000 note short (planted)
    body = {"day": d1.isoformat(), "bills": {"50000": 1}}
    counted = _ok(api.as_staff("cashier", "POST", count_url, body), 201)
    by_kind = {v["kind"]: v for v in counted["variances"]}
    bills = by_kind["bills_vs_meter"]
    assert (bills["counted"], bills["expected"], bills["difference"], bills["state"]) == (50_000, 60_000, -10_000, "open")
    assert by_kind["tickets_vs_meter"]["state"] == by_kind["tickets_vs_system"]["state"] == "balanced"
    _problem(api.as_staff("cashier", "POST", count_url, body), 409, "stacker")  # counted once
    # M012's stacker holds the ticket, as the ticket system says: balanced
    vn = ticket["validation_number"]
    m12 = _ok(api.as_staff("cashier", "POST", f"{BASE}/drops/M012/count",
                           {"day": d1.isoformat(), "bills": {}, "tickets": [{"validation_number": vn,
                                                                             "amount": ticket["amount"]}]}), 201)
    assert {v["kind"]: v["state"] for v in m12["variances"]} == {"bills_vs_meter": "balanced",
                                                                 "tickets_vs_meter": "balanced",
                                                                 "tickets_vs_system": "balanced"}
    # bad counts: 422 naming the field
    _problem(api.as_staff("cashier", "POST", f"{BASE}/drops/M013/count", {"day": d1.isoformat(), "bills": {"2000": 1}}),
             422, "bills")
    _problem(api.as_staff("cashier", "POST", f"{BASE}/drops/M013/count", {"day": "yesterday", "bills": {}}), 422, "day")

    opened = _ok(api.as_staff("supervisor", "GET", f"{BASE}/variances?state=open", key=None))["variances"]
    assert [v["id"] for v in opened] == [bills["id"]]
    accept = f"{BASE}/variances/{bills['id']}/accept"
    _problem(api.as_staff("cashier", "POST", accept, {"reason": "mine"}), 403, None)  # a cashier may not accept
    _problem(api.as_staff("supervisor", "POST", accept, {}), 422, "reason")
    reason = "=HYPERLINK(\"http://x\",\"note jammed in the validator\")"  # a formula typed as a reason
    done = _ok(api.as_staff("supervisor", "POST", accept, {"reason": reason}))
    assert done["state"] == "accepted" and done["accepted_by"] == "supervisor" and done["difference"] == -10_000
    _problem(api.as_staff("supervisor", "POST", accept, {"reason": "again"}), 409, "variance")
    assert _ok(api.as_staff("auditor", "GET", f"{BASE}/variances?state=open", key=None))["variances"] == []
    accepted = _ok(api.as_staff("auditor", "GET", f"{BASE}/variances?state=accepted", key=None))["variances"]
    assert [(v["id"], v["reason"]) for v in accepted] == [(bills["id"], reason)]
    log = _ok(api.as_staff("auditor", "GET", "/api/v1/audit/log?action=variance.accept", key=None))
    entries = log["entries"]
    assert entries and entries[0]["actor"] == "supervisor" and entries[0]["reason"] == reason

    # a supervisor who counted may not accept their own count's variance (segregation of duties)
    own = _ok(api.as_staff("supervisor", "POST", f"{BASE}/drops/M013/count", {"day": d1.isoformat(),
                                                                               "bills": {"1000": 1}}), 201)
    planted = next(v for v in own["variances"] if v["kind"] == "bills_vs_meter")
    _problem(api.as_staff("supervisor", "POST", f"{BASE}/variances/{planted['id']}/accept", {"reason": "ok"}), 403,
             "accepted_by")
    _ok(api.as_staff("admin", "POST", f"{BASE}/variances/{planted['id']}/accept", {"reason": "second person"}))

    # the day report shows the variances as they stand
    rep = _ok(api.as_staff("auditor", "GET", f"{BASE}/days/{d1.isoformat()}", key=None))
    assert rep["variances"]["open"] == [] and rep["variances"]["accepted"] == 2

    # ---- the documents: XLSX read back with openpyxl
    r = api.as_staff("auditor", "GET", f"{BASE}/days/{d1.isoformat()}/export.xlsx", key=None)
    assert r.status_code == 200 and r.mimetype == "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
    assert r.headers["Content-Disposition"] == f'attachment; filename="day_report-{d1.isoformat()}.xlsx"'
    wb = openpyxl.load_workbook(io.BytesIO(r.data))
    ws = wb["머신 Machines"]
    labels = [c.value for c in ws[6]]
    coin_in = labels.index("Coin-in") + 1
    last = ws.max_row
    assert ws.cell(last, 1).value == "합계 Total" and ws.cell(last, 1).font.bold
    assert ws.cell(last, coin_in).value == rep["floor"]["coin_in"] == play.total(d1, "coin_in")
    assert sum(ws.cell(i, coin_in).value for i in range(7, last)) == rep["floor"]["coin_in"]
    drop = wb["드롭 Drop"]
    col = [c.value for c in drop[6]].index("Reason") + 1
    reasons = [drop.cell(i, col).value for i in range(7, drop.max_row + 1)]
    assert "'" + reason in reasons and not any(isinstance(v, str) and v.startswith("=") for v in reasons)
    assert all(c.data_type != "f" for row in drop.iter_rows() for c in row)
    # ---- PDF text read back with pypdfium2: page numbers, the signature block, the totals
    r = api.as_staff("supervisor", "GET", f"{BASE}/days/{d1.isoformat()}/export.pdf", key=None)
    assert r.status_code == 200 and r.mimetype == "application/pdf" and r.data.startswith(b"%PDF")
    pdf = pdfium.PdfDocument(r.data)
    pages = [pdf[i].get_textpage().get_text_range() for i in range(len(pdf))]
    n = len(pages)
    assert n >= 2 and all(f"page {i + 1} of {n}" in t for i, t in enumerate(pages))
    assert "감사 담당" in pages[-1] and "확인자" in pages[-1] and "Signatures" in pages[-1]
    assert f"{rep['floor']['coin_in']:,}" in "".join(pages)
    # ---- CSV: one section, BOM, bilingual labels, totals last, formula prefixes neutralised
    r = api.as_staff("auditor", "GET", f"{BASE}/days/{d1.isoformat()}/export.csv?section=drop", key=None)
    assert r.status_code == 200 and r.headers["Content-Type"] == "text/csv; charset=utf-8"
    text = r.data.decode("utf-8")
    assert text.startswith("\ufeff") and "사유 / Reason" in text and "'=HYPERLINK" in text
    r = api.as_staff("auditor", "GET", f"{BASE}/days/{d1.isoformat()}/export.csv", key=None)
    rows = r.data.decode("utf-8").strip().split("\r\n")
    assert "코인 인 / Coin-in" in rows[0] and rows[-1].startswith("합계 Total")
    # the journal document
    r = api.as_staff("auditor", "GET", f"{BASE}/days/{d1.isoformat()}/export.xlsx?document=journal", key=None)
    assert "계정과목 Chart of accounts" in openpyxl.load_workbook(io.BytesIO(r.data)).sheetnames
