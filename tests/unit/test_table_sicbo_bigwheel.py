"""Sic bo and big wheel: every bet's edge from the engine's own payouts over all outcomes."""

from __future__ import annotations

from fractions import Fraction

import pytest

from table_games.domain import bigwheel as W
from table_games.domain import sicbo as S
from table_games.domain.errors import TableRuleError
from table_games.domain.rng import SeededRng
from table_games.domain.settlement import Bet, Void

from .test_table_reference import BIG_WHEEL, SIC_BO


def approx(x):
    return pytest.approx(x, abs=1e-15)


# --------------------------------------------------------------------------------------- sic bo
def test_total_ways():
    assert S.total_ways() == {3: 1, 4: 3, 5: 6, 6: 10, 7: 15, 8: 21, 9: 25, 10: 27, 11: 27, 12: 25, 13: 21, 14: 15,
                              15: 10, 16: 6, 17: 3, 18: 1}


def test_sic_bo_edges_macau_default():
    e = lambda spot, pt=S.MACAU: float(S.house_edge(spot, pt))  # noqa: E731
    for spot in ("small", "big"):
        assert e(spot) == approx(SIC_BO["small_big_1to1"])
    for spot in ("odd", "even"):
        assert e(spot) == approx(SIC_BO["odd_even_1to1"])
    assert e("any_triple") == approx(SIC_BO["any_triple_24to1"])
    for n in range(1, 7):
        assert e(f"triple:{n}") == approx(SIC_BO["specific_triple_150to1"])
        assert e(f"double:{n}") == approx(SIC_BO["specific_double_8to1"])
        assert e(f"single:{n}") == approx(SIC_BO["single_number_1_2_3"])
    for a in range(1, 7):
        for b in range(a + 1, 7):
            assert e(f"combo:{a}-{b}") == approx(SIC_BO["two_dice_combo_5to1"])
    for t, edge in SIC_BO["totals_macau"].items():
        assert e(f"total:{t}") == approx(edge)
        assert e(f"total:{21 - int(t)}") == approx(edge)  # symmetric


def test_sic_bo_edges_other_paytables():
    ac = S.ATLANTIC_CITY
    assert float(S.house_edge("any_triple", ac)) == approx(SIC_BO["any_triple_30to1"])
    assert float(S.house_edge("triple:4", ac)) == approx(SIC_BO["specific_triple_180to1"])
    assert float(S.house_edge("double:4", ac)) == approx(SIC_BO["specific_double_10to1"])
    eleven = S.SicBoPaytable(specific_double=11)
    assert float(S.house_edge("double:4", eleven)) == approx(SIC_BO["specific_double_11to1"])
    for t, edge in SIC_BO["totals_atlantic_city"].items():
        assert float(S.house_edge(f"total:{t}", ac)) == approx(edge)
    assert S.SicBoPaytable.from_dict(ac.to_dict()) == ac


def test_small_big_odd_even_lose_on_triples_totals_9_to_12_win():
    d = S.Dice((3, 3, 3))
    res = S.settle([Bet(x, 1_000) for x in ("small", "odd", "total:9", "any_triple", "triple:3", "double:3", "single:3")], d)
    assert [x.win for x in res] == [0, 0, 6_000, 24_000, 150_000, 8_000, 3_000]
    res = S.settle([Bet(x, 1_000) for x in ("big", "even", "combo:2-6", "single:6", "total:14")], S.Dice((6, 2, 6)))
    assert [x.win for x in res] == [1_000, 1_000, 5_000, 2_000, 12_000]


def test_dice_input_mode_and_no_game():
    assert S.roll(S.dealer_input(1, 4, 6)) == S.Dice((1, 4, 6))
    with pytest.raises(TableRuleError) as e:
        S.roll(S.dealer_input(1, 4, 7))
    assert e.value.field == "dice"
    r = S.roll(SeededRng(9))
    assert all(1 <= x <= 6 for x in r.dice)
    assert [x.result for x in S.settle([Bet("big", 1_000)], Void("dice not flat"))] == ["void"]
    assert S.Dice.from_dict(r.to_dict()) == r


@pytest.mark.parametrize("bad", ["total:3", "total:18", "triple:7", "combo:2-2", "combo:1-7", "lucky", "single:0"])
def test_sic_bo_unknown_spots(bad):
    with pytest.raises(TableRuleError):
        S.parse_spot(bad)


# --------------------------------------------------------------------------------------- big wheel
def test_big_wheel_edges_54_stops():
    cfg = W.STANDARD_54
    assert len(cfg.stops) == 54
    assert {s.symbol: cfg.stops.count(s.symbol) for s in cfg.segments} == {
        "1": 24, "2": 15, "5": 7, "10": 4, "20": 2, "joker": 1, "logo": 1}
    for key, sym in (("1", "1"), ("2", "2"), ("5", "5"), ("10", "10"), ("20", "20"), ("joker/40", "joker"),
                     ("logo/40", "logo")):
        edge = W.house_edge(sym)
        seg = cfg.segment(sym)
        assert edge == 1 - Fraction(seg.count * (seg.pays + 1), 54)
        assert float(edge) == approx(BIG_WHEEL[key])


def test_big_wheel_counts_and_pays_are_configuration():
    segs = tuple(W.Segment(s.symbol, s.count, 45 if s.symbol == "joker" else s.pays) for s in W.DEFAULT_SEGMENTS)
    cfg = W.BigWheelConfig(segs)
    assert float(W.house_edge("joker", cfg)) == approx(BIG_WHEEL["joker_at_45"])
    assert W.BigWheelConfig.from_dict(cfg.to_dict()) == W.BigWheelConfig(segs, cfg.stops)
    with pytest.raises(ValueError):
        W.BigWheelConfig(W.DEFAULT_SEGMENTS, order=("1",) * 54)


def test_big_wheel_spin_live_and_input():
    stop = W.spin(W.dealer_input(symbol="joker"))
    assert stop.symbol == "joker" and W.STANDARD_54.stops[stop.stop] == "joker"
    assert W.spin(W.dealer_input(stop=0)).stop == 0
    with pytest.raises(TableRuleError):
        W.spin(W.dealer_input(stop=54))
    with pytest.raises(TableRuleError):
        W.dealer_input(symbol="7")
    res = W.settle([Bet("joker", 1_000), Bet("1", 1_000)], stop)
    assert [x.payout for x in res] == [41_000, 0]
    assert {W.spin(SeededRng(i)).symbol for i in range(300)} == {"1", "2", "5", "10", "20", "joker", "logo"}
