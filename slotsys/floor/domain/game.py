"""Slot game definitions: symbols, paytables, lines, bet options and reel-strip variations.

Pure domain (standard library + PyYAML). A :class:`GameDefinition` is immutable and is
validated when it is built, whether by :func:`parse_game` from a YAML text or directly in
code, so an invalid game can never reach the evaluator or the par sheet.

Units
    * every pay is an ``int`` number of **credits**;
    * line and way pays in a paytable are credits per credit of the bet **multiplier**
      (a line win pays ``paytable × multiplier``; a way win pays ``paytable × ways × multiplier``);
    * scatter pays are multiples of the **total bet** in credits (``pay × bet.credits``).

Kinds
    ``"lines"``      -- N selectable paylines (lines 1..N are played), total bet = lines × multiplier.
    ``"reel_cost"``  -- all-ways game priced by the reels bought ("Reel Power", see
                        reference/slot_floor.md): total bet = cost(reels bought) × multiplier, e.g.

                        ====================  ==========================  ==============
                        reels bought          cost (credits × multiplier)  ways (3 rows)
                        ====================  ==========================  ==============
                        1                     1                            3
                        1-2                   3                            9
                        1-3                   7                            27
                        1-4                   15                           81
                        1-5                   25                           243
                        ====================  ==========================  ==============

                        On reels not bought only the centre row takes part in ways.

Geometry
    The window is ``rows × reel_count``; a reel whose stop is ``s`` shows ``strip[(s + row) % len]``
    on ``row`` (row 0 is the top row). A line lists, per reel, the row it crosses (0-based).

Variations
    Reel strips live under a variation key (e.g. ``"92"``) so a title can ship several RTP
    variations with one paytable; ``default_variation`` is used when a machine names none.

Features (all optional; see docs/game-format.md)
    * wild: substitutes for a declared set of regular symbols (default: all of them), never for
      scatters or bonus symbols; it may have its own pays (lines and ways games) and a base-game
      ``multiplier`` (2×, 3×, 5× ...) applied to the wins it substitutes in, several on one win
      combining by ``wild_multiplier_combine`` (``multiply``, the default, or ``add``);
    * symbol groups (lines games): ``groups`` name a set of regular symbols ("any bar") with
      their own pays; a line of any mix of the members pays the group pay;
    * free games: N or more scatters award K free games (per scatter count), played inside the
      paid game on the free-game strips of the variation (default: its base strips) with a win
      multiplier and per-reel wild multipliers (ways games); retriggers award again; an optional
      player choice between configurations (games / multipliers);
    * progressive combinations: the bonus (jackpot) symbol on ``count`` or more reels anywhere in
      the window, on a qualifying bet, wins a progressive level (evaluated, reported, never paid
      by the game math);
    * ``max_award_credits``: the award guard; a paid game whose total win exceeds it locks the
      machine for attendant verification.

Errors
    :class:`GameDefinitionError` (a ``ValueError``) carries the ``path`` of the offending item in
    the YAML document (0-based indices), e.g. ``variations.94.reels[2][17]: unknown symbol 'QX'``.
    :class:`InvalidBet` (a ``ValueError``) names the bet ``field``: ``"lines"``, ``"reels"`` or
    ``"multiplier"``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import Any, Literal, Mapping

import yaml

__all__ = [
    "BetOption",
    "SymbolGroup",
    "load_definition",
    "FreeGameChoice",
    "FreeGames",
    "ProgressiveCombo",
    "GameDefinition",
    "GameDefinitionError",
    "InvalidBet",
    "Symbol",
    "UnknownVariation",
    "Variation",
    "parse_game",
]

GameKind = Literal["lines", "reel_cost"]
SymbolKind = Literal["regular", "wild", "scatter", "bonus"]

GAME_KINDS: tuple[str, ...] = ("lines", "reel_cost")
SYMBOL_KINDS: tuple[str, ...] = ("regular", "wild", "scatter", "bonus")
WILD_COMBINES: tuple[str, ...] = ("multiply", "add")
MAX_WILD_MULTIPLIER = 100
MAX_FREE_GAMES_PER_AWARD = 1000

MAX_ROWS = 10
MAX_REELS = 10
MAX_STRIP = 1000

_GAME_ID = re.compile(r"^[a-z0-9][a-z0-9_]{0,63}$")
_SYMBOL_ID = re.compile(r"^[A-Z][A-Z0-9_]{0,15}$")
_VARIATION_KEY = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,31}$")
_GROUP_ID = re.compile(r"^[a-z][a-z0-9_]{0,31}$")
_LEVEL_KEY = re.compile(r"^[A-Z][A-Z0-9_]{0,31}$")
_STACK = re.compile(r"^([A-Z][A-Z0-9_]{0,15})\*([0-9]{1,3})$")


# --------------------------------------------------------------------------- errors
class GameDefinitionError(ValueError):
    """A game definition that is malformed or inconsistent.

    ``path`` locates the item in the YAML document (``symbols[3].pays``, ``lines[7][2]``,
    ``variations.94.reels[2][17]``; indices are 0-based); ``str(err)`` is ``"<path>: <message>"``.
    """

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = path
        self.message = message


class UnknownVariation(GameDefinitionError):
    """A variation key the game does not define (path ``"variation"``)."""


class InvalidBet(ValueError):
    """A bet the game does not offer. ``field`` is ``"lines"``, ``"reels"``, ``"multiplier"`` or ``"choice"``."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


# --------------------------------------------------------------------------- model
@dataclass(frozen=True)
class Symbol:
    """One reel symbol.

    ``kind``: ``"regular"`` (pays left to right), ``"wild"`` (substitutes for the regular symbols in
    ``substitutes`` -- all regular symbols when empty -- never for a scatter or bonus symbol; it
    may also have its own pays, lines and ways games alike), ``"scatter"`` (pays anywhere in the window, × total
    bet; triggers free games), ``"bonus"`` (pays nothing, is never substituted; the progressive
    jackpot symbol).
    ``pays``: ``((count, pay), ...)`` ascending by count. Regular and wild pays are credits per
    multiplier credit, listed for every count from the lowest paying one up to the reel count;
    scatter pays are multiples of the total bet and a count above the highest listed one pays
    as the highest listed one.
    ``multiplier`` (wild only, base game and free games alike): a line or way win the wild
    substitutes in is multiplied by it (per wild, combined by the game's
    ``wild_multiplier_combine``); a wild-only win is not multiplied. 1 = a plain wild.
    """

    id: str
    name: str
    kind: SymbolKind = "regular"
    pays: tuple[tuple[int, int], ...] = ()
    substitutes: tuple[str, ...] = ()
    multiplier: int = 1

    def pay(self, count: int) -> int:
        """Pay for ``count`` of this symbol: the entry of the highest listed count ≤ ``count`` (0 if none)."""
        best = 0
        for c, p in self.pays:
            if c <= count:
                best = p
        return best

    @property
    def min_count(self) -> int | None:
        """Lowest paying count, or None for a symbol that never pays."""
        return self.pays[0][0] if self.pays else None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"id": self.id, "name": self.name, "kind": self.kind, "pays": {c: p for c, p in self.pays}}
        if self.kind == "wild":
            d["substitutes"] = list(self.substitutes)
            d["multiplier"] = self.multiplier
        return d


