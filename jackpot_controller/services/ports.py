"""What the jackpot controller's use cases need from outside the feature, as Protocols.

* :class:`JackpotUnitOfWork`: the kernel's unit of work (ledger, idempotency) plus ``levels``, this feature's
  repository (:class:`LevelRepository`; its SQL implementation is registered by
  ``jackpot_controller.adapters.uow``). Every method runs in the caller's transaction.
* :class:`MachinePort`: the slot floor's machines — locking a winner's row, crediting a bonus to its credit
  meter, its jackpot meter, the handpay / verification locks, the game recall, its zone and bank. Filled by
  the composition root (``slotsys.app.wiring.jackpots``) from the floor's records.
* :class:`CardedPlayers`: who is carded in on a machine (player tracking), for the hit record.
* :class:`TableWallet`: the players' cashless wallet, which receives table progressive awards.
* :class:`Lease`: who folds in the ``process`` sequencer mode (one active sequencer per floor).

Lock order (docs/architecture.md "Lock order", kept by every use case): spin: machine row → account rows;
fold: level rows (id order) → the winners' machine rows KEY SHARE → account rows; award / handpay: machine row
→ hit row → account rows; verification: level row → machine row → hit row → account rows.

Money is integer won, meters integer milli-won.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from datetime import datetime
from typing import Any, Callable, Iterable, Mapping, Protocol, Sequence

from jackpot_controller.domain.levels import LevelParams
from jackpot_controller.domain.pool import Pool
from jackpot_controller.domain.records import Hit, JackpotEvent, Level, MachineState
from slotsys.kernel.ports import UnitOfWork

Publish = Callable[[str, str], None]
"""``publish(channel, message)``: the live channel (Redis pub/sub in production, in-process otherwise)."""


class RecordedWager(Protocol):
    """A wager waiting in the sequencer's queue (``bet_won`` won; ``progressive`` the level keys its outcome
    won, comma-separated)."""

    id: int
    machine_id: int
    asset: str
    bank: str | None
    zone: str
    bet_won: int
    progressive: str | None
    game_number: int


class LevelRepository(Protocol):
    """Levels, the sequencer's queue, hits, the event log and zone moves (``uow.levels``).

    Lock order inside: level rows (id order) before hit rows. Reads return frozen records
    (:mod:`jackpot_controller.domain.records`); changes go through the methods below."""

    # -- levels
    def all(self) -> list[Level]: ...

    def lock_all(self) -> list[Level]:
        """Every level, row-locked in id order (the sequencer's and the operators' lock), read afresh."""
        ...

    def get(self, code: str, *, for_update: bool = False) -> Level | None: ...

    def by_id(self, level_id: int) -> Level | None: ...

    def create(self, *, code: str, name: str, params: LevelParams, value_milli: int, trigger_milli: int,
               seeded_won: int) -> Level:
        """A new level at cycle 1 with ``params`` (validated by the caller), its meters at ``value_milli``."""
        ...

    def save_pools(self, pools: Iterable[Pool]) -> None:
        """Store each pool's meters on its level (rows locked by :meth:`lock_all` or ``get(for_update=True)``);
        a pool whose cycle moved on also stores its new parameters and clears the pending change."""
        ...

    def update_level(self, level_id: int, *, name: str | None = None, pending: dict[str, Any] | None = None,
                     pending_at: datetime | None = None, paused: bool | None = None, value_milli: int | None = None,
                     trigger_milli: int | None = None) -> Level:
        """Set the given fields (None: unchanged) of a locked level; returns it as it now is."""
        ...

    def add_overflow(self, level_id: int, milli: int) -> Level:
        """Add ``milli`` (≥ 0) milli-won to a locked level's overflow pool."""
        ...

    def codes_in_zone(self, zone: str) -> list[str]:
        """Codes of the levels whose eligibility names ``zone``."""
        ...

    # -- the sequencer's queue
    def record_wager(self, *, defer: bool = False, machine_id: int, asset: str, zone: str, bank: str,
                     game_number: int, bet_won: int, progressive: str, created_at: datetime) -> None:
        """One INSERT in the spin's transaction; ``defer``: it may go with the COMMIT (write-behind)."""
        ...

    def has_pending(self) -> bool: ...

    def pending_wagers(self, limit: int) -> Sequence[RecordedWager]:
        """Up to ``limit`` unfolded wagers in id order (the fold order)."""
        ...

    def pending_count(self) -> int: ...

    def oldest_pending_at(self) -> datetime | None: ...

    def add_fold(self, *, wagers: int, first_wager: int, last_wager: int, hits: int, created_at: datetime) -> int:
        """A fold record; returns its id (the fold order)."""
        ...

    def set_fold_entry(self, fold_id: int, entry_id: int | None) -> None: ...

    def mark_folded(self, ids: list[int], fold_id: int) -> int:
        """Mark exactly these wagers folded (only those still unfolded); returns how many were."""
        ...

    # -- hits
    def add_hit(self, **values: Any) -> Hit:
        """A new hit (the columns of :class:`~jackpot_controller.domain.records.Hit` but ``id``); at most one
        per level and cycle (the store refuses a second)."""
        ...

    def hit(self, hit_id: int, *, for_update: bool = False) -> Hit | None: ...

    def update_hit(self, hit_id: int, **changes: Any) -> Hit:
        """Set fields of a hit (names of :class:`~jackpot_controller.domain.records.Hit`); returns it as it
        now is. Raises ``ValueError`` for an unknown field."""
        ...

    def recent_hits(self, level_id: int | None = None, limit: int = 25) -> list[Hit]: ...

    def hits_with_status(self, statuses: tuple[str, ...], *, before: datetime | None = None,
                         machine_id: int | None = None, limit: int = 500) -> list[Hit]: ...

    def locks_waiting_on(self, machine_id: int) -> list[Hit]:
        """The machine's hits in ``handpay`` / ``verification``, oldest first, including this transaction's
        own changes."""
        ...

    def open_claims(self, since: datetime) -> dict[int, list[int]]:
        """Amounts (won) of hits still open (hit / claimed) since ``since``, by level id, oldest first."""
        ...

    def unpaid_by_level(self) -> dict[int, int]:
        """Won decided but not yet paid (statuses ``UNPAID``), by level id."""
        ...

    def jackpot_out_by_machine(self, since: datetime) -> dict[int, int]:
        """Won of the hits decided since ``since``, by machine id (the floor's "today" jackpot out)."""
        ...

    # -- the event log and zone moves
    def add_event(self, **values: Any) -> None:
        """One event (the fields of :class:`~jackpot_controller.domain.records.JackpotEvent` but ``id``)."""
        ...

    def events(self, limit: int = 100, level_code: str | None = None) -> list[JackpotEvent]: ...

    def zone_moves(self) -> dict[int, list[tuple[datetime, str]]]:
        """Each moved machine's zone history (since, zone), oldest first."""
        ...

    def add_zone_move(self, *, machine_id: int, zone: str, since: datetime, by: str) -> None: ...


