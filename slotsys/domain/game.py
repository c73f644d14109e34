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
    Reel strips live under a variation key (e.g. ``"94"``) so a title can ship several RTP
    variations with one paytable; ``default_variation`` is used when a machine names none.

Errors
    :class:`GameDefinitionError` (a ``ValueError``) carries the ``path`` of the offending item in
    the YAML document (0-based indices), e.g. ``variations.94.reels[2][17]: unknown symbol 'QX'``.
    :class:`InvalidBet` (a ``ValueError``) names the bet ``field``: ``"lines"``, ``"reels"`` or
    ``"multiplier"``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal, Mapping

import yaml

__all__ = [
    "BetOption",
    "GameDefinition",
    "GameDefinitionError",
    "InvalidBet",
    "Symbol",
    "UnknownVariation",
    "Variation",
    "parse_game",
]

GameKind = Literal["lines", "reel_cost"]
SymbolKind = Literal["regular", "wild", "scatter"]

GAME_KINDS: tuple[str, ...] = ("lines", "reel_cost")
SYMBOL_KINDS: tuple[str, ...] = ("regular", "wild", "scatter")

MAX_ROWS = 10
MAX_REELS = 10
MAX_STRIP = 1000

_GAME_ID = re.compile(r"^[a-z0-9][a-z0-9_]{0,63}$")
_SYMBOL_ID = re.compile(r"^[A-Z][A-Z0-9_]{0,15}$")
_VARIATION_KEY = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,31}$")


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
    """A bet the game does not offer. ``field`` is ``"lines"``, ``"reels"`` or ``"multiplier"``."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


# --------------------------------------------------------------------------- model
@dataclass(frozen=True)
class Symbol:
    """One reel symbol.

    ``kind``: ``"regular"`` (pays left to right), ``"wild"`` (substitutes for every regular symbol,
    never for a scatter; in a lines game it may also have its own pays), ``"scatter"`` (pays
    anywhere in the window, × total bet).
    ``pays``: ``((count, pay), ...)`` ascending by count. Regular and wild pays are credits per
    multiplier credit, listed for every count from the lowest paying one up to the reel count;
    scatter pays are multiples of the total bet and a count above the highest listed one pays
    as the highest listed one.
    """

    id: str
    name: str
    kind: SymbolKind = "regular"
    pays: tuple[tuple[int, int], ...] = ()

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
        return {"id": self.id, "name": self.name, "kind": self.kind, "pays": {c: p for c, p in self.pays}}


@dataclass(frozen=True)
class Variation:
    """One set of reel strips (an RTP variation). ``reels[i]`` is reel i's strip of symbol ids."""

    key: str
    reels: tuple[tuple[str, ...], ...]


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
    (iterating it yields the keys). Raises :class:`GameDefinitionError` when inconsistent.
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
    # private memo for derived tables (evaluator / par sheet); not part of the value
    _cache: dict = field(default_factory=dict, init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "variations", _frozen_variations(self.variations))
        _validate(self)
        object.__setattr__(self, "_by_id", {s.id: s for s in self.symbols})

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
        if include_strips:
            d["strips"] = {k: [list(r) for r in v.reels] for k, v in self.variations.items()}
        return d


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
    for kind in ("wild", "scatter"):
        if sum(1 for s in g.symbols if s.kind == kind) > 1:
            raise GameDefinitionError("symbols", f"at most one {kind} symbol is supported")
    if not any(s.pays for s in g.symbols):
        raise GameDefinitionError("symbols", "no symbol pays anything")

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
        if len(v.reels) != g.reel_count:
            raise GameDefinitionError(f"{p}.reels", f"needs {g.reel_count} reel strips; got {len(v.reels)}")
        for i, strip in enumerate(v.reels):
            if not g.rows <= len(strip) <= MAX_STRIP:
                raise GameDefinitionError(
                    f"{p}.reels[{i}]", f"strip length must be {g.rows}..{MAX_STRIP}; got {len(strip)}"
                )
            for j, sym in enumerate(strip):
                if sym not in seen:
                    raise GameDefinitionError(f"{p}.reels[{i}][{j}]", f"unknown symbol {sym!r}")


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
    if s.kind == "scatter":
        if counts[0] < 1 or counts[-1] > g.rows * g.reel_count:
            raise GameDefinitionError(path, f"scatter counts must be 1..{g.rows * g.reel_count}")
        return
    if s.kind == "wild" and g.kind == "reel_cost":
        raise GameDefinitionError(path, "a wild has no pays of its own in a ways (reel_cost) game")
    if counts[0] < 2:
        raise GameDefinitionError(path, "line and way pays start at 2 of a kind or more")
    if counts != list(range(counts[0], g.reel_count + 1)):
        raise GameDefinitionError(
            path, f"list a pay for every count from {counts[0]} to the reel count {g.reel_count}; got {counts}"
        )


# --------------------------------------------------------------------------- YAML
_TOP_KEYS = {"id", "name", "kind", "rows", "reel_count", "description", "symbols", "bet", "lines",
             "default_variation", "variations"}


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
    items = v.split() if isinstance(v, str) else _list(v, path)
    out = []
    for j, sym in enumerate(items):
        if not isinstance(sym, str):
            raise GameDefinitionError(f"{path}[{j}]", f"expected a symbol id; got {sym!r}")
        out.append(sym)
    return tuple(out)


def parse_game(text: str) -> GameDefinition:
    """Parse and validate a game definition from YAML text.

    Shape (keys not listed are refused)::

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
        default_variation: "94"
        variations:
          "94":
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
            if k not in ("id", "name", "kind", "pays"):
                raise GameDefinitionError(f"{p}.{k}", "unknown key")
        sid = _str(_req(sd, "id", p), f"{p}.id")
        symbols.append(
            Symbol(
                id=sid,
                name=_str(sd.get("name", sid), f"{p}.name"),
                kind=_str(sd.get("kind", "regular"), f"{p}.kind"),  # type: ignore[arg-type]
                pays=_int_map(sd.get("pays") or {}, f"{p}.pays"),
            )
        )

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
        for k in vd:
            if k != "reels":
                raise GameDefinitionError(f"{p}.{k}", "unknown key")
        reels = tuple(_strip(r, f"{p}.reels[{i}]") for i, r in enumerate(_list(_req(vd, "reels", p), f"{p}.reels")))
        variations[key] = Variation(key=key, reels=reels)

    default = d.get("default_variation")
    if default is None and len(variations) == 1:
        default = next(iter(variations))

    return GameDefinition(
        id=_str(_req(d, "id", ""), "id"),
        name=_str(_req(d, "name", ""), "name"),
        kind=_str(_req(d, "kind", ""), "kind"),  # type: ignore[arg-type]
        rows=_int(_req(d, "rows", ""), "rows"),
        reel_count=_int(_req(d, "reel_count", ""), "reel_count"),
        description=_str(d.get("description", ""), "description"),
        symbols=tuple(symbols),
        multipliers=multipliers,
        line_options=line_options,
        lines=tuple(lines),
        reel_costs=reel_costs,
        default_variation=str(default) if default is not None else "",
        variations=variations,
    )
