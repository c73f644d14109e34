"""The one evaluator: line, way and scatter rules, windows, stops and randomness."""

from __future__ import annotations

import json
import random

import pytest
import yaml

from slotsys.floor.domain.evaluator import SeededRng, SpinOutcome, SystemRng, Win, evaluate, spin
from slotsys.floor.domain.game import GameDefinition, InvalidBet, UnknownVariation, parse_game
from slotsys.floor.games import load_game

# Lines test game: 5 reels x 3 rows; line 1 = middle, 2 = top, 3 = bottom, 4 = V, 5 = inverted V.
LINES = {
    "id": "rules_lines",
    "name": "Rules Lines",
    "kind": "lines",
    "rows": 3,
    "reel_count": 5,
    "symbols": [
        {"id": "D", "name": "Dragon", "pays": {2: 5, 3: 40, 4: 150, 5: 750}},
        {"id": "A", "name": "Ace", "pays": {3: 5, 4: 10, 5: 20}},
        {"id": "B", "name": "Bee", "pays": {3: 5, 4: 10, 5: 25}},
        {"id": "X", "name": "Blank"},
        {"id": "W", "name": "Wild", "kind": "wild", "pays": {2: 5, 3: 50, 4: 200, 5: 1000}},
        {"id": "S", "name": "Scatter", "kind": "scatter", "pays": {3: 2, 4: 10, 5: 50}},
    ],
    "bet": {"lines": [1, 3, 5], "multipliers": [1, 2, 5]},
    "lines": [[1, 1, 1, 1, 1], [0, 0, 0, 0, 0], [2, 2, 2, 2, 2], [0, 1, 2, 1, 0], [2, 1, 0, 1, 2]],
    "variations": {"t": {"reels": [["X"] * 3] * 5}},
}

# Ways test game: 5 reels x 3 rows, reel-cost pricing.
WAYS = {
    "id": "rules_ways",
    "name": "Rules Ways",
    "kind": "reel_cost",
    "rows": 3,
    "reel_count": 5,
    "symbols": [
        {"id": "A", "name": "Ace", "pays": {3: 5, 4: 20, 5: 100}},
        {"id": "B", "name": "Bee", "pays": {3: 4, 4: 10, 5: 50}},
        {"id": "X", "name": "Blank"},
        {"id": "W", "name": "Wild", "kind": "wild"},
        {"id": "S", "name": "Scatter", "kind": "scatter", "pays": {3: 2, 4: 10, 5: 50}},
    ],
    "bet": {"reel_costs": {1: 1, 2: 3, 3: 7, 4: 15, 5: 25}, "multipliers": [1, 2, 3, 5, 10]},
    "variations": {"t": {"reels": [["X"] * 3] * 5}},
}


def with_window(base: dict, rows: list[str]) -> GameDefinition:
    """A game whose strips are exactly the given window (stops all 0): rows as 'A B C D E'."""
    grid = [r.split() for r in rows]
    d = dict(base)
    d["variations"] = {"t": {"reels": [[grid[r][i] for r in range(len(grid))] for i in range(len(grid[0]))]}}
    return parse_game(yaml.safe_dump(d, sort_keys=False))


def play(game: GameDefinition, **bet) -> SpinOutcome:
    return evaluate(game, game.resolve_bet(**bet), [0] * game.reel_count)


def wins_of(o: SpinOutcome, kind: str) -> list[Win]:
    return [w for w in o.wins if w.kind == kind]


# --------------------------------------------------------------------------- lines
def test_only_played_lines_pay():
    g = with_window(LINES, ["A A A X X", "X X X X X", "X X X X X"])  # line 2 (top row) wins
    assert play(g, lines=1, multiplier=1).wins == ()
    o = play(g, lines=3, multiplier=1)
    assert [(w.line, w.symbol, w.count) for w in o.wins] == [(2, "A", 3)]


