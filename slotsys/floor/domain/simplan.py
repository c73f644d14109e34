"""A split simulation: the chunk plan, per-chunk seeded streams and the exact merge (pure domain).

A test lab proves a par sheet with 10⁹–10¹⁰ paid games; one run is split into chunks that any
number of processes or machines play in any order, and the merged result is the same whatever the
split. The rules:

* **Chunk plan** (:class:`ChunkPlan`): ``spins`` paid games cut into chunks of ``chunk_spins``
  (the last one shorter), each played in batches of ``batch``. The plan depends on the spin count
  and the chunk size only, never on the number of workers, so the same arguments always give the
  same chunks. Default chunk size: :func:`default_chunk_spins`.
* **Seeding**: chunk ``i`` plays its own PCG64 stream seeded with
  ``numpy.random.SeedSequence(seed, spawn_key=(i,))``, i.e. the i-th child of
  ``SeedSequence(seed).spawn(...)`` (NumPy's parallel-streams scheme: independent, reproducible
  streams keyed by the chunk index, computed without spawning the children before it).
* **Exact merge** (:func:`merge`): counts, integer credit sums and the exact Σ win² (credits²)
  add as Python integers, the win histograms and progressive hit counts add, the largest win is
  the maximum; the running-RTP points are rebuilt in chunk order. Nothing is averaged, so the
  merged result equals the chunks played one after another into one result.

:class:`SimSpec` names what is simulated (game, bet, variation, free-games choice) in a form that
pickles to worker processes; :func:`run_key` identifies a run (the game's definition digest, the
simulator's stream version and the plan) for checkpoint files, and :func:`checkpoint_state` /
:func:`restore_checkpoint` turn completed chunks into JSON-ready data and back (file handling is
the caller's: ``slotsys.floor.simrun``).

Units: wins and bets are integer credits; Σ win² is credits².
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Mapping

import numpy as np

from slotsys.floor.domain.game import BetOption, GameDefinition
from slotsys.floor.domain.sim import SIM_STREAM_VERSION, WIN_BINS, SimResult, Simulator

__all__ = ["ChunkPlan", "SimSpec", "default_chunk_spins", "run_chunk", "merge", "run_key", "checkpoint_state",
           "restore_checkpoint", "CheckpointMismatch", "DEFAULT_BATCH", "TRACE_POINTS", "CHECKPOINT_FORMAT"]

DEFAULT_BATCH = 131_072  # paid games per NumPy batch: the batch's arrays stay in the cache (~0.5–1 MB each)
MIN_CHUNK = 250_000  # smallest default chunk: a chunk costs a task hand-off and a checkpoint write
MAX_CHUNK = 10_000_000  # largest default chunk: a few seconds per core, so progress and checkpoints stay fine
TARGET_CHUNKS = 64  # chunks a run aims for between those bounds (enough to keep every core busy to the end)
TRACE_POINTS = 8  # fewest running-RTP points recorded inside each chunk
RUN_POINTS = 200  # running-RTP points a whole run aims for (the convergence chart)
CHECKPOINT_FORMAT = 1


def default_chunk_spins(spins: int) -> int:
    """Default chunk size for a run of ``spins`` paid games: ⌈spins / 64⌉ within 250,000 … 10,000,000
    (10⁹ spins → 100 chunks of 10⁷; 10⁶ → 4 chunks of 250,000). Depends on the spin count only."""
    return min(MAX_CHUNK, max(MIN_CHUNK, -(-spins // TARGET_CHUNKS)))


@dataclass(frozen=True)
class ChunkPlan:
    """``spins`` paid games from ``seed`` in chunks of ``chunk_spins``, each played in batches of ``batch``.

    Raises ``ValueError`` for spins, chunk_spins or batch below 1 or a negative seed."""

    spins: int
    seed: int
    chunk_spins: int
    batch: int = DEFAULT_BATCH

    def __post_init__(self) -> None:
        for name in ("spins", "chunk_spins", "batch"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ValueError(f"{name} must be an integer ≥ 1; got {v!r}")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0:
            raise ValueError(f"seed must be an integer ≥ 0; got {self.seed!r}")

    @classmethod
    def for_spins(cls, spins: int, seed: int, chunk_spins: int | None = None, batch: int = DEFAULT_BATCH) -> ChunkPlan:
        """The plan of a run; ``chunk_spins`` None → :func:`default_chunk_spins`."""
        return cls(spins, seed, default_chunk_spins(spins) if chunk_spins is None else chunk_spins, batch)

    @property
    def chunks(self) -> int:
        """Number of chunks, ⌈spins / chunk_spins⌉."""
        return -(-self.spins // self.chunk_spins)

    def chunk_size(self, i: int) -> int:
        """Paid games in chunk ``i`` (0-based); raises ``IndexError`` outside 0..chunks-1."""
        if not 0 <= i < self.chunks:
            raise IndexError(f"chunk {i} is not in 0..{self.chunks - 1}")
        return min(self.chunk_spins, self.spins - i * self.chunk_spins)

    def seed_sequence(self, i: int) -> np.random.SeedSequence:
        """Chunk ``i``'s seed: ``SeedSequence(seed, spawn_key=(i,))`` = ``SeedSequence(seed).spawn(i + 1)[i]``."""
        self.chunk_size(i)
        return np.random.SeedSequence(self.seed, spawn_key=(i,))

    def generator(self, i: int) -> np.random.Generator:
        """Chunk ``i``'s random stream (PCG64 on :meth:`seed_sequence`)."""
        return np.random.Generator(np.random.PCG64(self.seed_sequence(i)))

    @property
    def trace_points(self) -> int:
        """Running points recorded per chunk: max(8, ⌈200 / chunks⌉), so a run has about 200 or more."""
        return max(TRACE_POINTS, -(-RUN_POINTS // self.chunks))

    def to_dict(self) -> dict:
        return {"spins": self.spins, "seed": self.seed, "chunk_spins": self.chunk_spins, "batch": self.batch,
                "chunks": self.chunks}


@dataclass(frozen=True)
class SimSpec:
    """What a simulation plays: ``game`` at ``bet`` (None: full bet), ``variation`` (None: default)
    and free-games ``choice`` (None: default). Pickles (the game as its definition) to workers.
    :meth:`build` raises ``InvalidBet`` / ``UnknownVariation`` like :class:`~slotsys.floor.domain.sim.Simulator`."""

    game: GameDefinition
    bet: BetOption | None = None
    variation: str | None = None
    choice: int | None = None

    def build(self) -> Simulator:
        return Simulator(self.game, self.bet, self.variation, self.choice)

    def definition_digest(self) -> str:
        """SHA-256 of the game's full definition (pays, lines, features, every strip), canonical JSON."""
        d = self.game.to_dict(include_strips=True)
        return hashlib.sha256(json.dumps(d, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def run_chunk(sim: Simulator, plan: ChunkPlan, i: int) -> SimResult:
    """Play chunk ``i`` of ``plan``: its own stream, its spins in batches of ``plan.batch``, with
    :attr:`ChunkPlan.trace_points` running points in ``trace``. Same simulator tables, plan and index → same result."""
    res = sim.new_result(plan.seed)
    return sim.play(plan.generator(i), plan.chunk_size(i), res, batch=plan.batch, trace_points=plan.trace_points)


def merge(plan: ChunkPlan, results: Mapping[int, SimResult], *, checkpoints: int = RUN_POINTS) -> SimResult:
    """The run's result from every chunk's result (``results[i]`` for chunk i), exactly.

    Integer counts and sums add, histograms and progressive hits add, ``max_win`` is the largest;
    ``checkpoints`` (at most about ``checkpoints`` running-RTP points, the last one the total) come
    from the chunks' traces in chunk order. Raises ``ValueError`` when a chunk is missing or extra,
    has the wrong number of spins, or belongs to another game, bet, variation, choice or seed."""
    missing = [i for i in range(plan.chunks) if i not in results]
    extra = sorted(set(results) - set(range(plan.chunks)))
    if missing or extra:
        raise ValueError(f"cannot merge: chunks missing {missing[:10]}{'…' if len(missing) > 10 else ''}, "
                         f"not in the plan {extra[:10]}")
    first = results[0]
    ident = (first.game_id, first.variation, first.bet, first.choice, plan.seed)
    out = SimResult(*ident, win_bins=WIN_BINS, win_hist=np.zeros(len(WIN_BINS) - 1, dtype=np.int64))
    points: list[tuple[int, int]] = []
    for i in range(plan.chunks):
        r = results[i]
        if (r.game_id, r.variation, r.bet, r.choice, r.seed) != ident:
            raise ValueError(f"cannot merge: chunk {i} is of another run ({r.game_id} v{r.variation}, seed {r.seed})")
        if r.spins != plan.chunk_size(i):
            raise ValueError(f"cannot merge: chunk {i} has {r.spins} spins, the plan {plan.chunk_size(i)}")
        spins0, win0 = out.spins, out.total_win
        points.extend((spins0 + s, win0 + w) for s, w in r.trace)
        for k in SimResult._COUNTS:
            if k != "max_win":
                setattr(out, k, getattr(out, k) + getattr(r, k))
        out.max_win = max(out.max_win, r.max_win)
        for lvl, n in r.progressive.items():
            out.progressive[lvl] = out.progressive.get(lvl, 0) + n
        if r.win_hist is not None:
            out.win_hist += r.win_hist
    if not points or points[-1][0] != out.spins:
        points.append((out.spins, out.total_win))
    every = max(1, out.spins // checkpoints)
    credits = out.bet.credits
    nxt = every
    for s, w in points:
        if s >= nxt or s == out.spins:
            out.checkpoints.append((s, w / (s * credits)))
            nxt = s + every
    return out


def run_key(spec: SimSpec, sim: Simulator, plan: ChunkPlan) -> dict:
    """What makes two runs play the same games: the game and its definition digest, the bet,
    variation and choice the simulator resolved, the simulator's stream version, the NumPy
    version (NumPy keeps its bit streams only within a version) and the plan. A checkpoint file
    is resumed only under the same key."""
    return {"format": CHECKPOINT_FORMAT, "simulator": SIM_STREAM_VERSION, "numpy": np.__version__, "game": sim.game.id,
            "definition_sha256": spec.definition_digest(), "variation": sim.var.key, "bet": sim.bet.to_dict(),
            "choice": sim.choice if sim.fg is not None else None, "spins": plan.spins, "seed": plan.seed,
            "chunk_spins": plan.chunk_spins, "batch": plan.batch}


class CheckpointMismatch(ValueError):
    """A checkpoint belongs to another run (``differences``: the fields that differ, saved vs asked)."""

    def __init__(self, differences: dict[str, tuple]) -> None:
        self.differences = differences
        super().__init__("checkpoint is of another run: " + "; ".join(
            f"{k} {a!r} saved, {b!r} asked" for k, (a, b) in differences.items()))


def checkpoint_state(key: dict, results: Mapping[int, SimResult]) -> dict:
    """JSON-ready checkpoint: the run key and every completed chunk's exact state, by chunk index."""
    return {"run": key, "chunks": {str(i): results[i].state() for i in sorted(results)}}


def restore_checkpoint(state: dict, key: dict, plan: ChunkPlan) -> dict[int, SimResult]:
    """Completed chunks of a checkpoint made under ``key``. Raises :class:`CheckpointMismatch` when
    the checkpoint is of another run, ``ValueError`` when a saved chunk is not of the plan."""
    saved = state.get("run") if isinstance(state, dict) else None
    if not isinstance(saved, dict):
        raise CheckpointMismatch({"run": (None, "a run key")})
    diff = {k: (saved.get(k), key[k]) for k in key if saved.get(k) != key[k]}
    if diff:
        raise CheckpointMismatch(diff)
    out: dict[int, SimResult] = {}
    for k, d in state.get("chunks", {}).items():
        i = int(k)
        r = SimResult.from_state(d)
        if r.spins != plan.chunk_size(i):
            raise ValueError(f"checkpoint chunk {i} has {r.spins} spins, the plan {plan.chunk_size(i)}")
        out[i] = r
    return out
