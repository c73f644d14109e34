"""What the players' use cases need from outside the feature, as Protocols the composition root fills.

* :class:`PlayersUnitOfWork` — the players' repository (``uow.players``: :class:`PlayerRepository`) and the machines the carded play happens on
  (``uow.machines``: the floor's repository, through the :class:`Machines` view of it the players need);
* :class:`CashDesk` — TITO's cage: the cashier's open drawer, where cash deposits and withdrawals are taken / paid.

Amounts are integer won; points integer milli-points.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any, Protocol

from slotsys.kernel.ports import UnitOfWork
from slotsys.players.domain.player import Player, PlayerSession


class MachineView(Protocol):
    """What the players read of a machine: identity, game, state and meters (won / counts)."""

    id: int
    asset_number: str
    zone: str
    game_id: str
    variation: str
    status: str
    lock_reason: str
    coin_in: int
    coin_out: int
    jackpot_out: int
    games_played: int
    games_won: int
    outcome_source: str  # server | machine (a SAS machine decides and reports its own games)
    sas_meter_base: Any  # None until a SAS host first enrolled the machine
    denomination: int


class Machines(Protocol):
    def get(self, asset: str, *, for_update: bool = False) -> MachineView:
        """``NotFound`` (field ``asset``); ``for_update`` takes the machine's row lock (always the first lock)."""
        ...

    def get_by_id(self, machine_id: int) -> MachineView: ...

    def refresh(self, machine: MachineView) -> None: ...

    def credits(self, asset: str) -> Any:
        """The three credit meters (``slotsys.kernel.credits.Credits``)."""
        ...


