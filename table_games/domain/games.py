"""The games behind one interface, for the table framework.

``GAMES[name]`` gives, per game: its rules-variant type and default (``rules_from_dict`` reads a table's
stored variant), ``parse_spot`` / ``check_bet`` (bet validation, raising ``TableRuleError(field, ...)``),
``default_limits``, ``settle(bets, outcome, rules) -> list[Settlement]`` and ``outcome_from_dict`` (a recorded
round's outcome, a :class:`~table_games.domain.settlement.Void` included) -- so a framework can store rules,
bets and outcomes as JSON and replay any round.

The outcome engines differ by nature and are called directly: ``baccarat.play_coup(shoe)``,
``blackjack.BlackjackRound(...)``, ``roulette.spin(rng)``, ``sicbo.roll(rng)``, ``bigwheel.spin(rng, config)``;
the poker games deal from a shoe into a round object (``three_card.ThreeCardRound``, ``caribbean.CaribbeanRound``,
``holdem_bonus.HoldemBonusRound``, ``paigow.deal`` + ``paigow.PaiGowRound``) whose ``finish()`` gives the outcome;
in input mode the same calls take a stacked shoe or a :class:`~table_games.domain.rng.ScriptedRng`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from table_games.domain import (
    baccarat, bigwheel, blackjack, caribbean, holdem_bonus, paigow, roulette, sicbo, three_card,
)
from table_games.domain.settlement import Void


@dataclass(frozen=True)
class GameEngine:
    name: str
    default_rules: Any
    rules_from_dict: Callable[[Mapping[str, Any]], Any]
    parse_spot: Callable[..., Any]
    check_bet: Callable[..., Any]
    default_limits: Callable[..., Any]
    settle: Callable[..., Any]
    _outcome_from_dict: Callable[[Mapping[str, Any]], Any]

    def outcome_from_dict(self, d: Mapping[str, Any]) -> Any:
        if d.get("void"):
            return Void(d.get("reason", "no game"))
        return self._outcome_from_dict(d)


GAMES: dict[str, GameEngine] = {
    "baccarat": GameEngine("baccarat", baccarat.COMMISSION, baccarat.BaccaratRules.from_dict, baccarat.parse_spot,
                           baccarat.check_bet, baccarat.default_limits, baccarat.settle, baccarat.Coup.from_dict),
    "blackjack": GameEngine("blackjack", blackjack.S17, blackjack.BlackjackRules.from_dict, blackjack.parse_spot,
                            blackjack.check_bet, blackjack.default_limits, blackjack.settle,
                            blackjack.BlackjackOutcome.from_dict),
    "roulette": GameEngine("roulette", roulette.STANDARD, roulette.RouletteRules.from_dict, roulette.parse_spot,
                           roulette.check_bet, roulette.default_limits, roulette.settle, roulette.Spin.from_dict),
    "sic_bo": GameEngine("sic_bo", sicbo.MACAU, sicbo.SicBoPaytable.from_dict, sicbo.parse_spot, sicbo.check_bet,
                         sicbo.default_limits, sicbo.settle, sicbo.Dice.from_dict),
    "big_wheel": GameEngine("big_wheel", bigwheel.STANDARD_54, bigwheel.BigWheelConfig.from_dict,
                            bigwheel.parse_spot, bigwheel.check_bet, bigwheel.default_limits, bigwheel.settle,
                            bigwheel.WheelStop.from_dict),
    "three_card_poker": GameEngine("three_card_poker", three_card.STANDARD, three_card.ThreeCardRules.from_dict,
                                   three_card.parse_spot, three_card.check_bet, three_card.default_limits,
                                   three_card.settle, three_card.ThreeCardOutcome.from_dict),
    "caribbean_stud": GameEngine("caribbean_stud", caribbean.STANDARD, caribbean.CaribbeanRules.from_dict,
                                 caribbean.parse_spot, caribbean.check_bet, caribbean.default_limits,
                                 caribbean.settle, caribbean.CaribbeanOutcome.from_dict),
    "holdem_bonus": GameEngine("holdem_bonus", holdem_bonus.STANDARD, holdem_bonus.HoldemBonusRules.from_dict,
                               holdem_bonus.parse_spot, holdem_bonus.check_bet, holdem_bonus.default_limits,
                               holdem_bonus.settle, holdem_bonus.HoldemOutcome.from_dict),
    "pai_gow_poker": GameEngine("pai_gow_poker", paigow.HOUSE_WAY_91, paigow.PaiGowRules.from_dict,
                                paigow.parse_spot, paigow.check_bet, paigow.default_limits, paigow.settle,
                                paigow.PaiGowOutcome.from_dict),
}
