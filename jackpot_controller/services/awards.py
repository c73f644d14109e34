"""Awards: Hit → Claimed → Awarded, handpays and verification locks (exactly once).

* **Claim** (one transaction): ``UPDATE … SET status='claimed', claim_token=… WHERE status='hit'``
  under the hit's row lock: of any number of duplicated or retried tasks exactly one claims.
* **Award** (a second transaction, machine row locked first): only the holder of the claim token
  may settle it, so a retried task never pays twice:
  - amount above the maximum (the level's ``max_award``, else ``SLOTSYS_JACKPOT_MAX_AWARD_WON``):
    never credited; the machine locks (status ``verification``) and the event is logged with
    the raw values (reference "Incidents": the $42,949,672 display);
  - amount ≥ the handpay threshold (``SLOTSYS_JACKPOT_HANDPAY_THRESHOLD_WON``, default
    ₩2,000,000): the machine locks (status ``handpay``) until an attendant pays it;
  - otherwise credited to the machine: ``Dr jackpot:<L>:payable / Cr machine:<asset>:credits``.
* A claim not settled within the commit timeout (``SLOTSYS_JACKPOT_CLAIM_TIMEOUT_S``, 60 s, the
  certified platform's figure) is released back to ``hit`` by the sweep, logged, and awarded again
  (the token of the dead claim no longer settles anything).
* **Handpay**: the attendant pays in cash from the cage bank — ``Dr jackpot:<L>:payable /
  Cr cage:MAIN:drawer`` — not onto the credit meter; the machine unlocks when nothing else of its
  own is waiting. **Verification**: an operator decides ``pay`` (→ handpay) or ``void`` (the amount
  returns to the level's overflow pool, which joins its next reset), with a reason.
"""

from __future__ import annotations

import json
import uuid
from typing import TYPE_CHECKING

import structlog
from sqlalchemy import select

from jackpot_controller.adapters.tables import JackpotHit, JackpotLevel
from slotsys.kernel import accounts
from slotsys.floor.adapters.tables import GameRound, Machine
from slotsys.kernel import ledger as L
from slotsys.kernel.errors import Conflict, NotFound, ValidationFailed
from slotsys.kernel.money import MILLI_PER_WON

if TYPE_CHECKING:  # pragma: no cover
    from jackpot_controller.services.controller import JackpotService

log = structlog.get_logger("jackpot_controller.awards")
LOCKS = ("handpay", "verification")


def lock_machine(uow, machine_id: int) -> Machine:
    m = uow.session.scalar(select(Machine).where(Machine.id == machine_id).with_for_update()
                         .execution_options(populate_existing=True))
    if m is None:
        raise NotFound(f"machine id {machine_id} not found")
    return m


def maximum_for(svc: "JackpotService", level: JackpotLevel) -> int:
    cap = svc.settings.max_award_won
    return min(cap, level.max_award_won) if level.max_award_won else cap


def award_view(hit: JackpotHit, level: JackpotLevel) -> dict:
    return {"hit": hit.id, "level": level.code, "name": level.name, "amount": hit.amount_won, "status": hit.status,
            "pay_method": hit.pay_method}


def _record_on_round(uow, hit: JackpotHit, level: JackpotLevel) -> None:
    """Show the award in the game's recall (GLI-11: "any progressive awarded")."""
    rnd = uow.session.scalar(select(GameRound).where(GameRound.machine_id == hit.machine_id,
                                                     GameRound.game_number == hit.game_number))
    if rnd is not None:
        others = [j for j in (rnd.jackpots or []) if j.get("hit") != hit.id]
        rnd.jackpots = others + [award_view(hit, level)]


