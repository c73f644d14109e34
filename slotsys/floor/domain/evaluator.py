"""The ONE slot evaluator: live play, the simulator's tables and the par sheet all call it.

Pure domain. Randomness comes in as any object with ``randbelow(n) -> int`` in ``[0, n)``
(live play: :class:`SystemRng`, i.e. ``secrets.randbelow``; simulations and tests:
:class:`SeededRng`). Every pay is an ``int`` number of credits; no float touches money.

Rules (docs/game-format.md states them for designers)
    Window: reel i stopped at ``s`` shows ``strip[(s + row) % len(strip)]`` on ``row`` (0 = top);
    ``window[row][reel]``.

    Lines game (``kind == "lines"``): only lines 1..N of the selected line count N are played.
    Each line is read left to right from reel 1 and pays ONE win, the higher of
      * the wild-only combination (leading wilds, paid from the wild's own pays), and
      * the substituted combination: the first non-wild symbol, if it is a regular symbol the
        wild substitutes for, followed or preceded by wilds standing in for it (wilds never
        substitute for scatters, bonus symbols or regular symbols outside their declared set;
        a non-substitutable regular symbol pays only from reel 1 without wilds);
    ties go to the substituted (longer) combination. Line win = pay × multiplier.

    Symbol groups (lines games): a group combination is the run from reel 1 of the group's
    members in any mix (and wilds, when the wild substitutes for every member), with at least
    one member; it competes with the two combinations above and the line pays the highest
    (ties: the symbol's own combination, then the group listed first).

    Wild multiplier: a wild with ``multiplier`` m multiplies a substituted (or group) line win
    it takes part in; k such wilds on one win multiply it by m^k (``wild_multiplier_combine:
    multiply``, the default) or by k·m (``add``). A wild-only win is not multiplied. The line
    pays the highest combination after multipliers.

    Reel-cost (243-ways) game: on bought reels every row is active, on the others only the
    centre row. For each regular paying symbol, reels 1, 2, ... are matched while they have at
    least one active position showing the symbol or a wild (that substitutes for it);
    n-of-a-kind = reels matched, ways = product over those reels of the matching positions,
    a wild on reel i counting as ``wild_multiplier[i]`` positions (1 outside free games with
    wild multipliers), so wild multipliers multiply. One way-win per symbol (its highest count);
    way win = pay(n) × ways × multiplier. A base-game wild ``multiplier`` m weighs each wild
    position m (times the reel's free-game wild multiplier), so multiplied wilds multiply.

    Ways game whose wild has its own pays: the wild's way-win has n = the reels 1, 2, ...
    showing the wild on an active position and ways = the product of their wild counts; a
    symbol's ways exclude the ways made of wilds only (those are the wild's), and each of its
    ways that begins with j wilds pays the higher of the symbol's pay(n) and the wild's pay(j)
    (per way, as lines pay the higher of the wild-only and substituted readings).

    Scatter (both kinds): the scatter symbols anywhere in the whole window, on every reel and row
    whether bought or not, pay ``scatter pay(count) × total bet credits``.

    Free games: a paid game with ``count`` or more trigger scatters awards the chosen
    configuration's games; they are played at once, inside the same paid game, at the same bet
    (same lines or reels bought, same multiplier) on the variation's free-game strips; every
    free-game win is multiplied by the configuration's win multiplier; a free game with the
    trigger count awards its games again (retrigger). ``total_win_credits`` includes them.

    Progressive: in the paid game only, a qualifying bet with a progressive combination (the
    bonus symbol on ``count`` or more reels, anywhere in the window) reports the level in
    ``SpinOutcome.progressive`` (the highest count per symbol). It is not part of
    ``total_win_credits``: the jackpot controller awards it.
"""

from __future__ import annotations

import math
import operator
import random
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Literal, Sequence

from slotsys.floor.domain.game import BetOption, FreeGameChoice, GameDefinition
from slotsys.kernel.ports import Csprng, Rng

__all__ = [
    "Win", "FreeGame", "SpinOutcome", "spin", "evaluate", "draw_stops", "SeededRng", "SystemRng", "RandBelow",
    "score_line", "read_line", "line_state", "active_rows", "way_weights", "MAX_FREE_GAMES",
]

RandBelow = Rng  # any object with randbelow(n) -> int in [0, n)
SystemRng = Csprng  # live play: the operating system's CSPRNG (secrets.randbelow)

