"""Checking an uploaded definition (slotsys.floor.domain.game_upload): every error names the field and the YAML line."""

from __future__ import annotations

from pathlib import Path

import pytest

from slotsys.floor.domain.game_upload import MAX_DEFINITION_CHARS, check_definition, definition_sha256, line_of
from slotsys.floor.games import GAMES_DIR

LUCKY = (Path(__file__).parents[1] / "data" / "games" / "lucky_three.yaml").read_text(encoding="utf-8")


def _line(text: str, needle: str) -> int:
    return next(i for i, ln in enumerate(text.splitlines(), 1) if needle in ln)


def test_the_catalogue_and_the_test_game_pass():
    for path in sorted(GAMES_DIR.glob("*.yaml")):
        game, errors = check_definition(path.read_text(encoding="utf-8"))
        assert errors == [] and game.id == path.stem
    game, errors = check_definition(LUCKY)
    assert errors == [] and game.id == "lucky_three" and list(game.variations) == ["76", "81"]


@pytest.mark.parametrize("old,new,field,needle", [
    ("SEVEN, CHERRY, BELL, BAR, CHERRY, BELL, BAR, SEVEN", "SEVEN, CHERRY, QX, BAR, CHERRY, BELL, BAR, SEVEN",
     "variations.81.reels[2][2]", "QX"),
    ("pays: {3: 20}", "pays: {3: -20}", "symbols[1].pays[3]", "-20"),
    ("kind: lines", "kind: spirals", "kind", "spirals"),
    ("  - [0, 0, 0]", "  - [0, 0, 7]", "lines[1][2]", "[0, 0, 7]"),
    ("multipliers: [1, 2]", "multipliers: [2, 1]", "bet.multipliers", "multipliers: [2, 1]"),
])
def test_an_error_names_its_field_and_the_line_it_is_written_on(old, new, field, needle):
    text = LUCKY.replace(old, new)
    assert text != LUCKY
    game, errors = check_definition(text)
    assert game is None and len(errors) == 1
    assert errors[0]["field"] == field, errors
    assert errors[0]["line"] == _line(text, needle), errors


def test_yaml_syntax_errors_empty_and_oversized_texts():
    _, errors = check_definition(LUCKY.replace("rows: 3\n", "rows: [3\n"))
    assert errors[0]["field"] == "yaml" and errors[0]["line"] == _line(LUCKY, "rows: 3") + 1
    assert check_definition("  \n")[1][0]["field"] == "definition"
    assert check_definition("a: 1\n" * (MAX_DEFINITION_CHARS // 5 + 1))[1][0]["field"] == "definition"
    _, errors = check_definition("!!python/object/apply:os.system ['true']\n")  # never constructed: safe_load
    assert errors[0]["field"] == "yaml"


def test_line_of_follows_dotted_variation_keys_and_stops_at_the_deepest_node():
    text = 'variations:\n  "94.5":\n    reels:\n      - A B C\n'
    assert line_of(text, "variations.94.5.reels[0]") == 4
    assert line_of(text, "variations.94.5.reels[0][2]") == 4  # inside a whitespace-separated strip: its line
    assert line_of(text, "variations.93") == 2  # no such key: where its parent mapping begins
    assert line_of("a: [", "a") is None
    assert definition_sha256("x") == "2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881"