class JackpotUnitOfWork(UnitOfWork, Protocol):
    levels: LevelRepository


class MachinePort(Protocol):
    """The slot floor's machines, in the caller's transaction. Errors: ``NotFound`` for an unknown machine
    (``field="asset"`` when looked up by asset number)."""

    # -- awards, handpays, verification (lock order: the machine row first)
    def lock_for_award(self, uow: Any, machine_id: int) -> MachineState:
        """Take the machine's row lock (FOR UPDATE) and return its state read after the lock."""
        ...

    def current(self, uow: Any, machine_id: int) -> MachineState:
        """The machine as this transaction sees it, taking no lock (the spin already holds it)."""
        ...

    def credit_bonus(self, uow: Any, machine: MachineState, amount_won: int, *, source_account: str, kind: str,
                     description: str, memo: str, refs: Mapping[str, Any]) -> int:
        """Credit ``amount_won`` (> 0) to the machine's cashable credit meter from ``source_account``: one
        journal entry of ``kind`` (Dr source / Cr the machine's credits); returns its id."""
        ...

    def add_jackpot_meter(self, uow: Any, machine_id: int, amount_won: int) -> None:
        """Add ``amount_won`` to the machine's jackpot meter (SAS "jackpot", won)."""
        ...

    def set_lock(self, uow: Any, machine_id: int, status: str, reason: str | None) -> None:
        """Set the machine's status (``active``, ``handpay`` or ``verification``) and its lock reason
        (None: keep the current one)."""
        ...

    def record_award_on_round(self, uow: Any, machine_id: int, game_number: int, award: Mapping[str, Any]) -> None:
        """Show ``award`` ({hit, level, name, amount, status, pay_method}) in the game's recall (GLI-11:
        "any progressive awarded"), replacing an earlier line of the same hit. A game not on file: nothing."""
        ...

    # -- the fold (lock order: level rows → these → accounts)
    def key_share(self, uow: Any, machine_ids: Sequence[int]) -> None:
        """Lock the machines' rows FOR KEY SHARE in id order (what the hits' foreign keys take)."""
        ...

    # -- where machines are
    def lock_by_asset(self, uow: Any, asset: str) -> MachineState:
        """Take the machine's row lock by asset number (``NotFound`` naming ``asset``)."""
        ...

    def move_to_zone(self, uow: Any, machine_id: int, zone: str) -> None:
        """Put a locked machine in ``zone`` (an existing zone)."""
        ...

    def zone_exists(self, uow: Any, zone: str) -> bool: ...

    def bank_exists(self, uow: Any, bank: str) -> bool: ...

    def asset_exists(self, uow: Any, asset: str) -> bool: ...

    def machine_id(self, uow: Any, asset: str) -> int:
        """The id of the machine with asset number ``asset`` (``NotFound`` naming ``asset``), taking no lock."""
        ...

    def assets(self, uow: Any, machine_ids: Iterable[int]) -> dict[int, str]:
        """Asset numbers by machine id (every id given must exist)."""
        ...


class CardedPlayers(Protocol):
    def player_on(self, uow: Any, machine_id: int) -> int | None:
        """The id of the player carded in on the machine (an open session), or None."""
        ...


class TableWallet(Protocol):
    def pay_table_award(self, uow: Any, player_id: int, from_account: str, amount_won: int, *,
                        refs: Mapping[str, Any]) -> int:
        """Pay ``amount_won`` (> 0) from ``from_account`` into the player's cashable wallet: one journal entry;
        returns its id. ``NotFound`` for an unknown player, ``ValidationFailed`` for a bad amount."""
        ...


class Lease(Protocol):
    """One holder at a time across the floor (a PostgreSQL advisory lock; always granted on SQLite)."""

    def try_acquire(self) -> bool: ...

    def alive(self) -> bool:
        """Whether the lease is still held (its session still answers)."""
        ...

    def release(self) -> None: ...

    def held_once(self) -> AbstractContextManager[bool]:
        """Take the lease if it is free for one piece of work; yields whether it was."""
        ...