@dataclass(frozen=True)
class SymbolGroup:
    """A mixed-symbol group ("any bar"): ``members`` (regular symbol ids, two or more) and its
    ``pays`` ``((count, pay), ...)`` in credits per multiplier credit, like a regular symbol's.

    Lines games only. A line whose leading symbols (from reel 1) are all members, in any mix,
    pays the group pay for their count; a wild that substitutes for every member stands in for
    the group. Each line pays its highest combination, so a line of one member only pays the
    better of that symbol's own pay and the group pay (a tie is paid as the symbol).
    """

    id: str
    name: str
    members: tuple[str, ...]
    pays: tuple[tuple[int, int], ...]

    pay = Symbol.pay  # the same rule for ``count`` members in a row from reel 1: 0 below the lowest listed count

    @property
    def kind(self) -> str:
        return "group"

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "members": list(self.members), "pays": {c: p for c, p in self.pays}}


@dataclass(frozen=True)
class Variation:
    """One set of reel strips (an RTP variation). ``reels[i]`` is reel i's strip of symbol ids;
    ``free_reels`` the strips free games are played on (empty: the base ``reels``)."""

    key: str
    reels: tuple[tuple[str, ...], ...]
    free_reels: tuple[tuple[str, ...], ...] = ()

    @property
    def free_strips(self) -> tuple[tuple[str, ...], ...]:
        """The strips free games use: ``free_reels`` or, when there are none, ``reels``."""
        return self.free_reels or self.reels


@dataclass(frozen=True)
class FreeGameChoice:
    """One free-games configuration (the only one, or one the player may choose).

    ``games``: ``((scatter count, games awarded), ...)`` ascending; a count above the highest
    listed awards the highest listed. ``win_multiplier`` multiplies every free-game win (line,
    way and scatter). ``wild_multipliers[i]``: a wild on reel i counts as that many positions in
    the ways product (ways games only; 1 = plain wild), so wild multipliers multiply.
    """

    games: tuple[tuple[int, int], ...]
    win_multiplier: int = 1
    wild_multipliers: tuple[int, ...] = ()
    name: str = ""

    def games_for(self, count: int) -> int:
        """Free games awarded for ``count`` trigger symbols (0 below the lowest listed count)."""
        best = 0
        for c, g in self.games:
            if c <= count:
                best = g
        return best

    def wild_multiplier(self, reel: int) -> int:
        return self.wild_multipliers[reel] if self.wild_multipliers else 1

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "games": {c: g for c, g in self.games}, "win_multiplier": self.win_multiplier,
                "wild_multipliers": list(self.wild_multipliers) or None}


@dataclass(frozen=True)
class FreeGames:
    """Free-games feature: ``count`` or more ``symbol`` (the scatter, counted anywhere in the
    window, bought and unbought reels alike) award the chosen configuration's games; when
    ``retrigger`` is true the same count in a free game awards that many again. ``choices`` has
    one entry for a game without a player choice; ``default_choice`` is used when none is given."""

    symbol: str
    count: int
    choices: tuple[FreeGameChoice, ...]
    retrigger: bool = True
    default_choice: int = 0

    @property
    def has_choice(self) -> bool:
        return len(self.choices) > 1

    def to_dict(self) -> dict[str, Any]:
        return {"trigger": {"symbol": self.symbol, "count": self.count}, "retrigger": self.retrigger,
                "choices": [c.to_dict() for c in self.choices], "default_choice": self.default_choice}


@dataclass(frozen=True)
class ProgressiveCombo:
    """A combination that wins progressive ``level``: ``symbol`` visible on ``count`` or more reels
    (anywhere in the window) in a paid game whose bet is at least ``min_bet_credits`` (None: the
    maximum bet only). Evaluated and reported; the jackpot controller pays it."""

    level: str
    symbol: str
    count: int
    min_bet_credits: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"level": self.level, "symbol": self.symbol, "count": self.count,
                "min_bet": "max" if self.min_bet_credits is None else self.min_bet_credits}


@dataclass(frozen=True)
class BetOption:
    """One bet a player may place.

    ``lines`` (lines game) or ``reels`` (reels bought, reel_cost game) -- the other is None;
    ``multiplier`` credits per line / per cost unit; ``credits`` = total bet in credits
    (lines × multiplier, or cost(reels) × multiplier).
    """

    lines: int | None
    reels: int | None
    multiplier: int
    credits: int

    def to_dict(self) -> dict[str, Any]:
        return {"lines": self.lines, "reels": self.reels, "multiplier": self.multiplier, "credits": self.credits}


def _frozen_variations(v: Mapping[str, Variation] | tuple[Variation, ...]) -> Mapping[str, Variation]:
    if isinstance(v, Mapping):
        return MappingProxyType(dict(v))
    return MappingProxyType({x.key: x for x in v})