# Engineering guard only: with the validated retrigger rate (expected award per free game < 1)
# the chance of a feature this long is far below 10^-100; reaching it is a defect, not a result.
MAX_FREE_GAMES = 100_000


class SeededRng:
    """Reproducible source for tests and simulations (``random.Random(seed)``). Never for live play."""

    def __init__(self, seed: int | str | bytes) -> None:
        self._r = random.Random(seed)

    def randbelow(self, n: int) -> int:
        if n <= 0:
            raise ValueError("randbelow needs n > 0")
        return self._r.randrange(n)


@dataclass(frozen=True)
class Win:
    """One win.

    ``kind``: ``"line"`` (``line`` = 1-based line number), ``"way"`` (``ways`` = number of ways,
    wild multipliers included) or ``"scatter"``; ``symbol`` the paying symbol (the wild for a
    wild-only line win); ``count`` n of a kind / number of scatters; ``pay_credits`` the pay in
    credits (win multiplier included); ``positions`` the ``(row, reel)`` cells that make the
    win; ``multiplier`` the free-games win multiplier applied (1 in the paid game).
    """

    kind: Literal["line", "way", "scatter"]
    symbol: str
    count: int
    pay_credits: int
    positions: tuple[tuple[int, int], ...]
    line: int | None = None
    ways: int | None = None
    multiplier: int = 1

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "line": self.line,
            "ways": self.ways,
            "symbol": self.symbol,
            "count": self.count,
            "pay_credits": self.pay_credits,
            "multiplier": self.multiplier,
            "positions": [list(p) for p in self.positions],
        }


@dataclass(frozen=True)
class FreeGame:
    """One free game: 1-based ``number``, ``stops``, ``window``, ``wins`` (credits, win multiplier
    included), ``win_credits`` (their sum) and ``retrigger`` (free games it awarded, 0 if none)."""

    number: int
    stops: tuple[int, ...]
    window: tuple[tuple[str, ...], ...]
    wins: tuple[Win, ...]
    win_credits: int
    retrigger: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {"number": self.number, "stops": list(self.stops), "window": [list(r) for r in self.window],
                "wins": [w.to_dict() for w in self.wins], "win_credits": self.win_credits, "retrigger": self.retrigger}


@dataclass(frozen=True)
class SpinOutcome:
    """The result of one paid game.

    ``stops`` per reel and ``window[row][reel]`` of the paid game; its ``wins`` (lines in line
    order, then ways in symbol order, then scatter); ``free_games`` played inside it (each with
    stops, window and wins), ``free_games_awarded`` (the initial award) and ``choice`` (the
    free-games configuration index taken; None when no feature was played);
    ``total_win_credits`` = paid-game wins + every free game's wins (credits);
    ``progressive`` the level keys won by a progressive combination (qualifying bets only; not in
    the total). ``max_award_credits`` is the game's award guard (None: none) and
    :attr:`exceeds_max_award` tells when the total is above it. ``bet`` and ``variation`` are
    recorded for game recall.
    """

    stops: tuple[int, ...]
    window: tuple[tuple[str, ...], ...]
    wins: tuple[Win, ...]
    total_win_credits: int
    bet: BetOption | None = None
    variation: str | None = None
    free_games: tuple[FreeGame, ...] = ()
    free_games_awarded: int = 0
    choice: int | None = None
    progressive: tuple[str, ...] = ()
    max_award_credits: int | None = None

    @property
    def base_win_credits(self) -> int:
        """Wins of the paid game itself (credits)."""
        return sum(w.pay_credits for w in self.wins)

    @property
    def free_games_win_credits(self) -> int:
        return sum(f.win_credits for f in self.free_games)

    @property
    def exceeds_max_award(self) -> bool:
        """True when the total win is above the game's maximum award (the award guard)."""
        return self.max_award_credits is not None and self.total_win_credits > self.max_award_credits

    def to_dict(self) -> dict[str, Any]:
        return {
            "stops": list(self.stops),
            "window": [list(r) for r in self.window],
            "wins": [w.to_dict() for w in self.wins],
            "base_win_credits": self.base_win_credits,
            "free_games_awarded": self.free_games_awarded,
            "choice": self.choice,
            "free_games": [f.to_dict() for f in self.free_games],
            "free_games_win_credits": self.free_games_win_credits,
            "total_win_credits": self.total_win_credits,
            "progressive": list(self.progressive),
            "max_award_credits": self.max_award_credits,
            "exceeds_max_award": self.exceeds_max_award,
            "bet": self.bet.to_dict() if self.bet is not None else None,
            "variation": self.variation,
        }


