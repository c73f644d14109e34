"""House edges of Caribbean stud, pai gow poker and Texas Hold'em Bonus: the stored figures
(table_games/domain/house_edges.json, written by bench/table_house_edges.py --write) against small seeded
recomputations and against the published figures (sources in the file and in
tests/data/reference/table_games.json); the exact Caribbean machinery against brute force; the simulation
kernels against the engines' own settlement."""

from __future__ import annotations

import json
import random
from fractions import Fraction
from itertools import combinations
from math import comb, sqrt
from pathlib import Path

import numpy as np
import pytest

from slotsys.kernel.money import commission_ceil
from table_games.domain import caribbean as C
from table_games.domain import caribbean_edge as CE
from table_games.domain import holdem_bonus_sim as HS
from table_games.domain import house_edges as HE
from table_games.domain import paigow as P
from table_games.domain import paigow_edge as PE
from table_games.domain import roulette
from table_games.domain.cards import Card
from table_games.domain.settlement import Bet
from table_games.domain.shoe import Shoe

REFERENCE = json.loads((Path(__file__).resolve().parents[1] / "data" / "reference" / "table_games.json").read_text())
STORED = HE.load()
SUITS = "CDHS"


def _card(i: int) -> Card:
    """Evaluator id (rank index·4 + suit, 2c = 0) → Card."""
    r = i // 4 + 2
    return Card(1 if r == 14 else r, SUITS[i % 4])


def _agree(a: float, se_a: float, b: float, se_b: float) -> bool:
    """Two independent estimates agree within the 95% band of their difference."""
    return abs(a - b) <= 1.96 * sqrt(se_a ** 2 + se_b ** 2)


# ------------------------------------------------------------------------------------------- Caribbean stud
def test_caribbean_stored_exact_figures_match_the_published_ones():
    """Wizard of Odds (copied in the reference file): 5.224% optimal, 2.555% element of risk, 5.47% raising a
    pair or better, 5.316% raising A-K-J-8-3 or better, 5.682% raising any A-K: the exact enumeration
    reproduces every printed digit."""
    ref = REFERENCE["caribbean_stud"]
    s = STORED["computed"]["caribbean_stud"]["strategies"]
    assert round(s["optimal"]["house_edge"] * 100, 3) == round(ref["house_edge_per_ante_perfect_strategy"] * 100, 3)
    assert round(s["optimal"]["element_of_risk"] * 100, 3) == round(ref["element_of_risk_perfect"] * 100, 3)
    assert round(s["pair_or_better"]["house_edge"] * 100, 2) == round(ref["house_edge_raise_pair_or_better"] * 100, 2)
    assert round(s["AKJ83_or_better"]["house_edge"] * 100, 3) == round(ref["house_edge_raise_AKJ83_or_better"] * 100, 3)
    assert round(s["any_AK"]["house_edge"] * 100, 3) == round(ref["house_edge_raise_any_AK"] * 100, 3)
    for name, e in s.items():  # the stored float is the stored exact fraction
        num, den = map(int, e["edge_fraction"].split("/"))
        assert e["house_edge"] == float(Fraction(num, den)), name
    # using the upcard is worth something, and optimal play beats every fixed rule
    assert s["optimal"]["house_edge"] < s["optimal_no_upcard"]["house_edge"] <= min(
        s[n]["house_edge"] for n in CE.STRATEGIES)


def test_caribbean_kernel_pays_what_the_engine_settles():
    """The payoff used by the enumeration and the simulation (``caribbean_edge.play``) equals
    ``caribbean.settle`` on dealt rounds, folds, non-qualifying dealers and ties included."""
    r = random.Random(11)
    seen = set()
    for i in range(400):
        ids = r.sample(range(52), 10)
        if i % 50 == 0:  # a tie: the same ranks, other suits
            ids = [0, 4, 8, 12, 49, 1, 5, 9, 13, 50]
        calls = i % 7 != 0
        cards = [_card(x) for x in ids]
        rnd = C.CaribbeanRound(C.STANDARD, Shoe.stacked(cards), [("1", "p", 10_000)])
        bets = [Bet("ante", 10_000, "p", "1")]
        call = rnd.act("1", C.CALL if calls else C.FOLD)
        if call:
            bets.append(call)
        net = sum(s.payout - s.bet.amount for s in C.settle(bets, rnd.finish()))
        assert net == 10_000 * CE.play(ids[:5], ids[5:], calls), ids
        seen.add(np.sign(net))
    assert seen == {-1, 0, 1}