@dataclass(frozen=True)
class GameDefinition:
    """A slot game: geometry, symbols and pays, bet options and reel-strip variations.

    Lines game: ``line_options`` (selectable line counts) and ``lines`` (line k+1 = ``lines[k]``,
    a row per reel). Reel-cost game: ``reel_costs`` = ``((reels bought, cost credits), ...)`` for
    1..reel_count. Both: ``multipliers``. ``variations`` maps a key to its :class:`Variation`
    (iterating it yields the keys). ``groups``: mixed-symbol groups (lines games);
    ``wild_multiplier_combine``: ``"multiply"`` or ``"add"`` (several multiplying wilds on one
    win). Raises :class:`GameDefinitionError` when inconsistent.
    """

    id: str
    name: str
    kind: GameKind
    rows: int
    reel_count: int
    symbols: tuple[Symbol, ...]
    multipliers: tuple[int, ...]
    variations: Mapping[str, Variation] = field(hash=False)
    default_variation: str
    line_options: tuple[int, ...] = ()
    lines: tuple[tuple[int, ...], ...] = ()
    reel_costs: tuple[tuple[int, int], ...] = ()
    description: str = ""
    free_games: FreeGames | None = None
    progressives: tuple[ProgressiveCombo, ...] = ()
    max_award_credits: int | None = None
    groups: tuple[SymbolGroup, ...] = ()
    wild_multiplier_combine: str = "multiply"
    # private memo for derived tables (evaluator / par sheet); not part of the value
    _cache: dict = field(default_factory=dict, init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "variations", _frozen_variations(self.variations))
        _validate(self)
        object.__setattr__(self, "_by_id", {s.id: s for s in self.symbols})

    def __reduce__(self):
        """Pickle as the constructor's arguments: the read-only variations mapping does not pickle, and
        the derived-table memo is rebuilt where the copy is used (simulation worker processes)."""
        args = {f.name: getattr(self, f.name) for f in fields(self) if f.init}
        args["variations"] = dict(self.variations)
        return (_rebuild_game, (args,))

    # ---- symbols
    def symbol(self, symbol_id: str) -> Symbol:
        """The symbol with this id (KeyError if unknown)."""
        return self._by_id[symbol_id]  # type: ignore[attr-defined]

    @property
    def wild(self) -> Symbol | None:
        return next((s for s in self.symbols if s.kind == "wild"), None)

    @property
    def scatter(self) -> Symbol | None:
        return next((s for s in self.symbols if s.kind == "scatter"), None)

    def substitutable(self) -> frozenset[str]:
        """Regular symbols the wild stands in for (empty without a wild)."""
        w = self.wild
        if w is None:
            return frozenset()
        return frozenset(w.substitutes) if w.substitutes else frozenset(
            s.id for s in self.symbols if s.kind == "regular")

    # ---- features
    def resolve_choice(self, choice: Any = None) -> int | None:
        """Validate a free-games choice index; None → the default choice (None without free games).
        A game with one free-games configuration accepts only None or 0.

        Raises :class:`InvalidBet` ``("choice", ...)`` for a choice the game does not offer.
        """
        fg = self.free_games
        if choice is None:
            return fg.default_choice if fg is not None else None
        if fg is None or (not fg.has_choice and choice != 0):
            raise InvalidBet("choice", f"{self.name} offers no free-games choice")
        n = len(fg.choices)
        if isinstance(choice, bool) or not isinstance(choice, int) or not 0 <= choice < n:
            raise InvalidBet("choice", f"choice must be an integer 0..{n - 1}; got {choice!r}")
        return choice

    def qualifies(self, combo: ProgressiveCombo, bet: BetOption) -> bool:
        """Whether ``bet`` qualifies for ``combo``'s level (max bet, or at least its minimum credits)."""
        need = self.full_bet().credits if combo.min_bet_credits is None else combo.min_bet_credits
        return bet.credits >= need

    @property
    def centre_row(self) -> int:
        """The row that stays active on reels not bought (reel_cost games)."""
        return self.rows // 2

    # ---- variations
    def variation(self, key: str | None = None) -> Variation:
        """The variation ``key`` (default variation when None); raises :class:`UnknownVariation`."""
        k = self.default_variation if key is None or key == "" else str(key)
        try:
            return self.variations[k]
        except KeyError:
            known = ", ".join(self.variations)
            raise UnknownVariation("variation", f"game {self.id!r} has no variation {k!r}; known: {known}") from None

    # ---- bets
    def bet_options(self) -> list[BetOption]:
        """Every valid bet, ordered by lines/reels then multiplier."""
        cached = self._cache.get("bet_options")
        if cached is None:
            if self.kind == "lines":
                cached = tuple(
                    BetOption(lines=n, reels=None, multiplier=m, credits=n * m)
                    for n in self.line_options
                    for m in self.multipliers
                )
            else:
                cached = tuple(
                    BetOption(lines=None, reels=b, multiplier=m, credits=c * m)
                    for b, c in self.reel_costs
                    for m in self.multipliers
                )
            self._cache["bet_options"] = cached
        return list(cached)

    def full_bet(self) -> BetOption:
        """Maximum bet: all lines (or all reels bought) at the highest multiplier."""
        return self.bet_options()[-1]

    def ways(self, bet: BetOption) -> int | None:
        """Ways played by a reel_cost bet (rows ** reels bought; unbought reels add 1 way each); None for lines."""
        if self.kind != "reel_cost" or bet.reels is None:
            return None
        return self.rows ** bet.reels

    def reel_cost(self, reels: int) -> int:
        """Cost in credits (per multiplier credit) of buying reels 1..``reels``."""
        return dict(self.reel_costs)[reels]

    def resolve_bet(self, *, lines: Any = None, reels: Any = None, multiplier: Any = None) -> BetOption:
        """Validate a requested bet and return its :class:`BetOption`.

        Lines game: ``lines`` required, ``reels`` must be None. Reel-cost game: ``reels`` (number of
        reels bought, 1..reel_count) required, ``lines`` must be None. ``multiplier`` must be one
        of ``multipliers``. Raises :class:`InvalidBet` naming the field, e.g.
        ``InvalidBet("lines", "lines must be one of 1, 5, 10, 20, 30, 40, 50; got 7")``.
        """
        if self.kind == "lines":
            if reels is not None:
                raise InvalidBet("reels", f"{self.name} is a lines game: choose lines, not reels")
            n = _bet_int("lines", lines, self.line_options)
            m = _bet_int("multiplier", multiplier, self.multipliers)
            return BetOption(lines=n, reels=None, multiplier=m, credits=n * m)
        if lines is not None:
            raise InvalidBet("lines", f"{self.name} is a reel-cost game: choose reels bought, not lines")
        costs = dict(self.reel_costs)
        b = _bet_int("reels", reels, tuple(costs))
        m = _bet_int("multiplier", multiplier, self.multipliers)
        return BetOption(lines=None, reels=b, multiplier=m, credits=costs[b] * m)

    def check_bet(self, bet: BetOption) -> BetOption:
        """Return ``bet`` if it is one of :meth:`bet_options`, else raise :class:`InvalidBet`."""
        if not isinstance(bet, BetOption):
            raise InvalidBet("multiplier", f"expected a BetOption, got {type(bet).__name__}")
        valid = self._cache.get("bet_set")
        if valid is None:
            valid = self._cache["bet_set"] = frozenset(self.bet_options())
        if bet not in valid:
            self.resolve_bet(lines=bet.lines, reels=bet.reels, multiplier=bet.multiplier)  # names the field
            raise InvalidBet("multiplier", f"credits {bet.credits} do not match the bet's lines/reels × multiplier")
        return bet

    # ---- export
    def to_dict(self, *, include_strips: bool = False) -> dict[str, Any]:
        """A JSON-ready description (paytable, lines, bet options; strips only when asked)."""
        d: dict[str, Any] = {
            "id": self.id,
            "name": self.name,
            "kind": self.kind,
            "rows": self.rows,
            "reel_count": self.reel_count,
            "description": self.description,
            "symbols": [s.to_dict() for s in self.symbols],
            "multipliers": list(self.multipliers),
            "default_variation": self.default_variation,
            "variations": list(self.variations),
        }
        if self.kind == "lines":
            d["line_options"] = list(self.line_options)
            d["lines"] = [list(x) for x in self.lines]
        else:
            d["reel_costs"] = {b: c for b, c in self.reel_costs}
        if self.free_games is not None:
            d["free_games"] = self.free_games.to_dict()
        if self.progressives:
            d["progressive"] = [p.to_dict() for p in self.progressives]
        if self.groups:
            d["groups"] = [g.to_dict() for g in self.groups]
        if self.wild is not None:
            d["wild_multiplier_combine"] = self.wild_multiplier_combine
        d["max_award_credits"] = self.max_award_credits
        if include_strips:
            d["strips"] = {k: [list(r) for r in v.reels] for k, v in self.variations.items()}
            d["free_strips"] = {k: [list(r) for r in v.free_reels] for k, v in self.variations.items() if v.free_reels}
        return d


