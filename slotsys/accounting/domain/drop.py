"""Drop and count: which gaming days each machine's stacker is dropped, the count team's count of each stacker,
its variances against the machine's meters and the ticket system, their acceptance, and the cage and kiosk
accountability per shift. Pure.

Drop schedule. A :class:`DropRule` says on which gaming days a stacker is dropped: on given ISO weekdays
(1 = Monday … 7 = Sunday), or every *n* gaming days from an anchor day. :class:`DropSchedule` holds a default
rule and per-machine rules. A drop on day *D* holds everything inserted since the previous drop: the gaming days
after the previous drop day up to and including *D* (:meth:`DropSchedule.period`).

Count. A :class:`StackerCount` is what the count team found in one stacker: notes per denomination
(:data:`KRW_NOTES`) and the tickets (validation number and amount), counted by one staff member.
Its expectation (:class:`DropExpectation`) comes from the machine's meters over the drop period (bills in,
tickets in: amount and count) and from the ticket system (tickets redeemed at that machine in the period).

Variances (:func:`count_variances`), each ``counted − expected`` (won; tickets also in count):

* ``bills_vs_meter``: counted notes against the bills-in meter;
* ``tickets_vs_meter``: counted tickets against the tickets-in meter (amount and count);
* ``tickets_vs_system``: counted tickets against the ticket system's redemptions at the machine, with the
  validation numbers ``missing`` (redeemed, not in the stacker) and ``extra`` (in the stacker, not redeemed there).

A variance of zero is ``balanced`` and needs nobody. Any other is ``open`` until a supervisor **accepts** it
(:meth:`Variance.accept`): the role must be one of :data:`ACCEPTING_ROLES`, a reason is required, and the
counter of the count may not accept their own count (segregation of duties, as the second signature of a
handpay). Accepting records who, when and why; it does not change the figures (a variance is explained, never
corrected).

Accountability (:func:`shift_accountability`): per cage drawer or kiosk and shift, ``expected = opening bank +
Σ in − Σ out``; ``variance = counted − expected`` (over > 0 > short); a variance row for the same acceptance.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import date, datetime, timedelta
from typing import Any

from slotsys.kernel.errors import Conflict, Forbidden, ValidationFailed

__all__ = [
    "KRW_NOTES", "ACCEPTING_ROLES", "OPEN", "ACCEPTED", "BALANCED", "DropRule", "DropSchedule", "CountedTicket",
    "StackerCount", "DropExpectation", "expectation", "Variance", "count_variances", "ShiftAccount", "shift_accountability",
    "variance_summary",
]

# Korean won notes a bill validator accepts (the floor's bill-in accepts one note of these: slotsys.floor.services.play).
KRW_NOTES = (1_000, 5_000, 10_000, 50_000)
ACCEPTING_ROLES = ("supervisor", "admin")
OPEN, ACCEPTED, BALANCED = "open", "accepted", "balanced"
_MAX_LOOKBACK_DAYS = 366


# ---------------------------------------------------------------------------------------------- schedule
@dataclass(frozen=True)
class DropRule:
    """Drop days: ``weekdays`` (ISO 1-7; default every day) or, when ``every_days`` is set, every
    ``every_days``-th gaming day counted from ``anchor`` (itself a drop day). Raises ``ValueError`` when
    inconsistent."""

    weekdays: frozenset[int] = frozenset(range(1, 8))
    every_days: int | None = None
    anchor: date | None = None

    def __post_init__(self) -> None:
        if self.every_days is not None:
            if self.every_days < 1 or self.anchor is None:
                raise ValueError("every_days needs a positive interval and an anchor day")
        elif not self.weekdays or not set(self.weekdays) <= set(range(1, 8)):
            raise ValueError("weekdays are ISO weekdays 1 (Monday) to 7 (Sunday), at least one")

    def is_drop_day(self, day: date) -> bool:
        if self.every_days is not None:
            assert self.anchor is not None
            return (day - self.anchor).days % self.every_days == 0
        return day.isoweekday() in self.weekdays


@dataclass(frozen=True)
class DropSchedule:
    """The floor's drop schedule: ``default`` rule and ``machines`` (asset → its own rule)."""

    default: DropRule = field(default_factory=DropRule)
    machines: Mapping[str, DropRule] = field(default_factory=dict)

    def rule(self, asset: str) -> DropRule:
        return self.machines.get(asset, self.default)

    def is_drop_day(self, asset: str, day: date) -> bool:
        return self.rule(asset).is_drop_day(day)

    def dropped_on(self, assets: Iterable[str], day: date) -> list[str]:
        """The machines (sorted) whose stackers are dropped on gaming ``day``."""
        return sorted(a for a in assets if self.is_drop_day(a, day))

    def period(self, asset: str, day: date, *, since: date | None = None) -> tuple[date, date]:
        """First and last gaming day whose bills and tickets the drop of ``asset`` on ``day`` holds: from the day
        after the previous drop day (or ``since``, e.g. the enrolment day, if that is later) to ``day``. Raises
        ``ValueError`` when ``day`` is not a drop day of the machine, or no earlier drop day is found within a
        year and no ``since`` is given."""
        rule = self.rule(asset)
        if not rule.is_drop_day(day):
            raise ValueError(f"{day.isoformat()} is not a drop day of {asset}")
        d = day - timedelta(days=1)
        for _ in range(_MAX_LOOKBACK_DAYS):
            if since is not None and d < since:
                return since, day
            if rule.is_drop_day(d):
                return d + timedelta(days=1), day
            d -= timedelta(days=1)
        if since is not None:
            return since, day
        raise ValueError(f"no drop day of {asset} within a year before {day.isoformat()}")


