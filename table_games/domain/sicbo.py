"""Sic bo: three dice, the Macau paytable as default configuration, settlement and exact edges.

Spots: ``small`` (4-10) / ``big`` (11-17) and ``odd`` / ``even`` -- all lose on any triple; ``total:N``
(4..17; 9-12 win on a triple too); ``triple:N`` (specific triple); ``any_triple``; ``double:N`` (at least two
N, a triple of N included); ``combo:A-B`` (both A and B among the dice); ``single:N`` (pays 1/2/3 × for
one/two/three dice showing N).

Outcomes come from the dice shaker (``rng.randbelow(6)`` three times) or, in input mode, from the dice the
dealer enters (:func:`dealer_input`, same call). Dice that are not flat are a "no game": :class:`Void`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import product
from typing import Any

from table_games.domain import limits as L
from table_games.domain.errors import TableRuleError
from table_games.domain.rng import ScriptedRng
from table_games.domain.settlement import Bet, Settlement, Void, lost, void_all, won

GAME = "sic_bo"

MACAU_TOTALS = {4: 50, 5: 18, 6: 14, 7: 12, 8: 8, 9: 6, 10: 6, 11: 6, 12: 6, 13: 8, 14: 12, 15: 14, 16: 18, 17: 50}
ATLANTIC_CITY_TOTALS = {4: 60, 5: 30, 6: 17, 7: 12, 8: 8, 9: 6, 10: 6, 11: 6, 12: 6, 13: 8, 14: 12, 15: 17, 16: 30,
                        17: 60}


@dataclass(frozen=True)
class SicBoPaytable:
    """Odds (to 1) per bet; a table's configuration. Default: the standard Macau table."""

    small_big: int = 1
    odd_even: int = 1
    totals: Mapping[int, int] = field(default_factory=lambda: dict(MACAU_TOTALS))
    specific_triple: int = 150
    any_triple: int = 24
    specific_double: int = 8
    combination: int = 5
    single: tuple[int, int, int] = (1, 2, 3)  # one, two, three dice showing the number

    def __post_init__(self) -> None:
        if set(self.totals) != set(range(4, 18)):
            raise ValueError("the paytable needs totals 4..17")

    def to_dict(self) -> dict[str, Any]:
        return {"small_big": self.small_big, "odd_even": self.odd_even,
                "totals": {str(k): v for k, v in self.totals.items()}, "specific_triple": self.specific_triple,
                "any_triple": self.any_triple, "specific_double": self.specific_double,
                "combination": self.combination, "single": list(self.single)}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> SicBoPaytable:
        d = dict(d)
        if "totals" in d:
            d["totals"] = {int(k): v for k, v in d["totals"].items()}
        if "single" in d:
            d["single"] = tuple(d["single"])
        return cls(**d)


MACAU = SicBoPaytable()
ATLANTIC_CITY = SicBoPaytable(totals=dict(ATLANTIC_CITY_TOTALS), specific_triple=180, any_triple=30,
                              specific_double=10)


@dataclass(frozen=True)
class Dice:
    dice: tuple[int, int, int]

    def __post_init__(self) -> None:
        if len(self.dice) != 3 or any(isinstance(d, bool) or not isinstance(d, int) or not 1 <= d <= 6
                                      for d in self.dice):
            raise TableRuleError("dice", "three dice, each 1 to 6")

    @property
    def total(self) -> int:
        return sum(self.dice)

    @property
    def triple(self) -> bool:
        return self.dice[0] == self.dice[1] == self.dice[2]

    def count(self, n: int) -> int:
        return self.dice.count(n)

    def to_dict(self) -> dict[str, Any]:
        return {"dice": list(self.dice), "total": self.total, "triple": self.triple}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Dice:
        return cls(tuple(d["dice"]))


def roll(rng) -> Dice:
    """Three dice from the shaker (CSPRNG) or from :func:`dealer_input` (same call)."""
    return Dice((rng.randbelow(6) + 1, rng.randbelow(6) + 1, rng.randbelow(6) + 1))


def dealer_input(*dice: int) -> ScriptedRng:
    if len(dice) != 3:
        raise TableRuleError("dice", "enter three dice")
    return ScriptedRng([d - 1 if isinstance(d, int) and not isinstance(d, bool) else d for d in dice], field="dice")


