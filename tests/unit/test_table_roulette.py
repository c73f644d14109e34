"""Roulette: every bet's edge is 1/37 through the engine's own settlement; call bets; limits per number;
colour chips; the wheel in play and in input mode."""

from __future__ import annotations

from fractions import Fraction

import pytest

from slotsys.kernel.ports import Csprng
from table_games.domain import roulette as R
from table_games.domain.errors import BettingClosed, TableRuleError
from table_games.domain.rng import SeededRng
from table_games.domain.settlement import Bet, Void

from .test_table_reference import ROULETTE_EDGE, reference


def test_every_bet_has_the_single_zero_edge():
    spots = R.all_spots()
    assert len(spots) == len(set(spots)) == 214
    for spot in spots:
        edge = R.house_edge(spot)
        assert edge == Fraction(1, 37), spot
        assert float(edge) == pytest.approx(ROULETTE_EDGE, abs=1e-16)


def test_call_bets_match_the_reference_layouts():
    ref = reference()
    v = R.parse_spot("voisins")
    assert v.chips == 9 and R.parse_spot("tiers").chips == 6 and R.parse_spot("orphelins").chips == 5
    covered = set().union(*(R.target_numbers(p.target) for p in v.elementary()))
    expected = {22, 18, 29, 7, 28, 12, 35, 3, 26, 0, 32, 15, 19, 4, 21, 2, 25}
    assert covered == expected
    assert covered == set(ref["roulette_single_zero"]["call_bets"]["voisins_du_zero"]["numbers"])
    assert [(p.target, p.weight) for p in v.elementary()] == [
        ("street:0-2-3", 2), ("split:4-7", 1), ("split:12-15", 1), ("split:18-21", 1), ("split:19-22", 1),
        ("split:32-35", 1), ("corner:25-26-28-29", 2)]
    assert [p.target for p in R.parse_spot("tiers").elementary()] == [
        "split:5-8", "split:10-11", "split:13-16", "split:23-24", "split:27-30", "split:33-36"]
    assert [p.target for p in R.parse_spot("orphelins").elementary()] == [
        "straight:1", "split:6-9", "split:14-17", "split:17-20", "split:31-34"]
    # the three call bets and their numbers cover the wheel exactly once
    allnums = [n for s in ("voisins", "tiers", "orphelins") for p in R.parse_spot(s).elementary()
               for n in R.target_numbers(p.target)]
    assert sorted(set(allnums)) == list(range(37))


def test_finales_and_neighbours():
    assert [p.target for p in R.parse_spot("final:3").elementary()] == [
        "straight:3", "straight:13", "straight:23", "straight:33"]
    assert R.parse_spot("final:7").chips == 3 and R.parse_spot("final:0").chips == 4
    assert [p.target for p in R.parse_spot("final_split:0-3").elementary()] == [
        "split:0-3", "split:10-13", "split:20-23", "split:30-33"]
    assert [p.target for p in R.parse_spot("final_split:4-7").elementary()][-1] == "straight:34"
    assert R.neighbours(17) == [2, 25, 17, 34, 6]
    assert R.neighbours(0, 1) == [26, 0, 32]
    assert R.parse_spot("neighbours:17").chips == 5 and R.parse_spot("neighbours:17:3").chips == 7
    with pytest.raises(TableRuleError):
        R.parse_spot("final_split:1-2")


@pytest.mark.parametrize("bad", ["split:1-5", "split:3-4", "street:2", "corner:3-4-6-7", "six_line:2", "straight:37",
                                 "dozen:4", "zero", "neighbours:40", "neighbours:5:9", "final:10"])
def test_unknown_or_impossible_spots(bad):
    with pytest.raises(TableRuleError) as e:
        R.parse_spot(bad)
    assert e.value.field == "spot"


def test_canonical_spot_names():
    assert R.parse_spot("split:20-17").spot == "split:17-20"
    assert R.parse_spot("street:16").spot == "street:16-17-18"
    assert R.parse_spot("six_line:31").spot == "six_line:31-32-33-34-35-36"
    assert R.parse_spot("Red").spot == "red"


def test_settlement_of_call_bets_and_outside_bets_on_zero():
    v = Bet("voisins", 9_000)
    s = R.settle([v], R.Spin(0))[0]
    assert (s.stake_returned, s.win, s.payout, s.net) == (2_000, 22_000, 24_000, 15_000)
    s = R.settle([v], R.Spin(26))[0]
    assert (s.stake_returned, s.win) == (2_000, 16_000)
    s = R.settle([Bet("orphelins", 5_000)], R.Spin(17))[0]  # 17 is on two splits
    assert (s.stake_returned, s.win) == (2_000, 34_000)
    res = R.settle([Bet(x, 10_000) for x in ("red", "black", "odd", "even", "low", "high", "dozen:1", "column:1")],
                   R.Spin(0))
    assert all(x.result == "lose" for x in res)
    s = R.settle([Bet("first_four", 1_000)], R.Spin(0))[0]
    assert s.win == 8_000
    s = R.settle([Bet("corner:17-18-20-21", 1_000), Bet("street:0-2-3", 1_000)], R.Spin(20))
    assert [x.win for x in s] == [8_000, 0]


