"""Game definition model: validation, YAML parsing, bet options and the catalogue."""

from __future__ import annotations

import copy
import json
import dataclasses

import pytest
import yaml

from slotsys.floor.domain.game import (
    BetOption,
    GameDefinition,
    GameDefinitionError,
    InvalidBet,
    UnknownVariation,
    parse_game,
)
from slotsys.floor.games import catalogue, load_game

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
    assert g.default_variation == "92" and list(g.variations) == ["88", "92", "95"]
    for key in g.variations:
        v = g.variation(key)
        assert all(40 <= len(strip) <= 80 for strip in v.reels + v.free_reels)
        stacked = {s for strip in v.reels for a, b in zip(strip, strip[1:] + strip[:1]) if a == b for s in [a]}
        assert {"DRAGON", "PHOENIX", "KOI"} <= stacked, "stacked symbols on the base strips"
        extra_wilds = [sum(x == "PEARL" for x in strip) for strip in v.free_reels]
        assert sum(extra_wilds) > sum(sum(x == "PEARL" for x in strip) for strip in v.reels), "free games: extra wilds"
    fg = g.free_games
    assert (fg.symbol, fg.count, fg.retrigger, len(fg.choices)) == ("GONG", 3, True, 1)
    assert [p.to_dict() for p in g.progressives] == [{"level": "DRAGON_GRAND", "symbol": "JACKPOT", "count": 5, "min_bet": "max"}]
    assert g.symbol("JACKPOT").kind == "bonus" and g.max_award_credits == 2_500_000


def test_tiger_reels_shape():
    g = load_game("tiger_reels_243")
    assert (g.kind, g.rows, g.reel_count) == ("reel_cost", 3, 5)
    assert g.reel_costs == ((1, 1), (2, 3), (3, 7), (4, 15), (5, 25))
    assert g.multipliers == (1, 2, 3, 5, 10)
    assert g.centre_row == 1
    assert g.default_variation == "92" and list(g.variations) == ["88", "92", "95"]
    assert all(30 <= len(strip) <= 80 for strip in g.variation().reels)
    fg = g.free_games
    assert [c.games_for(3) for c in fg.choices] == [20, 15, 10, 8, 5]
    assert fg.choices[0].wild_multipliers == (1, 2, 3, 5, 1) and fg.default_choice == 0
    assert [c.wild_multipliers[3] for c in fg.choices] == sorted(c.wild_multipliers[3] for c in fg.choices)
    assert g.resolve_choice(None) == 0 and g.resolve_choice(4) == 4
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
        (lambda d: d["symbols"][1].update(kind="cluster"), "symbols[1].kind"),
        (lambda d: d["symbols"][1].update(kind="bonus"), "symbols[1].pays"),  # a bonus symbol pays nothing
        (lambda d: d["symbols"][0].update(pays={2: -2, 3: 10}), "symbols[0].pays[2]"),  # negative pay
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
    assert build(d).wild.pays == ((3, 5),)  # a ways game's wild may pay on its own
    d["symbols"][1]["multiplier"] = 2
    with pytest.raises(GameDefinitionError, match="either its own pays or a multiplier") as e:
        build(d)
    assert e.value.path == "symbols[1].multiplier"
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


# --------------------------------------------------------------------------- features and bad input
FEATURED = {
    **copy.deepcopy(TINY),
    "id": "tiny_featured",
    "symbols": TINY["symbols"] + [{"id": "JP", "name": "Jackpot", "kind": "bonus"}],
    "features": {
        "free_games": {"trigger": {"symbol": "SC", "count": 2}, "games": {2: 3, 3: 5}, "win_multiplier": 2,
                       "retrigger": True},
        "progressive": [{"level": "GRAND", "symbol": "JP", "count": 3, "min_bet": "max"},
                        {"level": "MINOR", "symbol": "JP", "count": 2, "min_bet": 2}],
    },
    "max_award_credits": 5000,
    "variations": {"90": {"reels": ["HI LO WD SC JP LO LO", "LO HI SC WD JP HI HI", "HI SC LO WD JP LO LO"],
                          "free_reels": ["HI*3 WD SC LO LO HI LO", "LO WD*2 HI SC LO LO HI LO",
                                         "HI SC LO WD LO LO HI LO LO"]}},
}