# ---------------------------------------------------------------------------------------------- count
@dataclass(frozen=True)
class CountedTicket:
    validation_number: str
    amount: int


@dataclass(frozen=True)
class StackerCount:
    """One stacker as counted: ``bills`` (note denomination won → number of notes), ``tickets``, the ``counter``
    (staff user name) and when. Raises :class:`ValidationFailed` for an unknown denomination, a negative count
    or a ticket amount ≤ 0, or a ticket counted twice."""

    asset: str
    stacker: str
    day: date
    counter: str
    counted_at: datetime
    bills: Mapping[int, int]
    tickets: tuple[CountedTicket, ...] = ()

    def __post_init__(self) -> None:
        for denom, n in self.bills.items():
            if denom not in KRW_NOTES:
                raise ValidationFailed(f"₩{denom:,} is not a note the bill validators take", field="bills")
            if isinstance(n, bool) or not isinstance(n, int) or n < 0:
                raise ValidationFailed(f"the number of ₩{denom:,} notes must be an integer ≥ 0", field="bills")
        seen = set()
        for t in self.tickets:
            if isinstance(t.amount, bool) or not isinstance(t.amount, int) or t.amount <= 0:
                raise ValidationFailed(f"ticket {t.validation_number}: amount must be integer won > 0", field="tickets")
            if t.validation_number in seen:
                raise ValidationFailed(f"ticket {t.validation_number} counted twice", field="tickets")
            seen.add(t.validation_number)
        if not self.counter:
            raise ValidationFailed("a count names its counter", field="counter")

    @property
    def bills_won(self) -> int:
        return sum(d * n for d, n in self.bills.items())

    @property
    def notes(self) -> int:
        return sum(self.bills.values())

    @property
    def tickets_won(self) -> int:
        return sum(t.amount for t in self.tickets)

    def to_dict(self) -> dict[str, Any]:
        return {"asset": self.asset, "stacker": self.stacker, "day": self.day.isoformat(), "counter": self.counter,
                "counted_at": self.counted_at.isoformat(),
                **{f"notes_{d}": self.bills.get(d, 0) for d in KRW_NOTES},
                "bills_won": self.bills_won, "tickets": len(self.tickets), "tickets_won": self.tickets_won}


@dataclass(frozen=True)
class DropExpectation:
    """What the stacker of ``asset`` dropped on ``day`` should hold: ``bills_meter`` and ``tickets_in_meter`` /
    ``tickets_in_count_meter`` (the meters' sum over the drop period) and ``system_tickets`` (the tickets the
    ticket system redeemed at the machine in the period)."""

    asset: str
    day: date
    bills_meter: int
    tickets_in_meter: int
    tickets_in_count_meter: int
    system_tickets: tuple[CountedTicket, ...] = ()


