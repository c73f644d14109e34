"""The gaming day: the casino's accounting day, and the ONE display format of a date-time. Pure (stdlib).

Rule. A gaming day runs from ``start`` o'clock local time (wall clock of the casino's IANA zone, default
06:00 Asia/Seoul) to the same wall-clock time on the next calendar date, and is labelled with the local
calendar date it **starts** on. Play at 2026-12-02 03:57 KST therefore belongs to gaming day 2026-12-01; play
at 06:00:00 KST to 2026-12-02. The interval is half-open, ``[start, end)``, and every instant belongs to exactly
one gaming day.

DST. In a zone with daylight saving time the day is 23 or 25 hours long on a transition date. The day starts
at the **first instant whose local wall-clock time on its date is at or after the start time**:

* start time in a spring-forward gap (02:30 in New York on the second Sunday of March): the day starts at the
  transition itself (03:00 EDT, the first wall time past 02:30);
* start time in a fall-back overlap (01:30 in New York on the first Sunday of November, shown twice): the day
  starts at its first occurrence (01:30 EDT, ``fold=0``); the repeated hour belongs to that day.

:meth:`GamingDay.day_of` compares instants, never wall-clock times, so an instant's gaming day never goes
backwards while the clock is set back.

Display. :meth:`GamingDay.format` gives ``2026-12-02 03:50:48 KST``: ISO date, 24-hour time to the second and
the zone's abbreviation, which tells EDT from EST in a repeated hour. Every screen and report uses it.

Loyalty's daily transfer limits count in this same gaming day (``SessionService`` is given it; until migration
0027 they counted from a UTC hour of the loyalty program and labelled a day with its UTC start date).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta, timezone
from zoneinfo import ZoneInfo

__all__ = ["GamingDay", "Shift", "DEFAULT_ZONE", "DEFAULT_START_HOUR", "DEFAULT_SHIFTS"]

DEFAULT_ZONE = "Asia/Seoul"
DEFAULT_START_HOUR = 6
# Three eight-hour shifts from the day's start (names as the cage schedules them), for the default 06:00 day;
# GamingDay.default_shifts() gives the same three for any start time.
DEFAULT_SHIFTS: tuple[tuple[str, time], ...] = (("day", time(6)), ("swing", time(14)), ("grave", time(22)))

UTC = timezone.utc


def _aware(instant: datetime) -> datetime:
    if instant.tzinfo is None or instant.tzinfo.utcoffset(instant) is None:
        raise ValueError("a naive datetime has no instant: pass an aware one (UTC from the database)")
    return instant


@dataclass(frozen=True)
class Shift:
    """One shift of a gaming day: ``name``, the gaming ``day`` it belongs to and its UTC ``[start, end)``."""

    name: str
    day: date
    start: datetime
    end: datetime


@dataclass(frozen=True)
class GamingDay:
    """The gaming-day policy: ``start_hour`` (0-23) and ``start_minute`` local time in the IANA ``zone``.

    Raises ``ValueError`` for an hour or minute out of range and ``zoneinfo.ZoneInfoNotFoundError`` for an
    unknown zone (at construction)."""

    start_hour: int = DEFAULT_START_HOUR
    zone: str = DEFAULT_ZONE
    start_minute: int = 0
    _tz: ZoneInfo = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not 0 <= self.start_hour <= 23 or not 0 <= self.start_minute <= 59:
            raise ValueError("a gaming day starts at a local time 00:00-23:59")
        object.__setattr__(self, "_tz", ZoneInfo(self.zone))

    @property
    def tz(self) -> ZoneInfo:
        return self._tz

    @property
    def start_time(self) -> time:
        return time(self.start_hour, self.start_minute)

    # ------------------------------------------------------------------ instants and days
    def first_instant_at(self, on: date, wall: time) -> datetime:
        """The first UTC instant whose local wall-clock time on date ``on`` is at or after ``wall`` (see the
        module docstring for gaps and overlaps)."""
        local = datetime.combine(on, wall, tzinfo=self._tz)  # fold=0: the first of a repeated time
        utc = local.astimezone(UTC)
        if utc.astimezone(self._tz).replace(tzinfo=None) == local.replace(tzinfo=None):
            return utc
        # ``wall`` falls in a gap: the day starts at the transition, the first instant past the gap. fold=1 reads
        # the wall time with the offset after the transition (earlier in UTC), fold=0 with the one before.
        lo = local.replace(fold=1).astimezone(UTC)
        hi = utc
        if lo > hi:
            lo, hi = hi, lo
        target = datetime.combine(on, wall)
        while hi - lo > timedelta(microseconds=1):  # bisection over at most a few hours: ~34 steps
            mid = lo + (hi - lo) / 2
            if mid.astimezone(self._tz).replace(tzinfo=None) >= target:
                hi = mid
            else:
                lo = mid
        return hi  # transitions fall on whole seconds, so this is the transition instant exactly

    def bounds(self, day: date) -> tuple[datetime, datetime]:
        """UTC ``[start, end)`` of gaming ``day`` (aware datetimes in UTC)."""
        return self.first_instant_at(day, self.start_time), self.first_instant_at(day + timedelta(days=1),
                                                                                  self.start_time)

    def day_of(self, instant: datetime) -> date:
        """The gaming day an aware ``instant`` belongs to. Raises ``ValueError`` for a naive datetime."""
        utc = _aware(instant).astimezone(UTC)
        local_date = utc.astimezone(self._tz).date()
        return local_date if utc >= self.first_instant_at(local_date, self.start_time) else local_date - timedelta(days=1)

    def contains(self, day: date, instant: datetime) -> bool:
        start, end = self.bounds(day)
        return start <= _aware(instant).astimezone(UTC) < end

    def hours(self, day: date) -> float:
        """Length of gaming ``day`` in hours (24, or 23/25 on a DST transition)."""
        start, end = self.bounds(day)
        return (end - start).total_seconds() / 3600

    def default_shifts(self) -> tuple[tuple[str, time], ...]:
        """Three eight-hour shifts from the day's start time: day, swing (+8 h), grave (+16 h), local wall times
        (06:00, 14:00, 22:00 for the default day)."""
        base = self.start_hour * 60 + self.start_minute
        return tuple((name, time(((base + 480 * i) // 60) % 24, (base + 480 * i) % 60))
                     for i, name in enumerate(("day", "swing", "grave")))

    def shifts(self, day: date, starts: tuple[tuple[str, time], ...] | None = None) -> list[Shift]:
        """The shifts of gaming ``day``: ``starts`` gives (name, local start time) in order from the day's
        start (default :meth:`default_shifts`); a start time earlier than the day's start time falls on the next
        calendar date. The first shift must start with the day; the last ends with it. Raises ``ValueError``
        otherwise."""
        starts = starts if starts is not None else self.default_shifts()
        if not starts or starts[0][1] != self.start_time:
            raise ValueError("the first shift starts when the gaming day starts")
        instants = []
        for _, wall in starts:
            on = day if wall >= self.start_time else day + timedelta(days=1)
            instants.append(self.first_instant_at(on, wall))
        end = self.bounds(day)[1]
        instants.append(end)
        if any(b <= a for a, b in zip(instants, instants[1:])):
            raise ValueError("shift start times must increase through the gaming day")
        return [Shift(name, day, instants[i], instants[i + 1]) for i, (name, _) in enumerate(starts)]

    # ------------------------------------------------------------------ display
    def local(self, instant: datetime) -> datetime:
        return _aware(instant).astimezone(self._tz)

    def format(self, instant: datetime) -> str:
        """THE display format of a date-time: ``2026-12-02 03:50:48 KST`` (local time, zone abbreviation)."""
        loc = self.local(instant)
        return f"{loc:%Y-%m-%d %H:%M:%S} {loc.tzname()}"

    def describe(self, day: date) -> str:
        """A gaming day as reports title it: ``2026-12-01 (2026-12-01 06:00:00 KST – 2026-12-02 06:00:00 KST)``."""
        start, end = self.bounds(day)
        return f"{day.isoformat()} ({self.format(start)} – {self.format(end)})"
