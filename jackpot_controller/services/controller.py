"""The jackpot controller's service: reads, operator use cases, the sequencer, awards, signage.

Built once per process by the composition root (``JackpotService(ctx, publish)``);
:func:`service_for` finds it from the floor's spin. Roles: operator (levels, corrections,
verification, zone moves), attendant (handpays), auditor (events, hits); any authenticated
caller reads the levels and the live stream.
"""

from __future__ import annotations

import json
import threading
import time
from typing import Any, Callable, Iterator

import structlog

from jackpot_controller.adapters.repo import UNPAID
from jackpot_controller.services import awards, operator
from jackpot_controller.services.levels import level_view
from jackpot_controller.services.sequencer import FoldDriver, FoldResult, fold
from jackpot_controller.settings import JackpotSettings
from slotsys.kernel.errors import NotFound, TwoSignaturesRequired
from slotsys.kernel.context import Principal, ServiceContext
from slotsys.kernel.idempotency import fingerprint, OnceKey, run_once_dict
from slotsys.kernel.checks import require_role

log = structlog.get_logger("jackpot_controller")
CHANNEL = "slotsys:jackpots"

_SERVICES: dict[int, "JackpotService"] = {}


def service_for(ctx: ServiceContext) -> "JackpotService":
    """The JackpotService built for ``ctx`` (a default one if none was)."""
    svc = _SERVICES.get(id(ctx))
    if svc is None or svc.ctx is not ctx:
        svc = JackpotService(ctx)
    return svc


def hit_message(uow, hit) -> dict:
    """The signage message of a settled hit (see :meth:`JackpotService.announce_hit`): the amount
    only when it is paid or being paid (``awarded``, ``handpay``), null in ``verification``."""
    level = uow.levels.by_id(hit.level_id)
    machine = uow.machines.get_by_id(hit.machine_id).asset_number
    paying = hit.status in ("awarded", "handpay")
    return {"event": "hit", "hit": hit.id, "level": level.code, "name": level.name, "machine": machine,
            "zone": hit.zone, "status": hit.status, "pay_method": hit.pay_method,
            "amount": hit.amount_won if paying else None, "new_value": level_view(level)["value"],
            "at": hit.created_at.isoformat()}


def _sse(event: str, data: str) -> str:
    return f"event: {event}\ndata: {data}\n\n"