def settle(uow, svc: "JackpotService", hit: JackpotHit, level: JackpotLevel, m: Machine, *, in_spin: bool) -> int:
    """Decide how ``hit`` is paid (its machine row is locked by the caller); returns the won
    credited to the machine now (0 for a handpay or a verification lock)."""
    now = svc.ctx.clock.now()
    amount = hit.amount_won
    maximum = maximum_for(svc, level)
    hit.claimed_at = hit.claimed_at or now
    credited = 0
    if amount > maximum:
        hit.status = hit.pay_method = "verification"
        raw = {"amount_won": amount, "maximum_won": maximum, "value_milli": hit.value_milli,
               "trigger_milli": hit.trigger_milli, "topup_won": hit.topup_won, "level_value_milli": level.value_milli,
               "ceiling_won": level.ceiling_won, "cycle": hit.cycle, "wager": hit.wager_id, "fold_entry": hit.entry_id}
        m.status = "verification"
        m.lock_reason = f"jackpot {level.code} award ₩{amount:,} above the maximum ₩{maximum:,}: verification"[:200]
        uow.levels.add_event(kind="verification", level_code=level.code, hit_id=hit.id, machine=m.asset_number,
                             reason=m.lock_reason, detail=raw, created_at=now)
        log.warning("jackpot.award.over_maximum", level=level.code, hit=hit.id, machine=m.asset_number, **raw)
    elif amount >= svc.settings.handpay_threshold_won:
        hit.status = hit.pay_method = "handpay"
        if m.status != "verification":
            m.status = "handpay"
            m.lock_reason = f"handpay: jackpot {level.code} ₩{amount:,} (hit {hit.id})"[:200]
        uow.levels.add_event(kind="handpay_lock", level_code=level.code, hit_id=hit.id, machine=m.asset_number,
                             detail={"amount_won": amount}, created_at=now)
    else:
        entry = L.EntryBuilder("jackpot.award", f"jackpot {level.code} cycle {hit.cycle} to {m.asset_number}").add(
            debit=accounts.jackpot_payable(level.code), credit=accounts.machine_credits(m.asset_number), amount=amount, memo=f"jackpot {level.code}")
        hit.award_entry_id = uow.ledger.post(entry.build({"hit": hit.id, "level": level.code, "machine": m.asset_number}))
        hit.status, hit.pay_method, hit.awarded_at = "awarded", "credit", now
        credited = amount
        if not in_spin:  # inside the spin, the floor counts it in the game's own meters and recall
            uow.machines.add_meters(m.id, jackpot_out=amount)
    if not in_spin:
        _record_on_round(uow, hit, level)
    return credited


def claim(svc: "JackpotService", hit_id: int) -> str | None:
    """Phase 1: claim a decided hit; returns the claim token, or None if it is not ``hit``."""
    with svc.ctx.uow() as uow:
        hit = uow.levels.hit(hit_id, for_update=True)
        if hit is None or hit.status != "hit":
            return None
        hit.status, hit.claim_token, hit.claimed_at = "claimed", uuid.uuid4().hex, svc.ctx.clock.now()
        token = hit.claim_token
        uow.commit()
    return token


def award(svc: "JackpotService", hit_id: int, token: str) -> str | None:
    """Phase 2: settle a claim held by ``token``; returns the new status, or None."""
    with svc.ctx.uow() as uow:
        hit = uow.levels.hit(hit_id)
        if hit is None:
            return None
        m = lock_machine(uow, hit.machine_id)
        hit = uow.levels.hit(hit_id, for_update=True)
        if hit.status != "claimed" or hit.claim_token != token:
            return None
        level = uow.levels.by_id(hit.level_id)
        settle(uow, svc, hit, level, m, in_spin=False)
        status = hit.status
        uow.commit()
    svc.ctx.enqueue("jackpot_controller.announce_hit", hit_id)  # announced once settled (paid or being paid)
    log.info("jackpot.award", hit=hit_id, status=status)
    return status


def process(svc: "JackpotService", hit_id: int) -> str | None:
    """Claim and award one hit (the Celery task body). Idempotent: a duplicate returns None."""
    token = claim(svc, hit_id)
    return award(svc, hit_id, token) if token else None


def release_stale_claims(svc: "JackpotService") -> list[int]:
    """Claims older than the commit timeout go back to ``hit`` (logged) to be awarded again."""
    from datetime import timedelta

    now = svc.ctx.clock.now()
    cutoff = now - timedelta(seconds=svc.settings.claim_timeout_s)
    released = []
    with svc.ctx.uow() as uow:
        for hit in uow.levels.hits_with_status(("claimed",), before=cutoff):  # created before: a superset
            hit = uow.levels.hit(hit.id, for_update=True)
            # the timeout runs from the claim, not from the hit: a live task that just claimed an old
            # hit (a backlog after a worker outage) must not lose its claim mid-award
            if hit.status != "claimed" or (hit.claimed_at is not None and hit.claimed_at > cutoff):
                continue
            level = uow.levels.by_id(hit.level_id)
            uow.levels.add_event(kind="claim_timeout", level_code=level.code, hit_id=hit.id,
                                 reason=f"claim not committed within {svc.settings.claim_timeout_s:g} s: released",
                                 detail={"claimed_at": hit.claimed_at.isoformat() if hit.claimed_at else None},
                                 created_at=now)
            hit.status, hit.claim_token, hit.claimed_at = "hit", None, None
            released.append(hit.id)
        uow.commit()
    return released


def _unlock_if_clear(uow, m: Machine, except_hit: int) -> None:
    uow.session.flush()
    waiting = [h for h in uow.levels.hits_with_status(LOCKS, machine_id=m.id) if h.id != except_hit]
    if m.status not in LOCKS:
        return
    if not waiting:
        m.status, m.lock_reason = "active", ""
    elif any(h.status == "verification" for h in waiting):
        m.status = "verification"
    else:
        nxt = waiting[0]
        m.status, m.lock_reason = "handpay", f"handpay: ₩{nxt.amount_won:,} (hit {nxt.id})"


