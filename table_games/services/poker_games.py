"""The house-banked poker games on the table framework: how each is dealt, rebuilt, decided and shown.

Three card poker, Caribbean stud, Texas hold'em bonus and pai gow poker are played like blackjack
(:mod:`table_games.services.tables`): after no more bets the round is **dealt** once (the CSPRNG shuffles
a deck, or the dealer enters the cards as dealt) and the dealt cards are stored in ``table_rounds.state``;
every **decision** is appended there; the round object is always *rebuilt* from the stored cards and
decisions through the engine's own constructor (a stacked shoe), so the live deal, the dealer's input and
a replay take the same code path. Settling finishes the round and records the outcome.

One :class:`PokerFlow` per game (``POKER[game]``), small functions each:

* ``deal(rules, bets, body, rng, state, seats) -> state``: the state of a freshly dealt round
  (``{"mode": "rng"|"input", "cards": [...], "decisions": []}`` + the game's extras);
* ``build(rules, bets, state) -> round``: the engine's round object from the state (no decisions yet);
* ``act(round, decision) -> Bet | None``: apply one decision (the bet it places, to debit);
* ``view(round) -> dict``: what the table shows while it is played (who acts, what is allowed);
* ``awards(bets, outcome, rules)``: the progressive awards the hands qualify for (``None``: no progressive).

Input mode bodies (``POST .../deal`` or ``.../settle``): three card poker ``hands`` {box: 3 cards} +
``dealer`` (3); Caribbean stud ``hands`` {box: cards as dealt (other than 5: dead hand)} + ``dealer`` (other
than 5: misdeal); hold'em bonus ``board`` (5) + ``hands`` {box: 2} + ``dealer`` (2); pai gow ``dice`` (3) +
``hands`` {place: cards as dealt, "dealer" included} (other than 7: dead; the banker's: all dead).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from table_games.domain import caribbean, holdem_bonus, paigow, three_card
from table_games.domain import poker_eval as E
from table_games.domain.cards import card_strings, parse_cards
from table_games.domain.errors import TableRuleError
from table_games.domain.poker_table import PROGRESSIVE, BoxStake
from table_games.domain.settlement import Bet
from table_games.domain.shoe import Shoe

INPUT_KEYS = ("hands", "dealer", "board", "dice", "cards")


def seat_order(box: str) -> tuple[int, str]:
    """Dealing order of boxes: the dealer's left first (``"1"`` < ``"2"`` < … < ``"10"``)."""
    return (len(box), box)


def ante_boxes(bets: Sequence[Bet]) -> list[BoxStake]:
    """The boxes in play (one per ante), in dealing order, with the seated player's total ante."""
    stakes: dict[str, tuple[str, int]] = {}
    for b in bets:
        if b.spot == "ante" and b.box is not None:
            player, amount = stakes.get(b.box, (b.player, 0))
            stakes[b.box] = (player, amount + b.amount)
    if not stakes:
        raise TableRuleError("round", "no box has an ante: nothing to deal")
    return [BoxStake(box, *stakes[box]) for box in sorted(stakes, key=seat_order)]


def is_input(body: Mapping[str, Any]) -> bool:
    return any(body.get(k) is not None for k in INPUT_KEYS)


def _hands(boxes: Sequence[str], body: Mapping[str, Any]) -> dict[str, Any]:
    """The dealer's ``hands`` for exactly the boxes in play, in dealing order."""
    hands = body.get("hands")
    if not isinstance(hands, Mapping):
        raise TableRuleError("hands", "enter each box's cards: {box: [cards]}")
    extra = sorted(set(hands) - set(boxes))
    if extra:
        raise TableRuleError("hands", f"box {extra[0]} has no ante in this round")
    missing = [b for b in boxes if b not in hands]
    if missing:
        raise TableRuleError("hands", f"enter the cards of box {missing[0]}")
    return {b: hands[b] for b in boxes}


def _replay(flow: PokerFlow, rnd: Any, decisions: Sequence[Mapping[str, Any]]) -> Any:
    for d in decisions:
        flow.act(rnd, d)
    return rnd


def _act(rnd: Any, d: Mapping[str, Any]) -> Bet | None:
    return rnd.act(d["box"], d["action"])


def _boxes_view(rnd: Any, cards: Callable[[str], Sequence[Any]]) -> dict[str, dict]:
    return {b: {"player_id": int(s.player), "ante": s.ante, "cards": card_strings(cards(b))}
            for b, s in rnd.boxes.items()}


def _progressive_order(rules: Any) -> Callable[[Any], int]:
    lines = list(rules.progressive)
    return lambda a: lines.index(a.hand)


# ------------------------------------------------------------------------------------------- three card poker
def _tcp_deal(rules, bets, body, rng, state, seats) -> dict:
    boxes = ante_boxes(bets)
    if is_input(body):
        cards = three_card.dealing_order(_hands([b.box for b in boxes], body), body.get("dealer") or [])
        return {"mode": "input", "cards": card_strings(cards)}
    rnd = three_card.ThreeCardRound(rules, three_card.new_deck(rng), boxes)
    return {"mode": "rng", "cards": card_strings(rnd.shoe.dealt())}


