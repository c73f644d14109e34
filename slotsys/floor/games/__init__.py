"""The shipped game catalogue: one YAML file per game in this package (``<game id>.yaml``).

``load_game(game_id)`` and ``catalogue()`` parse and validate each file once (cached: the files ship with the
code and never change while it runs). Uploaded games are the game library's
(:class:`slotsys.floor.services.games.GameLibrary`). Errors: ``KeyError`` for an unknown game id;
``GameDefinitionError`` (path prefixed with the file name) for an invalid file; a file whose ``id`` differs from
its name is invalid too.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from slotsys.floor.domain.game import GameDefinition, load_definition

__all__ = ["load_game", "catalogue", "GAMES_DIR"]

GAMES_DIR = Path(__file__).parent
_ID = re.compile(r"^[a-z0-9][a-z0-9_]{0,63}$")


@functools.lru_cache(maxsize=None)
def _load(game_id: str) -> GameDefinition:
    path = GAMES_DIR / f"{game_id}.yaml"
    if not _ID.match(game_id) or not path.is_file():
        raise KeyError(f"unknown game {game_id!r}")
    return load_definition(path.read_text(encoding="utf-8"), path.name)


def load_game(game_id: str) -> GameDefinition:
    """The validated definition of the shipped game ``game_id`` (cached). Raises ``KeyError`` if there is none."""
    if not isinstance(game_id, str):
        raise KeyError(f"unknown game {game_id!r}")
    return _load(game_id)


def valid_id(game_id: str) -> bool:
    return isinstance(game_id, str) and bool(_ID.match(game_id))


def catalogue() -> dict[str, GameDefinition]:
    """Every game in the catalogue by id, sorted by id."""
    return {p.stem: _load(p.stem) for p in sorted(GAMES_DIR.glob("*.yaml"))}