def expectation(asset: str, day: date, daily_meters: Iterable[Mapping[str, int | None]],
                system_tickets: Iterable[CountedTicket] = ()) -> DropExpectation:
    """The expectation of a drop from the day-close meters of each gaming day of its period (``bills_in``,
    ``tickets_in``, ``tickets_in_count`` per day, e.g. ``MachineDay.figures.meters``) and the ticket system's
    redemptions at the machine. Raises ``ValueError`` when a day lacks one of those meters."""
    bills = tickets = count = 0
    for m in daily_meters:
        day_bills, day_tickets, day_count = m.get("bills_in"), m.get("tickets_in"), m.get("tickets_in_count")
        if day_bills is None or day_tickets is None or day_count is None:
            raise ValueError(f"{asset}: a day of the drop period has no bills or tickets-in meters")
        bills += day_bills
        tickets += day_tickets
        count += day_count
    return DropExpectation(asset, day, bills, tickets, count, tuple(system_tickets))


@dataclass(frozen=True)
class Variance:
    """One variance: ``kind``, the ``subject`` (asset, drawer or kiosk), gaming ``day``, ``counted`` and
    ``expected`` (won), ``difference`` = counted − expected, ``count_difference`` (tickets), the ``counter``,
    ``state`` (:data:`BALANCED`, :data:`OPEN` or :data:`ACCEPTED`) and, once accepted, who, with which role,
    when and why. ``missing`` / ``extra``: validation numbers (``tickets_vs_system``)."""

    kind: str
    subject: str
    day: date
    counted: int
    expected: int
    counter: str
    count_difference: int = 0
    missing: tuple[str, ...] = ()
    extra: tuple[str, ...] = ()
    state: str = OPEN
    accepted_by: str | None = None
    accepted_role: str | None = None
    accepted_at: datetime | None = None
    reason: str | None = None

    def __post_init__(self) -> None:
        if self.state == OPEN and not (self.difference or self.count_difference or self.missing or self.extra):
            object.__setattr__(self, "state", BALANCED)

    @property
    def difference(self) -> int:
        return self.counted - self.expected

    @property
    def key(self) -> tuple[str, str, date]:
        return (self.kind, self.subject, self.day)

    def accept(self, *, by: str, role: str, reason: str, at: datetime) -> "Variance":
        """The variance accepted by supervisor ``by`` (``role``) for ``reason`` at ``at``.

        Raises :class:`Forbidden` (403) when ``role`` may not accept or ``by`` counted it, :class:`ValidationFailed`
        (422, field ``reason``) without a reason, :class:`Conflict` (409) when it is balanced or already
        accepted."""
        if self.state == BALANCED:
            raise Conflict("a balanced count has no variance to accept", field="variance")
        if self.state == ACCEPTED:
            raise Conflict(f"the variance was already accepted by {self.accepted_by}", field="variance")
        if role not in ACCEPTING_ROLES:
            raise Forbidden(f"a {role} may not accept a count variance (supervisor or admin)", field="role")
        if by == self.counter:
            raise Forbidden(f"{by} counted this and may not accept its variance", field="accepted_by")
        why = (reason or "").strip()
        if not why:
            raise ValidationFailed("accepting a variance needs a reason", field="reason")
        return replace(self, state=ACCEPTED, accepted_by=by, accepted_role=role, accepted_at=at, reason=why[:400])

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "subject": self.subject, "day": self.day.isoformat(), "counted": self.counted,
                "expected": self.expected, "difference": self.difference, "count_difference": self.count_difference,
                "missing": list(self.missing), "extra": list(self.extra), "counter": self.counter,
                "state": self.state, "accepted_by": self.accepted_by, "accepted_role": self.accepted_role,
                "accepted_at": self.accepted_at.isoformat() if self.accepted_at else None, "reason": self.reason}


def count_variances(count: StackerCount, expected: DropExpectation) -> list[Variance]:
    """The three variances of one stacker count (see the module docstring). Raises ``ValueError`` when the
    count and the expectation are of different machines or days."""
    if (count.asset, count.day) != (expected.asset, expected.day):
        raise ValueError("the count and the expectation are of different drops")
    counted_vns = {t.validation_number: t.amount for t in count.tickets}
    system_vns = {t.validation_number: t.amount for t in expected.system_tickets}
    subject, day, counter = count.asset, count.day, count.counter
    return [
        Variance("bills_vs_meter", subject, day, counted=count.bills_won, expected=expected.bills_meter,
                 counter=counter),
        Variance("tickets_vs_meter", subject, day, counted=count.tickets_won, expected=expected.tickets_in_meter,
                 counter=counter, count_difference=len(count.tickets) - expected.tickets_in_count_meter),
        Variance("tickets_vs_system", subject, day, counted=count.tickets_won, expected=sum(system_vns.values()),
                 counter=counter, count_difference=len(count.tickets) - len(system_vns),
                 missing=tuple(sorted(set(system_vns) - set(counted_vns))),
                 extra=tuple(sorted(set(counted_vns) - set(system_vns)))),
    ]


