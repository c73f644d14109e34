"""Signage: the meters and the hits on the live channel (:data:`~jackpot_controller.domain.signage.CHANNEL`),
and the Server-Sent Events stream that serves them. Best effort: the meters and the hits are already in the
database, so a message that does not go out is re-read on the next fold or heartbeat.

Rule: the stream and the signs celebrate only what the player gets. A hit is announced after its award is
settled: ``awarded`` (credited to the machine), ``handpay`` (the machine is locked and an attendant pays it) or
``at_machine`` (a SAS machine is paying it as a legacy bonus) carry the amount; a hit held for ``verification`` (above the maximum: it may be voided) is announced with that
status and **no amount**; a hit still ``hit`` / ``claimed`` is left for the award task (which enqueues the
announcement again once it settles) and the sweep; a ``void`` hit is never announced. When an operator later
decides ``pay``, the awards service publishes the ``handpay`` announcement.
"""

from __future__ import annotations

import json
import threading
import time
from typing import Any, Iterator

import structlog

from jackpot_controller.domain.records import Hit
from jackpot_controller.domain.signage import CHANNEL, sse
from jackpot_controller.services.ports import JackpotUnitOfWork, MachinePort, Publish
from jackpot_controller.services.views import level_view
from jackpot_controller.settings import JackpotSettings
from slotsys.kernel.context import ServiceContext

log = structlog.get_logger("jackpot_controller")


class Signage:
    """``publish`` the live channel; ``machines`` names the winners' machines (asset numbers)."""

    def __init__(self, ctx: ServiceContext, settings: JackpotSettings, publish: Publish | None,
                 machines: MachinePort | None) -> None:
        self.ctx = ctx
        self.settings = settings
        self.machines = machines
        self._publish = publish or (lambda channel, message: None)
        self._published = 0.0
        self._trailing: threading.Timer | None = None
        self._pub_lock = threading.Lock()

    def publish(self, channel: str, message: str) -> None:
        """Send one message; a failure is logged, never raised (best effort)."""
        try:
            self._publish(channel, message)
        except Exception:
            log.warning("jackpot.publish_failed", channel=channel, exc_info=True)

    # ------------------------------------------------------------ meters
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

    def meters_message(self) -> dict[str, Any]:
        """{event: "meters", at, levels: [{code, name, kind, zone, value (won), cycle, status}]}."""
        with self.ctx.uow(readonly=True) as uow:
            levels = [level_view(lv, staff=False) for lv in uow.levels.all()]
        return {"event": "meters", "at": self.ctx.clock.now().isoformat(),
                "levels": [{k: v[k] for k in ("code", "name", "kind", "zone", "value", "cycle", "status")}
                           for v in levels]}

    # ------------------------------------------------------------ hits
    def hit_message(self, uow: JackpotUnitOfWork, hit: Hit) -> dict[str, Any]:
        """The signage message of a settled hit: the amount only when it is paid or being paid (``awarded``,
        ``handpay``, ``at_machine``), null in ``verification``."""
        level = uow.levels.by_id(hit.level_id)
        machine = self.machines.assets(uow, [hit.machine_id])[hit.machine_id]
        paying = hit.status in ("awarded", "handpay", "at_machine")
        return {"event": "hit", "hit": hit.id, "level": level.code, "name": level.name, "machine": machine,
                "zone": hit.zone, "status": hit.status, "pay_method": hit.pay_method,
                "amount": hit.amount_won if paying else None, "new_value": level_view(level)["value"],
                "at": hit.created_at.isoformat()}

    def announce_hit(self, hit_id: int) -> bool:
        """Publish a hit once it is paid or being paid (see the module doc); False if it was already announced,
        is not settled yet, or is void.

        Idempotent: the ``announced`` flag is flipped under the hit's row lock in the same transaction, so a
        retried or duplicated task publishes at most once per commit."""
        with self.ctx.uow() as uow:
            hit = uow.levels.hit(hit_id, for_update=True)
            if hit is None or hit.announced or hit.status in ("hit", "claimed"):
                return False
            uow.levels.update_hit(hit_id, announced=True)
            message = None
            if hit.status != "void":
                message = self.hit_message(uow, hit)
                text = json.dumps(message)
                uow.after_commit(lambda: self.publish(CHANNEL, text))
            uow.commit()
        if message is not None:
            log.info("jackpot.hit.announced", **{k: v for k, v in message.items() if k != "event"})
        return message is not None

    def announce_pending(self) -> int:
        """Sweep: announce the recent hits (last 200) never announced; returns how many were."""
        with self.ctx.uow(readonly=True) as uow:
            ids = [h.id for h in uow.levels.recent_hits(limit=200) if not h.announced]
        return sum(1 for hid in reversed(ids) if self.announce_hit(hid))

    # ------------------------------------------------------------ the stream
    def stream(self, subscription, *, heartbeat_s: float = 2.0, max_seconds: float | None = None) -> Iterator[str]:
        """Server-Sent Events: a ``meters`` snapshot first, then every message of the signage channel
        (``subscription.get(timeout)`` → message or None; closed at the end), and a fresh ``meters`` snapshot
        after ``heartbeat_s`` of silence (signage treats a level silent for 5 s as in error, reference
        "Progressive jackpots")."""
        started = last = time.monotonic()
        try:
            yield sse("meters", json.dumps(self.meters_message()))
            while max_seconds is None or time.monotonic() - started < max_seconds:
                msg = subscription.get(timeout=0.5)
                if msg is not None:
                    try:
                        event = json.loads(msg).get("event", "message")
                    except ValueError:
                        event = "message"
                    yield sse(event, msg)
                    last = time.monotonic()
                elif time.monotonic() - last >= heartbeat_s:
                    yield sse("meters", json.dumps(self.meters_message()))
                    last = time.monotonic()
        finally:
            subscription.close()
