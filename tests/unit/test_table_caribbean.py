"""Caribbean stud: the five-card census (2,598,960 hands) and dealer qualification (1,463,700), the evaluator
cross-checked against pokerkit, the round, the call paytable, the progressive awards, misdeals, bad input."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from pokerkit import StandardHighHand

from table_games.domain import caribbean as C
from table_games.domain import poker_eval as E
from table_games.domain.cards import deck, parse_cards
from table_games.domain.errors import TableRuleError
from table_games.domain.games import GAMES
from table_games.domain.rng import SeededRng
from table_games.domain.settlement import Bet, Void
from table_games.domain.shoe import Shoe

REF5 = {"total": 2598960, "royal_flush": 4, "straight_flush": 36, "four_kind": 624, "full_house": 3744,
        "flush": 5108, "straight": 10200, "three_kind": 54912, "two_pair": 123552, "one_pair": 1098240,
        "high_card": 1302540, "ace_king_high_no_pair": 167280, "dealer_qualifies_AK_or_better": 1463700}
REFERENCE = Path(__file__).resolve().parents[1] / "data" / "reference" / "table_games.json"


def test_figures_match_the_reference_file():
    """tests/data/reference/table_games.json: the published figures, each entry naming its sources."""
    ref = json.loads(REFERENCE.read_text())["five_card_poker_2598960"]
    assert {k: ref[k] for k in REF5} == REF5


def test_five_card_census_and_dealer_qualification():
    c = C.five_card_census()
    assert c.total == REF5["total"]
    assert c.categories == {k: REF5[k] for k in E.CATEGORIES}
    assert c.ace_king_high == REF5["ace_king_high_no_pair"]
    assert c.dealer_qualifies == REF5["dealer_qualifies_AK_or_better"] == 1_463_700


def test_evaluator_agrees_with_pokerkit():
    r = random.Random(4)
    cards = deck()
    for n in (5, 6, 7):
        for _ in range(150):
            h = r.sample(cards, n)
            text = "".join(E._pk(c) for c in h)
            pk = StandardHighHand.from_game(text[:4], text[4:]) if n > 5 else StandardHighHand(text)
            assert E.strength(h) == pk.entry.index + 1
            assert {str(c) for c in E.best_five(h)} <= {str(c) for c in h}
            assert E.strength(E.best_five(h)) == E.strength(h)


def test_qualification_and_categories():
    assert C.dealer_qualifies(parse_cards("AS KH 7D 4C 2S"))
    assert not C.dealer_qualifies(parse_cards("AS QH 7D 4C 2S"))
    assert C.dealer_qualifies(parse_cards("2S 2H 7D 4C 3S"))
    assert E.category(parse_cards("AS KS QS JS TS")) == "royal_flush"
    assert E.category(parse_cards("AS 2S 3S 4S 5S")) == "straight_flush"


# --------------------------------------------------------------------------------------- round and settlement
BOXES = [("1", "p1", 10_000), ("2", "p2", 10_000)]


def _outcome(dealer, hands, calls=None, dead=()):
    calls = calls or {}
    return C.CaribbeanOutcome(tuple(parse_cards(dealer)), {
        b: C.StudHand(b, f"p{b}", tuple(parse_cards(cs)), calls.get(b, True), b in dead) for b, cs in hands.items()})


def test_round_call_fold_in_turn():
    rnd = C.round_from_hands(C.STANDARD, BOXES, {"1": "AS AH 7D 4C 2S", "2": "3S 5H 8D TC QS"}, "KS KH 9D 6C 3D")
    assert rnd.current == "1"
    with pytest.raises(TableRuleError) as e:
        rnd.act("2", "call")
    assert "out of turn" in str(e.value)
    call = rnd.act("1", "call")
    assert call == Bet("call", 20_000, "p1", "1")
    assert rnd.act("2", "fold") is None
    out = rnd.finish()
    assert out.upcard == parse_cards("3D")[0] and out.dealer_qualifies
    s = C.settle([Bet("ante", 10_000, "p1", "1"), call, Bet("ante", 10_000, "p2", "2")], out)
    assert [x.net for x in s] == [10_000, 20_000, -10_000]  # aces beat kings: ante 1:1, call 1:1 (pair)
    assert C.CaribbeanOutcome.from_dict(out.to_dict()) == out
    assert C.replay(C.STANDARD, [c for cs in rnd.cards.values() for c in cs] + rnd.dealer, BOXES,
                    rnd.log).outcome() == out


@pytest.mark.parametrize("hand, pays", [
    ("AS KS QS JS TS", 100), ("9H TH JH QH KH", 50), ("7S 7H 7D 7C 2S", 20), ("7S 7H 7D 2C 2S", 7),
    ("2H 6H 9H JH KH", 5), ("4S 5H 6D 7C 8S", 4), ("QS QH QD 3C 2S", 3), ("QS QH 3D 3C 2S", 2),
    ("AS AH 9D 3C 2S", 1), ("AS KD JD 9C 7S", 1)])
def test_call_paytable_when_the_dealer_qualifies_and_loses(hand, pays):
    out = _outcome("AD KH 8D 6C 4H", {"1": hand})
    s = C.settle([Bet("ante", 10_000, "p1", "1"), Bet("call", 20_000, "p1", "1")], out)
    assert s[0].net == 10_000 and s[1].net == 20_000 * pays


def test_dealer_not_qualifying_and_ties():
    out = _outcome("AD QH 8D 6C 4H", {"1": "2S 3H 7D 9C JS"})
    s = C.settle([Bet("ante", 10_000, "p1", "1"), Bet("call", 20_000, "p1", "1")], out)
    assert s[0].net == 10_000 and s[1].result == "push"  # even a worse hand: ante 1:1, call pushes
    out = _outcome("AD KH 8D 6C 4H", {"1": "AS KC 8S 6H 4D"})
    assert [x.result for x in C.settle([Bet("ante", 10_000, "p1", "1"), Bet("call", 20_000, "p1", "1")], out)] == [
        "push", "push"]
    out = _outcome("AD KH 8D 6C 4H", {"1": "AS QC 8S 6H 4D"})
    assert [x.net for x in C.settle([Bet("ante", 10_000, "p1", "1"), Bet("call", 20_000, "p1", "1")], out)] == [
        -10_000, -20_000]
    out = _outcome("AD KH 8D 6C 4H", {"1": "AS AC 8S 6H 4D"}, calls={"1": False})
    assert C.settle([Bet("ante", 10_000, "p1", "1")], out)[0].net == -10_000
    with pytest.raises(TableRuleError):
        C.settle([Bet("call", 20_000, "p1", "1")], out)


def test_progressive_awards_shared_royals_and_fixed_amounts():
    out = _outcome("2D 5H 8D 9C JH", {
        "1": "AS KS QS JS TS", "2": "AH KH QH JH TH", "3": "9D TD JD QD KD", "4": "7S 7H 7D 7C 2S",
        "5": "2H 6H 9H 3H 4H", "6": "AD AC 3S 4S 6S"})
    bets = [Bet("progressive", 1_000, f"p{b}", b) for b in "123456"]
    a = {x.box: x for x in C.progressive_awards(bets, out)}
    assert a["1"].hand == a["2"].hand == "royal_flush" and a["1"].shared_by == 2
    assert a["1"].amount(10_000_000) == 5_000_000
    assert a["3"].meter_ppm == 100_000 and a["3"].shared_by == 1
    assert a["4"].fixed == 500_000 and a["5"].fixed == 50_000 and "6" not in a
    assert [s.result for s in C.settle(bets, out)] == ["jackpot"] * 5 + ["lose"]
    # a folded royal forfeits its progressive
    out = _outcome("2D 5H 8D 9C JH", {"1": "AS KS QS JS TS"}, calls={"1": False})
    assert C.progressive_awards([bets[0]], out) == []


def test_a_players_miscount_kills_only_that_hand():
    rnd = C.round_from_hands(C.STANDARD, BOXES, {"1": "AS AH 7D 4C", "2": "3S 5H 8D TC QS"}, "KS KH 9D 6C 3D")
    assert rnd.current == "2"  # box 1 is dead: it takes no decision
    with pytest.raises(TableRuleError):
        rnd.act("1", "call")
    rnd.act("2", "fold")
    out = rnd.finish()
    assert out.boxes["1"].dead and not out.misdeal
    s = C.settle([Bet("ante", 10_000, "p1", "1"), Bet("progressive", 1_000, "p1", "1")], out)
    assert [x.result for x in s] == ["void", "void"] and sum(x.payout for x in s) == 11_000


def test_a_dealer_miscount_is_a_misdeal_but_progressive_hands_are_paid():
    rnd = C.round_from_hands(C.STANDARD, BOXES, {"1": "7S 7H 7D 7C 2S", "2": "3S 5H 8D TC QS"}, "KS KH 9D 6C 3D 4D")
    assert rnd.misdeal and rnd.current is None
    with pytest.raises(TableRuleError):
        rnd.act("1", "call")
    out = rnd.finish()
    assert out.misdeal and not out.dealer_qualifies
    bets = [Bet("ante", 10_000, "p1", "1"), Bet("progressive", 1_000, "p1", "1"),
            Bet("ante", 10_000, "p2", "2"), Bet("progressive", 1_000, "p2", "2")]
    s = C.settle(bets, out)
    assert [x.result for x in s] == ["void", "jackpot", "void", "lose"]
    assert [a.hand for a in C.progressive_awards(bets, out)] == ["four_kind"]


def test_bad_input():
    lim = C.default_limits()
    with pytest.raises(TableRuleError) as e:
        C.check_bet(Bet("progressive", 1_000, "p1", "1"), lim)
    assert e.value.field == "spot"
    ante = C.check_bet(Bet("ante", 10_000, "p1", "1"), lim)
    assert C.check_bet(Bet("progressive", 1_000, "p1", "1"), lim, [ante]).spot == "progressive"
    with pytest.raises(TableRuleError):
        C.check_bet(Bet("call", 20_000, "p1", "1"), lim, [ante])  # the call is a decision, not a bet
    with pytest.raises(TableRuleError):
        C.round_from_hands(C.STANDARD, BOXES, {"1": "AS AH 7D 4C 2S", "2": "AS 5H 8D TC QS"}, "KS KH 9D 6C 3D")
    rnd = C.CaribbeanRound(C.STANDARD, C.new_deck(SeededRng(2)), BOXES)
    with pytest.raises(TableRuleError):
        rnd.act("1", "raise")


def test_one_at_a_time_deal_and_registry():
    rules = C.CaribbeanRules(deal="one_at_a_time")
    cards = [c for c in deck()][:15]
    rnd = C.CaribbeanRound(rules, Shoe.stacked(cards), BOXES)
    assert rnd.cards["1"] == cards[0:15:3] and rnd.dealer == cards[2:15:3]
    g = GAMES["caribbean_stud"]
    assert g.rules_from_dict(rules.to_dict()) == rules
    assert isinstance(g.outcome_from_dict({"void": True}), Void)