def _tcp_build(rules, bets, state):
    return three_card.ThreeCardRound(rules, Shoe.stacked(parse_cards(state["cards"])), ante_boxes(bets))


def _tcp_view(rnd) -> dict:
    boxes = _boxes_view(rnd, lambda b: rnd.cards[b])
    for b, v in boxes.items():
        v["category"] = three_card.category(rnd.cards[b])
        v["decision"] = None if b not in rnd.decisions else ("play" if rnd.decisions[b] else "fold")
    cur = rnd.current
    return {"to_act": {"box": cur, "allowed": ["play", "fold"], "bet": rnd.boxes[cur].ante} if cur else None,
            "boxes": boxes, "dealer": card_strings(rnd.dealer) if cur is None else []}


# ------------------------------------------------------------------------------------------- Caribbean stud
def _csp_deal(rules, bets, body, rng, state, seats) -> dict:
    boxes = ante_boxes(bets)
    if is_input(body):
        hands = _hands([b.box for b in boxes], body)
        rnd = caribbean.round_from_hands(rules, boxes, hands, body.get("dealer") or [])
    else:
        rnd = caribbean.CaribbeanRound(rules, caribbean.new_deck(rng), boxes)
    counts = {b: len(cs) for b, cs in rnd.cards.items()} | {caribbean.DEALER: len(rnd.dealer)}
    return {"mode": "input" if is_input(body) else "rng", "cards": card_strings(rnd.shoe.dealt()),
            "counts": counts, "deal": rnd.rules.deal}


def _csp_build(rules, bets, state):
    if rules.deal != state["deal"]:
        rules = caribbean.CaribbeanRules.from_dict(rules.to_dict() | {"deal": state["deal"]})
    return caribbean.CaribbeanRound(rules, Shoe.stacked(parse_cards(state["cards"])), ante_boxes(bets),
                                    counts=state["counts"])


def _csp_view(rnd) -> dict:
    boxes = _boxes_view(rnd, lambda b: rnd.cards[b])
    for b, v in boxes.items():
        v["dead"] = b in rnd.dead
        v["category"] = None if b in rnd.dead else E.category(rnd.cards[b])
        v["decision"] = None if b not in rnd.calls else ("call" if rnd.calls[b] else "fold")
    cur = rnd.current
    return {"to_act": {"box": cur, "allowed": ["call", "fold"],
                       "bet": rnd.boxes[cur].ante * rnd.rules.call_multiple} if cur else None,
            "misdeal": rnd.misdeal, "boxes": boxes,
            "dealer_upcard": str(rnd.dealer[-1]) if rnd.dealer and not rnd.misdeal else None}


# ------------------------------------------------------------------------------------------- hold'em bonus
def _hb_deal(rules, bets, body, rng, state, seats) -> dict:
    boxes = ante_boxes(bets)
    if is_input(body):
        cards = holdem_bonus.dealing_order(body.get("board") or [], _hands([b.box for b in boxes], body),
                                           body.get("dealer") or [])
        return {"mode": "input", "cards": card_strings(cards)}
    rnd = holdem_bonus.HoldemBonusRound(rules, holdem_bonus.new_deck(rng), boxes)
    return {"mode": "rng", "cards": card_strings(rnd.shoe.dealt())}


def _hb_build(rules, bets, state):
    return holdem_bonus.HoldemBonusRound(rules, Shoe.stacked(parse_cards(state["cards"])), ante_boxes(bets))


def _hb_view(rnd) -> dict:
    boxes = _boxes_view(rnd, lambda b: rnd.hole[b])
    for b, v in boxes.items():
        v.update(folded=b in rnd.folded, bets=sorted(rnd.bets[b]))
    cur = rnd.current
    allowed = rnd.allowed_actions()
    return {"street": rnd.street, "board": card_strings(rnd.visible_board),
            "to_act": {"box": cur, "allowed": allowed,
                       "bet": rnd.boxes[cur].ante * rnd.rules.multiple(rnd.street)} if cur else None,
            "boxes": boxes, "dealer": card_strings(rnd.dealer) if rnd.street == holdem_bonus.SHOWDOWN else []}


# ------------------------------------------------------------------------------------------- pai gow poker
def paigow_players(bets: Sequence[Bet], seats: Mapping[str, str], state: Mapping[str, Any]) -> dict[str, str]:
    """Place → seated player for every place with a main bet, and the banking player's place."""
    places = {b.box for b in bets if b.spot == "main" and b.box is not None}
    banker = state.get("banker")
    if banker and banker != paigow.DEALER:
        places.add(banker)
    if not places - {banker}:
        raise TableRuleError("round", "no place has a bet: nothing to deal")
    return {p: seats[p] for p in sorted(places, key=seat_order)}