def test_void_no_game_returns_every_bet():
    res = R.settle([Bet("straight:17", 1_000), Bet("red", 5_000)], Void("ball off the wheel"))
    assert [(x.result, x.payout) for x in res] == [("void", 1_000), ("void", 5_000)]


def test_wheel_live_and_input_mode_same_call():
    assert R.spin(R.dealer_input(17)) == R.Spin(17)
    with pytest.raises(TableRuleError) as e:
        R.spin(R.dealer_input(37))
    assert e.value.field == "number"
    seen = {R.spin(SeededRng(i)).number for i in range(400)}
    assert seen == set(range(37))
    assert 0 <= R.spin(Csprng()).number <= 36


def test_maximum_enforced_per_number():
    lim = R.default_limits(straight_max=100_000)
    straight = R.check_bet(Bet("straight:17", 100_000, "p"), lim)
    with pytest.raises(TableRuleError) as e:  # neighbours of 17 put another chip on 17
        R.check_bet(Bet("neighbours:17", 5_000, "p"), lim, [straight])
    assert e.value.field == "amount" and "straight:17" in e.value.detail
    with pytest.raises(TableRuleError):  # 25's neighbours are 21 2 25 17 34: 17 again
        R.check_bet(Bet("neighbours:25", 5_000, "p"), lim, [straight])
    R.check_bet(Bet("neighbours:5", 5_000, "p"), lim, [straight])  # 23 10 5 24 16
    # another player's chips do not count against this player's maximum
    R.check_bet(Bet("neighbours:17", 5_000, "q"), lim, [straight])
    # per split: tiers at 200,000 a chip fills each split to its maximum, one chip more is refused
    R.check_bet(Bet("tiers", 6 * 200_000, "p"), lim)
    with pytest.raises(TableRuleError):
        R.check_bet(Bet("tiers", 6 * 201_000, "p"), lim)
    # a dealer's mistake: accepted, but paid and taken per chip only up to the maximum
    over = R.check_bet(Bet("tiers", 6 * 250_000, "p"), lim, accept_over_max=True)
    assert over.cap == 6 * 200_000
    s = R.settle([over], R.Spin(5))[0]
    assert (s.win, s.stake_returned, s.net) == (200_000 * 17, 200_000 + 300_000, 200_000 * 17 - 5 * 200_000)


def test_call_bet_minimum_and_chip_multiples():
    lim = R.default_limits(chip_unit=1_000, inside_min=1_000)
    with pytest.raises(TableRuleError) as e:
        R.check_bet(Bet("voisins", 10_000), lim)  # not 9 equal chips
    assert "9 equal chips" in e.value.detail
    R.check_bet(Bet("voisins", 18_000), lim)
    with pytest.raises(BettingClosed):
        R.check_bet(Bet("red", 10_000), lim, betting_open=False)


def test_colour_chips_buy_in_bet_and_cash_out():
    in_use = {"red": "alice"}
    stack = R.buy_in(in_use, "bob", "blue", 5_000, 200_000, chip_unit=1_000)
    assert (stack.chips, stack.value) == (40, 200_000)
    with pytest.raises(TableRuleError) as e:
        R.buy_in(in_use, "bob", "red", 5_000, 200_000, chip_unit=1_000)
    assert e.value.field == "colour"
    with pytest.raises(TableRuleError):
        R.buy_in({"blue": "bob"}, "bob", "green", 5_000, 200_000, chip_unit=1_000)  # one colour per player
    with pytest.raises(TableRuleError) as e:
        R.buy_in(in_use, "bob", "blue", 2_500, 200_000, chip_unit=1_000)
    assert e.value.field == "chip_value"
    with pytest.raises(TableRuleError) as e:
        R.buy_in(in_use, "bob", "blue", 5_000, 202_000, chip_unit=1_000)
    assert e.value.field == "amount"
    with pytest.raises(TableRuleError):
        R.buy_in(in_use, "bob", "mauve", 5_000, 200_000, chip_unit=1_000)
    lim = R.default_limits(inside_min=1_000)
    R.check_bet(Bet("straight:17", 10_000, "bob"), lim, chip_value=stack.chip_value)
    with pytest.raises(TableRuleError):
        R.check_bet(Bet("straight:17", 7_000, "bob"), lim, chip_value=stack.chip_value)  # 1.4 chips
    assert R.cash_out(stack, 52) == 260_000
    with pytest.raises(TableRuleError):
        R.cash_out(stack, -1)


def test_colours():
    assert R.colour_of(0) == "green" and R.colour_of(1) == "red" and R.colour_of(2) == "black"
    assert len(R.REDS) == 18 and sorted(R.WHEEL) == list(range(37))
