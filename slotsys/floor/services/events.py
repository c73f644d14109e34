"""Machine events, heartbeat / offline detection, attendant alerts and the handpay queue
(docs/machine-events-and-alerts.md).

* :meth:`FloorEventsService.report` — a machine reports one event or a batch (``kind`` or SAS ``sas_code``):
  each is recorded (``services.machine_events.record_event``) and the floor's rules act on it (a main door
  opened during play names the game in progress; a stacker removed outside a drop window is a security alert;
  handpay pending joins the handpay queue; power on is paired with the last power off; an event that ends a
  condition clears its alert). Unknown kinds / codes are refused whole (422 naming ``events[i].kind`` /
  ``events[i].sas_code``) and counted (``slotsys_machine_events_refused_total``).
* :meth:`heard` — every authenticated machine request marks the machine heard, at most once per
  ``SLOTSYS_MACHINE_HEARTBEAT_WRITE_S`` per machine and process (one UPDATE of ``machine_links``; never a write
  per spin); a machine that was offline comes back (``comms_restored``, its ``comms_lost`` alert resolved).
* :meth:`sweep_offline` — the periodic task: links not heard for ``SLOTSYS_MACHINE_OFFLINE_AFTER_S`` go offline
  (``comms_lost`` event, source ``system``, and a critical alert).
* Alerts: :meth:`alerts`, :meth:`transition` (``slotsys.floor.domain.alerts``: open → acknowledged → dispatched →
  resolved; 409 for anything else; the alert row is locked, so of two concurrent acknowledgements one wins).
* Handpays: :meth:`handpays` (the queue: jackpot handpays waiting for payment, cancelled-credit handpays of a
  cash-out above the ticket limit, handpays a machine reported, a SAS machine's jackpot win:
  :meth:`machine_jackpot_handpay`) and :meth:`sign` (the paying attendant signs;
  at or above ``SLOTSYS_HANDPAY_TWO_PERSON_WON`` a different supervisor/admin signs second; the handpay is
  paid when the last needed signature is given, exactly once per Idempotency-Key).

Every alert change is published after its commit on the live channel as ``{"event": "alert", "id", "state"}``,
a notice only: the channel also reaches signage and machines, so the console reads the details through
``GET /api/v1/alerts`` with its own token.
"""

from __future__ import annotations

import threading
import time
from datetime import datetime, timedelta
from typing import Any, Callable

import structlog
from pydantic import BaseModel

from slotsys.floor.domain import alerts as A
from slotsys.floor.domain import machine_events as V
from slotsys.kernel.errors import Conflict, NotFound, ValidationFailed
from slotsys.kernel import accounts, audit_log
from slotsys.kernel import ledger as L
from slotsys.kernel.context import Principal, ServiceContext
from slotsys.kernel.idempotency import Once, OnceKey, run_once
from slotsys.floor.services.event_log import announce_alert, open_alert, record_event
from slotsys.kernel.checks import require_role
from slotsys.floor.services.ports import JackpotPort, TicketPort
from slotsys.floor.settings import EventsSettings

log = structlog.get_logger("slotsys.floor_events")

READ_ROLES = ("attendant", "supervisor", "operator", "auditor")
HANDPAY_SIGN_ROLES = ("attendant", "supervisor")




def _iso(d: datetime | None) -> str | None:
    return d.isoformat() if d else None


# ------------------------------------------------------------------ results (times ISO 8601 UTC text, money won)
class ResponseTimes(BaseModel):
    """Seconds (whole milliseconds) from the alert's opening to its acknowledgement, dispatch and resolution."""

    ack_s: float | None
    dispatch_s: float | None
    resolve_s: float | None


class AlertView(BaseModel):
    """An attendant alert: ``state`` open → acknowledged → dispatched → resolved; ``severity`` of its kind;
    ``security`` alerts stay for a person to resolve; ``repeats`` the same condition reported again while open."""

    id: int
    machine: str
    kind: str
    label: str
    label_ko: str
    severity: str
    security: bool | None
    state: str
    event_id: int | None
    repeats: int | None
    detail: dict[str, Any]
    opened_at: str | None
    acknowledged_at: str | None
    acknowledged_by: str | None
    dispatched_at: str | None
    dispatched_by: str | None
    dispatched_to: str | None
    resolved_at: str | None
    resolved_by: str | None
    resolution: str | None
    response: ResponseTimes