# --------------------------------------------------------------------------- compiled tables
class _Table:
    """Pay lookups for one game (per-count pay tuples indexed 0..reel_count)."""

    __slots__ = ("wild", "scatter", "regular", "subs", "pays", "paying_regular", "scatter_symbol", "wmult", "wadd",
                 "groups", "wild_pays_ways", "plain", "weights")

    def __init__(self, game: GameDefinition) -> None:
        n = game.reel_count
        self.wild = game.wild.id if game.wild else None
        self.scatter_symbol = game.scatter
        self.scatter = game.scatter.id if game.scatter else None
        self.regular = frozenset(s.id for s in game.symbols if s.kind == "regular")
        self.subs = game.substitutable()
        self.pays = {s.id: tuple(s.pay(c) if s.kind != "scatter" else 0 for c in range(n + 1)) for s in game.symbols}
        self.paying_regular = tuple(s.id for s in game.symbols if s.kind == "regular" and s.pays)
        self.wmult = game.wild.multiplier if game.wild else 1
        self.wadd = game.wild_multiplier_combine == "add"
        # (group id, members, wild substitutes for every member, pays by count)
        self.groups = tuple((g.id, frozenset(g.members), bool(self.wild) and set(g.members) <= self.subs,
                             tuple(g.pay(c) for c in range(n + 1))) for g in game.groups)
        self.wild_pays_ways = game.kind == "reel_cost" and game.wild is not None and bool(game.wild.pays)
        self.plain = not self.groups and self.wmult == 1  # lines read without groups or multiplying wilds
        self.weights: dict[tuple, dict[str, Sequence[int]]] = {}  # way_weights memo

    def factor(self, wilds: int) -> int:
        """Win multiplier of ``wilds`` multiplying wilds on one win (1 without any)."""
        if not wilds or self.wmult == 1:
            return 1
        return self.wmult * wilds if self.wadd else self.wmult ** wilds


def _table(game: GameDefinition) -> _Table:
    t = game._cache.get("eval_table")
    if t is None:
        t = game._cache["eval_table"] = _Table(game)
    return t


def _line_runs(t: _Table, symbols: Sequence[str]) -> tuple[int, tuple | None, tuple]:
    """The readings of one line from reel 1: leading wilds ``w``; the substituted run
    ``(symbol, length, wilds in it)`` (None when the line cannot start one); per group
    ``(length, wilds in it, has a member)``."""
    wild = t.wild
    n = len(symbols)
    w = 0
    while w < n and symbols[w] == wild:
        w += 1
    sub_run = None
    if w < n:
        s = symbols[w]
        if s in t.regular and (w == 0 or s in t.subs):
            sub = s in t.subs
            k, nw = w + 1, w
            while k < n and (symbols[k] == s or (sub and symbols[k] == wild)):
                nw += symbols[k] == wild
                k += 1
            sub_run = (s, k, nw)
    grp = []
    for _gid, members, gsub, _pays in t.groups:
        k = nw = 0
        member = False
        while k < n and (symbols[k] in members or (gsub and symbols[k] == wild)):
            if symbols[k] == wild:
                nw += 1
            else:
                member = True
            k += 1
        grp.append((k, nw, member))
    return w, sub_run, tuple(grp)


def read_line(game: GameDefinition, symbols: Sequence[str]) -> tuple[str, int, int, int] | None:
    """Best combination on one line read left to right: ``(symbol or group id, count, pay,
    wild multiplier)`` or None; ``pay`` is per bet-multiplier credit with the wild multiplier
    applied. The highest pay wins; ties: substituted symbol, then wild-only, then groups in order."""
    t = _table(game)
    if t.plain:
        return _read_plain(t, symbols)
    w, sub_run, grp = _line_runs(t, symbols)
    best = None
    if w and t.wild is not None:
        wp = t.pays[t.wild][w]
        if wp:
            best = (t.wild, w, wp, 1)
    if sub_run is not None:
        s, k, nw = sub_run
        p = t.pays[s][k]
        if p:
            f = t.factor(nw)
            if best is None or p * f >= best[2]:
                best = (s, k, p * f, f)
    for (gid, _m, _g, pays), (k, nw, member) in zip(t.groups, grp):
        p = pays[k] if member else 0
        if p:
            f = t.factor(nw)
            if best is None or p * f > best[2]:
                best = (gid, k, p * f, f)
    return best


