"""Running a split simulation: in this process, on every core (a process pool) or on a Dask cluster.

The chunk plan, the chunk streams and the exact merge are the domain's
(:mod:`slotsys.floor.domain.simplan`); this module only decides where chunks are played and keeps a
checkpoint file. Whatever runs the chunks, the result is :func:`slotsys.floor.domain.simplan.merge` of
the same chunk results, so the same seed gives the same totals on 1 worker, on N, on a cluster
and after a resume.

* ``workers == 1``: chunks are played one after another in this process.
* ``workers > 1``: a :class:`concurrent.futures.ProcessPoolExecutor` of that many processes
  (``forkserver`` start: no fork of a process that already runs threads), each receiving this
  process's simulator tables once. As with any forkserver or spawn pool, a script calling
  :func:`run_simulation` must guard its entry point (``if __name__ == "__main__":``).
* ``scheduler``: a Dask distributed scheduler address (``tcp://host:8786``); tasks are handed out
  a few per worker thread at a time and each worker process builds the tables once. Start
  workers with one thread each (``dask worker ADDRESS --nthreads 1 --nworkers N``): a chunk is
  NumPy work on one core.

Every worker pins BLAS and OpenMP to one thread (``threadpoolctl``, and the usual environment
variables for libraries loaded later): BLAS threads fighting over the cores of a busy box made
one-core runs 2–3× slower.

Checkpoint (``checkpoint=PATH``): after chunks complete (at most once a second, and when the run
ends or is interrupted) the run key and every completed chunk's exact counts are written as JSON
to a temporary file beside PATH, flushed to disk and renamed over PATH (``os.replace``: a reader
sees the old file or the new one, never a torn one). A later run with the same key (game
definition digest, bet, variation, choice, seed, spins, chunk size, batch, simulator stream
version) plays only the missing chunks and merges all of them: the same result as an
uninterrupted run. A checkpoint of another run raises
:class:`~slotsys.floor.domain.simplan.CheckpointMismatch` rather than mixing two runs.
"""

from __future__ import annotations

import json
import os
import threading
import time
import uuid
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from slotsys.floor.domain.sim import SimResult, Simulator
from slotsys.floor.domain.simplan import (
    CheckpointMismatch,
    ChunkPlan,
    SimSpec,
    checkpoint_state,
    merge,
    restore_checkpoint,
    run_chunk,
    run_key,
)

__all__ = ["run_simulation", "RunReport", "RunProgress", "CheckpointError", "default_workers", "pin_blas"]

_THREAD_VARS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS",
                "NUMEXPR_NUM_THREADS", "VECLIB_MAXIMUM_THREADS")