def _rebuild_game(args: dict[str, Any]) -> GameDefinition:
    """Unpickle a :class:`GameDefinition` (validated again, like any other)."""
    return GameDefinition(**args)


def _bet_int(fieldname: str, value: Any, allowed: tuple[int, ...]) -> int:
    choices = ", ".join(str(a) for a in allowed)
    if value is None:
        raise InvalidBet(fieldname, f"{fieldname} is required (one of {choices})")
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidBet(fieldname, f"{fieldname} must be an integer, one of {choices}; got {value!r}")
    if value not in allowed:
        raise InvalidBet(fieldname, f"{fieldname} must be one of {choices}; got {value}")
    return value


# --------------------------------------------------------------------------- validation
def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _ascending_positive(path: str, values: tuple[int, ...], what: str) -> None:
    if not values:
        raise GameDefinitionError(path, f"at least one {what} is required")
    for i, v in enumerate(values):
        if not _is_int(v) or v <= 0:
            raise GameDefinitionError(f"{path}[{i}]", f"{what} must be a positive integer; got {v!r}")
    if any(b <= a for a, b in zip(values, values[1:])):
        raise GameDefinitionError(path, f"{what}s must be strictly ascending; got {list(values)}")


def _validate(g: GameDefinition) -> None:
    if not isinstance(g.id, str) or not _GAME_ID.match(g.id):
        raise GameDefinitionError("id", f"must match {_GAME_ID.pattern}; got {g.id!r}")
    if not isinstance(g.name, str) or not g.name.strip():
        raise GameDefinitionError("name", "must be a non-empty string")
    if g.kind not in GAME_KINDS:
        raise GameDefinitionError("kind", f"must be one of {', '.join(GAME_KINDS)}; got {g.kind!r}")
    if not _is_int(g.rows) or not 1 <= g.rows <= MAX_ROWS:
        raise GameDefinitionError("rows", f"must be an integer 1..{MAX_ROWS}; got {g.rows!r}")
    if not _is_int(g.reel_count) or not 1 <= g.reel_count <= MAX_REELS:
        raise GameDefinitionError("reel_count", f"must be an integer 1..{MAX_REELS}; got {g.reel_count!r}")

    # symbols
    if not g.symbols:
        raise GameDefinitionError("symbols", "at least one symbol is required")
    seen: set[str] = set()
    for i, s in enumerate(g.symbols):
        p = f"symbols[{i}]"
        if not isinstance(s.id, str) or not _SYMBOL_ID.match(s.id):
            raise GameDefinitionError(f"{p}.id", f"must match {_SYMBOL_ID.pattern}; got {s.id!r}")
        if s.id in seen:
            raise GameDefinitionError(f"{p}.id", f"duplicate symbol {s.id!r}")
        seen.add(s.id)
        if not isinstance(s.name, str) or not s.name.strip():
            raise GameDefinitionError(f"{p}.name", "must be a non-empty string")
        if s.kind not in SYMBOL_KINDS:
            raise GameDefinitionError(f"{p}.kind", f"must be one of {', '.join(SYMBOL_KINDS)}; got {s.kind!r}")
        _validate_pays(g, s, f"{p}.pays")
    kinds = {s.id: s.kind for s in g.symbols}
    for i, s in enumerate(g.symbols):
        if s.substitutes and s.kind != "wild":
            raise GameDefinitionError(f"symbols[{i}].substitutes", "only a wild substitutes")
        for j, t in enumerate(s.substitutes):
            if kinds.get(t) != "regular":
                what = "unknown symbol" if t not in kinds else f"a {kinds[t]} symbol cannot be substituted:"
                raise GameDefinitionError(f"symbols[{i}].substitutes[{j}]", f"{what} {t!r}")
    for kind in ("wild", "scatter"):
        if sum(1 for s in g.symbols if s.kind == kind) > 1:
            raise GameDefinitionError("symbols", f"at most one {kind} symbol is supported")
    if not any(s.pays for s in g.symbols):
        raise GameDefinitionError("symbols", "no symbol pays anything")
    _validate_wild(g)
    _validate_groups(g, kinds)

    _ascending_positive("bet.multipliers", g.multipliers, "multiplier")

    if g.kind == "lines":
        if g.reel_costs:
            raise GameDefinitionError("bet.reel_costs", "only a reel_cost game has reel costs")
        _ascending_positive("bet.lines", g.line_options, "line count")
        if not g.lines:
            raise GameDefinitionError("lines", "a lines game needs its line shapes")
        if g.line_options[-1] > len(g.lines):
            raise GameDefinitionError(
                "bet.lines", f"{g.line_options[-1]} lines offered but only {len(g.lines)} line shapes defined"
            )
        shapes: dict[tuple[int, ...], int] = {}
        for i, line in enumerate(g.lines):
            if len(line) != g.reel_count:
                raise GameDefinitionError(f"lines[{i}]", f"needs one row per reel ({g.reel_count}); got {len(line)}")
            for j, r in enumerate(line):
                if not _is_int(r) or not 0 <= r < g.rows:
                    raise GameDefinitionError(f"lines[{i}][{j}]", f"row must be an integer 0..{g.rows - 1}; got {r!r}")
            if tuple(line) in shapes:
                raise GameDefinitionError(f"lines[{i}]", f"same shape as lines[{shapes[tuple(line)]}]")
            shapes[tuple(line)] = i
    else:
        if g.lines or g.line_options:
            raise GameDefinitionError("lines", "a reel_cost game has no paylines")
        if g.rows % 2 == 0:
            raise GameDefinitionError("rows", "a reel_cost game needs an odd number of rows (a centre row)")
        bought = [b for b, _ in g.reel_costs]
        if bought != list(range(1, g.reel_count + 1)):
            raise GameDefinitionError(
                "bet.reel_costs", f"needs a cost for buying 1..{g.reel_count} reels; got reels {bought}"
            )
        _ascending_positive("bet.reel_costs", tuple(c for _, c in g.reel_costs), "reel cost")

    # variations
    if not g.variations:
        raise GameDefinitionError("variations", "at least one variation (set of reel strips) is required")
    if g.default_variation not in g.variations:
        raise GameDefinitionError(
            "default_variation", f"{g.default_variation!r} is not one of {', '.join(g.variations)}"
        )
    for key, v in g.variations.items():
        p = f"variations.{key}"
        if not isinstance(key, str) or not _VARIATION_KEY.match(key) or v.key != key:
            raise GameDefinitionError(p, f"variation key must match {_VARIATION_KEY.pattern} and equal its key")
        _validate_strips(g, f"{p}.reels", v.reels, seen)
        if v.free_reels:
            if g.free_games is None:
                raise GameDefinitionError(f"{p}.free_reels", "free-game strips need a free_games feature")
            _validate_strips(g, f"{p}.free_reels", v.free_reels, seen)
    _validate_features(g, kinds)
    if g.max_award_credits is not None and (not _is_int(g.max_award_credits) or g.max_award_credits <= 0):
        raise GameDefinitionError("max_award_credits", f"must be a positive integer; got {g.max_award_credits!r}")