def test_line_win_pays_paytable_times_multiplier_with_positions():
    g = with_window(LINES, ["X X X X X", "B B B B X", "X X X X X"])
    o = play(g, lines=1, multiplier=5)
    (w,) = o.wins
    assert (w.kind, w.line, w.symbol, w.count, w.pay_credits) == ("line", 1, "B", 4, 10 * 5)
    assert w.positions == ((1, 0), (1, 1), (1, 2), (1, 3))
    assert o.total_win_credits == 50 and isinstance(o.total_win_credits, int)


def test_lines_pay_left_to_right_from_reel_one_only():
    g = with_window(LINES, ["X X X X X", "X A A A A", "X X X X X"])
    assert play(g, lines=5, multiplier=1).wins == ()


def test_wild_substitutes_and_one_win_per_line_the_higher():
    # line 1: W W W A A -> wild-only 3 (50) beats A x5 substituted (20)
    g = with_window(LINES, ["X X X X X", "W W W A A", "X X X X X"])
    (w,) = play(g, lines=1, multiplier=2).wins
    assert (w.symbol, w.count, w.pay_credits) == ("W", 3, 100)
    # line 1: W A A A A -> substituted A x5 (20); the single wild pays nothing alone
    g = with_window(LINES, ["X X X X X", "W A A A A", "X X X X X"])
    (w,) = play(g, lines=1, multiplier=1).wins
    assert (w.symbol, w.count, w.pay_credits) == ("A", 5, 20)
    assert w.positions == tuple((1, i) for i in range(5))
    # line 1: W W B B B -> B x5 (25) beats wild-only 2 (5)
    g = with_window(LINES, ["X X X X X", "W W B B B", "X X X X X"])
    (w,) = play(g, lines=1, multiplier=1).wins
    assert (w.symbol, w.count, w.pay_credits) == ("B", 5, 25)
    # line 1: W W A X X -> wild-only 2 (5) ties A x3 (5): the substituted combination is paid, once
    g = with_window(LINES, ["X X X X X", "W W A X X", "X X X X X"])
    (w,) = play(g, lines=1, multiplier=1).wins
    assert (w.symbol, w.count, w.pay_credits) == ("A", 3, 5)
    # five wilds pay the wild's top award
    g = with_window(LINES, ["X X X X X", "W W W W W", "X X X X X"])
    (w,) = play(g, lines=1, multiplier=1).wins
    assert (w.symbol, w.count, w.pay_credits) == ("W", 5, 1000)


def test_wild_in_the_middle_extends_the_combination():
    g = with_window(LINES, ["X X X X X", "A W A W B", "X X X X X"])
    (w,) = play(g, lines=1, multiplier=1).wins
    assert (w.symbol, w.count) == ("A", 4)


def test_wild_never_substitutes_for_a_scatter():
    # line 1: W S S S X -> no substituted combination (scatter), single wild pays nothing;
    # the 3 scatters pay as scatters
    g = with_window(LINES, ["X X X X X", "W S S S X", "X X X X X"])
    o = play(g, lines=5, multiplier=1)
    assert wins_of(o, "line") == []
    (s,) = wins_of(o, "scatter")
    assert s.count == 3


def test_two_of_a_kind_premium():
    g = with_window(LINES, ["X X X X X", "D D A X X", "X X X X X"])
    (w,) = play(g, lines=1, multiplier=5).wins
    assert (w.symbol, w.count, w.pay_credits) == ("D", 2, 25)
    g = with_window(LINES, ["X X X X X", "A A X X X", "X X X X X"])
    assert play(g, lines=1, multiplier=1).wins == (), "a regular symbol without a 2-pay needs 3"


def test_every_played_line_is_scored_on_its_own_shape():
    g = with_window(LINES, ["B X X X B", "A A A A A", "X B X B X"])
    o = play(g, lines=5, multiplier=1)
    assert [(w.line, w.symbol, w.count) for w in o.wins] == [(1, "A", 5)]
    g = with_window(LINES, ["A X X X A", "X A X A X", "X X A X X"])  # line 4: V shape
    o = play(g, lines=5, multiplier=1)
    assert [(w.line, w.symbol, w.count, w.positions) for w in o.wins] == [
        (4, "A", 5, ((0, 0), (1, 1), (2, 2), (1, 3), (0, 4)))
    ]


