"""Three card poker: the 22,100-hand census, the exact pair plus and ante/play edges through the engine's own
rules, ranking, the round, settlement (ante bonus, pair plus, progressive) and bad input."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from table_games.domain import three_card as T
from table_games.domain.cards import parse_cards
from table_games.domain.errors import TableRuleError
from table_games.domain.games import GAMES
from table_games.domain.rng import SeededRng
from table_games.domain.settlement import Bet, Void
from table_games.domain.shoe import Shoe

REF = {"total": 22100, "straight_flush": 48, "three_of_a_kind": 52, "straight": 720, "flush": 1096, "pair": 3744,
       "high_card": 16440, "high_card_Q_or_better": 9720, "high_card_J_or_less": 6720,
       "pair_plus_40_30_6_4_1_edge": 0.023167420814479638, "pair_plus_40_30_6_3_1_edge": 0.07276018099547511,
       "ante_play_edge_per_ante_optimal_1_4_5_bonus": 0.03372980943604938, "hands_played_optimal": 14900}
REFERENCE = Path(__file__).resolve().parents[1] / "data" / "reference" / "table_games.json"


def test_figures_match_the_reference_file():
    """tests/data/reference/table_games.json: the published figures, each entry naming its sources."""
    ref = json.loads(REFERENCE.read_text())["three_card_poker"]
    assert {k: ref[k] for k in REF} == REF


# --------------------------------------------------------------------------------------- proofs
def test_category_counts_over_all_22100_hands():
    c = T.category_counts()
    assert sum(c.values()) == REF["total"] == 22_100
    assert c == {"straight_flush": 48, "three_kind": 52, "straight": 720, "flush": 1096, "pair": 3744,
                 "high_card": 16440}
    assert c["three_kind"] == REF["three_of_a_kind"]
    q_or_better = sum(1 for h in T.all_hands() if T.category(h) == "high_card" and T.dealer_qualifies(h))
    assert q_or_better == REF["high_card_Q_or_better"]
    assert c["high_card"] - q_or_better == REF["high_card_J_or_less"]


def test_pair_plus_edge_exact():
    e = T.pair_plus_edge()
    assert e == Fraction(512, 22100)
    assert float(e) == pytest.approx(REF["pair_plus_40_30_6_4_1_edge"], abs=1e-15)
    assert float(T.pair_plus_edge(T.PAIR_PLUS_40_30_6_3_1)) == pytest.approx(REF["pair_plus_40_30_6_3_1_edge"],
                                                                             abs=1e-15)


def test_ante_play_edge_with_q64_over_every_player_dealer_pair():
    r = T.ante_play_edge()
    assert r.pairs == 22_100 * 18_424  # every player hand × every dealer hand of the other 49 cards
    assert r.hands_played == REF["hands_played_optimal"]
    assert float(r.edge) == pytest.approx(REF["ante_play_edge_per_ante_optimal_1_4_5_bonus"], abs=1e-15)
    assert f"{float(r.edge):.3%}" == "3.373%"


# --------------------------------------------------------------------------------------- ranking
def key(text):
    return T.hand_key(parse_cards(text))


def test_straight_beats_flush_and_straight_order():
    assert key("4S 5H 6D") > key("KS 9S 2S")  # straight over flush
    assert key("AS KH QD") > key("KS QH JD") > key("2S 3H 4D") > key("AS 2H 3D")  # A-K-Q top, A-2-3 lowest
    assert T.category(parse_cards("AS 2H 3D")) == "straight"
    assert key("AS KS QS") > key("7H 7D 7C") > key("AS KH QD")  # SF > trips > straight
    assert key("KS 9S 2S") > key("AH AD KC")  # flush over pair
    assert key("QS 8H 3D") == key("QD 8C 3H")  # suits never break ties
    assert T.is_mini_royal(parse_cards("AH KH QH")) and not T.is_mini_royal(parse_cards("AH KH QD"))


def test_dealer_qualifies_with_queen_high():
    assert T.dealer_qualifies(parse_cards("QS 4H 2D"))
    assert not T.dealer_qualifies(parse_cards("JS 9H 7D"))
    assert T.dealer_qualifies(parse_cards("2S 2H 3D"))
    assert T.plays_q64(parse_cards("QS 6H 4D")) and not T.plays_q64(parse_cards("QS 6H 3D"))


# --------------------------------------------------------------------------------------- round and settlement
BOXES = [("1", "p1", 10_000), ("2", "p2", 20_000)]


def _round(cards):
    return T.ThreeCardRound(T.STANDARD, Shoe.stacked(parse_cards(cards)), BOXES)


def test_round_deals_boxes_then_dealer_and_takes_decisions_in_turn():
    cards = T.dealing_order({"1": "AS KS QS", "2": "2H 3D 9C"}, "KD 7C 4H")
    rnd = _round(cards)
    assert rnd.cards["1"] == parse_cards("AS KS QS") and rnd.dealer == parse_cards("KD 7C 4H")
    with pytest.raises(TableRuleError) as e:
        rnd.act("2", "play")
    assert e.value.field == "box" and "out of turn" in str(e.value)
    with pytest.raises(TableRuleError):
        rnd.finish()
    play = rnd.act("1", "play")
    assert play == Bet("play", 10_000, "p1", "1")
    with pytest.raises(TableRuleError):
        rnd.act("2", "raise")
    assert rnd.act("2", "fold") is None
    out = rnd.finish()
    assert out.dealer_qualifies and out.boxes["1"].played and not out.boxes["2"].played
    assert T.ThreeCardOutcome.from_dict(out.to_dict()) == out
    again = T.replay(T.STANDARD, cards, BOXES, rnd.log)
    assert again.outcome() == out


def _settle(player, dealer, bets, played=True, rules=T.STANDARD):
    out = T.ThreeCardOutcome(tuple(parse_cards(dealer)),
                             {"1": T.BoxHand("1", "p", tuple(parse_cards(player)), played)})
    return {s.bet.spot: s for s in T.settle([Bet(sp, a, "p", "1") for sp, a in bets], out, rules)}


def test_dealer_not_qualifying_pays_ante_and_pushes_play():
    s = _settle("5S 7H 9D", "JS 8H 3C", [("ante", 10_000), ("play", 10_000)])
    assert s["ante"].result == "win" and s["ante"].win == 10_000
    assert s["play"].result == "push" and s["play"].payout == 10_000


def test_qualified_dealer_win_tie_lose():
    s = _settle("KS KH 3D", "QS 8H 3C", [("ante", 10_000), ("play", 10_000)])
    assert s["ante"].net == 10_000 and s["play"].net == 10_000
    s = _settle("QS 8H 3D", "QD 8C 3H", [("ante", 10_000), ("play", 10_000)])
    assert s["ante"].result == s["play"].result == "push"
    s = _settle("QS 8H 2D", "QD 8C 3H", [("ante", 10_000), ("play", 10_000)])
    assert s["ante"].net == -10_000 and s["play"].net == -10_000


def test_ante_bonus_is_paid_whenever_the_player_plays():
    # straight losing to a straight flush: the ante is lost but the bonus (1) is paid
    s = _settle("4S 5H 6D", "7C 8C 9C", [("ante", 10_000), ("play", 10_000)])
    assert s["ante"].stake_returned == 0 and s["ante"].win == 10_000 and s["ante"].net == 0
    assert s["play"].net == -10_000
    # trips against a non-qualifying dealer: ante 1:1 + bonus 4
    s = _settle("7S 7H 7D", "JS 8H 3C", [("ante", 10_000), ("play", 10_000)])
    assert s["ante"].win == 10_000 + 40_000
    # straight flush winning: 1 + 5
    s = _settle("9H TH JH", "AS 8H 3C", [("ante", 10_000), ("play", 10_000)])
    assert s["ante"].win == 60_000 and s["play"].win == 10_000
    # folded: no bonus
    s = _settle("7S 7H 7D", "AS 8H 3C", [("ante", 10_000)], played=False)
    assert s["ante"].net == -10_000


def test_pair_plus_is_independent_of_dealer_and_fold():
    for cards, pays in (("9H TH JH", 40), ("7S 7H 7D", 30), ("4S 5H 6D", 6), ("KS 9S 2S", 4), ("KS KH 3D", 1),
                        ("KS 9H 2S", 0)):
        for played in (True, False):
            s = _settle(cards, "AS AH 3C", [("ante", 10_000), ("pair_plus", 5_000)], played=played)
            assert s["pair_plus"].net == (5_000 * pays if pays else -5_000)


def test_progressive_awards_are_reported_for_the_controller():
    out = T.ThreeCardOutcome(tuple(parse_cards("2C 5D 9S")), {
        "1": T.BoxHand("1", "a", tuple(parse_cards("AH KH QH")), True),
        "2": T.BoxHand("2", "b", tuple(parse_cards("AS KS QS")), False),
        "3": T.BoxHand("3", "c", tuple(parse_cards("8D 9D TD")), True),
        "4": T.BoxHand("4", "d", tuple(parse_cards("5H 5S 5C")), True),
        "5": T.BoxHand("5", "e", tuple(parse_cards("AD AC KC")), True)})
    bets = [Bet("progressive", 5_000, p, b) for b, p in zip("12345", "abcde")]
    awards = {a.box: a for a in T.progressive_awards(bets, out)}
    assert set(awards) == {"1", "2", "3", "4"}
    assert awards["1"].hand == "mini_royal" and awards["1"].shared_by == 2 and awards["1"].amount(1_000_000) == 500_000
    assert awards["3"].hand == "straight_flush" and awards["3"].meter_ppm == 100_000
    assert awards["3"].amount(1_234_567) == 123_456  # rounded down
    assert awards["4"].fixed == 150_000 and awards["4"].amount() == 150_000
    s = T.settle(bets, out)
    assert [x.result for x in s] == ["jackpot", "jackpot", "jackpot", "jackpot", "lose"]
    assert all(x.payout == 0 for x in s)
    assert awards["1"].to_dict()["hand"] == "mini_royal"


# --------------------------------------------------------------------------------------- bets and bad input
def test_side_bets_need_the_ante():
    lim = T.default_limits()
    with pytest.raises(TableRuleError) as e:
        T.check_bet(Bet("pair_plus", 5_000, "p1", "1"), lim)
    assert e.value.field == "spot" and "ante" in str(e.value)
    ante = T.check_bet(Bet("ante", 10_000, "p1", "1"), lim)
    assert T.check_bet(Bet("pair_plus", 5_000, "p1", "1"), lim, [ante]).spot == "pair_plus"
    with pytest.raises(TableRuleError):  # someone else's ante does not count
        T.check_bet(Bet("pair_plus", 5_000, "p2", "1"), lim, [ante])
    with pytest.raises(TableRuleError) as e:
        T.check_bet(Bet("progressive", 1_000, "p1", "1"), lim, [ante])
    assert e.value.field == "amount"
    prog = T.check_bet(Bet("progressive", 5_000, "p1", "1"), lim, [ante])
    with pytest.raises(TableRuleError):
        T.check_bet(Bet("progressive", 5_000, "p1", "1"), lim, [ante, prog])
    with pytest.raises(TableRuleError):
        T.check_bet(Bet("ante", 10_000, "p1"), lim)
    with pytest.raises(TableRuleError):
        T.check_bet(Bet("bonus", 10_000, "p1", "1"), lim)


def test_live_deal_settles_and_void_returns_everything():
    rnd = T.ThreeCardRound(T.STANDARD, T.new_deck(SeededRng(11)), BOXES)
    bets = [Bet("ante", 10_000, "p1", "1"), Bet("ante", 20_000, "p2", "2")]
    for b in ("1", "2"):
        x = rnd.act(b, "play")
        bets.append(x)
    out = rnd.finish()
    assert len(T.settle(bets, out)) == 4
    assert all(s.result == "void" for s in T.settle(bets, Void("misdeal")))
    g = GAMES["three_card_poker"]
    assert g.outcome_from_dict(out.to_dict()) == out and isinstance(g.outcome_from_dict({"void": True}), Void)
    assert g.rules_from_dict(T.STANDARD.to_dict()) == T.STANDARD
    with pytest.raises(TableRuleError):
        T.dealing_order({"1": "AS KS"}, "2C 3C 4C")
