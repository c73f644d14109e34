"""Single-zero roulette: colour chips, the layout's bets, call bets, the wheel, settlement, exact edges.

Bets (seed page 004, DESIGN §5) -- spot names are JSON-friendly strings:

=====================  ===========================================  ======  =============================
spot                   covers                                         pays    example
=====================  ===========================================  ======  =============================
``straight:N``         one number (0 included)                        35:1    ``straight:17``
``split:A-B``          two adjacent numbers (0-1, 0-2, 0-3 too)       17:1    ``split:17-20``
``street:A-B-C``       a row of three, or the trios 0-1-2 / 0-2-3     11:1    ``street:16`` = 16-17-18
``corner:A-B-C-D``     four numbers meeting at a corner               8:1     ``corner:17-18-20-21``
``first_four``         0-1-2-3 (the page's "five number/line bet")    8:1
``six_line:A-F``       two adjacent rows                              5:1     ``six_line:31`` = 31..36
``column:1..3``        a column of twelve                             2:1
``dozen:1..3``         1-12, 13-24, 25-36                             2:1
``red`` ``black`` ``odd`` ``even`` ``low`` ``high``                  1:1     (lose on 0)
``final:N``            a chip on every number ending in N             35:1    ``final:3`` = 3, 13, 23, 33
``final_split:X-Y``    split finale: X/Y in every decade (Y = X+3)    17:1    ``final_split:0-3`` = 0-3, 10-13,
                       (a pair whose partner is off the layout is a                          20-23, 30-33
                       straight chip: ``final_split:4-7`` has 34)
``neighbours:N[:k]``   N and k numbers either side on the wheel       35:1    ``neighbours:17`` (k = 2, 5 chips)
``voisins``            9 chips: 2 on 0-2-3, splits 4-7 12-15 18-21 19-22 32-35, 2 on corner 25-26-28-29
``tiers``              6 chips: splits 5-8 10-11 13-16 23-24 27-30 33-36
``orphelins``          5 chips: straight 1, splits 6-9 14-17 17-20 31-34
=====================  ===========================================  ======  =============================

A multi-chip bet (finales, neighbours, call bets) is made of equal chips; only its winning chips are paid
and stay, the others are taken. Maxima are enforced per elementary placement, summed over the player's
bets ("maximum per spot, per number"): a straight maximum caps everything the player has on a number.

Colour chips: each player buys in for a colour of their own at a chosen value per chip
(:func:`buy_in`), bets in that colour (bets are then whole colour chips), and cashes the colour back when
leaving (:func:`cash_out`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from slotsys.kernel.money import format_won
from table_games.domain import limits as L
from table_games.domain.errors import TableRuleError
from table_games.domain.rng import ScriptedRng
from table_games.domain.settlement import Bet, Settlement, Void, lost, void_all

GAME = "roulette"
WHEEL: tuple[int, ...] = (0, 32, 15, 19, 4, 21, 2, 25, 17, 34, 6, 27, 13, 36, 11, 30, 8, 23, 10, 5, 24, 16, 33, 1,
                          20, 14, 31, 9, 22, 18, 29, 7, 28, 12, 35, 3, 26)
REDS = frozenset({1, 3, 5, 7, 9, 12, 14, 16, 18, 19, 21, 23, 25, 27, 30, 32, 34, 36})
NUMBERS = tuple(range(37))

VOISINS: tuple[tuple[str, int], ...] = (("street:0-2-3", 2), ("split:4-7", 1), ("split:12-15", 1), ("split:18-21", 1),
                                        ("split:19-22", 1), ("split:32-35", 1), ("corner:25-26-28-29", 2))
TIERS: tuple[tuple[str, int], ...] = (("split:5-8", 1), ("split:10-11", 1), ("split:13-16", 1), ("split:23-24", 1),
                                      ("split:27-30", 1), ("split:33-36", 1))
ORPHELINS: tuple[tuple[str, int], ...] = (("straight:1", 1), ("split:6-9", 1), ("split:14-17", 1),
                                          ("split:17-20", 1), ("split:31-34", 1))
CALL_BETS = {"voisins": VOISINS, "tiers": TIERS, "orphelins": ORPHELINS}
FINAL_SPLITS = tuple((x, x + 3) for x in range(7))  # 0/3, 1/4, ..., 6/9


@dataclass(frozen=True)
class RouletteRules:
    neighbours: int = 2  # default numbers either side for a neighbours bet
    max_neighbours: int = 5
    palette: tuple[str, ...] = ("red", "orange", "yellow", "green", "blue", "purple", "pink", "white", "brown", "grey")

    def to_dict(self) -> dict[str, Any]:
        return {"neighbours": self.neighbours, "max_neighbours": self.max_neighbours, "palette": list(self.palette)}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> RouletteRules:
        d = dict(d)
        if "palette" in d:
            d["palette"] = tuple(d["palette"])
        return cls(**d)


STANDARD = RouletteRules()


def colour_of(n: int) -> str:
    return "green" if n == 0 else "red" if n in REDS else "black"


def neighbours(number: int, k: int = 2) -> list[int]:
    """``number`` and ``k`` pockets either side on the wheel, in wheel order."""
    i = WHEEL.index(number)
    return [WHEEL[(i + d) % 37] for d in range(-k, k + 1)]


# ------------------------------------------------------------------------------------------- geometry
def _nums(text: str, field_: str = "spot") -> list[int]:
    try:
        nums = [int(x) for x in text.split("-")]
    except ValueError:
        raise TableRuleError(field_, f"{text!r} is not a list of numbers") from None
    if any(not 0 <= n <= 36 for n in nums):
        raise TableRuleError(field_, "roulette numbers run from 0 to 36")
    return sorted(nums)


def _is_split(a: int, b: int) -> bool:
    if a == 0:
        return b in (1, 2, 3)
    return (b - a == 3) or (b - a == 1 and a % 3 != 0)


def _target_numbers(kind: str, nums: list[int]) -> bool:
    if kind == "straight":
        return len(nums) == 1
    if kind == "split":
        return len(nums) == 2 and _is_split(*nums)
    if kind == "street":
        return nums in ([0, 1, 2], [0, 2, 3]) or (len(nums) == 3 and nums[0] % 3 == 1 and nums == list(range(nums[0], nums[0] + 3)))
    if kind == "corner":
        n = nums[0]
        return len(nums) == 4 and 1 <= n <= 32 and n % 3 != 0 and nums == [n, n + 1, n + 3, n + 4]
    if kind == "six_line":
        n = nums[0]
        return len(nums) == 6 and n % 3 == 1 and n <= 31 and nums == list(range(n, n + 6))
    return False


OUTSIDE: dict[str, frozenset[int]] = {
    "red": REDS, "black": frozenset(set(range(1, 37)) - REDS),
    "odd": frozenset(n for n in range(1, 37) if n % 2), "even": frozenset(n for n in range(1, 37) if n % 2 == 0),
    "low": frozenset(range(1, 19)), "high": frozenset(range(19, 37)),
    **{f"column:{c}": frozenset(n for n in range(1, 37) if (n - 1) % 3 == c - 1) for c in (1, 2, 3)},
    **{f"dozen:{d}": frozenset(range(12 * d - 11, 12 * d + 1)) for d in (1, 2, 3)},
    "first_four": frozenset({0, 1, 2, 3}),
}
OUTSIDE_KIND = {"red": "even_money", "black": "even_money", "odd": "even_money", "even": "even_money",
                "low": "even_money", "high": "even_money", "column:1": "column", "column:2": "column",
                "column:3": "column", "dozen:1": "dozen", "dozen:2": "dozen", "dozen:3": "dozen",
                "first_four": "first_four"}


def target_numbers(target: str) -> frozenset[int]:
    """Numbers covered by an elementary placement (``straight:17``, ``split:17-20``, ``red`` ...)."""
    if target in OUTSIDE:
        return OUTSIDE[target]
    _, _, rest = target.partition(":")
    return frozenset(int(x) for x in rest.split("-"))


def pays(k: int) -> int:
    """Odds paid on a placement covering k numbers (single zero): 36/k - 1 to 1."""
    return 36 // k - 1


def _elementary(kind: str, rest: str) -> str:
    if kind == "street" and rest.isdigit() and int(rest) % 3 == 1:
        n = int(rest)
        rest = f"{n}-{n + 1}-{n + 2}"
    if kind == "six_line" and rest.isdigit() and int(rest) % 3 == 1:
        n = int(rest)
        rest = "-".join(str(x) for x in range(n, n + 6))
    nums = _nums(rest)
    if not _target_numbers(kind, nums):
        raise TableRuleError("spot", f"{kind}:{rest} is not a {kind.replace('_', ' ')} on the layout")
    return f"{kind}:{'-'.join(map(str, nums))}"


def _composite(spot: str, kind: str, parts: Sequence[tuple[str, int]]) -> L.SpotInfo:
    placements = tuple(L.Placement(t.split(":")[0], t, w) for t, w in parts)
    return L.SpotInfo(spot, kind, chips=sum(w for _, w in parts), placements=placements)


def parse_spot(spot: str, rules: RouletteRules = STANDARD) -> L.SpotInfo:
    s = str(spot).strip().lower().replace(" ", "")
    if s in OUTSIDE:
        return L.SpotInfo(s, OUTSIDE_KIND[s])
    if s in CALL_BETS:
        return _composite(s, s, CALL_BETS[s])
    kind, sep, rest = s.partition(":")
    if not sep:
        raise TableRuleError("spot", f"unknown roulette spot {spot!r}")
    if kind in ("straight", "split", "street", "corner", "six_line"):
        t = _elementary(kind, rest)
        return L.SpotInfo(t, kind)
    if kind == "final":
        if not (rest.isdigit() and 0 <= int(rest) <= 9):
            raise TableRuleError("spot", "a finale is final:0 .. final:9")
        d = int(rest)
        return _composite(f"final:{d}", "final", [(f"straight:{n}", 1) for n in range(d, 37, 10)])
    if kind == "final_split":
        nums = _nums(rest)
        if len(nums) != 2 or tuple(nums) not in FINAL_SPLITS:
            raise TableRuleError("spot", "a split finale is final_split:X-Y with Y = X+3 (0-3 .. 6-9)")
        x, y = nums
        parts = []
        for dec in range(0, 40, 10):
            a, b = dec + x, dec + y
            if b <= 36:
                parts.append((f"split:{a}-{b}", 1))
            elif a <= 36:
                parts.append((f"straight:{a}", 1))
        return _composite(f"final_split:{x}-{y}", "final_split", parts)
    if kind == "neighbours":
        n_s, _, k_s = rest.partition(":")
        if not n_s.isdigit() or not 0 <= int(n_s) <= 36:
            raise TableRuleError("spot", "neighbours:N names a number 0..36")
        k = int(k_s) if k_s else rules.neighbours
        if not 1 <= k <= rules.max_neighbours:
            raise TableRuleError("spot", f"neighbours: 1 to {rules.max_neighbours} numbers either side")
        n = int(n_s)
        name = f"neighbours:{n}" if k == rules.neighbours else f"neighbours:{n}:{k}"
        return _composite(name, "neighbours", [(f"straight:{x}", 1) for x in neighbours(n, k)])
    raise TableRuleError("spot", f"unknown roulette spot {spot!r}")


def placements(info: L.SpotInfo) -> tuple[L.Placement, ...]:
    return info.elementary()


# ------------------------------------------------------------------------------------------- limits
def default_limits(chip_unit: int = 1_000, inside_min: int = 1_000, straight_max: int = 100_000,
                   outside_min: int = 5_000, outside_max: int = 1_000_000) -> L.TableLimits:
    """Maxima scale with the odds (split 2×, street 3×, corner 4×, six line 6× the straight maximum)."""
    sm = straight_max
    spots = {
        "straight": L.SpotLimit(inside_min, sm), "split": L.SpotLimit(inside_min, 2 * sm),
        "street": L.SpotLimit(inside_min, 3 * sm), "corner": L.SpotLimit(inside_min, 4 * sm),
        "first_four": L.SpotLimit(inside_min, 4 * sm), "six_line": L.SpotLimit(inside_min, 6 * sm),
        "column": L.SpotLimit(outside_min, outside_max // 2), "dozen": L.SpotLimit(outside_min, outside_max // 2),
        "even_money": L.SpotLimit(outside_min, outside_max),
        # multi-chip bets: minimum = chips × inside minimum; no maximum of their own (per placement)
        "final": L.SpotLimit(3 * inside_min, None), "final_split": L.SpotLimit(4 * inside_min, None),
        "neighbours": L.SpotLimit(3 * inside_min, None), "voisins": L.SpotLimit(9 * inside_min, None),
        "tiers": L.SpotLimit(6 * inside_min, None), "orphelins": L.SpotLimit(5 * inside_min, None),
    }
    return L.TableLimits(chip_unit, spots)


def check_bet(bet: Bet, limits: L.TableLimits, existing: Sequence[Bet] = (), *, rules: RouletteRules = STANDARD,
              chip_value: int | None = None, **ctx: Any) -> Bet:
    """Validate a roulette bet; with colour chips, pass the player's ``chip_value`` (bets are whole chips)."""
    info = parse_spot(bet.spot, rules)
    parsed = [(b, parse_spot(b.spot, rules)) for b in existing]
    return L.check_bet(bet, info, limits, parsed, unit=chip_value, **ctx)


