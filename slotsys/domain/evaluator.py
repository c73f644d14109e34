"""The ONE slot evaluator: live play, simulation and par-sheet checks all call it.

Pure domain. Randomness comes in as any object with ``randbelow(n) -> int`` in ``[0, n)``
(live play: :class:`SystemRng`, i.e. ``secrets.randbelow``; simulations and tests:
:class:`SeededRng`). Every pay is an ``int`` number of credits; no float touches money.

Rules
    Window: reel i stopped at ``s`` shows ``strip[(s + row) % len(strip)]`` on ``row`` (0 = top);
    ``window[row][reel]``.

    Lines game (``kind == "lines"``): only lines 1..N of the selected line count N are played.
    Each line is read left to right from reel 1 and pays ONE win, the higher of
      * the wild-only combination (leading wilds, paid from the wild's own pays), and
      * the substituted combination: the first non-wild symbol, if it is a regular symbol,
        followed or preceded by wilds standing in for it (wilds never substitute for scatters);
    ties go to the substituted (longer) combination. Line win = pay × multiplier.

    Reel-cost (243-ways) game: on bought reels every row is active, on the others only the
    centre row. For each regular paying symbol, reels 1, 2, ... are matched while they have at
    least one active position showing the symbol or a wild; n-of-a-kind = reels matched,
    ways = product of matching positions on those reels. One way-win per symbol (its highest
    count); way win = pay(n) × ways × multiplier.

    Scatter (both kinds): the scatter symbols anywhere in the whole window, on every reel and row
    whether bought or not, pay ``scatter pay(count) × total bet credits``.
"""

from __future__ import annotations

import operator
import random
from dataclasses import dataclass
from typing import Any, Literal, Sequence

from slotsys.domain.game import BetOption, GameDefinition
from slotsys.domain.ports import Csprng, Rng

__all__ = ["Win", "SpinOutcome", "spin", "evaluate", "SeededRng", "SystemRng", "RandBelow", "score_line"]

