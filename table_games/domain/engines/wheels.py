"""The thrown games behind the engine interface: roulette, sic bo and the big wheel. Each outcome is one draw --
the ball's pocket, three dice, the wheel's stop -- from the CSPRNG, or the dealer's reading of it passed through
the very same draw (:class:`~table_games.domain.rng.ScriptedRng`). Roulette is also played with colour chips."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any

from slotsys.kernel.ports import Rng
from table_games.domain import bigwheel as W
from table_games.domain import roulette as R
from table_games.domain import sicbo as S
from table_games.domain.engines.base import (
    SETTLE_INPUT, BetContext, ColourChipGame, ColourPurchase, DealerInput, GameEngine, Resolution, RoundPlay,
)
from table_games.domain.errors import TableRuleError
from table_games.domain.limits import TableLimits
from table_games.domain.settlement import Bet, Settlement


class ThrownGame(GameEngine):
    """A game whose outcome is thrown once after no more bets (:meth:`entered` / :meth:`thrown`)."""

    def outcome(self, play: RoundPlay, inp: DealerInput, rng: Rng) -> Resolution:
        if inp.has(*SETTLE_INPUT):
            return Resolution(self.entered(play.rules, inp), "input")
        return Resolution(self.thrown(play.rules, rng), "rng")

    @abstractmethod
    def entered(self, rules: Any, inp: DealerInput) -> Any:
        """The outcome the dealer read (``TableRuleError`` naming the field when it cannot be)."""

    @abstractmethod
    def thrown(self, rules: Any, rng: Rng) -> Any:
        """The outcome drawn from the CSPRNG."""


class Roulette(ThrownGame, ColourChipGame):
    name = "roulette"
    default_rules = R.STANDARD

    def rules_from_dict(self, d: Mapping[str, Any]) -> R.RouletteRules:
        return R.RouletteRules.from_dict(d)

    def default_limits(self, rules: Any = None, *, chip_unit: int = 1_000) -> TableLimits:
        return R.default_limits(chip_unit=chip_unit)

    def check_bet(self, bet: Bet, limits: TableLimits, existing: Sequence[Bet], rules: Any, ctx: BetContext) -> Bet:
        """A colour-chip player's bets are whole chips of their colour's value (``ctx.chip_value``)."""
        return R.check_bet(bet, limits, existing, rules=rules, chip_value=ctx.chip_value, **ctx.limits())

    def entered(self, rules: Any, inp: DealerInput) -> R.Spin:
        if inp.number is None:
            raise TableRuleError("number", "enter the winning number")
        return R.spin(R.dealer_input(inp.number))

    def thrown(self, rules: Any, rng: Rng) -> R.Spin:
        return R.spin(rng)

    def settle(self, bets: Sequence[Bet], outcome: Any, rules: Any) -> list[Settlement]:
        return R.settle(bets, outcome, rules)

    def _outcome_from_dict(self, d: Mapping[str, Any]) -> R.Spin:
        return R.Spin.from_dict(d)

    # -------------------------------------------------------------- colour chips
    def buy_in(self, in_use: Mapping[str, str], player: str, colour: str, chip_value: int, amount: int, *,
               chip_unit: int, rules: Any) -> ColourPurchase:
        got = R.buy_in(in_use, player, colour, chip_value, amount, chip_unit=chip_unit, rules=rules)
        return ColourPurchase(got.colour, got.chip_value, got.chips)

    def cash_out(self, player: str, colour: str, chip_value: int, chips_held: int, chips: int) -> int:
        return R.cash_out(R.ColourStack(player, colour, chip_value, chips_held), chips)


class SicBo(ThrownGame):
    name = "sic_bo"
    default_rules = S.MACAU

    def rules_from_dict(self, d: Mapping[str, Any]) -> S.SicBoPaytable:
        return S.SicBoPaytable.from_dict(d)

    def default_limits(self, rules: Any = None, *, chip_unit: int = 1_000) -> TableLimits:
        return S.default_limits(chip_unit=chip_unit)

    def check_bet(self, bet: Bet, limits: TableLimits, existing: Sequence[Bet], rules: Any, ctx: BetContext) -> Bet:
        return S.check_bet(bet, limits, existing, **ctx.limits())

    def entered(self, rules: Any, inp: DealerInput) -> S.Dice:
        if not isinstance(inp.dice, list):
            raise TableRuleError("dice", "enter three dice")
        return S.roll(S.dealer_input(*inp.dice))

    def thrown(self, rules: Any, rng: Rng) -> S.Dice:
        return S.roll(rng)

    def settle(self, bets: Sequence[Bet], outcome: Any, rules: Any) -> list[Settlement]:
        return S.settle(bets, outcome, rules)

    def _outcome_from_dict(self, d: Mapping[str, Any]) -> S.Dice:
        return S.Dice.from_dict(d)


class BigWheel(ThrownGame):
    name = "big_wheel"
    default_rules = W.STANDARD_54

    def rules_from_dict(self, d: Mapping[str, Any]) -> W.BigWheelConfig:
        return W.BigWheelConfig.from_dict(d)

    def default_limits(self, rules: Any = None, *, chip_unit: int = 1_000) -> TableLimits:
        """Each symbol's maximum keeps its win within the default ₩2,000,000 on this wheel's segments."""
        return W.default_limits(rules or self.default_rules, chip_unit=chip_unit)

    def check_bet(self, bet: Bet, limits: TableLimits, existing: Sequence[Bet], rules: Any, ctx: BetContext) -> Bet:
        return W.check_bet(bet, limits, existing, config=rules, **ctx.limits())

    def entered(self, rules: Any, inp: DealerInput) -> W.WheelStop:
        return W.spin(W.dealer_input(rules, stop=inp.stop, symbol=inp.symbol), rules)

    def thrown(self, rules: Any, rng: Rng) -> W.WheelStop:
        return W.spin(rng, rules)

    def settle(self, bets: Sequence[Bet], outcome: Any, rules: Any) -> list[Settlement]:
        return W.settle(bets, outcome, rules)

    def _outcome_from_dict(self, d: Mapping[str, Any]) -> W.WheelStop:
        return W.WheelStop.from_dict(d)
