"""Vectorised, seeded Monte Carlo simulation of a game (NumPy), to prove a par sheet.

Pure domain (standard library + NumPy). The simulator never re-implements the pay rules: its
lookup tables are compiled from the evaluator (:func:`slotsys.floor.domain.evaluator.score_line` for
every line reading, :func:`~slotsys.floor.domain.evaluator.way_weights` and
:func:`~slotsys.floor.domain.evaluator.active_rows` for ways), and a test checks it game by game
against :func:`slotsys.floor.domain.evaluator.evaluate` on the same stops.

How a batch is played: every reel's stop is drawn uniformly (``numpy.random.Generator`` on
PCG64, seeded); the paid game's line or way pay comes from table look-ups. Lines games draw one
uniform joint index per group of reels (reels 1..k, then the rest; the same distribution as one
uniform stop per reel) and look up, per prefix of reels 1..k, the pays of the lines that this
prefix already settles and the few lines it leaves open (about one per spin on a 50-line,
5-reel game), finished with the suffix's codes: a spin costs a handful of gathers whatever the
number of lines. Ways games split the reels into a prefix (reels 1..k, one joint table) and a
suffix (the rest), so a spin costs two row gathers and one dot product per paying symbol. A ways game whose wild has its own pays is
scored per batch from per-reel wild and symbol counts with the evaluator's per-way rule (a test
checks it stop by stop against the evaluator). Paid games that award free games then play
them round by round, every pending feature at once, on the free-game strips with the chosen
configuration's wild and win multipliers, retriggers included.

A run of 10⁹–10¹⁰ paid games is split into chunks with streams of their own and merged exactly
(:mod:`slotsys.floor.domain.simplan`; executors in ``slotsys.floor.simrun``; docs/simulation.md).

Units: wins are integer credits; RTP = Σ win / Σ total bet; Σ win² is kept as an exact integer
(credits²). Statistics (RTP, SD, confidence interval) are floats computed at the end: they are
measurements, not money.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from slotsys.floor.domain.evaluator import active_rows, score_line, way_weights
from slotsys.floor.domain.game import BetOption, GameDefinition

__all__ = ["Simulator", "SimResult", "agreement", "sum_of_squares", "WIN_BINS", "SIM_STREAM_VERSION"]

_PREFIX_LIMIT = 400_000  # largest joint prefix table (stop combinations) for ways games
# Which games a seed plays (the draw order of stops and free games): a checkpoint of a split run
# records it and resumes only under the same value. Raise it with any change to that order.
SIM_STREAM_VERSION = 2
_LINE_JOINT_LIMIT = 250_000  # largest joint stop table of a lines game (prefix or suffix group), ~1 MB per table


WIN_BINS = np.concatenate([[0, 1e-9], np.logspace(-1, 4, 51)])  # win / total bet: 0, then 0.1 … 10⁴ (log)


@dataclass
class SimResult:
    """Outcome of a simulation run (or of one chunk of a split run).

    ``spins`` paid games at ``bet``; ``total_bet`` / ``total_win`` credits; ``win_sq`` = Σ win²
    over paid games (credits², an exact integer, so SD and merged SD are exact up to the final
    division); ``hits`` (paid games winning or awarding free games), ``line_hits`` (paid games
    with a line or way win), ``triggers``, ``free_games`` played, ``max_win`` (credits, free
    games included), ``progressive`` hits by level (qualifying bet only); ``checkpoints`` the
    running RTP as (spins, rtp); ``win_hist`` counts of win / total bet over ``win_bins`` edges
    (numpy.histogram bins: wins above the last edge are not counted). ``trace`` (chunks of a
    split run): (spins, total_win) inside the chunk at a few batch ends, from which the merge
    rebuilds ``checkpoints``.
    """

    game_id: str
    variation: str
    bet: BetOption
    choice: int | None
    seed: int
    spins: int = 0
    total_bet: int = 0
    total_win: int = 0
    win_sq: int = 0  # Σ win² (credits²), exact
    hits: int = 0
    line_hits: int = 0  # paid games with a line or way win
    triggers: int = 0
    free_games: int = 0
    max_win: int = 0
    progressive: dict[str, int] = field(default_factory=dict)
    checkpoints: list[tuple[int, float]] = field(default_factory=list)
    win_bins: np.ndarray | None = None
    win_hist: np.ndarray | None = None
    trace: list[tuple[int, int]] = field(default_factory=list)

    @property
    def rtp(self) -> float:
        return self.total_win / self.total_bet if self.total_bet else 0.0

    @property
    def sd(self) -> float:
        """Sample SD of win / total bet per paid game: √((nΣw² − (Σw)²) / (n(n−1)·bet²)), the
        numerator an exact integer."""
        n = self.spins
        if n < 2:
            return 0.0
        c = self.bet.credits
        return math.sqrt(max(0.0, (n * self.win_sq - self.total_win ** 2) / (n * (n - 1) * c * c)))

    @property
    def hit_frequency(self) -> float:
        """Paid games with any win, scatter pays and free-games awards included."""
        return self.hits / self.spins if self.spins else 0.0

    @property
    def line_hit_frequency(self) -> float:
        """Paid games with a line (lines game) or way (ways game) win."""
        return self.line_hits / self.spins if self.spins else 0.0

    @property
    def trigger_frequency(self) -> float:
        """Paid games awarding free games."""
        return self.triggers / self.spins if self.spins else 0.0

    def standard_error(self, sd: float | None = None) -> float:
        """SD / √n with ``sd`` (the exact SD when given, else the sample SD)."""
        return (self.sd if sd is None else sd) / math.sqrt(self.spins) if self.spins else math.inf

    def to_dict(self) -> dict:
        return {"game": self.game_id, "variation": self.variation, "bet": self.bet.to_dict(), "choice": self.choice,
                "seed": self.seed, "spins": self.spins, "rtp": self.rtp, "sd": self.sd,
                "hit_frequency": self.hit_frequency, "line_hit_frequency": self.line_hit_frequency,
                "trigger_frequency": self.trigger_frequency, "triggers": self.triggers, "free_games": self.free_games,
                "max_win_credits": self.max_win, "progressive": dict(self.progressive)}

    # ---- exact state (JSON-ready: integers only) for checkpoint files and transport
    _COUNTS = ("spins", "total_bet", "total_win", "win_sq", "hits", "line_hits", "triggers", "free_games", "max_win")

    def state(self) -> dict:
        """Every count of the result as JSON-ready integers (no float): :meth:`from_state` restores it exactly."""
        d = {"game": self.game_id, "variation": self.variation, "bet": self.bet.to_dict(), "choice": self.choice,
             "seed": self.seed, **{k: int(getattr(self, k)) for k in self._COUNTS},
             "progressive": {k: int(v) for k, v in self.progressive.items()},
             "win_hist": [int(x) for x in self.win_hist] if self.win_hist is not None else None,
             "trace": [[int(a), int(b)] for a, b in self.trace]}
        return d

    @classmethod
    def from_state(cls, d: dict) -> SimResult:
        """The result :meth:`state` described. Raises ``KeyError`` / ``TypeError`` on a malformed state."""
        r = cls(d["game"], d["variation"], BetOption(**d["bet"]), d["choice"], d["seed"],
                **{k: int(d[k]) for k in cls._COUNTS})
        r.progressive = {str(k): int(v) for k, v in d["progressive"].items()}
        if d["win_hist"] is not None:
            r.win_bins = WIN_BINS
            r.win_hist = np.array(d["win_hist"], dtype=np.int64)
        r.trace = [(int(a), int(b)) for a, b in d["trace"]]
        return r


def sum_of_squares(win: np.ndarray) -> int:
    """Σ win² of an int64 array as an exact Python int: NumPy's integer dot (exact, no BLAS) where
    no partial sum can reach 2⁶³, Python integers for the wins too large for that."""
    n = len(win)
    if n == 0:
        return 0
    top = max(int(win.max()), -int(win.min()))
    if top * top * n < 2**63:
        return int(np.dot(win, win))
    limit = math.isqrt((2**63 - 1) // n)
    small = win[np.abs(win) < limit]
    return int(np.dot(small, small)) + sum(x * x for x in win[np.abs(win) >= limit].tolist())


def agreement(sim_rtp: float, exact_rtp: float, exact_sd: float, n: int, k: float = 4.0) -> tuple[bool, float]:
    """(agrees, z): |RTP_sim − RTP_exact| < k × SD / √n (reference: Monte Carlo agreement)."""
    se = exact_sd / math.sqrt(n)
    z = (sim_rtp - exact_rtp) / se if se > 0 else (0.0 if sim_rtp == exact_rtp else math.inf)
    return abs(z) < k, z


# --------------------------------------------------------------------------- compiled round tables
class _Round:
    """Table look-ups for one round kind (paid or free) at one bet: ``pay(stops)`` → (line/way pay
    per multiplier credit, scatter count), both int64 arrays of the batch length."""

    def __init__(self, game: GameDefinition, bet: BetOption, strips, wild_mults: tuple[int, ...] = ()) -> None:
        self.game = game
        self.R = game.reel_count
        self.rows = game.rows
        self.n = np.array([len(s) for s in strips], dtype=np.int64)
        sc = game.scatter.id if game.scatter else None
        self.scat = [np.array([sum(1 for r in range(self.rows) if s[(t + r) % len(s)] == sc) for t in range(len(s))],
                              dtype=np.int64) for s in strips]
        self.vis = {pc.symbol: [np.array([any(s[(t + r) % len(s)] == pc.symbol for r in range(self.rows))
                                          for t in range(len(s))], dtype=np.int64) for s in strips]
                    for pc in game.progressives}
        if game.kind == "lines":
            self._lines(bet, strips)
        elif game.wild is not None and game.wild.pays:
            self._ways_wild_pays(bet, strips)
        else:
            self._ways(bet, strips, wild_mults)

    # ---- lines: a reading is a code over symbol classes; PAY[code] from score_line; prefix joints settle most lines
    def _lines(self, bet: BetOption, strips) -> None:
        """Tables for a lines game. Reels 1..k form one joint prefix index p (every stop combination,
        at most ``_LINE_JOINT_LIMIT``); the other reels form suffix groups, each one joint index.
        For each p and played line the classes on reels 1..k either settle the line's pay whatever
        follows (``PAY`` is constant over the rest: most lines, as the run from reel 1 is broken)
        or leave the line open. ``base[p]`` sums the settled pays; the open lines of p are the CSR
        entries ``off[p]:off[p+1]`` (line number and code of the prefix), finished per spin with
        the suffix groups' codes and one ``PAY`` look-up. A spin therefore costs a handful of
        gathers instead of one look-up per line."""
        game = self.game
        R = self.R
        reg = [s.id for s in game.symbols if s.kind == "regular"]
        classes = reg + ([game.wild.id] if game.wild else []) + ["__STOP__"]
        cls = {s: i for i, s in enumerate(classes)}
        C = len(classes)
        key = ("sim_line_pay",)
        pay = game._cache.get(key)
        if pay is None:
            pay = np.zeros(C ** R, dtype=np.int64)
            for idx, seq in enumerate(itertools.product(classes, repeat=R)):
                best = score_line(game, seq)
                if best:
                    pay[idx] = best[2]
            game._cache[key] = pay
        small = C ** R < 2**31 and int(pay.max(initial=0)) < 2**31
        kt = np.int32 if small else np.int64  # codes and pays: half the cache lines when they fit
        self.pay_table = pay.astype(kt)
        L = bet.lines or 0
        self.L = L
        n = [len(s) for s in strips]
        shapes = np.array(game.lines[:L], dtype=np.int64).reshape(L, R)
        # win[i][t, l]: class code on reel i of played line l when reel i stops at t
        win = []
        for i, s in enumerate(strips):
            codes = np.array([cls.get(x, C - 1) for x in s], dtype=np.int64)
            win.append(codes[(np.arange(n[i])[:, None] + shapes[None, :, i]) % n[i]])
        k, size = 1, n[0]
        while k < R and size * n[k] <= _LINE_JOINT_LIMIT:
            size *= n[k]
            k += 1
        self.k = k
        groups = [(0, k)]
        i = k
        while i < R:
            j, size = i + 1, n[i]
            while j < R and size * n[j] <= _LINE_JOINT_LIMIT:
                size *= n[j]
                j += 1
            groups.append((i, j))
            i = j
        self.groups = groups
        self.sizes = [int(np.prod(n[a:b])) for a, b in groups]
        self.strides = [np.array([int(np.prod(n[i + 1:b])) for i in range(a, b)], dtype=np.int64) for a, b in groups]
        cnt_t = np.int16 if self.rows * R < 2**15 else np.int64

        def joint(a: int, b: int, per_reel: list[np.ndarray], dtype) -> np.ndarray:
            """Σ over reels a..b-1 of a per-stop table, for every joint stop index of those reels."""
            out = np.zeros(int(np.prod(n[a:b])), dtype=np.int64)
            m = np.arange(len(out))
            for i in range(a, b):
                t = (m // int(np.prod(n[i + 1:b]))) % n[i]
                out += per_reel[i][t]
            return out.astype(dtype)

        self.scat_j = [joint(a, b, self.scat, cnt_t) for a, b in groups]
        self.vis_j = {sym: [joint(a, b, v, cnt_t) for a, b in groups] for sym, v in self.vis.items()}
        # suffix groups: code part of each played line, per joint index (flattened: index × L + line)
        self.suffix = []
        for a, b in groups[1:]:
            m = np.arange(int(np.prod(n[a:b])))
            part = np.zeros((len(m), L), dtype=np.int64)
            for i in range(a, b):
                t = (m // int(np.prod(n[i + 1:b]))) % n[i]
                part += win[i][t] * C ** (R - 1 - i)
            self.suffix.append(part.astype(kt).ravel())
        # prefix: settled pays and open lines
        tail = C ** (R - k)
        view = pay.reshape(C ** k, tail)
        settled = view.min(axis=1) == view.max(axis=1)
        settled_pay = np.where(settled, view[:, 0], 0)
        P = self.sizes[0]
        base = np.zeros(P, dtype=np.int64)
        cnt = np.zeros(P, dtype=np.int64)
        e_key, e_line = [], []
        block = max(1, (1 << 20) // max(1, L))  # prefixes per step: ~8 MB of codes
        for lo in range(0, P, block):
            p = np.arange(lo, min(P, lo + block))
            q = np.zeros((len(p), L), dtype=np.int64)
            for i in range(k):
                t = (p // int(np.prod(n[i + 1:k]))) % n[i]
                q += win[i][t] * C ** (k - 1 - i)
            ok = settled[q]
            base[p] = np.where(ok, settled_pay[q], 0).sum(axis=1)
            cnt[p] = L - ok.sum(axis=1)
            rr, ll = np.nonzero(~ok)  # row-major: grouped by prefix, in prefix order
            e_key.append(q[rr, ll] * tail)
            e_line.append(ll)
        self.base_pay = base.astype(kt) if small and int(base.max(initial=0)) < 2**31 else base
        self.cnt = cnt.astype(np.int16 if L < 2**15 else np.int64)
        self.off = np.concatenate([[0], np.cumsum(cnt)[:-1]]).astype(np.int64)
        self.e_key = np.concatenate(e_key).astype(kt) if e_key else np.zeros(0, dtype=kt)
        self.e_line = np.concatenate(e_line).astype(np.int64) if e_line else np.zeros(0, dtype=np.int64)
        self.kind = "lines"

    def _line_pay(self, idx: tuple[np.ndarray, ...]) -> np.ndarray:
        """Line pay per multiplier credit (int64, batch length) for joint indices (prefix, suffix groups...)."""
        p = idx[0]
        v = self.base_pay[p].astype(np.int64)
        c = self.cnt[p]
        spins = np.flatnonzero(c)
        if len(spins):
            cc = c[spins].astype(np.intp)
            ends = np.cumsum(cc)
            rep = np.repeat(spins, cc)
            pos = np.repeat(self.off[p[spins]] - (ends - cc), cc) + np.arange(int(ends[-1]))
            key = self.e_key[pos]
            line = self.e_line[pos]
            for g, tbl in enumerate(self.suffix, start=1):
                key = key + tbl[idx[g][rep].astype(np.int64) * self.L + line]
            won = np.cumsum(self.pay_table[key], dtype=np.int64)[ends - 1]
            v[spins] += np.diff(won, prepend=0)
        return v

    # ---- ways: prefix joint table × suffix table
    def _ways(self, bet: BetOption, strips, wild_mults) -> None:
        game = self.game
        act = active_rows(game, bet)
        paying = [s for s in game.symbols if s.kind == "regular" and s.pays]
        S = len(paying)
        R = self.R
        m = []  # m[i]: (n_i × S) weighted matching positions
        for i, strip in enumerate(strips):
            n = len(strip)
            col = []
            for s in paying:
                wts = way_weights(game, s.id, wild_mults)
                col.append([sum(wts[strip[(t + r) % n]][i] for r in act[i] if strip[(t + r) % n] in wts)
                            for t in range(n)])
            m.append(np.array(col, dtype=np.int64).T.reshape(n, S))
        PT = np.array([[s.pay(k) for k in range(R + 1)] for s in paying], dtype=np.int64)  # S × (R+1)
        k = R
        size = 1
        for i in range(R):
            size *= len(strips[i])
            if size > _PREFIX_LIMIT:
                k = i
                break
        k = max(1, min(k, R - 1))
        self.k = k
        # prefix over reels 0..k-1
        grids = np.meshgrid(*[np.arange(len(strips[i])) for i in range(k)], indexing="ij")
        idx = [g.ravel() for g in grids]
        cp = np.ones((len(idx[0]), S), dtype=np.int64)
        p_short = np.zeros(len(idx[0]), dtype=np.int64)
        for i in range(k):
            mi = m[i][idx[i]]
            # n-of-a-kind ending at n = i (reels 0..i-1 match, reel i breaks)
            if i >= 1:
                p_short += (cp * (mi == 0) * PT[:, i][None, :]).sum(axis=1)
            cp = cp * mi
        self.prefix_short = p_short
        self.prefix_cp = cp
        self.prefix_strides = np.array([int(np.prod([len(strips[j]) for j in range(i + 1, k)])) for i in range(k)],
                                       dtype=np.int64)
        # suffix over reels k..R-1: G[s] = Σ_{n=k}^{R} PT[s,n] Π_{k≤i<n} m_i · [n==R or m_n == 0]
        grids = np.meshgrid(*[np.arange(len(strips[i])) for i in range(k, R)], indexing="ij")
        sidx = [g.ravel() for g in grids]
        G = np.zeros((len(sidx[0]), S), dtype=np.int64)
        run = np.ones((len(sidx[0]), S), dtype=np.int64)
        for j, i in enumerate(range(k, R)):
            mi = m[i][sidx[j]]
            G += run * (mi == 0) * PT[:, i][None, :]
            run = run * mi
        G += run * PT[:, R][None, :]
        self.suffix = G
        self.suffix_strides = np.array([int(np.prod([len(strips[j]) for j in range(i + 1, R)])) for i in range(k, R)],
                                       dtype=np.int64)
        # the pay for n < 1 never exists; n == k handled by the suffix's first term
        self.kind = "ways"

    # ---- ways with a paying wild: per-reel counts, the evaluator's rule computed per batch
    def _ways_wild_pays(self, bet: BetOption, strips) -> None:
        """Per reel and stop: wild count ``wc`` and each paying symbol's own count on the active
        rows. A way-win per symbol sums, over its leading wilds j, the ways with exactly j
        leading wilds × max(pay(n), wild pay(j)) (evaluator rule); the wild pays its own ways."""
        game = self.game
        act = active_rows(game, bet)
        wild = game.wild.id
        paying = [s for s in game.symbols if s.kind == "regular" and s.pays]
        subs = game.substitutable()
        R = self.R

        def count(i: int, sym: str) -> np.ndarray:
            st = strips[i]
            n = len(st)
            return np.array([sum(1 for r in act[i] if st[(t + r) % n] == sym) for t in range(n)], dtype=np.int64)

        self.wc = [count(i, wild) for i in range(R)]
        self.sc = [[count(i, s.id) for i in range(R)] for s in paying]
        self.sub = [s.id in subs for s in paying]
        self.PT = np.array([[s.pay(k) for k in range(R + 1)] for s in paying], dtype=np.int64).reshape(len(paying), R + 1)
        self.PTw = np.array([game.wild.pay(k) for k in range(R + 1)], dtype=np.int64)
        self.kind = "ways_wild_pays"

    def _wild_pay_ways(self, stops: np.ndarray) -> np.ndarray:
        N, R = len(stops), self.R
        WC = np.stack([self.wc[i][stops[:, i]] for i in range(R)], axis=1)
        WCP = np.ones((N, R + 1), dtype=np.int64)  # WCP[:, j] = product of wild counts on reels 1..j
        WCP[:, 1:] = np.cumprod(WC, axis=1)
        w = np.cumprod(WC > 0, axis=1).sum(axis=1)
        rows = np.arange(N)
        v = self.PTw[w] * WCP[rows, w]
        for k, sc in enumerate(self.sc):
            SC = np.stack([sc[i][stops[:, i]] for i in range(R)], axis=1)
            MT = SC + WC if self.sub[k] else SC
            n = np.cumprod(MT > 0, axis=1).sum(axis=1)
            CP = np.ones((N, R + 1), dtype=np.int64)  # CP[:, i] = product of matches on reels 1..i
            CP[:, 1:] = np.cumprod(MT, axis=1)
            top = CP[rows, n]
            pn = self.PT[k][n]
            for j in range(R if self.sub[k] else 1):
                ok = j < n
                rest = np.where(ok, top // np.where(CP[:, j + 1] == 0, 1, CP[:, j + 1]), 0)
                cnt = WCP[:, j] * SC[:, j] * rest
                v = v + cnt * np.maximum(pn, self.PTw[j])
        return v

    # ---- a batch of rounds. Lines games draw one uniform joint index per reel group (the same
    # distribution as one uniform stop per reel: the joint index is the stops' mixed-radix number);
    # ways games draw one stop per reel.
    def draw(self, gen: np.random.Generator, n: int):
        """``n`` rounds of uniform stops, in the form :meth:`pay` takes (see :meth:`index`)."""
        if self.kind == "lines":
            return tuple(gen.integers(0, m, size=n, dtype=np.int32 if m < 2**31 else np.int64) for m in self.sizes)
        out = np.empty((n, self.R), dtype=np.int64)
        for i, k in enumerate(self.n):
            out[:, i] = gen.integers(0, k, size=n)
        return out

    def index(self, stops: np.ndarray):
        """The drawn form of an (N × R) array of stops: the stops themselves (ways games) or the
        joint index of each reel group (lines games: Σ stop_i × Π len(strip_j), j after i in the group)."""
        stops = np.asarray(stops, dtype=np.int64).reshape(-1, self.R)
        if self.kind != "lines":
            return stops
        return tuple(stops[:, a:b] @ st for (a, b), st in zip(self.groups, self.strides))

    def pay(self, drawn) -> tuple[np.ndarray, np.ndarray]:
        """(line/way pay per multiplier credit, scatter count), int64 arrays of the batch length,
        for a batch from :meth:`draw` or :meth:`index`."""
        if self.kind == "lines":
            sc = self.scat_j[0][drawn[0]].astype(np.int64)
            for g in range(1, len(drawn)):
                sc += self.scat_j[g][drawn[g]]
            return self._line_pay(drawn), sc
        stops = drawn
        sc = self.scat[0][stops[:, 0]]
        for i in range(1, self.R):
            sc = sc + self.scat[i][stops[:, i]]
        if self.kind == "ways_wild_pays":
            v = self._wild_pay_ways(stops)
        else:
            k = self.k
            pi = stops[:, :k] @ self.prefix_strides
            si = stops[:, k:] @ self.suffix_strides
            v = self.prefix_short[pi] + np.einsum("ij,ij->i", self.prefix_cp[pi], self.suffix[si])
        return v, sc

    def reels_showing(self, symbol: str, drawn) -> np.ndarray:
        """Per round: reels showing ``symbol`` anywhere in the window (int array)."""
        if self.kind == "lines":
            vis = self.vis_j[symbol]
            out = vis[0][drawn[0]].astype(np.int64)
            for g in range(1, len(drawn)):
                out += vis[g][drawn[g]]
            return out
        vis = self.vis[symbol]
        out = vis[0][drawn[:, 0]]
        for i in range(1, self.R):
            out = out + vis[i][drawn[:, i]]
        return out


class Simulator:
    """Monte Carlo of ``game`` at one bet, variation and free-games choice.

    ``run(spins, seed)`` plays one seeded stream and returns a :class:`SimResult`; ``play(gen,
    spins, res)`` adds games from a given generator to a result (the chunks of a split run,
    :mod:`slotsys.floor.domain.simplan`); ``base_pays(stops)`` evaluates given paid-game stops
    (N × reels) to (win credits of the paid game, scatter count) for the cross-check against the
    evaluator. The tables are read-only once built, so one simulator may play several streams at
    once (threads) and pickles to worker processes. Raises ``InvalidBet`` / ``UnknownVariation``
    like the evaluator.
    """

    def __init__(self, game: GameDefinition, bet: BetOption | None = None, variation: str | None = None,
                 choice: int | None = None) -> None:
        self.game = game
        self.bet = game.check_bet(bet) if bet is not None else game.full_bet()
        self.var = game.variation(variation)
        self.choice = game.resolve_choice(choice)
        self.base = _Round(game, self.bet, self.var.reels)
        sc = game.scatter
        maxc = game.rows * game.reel_count
        self.f = np.array([sc.pay(c) if sc else 0 for c in range(maxc + 1)], dtype=np.int64)
        fg = game.free_games
        self.fg = fg
        if fg is not None:
            ch = fg.choices[self.choice]  # type: ignore[index]
            self.ch = ch
            self.free = _Round(game, self.bet, self.var.free_strips, ch.wild_multipliers)
            self.awards = np.array([ch.games_for(c) if c >= fg.count else 0 for c in range(maxc + 1)], dtype=np.int64)
            self.reawards = self.awards if fg.retrigger else np.zeros_like(self.awards)
        # progressive levels, highest count first (a paid game wins the highest level of a symbol)
        self._prog = [(pc, game.qualifies(pc, self.bet)) for pc in sorted(game.progressives, key=lambda p: -p.count)]

    def base_pays(self, stops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Paid-game win (credits) and scatter count for these stops (no free games)."""
        v, sc = self.base.pay(self.base.index(stops))
        return v * self.bet.multiplier + self.f[sc] * self.bet.credits, sc

    def _features(self, gen: np.random.Generator, games: np.ndarray) -> tuple[np.ndarray, int]:
        """Total free-game wins (credits) for features starting with ``games`` each; and games played.

        Played in waves: every pending free game of every feature at once, then the games those
        retriggered. Free games are independent draws, so the order they are played in changes
        no total; a wave per retrigger depth costs far fewer calls than a round per game."""
        wins = np.zeros(len(games), dtype=np.int64)
        pending = games.astype(np.int64)
        played = 0
        m, credits, wm = self.bet.multiplier, self.bet.credits, self.ch.win_multiplier
        while True:
            live = np.flatnonzero(pending)
            if len(live) == 0:
                break
            cnt = pending[live]
            ends = np.cumsum(cnt)
            v, sc = self.free.pay(self.free.draw(gen, int(ends[-1])))
            w = (v * m + self.f[sc] * credits) * wm
            wins[live] += np.diff(np.cumsum(w)[ends - 1], prepend=0)
            pending[:] = 0
            pending[live] = np.diff(np.cumsum(self.reawards[sc])[ends - 1], prepend=0)
            played += int(ends[-1])
        return wins, played

    def new_result(self, seed: int) -> SimResult:
        """An empty result of this game, bet, variation and choice (histogram over :data:`WIN_BINS`)."""
        return SimResult(self.game.id, self.var.key, self.bet, self.choice if self.fg is not None else None, seed,
                         win_bins=WIN_BINS, win_hist=np.zeros(len(WIN_BINS) - 1, dtype=np.int64))

    def play(self, gen: np.random.Generator, spins: int, res: SimResult, *, batch: int = 131_072,
             trace_points: int = 0) -> SimResult:
        """Play ``spins`` paid games from ``gen`` in batches of ``batch`` and add them to ``res``.

        The same generator state, ``spins`` and ``batch`` play the same games. With
        ``trace_points`` > 0, appends (spins, total_win) of ``res`` to ``res.trace`` after every
        ⌈spins / trace_points⌉-th paid game of this call and after its last. Returns ``res``."""
        step = -(-spins // trace_points) if trace_points else 0
        nxt = step if step else spins + 1
        done = 0
        while done < spins:
            n = min(batch, spins - done)
            spins0, win0 = res.spins, res.total_win
            win = self._play_batch(gen, n, res)
            if nxt <= done + n:
                cs = np.cumsum(win)
                while nxt <= done + n:
                    res.trace.append((spins0 + nxt - done, win0 + int(cs[nxt - done - 1])))
                    nxt = min(nxt + step, spins) if nxt < spins else spins + 1
            done += n
        return res

    def _play_batch(self, gen: np.random.Generator, n: int, res: SimResult) -> np.ndarray:
        """Play ``n`` paid games (free games included), add their counts to ``res`` and return
        their wins (credits, int64, in play order)."""
        drawn = self.base.draw(gen, n)
        v, sc = self.base.pay(drawn)
        credits = self.bet.credits
        win = v * self.bet.multiplier + self.f[sc] * credits
        res.line_hits += int(np.count_nonzero(v))
        hit = win > 0
        if self.fg is not None:
            awarded = self.awards[sc]
            trig = np.flatnonzero(awarded)
            if len(trig):
                fw, played = self._features(gen, awarded[trig])
                win[trig] += fw
                hit[trig] = True
                res.triggers += len(trig)
                res.free_games += played
        res.spins += n
        res.total_bet += n * credits
        res.total_win += int(win.sum())
        res.win_sq += sum_of_squares(win)
        res.hits += int(np.count_nonzero(hit))
        res.max_win = max(res.max_win, int(win.max()))
        won = win[win > 0]
        hist = np.histogram(won / credits, bins=WIN_BINS)[0]
        hist[0] += n - len(won)  # a zero win is the first bin, [0, 1e-9); every win ≥ 1 credit is above it
        res.win_hist += hist
        taken: dict[str, np.ndarray] = {}  # per symbol: paid games already won by a higher level
        for pc, ok in self._prog:
            if pc.symbol not in taken:
                taken[pc.symbol] = np.zeros(n, dtype=bool)
            got = (self.base.reels_showing(pc.symbol, drawn) >= pc.count) & ~taken[pc.symbol]
            if ok:
                taken[pc.symbol] |= got
                res.progressive[pc.level] = res.progressive.get(pc.level, 0) + int(np.count_nonzero(got))
        return win

    def run(self, spins: int, seed: int, *, batch: int = 500_000,
            progress: Callable[[int], None] | None = None, checkpoints: int = 200) -> SimResult:
        """``spins`` paid games from one PCG64 stream seeded with ``seed`` (same arguments, same
        result), in batches of at most ``batch``; ``checkpoints`` running-RTP points; ``progress(n)``
        after each batch of n games. A split run (reproducible however it is spread over
        processes) is :func:`slotsys.floor.domain.simplan.run_chunk` + :func:`~slotsys.floor.domain.simplan.merge`."""
        gen = np.random.Generator(np.random.PCG64(seed))
        res = self.new_result(seed)
        every = max(1, spins // checkpoints)
        next_cp = every
        done = 0
        while done < spins:
            n = min(batch, spins - done, max(1, next_cp - done) if next_cp > done else batch)
            self._play_batch(gen, n, res)
            done += n
            if done >= next_cp or done == spins:
                res.checkpoints.append((done, res.rtp))
                next_cp = done + every
            if progress is not None:
                progress(n)
        return res
