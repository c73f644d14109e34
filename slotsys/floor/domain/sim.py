"""Vectorised, seeded Monte Carlo simulation of a game (NumPy), to prove a par sheet.

Pure domain (standard library + NumPy). The simulator never re-implements the pay rules: its
lookup tables are compiled from the evaluator (:func:`slotsys.floor.domain.evaluator.score_line` for
every line reading, :func:`~slotsys.floor.domain.evaluator.way_weights` and
:func:`~slotsys.floor.domain.evaluator.active_rows` for ways), and a test checks it game by game
against :func:`slotsys.floor.domain.evaluator.evaluate` on the same stops.

How a batch is played: every reel's stop is drawn uniformly (``numpy.random.Generator`` on
PCG64, seeded); the paid game's line or way pay comes from table look-ups; ways games split the
reels into a prefix (reels 1..k, one joint table) and a suffix (the rest), so a spin costs two
row gathers and one dot product per paying symbol. A ways game whose wild has its own pays is
scored per batch from per-reel wild and symbol counts with the evaluator's per-way rule (a test
checks it stop by stop against the evaluator). Paid games that award free games then play
them round by round, every pending feature at once, on the free-game strips with the chosen
configuration's wild and win multipliers, retriggers included.

Units: wins are integer credits; RTP = Σ win / Σ total bet. Statistics (RTP, SD, confidence
interval) are floats: they are measurements, not money.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from slotsys.floor.domain.evaluator import active_rows, score_line, way_weights
from slotsys.floor.domain.game import BetOption, GameDefinition

__all__ = ["Simulator", "SimResult", "agreement"]

_PREFIX_LIMIT = 400_000  # largest joint prefix table (stop combinations) for ways games


@dataclass
class SimResult:
    """Outcome of a simulation run: ``spins`` paid games, ``total_bet`` / ``total_win`` credits,
    ``hits`` (paid games winning or awarding free games), ``triggers``, ``free_games`` played,
    ``progressive`` hits by level (qualifying bet only), the running RTP at each checkpoint
    (``checkpoints``: (spins, rtp)), and a histogram of win / total bet (``win_hist`` counts over
    ``win_bins`` edges)."""

    game_id: str
    variation: str
    bet: BetOption
    choice: int | None
    seed: int
    spins: int = 0
    total_bet: int = 0
    total_win: int = 0
    sum_sq: float = 0.0  # Σ (win / total bet)²
    hits: int = 0
    line_hits: int = 0  # paid games with a line or way win
    triggers: int = 0
    free_games: int = 0
    max_win: int = 0
    progressive: dict[str, int] = field(default_factory=dict)
    checkpoints: list[tuple[int, float]] = field(default_factory=list)
    win_bins: np.ndarray | None = None
    win_hist: np.ndarray | None = None

    @property
    def rtp(self) -> float:
        return self.total_win / self.total_bet if self.total_bet else 0.0

    @property
    def sd(self) -> float:
        """Sample SD of win / total bet per paid game."""
        if self.spins < 2:
            return 0.0
        m = self.rtp
        return math.sqrt(max(0.0, (self.sum_sq - self.spins * m * m) / (self.spins - 1)))

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

    # ---- lines: every line reading is a code over symbol classes; PAY[code] from score_line
    def _lines(self, bet: BetOption, strips) -> None:
        game = self.game
        reg = [s.id for s in game.symbols if s.kind == "regular"]
        classes = reg + ([game.wild.id] if game.wild else []) + ["__STOP__"]
        cls = {s: i for i, s in enumerate(classes)}
        C = len(classes)
        key = ("sim_line_pay",)
        pay = game._cache.get(key)
        if pay is None:
            pay = np.zeros(C ** self.R, dtype=np.int64)
            for idx, seq in enumerate(itertools.product(classes, repeat=self.R)):
                best = score_line(game, seq)
                if best:
                    pay[idx] = best[2]
            game._cache[key] = pay
        self.pay_table = pay
        L = bet.lines or 0
        shapes = np.array(game.lines[:L], dtype=np.int64)
        self.line_tables = []
        for i, s in enumerate(strips):
            codes = np.array([cls.get(x, C - 1) for x in s], dtype=np.int64)
            n = len(s)
            tbl = np.stack([codes[(np.arange(n) + shapes[l, i]) % n] for l in range(L)], axis=1) * C ** (self.R - 1 - i)
            self.line_tables.append(tbl.astype(np.int32 if C ** self.R < 2**31 else np.int64))
        self.kind = "lines"

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

    def pay(self, stops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(line/way pay per multiplier credit, scatter count) for an (N × R) array of stops."""
        sc = self.scat[0][stops[:, 0]]
        for i in range(1, self.R):
            sc = sc + self.scat[i][stops[:, i]]
        if self.kind == "lines":
            code = self.line_tables[0][stops[:, 0]].astype(np.int64)
            for i in range(1, self.R):
                code += self.line_tables[i][stops[:, i]]
            v = self.pay_table[code].sum(axis=1)
        elif self.kind == "ways_wild_pays":
            v = self._wild_pay_ways(stops)
        else:
            k = self.k
            pi = stops[:, :k] @ self.prefix_strides
            si = stops[:, k:] @ self.suffix_strides
            v = self.prefix_short[pi] + np.einsum("ij,ij->i", self.prefix_cp[pi], self.suffix[si])
        return v, sc

    def reels_showing(self, symbol: str, stops: np.ndarray) -> np.ndarray:
        vis = self.vis[symbol]
        out = vis[0][stops[:, 0]]
        for i in range(1, self.R):
            out = out + vis[i][stops[:, i]]
        return out


