"""Symbol groups, multiplying wilds and paying wilds in ways games; the separated hit frequencies;
definitions loaded from a file. Exact par sheets against brute force over every stop and
against seeded simulations; the example games live in tests/data/games/."""

from __future__ import annotations

import copy
import itertools
import json
import math
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
import yaml
from click.testing import CliRunner

from slotsys.floor.domain.evaluator import SeededRng, draw_stops, evaluate
from slotsys.floor.domain.game import GameDefinition, GameDefinitionError, load_definition, parse_game
from slotsys.floor.domain.parsheet import par_sheet
from slotsys.floor.domain.sim import Simulator
from slotsys.floor.games import load_game
from slotsys.app.mathcli import par, simulate

DATA = Path(__file__).resolve().parents[1] / "data" / "games"


def example(name: str) -> GameDefinition:
    path = DATA / f"{name}.yaml"
    return load_definition(path.read_text(), path.name)


def example_dict(name: str) -> dict:
    return yaml.safe_load((DATA / f"{name}.yaml").read_text())


def build(d: dict) -> GameDefinition:
    return parse_game(yaml.safe_dump(d, sort_keys=False))


def brute_force(game: GameDefinition, bet) -> tuple[Fraction, Fraction, Fraction, float]:
    """RTP, hit frequency, line/way hit frequency and SD over every stop combination (evaluator)."""
    strips = game.variation().reels
    n = total = sq = hits = line_hits = 0
    for stops in itertools.product(*(range(len(s)) for s in strips)):
        o = evaluate(game, bet, list(stops))
        x = o.total_win_credits
        n += 1
        total += x
        sq += x * x
        hits += x > 0
        line_hits += any(w.kind in ("line", "way") for w in o.wins)
    rtp = Fraction(total, n * bet.credits)
    var = Fraction(sq, n * bet.credits**2) - rtp * rtp
    return rtp, Fraction(hits, n), Fraction(line_hits, n), math.sqrt(var)


# --------------------------------------------------------------------------- tiny variants
STRIPS = [
    ["HI", "LO", "WD", "SC", "BL", "LO"],
    ["LO", "HI", "SC", "SC", "WD", "BL", "LO"],
    ["WD", "LO", "HI", "BL", "SC", "HI", "BL"],
    ["HI", "WD", "LO", "BL", "SC", "BL"],
]

TINY_WAYS_WILD_PAYS = {
    "id": "tiny_wild_ways", "name": "Tiny Wild Ways", "kind": "reel_cost", "rows": 3, "reel_count": 4,
    "symbols": [
        {"id": "HI", "name": "High", "pays": {2: 1, 3: 10, 4: 40}},
        {"id": "LO", "name": "Low", "pays": {3: 3, 4: 8}},
        {"id": "BL", "name": "Blank"},
        {"id": "WD", "name": "Wild", "kind": "wild", "pays": {2: 2, 3: 12, 4: 30}},
        {"id": "SC", "name": "Scatter", "kind": "scatter", "pays": {3: 4, 5: 20}},
    ],
    "bet": {"reel_costs": {1: 1, 2: 3, 3: 7, 4: 15}, "multipliers": [1, 3]},
    "variations": {"x": {"reels": STRIPS}},
}

TINY_LINES_X = {
    "id": "tiny_lines_x", "name": "Tiny Lines", "kind": "lines", "rows": 3, "reel_count": 4,
    "symbols": [
        {"id": "HI", "name": "High", "pays": {2: 2, 3: 10, 4: 40}},
        {"id": "LO", "name": "Low", "pays": {3: 3, 4: 8}},
        {"id": "BL", "name": "Blank"},
        {"id": "WD", "name": "Wild", "kind": "wild", "multiplier": 2, "pays": {3: 15, 4: 60}},
        {"id": "SC", "name": "Scatter", "kind": "scatter", "pays": {3: 4, 5: 20}},
    ],
    "groups": {"any_hl": {"name": "High or Low", "symbols": ["HI", "LO"], "pays": {2: 1, 3: 4, 4: 12}}},
    "bet": {"lines": [1, 2, 5], "multipliers": [1, 2]},
    "lines": [[1, 1, 1, 1], [0, 0, 0, 0], [2, 2, 2, 2], [0, 1, 1, 0], [2, 1, 0, 2]],
    "variations": {"x": {"reels": STRIPS}},
}


