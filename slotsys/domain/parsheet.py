"""Par sheet: exact return, hit frequency and spread of a game, per bet option.

Pure domain (standard library + NumPy). Every probability is exact: per-reel symbol counts
and per-reel window enumerations (each stop of each strip) are combined across reels as
products and polynomial convolutions in integers, never by sampling and never by brute force
over every stop combination. Results are :class:`fractions.Fraction`; only the standard
deviation (a statistic, not money) is reported as a float, derived from the exact variance.

Figures (reference/slot_floor.md "Par sheet figures")
    * ``rtp`` = E[win] / total bet, with its parts (``"line"`` or ``"way"``, and ``"scatter"``);
    * ``hit_frequency`` = P(win > 0) per paid game;
    * ``sd`` = standard deviation of (win / total bet) per game; ``volatility_index`` = z × sd
      with z = 1.645 (90% confidence).

Because every reel position has the same symbol distribution, every payline has the same
expected pay, so a lines game's RTP does not depend on the number of lines; in a reel-cost
game each way has the expected pay of one line, so RTP follows ways / cost and differs by the
reels bought. Multipliers scale wins and bet alike: figures do not depend on them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Mapping

import numpy as np

from slotsys.domain.evaluator import active_rows, score_line
from slotsys.domain.game import BetOption, GameDefinition, Variation

__all__ = ["OptionFigures", "ParSheet", "par_sheet", "Z_90"]

Z_90 = 1.645  # volatility index confidence: 90%
REACHABLE_ONE_IN = 100_000_000  # GLI-11: every advertised award reachable at least once in 100 million games


@dataclass(frozen=True)
class OptionFigures:
    """Figures for one bet option (exact ``rtp`` / ``hit_frequency``; ``sd`` in units of total bet)."""

    bet: BetOption
    rtp: Fraction
    hit_frequency: Fraction
    rtp_parts: Mapping[str, Fraction]
    sd: float
    ways: int | None = None

    @property
    def volatility_index(self) -> float:
        """z × SD with z = 1.645 (90%)."""
        return Z_90 * self.sd

    def to_dict(self) -> dict[str, Any]:
        return {
            "bet": self.bet.to_dict(),
            "ways": self.ways,
            "rtp": float(self.rtp),
            "rtp_exact": f"{self.rtp.numerator}/{self.rtp.denominator}",
            "rtp_parts": {k: float(v) for k, v in self.rtp_parts.items()},
            "hit_frequency": float(self.hit_frequency),
            "hit_frequency_exact": f"{self.hit_frequency.numerator}/{self.hit_frequency.denominator}",
            "sd": self.sd,
            "volatility_index": self.volatility_index,
            "volatility_z": Z_90,
        }


@dataclass(frozen=True)
class ParSheet:
    """A game's par sheet for one variation.

    ``options``: one :class:`OptionFigures` per bet option, in :meth:`GameDefinition.bet_options`
    order. ``award_probabilities``: ``"SYMBOL xN"`` → exact probability per game of that award at
    full bet (line awards: on one given line, which is the same for every line).
    """

    game_id: str
    variation: str
    options: list[OptionFigures]
    award_probabilities: Mapping[str, Fraction] = field(default_factory=dict)

    @property
    def full_bet(self) -> OptionFigures:
        """All lines (or all reels bought) at the highest multiplier."""
        return self.options[-1]

    @property
    def rtp_full_bet(self) -> Fraction:
        return self.full_bet.rtp

    def option(self, *, lines: int | None = None, reels: int | None = None, multiplier: int | None = None) -> OptionFigures:
        """Figures of the option with these lines/reels (and multiplier; any multiplier when None)."""
        for o in self.options:
            if o.bet.lines == lines and o.bet.reels == reels and (multiplier is None or o.bet.multiplier == multiplier):
                return o
        raise KeyError(f"no bet option lines={lines} reels={reels} multiplier={multiplier}")

    def unreachable_awards(self, one_in: int = REACHABLE_ONE_IN) -> list[str]:
        """Awards whose probability per game is below 1 / ``one_in`` (GLI-11 §4.8.2: 100 million)."""
        limit = Fraction(1, one_in)
        return [k for k, p in self.award_probabilities.items() if p < limit]

    def to_dict(self) -> dict[str, Any]:
        return {
            "game": self.game_id,
            "variation": self.variation,
            "rtp_full_bet": float(self.rtp_full_bet),
            "options": [o.to_dict() for o in self.options],
            "award_probabilities": {k: float(v) for k, v in self.award_probabilities.items()},
        }


def par_sheet(game: GameDefinition, variation: str | None = None) -> ParSheet:
    """Exact par sheet of ``game`` for ``variation`` (default variation when None). Cached per game.

    Raises ``UnknownVariation`` for an unknown variation.
    """
    var = game.variation(variation)
    key = ("par_sheet", var.key)
    sheet = game._cache.get(key)
    if sheet is None:
        sheet = game._cache[key] = _compute(game, var)
    return sheet


# =========================================================================== internals
class _Reels:
    """Integer views of one variation: symbol codes (definition order), windows and scatter counts."""

    def __init__(self, game: GameDefinition, var: Variation) -> None:
        self.game = game
        self.ids = [s.id for s in game.symbols]
        code = {s: i for i, s in enumerate(self.ids)}
        self.C = len(self.ids)
        self.R = game.reel_count
        self.rows = game.rows
        self.wild = code[game.wild.id] if game.wild else -1
        self.scatter = code[game.scatter.id] if game.scatter else -1
        self.is_regular = np.array([s.kind == "regular" for s in game.symbols])
        # PT[c, k]: line/way pay of k of symbol c (0 for scatters)
        self.PT = np.array(
            [[s.pay(k) if s.kind != "scatter" else 0 for k in range(self.R + 1)] for s in game.symbols], dtype=np.int64
        )
        self.strips = [np.array([code[s] for s in strip], dtype=np.int64) for strip in var.reels]
        self.n = [len(s) for s in self.strips]
        self.total = math.prod(self.n)
        # windows[i][t, r] = symbol code on row r when reel i stops at t
        self.windows = [
            np.stack([np.roll(s, -r) for r in range(self.rows)], axis=1) for s in self.strips
        ]
        self.scat = [
            (w == self.scatter).sum(axis=1).astype(np.int64) if self.scatter >= 0 else np.zeros(len(w), np.int64)
            for w in self.windows
        ]
        # scatter pay table f[c] (× total bet), c = 0..rows*R
        maxc = self.rows * self.R
        sc = game.scatter
        self.f = np.array([sc.pay(c) if sc else 0 for c in range(maxc + 1)], dtype=np.int64)
        self.need = (sc.min_count if sc and sc.pays else None) or (maxc + 1)
        # rest_hist[k][c] = number of stop combinations of reels k.. with c scatters
        self.rest_hist = [np.zeros(maxc + 1, dtype=np.int64) for _ in range(self.R + 1)]
        self.rest_hist[self.R][0] = 1
        for k in range(self.R - 1, -1, -1):
            h = np.convolve(self.rest_hist[k + 1], np.bincount(self.scat[k], minlength=self.rows + 1))
            self.rest_hist[k] = h[: maxc + 1]
        self.rest_total = [int(h.sum()) for h in self.rest_hist]
        # rest_ok[k][s] = combos of reels k.. that bring the scatter count from s to >= need
        self.rest_ok = np.zeros((self.R + 1, maxc + 1), dtype=np.int64)
        for k in range(self.R + 1):
            tail = np.concatenate([np.cumsum(self.rest_hist[k][::-1])[::-1], [0]])
            for s in range(maxc + 1):
                self.rest_ok[k, s] = tail[max(0, min(maxc + 1, self.need - s))]

    def unique_windows(self, i: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Distinct windows of reel i: (windows, multiplicity, scatter count)."""
        u, inv, cnt = np.unique(self.windows[i], axis=0, return_inverse=True, return_counts=True)
        scat = np.zeros(len(u), dtype=np.int64)
        scat[inv.reshape(-1)] = self.scat[i]
        return u, cnt.astype(np.int64), scat

    def scatter_dist(self) -> list[int]:
        return [int(x) for x in self.rest_hist[0]]


