"""What the house-banked poker games share behind the engine interface (three card poker, Caribbean stud,
Texas hold'em bonus, pai gow poker): dealt once after no more bets, then decided one decision at a time.

The deal (the CSPRNG shuffles a deck, or the dealer enters the cards as dealt) is stored in the round's state
(``{"mode": "rng"|"input", "cards": [...], "decisions": [...]}`` plus the game's extras) and every decision is
appended there; the round object is always *rebuilt* from the state through the game's own constructor (a stacked
shoe), so the live deal, the dealer's input and a replay take the same code path. Settling finishes the round and
records its outcome with the decisions' log. A subclass says how its round is dealt (:meth:`PokerEngine.deal_state`),
built (:meth:`PokerEngine.build`), acted on (:meth:`PokerEngine.act`) and shown (:meth:`PokerEngine.view`).

Input mode bodies (deal or settle): three card poker ``hands`` {box: 3 cards} + ``dealer`` (3); Caribbean stud
``hands`` {box: cards as dealt (other than 5: dead hand)} + ``dealer`` (other than 5: misdeal); hold'em bonus
``board`` (5) + ``hands`` {box: 2} + ``dealer`` (2); pai gow ``dice`` (3) + ``hands`` {place: cards as dealt,
"dealer" included} (other than 7: dead; the banker's: all dead).
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from slotsys.kernel.errors import Conflict
from slotsys.kernel.ports import Rng
from table_games.domain.engines.base import (
    DEAL_INPUT, Dealt, DealerInput, Decided, Decision, GameEngine, Resolution, RoundPlay,
)
from table_games.domain.errors import TableRuleError
from table_games.domain.settlement import Bet


def seat_order(box: str) -> tuple[int, str]:
    """Dealing order of boxes: the dealer's left first (``"1"`` < ``"2"`` < … < ``"10"``)."""
    return (len(box), box)


def check_decision_bet(decision: Mapping[str, Any], placed: Bet | None) -> None:
    """A stated ``amount`` must be exactly the bet the decision places (play = ante, call = 2× ante, flop bet
    2× ante, turn/river 1×); a fold or check places none. ``TableRuleError("amount")`` otherwise."""
    amount = decision.get("amount")
    if amount is None:
        return
    if placed is None:
        raise TableRuleError("amount", f"a {decision['action']} places no bet")
    if amount != placed.amount:
        raise TableRuleError("amount", f"the {placed.spot} bet is exactly ₩{placed.amount:,} "
                                       f"(the table's multiple of box {placed.box}'s ante), not ₩{amount:,}",
                             required=placed.amount)


class PokerEngine(GameEngine):
    """A poker game dealt into a round object that is rebuilt from the stored cards and decisions."""

    dealt = True
    boxed = True
    progressive_spot = True
    actions: ClassVar[tuple[str, ...]]

    # -------------------------------------------------------------- what a game says
    @abstractmethod
    def deal_state(self, play: RoundPlay, inp: DealerInput, rng: Rng) -> dict[str, Any]:
        """The state of a freshly dealt round (without its decisions): mode, cards and the game's extras."""

    @abstractmethod
    def build(self, rules: Any, bets: Sequence[Bet], state: Mapping[str, Any]) -> Any:
        """The game's round object from the state (no decisions applied)."""

    @abstractmethod
    def view(self, rnd: Any) -> dict[str, Any]:
        """What the table shows while the round is played (who acts, what is allowed)."""

    def act(self, rnd: Any, d: Mapping[str, Any]) -> Bet | None:
        """Apply one recorded decision; the bet it places (to debit), if any."""
        return rnd.act(d["box"], d["action"])

    # -------------------------------------------------------------- the shared flow
    def rebuild(self, rules: Any, bets: Sequence[Bet], state: Mapping[str, Any]) -> Any:
        """The round from its stored cards, with every recorded decision applied."""
        rnd = self.build(rules, bets, state)
        for d in state.get("decisions") or []:
            self.act(rnd, d)
        return rnd

    @staticmethod
    def finish(rnd: Any) -> tuple[Any, dict[str, Any]]:
        """The outcome, and the dict recorded on the round (the outcome and the decisions' log)."""
        out = rnd.finish()
        d = out.to_dict()
        d["log"] = list(rnd.log)
        return out, d

    def deal(self, play: RoundPlay, inp: DealerInput, rng: Rng) -> Dealt:
        state = {**self.deal_state(play, inp, rng), "decisions": []}
        return Dealt(state, {"game": self.name, **self.view(self.build(play.rules, play.bets, state))})

    def decide(self, play: RoundPlay, decision: Decision, cards: Sequence[str] | None = None) -> Decided:
        """One decision in turn (its bet exactly the table's multiple of the ante, when it places one)."""
        if decision.action not in self.actions:
            raise TableRuleError("action", f"{decision.action!r} is not a {self.title} decision "
                                           f"({', '.join(self.actions)})")
        state = dict(play.state or {})
        rnd = self.rebuild(play.rules, play.bets, state)
        record = decision.to_dict()
        placed = self.act(rnd, record)
        check_decision_bet(record, placed)
        state["decisions"] = state["decisions"] + [record]
        return Decided(state, (placed,) if placed is not None else (), record,
                       {"game": self.name, **self.view(rnd)})

    def round_view(self, play: RoundPlay, status: str) -> dict[str, Any]:
        """A dealt round still being decided shows how it stands (``play``)."""
        if status == "no_more_bets" and play.state and "decisions" in play.state:
            return {"play": self.view(self.rebuild(play.rules, play.bets, play.state))}
        return {}

    def outcome(self, play: RoundPlay, inp: DealerInput, rng: Rng) -> Resolution:
        """The dealt round rebuilt with its decisions (plus ``inp.decisions``, whose bets are debited with the
        settlement), finished. An undealt round is settled in one go from the dealer's input (the cards as dealt
        and every decision); without it, ``Conflict`` (field ``round``)."""
        state = dict(play.state or {})
        if "decisions" not in state:
            if not inp.has(*DEAL_INPUT):
                raise Conflict("deal the round first, or enter the cards with the decisions", field="round")
            state = {**self.deal_state(play, inp, rng), "decisions": []}
        rnd = self.rebuild(play.rules, play.bets, state)
        placed: list[Bet] = []
        new = [d.to_dict() for d in inp.decisions]
        for d in new:
            x = self.act(rnd, d)
            check_decision_bet(d, x)
            if x is not None:
                placed.append(x)
        state["decisions"] = state["decisions"] + new
        out, record = self.finish(rnd)
        return Resolution(out, state["mode"], tuple(placed), record=record, state=state)

    def replay_checks(self, rules: Any, bets: Sequence[Bet], state: Mapping[str, Any] | None,
                      recorded: Mapping[str, Any]) -> dict[str, Any]:
        """The round played again from its dealt cards and recorded decisions (``deal_matches``) and its
        progressive claims recomputed from the outcome (``progressive_matches``; the amounts are the
        controller's, recorded with the meter they were paid from)."""
        out: dict[str, Any] = {}
        if state and "decisions" in state:
            _, d = self.finish(self.rebuild(rules, bets, state))
            out["deal_matches"] = d == {k: v for k, v in recorded.items() if k != "progressive"}
        if "progressive" in recorded:
            outcome = self.outcome_from_dict(recorded)
            claims = [(a.box, a.hand, a.shared_by) for a in self.progressive_awards(bets, outcome, rules)]
            paid = [(a["box"], a["hand"], a.get("shared_by", 1)) for a in recorded["progressive"]["awards"]]
            out["progressive"] = recorded["progressive"]
            out["progressive_matches"] = claims == paid
        return out