class EventView(BaseModel):
    """A machine event: ``at`` when recorded, ``reported_at`` the machine's own stamp, the SAS exception code
    (``sas_code``, ``sas_hex``) where SAS has one, ``source`` api | sas | system, the game in progress."""

    id: int
    machine: str
    at: str | None
    reported_at: str | None
    kind: str
    label: str
    label_ko: str
    severity: str
    sas_code: int | None
    sas_hex: str | None
    source: str
    game_number: int | None
    detail: dict[str, Any]


class ReportedEvent(EventView):
    """A reported event and the alert it opened or repeated (None if none)."""

    alert_id: int | None


class EventBatch(BaseModel):
    """The events a machine reported, in order."""

    machine: str
    events: list[ReportedEvent]


class HandpayView(BaseModel):
    """A handpay of the queue: ``source`` jackpot (a mystery award) | cancelled_credit | machine_jackpot (a SAS
    machine's own game win at or above its jackpot limit), ``amount`` won, ``state`` pending | paid |
    cancelled, the signatures needed (1, or 2 at or above the two-person amount) and given, ``payout`` (the
    jackpot payment or the handpay receipt; why it was closed when cancelled)."""

    id: int
    machine: str
    source: str
    hit_id: int | None
    amount: int
    state: str
    created_at: str | None
    signers_needed: int
    signer1: str | None
    signer1_role: str | None
    signed1_at: str | None
    signer2: str | None
    signer2_role: str | None
    signed2_at: str | None
    paid_at: str | None
    payout: dict[str, Any]


class LinkView(BaseModel):
    online: bool | None
    last_heard_at: str | None
    offline_since: str | None


class MachineEventLog(BaseModel):
    """A page of a machine's events, newest first; ``next``: the ``before_id`` of the next page, or None."""

    machine: str
    link: LinkView | None
    events: list[EventView]
    next: int | None


class AlertPage(BaseModel):
    alerts: list[AlertView]
    next: int | None


class HandpayQueue(BaseModel):
    """A page of the handpay queue, newest first, and the two-person amount (won)."""

    handpays: list[HandpayView]
    two_person_won: int
    next: int | None


class OfflineSweep(BaseModel):
    """The machines the sweep marked offline."""

    offline: list[str]


def alert_view(a, asset: str) -> AlertView:
    """An alert as the API shows it (times ISO 8601 UTC; response times in seconds)."""
    k = V.BY_KIND.get(a.kind)
    return AlertView(
        id=a.id, machine=asset, kind=a.kind, label=k.en if k else a.kind, label_ko=k.ko if k else a.kind,
        severity=a.severity, security=a.security, state=a.state, event_id=a.event_id,
        repeats=a.repeats, detail=a.detail or {},
        opened_at=_iso(a.opened_at),
        acknowledged_at=_iso(a.acknowledged_at), acknowledged_by=a.acknowledged_by,
        dispatched_at=_iso(a.dispatched_at), dispatched_by=a.dispatched_by, dispatched_to=a.dispatched_to,
        resolved_at=_iso(a.resolved_at), resolved_by=a.resolved_by, resolution=a.resolution,
        response=ResponseTimes(ack_s=A.seconds_between(a.opened_at, a.acknowledged_at),
                               dispatch_s=A.seconds_between(a.opened_at, a.dispatched_at),
                               resolve_s=A.seconds_between(a.opened_at, a.resolved_at)),
    )


def event_view(e, asset: str, model: type[EventView] = EventView, **extra) -> EventView:
    """An event as the API shows it (``model``: :class:`ReportedEvent` with its ``alert_id`` in ``extra``)."""
    k = V.BY_KIND.get(e.kind)
    return model(id=e.id, machine=asset, at=_iso(e.at), reported_at=_iso(e.reported_at), kind=e.kind,
                 label=k.en if k else e.kind, label_ko=k.ko if k else e.kind,
                 severity=k.severity if k else V.INFO, sas_code=e.sas_code,
                 sas_hex=None if e.sas_code is None else f"0x{e.sas_code:02X}", source=e.source,
                 game_number=e.game_number, detail=e.detail or {}, **extra)


def handpay_view(h, asset: str, two_person_won: int) -> HandpayView:
    return HandpayView(id=h.id, machine=asset, source=h.source, hit_id=h.hit_id, amount=h.amount,
                       state=h.state, created_at=_iso(h.created_at),
                       signers_needed=A.signers_needed(h.amount, two_person_won),
                       signer1=h.signer1, signer1_role=h.signer1_role, signed1_at=_iso(h.signed1_at),
                       signer2=h.signer2, signer2_role=h.signer2_role, signed2_at=_iso(h.signed2_at),
                       paid_at=_iso(h.paid_at), payout=h.payout or {})