def test_caribbean_simulation_agrees_with_the_stored_exact_edge():
    """A seeded 40,000-hand simulation (raise A-K-J-8-3 or better) covers the stored exact edge."""
    sim = CE.simulate(40_000, "test-cs", "AKJ83_or_better")
    exact = HE.figure("caribbean_stud", "AKJ83_or_better")["house_edge"]
    lo, hi = sim.ci95()
    assert lo <= exact <= hi, (sim.house_edge, sim.se, exact)


def test_caribbean_subset_indices():
    """The colex index numbers every k-card subset 0 … C(52,k) − 1 once; inserting an upcard gives the
    index of the sorted union (the keys of the subset tables the enumeration searches)."""
    for k in (1, 2, 3):
        subsets = np.array(list(combinations(range(52), k)), dtype=np.int64)
        ix = CE._colex(subsets)
        assert sorted(ix.tolist()) == list(range(comb(52, k)))
    r = random.Random(2)
    rows, ups, unions = [], [], []
    for _ in range(300):
        c = r.sample(range(52), 4)
        rows.append(sorted(c[:3]))
        ups.append(c[3])
        unions.append(sorted(c))
    assert (CE._colex_with(np.array(rows), np.array(ups)) == CE._colex(np.array(unions))).all()


# ------------------------------------------------------------------------------------------- pai gow poker
@pytest.mark.parametrize("policy", ["9-1", "9-2", "9-3"])
def test_paigow_small_simulation_agrees_with_the_stored_figure(policy):
    small = PE.simulate(500, f"test-pg-{policy}", policy)
    stored = PE.PaiGowSample.from_dict(HE.figure("pai_gow_poker", policy)["sample"])
    for side in ("player", "banker"):
        a, b = small.edge(side), stored.edge(side)
        assert _agree(a.value, a.se, b.value, b.se), (policy, side, a, b)
        assert HE.figure("pai_gow_poker", policy)[side]["house_edge"] == pytest.approx(b.value, abs=1e-15)


def test_paigow_published_figures():
    """Wizard of Odds one-on-one table (reference file): player 2.73% and banker 0.20% against a house way;
    the Trump Plaza house way gives 2.85% as the player. Each of the product's house ways lands within
    0.3 points of those (its own setting rules differ), and banking is always the better side."""
    pub = STORED["published"]["pai_gow_poker"]
    assert pub["player"] == REFERENCE["pai_gow_poker_joker"]["house_edge_player_vs_dealer_5pct_commission"]
    for policy in ("9-1", "9-2", "9-3"):
        f = HE.figure("pai_gow_poker", policy)
        player, banker = f["player"], f["banker"]
        assert abs(player["house_edge"] - pub["player"]) < 0.003, (policy, player)
        assert abs(banker["house_edge"] - pub["banker"]) < 0.003, (policy, banker)
        assert banker["ci95"][1] < player["ci95"][0]
        assert f["probabilities"]["push"] == pytest.approx(pub["push"], abs=0.01)


def test_paigow_edge_prices_the_commission_as_the_product_rounds_it():
    """A win nets the stake less the commission rounded up to the unit (₩15,700 → ₩800), as ``settle``."""
    s = PE.PaiGowSample("9-1", [[0, 0, 3], [0, 4, 0], [2, 0, 0]])  # 3 (lose, win), 4 (push, push), 2 (win, lose)
    for stake in (10_000, 15_700):
        won = P.settle([Bet("main", stake, "p", "1")], _outcome_won(), P.HOUSE_WAY_91)[0]
        win = won.payout - stake
        assert win == stake - commission_ceil(stake, 50_000, 100)
        n = 9
        player = -(5 * (win - stake) / 2) / (n * stake)  # each lose/win or win/lose pair nets (win − stake) / 2
        assert s.edge("player", stake=stake).value == pytest.approx(player, abs=1e-12)
        assert s.edge("banker", stake=stake).value == pytest.approx(player, abs=1e-12)  # symmetric table
    assert s.probabilities() == {"player_wins": 5 / 18, "push": 8 / 18, "banker_wins": 5 / 18}


