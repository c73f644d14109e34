"""The ordered sequencer: folds recorded wagers into the pools, one transaction per batch.

Why (docs/architecture.md "Where the hit is decided"): a spin that locked the pool rows held
them for its whole transaction (≈ 10 statements and a commit), so every spin on the floor
queued behind every other on the same rows. Now the spin only INSERTs its wager
(:func:`jackpot_controller.services.spin.on_wager`) and a fold applies the recorded wagers:

1. lock every level row (id order): folds and operator edits serialise; spins never wait
   (lock order: level rows → the winners' machine rows, KEY SHARE, for the hits' foreign keys →
   account rows; nothing holding a machine row waits for a level row, except a spin in the
   ``in_spin`` mode, which is for SQLite, where writers serialise and there are no row locks);
2. read the unfolded wagers in id order (at most ``fold_batch``); that batch, after every
   earlier batch, is **the total order of contributions** (a wager committed late is simply in a
   later batch: the order is the fold order, stored as ``jackpot_wagers.fold_id``);
3. apply them with the pure :mod:`jackpot_controller.domain.pool` (hits, resets, overflow);
4. post ONE balanced journal entry for the batch, write the meters, insert the hits (unique per
   level and cycle), mark exactly those wagers folded (by id), commit.

A wager is counted once because it is marked in the same transaction that adds it to the
meters, and folds serialise on the level locks (a second fold reads the queue only after the
first has committed). Nothing is lost: the wager row is committed with the spin, and stays
unfolded until a fold commits; a crash anywhere rolls the fold back whole. Triggers persist on
the level rows; a restarted process folds the queue with the same triggers.

Where folds run: inside the spin's own transaction in the embedded SQLite default (its writers
serialise anyway, so the spin's response carries its award), and in production in a sequencer
thread of every web process (kicked after each spin commits, folding at most every
``fold_interval_s``) plus the Celery beat task ``jackpot_controller.fold`` every second, so wagers
are folded within a second even if the process that recorded them died.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING

import structlog

from jackpot_controller.adapters.tables import JackpotFold, JackpotHit
from jackpot_controller.domain.pool import HitDecision, Pool, Wager
from jackpot_controller.domain.pool import fold as fold_pure
from jackpot_controller.services.levels import ensure_accounts, pool_of, write_pool
from slotsys.kernel import ledger as L

if TYPE_CHECKING:  # pragma: no cover
    from jackpot_controller.services.controller import JackpotService

log = structlog.get_logger("jackpot_controller.sequencer")
EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)

try:  # player tracking (loyalty) records carded sessions; the hit names the carded player
    from slotsys.players.adapters.tables import PlayerSession
except ImportError:  # pragma: no cover - loyalty not installed
    PlayerSession = None


@dataclass
class FoldResult:
    folded: int = 0
    hits: list[JackpotHit] = field(default_factory=list)
    decisions: list[HitDecision] = field(default_factory=list)
    fold_id: int | None = None
    entry_id: int | None = None


def _zone_of(moves: dict[int, list[tuple[datetime, str]]]):
    """A moved machine counts, for each level, in the zone it had when the level's cycle began."""

    def zone_of(pool: Pool, w: Wager) -> str:
        history = moves.get(w.machine_id)
        if not history:
            return w.zone
        started = pool.cycle_started or EPOCH
        zone = history[0][1]
        for since, z in history:
            if since <= started:
                zone = z
        return zone

    return zone_of


def _player(uow, machine_id: int) -> int | None:
    if PlayerSession is None:
        return None
    from sqlalchemy import select

    return uow.session.scalar(select(PlayerSession.player_id).where(
        PlayerSession.machine_id == machine_id, PlayerSession.status == "open").limit(1))


