"""Par sheet: exact figures against brute force (tiny games) and Monte Carlo (real games)."""

from __future__ import annotations

import copy
import itertools
import json
import math
import time
from fractions import Fraction

import pytest
import yaml

from slotsys.floor.domain.evaluator import SeededRng, evaluate, spin
from slotsys.floor.domain.game import GameDefinition, parse_game
from slotsys.floor.domain.parsheet import ParSheet, par_sheet
from slotsys.floor.games import GAMES_DIR, load_game

STRIPS = [
    ["HI", "LO", "WD", "SC", "BL", "LO"],
    ["LO", "HI", "SC", "SC", "WD", "BL", "LO"],  # two scatters can share a window
    ["WD", "LO", "HI", "BL", "SC", "HI", "BL"],
    ["HI", "WD", "LO", "BL", "SC", "BL"],
]

TINY_LINES = {
    "id": "tiny_lines",
    "name": "Tiny Lines",
    "kind": "lines",
    "rows": 3,
    "reel_count": 4,
    "symbols": [
        {"id": "HI", "name": "High", "pays": {2: 2, 3: 10, 4: 40}},
        {"id": "LO", "name": "Low", "pays": {3: 3, 4: 8}},
        {"id": "BL", "name": "Blank"},
        {"id": "WD", "name": "Wild", "kind": "wild", "pays": {2: 3, 3: 15, 4: 60}},
        {"id": "SC", "name": "Scatter", "kind": "scatter", "pays": {3: 4, 5: 20}},
    ],
    "bet": {"lines": [1, 2, 3, 5], "multipliers": [1, 2]},
    "lines": [[1, 1, 1, 1], [0, 0, 0, 0], [2, 2, 2, 2], [0, 1, 1, 0], [2, 1, 0, 2]],
    "variations": {"x": {"reels": STRIPS}},
}

TINY_WAYS = {
    "id": "tiny_ways",
    "name": "Tiny Ways",
    "kind": "reel_cost",
    "rows": 3,
    "reel_count": 4,
    "symbols": [
        {"id": "HI", "name": "High", "pays": {2: 1, 3: 10, 4: 40}},
        {"id": "LO", "name": "Low", "pays": {3: 3, 4: 8}},
        {"id": "BL", "name": "Blank"},
        {"id": "WD", "name": "Wild", "kind": "wild"},
        {"id": "SC", "name": "Scatter", "kind": "scatter", "pays": {3: 4, 5: 20}},
    ],
    "bet": {"reel_costs": {1: 1, 2: 3, 3: 7, 4: 15}, "multipliers": [1, 3]},
    "variations": {"x": {"reels": STRIPS}},
}


def _variant(base: dict, **changes) -> dict:
    d = copy.deepcopy(base)
    for k, v in changes.items():
        d[k] = v
    return d


def _no_wild_no_scatter(base: dict) -> dict:
    d = copy.deepcopy(base)
    d["symbols"] = [s for s in d["symbols"] if s.get("kind", "regular") == "regular"]
    d["variations"] = {"x": {"reels": [[x if x in ("HI", "LO") else "BL" for x in s] for s in STRIPS]}}
    return d


TINY_GAMES = {
    "lines": TINY_LINES,
    "lines_plain": _no_wild_no_scatter(TINY_LINES),
    "lines_wild_without_pays": _variant(
        TINY_LINES, symbols=[s if s["id"] != "WD" else {"id": "WD", "name": "Wild", "kind": "wild"} for s in TINY_LINES["symbols"]]
    ),
    "lines_scatter_only": _variant(
        TINY_LINES, symbols=[{k: v for k, v in s.items() if k != "pays" or s.get("kind") == "scatter"} for s in TINY_LINES["symbols"]]
    ),
    "ways": TINY_WAYS,
    "ways_scatter_only": _variant(
        TINY_WAYS, symbols=[{k: v for k, v in s.items() if k != "pays" or s.get("kind") == "scatter"} for s in TINY_WAYS["symbols"]]
    ),
    "ways_plain": _no_wild_no_scatter(TINY_WAYS),
}


def build(d: dict) -> GameDefinition:
    return parse_game(yaml.safe_dump(d, sort_keys=False))


def brute_force(game: GameDefinition, bet) -> tuple[Fraction, Fraction, float]:
    """RTP, hit frequency and SD (units of total bet) over every stop combination."""
    strips = game.variation().reels
    n = total = sq = hits = 0
    for stops in itertools.product(*(range(len(s)) for s in strips)):
        x = evaluate(game, bet, list(stops)).total_win_credits
        n += 1
        total += x
        sq += x * x
        hits += x > 0
    rtp = Fraction(total, n * bet.credits)
    var = Fraction(sq, n * bet.credits**2) - rtp * rtp
    return rtp, Fraction(hits, n), math.sqrt(var)


