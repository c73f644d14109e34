"""Bet validation shared by every game: chip unit, table minimum/maximum per spot, the pages' limit rules.

Each game turns a spot name into a :class:`SpotInfo` (its limit ``kind``, the number of equal ``chips`` the
bet is made of, whether it is a ``shared``-limit spot, and its elementary ``placements``); this module checks
a new bet against the table's :class:`TableLimits` and the bets already on the layout, and either returns the
bet (canonical spot, ``cap`` set when a dealer accepts an over-maximum bet) or raises
:class:`~table_games.domain.errors.TableRuleError` naming the field -- nothing is to be debited then.

Limit rules (seed pages, DESIGN §5):

* **chip unit** -- a bet is a whole number of chips of the table's unit; a bet made of several equal chips
  (a call bet, a finale, neighbours) is a multiple of ``chips × unit``;
* **minimum** -- the player's own total on that spot (in that box) reaches the spot's minimum;
* **maximum** -- the total on the spot in a box (seated player + backers) stays within the spot's maximum;
  for a multi-placement bet (roulette call bets, finales, neighbours) the maximum is enforced per
  elementary placement, summed with the player's other bets on the same number/split/... ("per number");
* **shared spots** (baccarat tie and pairs, blackjack pair): a player may bet the part of the spot's table
  limit the other players in the game left unused -- the spot's total over all boxes stays within
  ``maximum × number of participants``;
* **spectators** may back a seated player's box only with that player's permission, within the box's limit;
* **dealer's mistake** -- with ``accept_over_max=True`` an over-maximum bet is accepted but capped: it is paid
  or taken only up to the maximum (``Bet.cap``), the excess is handed back at settlement;
* **no more bets** -- with ``betting_open=False`` every bet is refused (:class:`BettingClosed`).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from slotsys.kernel.money import format_won
from table_games.domain.errors import BettingClosed, TableRuleError
from table_games.domain.settlement import Bet


class Phase(str, Enum):
    """A round's life: bets are taken only while ``BETTING``."""

    BETTING = "betting"
    NO_MORE_BETS = "no_more_bets"
    SETTLED = "settled"
    VOID = "void"


def require_betting(phase: Phase | str) -> None:
    if Phase(phase) is not Phase.BETTING:
        raise BettingClosed()


@dataclass(frozen=True)
class Placement:
    """An elementary placement of a bet: ``weight`` of its chips on ``target`` (limit ``kind``)."""

    kind: str
    target: str
    weight: int = 1


@dataclass(frozen=True)
class SpotInfo:
    spot: str  # canonical name
    kind: str  # limit key (minimum; maximum when the bet has one placement)
    chips: int = 1
    shared: bool = False
    placements: tuple[Placement, ...] = ()

    def elementary(self) -> tuple[Placement, ...]:
        return self.placements or (Placement(self.kind, self.spot, self.chips),)


@dataclass(frozen=True)
class SpotLimit:
    minimum: int
    maximum: int | None  # None: no maximum of its own (its elementary placements have one)

    def __post_init__(self) -> None:
        if self.minimum < 0 or (self.maximum is not None and self.maximum < self.minimum):
            raise ValueError("a spot limit needs 0 <= minimum <= maximum")

    def to_dict(self) -> dict[str, Any]:
        return {"minimum": self.minimum, "maximum": self.maximum}


@dataclass(frozen=True)
class TableLimits:
    """A table's chip unit and (minimum, maximum) per spot kind."""

    chip_unit: int
    spots: Mapping[str, SpotLimit] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.chip_unit <= 0:
            raise ValueError("the chip unit must be positive")

    def limit(self, kind: str) -> SpotLimit:
        lim = self.spots.get(kind)
        if lim is None:
            raise TableRuleError("spot", f"{kind!r} bets are not offered at this table")
        return lim

    def to_dict(self) -> dict[str, Any]:
        return {"chip_unit": self.chip_unit, "spots": {k: v.to_dict() for k, v in self.spots.items()}}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> TableLimits:
        return cls(d["chip_unit"], {k: SpotLimit(v["minimum"], v.get("maximum")) for k, v in d["spots"].items()})

    @classmethod
    def uniform(cls, chip_unit: int, kinds: Iterable[str], minimum: int, maximum: int,
                **overrides: tuple[int, int | None]) -> TableLimits:
        spots = {k: SpotLimit(minimum, maximum) for k in kinds}
        spots.update({k: SpotLimit(*v) for k, v in overrides.items()})
        return cls(chip_unit, spots)


