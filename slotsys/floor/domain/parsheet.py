"""Par sheet: exact return, hit frequency and spread of a game, per bet option (and free-games choice).

Pure domain (standard library + NumPy). Every probability is exact: per-reel symbol counts
and per-reel window enumerations (each stop of each strip) are combined across reels as
products and polynomial convolutions in integers, never by sampling and never by brute force
over every stop combination. Free games are added in closed form (a branching process, below).
Results are :class:`fractions.Fraction`; only the standard deviation and the volatility
indexes (statistics, not money) are floats, derived from the exact variance.

Figures (reference/slot_floor.md "Par sheet figures"), per paid game, in units of total bet
    * ``rtp`` = E[win] / total bet, with its parts: ``"line"`` or ``"way"`` and ``"scatter"``
      (the paid game) and ``"free_games"`` (everything won in free games);
    * hit frequencies, named as test laboratories report them (GLI-11 style):
      ``hit_frequency`` "hit frequency (any win incl. scatter pays and feature triggers)" = P(the
      paid game wins something or awards free games); ``line_hit_frequency`` "line/way hit
      frequency (base-game line or way wins only)" = P(the paid game has a line or way win);
      ``trigger_frequency`` "feature trigger frequency" = P(the paid game awards free games);
    * ``sd`` = standard deviation of win / total bet; ``vi_90`` / ``vi_95`` = z × sd with
      z = 1.645 / 1.96;
    * free games: trigger probability, expected free games per trigger = N / (1 − E[R]) where
      E[R] is the expected retrigger award per free game (= N / (1 − N·q) when a retrigger
      awards N again with probability q), retrigger probability;
    * awards: the probability per game of each advertised award (line awards on one given
      line), the top award with its probability and cycle (1 / p), progressive combinations at
      a qualifying bet (excluded from RTP), and the GLI-11 check that each is reachable at least
      once in 100 million games.

Free games as a branching process. One free game yields a win X (total-bet units, win
multiplier included) and a retrigger award A_f (games); let S be the win of one free game and
all the games it retriggers: E[S] = E[X] / (1 − E[A_f]) and
E[S²] = (E[X²] + 2 E[S] E[X·A_f] + E[A_f² − A_f] E[S]²) / (1 − E[A_f]). A paid game with win
B awarding A games then wins W = B + S_1 + ... + S_A, so E[W] = E[B] + E[A] E[S] and
E[W²] = E[B²] + 2 E[S] E[B·A] + E[A] E[S²] + E[A² − A] E[S]². The cross moments E[B·A] and
E[X·A_f] need the joint law of the line/way pay and the scatter count, which the
scatter-count polynomials give exactly.

Because every reel position has the same symbol distribution, every payline has the same
expected pay, so a lines game's RTP does not depend on the number of lines; in a reel-cost
game each way has roughly the expected pay of one line, so RTP follows ways / cost and differs
by the reels bought. Multipliers scale wins and bet alike: figures do not depend on them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Mapping

import numpy as np

from slotsys.floor.domain.evaluator import active_rows, line_state, read_line
from slotsys.floor.domain.game import BetOption, FreeGameChoice, GameDefinition, Variation

__all__ = ["HIT_FREQUENCY_LABELS", "OptionFigures", "ChoiceFigures", "FreeGameFigures", "Award", "ParSheet", "par_sheet", "Z_90", "Z_95",
           "REACHABLE_ONE_IN"]

Z_90 = 1.645  # volatility index confidence: 90%
Z_95 = 1.96  # volatility index confidence: 95%
REACHABLE_ONE_IN = 100_000_000  # GLI-11: every advertised award reachable at least once in 100 million games


def _frac(x: Fraction) -> str:
    return f"{x.numerator}/{x.denominator}"


@dataclass(frozen=True)
class ChoiceFigures:
    """Figures of one bet option with one free-games configuration (exact ``rtp``; ``sd`` in total bets)."""

    choice: int
    name: str
    rtp: Fraction
    rtp_parts: Mapping[str, Fraction]
    sd: float
    free_games_per_trigger: Fraction

    def to_dict(self) -> dict[str, Any]:
        return {"choice": self.choice, "name": self.name, "rtp": float(self.rtp), "rtp_exact": _frac(self.rtp),
                "rtp_parts": {k: float(v) for k, v in self.rtp_parts.items()}, "sd": self.sd,
                "free_games_per_trigger": float(self.free_games_per_trigger)}


HIT_FREQUENCY_LABELS = {
    "hit_frequency": "hit frequency (any win incl. scatter pays and feature triggers)",
    "line_hit_frequency": "line/way hit frequency (base-game line or way wins only)",
    "trigger_frequency": "feature trigger frequency (paid games awarding free games)",
}


@dataclass(frozen=True)
class OptionFigures:
    """Figures for one bet option with the default free-games choice (exact ``rtp`` and hit
    frequencies, see :data:`HIT_FREQUENCY_LABELS`; ``sd`` in units of total bet); ``by_choice``
    the same per choice. ``line_hit_frequency`` counts line (lines games) or way (ways games)
    wins of the paid game only; ``trigger_frequency`` is 0 without free games."""

    bet: BetOption
    rtp: Fraction
    hit_frequency: Fraction
    rtp_parts: Mapping[str, Fraction]
    sd: float
    ways: int | None = None
    by_choice: tuple[ChoiceFigures, ...] = ()
    line_hit_frequency: Fraction = Fraction(0)
    trigger_frequency: Fraction = Fraction(0)

    @property
    def volatility_index(self) -> float:
        """z × SD with z = 1.645 (90%)."""
        return Z_90 * self.sd

    @property
    def vi_90(self) -> float:
        return Z_90 * self.sd

    @property
    def vi_95(self) -> float:
        return Z_95 * self.sd

    def to_dict(self) -> dict[str, Any]:
        return {
            "bet": self.bet.to_dict(),
            "ways": self.ways,
            "rtp": float(self.rtp),
            "rtp_exact": _frac(self.rtp),
            "rtp_parts": {k: float(v) for k, v in self.rtp_parts.items()},
            "hit_frequency": float(self.hit_frequency),
            "hit_frequency_exact": _frac(self.hit_frequency),
            "line_hit_frequency": float(self.line_hit_frequency),
            "line_hit_frequency_exact": _frac(self.line_hit_frequency),
            "trigger_frequency": float(self.trigger_frequency),
            "trigger_frequency_exact": _frac(self.trigger_frequency),
            "sd": self.sd,
            "volatility_index": self.volatility_index,
            "volatility_z": Z_90,
            "vi_90": self.vi_90,
            "vi_95": self.vi_95,
            "by_choice": [c.to_dict() for c in self.by_choice],
        }


@dataclass(frozen=True)
class FreeGameFigures:
    """Free-games feature at the full bet: ``trigger_probability`` per paid game,
    ``retrigger_probability`` per free game, per choice the expected free games per trigger
    (``games_per_trigger``) and the expected retrigger award per free game (``retrigger_games``)."""

    trigger_probability: Fraction
    retrigger_probability: Fraction
    games_per_trigger: tuple[Fraction, ...]
    retrigger_games: tuple[Fraction, ...]

    def to_dict(self) -> dict[str, Any]:
        p = self.trigger_probability
        return {"trigger_probability": float(p), "trigger_cycle": float(1 / p) if p else None,
                "retrigger_probability": float(self.retrigger_probability),
                "games_per_trigger": [float(x) for x in self.games_per_trigger],
                "retrigger_games_per_free_game": [float(x) for x in self.retrigger_games]}


@dataclass(frozen=True)
class Award:
    """An advertised award: ``probability`` per paid game (line awards: on one given line) and
    ``pay_credits`` at the full bet (None for progressive levels and free games)."""

    key: str
    probability: Fraction
    pay_credits: int | None = None

    @property
    def cycle(self) -> float:
        return float(1 / self.probability) if self.probability else math.inf

    def to_dict(self) -> dict[str, Any]:
        return {"award": self.key, "probability": float(self.probability), "probability_exact": _frac(self.probability),
                "cycle": self.cycle if self.probability else None, "pay_credits": self.pay_credits}


@dataclass(frozen=True)
class ParSheet:
    """A game's par sheet for one variation.

    ``options``: one :class:`OptionFigures` per bet option, in :meth:`GameDefinition.bet_options`
    order. ``award_probabilities``: award key → exact probability per game at full bet (line
    awards: on one given line, the same for every line). ``awards``: the same as :class:`Award`
    records with pays; ``top_award`` the highest pay at full bet, with its probability per game
    (lines: on any of the played lines); ``progressive``: level → probability per game at a
    qualifying bet (not part of RTP); ``free_games``: feature figures (None without one).
    """

    game_id: str
    variation: str
    options: list[OptionFigures]
    award_probabilities: Mapping[str, Fraction] = field(default_factory=dict)
    awards: tuple[Award, ...] = ()
    top_award: Award | None = None
    progressive: Mapping[str, Fraction] = field(default_factory=dict)
    free_games: FreeGameFigures | None = None
    choices: tuple[str, ...] = ()
    default_choice: int | None = None
    max_award_credits: int | None = None

    @property
    def full_bet(self) -> OptionFigures:
        """All lines (or all reels bought) at the highest multiplier."""
        return self.options[-1]

    @property
    def rtp_full_bet(self) -> Fraction:
        return self.full_bet.rtp

    @property
    def min_rtp(self) -> Fraction:
        """The lowest RTP over every bet option and free-games choice."""
        return min(min([o.rtp] + [c.rtp for c in o.by_choice]) for o in self.options)

    def option(self, *, lines: int | None = None, reels: int | None = None, multiplier: int | None = None) -> OptionFigures:
        """Figures of the option with these lines/reels (and multiplier; any multiplier when None)."""
        for o in self.options:
            if o.bet.lines == lines and o.bet.reels == reels and (multiplier is None or o.bet.multiplier == multiplier):
                return o
        raise KeyError(f"no bet option lines={lines} reels={reels} multiplier={multiplier}")

    def unreachable_awards(self, one_in: int = REACHABLE_ONE_IN) -> list[str]:
        """Awards whose probability per game is below 1 / ``one_in`` (GLI-11 §4.8.2: 100 million)."""
        limit = Fraction(1, one_in)
        probs = {**self.award_probabilities, **{f"progressive {k}": v for k, v in self.progressive.items()}}
        return [k for k, p in probs.items() if p < limit]

    def to_dict(self) -> dict[str, Any]:
        return {
            "game": self.game_id,
            "variation": self.variation,
            "rtp_full_bet": float(self.rtp_full_bet),
            "rtp_full_bet_exact": _frac(self.rtp_full_bet),
            "min_rtp": float(self.min_rtp),
            "choices": list(self.choices),
            "default_choice": self.default_choice,
            "hit_frequency_labels": dict(HIT_FREQUENCY_LABELS),
            "options": [o.to_dict() for o in self.options],
            "free_games": self.free_games.to_dict() if self.free_games else None,
            "top_award": self.top_award.to_dict() if self.top_award else None,
            "awards": [a.to_dict() for a in self.awards],
            "award_probabilities": {k: float(v) for k, v in self.award_probabilities.items()},
            "progressive": {k: {"probability": float(v), "cycle": float(1 / v) if v else None}
                            for k, v in self.progressive.items()},
            "max_award_credits": self.max_award_credits,
            "gli11_reachable_in": REACHABLE_ONE_IN,
            "gli11_unreachable": self.unreachable_awards(),
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
    """Integer views of one set of strips: symbol codes (definition order), windows and scatter counts."""

    def __init__(self, game: GameDefinition, strips: tuple[tuple[str, ...], ...], need: int | None = None) -> None:
        self.game = game
        self.ids = [s.id for s in game.symbols]
        code = {s: i for i, s in enumerate(self.ids)}
        self.code = code
        self.C = len(self.ids)
        self.R = game.reel_count
        self.rows = game.rows
        self.wild = code[game.wild.id] if game.wild else -1
        self.scatter = code[game.scatter.id] if game.scatter else -1
        self.is_regular = np.array([s.kind == "regular" for s in game.symbols])
        subs = game.substitutable()
        self.subs = np.array([s.id in subs for s in game.symbols])
        # PT[c, k]: line/way pay of k of symbol c (0 for scatters)
        self.PT = np.array(
            [[s.pay(k) if s.kind != "scatter" else 0 for k in range(self.R + 1)] for s in game.symbols], dtype=np.int64
        )
        self.strips = [np.array([code[s] for s in strip], dtype=np.int64) for strip in strips]
        self.n = [len(s) for s in self.strips]
        self.total = math.prod(self.n)
        # windows[i][t, r] = symbol code on row r when reel i stops at t
        self.windows = [np.stack([np.roll(s, -r) for r in range(self.rows)], axis=1) for s in self.strips]
        self.scat = [
            (w == self.scatter).sum(axis=1).astype(np.int64) if self.scatter >= 0 else np.zeros(len(w), np.int64)
            for w in self.windows
        ]
        # scatter pay table f[c] (× total bet), c = 0..rows*R
        self.maxc = maxc = self.rows * self.R
        sc = game.scatter
        self.f = [sc.pay(c) if sc else 0 for c in range(maxc + 1)]
        if need is None:
            need = (sc.min_count if sc and sc.pays else None) or (maxc + 1)
        self.need = need
        # rest_hist[k][c] = number of stop combinations of reels k.. with c scatters (Python ints)
        self.rest_hist: list[list[int]] = [[0] * (maxc + 1) for _ in range(self.R + 1)]
        self.rest_hist[self.R][0] = 1
        for k in range(self.R - 1, -1, -1):
            per = np.bincount(self.scat[k], minlength=self.rows + 1)
            out = [0] * (maxc + 1)
            for a, x in enumerate(self.rest_hist[k + 1]):
                if x:
                    for b, y in enumerate(per):
                        if a + b <= maxc:
                            out[a + b] += x * int(y)
            self.rest_hist[k] = out
        self.rest_total = [sum(h) for h in self.rest_hist]
        # rest_ok[k][s] = combos of reels k.. that bring the scatter count from s to >= need
        self.rest_ok = np.zeros((self.R + 1, maxc + 1), dtype=object)
        for k in range(self.R + 1):
            h = self.rest_hist[k]
            tail = [0] * (maxc + 2)
            for c in range(maxc, -1, -1):
                tail[c] = tail[c + 1] + h[c]
            for s in range(maxc + 1):
                self.rest_ok[k, s] = tail[max(0, min(maxc + 1, need - s))]

    @property
    def hist(self) -> list[int]:
        """hist[c] = stop combinations showing c scatters."""
        return self.rest_hist[0]

    def unique_windows(self, i: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Distinct windows of reel i: (windows, multiplicity, scatter count)."""
        u, inv, cnt = np.unique(self.windows[i], axis=0, return_inverse=True, return_counts=True)
        scat = np.zeros(len(u), dtype=np.int64)
        scat[inv.reshape(-1)] = self.scat[i]
        return u, cnt.astype(np.int64), scat

    def visible(self, code: int) -> list[np.ndarray]:
        """Per reel, per stop: whether ``code`` shows anywhere in the window."""
        return [(w == code).any(axis=1) for w in self.windows]