def _read_plain(t: _Table, symbols: Sequence[str]) -> tuple[str, int, int, int] | None:
    """:func:`read_line` without groups or a multiplying wild (the same rule, fewer steps)."""
    wild = t.wild
    n = len(symbols)
    w = 0
    while w < n and symbols[w] == wild:
        w += 1
    best = None
    if w and wild is not None:
        wp = t.pays[wild][w]
        if wp:
            best = (wild, w, wp, 1)
    if w < n:
        s = symbols[w]
        if s in t.regular and (w == 0 or s in t.subs):
            sub = s in t.subs
            k = w + 1
            while k < n and (symbols[k] == s or (sub and symbols[k] == wild)):
                k += 1
            p = t.pays[s][k]
            if p and (best is None or p >= best[2]):
                best = (s, k, p, 1)
    return best


def score_line(game: GameDefinition, symbols: Sequence[str]) -> tuple[str, int, int] | None:
    """Best combination on one line read left to right: ``(symbol, count, pay)`` or None.

    The pay is per multiplier credit (multiply by the bet multiplier), wild multiplier included.
    Wild-only vs substituted vs group combinations, the highest pays (:func:`read_line`). Shared
    by :func:`evaluate`, the simulator's tables and the par sheet.
    """
    t = _table(game)
    best = _read_plain(t, symbols) if t.plain else read_line(game, symbols)
    return best[:3] if best is not None else None


def line_state(game: GameDefinition, prefix: Sequence[str]) -> tuple:
    """A key of a line prefix (reels 1..len(prefix)) such that two prefixes with the same key pay
    the same for every continuation: ``("done", read_line(prefix))`` when no reading can grow any
    more, else the readings themselves. The par sheet partitions line outcomes with it."""
    t = _table(game)
    n = len(prefix)
    w, sub_run, grp = _line_runs(t, prefix)
    alive = w == n or (sub_run is not None and sub_run[1] == n) or any(k == n for k, _, _ in grp)
    if not alive:
        return ("done", read_line(game, prefix))
    if t.wmult == 1:  # wild counts only matter to a multiplying wild
        sub_run = sub_run and sub_run[:2]
        grp = tuple((k, member) for k, _, member in grp)
    return ("open", w, sub_run, grp)


def active_rows(game: GameDefinition, bet: BetOption) -> tuple[tuple[int, ...], ...]:
    """Rows taking part in ways/lines per reel: all rows, except the centre row only on reels not bought."""
    all_rows = tuple(range(game.rows))
    if game.kind != "reel_cost":
        return (all_rows,) * game.reel_count
    centre = (game.centre_row,)
    return tuple(all_rows if i < (bet.reels or 0) else centre for i in range(game.reel_count))


def way_weights(game: GameDefinition, symbol: str, wild_multipliers: Sequence[int] = ()) -> dict[str, Sequence[int]]:
    """Weight of each symbol id as a match for ``symbol`` in a ways product, per reel: 1 for the
    symbol itself, the reel's wild multiplier (1 by default) for a substituting wild, 0 else."""
    t = _table(game)
    key = (symbol, tuple(wild_multipliers))
    out = t.weights.get(key)
    if out is None:
        R = game.reel_count
        out = {symbol: (1,) * R}
        if t.wild is not None and symbol in t.subs:
            reel = key[1] or (1,) * R
            out[t.wild] = tuple(m * t.wmult for m in reel)
        t.weights[key] = out
    return out


def draw_stops(strips: Sequence[Sequence[str]], rng: RandBelow) -> tuple[int, ...]:
    """One uniform stop per reel: ``rng.randbelow(len(strip))`` (live: the CSPRNG)."""
    return tuple(rng.randbelow(len(strip)) for strip in strips)


# --------------------------------------------------------------------------- one round
def _check_stops(stops: Sequence[int], reels: Sequence[Sequence[str]], what: str) -> tuple[int, ...]:
    if len(stops) != len(reels):
        raise ValueError(f"{what}: expected {len(reels)} stops, got {len(stops)}")
    checked = []
    for i, (s, strip) in enumerate(zip(stops, reels)):
        try:
            if isinstance(s, bool):
                raise TypeError
            s = operator.index(s)
        except TypeError:
            raise ValueError(f"{what}[{i}]: must be an integer 0..{len(strip) - 1}; got {s!r}") from None
        if not 0 <= s < len(strip):
            raise ValueError(f"{what}[{i}]: must be an integer 0..{len(strip) - 1}; got {s!r}")
        checked.append(s)
    return tuple(checked)


