"""The ordered sequencer: folds recorded wagers into the pools, one transaction per batch.

Why (docs/architecture.md "Where the hit is decided"): a spin that locked the pool rows held
them for its whole transaction (≈ 10 statements and a commit), so every spin on the floor
queued behind every other on the same rows. The spin only INSERTs its wager
(:class:`jackpot_controller.services.spin.WagerRecorder`) and a fold applies the recorded wagers:

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

Where folds run (``SLOTSYS_JACKPOT_SEQUENCER``): inside the spin's own transaction in the embedded SQLite
default (``in_spin``; its writers serialise anyway, so the spin's response carries its award); in production
in a sequencer thread of every web process (``async``: kicked after each spin commits, folding at most every
``fold_interval_s``) or in a dedicated ``slotsys sequencer`` process holding the floor's lease (``process``),
plus the Celery beat task ``jackpot_controller.fold`` every second, so wagers are folded within a second even
if the process that recorded them died.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Callable

import structlog

from jackpot_controller.domain.pool import HitDecision, Pool, Wager
from jackpot_controller.domain.pool import fold as fold_pure
from jackpot_controller.domain.records import EPOCH, Hit, Level, pending_of, params_of
from jackpot_controller.services.levels import ensure_accounts
from jackpot_controller.services.ports import CardedPlayers, JackpotUnitOfWork, Lease, MachinePort
from jackpot_controller.services.signage import Signage
from jackpot_controller.settings import JackpotSettings
from slotsys.kernel import ledger as L
from slotsys.kernel.context import ServiceContext

log = structlog.get_logger("jackpot_controller.sequencer")


@dataclass
class FoldResult:
    """One fold: how many wagers it applied, the hits it decided (records and decisions, in order), its id and
    journal entry (None when nothing moved a whole won)."""

    folded: int = 0
    hits: list[Hit] = field(default_factory=list)
    decisions: list[HitDecision] = field(default_factory=list)
    fold_id: int | None = None
    entry_id: int | None = None


def pool_of(level: Level, open_claims: list[int] | None = None) -> Pool:
    """A level's working state for the pure fold."""
    return Pool(
        id=level.id, code=level.code, params=params_of(level), pending=pending_of(level), paused=level.paused,
        value_milli=level.value_milli, trigger_milli=level.trigger_milli, cycle=level.cycle,
        reserve_milli=level.reserve_milli, overflow_milli=level.overflow_milli, coin_in=level.qualifying_coin_in,
        contributed_milli=level.contributed_milli, hits=level.hits, total_won=level.total_won,
        seeded_won=level.seeded_won, cycle_started=level.cycle_started_at, open_claims=list(open_claims or []),
    )


def zone_of(moves: dict[int, list[tuple[datetime, str]]]):
    """A moved machine counts, for each level, in the zone it had when the level's cycle began."""

    def of(pool: Pool, w: Wager) -> str:
        history = moves.get(w.machine_id)
        if not history:
            return w.zone
        started = pool.cycle_started or EPOCH
        zone = history[0][1]
        for since, z in history:
            if since <= started:
                zone = z
        return zone

    return of