def fold(uow, svc: "JackpotService", *, limit: int) -> FoldResult:
    """Fold up to ``limit`` pending wagers in ``uow`` (the caller commits). See the module doc."""
    if not uow.levels.has_pending():
        return FoldResult()
    rows = uow.levels.all_for_update()
    wagers = uow.levels.pending_wagers(limit)
    if not wagers:
        return FoldResult()
    now = svc.ctx.clock.now()
    claims = uow.levels.open_claims(now - timedelta(seconds=svc.settings.claim_timeout_s)) \
        if any(r.kind == "linked" for r in rows) else {}
    pools = [pool_of(r, claims.get(r.id)) for r in rows]
    offered = {p.params.combination for p in pools if p.params.combination and not p.paused}
    ws = [Wager(w.id, w.machine_id, w.asset, w.bank or "", w.zone, int(w.bet_won),
                tuple(k for k in (w.progressive or "").split(",") if k)) for w in wagers]
    decisions = fold_pure(pools, ws, svc.ctx.rng, now=now, zone_of=_zone_of(uow.levels.zone_moves()))
    if decisions:  # the hit rows reference the winners' machines: take those (KEY SHARE) before any account
        uow.levels.key_share_machines(sorted({d.wager.machine_id for d in decisions}))
    fold_row = uow.levels.add_fold(JackpotFold(wagers=len(ws), first_wager=ws[0].id, last_wager=ws[-1].id,
                                               hits=len(decisions), created_at=now))
    entry = L.EntryBuilder("jackpot.fold", f"jackpot fold {fold_row.id}: {len(ws)} wagers, {len(decisions)} hits")
    for p in pools:
        if p.changed:
            ensure_accounts(uow, p.code)
            for debit, credit, amount in p.ledger_legs():
                entry.add(debit=debit, credit=credit, amount=amount)
    entry_id = None if entry.empty else uow.ledger.post(entry.build({"fold": fold_row.id}))
    fold_row.entry_id = entry_id
    marked = uow.levels.mark_folded([w.id for w in ws], fold_row.id)
    if marked != len(ws):  # pragma: no cover - folds serialise on the level locks
        raise RuntimeError(f"fold {fold_row.id}: {marked} of {len(ws)} wagers were still unfolded")
    for row, p in zip(rows, pools):
        write_pool(row, p)
    by_wager = {w.id: w for w in wagers}
    hits = []
    for d in decisions:
        w = by_wager[d.wager.id]
        note = (f"second hit while a claim of ₩{d.open_claim_amount:,} was open: rule {d.rule}"
                + (f", house top-up ₩{d.topup:,}" if d.topup else "")) if d.second_hit else ""
        hit = uow.levels.add_hit(JackpotHit(
            level_id=d.level_id, cycle=d.cycle, machine_id=w.machine_id, zone=w.zone, game_number=w.game_number,
            amount_won=d.amount, trigger_milli=d.trigger_milli, status="hit", announced=False, entry_id=entry_id,
            created_at=now, wager_id=w.id, player_id=_player(uow, w.machine_id), value_milli=d.value_milli,
            topup_won=d.topup, note=note))
        hits.append(hit)
        if d.second_hit:
            uow.levels.add_event(kind="second_hit", level_code=d.level_code, hit_id=hit.id, machine=w.asset,
                                 reason=note, detail={"rule": d.rule, "open_claim_amount": d.open_claim_amount,
                                                      "amount": d.amount, "topup": d.topup, "wager": w.id},
                                 created_at=now)
    for w in ws:  # a combination no active level is bound to wins nothing: say so
        for key in set(w.progressive) - offered:
            uow.levels.add_event(kind="unmatched_progressive", machine=w.asset, created_at=now,
                                 reason=f"progressive combination {key!r} won on {w.asset}: no active level takes it",
                                 detail={"key": key, "wager": w.id})
            log.warning("jackpot.progressive.unmatched", key=key, machine=w.asset, wager=w.id)
    if hits:
        log.info("jackpot.fold.hits", fold=fold_row.id, hits=[(d.level_code, d.cycle, d.amount) for d in decisions])
    return FoldResult(len(ws), hits, decisions, fold_row.id, entry_id)


class FoldDriver:
    """One sequencer thread per process (production): kicked after each spin commits, it folds
    at most every ``fold_interval_s`` (kicks meanwhile coalesce into the next fold)."""

    def __init__(self, svc: "JackpotService") -> None:
        self.svc = svc
        self._event = threading.Event()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._pid = 0
        self._stopped = False

    def kick(self) -> None:
        if self._stopped:
            return
        if self._thread is None or not self._thread.is_alive() or self._pid != os.getpid():
            with self._lock:
                if self._thread is None or not self._thread.is_alive() or self._pid != os.getpid():
                    self._pid = os.getpid()
                    self._thread = threading.Thread(target=self._run, name="jackpot-sequencer", daemon=True)
                    self._thread.start()
        self._event.set()

    def stop(self) -> None:
        self._stopped = True
        self._event.set()
        if self._thread is not None and self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout=5)

    def _run(self) -> None:
        """Every spin commits before it kicks, and a kick during a fold makes another fold, so no
        polling is needed; a failed fold is retried with backoff (5 times), and beat's
        ``jackpot_controller.fold`` (every second) is the safety net."""
        s = self.svc.settings
        last, failures = 0.0, 0
        while not self._stopped:
            if failures == 0:
                self._event.wait()
            elif not self._event.wait(timeout=min(30.0, 2.0 ** failures)) and failures > 5:
                failures = 0  # give up until the next kick (beat keeps folding)
                continue
            self._event.clear()
            if self._stopped:
                break
            wait = last + s.fold_interval_s - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            last = time.monotonic()
            try:
                self.svc.fold_all()
                failures = 0
            except Exception:  # the database may be restarting: retry later, the queue is durable
                failures += 1
                log.warning("jackpot.fold.failed", failures=failures, exc_info=True)


def run_sequencer_process(svc: "JackpotService", stop: threading.Event, *, lease_check_s: float = 1.0,
                          heartbeat=lambda: None) -> None:
    """The dedicated sequencer (``slotsys sequencer``, the ``process`` mode): until ``stop`` is set, wait as a
    standby until the lease is free (``standby_poll_s``), then, as the active sequencer, fold the queue batch
    after batch, waiting ``sequencer_poll_s`` whenever it is empty, and checking every ``lease_check_s`` that
    the lease's session still answers (a lost lease sends it back to standby). A failed fold (the database
    restarting) is retried with backoff; the queue is durable and a fold rolls back whole. ``heartbeat()`` is
    called at least every second in both roles (the container's health check reads it)."""
    s, lease = svc.settings, svc.lease
    failures = 0
    while not stop.is_set():
        heartbeat()
        try:
            active = lease.try_acquire()
        except Exception:
            log.warning("jackpot.sequencer.lease_unavailable", exc_info=True)
            active = False
        if not active:
            stop.wait(s.standby_poll_s)
            continue
        log.info("jackpot.sequencer.active", pid=os.getpid())
        checked = time.monotonic()
        while not stop.is_set():
            if time.monotonic() - checked >= lease_check_s:
                checked = time.monotonic()
                heartbeat()
                if not lease.alive():
                    log.warning("jackpot.sequencer.standby", reason="lease lost")
                    break
            try:
                folded = svc.fold_all()
                failures = 0
            except Exception:
                failures += 1
                log.warning("jackpot.fold.failed", failures=failures, exc_info=True)
                stop.wait(min(5.0, 0.1 * 2 ** failures))
                continue
            if not folded:  # the queue is drained: wait for more
                stop.wait(s.sequencer_poll_s)
    lease.release()
