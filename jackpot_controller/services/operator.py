"""Operator use cases on levels: create, edit (effective after the next hit), pause, resume,
correct a value with a reason, move a machine between zones. Each runs in the caller's unit of
work; every change is written to the auditor-visible event log (``GET /api/v1/jackpots/events``).

Errors: 422 problem naming the field (bad parameter, unknown zone / bank / machine / level),
409 (duplicate code, nothing to change), 404 (unknown level). A refused request changes nothing.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from jackpot_controller.adapters.tables import JackpotLevel, JackpotZoneMove
from slotsys.kernel import accounts
from jackpot_controller.domain.levels import LevelConfigError, LevelParams
from jackpot_controller.domain.pool import corrected_trigger, correction_legs
from jackpot_controller.services.levels import create_level, level_view, params_of, pending_of
from jackpot_controller.services.sequencer import EPOCH
from slotsys.floor.adapters.tables import Machine, Zone
from slotsys.kernel import ledger as L
from slotsys.kernel.errors import Conflict, NotFound, ValidationFailed
from slotsys.kernel.money import milli_to_won_floor

if TYPE_CHECKING:  # pragma: no cover
    from jackpot_controller.services.controller import JackpotService

PARAM_FIELDS = ("kind", "reset", "ceiling", "rate_ppm", "start", "reserve_rate_ppm", "min_bet", "scope", "machine",
                "bank", "zone", "overflow", "overflow_to", "combination", "max_award", "second_hit_rule")
CODE_CHARS = set("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


def _refuse(e: LevelConfigError) -> ValidationFailed:
    return ValidationFailed(e.message, field=e.field)


def check_params(uow, p: LevelParams, code: str, system_max: int | None = None) -> LevelParams:
    """Validate ``p`` (pure rules, then that its zone / bank / machine / overflow level exist).

    ``system_max`` (``SLOTSYS_JACKPOT_MAX_AWARD_WON``): the ceiling must not exceed it either,
    since an award above it locks the machine for verification whatever the level's own maximum
    (422 naming ``ceiling``)."""
    try:
        p.validate()
    except LevelConfigError as e:
        raise _refuse(e) from None
    if system_max is not None and p.ceiling > system_max:
        raise ValidationFailed(f"the ceiling ₩{p.ceiling:,} is above the system maximum award ₩{system_max:,} "
                               "(SLOTSYS_JACKPOT_MAX_AWARD_WON): every hit above it would lock its machine",
                               field="ceiling")
    s = uow.session
    if p.zone is not None and s.get(Zone, p.zone) is None:
        raise ValidationFailed(f"unknown zone {p.zone!r}", field="zone")
    if p.bank is not None and s.query(Machine.id).filter(Machine.bank == p.bank).first() is None:
        raise ValidationFailed(f"unknown bank {p.bank!r}", field="bank")
    if p.machine is not None and s.query(Machine.id).filter(Machine.asset_number == p.machine).first() is None:
        raise ValidationFailed(f"unknown machine {p.machine!r}", field="machine")
    if p.overflow_to is not None:
        if p.overflow_to == code:
            raise ValidationFailed("a level cannot divert its overflow to itself", field="overflow_to")
        if uow.levels.get(p.overflow_to) is None:
            raise ValidationFailed(f"unknown level {p.overflow_to!r}", field="overflow_to")
    return p


def _level(uow, code: str, *, for_update: bool = False) -> JackpotLevel:
    level = uow.levels.get(code, for_update=for_update)
    if level is None:
        raise NotFound(f"jackpot level {code!r} does not exist", field="code")
    return level


def _params(body: dict[str, Any]) -> dict[str, Any]:
    return {k: body[k] for k in PARAM_FIELDS if k in body}


def create(uow, svc: "JackpotService", body: dict[str, Any], actor: str) -> dict:
    """Create a level from ``body`` (code, name and the parameters of :class:`LevelParams`)."""
    code = body.get("code")
    if not isinstance(code, str) or not 2 <= len(code) <= 40 or not set(code) <= CODE_CHARS:
        raise ValidationFailed("code must be 2-40 characters A-Z, 0-9 or _", field="code")
    name = body.get("name")
    if not isinstance(name, str) or not 1 <= len(name.strip()) <= 80:
        raise ValidationFailed("name must be 1-80 characters", field="name")
    for required in ("kind", "reset", "ceiling", "rate_ppm"):
        if body.get(required) is None:
            raise ValidationFailed(f"{required} is required", field=required)
    p = LevelParams(**_params(body))
    check_params(uow, p, code, svc.settings.max_award_won)
    if uow.levels.get(code) is not None:
        raise Conflict(f"a level {code!r} already exists", field="code")
    level = create_level(uow, code=code, name=name.strip(), params=p, rng=svc.ctx.rng)
    uow.levels.add_event(kind="created", level_code=code, actor=actor, detail=p.to_dict(), created_at=svc.ctx.clock.now())
    return level_view(level)


def edit(uow, svc: "JackpotService", code: str, body: dict[str, Any], actor: str, reason: str = "") -> dict:
    """Edit a level: ``name`` now; parameters take effect after the level's next hit (GLI-12),
    merged over any earlier pending change (``kind`` never changes: create a new level)."""
    level = _level(uow, code, for_update=True)
    now = svc.ctx.clock.now()
    changes = _params(body)
    if "kind" in changes and changes["kind"] != level.kind:
        raise ValidationFailed("kind cannot change: create a new level", field="kind")
    if not changes and "name" not in body:
        raise ValidationFailed("nothing to change", field="body")
    if "name" in body:
        name = body["name"]
        if not isinstance(name, str) or not 1 <= len(name.strip()) <= 80:
            raise ValidationFailed("name must be 1-80 characters", field="name")
    if "start" in changes:
        raise ValidationFailed("start is the first cycle's value: it applies only to a new level", field="start")
    if changes:
        base = replace(pending_of(level) or params_of(level), start=None)  # later cycles start at reset
        if "scope" in changes:  # a new scope names its own target; the others are cleared
            for t in ("machine", "bank", "zone"):
                changes.setdefault(t, None)
        if changes.get("overflow") == "carry":
            changes.setdefault("overflow_to", None)
        try:
            new = base.with_changes(changes)
        except LevelConfigError as e:
            raise _refuse(e) from None
        check_params(uow, new, code, svc.settings.max_award_won)
        level.pending = new.to_dict()
        level.pending_at = now
    if "name" in body:
        level.name = body["name"].strip()
    uow.levels.add_event(kind="edited", level_code=code, actor=actor, reason=reason[:300],
                         detail={"changes": changes, "name": body.get("name"), "effective": "after the next hit"},
                         created_at=now)
    return level_view(level)


def set_paused(uow, svc: "JackpotService", code: str, paused: bool, actor: str, reason: str = "") -> dict:
    """Pause (no contributions, no hits) or resume a level; logged."""
    level = _level(uow, code, for_update=True)
    if level.paused == paused:
        raise Conflict(f"level {code} is already {'paused' if paused else 'active'}", field="code")
    level.paused = paused
    uow.levels.add_event(kind="paused" if paused else "resumed", level_code=code, actor=actor, reason=reason[:300],
                         detail={"value_milli": level.value_milli}, created_at=svc.ctx.clock.now())
    return level_view(level)


def correct(uow, svc: "JackpotService", code: str, value: object, reason: object, actor: str) -> dict:
    """Set a level's value to ``value`` whole won (the sub-won part is kept), with a ``reason``.

    Refused (422 naming ``value``) below the reset value or above the ceiling: the value is never
    below its reset (GLI-12). A mystery level's secret trigger is **redrawn** by every correction
    that raises the value, uniformly in [new value + ₩1, ceiling]
    (:func:`jackpot_controller.domain.pool.corrected_trigger`): the hit never pays less than the
    meter shows, and the correction reveals nothing about the old trigger. Ledger: ``Dr jackpot:<L>:adjustments / Cr :liability`` for a rise,
    the reverse for a fall. Logged with the old and new values and the reason (auditor-visible).
    """
    if not isinstance(reason, str) or len(reason.strip()) < 3:
        raise ValidationFailed("a reason (at least 3 characters) is required", field="reason")
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValidationFailed("value must be an integer number of won", field="value")
    level = _level(uow, code, for_update=True)
    if not level.reset_won <= value <= level.ceiling_won:
        raise ValidationFailed(f"value must be between the reset ₩{level.reset_won:,} and the ceiling "
                               f"₩{level.ceiling_won:,}", field="value")
    old = level.value_milli
    if value == milli_to_won_floor(old):
        raise Conflict("the value is already that", field="value")
    new_milli, legs = correction_legs(code, old, value)
    entry = L.EntryBuilder("jackpot.correction", f"correction of {code}: {reason.strip()}"[:200])
    for debit, credit, amount in legs:
        entry.add(debit=debit, credit=credit, amount=amount, memo="correction")
    for acc, typ, nn in accounts.jackpot_level_accounts(code):
        uow.ledger.ensure_account(acc, typ, non_negative=nn)
    entry_id = uow.ledger.post(entry.build({"level": code, "by": actor}))
    level.value_milli = new_milli
    trigger = corrected_trigger(params_of(level), old, new_milli, level.trigger_milli, svc.ctx.rng)
    redrawn = level.kind == "mystery" and new_milli > old  # every rise redraws: the flag tells nothing
    level.trigger_milli = trigger
    uow.levels.add_event(kind="correction", level_code=code, actor=actor, reason=reason.strip()[:300],
                         detail={"old_value_milli": old, "new_value_milli": new_milli, "entry": entry_id,
                                 "trigger_redrawn": redrawn},
                         created_at=svc.ctx.clock.now())
    return {**level_view(level), "correction": {"old": milli_to_won_floor(old), "new": value, "entry": entry_id,
                                                "reason": reason.strip()}}


def move_machine(uow, svc: "JackpotService", asset: str, zone: object, actor: str) -> dict:
    """Move a machine to another zone. It keeps counting for each level in its old zone until
    that level's next reset; the levels of its new zone take it from their next reset."""
    if not isinstance(zone, str) or uow.session.get(Zone, zone) is None:
        raise ValidationFailed(f"unknown zone {zone!r}", field="zone")
    m = uow.machines.get(asset, for_update=True)
    if m.zone == zone:
        raise Conflict(f"machine {asset} is already in zone {zone}", field="zone")
    now = svc.ctx.clock.now()
    if not uow.levels.zone_moves().get(m.id):
        uow.levels.add_zone_move(JackpotZoneMove(machine_id=m.id, zone=m.zone, since=EPOCH, by="(before the first move)"))
    uow.levels.add_zone_move(JackpotZoneMove(machine_id=m.id, zone=zone, since=now, by=actor))
    old, m.zone = m.zone, zone
    uow.levels.add_event(kind="zone_move", machine=asset, actor=actor, detail={"from": old, "to": zone},
                         created_at=now)
    return {"machine": asset, "from": old, "zone": zone, "effective": "at each level's next reset"}
