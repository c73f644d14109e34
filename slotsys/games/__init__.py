"""The demo floor's game catalogue: one YAML file per game in this package (``<game id>.yaml``).

``load_game(game_id)`` and ``catalogue()`` parse and validate each file once (cached).
Errors: ``KeyError`` for an unknown game id; ``GameDefinitionError`` (path prefixed with the file
name) for an invalid file; a file whose ``id`` differs from its name is invalid too.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from slotsys.domain.game import GameDefinition, GameDefinitionError, parse_game

__all__ = ["load_game", "catalogue", "GAMES_DIR"]

GAMES_DIR = Path(__file__).parent
_ID = re.compile(r"^[a-z0-9][a-z0-9_]{0,63}$")


@functools.lru_cache(maxsize=None)
def _load(game_id: str) -> GameDefinition:
    path = GAMES_DIR / f"{game_id}.yaml"
    if not _ID.match(game_id) or not path.is_file():
        raise KeyError(f"unknown game {game_id!r}")
    try:
        game = parse_game(path.read_text(encoding="utf-8"))
    except GameDefinitionError as e:
        raise GameDefinitionError(f"{path.name}:{e.path}", e.message) from None
    if game.id != game_id:
        raise GameDefinitionError(f"{path.name}:id", f"id {game.id!r} does not match the file name")
    return game


def load_game(game_id: str) -> GameDefinition:
    """The validated definition of ``game_id`` (cached). Raises ``KeyError`` if there is no such game."""
    if not isinstance(game_id, str):
        raise KeyError(f"unknown game {game_id!r}")
    return _load(game_id)


def catalogue() -> dict[str, GameDefinition]:
    """Every game in the catalogue by id, sorted by id."""
    return {p.stem: _load(p.stem) for p in sorted(GAMES_DIR.glob("*.yaml"))}