# --------------------------------------------------------------------------- exactness
@pytest.mark.parametrize("name", sorted(TINY_GAMES))
def test_exact_figures_equal_brute_force_over_all_stops(name):
    game = build(TINY_GAMES[name])
    sheet = par_sheet(game)
    assert [o.bet for o in sheet.options] == game.bet_options()
    checked = set()
    for o in sheet.options:
        key = (o.bet.lines, o.bet.reels)
        if key not in checked:
            checked.add(key)
            rtp, hf, sd = brute_force(game, o.bet)
            assert o.rtp == rtp, (name, key)
            assert o.hit_frequency == hf, (name, key)
            assert o.sd == pytest.approx(sd, rel=1e-9, abs=1e-12), (name, key)
        assert sum(o.rtp_parts.values()) == o.rtp
    # multipliers scale bet and wins alike: one brute-force check at another multiplier
    last = sheet.options[-1]
    assert brute_force(game, last.bet)[0] == last.rtp


def test_tiny_reel_cost_game_returns_differ_by_reels_bought():
    sheet = par_sheet(build(TINY_WAYS))
    rtps = [sheet.option(reels=b, multiplier=1).rtp for b in (1, 2, 3, 4)]
    assert len(set(rtps)) > 1
    assert [sheet.option(reels=b).ways for b in (1, 2, 3, 4)] == [3, 9, 27, 81]


# --------------------------------------------------------------------------- features, brute force
FEAT_LINES = {
    "id": "feat_lines",
    "name": "Feature Lines",
    "kind": "lines",
    "rows": 3,
    "reel_count": 3,
    "symbols": [
        {"id": "HI", "name": "High", "pays": {2: 2, 3: 10}},
        {"id": "LO", "name": "Low", "pays": {3: 3}},
        {"id": "BL", "name": "Blank"},
        {"id": "WD", "name": "Wild", "kind": "wild", "pays": {3: 15}, "substitutes": ["HI"]},
        {"id": "SC", "name": "Scatter", "kind": "scatter", "pays": {2: 1, 3: 5}},
        {"id": "JP", "name": "Jackpot", "kind": "bonus"},
    ],
    "bet": {"lines": [1, 2, 4], "multipliers": [1, 2]},
    "lines": [[1, 1, 1], [0, 0, 0], [2, 2, 2], [0, 1, 2]],
    "features": {"free_games": {"trigger": {"symbol": "SC", "count": 2}, "games": 1, "win_multiplier": 2,
                                "retrigger": False},
                 "progressive": [{"level": "TOP", "symbol": "JP", "count": 2, "min_bet": "max"}]},
    "variations": {"x": {"reels": [["HI", "LO", "WD", "SC", "BL", "LO"], ["LO", "HI", "SC", "BL", "WD", "LO", "JP"],
                                   ["WD", "LO", "HI", "BL", "SC", "HI", "JP"]],
                         "free_reels": [["WD", "HI", "LO", "SC", "BL"], ["HI", "WD", "BL", "LO", "HI", "SC"],
                                        ["LO", "HI", "WD", "BL", "HI"]]}},
}

FEAT_WAYS = {
    "id": "feat_ways",
    "name": "Feature Ways",
    "kind": "reel_cost",
    "rows": 3,
    "reel_count": 3,
    "symbols": [
        {"id": "HI", "name": "High", "pays": {2: 1, 3: 10}},
        {"id": "LO", "name": "Low", "pays": {3: 3}},
        {"id": "BL", "name": "Blank"},
        {"id": "WD", "name": "Wild", "kind": "wild"},
        {"id": "SC", "name": "Scatter", "kind": "scatter", "pays": {3: 4}},
    ],
    "bet": {"reel_costs": {1: 1, 2: 3, 3: 7}, "multipliers": [1, 3]},
    "features": {"free_games": {"trigger": {"symbol": "SC", "count": 2}, "retrigger": False, "default_choice": 1,
                                "choices": [{"name": "a", "games": 1, "wild_multipliers": {2: 2}},
                                            {"name": "b", "games": 1, "wild_multipliers": {2: 3, 3: 2},
                                             "win_multiplier": 2}]}},
    "variations": {"x": {"reels": [["HI", "LO", "WD", "SC", "BL", "LO"], ["LO", "HI", "SC", "BL", "WD", "LO"],
                                   ["WD", "LO", "HI", "BL", "SC", "HI"]],
                         "free_reels": [["HI", "LO", "SC", "BL", "HI"], ["WD", "HI", "BL", "LO", "SC"],
                                        ["LO", "WD", "HI", "BL", "HI"]]}},
}


