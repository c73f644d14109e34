"""Game definition model: validation, YAML parsing, bet options and the catalogue."""

from __future__ import annotations

import copy
import dataclasses

import pytest
import yaml

from slotsys.domain.game import (
    BetOption,
    GameDefinition,
    GameDefinitionError,
    InvalidBet,
    UnknownVariation,
    parse_game,
)
from slotsys.games import catalogue, load_game

TINY = {
    "id": "tiny_lines",
    "name": "Tiny Lines",
    "kind": "lines",
    "rows": 3,
    "reel_count": 3,
    "symbols": [
        {"id": "HI", "name": "High", "kind": "regular", "pays": {2: 2, 3: 10}},
        {"id": "LO", "name": "Low", "kind": "regular", "pays": {3: 3}},
        {"id": "WD", "name": "Wild", "kind": "wild", "pays": {3: 20}},
        {"id": "SC", "name": "Scatter", "kind": "scatter", "pays": {3: 5}},
    ],
    "bet": {"lines": [1, 3], "multipliers": [1, 2]},
    "lines": [[1, 1, 1], [0, 0, 0], [2, 2, 2]],
    "default_variation": "90",
    "variations": {"90": {"reels": [["HI", "LO", "WD", "SC"], ["LO", "HI", "SC", "WD"], ["HI", "SC", "LO", "WD"]]}},
}

TINY_WAYS = {
    "id": "tiny_ways",
    "name": "Tiny Ways",
    "kind": "reel_cost",
    "rows": 3,
    "reel_count": 3,
    "symbols": [
        {"id": "HI", "name": "High", "kind": "regular", "pays": {3: 10}},
        {"id": "WD", "name": "Wild", "kind": "wild"},
        {"id": "SC", "name": "Scatter", "kind": "scatter", "pays": {3: 5}},
    ],
    "bet": {"reel_costs": {1: 1, 2: 3, 3: 7}, "multipliers": [1, 5]},
    "variations": {"90": {"reels": [["HI", "SC", "WD"], ["HI", "SC", "WD"], ["HI", "SC", "WD", "HI"]]}},
}


def build(d: dict) -> GameDefinition:
    return parse_game(yaml.safe_dump(d, sort_keys=False))


def broken(mutate) -> GameDefinitionError:
    d = copy.deepcopy(TINY)
    mutate(d)
    with pytest.raises(GameDefinitionError) as e:
        build(d)
    return e.value


# --------------------------------------------------------------------------- catalogue
def test_catalogue_holds_both_games_and_caches():
    cat = catalogue()
    assert set(cat) >= {"dragon_pearl_50", "tiger_reels_243"}
    assert load_game("dragon_pearl_50") is cat["dragon_pearl_50"]
    assert load_game("tiger_reels_243") is load_game("tiger_reels_243")
    with pytest.raises(KeyError):
        load_game("no_such_game")
    with pytest.raises(KeyError):
        load_game("../etc/passwd")


def test_dragon_pearl_shape():
    g = load_game("dragon_pearl_50")
    assert (g.kind, g.rows, g.reel_count, g.name) == ("lines", 4, 5, "Dragon Pearl")
    assert g.line_options == (1, 5, 10, 20, 30, 40, 50)
    assert g.multipliers == (1, 2, 3, 5, 10)
    assert len(g.lines) == 50 and len(set(g.lines)) == 50
    assert all(len(ln) == 5 and all(0 <= r < 4 for r in ln) for ln in g.lines)
    assert g.wild is not None and g.wild.pays, "the wild has its own pays"
    assert g.scatter is not None and g.scatter.pays
    two_kind = [s.id for s in g.symbols if s.kind == "regular" and s.min_count == 2]
    assert 1 <= len(two_kind) <= 2
    assert g.default_variation == "94" and "94" in g.variations
    assert all(30 <= len(strip) <= 60 for strip in g.variation().reels)


def test_tiger_reels_shape():
    g = load_game("tiger_reels_243")
    assert (g.kind, g.rows, g.reel_count) == ("reel_cost", 3, 5)
    assert g.reel_costs == ((1, 1), (2, 3), (3, 7), (4, 15), (5, 25))
    assert g.multipliers == (1, 2, 3, 5, 10)
    assert g.centre_row == 1
    assert g.default_variation == "94"
    assert all(30 <= len(strip) <= 60 for strip in g.variation().reels)
    assert [g.ways(g.resolve_bet(reels=b, multiplier=1)) for b in range(1, 6)] == [3, 9, 27, 81, 243]


