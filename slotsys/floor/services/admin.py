"""Floor administration: enrol, edit, enable / disable, move, re-game and retire machines; zones and banks as
data; the floor plan (docs/floor-administration.md).

Roles (``require_role``; admin holds every role):

* ``operator``: enrol, edit (serial, manufacturer, model, max bet, credit limit, floor-plan cell), enable /
  disable with a reason, move between banks and zones, change game / variation / denomination; create and
  rename zones and banks;
* ``admin`` only: rotate a machine's key, retire a machine, retire a zone or bank;
* readers (``operator``, ``attendant``, ``auditor``): the machine list, a machine's record, zones, banks, the
  floor plan.

Every change is one transaction that also appends ``audit_log.record`` (before → after, reason). A change the
floor's rules refuse (unknown zone / bank / game, asset number in use or retired, denomination not offered, a
game change with credits, an unassignable variation …) raises a :class:`DomainError` naming the field (422 for
a bad value, 409 for the current state, 404 for an unknown machine / zone / bank in the path) after recording
the refusal with ``audit_log.record_refusal``; nothing is changed.

Ports: ``assignable(uow, game_id, variation) -> bool`` decides which game and variation a machine may be given
(default :func:`catalogue_assignable`: a game of the shipped catalogue with that variation); ``load_game(uow,
game_id)`` returns the :class:`slotsys.floor.domain.game.GameDefinition` (KeyError if unknown; default: the
catalogue); ``move_zone(uow, asset, zone, actor)`` moves a machine to another zone (default: the jackpot
controller's move, effective at each level's next reset); ``announce_revoked(message)`` evicts a machine key
on every node after the commit (``AuthService.announce_revoked``).
"""

from __future__ import annotations

from typing import Any, Callable

from slotsys.floor.domain.machine import Machine
from slotsys.floor.services.ports import JackpotPort, TicketPort
from slotsys.floor.domain import admin as R
from slotsys.kernel import accounts
from slotsys.kernel import ledger as L
from slotsys.kernel.errors import Conflict, DomainError, NotFound, ValidationFailed
from slotsys.floor.domain.machine_reports import check_outcome_source
from slotsys.kernel.security import new_token, token_digest
from slotsys.floor.games import load_game as catalogue_game
from slotsys.kernel import audit_log
from slotsys.kernel.context import Principal, ServiceContext
from slotsys.kernel.checks import require_role

WRITERS = ("operator",)
READERS = ("operator", "attendant", "auditor")
ADMIN = ("admin",)


def catalogue_assignable(uow, game_id: str, variation: str) -> bool:
    """The default assignability rule: ``game_id`` is in the shipped catalogue (slotsys/floor/games/*.yaml) and has
    ``variation`` ("" = its default variation)."""
    try:
        game = catalogue_game(game_id)
    except KeyError:
        return False
    return (variation or game.default_variation) in game.variations


def _catalogue_loader(uow, game_id: str):
    return catalogue_game(game_id)


def machine_accounts(uow, asset: str) -> None:
    """A machine's ledger accounts: credit meter, drop, hold and the promotional credit meter."""

    uow.ledger.ensure_account(accounts.machine_credits(asset), L.AccountType.LIABILITY, non_negative=True)
    uow.ledger.ensure_account(accounts.machine_drop(asset), L.AccountType.ASSET, non_negative=True)
    uow.ledger.ensure_account(accounts.machine_hold(asset), L.AccountType.REVENUE)
    uow.ledger.ensure_account(accounts.machine_restricted(asset), L.AccountType.LIABILITY, non_negative=True)


def _rule(e: R.FloorRuleError) -> DomainError:
    return (Conflict if e.status == 409 else ValidationFailed)(e.message, field=e.field)