def _validate_strips(g: GameDefinition, p: str, reels: tuple, seen: set[str]) -> None:
    if len(reels) != g.reel_count:
        raise GameDefinitionError(p, f"needs {g.reel_count} reel strips; got {len(reels)}")
    for i, strip in enumerate(reels):
        if not g.rows <= len(strip) <= MAX_STRIP:
            raise GameDefinitionError(f"{p}[{i}]", f"strip length must be {g.rows}..{MAX_STRIP}; got {len(strip)}")
        for j, sym in enumerate(strip):
            if sym not in seen:
                raise GameDefinitionError(f"{p}[{i}][{j}]", f"unknown symbol {sym!r}")


def count_distribution(rows: int, strips: tuple[tuple[str, ...], ...], symbol: str) -> list[int]:
    """Exact distribution of how many ``symbol`` show in the window: ``out[c]`` = number of stop
    combinations (of ``prod(len(strip))``) with ``c`` of them anywhere in the ``rows`` × reels window."""
    dist = [1]
    for strip in strips:
        n = len(strip)
        per = [0] * (rows + 1)
        for t in range(n):
            per[sum(1 for r in range(rows) if strip[(t + r) % n] == symbol)] += 1
        out = [0] * (len(dist) + rows)
        for a, x in enumerate(dist):
            if x:
                for b, y in enumerate(per):
                    out[a + b] += x * y
        dist = out
    return dist


def _validate_features(g: GameDefinition, kinds: Mapping[str, str]) -> None:
    fg = g.free_games
    if fg is not None:
        p = "features.free_games"
        if kinds.get(fg.symbol) != "scatter":
            raise GameDefinitionError(f"{p}.trigger.symbol", f"the trigger must be the scatter symbol; got {fg.symbol!r}")
        cells = g.rows * g.reel_count
        if not _is_int(fg.count) or not 1 <= fg.count <= cells:
            raise GameDefinitionError(f"{p}.trigger.count", f"must be an integer 1..{cells}; got {fg.count!r}")
        if not fg.choices:
            raise GameDefinitionError(f"{p}.choices", "at least one free-games configuration is required")
        if not _is_int(fg.default_choice) or not 0 <= fg.default_choice < len(fg.choices):
            raise GameDefinitionError(f"{p}.default_choice", f"must be 0..{len(fg.choices) - 1}; got {fg.default_choice!r}")
        for ci, ch in enumerate(fg.choices):
            cp = f"{p}.choices[{ci}]" if fg.has_choice else p
            if not ch.games:
                raise GameDefinitionError(f"{cp}.games", "the number of free games is required")
            counts = [c for c, _ in ch.games]
            if counts != sorted(set(counts)) or counts[0] != fg.count or counts[-1] > cells:
                raise GameDefinitionError(f"{cp}.games", f"scatter counts must ascend from the trigger count {fg.count} "
                                          f"up to {cells}; got {counts}")
            for c, n in ch.games:
                if not _is_int(n) or not 1 <= n <= MAX_FREE_GAMES_PER_AWARD:
                    raise GameDefinitionError(f"{cp}.games[{c}]", f"must be an integer 1..{MAX_FREE_GAMES_PER_AWARD}; got {n!r}")
            if not _is_int(ch.win_multiplier) or ch.win_multiplier < 1:
                raise GameDefinitionError(f"{cp}.win_multiplier", f"must be a positive integer; got {ch.win_multiplier!r}")
            if ch.wild_multipliers:
                if len(ch.wild_multipliers) != g.reel_count:
                    raise GameDefinitionError(f"{cp}.wild_multipliers", f"needs one multiplier per reel ({g.reel_count})")
                for i, m in enumerate(ch.wild_multipliers):
                    if not _is_int(m) or m < 1:
                        raise GameDefinitionError(f"{cp}.wild_multipliers[{i + 1}]", f"must be a positive integer; got {m!r}")
                if any(m != 1 for m in ch.wild_multipliers):
                    if g.kind != "reel_cost":
                        raise GameDefinitionError(f"{cp}.wild_multipliers", "wild multipliers apply to ways (reel_cost) games")
                    if g.wild is None:
                        raise GameDefinitionError(f"{cp}.wild_multipliers", "the game has no wild")
        # a feature that can never end: the expected retrigger award per free game must be below 1
        if fg.retrigger:
            for key, v in g.variations.items():
                dist = count_distribution(g.rows, v.free_strips, fg.symbol)
                total = sum(dist)
                for ci, ch in enumerate(fg.choices):
                    expected = sum(x * ch.games_for(c) for c, x in enumerate(dist) if c >= fg.count)
                    if expected >= total:
                        cp = f"{p}.choices[{ci}]" if fg.has_choice else p
                        raise GameDefinitionError(
                            f"{cp}.games", f"the free games can never end on variation {key}: each free game "
                            f"retriggers {expected / total:.3f} games on average (must be below 1)")
    levels: set[str] = set()
    for i, pc in enumerate(g.progressives):
        p = f"features.progressive[{i}]"
        if not isinstance(pc.level, str) or not _LEVEL_KEY.match(pc.level):
            raise GameDefinitionError(f"{p}.level", f"must match {_LEVEL_KEY.pattern}; got {pc.level!r}")
        if pc.level in levels:
            raise GameDefinitionError(f"{p}.level", f"duplicate level {pc.level!r}")
        levels.add(pc.level)
        if kinds.get(pc.symbol) not in ("bonus", "scatter"):
            raise GameDefinitionError(f"{p}.symbol", f"must be a bonus (or scatter) symbol; got {pc.symbol!r}")
        if not _is_int(pc.count) or not 1 <= pc.count <= g.reel_count:
            raise GameDefinitionError(f"{p}.count", f"must be an integer 1..{g.reel_count} (reels); got {pc.count!r}")
        if pc.min_bet_credits is not None and (not _is_int(pc.min_bet_credits) or pc.min_bet_credits <= 0):
            raise GameDefinitionError(f"{p}.min_bet", f"must be 'max' or a positive number of credits; got {pc.min_bet_credits!r}")


