"""Blackjack's dealer-entered mode at the domain level: the round is given exactly the cards the dealer typed, and
asks (``dealer_needs``, or ``ShoeExhausted`` from ``finish``) only for a card some bet still depends on. European
no hole card: with every hand busted, surrendered, or paid as a blackjack / even money, the dealer's hand stays at
the upcard; the second card is taken for a stood hand, an insurance bet, a blackjack or a late surrender that a
dealer blackjack would change (ace or ten-value up)."""

from __future__ import annotations

import pytest

from table_games.domain import blackjack as BJ
from table_games.domain.cards import parse_cards
from table_games.domain.errors import ShoeExhausted
from table_games.domain.settlement import Bet
from table_games.domain.shoe import Shoe

STAKE = 10_000
TWO = (("1", "p", STAKE), ("2", "q", STAKE))
ONE = TWO[:1]


def entered(cards: str, boxes=ONE, rules=BJ.S17) -> BJ.BlackjackRound:
    """A round whose shoe holds only the cards the dealer typed (dealing order: each box, the upcard, each box)."""
    return BJ.BlackjackRound(rules, Shoe.stacked(parse_cards(cards)), list(boxes), chip_unit=1_000)


def mains(boxes=TWO) -> list[Bet]:
    return [Bet("main", stake, player, box) for box, player, stake in boxes]


def results(rnd, bets, rules=BJ.S17) -> dict[str, tuple[str, int]]:
    out = rnd.finish()
    return {s.bet.box: (s.result, s.net) for s in BJ.settle(bets, out, rules)}


def test_every_hand_busted_the_dealer_stays_at_the_upcard():
    rnd = entered("TS 9H 6D 6C 5S KD QC", TWO)  # box 1 T 6 hits K; box 2 9 5 hits Q
    rnd.act("1", "hit")
    assert rnd.dealer_needs is None and rnd.current == ("2", 0)  # box 2 still to act: nothing asked yet
    rnd.act("2", "hit")
    assert rnd.current is None and rnd.dealer_needs is None
    assert results(rnd, mains()) == {"1": ("lose", -STAKE), "2": ("lose", -STAKE)}
    assert rnd.dealer == parse_cards("6D")  # the shoe held no more cards: none was asked for


@pytest.mark.parametrize("up", ["6D", "9C"])
def test_blackjack_against_two_to_nine_is_paid_without_the_second_card(up):
    rnd = entered(f"AS TH {up} KD 6C 9S", TWO)  # box 1 blackjack; box 2 T 6 hits 9 and busts
    assert rnd.current == ("2", 0) and not rnd.insurance_open
    rnd.act("2", "hit")
    assert rnd.dealer_needs is None
    assert results(rnd, mains()) == {"1": ("win", 15_000), "2": ("lose", -STAKE)}
    assert rnd.dealer == parse_cards(up)


def test_blackjack_against_a_ten_needs_the_second_card_and_nothing_more():
    rnd = entered("AS TD KD")  # one box: blackjack against a ten
    assert rnd.current is None and rnd.dealer_needs == "second card"
    with pytest.raises(ShoeExhausted):
        rnd.finish()
    rnd = entered("AS TD KD 5C")
    assert results(rnd, mains(ONE)) == {"1": ("win", 15_000)}
    assert rnd.dealer == parse_cards("TD 5C")  # 15, but no hand stood: the dealer does not draw to 17


def test_blackjack_against_a_ten_pushes_a_dealer_blackjack():
    rnd = entered("AS TD KD AH")
    assert results(rnd, mains(ONE)) == {"1": ("push", 0)}


def test_even_money_needs_no_second_card():
    rnd = entered("AS 8H AD KD 8C 9S", TWO)  # box 1 blackjack v ace; box 2 8 8 hits 9 and busts
    assert rnd.insurance_open and rnd.dealer_needs is None  # insurance is answered first
    rnd.take_even_money("1")
    rnd.decline_insurance("2")
    assert rnd.dealer_needs is None and rnd.current == ("2", 0)
    rnd.act("2", "hit")
    assert rnd.dealer_needs is None
    assert results(rnd, mains()) == {"1": ("win", STAKE), "2": ("lose", -STAKE)}
    assert rnd.dealer == parse_cards("AD")


def test_declined_even_money_needs_the_second_card():
    rnd = entered("AS AD KD")
    rnd.decline_insurance("1")
    assert rnd.dealer_needs == "second card"


def test_late_surrender_against_two_to_nine_needs_no_second_card():
    rnd = entered("TS 9H 6D 6C 5S KC", TWO)  # box 1 16 surrenders; box 2 14 hits K and busts
    rnd.act("1", "surrender")
    rnd.act("2", "hit")
    assert rnd.dealer_needs is None
    assert results(rnd, mains()) == {"1": ("half", -5_000), "2": ("lose", -STAKE)}
    assert rnd.dealer == parse_cards("6D")


