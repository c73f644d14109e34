"""Awards: Hit → Claimed → Awarded, handpays and verification locks (exactly once).

* **Claim** (one transaction): under the hit's row lock, ``hit`` → ``claimed`` with a fresh claim token:
  of any number of duplicated or retried tasks exactly one claims.
* **Award** (a second transaction, machine row locked first): only the holder of the claim token
  may settle it, so a retried task never pays twice:
  - amount above the maximum (the level's ``max_award``, else ``SLOTSYS_JACKPOT_MAX_AWARD_WON``):
    never credited; the machine locks (status ``verification``) and the event is logged with
    the raw values (reference "Incidents": the $42,949,672 display);
  - amount ≥ the handpay threshold (``SLOTSYS_JACKPOT_HANDPAY_THRESHOLD_WON``, default
    ₩2,000,000): the machine locks (status ``handpay``) until an attendant pays it (a SAS machine is not
    locked: the machine itself plays on and its games must keep reaching the floor);
  - a machine that pays bonuses itself (``MachineState.bonus_on_machine``: a SAS machine, whose credit meter
    only the machine moves): the award waits ``at_machine`` (pay method ``on_machine``; still owed on
    ``jackpot:<L>:payable``) until the SAS host has the machine pay it as a legacy bonus and its bonus meter
    confirms it (:class:`~jackpot_controller.services.machine_bonus.MachineBonuses`: then credited as below),
    or the machine refuses it (then a handpay). A legacy bonus is whole credits: a fraction of a credit
    (``amount % denomination``) is not paid — ``Dr jackpot:<L>:payable / Cr jackpot:<L>:adjustments``, the hit's
    amount becomes the whole credits and a ``bonus_rounded`` event keeps both figures; an award below one credit
    is a handpay;
  - otherwise credited to the machine: ``Dr jackpot:<L>:payable / Cr machine:<asset>:credits``.
* A claim not settled within the commit timeout (``SLOTSYS_JACKPOT_CLAIM_TIMEOUT_S``, 60 s, the
  certified platform's figure) is released back to ``hit`` by the sweep, logged, and awarded again
  (the token of the dead claim no longer settles anything).
* **Handpay**: the attendant pays in cash from the cage bank — ``Dr jackpot:<L>:payable /
  Cr cage:MAIN:drawer`` — not onto the credit meter; the machine unlocks when nothing else of its
  own is waiting. A handpay at or above ``handpay_two_person_won`` needs two signers: the single-signer
  route refuses it (the handpay queue, ``/api/v1/handpays``, pays it through :meth:`AwardService.pay_handpay_in`).
  **Verification**: an operator decides ``pay`` (→ handpay) or ``void`` (the amount returns to the level's
  overflow pool, which joins its next reset), with a reason.

Lock order: award / handpay: machine row → hit row → accounts; verification: level row → machine row → hit
row → accounts.
"""

from __future__ import annotations

import json
import uuid
from datetime import timedelta

import structlog

from jackpot_controller.domain.records import Hit, Level, MachineState
from jackpot_controller.domain.signage import CHANNEL
from jackpot_controller.services.ports import JackpotUnitOfWork, MachinePort
from jackpot_controller.services.results import HandpayPaid, Verified
from jackpot_controller.services.signage import Signage
from jackpot_controller.services.views import award_view
from jackpot_controller.settings import JackpotSettings
from slotsys.kernel import accounts
from slotsys.kernel import ledger as L
from slotsys.kernel.checks import require_role
from slotsys.kernel.context import Principal, ServiceContext
from slotsys.kernel.errors import Conflict, NotFound, TwoSignaturesRequired, ValidationFailed
from slotsys.kernel.idempotency import Once, OnceKey, run_once
from slotsys.kernel.money import MILLI_PER_WON

log = structlog.get_logger("jackpot_controller.awards")