def _validate_wild(g: GameDefinition) -> None:
    """Wild multiplier, its combination rule, and what a ways game's paying wild may not combine with."""
    if g.wild_multiplier_combine not in WILD_COMBINES:
        raise GameDefinitionError("wild_multiplier_combine", f"must be one of {', '.join(WILD_COMBINES)}; "
                                  f"got {g.wild_multiplier_combine!r}")
    for i, s in enumerate(g.symbols):
        p = f"symbols[{i}].multiplier"
        if not _is_int(s.multiplier) or not 1 <= s.multiplier <= MAX_WILD_MULTIPLIER:
            raise GameDefinitionError(p, f"must be an integer 1..{MAX_WILD_MULTIPLIER}; got {s.multiplier!r}")
        if s.multiplier != 1 and s.kind != "wild":
            raise GameDefinitionError(p, "only a wild has a multiplier")
        if s.kind != "wild" or g.kind != "reel_cost":
            continue
        if s.pays and s.multiplier != 1:
            raise GameDefinitionError(p, "a ways (reel_cost) game's wild has either its own pays or a multiplier, "
                                      "not both")
        if s.pays and g.free_games is not None:
            for ci, ch in enumerate(g.free_games.choices):
                if any(m != 1 for m in ch.wild_multipliers):
                    cp = f"features.free_games.choices[{ci}]" if g.free_games.has_choice else "features.free_games"
                    raise GameDefinitionError(f"{cp}.wild_multipliers",
                                              f"a ways game whose wild has its own pays (symbols[{i}].pays) "
                                              "takes no wild multipliers")
    if g.kind == "reel_cost" and g.wild_multiplier_combine != "multiply":
        raise GameDefinitionError("wild_multiplier_combine", "a ways (reel_cost) game multiplies: every wild weighs "
                                  "its multiplier in the ways product")


def _validate_groups(g: GameDefinition, kinds: Mapping[str, str]) -> None:
    ids: set[str] = set()
    for i, grp in enumerate(g.groups):
        p = f"groups.{grp.id}" if isinstance(grp.id, str) else f"groups[{i}]"
        if g.kind != "lines":
            raise GameDefinitionError(p, "symbol groups apply to lines games")
        if not isinstance(grp.id, str) or not _GROUP_ID.match(grp.id):
            raise GameDefinitionError(p, f"group id must match {_GROUP_ID.pattern}; got {grp.id!r}")
        if grp.id in ids:
            raise GameDefinitionError(p, f"duplicate group {grp.id!r}")
        ids.add(grp.id)
        if not isinstance(grp.name, str) or not grp.name.strip():
            raise GameDefinitionError(f"{p}.name", "must be a non-empty string")
        if len(grp.members) < 2:
            raise GameDefinitionError(f"{p}.symbols", "a group needs two or more member symbols")
        for j, m in enumerate(grp.members):
            if kinds.get(m) != "regular":
                what = "unknown symbol" if m not in kinds else f"a {kinds[m]} symbol cannot be a group member:"
                raise GameDefinitionError(f"{p}.symbols[{j}]", f"{what} {m!r}")
            if m in grp.members[:j]:
                raise GameDefinitionError(f"{p}.symbols[{j}]", f"{m!r} is listed twice")
        if not grp.pays:
            raise GameDefinitionError(f"{p}.pays", "a group needs its pays")
        _validate_pays(g, Symbol(id="GROUP", name=grp.name, pays=grp.pays), f"{p}.pays")


def _validate_pays(g: GameDefinition, s: Symbol, path: str) -> None:
    counts = [c for c, _ in s.pays]
    for c, pay in s.pays:
        if not _is_int(c) or not _is_int(pay):
            raise GameDefinitionError(path, f"counts and pays must be integers; got {c!r}: {pay!r}")
        if pay <= 0:
            raise GameDefinitionError(f"{path}[{c}]", f"pay must be a positive number of credits; got {pay}")
    if counts != sorted(set(counts)):
        raise GameDefinitionError(path, "counts must be listed once each, ascending")
    pays = [p for _, p in s.pays]
    if any(b < a for a, b in zip(pays, pays[1:])):
        raise GameDefinitionError(path, "a higher count may not pay less than a lower one")
    if not s.pays:
        return
    if s.kind == "bonus":
        raise GameDefinitionError(path, "a bonus symbol pays nothing itself (it wins progressives)")
    if s.kind == "scatter":
        if counts[0] < 1 or counts[-1] > g.rows * g.reel_count:
            raise GameDefinitionError(path, f"scatter counts must be 1..{g.rows * g.reel_count}")
        return
    if counts[0] < 2:
        raise GameDefinitionError(path, "line and way pays start at 2 of a kind or more")
    if counts != list(range(counts[0], g.reel_count + 1)):
        raise GameDefinitionError(
            path, f"list a pay for every count from {counts[0]} to the reel count {g.reel_count}; got {counts}"
        )


# --------------------------------------------------------------------------- YAML
_TOP_KEYS = {"id", "name", "kind", "rows", "reel_count", "window", "description", "symbols", "bet", "lines",
             "features", "max_award_credits", "default_variation", "variations", "groups", "wild_multiplier_combine"}


def _req(d: Mapping[str, Any], key: str, path: str) -> Any:
    if key not in d:
        raise GameDefinitionError(f"{path}.{key}" if path else key, "is required")
    return d[key]


def _mapping(v: Any, path: str) -> Mapping[Any, Any]:
    if not isinstance(v, Mapping):
        raise GameDefinitionError(path, f"expected a mapping; got {type(v).__name__}")
    return v


def _list(v: Any, path: str) -> list[Any]:
    if not isinstance(v, list):
        raise GameDefinitionError(path, f"expected a list; got {type(v).__name__}")
    return v


def _int(v: Any, path: str) -> int:
    if not _is_int(v):
        raise GameDefinitionError(path, f"expected an integer; got {v!r}")
    return v


def _str(v: Any, path: str) -> str:
    if not isinstance(v, str):
        raise GameDefinitionError(path, f"expected a string; got {v!r}")
    return v


