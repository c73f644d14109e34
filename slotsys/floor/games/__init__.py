"""The demo floor's game catalogue: one YAML file per game in this package (``<game id>.yaml``).

``load_game(game_id)`` and ``catalogue()`` parse and validate each file once (cached). ``load_game`` falls back to
the source installed with ``set_uploaded_source`` (the approved uploaded games,
``slotsys.floor.services.catalogue.UploadedGames``) for an id that is not in the catalogue.
Errors: ``KeyError`` for an unknown game id; ``GameDefinitionError`` (path prefixed with the file
name) for an invalid file; a file whose ``id`` differs from its name is invalid too.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Callable

from slotsys.floor.domain.game import GameDefinition, load_definition

__all__ = ["load_game", "catalogue", "set_uploaded_source", "GAMES_DIR"]

GAMES_DIR = Path(__file__).parent
_ID = re.compile(r"^[a-z0-9][a-z0-9_]{0,63}$")
_uploaded: Callable[[str], GameDefinition | None] | None = None


def set_uploaded_source(source: Callable[[str], GameDefinition | None] | None) -> None:
    """Install the fallback of :func:`load_game` for ids outside the catalogue: ``source(game_id)`` returns the
    approved uploaded definition or None (the composition root installs it; None removes it)."""
    global _uploaded
    _uploaded = source


@functools.lru_cache(maxsize=None)
def _load(game_id: str) -> GameDefinition:
    path = GAMES_DIR / f"{game_id}.yaml"
    if not _ID.match(game_id) or not path.is_file():
        raise KeyError(f"unknown game {game_id!r}")
    return load_definition(path.read_text(encoding="utf-8"), path.name)


def load_game(game_id: str) -> GameDefinition:
    """The validated definition of ``game_id`` (cached): a catalogue game, else an approved uploaded one. Raises
    ``KeyError`` if there is no such game."""
    if not isinstance(game_id, str):
        raise KeyError(f"unknown game {game_id!r}")
    try:
        return _load(game_id)
    except KeyError:
        source = _uploaded
        game = source(game_id) if source is not None and _ID.match(game_id) else None
        if game is None:
            raise
        return game


def catalogue() -> dict[str, GameDefinition]:
    """Every game in the catalogue by id, sorted by id."""
    return {p.stem: _load(p.stem) for p in sorted(GAMES_DIR.glob("*.yaml"))}