def pay_handpay(uow, svc: "JackpotService", hit_id: int, attendant: str) -> dict:
    """An attendant pays a handpay in cash and resets the machine (in ``uow``; caller commits)."""
    hit = uow.levels.hit(hit_id)
    if hit is None:
        raise NotFound(f"jackpot hit {hit_id} does not exist", field="hit")
    m = lock_machine(uow, hit.machine_id)
    hit = uow.levels.hit(hit_id, for_update=True)
    level = uow.levels.by_id(hit.level_id)
    if hit.status != "handpay":
        extra = {"paid_by": hit.paid_by, "awarded_at": hit.awarded_at.isoformat() if hit.awarded_at else None}
        raise Conflict(f"hit {hit_id} is {hit.status}, not a handpay waiting to be paid", field="hit",
                       hit_status=hit.status, **{k: v for k, v in extra.items() if v})
    now = svc.ctx.clock.now()
    cage = accounts.cage_bank(svc.settings.handpay_cage)
    entry = L.EntryBuilder("jackpot.handpay", f"handpay of jackpot {level.code} at {m.asset_number}").add(
        debit=accounts.jackpot_payable(level.code), credit=cage, amount=hit.amount_won, memo=f"handpay {level.code}")
    hit.award_entry_id = uow.ledger.post(entry.build({"hit": hit.id, "level": level.code, "machine": m.asset_number,
                                                      "attendant": attendant}))
    hit.status, hit.awarded_at, hit.paid_by = "awarded", now, attendant
    uow.machines.add_meters(m.id, jackpot_out=hit.amount_won)
    _record_on_round(uow, hit, level)
    _unlock_if_clear(uow, m, hit.id)
    uow.levels.add_event(kind="handpay_paid", level_code=level.code, hit_id=hit.id, machine=m.asset_number,
                         actor=attendant, detail={"amount_won": hit.amount_won, "entry": hit.award_entry_id},
                         created_at=now)
    return {"hit": hit.id, "level": level.code, "machine": m.asset_number, "amount": hit.amount_won,
            "status": hit.status, "paid_by": attendant, "paid_at": now.isoformat(), "entry": hit.award_entry_id,
            "machine_status": m.status}


def verify(uow, svc: "JackpotService", hit_id: int, decision: str, reason: str, actor: str) -> dict:
    """Resolve a verification lock: ``pay`` (→ handpay) or ``void`` (→ the level's overflow)."""
    if decision not in ("pay", "void"):
        raise ValidationFailed("decision must be pay or void", field="decision")
    if not reason or not reason.strip():
        raise ValidationFailed("a reason is required", field="reason")
    hit = uow.levels.hit(hit_id)
    if hit is None:
        raise NotFound(f"jackpot hit {hit_id} does not exist", field="hit")
    level = uow.levels.get(uow.levels.by_id(hit.level_id).code, for_update=True)  # level → machine → hit
    m = lock_machine(uow, hit.machine_id)
    hit = uow.levels.hit(hit_id, for_update=True)
    if hit.status != "verification":
        raise Conflict(f"hit {hit_id} is {hit.status}, not waiting for verification", field="hit", hit_status=hit.status)
    now = svc.ctx.clock.now()
    if decision == "pay":
        hit.status = "handpay"
        _unlock_if_clear(uow, m, -1)
        if hit.announced:  # announced as held for verification: now it is being paid
            from jackpot_controller.services.controller import CHANNEL, hit_message

            message = json.dumps(hit_message(uow, hit))
            uow.after_commit(lambda: svc.publish(CHANNEL, message))
    else:
        entry = L.EntryBuilder("jackpot.void", f"voided jackpot {level.code} hit {hit.id}").add(
            debit=accounts.jackpot_payable(level.code), credit=accounts.jackpot_overflow(level.code), amount=hit.amount_won, memo="void → overflow")
        hit.award_entry_id = uow.ledger.post(entry.build({"hit": hit.id, "level": level.code}))
        level.overflow_milli += hit.amount_won * MILLI_PER_WON
        hit.status, hit.awarded_at = "void", now
        _unlock_if_clear(uow, m, hit.id)
    uow.levels.add_event(kind=f"verification_{decision}", level_code=level.code, hit_id=hit.id,
                         machine=m.asset_number, actor=actor, reason=reason.strip()[:300],
                         detail={"amount_won": hit.amount_won}, created_at=now)
    return {"hit": hit.id, "level": level.code, "machine": m.asset_number, "amount": hit.amount_won,
            "status": hit.status, "machine_status": m.status}
