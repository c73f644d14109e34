"""Progressive Texas hold'em (Texas Hold'em Bonus): the round street by street, settlement (the ante pays only
with a straight or better), the bonus and progressive side bets, bad input, and the simulation kernel
replayed against the engine hand for hand (the house edge itself is a bench figure)."""

from __future__ import annotations

import random

import pytest

from table_games.domain import holdem_bonus as H
from table_games.domain import holdem_bonus_sim as S
from table_games.domain import poker_eval as E
from table_games.domain.cards import Card, deck, parse_cards
from table_games.domain.errors import TableRuleError
from table_games.domain.games import GAMES
from table_games.domain.settlement import Bet, Void
from table_games.domain.shoe import Shoe

BOXES = [("1", "p1", 10_000), ("2", "p2", 10_000)]


def _round(board="AS KD 7C 4H 2S", hole=None, dealer="9C 9D"):
    hole = hole or {"1": "AH AD", "2": "QS JS"}
    return H.HoldemBonusRound(H.STANDARD, Shoe.stacked(H.dealing_order(board, hole, dealer)), BOXES)


def test_round_streets_and_turn_order():
    rnd = _round()
    assert rnd.visible_board == [] and rnd.allowed_actions() == ["bet", "fold"]
    with pytest.raises(TableRuleError) as e:
        rnd.act("2", "bet")
    assert e.value.field == "box" and "out of turn" in str(e.value)
    with pytest.raises(TableRuleError):
        rnd.act("1", "check")  # no checking before the flop
    assert rnd.act("1", "bet") == Bet("flop", 20_000, "p1", "1")
    assert rnd.act("2", "bet") == Bet("flop", 20_000, "p2", "2")
    assert rnd.street == "flop" and rnd.visible_board == parse_cards("AS KD 7C")
    with pytest.raises(TableRuleError):
        rnd.act("1", "fold")  # no folding after the flop bet
    assert rnd.act("1", "bet") == Bet("turn", 10_000, "p1", "1")
    assert rnd.act("2", "check") is None
    assert rnd.street == "turn" and len(rnd.visible_board) == 4
    with pytest.raises(TableRuleError):
        rnd.finish()
    assert rnd.act("1", "bet") == Bet("river", 10_000, "p1", "1")
    rnd.act("2", "check")
    out = rnd.finish()
    assert out.boxes["1"].turn_bet and out.boxes["1"].river_bet and not out.boxes["2"].turn_bet
    assert H.HoldemOutcome.from_dict(out.to_dict()) == out
    assert out.to_dict()["boxes"][0]["category"] == "three_kind"
    with pytest.raises(TableRuleError):
        rnd.act("1", "bet")
    again = H.replay(H.STANDARD, H.dealing_order("AS KD 7C 4H 2S", {"1": "AH AD", "2": "QS JS"}, "9C 9D"), BOXES,
                     rnd.log)
    assert again.outcome() == out


def test_folded_boxes_leave_the_later_streets():
    rnd = _round()
    rnd.act("1", "fold")
    rnd.act("2", "bet")
    assert rnd.current == "2"
    rnd.act("2", "check")
    rnd.act("2", "check")
    out = rnd.finish()
    assert out.boxes["1"].folded
    s = H.settle([Bet("ante", 10_000, "p1", "1")], out)
    assert s[0].net == -10_000
    with pytest.raises(TableRuleError):
        H.settle([Bet("flop", 20_000, "p1", "1")], out)


def _outcome(board, hole, dealer, **flags):
    return H.HoldemOutcome(tuple(parse_cards(board)), tuple(parse_cards(dealer)),
                           {"1": H.HoldemHand("1", "p1", tuple(parse_cards(hole)), **flags)})


ALL = [("ante", 10_000), ("flop", 20_000), ("turn", 10_000), ("river", 10_000)]


def _nets(out, rules=H.STANDARD, bets=ALL):
    return [s.net for s in H.settle([Bet(sp, a, "p1", "1") for sp, a in bets], out, rules)]


def test_ante_pays_only_with_a_straight_or_better():
    flags = dict(turn_bet=True, river_bet=True)
    # a pair of aces beats the dealer: flop, turn, river win; the ante pushes
    assert _nets(_outcome("AS KD 7C 4H 2S", "AH QD", "9C 9D", **flags)) == [0, 20_000, 10_000, 10_000]
    # a straight wins the ante too
    assert _nets(_outcome("AS KD 7C 4H 2S", "3H 5D", "9C 9D", **flags)) == [10_000, 20_000, 10_000, 10_000]
    # the Atlantic City variant wants a flush
    assert _nets(_outcome("AS KD 7C 4H 2S", "3H 5D", "9C 9D", **flags), H.FLUSH_ANTE)[0] == 0
    # a tie pushes everything; a loss loses everything
    assert _nets(_outcome("AS KD QC JH TS", "2H 3D", "4C 5D", **flags)) == [0, 0, 0, 0]
    assert _nets(_outcome("AS KD 7C 4H 2S", "QH JD", "9C 9D", **flags)) == [-10_000, -20_000, -10_000, -10_000]
    # checked streets have no bet to settle
    with pytest.raises(TableRuleError):
        _nets(_outcome("AS KD 7C 4H 2S", "QH JD", "9C 9D"))


