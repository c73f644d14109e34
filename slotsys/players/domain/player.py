"""A player of the club and a carded session at a machine: the domain objects the players' use cases work with.

The adapters map them onto the ``players`` and ``player_sessions`` tables (SQLAlchemy imperative mapping in
``slotsys/players/adapters/tables.py``), so this module imports no SQLAlchemy. Points are integer milli-points
(1 point = 1,000), money integer won, theoretical win integer milli-won.

* :class:`Player`: ``tier_code`` and the tier progress ``tier_points_milli`` (base points; the tier only goes up),
  ``points_milli`` (= the sum of the player's points journal) of which ``points_held_milli`` are held by pending
  machine redemptions, ``last_activity_at`` (points expire after the program's idle days), ``enrolled_at``.
* :class:`PlayerSession`: a carded session: ``status`` open | closed, the accrual rule in force at card-in
  (``rule_scope``, ``rule_basis``, ``rule_won_per_point``), the machine's meters at card-in (``start_*``) and
  card-out (``end_*``), and the session's own counters accumulated game by game (an audit compares them with the
  machine meters' change).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone


def _now() -> datetime:
    return datetime.now(timezone.utc)


@dataclass(eq=False)
class Player:
    name: str
    tier_code: str
    tier_points_milli: int = 0
    points_milli: int = 0
    points_held_milli: int = 0
    last_activity_at: datetime = field(default_factory=_now)
    enrolled_at: datetime = field(default_factory=_now)
    id: int | None = None  # the database's


@dataclass(eq=False)
class PlayerSession:
    """A carded session at a machine. ``start_*`` / ``end_*`` snapshot the machine's meters at
    card-in / card-out; the counters are accumulated game by game, so an audit can compare them
    with the machine meters' change."""
    player_id: int
    card_id: int
    machine_id: int
    started_at: datetime
    rule_scope: str
    rule_basis: str
    rule_won_per_point: int
    start_coin_in: int
    start_coin_out: int
    start_jackpot_out: int
    start_games_played: int
    start_games_won: int
    status: str = "open"
    ended_at: datetime | None = None
    last_game_at: datetime | None = None
    ended_by: str = ""
    end_coin_in: int | None = None
    end_coin_out: int | None = None
    end_jackpot_out: int | None = None
    end_games_played: int | None = None
    end_games_won: int | None = None
    coin_in: int = 0
    coin_out: int = 0
    jackpot_out: int = 0
    games_played: int = 0
    games_won: int = 0
    theo_milli: int = 0
    points_milli: int = 0
    id: int | None = None  # the database's