def default_workers() -> int:
    """Cores this process may run on (``os.sched_getaffinity``; ``os.cpu_count()`` where there is none)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


_pinned = None


def pin_blas() -> None:
    """One BLAS / OpenMP thread in this process, for the libraries loaded now (threadpoolctl) and later
    (environment). Idempotent."""
    global _pinned
    if _pinned is not None:
        return
    for v in _THREAD_VARS:
        os.environ[v] = "1"
    from threadpoolctl import threadpool_limits

    _pinned = threadpool_limits(limits=1)


@dataclass(frozen=True)
class RunProgress:
    """Progress of a run: paid games and chunks done (resumed ones included) of the totals."""

    spins_done: int
    spins: int
    chunks_done: int
    chunks: int


@dataclass
class RunReport:
    """A finished run: the merged ``result``; ``executor`` ("in-process", "processes", "dask", or
    "checkpoint" when every chunk was in the checkpoint already),
    ``workers`` (processes, or Dask worker threads), chunks ``resumed`` from the checkpoint and
    ``played`` in this run, the paid games ``spins_played`` in this run and its wall ``seconds``
    (start-up of the workers included)."""

    result: SimResult
    plan: ChunkPlan
    executor: str
    workers: int
    resumed: int
    played: int
    spins_played: int
    seconds: float

    @property
    def spins_per_second(self) -> float:
        return self.spins_played / self.seconds if self.seconds > 0 else 0.0


class CheckpointError(ValueError):
    """A checkpoint file that cannot be read or is not a checkpoint (damaged, or another kind of file)."""


class _Checkpoint:
    """The checkpoint file of one run: load, and atomic saves at most every ``interval`` seconds."""

    def __init__(self, path: Path | None, key: dict, plan: ChunkPlan, interval: float = 1.0) -> None:
        self.path, self.key, self.plan, self.interval = path, key, plan, interval
        self.last = 0.0
        self.dirty = False

    def load(self) -> dict[int, SimResult]:
        if self.path is None or not self.path.exists():
            return {}
        try:
            with open(self.path, encoding="utf-8") as f:
                state = json.load(f)
            return restore_checkpoint(state, self.key, self.plan)
        except CheckpointMismatch:
            raise
        except (OSError, ValueError, KeyError, TypeError, IndexError) as e:
            raise CheckpointError(f"{self.path} is not a readable checkpoint: {type(e).__name__}: {e}") from e

    def save(self, results: dict[int, SimResult], *, force: bool = False) -> None:
        if self.path is None:
            return
        self.dirty = True
        now = time.monotonic()
        if not force and now - self.last < self.interval:
            return
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(checkpoint_state(self.key, results), f, separators=(",", ":"))
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.path)
        self.last = now
        self.dirty = False


def run_simulation(spec: SimSpec, plan: ChunkPlan, *, workers: int | None = None, scheduler: str | None = None,
                   checkpoint: str | os.PathLike | None = None, progress: Callable[[RunProgress], None] | None = None,
                   sim: Simulator | None = None) -> RunReport:
    """Play every chunk of ``plan`` for ``spec`` that ``checkpoint`` does not hold yet, and merge them.

    ``workers``: processes on this machine (None: :func:`default_workers`; 1: this process);
    ignored with ``scheduler`` (a Dask scheduler address). ``progress`` is called from this
    thread when the run starts and after every chunk. ``sim``: the simulator of ``spec`` if the
    caller built one already (its tables are reused by the in-process executor).

    Raises ``InvalidBet`` / ``UnknownVariation`` for a bad spec, ``CheckpointMismatch`` for a
    checkpoint of another run, :class:`CheckpointError` for an unreadable one, ``OSError`` when the
    Dask scheduler cannot be reached, and re-raises an interruption (``KeyboardInterrupt``) after
    saving the chunks completed so far.
    """
    t0 = time.perf_counter()
    sim = sim if sim is not None else spec.build()
    key = run_key(spec, sim, plan)
    cp = _Checkpoint(Path(checkpoint) if checkpoint is not None else None, key, plan)
    results = cp.load()
    resumed = len(results)
    todo = [i for i in range(plan.chunks) if i not in results]

    def report() -> None:
        if progress is not None:
            progress(RunProgress(sum(r.spins for r in results.values()), plan.spins, len(results), plan.chunks))

    def done(i: int, r: SimResult) -> None:
        results[i] = r
        cp.save(results)
        report()

    report()
    n = default_workers() if workers is None else workers
    if n < 1:
        raise ValueError(f"workers must be ≥ 1; got {n}")
    try:
        if not todo:
            executor, n = "checkpoint", 0
        elif scheduler is not None:
            executor, n = "dask", _run_dask(scheduler, spec, plan, todo, done)
        elif n == 1 or len(todo) <= 1:
            executor, n = "in-process", 1
            from threadpoolctl import threadpool_limits

            with threadpool_limits(limits=1):  # for this run only: the caller's process keeps its own setting
                for i in todo:
                    done(i, run_chunk(sim, plan, i))
        else:
            executor, n = "processes", min(n, len(todo))
            _run_pool(n, sim, plan, todo, done)
    finally:
        if cp.dirty:
            cp.save(results, force=True)
    played = sum(plan.chunk_size(i) for i in todo)
    return RunReport(merge(plan, results), plan, executor, n, resumed, len(todo), played, time.perf_counter() - t0)


# --------------------------------------------------------------------------- process pool
_worker_sim: Simulator | None = None


def _init_pool_worker(sim: Simulator) -> None:
    """Pool worker start: one BLAS thread, Ctrl-C left to the parent (it saves and stops the pool), and
    the parent's simulator (inherited by a forked worker; pickled, ~10 MB through a pipe, to a fork server's,
    instead of ~0.5 s of building per worker)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    pin_blas()
    global _worker_sim
    _worker_sim = sim