def _int_map(v: Any, path: str) -> tuple[tuple[int, int], ...]:
    m = _mapping(v, path)
    out = []
    for k, x in m.items():
        out.append((_int(k, f"{path}[{k!r}]"), _int(x, f"{path}[{k}]")))
    return tuple(sorted(out))


def _strip(v: Any, path: str) -> tuple[str, ...]:
    """A strip: a list or whitespace-separated string of symbol ids; ``SYM*n`` is a stack of n."""
    items = v.split() if isinstance(v, str) else _list(v, path)
    out: list[str] = []
    for j, sym in enumerate(items):
        if not isinstance(sym, str):
            raise GameDefinitionError(f"{path}[{len(out)}]", f"expected a symbol id; got {sym!r}")
        m = _STACK.match(sym)
        if m:
            n = int(m.group(2))
            if not 1 <= n <= MAX_STRIP:
                raise GameDefinitionError(f"{path}[{len(out)}]", f"stack size must be 1..{MAX_STRIP}; got {sym!r}")
            out.extend([m.group(1)] * n)
        else:
            out.append(sym)
    return tuple(out)


def _keys(d: Mapping[Any, Any], allowed: tuple[str, ...], path: str) -> None:
    for k in d:
        if k not in allowed:
            raise GameDefinitionError(f"{path}.{k}", "unknown key")


def _games_map(v: Any, path: str, trigger: int) -> tuple[tuple[int, int], ...]:
    if _is_int(v):
        return ((trigger, v),)
    return _int_map(v, path)


def _wild_mults(v: Any, path: str, reel_count: int) -> tuple[int, ...]:
    """``{reel number (1-based): multiplier}`` or a list with one entry per reel → per-reel tuple."""
    if v is None:
        return ()
    if isinstance(v, list):
        return tuple(_int(x, f"{path}[{i + 1}]") for i, x in enumerate(v))
    out = [1] * reel_count
    for k, x in _mapping(v, path).items():
        r = _int(k, f"{path}[{k!r}]")
        if not 1 <= r <= reel_count:
            raise GameDefinitionError(f"{path}[{r}]", f"reel must be 1..{reel_count}")
        out[r - 1] = _int(x, f"{path}[{r}]")
    return tuple(out)


def _parse_groups(v: Any) -> tuple[SymbolGroup, ...]:
    """``{group id: {name, symbols: [member ids], pays: {count: pay}}}`` → groups in file order."""
    out = []
    for gid, gd in _mapping(v, "groups").items():
        p = f"groups.{gid}"
        gd = _mapping(gd, p)
        _keys(gd, ("name", "symbols", "pays"), p)
        members = _list(_req(gd, "symbols", p), f"{p}.symbols")
        out.append(SymbolGroup(
            id=_str(gid, p), name=_str(gd.get("name", str(gid)), f"{p}.name"),
            members=tuple(_str(x, f"{p}.symbols[{j}]") for j, x in enumerate(members)),
            pays=_int_map(_req(gd, "pays", p), f"{p}.pays"),
        ))
    return tuple(out)


def _parse_features(v: Any, reel_count: int) -> tuple[FreeGames | None, tuple[ProgressiveCombo, ...]]:
    d = _mapping(v, "features")
    _keys(d, ("free_games", "progressive"), "features")
    fg = None
    if "free_games" in d:
        p = "features.free_games"
        f = _mapping(d["free_games"], p)
        _keys(f, ("trigger", "games", "win_multiplier", "wild_multipliers", "retrigger", "choices", "default_choice"), p)
        trig = _mapping(_req(f, "trigger", p), f"{p}.trigger")
        _keys(trig, ("symbol", "count"), f"{p}.trigger")
        count = _int(_req(trig, "count", f"{p}.trigger"), f"{p}.trigger.count")

        def choice(c: Mapping[Any, Any], cp: str, name: str) -> FreeGameChoice:
            return FreeGameChoice(
                games=_games_map(_req(c, "games", cp), f"{cp}.games", count),
                win_multiplier=_int(c.get("win_multiplier", 1), f"{cp}.win_multiplier"),
                wild_multipliers=_wild_mults(c.get("wild_multipliers"), f"{cp}.wild_multipliers", reel_count),
                name=_str(c.get("name", name), f"{cp}.name"),
            )

        if "choices" in f:
            for k in ("games", "win_multiplier", "wild_multipliers"):
                if k in f:
                    raise GameDefinitionError(f"{p}.{k}", "give it per choice (under choices)")
            choices = []
            for i, c in enumerate(_list(f["choices"], f"{p}.choices")):
                cp = f"{p}.choices[{i}]"
                c = _mapping(c, cp)
                _keys(c, ("name", "games", "win_multiplier", "wild_multipliers"), cp)
                choices.append(choice(c, cp, f"choice {i}"))
            choices_t = tuple(choices)
        else:
            choices_t = (choice(f, p, "free games"),)
        retrig = f.get("retrigger", True)
        if not isinstance(retrig, bool):
            raise GameDefinitionError(f"{p}.retrigger", f"expected true or false; got {retrig!r}")
        fg = FreeGames(symbol=_str(_req(trig, "symbol", f"{p}.trigger"), f"{p}.trigger.symbol"), count=count,
                       choices=choices_t, retrigger=retrig,
                       default_choice=_int(f.get("default_choice", 0), f"{p}.default_choice"))
    progs = []
    for i, x in enumerate(_list(d.get("progressive", []), "features.progressive")):
        p = f"features.progressive[{i}]"
        x = _mapping(x, p)
        _keys(x, ("level", "symbol", "count", "min_bet"), p)
        mb = x.get("min_bet", "max")
        progs.append(ProgressiveCombo(
            level=_str(_req(x, "level", p), f"{p}.level"), symbol=_str(_req(x, "symbol", p), f"{p}.symbol"),
            count=_int(_req(x, "count", p), f"{p}.count"),
            min_bet_credits=None if mb == "max" else _int(mb, f"{p}.min_bet"),
        ))
    return fg, tuple(progs)