def _ways_multiplier() -> dict:
    d = copy.deepcopy(TINY_WAYS_WILD_PAYS)
    d["id"] = "tiny_x_ways"
    d["symbols"][3] = {"id": "WD", "name": "Wild x3", "kind": "wild", "multiplier": 3}
    return d


def _lines_add() -> dict:
    d = copy.deepcopy(TINY_LINES_X)
    d["wild_multiplier_combine"] = "add"
    d["symbols"][3]["multiplier"] = 3
    return d


def _lines_groups_only() -> dict:
    d = copy.deepcopy(TINY_LINES_X)
    d["symbols"][3] = {"id": "WD", "name": "Wild", "kind": "wild", "substitutes": ["HI"]}  # not every member
    return d


TINY = {
    "ways_wild_pays": TINY_WAYS_WILD_PAYS,
    "ways_wild_multiplier": _ways_multiplier(),
    "lines_groups_multiplier": TINY_LINES_X,
    "lines_multiplier_add": _lines_add(),
    "lines_groups_partial_wild": _lines_groups_only(),
}


@pytest.mark.parametrize("name", sorted(TINY))
def test_exact_par_sheet_equals_brute_force_over_every_stop(name):
    game = build(TINY[name])
    sheet = par_sheet(game)
    seen = set()
    for o in sheet.options:
        key = (o.bet.lines, o.bet.reels)
        if key in seen:
            continue
        seen.add(key)
        rtp, hf, lhf, sd = brute_force(game, o.bet)
        assert (o.rtp, o.hit_frequency, o.line_hit_frequency) == (rtp, hf, lhf), (name, key)
        assert o.sd == pytest.approx(sd, rel=1e-9, abs=1e-12), (name, key)
        assert sum(o.rtp_parts.values()) == o.rtp
        assert o.line_hit_frequency < o.hit_frequency  # the scatter pays some games without a line/way win


@pytest.mark.parametrize("name", ["lucky_bars", "double_diamond"])
def test_example_lines_games_equal_brute_force(name):
    game = example(name)
    sheet = par_sheet(game)
    o = sheet.full_bet
    rtp, hf, lhf, sd = brute_force(game, o.bet)
    assert (o.rtp, o.hit_frequency, o.line_hit_frequency) == (rtp, hf, lhf)
    assert o.sd == pytest.approx(sd, rel=1e-9)


# --------------------------------------------------------------------------- simulation agreement
@pytest.mark.parametrize(
    "name,bet_kwargs,n",
    [
        ("lucky_bars", dict(lines=5, multiplier=5), 300_000),  # a. symbol groups
        ("double_diamond", dict(lines=5, multiplier=3), 300_000),  # b. multiplying wild (lines)
        ("wild_ways", dict(reels=5, multiplier=2), 200_000),  # c. paying wild in a ways game
        ("wild_ways", dict(reels=3, multiplier=1), 200_000),
    ],
)
def test_seeded_simulation_agrees_with_the_exact_par_sheet(name, bet_kwargs, n):
    game = example(name)
    bet = game.resolve_bet(**bet_kwargs)
    fig = par_sheet(game).option(lines=bet.lines, reels=bet.reels, multiplier=bet.multiplier)
    res = Simulator(game, bet).run(n, seed=20261201)
    assert abs(res.rtp - float(fig.rtp)) < 4 * fig.sd / math.sqrt(n)
    for sim_p, exact in ((res.hit_frequency, fig.hit_frequency), (res.line_hit_frequency, fig.line_hit_frequency)):
        p = float(exact)
        assert 0 < p < 1 and abs(sim_p - p) < 4 * math.sqrt(p * (1 - p) / n)


@pytest.mark.parametrize("name", ["ways_wild_multiplier", "lines_multiplier_add"])
def test_seeded_simulation_agrees_for_multiplier_variants(name):
    game = build(TINY[name])
    bet = game.full_bet()
    fig = par_sheet(game).full_bet
    n = 200_000
    res = Simulator(game, bet).run(n, seed=7)
    assert abs(res.rtp - float(fig.rtp)) < 4 * fig.sd / math.sqrt(n)
    p = float(fig.hit_frequency)
    assert abs(res.hit_frequency - p) < 4 * math.sqrt(p * (1 - p) / n)


