"""Blackjack (European no hole card): scenarios, illegal decisions, settlement, the simulation kernel."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from table_games.domain import blackjack as BJ
from table_games.domain import blackjack_sim as K
from table_games.domain import blackjack_strategy as S
from table_games.domain.cards import Card, parse_cards
from table_games.domain.errors import TableRuleError
from table_games.domain.settlement import Bet, Void
from table_games.domain.shoe import Shoe

from .test_table_reference import BLACKJACK_PAIR

STAKE = 10_000


def new_round(cards: str, rules=BJ.S17, boxes=(("1", "p", STAKE),), chip_unit=1_000):
    return BJ.BlackjackRound(rules, Shoe.stacked(parse_cards(cards)), list(boxes), chip_unit=chip_unit)


def settle_round(rnd, bets, rules=BJ.S17):
    out = rnd.finish()
    return out, BJ.settle(bets, out, rules)


def main(box="1", player="p", amount=STAKE):
    return Bet("main", amount, player, box)


# --------------------------------------------------------------------------------------- totals
def test_soft_and_hard_totals():
    hv = lambda t: BJ.hand_value(parse_cards(t))  # noqa: E731
    assert hv("AS 6D") == (17, True)
    assert hv("AS 6D KC") == (17, False)
    assert hv("AS AD 9C") == (21, True)
    assert hv("AS 5D AC") == (17, True)
    assert hv("AS AD") == (12, True)
    assert hv("KS QD 2C") == (22, False)
    assert BJ.is_natural(parse_cards("AS JD")) and not BJ.is_natural(parse_cards("AS JD"), from_split=True)
    assert not BJ.is_natural(parse_cards("7S 7D 7C"))


def test_dealer_stands_on_soft_17_hits_it_on_h17():
    cards = "TS AH 8D 6C 4D"  # player 18; dealer A-6 (soft 17), then 4 → 21
    rnd = new_round(cards)
    rnd.act("1", "stand")
    out, res = settle_round(rnd, [main()])
    assert [str(c) for c in out.dealer] == ["AH", "6C"] and res[0].net == STAKE
    rnd = new_round(cards, BJ.H17)
    rnd.act("1", "stand")
    out, res = settle_round(rnd, [main()], BJ.H17)
    assert out.dealer_total == 21 and res[0].net == -STAKE


# --------------------------------------------------------------------------------------- blackjack
def test_dealer_blackjack_beats_a_three_card_21():
    rnd = new_round("7S AH 7D 7C KD")  # player 7 7, hits 7 = 21; dealer A then K
    rnd.act("1", "hit")
    assert rnd.current is None  # 21 stands by itself
    out, res = settle_round(rnd, [main()])
    assert out.dealer_blackjack and rnd.boxes["1"].hands[0].total == 21
    assert res[0].result == "lose" and res[0].net == -STAKE


def test_player_blackjack_beats_a_dealer_three_card_21_and_pays_3_to_2():
    rnd = new_round("AS TS 9H KD KC 5C 7D", boxes=[("1", "p", STAKE), ("2", "q", STAKE)])
    assert rnd.current == ("2", 0)  # box 1's blackjack needs no decision
    rnd.act("2", "stand")
    out, res = settle_round(rnd, [main(), main("2", "q")])
    assert out.dealer_total == 21 and len(out.dealer) == 3 and not out.dealer_blackjack
    assert (res[0].result, res[0].win) == ("win", 15_000)
    assert res[1].net == -STAKE


def test_blackjack_3_to_2_rounds_down_to_the_won():
    rnd = new_round("AS 9H KD 7C", chip_unit=1)
    out, res = settle_round(rnd, [main(amount=1_001)])
    assert res[0].win == 1_501  # 1,501.5 → 1,501
    assert out.dealer == tuple(parse_cards("9H"))  # a blackjack against a 9 is paid whatever comes: no 2nd card


def test_blackjack_pushes_a_dealer_blackjack():
    rnd = new_round("AS TH KD AC")
    rnd.close_insurance()
    out, res = settle_round(rnd, [main()])
    assert out.dealer_blackjack and res[0].result == "push" and res[0].payout == STAKE


def test_21_after_split_aces_pays_1_to_1():
    rnd = new_round("AS 9H AD KC 5D 8S")
    extra = rnd.act("1", "split")
    assert extra == Bet("split:1", STAKE, "p", "1")
    assert rnd.current is None  # each ace took one card and stopped
    out, res = settle_round(rnd, [main(), extra])
    h0, h1 = out.boxes["1"].hands
    assert h0.total == 21 and not h0.blackjack and h1.total == 16 and out.dealer_total == 17
    assert (res[0].result, res[0].win) == ("win", STAKE)  # not 15,000
    assert res[1].result == "lose"


# --------------------------------------------------------------------------------------- ENHC vs OBO
def test_enhc_dealer_blackjack_takes_doubles_and_splits_obo_returns_them():
    for rules, double_result in ((BJ.S17, "lose"), (BJ.ORIGINAL_BETS_ONLY, "push")):
        rnd = new_round("6S TH 5D 9C AS", rules)
        dbl = rnd.act("1", "double")
        out, res = settle_round(rnd, [main(), dbl], rules)
        assert out.dealer_blackjack and [s.result for s in res] == ["lose", double_result]
    for rules, split_result in ((BJ.S17, "lose"), (BJ.ORIGINAL_BETS_ONLY, "push")):
        rnd = new_round("8S TH 8D 2C 3D AS", rules)
        spl = rnd.act("1", "split")
        rnd.act("1", "stand")
        rnd.act("1", "stand")
        out, res = settle_round(rnd, [main(), spl], rules)
        assert out.dealer_blackjack and [s.result for s in res] == ["lose", split_result]


def test_double_for_less():
    rnd = new_round("6S TH 5D 9C 7S")
    dbl = rnd.act("1", "double", 5_000)
    assert dbl == Bet("double:0", 5_000, "p", "1")
    out, res = settle_round(rnd, [main(), dbl])
    assert [s.win for s in res] == [STAKE, 5_000]


# --------------------------------------------------------------------------------------- insurance, even money
def test_insurance_up_to_half_pays_2_to_1():
    rnd = new_round("TS AH 9D KC")
    with pytest.raises(TableRuleError) as e:
        rnd.insure("1", 6_000)
    assert e.value.field == "amount"
    ins = rnd.insure("1", 5_000)
    rnd.act("1", "stand")
    out, res = settle_round(rnd, [main(), ins])
    assert out.dealer_blackjack
    assert [(s.result, s.payout) for s in res] == [("lose", 0), ("win", 15_000)]
    assert sum(s.net for s in res) == 0

    rnd = new_round("TS AH 9D 7C")
    ins = rnd.insure("1", 5_000)
    rnd.act("1", "stand")
    out, res = settle_round(rnd, [main(), ins])
    assert out.dealer_total == 18 and [s.net for s in res] == [STAKE, -5_000]


def test_the_insurance_round_ends_when_every_box_has_answered():
    rnd = new_round("TS 8C AH 9D 9S 7C", boxes=(("1", "p", STAKE), ("2", "q", STAKE)))
    assert rnd.insurance_open
    rnd.decline_insurance("1")
    assert rnd.insurance_open  # box 2 has not answered yet
    rnd.insure("2", 5_000)
    assert not rnd.insurance_open  # everyone answered: the table shows no insurance offer any more
    with pytest.raises(TableRuleError):
        rnd.decline_insurance("1")
    rnd.act("1", "stand")
    rnd.act("2", "stand")
    out, res = settle_round(rnd, [main(), main("2", "q"), Bet("insurance", 5_000, "q", "2")])
    assert out.dealer_total == 18 and [s.net for s in res] == [STAKE, -STAKE, -5_000]


def test_insurance_only_with_an_ace_up():
    rnd = new_round("TS 9H 9D 7C")
    with pytest.raises(TableRuleError):
        rnd.insure("1", 5_000)


def test_even_money_pays_1_to_1_at_once():
    rnd = new_round("AS AH KD")
    with pytest.raises(TableRuleError):  # a blackjack takes even money, not insurance
        rnd.insure("1", 5_000)
    rnd.take_even_money("1")
    out, res = settle_round(rnd, [main()])
    assert len(out.dealer) == 1  # nobody needs the dealer's second card
    assert (res[0].result, res[0].win) == ("win", STAKE)
    assert out.boxes["1"].even_money


def test_declined_even_money_pushes_a_dealer_blackjack():
    rnd = new_round("AS AH KD TC")
    rnd.decline_insurance("1")
    out, res = settle_round(rnd, [main()])
    assert res[0].result == "push"


# --------------------------------------------------------------------------------------- surrender
def test_surrender_late_and_early():
    rnd = new_round("TS 9H 6D 8C")
    rnd.act("1", "surrender")
    out, res = settle_round(rnd, [main()])
    assert (res[0].result, res[0].payout) == ("half", 5_000)
    rnd = new_round("TS AH 6D KC")  # the dealer makes blackjack: late surrender loses it all
    rnd.act("1", "surrender")
    out, res = settle_round(rnd, [main()])
    assert out.dealer_blackjack and res[0].payout == 0
    early = BJ.BlackjackRules(surrender="early")
    rnd = new_round("TS AH 6D KC", early)
    rnd.act("1", "surrender")
    out, res = settle_round(rnd, [main()], early)
    assert len(out.dealer) == 1 and res[0].payout == 5_000
    with pytest.raises(TableRuleError):
        new_round("TS 9H 6D", BJ.BlackjackRules(surrender="none")).act("1", "surrender")


# --------------------------------------------------------------------------------------- pair side bet
def test_pair_side_bet_11_to_1_by_rank():
    rnd = new_round("8S 5H 8D TC 9S 7C")
    pair = Bet("pair", 1_000, "p", "1")
    rnd.act("1", "stand")
    _, res = settle_round(rnd, [pair])
    assert res[0].win == 11_000
    rnd = new_round("TS 5H KD 7C 9S")
    rnd.act("1", "stand")
    _, res = settle_round(rnd, [pair])
    assert res[0].result == "lose"  # 10-K: same value, not a pair


def test_pair_side_bet_edges_6_and_8_decks():
    for decks, p_key, e_key in ((6, "p_same_rank_6deck", "edge_6deck"), (8, "p_same_rank_8deck", "edge_8deck")):
        hits, n = BJ.pair_probability(decks)
        p = Fraction(hits, n)
        win = BJ.settle([Bet("pair", 1_000, "p", "b")], _pair_outcome(True), BJ.S17)[0].net
        lose = BJ.settle([Bet("pair", 1_000, "p", "b")], _pair_outcome(False), BJ.S17)[0].net
        edge = -(p * win + (1 - p) * lose) / 1_000
        assert float(p) == pytest.approx(BLACKJACK_PAIR[p_key], abs=1e-15)
        assert float(edge) == pytest.approx(BLACKJACK_PAIR[e_key], abs=1e-15)


def _pair_outcome(pair: bool) -> BJ.BlackjackOutcome:
    two = (Card(8, "S"), Card(8 if pair else 9, "H"))
    box = BJ.BoxOutcome("b", "p", two, (BJ.HandOutcome(0, two, 1_000),))
    return BJ.BlackjackOutcome((Card(10, "S"), Card(7, "S")), {"b": box})


# --------------------------------------------------------------------------------------- bad decisions
def test_decisions_the_hand_does_not_allow():
    rnd = new_round("8S 5H 9D 2C 4D")
    with pytest.raises(TableRuleError) as e:
        rnd.act("1", "split")
    assert e.value.field == "action" and "equal value" in e.value.detail and e.value.status == 422
    rnd.act("1", "hit")
    with pytest.raises(TableRuleError) as e:
        rnd.act("1", "double")
    assert "first two cards" in e.value.detail
    with pytest.raises(TableRuleError) as e:
        rnd.act("1", "surrender")
    with pytest.raises(TableRuleError) as e:
        rnd.act("1", "fold")
    with pytest.raises(TableRuleError):
        new_round("6S TH 5D").act("1", "double", 20_000)  # more than the stake
    with pytest.raises(TableRuleError):
        new_round("6S TH 5D").act("1", "double", 1_500)  # not a chip multiple
    with pytest.raises(TableRuleError):
        new_round("8S TH 8D").act("1", "split", 5_000)  # a split takes exactly the stake


def test_split_aces_take_one_card_and_ten_values_split():
    rnd = new_round("KS 5H QD 9C 4D 8S")
    rnd.act("1", "split")  # 10-Q: equal value
    assert rnd.boxes["1"].hands[0].total == 19
    rnd = new_round("AS 9H AD AC 5D 8S", BJ.BlackjackRules(resplit_aces=False))
    rnd.act("1", "split")
    assert rnd.current is None  # A+A not resplit: each ace hand is done


def test_split_to_three_hands_at_most():
    rnd = new_round("8S 5H 8D 8C 8H 2D 3D 4D 9S 9C 9D")
    rnd.act("1", "split")
    rnd.act("1", "split")
    assert rnd.allowed_actions() == ["hit", "stand", "double"]
    with pytest.raises(TableRuleError) as e:
        rnd.act("1", "split")
    assert "3 hands" in e.value.detail


def test_turn_order_between_boxes():
    rnd = new_round("TS 9S 5H 7D 8D 9C", boxes=[("1", "p", STAKE), ("2", "q", STAKE)])
    with pytest.raises(TableRuleError) as e:
        rnd.act("2", "stand")
    assert e.value.field == "box"
    rnd.act("1", "stand")
    rnd.act("2", "stand")
    with pytest.raises(TableRuleError):
        rnd.act("1", "hit")


def test_a_player_plays_at_most_three_boxes():
    boxes = [(str(i), "p", STAKE) for i in range(1, 5)]
    with pytest.raises(TableRuleError):
        new_round("TS " * 12, boxes=boxes)
    new_round("TS 9S 8S 7S 6S 5S 4S", boxes=boxes[:3])


def test_backer_rides_on_the_first_hand_without_the_split():
    rnd = new_round("8S 5H 8D TC 9C 7S 8H")  # box splits 8s vs 5: 18 and 17; dealer 5+7+8 = 20
    spl = rnd.act("1", "split")
    rnd.act("1", "stand")
    rnd.act("1", "stand")
    backer = Bet("main", 5_000, "q", "1")
    out, res = settle_round(rnd, [main(), spl, backer])
    assert out.dealer_total == 20 and [s.net for s in res] == [-STAKE, -STAKE, -5_000]


def test_void_round_returns_everything():
    bets = [main(), Bet("pair", 1_000, "p", "1")]
    assert [s.payout for s in BJ.settle(bets, Void("misdeal"))] == [STAKE, 1_000]


def test_replay_from_cards_and_decisions():
    rnd = new_round("8S 6D 8H 3C KD 7S 9H 5C")
    rnd.act("1", "split")
    rnd.act("1", "double")
    rnd.act("1", "stand")
    out = rnd.finish()
    cards = rnd.shoe.dealt()
    again = BJ.replay(BJ.S17, cards, [("1", "p", STAKE)], rnd.log, chip_unit=1_000)
    assert again.outcome() == out
    assert BJ.BlackjackOutcome.from_dict(out.to_dict()) == out


def test_bets_before_the_deal():
    lim = BJ.default_limits()
    seats = {"1": "p", "2": "p", "3": "q"}
    assert BJ.check_bet(Bet("main", 20_000, "p", "1"), lim, seats=seats).spot == "main"
    with pytest.raises(TableRuleError) as e:
        BJ.check_bet(Bet("main", 20_000, "p"), lim, seats=seats)
    assert e.value.field == "box"
    with pytest.raises(TableRuleError) as e:
        BJ.check_bet(Bet("insurance", 20_000, "p", "1"), lim, seats=seats)
    assert e.value.field == "spot"


# --------------------------------------------------------------------------------------- strategy and kernel
def test_basic_strategy_spot_checks():
    s = S.basic_strategy(BJ.S17)
    def play(cards, up, **kw):  # noqa: E306
        allowed = {"can_double": True, "can_split": True, "can_surrender": True} | kw
        return s.decide(cards, up, **allowed)
    assert play([6, 5], 10) == "hit"  # ENHC: no double of 11 against a ten
    assert play([6, 5], 6) == "double"
    assert play([10, 6], 10) == "surrender" and play([10, 6], 10, can_surrender=False) == "hit"
    assert play([10, 2], 4) == "stand" and play([10, 2], 2) == "hit"
    assert play([1, 1], 1) == "hit" and play([1, 1], 6) == "split"
    assert play([10, 10], 6) == "stand" and play([9, 9], 7) == "stand" and play([9, 9], 8) == "split"
    assert play([10, 3, 3], 10) == "hit" and play([10, 4, 3], 10) == "stand"
    assert "hard 11" in S.chart(s)


@pytest.mark.parametrize("rules", [BJ.S17, BJ.H17, BJ.ORIGINAL_BETS_ONLY,
                                   BJ.BlackjackRules(decks=8, surrender="early"),
                                   BJ.BlackjackRules(surrender="none", double_after_split=False, max_hands=4)])
def test_simulation_kernel_plays_exactly_like_the_engine(rules):
    """The bench's fast kernel and the engine, on the same shoes, give the same result every round."""
    strat = S.basic_strategy(rules)
    tables = K.Tables.of(strat)
    rng = random.Random(1234)
    rounds = 0
    for _ in range(100):
        values = K.new_shoe(rules.decks, rng)
        shoe = Shoe.stacked([Card(v, "S") for v in values], cut_index=len(values) - rules.cut_card_from_end)
        shoe.burn(1)
        pos = 1
        while not shoe.cut_card_out:
            engine_net = _engine_round(shoe, rules, strat)
            kernel_net, pos = K.play_round(values, pos, rules, tables)
            assert engine_net == kernel_net and pos == shoe.position
            rounds += 1
    assert rounds > 4_000


def _engine_round(shoe, rules, strat):
    rnd = BJ.BlackjackRound(rules, shoe, [("1", "p", 2)])
    bets = [Bet("main", 2, "p", "1")]
    rnd.close_insurance()
    while acts := rnd.allowed_actions():
        _, hid = rnd.current
        h = rnd.boxes["1"].hand(hid)
        a = strat.decide([c.blackjack_value for c in h.cards], rnd.upcard.blackjack_value,
                         can_double="double" in acts, can_split="split" in acts, can_surrender="surrender" in acts)
        extra = rnd.act("1", a)
        if extra:
            bets.append(extra)
    out = rnd.finish()
    return sum(s.net for s in BJ.settle(bets, out, rules))


def test_simulation_result_statistics():
    r = K.simulate(BJ.S17, 20_000, seed=3)
    lo, hi = r.ci95()
    assert r.rounds == 20_000 and lo < r.edge < hi and 0 < r.stderr < 0.02