def test_scatter_pays_anywhere_times_total_bet():
    g = with_window(LINES, ["S X X X X", "X X S X X", "X X X X S"])
    o = play(g, lines=3, multiplier=2)  # total bet 6 credits
    (s,) = o.wins
    assert (s.kind, s.symbol, s.count, s.pay_credits) == ("scatter", "S", 3, 2 * 6)
    assert s.positions == ((0, 0), (1, 2), (2, 4))
    assert s.line is None and s.ways is None
    o = play(g, lines=1, multiplier=1)
    assert o.wins[0].pay_credits == 2, "scatters pay off the played lines too"


def test_total_is_the_sum_of_all_wins():
    g = with_window(LINES, ["A A A X S", "D D X S X", "X X X X S"])
    o = play(g, lines=5, multiplier=2)
    kinds = sorted((w.kind, w.line) for w in o.wins)
    assert kinds == [("line", 1), ("line", 2), ("scatter", None)]
    assert o.total_win_credits == sum(w.pay_credits for w in o.wins) == 5 * 2 + 5 * 2 + 2 * 10


# --------------------------------------------------------------------------- ways
def test_ways_are_the_product_of_matching_positions_with_wilds():
    g = with_window(WAYS, ["A W X X X", "A X A X X", "X A X X X"])
    o = play(g, reels=5, multiplier=2)
    (w,) = o.wins
    assert (w.kind, w.symbol, w.count, w.ways) == ("way", "A", 3, 2 * 2 * 1)
    assert w.pay_credits == 5 * 4 * 2
    assert set(w.positions) == {(0, 0), (1, 0), (0, 1), (2, 1), (1, 2)}


def test_one_way_win_per_symbol_at_its_highest_count():
    g = with_window(WAYS, ["A A A X X", "X A A A X", "A X X X X"])
    o = play(g, reels=5, multiplier=1)
    (w,) = o.wins
    assert (w.symbol, w.count, w.ways, w.pay_credits) == ("A", 4, 2 * 2 * 2 * 1, 20 * 8)


def test_a_wild_counts_for_every_symbol():
    g = with_window(WAYS, ["A W A X X", "B X B X X", "X X X X X"])
    o = play(g, reels=5, multiplier=1)
    assert sorted((w.symbol, w.count, w.ways) for w in o.wins) == [("A", 3, 1), ("B", 3, 1)]


def test_ways_left_to_right_from_reel_one():
    g = with_window(WAYS, ["X A A A A", "X A A A A", "X X X X X"])
    assert play(g, reels=5, multiplier=1).wins == ()


def test_unbought_reels_use_only_the_centre_row():
    # A on reels 1-3 anywhere, reel 4 only on the top row, reel 5 on the centre row
    g = with_window(WAYS, ["A X X A X", "X A X X A", "X X A X X"])
    o = play(g, reels=5, multiplier=1)
    assert [(w.count, w.ways) for w in o.wins] == [(5, 1)]
    o = play(g, reels=3, multiplier=1)  # reel 4 not bought: only its centre row (X) counts
    assert [(w.count, w.ways) for w in o.wins] == [(3, 1)]
    # wins still run through an unbought reel's centre row
    g = with_window(WAYS, ["A X X A X", "A A A A A", "X X A X X"])
    o = play(g, reels=2, multiplier=3)
    (w,) = o.wins
    assert (w.count, w.ways, w.pay_credits) == (5, 2 * 1 * 1 * 1 * 1, 100 * 2 * 3)
    assert set(w.positions) == {(0, 0), (1, 0), (1, 1), (1, 2), (1, 3), (1, 4)}
    o = play(g, reels=1, multiplier=1)
    assert [(w.count, w.ways) for w in o.wins] == [(5, 2)]