@pytest.mark.parametrize("name", ["lucky_bars", "double_diamond", "wild_ways"])
def test_simulator_tables_pay_what_the_evaluator_pays(name):
    game = example(name)
    sim = Simulator(game)
    rng = SeededRng(5)
    var = game.variation()
    stops = [draw_stops(var.reels, rng) for _ in range(3000)]
    wins, _ = sim.base_pays(np.array(stops))
    assert [int(x) for x in wins] == [evaluate(game, sim.bet, s).total_win_credits for s in stops]
    assert wins.sum() > 0


# --------------------------------------------------------------------------- the rules on chosen windows
def _one_row(symbols: list[dict], reels: list[str], **extra) -> GameDefinition:
    """A 1-row lines game whose stop 0 shows ``reels`` on its single line."""
    d = {"id": "probe", "name": "Probe", "kind": "lines", "rows": 1, "reel_count": len(reels), "symbols": symbols,
         "bet": {"lines": [1], "multipliers": [1]}, "lines": [[0] * len(reels)],
         "variations": {"x": {"reels": [[r] for r in reels]}}, **extra}
    return build(d)


def _line_pay(game: GameDefinition) -> tuple[str, int, int] | None:
    o = evaluate(game, game.full_bet(), [0] * game.reel_count)
    return (o.wins[0].symbol, o.wins[0].count, o.total_win_credits) if o.wins else None


BARS = [{"id": "BAR1", "name": "Bar", "pays": {3: 25}}, {"id": "BAR2", "name": "Double Bar", "pays": {3: 50}},
        {"id": "BAR3", "name": "Triple Bar", "pays": {3: 8}}, {"id": "BL", "name": "Blank"}]
ANY_BAR = {"any_bar": {"name": "Any Bar", "symbols": ["BAR1", "BAR2", "BAR3"], "pays": {3: 10}}}


def test_group_rule_any_mix_pays_the_group_and_one_symbol_pays_the_better():
    assert _line_pay(_one_row(BARS, ["BAR1", "BAR2", "BAR3"], groups=ANY_BAR)) == ("any_bar", 3, 10)
    assert _line_pay(_one_row(BARS, ["BAR2", "BAR2", "BAR2"], groups=ANY_BAR)) == ("BAR2", 3, 50)
    assert _line_pay(_one_row(BARS, ["BAR3", "BAR3", "BAR3"], groups=ANY_BAR)) == ("any_bar", 3, 10)  # group pays more
    assert _line_pay(_one_row(BARS, ["BAR1", "BL", "BAR1"], groups=ANY_BAR)) is None
    wild = BARS + [{"id": "W", "name": "Wild", "kind": "wild"}]
    assert _line_pay(_one_row(wild, ["W", "BAR1", "BAR3"], groups=ANY_BAR)) == ("any_bar", 3, 10)
    assert _line_pay(_one_row(wild, ["W", "W", "W"], groups=ANY_BAR)) is None  # wilds alone are no group win


def test_wild_multiplier_multiplies_or_adds_and_never_a_wild_only_win():
    syms = [{"id": "K", "name": "King", "pays": {3: 10, 4: 20}}, {"id": "BL", "name": "Blank"},
            {"id": "W", "name": "Wild x2", "kind": "wild", "multiplier": 2, "pays": {4: 500}}]
    assert _line_pay(_one_row(syms, ["K", "W", "K", "BL"])) == ("K", 3, 20)
    assert _line_pay(_one_row(syms, ["W", "W", "K", "BL"])) == ("K", 3, 40)  # 2 × 2
    assert _line_pay(_one_row(syms, ["W", "W", "W", "K"])) == ("K", 4, 160)  # 2 × 2 × 2
    assert _line_pay(_one_row(syms, ["W", "W", "W", "K"], wild_multiplier_combine="add")) == ("K", 4, 120)  # 2+2+2
    assert _line_pay(_one_row(syms, ["W", "W", "W", "W"])) == ("W", 4, 500)  # not multiplied