class FloorEventsService:
    def __init__(self, ctx: ServiceContext, *, settings: EventsSettings, jackpots: JackpotPort, tickets: TicketPort,
                 publish: Callable[[str, str], None] | None = None) -> None:
        self.ctx = ctx
        self.publish = publish or (lambda channel, message: None)
        self.settings = settings
        self.jackpots = jackpots  # pays jackpot handpays; lists the hits waiting for one
        self.tickets = tickets  # the handpay receipt of cancelled credits
        self.drop_windows = V.parse_drop_windows(self.settings.drop_windows)
        self._heard: dict[str, float] = {}  # asset → monotonic time of this process's last write
        self._heard_lock = threading.Lock()
        self._heard_due: dict[str, datetime] = {}  # asset → when heard: the next coalesced write's (see heard)
        self._heard_writer: threading.Thread | None = None
        self.embedded_sweep = False  # `slotsys run` (no beat): the offline sweep runs in a thread of this process
        self._sweeper: threading.Thread | None = None

    def start_embedded_sweep(self) -> None:
        """The embedded default has no beat: sweep every ``machine_offline_sweep_s`` in a daemon thread of this
        process (started by the first machine request after :attr:`embedded_sweep` is set, i.e. in the serving
        worker, whose in-process publisher feeds its own streams)."""
        with self._heard_lock:
            if self._sweeper is not None:
                return
            self._sweeper = threading.Thread(target=self._sweep_forever, name="machines-offline-sweep", daemon=True)
        self._sweeper.start()

    def _sweep_forever(self) -> None:
        while True:
            threading.Event().wait(self.settings.machine_offline_sweep_s)
            try:
                self.sweep_offline()
            except Exception:  # the next round retries
                log.warning("machine.offline_sweep_failed", exc_info=True)

    # ------------------------------------------------------------------ helpers
    def _announce(self, uow, alert, asset: str) -> None:
        announce_alert(uow, alert, self.publish)

    def _open_alert(self, uow, m, kind: V.EventKind, event, now: datetime, detail: dict | None = None,
                    security: bool | None = None):
        """Open an alert for ``kind`` on machine ``m``, or count a repeat on its unresolved one."""
        return open_alert(uow, m.id, kind, event, now, self.publish, detail=detail, security=security)

    def _clear(self, uow, m, cleared_kind: str, by_event: str, now: datetime) -> None:
        """The condition ``cleared_kind`` ended (``by_event``): its alert is resolved by the system, unless it is a
        security alert, which stays for a person to resolve and is flagged ``condition_cleared_at``."""
        a = uow.floor_events.unresolved(m.id, cleared_kind, for_update=True)
        if a is None:
            return
        if a.security:
            a.detail = {**(a.detail or {}), "condition_cleared_at": now.isoformat(), "cleared_by_event": by_event}
        else:
            a.state, a.resolved_at, a.resolved_by = A.RESOLVED, now, "system"
            a.resolution = f"cleared: {by_event}"
        self._announce(uow, a, m.asset_number)

    def _local_time(self, at: datetime):
        from zoneinfo import ZoneInfo

        return at.astimezone(ZoneInfo(self.settings.timezone)).timetz()

    # ------------------------------------------------------------------ machine reports
    def report(self, principal: Principal, asset: str, events: list[dict], key: OnceKey) -> Once[EventBatch]:
        """Record a batch of events a machine reported. ``events``: [{kind?, sas_code?, reported_at?, game_number?,
        amount?, detail?}] (each needs ``kind`` or ``sas_code``; ``amount``: won, the amount a handpay pending
        names, kept in the event's detail: the queued handpay is the machine's cashable credits).

        All or nothing: an unknown kind / code anywhere refuses the batch (422 naming ``events[i].kind`` or
        ``events[i].sas_code``). Returns :class:`EventBatch` (each event with the alert it opened); the
        Idempotency-Key is optional here: with one (``key.key``) a retry returns the first result and records
        nothing, without one every call records its events. 403 for another machine's key or a staff token."""
        from slotsys.kernel.checks import require_machine

        require_machine(principal, asset)
        resolved = []
        for i, e in enumerate(events):
            try:
                resolved.append(V.resolve(e.get("kind"), e.get("sas_code")))
            except V.UnknownEvent as err:
                self.ctx.metrics.event_refused(err.field)
                raise ValidationFailed(str(err), field=f"events[{i}].{err.field}") from None

        def fn(uow) -> EventBatch:
            now = self.ctx.clock.now()
            m = uow.machines.get(asset, for_update=True)
            self._mark_heard(uow, m, now)
            out = [self._apply(uow, m, kind, e, now) for kind, e in zip(resolved, events)]
            return EventBatch(machine=asset, events=out)

        if key.key:
            return run_once(self.ctx, key, fn, result=EventBatch)
        with self.ctx.uow() as uow:
            batch = fn(uow)
            uow.commit()
        return Once(batch, False)

    def _apply(self, uow, m, kind: V.EventKind, e: dict, now: datetime) -> ReportedEvent:
        detail = dict(e.get("detail") or {})
        if e.get("amount") is not None:
            detail["amount"] = e["amount"]
        game_number = e.get("game_number")
        alert_kind, security = (kind if kind.alert else None), None
        if kind.kind == "main_door_opened":
            credits = uow.machines.credits(m.asset_number)
            detail["in_play"] = credits.total > 0
            detail["credits"] = credits.total
            if game_number is None and m.game_seq:
                game_number = m.game_seq  # the game in progress / last played on this machine
        elif kind.kind == "stacker_removed":
            at = e.get("reported_at") or now
            inside = V.in_drop_window(self.drop_windows, self._local_time(at))
            detail["drop_window"] = inside
            if not inside:
                alert_kind = V.BY_KIND["stacker_removed_outside_drop"]
        elif kind.kind == "power_on":
            last_off = uow.machine_events.for_machine(m.id, kind="power_off", limit=1)
            if last_off:
                detail["power_off_event"] = last_off[0].id
                detail["off_for_s"] = A.seconds_between(last_off[0].reported_at or last_off[0].at,
                                                        e.get("reported_at") or now)
        row = record_event(uow, m.id, kind.kind, source="api", sas_code=kind.sas_code, game_number=game_number,
                           detail=detail, reported_at=e.get("reported_at"))
        if kind.clears:
            self._clear(uow, m, kind.clears, kind.kind, now)
        alert = None
        if alert_kind is not None:
            alert = self._open_alert(uow, m, alert_kind, row, now,
                                     detail={"event": kind.kind, **({"game_number": game_number} if game_number else {})},
                                     security=security)
        if kind.kind == "handpay_pending":
            self._queue_machine_handpay(uow, m, now)
        return event_view(row, m.asset_number, ReportedEvent, alert_id=alert.id if alert is not None else None)

    def _queue_machine_handpay(self, uow, m, now: datetime) -> None:
        """A machine's handpay pending: its cashable credits (cashable + non-restricted promotional, the amount a
        handpay receipt pays) join the queue as a cancelled-credit handpay (one pending per machine), unless a
        jackpot handpay of this machine is already waiting (the jackpot controller locked it)."""
        if m.status == "handpay" or uow.floor_events.pending_handpay(m.id, "cancelled_credit") is not None:
            return
        credits = uow.machines.credits(m.asset_number)
        amount = credits.cashable + credits.nonrestricted
        if amount > 0:
            uow.floor_events.add_handpay(machine_id=m.id, source="cancelled_credit", amount=amount, state="pending",
                                         created_at=now, payout={})

    def handpay_required(self, asset: str, amount: int) -> None:
        """A cash-out was refused above the ticket limit (409 handpay-required): the cancelled credits join the
        handpay queue, with a ``handpay_pending`` event (source ``system``) and its alert. Own transaction."""
        now = self.ctx.clock.now()
        with self.ctx.uow() as uow:
            m = uow.machines.get(asset, for_update=True)
            if uow.floor_events.pending_handpay(m.id, "cancelled_credit") is not None:
                return
            kind = V.BY_KIND["handpay_pending"]
            row = record_event(uow, m.id, kind.kind, source="system", sas_code=kind.sas_code,
                               detail={"amount": amount, "reason": "cash-out above the ticket limit"})
            uow.floor_events.add_handpay(machine_id=m.id, source="cancelled_credit", amount=amount, state="pending",
                                         created_at=now, payout={})
            self._open_alert(uow, m, kind, row, now, detail={"event": kind.kind, "amount": amount})
            uow.commit()

    def machine_jackpot_handpay(self, asset: str, amount: int, detail: dict[str, Any], key: OnceKey) -> Once[HandpayView]:
        """A machine that decides its own games (a SAS machine) locked up in a jackpot handpay: a game win of
        ``amount`` won (> 0) at or above its jackpot limit, never on its credit meter. The win joins the handpay
        queue (source ``machine_jackpot``) with a ``handpay_pending`` event (source ``sas``, ``detail`` kept) and
        its alert, exactly once per ``key``; signed in the queue (:meth:`sign`), it is paid in cash from the cage
        as the machine's game win: ``Dr machine:<asset>:hold / Cr cage:MAIN:drawer`` (kind
        ``machine.jackpot_handpay``), the machine's coin-out meter grows by it (coin-out is every game win, the
        hold coin-in − coin-out) and so does the coin-out of its last reported meters (a ``handpay`` meter report:
        the machine reports the hand-paid win on its own jackpot meter). Returns the queued handpay.
        Errors: ``ValidationFailed`` (``amount``), ``NotFound`` (``asset``)."""
        if amount <= 0:
            raise ValidationFailed("a jackpot handpay is more than ₩0", field="amount")

        def fn(uow) -> HandpayView:
            now = self.ctx.clock.now()
            m = uow.machines.get(asset, for_update=True)
            kind = V.BY_KIND["handpay_pending"]
            row = record_event(uow, m.id, kind.kind, source="sas", sas_code=kind.sas_code,
                               detail={**detail, "amount": amount, "handpay": "jackpot"})
            h = uow.floor_events.add_handpay(machine_id=m.id, source="machine_jackpot", amount=amount,
                                             state="pending", created_at=now, payout={"event": row.id})
            self._open_alert(uow, m, kind, row, now, detail={"event": kind.kind, "amount": amount,
                                                             "handpay": "jackpot"})
            return handpay_view(h, asset, self.settings.handpay_two_person_won)

        return run_once(self.ctx, key, fn, result=HandpayView)

    # ------------------------------------------------------------------ heartbeat
    def heard(self, asset: str) -> None:
        """An authenticated request of machine ``asset``: mark it heard, at most once per
        :attr:`heartbeat_interval_s` per process (a dictionary look-up otherwise).

        A due write is coalesced: it waits at most ``machine_heard_batch_s`` for the others due meanwhile and all
        go in one UPDATE (:meth:`_write_due`, on a short-lived thread). On a floor of thousands of machines that is
        one statement a second per process instead of one transaction per machine per interval (3,000 machines,
        2 processes, 10 s: 600 transactions a second, and 6,000 when the processes start). A machine the UPDATE
        does not find online (offline, or no link yet) takes the single-machine path on that thread, so a machine
        coming back is online (``comms_restored``) within ``machine_heard_batch_s`` of its request. With the batch
        wait 0, or not shorter than the interval, every write goes at once, before the request is answered."""
        if self.embedded_sweep and self._sweeper is None:
            self.start_embedded_sweep()
        t = time.monotonic()
        interval = self.heartbeat_interval_s
        with self._heard_lock:
            last = self._heard.get(asset)
            if last is not None and t - last < interval:
                return  # the common case: nothing more on the request's path
            self._heard[asset] = t
            now = self.ctx.clock.now()
            batch_s = self.settings.machine_heard_batch_s
            if 0 < batch_s < interval:
                self._heard_due[asset] = now
                if self._heard_writer is None:
                    self._heard_writer = threading.Thread(target=self._write_due, args=(batch_s,),
                                                          name="machines-heard", daemon=True)
                    self._heard_writer.start()
                return
        self._write_heard(asset, now)

    def _write_heard(self, asset: str, now: datetime) -> None:
        """One machine's last-heard write in its own transaction (and its return online if it was offline)."""
        try:
            with self.ctx.uow() as uow:
                m = uow.machines.get(asset)
                self._mark_heard(uow, m, now)
                uow.commit()
        except NotFound:
            return
        except Exception:  # the heartbeat never fails the machine's request; the next one retries
            with self._heard_lock:
                self._heard.pop(asset, None)
            log.warning("machine.heard_failed", machine=asset, exc_info=True)

    def _write_due(self, batch_s: float) -> None:
        """The coalesced writes: every ``batch_s`` the machines due since (one UPDATE for the online ones, the
        single-machine path for the others); the thread ends when a wait brought none."""
        while True:
            threading.Event().wait(batch_s)
            with self._heard_lock:
                due, self._heard_due = self._heard_due, {}
                if not due:
                    self._heard_writer = None
                    return
            self._write_batch(due)

    def _write_batch(self, due: dict[str, datetime]) -> None:
        """``due`` (asset → when heard): one UPDATE for the online machines, the single-machine path for the
        others (offline meanwhile, e.g. another node's sweep, or no link yet). A failed UPDATE drops them from
        this process's memory, so each one's next request writes again."""
        if not due:
            return
        try:
            with self.ctx.uow() as uow:
                written = uow.floor_events.touch_many(due)
                uow.commit()
        except Exception:
            with self._heard_lock:
                for asset in due:
                    self._heard.pop(asset, None)
            log.warning("machine.heard_failed", machines=len(due), exc_info=True)
            return
        for asset in due.keys() - written:
            self._write_heard(asset, due[asset])

    @property
    def heartbeat_interval_s(self) -> float:
        """Seconds between two last-heard writes of a machine in this process: ``machine_heartbeat_write_s``, but
        never more than a quarter of ``machine_offline_after_s`` (a talking machine must never look silent)."""
        return min(self.settings.machine_heartbeat_write_s, self.settings.machine_offline_after_s / 4)

    def _mark_heard(self, uow, m, now: datetime) -> None:
        if uow.floor_events.touch(m.id, now):
            return
        link = uow.floor_events.link_for_update(m.id)
        if link is None:
            uow.floor_events.add_link(m.id, now)
            return
        was_offline = not link.online
        since = link.offline_since
        link.last_heard_at, link.online, link.offline_since = now, True, None
        if was_offline:
            record_event(uow, m.id, "comms_restored", source="system",
                         detail={"offline_since": _iso(since), "offline_for_s": A.seconds_between(since, now)})
            self._clear(uow, m, "comms_lost", "comms_restored", now)
            log.info("machine.comms_restored", machine=m.asset_number)

    def sweep_offline(self) -> OfflineSweep:
        """Mark offline every online machine not heard for ``machine_offline_after_s``: a ``comms_lost`` event
        (source ``system``, detail ``last_heard_at``) and a critical alert each. Returns the assets
        (:class:`OfflineSweep`)."""
        with self._heard_lock:  # this process's coalesced writes first: a machine that just talked is not silent
            due, self._heard_due = self._heard_due, {}
        self._write_batch(due)  # (one a writer thread is sending holds its rows: the sweep skips them, SKIP LOCKED)
        now = self.ctx.clock.now()
        cutoff = now - timedelta(seconds=self.settings.machine_offline_after_s)
        went = []
        with self.ctx.uow() as uow:
            for link, m in uow.floor_events.silent_since(cutoff):
                link.online, link.offline_since = False, now
                row = record_event(uow, m.id, "comms_lost", source="system",
                                   detail={"last_heard_at": _iso(link.last_heard_at),
                                           "silent_for_s": A.seconds_between(link.last_heard_at, now)})
                self._open_alert(uow, m, V.BY_KIND["comms_lost"], row, now,
                                 detail={"event": "comms_lost", "last_heard_at": _iso(link.last_heard_at)})
                went.append(m.asset_number)
            uow.commit()
        with self._heard_lock:  # the next request of these machines writes at once (and brings them back)
            for asset in went:
                self._heard.pop(asset, None)
        if went:
            log.warning("machine.comms_lost", machines=went)
        return OfflineSweep(offline=went)

    # ------------------------------------------------------------------ reads
    def events(self, principal: Principal, asset: str, *, kind: str | None, since: datetime | None,
               before_id: int | None, limit: int) -> MachineEventLog:
        """A machine's event log, newest first (staff: attendant, supervisor, operator, auditor), with its link
        (online, last heard). ``next``: the cursor (``before_id``) of the next page, or None. 422 ``kind``."""
        require_role(principal, *READ_ROLES)
        if kind is not None and kind not in V.BY_KIND:
            raise ValidationFailed(f"unknown event kind {kind!r}", field="kind")
        with self.ctx.uow(readonly=True) as uow:
            m = uow.machines.get(asset)
            rows = uow.machine_events.for_machine(m.id, kind=kind, since=since, before_id=before_id, limit=limit)
            link = uow.floor_events.link(m.id)
            return MachineEventLog(machine=asset, link=_link_view(link),
                                   events=[event_view(e, asset) for e in rows],
                                   next=rows[-1].id if len(rows) == limit else None)

    def vocabulary(self) -> dict[str, list[dict[str, Any]]]:
        """``{"kinds": [...]}``: every event kind with its SAS code, labels (English, Korean), severity, alert and
        security flags (``slotsys.floor.domain.machine_events.VOCABULARY``)."""
        return {"kinds": [k.to_dict() for k in V.VOCABULARY]}

    def alerts(self, principal: Principal, *, state: str | None, machine: str | None, kind: str | None,
               security: bool | None, since: datetime | None, before_id: int | None, limit: int) -> AlertPage:
        """Alerts, newest first. ``state``: one state, or ``active`` (open, acknowledged, dispatched); 422
        ``state``; 404 ``asset`` for an unknown ``machine``."""
        require_role(principal, *READ_ROLES)
        if state is not None and state != "active" and state not in A.STATES:
            raise ValidationFailed(f"state must be active or one of {', '.join(A.STATES)}", field="state")
        states = (A.OPEN, A.ACKNOWLEDGED, A.DISPATCHED) if state == "active" else ((state,) if state else None)
        with self.ctx.uow(readonly=True) as uow:
            machine_id = uow.machines.get(machine).id if machine else None
            rows = uow.floor_events.alerts(states=states, machine_id=machine_id, kind=kind, security=security,
                                           since=since, before_id=before_id, limit=limit)
            return AlertPage(alerts=[alert_view(a, asset) for a, asset in rows],
                             next=rows[-1][0].id if len(rows) == limit else None)

    # ------------------------------------------------------------------ alert transitions
    def transition(self, principal: Principal, alert_id: int, action: str, *, to: str | None = None,
                   note: str = "") -> AlertView:
        """``acknowledge`` | ``dispatch`` (``to``: the attendant sent; default the caller) | ``resolve`` (``note``);
        returns the alert after.

        Attendant or supervisor (admin). The alert row is locked: of two concurrent calls one wins, the other
        gets 409 (``InvalidTransition``) naming the state. 404 unknown alert."""
        require_role(principal, *A.ALERT_ROLES)
        now = self.ctx.clock.now()
        with self.ctx.uow() as uow:
            a = uow.floor_events.alert(alert_id, for_update=True)
            if a is None:
                raise NotFound(f"no alert {alert_id}", field="alert_id")
            try:
                new = A.next_state(a.state, action)
            except A.InvalidTransition as e:
                raise Conflict(str(e), field="state", state=a.state) from None
            if action == "acknowledge" or (action == "dispatch" and a.acknowledged_at is None):
                a.acknowledged_at, a.acknowledged_by = now, principal.name
            if action == "dispatch":
                a.dispatched_at, a.dispatched_by, a.dispatched_to = now, principal.name, (to or principal.name)[:60]
            if action == "resolve":
                a.resolved_at, a.resolved_by, a.resolution = now, principal.name, (note or "")[:400]
            a.state = new
            asset = uow.floor_events.asset_of(a.machine_id)
            self._announce(uow, a, asset)
            view = alert_view(a, asset)
            uow.commit()
        return view

    # ------------------------------------------------------------------ handpays
    def _sync_queue(self, uow) -> None:
        """Bring the queue up to date: jackpot hits waiting for a handpay join it (the jackpot controller locks the
        machine and keeps the hit; the queue adds the sign-off); a pending row that was settled another way (the
        hit paid through ``/jackpots/hits/<id>/handpay``, the credits paid through ``/tickets/machines/<a>/handpay``
        or cashed out) is closed as ``cancelled`` with the reason in ``payout``."""
        waiting = {hit.id: hit for hit in self.jackpots.handpay_hits(uow)}
        for hit in waiting.values():
            if uow.floor_events.handpay_for_hit(hit.id) is None:
                uow.floor_events.add_handpay(machine_id=hit.machine_id, source="jackpot", hit_id=hit.id,
                                             amount=hit.amount, state="pending", created_at=hit.created_at,
                                             payout={})
        for h, asset in uow.floor_events.handpays(states=("pending",), limit=500):
            if h.source == "jackpot" and h.hit_id not in waiting:
                h.state, h.payout = "cancelled", {"closed": "the jackpot hit was settled without this queue"}
            elif h.source == "cancelled_credit":
                credits = uow.machines.credits(asset)
                if credits.cashable + credits.nonrestricted == 0:
                    h.state, h.payout = "cancelled", {"closed": "the machine has no cashable credits left"}

    def handpays(self, principal: Principal, *, state: str | None, before_id: int | None, limit: int) -> HandpayQueue:
        """The handpay queue, newest first (attendant, supervisor, operator, auditor). ``state``: pending | paid."""
        require_role(principal, *READ_ROLES)
        if state is not None and state not in ("pending", "paid", "cancelled"):
            raise ValidationFailed("state must be pending, paid or cancelled", field="state")
        with self.ctx.uow() as uow:
            self._sync_queue(uow)
            rows = uow.floor_events.handpays(states=(state,) if state else None, before_id=before_id, limit=limit)
            out = HandpayQueue(handpays=[handpay_view(h, asset, self.settings.handpay_two_person_won) for h, asset in rows],
                               two_person_won=self.settings.handpay_two_person_won,
                               next=rows[-1][0].id if len(rows) == limit else None)
            uow.commit()
        return out

    def sign(self, principal: Principal, handpay_id: int, key: OnceKey) -> Once[HandpayView]:
        """Sign a pending handpay (Idempotency-Key). The first signature is the paying attendant's (attendant or
        supervisor); a handpay of at least ``handpay_two_person_won`` also needs a second signature, by a
        different person with the supervisor or admin role. With the last needed signature the handpay is paid:
        a jackpot handpay in cash from the cage (``jackpot_controller.services.awards.pay_handpay``), cancelled
        credits with a handpay receipt (``tito.services.tickets.issue_handpay_receipt``); both recorded in the
        audit log. Returns the handpay after (:class:`HandpayView`). Refusals: 404 ``handpay_id``; 409 already
        paid / signed by this person / wrong second signer (recorded as refused)."""
        require_role(principal, *HANDPAY_SIGN_ROLES)
        refusal: list[str] = []

        def fn(uow) -> HandpayView:
            now = self.ctx.clock.now()
            h = uow.floor_events.handpay(handpay_id, for_update=True)
            if h is None:
                raise NotFound(f"no handpay {handpay_id}", field="handpay_id")
            if h.state != "pending":
                raise Conflict(f"handpay {handpay_id} is {h.state}", field="handpay_id", state=h.state)
            asset = uow.floor_events.asset_of(h.machine_id)
            needed = A.signers_needed(h.amount, self.settings.handpay_two_person_won)
            if h.signer1 is None:
                h.signer1, h.signer1_role, h.signed1_at = principal.name, principal.role, now
            else:
                problem = A.second_signer_problem(h.signer1, principal.name, principal.role)
                if problem:
                    refusal.append(problem)
                    raise Conflict(problem, field="signer")
                h.signer2, h.signer2_role, h.signed2_at = principal.name, principal.role, now
            signed = 1 if h.signer2 is None else 2
            if signed >= needed:
                h.payout = self._pay(uow, h, asset)
                h.state, h.paid_at = "paid", now
            audit_log.record(uow, principal, "handpay.sign", f"handpay:{h.id}",
                             after={"signer": principal.name, "signature": signed, "of": needed, "state": h.state},
                             detail={"machine": asset, "amount": h.amount, "source": h.source})
            return handpay_view(h, asset, self.settings.handpay_two_person_won)

        try:
            return run_once(self.ctx, key, fn, result=HandpayView)
        except Conflict as e:
            if refusal:
                audit_log.record_refusal(self.ctx.uow, principal, "handpay.sign", f"handpay:{handpay_id}", e.code,
                                         reason=refusal[0])
            raise

    def _pay(self, uow, h, asset: str) -> dict:
        if h.source == "jackpot":
            return {"jackpot": self.jackpots.pay_handpay(uow, h.hit_id, h.signer1)}
        if h.source == "machine_jackpot":  # the machine's own game win, paid in cash (never on its credit meter)
            m = uow.machines.get(asset, for_update=True)
            entry = L.EntryBuilder("machine.jackpot_handpay", f"jackpot handpay at {asset}").add(
                debit=accounts.machine_hold(asset), credit=accounts.cage_bank(accounts.MAIN_CAGE), amount=h.amount,
                memo="jackpot handpay")
            entry_id = uow.ledger.post(entry.build({"machine": asset, "handpay": h.id, "attendant": h.signer1}))
            uow.machines.add_meters(m, coin_out=h.amount)  # a game win: the day's hold = coin-in − coin-out
            last = uow.meter_reports.latest(m.id)
            if last is not None:  # the machine's coin-out as the floor expects it next includes the paid win, so
                # meters derived from the next report (several games) never count it as a game win again
                uow.meter_reports.add(m.id, source="handpay", game_number=last.game_number,
                                      meters={"coin_in": last.coin_in, "coin_out": (last.coin_out or 0) + h.amount,
                                              "games_played": last.games_played, "jackpot": last.jackpot,
                                              "games_won": last.games_won})
            return {**(h.payout or {}), "entry": entry_id, "paid_by": h.signer1}
        m = uow.machines.get(asset, for_update=True)
        credits = uow.machines.credits(asset)
        if credits.cashable + credits.nonrestricted != h.amount:  # the signers signed for this amount
            raise Conflict(f"the machine's cashable credits are now ₩{credits.cashable + credits.nonrestricted:,}, "
                           f"not the ₩{h.amount:,} of handpay {h.id}: cancel it and queue a new one",
                           field="handpay_id")
        return {"receipt": self.tickets.handpay_receipt(uow, m, h.signer1)}


def _link_view(link) -> LinkView | None:
    if link is None:
        return None
    return LinkView(online=link.online, last_heard_at=_iso(link.last_heard_at), offline_since=_iso(link.offline_since))