class PlayerRepository(Protocol):
    """``uow.players``: the club's records. Players and sessions are domain objects
    (:mod:`slotsys.players.domain.player`); cards (:class:`CardRecord`), the program (:class:`ProgramSettings`),
    tiers, accrual rules, redemptions, transfers, ratings and journal rows are records whose fields the use cases
    read and set in the unit of work (the commit writes them). ``for_update`` takes the row lock (lock order:
    machine → player → redemption → ledger accounts)."""

    # configuration
    def program(self) -> ProgramSettings:
        """``NotFound`` when the program is not configured."""
        ...

    def program_exists(self) -> bool: ...

    def tiers(self) -> list[Any]:
        """Tiers (``code``, ``name``, ``threshold_points``, ``multiplier_permille``) by threshold."""
        ...

    def tier(self, code: str) -> Any | None: ...

    def rules(self) -> list[Any]:
        """Accrual rules (``scope``, ``key``, ``basis``, ``won_per_point``)."""
        ...

    def rule(self, scope: str, key: str) -> Any | None: ...

    # inserts
    def add(self, obj: Any) -> Any:
        """A new :class:`~slotsys.players.domain.player.Player` or ``PlayerSession``, its ``id`` assigned (an open
        session on a machine or of a player that has one violates a unique index)."""
        ...

    def new(self, record: str, /, **fields: Any) -> Any:
        """A new record (``program``, ``tier``, ``rule``, ``card``, ``redemption``, ``transfer``, ``rating``) with
        ``fields``, its ``id`` assigned."""
        ...

    def add_journal(self, **fields: Any) -> Any:
        """A points-journal row: ``player_id``, ``kind``, ``points_milli`` (signed, never 0),
        ``balance_after_milli``, the session / rating / redemption / entry it comes from, ``memo``, ``created_at``."""
        ...

    # players and cards
    def get(self, player_id: int, *, for_update: bool = False) -> Player:
        """``NotFound`` (field ``player_id``) for a player not enrolled."""
        ...

    def by_names(self, names: list[str]) -> list[Player]: ...

    def card(self, card_number: str, *, for_update: bool = False) -> CardRecord | None: ...

    def card_exists(self, card_number: str) -> bool: ...

    def card_by_id(self, card_id: int) -> CardRecord:
        """The card as it is now (the caller holds the locks that make it current)."""
        ...

    def refresh(self, obj: Any) -> None:
        """Read a record the caller just locked again."""
        ...

    def cards_of(self, player_id: int) -> list[CardRecord]: ...

    def card_event(self, card: CardRecord, kind: str, by: str, at: datetime, **detail: Any) -> None:
        """Log a card's security event (issued, pin_failed, pin_throttled, blocked, lost, unblock, replaced)."""
        ...

    def idle_players(self, before: datetime) -> list[int]:
        """Ids of players holding points whose last activity is at or before ``before``."""
        ...

    # sessions
    def open_session_for_machine(self, machine_id: int) -> PlayerSession | None: ...

    def open_session_for_player(self, player_id: int) -> PlayerSession | None: ...

    def sessions_of(self, player_id: int, limit: int = 50) -> list[tuple[PlayerSession, MachineView]]:
        """The player's sessions, newest first, each with its machine (asset number and meters now)."""
        ...

    # points and redemptions
    def journal(self, player_id: int, limit: int = 100) -> list[Any]: ...

    def redemption(self, redemption_id: int, *, for_update: bool = False) -> Any | None: ...

    def stale_holds(self, player_id: int, now: datetime) -> list[Any]:
        """The player's pending redemptions whose hold expired at or before ``now`` (locked)."""
        ...

    def live_held_milli(self, player_id: int, now: datetime) -> int:
        """Milli-points held by the player's pending redemptions not yet expired."""
        ...

    # transfers and ratings
    def transferred_on(self, player_id: int, day: date, direction: str) -> int:
        """Won the player moved in ``direction`` (to_machine | to_wallet) on gaming day ``day``, with the AFT
        transfers still pending or sent."""
        ...

    # AFT transfers at SAS machines (records: ``transaction_id``, ``player_id``, ``machine_id``, ``session_id``,
    # ``direction``, ``amount_won``, ``moved_won``, ``state``, ``status_code``, ``reason``, ``gaming_day``,
    # ``requested_by``, ``created_at``, ``expires_at``, ``sent_at``, ``settled_at``, ``hold_entry_id``,
    # ``settle_entry_id``; made with ``new("aft", ...)``, a reused transaction ID violating a unique index)
    def aft(self, transfer_id: int, *, for_update: bool = False) -> Any | None: ...

    def aft_by_transaction(self, transaction_id: str, *, for_update: bool = False) -> Any | None: ...

    def aft_open(self, machine_id: int, *, for_update: bool = False) -> list[Any]:
        """The machine's AFT transfers pending or sent, oldest first."""
        ...

    def aft_stale_machines(self, now: datetime) -> list[int]:
        """Ids of machines with a pending AFT transfer past its ``expires_at``."""
        ...

    def aft_totals(self, machine_id: int) -> dict[str, int]:
        """The machine's completed AFT transfers: ``aft_in`` / ``aft_out`` (won moved), ``aft_in_count`` /
        ``aft_out_count``."""
        ...

    def transfers_of(self, player_id: int, limit: int = 50) -> list[tuple[Any, str]]:
        """The player's transfers, newest first, each with its machine's asset number."""
        ...

    def ratings_of(self, player_id: int, limit: int = 50) -> list[Any]: ...

    # player tokens
    def add_token(self, token_hash: str, player_id: int, expires_at: datetime) -> None: ...

    def player_for_token(self, token_hash: str, now: datetime) -> int | None:
        """The player of an unexpired token (by its SHA-256 digest), or None."""
        ...


class PlayersUnitOfWork(UnitOfWork, Protocol):
    players: PlayerRepository
    machines: Machines


class CashDesk(Protocol):
    def open_drawer_account(self, uow: Any, cashier: str) -> str:
        """The ledger account of ``cashier``'s open drawer session; ``Conflict`` (``no-open-drawer-session``, field
        ``drawer``) when the cashier has none."""
        ...


class CardRecord(Protocol):
    """A player card as the use cases read and change it (``status`` active | lost | blocked | replaced)."""

    id: int
    card_number: str
    player_id: int
    status: str
    pin_hash: str
    pin_failures: int
    pin_last_failure_at: Any
    status_changed_at: Any


class ProgramSettings(Protocol):
    """The loyalty program's settings (one record): idle days, redemption rates (won per point), transfer limits
    (won), the gaming day's start hour (UTC) and the machine redemption hold (seconds)."""

    points_idle_days: int
    promo_won_per_point: int
    cash_won_per_point: int
    per_transfer_max_won: int
    daily_to_machine_max_won: int
    daily_to_wallet_max_won: int
    redemption_hold_seconds: int