def test_ways_scatter_counts_on_unbought_reels_and_rows_and_pays_total_bet():
    g = with_window(WAYS, ["X X X S S", "X X X X X", "S X X X X"])
    o = play(g, reels=1, multiplier=2)  # total bet 1 x 2
    (s,) = o.wins
    assert (s.kind, s.count, s.pay_credits) == ("scatter", 3, 2 * 2)
    o = play(g, reels=4, multiplier=10)  # total bet 15 x 10
    assert o.wins[0].pay_credits == 2 * 150


def test_way_pays_scale_with_multiplier_not_cost():
    g = with_window(WAYS, ["A A A X X", "X X X X X", "X X X X X"])
    for reels, cost in [(3, 7), (4, 15), (5, 25)]:
        o = play(g, reels=reels, multiplier=2)
        assert o.total_win_credits == 5 * 1 * 2, f"{reels} reels (cost {cost}) pays paytable x ways x multiplier"


# --------------------------------------------------------------------------- stops, window, rng
def test_window_is_row_by_reel_and_wraps_around_the_strip():
    g = load_game("dragon_pearl_50")
    strips = g.variation().reels
    stops = [len(s) - 1 for s in strips]
    o = evaluate(g, g.full_bet(), stops)
    assert len(o.window) == 4 and all(len(r) == 5 for r in o.window)
    for r in range(4):
        for i, s in enumerate(strips):
            assert o.window[r][i] == s[(stops[i] + r) % len(s)]
    assert o.stops == tuple(stops) and o.variation == "92" and o.bet == g.full_bet()


def test_evaluate_is_deterministic_and_spin_reproducible_with_a_seed():
    g = load_game("tiger_reels_243")
    bet = g.full_bet()
    assert evaluate(g, bet, [3, 1, 4, 1, 5]) == evaluate(g, bet, [3, 1, 4, 1, 5])
    a = [spin(g, bet, SeededRng(42)) for _ in range(3)]
    b = [spin(g, bet, SeededRng(42)) for _ in range(3)]
    assert a == b
    rng = SeededRng(7)
    outs = [spin(g, bet, rng) for _ in range(50)]
    assert len({o.stops for o in outs}) > 40
    assert all(0 <= s < len(strip) for o in outs for s, strip in zip(o.stops, g.variation().reels))


def test_spin_draws_one_randbelow_per_reel_with_the_strip_length():
    g = load_game("dragon_pearl_50")

    class Recorder:
        def __init__(self):
            self.calls = []

        def randbelow(self, n):
            self.calls.append(n)
            return n - 1

    rec = Recorder()
    o = spin(g, g.full_bet(), rec)
    assert rec.calls == [len(s) for s in g.variation().reels]
    assert o.stops == tuple(n - 1 for n in rec.calls)
    assert isinstance(spin(g, g.full_bet(), SystemRng()), SpinOutcome)


def test_bad_stops_bets_and_variations_are_refused():
    g = load_game("dragon_pearl_50")
    bet = g.full_bet()
    with pytest.raises(ValueError, match="stops"):
        evaluate(g, bet, [0, 0, 0, 0])
    with pytest.raises(ValueError, match=r"stops\[2\]"):
        evaluate(g, bet, [0, 0, 999, 0, 0])
    with pytest.raises(ValueError, match=r"stops\[0\]"):
        evaluate(g, bet, [-1, 0, 0, 0, 0])
    with pytest.raises(InvalidBet):
        evaluate(g, load_game("tiger_reels_243").full_bet(), [0] * 5)
    with pytest.raises(UnknownVariation):
        spin(g, bet, SeededRng(1), variation="77")


def test_outcome_to_dict_is_json_ready_and_integer_money():
    g = load_game("dragon_pearl_50")
    rng = SeededRng(2024)
    seen_win = False
    for _ in range(200):
        o = spin(g, g.resolve_bet(lines=50, multiplier=3), rng)
        d = json.loads(json.dumps(o.to_dict()))
        assert d["stops"] == list(o.stops) and len(d["window"]) == 4
        assert d["total_win_credits"] == sum(w["pay_credits"] for w in d["wins"]) + sum(
            f["win_credits"] for f in d["free_games"])
        assert all(type(w.pay_credits) is int and w.pay_credits > 0 for w in o.wins)
        for w in d["wins"]:
            assert set(w) == {"kind", "line", "ways", "symbol", "count", "pay_credits", "multiplier", "positions"}
            assert w["kind"] == "scatter" or 1 <= w["line"] <= 50
            seen_win = True
    assert seen_win