def test_features_parse_with_stacks_choices_progressives_and_award_guard():
    g = build(FEATURED)
    v = g.variation()
    assert v.free_reels[0][:6] == ("HI", "HI", "HI", "WD", "SC", "LO") and v.free_strips is v.free_reels
    fg = g.free_games
    assert (fg.symbol, fg.count, fg.retrigger, fg.has_choice) == ("SC", 2, True, False)
    ch = fg.choices[0]
    assert ch.games == ((2, 3), (3, 5)) and ch.games_for(9) == 5 and ch.games_for(1) == 0 and ch.win_multiplier == 2
    assert [p.level for p in g.progressives] == ["GRAND", "MINOR"]
    full = g.full_bet()
    assert g.qualifies(g.progressives[0], full) and not g.qualifies(g.progressives[0], g.bet_options()[0])
    assert g.qualifies(g.progressives[1], g.resolve_bet(lines=1, multiplier=2))
    assert g.max_award_credits == 5000
    d = json.loads(json.dumps(g.to_dict(include_strips=True)))
    assert d["free_games"]["trigger"] == {"symbol": "SC", "count": 2} and d["max_award_credits"] == 5000
    assert d["free_strips"]["90"][0][:3] == ["HI", "HI", "HI"]
    with pytest.raises(InvalidBet) as e:
        g.resolve_choice(1)
    assert e.value.field == "choice"


def test_choices_and_wild_substitution_sets():
    d = copy.deepcopy(TINY_WAYS)
    d["symbols"] = [{"id": "HI", "pays": {3: 10}}, {"id": "LO", "pays": {3: 2}},
                    {"id": "WD", "kind": "wild", "substitutes": ["HI"]}, {"id": "SC", "kind": "scatter", "pays": {3: 5}}]
    d["variations"] = {"90": {"reels": ["HI LO SC WD", "HI LO SC WD", "HI LO WD SC HI"]}}
    d["features"] = {"free_games": {"trigger": {"symbol": "SC", "count": 3}, "default_choice": 1, "retrigger": False, "choices": [
        {"name": "many", "games": 10, "wild_multipliers": {2: 2}},
        {"name": "few", "games": 3, "wild_multipliers": [1, 5, 1]}]}}
    g = build(d)
    assert g.substitutable() == frozenset({"HI"})
    assert g.symbol("WD").to_dict()["substitutes"] == ["HI"]
    fg = g.free_games
    assert fg.has_choice and fg.default_choice == 1 and [c.name for c in fg.choices] == ["many", "few"]
    assert fg.choices[0].wild_multipliers == (1, 2, 1) and fg.choices[1].wild_multipliers == (1, 5, 1)
    assert g.resolve_choice(None) == 1 and g.resolve_choice(0) == 0
    for bad in (2, -1, True, "0", 1.0):
        with pytest.raises(InvalidBet) as e:
            g.resolve_choice(bad)
        assert e.value.field == "choice"


def _featured(mutate) -> GameDefinitionError:
    d = copy.deepcopy(FEATURED)
    mutate(d)
    with pytest.raises(GameDefinitionError) as e:
        build(d)
    return e.value