def machine_record(m: Machine) -> dict[str, Any]:
    """The administrative record of a machine (no key, no SAS secret)."""
    return {
        "asset_number": m.asset_number, "serial": m.serial or "", "manufacturer": m.manufacturer or "",
        "model": m.model or "", "zone": m.zone, "bank": m.bank,
        "position": None if m.plan_x is None else {"x": m.plan_x, "y": m.plan_y},
        "denominations": list(m.denominations or [m.denomination]), "denomination": m.denomination,
        "game": m.game_id, "variation": m.variation or "", "max_bet": m.max_bet, "credit_limit": m.credit_limit,
        "validation_scheme": m.validation_scheme, "outcome_source": m.outcome_source or "server", "status": m.status,
        "status_reason": m.lock_reason or "" if m.status in ("disabled", "retired") else "",
        "enrolled_at": m.created_at.isoformat() if m.created_at else None,
        "retired_at": m.retired_at.isoformat() if m.retired_at else None,
    }


def zone_record(z) -> dict[str, Any]:
    return {"code": z.code, "name": z.name, "retired_at": z.retired_at.isoformat() if z.retired_at else None}


def bank_record(b) -> dict[str, Any]:
    return {"code": b.code, "name": b.name, "zone": b.zone, "orientation": b.orientation,
            "retired_at": b.retired_at.isoformat() if b.retired_at else None}


def _actor(principal: Principal | None) -> str:
    return principal.name if principal else "system"


# ------------------------------------------------------------------ use cases in the caller's unit of work
def create_zone(uow, principal: Principal | None, code: object, name: object) -> dict:
    """A new zone (``code`` 1-20 letters/digits, ``name`` ≤ 80). 409 ``code`` if the code exists (retired too)."""
    code = R.code("code", code)
    name = R.text("name", name, 80, required=True)
    if uow.floor_admin.zone(code) is not None:
        raise Conflict(f"zone {code} already exists (zone codes are never reused)", field="code")
    z = uow.floor_admin.add_zone(code, name)
    audit_log.record(uow, principal, "zone.create", f"zone:{code}", after=zone_record(z))
    return zone_record(z)


def create_bank(uow, principal: Principal | None, code: object, name: object, zone: object,
                orientation: object = None) -> dict:
    """A new bank in an active zone. 409 ``code`` if it exists; 422 ``zone`` if the zone is unknown or retired."""
    code = R.code("code", code)
    name = R.text("name", name, 80, required=True)
    orient = R.orientation(orientation)
    z = uow.floor_admin.zone(zone) if isinstance(zone, str) else None
    if z is None or z.retired_at is not None:
        raise ValidationFailed(f"unknown zone {zone!r}" if z is None else f"zone {zone} is retired", field="zone")
    if uow.floor_admin.bank(code) is not None:
        raise Conflict(f"bank {code} already exists (bank codes are never reused)", field="code")
    b = uow.floor_admin.add_bank(code, name, z.code, orient)
    audit_log.record(uow, principal, "bank.create", f"bank:{code}", after=bank_record(b))
    return bank_record(b)