# ------------------------------------------------------------------------------------------- spots
def parse_spot(spot: str) -> L.SpotInfo:
    s = str(spot).strip().lower().replace(" ", "")
    if s in ("small", "big", "odd", "even", "any_triple"):
        return L.SpotInfo(s, s if s == "any_triple" else ("small_big" if s in ("small", "big") else "odd_even"))
    kind, sep, rest = s.partition(":")
    if sep:
        if kind == "total" and rest.isdigit() and 4 <= int(rest) <= 17:
            return L.SpotInfo(f"total:{int(rest)}", "total")
        if kind in ("triple", "double", "single") and rest.isdigit() and 1 <= int(rest) <= 6:
            return L.SpotInfo(f"{kind}:{int(rest)}", kind)
        if kind == "combo":
            parts = rest.split("-")
            if len(parts) == 2 and all(p.isdigit() and 1 <= int(p) <= 6 for p in parts) and parts[0] != parts[1]:
                a, b = sorted(map(int, parts))
                return L.SpotInfo(f"combo:{a}-{b}", "combo")
    raise TableRuleError("spot", f"unknown sic bo spot {spot!r}")


def all_spots() -> list[str]:
    return (["small", "big", "odd", "even", "any_triple"] + [f"total:{t}" for t in range(4, 18)]
            + [f"triple:{n}" for n in range(1, 7)] + [f"double:{n}" for n in range(1, 7)]
            + [f"combo:{a}-{b}" for a in range(1, 7) for b in range(a + 1, 7)] + [f"single:{n}" for n in range(1, 7)])


KINDS = ("small_big", "odd_even", "total", "triple", "any_triple", "double", "combo", "single")


def default_limits(chip_unit: int = 1_000, minimum: int = 5_000, even_max: int = 2_000_000,
                   other_max: int = 200_000) -> L.TableLimits:
    spots = {k: L.SpotLimit(minimum, other_max) for k in KINDS}
    spots["small_big"] = L.SpotLimit(minimum, even_max)
    spots["odd_even"] = L.SpotLimit(minimum, even_max)
    return L.TableLimits(chip_unit, spots)


def check_bet(bet: Bet, limits: L.TableLimits, existing: Sequence[Bet] = (), **ctx: Any) -> Bet:
    return L.check_bet(bet, parse_spot(bet.spot), limits, [(b, parse_spot(b.spot)) for b in existing], **ctx)


# ------------------------------------------------------------------------------------------- settlement
def odds(spot: str, d: Dice, pt: SicBoPaytable) -> int | None:
    """The odds a spot wins at for these dice, or ``None`` if it loses."""
    s = parse_spot(spot).spot
    kind, _, rest = s.partition(":")
    t = d.total
    if s == "small":
        return pt.small_big if 4 <= t <= 10 and not d.triple else None
    if s == "big":
        return pt.small_big if 11 <= t <= 17 and not d.triple else None
    if s == "odd":
        return pt.odd_even if t % 2 == 1 and not d.triple else None
    if s == "even":
        return pt.odd_even if t % 2 == 0 and not d.triple else None
    if s == "any_triple":
        return pt.any_triple if d.triple else None
    if kind == "total":
        return pt.totals[int(rest)] if t == int(rest) else None
    if kind == "triple":
        return pt.specific_triple if d.triple and d.dice[0] == int(rest) else None
    if kind == "double":
        return pt.specific_double if d.count(int(rest)) >= 2 else None
    if kind == "combo":
        a, b = map(int, rest.split("-"))
        return pt.combination if d.count(a) and d.count(b) else None
    if kind == "single":
        c = d.count(int(rest))
        return pt.single[c - 1] if c else None
    raise TableRuleError("spot", f"unknown sic bo spot {spot!r}")


def settle(bets: Sequence[Bet], outcome: Dice | Void, paytable: SicBoPaytable = MACAU) -> list[Settlement]:
    if isinstance(outcome, Void):
        return void_all(bets)
    out = []
    for b in bets:
        o = odds(b.spot, outcome, paytable)
        out.append(won(b, b.action * o) if o is not None else lost(b))
    return out


def house_edge(spot: str, paytable: SicBoPaytable = MACAU, *, stake: int = 1_000) -> Fraction:
    """Exact edge over the 216 ordered outcomes, through :func:`settle`."""
    bet = Bet(parse_spot(spot).spot, stake)
    total = sum(settle([bet], Dice((a, b, c)), paytable)[0].net for a, b, c in product(range(1, 7), repeat=3))
    return -Fraction(total, 216 * stake)


def total_ways() -> dict[int, int]:
    ways: dict[int, int] = {}
    for d in product(range(1, 7), repeat=3):
        ways[sum(d)] = ways.get(sum(d), 0) + 1
    return ways