def _pool_chunk(plan: ChunkPlan, i: int) -> tuple[int, SimResult]:
    assert _worker_sim is not None, "pool worker not initialised"
    return i, run_chunk(_worker_sim, plan, i)


def _run_pool(n: int, sim: Simulator, plan: ChunkPlan, todo: list[int], done: Callable[[int, SimResult], None]) -> None:
    import multiprocessing

    # Workers forked from this process share its simulator's tables (copy on write): measured on 2 cores, 16
    # chunks of 5 M paid games ran at 95% of linear so, against 65% with the tables pickled to workers of a fork
    # server (bench/sim_scaling.py). Forking is only safe from a process with one thread; otherwise the fork
    # server, with the main module, numpy and the domain imported once in it.
    if "fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1:
        ctx = multiprocessing.get_context("fork")
    else:
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(["__main__", "slotsys.floor.simrun"])
    ex = ProcessPoolExecutor(max_workers=n, mp_context=ctx, initializer=_init_pool_worker, initargs=(sim,))
    pending = {ex.submit(_pool_chunk, plan, i) for i in todo}
    try:
        while pending:
            finished, _ = wait(pending, return_when=FIRST_COMPLETED)
            for f in finished:
                pending.discard(f)
                done(*f.result())
    except BaseException:
        # keep what the chunks already finished or in flight bring (their work is not lost), then stop the pool
        for f in pending:
            f.cancel()
        for f in pending:
            if not f.cancelled():
                try:
                    done(*f.result())
                except BaseException:  # noqa: BLE001 - the first error is the one re-raised
                    pass
        raise
    finally:
        ex.shutdown(wait=True, cancel_futures=True)


# --------------------------------------------------------------------------- Dask
_dask_sims: dict[tuple, Simulator] = {}
_dask_lock = threading.Lock()


def _dask_chunk(spec: SimSpec, plan: ChunkPlan, i: int) -> tuple[int, dict]:
    """Dask task: chunk ``i`` on this worker (tables built once per worker process and spec)."""
    pin_blas()
    k = (spec.definition_digest(), spec.bet, spec.variation, spec.choice)
    with _dask_lock:
        sim = _dask_sims.get(k)
        if sim is None:
            sim = _dask_sims[k] = spec.build()
    return i, run_chunk(sim, plan, i).state()


def _run_dask(address: str, spec: SimSpec, plan: ChunkPlan, todo: list[int],
              done: Callable[[int, SimResult], None]) -> int:
    """Play ``todo`` on the cluster at ``address``; returns the cluster's worker threads."""
    from dask.distributed import Client, as_completed

    run = uuid.uuid4().hex[:12]
    with Client(address) as client:
        threads = sum(client.nthreads().values()) or 1
        spec_f = client.scatter(spec, broadcast=True, hash=False)
        pending = iter(todo)

        def submit(i: int):
            return client.submit(_dask_chunk, spec_f, plan, i, key=f"slot-chunk-{run}-{i}", pure=False)

        # a few tasks per worker thread at a time: the checkpoint then holds all but those in flight
        ac = as_completed([submit(i) for _, i in zip(range(2 * threads), pending)])
        for fut in ac:
            i, state = fut.result()
            fut.release()
            done(i, SimResult.from_state(state))
            nxt = next(pending, None)
            if nxt is not None:
                ac.add(submit(nxt))
    return threads