def test_real_games_pay_multiples_of_the_multiplier():
    rng = random.Random(5)
    for gid in ("dragon_pearl_50", "tiger_reels_243"):
        g = load_game(gid)
        for _ in range(300):
            seed = rng.randrange(10**9)
            one = spin(g, g.bet_options()[-5], SeededRng(seed))  # full lines/reels, multiplier 1
            ten = spin(g, g.full_bet(), SeededRng(seed))  # multiplier 10: the same draws
            assert ten.stops == one.stops and len(ten.free_games) == len(one.free_games)
            assert ten.total_win_credits == 10 * one.total_win_credits


# --------------------------------------------------------------------------- substitution sets
def test_a_wild_substitutes_only_for_its_declared_set():
    d = {**LINES, "symbols": [dict(x) for x in LINES["symbols"]]}
    d["symbols"][4] = {"id": "W", "name": "Wild", "kind": "wild", "pays": {3: 50, 4: 200, 5: 1000}, "substitutes": ["D"]}
    g = with_window(d, ["X X X X X", "W D D X X", "X X X X X"])
    assert [(w.symbol, w.count) for w in play(g, lines=1, multiplier=1).wins] == [("D", 3)]
    g = with_window(d, ["X X X X X", "W A A A X", "X X X X X"])
    assert play(g, lines=1, multiplier=1).wins == (), "A is not in the wild's set: no A win through a leading wild"
    g = with_window(d, ["X X X X X", "A A W A X", "X X X X X"])
    assert play(g, lines=1, multiplier=1).wins == (), "the wild does not continue A"
    g = with_window(d, ["X X X X X", "W W W A X", "X X X X X"])
    assert [(w.symbol, w.count, w.pay_credits) for w in play(g, lines=1, multiplier=2).wins] == [("W", 3, 100)]


# --------------------------------------------------------------------------- free games
FREE_LINES = {
    **LINES,
    "id": "free_lines",
    "features": {"free_games": {"trigger": {"symbol": "S", "count": 3}, "games": {3: 2, 4: 4}, "win_multiplier": 3,
                                "retrigger": True}},
}


def free_lines_game() -> GameDefinition:
    d = dict(FREE_LINES)
    # base: stop 0 shows three scatters on the top row; free strips: stop 0 = S S S D D (retrigger), 1 = D x5 line
    d["variations"] = {"t": {
        "reels": [["S", "X", "X", "X"], ["S", "X", "X", "X"], ["S", "X", "X", "X"], ["X", "X", "X", "X"], ["X"] * 4],
        "free_reels": [["S", "D", "X", "X", "D", "X", "X", "X", "X", "X", "X", "X"]] * 3
        + [["D", "D", "X", "X", "X", "X", "X", "X", "X", "X", "X", "X"]] * 2,
    }}
    return parse_game(yaml.safe_dump(d, sort_keys=False))


