"""The table games by name: ``GAMES[name]`` is the game's engine (:mod:`table_games.domain.engines`), the one
interface the table framework plays every game through -- rules from a table's stored variant, bet validation,
the deal and the decisions, the outcome from the CSPRNG or the dealer's input, settlement and replay of any
recorded round. ``TABLE_GAMES``: the names, in the order the floor lists them."""

from __future__ import annotations

from table_games.domain.engines import GAMES, TABLE_GAMES
from table_games.domain.engines.base import GameEngine

__all__ = ["GAMES", "TABLE_GAMES", "GameEngine"]