@dataclass
class _Round:
    """Exact sums over every stop combination of one round (paid or free) for one bet size:
    ``v`` = Σ V, ``v2`` = Σ V², ``vc[c]`` = Σ V over combinations with c scatters, where V is
    the line/way pay per multiplier credit; ``total`` combinations; ``hist`` scatter counts."""

    total: int
    hist: list[int]
    v: int
    v2: int
    vc: list[int]


@dataclass(frozen=True)
class _Moments:
    """E[X], E[X²], E[X·A], E[A], E[A²] of a round in total-bet units (A: games awarded)."""

    ex: Fraction
    ex2: Fraction
    exa: Fraction
    ea: Fraction
    ea2: Fraction
    line: Fraction  # the line/way part of E[X]
    scatter: Fraction  # the scatter part of E[X]


def _moments(rnd: _Round, units: int, f: list[int], awards: list[int], mult: int = 1) -> _Moments:
    """Round moments for a bet of ``units`` credits per multiplier credit: X = mult·(V/units + f(C))."""
    T = rnd.total
    ev = Fraction(rnd.v, T * units)
    ef = Fraction(sum(h * x for h, x in zip(rnd.hist, f)), T)
    ef2 = Fraction(sum(h * x * x for h, x in zip(rnd.hist, f)), T)
    evf = Fraction(sum(a * x for a, x in zip(rnd.vc, f)), T * units)
    ex2 = Fraction(rnd.v2, T * units * units) + 2 * evf + ef2
    eva = Fraction(sum(a * x for a, x in zip(rnd.vc, awards)), T * units)
    efa = Fraction(sum(h * x * y for h, x, y in zip(rnd.hist, f, awards)), T)
    ea = Fraction(sum(h * x for h, x in zip(rnd.hist, awards)), T)
    ea2 = Fraction(sum(h * x * x for h, x in zip(rnd.hist, awards)), T)
    return _Moments(ex=mult * (ev + ef), ex2=mult * mult * ex2, exa=mult * (eva + efa), ea=ea, ea2=ea2,
                    line=mult * ev, scatter=mult * ef)


