"""The typed results of gaming-day accounting's use cases (pydantic models; amounts integer won, times UTC)."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from pydantic import BaseModel

from slotsys.accounting.domain.closing import RecordedVariance


class DayCloseResult(BaseModel):
    """A closed gaming day in short: ``newly_closed`` False when it had been closed before (the close is
    idempotent); the floor's main figures; whether the ties, the journal and the liabilities agree."""

    day: date
    newly_closed: bool
    closed_at: datetime
    closed_by: str
    read_at: datetime
    opened_at: datetime | None
    machines: int
    coin_in: int
    coin_out: int
    hold: int
    theo_hold: int
    jackpots: int
    bills_in: int | None
    flagged: list[str]
    exceptions: int
    ties_agree: bool
    journal_balanced: bool
    liabilities_agree: bool


class MeterReadResult(BaseModel):
    day: date
    at: datetime
    actor: str
    machines: int


class CloseDueResult(BaseModel):
    """What one beat run did: the days whose meters it read and those it closed; ``waiting``: why it stopped."""

    read: list[date]
    closed: list[date]
    waiting: str | None = None


class DayReport(BaseModel):
    """A closed day's figures: roll-ups (zones and banks filtered by the query's zone / bank; games and floor
    always floor-wide), a page of machine rows (``next_cursor`` None on the last page), the day's exceptions,
    meters-against-ledger ties, journal totals, liabilities, cage and kiosk accountability and the day's
    variances as they stand now."""

    day: date
    label: str
    zone: str
    closed_at: datetime
    closed_by: str
    closed_role: str
    read_at: datetime
    opened_at: datetime | None
    k: float
    min_games: int
    floor: dict[str, Any]
    zones: list[dict[str, Any]]
    banks: list[dict[str, Any]]
    games: list[dict[str, Any]]
    flagged: list[str]
    exceptions: list[dict[str, Any]]
    ties: dict[str, Any]
    journal: dict[str, Any]
    liabilities: dict[str, Any]
    accountability: dict[str, Any]
    variances: dict[str, Any]
    machines: list[dict[str, Any]]
    next_cursor: str | None
    filters: dict[str, Any]


class ClosedDayItem(BaseModel):
    day: date
    label: str


class ClosedDayList(BaseModel):
    """Closed gaming days, newest first (``label``: the day with its bounds and zone); ``next_cursor`` None on the
    last page."""

    days: list[ClosedDayItem]
    next_cursor: str | None


class JournalResult(BaseModel):
    """The gaming day's journal per GL account (``rows``, ``total``, ``balanced``, ``entries``)."""

    day: date
    label: str
    rows: list[dict[str, Any]]
    total: dict[str, Any]
    balanced: bool
    entries: int | None


class VarianceResult(BaseModel):
    id: int
    kind: str
    subject: str
    day: date
    counted: int
    expected: int
    difference: int
    count_difference: int
    missing: list[str]
    extra: list[str]
    counter: str
    state: str
    accepted_by: str | None
    accepted_role: str | None
    accepted_at: datetime | None
    reason: str | None
    count_id: int | None

    @classmethod
    def of(cls, r: RecordedVariance) -> "VarianceResult":
        return cls(id=r.id, count_id=r.count_id, **r.variance.to_dict())


class VarianceList(BaseModel):
    variances: list[VarianceResult]


class CountResult(BaseModel):
    """A stacker count and its three variances (bills vs meter, tickets vs meter, tickets vs the ticket system);
    ``period``: the gaming days the drop holds."""

    count_id: int
    asset: str
    stacker: str
    day: date
    counter: str
    counted_at: datetime
    notes: dict[str, int]
    bills_won: int
    tickets: int
    tickets_won: int
    period: dict[str, date]
    variances: list[VarianceResult]


class DropRuleResult(BaseModel):
    asset: str
    weekdays: list[int] | None
    every_days: int | None
    anchor: date | None
