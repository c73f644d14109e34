"""Baccarat: the exact 8-deck enumeration through the engine's tableau, edges, coups, settlement."""

from __future__ import annotations

from fractions import Fraction

import pytest

from table_games.domain import baccarat as B
from table_games.domain.cards import Card, parse_cards
from table_games.domain.errors import ShoeExhausted, TableRuleError
from table_games.domain.rng import SeededRng
from table_games.domain.settlement import Bet, Void
from table_games.domain.shoe import Shoe

from .test_table_reference import BACCARAT as REF


# --------------------------------------------------------------------------------------- the proof
@pytest.fixture(scope="module")
def enumeration():
    return B.enumerate_outcomes(8)


def test_enumeration_reproduces_published_counts_exactly(enumeration):
    e = enumeration
    assert e.total == 416 * 415 * 414 * 413 * 412 * 411 == REF["total_permutations"]
    assert e.count("banker") == REF["banker_count"] == 2_292_252_566_437_888
    assert e.count("player") == REF["player_count"] == 2_230_518_282_592_256
    assert e.count("tie") == REF["tie_count"] == 475_627_426_473_216
    assert e.banker_wins_with_six == REF["banker_win_on_6_count"]
    assert e.count("banker") + e.count("player") + e.count("tie") == e.total


def test_edges_from_the_engines_own_settlement():
    com = B.house_edges(B.COMMISSION)
    assert float(com["banker"]) == pytest.approx(REF["edge_banker_5pct"], abs=1e-15)
    assert float(com["player"]) == pytest.approx(REF["edge_player"], abs=1e-15)
    assert float(com["tie"]) == pytest.approx(REF["edge_tie_8to1"], abs=1e-15)
    assert com["player_pair"] == com["banker_pair"] == Fraction(43, 415)
    assert float(com["player_pair"]) == pytest.approx(REF["edge_pair_11to1"], abs=1e-15)
    nocom = B.house_edges(B.NO_COMMISSION)
    assert float(nocom["banker"]) == pytest.approx(REF["edge_banker_nocomm_6pays_half"], abs=1e-15)
    assert nocom["player"] == com["player"]
    nine = B.house_edges(B.BaccaratRules(tie_pays=9))
    assert float(nine["tie"]) == pytest.approx(REF["edge_tie_9to1"], abs=1e-15)


def test_pair_probability_is_31_over_415():
    assert B.pair_probability(8) == Fraction(31, 415)
    assert float(B.pair_probability(8)) == pytest.approx(REF["p_pair_same_rank"], abs=1e-15)


# --------------------------------------------------------------------------------------- the tableau
@pytest.mark.parametrize("banker_total, draws_on", [
    (0, set(range(10))), (1, set(range(10))), (2, set(range(10))), (3, set(range(10)) - {8}),
    (4, {2, 3, 4, 5, 6, 7}), (5, {4, 5, 6, 7}), (6, {6, 7}), (7, set()),
])
def test_banker_table_matches_page_000(banker_total, draws_on):
    for third in range(10):
        assert B.next_to_draw([0, 0, third], [banker_total, 0]) == ("banker" if third in draws_on else None)


def test_player_draws_0_to_5_banker_draws_0_to_5_when_player_stands():
    for pt in range(8):
        for bt in range(8):
            side = B.next_to_draw([pt, 0], [bt, 0])
            if pt <= 5:
                assert side == "player"
            else:
                assert side == ("banker" if bt <= 5 else None)
    assert B.next_to_draw([8, 0], [0, 0]) is None and B.next_to_draw([0, 0], [9, 0]) is None


def test_coups_from_dealer_input():
    c = B.coup_from_cards("9S 5H KD KC")  # player 9 natural vs banker 5
    assert c.winner == "player" and c.natural and c.player_total == 9 and c.banker_total == 5
    c = B.coup_from_cards("8S 9H KD KC")  # both naturals, 9 beats 8
    assert c.winner == "banker" and c.natural
    c = B.coup_from_cards("3S 2H KD 4C 6D 7H")  # P 3 draws 6 → 9; B 6 with player 6 → draws 7 → 3
    assert [str(x) for x in c.player] == ["3S", "KD", "6D"] and [str(x) for x in c.banker] == ["2H", "4C", "7H"]
    assert c.winner == "player"
    c = B.coup_from_cards("7S 3H KD 3C")  # player stands 7, banker 6 stands → player
    assert len(c.player) == 2 and len(c.banker) == 2 and c.winner == "player"
    c = B.coup_from_cards("AS 5H 5D AC")  # player 6 stands; banker 6 stands → tie
    assert c.winner == "tie"
    c = B.coup_from_cards("2S 3H 2D 3C 8D")  # banker 6? no: 3+3=6, player 4 draws 8 → 2; banker 6 stands on 8
    assert len(c.banker) == 2 and c.winner == "banker" and c.banker_wins_with_six
    with pytest.raises(TableRuleError) as e:
        B.coup_from_cards("2S 3H 2D 3C")
    assert e.value.field == "cards"


def test_coup_from_hands_checks_the_tableau():
    c = B.coup_from_hands("3S KD 6D", "2H 4C 7H")
    assert c.winner == "player"
    with pytest.raises(TableRuleError):  # player 7 stands: no third card
        B.coup_from_hands("3S 4D 6D", "2H 4C")
    with pytest.raises(TableRuleError):  # player 4 must draw
        B.coup_from_hands("2S 2D", "KH KC")