def enrol_machine(uow, ctx: ServiceContext, principal: Principal | None, spec: dict, *, tickets: TicketPort,
                  assignable: Callable = catalogue_assignable, load_game: Callable = _catalogue_loader) -> tuple[dict, str]:
    """Enrol a machine: (record, machine key). ``spec``: ``asset_number``, ``bank`` (its zone is the machine's;
    ``zone`` if given must be that zone), ``game``, ``variation`` ("" = the game's default), ``denomination`` and
    ``denominations`` offered (won per credit), ``max_bet`` / ``credit_limit`` (won, optional), ``x`` / ``y``
    (floor-plan cell, optional), ``serial``, ``manufacturer``, ``model``, ``validation_scheme`` (system | sas).

    The key (``mk_…``) is returned once; only its digest is stored. Errors: 409 ``asset_number`` (in use, or
    retired: never reused); 422 ``bank`` / ``zone`` / ``game`` / ``variation`` / ``denomination(s)`` / ``max_bet``
    / ``x`` / ``y``; 409 ``x`` if the floor-plan cell is taken."""
    asset = R.code("asset_number", spec.get("asset_number"))
    existing = uow.floor_admin.machine(asset)
    if existing is not None:
        if existing.retired_at is not None:
            raise Conflict(f"asset number {asset} belongs to a retired machine: it is never reused", field="asset_number")
        raise Conflict(f"asset number {asset} is already on the floor", field="asset_number")
    bank, zone = _bank_and_zone(uow, spec.get("bank"), spec.get("zone"))
    game_id, variation, game = _game(uow, spec.get("game"), spec.get("variation"), assignable, load_game)
    try:
        offered, denomination = R.denominations(spec.get("denominations"), spec.get("denomination"))
        options = game.bet_options()
        max_bet = R.max_bet(spec.get("max_bet"), min_bet_credits=min(o.credits for o in options),
                            max_bet_credits=max(o.credits for o in options), denomination=denomination)
        credit_limit = R.credit_limit(spec.get("credit_limit"))
        x, y = R.position(spec.get("x"), spec.get("y"))
        scheme = R.validation_scheme(spec.get("validation_scheme"))
        outcome_source = check_outcome_source(spec.get("outcome_source") or "server")
        attrs = {k: R.text(k, spec.get(k), n) for k, n in (("serial", 40), ("manufacturer", 60), ("model", 60))}
        reason = R.reason(spec.get("reason"), required=False)
    except R.FloorRuleError as e:
        raise _rule(e) from None
    _free_cell(uow, x, y, None)
    key = new_token("mk")
    m = Machine(
        asset_number=asset, zone=zone, bank=bank, denomination=denomination, game_id=game_id, variation=variation,
        key_hash=token_digest(key), denominations=offered if offered != [denomination] else None, max_bet=max_bet,
        credit_limit=credit_limit, plan_x=x, plan_y=y, validation_scheme="system", outcome_source=outcome_source,
        **attrs)
    if not uow.floor_admin.insert_machine(m):  # a concurrent enrolment took the asset number or the cell first
        if uow.floor_admin.machine(asset) is not None:
            raise Conflict(f"asset number {asset} is already on the floor", field="asset_number")
        raise Conflict(f"floor-plan cell ({x}, {y}) was just taken", field="x")
    machine_accounts(uow, asset)
    if scheme == "sas":
        m.validation_scheme = "sas"
        tickets.new_machine_secret(uow, m, actor=_actor(principal), reason="enrolment")
    record = machine_record(m)
    audit_log.record(uow, principal, "machine.enrol", f"machine:{asset}", after=record, reason=reason)
    return record, key


def _bank_and_zone(uow, bank: object, zone: object) -> tuple[str, str]:
    b = uow.floor_admin.bank(bank) if isinstance(bank, str) else None
    if b is None or b.retired_at is not None:
        raise ValidationFailed(f"unknown bank {bank!r}" if b is None else f"bank {bank} is retired", field="bank")
    if zone is not None:
        z = uow.floor_admin.zone(zone) if isinstance(zone, str) else None
        if z is None or z.retired_at is not None:
            raise ValidationFailed(f"unknown zone {zone!r}" if z is None else f"zone {zone} is retired", field="zone")
        if z.code != b.zone:
            raise ValidationFailed(f"bank {b.code} is in zone {b.zone}, not {z.code}", field="zone")
    return b.code, b.zone


def _game(uow, game_id: object, variation: object, assignable: Callable, load_game: Callable):
    if not isinstance(game_id, str) or not game_id:
        raise ValidationFailed("a game is required", field="game")
    try:
        game = load_game(uow, game_id)
    except KeyError:
        raise ValidationFailed(f"unknown game {game_id!r}", field="game") from None
    variation = "" if variation is None else variation
    if not isinstance(variation, str) or (variation and variation not in game.variations):
        raise ValidationFailed(f"game {game_id} has no variation {variation!r}; it has {', '.join(game.variations)}",
                               field="variation")
    if not assignable(uow, game_id, variation):
        raise ValidationFailed(f"game {game_id} variation {variation or game.default_variation} is not assignable "
                               "(not approved for this floor)", field="variation")
    return game_id, variation, game