# --------------------------------------------------------------------------- bets
def test_lines_bet_options_and_credits():
    g = load_game("dragon_pearl_50")
    opts = g.bet_options()
    assert len(opts) == 7 * 5
    assert all(o.credits == o.lines * o.multiplier and o.reels is None for o in opts)
    assert g.full_bet() == BetOption(lines=50, reels=None, multiplier=10, credits=500)
    assert g.resolve_bet(lines=20, reels=None, multiplier=3) == BetOption(20, None, 3, 60)
    assert g.resolve_bet(lines=5, multiplier=2).to_dict() == {"lines": 5, "reels": None, "multiplier": 2, "credits": 10}


def test_reel_cost_bet_options_follow_the_cost_table():
    g = load_game("tiger_reels_243")
    opts = g.bet_options()
    assert len(opts) == 5 * 5
    cost = {1: 1, 2: 3, 3: 7, 4: 15, 5: 25}
    assert all(o.credits == cost[o.reels] * o.multiplier and o.lines is None for o in opts)
    assert g.resolve_bet(lines=None, reels=4, multiplier=5).credits == 75
    assert g.full_bet().credits == 250


@pytest.mark.parametrize(
    "game_id,kwargs,field,message",
    [
        ("dragon_pearl_50", dict(lines=7, multiplier=1), "lines", "lines must be one of 1, 5, 10, 20, 30, 40, 50; got 7"),
        ("dragon_pearl_50", dict(lines=None, multiplier=1), "lines", None),
        ("dragon_pearl_50", dict(lines="50", multiplier=1), "lines", None),
        ("dragon_pearl_50", dict(lines=True, multiplier=1), "lines", None),
        ("dragon_pearl_50", dict(lines=50, reels=5, multiplier=1), "reels", None),
        ("dragon_pearl_50", dict(lines=50, multiplier=4), "multiplier", "multiplier must be one of 1, 2, 3, 5, 10; got 4"),
        ("dragon_pearl_50", dict(lines=50, multiplier=None), "multiplier", None),
        ("dragon_pearl_50", dict(lines=50, multiplier=2.0), "multiplier", None),
        ("tiger_reels_243", dict(reels=6, multiplier=1), "reels", "reels must be one of 1, 2, 3, 4, 5; got 6"),
        ("tiger_reels_243", dict(reels=0, multiplier=1), "reels", None),
        ("tiger_reels_243", dict(reels=None, multiplier=1), "reels", None),
        ("tiger_reels_243", dict(lines=50, reels=5, multiplier=1), "lines", None),
        ("tiger_reels_243", dict(reels=5, multiplier=20), "multiplier", None),
    ],
)
def test_invalid_bets_name_their_field(game_id, kwargs, field, message):
    g = load_game(game_id)
    with pytest.raises(InvalidBet) as e:
        g.resolve_bet(**kwargs)
    assert e.value.field == field
    if message is not None:
        assert e.value.message == message == str(e.value)


def test_check_bet_refuses_foreign_or_forged_options():
    g = load_game("dragon_pearl_50")
    with pytest.raises(InvalidBet) as e:
        g.check_bet(BetOption(lines=50, reels=None, multiplier=10, credits=1))
    assert e.value.field == "multiplier"
    with pytest.raises(InvalidBet) as e:
        g.check_bet(load_game("tiger_reels_243").full_bet())
    assert e.value.field == "reels"


# --------------------------------------------------------------------------- model
def test_definitions_are_frozen():
    g = load_game("dragon_pearl_50")
    with pytest.raises(dataclasses.FrozenInstanceError):
        g.rows = 3  # type: ignore[misc]
    with pytest.raises(TypeError):
        g.variations["99"] = g.variation()  # type: ignore[index]
    with pytest.raises(dataclasses.FrozenInstanceError):
        g.full_bet().credits = 1  # type: ignore[misc]


def test_variations_and_symbols():
    g = build(TINY)
    assert list(g.variations) == ["90"]
    assert g.variation().key == g.variation("90").key == "90"
    with pytest.raises(UnknownVariation) as e:
        g.variation("88")
    assert e.value.path == "variation"
    assert g.symbol("HI").pay(3) == 10 and g.symbol("HI").pay(1) == 0
    assert g.symbol("SC").pay(9) == 5, "a scatter count above the listed ones pays the highest listed"
    ways = build(TINY_WAYS)
    assert ways.default_variation == "90", "a single variation is the default"
    d = ways.to_dict(include_strips=True)
    assert d["reel_costs"] == {1: 1, 2: 3, 3: 7} and d["strips"]["90"][0] == ["HI", "SC", "WD"]


def test_strip_may_be_a_whitespace_separated_string():
    d = copy.deepcopy(TINY)
    d["variations"]["90"]["reels"][0] = "HI LO WD SC"
    assert build(d).variation().reels[0] == ("HI", "LO", "WD", "SC")