class Sequencer:
    """Decides the hits: the fold, the process's fold thread, beat's safety net, the ``process`` mode's loop.

    ``machines``: KEY SHARE of the winners' rows; ``players``: who is carded in on a winner; ``signage``: the
    meters broadcast after a fold; ``lease``: who folds in the ``process`` mode; ``dialect``: the database's
    (``sqlite``: writers serialise, so ``auto`` folds in the spin)."""

    def __init__(self, ctx: ServiceContext, settings: JackpotSettings, *, machines: MachinePort,
                 players: CardedPlayers, signage: Signage, lease: Lease | None = None, dialect: str = "sqlite") -> None:
        self.ctx = ctx
        self.settings = settings
        self.machines = machines
        self.players = players
        self.signage = signage
        self.lease = lease
        self.dialect = dialect
        self.driver = FoldDriver(self.fold_all, settings)

    # ------------------------------------------------------------ where folds run
    def in_spin(self) -> bool:
        """Whether hits are decided inside the spin's transaction (``in_spin``, or ``auto`` on SQLite)."""
        mode = self.settings.sequencer
        if mode != "auto":
            return mode == "in_spin"
        return self.dialect == "sqlite"

    def kick(self) -> None:
        """After a spin committed its wager: wake this process's fold thread (never in the ``process`` mode)."""
        if self.settings.sequencer != "process":
            self.driver.kick()

    def stop(self) -> None:
        """Stop this process's fold thread (tests, shutdown, processes that never fold)."""
        self.driver.stop()

    def fold_safety_net(self) -> int:
        """Beat's fold every second. In the ``process`` mode it folds only when no sequencer process holds
        the lease (all of them down): the floor keeps folding, and never beside an active sequencer."""
        if self.settings.sequencer != "process" or self.lease is None:
            return self.fold_all()
        with self.lease.held_once() as free:
            return self.fold_all() if free else 0

    def fold_all(self) -> int:
        """Fold every pending wager, batch after batch; returns how many were folded. (In the ``in_spin``
        mode every spin folds itself: nothing to do here.)"""
        if self.settings.sequencer == "in_spin":
            return 0
        total = 0
        while True:
            with self.ctx.uow() as uow:
                res = self.fold_in(uow)
                if not res.folded:
                    break
                uow.commit()
            self.after_fold(res)
            total += res.folded
            if res.folded < self.settings.fold_batch:
                break
        return total

    def after_fold(self, res: FoldResult, settled: set[int] | frozenset[int] = frozenset()) -> None:
        """After a fold commits: award tasks for its hits (but those ``settled`` in the spin), announcements,
        the meters broadcast (at once when it decided a hit)."""
        for d in res.decisions:
            self.ctx.metrics.jackpot_awarded(d.level_code, d.amount)
        for hit in res.hits:
            if hit.id not in settled:
                self.ctx.enqueue("jackpot_controller.award", hit.id)
            self.ctx.enqueue("jackpot_controller.announce_hit", hit.id)
        if res.folded:
            self.signage.publish_meters(force=bool(res.hits))

    # ------------------------------------------------------------ the fold
    def fold_in(self, uow: JackpotUnitOfWork) -> FoldResult:
        """Fold up to ``fold_batch`` pending wagers in ``uow`` (the caller commits). See the module doc."""
        levels = uow.levels
        if not levels.has_pending():
            return FoldResult()
        rows = levels.lock_all()
        wagers = levels.pending_wagers(self.settings.fold_batch)
        if not wagers:
            return FoldResult()
        now = self.ctx.clock.now()
        claims = levels.open_claims(now - timedelta(seconds=self.settings.claim_timeout_s)) \
            if any(r.kind == "linked" for r in rows) else {}
        pools = [pool_of(r, claims.get(r.id)) for r in rows]
        offered = {p.params.combination for p in pools if p.params.combination and not p.paused}
        ws = [Wager(w.id, w.machine_id, w.asset, w.bank or "", w.zone, int(w.bet_won),
                    tuple(k for k in (w.progressive or "").split(",") if k)) for w in wagers]
        decisions = fold_pure(pools, ws, self.ctx.rng, now=now, zone_of=zone_of(levels.zone_moves()))
        if decisions:  # the hit rows reference the winners' machines: take those (KEY SHARE) before any account
            self.machines.key_share(uow, sorted({d.wager.machine_id for d in decisions}))
        fold_id = levels.add_fold(wagers=len(ws), first_wager=ws[0].id, last_wager=ws[-1].id, hits=len(decisions),
                                  created_at=now)
        entry = L.EntryBuilder("jackpot.fold", f"jackpot fold {fold_id}: {len(ws)} wagers, {len(decisions)} hits")
        for p in pools:
            if p.changed:
                ensure_accounts(uow, p.code)
                for debit, credit, amount in p.ledger_legs():
                    entry.add(debit=debit, credit=credit, amount=amount)
        entry_id = None if entry.empty else uow.ledger.post(entry.build({"fold": fold_id}))
        levels.set_fold_entry(fold_id, entry_id)
        marked = levels.mark_folded([w.id for w in ws], fold_id)
        if marked != len(ws):  # pragma: no cover - folds serialise on the level locks
            raise RuntimeError(f"fold {fold_id}: {marked} of {len(ws)} wagers were still unfolded")
        levels.save_pools(pools)
        by_wager = {w.id: w for w in wagers}
        hits = []
        for d in decisions:
            w = by_wager[d.wager.id]
            note = (f"second hit while a claim of ₩{d.open_claim_amount:,} was open: rule {d.rule}"
                    + (f", house top-up ₩{d.topup:,}" if d.topup else "")) if d.second_hit else ""
            hit = levels.add_hit(
                level_id=d.level_id, cycle=d.cycle, machine_id=w.machine_id, zone=w.zone, game_number=w.game_number,
                amount_won=d.amount, trigger_milli=d.trigger_milli, status="hit", announced=False, entry_id=entry_id,
                created_at=now, wager_id=w.id, player_id=self.players.player_on(uow, w.machine_id),
                value_milli=d.value_milli, topup_won=d.topup, note=note)
            hits.append(hit)
            if d.second_hit:
                levels.add_event(kind="second_hit", level_code=d.level_code, hit_id=hit.id, machine=w.asset,
                                 reason=note, detail={"rule": d.rule, "open_claim_amount": d.open_claim_amount,
                                                      "amount": d.amount, "topup": d.topup, "wager": w.id},
                                 created_at=now)
        for w in ws:  # a combination no active level is bound to wins nothing: say so
            for key in set(w.progressive) - offered:
                levels.add_event(kind="unmatched_progressive", machine=w.asset, created_at=now,
                                 reason=f"progressive combination {key!r} won on {w.asset}: no active level takes it",
                                 detail={"key": key, "wager": w.id})
                log.warning("jackpot.progressive.unmatched", key=key, machine=w.asset, wager=w.id)
        if hits:
            log.info("jackpot.fold.hits", fold=fold_id, hits=[(d.level_code, d.cycle, d.amount) for d in decisions])
        return FoldResult(len(ws), hits, decisions, fold_id, entry_id)


