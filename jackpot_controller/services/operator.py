"""The operator's administration of levels: create, edit (effective after the next hit), pause, resume,
correct a value with a reason, move a machine between zones. Every change is written to the auditor-visible
event log (``GET /api/v1/jackpots/events``). Operator role for all of them.

Errors: ``ValidationFailed`` (422) naming the field (bad parameter, unknown zone / bank / machine / level),
``Conflict`` (409: duplicate code, nothing to change), ``NotFound`` (404: unknown level). A refused request
changes nothing. Lock order: the level row, then the ledger's accounts (a zone move: the machine row).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Mapping

from jackpot_controller.domain.levels import LevelConfigError, LevelParams
from jackpot_controller.domain.pool import corrected_trigger, correction_legs
from jackpot_controller.domain.records import EPOCH, Level, params_of, pending_of
from jackpot_controller.services.levels import create_level, ensure_accounts
from jackpot_controller.services.ports import JackpotUnitOfWork, MachinePort
from jackpot_controller.services.results import CorrectedLevel, LevelView, ZoneMove
from jackpot_controller.services.views import level_view
from jackpot_controller.settings import JackpotSettings
from slotsys.kernel import ledger as L
from slotsys.kernel.checks import require_role
from slotsys.kernel.context import Principal, ServiceContext
from slotsys.kernel.errors import Conflict, NotFound, ValidationFailed
from slotsys.kernel.idempotency import Once, OnceKey, run_once
from slotsys.kernel.money import milli_to_won_floor

PARAM_FIELDS = ("kind", "reset", "ceiling", "rate_ppm", "start", "reserve_rate_ppm", "min_bet", "scope", "machine",
                "bank", "zone", "overflow", "overflow_to", "combination", "max_award", "second_hit_rule")
CODE_CHARS = set("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


def _refuse(e: LevelConfigError) -> ValidationFailed:
    return ValidationFailed(e.message, field=e.field)


def _params(body: Mapping[str, Any]) -> dict[str, Any]:
    return {k: body[k] for k in PARAM_FIELDS if k in body}


def _view(level: Level) -> LevelView:
    return LevelView(**level_view(level))


class LevelAdmin:
    """``machines``: the floor's zones, banks and machines (existence checks, zone moves)."""

    def __init__(self, ctx: ServiceContext, settings: JackpotSettings, *, machines: MachinePort) -> None:
        self.ctx = ctx
        self.settings = settings
        self.machines = machines

    def _write(self, principal: Principal, fn):
        require_role(principal, "operator")
        with self.ctx.uow() as uow:
            out = fn(uow)
            uow.commit()
        return out

    @staticmethod
    def _level(uow: JackpotUnitOfWork, code: str, *, for_update: bool = False) -> Level:
        level = uow.levels.get(code, for_update=for_update)
        if level is None:
            raise NotFound(f"jackpot level {code!r} does not exist", field="code")
        return level

    def check_params(self, uow: JackpotUnitOfWork, p: LevelParams, code: str) -> LevelParams:
        """Validate ``p`` (pure rules, then that its zone / bank / machine / overflow level exist).

        The ceiling must not exceed the system maximum award (``SLOTSYS_JACKPOT_MAX_AWARD_WON``) either,
        since an award above it locks the machine for verification whatever the level's own maximum
        (422 naming ``ceiling``)."""
        try:
            p.validate()
        except LevelConfigError as e:
            raise _refuse(e) from None
        system_max = self.settings.max_award_won
        if p.ceiling > system_max:
            raise ValidationFailed(f"the ceiling ₩{p.ceiling:,} is above the system maximum award ₩{system_max:,} "
                                   "(SLOTSYS_JACKPOT_MAX_AWARD_WON): every hit above it would lock its machine",
                                   field="ceiling")
        if p.zone is not None and not self.machines.zone_exists(uow, p.zone):
            raise ValidationFailed(f"unknown zone {p.zone!r}", field="zone")
        if p.bank is not None and not self.machines.bank_exists(uow, p.bank):
            raise ValidationFailed(f"unknown bank {p.bank!r}", field="bank")
        if p.machine is not None and not self.machines.asset_exists(uow, p.machine):
            raise ValidationFailed(f"unknown machine {p.machine!r}", field="machine")
        if p.overflow_to is not None:
            if p.overflow_to == code:
                raise ValidationFailed("a level cannot divert its overflow to itself", field="overflow_to")
            if uow.levels.get(p.overflow_to) is None:
                raise ValidationFailed(f"unknown level {p.overflow_to!r}", field="overflow_to")
        return p

    # ------------------------------------------------------------ create
    def create_in(self, uow: JackpotUnitOfWork, body: Mapping[str, Any], actor: str) -> LevelView:
        """Create a level from ``body`` (``code``, ``name`` and the parameters of :class:`LevelParams`) in
        ``uow``; the house funds its start on the ledger."""
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
        self.check_params(uow, p, code)
        if uow.levels.get(code) is not None:
            raise Conflict(f"a level {code!r} already exists", field="code")
        level = create_level(uow, code=code, name=name.strip(), params=p, rng=self.ctx.rng)
        uow.levels.add_event(kind="created", level_code=code, actor=actor, detail=p.to_dict(),
                             created_at=self.ctx.clock.now())
        return _view(level)

    def create_level(self, principal: Principal, body: Mapping[str, Any], key: OnceKey) -> Once[LevelView]:
        """``POST /jackpots/levels`` (operator; exactly once per ``key``): see :meth:`create_in`."""
        require_role(principal, "operator")
        return run_once(self.ctx, key, lambda uow: self.create_in(uow, body, principal.name), result=LevelView)

    # ------------------------------------------------------------ edit, pause
    def edit_level(self, principal: Principal, code: str, body: Mapping[str, Any], reason: str = "") -> LevelView:
        """Edit a level: ``name`` now; parameters take effect after the level's next hit (GLI-12),
        merged over any earlier pending change (``kind`` never changes: create a new level)."""

        def fn(uow: JackpotUnitOfWork) -> LevelView:
            level = self._level(uow, code, for_update=True)
            now = self.ctx.clock.now()
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
                raise ValidationFailed("start is the first cycle's value: it applies only to a new level",
                                       field="start")
            pending = None
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
                self.check_params(uow, new, code)
                pending = new.to_dict()
            level = uow.levels.update_level(level.id, pending=pending, pending_at=now if pending else None,
                                            name=body["name"].strip() if "name" in body else None)
            uow.levels.add_event(kind="edited", level_code=code, actor=principal.name, reason=reason[:300],
                                 detail={"changes": changes, "name": body.get("name"),
                                         "effective": "after the next hit"}, created_at=now)
            return _view(level)

        return self._write(principal, fn)

    def pause(self, principal: Principal, code: str, paused: bool, reason: str = "") -> LevelView:
        """Pause (no contributions, no hits) or resume a level; logged. ``Conflict`` if it already is."""

        def fn(uow: JackpotUnitOfWork) -> LevelView:
            level = self._level(uow, code, for_update=True)
            if level.paused == paused:
                raise Conflict(f"level {code} is already {'paused' if paused else 'active'}", field="code")
            level = uow.levels.update_level(level.id, paused=paused)
            uow.levels.add_event(kind="paused" if paused else "resumed", level_code=code, actor=principal.name,
                                 reason=reason[:300], detail={"value_milli": level.value_milli},
                                 created_at=self.ctx.clock.now())
            return _view(level)

        return self._write(principal, fn)

    # ------------------------------------------------------------ corrections
    def correct_in(self, uow: JackpotUnitOfWork, code: str, value: object, reason: object,
                   actor: str) -> CorrectedLevel:
        """Set a level's value to ``value`` whole won (the sub-won part is kept), with a ``reason``.

        Refused (422 naming ``value``) below the reset value or above the ceiling: the value is never
        below its reset (GLI-12). A mystery level's secret trigger is **redrawn** by every correction
        that raises the value, uniformly in [new value + ₩1, ceiling]
        (:func:`jackpot_controller.domain.pool.corrected_trigger`): the hit never pays less than the
        meter shows, and the correction reveals nothing about the old trigger. Ledger: ``Dr
        jackpot:<L>:adjustments / Cr :liability`` for a rise, the reverse for a fall. Logged with the old
        and new values and the reason (auditor-visible)."""
        if not isinstance(reason, str) or len(reason.strip()) < 3:
            raise ValidationFailed("a reason (at least 3 characters) is required", field="reason")
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValidationFailed("value must be an integer number of won", field="value")
        level = self._level(uow, code, for_update=True)
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
        ensure_accounts(uow, code)
        entry_id = uow.ledger.post(entry.build({"level": code, "by": actor}))
        trigger = corrected_trigger(params_of(level), old, new_milli, level.trigger_milli, self.ctx.rng)
        redrawn = level.kind == "mystery" and new_milli > old  # every rise redraws: the flag tells nothing
        level = uow.levels.update_level(level.id, value_milli=new_milli, trigger_milli=trigger)
        uow.levels.add_event(kind="correction", level_code=code, actor=actor, reason=reason.strip()[:300],
                             detail={"old_value_milli": old, "new_value_milli": new_milli, "entry": entry_id,
                                     "trigger_redrawn": redrawn},
                             created_at=self.ctx.clock.now())
        return CorrectedLevel(**level_view(level), correction={"old": milli_to_won_floor(old), "new": value,
                                                               "entry": entry_id, "reason": reason.strip()})

    def correct(self, principal: Principal, code: str, value: object, reason: object,
                key: OnceKey) -> Once[CorrectedLevel]:
        """``POST /jackpots/levels/<code>/corrections`` (operator; exactly once per ``key``): see
        :meth:`correct_in`."""
        require_role(principal, "operator")
        return run_once(self.ctx, key, lambda uow: self.correct_in(uow, code, value, reason, principal.name),
                        result=CorrectedLevel)

    # ------------------------------------------------------------ zone moves
    def move_machine_in(self, uow: JackpotUnitOfWork, asset: str, zone: object, actor: str) -> ZoneMove:
        """Move a machine to another zone, in ``uow`` (the caller commits: the jackpot route or the floor's
        machine administration). It keeps counting for each level in its old zone until that level's next
        reset; the levels of its new zone take it from their next reset. Errors: ``ValidationFailed``
        (``zone`` unknown), ``NotFound`` (``asset``), ``Conflict`` (``zone``: already there)."""
        if not isinstance(zone, str) or not self.machines.zone_exists(uow, zone):
            raise ValidationFailed(f"unknown zone {zone!r}", field="zone")
        m = self.machines.lock_by_asset(uow, asset)
        if m.zone == zone:
            raise Conflict(f"machine {asset} is already in zone {zone}", field="zone")
        now = self.ctx.clock.now()
        if not uow.levels.zone_moves().get(m.id):
            uow.levels.add_zone_move(machine_id=m.id, zone=m.zone, since=EPOCH, by="(before the first move)")
        uow.levels.add_zone_move(machine_id=m.id, zone=zone, since=now, by=actor)
        self.machines.move_to_zone(uow, m.id, zone)
        uow.levels.add_event(kind="zone_move", machine=asset, actor=actor, detail={"from": m.zone, "to": zone},
                             created_at=now)
        return ZoneMove(machine=asset, from_=m.zone, zone=zone, effective="at each level's next reset")

    def move_machine(self, principal: Principal, asset: str, zone: object) -> ZoneMove:
        """``POST /jackpots/machines/<asset>/zone`` (operator): see :meth:`move_machine_in`."""
        return self._write(principal, lambda uow: self.move_machine_in(uow, asset, zone, principal.name))