def _compute(game: GameDefinition, var: Variation) -> ParSheet:
    rs = _Reels(game, var)
    hist = rs.scatter_dist()
    f = [int(x) for x in rs.f]
    scatter_num = sum(h * p for h, p in zip(hist, f))
    scatter_sq_num = sum(h * p * p for h, p in zip(hist, f))
    rtp_scatter = Fraction(scatter_num, rs.total)
    awards: dict[str, Fraction] = {}
    if game.scatter is not None:
        listed = [c for c, _ in game.scatter.pays]
        for j, c in enumerate(listed):
            hi = listed[j + 1] if j + 1 < len(listed) else len(hist)
            awards[f"{game.scatter.id} x{c}"] = Fraction(sum(hist[c:hi]), rs.total)

    options: list[OptionFigures] = []
    if game.kind == "lines":
        per_line, line_awards, stats = _lines_moments(rs)
        awards = {**line_awards, **awards}
        hits = _lines_hits(rs, list(game.line_options))
        by_n = {}
        for n in game.line_options:
            rtp_line = Fraction(per_line, rs.total)
            rtp = rtp_line + rtp_scatter
            second = stats(n) + Fraction(scatter_sq_num, rs.total)
            by_n[n] = (rtp, {"line": rtp_line, "scatter": rtp_scatter}, Fraction(hits[n], rs.total), _sd(second, rtp))
        for bet in game.bet_options():
            rtp, parts, hf, sd = by_n[bet.lines]
            options.append(OptionFigures(bet=bet, rtp=rtp, hit_frequency=hf, rtp_parts=parts, sd=sd))
    else:
        by_b = {}
        for b, cost in game.reel_costs:
            probe = BetOption(lines=None, reels=b, multiplier=game.multipliers[0], credits=cost * game.multipliers[0])
            act = active_rows(game, probe)
            way_num, way_sq_num, way_scatter_num, way_awards = _ways_moments(rs, act)
            rtp_way = Fraction(way_num, rs.total * cost)
            rtp = rtp_way + rtp_scatter
            second = Fraction(way_sq_num, rs.total * cost * cost) + Fraction(2 * way_scatter_num, rs.total * cost) \
                + Fraction(scatter_sq_num, rs.total)
            hf = Fraction(_ways_hits(rs, act), rs.total)
            by_b[b] = (rtp, {"way": rtp_way, "scatter": rtp_scatter}, hf, _sd(second, rtp))
            if b == game.reel_count:
                awards = {**way_awards, **awards}
        for bet in game.bet_options():
            rtp, parts, hf, sd = by_b[bet.reels]
            options.append(OptionFigures(bet=bet, rtp=rtp, hit_frequency=hf, rtp_parts=parts, sd=sd,
                                         ways=game.ways(bet)))
    return ParSheet(game_id=game.id, variation=var.key, options=options, award_probabilities=awards)


