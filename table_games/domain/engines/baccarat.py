"""Baccarat behind the engine interface: the shoe lasts across rounds (shuffled with a new shoe number when the
cut card has come out), a coup is played from it by the CSPRNG's shuffle or entered card by card by the dealer,
the commission rounds up to the table's unit, and the roadmaps read the shoe's coups."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from slotsys.kernel.ports import Rng
from table_games.domain import baccarat as B
from table_games.domain import roadmaps
from table_games.domain.cards import card_strings, parse_cards
from table_games.domain.engines.base import (
    SETTLE_INPUT, BetContext, DealerInput, GameEngine, Resolution, RoundPlay, ShoeGame,
)
from table_games.domain.errors import ShoeExhausted, TableRuleError
from table_games.domain.limits import TableLimits
from table_games.domain.settlement import Bet, Settlement, Void
from table_games.domain.shoe import Shoe

class Baccarat(GameEngine, ShoeGame):
    name = "baccarat"
    default_rules = B.COMMISSION

    def rules_from_dict(self, d: Mapping[str, Any]) -> B.BaccaratRules:
        return B.BaccaratRules.from_dict(d)

    def table_rules(self, given: Mapping[str, Any] | None, *, commission_unit: int) -> B.BaccaratRules:
        """The variant with its commission rounded up to the table's ``commission_unit`` (won)."""
        rules = super().table_rules(given, commission_unit=commission_unit)
        return self.rules_from_dict({**rules.to_dict(), "commission_unit": commission_unit})

    def default_limits(self, rules: Any = None, *, chip_unit: int = 1_000) -> TableLimits:
        return B.default_limits(chip_unit=chip_unit)

    def check_bet(self, bet: Bet, limits: TableLimits, existing: Sequence[Bet], rules: Any, ctx: BetContext) -> Bet:
        return B.check_bet(bet, limits, existing, **ctx.limits())

    # -------------------------------------------------------------- the coup
    def voided(self, play: RoundPlay, void: Void) -> Resolution:
        return Resolution(void, "input", shoe_no=play.shoe_no or 1)

    def outcome(self, play: RoundPlay, inp: DealerInput, rng: Rng) -> Resolution:
        """Input mode: the coup from the dealer's ``cards`` (dealing order); a table that never shuffled counts
        it in shoe 1. Otherwise the next coup from the table's shoe (a fresh shoe when there is none or its cut
        card came out); a shoe that runs out mid-coup is a misdeal: the round is void and the shoe done."""
        if inp.has(*SETTLE_INPUT):
            if inp.cards is None:
                raise TableRuleError("cards", "enter the coup's cards in dealing order")
            return Resolution(B.coup_from_cards(inp.cards), "input", shoe_no=play.shoe_no or 1)
        state, shoe_no = play.shoe, play.shoe_no
        if state is None or state.get("cut_card_out"):
            state, shoe_no = self.shuffle(play.rules, rng), shoe_no + 1
        shoe = Shoe.stacked(parse_cards(state["cards"][state["pos"]:]),
                            cut_index=max(state["cut_index"] - state["pos"], 0))
        try:
            coup = B.play_coup(shoe)
        except ShoeExhausted:
            return Resolution(Void("the shoe ran out (misdeal)"), "rng", shoe={**state, "cut_card_out": True},
                              shoe_no=shoe_no)
        return Resolution(coup, "rng", shoe={**state, "pos": state["pos"] + shoe.position,
                                             "cut_card_out": coup.last_of_shoe}, shoe_no=shoe_no)

    def settle(self, bets: Sequence[Bet], outcome: Any, rules: Any) -> list[Settlement]:
        return B.settle(bets, outcome, rules)

    def _outcome_from_dict(self, d: Mapping[str, Any]) -> B.Coup:
        return B.Coup.from_dict(d)

    # -------------------------------------------------------------- the shoe and its roadmaps
    def shuffle(self, rules: Any, rng: Rng) -> dict[str, Any]:
        shoe, burned = B.new_shoe(rules, rng)
        cards = shoe.dealt() + [shoe.draw() for _ in range(shoe.remaining)]
        return {"cards": card_strings(cards), "pos": len(burned), "cut_index": shoe.cut_index,
                "burned": card_strings(burned), "cut_card_out": False}

    def scoreboard(self, outcomes: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        """The bead plate, big road and derived roads of the coups played (void rounds have no winner)."""
        return roadmaps.scoreboard([o for o in outcomes if o and "winner" in o])