# ------------------------------------------------------------------------------------------- colour chips
@dataclass(frozen=True)
class ColourStack:
    player: str
    colour: str
    chip_value: int
    chips: int

    @property
    def value(self) -> int:
        return self.chips * self.chip_value

    def to_dict(self) -> dict[str, Any]:
        return {"player": self.player, "colour": self.colour, "chip_value": self.chip_value, "chips": self.chips,
                "value": self.value}


def buy_in(in_use: Mapping[str, str], player: str, colour: str, chip_value: int, amount: int, *,
           chip_unit: int, rules: RouletteRules = STANDARD) -> ColourStack:
    """A player buys ``amount`` won of colour chips at ``chip_value`` each. ``in_use``: colour → player at the table.

    A player plays one colour; buying again in the same colour at the same value adds chips.
    """
    if colour not in rules.palette:
        raise TableRuleError("colour", f"{colour!r} is not a colour of this table ({', '.join(rules.palette)})")
    holder = in_use.get(colour)
    if holder is not None and holder != player:
        raise TableRuleError("colour", f"{colour} is taken by another player")
    other = next((c for c, p in in_use.items() if p == player and c != colour), None)
    if other is not None:
        raise TableRuleError("colour", f"the player already plays {other}")
    if isinstance(chip_value, bool) or not isinstance(chip_value, int) or chip_value <= 0 or chip_value % chip_unit:
        raise TableRuleError("chip_value", f"a colour chip is worth a positive multiple of {format_won(chip_unit)}")
    if isinstance(amount, bool) or not isinstance(amount, int) or amount <= 0 or amount % chip_value:
        raise TableRuleError("amount", f"buy in for a whole number of chips of {format_won(chip_value)}")
    return ColourStack(player, colour, chip_value, amount // chip_value)


def cash_out(stack: ColourStack, chips_returned: int) -> int:
    """Won credited back to the wallet for the colour chips the player hands in (the colour is then free)."""
    if isinstance(chips_returned, bool) or not isinstance(chips_returned, int) or chips_returned < 0:
        raise TableRuleError("chips", "count the colour chips handed in (0 or more)")
    return chips_returned * stack.chip_value


# ------------------------------------------------------------------------------------------- the wheel
@dataclass(frozen=True)
class Spin:
    number: int

    def __post_init__(self) -> None:
        if not 0 <= self.number <= 36:
            raise TableRuleError("number", "roulette numbers run from 0 to 36")

    @property
    def colour(self) -> str:
        return colour_of(self.number)

    def to_dict(self) -> dict[str, Any]:
        return {"number": self.number, "colour": self.colour}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Spin:
        return cls(d["number"])


def spin(rng) -> Spin:
    """The ball's pocket, from the CSPRNG in play or from :func:`dealer_input` (same call)."""
    return Spin(rng.randbelow(37))


def dealer_input(number: int) -> ScriptedRng:
    """Input mode: the number the dealer calls, to pass to :func:`spin`."""
    return ScriptedRng([number], field="number")


# ------------------------------------------------------------------------------------------- settlement
def settle(bets: Sequence[Bet], outcome: Spin | Void, rules: RouletteRules = STANDARD) -> list[Settlement]:
    if isinstance(outcome, Void):
        return void_all(bets)
    n = outcome.number
    out: list[Settlement] = []
    for b in bets:
        info = parse_spot(b.spot, rules)
        per_chip = b.action // info.chips
        stay = win = 0
        for p in info.elementary():
            nums = target_numbers(p.target)
            if n in nums:
                stake = per_chip * p.weight
                stay += stake
                win += stake * pays(len(nums))
        if win:
            out.append(Settlement(b, "win", stay + b.excess, win))
        else:
            out.append(lost(b))
    return out


def house_edge(spot: str, rules: RouletteRules = STANDARD, *, chip: int = 1_000) -> Fraction:
    """Exact house edge of a bet: its net over the 37 pockets through :func:`settle`."""
    info = parse_spot(spot, rules)
    bet = Bet(info.spot, chip * info.chips)
    total = sum(settle([bet], Spin(n), rules)[0].net for n in NUMBERS)
    return -Fraction(total, 37 * bet.amount)


def all_spots(rules: RouletteRules = STANDARD) -> list[str]:
    """Every distinct bet on the layout (for the edge proof and the API's catalogue)."""
    spots = [f"straight:{n}" for n in NUMBERS]
    for a in NUMBERS:
        for b in NUMBERS:
            if a < b and _is_split(a, b):
                spots.append(f"split:{a}-{b}")
    spots += ["street:0-1-2", "street:0-2-3"] + [f"street:{n}" for n in range(1, 37, 3)]
    spots += [f"corner:{n}-{n + 1}-{n + 3}-{n + 4}" for n in range(1, 33) if n % 3]
    spots += [f"six_line:{n}" for n in range(1, 32, 3)]
    spots += list(OUTSIDE_KIND)
    spots += [f"final:{d}" for d in range(10)] + [f"final_split:{x}-{y}" for x, y in FINAL_SPLITS]
    spots += [f"neighbours:{n}" for n in NUMBERS] + list(CALL_BETS)
    return [parse_spot(s, rules).spot for s in spots]

