"""Big wheel (money wheel): segments, pays and the stops' order are configuration.

Default (DESIGN §5): the standard 54-stop wheel -- 24×"1" (1:1), 15×"2" (2:1), 7×"5" (5:1), 4×"10" (10:1),
2×"20" (20:1), one joker and one logo (40:1 each). A bet on a symbol wins its odds when the wheel stops on
that symbol. The stop comes from ``rng.randbelow(stops)`` in play or from :func:`dealer_input` (the stop or
the symbol the dealer enters) through the same call.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from table_games.domain import limits as L
from table_games.domain.errors import TableRuleError
from table_games.domain.rng import ScriptedRng
from table_games.domain.settlement import Bet, Settlement, Void, lost, void_all, won

GAME = "big_wheel"


@dataclass(frozen=True)
class Segment:
    symbol: str
    count: int
    pays: int


DEFAULT_SEGMENTS = (Segment("1", 24, 1), Segment("2", 15, 2), Segment("5", 7, 5), Segment("10", 4, 10),
                    Segment("20", 2, 20), Segment("joker", 1, 40), Segment("logo", 1, 40))


def _spread(segments: Sequence[Segment]) -> tuple[str, ...]:
    """A stop order that spreads each symbol evenly round the wheel (deterministic)."""
    slots = []
    for si, s in enumerate(segments):
        phase = (0.5 + si * 0.6180339887) % 1.0  # a different phase per symbol (joker and logo apart)
        for i in range(s.count):
            slots.append(((i + phase) / s.count, -s.count, si, s.symbol))
    return tuple(sym for *_, sym in sorted(slots))


@dataclass(frozen=True)
class BigWheelConfig:
    segments: tuple[Segment, ...] = DEFAULT_SEGMENTS
    order: tuple[str, ...] | None = None  # the stops in wheel order; default: evenly spread

    def __post_init__(self) -> None:
        names = [s.symbol for s in self.segments]
        if len(set(names)) != len(names) or any(s.count <= 0 or s.pays <= 0 for s in self.segments):
            raise ValueError("segments need distinct symbols, positive counts and pays")
        if self.order is not None:
            want = {s.symbol: s.count for s in self.segments}
            got: dict[str, int] = {}
            for sym in self.order:
                got[sym] = got.get(sym, 0) + 1
            if got != want:
                raise ValueError("the wheel order must hold each symbol exactly its count times")

    @property
    def stops(self) -> tuple[str, ...]:
        return self.order or _spread(self.segments)

    def segment(self, symbol: str) -> Segment:
        for s in self.segments:
            if s.symbol == symbol:
                return s
        raise TableRuleError("spot", f"unknown big wheel symbol {symbol!r} "
                                     f"(one of {', '.join(s.symbol for s in self.segments)})")

    def to_dict(self) -> dict[str, Any]:
        return {"segments": [{"symbol": s.symbol, "count": s.count, "pays": s.pays} for s in self.segments],
                "order": list(self.stops)}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> BigWheelConfig:
        segs = tuple(Segment(s["symbol"], s["count"], s["pays"]) for s in d["segments"])
        return cls(segs, tuple(d["order"]) if d.get("order") else None)


STANDARD_54 = BigWheelConfig()


@dataclass(frozen=True)
class WheelStop:
    stop: int
    symbol: str

    def to_dict(self) -> dict[str, Any]:
        return {"stop": self.stop, "symbol": self.symbol}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> WheelStop:
        return cls(d["stop"], d["symbol"])


def spin(rng, config: BigWheelConfig = STANDARD_54) -> WheelStop:
    stops = config.stops
    i = rng.randbelow(len(stops))
    return WheelStop(i, stops[i])


def dealer_input(config: BigWheelConfig = STANDARD_54, *, stop: int | None = None, symbol: str | None = None) -> ScriptedRng:
    """Input mode: the stop index, or the symbol the strap points at (its first stop on the wheel)."""
    if stop is None:
        if symbol is None:
            raise TableRuleError("outcome", "give the stop or the symbol")
        config.segment(symbol)
        stop = config.stops.index(symbol)
    elif symbol is not None:
        raise TableRuleError("outcome", "give the stop or the symbol")
    return ScriptedRng([stop], field="stop")


def parse_spot(spot: str, config: BigWheelConfig = STANDARD_54) -> L.SpotInfo:
    s = str(spot).strip().lower()
    config.segment(s)
    return L.SpotInfo(s, s)


def default_limits(config: BigWheelConfig = STANDARD_54, chip_unit: int = 1_000, minimum: int = 5_000,
                   max_win: int = 2_000_000) -> L.TableLimits:
    """Each symbol's maximum bet keeps its win within ``max_win``."""
    return L.TableLimits(chip_unit, {s.symbol: L.SpotLimit(minimum, max(minimum, max_win // s.pays // chip_unit * chip_unit))
                                     for s in config.segments})


def check_bet(bet: Bet, limits: L.TableLimits, existing: Sequence[Bet] = (), *,
              config: BigWheelConfig = STANDARD_54, **ctx: Any) -> Bet:
    return L.check_bet(bet, parse_spot(bet.spot, config), limits,
                       [(b, parse_spot(b.spot, config)) for b in existing], **ctx)


def settle(bets: Sequence[Bet], outcome: WheelStop | Void, config: BigWheelConfig = STANDARD_54) -> list[Settlement]:
    if isinstance(outcome, Void):
        return void_all(bets)
    out = []
    for b in bets:
        seg = config.segment(b.spot)
        out.append(won(b, b.action * seg.pays) if seg.symbol == outcome.symbol else lost(b))
    return out


def house_edge(symbol: str, config: BigWheelConfig = STANDARD_54, *, stake: int = 1_000) -> Fraction:
    """Exact edge over every stop of the wheel, through :func:`settle`."""
    bet = Bet(symbol, stake)
    stops = config.stops
    total = sum(settle([bet], WheelStop(i, s), config)[0].net for i, s in enumerate(stops))
    return -Fraction(total, len(stops) * stake)