class JackpotService:
    def __init__(self, ctx: ServiceContext, publish: Callable[[str, str], None] | None = None,
                 settings: JackpotSettings | None = None, lease=None) -> None:
        self.ctx = ctx
        # the sequencer's lease (jackpot_controller.adapters.lease.AdvisoryLease): who folds in the process mode
        self.lease = lease
        # publish(channel, message): Redis pub/sub in production, in-process otherwise
        self._publish = publish or (lambda channel, message: None)
        self.settings = settings or JackpotSettings()
        self.driver = FoldDriver(self)
        self._dialect: str | None = None
        self._published = 0.0
        self._trailing: threading.Timer | None = None
        self._pub_lock = threading.Lock()
        _SERVICES[id(ctx)] = self

    def publish(self, channel: str, message: str) -> None:
        """Best-effort signage: the hit and the meters are already in the database."""
        try:
            self._publish(channel, message)
        except Exception:
            log.warning("jackpot.publish_failed", channel=channel, exc_info=True)

    # ------------------------------------------------------------ sequencer
    def in_spin(self, uow) -> bool:
        """Whether hits are decided inside the spin's transaction (see the sequencer module)."""
        mode = self.settings.sequencer
        if mode != "auto":
            return mode == "in_spin"
        if self._dialect is None:
            self._dialect = uow.session.get_bind().dialect.name
        return self._dialect == "sqlite"

    def kick(self) -> None:
        if self.settings.sequencer != "process":  # in the process mode no web process folds
            self.driver.kick()

    def fold_safety_net(self) -> int:
        """Beat's fold every second. In the ``process`` mode it folds only when no sequencer process holds
        the lease (all of them down): the floor keeps folding, and never beside an active sequencer."""
        if self.settings.sequencer != "process" or self.lease is None:
            return self.fold_all()
        with self.lease.held_once() as free:
            return self.fold_all() if free else 0

    def stop(self) -> None:
        """Stop this process's sequencer thread (tests, shutdown)."""
        self.driver.stop()

    def fold_in(self, uow) -> FoldResult:
        return fold(uow, self, limit=self.settings.fold_batch)

    def fold_all(self) -> int:
        """Fold every pending wager, batch after batch; returns how many were folded. (In the
        ``in_spin`` mode every spin folds itself: nothing to do here.)"""
        total = 0
        with self.ctx.uow(readonly=True) as uow:
            if self.in_spin(uow) and self.settings.sequencer == "in_spin":
                return 0
        while True:
            with self.ctx.uow() as uow:
                res = fold(uow, self, limit=self.settings.fold_batch)
                if not res.folded:
                    break
                uow.commit()
            self.after_fold(res)
            total += res.folded
            if res.folded < self.settings.fold_batch:
                break
        return total

    def after_fold(self, res: FoldResult, settled: set[int] | frozenset = frozenset()) -> None:
        """After a fold commits: award tasks for its hits, announcements, the meters broadcast."""
        for d in res.decisions:
            self.ctx.metrics.jackpot_awarded(d.level_code, d.amount)
        for hit in res.hits:
            if hit.id not in settled:
                self.ctx.enqueue("jackpot_controller.award", hit.id)
            self.ctx.enqueue("jackpot_controller.announce_hit", hit.id)
        if res.folded:
            self.publish_meters(force=bool(res.hits))

    def publish_meters(self, force: bool = False) -> None:
        """Broadcast the meters at most once per ``meters_publish_interval_s`` (a hit forces one).

        A fold inside the interval is not dropped: one trailing broadcast is scheduled for the interval's
        end and reads the meters then, so the last fold of a burst always reaches signage."""
        interval = self.settings.meters_publish_interval_s
        with self._pub_lock:
            now = time.monotonic()
            wait = interval - (now - self._published)
            if not force and wait > 0:
                if self._trailing is None:
                    self._trailing = threading.Timer(wait, self._publish_trailing)
                    self._trailing.daemon = True
                    self._trailing.start()
                return
            self._published = now
        self._send_meters()

    def _publish_trailing(self) -> None:
        with self._pub_lock:
            self._trailing = None
            self._published = time.monotonic()
        self._send_meters()

    def _send_meters(self) -> None:
        try:
            message = json.dumps(self.meters_message())
        except Exception:  # the database may be briefly away: signage re-reads on the next fold or heartbeat
            log.warning("jackpot.meters_read_failed", exc_info=True)
            return
        self.publish(CHANNEL, message)

    def meters_message(self) -> dict:
        with self.ctx.uow(readonly=True) as uow:
            levels = [level_view(lv, staff=False) for lv in uow.levels.all()]
        return {"event": "meters", "at": self.ctx.clock.now().isoformat(),
                "levels": [{k: v[k] for k in ("code", "name", "kind", "zone", "value", "cycle", "status")}
                           for v in levels]}

    # ------------------------------------------------------------ awards
    def process_award(self, hit_id: int) -> str | None:
        """Claim and award a hit, exactly once (the ``jackpot_controller.award`` task body)."""
        return awards.process(self, hit_id)

    def sweep(self) -> dict:
        """Safety net (beat): fold what waits, release claims past the commit timeout, award hits
        whose task was lost (e.g. Redis flushed), announce unannounced hits."""
        from datetime import timedelta

        folded = self.fold_safety_net()
        released = awards.release_stale_claims(self)
        with self.ctx.uow(readonly=True) as uow:
            stale = [h.id for h in uow.levels.hits_with_status(
                ("hit",), before=self.ctx.clock.now() - timedelta(seconds=2))]
        awarded = [h for h in stale if self.process_award(h)]
        return {"folded": folded, "released": released, "awarded": awarded, "announced": self.announce_pending()}

    # ------------------------------------------------------------ signage
    def announce_hit(self, hit_id: int) -> bool:
        """Publish a hit to the signage channel once it is paid or being paid; returns False if it
        was already announced or is not decided yet.

        Rule: the stream and the signs celebrate only what the player gets. A hit is announced
        after its award is settled (``awards.settle``): ``awarded`` (credited to the machine) or
        ``handpay`` (the machine is locked and an attendant pays it) carry the amount; a hit held
        for ``verification`` (above the maximum: it may be voided) is announced with that status
        and **no amount** (signs show no celebration); a hit still ``hit`` / ``claimed`` is left
        for the award task, which enqueues this task again after it settles (and the sweep's
        :meth:`announce_pending`); a ``void`` hit is never announced. When an operator later
        decides ``pay``, :func:`awards.verify` publishes the ``handpay`` announcement.

        Idempotent: the ``announced`` flag is flipped under the row lock in the same
        transaction, so a retried or duplicated task publishes at most once per commit.
        Message: {event: "hit", hit, level, name, machine, zone, status, pay_method, amount (won, or
        null while in verification), new_value (won), at}.
        """
        with self.ctx.uow() as uow:
            hit = uow.levels.hit(hit_id, for_update=True)
            if hit is None or hit.announced or hit.status in ("hit", "claimed"):
                return False
            hit.announced = True
            message = None
            if hit.status != "void":
                message = hit_message(uow, hit)
                uow.after_commit(lambda: self.publish(CHANNEL, json.dumps(message)))
            uow.commit()
        if message is not None:
            log.info("jackpot.hit.announced", **{k: v for k, v in message.items() if k != "event"})
        return message is not None

    def announce_pending(self) -> int:
        with self.ctx.uow(readonly=True) as uow:
            ids = [h.id for h in uow.levels.recent_hits(limit=200) if not h.announced]
        return sum(1 for hid in reversed(ids) if self.announce_hit(hid))

    def stream(self, subscription, *, heartbeat_s: float = 2.0, max_seconds: float | None = None) -> Iterator[str]:
        """Server-Sent Events: a ``meters`` snapshot first, then every message of the signage
        channel (``meters`` after each fold, ``hit`` per announced hit), and a fresh ``meters``
        snapshot after ``heartbeat_s`` of silence (signage treats a level silent for 5 s as in
        error, reference "Progressive jackpots")."""
        started = last = time.monotonic()
        try:
            yield _sse("meters", json.dumps(self.meters_message()))
            while max_seconds is None or time.monotonic() - started < max_seconds:
                msg = subscription.get(timeout=0.5)
                if msg is not None:
                    try:
                        event = json.loads(msg).get("event", "message")
                    except ValueError:
                        event = "message"
                    yield _sse(event, msg)
                    last = time.monotonic()
                elif time.monotonic() - last >= heartbeat_s:
                    yield _sse("meters", json.dumps(self.meters_message()))
                    last = time.monotonic()
        finally:
            subscription.close()

    # ------------------------------------------------------------ reads
    def levels(self, principal: Principal | None = None) -> dict:
        """Every level with its live value; staff also see reserve, overflow and pending changes."""
        staff = principal is not None and principal.kind == "staff"
        with self.ctx.uow(readonly=True) as uow:
            return {"levels": [level_view(lv, staff=staff) for lv in uow.levels.all()]}

    def level(self, code: str) -> dict:
        """A level's parameters, meters and its last 25 hits."""
        with self.ctx.uow(readonly=True) as uow:
            lv = uow.levels.get(code)
            if lv is None:
                raise NotFound(f"jackpot level {code!r} does not exist", field="code")
            return {**level_view(lv), "history": self._hits(uow, level_id=lv.id, limit=25)}

    def _hits(self, uow, level_id: int | None = None, limit: int = 25, hits: list | None = None) -> list[dict]:
        levels = {lv.id: lv for lv in uow.levels.all()}
        out = []
        for h in hits if hits is not None else uow.levels.recent_hits(level_id=level_id, limit=limit):
            out.append({
                "id": h.id, "level": levels[h.level_id].code, "name": levels[h.level_id].name, "cycle": h.cycle,
                "machine": uow.machines.get_by_id(h.machine_id).asset_number, "zone": h.zone,
                "player": h.player_id, "game_number": h.game_number, "amount": h.amount_won, "status": h.status,
                "pay_method": h.pay_method, "announced": h.announced, "at": h.created_at.isoformat(),
                "awarded_at": h.awarded_at.isoformat() if h.awarded_at else None, "paid_by": h.paid_by,
                "note": h.note or None,
            })
        return out

    def hits(self, limit: int = 25, level: str | None = None) -> dict:
        """The last ``limit`` (≤ 500) hits, newest first, optionally of one level."""
        with self.ctx.uow(readonly=True) as uow:
            level_id = None
            if level:
                lv = uow.levels.get(level)
                if lv is None:
                    raise NotFound(f"jackpot level {level!r} does not exist", field="level")
                level_id = lv.id
            return {"hits": self._hits(uow, level_id=level_id, limit=max(1, min(limit, 500)))}

    def handpays(self) -> dict:
        """Hits waiting for an attendant (handpay) or an operator (verification)."""
        with self.ctx.uow(readonly=True) as uow:
            return {"waiting": self._hits(uow, hits=uow.levels.hits_with_status(("handpay", "verification")))}

    def events(self, limit: int = 100, level: str | None = None) -> dict:
        """The auditor-visible log, newest first: corrections (with reasons), parameter changes,
        pauses, second hits, verification locks with raw values, claim timeouts, zone moves."""
        with self.ctx.uow(readonly=True) as uow:
            return {"events": [
                {"id": e.id, "kind": e.kind, "level": e.level_code, "hit": e.hit_id, "machine": e.machine,
                 "actor": e.actor, "reason": e.reason, "detail": e.detail, "at": e.created_at.isoformat()}
                for e in uow.levels.events(limit=max(1, min(limit, 1000)), level_code=level)
            ]}

    def queue(self) -> dict:
        """The sequencer's queue: wagers waiting to be folded and the oldest one's time."""
        with self.ctx.uow(readonly=True) as uow:
            oldest = uow.levels.oldest_pending_at()
            return {"pending": uow.levels.pending_count(), "oldest": oldest.isoformat() if oldest else None,
                    "unpaid": {k: v for k, v in uow.levels.unpaid_by_level().items()}, "unpaid_statuses": list(UNPAID)}

    # ------------------------------------------------------------ operator use cases
    def _write(self, principal: Principal, fn, *roles: str):
        require_role(principal, *roles)
        with self.ctx.uow() as uow:
            out = fn(uow)
            uow.commit()
        return out

    def create_level(self, principal: Principal, body: dict[str, Any], idem_key: str | None) -> tuple[int, dict, bool]:
        """Create a level (operator; Idempotency-Key: the house funds its start on the ledger)."""
        require_role(principal, "operator")
        r = run_once_dict(self.ctx, OnceKey(principal.id, idem_key, fingerprint("POST", "jackpots/levels", body)), lambda uow: operator.create(uow, self, body, principal.name), status=201)
        return r.status, r.body, r.replayed

    def edit_level(self, principal: Principal, code: str, body: dict[str, Any]) -> dict:
        reason = body.pop("reason", "") or ""
        return self._write(principal, lambda uow: operator.edit(uow, self, code, body, principal.name, reason), "operator")

    def pause(self, principal: Principal, code: str, paused: bool, reason: str = "") -> dict:
        return self._write(principal, lambda uow: operator.set_paused(uow, self, code, paused, principal.name, reason),
                           "operator")

    def correct(self, principal: Principal, code: str, value: object, reason: object,
                idem_key: str | None) -> tuple[int, dict, bool]:
        """Correct a value with a reason (operator; Idempotency-Key)."""
        require_role(principal, "operator")
        r = run_once_dict(self.ctx, OnceKey(principal.id, idem_key, fingerprint("POST", f"jackpots/levels/{code}/corrections", [value, reason])), lambda uow: operator.correct(uow, self, code, value, reason, principal.name))
        return r.status, r.body, r.replayed

    def move_machine(self, principal: Principal, asset: str, zone: object) -> dict:
        return self._write(principal, lambda uow: operator.move_machine(uow, self, asset, zone, principal.name),
                           "operator")

    def pay_handpay(self, principal: Principal, hit_id: int, idem_key: str | None) -> tuple[int, dict, bool]:
        """An attendant pays a jackpot handpay and resets the machine (Idempotency-Key). A handpay at or above
        ``handpay_two_person_won`` needs two signers: 409 ``two-signatures-required`` (field ``hit``), to be
        signed in the handpay queue (``/api/v1/handpays``), nothing changed."""
        require_role(principal, "attendant")

        def fn(uow) -> dict:
            hit = uow.levels.hit(hit_id)
            if hit is not None and hit.status == "handpay" and hit.amount_won >= self.settings.handpay_two_person_won:
                raise TwoSignaturesRequired(
                    f"a handpay of ₩{hit.amount_won:,} needs two signatures (from "
                    f"₩{self.settings.handpay_two_person_won:,}): sign it in the handpay queue", field="hit",
                    amount=hit.amount_won, two_person_won=self.settings.handpay_two_person_won)
            return awards.pay_handpay(uow, self, hit_id, principal.name)

        r = run_once_dict(self.ctx, OnceKey(principal.id, idem_key, fingerprint("POST", f"jackpots/hits/{hit_id}/handpay", None)), fn)
        return r.status, r.body, r.replayed

    def verify(self, principal: Principal, hit_id: int, decision: object, reason: object,
               idem_key: str | None) -> tuple[int, dict, bool]:
        """Resolve a verification lock: ``pay`` or ``void`` with a reason (operator; Idempotency-Key)."""
        require_role(principal, "operator")
        r = run_once_dict(self.ctx, OnceKey(principal.id, idem_key, fingerprint("POST", f"jackpots/hits/{hit_id}/verify", [decision, reason])), lambda uow: awards.verify(uow, self, hit_id, decision, reason, principal.name))
        return r.status, r.body, r.replayed