def test_late_surrender_against_a_ten_needs_the_second_card_early_does_not():
    rnd = entered("TS TD 6C")
    rnd.act("1", "surrender")
    assert rnd.dealer_needs == "second card"  # a dealer blackjack would take the whole stake
    early = BJ.BlackjackRules(surrender="early")
    rnd = entered("TS TD 6C", rules=early)
    rnd.act("1", "surrender")
    assert rnd.dealer_needs is None
    assert results(rnd, mains(ONE), early) == {"1": ("half", -5_000)}


def test_a_mixed_table_with_nothing_live_takes_no_second_card():
    boxes = (("1", "p", STAKE), ("2", "q", STAKE), ("3", "r", STAKE))
    # box 1 blackjack, box 2 T 6 surrenders, box 3 T 4 hits 8 and busts; a 5 up
    rnd = entered("AS TH TC 5D KD 6C 4S 8H", boxes)
    rnd.act("2", "surrender")
    rnd.act("3", "hit")
    assert rnd.dealer_needs is None
    assert results(rnd, mains(boxes)) == {"1": ("win", 15_000), "2": ("half", -5_000), "3": ("lose", -STAKE)}
    assert rnd.dealer == parse_cards("5D")


def test_split_hands_that_all_bust_take_no_dealer_card():
    # 8 8 against a 7: split; hand 0 takes T (18), hits K (28); hand 1 takes 9 when reached (17), hits T (27)
    rnd = entered("8S 7D 8C TH KC 9H TS", ONE)
    extra = rnd.act("1", "split")
    rnd.act("1", "hit")
    rnd.act("1", "hit")
    assert [h.busted for h in rnd.boxes["1"].hands] == [True, True]
    assert rnd.current is None and rnd.dealer_needs is None
    net = sum(s.net for s in BJ.settle(mains(ONE) + [extra], rnd.finish()))
    assert net == -2 * STAKE and rnd.dealer == parse_cards("7D")


def test_insurance_needs_the_second_card_even_when_the_hand_busts():
    rnd = entered("TS AD 6C KH")
    ins = rnd.insure("1", 5_000)
    rnd.act("1", "hit")  # 26
    assert rnd.dealer_needs == "second card"
    with pytest.raises(ShoeExhausted):
        rnd.finish()
    rnd = entered("TS AD 6C KH KD")
    rnd.insure("1", 5_000)
    rnd.act("1", "hit")
    out = rnd.finish()
    assert out.dealer_blackjack and rnd.dealer == parse_cards("AD KD")
    res = {s.bet.spot: s.net for s in BJ.settle(mains(ONE) + [ins], out)}
    assert res == {"main": -STAKE, "insurance": 10_000}


def _dealer_after(cards: str, rules=BJ.S17) -> BJ.BlackjackRound:
    """Box 1 stands on T 8 against the upcard; the dealer's cards typed so far follow; finish as far as they go."""
    rnd = entered(cards, ONE, rules)
    rnd.act("1", "stand")
    try:
        rnd.finish()
    except ShoeExhausted:
        pass
    return rnd


def test_a_stood_hand_needs_the_second_card_then_each_draw_to_17():
    typed = ["5H", "3C", "4S"]  # 6 5 = 11, 14, 18: the dealer stands
    prompts = [_dealer_after(" ".join(["TS 6D 8C", *typed[:i]])).dealer_needs for i in range(4)]
    assert prompts == ["second card", "next card", "next card", None]
    rnd = _dealer_after("TS 6D 8C 5H 3C 4S 9D")  # the dealer typed one card too many: it is not drawn
    assert rnd.finished and rnd.dealer == parse_cards("6D 5H 3C 4S") and rnd.shoe.remaining == 1
    assert BJ.settle(mains(ONE), rnd.outcome())[0].result == "push"


def test_soft_17_is_a_prompt_only_under_h17():
    assert _dealer_after("TS 6D 8C AH", BJ.S17).dealer_needs is None  # 6 A = soft 17 stands
    h17 = _dealer_after("TS 6D 8C AH", BJ.H17)
    assert not h17.finished and h17.dealer_needs == "next card"


def test_a_split_hand_waits_for_its_second_card_until_play_reaches_it():
    rnd = entered("8S 7D 8C TH 9H")
    assert rnd.hand_waiting_for_card() is None
    rnd.act("1", "split")  # hand 0 takes TH at once; hand 1 (8C) waits
    assert rnd.boxes["1"].hand(1).cards == parse_cards("8C") and rnd.hand_waiting_for_card() == ("1", 1)
    rnd.act("1", "stand")  # play reaches hand 1: it takes 9H
    assert rnd.hand_waiting_for_card() is None and rnd.boxes["1"].hand(1).cards == parse_cards("8C 9H")
    short = entered("8S 7D 8C TH")
    short.act("1", "split")
    with pytest.raises(ShoeExhausted):  # with no card typed for hand 1, standing on hand 0 cannot move play on
        short.act("1", "stand")
    assert short.hand_waiting_for_card() == ("1", 1)