@pytest.mark.parametrize(
    "mutate,path,message",
    [
        # unknown symbol on a free-game strip (the stack notation expands first)
        (lambda d: d["variations"]["90"]["free_reels"].__setitem__(1, "LO WD*2 QX"), "variations.90.free_reels[1][3]",
         "unknown symbol 'QX'"),
        # a ragged window
        (lambda d: (d.pop("rows"), d.pop("reel_count"), d.update(window=[3, 3, 4])), "window[2]", "ragged window"),
        # a line outside the window
        (lambda d: d["lines"].__setitem__(2, [2, 2, 3]), "lines[2][2]", "row must be an integer 0..2"),
        # a negative pay
        (lambda d: d["symbols"][3].update(pays={3: -5}), "symbols[3].pays[3]", "positive"),
        # a feature that can never end: every free game retriggers at least once on average
        (lambda d: d["variations"]["90"].update(free_reels=["SC HI LO", "SC LO HI", "SC WD LO"]), "features.free_games.games",
         "can never end"),
        (lambda d: d["features"]["free_games"]["trigger"].update(symbol="HI"), "features.free_games.trigger.symbol",
         "scatter"),
        (lambda d: d["features"]["free_games"].update(games={1: 3}), "features.free_games.games", "trigger count"),
        (lambda d: d["features"]["free_games"].update(games=0), "features.free_games.games[2]", "1..1000"),
        (lambda d: d["features"]["free_games"].update(win_multiplier=0), "features.free_games.win_multiplier", "positive"),
        (lambda d: d["features"]["free_games"].update(wild_multipliers={2: 3}), "features.free_games.wild_multipliers",
         "ways"),
        (lambda d: d["features"]["free_games"].update(extra=1), "features.free_games.extra", "unknown key"),
        (lambda d: d["features"]["progressive"][0].update(symbol="HI"), "features.progressive[0].symbol", "bonus"),
        (lambda d: d["features"]["progressive"][1].update(level="GRAND"), "features.progressive[1].level", "duplicate"),
        (lambda d: d["features"]["progressive"][0].update(count=4), "features.progressive[0].count", "1..3"),
        (lambda d: d.update(max_award_credits=0), "max_award_credits", "positive"),
        (lambda d: d["symbols"][2].update(substitutes=["SC"]), "symbols[2].substitutes[0]", "scatter"),
        (lambda d: d["symbols"][0].update(substitutes=["LO"]), "symbols[0].substitutes", "only a wild"),
    ],
)
def test_bad_feature_definitions_name_the_place(mutate, path, message):
    e = _featured(mutate)
    assert e.path == path and message in e.message, str(e)


def test_cost_table_must_increase_and_name_its_place():
    d = copy.deepcopy(TINY_WAYS)
    d["bet"]["reel_costs"] = {1: 1, 2: 7, 3: 3}
    with pytest.raises(GameDefinitionError) as e:
        build(d)
    assert e.value.path == "bet.reel_costs" and "ascending" in e.value.message


def test_window_key_is_an_alternative_to_rows_and_reel_count():
    d = copy.deepcopy(TINY)
    d.pop("rows")
    d.pop("reel_count")
    d["window"] = [3, 3, 3]
    g = build(d)
    assert (g.rows, g.reel_count) == (3, 3)
    d["rows"] = 4
    with pytest.raises(GameDefinitionError) as e:
        build(d)
    assert e.value.path == "rows"


def test_an_invalid_catalogue_file_never_loads(tmp_path, monkeypatch):
    """A definition with an error is refused by the loader the floor uses, naming file and place."""
    import slotsys.floor.games as games

    text = (games.GAMES_DIR / "tiger_reels_243.yaml").read_text().replace("TIGER*3", "QX*3", 1)
    (tmp_path / "broken_tiger.yaml").write_text(text.replace("id: tiger_reels_243", "id: broken_tiger"))
    monkeypatch.setattr(games, "GAMES_DIR", tmp_path)
    games._load.cache_clear()
    try:
        with pytest.raises(GameDefinitionError) as e:
            games.load_game("broken_tiger")
        assert e.value.path.startswith("broken_tiger.yaml:variations.88.reels[") and "unknown symbol 'QX'" in str(e.value)
    finally:
        games._load.cache_clear()