class FoldDriver:
    """One sequencer thread per process (production): kicked after each spin commits, it calls ``fold_all``
    at most every ``fold_interval_s`` (kicks meanwhile coalesce into the next fold)."""

    def __init__(self, fold_all: Callable[[], int], settings: JackpotSettings) -> None:
        self.fold_all = fold_all
        self.settings = settings
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
        s = self.settings
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
                self.fold_all()
                failures = 0
            except Exception:  # the database may be restarting: retry later, the queue is durable
                failures += 1
                log.warning("jackpot.fold.failed", failures=failures, exc_info=True)


def run_sequencer_process(sequencer: Sequencer, stop: threading.Event, *, lease_check_s: float = 1.0,
                          heartbeat: Callable[[], None] = lambda: None) -> None:
    """The dedicated sequencer (``slotsys sequencer``, the ``process`` mode): until ``stop`` is set, wait as a
    standby until the lease is free (``standby_poll_s``), then, as the active sequencer, fold the queue batch
    after batch, waiting ``sequencer_poll_s`` whenever it is empty, and checking every ``lease_check_s`` that
    the lease's session still answers (a lost lease sends it back to standby). A failed fold (the database
    restarting) is retried with backoff; the queue is durable and a fold rolls back whole. ``heartbeat()`` is
    called at least every second in both roles (the container's health check reads it).

    ``sequencer``: anything with the :class:`Sequencer`'s ``settings``, ``lease`` and ``fold_all``."""
    s, lease = sequencer.settings, sequencer.lease
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
                folded = sequencer.fold_all()
                failures = 0
            except Exception:
                failures += 1
                log.warning("jackpot.fold.failed", failures=failures, exc_info=True)
                stop.wait(min(5.0, 0.1 * 2 ** failures))
                continue
            if not folded:  # the queue is drained: wait for more
                stop.wait(s.sequencer_poll_s)
    lease.release()
