"""The documents an auditor signs for a gaming day: the day report and the journal summary, as labelled tables
(Korean and English) that the XLSX, PDF and CSV writers render alike. Pure.

A :class:`Document` has a title, the gaming day described with its zone (``GamingDay.describe``), the time it
was made (``GamingDay.format``) and :class:`Section` s. A section has :class:`Column` s (key, Korean and English
label, kind: ``text``, ``won``, ``count``, ``pct``, ``num``, ``flag``), ``rows`` (dicts by column key) and a
``totals`` row or None. Totals are never recomputed by a writer: for the day report they are the floor's
figures (which are the sums of the rows for every summable figure, ``day_close``) and for the journal the
summary's debit and credit totals, so every rendering shows the same numbers.

Rendering rules the writers follow: ``won`` and ``count`` are integers, ``pct`` a fraction (0.9201 →
92.01 %), ``num`` a float (z-scores, SD), ``flag`` a boolean; None is an empty cell.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any, Iterable

from slotsys.accounting.domain.chart import JournalSummary, chart_table
from slotsys.accounting.domain.day_close import DayClose
from slotsys.kernel.gaming_day import GamingDay
from slotsys.kernel.export import to_csv

__all__ = ["Column", "Section", "Document", "day_report", "day_report_of", "journal_document", "journal_document_of", "csv_tables", "csv_files", "SIGNATORIES"]

# Who signs the documents: the auditor who closed the day and a second person (segregation of duties).
SIGNATORIES = (("감사 담당", "Auditor"), ("확인자", "Second signatory"))


@dataclass(frozen=True)
class Column:
    key: str
    ko: str
    en: str
    kind: str = "text"
    pdf: bool = True  # shown in the PDF's (narrower) tables

    @property
    def label(self) -> str:
        return f"{self.ko} / {self.en}"


@dataclass
class Section:
    key: str
    ko: str
    en: str
    columns: list[Column]
    rows: list[dict[str, Any]]
    totals: dict[str, Any] | None = None
    note: str = ""

    @property
    def title(self) -> str:
        return f"{self.ko} · {self.en}"

    @property
    def sheet(self) -> str:
        """A short name (a workbook sheet's, at most 31 characters)."""
        return SHEETS.get(self.key, f"{self.ko} {self.en}")[:31]


@dataclass
class Document:
    """``kind`` ``day_report`` or ``journal``; ``title_ko``/``title_en``; ``gaming_day``; ``day_label`` (the
    day with its bounds and zone); ``generated`` (display format); ``sections``; ``summary`` (key facts:
    label → text, printed under the title)."""

    kind: str
    title_ko: str
    title_en: str
    gaming_day: date
    day_label: str
    zone: str
    generated: str
    sections: list[Section]
    summary: list[tuple[str, str]] = field(default_factory=list)

    @property
    def title(self) -> str:
        return f"{self.title_ko} · {self.title_en}"

    def section(self, key: str) -> Section:
        for s in self.sections:
            if s.key == key:
                return s
        raise KeyError(key)


SHEETS = {"floor": "영업장 Floor", "zones": "구역 Zones", "banks": "뱅크 Banks", "games": "게임 Games",
          "machines": "머신 Machines", "flagged": "이상 Flagged", "exceptions": "예외 Exceptions",
          "ties": "미터-원장 Meters vs ledger", "drop": "드롭 Drop", "accountability": "시재 Accountability",
          "liabilities": "부채 Liabilities", "points": "포인트 Points", "journal": "분개 Journal",
          "chart": "계정과목 Chart of accounts"}

C = Column
FIGURES = [
    C("coin_in", "코인 인", "Coin-in", "won"), C("coin_out", "코인 아웃", "Coin-out", "won"),
    C("hold", "실제 홀드", "Actual hold", "won"), C("hold_pct", "홀드율", "Hold %", "pct"),
    C("theo_won", "이론 홀드", "Theoretical hold", "won"), C("theo_pct", "이론 홀드율", "Theo %", "pct"),
    C("hold_variance", "차이 (실제−이론)", "Variance (actual − theo)", "won"),
    C("sd_hold", "홀드 표준편차", "SD of hold", "num", pdf=False), C("z", "Z-점수", "z-score", "num"),
    C("flagged", "이상", "Outside k SD", "flag"),
    C("jackpot_out", "잭팟", "Jackpots", "won"), C("handpay_out", "핸드페이", "Handpays", "won"),
    C("handpay_out_count", "핸드페이 건수", "Handpay count", "count", pdf=False),
    C("bills_in", "지폐 투입", "Bills in", "won"), C("tickets_in", "티켓 인", "Tickets in", "won"),
    C("tickets_in_count", "티켓 인 매수", "Tickets in count", "count", pdf=False),
    C("tickets_out", "티켓 아웃", "Tickets out", "won"),
    C("tickets_out_count", "티켓 아웃 매수", "Tickets out count", "count", pdf=False),
    C("promo_in", "프로모션 인", "Promotional in", "won", pdf=False),
    C("promo_out", "프로모션 아웃", "Promotional out", "won", pdf=False),
    C("restricted_played", "제한 프로모션 베팅", "Restricted promo played", "won", pdf=False),
    C("nonrestricted_played", "비제한 프로모션 베팅", "Non-restricted promo played", "won", pdf=False),
    C("games_played", "게임 수", "Games played", "count"), C("games_won", "당첨 게임 수", "Games won", "count", pdf=False),
    C("coin_in_unattributed", "미귀속 코인 인", "Coin-in not attributed", "won", pdf=False),
]


def _figures_section(key: str, ko: str, en: str, lead: list[Column], rows: list[dict[str, Any]],
                     totals: dict[str, Any] | None) -> Section:
    return Section(key, ko, en, lead + FIGURES, rows, totals)


def _total_row(floor: dict[str, Any], first: str) -> dict[str, Any]:
    return {**floor, first: "합계 Total"}


def day_report(gd: GamingDay, day: date, close: DayClose, journal: JournalSummary, *, generated_at: datetime,
               ties: list[dict[str, Any]] | None = None, liabilities: dict[str, Any] | None = None,
               drop: dict[str, Any] | None = None, accountability: dict[str, Any] | None = None) -> Document:
    """The day report of gaming ``day``: floor, zones, banks, games, machines (figures of ``close``), the
    machines outside k SD, the meters against the ledger (``ties``: ``day_close.meters_vs_ledger``), drop
    variances (``drop``: ``drop.variance_summary``), cage and kiosk accountability
    (``drop.shift_accountability``), liabilities (``liabilities.liabilities_report``) and the journal summary."""
    return day_report_of(gd, day, close.to_dict(), journal.to_dict(), generated_at=generated_at, ties=ties,
                         liabilities=liabilities, drop=drop, accountability=accountability)


def day_report_of(gd: GamingDay, day: date, d: dict[str, Any], journal: dict[str, Any], *, generated_at: datetime,
                  ties: list[dict[str, Any]] | None = None, liabilities: dict[str, Any] | None = None,
                  drop: dict[str, Any] | None = None, accountability: dict[str, Any] | None = None,
                  notes: list[tuple[str, str]] | None = None) -> Document:
    """:func:`day_report` from the figures as stored: ``d`` = ``DayClose.to_dict()`` (``machines`` may be a
    subset with the floor's totals kept), ``journal`` = ``JournalSummary.to_dict()``; ``notes`` are extra key
    facts (label, text) printed after the others (who closed the day, when the meters were read)."""
    floor = d["floor"]
    k = d["k"]
    sections = [
        _figures_section("floor", "영업장 합계", "Floor", [C("floor", "구분", "Level")], [{**floor, "floor": "영업장 Floor"}],
                         None),
        _figures_section("zones", "구역별", "By zone", [C("zone", "구역", "Zone"), C("machines", "머신 수", "Machines", "count")],
                         d["zones"], _total_row({**floor, "machines": len(d["machines"])}, "zone")),
        _figures_section("banks", "뱅크별", "By bank", [C("bank", "뱅크", "Bank"), C("machines", "머신 수", "Machines", "count")],
                         d["banks"], _total_row({**floor, "machines": len(d["machines"])}, "bank")),
        _figures_section("games", "게임별", "By game", [C("game", "게임", "Game"), C("machines", "머신 수", "Machines", "count")],
                         d["games"], _total_row({**floor, "machines": len(d["machines"])}, "game")),
        _figures_section("machines", "머신별", "By machine",
                         [C("asset", "머신", "Machine"), C("zone", "구역", "Zone"), C("bank", "뱅크", "Bank"),
                          C("games", "게임", "Game", pdf=False)],
                         [{k: v for k, v in r.items() if k != "exceptions"} for r in d["machines"]],
                         _total_row(floor, "asset")),
    ]
    flagged = [r for r in d["machines"] if r["flagged"]]
    sections.append(Section(
        "flagged", "이론 대비 이상 머신", f"Machines outside {k:g} SD of theoretical hold",
        [C("asset", "머신", "Machine"), C("games", "게임", "Game"), C("games_played", "게임 수", "Games played", "count"),
         C("coin_in", "코인 인", "Coin-in", "won"), C("hold", "실제 홀드", "Actual hold", "won"),
         C("theo_won", "이론 홀드", "Theoretical hold", "won"), C("hold_variance", "차이", "Variance", "won"),
         C("sd_hold", "홀드 표준편차", "SD of hold", "num"), C("z", "Z-점수", "z-score", "num")],
        flagged, None, note=f"|z| > {k:g}, z = (actual hold − E[hold]) / SD[hold] under the par sheet"))
    exceptions = [{"asset": r["asset"], **e} for r in d["machines"] for e in r["exceptions"]]
    sections.append(Section("exceptions", "예외", "Exceptions",
                            [C("asset", "머신", "Machine"), C("code", "코드", "Code"), C("detail", "내용", "Detail"),
                             C("at", "시각", "At")], exceptions, None))
    if ties is not None:
        sections.append(Section("ties", "미터 대 원장", "Meters vs ledger",
                                [C("asset", "머신", "Machine"), C("figure", "항목", "Figure"),
                                 C("meters", "미터", "Meters", "won"), C("ledger", "원장", "Ledger", "won"),
                                 C("difference", "차이", "Difference", "won")], ties, None))
    if drop is not None:
        sections.append(Section(
            "drop", "드롭 카운트 차이", "Drop count variances",
            [C("kind", "구분", "Kind"), C("subject", "대상", "Subject"), C("counted", "카운트", "Counted", "won"),
             C("expected", "기대치", "Expected", "won"), C("difference", "차이", "Difference", "won"),
             C("count_difference", "매수 차이", "Count difference", "count"), C("state", "상태", "State"),
             C("counter", "카운트 담당", "Counted by"), C("accepted_by", "승인자", "Accepted by"),
             C("reason", "사유", "Reason")], drop["rows"], None))
    if accountability is not None:
        sections.append(Section(
            "accountability", "케이지·키오스크 책임", "Cage and kiosk accountability",
            [C("kind", "구분", "Kind"), C("location", "위치", "Location"), C("shift", "근무조", "Shift"),
             C("opening", "개시 시재", "Opening", "won"), C("in", "입금", "In", "won"), C("out", "출금", "Out", "won"),
             C("expected", "기대 시재", "Expected", "won"), C("counted", "실사", "Counted", "won"),
             C("variance", "과부족", "Variance", "won"), C("status", "상태", "Status")],
            accountability["rows"], None))
    if liabilities is not None:
        t = liabilities["total"]
        sections.append(Section(
            "liabilities", "부채 대사", "Liabilities reconciliation",
            [C("section", "구분", "Section"), C("item", "항목", "Item"), C("account", "계정", "Account"),
             C("record", "원장 외 기록", "Record", "won"), C("ledger", "원장", "Ledger", "won"),
             C("difference", "차이", "Difference", "won")], liabilities["lines"],
            {"section": "합계 Total", "record": t["record"], "ledger": t["ledger"], "difference": t["difference"]}))
        p = liabilities["points"]
        sections.append(Section(
            "points", "포인트 (원장 외)", "Points (not on the ledger)",
            [C("points", "포인트", "Points", "count"), C("value_promo_won", "프로모션 환산액", "Value as promo", "won"),
             C("value_cash_won", "현금 환산액", "Value as cash", "won"),
             C("all_agree", "포인트 원장 일치", "Agrees with points journal", "flag")],
            [{k: p[k] for k in ("points", "value_promo_won", "value_cash_won", "all_agree")}], None))
    sections.append(_journal_section(journal))
    summary = [("영업일 Gaming day", gd.describe(day)),
               ("코인 인 Coin-in", f"{floor['coin_in']:,}"), ("실제 홀드 Actual hold", f"{floor['hold']:,}"),
               ("이론 홀드 Theoretical hold", f"{floor['theo_won']:,}"),
               ("이상 머신 Flagged machines", ", ".join(d["flagged"]) or "—"),
               ("분개 균형 Journal balanced", "예 Yes" if journal["balanced"] else "아니오 NO")]
    if liabilities is not None:
        summary.append(("부채 대사 Liabilities agree", "예 Yes" if liabilities["all_agree"] else
                        "아니오 NO: " + ", ".join(liabilities["differences"])))
    summary += notes or []
    return Document("day_report", "일일 영업 마감 보고서", "Gaming day close report", day, gd.describe(day), gd.zone,
                    gd.format(generated_at), sections, summary)


def _journal_section(j: dict[str, Any]) -> Section:
    return Section("journal", "분개 요약 (총계정원장 계정별)", "Journal summary by GL account",
                   [C("gl", "계정 번호", "GL account"), C("name_ko", "계정명", "Account name (Korean)"),
                    C("name_en", "계정명 (영문)", "Account name"), C("type", "유형", "Type"),
                    C("normal_balance", "정상 잔액", "Normal balance", pdf=False),
                    C("debits", "차변", "Debits", "won"), C("credits", "대변", "Credits", "won"),
                    C("net", "순액 (차변+)", "Net (debit +)", "won"),
                    C("normal_net", "정상 방향 순액", "Net as normal balance", "won"),
                    C("accounts", "원장 계정 수", "Ledger accounts", "count", pdf=False),
                    C("postings", "전기 건수", "Postings", "count")],
                   j["rows"], {"gl": "합계 Total", **j["total"]})


def journal_document(gd: GamingDay, day: date, journal: JournalSummary, *, generated_at: datetime) -> Document:
    """The day's journal summary per GL account on its own."""
    return journal_document_of(gd, day, journal.to_dict(), generated_at=generated_at)


def journal_document_of(gd: GamingDay, day: date, journal: dict[str, Any], *, generated_at: datetime,
                        notes: list[tuple[str, str]] | None = None) -> Document:
    """:func:`journal_document` from the summary as stored (``JournalSummary.to_dict()``)."""
    total = journal["total"]
    summary = [("영업일 Gaming day", gd.describe(day)), ("차변 합계 Debits", f"{total['debits']:,}"),
               ("대변 합계 Credits", f"{total['credits']:,}"),
               ("분개 균형 Journal balanced", "예 Yes" if journal["balanced"] else "아니오 NO")]
    if journal.get("entries") is not None:
        summary.append(("분개 수 Journal entries", f"{journal['entries']:,}"))
    summary += notes or []
    chart = Section("chart", "계정과목표", "Chart of accounts",
                    [C("gl", "계정 번호", "GL account"), C("pattern", "원장 계정 코드", "Ledger account code"),
                     C("name_ko", "계정명", "Account name (Korean)"), C("name_en", "계정명 (영문)", "Account name"),
                     C("type", "유형", "Type"), C("normal_balance", "정상 잔액", "Normal balance")], chart_table(), None)
    return Document("journal", "일일 분개 요약", "Daily journal summary", day, gd.describe(day), gd.zone,
                    gd.format(generated_at), [_journal_section(journal), chart], summary)


def csv_tables(doc: Document) -> Iterable[tuple[str, list[str], list[dict[str, Any]]]]:
    """(file name, header labels, rows keyed by label) per section, totals row last, for
    ``slotsys.kernel.export.to_csv``."""
    for s in doc.sections:
        labels = [c.label for c in s.columns]
        rows = [{c.label: r.get(c.key) for c in s.columns} for r in s.rows]
        if s.totals is not None:
            rows.append({c.label: s.totals.get(c.key) for c in s.columns})
        yield f"{doc.kind}-{doc.gaming_day.isoformat()}-{s.key}.csv", labels, rows


def csv_files(doc: Document) -> dict[str, str]:
    """Every section as CSV text (``slotsys.kernel.export.to_csv``: RFC 4180, BOM, formula prefixes
    neutralised), by file name."""
    return {name: to_csv(labels, rows) for name, labels, rows in csv_tables(doc)}
