"""Gaming-day accounting API (``/api/v1/accounting``): close a gaming day, its report, journal and documents; drop
counts, the drop schedule and count variances. Roles are checked by the services (``slotsys.accounting.services``).

A gaming day in a path is ``YYYY-MM-DD`` (2000-01-01 … 2999-12-31), the local date it starts on; anything else is
a 422 naming ``day``. Documents are made server side from the closed day's stored figures: XLSX
(``application/vnd.openxmlformats-officedocument.spreadsheetml.sheet``), PDF (``application/pdf``) and CSV
(``text/csv``, one section per file, ``?section=``), every text cell with its formula prefix neutralised. Charts
are SVG (``image/svg+xml``, matplotlib, labels in ``?lang=en|ko``): hold against theoretical per machine, coin-in
by hour, a jackpot level's value over the day.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Annotated, Literal

from apiflask import APIBlueprint
from flask import Response
from pydantic import AfterValidator, Field

from slotsys.accounting.adapters.charts_svg import coin_in_svg, hold_svg, jackpot_svg
from slotsys.accounting.adapters.export_pdf import to_pdf
from slotsys.accounting.adapters.export_xlsx import to_xlsx
from slotsys.accounting.domain.drop import CountedTicket
from slotsys.accounting.domain.report import csv_files
from slotsys.accounting.services.drops import CountCommand, DropRuleCommand
from slotsys.kernel.api.common import (
    AUTH_DOC, Limit, QueryModel, StrictModel, Won, once_key, principal, reply_once, services,
)
from slotsys.kernel.errors import ValidationFailed
from slotsys.accounting.services.results import (
    ClosedDayList, CountResult, DayCloseResult, DayReport, DropRuleResult, JournalResult, VarianceList, VarianceResult,
)
from slotsys.kernel.api.contract import CSV, PDF, SVG, XLSX, answers


bp = APIBlueprint("accounting", __name__, url_prefix="/api/v1/accounting", tag="Accounting")

_DAY = re.compile(r"^2\d{3}-\d{2}-\d{2}$")
Code = Annotated[str, Field(min_length=1, max_length=20, pattern=r"^[A-Za-z0-9][A-Za-z0-9_-]{0,19}$")]


def _year_range(value: date) -> date:
    if not 2000 <= value.year <= 2999:
        raise ValueError("a gaming day lies in 2000 … 2999")
    return value


GamingDate = Annotated[date, AfterValidator(_year_range)]


def _day(text: str) -> date:
    try:
        if not _DAY.match(text):
            raise ValueError
        return date.fromisoformat(text)
    except ValueError:
        raise ValidationFailed("day must be a gaming day YYYY-MM-DD (2000 … 2999)", field="day") from None


def _acc():
    return services().accounting


# ------------------------------------------------------------------ gaming days
class DayQuery(QueryModel):
    zone: Code | None = None
    bank: Code | None = None
    machine: Code | None = None
    cursor: Annotated[str, Field(max_length=200, description="next_cursor of the previous page")] | None = None
    limit: Limit(500) = 100


class DocumentQuery(QueryModel):
    document: Literal["day_report", "journal"] = "day_report"


class CsvQuery(DocumentQuery):
    section: Annotated[str, Field(max_length=40, description="a section of the document, e.g. machines")] = "machines"


class DaysQuery(QueryModel):
    cursor: Annotated[str, Field(max_length=200, description="next_cursor of the previous page")] | None = None
    limit: Limit(500) = 31


@bp.get("/days")
@bp.input(DaysQuery, location="query", arg_name="query")
@bp.doc(summary="The closed gaming days, newest first, paged by ?cursor= (auditor, supervisor)", **AUTH_DOC)
@answers(ClosedDayList)
def closed_days(query: DaysQuery):
    return _acc().days.closed_days(principal(), cursor=query.cursor, limit=query.limit).model_dump(mode="json")


@bp.post("/days/<day>/close")
@bp.doc(summary="Close a gaming day (auditor; idempotent: a closed day is returned as it is); needs Idempotency-Key",
        **AUTH_DOC)
@answers(DayCloseResult, status=(200, 201), once=True)
def close_day(day: str):
    d = _day(day)
    once = _acc().days.close_day(principal(), d, once_key(f"accounting/days/{d.isoformat()}/close",
                                                          status=_close_status))
    return reply_once(once, status=_close_status)


def _close_status(result: DayCloseResult) -> int:
    """201 the request closed the day, 200 it was closed already."""
    return 201 if result.newly_closed else 200


@bp.get("/days/<day>")
@bp.input(DayQuery, location="query", arg_name="query")
@bp.doc(summary="A closed gaming day's figures; machine rows paged by ?cursor= (auditor, supervisor)", **AUTH_DOC)
@answers(DayReport)
def day_report(day: str, query: DayQuery):
    return _acc().days.day_report(principal(), _day(day), zone=query.zone, bank=query.bank, machine=query.machine,
                                  cursor=query.cursor, limit=query.limit).model_dump(mode="json")


@bp.get("/days/<day>/journal")
@bp.doc(summary="A closed gaming day's journal per GL account (auditor, supervisor)", **AUTH_DOC)
@answers(JournalResult)
def day_journal(day: str):
    return _acc().days.journal(principal(), _day(day)).model_dump(mode="json")


def _download(body: bytes | str, mimetype: str, name: str) -> Response:
    return Response(body, mimetype=mimetype, headers={"Content-Disposition": f'attachment; filename="{name}"',
                                                      "Cache-Control": "no-store"})


@bp.get("/days/<day>/export.xlsx")
@bp.input(DocumentQuery, location="query", arg_name="query")
@bp.doc(summary="A closed gaming day's document as XLSX (?document=day_report|journal; auditor, supervisor)",
        **AUTH_DOC)
@answers(media=XLSX)
def export_xlsx(day: str, query: DocumentQuery):
    d = _day(day)
    doc = _acc().days.document(principal(), d, query.document)
    return _download(to_xlsx(doc), XLSX, f"{doc.kind}-{d.isoformat()}.xlsx")


@bp.get("/days/<day>/export.pdf")
@bp.input(DocumentQuery, location="query", arg_name="query")
@bp.doc(summary="A closed gaming day's document as PDF, with the signature block (auditor, supervisor)", **AUTH_DOC)
@answers(media=PDF)
def export_pdf(day: str, query: DocumentQuery):
    d = _day(day)
    doc = _acc().days.document(principal(), d, query.document)
    return _download(to_pdf(doc), "application/pdf", f"{doc.kind}-{d.isoformat()}.pdf")


@bp.get("/days/<day>/export.csv")
@bp.input(CsvQuery, location="query", arg_name="query")
@bp.doc(summary="One section of a closed gaming day's document as CSV (?section=, default machines; auditor, "
                "supervisor)", **AUTH_DOC)
@answers(media=CSV)
def export_csv(day: str, query: CsvQuery):
    d = _day(day)
    doc = _acc().days.document(principal(), d, query.document)
    files = csv_files(doc)
    name = f"{doc.kind}-{d.isoformat()}-{query.section}.csv"
    if name not in files:
        sections = ", ".join(s.key for s in doc.sections)
        raise ValidationFailed(f"section must be one of: {sections}", field="section")
    return Response(files[name].encode("utf-8"), mimetype="text/csv",
                    headers={"Content-Disposition": f'attachment; filename="{name}"', "Cache-Control": "no-store",
                             "Content-Type": "text/csv; charset=utf-8"})


# ------------------------------------------------------------------ charts
class ChartQuery(QueryModel):
    zone: Code | None = None
    bank: Code | None = None
    machine: Code | None = None
    lang: Literal["en", "ko"] = "en"


class LangQuery(QueryModel):
    lang: Literal["en", "ko"] = "en"


_LEVEL = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,39}$")


def _chart(body: bytes) -> Response:
    return Response(body, mimetype=SVG, headers={"Cache-Control": "no-store"})


@bp.get("/days/<day>/charts/hold.svg")
@bp.input(ChartQuery, location="query", arg_name="query")
@bp.doc(summary="Chart: each machine's actual hold against its theoretical hold with the band E[hold] ± k·SD "
                "(?zone= &bank= &machine=; auditor, supervisor)", **AUTH_DOC)
@answers(media=SVG)
def chart_hold(day: str, query: ChartQuery):
    points, k = _acc().days.hold_chart(principal(), _day(day), zone=query.zone, bank=query.bank, machine=query.machine)
    return _chart(hold_svg(points, k, day, query.lang))


@bp.get("/days/<day>/charts/coin-in.svg")
@bp.input(ChartQuery, location="query", arg_name="query")
@bp.doc(summary="Chart: coin-in by hour of the gaming day, from the game recall (?zone= &bank= &machine=; "
                "auditor, supervisor)", **AUTH_DOC)
@answers(media=SVG)
def chart_coin_in(day: str, query: ChartQuery):
    acc = _acc()
    hours = acc.days.coin_in_by_hour(principal(), _day(day), zone=query.zone, bank=query.bank, machine=query.machine)
    return _chart(coin_in_svg(hours, acc.days.gd, day, query.lang))


@bp.get("/days/<day>/charts/jackpot/<level>.svg")
@bp.input(LangQuery, location="query", arg_name="query")
@bp.doc(summary="Chart: a jackpot level's value over the gaming day (its ledger account) with the day's hits "
                "(auditor, supervisor)", **AUTH_DOC)
@answers(media=SVG)
def chart_jackpot(day: str, level: str, query: LangQuery):
    if not _LEVEL.match(level):
        raise ValidationFailed("level must be a jackpot level's code", field="level")
    acc = _acc()
    return _chart(jackpot_svg(acc.days.jackpot_history(principal(), _day(day), level), acc.days.gd, query.lang))


# ------------------------------------------------------------------ drop and count
class TicketIn(StrictModel):
    validation_number: Annotated[str, Field(min_length=1, max_length=24, pattern=r"^[0-9][0-9 -]{0,23}$",
                                            description="as scanned, with or without dashes")]
    amount: Won

    @property
    def number(self) -> str:
        return re.sub(r"[ -]", "", self.validation_number)


class CountIn(StrictModel):
    day: GamingDate = Field(description="the gaming day the stacker was dropped on")
    stacker: Code = "main"
    bills: dict[Annotated[int, Field(ge=1, le=1_000_000)], Annotated[int, Field(strict=True, ge=0, le=1_000_000)]] = \
        Field(description="notes per denomination: {\"10000\": 12, …}")
    tickets: Annotated[list[TicketIn], Field(max_length=5_000)] = []


class RuleIn(StrictModel):
    weekdays: Annotated[list[Annotated[int, Field(strict=True, ge=1, le=7)]], Field(min_length=1, max_length=7)] | None \
        = None
    every_days: Annotated[int, Field(strict=True, ge=1, le=366)] | None = None
    anchor: GamingDate | None = None
    reason: Annotated[str, Field(max_length=400)]


class AcceptIn(StrictModel):
    reason: Annotated[str, Field(max_length=400)] | None = None


class VarianceQuery(QueryModel):
    state: Literal["open", "accepted", "balanced"] | None = None
    day: GamingDate | None = None
    limit: Limit(500) = 500


@bp.post("/drops/<asset>/count")
@bp.input(CountIn, arg_name="body")
@bp.doc(summary="Record a stacker's count: notes per denomination and tickets (cashier, attendant, supervisor); "
                "needs Idempotency-Key", **AUTH_DOC)
@answers(CountResult, status=201, once=True)
def drop_count(asset: str, body: CountIn):
    payload = body.model_dump(mode="json")
    cmd = CountCommand(asset, body.day, body.stacker, dict(body.bills),
                       tuple(CountedTicket(t.number, t.amount) for t in body.tickets))
    once = _acc().drops.record_count(principal(), cmd, once_key(f"accounting/drops/{asset}/count", payload, status=201))
    return reply_once(once, status=201)


@bp.put("/drops/<asset>/schedule")
@bp.input(RuleIn, arg_name="body")
@bp.doc(summary="Set a machine's drop days (asset * for the floor's default; supervisor)", **AUTH_DOC)
@answers(DropRuleResult)
def drop_schedule(asset: str, body: RuleIn):
    if asset != "*" and not re.match(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,19}$", asset):
        raise ValidationFailed("asset must be an asset number or *", field="asset")
    cmd = DropRuleCommand(tuple(body.weekdays) if body.weekdays is not None else None, body.every_days, body.anchor,
                          body.reason)
    return _acc().drops.set_rule(principal(), asset, cmd).model_dump(mode="json")


@bp.post("/variances/<int:variance_id>/accept")
@bp.input(AcceptIn, arg_name="body")
@bp.doc(summary="Accept a count variance with a reason (supervisor, not its counter); needs Idempotency-Key",
        **AUTH_DOC)
@answers(VarianceResult, once=True)
def accept_variance(variance_id: int, body: AcceptIn):
    once = _acc().drops.accept(principal(), variance_id, body.reason,
                               once_key(f"accounting/variances/{variance_id}/accept", body.reason))
    return reply_once(once)


@bp.get("/variances")
@bp.input(VarianceQuery, location="query", arg_name="query")
@bp.doc(summary="Count variances by ?state=open|accepted|balanced and ?day= (supervisor, auditor)", **AUTH_DOC)
@answers(VarianceList)
def variances(query: VarianceQuery):
    return _acc().drops.variances(principal(), state=query.state, day=query.day,
                                  limit=query.limit).model_dump(mode="json")