# ---------------------------------------------------------------------------------------------- accountability
@dataclass(frozen=True)
class ShiftAccount:
    """A cage drawer's or kiosk's shift: ``kind`` (``cage`` | ``kiosk``), ``location`` (drawer or kiosk code),
    ``shift`` name, gaming ``day``, ``opening`` bank (won), ``ins`` / ``outs`` (name → won, e.g. fills, tickets
    redeemed, handpays paid), ``counted`` at the shift's end (None: not counted yet) and by whom."""

    kind: str
    location: str
    shift: str
    day: date
    opening: int
    ins: Mapping[str, int]
    outs: Mapping[str, int]
    counted: int | None
    counter: str = ""

    def __post_init__(self) -> None:
        if self.kind not in ("cage", "kiosk"):
            raise ValidationFailed("accountability is kept for a cage drawer or a kiosk", field="kind")
        for name, v in (("opening", self.opening), *self.ins.items(), *self.outs.items()):
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise ValidationFailed(f"{name} must be integer won ≥ 0", field=name)

    @property
    def expected(self) -> int:
        return self.opening + sum(self.ins.values()) - sum(self.outs.values())

    @property
    def variance(self) -> int | None:
        return None if self.counted is None else self.counted - self.expected

    @property
    def status(self) -> str:
        v = self.variance
        return "not_counted" if v is None else "balanced" if v == 0 else "over" if v > 0 else "short"

    def as_variance(self) -> Variance | None:
        if self.counted is None:
            return None
        return Variance("shift_count", f"{self.kind}:{self.location}:{self.shift}", self.day, self.counted,
                        self.expected, self.counter)


def shift_accountability(accounts: Iterable[ShiftAccount]) -> dict[str, Any]:
    """Rows (kind, location, shift order as given) with expected, counted, variance and status, and totals per
    kind: ``{"rows": [...], "totals": {kind: {opening, in, out, expected, counted, variance}}, "not_counted":
    [...]}``. A location not counted is listed and its variance left out of the totals (never taken as zero)."""
    rows: list[dict[str, Any]] = []
    totals: dict[str, dict[str, int]] = {}
    missing: list[str] = []
    for a in accounts:
        rows.append({"kind": a.kind, "location": a.location, "shift": a.shift, "day": a.day.isoformat(),
                     "opening": a.opening, "in": sum(a.ins.values()), "out": sum(a.outs.values()),
                     "expected": a.expected, "counted": a.counted, "variance": a.variance, "status": a.status,
                     "counter": a.counter, **{f"in.{k}": v for k, v in a.ins.items()},
                     **{f"out.{k}": v for k, v in a.outs.items()}})
        t = totals.setdefault(a.kind, {"opening": 0, "in": 0, "out": 0, "expected": 0, "counted": 0, "variance": 0})
        t["opening"] += a.opening
        t["in"] += sum(a.ins.values())
        t["out"] += sum(a.outs.values())
        t["expected"] += a.expected
        if a.counted is None:
            missing.append(f"{a.kind}:{a.location}:{a.shift}")
        else:
            t["counted"] += a.counted
            t["variance"] += a.variance or 0
    return {"rows": rows, "totals": totals, "not_counted": missing}


def variance_summary(variances: Iterable[Variance]) -> dict[str, Any]:
    """Variances as rows, with the open ones listed: the day cannot be signed while ``open`` is not empty."""
    vs = list(variances)
    return {"rows": [v.to_dict() for v in vs],
            "open": [f"{v.kind}:{v.subject}" for v in vs if v.state == OPEN],
            "accepted": sum(1 for v in vs if v.state == ACCEPTED),
            "balanced": sum(1 for v in vs if v.state == BALANCED),
            "net_difference": sum(v.difference for v in vs if v.state != BALANCED)}