def _sd(second: Fraction, mean: Fraction) -> float:
    var = second - mean * mean
    return math.sqrt(float(var)) if var > 0 else 0.0


def _polymul_rows(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row-wise polynomial product of (K × da) and (K × db) coefficient arrays."""
    out = np.zeros((a.shape[0], a.shape[1] + b.shape[1] - 1), dtype=a.dtype)
    for j in range(b.shape[1]):
        out[:, j : j + a.shape[1]] += a * b[:, j : j + 1]
    return out


# --------------------------------------------------------------------------- lines
def _line_events(rs: _Reels) -> list[tuple[list[np.ndarray], int, str | None]]:
    """Partition of one line's outcomes into product events (a symbol set per reel).

    Event (w, s, k): w leading wilds, then regular s, then wilds or s up to reel k, then a
    breaker; or (w, none): w leading wilds then a scatter; or all wilds. The pay of each event
    comes from the evaluator's :func:`score_line` on a representative sequence.
    """
    R, C, W = rs.R, rs.C, rs.wild
    ALL = np.ones(C, dtype=bool)

    def mask(*codes: int) -> np.ndarray:
        m = np.zeros(C, dtype=bool)
        for c in codes:
            if c >= 0:
                m[c] = True
        return m

    regular = [c for c in range(C) if rs.is_regular[c]]
    nonsub = [c for c in range(C) if not rs.is_regular[c] and c != W]
    events: list[list[np.ndarray]] = []
    for w in range(0, (R if W >= 0 else 0) + 1):
        pre = [mask(W)] * w
        if w == R:
            events.append(pre)
            continue
        if nonsub:
            events.append(pre + [mask(*nonsub)] + [ALL] * (R - w - 1))
        for s in regular:
            for k in range(w + 1, R + 1):
                sets = pre + [mask(s)] + [mask(s, W)] * (k - w - 1)
                if k < R:
                    sets += [ALL & ~mask(s, W)] + [ALL] * (R - k - 1)
                events.append(sets)
    out = []
    for sets in events:
        if any(not m.any() for m in sets):
            continue
        rep = [rs.ids[int(np.argmax(m))] for m in sets]
        best = score_line(rs.game, rep)
        out.append((sets, best[2] if best else 0, f"{best[0]} x{best[1]}" if best else None))
    return out


def _lines_moments(rs: _Reels):
    """Exact E[pay of one line] (numerator over rs.total), award probabilities, and a function
    N -> exact E[(win/total bet)^2] minus the scatter-only term, for lines 1..N played."""
    game = rs.game
    R, rows = rs.R, rs.rows
    counts = [np.bincount(s, minlength=rs.C).astype(np.int64) for s in rs.strips]
    events = _line_events(rs)
    total_prob = 0
    per_line = 0
    awards: dict[str, Fraction] = {}
    for sets, pay, key in events:
        num = math.prod(int((counts[i] * sets[i]).sum()) for i in range(R))
        total_prob += num
        per_line += pay * num
        if key is not None:
            awards[key] = awards.get(key, Fraction(0)) + Fraction(num, rs.total)
    assert total_prob == rs.total, "line events must partition the outcomes"

    paying = [(sets, pay) for sets, pay, _ in events if pay > 0]
    E = len(paying)
    v = np.array([p for _, p in paying], dtype=np.int64)
    ind = [np.array([sets[i] for sets, _ in paying], dtype=np.int64).reshape(E, rs.C) for i in range(R)]  # (E × C)
    LR = np.array(game.lines, dtype=np.int64)  # (L × R)
    L = len(LR)
    exact_ok = rs.total * int(v.max(initial=0)) ** 2 * max(1, E) < 2**62
    dtype = np.int64 if exact_ok else np.float64

    # M[i][a, b] = E×E joint counts: stops of reel i with row a in event e's set and row b in e''s set
    M = []
    for i in range(R):
        w = rs.windows[i]
        Mi = np.zeros((rows, rows, E, E), dtype=dtype)
        for a in range(rows):
            for b in range(rows):
                J = np.zeros((rs.C, rs.C), dtype=np.int64)
                np.add.at(J, (w[:, a], w[:, b]), 1)
                Mi[a, b] = (ind[i] @ J @ ind[i].T).astype(dtype)
        M.append(Mi)
    T = np.zeros((L, L), dtype=object)
    vv = np.outer(v, v).astype(dtype)
    for l in range(L):
        P = M[0][LR[l, 0], LR[l:, 0]]
        for i in range(1, R):
            P = P * M[i][LR[l, i], LR[l:, i]]
        row = (P * vv).sum(axis=(1, 2))
        for j, x in enumerate(row):
            T[l, l + j] = T[l + j, l] = int(x) if exact_ok else float(x)

    # cross[l] = sum over outcomes of (line l pay) × (scatter pay multiple)
    cross = []
    for l in range(L):
        poly = None
        for i in range(R):
            H = np.zeros((rs.C, rows + 1), dtype=np.int64)
            np.add.at(H, (rs.windows[i][:, LR[l, i]], rs.scat[i]), 1)
            G = ind[i] @ H
            poly = G if poly is None else _polymul_rows(poly, G)
        cross.append(sum(int(x) for x in (v[:, None] * poly * rs.f[None, : poly.shape[1]]).sum(axis=0)) if E else 0)

    def second_without_scatter_sq(n: int) -> Fraction:
        tt = sum(T[a, b] for a in range(n) for b in range(n))
        cc = sum(cross[:n])
        if not exact_ok:
            return Fraction(tt / (n * n * rs.total) + 2 * cc / (n * rs.total))
        return Fraction(tt, n * n * rs.total) + Fraction(2 * cc, n * rs.total)

    return per_line, awards, second_without_scatter_sq


def _lines_hits(rs: _Reels, line_counts: list[int]) -> dict[int, int]:
    """Exact number of stop combinations with a win, for each played line count N.

    Reel-by-reel enumeration of distinct windows. A branch keeps, per line, the state of its
    left-to-right reading (leading wilds, candidate symbol, length) only while the line can
    still change the answer: it has not paid yet, can still pay, and lies below the lowest
    line that already pays. A branch stops as soon as no such line is left or the scatter
    count has reached its lowest pay; the remaining reels then only matter through scatters.
    """
    game = rs.game
    R = rs.R
    LR = np.array(game.lines, dtype=np.int64)
    L = len(LR)
    W = rs.wild
    PT = rs.PT
    PTw = PT[W] if W >= 0 else np.zeros(R + 1, dtype=np.int64)
    can_pay = PT[:, R] > 0

    # per branch
    w = np.ones(1, dtype=np.int64)
    sc = np.zeros(1, dtype=np.int64)
    msec = np.full(1, L, dtype=np.int64)  # lowest line index already paying (L: none)
    # per (branch, live line) pair
    st = np.zeros(L, dtype=np.int64)
    ln = np.arange(L, dtype=np.int64)
    wa = np.ones(L, dtype=bool)  # still all wilds
    wl = np.zeros(L, dtype=np.int64)  # leading wilds
    cand = np.full(L, -1, dtype=np.int64)  # substituted symbol (-1: none yet)
    sa = np.ones(L, dtype=bool)  # substituted combination still growing
    sl = np.zeros(L, dtype=np.int64)  # its length
    term_w, term_m, term_sc, term_k = [], [], [], []
    for k in range(R):
        u, cnt, scat = rs.unique_windows(k)
        X = u[:, LR[:, k]]  # (n_u × L) symbol on each line
        nu, M = len(u), len(w)
        w = (w[:, None] * cnt[None, :]).ravel()
        sc = (sc[:, None] + scat[None, :]).ravel()
        msec = np.repeat(msec, nu)
        cst = (st[:, None] * nu + np.arange(nu)[None, :]).ravel()
        win = np.tile(np.arange(nu), len(st))
        ln, wa, wl, c0, sa0, sl = (np.repeat(a, nu) for a in (ln, wa, wl, cand, sa, sl))
        x = X[win, ln]
        isW = x == W if W >= 0 else np.zeros(len(x), dtype=bool)
        isReg = rs.is_regular[x]
        wa = wa & isW
        wl = wl + wa
        match = isW | ((c0 == -1) & isReg) | ((c0 >= 0) & (x == c0))
        sa = sa0 & match
        sl = sl + sa
        cand = np.where(sa0 & (c0 == -1) & isReg, x, c0)
        cc = np.clip(cand, 0, None)
        paid = (PTw[wl] > 0) | ((cand >= 0) & (PT[cc, sl] > 0))
        np.minimum.at(msec, cst[paid], ln[paid])
        live = ((wa & (PTw[R] > 0)) | (sa & ((cand == -1) | can_pay[cc]))) & ~paid & (ln < msec[cst])
        undecided = np.zeros(M * nu, dtype=bool)
        undecided[cst[live]] = True
        undecided &= sc < rs.need
        if k == R - 1:
            undecided[:] = False
        done = ~undecided
        term_w.append(w[done])
        term_m.append(msec[done])
        term_sc.append(sc[done])
        term_k.append(np.full(int(done.sum()), k + 1, dtype=np.int64))
        remap = np.cumsum(undecided) - 1
        keep = live & undecided[cst]
        st = remap[cst[keep]]
        ln, wa, wl, cand, sa, sl = (a[keep] for a in (ln, wa, wl, cand, sa, sl))
        w, sc, msec = w[undecided], sc[undecided], msec[undecided]
        if len(w) == 0:
            break
    tw, tm, tsc, tk = (np.concatenate(a) for a in (term_w, term_m, term_sc, term_k))
    rest_total = np.array(rs.rest_total, dtype=np.int64)[tk]
    rest_ok = rs.rest_ok[tk, np.minimum(tsc, rs.rest_ok.shape[1] - 1)]
    return {n: int((tw * np.where(tm < n, rest_total, rest_ok)).sum()) for n in line_counts}


# --------------------------------------------------------------------------- ways
def _ways_moments(rs: _Reels, act: tuple[tuple[int, ...], ...]):
    """Exact numerators (over rs.total) of E[W], E[W^2], E[W·f(C)] where W = sum of way pays per
    multiplier credit and f the scatter multiple; and the per-game award probabilities."""
    game = rs.game
    R = rs.R
    W = rs.wild
    paying = [c for c in range(rs.C) if rs.is_regular[c] and rs.PT[c, R] > 0]
    # m[i][s] (n_i,) = matching active positions of symbol s on reel i per stop
    m = []
    for i in range(R):
        w = rs.windows[i][:, list(act[i])]
        m.append({s: ((w == s) | (w == W)).sum(axis=1).astype(np.int64) for s in paying})
    events = []  # (pay, [g_i vectors])
    awards: dict[str, Fraction] = {}
    for s in paying:
        for n in range(1, R + 1):
            pay = int(rs.PT[s, n])
            g = []
            for i in range(R):
                if i < n:
                    g.append(m[i][s])
                elif i == n:
                    g.append((m[i][s] == 0).astype(np.int64))
                else:
                    g.append(np.ones(rs.n[i], dtype=np.int64))
            if pay:
                events.append((pay, g))
                prob = math.prod(int((gi > 0).sum()) for gi in g)
                awards[f"{rs.ids[s]} x{n}"] = Fraction(prob, rs.total)
    v = [p for p, _ in events]
    K = len(events)
    mean_num = sum(p * math.prod(int(gi.sum()) for gi in g) for p, g in events)
    H = np.ones((K, K), dtype=object)
    for i in range(R):
        G = np.array([g[i] for _, g in events], dtype=np.int64).reshape(K, rs.n[i])
        H = H * (G @ G.T).astype(object)
    sq_num = sum(v[a] * v[b] * int(H[a, b]) for a in range(K) for b in range(K))
    cross_num = 0
    if K and rs.scatter >= 0:
        poly = None
        for i in range(R):
            G = np.zeros((K, rs.rows + 1), dtype=object)
            for e, (_, g) in enumerate(events):
                for c in range(rs.rows + 1):
                    G[e, c] = int(g[i][rs.scat[i] == c].sum())
            poly = G if poly is None else _polymul_rows(poly, G)
        f = [int(x) for x in rs.f]
        cross_num = sum(v[e] * int(poly[e, c]) * f[c] for e in range(K) for c in range(poly.shape[1]))
    return mean_num, sq_num, cross_num, awards


def _ways_hits(rs: _Reels, act: tuple[tuple[int, ...], ...]) -> int:
    """Exact number of stop combinations with a way win or a paying scatter count."""
    R, W = rs.R, rs.wild
    paying = np.array([c for c in range(rs.C) if rs.is_regular[c] and rs.PT[c, R] > 0], dtype=np.int64)
    minpay = np.array([int(np.argmax(rs.PT[c] > 0)) for c in paying], dtype=np.int64)
    hits = 0
    w = np.ones(1, dtype=np.int64)
    sc = np.zeros(1, dtype=np.int64)
    alive = np.ones((1, len(paying)), dtype=bool)
    for k in range(R):
        u, cnt, scat = rs.unique_windows(k)
        ua = u[:, list(act[k])]
        has = ((ua[:, :, None] == paying[None, None, :]) | (ua[:, :, None] == W)).any(axis=1)  # (n_u × S)
        nu, M = len(u), len(w)
        p = np.repeat(np.arange(M), nu)
        c = np.tile(np.arange(nu), M)
        w, sc = w[p] * cnt[c], sc[p] + scat[c]
        alive = alive[p] & has[c]
        secured = (alive & (k + 1 >= minpay)[None, :]).any(axis=1)
        hit = secured | (sc >= rs.need)
        hits += int(w[hit].sum()) * rs.rest_total[k + 1]
        dead = ~hit & ~alive.any(axis=1)
        hits += int((w[dead] * rs.rest_ok[k + 1, np.minimum(sc[dead], rs.rest_ok.shape[1] - 1)]).sum())
        keep = ~hit & ~dead
        w, sc, alive = w[keep], sc[keep], alive[keep]
        if len(w) == 0:
            break
    return hits