# --------------------------------------------------------------------------- validation errors
def test_unknown_symbol_on_a_strip_names_its_path():
    def m(d):
        strip = d["variations"]["90"]["reels"][2]
        strip.extend(["LO"] * 14 + ["QX"])

    e = broken(m)
    assert str(e) == "variations.90.reels[2][18]: unknown symbol 'QX'"
    assert e.path == "variations.90.reels[2][18]" and e.message == "unknown symbol 'QX'"


@pytest.mark.parametrize(
    "mutate,path",
    [
        (lambda d: d.update(kind="cluster"), "kind"),
        (lambda d: d.update(rows=0), "rows"),
        (lambda d: d.update(id="Bad Id"), "id"),
        (lambda d: d.update(colour="red"), "colour"),
        (lambda d: d.pop("name"), "name"),
        (lambda d: d["lines"].append([1, 1, 1]), "lines[3]"),  # duplicate shape
        (lambda d: d["lines"].__setitem__(0, [1, 1, 3]), "lines[0][2]"),  # row out of window
        (lambda d: d["lines"].__setitem__(0, [1, 1]), "lines[0]"),
        (lambda d: d["bet"].update(lines=[1, 4]), "bet.lines"),  # more lines than shapes
        (lambda d: d["bet"].update(lines=[3, 1]), "bet.lines"),
        (lambda d: d["bet"].update(multipliers=[2, 1]), "bet.multipliers"),
        (lambda d: d["bet"].update(multipliers=[0, 1]), "bet.multipliers[0]"),
        (lambda d: d["bet"].update(reel_costs={1: 1, 2: 3, 3: 7}), "bet.reel_costs"),
        (lambda d: d["symbols"][0].update(pays={2: 2}), "symbols[0].pays"),  # not up to reel count
        (lambda d: d["symbols"][0].update(pays={2: 20, 3: 10}), "symbols[0].pays"),  # decreasing
        (lambda d: d["symbols"][0].update(pays={2: 0, 3: 10}), "symbols[0].pays[2]"),
        (lambda d: d["symbols"][0].update(pays={1: 1, 2: 2, 3: 3}), "symbols[0].pays"),
        (lambda d: d["symbols"][1].update(id="HI"), "symbols[1].id"),
        (lambda d: d["symbols"][1].update(kind="bonus"), "symbols[1].kind"),
        (lambda d: d["symbols"][1].update(kind="wild"), "symbols"),  # two wilds
        (lambda d: d["symbols"][3].update(pays={16: 1}), "symbols[3].pays"),  # more scatters than cells
        (lambda d: d.update(default_variation="88"), "default_variation"),
        (lambda d: d["variations"]["90"]["reels"].pop(), "variations.90.reels"),
        (lambda d: d["variations"]["90"]["reels"].__setitem__(0, ["HI", "LO"]), "variations.90.reels[0]"),
        (lambda d: d["variations"]["90"]["reels"][0].__setitem__(1, 7), "variations.90.reels[0][1]"),
        (lambda d: d.update(variations={}), "variations"),
    ],
)
def test_invalid_definitions_are_refused_with_a_path(mutate, path):
    assert broken(mutate).path == path


def test_reel_cost_specific_rules():
    d = copy.deepcopy(TINY_WAYS)
    d["symbols"][1]["pays"] = {3: 5}
    with pytest.raises(GameDefinitionError, match="wild has no pays"):
        build(d)
    d = copy.deepcopy(TINY_WAYS)
    d["bet"]["reel_costs"] = {1: 1, 3: 7}
    with pytest.raises(GameDefinitionError) as e:
        build(d)
    assert e.value.path == "bet.reel_costs"
    d = copy.deepcopy(TINY_WAYS)
    d["rows"] = 4
    d["variations"]["90"]["reels"] = [["HI", "SC", "WD", "HI"]] * 3
    with pytest.raises(GameDefinitionError, match="centre row") as e:
        build(d)
    d = copy.deepcopy(TINY_WAYS)
    d["lines"] = [[1, 1, 1]]
    with pytest.raises(GameDefinitionError) as e:
        build(d)
    assert e.value.path == "lines"


def test_not_yaml_or_not_a_mapping():
    with pytest.raises(GameDefinitionError) as e:
        parse_game("id: [unclosed")
    assert e.value.path == "yaml"
    with pytest.raises(GameDefinitionError) as e:
        parse_game("- just\n- a list\n")
    assert e.value.path == "$"


def test_direct_construction_is_validated_too():
    g = build(TINY)
    with pytest.raises(GameDefinitionError) as e:
        dataclasses.replace(g, rows=2)
    assert e.value.path.startswith("lines[")
