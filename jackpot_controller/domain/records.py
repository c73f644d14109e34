"""What the jackpot controller's repositories hand the use cases: frozen copies of its rows, and the
machines it pays as the slot floor describes them (pure: standard library only).

* :class:`Level`: one jackpot level (its current parameters, the parameters pending until its next hit, its
  meters). Attribute names are the stored columns' (``reset_won``, ``value_milli`` …): amounts in won unless
  named ``_milli`` (milli-won); rates in ppm. ``trigger_milli`` is the secret mystery trigger: never shown.
* :class:`Hit`: one decided award (one per level and cycle) and where it is in the award protocol:
  ``hit`` → ``claimed`` → ``awarded`` (credited), or ``handpay`` → ``awarded`` (paid by an attendant), or
  ``verification`` → ``handpay`` | ``void``, or (a machine that pays bonuses itself: a SAS machine)
  ``at_machine`` → ``awarded`` (the machine confirmed the legacy bonus) | ``handpay`` (it refused it).
* :class:`JackpotEvent`: one line of the auditor-visible event log.
* :class:`MachineRef` / :class:`MachineState`: a machine of the floor as the jackpot controller needs it
  (filled by the composition root's glue from the floor's own records).

:func:`params_of` / :func:`pending_of` read a level's :class:`~jackpot_controller.domain.levels.LevelParams`
from any object with a level's attribute names (a :class:`Level`, or the stored row itself).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from datetime import datetime, timezone
from typing import Any

from jackpot_controller.domain.levels import LevelParams

UNPAID = ("hit", "claimed", "handpay", "verification", "at_machine")  # decided, owed on ``jackpot:<L>:payable``
OPEN_CLAIM = ("hit", "claimed")  # a linked level's claim still open (the second-hit rule looks at these)
LOCKS = ("handpay", "verification")  # hit statuses that keep their machine locked
EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)  # "since always": a machine's zone before its first move


@dataclass(frozen=True)
class Level:
    """A jackpot level as stored (see the module doc for units)."""

    id: int
    code: str
    name: str
    kind: str
    scope: str
    zone: str | None
    scope_machine: str | None
    scope_bank: str | None
    start_won: int
    reset_won: int
    ceiling_won: int
    rate_ppm: int
    reserve_rate_ppm: int
    min_bet_won: int
    overflow_rule: str
    overflow_to: str | None
    combination: str | None
    max_award_won: int | None
    second_hit_rule: str
    pending: dict[str, Any] | None  # LevelParams.to_dict() of the change waiting for the next hit
    pending_at: datetime | None
    value_milli: int
    trigger_milli: int
    reserve_milli: int
    overflow_milli: int
    cycle: int
    cycle_started_at: datetime | None
    paused: bool
    qualifying_coin_in: int
    contributed_milli: int
    seeded_won: int
    hits: int
    total_won: int
    updated_at: datetime | None


@dataclass(frozen=True)
class Hit:
    """A decided award (see the module doc for the statuses). ``amount_won`` is owed to the machine
    ``machine_id`` for its game ``game_number``; ``value_milli`` / ``trigger_milli`` the raw meter and
    trigger when it was decided; ``entry_id`` the fold's journal entry, ``award_entry_id`` the payment's."""

    id: int
    level_id: int
    cycle: int
    machine_id: int
    zone: str
    game_number: int
    amount_won: int
    trigger_milli: int
    status: str
    announced: bool
    entry_id: int | None
    created_at: datetime
    wager_id: int | None
    player_id: int | None
    value_milli: int
    topup_won: int
    pay_method: str | None
    claim_token: str | None
    claimed_at: datetime | None
    awarded_at: datetime | None
    paid_by: str | None
    award_entry_id: int | None
    note: str
    bonus_meter_before: int | None = None  # at_machine: the machine's legacy bonus meter (won) before the bonus


@dataclass(frozen=True)
class JackpotEvent:
    """One line of the event log: ``kind`` (created, edited, paused, correction, second_hit, verification,
    handpay_lock, handpay_paid, claim_timeout, zone_move, table_award, unmatched_progressive …)."""

    id: int
    kind: str
    level_code: str | None
    hit_id: int | None
    machine: str | None
    actor: str
    reason: str
    detail: dict[str, Any]
    created_at: datetime


LEVEL_FIELDS = tuple(f.name for f in fields(Level))
HIT_FIELDS = tuple(f.name for f in fields(Hit))
EVENT_FIELDS = tuple(f.name for f in fields(JackpotEvent))


@dataclass(frozen=True)
class MachineRef:
    """The machine a wager was played on, as the floor passes it to :meth:`WagerRecorder.on_wager`: its
    id, asset number, zone and bank (``""`` when it belongs to none)."""

    id: int
    asset: str
    zone: str
    bank: str = ""


@dataclass(frozen=True)
class MachineState:
    """A machine as this transaction sees it: where it is and whether it is locked (``status``: active,
    locked, handpay, verification …; ``lock_reason`` shown to the attendant). ``bonus_on_machine``: the machine
    pays a mystery award itself (a SAS machine: a legacy bonus the host sends), so an award is left
    ``at_machine`` instead of credited; ``denomination`` its credit (won; 0 unknown)."""

    id: int
    asset: str
    zone: str
    bank: str
    status: str
    lock_reason: str
    bonus_on_machine: bool = False
    denomination: int = 0


def params_of(level: Any) -> LevelParams:
    """The parameters of the level's current cycle (``level``: a :class:`Level` or a stored level row)."""
    return LevelParams(
        kind=level.kind, reset=level.reset_won, ceiling=level.ceiling_won, rate_ppm=level.rate_ppm,
        start=level.start_won or None, reserve_rate_ppm=level.reserve_rate_ppm, min_bet=level.min_bet_won,
        scope=level.scope, machine=level.scope_machine, bank=level.scope_bank, zone=level.zone,
        overflow=level.overflow_rule, overflow_to=level.overflow_to, combination=level.combination,
        max_award=level.max_award_won, second_hit_rule=level.second_hit_rule,
    )


def pending_of(level: Any) -> LevelParams | None:
    """The parameters waiting for the level's next hit, or None."""
    return LevelParams.from_dict(level.pending) if level.pending else None