def _round(game: GameDefinition, bet: BetOption, reels: Sequence[Sequence[str]], stops: tuple[int, ...],
           wild_mults: Sequence[int], win_mult: int) -> tuple[tuple[tuple[str, ...], ...], list[Win], int]:
    """Window, wins and trigger-scatter count of one round (paid or free) at these stops."""
    rows = game.rows
    window = tuple(tuple(strip[(s + r) % len(strip)] for s, strip in zip(stops, reels)) for r in range(rows))
    t = _table(game)
    wins: list[Win] = []
    m = bet.multiplier * win_mult
    if game.kind == "lines":
        for li in range(bet.lines or 0):
            shape = game.lines[li]
            best = score_line(game, [window[r][i] for i, r in enumerate(shape)])
            if best is not None:
                sym, count, pay = best
                wins.append(Win(kind="line", line=li + 1, symbol=sym, count=count, pay_credits=pay * m,
                                positions=tuple((shape[i], i) for i in range(count)), multiplier=win_mult))
    elif t.wild_pays_ways:
        wins.extend(_ways_with_wild_pays(game, t, active_rows(game, bet), window, m, win_mult))
    else:
        act = active_rows(game, bet)
        for sym in t.paying_regular:
            weights = way_weights(game, sym, wild_mults)
            ways = 1
            n = 0
            pos: list[tuple[int, int]] = []
            for i, rws in enumerate(act):
                hits = [(r, i) for r in rws if window[r][i] in weights]
                if not hits:
                    break
                ways *= sum(weights[window[r][i]][i] for r, _ in hits)
                pos.extend(hits)
                n += 1
            pay = t.pays[sym][n]
            if pay:
                wins.append(Win(kind="way", ways=ways, symbol=sym, count=n, pay_credits=pay * ways * m,
                                positions=tuple(pos), multiplier=win_mult))
    count = 0
    if t.scatter_symbol is not None:
        sc = t.scatter_symbol.id
        pos = [(r, i) for r in range(rows) for i in range(game.reel_count) if window[r][i] == sc]
        count = len(pos)
        pay = t.scatter_symbol.pay(count) if pos else 0
        if pay:
            wins.append(Win(kind="scatter", symbol=sc, count=count, pay_credits=pay * bet.credits * win_mult,
                            positions=tuple(pos), multiplier=win_mult))
    return window, wins, count


def _ways_with_wild_pays(game: GameDefinition, t: _Table, act: Sequence[Sequence[int]],
                         window: tuple[tuple[str, ...], ...], m: int, win_mult: int) -> list[Win]:
    """Way wins of a ways game whose wild has its own pays (module rules): the wild's way-win,
    then per symbol the ways with at least one of the symbol, each paying
    max(symbol pay(n), wild pay(leading wilds))."""
    wild = t.wild
    assert wild is not None, "wild_pays_ways is set only for a game with a wild"
    wins: list[Win] = []
    wc = [sum(1 for r in rws if window[r][i] == wild) for i, rws in enumerate(act)]
    w = 0
    while w < len(act) and wc[w]:
        w += 1
    wpays = t.pays[wild]
    if wpays[w]:
        ways = math.prod(wc[:w])
        wins.append(Win(kind="way", ways=ways, symbol=wild, count=w, pay_credits=wpays[w] * ways * m,
                        positions=tuple((r, i) for i in range(w) for r in act[i] if window[r][i] == wild),
                        multiplier=win_mult))
    for sym in t.paying_regular:
        sub = sym in t.subs
        sc = [sum(1 for r in rws if window[r][i] == sym) for i, rws in enumerate(act)]
        mt = [sc[i] + (wc[i] if sub else 0) for i in range(len(act))]
        n = 0
        while n < len(act) and mt[n]:
            n += 1
        pn = t.pays[sym][n]
        total = ways = 0
        for j in range(n if sub else min(n, 1)):
            # ways with exactly j leading wilds, then the symbol itself on reel j + 1
            cnt = math.prod(wc[:j]) * sc[j] * math.prod(mt[j + 1:n])
            if cnt:
                ways += cnt
                total += cnt * max(pn, wpays[j])
        if total:
            pos = tuple((r, i) for i in range(n) for r in act[i] if window[r][i] == sym or (sub and window[r][i] == wild))
            wins.append(Win(kind="way", ways=ways, symbol=sym, count=n, pay_credits=total * m, positions=pos,
                            multiplier=win_mult))
    return wins


