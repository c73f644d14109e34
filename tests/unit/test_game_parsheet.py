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

from slotsys.domain.evaluator import SeededRng, evaluate, spin
from slotsys.domain.game import GameDefinition, parse_game
from slotsys.domain.parsheet import ParSheet, par_sheet
from slotsys.games import GAMES_DIR, load_game

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


# --------------------------------------------------------------------------- real games
@pytest.mark.parametrize("game_id", ["dragon_pearl_50", "tiger_reels_243"])
def test_full_bet_rtp_is_in_the_target_band(game_id):
    sheet = par_sheet(load_game(game_id))
    assert Fraction(92, 100) <= sheet.rtp_full_bet <= Fraction(96, 100)
    assert sheet.full_bet.bet == load_game(game_id).full_bet()
    assert sheet.unreachable_awards() == [], "every award reachable at least once in 100 million games"
    for o in sheet.options:
        assert 0 < o.hit_frequency < 1 and o.rtp < 1 and o.sd > 0
        assert sum(o.rtp_parts.values()) == o.rtp
        same = sheet.option(lines=o.bet.lines, reels=o.bet.reels, multiplier=1)
        assert (o.rtp, o.hit_frequency, o.sd) == (same.rtp, same.hit_frequency, same.sd)


def test_lines_game_rtp_is_the_same_for_every_line_count_and_hits_grow():
    sheet = par_sheet(load_game("dragon_pearl_50"))
    per_lines = [sheet.option(lines=n, multiplier=1) for n in (1, 5, 10, 20, 30, 40, 50)]
    assert len({o.rtp for o in per_lines}) == 1
    hf = [o.hit_frequency for o in per_lines]
    assert hf == sorted(hf) and len(set(hf)) == len(hf)
    assert set(per_lines[0].rtp_parts) == {"line", "scatter"}


def test_ways_game_reports_every_reels_bought_option_and_full_bet_is_best():
    sheet = par_sheet(load_game("tiger_reels_243"))
    opts = [sheet.option(reels=b, multiplier=1) for b in range(1, 6)]
    assert [o.ways for o in opts] == [3, 9, 27, 81, 243]
    assert set(opts[0].rtp_parts) == {"way", "scatter"}
    assert max(o.rtp for o in opts) == sheet.rtp_full_bet
    assert len({o.rtp_parts["scatter"] for o in opts}) == 1, "scatter return does not depend on reels bought"


def test_par_sheet_is_fast_and_cached():
    for path in ("dragon_pearl_50.yaml", "tiger_reels_243.yaml"):
        game = parse_game((GAMES_DIR / path).read_text())  # fresh, uncached
        t0 = time.perf_counter()
        sheet = par_sheet(game)
        assert time.perf_counter() - t0 < 2.0
        assert par_sheet(game) is sheet and par_sheet(game, game.default_variation) is sheet


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
def _simulate(game: GameDefinition, bet, n: int, seed: int) -> tuple[float, float]:
    rng = SeededRng(seed)
    total = hits = 0
    for _ in range(n):
        w = spin(game, bet, rng).total_win_credits
        total += w
        hits += w > 0
    return total / (n * bet.credits), hits / n


@pytest.mark.parametrize(
    "game_id,bet_kwargs,n",
    [
        ("dragon_pearl_50", dict(lines=50, multiplier=10), 30_000),
        ("dragon_pearl_50", dict(lines=10, multiplier=1), 20_000),
        ("tiger_reels_243", dict(reels=5, multiplier=10), 30_000),
        ("tiger_reels_243", dict(reels=3, multiplier=2), 20_000),
        ("tiger_reels_243", dict(reels=1, multiplier=1), 20_000),
    ],
)
def test_monte_carlo_agrees_with_the_exact_figures(game_id, bet_kwargs, n):
    game = load_game(game_id)
    bet = game.resolve_bet(**bet_kwargs)
    fig = par_sheet(game).option(lines=bet.lines, reels=bet.reels, multiplier=bet.multiplier)
    rtp_sim, hf_sim = _simulate(game, bet, n, seed=20240601)
    assert abs(rtp_sim - float(fig.rtp)) < 4 * fig.sd / math.sqrt(n)
    p = float(fig.hit_frequency)
    assert abs(hf_sim - p) < 4 * math.sqrt(p * (1 - p) / n)