@pytest.mark.parametrize("hole, dealer, line, pays", [
    ("AH AD", "AS AC", "aa_vs_dealer_aa", 1000), ("AH AD", "KS KC", "aa", 30), ("AH KH", "2S 3C", "ak_suited", 25),
    ("AH QH", "2S 3C", "aq_aj_suited", 20), ("AH JH", "2S 3C", "aq_aj_suited", 20),
    ("AH KD", "2S 3C", "ak_offsuit", 15), ("KH KD", "2S 3C", "jj_qq_kk", 10), ("JH JD", "2S 3C", "jj_qq_kk", 10),
    ("AH QD", "2S 3C", "aq_aj_offsuit", 5), ("TH TD", "2S 3C", "pair_2_10", 3), ("2H 2D", "3S 3C", "pair_2_10", 3),
    ("AH TD", "2S 3C", None, 0), ("KH QH", "2S 3C", None, 0)])
def test_bonus_paytable(hole, dealer, line, pays):
    assert H.bonus_line(parse_cards(hole), parse_cards(dealer)) == line
    out = _outcome("4S 7D 9C 5H 6S" if "2S" not in dealer else "4S 7D 9C 5H 6C", hole, dealer, folded=True)
    s = H.settle([Bet("bonus", 5_000, "p1", "1")], out)[0]
    assert s.net == (5_000 * pays if pays else -5_000)  # paid even after a fold


def test_bonus_edge_is_exact_and_positive():
    e = H.bonus_edge()
    assert 0 < float(e) < 0.2


def test_progressive_on_hole_cards_and_flop():
    out = _outcome("QH JH TH 2C 3D", "AH KH", "9C 9D")
    a = H.progressive_awards([Bet("progressive", 5_000, "p1", "1")], out)
    assert len(a) == 1 and a[0].hand == "royal_flush" and a[0].meter_ppm == 1_000_000
    out = _outcome("2C 3D QH JH TH", "AH KH", "9C 9D")  # the royal needs the turn and river: no award
    assert H.progressive_awards([Bet("progressive", 5_000, "p1", "1")], out) == []
    out = _outcome("QH JH TH 2C 3D", "AH KH", "9C 9D", folded=True)
    assert H.progressive_awards([Bet("progressive", 5_000, "p1", "1")], out) == []
    assert H.settle([Bet("progressive", 5_000, "p1", "1")], out)[0].result == "lose"


def test_side_bets_need_the_ante_and_registry():
    lim = H.default_limits()
    with pytest.raises(TableRuleError) as e:
        H.check_bet(Bet("bonus", 5_000, "p1", "1"), lim)
    assert "ante" in str(e.value)
    ante = H.check_bet(Bet("ante", 10_000, "p1", "1"), lim)
    assert H.check_bet(Bet("bonus", 5_000, "p1", "1"), lim, [ante]).spot == "bonus"
    with pytest.raises(TableRuleError):
        H.dealing_order("AS KD 7C 4H", {"1": "AH AD"}, "9C 9D")
    with pytest.raises(TableRuleError):
        H.dealing_order("AS KD 7C 4H 2S", {"1": "AH AS"}, "9C 9D")
    g = GAMES["holdem_bonus"]
    assert g.rules_from_dict(H.FLUSH_ANTE.to_dict()) == H.FLUSH_ANTE
    assert isinstance(g.outcome_from_dict({"void": True}), Void)
    assert all(s.result == "void" for s in H.settle([Bet("ante", 10_000, "p1", "1")], Void()))


# --------------------------------------------------------------------------------------- the kernel
_BY_ID = {E.card_id(c): c for c in deck()}


def test_simulation_kernel_replays_against_the_engine():
    r = random.Random(21)
    for _ in range(400):
        ids = r.sample(range(52), 9)
        res = S.play_hand(ids)
        cards: list[Card] = [_BY_ID[i] for i in ids]
        rnd = H.HoldemBonusRound(H.STANDARD, Shoe.stacked(cards), [("1", "p", 1_000)])
        bets = [Bet("ante", 1_000, "p", "1")]
        if res.folded:
            rnd.act("1", "fold")
        else:
            bets.append(rnd.act("1", "bet"))
            b = rnd.act("1", "bet" if res.turn_bet else "check")
            bets += [b] if b else []
            b = rnd.act("1", "bet" if res.river_bet else "check")
            bets += [b] if b else []
        out = rnd.finish()
        assert sum(s.net for s in H.settle(bets, out)) == res.net * 1_000


def test_simulation_and_exact_values_are_sane():
    sim = S.simulate(20_000, "t")
    assert -0.15 < sim.house_edge < 0.15 and sim.se < 0.05
    # quads of aces on the turn cannot lose: E = +1 exactly... unless the dealer ties (it cannot)
    assert S.exact_turn_value([48, 49], [50, 51, 0, 5]) == 1.0
    assert S.folds_preflop([0, 21]) and not S.folds_preflop([0, 25]) and not S.folds_preflop([0, 20])  # 2c7d; 2c8d, 2c7c