def test_paying_wild_in_a_ways_game_pays_the_higher_per_way():
    d = {"id": "probe_ways", "name": "Probe", "kind": "reel_cost", "rows": 3, "reel_count": 3,
         "symbols": [{"id": "K", "name": "King", "pays": {3: 5}}, {"id": "X", "name": "Blank"},
                     {"id": "W", "name": "Wild", "kind": "wild", "pays": {2: 8, 3: 50}}],
         "bet": {"reel_costs": {1: 1, 2: 3, 3: 7}, "multipliers": [1]},
         "variations": {"x": {"reels": [["W", "K", "X"], ["W", "K", "X"], ["K", "X", "X"]]}}}
    game = build(d)
    o = evaluate(game, game.full_bet(), [0, 0, 0])
    by = {w.symbol: w for w in o.wins}
    assert (by["W"].count, by["W"].ways, by["W"].pay_credits) == (2, 1, 8)  # W W: the wild's own way
    # K: 4 ways (2 × 2 × 1), none made of wilds only; W-W-K pays max(5, wild pay 8) = 8, the other 3 pay 5
    assert (by["K"].count, by["K"].ways, by["K"].pay_credits) == (3, 4, 3 * 5 + 8)
    d["variations"]["x"]["reels"][2] = ["W", "X", "X"]
    game = build(d)
    o = evaluate(game, game.full_bet(), [0, 0, 0])
    by = {w.symbol: w for w in o.wins}
    # W W W pays 50 once as the wild; K's 3 ways through reel 3's wild: K-K-W, K-W-W, W-K-W pay 5; W-W-W is the wild's
    assert (by["W"].count, by["W"].pay_credits) == (3, 50)
    assert (by["K"].ways, by["K"].pay_credits) == (3, 15)


# --------------------------------------------------------------------------- validation paths
def _refused(d: dict) -> GameDefinitionError:
    with pytest.raises(GameDefinitionError) as e:
        build(d)
    return e.value


@pytest.mark.parametrize(
    "base,mutate,path",
    [
        ("lines", lambda d: d["groups"]["any_hl"]["symbols"].__setitem__(1, "QQ"), "groups.any_hl.symbols[1]"),
        ("lines", lambda d: d["groups"]["any_hl"]["symbols"].__setitem__(1, "SC"), "groups.any_hl.symbols[1]"),
        ("lines", lambda d: d["groups"]["any_hl"].update(symbols=["HI"]), "groups.any_hl.symbols"),
        ("lines", lambda d: d["groups"]["any_hl"].update(symbols=["HI", "HI"]), "groups.any_hl.symbols[1]"),
        ("lines", lambda d: d["groups"]["any_hl"].update(pays={3: 4}), "groups.any_hl.pays"),
        ("lines", lambda d: d["groups"]["any_hl"].update(pays={2: 0, 3: 4, 4: 5}), "groups.any_hl.pays[2]"),
        ("lines", lambda d: d["groups"]["any_hl"].pop("pays"), "groups.any_hl.pays"),
        ("lines", lambda d: d["groups"]["any_hl"].update(payz={}), "groups.any_hl.payz"),
        ("lines", lambda d: d["groups"].update(AnyBar=d["groups"]["any_hl"]), "groups.AnyBar"),
        ("lines", lambda d: d["symbols"][0].update(multiplier=2), "symbols[0].multiplier"),
        ("lines", lambda d: d["symbols"][3].update(multiplier=0), "symbols[3].multiplier"),
        ("lines", lambda d: d["symbols"][3].update(multiplier="x2"), "symbols[3].multiplier"),
        ("lines", lambda d: d.update(wild_multiplier_combine="sum"), "wild_multiplier_combine"),
        ("ways", lambda d: d.update(groups={"any_hl": {"symbols": ["HI", "LO"], "pays": {3: 1, 4: 2}}}), "groups.any_hl"),
        ("ways", lambda d: d["symbols"][3].update(multiplier=2), "symbols[3].multiplier"),  # pays and multiplier
        ("ways", lambda d: d.update(wild_multiplier_combine="add"), "wild_multiplier_combine"),
        ("ways", lambda d: d["symbols"][3].update(pays={1: 5, 2: 6, 3: 7, 4: 8}), "symbols[3].pays"),
        ("ways", lambda d: d.update(features={"free_games": {"trigger": {"symbol": "SC", "count": 3}, "games": 5,
                                                             "wild_multipliers": {2: 2}}}),
         "features.free_games.wild_multipliers"),
    ],
)
def test_new_keys_are_refused_with_the_item_path(base, mutate, path):
    d = copy.deepcopy(TINY_LINES_X if base == "lines" else TINY_WAYS_WILD_PAYS)
    mutate(d)
    assert _refused(d).path == path