def parse_game(text: str) -> GameDefinition:
    """Parse and validate a game definition from YAML text (the format: docs/game-format.md).

    Shape (keys not listed are refused; features, ``window``, ``free_reels``, ``SYM*n`` stacks,
    wild ``substitutes`` and ``multiplier``, ``wild_multiplier_combine``, ``groups`` and
    ``max_award_credits`` are described in docs/game-format.md)::

        id: dragon_pearl_50            # [a-z0-9_]
        name: Dragon Pearl
        kind: lines | reel_cost
        rows: 4
        reel_count: 5
        description: ...               # optional
        symbols:
          - {id: DRAGON, name: Dragon, kind: regular, pays: {2: 5, 3: 40, 4: 150, 5: 500}}
          - {id: PEARL, name: Pearl, kind: wild, pays: {...}}
          - {id: GONG, name: Gong, kind: scatter, pays: {3: 2, 4: 10, 5: 50}}   # × total bet
        bet:
          lines: [1, 5, 10, 20, 30, 40, 50]        # lines game
          reel_costs: {1: 1, 2: 3, 3: 7, 4: 15, 5: 25}   # reel_cost game
          multipliers: [1, 2, 3, 5, 10]
        lines:                          # lines game: a row (0 = top) per reel, line 1 first
          - [1, 1, 1, 1, 1]
        default_variation: "92"
        variations:
          "92":
            reels:                      # one strip per reel: a list, or a whitespace-separated string
              - [DRAGON, PEARL, ...]

    Returns the :class:`GameDefinition`; raises :class:`GameDefinitionError` with the path of
    the first problem found.
    """
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as e:
        raise GameDefinitionError("yaml", f"not valid YAML: {e}") from None
    d = _mapping(data, "$")
    for k in d:
        if k not in _TOP_KEYS:
            raise GameDefinitionError(str(k), "unknown key")

    symbols = []
    for i, sd in enumerate(_list(_req(d, "symbols", ""), "symbols")):
        p = f"symbols[{i}]"
        sd = _mapping(sd, p)
        for k in sd:
            if k not in ("id", "name", "kind", "pays", "substitutes", "multiplier"):
                raise GameDefinitionError(f"{p}.{k}", "unknown key")
        sid = _str(_req(sd, "id", p), f"{p}.id")
        subs = _list(sd.get("substitutes", []), f"{p}.substitutes")
        symbols.append(
            Symbol(
                id=sid,
                name=_str(sd.get("name", sid), f"{p}.name"),
                kind=_str(sd.get("kind", "regular"), f"{p}.kind"),  # type: ignore[arg-type]
                pays=_int_map(sd.get("pays") or {}, f"{p}.pays"),
                substitutes=tuple(_str(x, f"{p}.substitutes[{j}]") for j, x in enumerate(subs)),
                multiplier=_int(sd.get("multiplier", 1), f"{p}.multiplier"),
            )
        )
    groups = _parse_groups(d["groups"]) if "groups" in d else ()

    bet = _mapping(_req(d, "bet", ""), "bet")
    for k in bet:
        if k not in ("lines", "reel_costs", "multipliers"):
            raise GameDefinitionError(f"bet.{k}", "unknown key")
    multipliers = tuple(_int(x, f"bet.multipliers[{i}]")
                        for i, x in enumerate(_list(_req(bet, "multipliers", "bet"), "bet.multipliers")))
    line_options = tuple(_int(x, f"bet.lines[{i}]") for i, x in enumerate(_list(bet.get("lines", []), "bet.lines")))
    reel_costs = _int_map(bet["reel_costs"], "bet.reel_costs") if "reel_costs" in bet else ()

    lines = []
    for i, ln in enumerate(_list(d.get("lines", []), "lines")):
        lines.append(tuple(_int(r, f"lines[{i}][{j}]") for j, r in enumerate(_list(ln, f"lines[{i}]"))))

    variations = {}
    for key, vd in _mapping(_req(d, "variations", ""), "variations").items():
        key = str(key)
        p = f"variations.{key}"
        vd = _mapping(vd, p)
        _keys(vd, ("reels", "free_reels"), p)
        reels = tuple(_strip(r, f"{p}.reels[{i}]") for i, r in enumerate(_list(_req(vd, "reels", p), f"{p}.reels")))
        free = tuple(_strip(r, f"{p}.free_reels[{i}]") for i, r in enumerate(_list(vd.get("free_reels", []), f"{p}.free_reels")))
        variations[key] = Variation(key=key, reels=reels, free_reels=free)

    default = d.get("default_variation")
    if default is None and len(variations) == 1:
        default = next(iter(variations))

    if "window" in d:
        # window: rows per reel, e.g. [4, 4, 4, 4, 4]; every reel must show the same number of rows
        win = [_int(x, f"window[{i}]") for i, x in enumerate(_list(d["window"], "window"))]
        if not win:
            raise GameDefinitionError("window", "needs the rows of each reel")
        for i, x in enumerate(win):
            if x != win[0]:
                raise GameDefinitionError(f"window[{i}]", f"ragged window: reel {i + 1} shows {x} rows, reel 1 shows "
                                          f"{win[0]} (every reel must show the same number of rows)")
        for k, v in (("rows", win[0]), ("reel_count", len(win))):
            if k in d and d[k] != v:
                raise GameDefinitionError(k, f"{d[k]!r} disagrees with window {win}")
        rows, reel_count = win[0], len(win)
    else:
        rows = _int(_req(d, "rows", ""), "rows")
        reel_count = _int(_req(d, "reel_count", ""), "reel_count")
    free_games, progressives = _parse_features(d["features"], reel_count) if "features" in d else (None, ())
    max_award = d.get("max_award_credits")
    if max_award is not None:
        max_award = _int(max_award, "max_award_credits")

    return GameDefinition(
        id=_str(_req(d, "id", ""), "id"),
        name=_str(_req(d, "name", ""), "name"),
        kind=_str(_req(d, "kind", ""), "kind"),  # type: ignore[arg-type]
        rows=rows,
        reel_count=reel_count,
        description=_str(d.get("description", ""), "description"),
        symbols=tuple(symbols),
        multipliers=multipliers,
        line_options=line_options,
        lines=tuple(lines),
        reel_costs=reel_costs,
        default_variation=str(default) if default is not None else "",
        variations=variations,
        free_games=free_games,
        progressives=progressives,
        max_award_credits=max_award,
        groups=groups,
        wild_multiplier_combine=_str(d.get("wild_multiplier_combine", "multiply"), "wild_multiplier_combine"),
    )


def load_definition(text: str, source: str | None = None) -> GameDefinition:
    """Parse and validate a game definition from YAML ``text``, named after where it came from.

    ``source`` is the file name the text was read from or uploaded as (``"lucky_7s.yaml"``; a
    directory part is ignored). With it, every error path is prefixed with the file name
    (``lucky_7s.yaml:groups.any_bar.pays[3]``) and the definition's ``id`` must equal the file's
    stem (``lucky_7s``), as in the catalogue. Without it this is :func:`parse_game`.

    Raises :class:`GameDefinitionError` (``path`` includes the file-name prefix).
    """
    if source is None:
        return parse_game(text)
    name = re.split(r"[\\/]", source)[-1]
    stem = re.sub(r"\.ya?ml$", "", name)
    try:
        game = parse_game(text)
    except GameDefinitionError as e:
        raise GameDefinitionError(f"{name}:{e.path}", e.message) from None
    if game.id != stem:
        raise GameDefinitionError(f"{name}:id", f"id {game.id!r} does not match the file name (expected {stem!r})")
    return game