def _free_cell(uow, x: int | None, y: int | None, asset: str | None) -> None:
    if x is None:
        return
    other = uow.floor_admin.machine_at(x, y)
    if other is not None and other.asset_number != asset:
        raise Conflict(f"floor-plan cell ({x}, {y}) holds machine {other.asset_number}", field="x")


class FloorAdminService:
    def __init__(self, ctx: ServiceContext, *, jackpots: JackpotPort, tickets: TicketPort,
                 assignable: Callable = catalogue_assignable, load_game: Callable = _catalogue_loader,
                 announce_revoked: Callable[[str], None] | None = None) -> None:
        self.ctx = ctx
        self.jackpots = jackpots
        self.tickets = tickets
        self.assignable = assignable
        self.load_game = load_game
        self.announce_revoked = announce_revoked or (lambda message: None)

    # ------------------------------------------------------------ plumbing
    def _change(self, principal: Principal, roles: tuple[str, ...], action: str, subject: str,
                fn: Callable[[Any], Any], reason: object = "") -> Any:
        """Role check (403, not recorded: the auth layer's), then ``fn(uow)`` and commit; a refusal of the floor's
        rules is recorded (``record_refusal``) and re-raised."""
        require_role(principal, *roles)
        try:
            with self.ctx.uow() as uow:
                result = fn(uow)
                uow.commit()
            return result
        except R.FloorRuleError as e:
            err = _rule(e)
        except DomainError as e:
            err = e
        audit_log.record_refusal(self.ctx.uow, principal, action, subject, err.title,
                                 reason=reason if isinstance(reason, str) else "",
                                 detail={"field": err.field, "detail": err.detail, "status": err.status})
        raise err

    def _read(self, principal: Principal, fn: Callable[[Any], Any]) -> Any:
        require_role(principal, *READERS)
        with self.ctx.uow(readonly=True) as uow:
            return fn(uow)

    @staticmethod
    def _machine(uow, asset: str, *, for_update: bool = True) -> Machine:
        m = uow.floor_admin.machine(asset, for_update=for_update)
        if m is None:
            raise NotFound(f"machine {asset!r} is not enrolled", field="asset")
        return m

    @staticmethod
    def _not_retired(m: Machine) -> None:
        if m.retired_at is not None:
            raise Conflict(f"machine {m.asset_number} is retired", field="status")

    def _state(self, uow, m: Machine) -> R.MachineState:
        c = uow.machines.credits(m.asset_number)
        return R.MachineState(m.asset_number, m.status, c.cashable, c.restricted, c.nonrestricted)

    # ------------------------------------------------------------ machines
    def enrol(self, principal: Principal, spec: dict) -> dict:
        """Enrol a machine (operator): its record and ``key`` (shown once). See :func:`enrol_machine`."""
        asset = spec.get("asset_number")

        def fn(uow):
            record, key = enrol_machine(uow, self.ctx, principal, spec, tickets=self.tickets, assignable=self.assignable,
                                        load_game=self.load_game)
            return {**record, "key": key}

        return self._change(principal, WRITERS, "machine.enrol", f"machine:{asset}", fn, spec.get("reason"))

    def list_machines(self, principal: Principal, *, include_retired: bool = False, zone: str | None = None,
                      bank: str | None = None) -> dict:
        return self._read(principal, lambda uow: {"machines": [
            machine_record(m) for m in uow.floor_admin.machines(include_retired=include_retired, zone=zone, bank=bank)]})

    def get_machine(self, principal: Principal, asset: str) -> dict:
        """A machine's record with its meter snapshots (game changes, retirement)."""
        def fn(uow):
            m = self._machine(uow, asset, for_update=False)
            snaps = [{"kind": s.kind, "at": s.at.isoformat(), "actor": s.actor, "game": s.game_id,
                      "variation": s.variation, "denomination": s.denomination, "meters": s.meters, "reason": s.reason}
                     for s in uow.floor_admin.snapshots(m.id)]
            return {**machine_record(m), "snapshots": snaps}

        return self._read(principal, fn)

    def update(self, principal: Principal, asset: str, changes: dict) -> dict:
        """Edit serial, manufacturer, model, max bet, credit limit, the floor-plan cell or ``outcome_source``
        (``server``: the service decides each game; ``machine``: the machine decides and reports it, only while it
        has no credits and no game in progress, 409 ``credits`` / ``status``) (operator); ``reason``."""
        def fn(uow):
            m = self._machine(uow, asset)
            self._not_retired(m)
            before = machine_record(m)
            for k, n in (("serial", 40), ("manufacturer", 60), ("model", 60)):
                if k in changes:
                    setattr(m, k, R.text(k, changes[k], n))
            if "max_bet" in changes:
                options = self.load_game(uow, m.game_id).bet_options()
                m.max_bet = R.max_bet(changes["max_bet"], min_bet_credits=min(o.credits for o in options),
                                      max_bet_credits=max(o.credits for o in options), denomination=m.denomination)
            if "credit_limit" in changes:
                m.credit_limit = R.credit_limit(changes["credit_limit"])
            if "x" in changes or "y" in changes:
                self._place(uow, m, changes.get("x"), changes.get("y"))
            if "outcome_source" in changes:  # who decides the games: like a game change, only on an idle machine
                source = check_outcome_source(changes["outcome_source"])
                if source != m.outcome_source:
                    R.require_idle(self._state(uow, m), "outcome source change")
                    m.outcome_source = source
            b, a = audit_log.changed(before, machine_record(m))
            if not a:
                raise ValidationFailed("nothing to change", field="body")
            audit_log.record(uow, principal, "machine.update", f"machine:{asset}", before=b, after=a,
                             reason=R.reason(changes.get("reason"), required=False))
            return machine_record(m)

        return self._change(principal, WRITERS, "machine.update", f"machine:{asset}", fn, changes.get("reason"))

    def _place(self, uow, m: Machine, x: object, y: object) -> None:
        x, y = R.position(x, y)
        _free_cell(uow, x, y, m.asset_number)
        if not uow.floor_admin.set_cell(m, x, y):
            raise Conflict(f"floor-plan cell ({x}, {y}) was just taken", field="x")

    def rotate_key(self, principal: Principal, asset: str, reason: object) -> dict:
        """A new machine key (admin), returned once; the old one stops working at once (every node, after the
        commit). A SAS-validation machine also gets a new validation ID (as on re-enrolment)."""
        old: list[str] = []

        def fn(uow):
            why = R.reason(reason)
            m = self._machine(uow, asset)
            self._not_retired(m)
            key = new_token("mk")
            old.append(m.key_hash)
            m.key_hash = token_digest(key)
            if m.validation_scheme == "sas":
                self.tickets.new_machine_secret(uow, m, actor=principal.name, reason="machine key rotated")
            audit_log.record(uow, principal, "machine.rotate_key", f"machine:{asset}", before={"key": "(previous)"},
                             after={"key": "(new, shown once)"}, reason=why)
            return {"asset_number": asset, "key": key}

        result = self._change(principal, ADMIN, "machine.rotate_key", f"machine:{asset}", fn, reason)
        for digest in old:
            self.announce_revoked(f"token:{digest}")
        return result

    def disable(self, principal: Principal, asset: str, reason: object) -> dict:
        """Disable an active machine with a reason (operator): it refuses play (409 machine-locked) until enabled.
        409 ``status`` unless the machine is active (a handpay or verification lock is resolved first)."""
        def fn(uow):
            why = R.reason(reason)
            m = self._machine(uow, asset)
            self._not_retired(m)
            if m.status != "active":
                raise Conflict(f"machine {asset} is {m.status}, not active", field="status")
            before = {"status": m.status, "status_reason": ""}
            m.status, m.lock_reason = "disabled", f"disabled: {why}"[:200]
            audit_log.record(uow, principal, "machine.disable", f"machine:{asset}", before=before,
                             after={"status": "disabled", "status_reason": m.lock_reason}, reason=why)
            return machine_record(m)

        return self._change(principal, WRITERS, "machine.disable", f"machine:{asset}", fn, reason)

    def enable(self, principal: Principal, asset: str, reason: object) -> dict:
        """Enable a disabled machine (operator). 409 ``status`` unless it is disabled."""
        def fn(uow):
            why = R.reason(reason)
            m = self._machine(uow, asset)
            self._not_retired(m)
            if m.status != "disabled":
                raise Conflict(f"machine {asset} is {m.status}, not disabled", field="status")
            before = {"status": m.status, "status_reason": m.lock_reason}
            m.status, m.lock_reason = "active", ""
            audit_log.record(uow, principal, "machine.enable", f"machine:{asset}", before=before,
                             after={"status": "active", "status_reason": ""}, reason=why)
            return machine_record(m)

        return self._change(principal, WRITERS, "machine.enable", f"machine:{asset}", fn, reason)

    def move(self, principal: Principal, asset: str, body: dict) -> dict:
        """Move a machine to another bank (operator): ``bank``, optional ``zone`` (must be the bank's), ``x``/``y``
        (new cell; else it keeps its cell), ``reason``. Into another zone, jackpot eligibility follows the
        controller's rule: each level takes the move at its next reset. 409 ``bank`` if already in that bank."""
        def fn(uow):
            why = R.reason(body.get("reason"))
            bank, zone = _bank_and_zone(uow, body.get("bank"), body.get("zone"))
            m = self._machine(uow, asset)
            self._not_retired(m)
            if m.bank == bank:
                raise Conflict(f"machine {asset} is already in bank {bank}", field="bank")
            before = machine_record(m)
            if m.zone != zone:
                self.jackpots.move_machine(uow, asset, zone, principal.name)
                m = self._machine(uow, asset)
            m.bank = bank
            if "x" in body or "y" in body:
                self._place(uow, m, body.get("x"), body.get("y"))
            b, a = audit_log.changed(before, machine_record(m))
            audit_log.record(uow, principal, "machine.move", f"machine:{asset}", before=b, after=a, reason=why,
                             detail={"jackpot_zone": "effective at each level's next reset"} if "zone" in a else None)
            return machine_record(m)

        return self._change(principal, WRITERS, "machine.move", f"machine:{asset}", fn, body.get("reason"))

    def change_game(self, principal: Principal, asset: str, body: dict) -> dict:
        """Change game, variation and / or denomination (operator): ``game`` (default: the current), ``variation``,
        ``denomination``, ``denominations``, ``max_bet``, ``reason``. Only with no credits and no game in progress
        (409 ``credits`` / ``status``), to an assignable game (422 ``game`` / ``variation``) and a denomination
        offered (422 ``denomination``). Meters are snapshotted before and after (``machine_meter_snapshots``)."""
        def fn(uow):
            why = R.reason(body.get("reason"))
            m = self._machine(uow, asset)
            self._not_retired(m)
            R.require_idle(self._state(uow, m), "game change")
            game_id, variation, game = _game(uow, body.get("game", m.game_id),
                                             body.get("variation", m.variation if "game" not in body else ""),
                                             self.assignable, self.load_game)
            offered, denomination = R.denominations(body.get("denominations", m.denominations or [m.denomination]),
                                                    body.get("denomination", m.denomination))
            options = game.bet_options()
            max_bet = R.max_bet(body.get("max_bet", m.max_bet), min_bet_credits=min(o.credits for o in options),
                                max_bet_credits=max(o.credits for o in options), denomination=denomination)
            before = machine_record(m)
            now = self.ctx.clock.now()
            uow.floor_admin.snapshot(m, "game_change_before", actor=principal.name, meters=R.meters_of(m), reason=why,
                                     at=now)
            m.game_id, m.variation, m.denomination = game_id, variation, denomination
            m.denominations = offered if offered != [denomination] else None
            m.max_bet = max_bet
            after = machine_record(m)
            if after == before:
                raise ValidationFailed("the machine already has this game, variation and denomination", field="game")
            uow.floor_admin.snapshot(m, "game_change_after", actor=principal.name, meters=R.meters_of(m), reason=why,
                                     at=now)
            b, a = audit_log.changed(before, after)
            audit_log.record(uow, principal, "machine.game_change", f"machine:{asset}", before=b, after=a, reason=why,
                             detail={"meters": R.meters_of(m)})
            return after

        return self._change(principal, WRITERS, "machine.game_change", f"machine:{asset}", fn, body.get("reason"))

    def retire(self, principal: Principal, asset: str, reason: object) -> dict:
        """Retire a machine (admin): only with no credits and no game in progress (409 ``credits`` / ``status``).
        Its final meters are snapshotted, its key stops working, its floor-plan cell is freed; the asset number
        keeps its history and is never enrolled again (409 ``asset_number``)."""
        old: list[str] = []

        def fn(uow):
            why = R.reason(reason)
            m = self._machine(uow, asset)
            self._not_retired(m)
            R.require_idle(self._state(uow, m), "retirement")
            before = machine_record(m)
            now = self.ctx.clock.now()
            uow.floor_admin.snapshot(m, "retire", actor=principal.name, meters=R.meters_of(m), reason=why, at=now)
            old.append(m.key_hash)
            m.key_hash = token_digest(new_token("mk"))  # nobody holds this key: the machine can never sign in again
            m.status, m.lock_reason, m.retired_at = "retired", f"retired: {why}"[:200], now
            m.plan_x = m.plan_y = None
            b, a = audit_log.changed(before, machine_record(m))
            audit_log.record(uow, principal, "machine.retire", f"machine:{asset}", before=b, after=a, reason=why,
                             detail={"final_meters": R.meters_of(m)})
            return {**machine_record(m), "final_meters": R.meters_of(m)}

        result = self._change(principal, ADMIN, "machine.retire", f"machine:{asset}", fn, reason)
        for digest in old:
            self.announce_revoked(f"token:{digest}")
        return result

    # ------------------------------------------------------------ zones and banks
    def list_zones(self, principal: Principal) -> dict:
        return self._read(principal, lambda uow: {"zones": [zone_record(z) for z in uow.floor_admin.zones()]})

    def create_zone(self, principal: Principal, code: object, name: object) -> dict:
        return self._change(principal, WRITERS, "zone.create", f"zone:{code}",
                            lambda uow: create_zone(uow, principal, code, name))

    def update_zone(self, principal: Principal, code: str, changes: dict) -> dict:
        """Rename (operator) or retire (``retired: true``, admin) a zone. A zone with active machines or banks, or
        named by a jackpot level, cannot be retired (409 ``retired``)."""
        retiring = changes.get("retired") is True

        def fn(uow):
            z = uow.floor_admin.zone(code, for_update=True)
            if z is None:
                raise NotFound(f"unknown zone {code!r}", field="code")
            before = zone_record(z)
            if "name" in changes:
                z.name = R.text("name", changes["name"], 80, required=True)
            if retiring:
                self._retirable(z.retired_at, f"zone {code}")
                n = uow.floor_admin.active_machine_count(zone=code)
                banks = [b.code for b in uow.floor_admin.banks(zone=code) if b.retired_at is None]
                levels = self.jackpots.levels_in_zone(uow, code)
                if n or banks or levels:
                    raise Conflict(f"zone {code} still has {n} active machine(s), banks {banks or '–'}, jackpot levels "
                                   f"{levels or '–'}", field="retired")
                z.retired_at = self.ctx.clock.now()
            b, a = audit_log.changed(before, zone_record(z))
            if not a:
                raise ValidationFailed("nothing to change", field="body")
            audit_log.record(uow, principal, "zone.retire" if retiring else "zone.update", f"zone:{code}", before=b,
                             after=a, reason=R.reason(changes.get("reason"), required=retiring))
            return zone_record(z)

        roles = ADMIN if retiring else WRITERS
        return self._change(principal, roles, "zone.retire" if retiring else "zone.update", f"zone:{code}", fn,
                            changes.get("reason"))

    def list_banks(self, principal: Principal, zone: str | None = None) -> dict:
        return self._read(principal, lambda uow: {"banks": [bank_record(b) for b in uow.floor_admin.banks(zone)]})

    def create_bank(self, principal: Principal, body: dict) -> dict:
        return self._change(principal, WRITERS, "bank.create", f"bank:{body.get('code')}",
                            lambda uow: create_bank(uow, principal, body.get("code"), body.get("name"),
                                                    body.get("zone"), body.get("orientation")))

    def update_bank(self, principal: Principal, code: str, changes: dict) -> dict:
        """Rename / re-orient (operator) or retire (``retired: true``, admin) a bank; a bank with active machines
        cannot be retired (409 ``retired``). A bank stays in its zone: machines move, banks do not."""
        retiring = changes.get("retired") is True

        def fn(uow):
            bk = uow.floor_admin.bank(code, for_update=True)
            if bk is None:
                raise NotFound(f"unknown bank {code!r}", field="code")
            before = bank_record(bk)
            if "name" in changes:
                bk.name = R.text("name", changes["name"], 80, required=True)
            if "orientation" in changes:
                bk.orientation = R.orientation(changes["orientation"])
            if retiring:
                self._retirable(bk.retired_at, f"bank {code}")
                n = uow.floor_admin.active_machine_count(bank=code)
                if n:
                    raise Conflict(f"bank {code} still has {n} active machine(s)", field="retired")
                bk.retired_at = self.ctx.clock.now()
            b, a = audit_log.changed(before, bank_record(bk))
            if not a:
                raise ValidationFailed("nothing to change", field="body")
            audit_log.record(uow, principal, "bank.retire" if retiring else "bank.update", f"bank:{code}", before=b,
                             after=a, reason=R.reason(changes.get("reason"), required=retiring))
            return bank_record(bk)

        roles = ADMIN if retiring else WRITERS
        return self._change(principal, roles, "bank.retire" if retiring else "bank.update", f"bank:{code}", fn,
                            changes.get("reason"))

    @staticmethod
    def _retirable(retired_at, what: str) -> None:
        if retired_at is not None:
            raise Conflict(f"{what} is already retired", field="retired")

    # ------------------------------------------------------------ the floor plan
    def floor_plan(self, principal: Principal) -> dict:
        """What the console draws: active zones, banks (with orientation) and machines with their cells
        (``position`` None: not placed yet), and the grid's extent (``width``, ``height``: cells)."""
        def fn(uow):
            machines = [{**machine_record(m)} for m in uow.floor_admin.machines()]
            cells = [m["position"] for m in machines if m["position"]]
            return {
                "zones": [zone_record(z) for z in uow.floor_admin.zones() if z.retired_at is None],
                "banks": [bank_record(b) for b in uow.floor_admin.banks() if b.retired_at is None],
                "machines": machines,
                "width": max((c["x"] for c in cells), default=-1) + 1,
                "height": max((c["y"] for c in cells), default=-1) + 1,
            }

        return self._read(principal, fn)