def _w(amount: int) -> str:
    return format_won(amount)


def check_bet(
    bet: Bet,
    info: SpotInfo,
    limits: TableLimits,
    existing: Sequence[tuple[Bet, SpotInfo]] = (),
    *,
    betting_open: bool = True,
    participants: Collection[str] = (),
    seats: Mapping[str, str] | None = None,
    permissions: Collection[tuple[str, str]] = (),
    accept_over_max: bool = False,
    unit: int | None = None,
) -> Bet:
    """Validate ``bet`` (its spot already parsed into ``info``) against the limits and the layout.

    ``existing`` are the round's bets so far with their parsed spots; ``participants`` the players in the
    game this round (for the shared tie/pair limit); ``seats`` maps box → seated player (when the game has
    boxes); ``permissions`` the (box, backer) pairs a seated player allowed; ``unit`` overrides the chip unit
    (a roulette player's colour-chip value). Returns the accepted bet (canonical spot, ``cap`` if over max).
    """
    if not betting_open:
        raise BettingClosed()
    amount = bet.amount
    if isinstance(amount, bool) or not isinstance(amount, int) or amount <= 0:
        raise TableRuleError("amount", "a bet is a positive whole number of won")
    chip = unit or limits.chip_unit
    step = chip * info.chips
    if amount % step:
        what = f"{info.chips} equal chips of a multiple of {_w(chip)}" if info.chips > 1 else f"a multiple of {_w(chip)}"
        raise TableRuleError("amount", f"a {info.spot} bet must be {what}")
    if bet.box is not None and seats is not None:
        owner = seats.get(bet.box)
        if owner is None:
            raise TableRuleError("box", f"no player is seated at box {bet.box}")
        if owner != bet.player and (bet.box, bet.player) not in set(map(tuple, permissions)):
            raise TableRuleError("box", f"backing box {bet.box} needs the seated player's permission")
    lim = limits.limit(info.kind)
    same = [(b, i) for b, i in existing if i.spot == info.spot]
    own = sum(b.amount for b, _ in same if b.player == bet.player and b.scope == bet.scope)
    if own + amount < lim.minimum:
        raise TableRuleError("amount", f"below the {info.spot} minimum of {_w(lim.minimum)}")

    cap: int | None = None
    if info.shared:
        if lim.maximum is None:
            raise ValueError(f"shared spot {info.kind} needs a maximum")
        n = len(set(participants) | {bet.player})
        room = lim.maximum * n - sum(b.action for b, _ in same)
        if amount > room:
            cap = max(0, room // step * step)
            if not accept_over_max:
                raise TableRuleError("amount", f"above the {info.spot} limit: {_w(lim.maximum)} per player, "
                                               f"{_w(max(room, 0))} left unused by the {n} player(s) in the game",
                                     maximum=lim.maximum, available=max(room, 0))
    else:
        per_chip = amount // info.chips
        room_per_chip: int | None = None
        for p in info.elementary():
            plim = limits.limit(p.kind) if p.kind != info.kind else lim
            if plim.maximum is None:
                continue
            on_target = sum(b.action * q.weight // i.chips for b, i in existing if b.scope == bet.scope
                            for q in i.elementary() if q.target == p.target)
            room = plim.maximum - on_target
            if per_chip * p.weight > room:
                if not accept_over_max:
                    where = p.target if p.target == info.spot else f"{p.target} (part of {info.spot})"
                    raise TableRuleError("amount", f"above the maximum of {_w(plim.maximum)} on {where}"
                                                   f"{'' if on_target == 0 else f'; {_w(max(room, 0))} left'}",
                                         maximum=plim.maximum, available=max(room, 0))
            r = max(0, room) // p.weight
            room_per_chip = r if room_per_chip is None else min(room_per_chip, r)
        if room_per_chip is not None and per_chip > room_per_chip:
            cap = room_per_chip // chip * chip * info.chips
    return bet.with_(spot=info.spot, cap=cap)