def test_free_games_play_inside_the_paid_game_with_retriggers_and_win_multiplier():
    g = free_lines_game()
    bet = g.resolve_bet(lines=1, multiplier=2)
    # paid game: 3 scatters on the top row (2 × total bet 2 = 4 credits) award 2 free games
    retrig, plain, blank = [0, 0, 0, 2, 2], [3, 3, 3, 0, 0], [6, 6, 6, 6, 6]
    o = evaluate(g, bet, [0] * 5, free_stops=[retrig, plain, blank, blank])
    assert o.free_games_awarded == 2 and o.base_win_credits == 4
    assert [f.retrigger for f in o.free_games] == [2, 0, 0, 0], "a free game with 3 scatters awards 2 more"
    f0, f1 = o.free_games[0], o.free_games[1]
    # free game 1: top row S S S X X (scatter 2 × total bet 2 × 3), middle row D D D X X (line 1: D x3)
    assert all(w.multiplier == 3 for f in o.free_games for w in f.wins)
    assert f0.win_credits == sum(w.pay_credits for w in f0.wins)
    assert [(w.kind, w.symbol, w.count, w.pay_credits) for w in f0.wins] == [
        ("line", "D", 3, 40 * 2 * 3), ("scatter", "S", 3, 2 * 2 * 3)]
    assert [(w.symbol, w.count, w.pay_credits) for w in f1.wins] == [("D", 5, 750 * 2 * 3)]  # line 1 = middle row
    assert o.total_win_credits == o.base_win_credits + sum(f.win_credits for f in o.free_games)
    assert o.choice == 0 and [f.number for f in o.free_games] == [1, 2, 3, 4]
    with pytest.raises(ValueError, match="free game 4 needs its stops"):
        evaluate(g, bet, [0] * 5, free_stops=[retrig, plain, blank])
    with pytest.raises(ValueError, match="only 4 free games"):
        evaluate(g, bet, [0] * 5, free_stops=[retrig, plain, blank, blank, blank])
    with pytest.raises(ValueError, match=r"free_stops\[0\]\[1\]"):
        evaluate(g, bet, [0] * 5, free_stops=[[0, 99, 0, 0, 0], plain])
    none = evaluate(g, bet, [1] * 5)
    assert none.free_games == () and none.choice is None and none.total_win_credits == 0


def test_ways_wild_multipliers_multiply_and_the_choice_is_taken():
    d = {**WAYS, "id": "free_ways", "features": {"free_games": {
        "trigger": {"symbol": "S", "count": 3}, "retrigger": False, "default_choice": 1, "choices": [
            {"name": "many", "games": 1, "wild_multipliers": {2: 2, 3: 3}},
            {"name": "few", "games": 1, "wild_multipliers": {2: 5, 3: 10}}]}}}
    d["variations"] = {"t": {
        "reels": [["S", "X", "X"]] * 3 + [["X"] * 3] * 2,
        # free game window (stop 0): rows A W W X X / A X A X X / X X X X X
        "free_reels": [["A", "A", "X"], ["W", "X", "X"], ["W", "A", "X"], ["X", "X", "X"], ["X", "X", "X"]],
    }}
    g = parse_game(yaml.safe_dump(d, sort_keys=False))
    bet = g.resolve_bet(reels=5, multiplier=2)
    o = evaluate(g, bet, [0] * 5, choice=0, free_stops=[[0] * 5])
    (w,) = o.free_games[0].wins
    # reel 1: 2 A; reel 2: one wild ×2; reel 3: one wild ×3 + one A -> ways = 2 × 2 × (3 + 1) = 16
    assert (w.symbol, w.count, w.ways, w.pay_credits) == ("A", 3, 16, 5 * 16 * 2)
    o = evaluate(g, bet, [0] * 5, free_stops=[[0] * 5])  # default choice 1: ×5, ×10
    assert o.choice == 1 and o.free_games[0].wins[0].ways == 2 * 5 * 11
    # in the paid game a wild counts once
    base = with_window(WAYS, ["A W W X X", "A X A X X", "X X X X X"])
    assert play(base, reels=5, multiplier=1).wins[0].ways == 2 * 1 * 2
    with pytest.raises(InvalidBet) as e:
        evaluate(g, bet, [0] * 5, choice=2, free_stops=[[0] * 5])
    assert e.value.field == "choice"