def brute_force_with_free_game(game: GameDefinition, bet, choice=None) -> tuple[Fraction, Fraction, float]:
    """RTP, hit frequency and SD over every paid-game stop combination and, when it awards its one
    free game, every free-game stop combination (exact expectation over both)."""
    v = game.variation()
    base = list(itertools.product(*(range(len(s)) for s in v.reels)))
    free = list(itertools.product(*(range(len(s)) for s in v.free_strips)))
    total = sq = hits = Fraction(0)
    for stops in base:
        o = evaluate(game, bet, stops, choice=choice, free_stops=[free[0]]) if _triggers(game, v.reels, stops) \
            else evaluate(game, bet, stops, choice=choice)
        if not o.free_games:
            total += o.total_win_credits
            sq += o.total_win_credits**2
            hits += o.total_win_credits > 0
            continue
        hits += 1
        ws = [evaluate(game, bet, stops, choice=choice, free_stops=[fs]).total_win_credits for fs in free]
        total += Fraction(sum(ws), len(ws))
        sq += Fraction(sum(w * w for w in ws), len(ws))
    n = len(base)
    rtp = total / (n * bet.credits)
    var = sq / (n * bet.credits**2) - rtp * rtp
    return rtp, hits / n, math.sqrt(var)


def _triggers(game, reels, stops) -> bool:
    fg = game.free_games
    n = sum(1 for s, strip in zip(stops, reels) for r in range(game.rows) if strip[(s + r) % len(strip)] == fg.symbol)
    return n >= fg.count


def test_lines_free_games_and_substitution_set_equal_brute_force():
    game = build(FEAT_LINES)
    sheet = par_sheet(game)
    for lines in (4,):
        o = sheet.option(lines=lines, multiplier=2)
        rtp, hf, sd = brute_force_with_free_game(game, o.bet)
        assert o.rtp == rtp and o.hit_frequency == hf
        assert o.sd == pytest.approx(sd, rel=1e-9)
        assert o.rtp_parts["free_games"] > 0 and sum(o.rtp_parts.values()) == o.rtp
    # the progressive: JP shows on reels 2 and 3 together
    v = game.variation()
    vis = [sum(1 for t in range(len(s)) if any(s[(t + r) % len(s)] == "JP" for r in range(3))) for s in v.reels]
    assert sheet.progressive["TOP"] == Fraction(len(v.reels[0]) * vis[1] * vis[2], math.prod(len(s) for s in v.reels))


@pytest.mark.parametrize("reels", [1, 3])
def test_ways_free_games_choices_and_wild_multipliers_equal_brute_force(reels):
    game = build(FEAT_WAYS)
    sheet = par_sheet(game)
    o = sheet.option(reels=reels, multiplier=3)
    for c in o.by_choice:
        rtp, hf, sd = brute_force_with_free_game(game, o.bet, choice=c.choice)
        assert c.rtp == rtp, (reels, c.choice)
        assert c.sd == pytest.approx(sd, rel=1e-9)
        if c.choice == game.free_games.default_choice:
            assert (o.rtp, o.hit_frequency) == (rtp, hf)
    assert o.by_choice[0].rtp != o.by_choice[1].rtp


# --------------------------------------------------------------------------- real games
TARGETS = {"88": Fraction(88, 100), "92": Fraction(92, 100), "95": Fraction(95, 100)}
GAME_IDS = ["dragon_pearl_50", "tiger_reels_243"]


@pytest.mark.parametrize("game_id", GAME_IDS)
@pytest.mark.parametrize("variation", ["88", "92", "95"])
def test_catalogue_variations_hit_their_targets_and_every_option_returns_80_percent(game_id, variation):
    game = load_game(game_id)
    sheet = par_sheet(game, variation)
    assert abs(sheet.rtp_full_bet - TARGETS[variation]) < Fraction(3, 1000), float(sheet.rtp_full_bet)
    assert sheet.full_bet.bet == game.full_bet()
    assert sheet.min_rtp >= Fraction(80, 100), "every bet option and free-games choice returns at least 80%"
    assert sheet.unreachable_awards() == [], "every award reachable at least once in 100 million games"
    for o in sheet.options:
        assert 0 < o.hit_frequency < 1 and o.rtp < 1 and o.sd > 0
        assert o.vi_90 == pytest.approx(1.645 * o.sd) and o.vi_95 == pytest.approx(1.96 * o.sd)
        assert sum(o.rtp_parts.values()) == o.rtp and set(o.rtp_parts) >= {"scatter", "free_games"}
        for c in o.by_choice:
            assert sum(c.rtp_parts.values()) == c.rtp and Fraction(80, 100) <= c.rtp < 1
        same = sheet.option(lines=o.bet.lines, reels=o.bet.reels, multiplier=1)
        assert (o.rtp, o.hit_frequency, o.sd) == (same.rtp, same.hit_frequency, same.sd)
    top = sheet.top_award
    assert top is not None and top.probability > 0 and top.cycle == pytest.approx(float(1 / top.probability))