RandBelow = Rng  # any object with randbelow(n) -> int in [0, n)
SystemRng = Csprng  # live play: the operating system's CSPRNG (secrets.randbelow)


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

    ``kind``: ``"line"`` (``line`` = 1-based line number), ``"way"`` (``ways`` = number of ways)
    or ``"scatter"``; ``symbol`` the paying symbol (the wild for a wild-only line win);
    ``count`` n of a kind / number of scatters; ``pay_credits`` the pay in credits;
    ``positions`` the ``(row, reel)`` cells that make the win.
    """

    kind: Literal["line", "way", "scatter"]
    symbol: str
    count: int
    pay_credits: int
    positions: tuple[tuple[int, int], ...]
    line: int | None = None
    ways: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "line": self.line,
            "ways": self.ways,
            "symbol": self.symbol,
            "count": self.count,
            "pay_credits": self.pay_credits,
            "positions": [list(p) for p in self.positions],
        }


@dataclass(frozen=True)
class SpinOutcome:
    """The result of one game: ``stops`` per reel, ``window[row][reel]`` symbol ids, the ``wins``
    (lines in line order, then ways in symbol order, then scatter) and ``total_win_credits``
    (their sum, credits). ``bet`` and ``variation`` are recorded for game recall."""

    stops: tuple[int, ...]
    window: tuple[tuple[str, ...], ...]
    wins: tuple[Win, ...]
    total_win_credits: int
    bet: BetOption | None = None
    variation: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "stops": list(self.stops),
            "window": [list(r) for r in self.window],
            "wins": [w.to_dict() for w in self.wins],
            "total_win_credits": self.total_win_credits,
            "bet": self.bet.to_dict() if self.bet is not None else None,
            "variation": self.variation,
        }


# --------------------------------------------------------------------------- compiled tables
class _Table:
    """Pay lookups for one game (per-count pay tuples indexed 0..reel_count)."""

    __slots__ = ("wild", "scatter", "regular", "pays", "paying_regular", "scatter_symbol")

    def __init__(self, game: GameDefinition) -> None:
        n = game.reel_count
        self.wild = game.wild.id if game.wild else None
        self.scatter_symbol = game.scatter
        self.scatter = game.scatter.id if game.scatter else None
        self.regular = frozenset(s.id for s in game.symbols if s.kind == "regular")
        self.pays = {s.id: tuple(s.pay(c) if s.kind != "scatter" else 0 for c in range(n + 1)) for s in game.symbols}
        self.paying_regular = tuple(s.id for s in game.symbols if s.kind == "regular" and s.pays)


def _table(game: GameDefinition) -> _Table:
    t = game._cache.get("eval_table")
    if t is None:
        t = game._cache["eval_table"] = _Table(game)
    return t


def score_line(game: GameDefinition, symbols: Sequence[str]) -> tuple[str, int, int] | None:
    """Best combination on one line read left to right: ``(symbol, count, paytable pay)`` or None.

    The pay is per multiplier credit (multiply by the bet multiplier). Wild-only vs substituted
    combination, the higher pays (tie → substituted). Shared by :func:`evaluate` and the par sheet.
    """
    t = _table(game)
    wild = t.wild
    n = len(symbols)
    w = 0
    while w < n and symbols[w] == wild:
        w += 1
    best = None
    if w and wild is not None:
        wp = t.pays[wild][w]
        if wp:
            best = (wild, w, wp)
    if w < n:
        s = symbols[w]
        if s in t.regular:
            k = w + 1
            while k < n and (symbols[k] == s or symbols[k] == wild):
                k += 1
            p = t.pays[s][k]
            if p and (best is None or p >= best[2]):
                best = (s, k, p)
    return best


def active_rows(game: GameDefinition, bet: BetOption) -> tuple[tuple[int, ...], ...]:
    """Rows taking part in ways/lines per reel: all rows, except the centre row only on reels not bought."""
    all_rows = tuple(range(game.rows))
    if game.kind != "reel_cost":
        return (all_rows,) * game.reel_count
    centre = (game.centre_row,)
    return tuple(all_rows if i < (bet.reels or 0) else centre for i in range(game.reel_count))


# --------------------------------------------------------------------------- play
def spin(game: GameDefinition, bet: BetOption, rng: RandBelow, variation: str | None = None) -> SpinOutcome:
    """Draw one stop per reel with ``rng.randbelow(len(strip))`` and :func:`evaluate` it.

    ``variation`` None → the game's default. Raises ``InvalidBet`` for a bet the game does not
    offer and ``UnknownVariation`` for an unknown variation.
    """
    var = game.variation(variation)
    stops = [rng.randbelow(len(strip)) for strip in var.reels]
    return evaluate(game, bet, stops, var.key)


def evaluate(game: GameDefinition, bet: BetOption, stops: Sequence[int], variation: str | None = None) -> SpinOutcome:
    """Deterministic outcome of the given ``stops`` (one per reel, 0 ≤ stop < strip length).

    Returns the :class:`SpinOutcome` (pays in credits; see the module rules). Raises
    ``InvalidBet`` (bet not offered), ``UnknownVariation`` and ``ValueError`` (bad stops).
    """
    game.check_bet(bet)
    var = game.variation(variation)
    reels = var.reels
    if len(stops) != len(reels):
        raise ValueError(f"stops: expected {len(reels)} stops, got {len(stops)}")
    checked = []
    for i, (s, strip) in enumerate(zip(stops, reels)):
        try:
            if isinstance(s, bool):
                raise TypeError
            s = operator.index(s)
        except TypeError:
            raise ValueError(f"stops[{i}]: must be an integer 0..{len(strip) - 1}; got {s!r}") from None
        if not 0 <= s < len(strip):
            raise ValueError(f"stops[{i}]: must be an integer 0..{len(strip) - 1}; got {s!r}")
        checked.append(s)
    stops = checked
    rows = game.rows
    window = tuple(
        tuple(strip[(s + r) % len(strip)] for s, strip in zip(stops, reels)) for r in range(rows)
    )
    t = _table(game)
    wins: list[Win] = []
    m = bet.multiplier
    if game.kind == "lines":
        for li in range(bet.lines or 0):
            shape = game.lines[li]
            best = score_line(game, [window[r][i] for i, r in enumerate(shape)])
            if best is not None:
                sym, count, pay = best
                wins.append(Win(kind="line", line=li + 1, symbol=sym, count=count, pay_credits=pay * m,
                                positions=tuple((shape[i], i) for i in range(count))))
    else:
        act = active_rows(game, bet)
        wild = t.wild
        for sym in t.paying_regular:
            ways = 1
            n = 0
            pos: list[tuple[int, int]] = []
            for i, rws in enumerate(act):
                hits = [(r, i) for r in rws if window[r][i] == sym or window[r][i] == wild]
                if not hits:
                    break
                ways *= len(hits)
                pos.extend(hits)
                n += 1
            pay = t.pays[sym][n]
            if pay:
                wins.append(Win(kind="way", ways=ways, symbol=sym, count=n, pay_credits=pay * ways * m,
                                positions=tuple(pos)))
    if t.scatter is not None:
        sc = t.scatter
        pos = [(r, i) for r in range(rows) for i in range(game.reel_count) if window[r][i] == sc]
        pay = t.scatter_symbol.pay(len(pos)) if pos else 0
        if pay:
            wins.append(Win(kind="scatter", symbol=sc, count=len(pos), pay_credits=pay * bet.credits,
                            positions=tuple(pos)))
    return SpinOutcome(
        stops=tuple(stops),
        window=window,
        wins=tuple(wins),
        total_win_credits=sum(w.pay_credits for w in wins),
        bet=bet,
        variation=var.key,
    )
