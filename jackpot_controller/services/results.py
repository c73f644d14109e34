"""The results of the jackpot controller's use cases (pydantic models; the API answers their JSON as it is).

Amounts in won unless named ``_milli`` (milli-won); rates in ppm; times ISO 8601 (UTC). Field names are the
JSON keys clients read, so a replayed exactly-once answer (stored as the model's JSON) is the first answer.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from pydantic import BaseModel, ConfigDict, Field


class _Result(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class LevelView(_Result):
    """A level as staff see it (``jackpot_controller.services.views.level_view``; the trigger is never in it)."""

    code: str
    name: str
    kind: str
    scope: str
    target: str | None
    zone: str | None
    reset: int
    ceiling: int
    rate_ppm: int
    min_bet: int
    value: int  # whole won a sign shows: never above what the next hit pays
    value_milli: int
    cycle: int
    paused: bool
    status: str  # active | paused
    combination: str | None
    hits: int
    total_won: int
    qualifying_coin_in: int
    start: int
    reserve_rate_ppm: int
    reserve: int
    reserve_milli: int
    overflow: int
    overflow_milli: int
    overflow_rule: str
    overflow_to: str | None
    max_award: int | None
    second_hit_rule: str
    contributed_milli: int
    seeded: int
    cycle_started_at: str | None
    pending: dict[str, Any] | None  # the parameters taking effect after the next hit
    pending_since: str | None


class CorrectedLevel(LevelView):
    """A level after an authorised correction: ``correction`` {old, new (won), entry, reason}."""

    correction: dict[str, Any]


class ZoneMove(_Result):
    """A machine moved between zones: effective at each level's next reset."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True, serialize_by_alias=True)

    machine: str
    from_: str = Field(alias="from")
    zone: str
    effective: str


class HandpayPaid(_Result):
    """A jackpot handpay paid in cash from the cage: ``entry`` the payment's journal entry, ``machine_status``
    the machine's status after it (``active`` unless another lock of its own waits)."""

    hit: int
    level: str
    machine: str
    amount: int
    status: str
    paid_by: str
    paid_at: str
    entry: int
    machine_status: str


class Verified(_Result):
    """A verification lock resolved: ``status`` ``handpay`` (to be paid by an attendant) or ``void``."""

    hit: int
    level: str
    machine: str
    amount: int
    status: str
    machine_status: str


class TableRound(_Result):
    """One table round on a table progressive: meters (won) before and after, milli-won contributed, and
    each award {player_id, box, hand, amount, from_meter, from_house, meter, cycle, entry[, meter_ppm,
    shared_by]}."""

    level: str
    cycle: int
    meter_before: int
    meter_after: int
    contributed_milli: int
    awards: list[dict[str, Any]]


class SweepResult(_Result):
    """The safety net's pass: wagers folded, claims released, hits awarded, hits announced."""

    folded: int
    released: list[int]
    awarded: list[int]
    announced: int


class WagerAwards(NamedTuple):
    """What :meth:`WagerRecorder.on_wager` returns to the spin: this wager's own awards, decided in the spin's
    transaction ({hit, level, name, amount, status, pay_method}; empty unless the sequencer runs in the spin),
    and the won credited to the machine by them now."""

    awards: list[dict[str, Any]]
    credited_won: int