def test_lines_game_rtp_is_the_same_for_every_line_count_and_hits_grow():
    sheet = par_sheet(load_game("dragon_pearl_50"))
    per_lines = [sheet.option(lines=n, multiplier=1) for n in (1, 5, 10, 20, 30, 40, 50)]
    assert len({o.rtp for o in per_lines}) == 1
    hf = [o.hit_frequency for o in per_lines]
    assert hf == sorted(hf) and len(set(hf)) == len(hf)
    assert set(per_lines[0].rtp_parts) == {"line", "scatter", "free_games"}
    assert set(sheet.progressive) == {"DRAGON_GRAND"} and Fraction(1, 10**8) < sheet.progressive["DRAGON_GRAND"] < Fraction(1, 10**5)
    assert "progressive" not in per_lines[0].rtp_parts, "a progressive is not part of the RTP"


def test_ways_game_reports_every_reels_bought_option_and_each_choice():
    game = load_game("tiger_reels_243")
    sheet = par_sheet(game)
    opts = [sheet.option(reels=b, multiplier=1) for b in range(1, 6)]
    assert [o.ways for o in opts] == [3, 9, 27, 81, 243]
    assert set(opts[0].rtp_parts) == {"way", "scatter", "free_games"}
    assert len({o.rtp_parts["scatter"] for o in opts}) == 1, "scatter return does not depend on reels bought"
    assert sheet.choices == tuple(c.name for c in game.free_games.choices) and sheet.default_choice == 0
    for o in opts:
        assert [c.choice for c in o.by_choice] == [0, 1, 2, 3, 4]
        assert o.by_choice[0].rtp == o.rtp, "the headline figures use the default choice"
    # expected free games per trigger: the closed form N / (1 - N q) (one award size per choice)
    fg = sheet.free_games
    q = fg.retrigger_probability
    for c, per in zip(game.free_games.choices, fg.games_per_trigger):
        n = c.games_for(3)
        assert per == n / (1 - n * q)


def test_dragon_pearl_free_games_follow_the_closed_form():
    game = load_game("dragon_pearl_50")
    sheet = par_sheet(game)
    fg = sheet.free_games
    # awards 10/15/20 by scatter count: E[games] = E[N | trigger] / (1 - E[retrigger games per free game])
    assert fg.retrigger_games[0] < 1 and fg.games_per_trigger[0] > 10
    assert 1 / fg.trigger_probability < 200


@pytest.mark.parametrize("game_id,variation", [("dragon_pearl_50", "95"), ("tiger_reels_243", "88")])
def test_par_sheet_is_fast_and_cached(game_id, variation):
    """One cold sheet per game here; bench/game_parsheet.py times every game and variation."""
    game = parse_game((GAMES_DIR / f"{game_id}.yaml").read_text())  # fresh, uncached
    t0 = time.perf_counter()
    sheet = par_sheet(game, variation)
    assert time.perf_counter() - t0 < 2.0
    assert par_sheet(game, variation) is sheet
    if variation == game.default_variation:
        assert par_sheet(game) is sheet


def test_checked_in_par_sheets_are_current():
    """docs/par-sheets/<game>_<variation>.json is what `slotsys par --json` prints today."""
    root = GAMES_DIR.parents[2] / "docs" / "par-sheets"
    for game_id in GAME_IDS:
        game = load_game(game_id)
        for v in game.variations:
            kept = json.loads((root / f"{game_id}_{v}.json").read_text())
            now = json.loads(json.dumps(par_sheet(game, v).to_dict()))
            assert kept["rtp_full_bet_exact"] == now["rtp_full_bet_exact"], (game_id, v)
            assert [o["rtp_exact"] for o in kept["options"]] == [o["rtp_exact"] for o in now["options"]]
            for k in ("hit_frequency_exact", "line_hit_frequency_exact", "trigger_frequency_exact"):
                assert [o[k] for o in kept["options"]] == [o[k] for o in now["options"]], (game_id, v, k)
            assert (root / f"{game_id}_{v}.txt").read_text().startswith(game.name)