def _outcome_won() -> P.PaiGowOutcome:
    cards = P.parse_pg_cards("AS AH KS KH QS QH JS 2C 3C 4D 5H 7S 8D 9C")  # place 1 beats the dealer both ways
    deal = P.deal_from_hands((1, 1, 1), {"1": cards[:7], "dealer": cards[7:]}, P.HOUSE_WAY_91)
    rnd = P.PaiGowRound(P.HOUSE_WAY_91, deal, {"1": "p"})
    rnd.set_house_way("1")
    out = rnd.finish()
    assert out.player_result("1") == 1
    return out


def test_paigow_kernel_result_is_the_engines():
    """The simulation's result for a deal equals the round's own outcome (both hands by the house way)."""
    r = random.Random(3)
    for _ in range(30):
        c = r.sample(P.deck53(), 14)
        deal = P.deal_from_hands((1, 1, 1), {"1": c[:7], "dealer": c[7:]}, P.HOUSE_WAY_92)
        rnd = P.PaiGowRound(P.HOUSE_WAY_92, deal, {"1": "p"})
        rnd.set_house_way("1")
        assert rnd.finish().player_result("1") == P.result(P.house_way(c[:7], "9-2"), P.house_way(c[7:], "9-2"))


# ------------------------------------------------------------------------------------------- hold'em bonus
def test_holdem_small_simulation_agrees_with_the_stored_figure():
    stored = HE.figure("holdem_bonus")
    small = HS.simulate(15_000, "test-thb")
    assert _agree(small.house_edge, small.se, stored["house_edge"], stored["se"]), (small.house_edge, stored)
    assert stored["ci95"] == pytest.approx([stored["house_edge"] - 1.96 * stored["se"],
                                            stored["house_edge"] + 1.96 * stored["se"]])


def test_holdem_stated_strategy_against_the_published_optimal_figure():
    """The published ≈2% is for optimal play; S1 is a simple practical strategy, so its edge is above it,
    by less than the 1.9 points optimal turn/river betting is measured to win back (docs/table-games.md)."""
    f = HE.figure("holdem_bonus")
    pub = STORED["published"]["holdem_bonus"]["optimal"]
    assert f["ci95"][0] > pub
    assert f["house_edge"] - pub < 0.025


# ------------------------------------------------------------------------------------------- the catalogue
def test_catalogue_lists_every_game_with_provenance():
    cat = HE.catalogue()
    games = {e["game"] for e in cat}
    assert games == {"roulette", "sic_bo", "big_wheel", "baccarat", "three_card_poker", "blackjack",
                     "caribbean_stud", "pai_gow_poker", "holdem_bonus"}
    assert next(e for e in cat if e["game"] == "roulette")["house_edge"] == float(roulette.house_edge("red")) == 1 / 37
    for e in cat:
        assert 0 < e["house_edge"] < 0.2, e
        assert (e["ci95"] is None) == (e["method"] == "exact"), e
        if e["ci95"]:
            assert e["ci95"][0] < e["house_edge"] < e["ci95"][1]
    bac = REFERENCE["baccarat_8deck"]
    stored = STORED["stored_exact"]["baccarat"]
    assert stored["banker (5% commission)"]["house_edge"] == bac["edge_banker_5pct"]
    assert stored["player"]["house_edge"] == bac["edge_player"]
    tcp = STORED["stored_exact"]["three_card_poker"]
    assert tcp["ante and play (per ante)"]["house_edge"] == REFERENCE["three_card_poker"][
        "ante_play_edge_per_ante_optimal_1_4_5_bonus"]
    for game in ("caribbean_stud", "pai_gow_poker", "holdem_bonus"):
        c = STORED["computed"][game]
        assert c["command"].startswith("python bench/table_house_edges.py") and c["computed_at"], game