def _pg_deal(rules, bets, body, rng, state, seats) -> dict:
    banker = state.get("banker", paigow.DEALER)
    players = paigow_players(bets, seats, state)
    if is_input(body):
        dice = body.get("dice")
        if not isinstance(dice, list):
            raise TableRuleError("dice", "enter the three dice")
        hands = body.get("hands")
        if not isinstance(hands, Mapping):
            raise TableRuleError("hands", "enter each place's cards as dealt: {place: [cards]}")
        dealt = paigow.deal_from_hands(dice, hands, rules, banker=banker)
    else:
        dealt = paigow.deal_live(rng, rules, banker=banker)
    return {**state, "mode": "input" if is_input(body) else "rng", "deal": dealt.to_dict(), "players": players,
            "first": paigow.first_position(dealt.dice, rules, banker)}


def _pg_build(rules, bets, state):
    return paigow.PaiGowRound(rules, paigow.PaiGowDeal.from_dict(state["deal"]), state["players"],
                              house_bet=state.get("house_bet", 0))


def _pg_act(rnd, d: Mapping[str, Any]) -> None:
    if d["action"] == "house_way":
        rnd.set_house_way(d["box"])
    elif d["action"] == "set":
        if d.get("high") is None or d.get("low") is None:
            raise TableRuleError("high", "a hand setting names its five-card high and two-card low hands")
        rnd.set_hand(d["box"], d["high"], d["low"], confirm_foul=bool(d.get("confirm_foul")))
    else:
        raise TableRuleError("action", f"unknown decision {d['action']!r} (set or house_way)")
    return None


def _pg_view(rnd) -> dict:
    places = {}
    for p, player in rnd.players.items():
        s = rnd.settings.get(p)
        places[p] = {"player_id": int(player), "cards": paigow.pg_strings(rnd.cards(p)), "dead": rnd.deal.dead(p),
                     "banker": p == rnd.banker, "set": s.to_dict() if s else None, "house_way": p in rnd.by_house_way}
    return {"dice": list(rnd.deal.dice), "banker": rnd.banker, "house_bet": rnd.house_bet, "all_dead": rnd.all_dead,
            "to_act": {"places": rnd.waiting(), "allowed": ["set", "house_way"]} if rnd.waiting() else None,
            "places": places, "house_way_policy": rnd.rules.house_way}


# ------------------------------------------------------------------------------------------- the registry
@dataclass(frozen=True)
class PokerFlow:
    game: str
    actions: tuple[str, ...]
    deal: Callable[..., dict]
    build: Callable[..., Any]
    view: Callable[[Any], dict]
    act: Callable[[Any, Mapping[str, Any]], Bet | None] = _act
    awards: Callable[..., list] | None = None

    def rebuild(self, rules: Any, bets: Sequence[Bet], state: Mapping[str, Any]) -> Any:
        """The round from its stored cards, with every recorded decision applied."""
        return _replay(self, self.build(rules, bets, state), state.get("decisions") or [])

    def finish(self, rnd: Any) -> tuple[Any, dict]:
        """The outcome (and the dict recorded on the round: the outcome, the decisions' log)."""
        out = rnd.finish()
        d = out.to_dict()
        d["log"] = list(rnd.log)
        return out, d

    def progressive_awards(self, bets: Sequence[Bet], outcome: Any, rules: Any) -> list:
        """The progressive claims, best paytable line first (each line's hands share that line)."""
        if self.awards is None or not any(b.spot == PROGRESSIVE for b in bets):
            return []
        return sorted(self.awards(bets, outcome, rules), key=_progressive_order(rules))


POKER: dict[str, PokerFlow] = {
    "three_card_poker": PokerFlow("three_card_poker", ("play", "fold"), _tcp_deal, _tcp_build, _tcp_view,
                                  awards=three_card.progressive_awards),
    "caribbean_stud": PokerFlow("caribbean_stud", ("call", "fold"), _csp_deal, _csp_build, _csp_view,
                                awards=caribbean.progressive_awards),
    "holdem_bonus": PokerFlow("holdem_bonus", ("bet", "check", "fold"), _hb_deal, _hb_build, _hb_view,
                              awards=holdem_bonus.progressive_awards),
    "pai_gow_poker": PokerFlow("pai_gow_poker", ("set", "house_way"), _pg_deal, _pg_build, _pg_view, act=_pg_act),
}
ANTE_GAMES = ("three_card_poker", "caribbean_stud", "holdem_bonus")


def check_decision_bet(decision: Mapping[str, Any], placed: Bet | None) -> None:
    """A stated ``amount`` must be exactly the bet the decision places (play = ante, call = 2× ante, flop bet
    2× ante, turn/river 1×); a fold or check places none."""
    amount = decision.get("amount")
    if amount is None:
        return
    if placed is None:
        raise TableRuleError("amount", f"a {decision['action']} places no bet")
    if amount != placed.amount:
        raise TableRuleError("amount", f"the {placed.spot} bet is exactly ₩{placed.amount:,} "
                                       f"(the table's multiple of box {placed.box}'s ante), not ₩{amount:,}",
                             required=placed.amount)