class AwardService:
    """Pays the decided hits. ``machines``: the winners' machines; ``signage``: the announcement of a
    verified hit now being paid."""

    def __init__(self, ctx: ServiceContext, settings: JackpotSettings, *, machines: MachinePort,
                 signage: Signage) -> None:
        self.ctx = ctx
        self.settings = settings
        self.machines = machines
        self.signage = signage

    def maximum_for(self, level: Level) -> int:
        """The largest award credited or handpaid for ``level`` (won): its ``max_award`` within the system's."""
        cap = self.settings.max_award_won
        return min(cap, level.max_award_won) if level.max_award_won else cap

    # ------------------------------------------------------------ settling a hit
    def settle(self, uow: JackpotUnitOfWork, hit: Hit, level: Level, m: MachineState, *,
               in_spin: bool) -> tuple[Hit, int]:
        """Decide how ``hit`` is paid (its machine row is locked by the caller: the spin, or :meth:`award`);
        returns the hit as settled and the won credited to the machine now (0 for a handpay or a verification
        lock). ``in_spin``: the spin counts the credit in the game's own meters and recall."""
        now = self.ctx.clock.now()
        amount = hit.amount_won
        maximum = self.maximum_for(level)
        changes: dict = {"claimed_at": hit.claimed_at or now}
        credited = 0
        if amount > maximum:
            changes.update(status="verification", pay_method="verification")
            raw = {"amount_won": amount, "maximum_won": maximum, "value_milli": hit.value_milli,
                   "trigger_milli": hit.trigger_milli, "topup_won": hit.topup_won,
                   "level_value_milli": level.value_milli, "ceiling_won": level.ceiling_won, "cycle": hit.cycle,
                   "wager": hit.wager_id, "fold_entry": hit.entry_id}
            reason = f"jackpot {level.code} award ₩{amount:,} above the maximum ₩{maximum:,}: verification"[:200]
            self.machines.set_lock(uow, m.id, "verification", reason)
            uow.levels.add_event(kind="verification", level_code=level.code, hit_id=hit.id, machine=m.asset,
                                 reason=reason, detail=raw, created_at=now)
            log.warning("jackpot.award.over_maximum", level=level.code, hit=hit.id, machine=m.asset, **raw)
        elif amount >= self.settings.handpay_threshold_won:
            changes.update(status="handpay", pay_method="handpay")
            # a SAS machine is not locked on the floor: nothing stops the machine itself, and its games must
            # keep reaching the ledger while the attendant comes (the handpay queue lists the hit all the same)
            if m.status != "verification" and not m.bonus_on_machine:
                self.machines.set_lock(uow, m.id, "handpay",
                                       f"handpay: jackpot {level.code} ₩{amount:,} (hit {hit.id})"[:200])
            uow.levels.add_event(kind="handpay_lock", level_code=level.code, hit_id=hit.id, machine=m.asset,
                                 detail={"amount_won": amount}, created_at=now)
        elif m.bonus_on_machine:
            changes.update(self._at_machine(uow, hit, level, m, now))
        else:
            entry_id = self.machines.credit_bonus(
                uow, m, amount, source_account=accounts.jackpot_payable(level.code), kind="jackpot.award",
                description=f"jackpot {level.code} cycle {hit.cycle} to {m.asset}", memo=f"jackpot {level.code}",
                refs={"hit": hit.id, "level": level.code, "machine": m.asset})
            changes.update(award_entry_id=entry_id, status="awarded", pay_method="credit", awarded_at=now)
            credited = amount
            if not in_spin:  # inside the spin, the floor counts it in the game's own meters and recall
                self.machines.add_jackpot_meter(uow, m.id, amount)
        hit = uow.levels.update_hit(hit.id, **changes)
        if not in_spin:
            self.machines.record_award_on_round(uow, hit.machine_id, hit.game_number, award_view(hit, level))
        return hit, credited

    def _at_machine(self, uow: JackpotUnitOfWork, hit: Hit, level: Level, m: MachineState, now) -> dict:
        """The changes leaving ``hit`` to be paid by its machine as a legacy bonus (see the module): whole
        credits of ``m.denomination``; the fraction of a credit back to the level's adjustments (one entry, a
        ``bonus_rounded`` event); below one credit: a handpay (no floor lock: the machine keeps playing)."""
        amount, denom = hit.amount_won, m.denomination
        paid = amount - amount % denom if denom > 0 else 0
        if paid <= 0:
            uow.levels.add_event(kind="handpay_lock", level_code=level.code, hit_id=hit.id, machine=m.asset,
                                 reason=f"₩{amount:,} is below one credit of the machine (₩{denom:,})",
                                 detail={"amount_won": amount}, created_at=now)
            return {"status": "handpay", "pay_method": "handpay"}
        changes: dict = {"status": "at_machine", "pay_method": "on_machine"}
        if paid != amount:
            rest = amount - paid
            entry = L.EntryBuilder("jackpot.bonus_rounding", f"jackpot {level.code} hit {hit.id}: fraction of a "
                                   f"credit not paid as a legacy bonus").add(
                debit=accounts.jackpot_payable(level.code), credit=accounts.jackpot_adjustments(level.code),
                amount=rest, memo="fraction of a credit")
            entry_id = uow.ledger.post(entry.build({"hit": hit.id, "level": level.code, "machine": m.asset}))
            uow.levels.add_event(kind="bonus_rounded", level_code=level.code, hit_id=hit.id, machine=m.asset,
                                 reason=f"₩{amount:,} paid as ₩{paid:,} (whole credits of ₩{denom:,})",
                                 detail={"amount_won": amount, "paid_won": paid, "fraction_won": rest,
                                         "entry": entry_id}, created_at=now)
            changes.update(amount_won=paid, note=f"award ₩{amount:,}: ₩{rest:,} (a fraction of a credit) to "
                                                 f"adjustments, entry {entry_id}"[:300])
        uow.levels.add_event(kind="bonus_at_machine", level_code=level.code, hit_id=hit.id, machine=m.asset,
                             detail={"amount_won": paid}, created_at=now)
        return changes

    def claim(self, hit_id: int) -> str | None:
        """Phase 1: claim a decided hit; returns the claim token, or None if it is not ``hit``."""
        with self.ctx.uow() as uow:
            hit = uow.levels.hit(hit_id, for_update=True)
            if hit is None or hit.status != "hit":
                return None
            token = uuid.uuid4().hex
            uow.levels.update_hit(hit_id, status="claimed", claim_token=token, claimed_at=self.ctx.clock.now())
            uow.commit()
        return token

    def award(self, hit_id: int, token: str) -> str | None:
        """Phase 2: settle a claim held by ``token``; returns the new status, or None."""
        with self.ctx.uow() as uow:
            hit = uow.levels.hit(hit_id)
            if hit is None:
                return None
            m = self.machines.lock_for_award(uow, hit.machine_id)
            hit = uow.levels.hit(hit_id, for_update=True)
            if hit.status != "claimed" or hit.claim_token != token:
                return None
            level = uow.levels.by_id(hit.level_id)
            hit, _ = self.settle(uow, hit, level, m, in_spin=False)
            status = hit.status
            uow.commit()
        self.ctx.enqueue("jackpot_controller.announce_hit", hit_id)  # announced once settled (paid or being paid)
        log.info("jackpot.award", hit=hit_id, status=status)
        return status

    def process(self, hit_id: int) -> str | None:
        """Claim and award one hit (the ``jackpot_controller.award`` task body): the new status (``awarded``,
        ``handpay``, ``verification``), or None when it was not this call's to settle (a duplicate)."""
        token = self.claim(hit_id)
        return self.award(hit_id, token) if token else None

    def release_stale_claims(self) -> list[int]:
        """Claims older than the commit timeout go back to ``hit`` (logged) to be awarded again; returns
        their ids."""
        now = self.ctx.clock.now()
        cutoff = now - timedelta(seconds=self.settings.claim_timeout_s)
        released = []
        with self.ctx.uow() as uow:
            for old in uow.levels.hits_with_status(("claimed",), before=cutoff):  # created before: a superset
                hit = uow.levels.hit(old.id, for_update=True)
                # the timeout runs from the claim, not from the hit: a live task that just claimed an old
                # hit (a backlog after a worker outage) must not lose its claim mid-award
                if hit.status != "claimed" or (hit.claimed_at is not None and hit.claimed_at > cutoff):
                    continue
                level = uow.levels.by_id(hit.level_id)
                uow.levels.add_event(kind="claim_timeout", level_code=level.code, hit_id=hit.id,
                                     reason=f"claim not committed within {self.settings.claim_timeout_s:g} s: released",
                                     detail={"claimed_at": hit.claimed_at.isoformat() if hit.claimed_at else None},
                                     created_at=now)
                uow.levels.update_hit(hit.id, status="hit", claim_token=None, claimed_at=None)
                released.append(hit.id)
            uow.commit()
        return released

    def _unlock_if_clear(self, uow: JackpotUnitOfWork, m: MachineState, except_hit: int) -> str:
        """The machine's status once ``except_hit`` no longer holds it: active when nothing else of its own
        waits, else the lock of what waits (verification first). Returns the status it now has."""
        waiting = [h for h in uow.levels.locks_waiting_on(m.id) if h.id != except_hit]
        if m.status not in ("handpay", "verification"):
            return m.status
        if m.bonus_on_machine:  # a SAS machine's handpays do not lock it (see settle): only a verification does
            waiting = [h for h in waiting if h.status == "verification"]
        if not waiting:
            self.machines.set_lock(uow, m.id, "active", "")
            return "active"
        if any(h.status == "verification" for h in waiting):
            self.machines.set_lock(uow, m.id, "verification", None)
            return "verification"
        nxt = waiting[0]
        self.machines.set_lock(uow, m.id, "handpay", f"handpay: ₩{nxt.amount_won:,} (hit {nxt.id})")
        return "handpay"

    # ------------------------------------------------------------ handpays
    def pay_handpay_in(self, uow: JackpotUnitOfWork, hit_id: int, attendant: str) -> HandpayPaid:
        """An attendant pays a handpay in cash and resets the machine, in ``uow`` (the caller commits: the
        single-signer route, or the handpay queue once its signatures are complete).

        Errors: ``NotFound`` (field ``hit``); ``Conflict`` (field ``hit``, ``hit_status`` and, once paid,
        ``paid_by`` / ``awarded_at``) when the hit is not a handpay waiting to be paid."""
        hit = uow.levels.hit(hit_id)
        if hit is None:
            raise NotFound(f"jackpot hit {hit_id} does not exist", field="hit")
        m = self.machines.lock_for_award(uow, hit.machine_id)
        hit = uow.levels.hit(hit_id, for_update=True)
        level = uow.levels.by_id(hit.level_id)
        if hit.status != "handpay":
            extra = {"paid_by": hit.paid_by, "awarded_at": hit.awarded_at.isoformat() if hit.awarded_at else None}
            raise Conflict(f"hit {hit_id} is {hit.status}, not a handpay waiting to be paid", field="hit",
                           hit_status=hit.status, **{k: v for k, v in extra.items() if v})
        now = self.ctx.clock.now()
        cage = accounts.cage_bank(self.settings.handpay_cage)
        entry = L.EntryBuilder("jackpot.handpay", f"handpay of jackpot {level.code} at {m.asset}").add(
            debit=accounts.jackpot_payable(level.code), credit=cage, amount=hit.amount_won,
            memo=f"handpay {level.code}")
        entry_id = uow.ledger.post(entry.build({"hit": hit.id, "level": level.code, "machine": m.asset,
                                                "attendant": attendant}))
        hit = uow.levels.update_hit(hit_id, award_entry_id=entry_id, status="awarded", awarded_at=now,
                                    paid_by=attendant)
        self.machines.add_jackpot_meter(uow, m.id, hit.amount_won)
        self.machines.record_award_on_round(uow, hit.machine_id, hit.game_number, award_view(hit, level))
        machine_status = self._unlock_if_clear(uow, m, hit.id)
        uow.levels.add_event(kind="handpay_paid", level_code=level.code, hit_id=hit.id, machine=m.asset,
                             actor=attendant, detail={"amount_won": hit.amount_won, "entry": entry_id},
                             created_at=now)
        return HandpayPaid(hit=hit.id, level=level.code, machine=m.asset, amount=hit.amount_won, status=hit.status,
                           paid_by=attendant, paid_at=now.isoformat(), entry=entry_id, machine_status=machine_status)

    def pay_handpay(self, principal: Principal, hit_id: int, key: OnceKey) -> Once[HandpayPaid]:
        """``POST /jackpots/hits/<id>/handpay`` (attendant; exactly once per ``key``): pay a handpay in cash.
        A handpay at or above ``handpay_two_person_won`` needs two signers: ``TwoSignaturesRequired`` (409,
        field ``hit``), to be signed in the handpay queue, nothing changed. Other errors: see
        :meth:`pay_handpay_in`."""
        require_role(principal, "attendant")

        def fn(uow: JackpotUnitOfWork) -> HandpayPaid:
            hit = uow.levels.hit(hit_id)
            two = self.settings.handpay_two_person_won
            if hit is not None and hit.status == "handpay" and hit.amount_won >= two:
                raise TwoSignaturesRequired(
                    f"a handpay of ₩{hit.amount_won:,} needs two signatures (from ₩{two:,}): sign it in the "
                    "handpay queue", field="hit", amount=hit.amount_won, two_person_won=two)
            return self.pay_handpay_in(uow, hit_id, principal.name)

        return run_once(self.ctx, key, fn, result=HandpayPaid)

    # ------------------------------------------------------------ verification
    def verify_in(self, uow: JackpotUnitOfWork, hit_id: int, decision: str, reason: str, actor: str) -> Verified:
        """Resolve a verification lock in ``uow``: ``pay`` (→ handpay) or ``void`` (→ the level's overflow:
        ``Dr jackpot:<L>:payable / Cr :overflow``), with a reason. Errors: ``ValidationFailed`` (``decision``,
        ``reason``), ``NotFound`` (``hit``), ``Conflict`` (``hit``: not waiting for verification)."""
        if decision not in ("pay", "void"):
            raise ValidationFailed("decision must be pay or void", field="decision")
        if not reason or not reason.strip():
            raise ValidationFailed("a reason is required", field="reason")
        hit = uow.levels.hit(hit_id)
        if hit is None:
            raise NotFound(f"jackpot hit {hit_id} does not exist", field="hit")
        level = uow.levels.get(uow.levels.by_id(hit.level_id).code, for_update=True)  # level → machine → hit
        m = self.machines.lock_for_award(uow, hit.machine_id)
        hit = uow.levels.hit(hit_id, for_update=True)
        if hit.status != "verification":
            raise Conflict(f"hit {hit_id} is {hit.status}, not waiting for verification", field="hit",
                           hit_status=hit.status)
        now = self.ctx.clock.now()
        if decision == "pay":
            hit = uow.levels.update_hit(hit_id, status="handpay")
            machine_status = self._unlock_if_clear(uow, m, -1)
            if hit.announced:  # announced as held for verification: now it is being paid
                message = json.dumps(self.signage.hit_message(uow, hit))
                uow.after_commit(lambda: self.signage.publish(CHANNEL, message))
        else:
            entry = L.EntryBuilder("jackpot.void", f"voided jackpot {level.code} hit {hit.id}").add(
                debit=accounts.jackpot_payable(level.code), credit=accounts.jackpot_overflow(level.code),
                amount=hit.amount_won, memo="void → overflow")
            entry_id = uow.ledger.post(entry.build({"hit": hit.id, "level": level.code}))
            level = uow.levels.add_overflow(level.id, hit.amount_won * MILLI_PER_WON)
            hit = uow.levels.update_hit(hit_id, award_entry_id=entry_id, status="void", awarded_at=now)
            machine_status = self._unlock_if_clear(uow, m, hit.id)
        uow.levels.add_event(kind=f"verification_{decision}", level_code=level.code, hit_id=hit.id,
                             machine=m.asset, actor=actor, reason=reason.strip()[:300],
                             detail={"amount_won": hit.amount_won}, created_at=now)
        return Verified(hit=hit.id, level=level.code, machine=m.asset, amount=hit.amount_won, status=hit.status,
                        machine_status=machine_status)

    def verify(self, principal: Principal, hit_id: int, decision: str, reason: str, key: OnceKey) -> Once[Verified]:
        """``POST /jackpots/hits/<id>/verify`` (operator; exactly once per ``key``): see :meth:`verify_in`."""
        require_role(principal, "operator")
        return run_once(self.ctx, key, lambda uow: self.verify_in(uow, hit_id, decision, reason, principal.name),
                        result=Verified)
