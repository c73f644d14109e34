"""The floor's game library: every game a machine may play (the shipped catalogue and the approved uploads), with
its exact RTP and house edge per bet option computed when the game loads, never on the spin path.

One instance per process, built by the composition root (no module global): ``load(game_id)`` returns the validated
:class:`~slotsys.floor.domain.game.GameDefinition` (a shipped game from ``slotsys/floor/games/*.yaml``, else an
approved upload read through the ``uploaded`` source); ``house_edge(game_id, variation, option)`` the option's
1 − RTP (an exact Fraction, never below 0) from the game's par sheet; ``warm()`` loads every shipped game and its
par sheets ahead of play (the web nodes and the worker do it at start, so the first carded spin does not compute a
par sheet with its machine row locked).

A par sheet depends only on the definition, so the figures are kept per definition for the life of the process.
"""

from __future__ import annotations

import threading
from fractions import Fraction
from typing import Callable

import structlog

from slotsys.floor.domain.game import BetOption, GameDefinition
from slotsys.floor.domain.parsheet import ParSheet, par_sheet
from slotsys.floor.games import catalogue as shipped_catalogue
from slotsys.floor.games import load_game as load_shipped
from slotsys.floor.games import valid_id

log = structlog.get_logger("slotsys.floor")

# A memo of a pure function (a par sheet depends only on its immutable definition), kept for the process:
# (id of the definition, variation) → (the definition, kept alive so its id is never reused, its par sheet).
_SHEETS: dict[tuple[int, str], tuple[GameDefinition, ParSheet]] = {}
_SHEETS_LOCK = threading.Lock()


def sheet_of(game: GameDefinition, variation: str | None) -> ParSheet:
    """The exact par sheet of ``game`` / ``variation`` (None: the default), computed once per definition."""
    key = (id(game), variation or game.default_variation)
    hit = _SHEETS.get(key)
    if hit is None or hit[0] is not game:
        hit = (game, par_sheet(game, variation or None))
        with _SHEETS_LOCK:
            _SHEETS[key] = hit
    return hit[1]


class GameLibrary:
    """``uploaded(game_id)`` → the approved uploaded definition or None (the catalogue service's source)."""

    def __init__(self, uploaded: Callable[[str], GameDefinition | None] | None = None) -> None:
        self.uploaded = uploaded
        self._edges: dict[tuple[str, int, str, int | None, int | None], Fraction] = {}

    def load(self, game_id: str) -> GameDefinition:
        """The definition of ``game_id``; ``KeyError`` if no machine may play such a game."""
        try:
            return load_shipped(game_id)
        except KeyError:
            game = self.uploaded(game_id) if self.uploaded is not None and valid_id(game_id) else None
            if game is None:
                raise
            return game

    def catalogue(self) -> dict[str, GameDefinition]:
        """The shipped games by id."""
        return shipped_catalogue()

    def par_sheet(self, game_id: str, variation: str | None) -> ParSheet:
        return sheet_of(self.load(game_id), variation)

    def house_edge(self, game_id: str, variation: str | None, option: BetOption) -> Fraction:
        """1 − RTP of ``option`` on ``game_id`` / ``variation`` (default free-games choice), never below 0. The RTP
        does not depend on the multiplier."""
        game = self.load(game_id)
        v = variation or game.default_variation
        key = (game_id, id(game), v, option.lines, option.reels)
        edge = self._edges.get(key)
        if edge is None:
            rtp = sheet_of(game, v).option(lines=option.lines, reels=option.reels).rtp
            edge = self._edges[key] = max(Fraction(0), 1 - Fraction(rtp))
        return edge

    def warm(self) -> None:
        """Load every shipped game and compute the par sheet of each of its variations."""
        for game in self.catalogue().values():
            for v in game.variations:
                sheet_of(game, v)
        log.info("games.warm", games=len(self.catalogue()))