def test_pairs_are_by_rank():
    assert B.coup_from_cards("TS 2H TD 2C 9H").player_pair  # 10-10
    c = B.coup_from_cards("TS 2H JD 3C 9H")
    assert not c.player_pair and not c.banker_pair  # 10-J is no pair


def test_shoe_burn_cut_card_and_last_coup():
    shoe, burned = B.new_shoe(B.COMMISSION, SeededRng(5))
    assert len(shoe) == 416 and burned[0].burn_count + 1 == len(burned)
    coups = []
    while True:
        coup = B.play_coup(shoe)
        coups.append(coup)
        if coup.last_of_shoe:
            break
    assert shoe.remaining <= 14 and sum(c.last_of_shoe for c in coups) == 1
    assert shoe.position - len(burned) == sum(len(c.player) + len(c.banker) for c in coups)
    with pytest.raises(ShoeExhausted):
        B.play_coup(Shoe.stacked(parse_cards("2S 3H")))


def test_same_seed_same_shoe_and_coup_serialisation():
    a, _ = B.new_shoe(B.COMMISSION, SeededRng(11))
    b, _ = B.new_shoe(B.COMMISSION, SeededRng(11))
    ca, cb = B.play_coup(a), B.play_coup(b)
    assert ca == cb
    assert B.Coup.from_dict(ca.to_dict()) == ca
    # replay: the coup's cards in dealing order through input mode give the same coup
    assert B.coup_from_cards(ca.dealing_order()).to_dict() | {"last_of_shoe": ca.last_of_shoe} == ca.to_dict()


# --------------------------------------------------------------------------------------- settlement
def _coup(text: str) -> B.Coup:
    return B.coup_from_cards(text)


def test_settlement_commission_and_no_commission():
    banker7 = _coup("3S 7H 3D KC")  # player 6 stands, banker 7 stands: banker wins with 7
    assert banker7.winner == "banker" and banker7.banker_total == 7
    bet = Bet("banker", 15_700)
    s = B.settle([bet], banker7, B.COMMISSION)[0]
    assert (s.stake_returned, s.win, s.commission, s.payout) == (15_700, 15_700, 800, 30_600)  # 785 → 800
    s = B.settle([bet], banker7, B.NO_COMMISSION)[0]
    assert (s.win, s.commission) == (15_700, 0)
    banker6 = _coup("2S 3H 2D 3C 8D")
    assert banker6.banker_wins_with_six
    s = B.settle([Bet("banker", 5_001)], banker6, B.NO_COMMISSION)[0]
    assert (s.win, s.commission, s.payout) == (2_500, 0, 7_501)  # half, rounded down
    s = B.settle([Bet("banker", 10_000)], banker6, B.COMMISSION)[0]
    assert (s.win, s.commission) == (10_000, 500)


def test_tie_pays_8_and_pushes_player_banker():
    tie = _coup("AS 5H 5D AC")
    res = B.settle([Bet("player", 10_000), Bet("banker", 10_000), Bet("tie", 10_000)], tie)
    assert [(s.result, s.payout) for s in res] == [("push", 10_000), ("push", 10_000), ("win", 90_000)]


def test_pair_bets_pay_11():
    c = _coup("TS 5H TD 5C 9H 4D")
    res = B.settle([Bet("player_pair", 1_000), Bet("banker_pair", 1_000)], c)
    assert [s.payout for s in res] == [12_000, 12_000]


def test_void_returns_every_bet():
    bets = [Bet("player", 10_000), Bet("tie", 2_000, "p2")]
    res = B.settle(bets, Void("misdeal"))
    assert all(s.result == "void" and s.payout == s.bet.amount and s.net == 0 for s in res)


def test_over_maximum_bet_accepted_by_mistake_pays_and_takes_only_the_maximum():
    lim = B.default_limits(maximum=1_000_000)
    bet = B.check_bet(Bet("player", 1_500_000, "p1", "1"), lim, accept_over_max=True)
    assert bet.cap == 1_000_000
    win = B.settle([bet], _coup("9S 5H KD KC"))[0]
    assert (win.stake_returned, win.win, win.payout) == (1_500_000, 1_000_000, 2_500_000)
    lose = B.settle([bet], _coup("5S 9H KD KC"))[0]
    assert (lose.result, lose.payout, lose.net) == ("lose", 500_000, -1_000_000)


def test_squeeze_goes_to_highest_bettor_each_side():
    bets = [Bet("player", 10_000, "a"), Bet("player", 50_000, "b"), Bet("banker", 20_000, "c"), Bet("tie", 90_000, "d")]
    assert B.squeezers(bets, B.BaccaratRules(squeeze=True)) == {"player": "b", "banker": "c"}
    assert B.squeezers(bets, B.COMMISSION) == {"player": None, "banker": None}
    assert B.squeezers([Bet("tie", 1_000, "d")], B.BaccaratRules(squeeze=True)) == {"player": None, "banker": None}


def test_unknown_spot():
    with pytest.raises(TableRuleError) as e:
        B.parse_spot("dragon")
    assert e.value.field == "spot" and e.value.status == 422


def test_rules_round_trip():
    r = B.BaccaratRules(commission=False, squeeze=True, commission_unit=500)
    assert B.BaccaratRules.from_dict(r.to_dict()) == r


def test_card_values():
    assert [c.baccarat_value for c in parse_cards("AS 9H TD JC QS KH")] == [1, 9, 0, 0, 0, 0]
    assert Card(13, "S").burn_count == 10