def _progressive(game: GameDefinition, bet: BetOption, window: tuple[tuple[str, ...], ...]) -> tuple[str, ...]:
    won: list[str] = []
    done: set[str] = set()
    for pc in sorted(game.progressives, key=lambda p: -p.count):
        if pc.symbol in done or not game.qualifies(pc, bet):
            continue
        reels = sum(1 for i in range(game.reel_count) if any(window[r][i] == pc.symbol for r in range(game.rows)))
        if reels >= pc.count:
            won.append(pc.level)
            done.add(pc.symbol)
    return tuple(won)


def _play(game: GameDefinition, bet: BetOption, variation: str | None, choice: Any,
          stops: Sequence[int], free_stops: Callable[[int, Sequence[Sequence[str]]], Sequence[int]]) -> SpinOutcome:
    game.check_bet(bet)
    ch_index = game.resolve_choice(choice)
    var = game.variation(variation)
    stops = _check_stops(stops, var.reels, "stops")
    window, wins, count = _round(game, bet, var.reels, stops, (), 1)
    total = sum(w.pay_credits for w in wins)
    fg = game.free_games
    frees: list[FreeGame] = []
    awarded = 0
    if fg is not None and count >= fg.count:
        assert ch_index is not None, "resolve_choice gives an index whenever the game has free games"
        ch: FreeGameChoice = fg.choices[ch_index]
        awarded = pending = ch.games_for(count)
        strips = var.free_strips
        while pending:
            if len(frees) >= MAX_FREE_GAMES:
                raise RuntimeError(f"free games exceeded the engineering guard of {MAX_FREE_GAMES}")
            pending -= 1
            fs = _check_stops(free_stops(len(frees), strips), strips, f"free_stops[{len(frees)}]")
            fw, fwins, fc = _round(game, bet, strips, fs, ch.wild_multipliers, ch.win_multiplier)
            more = ch.games_for(fc) if fg.retrigger and fc >= fg.count else 0
            pending += more
            win = sum(w.pay_credits for w in fwins)
            total += win
            frees.append(FreeGame(number=len(frees) + 1, stops=fs, window=fw, wins=tuple(fwins), win_credits=win,
                                  retrigger=more))
    return SpinOutcome(
        stops=stops,
        window=window,
        wins=tuple(wins),
        total_win_credits=total,
        bet=bet,
        variation=var.key,
        free_games=tuple(frees),
        free_games_awarded=awarded,
        choice=ch_index if frees else None,
        progressive=_progressive(game, bet, window) if game.progressives else (),
        max_award_credits=game.max_award_credits,
    )


# --------------------------------------------------------------------------- play
def spin(game: GameDefinition, bet: BetOption, rng: RandBelow, variation: str | None = None,
         choice: int | None = None) -> SpinOutcome:
    """Play one paid game: draw one stop per reel with ``rng.randbelow(len(strip))``, evaluate
    it and play any free games it awards (each drawing its stops on the free-game strips).

    ``variation`` None → the game's default; ``choice`` the free-games configuration index
    (None → the game's default choice). Raises ``InvalidBet`` (bet or choice not offered) and
    ``UnknownVariation``.
    """
    game.check_bet(bet)
    game.resolve_choice(choice)
    var = game.variation(variation)
    stops = draw_stops(var.reels, rng)
    return _play(game, bet, var.key, choice, stops, lambda _i, strips: draw_stops(strips, rng))


def evaluate(game: GameDefinition, bet: BetOption, stops: Sequence[int], variation: str | None = None, *,
             choice: int | None = None, free_stops: Iterable[Sequence[int]] | None = None) -> SpinOutcome:
    """Deterministic outcome of the given paid-game ``stops`` (one per reel, 0 ≤ stop < strip length)
    and, when the game awards free games, ``free_stops`` (one stop tuple per free game played, on
    the free-game strips, in order).

    Returns the :class:`SpinOutcome` (pays in credits; see the module rules). Raises
    ``InvalidBet`` (bet or choice not offered), ``UnknownVariation`` and ``ValueError`` (bad
    stops; fewer or more free-game stops than free games played).
    """
    it = iter(free_stops or ())

    def nxt(i: int, _strips: Sequence[Sequence[str]]) -> Sequence[int]:
        try:
            return next(it)
        except StopIteration:
            raise ValueError(f"free_stops: free game {i + 1} needs its stops") from None

    out = _play(game, bet, variation, choice, stops, nxt)
    if next(it, None) is not None:
        raise ValueError(f"free_stops: only {len(out.free_games)} free games were played")
    return out
