"""Published reference figures for the table games (tests/data/reference/table_games.json, part of the
repository: every entry there names its published sources).

The figures the other table tests use are repeated here as constants; ``test_constants_match_the_reference_file``
checks them against the file.
"""

from __future__ import annotations

import json
from pathlib import Path


REFERENCE = Path(__file__).resolve().parents[1] / "data" / "reference" / "table_games.json"

BACCARAT = {
    "total_permutations": 4998398275503360,
    "banker_count": 2292252566437888,
    "player_count": 2230518282592256,
    "tie_count": 475627426473216,
    "banker_win_on_6_count": 269232304455680,
    "edge_banker_5pct": 0.010579057842472012,
    "edge_player": 0.012350813289166138,
    "edge_tie_8to1": 0.14359628778723826,
    "edge_tie_9to1": 0.04844031976359808,
    "edge_banker_nocomm_6pays_half": 0.014581044639718807,
    "p_pair_same_rank": 0.0746987951807229,
    "edge_pair_11to1": 0.10361445783132531,
}
ROULETTE_EDGE = 0.02702702702702703
SIC_BO = {
    "small_big_1to1": 0.027777777777777776, "odd_even_1to1": 0.027777777777777776,
    "any_triple_30to1": 0.1388888888888889, "any_triple_24to1": 0.3055555555555556,
    "specific_triple_180to1": 0.16203703703703703, "specific_triple_150to1": 0.30092592592592593,
    "specific_double_10to1": 0.18518518518518517, "specific_double_8to1": 0.3333333333333333,
    "specific_double_11to1": 0.1111111111111111, "two_dice_combo_5to1": 0.16666666666666666,
    "single_number_1_2_3": 0.0787037037037037,
    "totals_macau": {"4": 0.2916666666666667, "5": 0.4722222222222222, "6": 0.3055555555555556,
                     "7": 0.09722222222222222, "8": 0.125, "9": 0.18981481481481483, "10": 0.125},
    "totals_atlantic_city": {"4": 0.1527777777777778, "5": 0.1388888888888889, "6": 0.16666666666666666,
                             "7": 0.09722222222222222, "8": 0.125, "9": 0.18981481481481483, "10": 0.125},
}
BIG_WHEEL = {"1": 0.1111111111111111, "2": 0.16666666666666666, "5": 0.2222222222222222,
             "10": 0.18518518518518517, "20": 0.2222222222222222, "joker/40": 0.24074074074074073,
             "logo/40": 0.24074074074074073, "joker_at_45": 0.14814814814814814}
BLACKJACK_PAIR = {"p_same_rank_6deck": 0.07395498392282958, "edge_6deck": 0.11254019292604502,
                  "p_same_rank_8deck": 0.0746987951807229, "edge_8deck": 0.10361445783132531}


def reference() -> dict:
    return json.loads(REFERENCE.read_text())


def test_constants_match_the_reference_file():
    ref = reference()
    for k, v in BACCARAT.items():
        assert ref["baccarat_8deck"][k] == v
    assert ref["roulette_single_zero"]["house_edge_all_bets"] == ROULETTE_EDGE
    for k, v in SIC_BO.items():
        assert ref["sic_bo"][k] == v
    lay = ref["big_wheel"]["us_54_layout"]
    for k, v in BIG_WHEEL.items():
        assert (lay[k] if k == "joker_at_45" else lay[k]["edge"]) == v
    for k, v in BLACKJACK_PAIR.items():
        assert ref["blackjack_enhc"]["pair_side_bet_11to1"][k] == v