def test_progressive_combination_reported_only_on_a_qualifying_bet():
    d = {**LINES, "id": "prog", "symbols": LINES["symbols"] + [{"id": "J", "name": "Jackpot", "kind": "bonus"}],
         "features": {"progressive": [{"level": "GRAND", "symbol": "J", "count": 5, "min_bet": "max"},
                                      {"level": "MAJOR", "symbol": "J", "count": 4, "min_bet": 3}]}}
    g = with_window(d, ["J X X X X", "X J J X X", "X X X J J"])
    assert play(g, lines=5, multiplier=5).progressive == ("GRAND",), "the highest level of the symbol only"
    assert play(g, lines=3, multiplier=1).progressive == ("MAJOR",)
    assert play(g, lines=1, multiplier=2).progressive == ()
    g4 = with_window(d, ["J X X X X", "X J J X X", "X X X J X"])
    assert play(g4, lines=5, multiplier=5).progressive == ("MAJOR",)
    o = play(g, lines=5, multiplier=5)
    assert o.total_win_credits == 0, "a progressive is reported, never paid by the game math"


def test_award_guard_flags_a_total_above_the_maximum():
    d = {**LINES, "id": "guard", "max_award_credits": 3749}
    g = with_window(d, ["X X X X X", "D D D D D", "X X X X X"])
    o = play(g, lines=1, multiplier=5)
    assert o.total_win_credits == 3750 and o.max_award_credits == 3749 and o.exceeds_max_award
    assert o.to_dict()["exceeds_max_award"] is True
    assert not play(g, lines=1, multiplier=2).exceeds_max_award
    assert not play(with_window(LINES, ["X X X X X", "D D D D D", "X X X X X"]), lines=1, multiplier=5).exceeds_max_award


# --------------------------------------------------------------------------- one evaluator, live and math
@pytest.mark.parametrize("game_id", ["dragon_pearl_50", "tiger_reels_243"])
def test_live_spin_replays_exactly_through_evaluate(game_id):
    """Live play (spin) and the math (evaluate on recorded stops) are the same evaluator."""
    g = load_game(game_id)
    rng = SeededRng(99)
    features = 0
    for i in range(3000):
        bet = g.bet_options()[i % len(g.bet_options())]
        choice = (i % len(g.free_games.choices)) if g.free_games.has_choice else None
        o = spin(g, bet, rng, choice=choice)
        features += bool(o.free_games)
        again = evaluate(g, bet, o.stops, choice=choice, free_stops=[f.stops for f in o.free_games])
        assert again == o
    assert features >= 10, "the sample must include free games"


@pytest.mark.parametrize("game_id", ["dragon_pearl_50", "tiger_reels_243"])
def test_simulator_tables_agree_with_the_evaluator(game_id):
    """The vectorised simulator scores paid games exactly as the evaluator does (every bet size)."""
    import numpy as np

    from slotsys.floor.domain.sim import Simulator

    g = load_game(game_id)
    rng = SeededRng(5)
    seen = set()
    for bet in g.bet_options():
        if (bet.lines, bet.reels) in seen and bet.multiplier != 3:
            continue
        seen.add((bet.lines, bet.reels))
        sim = Simulator(g, bet, "88")
        outs = [spin(g, bet, rng, variation="88") for _ in range(400)]
        wins, _ = sim.base_pays(np.array([o.stops for o in outs]))
        assert wins.tolist() == [o.base_win_credits for o in outs]


def test_live_reel_stops_are_uniform_chi_square_over_a_million_draws():
    """Live play draws stops with the CSPRNG: 200,000 paid games × 5 reels = 1,000,000 draws;
    each reel's stop counts pass a chi-square test at p = 10⁻⁶ (Wilson–Hilferty critical value)."""
    from slotsys.floor.domain.evaluator import draw_stops

    g = load_game("tiger_reels_243")
    strips = g.variation().reels
    rng = SystemRng()
    counts = [[0] * len(s) for s in strips]
    for _ in range(200_000):
        for i, t in enumerate(draw_stops(strips, rng)):
            counts[i][t] += 1
    z = 4.753  # one-sided standard normal quantile for p = 1e-6
    for c in counts:
        n, k = sum(c), len(c)
        exp = n / k
        chi2 = sum((x - exp) ** 2 / exp for x in c)
        df = k - 1
        crit = df * (1 - 2 / (9 * df) + z * (2 / (9 * df)) ** 0.5) ** 3
        assert chi2 < crit, (chi2, crit)
        assert min(c) > 0