def _combine(base: _Moments, free: _Moments | None) -> tuple[Fraction, Fraction, Fraction]:
    """E[W], E[W²] and the free-games part of E[W] of a paid game (module doc: branching process)."""
    if free is None or base.ea == 0:
        return base.ex, base.ex2, Fraction(0)
    q = 1 - free.ea
    mu = free.ex / q
    es2 = (free.ex2 + 2 * mu * free.exa + (free.ea2 - free.ea) * mu * mu) / q
    ew = base.ex + base.ea * mu
    ew2 = base.ex2 + 2 * mu * base.exa + base.ea * es2 + (base.ea2 - base.ea) * mu * mu
    return ew, ew2, base.ea * mu


def _sd(second: Fraction, mean: Fraction) -> float:
    var = second - mean * mean
    return math.sqrt(float(var)) if var > 0 else 0.0


def _polymul_rows(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row-wise polynomial product of (K × da) and (K × db) coefficient arrays."""
    out = np.zeros((a.shape[0], a.shape[1] + b.shape[1] - 1), dtype=a.dtype)
    for j in range(b.shape[1]):
        out[:, j : j + a.shape[1]] += a * b[:, j : j + 1]
    return out


def _awards_vector(game: GameDefinition, choice: FreeGameChoice, maxc: int, on: bool = True) -> list[int]:
    fg = game.free_games
    if fg is None or not on:
        return [0] * (maxc + 1)
    return [choice.games_for(c) if c >= fg.count else 0 for c in range(maxc + 1)]


def _compute(game: GameDefinition, var: Variation) -> ParSheet:
    fg = game.free_games
    sc = game.scatter
    maxc = game.rows * game.reel_count
    need = (sc.min_count if sc and sc.pays else None) or (maxc + 1)
    if fg is not None:
        need = min(need, fg.count)
    base = _Reels(game, var.reels, need)
    free: _Reels | None = None
    choices = fg.choices if fg is not None else (FreeGameChoice(games=((1, 1),)),)
    f = base.f
    hist = base.hist
    awards: dict[str, Award] = {}
    full = game.full_bet()
    if sc is not None and sc.pays:
        listed = [c for c, _ in sc.pays]
        for j, c in enumerate(listed):
            hi = listed[j + 1] if j + 1 < len(listed) else len(hist)
            awards[f"{sc.id} x{c}"] = Award(f"{sc.id} x{c}", Fraction(sum(hist[c:hi]), base.total),
                                            sc.pay(c) * full.credits)
    fg_figs = None
    trigger = Fraction(sum(hist[fg.count:]), base.total) if fg is not None else Fraction(0)
    if fg is not None:
        trig = Fraction(sum(hist[fg.count:]), base.total)
        awards[f"free games ({fg.count}+ {fg.symbol})"] = Award(f"free games ({fg.count}+ {fg.symbol})", trig)
        free = _Reels(game, var.free_strips)
        fh = free.hist
        retrig = Fraction(sum(fh[fg.count:]), free.total) if fg.retrigger else Fraction(0)
        per_trigger, rgames = [], []
        for ch in choices:
            a0 = _awards_vector(game, ch, maxc)
            af = _awards_vector(game, ch, maxc, fg.retrigger)
            e_r = Fraction(sum(h * x for h, x in zip(fh, af)), free.total)
            e_a = Fraction(sum(h * x for h, x in zip(hist, a0)), base.total)
            per_trigger.append(e_a / trig / (1 - e_r) if trig else Fraction(0))
            rgames.append(e_r)
        fg_figs = FreeGameFigures(trig, retrig, tuple(per_trigger), tuple(rgames))

    def figures(bet_units: int, base_rnd: _Round, free_rnd: Any, hits: int, part: str) -> tuple:
        """(default-choice figures, per-choice figures) for one bet size."""
        per = []
        for ci, ch in enumerate(choices):
            a0 = _awards_vector(game, ch, maxc, fg is not None)
            bm = _moments(base_rnd, bet_units, f, a0)
            fm = None
            if fg is not None:
                assert free is not None, "the free-games reels are built whenever the game has free games"
                frnd = free_rnd(ci)
                fm = _moments(frnd, bet_units, free.f, _awards_vector(game, ch, maxc, fg.retrigger),
                              ch.win_multiplier)
            ew, ew2, feat = _combine(bm, fm)
            parts = {part: bm.line, "scatter": bm.scatter}
            if fg is not None:
                parts["free_games"] = feat
            pt = fg_figs.games_per_trigger[ci] if fg_figs else Fraction(0)
            per.append(ChoiceFigures(ci, ch.name, ew, parts, _sd(ew2, ew), pt))
        d = per[fg.default_choice if fg is not None else 0]
        return d, tuple(per) if fg is not None else (), Fraction(hits, base.total)

    options: list[OptionFigures] = []
    if game.kind == "lines":
        bl = _LinesData(base)
        fl = _LinesData(free) if free is not None else None
        awards.update({k: Award(k, p, pay * full.multiplier) for k, (p, pay) in bl.awards.items()})
        hits = _lines_hits(base, list(game.line_options))
        line_hits = _lines_hits(base, list(game.line_options), scatters=False)
        by_n = {}
        for n in game.line_options:
            brnd = bl.round(n)
            free_round = fl.round(n) if fl is not None else None
            by_n[n] = figures(n, brnd, lambda _ci, r=free_round: r, hits[n], "line")
        for bet in game.bet_options():
            assert bet.lines is not None, "every bet of a lines game names its line count"
            d, per, hf = by_n[bet.lines]
            options.append(OptionFigures(bet=bet, rtp=d.rtp, hit_frequency=hf, rtp_parts=d.rtp_parts, sd=d.sd,
                                         by_choice=per, line_hit_frequency=Fraction(line_hits[bet.lines], base.total),
                                         trigger_frequency=trigger))
    else:
        by_b = {}
        for b, cost in game.reel_costs:
            probe = BetOption(lines=None, reels=b, multiplier=game.multipliers[0], credits=cost * game.multipliers[0])
            act = active_rows(game, probe)
            brnd, way_awards = _ways_round(base, act, ())
            cache: dict[tuple, _Round] = {}

            def frnd(ci: int, act=act, cache=cache) -> _Round:
                wm = choices[ci].wild_multipliers
                if wm not in cache:
                    assert free is not None, "free-games rounds are asked for only when the game has free games"
                    cache[wm] = _ways_round(free, act, wm)[0]
                return cache[wm]

            by_b[b] = figures(cost, brnd, frnd, _ways_hits(base, act), "way") + (
                Fraction(_ways_hits(base, act, scatters=False), base.total),)
            if b == game.reel_count:
                awards.update({k: Award(k, p, pay * full.multiplier) for k, (p, pay) in way_awards.items()})
        for bet in game.bet_options():
            assert bet.reels is not None, "every bet of a reel-cost game names its reels"
            d, per, hf, lhf = by_b[bet.reels]
            options.append(OptionFigures(bet=bet, rtp=d.rtp, hit_frequency=hf, rtp_parts=d.rtp_parts, sd=d.sd,
                                         ways=game.ways(bet), by_choice=per, line_hit_frequency=lhf,
                                         trigger_frequency=trigger))
    progressive = _progressive(game, base)
    top = _top_award(game, base, awards)
    return ParSheet(
        game_id=game.id, variation=var.key, options=options,
        award_probabilities={k: a.probability for k, a in awards.items()},
        awards=tuple(awards.values()), top_award=top, progressive=progressive, free_games=fg_figs,
        choices=tuple(c.name for c in fg.choices) if fg is not None else (),
        default_choice=fg.default_choice if fg is not None else None,
        max_award_credits=game.max_award_credits,
    )


def _progressive(game: GameDefinition, rs: _Reels) -> dict[str, Fraction]:
    """Probability per paid game of each progressive level, at a bet qualifying for every level:
    the symbol on ``count`` or more reels, and not on as many as a higher level of the same symbol
    needs (the highest level of a symbol wins, as in the evaluator)."""
    at_least: dict[tuple[str, int], Fraction] = {}
    for pc in game.progressives:
        dist = [1]
        for vis, n in zip(rs.visible(rs.code[pc.symbol]), rs.n):
            k = int(vis.sum())
            dist = [(dist[j] if j < len(dist) else 0) * (n - k) + (dist[j - 1] * k if j >= 1 else 0)
                    for j in range(len(dist) + 1)]
        at_least[(pc.symbol, pc.count)] = Fraction(sum(dist[pc.count:]), rs.total)
    out: dict[str, Fraction] = {}
    for pc in game.progressives:
        higher = [q.count for q in game.progressives if q.symbol == pc.symbol and q.count > pc.count]
        out[pc.level] = at_least[(pc.symbol, pc.count)] - (at_least[(pc.symbol, min(higher))] if higher else 0)
    return out


def _top_award(game: GameDefinition, rs: _Reels, awards: Mapping[str, Award]) -> Award | None:
    """The highest-paying award at full bet, with its exact probability per paid game."""
    paying = [a for a in awards.values() if a.pay_credits]
    if not paying:
        return None
    top = max(paying, key=lambda a: (a.pay_credits, -a.probability))
    sym, _, cnt = top.key.rpartition(" x")
    if game.kind != "lines" or sym == getattr(game.scatter, "id", None):
        return top  # ways awards and scatters are already per game
    if sym not in rs.code or not cnt.isdigit():  # a group or wild-multiplied line award
        p = _line_key_union_probability(game, rs, top.key)
        return top if p is None else Award(top.key, p, top.pay_credits)
    return Award(top.key, _line_union_probability(game, rs, sym, int(cnt)), top.pay_credits)


UNION_STATE_LIMIT = 200_000  # joint line states kept by _line_key_union_probability before it gives up


def _line_key_union_probability(game: GameDefinition, rs: _Reels, key: str) -> Fraction | None:
    """P(at least one played line at full bet pays award ``key``) for any line award (groups and
    wild-multiplied awards included). Exact: a reel-by-reel walk over distinct windows keeping each
    played line's :func:`line_state`; None when the joint states exceed ``UNION_STATE_LIMIT``
    (the caller then keeps the per-line probability)."""
    shapes = game.lines[: game.full_bet().lines or 0]
    ids = rs.ids
    states: dict[tuple, int] = {tuple(() for _ in shapes): 1}  # per line: its prefix reading so far
    hit = 0
    for i in range(rs.R):
        u, cnt, _ = rs.unique_windows(i)
        nxt: dict[tuple, int] = {}
        memo: dict[tuple, tuple] = {}
        for joint, x in states.items():
            for win, y in zip(u, cnt):
                lines: list[tuple | None] = []
                done = False
                for li, shape in enumerate(shapes):
                    prefix = joint[li]
                    if prefix is None:  # decided: does not pay the award
                        lines.append(None)
                        continue
                    seq = prefix + (ids[int(win[shape[i]])],)
                    st = memo.get(seq)
                    if st is None:
                        st = memo[seq] = line_state(game, list(seq))
                    if st[0] == "done" or i == rs.R - 1:
                        best = st[1] if st[0] == "done" else read_line(game, list(seq))
                        if best is not None and _award_key(best) == key:
                            done = True
                            break
                        lines.append(None)
                    else:
                        lines.append(seq)
                if done:
                    hit += x * int(y) * math.prod(rs.n[i + 1:])
                elif any(ln is not None for ln in lines):
                    k = tuple(lines)
                    nxt[k] = nxt.get(k, 0) + x * int(y)
        if len(nxt) > UNION_STATE_LIMIT:
            return None
        states = nxt
    return Fraction(hit, rs.total)


def _line_union_probability(game: GameDefinition, rs: _Reels, sym: str, count: int) -> Fraction:
    """P(at least one played line at full bet pays ``sym`` × ``count``) for a full-length top award:
    every cell of the line on reels 1..count shows the symbol or a substituting wild (at least one
    ``sym`` unless it is the wild). Exact: a reel-by-reel walk over the sets of lines still alive."""
    L = game.full_bet().lines or 0
    shapes = game.lines[:L]
    code = rs.code[sym]
    is_wild = code == rs.wild
    ok_codes = {code} | ({rs.wild} if (rs.wild >= 0 and not is_wild and rs.subs[code]) else set())
    states: dict[tuple[int, int], int] = {((1 << L) - 1, 0 if not is_wild else (1 << L) - 1): 1}
    for i in range(count):
        masks: dict[tuple[int, int], int] = {}
        w = rs.windows[i]
        for t in range(rs.n[i]):
            ok = seen = 0
            for li, shape in enumerate(shapes):
                c = int(w[t, shape[i]])
                if c in ok_codes:
                    ok |= 1 << li
                    if c == code:
                        seen |= 1 << li
            masks[(ok, seen)] = masks.get((ok, seen), 0) + 1
        nxt: dict[tuple[int, int], int] = {}
        for (alive, s), x in states.items():
            for (ok, seen), y in masks.items():
                a = alive & ok
                if a:
                    key = (a, (s | seen) & a)
                    nxt[key] = nxt.get(key, 0) + x * y
        states = nxt
    good = sum(x for (alive, s), x in states.items() if s)
    rest = math.prod(rs.n[count:])
    return Fraction(good * rest, rs.total)


# --------------------------------------------------------------------------- lines
def _award_key(best: tuple[str, int, int, int]) -> str:
    """Award name of a line reading: ``"DRAGON x5"``, ``"any_bar x3"``, ``"R7 x3 (wild x4)"``."""
    sym, count, _pay, mult = best
    return f"{sym} x{count}" + (f" (wild x{mult})" if mult > 1 else "")


def _line_events(rs: _Reels) -> list[tuple[list[np.ndarray], int, str | None]]:
    """Partition of one line's outcomes into product events (a symbol set per reel) on which
    the line pays one amount: ``(sets, pay, award key)``.

    Reel by reel from reel 1, the symbols of each reel are split by the evaluator's
    :func:`line_state` of the prefix they make (two prefixes with the same state pay the same
    for every continuation); a prefix whose readings can no longer grow ends its event, the
    later reels taking any symbol. The pay of each event is the evaluator's :func:`read_line`
    on a representative sequence.
    """
    game = rs.game
    R, C = rs.R, rs.C
    ids = rs.ids
    ALL = np.ones(C, dtype=bool)
    out: list[tuple[list[np.ndarray], int, str | None]] = []

    def emit(sets: list[np.ndarray], rep: list[str]) -> None:
        best = read_line(game, rep)
        out.append((sets + [ALL] * (R - len(sets)), best[2] if best else 0, _award_key(best) if best else None))

    def walk(sets: list[np.ndarray], rep: list[str]) -> None:
        split: dict[tuple, list[int]] = {}
        for c in range(C):
            split.setdefault(line_state(game, rep + [ids[c]]), []).append(c)
        for state, codes in split.items():
            m = np.zeros(C, dtype=bool)
            m[codes] = True
            nxt, nrep = sets + [m], rep + [ids[codes[0]]]
            if state[0] == "done" or len(nrep) == R:
                emit(nxt, nrep)
            else:
                walk(nxt, nrep)

    walk([], [])
    return out


class _LinesData:
    """Exact line sums for one set of strips: E[pay of one line] (the same for every line),
    the pair sums T[l, l'] = Σ pay_l·pay_l', and per line the pay summed by scatter count."""

    def __init__(self, rs: _Reels) -> None:
        game = rs.game
        self.rs = rs
        R, rows = rs.R, rs.rows
        counts = [np.bincount(s, minlength=rs.C).astype(np.int64) for s in rs.strips]
        events = [e for e in _line_events(rs) if all(int((counts[i] * e[0][i]).sum()) for i in range(R))]
        total_prob = 0
        per_line = 0
        awards: dict[str, tuple[Fraction, int]] = {}
        for sets, pay, key in events:
            num = math.prod(int((counts[i] * sets[i]).sum()) for i in range(R))
            if not num:
                continue
            total_prob += num
            per_line += pay * num
            if key is not None:
                p0 = awards.get(key, (Fraction(0), pay))[0]
                awards[key] = (p0 + Fraction(num, rs.total), pay)
        assert total_prob == rs.total, "line events must partition the outcomes"
        self.per_line = per_line
        order = {x: i for i, x in enumerate([s.id for s in game.symbols] + [g.id for g in game.groups])}

        def rank(key: str) -> tuple[int, int, str]:
            sym, _, rest = key.partition(" x")
            count, _, mult = rest.partition(" ")
            return order.get(sym, len(order)), int(count), mult

        self.awards = {k: awards[k] for k in sorted(awards, key=rank)}  # paytable order: symbol, count, multiplier

        paying = [(sets, pay) for sets, pay, _ in events if pay > 0]
        E = len(paying)
        v = np.array([p for _, p in paying], dtype=np.int64)
        ind = [np.array([sets[i] for sets, _ in paying], dtype=np.int64).reshape(E, rs.C) for i in range(R)]
        LR = np.array(game.lines, dtype=np.int64)
        L = len(LR)
        exact_ok = rs.total * int(v.max(initial=0)) ** 2 * max(1, E) < 2**62
        self.T = np.zeros((L, L), dtype=object)
        if E:
            # M[i][a, b] = E×E joint counts: stops of reel i with row a in event e's set and row b in e''s set
            M = []
            for i in range(R):
                w = rs.windows[i]
                Mi = np.zeros((rows, rows, E, E), dtype=np.int64)
                indf = ind[i].astype(np.float64)
                for a in range(rows):
                    for b in range(a, rows):
                        J = np.zeros((rs.C, rs.C), dtype=np.float64)
                        np.add.at(J, (w[:, a], w[:, b]), 1)
                        Mi[a, b] = np.rint(indf @ J @ indf.T).astype(np.int64)
                        Mi[b, a] = Mi[a, b].T
                M.append(Mi)
            vv = np.outer(v, v)
            # group line pairs by their row pairs reel by reel so shared prefixes multiply once
            pairs = [(l, m) for l in range(L) for m in range(l, L)]
            self._pair_products(M, LR, pairs, vv, exact_ok)
        # vc[l][c] = sum over outcomes with c scatters of line l's pay
        self.vc = []
        for l in range(L):
            if not E:
                self.vc.append([0] * (rs.maxc + 1))
                continue
            poly = None
            for i in range(R):
                H = np.zeros((rs.C, rows + 1), dtype=np.int64)
                np.add.at(H, (rs.windows[i][:, LR[l, i]], rs.scat[i]), 1)
                G = (ind[i] @ H).astype(object)
                poly = G if poly is None else _polymul_rows(poly, G)
            vec = (v.astype(object)[:, None] * poly).sum(axis=0)
            self.vc.append([int(x) for x in vec] + [0] * (rs.maxc + 1 - len(vec)))

    def _pair_products(self, M, LR, pairs, vv, exact_ok) -> None:
        R = len(M)
        groups: dict[tuple, list[tuple[int, int]]] = {}
        for l, m in pairs:
            groups.setdefault((int(LR[l, 0]), int(LR[m, 0])), []).append((l, m))

        def walk(i: int, prod: np.ndarray | None, members: list[tuple[int, int]]) -> None:
            if i == R:
                assert prod is not None, "a game has at least one reel, so the walk multiplied in reel 1"
                x = (prod * vv).sum() if exact_ok else int((prod.astype(object) * vv).sum())
                for l, m in members:
                    self.T[l, m] = self.T[m, l] = int(x)
                return
            sub: dict[tuple, list[tuple[int, int]]] = {}
            for l, m in members:
                sub.setdefault((int(LR[l, i]), int(LR[m, i])), []).append((l, m))
            for (a, b), mem in sub.items():
                nxt = M[i][a, b] if prod is None else (prod * M[i][a, b] if exact_ok else prod.astype(object) * M[i][a, b])
                walk(i + 1, nxt, mem)

        walk(0, None, pairs)

    def round(self, n: int) -> _Round:
        """Sums for lines 1..n played."""
        T = self.T
        v2 = int(sum(T[a, b] for a in range(n) for b in range(n)))
        vc = [sum(self.vc[l][c] for l in range(n)) for c in range(self.rs.maxc + 1)]
        return _Round(total=self.rs.total, hist=self.rs.hist, v=n * self.per_line, v2=v2, vc=vc)


def _lines_hits(rs: _Reels, line_counts: list[int], scatters: bool = True) -> dict[int, int]:
    """Exact number of stop combinations with a line win or ``rs.need`` scatters, per line count
    (``scatters=False``: with a line win only).

    Reel-by-reel enumeration of distinct windows. A branch keeps, per line, the state of its
    left-to-right reading (leading wilds, candidate symbol, length) only while the line can
    still change the answer: it has not paid yet, can still pay, and lies below the lowest
    line that already pays. A branch stops as soon as no such line is left or the scatter
    count has reached ``need``; the remaining reels then only matter through scatters.
    """
    game = rs.game
    R = rs.R
    LR = np.array(game.lines, dtype=np.int64)
    L = len(LR)
    W = rs.wild
    PT = rs.PT
    PTw = PT[W] if W >= 0 else np.zeros(R + 1, dtype=np.int64)
    can_pay = PT[:, R] > 0
    subs = rs.subs
    need = rs.need if scatters else rs.maxc + 1
    rest_ok_tab = rs.rest_ok if scatters else np.zeros_like(rs.rest_ok)
    grp = game.groups
    G = len(grp)
    GM = np.array([[rs.ids[c] in g.members for c in range(rs.C)] for g in grp], dtype=bool).reshape(G, rs.C)
    gsubs = set(game.substitutable())
    GS = np.array([W >= 0 and set(g.members) <= gsubs for g in grp], dtype=bool)
    GP = np.array([[g.pay(c) for c in range(R + 1)] for g in grp], dtype=np.int64).reshape(G, R + 1)
    ga = np.ones((L, G), dtype=bool)  # group run still growing
    gl = np.zeros((L, G), dtype=np.int64)  # its length
    gm = np.zeros((L, G), dtype=bool)  # a member seen in it

    w = np.ones(1, dtype=object)
    sc = np.zeros(1, dtype=np.int64)
    msec = np.full(1, L, dtype=np.int64)  # lowest line index already paying (L: none)
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
        X = u[:, LR[:, k]]
        nu, M = len(u), len(w)
        w = (w[:, None] * cnt[None, :].astype(object)).ravel()
        sc = (sc[:, None] + scat[None, :]).ravel()
        msec = np.repeat(msec, nu)
        cst = (st[:, None] * nu + np.arange(nu)[None, :]).ravel()
        win = np.tile(np.arange(nu), len(st))
        ln, wa, wl, c0, sa0, sl, ga, gl, gm = (np.repeat(a, nu, axis=0) for a in (ln, wa, wl, cand, sa, sl, ga, gl, gm))
        x = X[win, ln]
        isW = x == W if W >= 0 else np.zeros(len(x), dtype=bool)
        isReg = rs.is_regular[x]
        lead = wl  # leading wilds before this reel
        wa = wa & isW
        wl = wl + wa
        c0c = np.clip(c0, 0, None)
        starts = (c0 == -1) & isReg & ((lead == 0) | subs[x])
        match = (isW & ((c0 == -1) | ((c0 >= 0) & subs[c0c]))) | starts | ((c0 >= 0) & (x == c0))
        sa = sa0 & match
        sl = sl + sa
        cand = np.where(sa0 & starts, x, c0)
        cc = np.clip(cand, 0, None)
        paid = (PTw[wl] > 0) | ((cand >= 0) & (PT[cc, sl] > 0))
        live = (wa & (PTw[R] > 0)) | (sa & ((cand == -1) | can_pay[cc]))
        if G:
            mem = GM[:, x].T
            ga = ga & (mem | (GS[None, :] & isW[:, None]))
            gl = gl + ga
            gm = gm | (ga & mem)
            paid = paid | (gm & (np.take_along_axis(GP.T, gl, axis=0) > 0)).any(axis=1)
            live = live | (ga & (GP[:, R] > 0)[None, :]).any(axis=1)
        np.minimum.at(msec, cst[paid], ln[paid])
        live = live & ~paid & (ln < msec[cst])
        undecided = np.zeros(M * nu, dtype=bool)
        undecided[cst[live]] = True
        undecided &= sc < need
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
        ln, wa, wl, cand, sa, sl, ga, gl, gm = (a[keep] for a in (ln, wa, wl, cand, sa, sl, ga, gl, gm))
        w, sc, msec = w[undecided], sc[undecided], msec[undecided]
        if len(w) == 0:
            break
    tw, tm, tsc, tk = (np.concatenate(a) for a in (term_w, term_m, term_sc, term_k))
    rest_total = np.array(rs.rest_total, dtype=object)[tk]
    rest_ok = rest_ok_tab[tk, np.minimum(tsc, rest_ok_tab.shape[1] - 1)]
    return {n: int((tw * np.where(tm < n, rest_total, rest_ok)).sum()) for n in line_counts}


# --------------------------------------------------------------------------- ways
def _ways_round(rs: _Reels, act: tuple[tuple[int, ...], ...], wild_mults: tuple[int, ...]
                ) -> tuple[_Round, dict[str, tuple[Fraction, int]]]:
    """Exact sums of the way pay V (per multiplier credit) for these active rows and per-reel wild
    multipliers, and the per-game award probabilities with their pays per way."""
    R = rs.R
    W = rs.wild
    paying = [c for c in range(rs.C) if rs.is_regular[c] and rs.PT[c].max() > 0]
    wmult = rs.game.wild.multiplier if rs.game.wild else 1
    wm = tuple(x * wmult for x in (wild_mults or (1,) * R))
    # m[i][s] (n_i,) = weighted matching active positions of symbol s on reel i per stop
    m = []
    for i in range(R):
        w = rs.windows[i][:, list(act[i])]
        m.append({s: ((w == s).sum(axis=1) + (wm[i] * (w == W).sum(axis=1) if (W >= 0 and rs.subs[s]) else 0)
                      ).astype(np.int64) for s in paying})
    events: list[tuple[int, list[np.ndarray]]] = []  # (pay, [g_i vectors])
    awards: dict[str, tuple[Fraction, int]] = {}
    if W >= 0 and rs.PT[W].max() > 0:
        events, awards = _wild_pay_way_events(rs, act, paying, m)
        paying = []
    for s in paying:
        for n in range(1, R + 1):
            pay = int(rs.PT[s, n])
            if not pay:
                continue
            g = []
            for i in range(R):
                if i < n:
                    g.append(m[i][s])
                elif i == n:
                    g.append((m[i][s] == 0).astype(np.int64))
                else:
                    g.append(np.ones(rs.n[i], dtype=np.int64))
            events.append((pay, g))
            prob = math.prod(int((gi > 0).sum()) for gi in g)
            awards[f"{rs.ids[s]} x{n}"] = (Fraction(prob, rs.total), pay)
    v = [p for p, _ in events]
    K = len(events)
    mean_num = sum(p * math.prod(int(gi.sum()) for gi in g) for p, g in events)
    H = np.ones((K, K), dtype=object)
    for i in range(R):
        G = np.array([g[i] for _, g in events], dtype=np.float64).reshape(K, rs.n[i])
        H = H * np.rint(G @ G.T).astype(np.int64).astype(object)
    sq_num = int(sum(v[a] * v[b] * H[a, b] for a in range(K) for b in range(K)))
    vc = [0] * (rs.maxc + 1)
    if K:
        poly = None
        for i in range(R):
            onehot = (rs.scat[i][:, None] == np.arange(rs.rows + 1)[None, :]).astype(np.float64)  # n_i × (rows+1)
            Gi = np.array([g[i] for _, g in events], dtype=np.float64).reshape(K, rs.n[i])
            G = np.rint(Gi @ onehot).astype(np.int64).astype(object)
            poly = G if poly is None else _polymul_rows(poly, G)
        vec = (np.array(v, dtype=object)[:, None] * poly).sum(axis=0)
        for c, x in enumerate(vec):
            vc[c] += int(x)
    return _Round(total=rs.total, hist=rs.hist, v=mean_num, v2=sq_num, vc=vc), awards


def _wild_pay_way_events(rs: _Reels, act: tuple[tuple[int, ...], ...], paying: list[int],
                         m: list[dict[int, np.ndarray]]) -> tuple[list, dict[str, tuple[Fraction, int]]]:
    """Product events of a ways game whose wild has its own pays (evaluator rules): the wild's
    n-of-a-kind (wild counts on reels 1..n, no wild on reel n+1), and per symbol s, count n and
    leading wilds j: wilds on reels 1..j, s itself on reel j+1, s or wild up to reel n, neither on
    reel n+1, paying max(pay_s(n), pay_wild(j)) per way. Returns (events, awards)."""
    R, W = rs.R, rs.wild
    wc, sc = [], []
    for i in range(R):
        w = rs.windows[i][:, list(act[i])]
        wc.append((w == W).sum(axis=1).astype(np.int64))
        sc.append({s: (w == s).sum(axis=1).astype(np.int64) for s in paying})
    ones = [np.ones(rs.n[i], dtype=np.int64) for i in range(R)]
    events: list = []
    awards: dict[str, tuple[Fraction, int]] = {}
    PTw = rs.PT[W]
    for n in range(1, R + 1):
        if PTw[n]:
            g = wc[:n] + ([(wc[n] == 0).astype(np.int64)] if n < R else []) + ones[n + 1:]
            events.append((int(PTw[n]), g))
            awards[f"{rs.ids[W]} x{n}"] = (Fraction(math.prod(int((gi > 0).sum()) for gi in g), rs.total), int(PTw[n]))
    for s in paying:
        sub = bool(rs.subs[s])
        for n in range(1, R + 1):
            brk = [(m[n][s] == 0).astype(np.int64)] if n < R else []
            for j in range(n if sub else 1):
                pay = max(int(rs.PT[s, n]), int(PTw[j]))
                if pay:
                    g = wc[:j] + [sc[j][s]] + [m[i][s] for i in range(j + 1, n)] + brk + ones[n + 1:]
                    events.append((pay, g))
            if rs.PT[s, n]:
                tail = math.prod(int((gi > 0).sum()) for gi in brk + ones[n + 1:])
                some = math.prod(int((m[i][s] > 0).sum()) for i in range(n))
                wild_only = math.prod(int(((sc[i][s] == 0) & (wc[i] > 0)).sum()) for i in range(n)) if sub else 0
                awards[f"{rs.ids[s]} x{n}"] = (Fraction((some - wild_only) * tail, rs.total), int(rs.PT[s, n]))
    return events, awards


def _ways_hits(rs: _Reels, act: tuple[tuple[int, ...], ...], scatters: bool = True) -> int:
    """Exact number of stop combinations with a way win or ``rs.need`` scatters
    (``scatters=False``: with a way win only).

    A wild with its own pays is one more candidate (wilds only); a symbol's way then needs the
    symbol itself on one of its reels (the ways made of wilds only are the wild's)."""
    R, W = rs.R, rs.wild
    need = rs.need if scatters else rs.maxc + 1
    rest_ok_tab = rs.rest_ok if scatters else np.zeros_like(rs.rest_ok)
    wild_pays = W >= 0 and rs.PT[W].max() > 0
    paying = np.array([c for c in range(rs.C) if rs.is_regular[c] and rs.PT[c].max() > 0] + ([W] if wild_pays else []),
                      dtype=np.int64)
    minpay = np.array([int(np.argmax(rs.PT[c] > 0)) for c in paying], dtype=np.int64)
    subs = rs.subs[paying] & (paying != W)
    hits = 0
    w = np.ones(1, dtype=object)
    sc = np.zeros(1, dtype=np.int64)
    alive = np.ones((1, len(paying)), dtype=bool)
    seen = np.full((1, len(paying)), not wild_pays, dtype=bool)  # the symbol itself on a matched reel
    for k in range(R):
        u, cnt, scat = rs.unique_windows(k)
        ua = u[:, list(act[k])]
        own = (ua[:, :, None] == paying[None, None, :]).any(axis=1)
        has = own | ((ua[:, :, None] == W) & subs[None, None, :]).any(axis=1)
        nu, M = len(u), len(w)
        p = np.repeat(np.arange(M), nu)
        c = np.tile(np.arange(nu), M)
        w, sc = w[p] * cnt[c].astype(object), sc[p] + scat[c]
        alive = alive[p] & has[c]
        seen = seen[p] | (alive & own[c])
        secured = (alive & seen & (k + 1 >= minpay)[None, :]).any(axis=1)
        hit = secured | (sc >= need)
        hits += int(w[hit].sum()) * rs.rest_total[k + 1]
        dead = ~hit & ~alive.any(axis=1)
        hits += int((w[dead] * rest_ok_tab[k + 1, np.minimum(sc[dead], rest_ok_tab.shape[1] - 1)]).sum())
        keep = ~hit & ~dead
        w, sc, alive, seen = w[keep], sc[keep], alive[keep], seen[keep]
        if len(w) == 0:
            break
    return hits