class Simulator:
    """Monte Carlo of ``game`` at one bet, variation and free-games choice.

    ``run(spins, seed)`` returns a :class:`SimResult`; ``base_pays(stops)`` evaluates given paid-game
    stops (N × reels) to (win credits of the paid game, scatter count) for the cross-check against
    the evaluator. Raises ``InvalidBet`` / ``UnknownVariation`` like the evaluator.
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

    def _draw(self, gen: np.random.Generator, n: int, rnd: _Round) -> np.ndarray:
        out = np.empty((n, len(rnd.n)), dtype=np.int64)
        for i, k in enumerate(rnd.n):
            out[:, i] = gen.integers(0, k, size=n)
        return out

    def base_pays(self, stops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Paid-game win (credits) and scatter count for these stops (no free games)."""
        v, sc = self.base.pay(np.asarray(stops, dtype=np.int64))
        return v * self.bet.multiplier + self.f[sc] * self.bet.credits, sc

    def _features(self, gen: np.random.Generator, games: np.ndarray) -> tuple[np.ndarray, int]:
        """Total free-game wins (credits) for features starting with ``games`` each; and games played."""
        wins = np.zeros(len(games), dtype=np.int64)
        pending = games.copy()
        played = 0
        m, credits, wm = self.bet.multiplier, self.bet.credits, self.ch.win_multiplier
        while True:
            live = np.nonzero(pending)[0]
            if len(live) == 0:
                break
            stops = self._draw(gen, len(live), self.free)
            v, sc = self.free.pay(stops)
            wins[live] += (v * m + self.f[sc] * credits) * wm
            pending[live] += self.reawards[sc] - 1
            played += len(live)
        return wins, played

    def run(self, spins: int, seed: int, *, batch: int = 500_000,
            progress: Callable[[int], None] | None = None, checkpoints: int = 200) -> SimResult:
        gen = np.random.Generator(np.random.PCG64(seed))
        res = SimResult(self.game.id, self.var.key, self.bet, self.choice if self.fg is not None else None, seed)
        bins = np.concatenate([[0, 1e-9], np.logspace(-1, 4, 51)])
        res.win_bins = bins
        res.win_hist = np.zeros(len(bins) - 1, dtype=np.int64)
        every = max(1, spins // checkpoints)
        next_cp = every
        prog = [(pc, self.game.qualifies(pc, self.bet)) for pc in sorted(self.game.progressives, key=lambda p: -p.count)]
        done = 0
        while done < spins:
            n = min(batch, spins - done, max(1, next_cp - done) if next_cp > done else batch)
            stops = self._draw(gen, n, self.base)
            v, sc = self.base.pay(stops)
            win = v * self.bet.multiplier + self.f[sc] * self.bet.credits
            res.line_hits += int((v > 0).sum())
            hit = win > 0
            if self.fg is not None:
                awarded = self.awards[sc]
                trig = np.nonzero(awarded)[0]
                if len(trig):
                    fw, played = self._features(gen, awarded[trig])
                    win[trig] += fw
                    hit[trig] = True
                    res.triggers += len(trig)
                    res.free_games += played
            credits = self.bet.credits
            res.spins += n
            res.total_bet += n * credits
            res.total_win += int(win.sum())
            x = win / credits
            res.sum_sq += float(np.dot(x, x))
            res.hits += int(hit.sum())
            res.max_win = max(res.max_win, int(win.max()))
            res.win_hist += np.histogram(x, bins=bins)[0]
            taken: dict[str, np.ndarray] = {}  # per symbol: paid games already won by a higher level
            for pc, ok in prog:
                if pc.symbol not in taken:
                    taken[pc.symbol] = np.zeros(n, dtype=bool)
                hit = (self.base.reels_showing(pc.symbol, stops) >= pc.count) & ~taken[pc.symbol]
                if ok:
                    taken[pc.symbol] |= hit
                    res.progressive[pc.level] = res.progressive.get(pc.level, 0) + int(hit.sum())
            done += n
            if done >= next_cp or done == spins:
                res.checkpoints.append((done, res.rtp))
                next_cp = done + every
            if progress is not None:
                progress(n)
        return res