# --------------------------------------------------------------------------- loading from a file
def test_load_definition_names_the_file_and_checks_the_id():
    text = (DATA / "wild_ways.yaml").read_text()
    assert load_definition(text, "uploads/wild_ways.yaml").id == "wild_ways"
    assert load_definition(text).id == "wild_ways"
    with pytest.raises(GameDefinitionError) as e:
        load_definition(text, "other.yml")
    assert e.value.path == "other.yml:id" and "'wild_ways'" in str(e.value)
    with pytest.raises(GameDefinitionError) as e:
        load_definition(text.replace("{2: 3, 3: 30", "{2: -3, 3: 30"), "wild_ways.yaml")
    assert str(e.value).startswith("wild_ways.yaml:symbols[4].pays[2]: pay must be a positive")
    assert load_game("dragon_pearl_50").id == "dragon_pearl_50"  # the catalogue loads through it


def test_cli_takes_a_file_path_and_reports_its_errors(tmp_path):
    path = str(DATA / "lucky_bars.yaml")
    r = CliRunner().invoke(par, [path, "--json"])
    assert r.exit_code == 0, r.output
    d = json.loads(r.output)
    o = d["options"][-1]
    assert d["game"] == "lucky_bars" and 0 < o["line_hit_frequency"] < o["hit_frequency"] < 1
    assert "any_bar x3" in d["award_probabilities"] and "line/way hit frequency" in d["hit_frequency_labels"]["line_hit_frequency"]
    r = CliRunner().invoke(par, [path])
    assert r.exit_code == 0 and "line hit freq (2)" in r.output and "(1) hit frequency (any win incl. scatter" in r.output
    r = CliRunner().invoke(simulate, [path, "--spins", "50000", "--seed", "3", "--json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["agrees_within_4_se"]
    bad = tmp_path / "lucky_bars.yaml"
    bad.write_text((DATA / "lucky_bars.yaml").read_text().replace("symbols: [BAR1, BAR2, BAR3]", "symbols: [BAR1, BARX]"))
    for cmd in (par, simulate):
        r = CliRunner().invoke(cmd, [str(bad)])
        assert r.exit_code == 1 and "lucky_bars.yaml:groups.any_bar.symbols[1]: unknown symbol 'BARX'" in r.output
    renamed = tmp_path / "sub" / "renamed.yml"
    renamed.parent.mkdir()
    renamed.write_text((DATA / "lucky_bars.yaml").read_text())
    r = CliRunner().invoke(par, [str(renamed)])
    assert r.exit_code == 1 and "renamed.yml:id" in r.output
    r = CliRunner().invoke(par, [str(tmp_path / "missing.yaml")])
    assert r.exit_code == 2 and "cannot read" in r.output


def test_catalogue_hit_frequencies_are_separated_and_consistent():
    for gid in ("dragon_pearl_50", "tiger_reels_243"):
        sheet = par_sheet(load_game(gid))
        for o in sheet.options:
            assert 0 < o.line_hit_frequency < o.hit_frequency
            assert o.trigger_frequency == sheet.free_games.trigger_probability < o.hit_frequency


@pytest.mark.parametrize("name,change", [
    ("double_diamond", lambda d: d["symbols"][0].update(pays={3: 100})),  # top award: SEVEN x3 (wild x4)
    ("lucky_bars", lambda d: d["groups"]["any_seven"].update(pays={3: 500})),  # top award: any_seven x3
])
def test_group_and_multiplied_top_awards_have_their_any_line_probability(name, change):
    from slotsys.floor.domain.evaluator import read_line
    from slotsys.floor.domain.parsheet import _award_key

    d = example_dict(name)
    change(d)
    game = build(d)
    top = par_sheet(game).top_award
    assert "(wild x4)" in top.key or top.key.startswith("any_seven")
    bet = game.full_bet()
    hits = n = 0
    for stops in itertools.product(*(range(len(s)) for s in game.variation().reels)):
        window = evaluate(game, bet, list(stops)).window
        n += 1
        hits += any((b := read_line(game, [window[r][i] for i, r in enumerate(shape)])) is not None
                    and _award_key(b) == top.key for shape in game.lines[: bet.lines])
    assert top.probability == Fraction(hits, n)