def test_par_sheet_to_dict_is_json_ready():
    sheet = par_sheet(load_game("tiger_reels_243"))
    assert isinstance(sheet, ParSheet)
    d = json.loads(json.dumps(sheet.to_dict()))
    assert d["game"] == "tiger_reels_243" and len(d["options"]) == 25
    first = d["options"][0]
    assert first["volatility_z"] == 1.645
    assert first["volatility_index"] == pytest.approx(1.645 * first["sd"])
    num, den = map(int, d["options"][-1]["rtp_exact"].split("/"))
    assert Fraction(num, den) == sheet.rtp_full_bet


# --------------------------------------------------------------------------- Monte Carlo
@pytest.mark.parametrize(
    "game_id,variation,bet_kwargs,choice,n",
    [
        ("dragon_pearl_50", "92", dict(lines=50, multiplier=10), None, 300_000),
        ("dragon_pearl_50", "88", dict(lines=10, multiplier=1), None, 300_000),
        ("tiger_reels_243", "95", dict(reels=5, multiplier=10), 0, 500_000),
        ("tiger_reels_243", "92", dict(reels=3, multiplier=2), 2, 500_000),
        ("tiger_reels_243", "88", dict(reels=1, multiplier=1), 4, 500_000),
    ],
)
def test_monte_carlo_agrees_with_the_exact_figures(game_id, variation, bet_kwargs, choice, n):
    from slotsys.floor.domain.sim import Simulator, agreement

    game = load_game(game_id)
    bet = game.resolve_bet(**bet_kwargs)
    fig = par_sheet(game, variation).option(lines=bet.lines, reels=bet.reels, multiplier=bet.multiplier)
    exact = fig.by_choice[choice] if choice is not None else fig
    res = Simulator(game, bet, variation, choice).run(n, seed=20240601)
    ok, z = agreement(res.rtp, float(exact.rtp), exact.sd, n)
    assert ok, z
    p = float(fig.hit_frequency)
    assert abs(res.hit_frequency - p) < 4 * math.sqrt(p * (1 - p) / n)
    if exact.sd < 15:  # heavier tails need far more games for the sample SD to settle
        assert res.sd == pytest.approx(exact.sd, rel=0.25)


def test_plain_python_spins_agree_with_the_exact_figures():
    """The live evaluator itself (not the simulator) on 20,000 seeded paid games."""
    game = load_game("tiger_reels_243")
    bet = game.resolve_bet(reels=5, multiplier=1)
    fig = par_sheet(game).option(reels=5, multiplier=1)
    rng = SeededRng(20240601)
    n = 10_000
    total = hits = 0
    for _ in range(n):
        o = spin(game, bet, rng)
        total += o.total_win_credits
        hits += o.total_win_credits > 0 or bool(o.free_games)
    assert abs(total / (n * bet.credits) - float(fig.rtp)) < 4 * fig.sd / math.sqrt(n)
    p = float(fig.hit_frequency)
    assert abs(hits / n - p) < 4 * math.sqrt(p * (1 - p) / n)


def test_progressive_levels_of_one_symbol_equal_brute_force():
    """Two levels on the same bonus symbol: the higher count wins; probabilities per qualifying game."""
    d = copy.deepcopy(FEAT_LINES)
    d.pop("features")
    d["features"] = {"progressive": [{"level": "TOP", "symbol": "JP", "count": 3, "min_bet": "max"},
                                     {"level": "MID", "symbol": "JP", "count": 2, "min_bet": 1}]}
    d["variations"] = {"x": {"reels": [r + ["JP"] if i == 0 else r for i, r in
                                       enumerate(FEAT_LINES["variations"]["x"]["reels"])]}}
    game = build(d)
    sheet = par_sheet(game)
    bet = game.full_bet()
    counts = {"TOP": 0, "MID": 0}
    combos = list(itertools.product(*(range(len(s)) for s in game.variation().reels)))
    for stops in combos:
        for lvl in evaluate(game, bet, stops).progressive:
            counts[lvl] += 1
    assert sheet.progressive == {k: Fraction(v, len(combos)) for k, v in counts.items()}
    assert counts["TOP"] and counts["MID"]
    from slotsys.floor.domain.sim import Simulator

    res = Simulator(game, bet).run(200_000, seed=3)
    for lvl, p in sheet.progressive.items():
        n = 200_000
        assert abs(res.progressive[lvl] / n - float(p)) < 4 * math.sqrt(float(p) * (1 - float(p)) / n)
