"""What gaming-day accounting needs from outside itself, as Protocols: its unit of work (its own records and the
day's inputs, read from every feature's tables by its adapters) and the floor's exact par sheets.

* :class:`ParSheets` — the process's game library (``slotsys.floor.services.games.GameLibrary``): the exact par
  sheet of a game and paytable variation, as the floor plays it.
* :class:`DayCloseRecords`, :class:`DropRecords` — accounting's own append-only records (``uow.day_close``,
  ``uow.drops``).
* :class:`DaySourceReads` — the day close's inputs (``uow.day_sources``): the machines and their meters, the
  floor's snapshots, the game recall, the ledger, the tickets, jackpot levels, wallets, points, cage drawers
  and kiosks.

Amounts are integer won (milli-won / milli-points where named); time stamps aware UTC. Errors are the kernel's
domain errors.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import date, datetime
from typing import Protocol

from slotsys.accounting.domain.closing import (
    ClosedDay, ClosedMachine, FloorMachine, MeterRead, RecordedCount, RecordedVariance,
)
from slotsys.accounting.domain.day_close import Snapshot
from slotsys.accounting.domain.drop import CountedTicket, DropRule, DropSchedule, ShiftAccount, StackerCount, Variance
from slotsys.kernel.gaming_day import Shift
from slotsys.accounting.domain.liabilities import LevelMeters, PlayerPoints, TicketRecord, WalletRecord
from slotsys.floor.domain.parsheet import ParSheet
from slotsys.kernel.ports import UnitOfWork


class ParSheets(Protocol):
    def par_sheet(self, game_id: str, variation: str | None) -> ParSheet:
        """The exact par sheet of ``game_id`` / ``variation`` (None or "": the game's default). ``NotFound`` for a
        game the library does not have."""
        ...


class DayCloseRecords(Protocol):
    """Meter reads, closed days and their machine rows (``uow.day_close``; insert and read only)."""

    def lock(self) -> None:
        """Serialise reads and closes until the transaction ends."""
        ...

    def read(self, day: date) -> MeterRead | None: ...

    def latest_read(self) -> MeterRead | None: ...

    def read_before(self, day: date) -> MeterRead | None: ...

    def add_read(self, read: MeterRead, machines: Sequence[FloorMachine]) -> None: ...

    def read_snapshots(self, day: date) -> dict[int, tuple[Snapshot, str, str]]:
        """machine id → (snapshot, zone, bank) of the read of ``day``."""
        ...

    def closed(self, day: date) -> ClosedDay | None: ...

    def closed_days(self, first: date, last: date) -> set[date]: ...

    def first_closed_day(self) -> date | None: ...

    def add_closed(self, closed: ClosedDay, machines: Iterable[ClosedMachine]) -> bool:
        """False (nothing written) when the day was closed meanwhile."""
        ...

    def machine_rows(self, day: date, *, zone: str | None = None, bank: str | None = None, asset: str | None = None,
                     after: str | None = None, limit: int | None = None) -> list[ClosedMachine]: ...

    def machine_days(self, asset: str, first: date, last: date) -> dict[date, ClosedMachine]: ...


class DropRecords(Protocol):
    """The drop schedule, stacker counts, variances and acceptances (``uow.drops``; insert and read only)."""

    def schedule(self) -> DropSchedule: ...

    def add_rule(self, asset: str, rule: DropRule, *, by: str, at: datetime, reason: str) -> None: ...

    def add_count(self, count: StackerCount) -> int | None:
        """The new count's id; None when that stacker of that drop day was counted already."""
        ...

    def count(self, count_id: int) -> RecordedCount | None: ...

    def add_variances(self, variances: Iterable[Variance], *, at: datetime, count_id: int | None = None
                      ) -> list[RecordedVariance]: ...

    def variance(self, variance_id: int) -> RecordedVariance | None: ...

    def variances(self, *, state: str | None = None, day: date | None = None, limit: int = 500
                  ) -> list[RecordedVariance]: ...

    def accept(self, variance_id: int, *, by: str, role: str, reason: str, at: datetime) -> bool:
        """False when the variance was accepted meanwhile."""
        ...


class DaySourceReads(Protocol):
    """The day close's inputs (``uow.day_sources``; read only, plus the meter read's lock of the machines)."""

    def consistent(self) -> None:
        """Read what follows from one database snapshot (call first in a read-only transaction)."""
        ...

    def lock_floor(self, *, created_before: datetime) -> list[FloorMachine]: ...

    def machines(self, ids: Iterable[int]) -> dict[int, FloorMachine]: ...

    def asset_exists(self, asset: str) -> bool: ...

    def retired_between(self, after: datetime | None, until: datetime) -> list[int]: ...

    def floor_snapshots(self, machine_ids: Iterable[int], after: datetime | None, until: datetime
                        ) -> dict[int, list[Snapshot]]: ...

    def option_play(self, machine_id: int, first: int, last: int
                    ) -> list[tuple[int | None, int | None, int, int | None, int, int]]:
        """``(lines, reels, multiplier, choice, games, coin-in)`` of the rounds numbered ``first`` … ``last``."""
        ...

    def round_coin_in(self, since: datetime, until: datetime, assets: Sequence[str] | None = None
                      ) -> Iterable[tuple[datetime, int, int]]:
        """``(at, coin-in won, games)`` of the recall's rounds in ``[since, until)``, in time order."""
        ...

    def account_history(self, code: str, since: datetime, until: datetime
                        ) -> tuple[int, list[tuple[datetime, int]]] | None:
        """(normal balance before ``since``, [(entry time, normal-sign movement)] in ``[since, until)``) of one
        ledger account; None when it does not exist."""
        ...

    def level_hits(self, level: str, since: datetime, until: datetime) -> list[tuple[datetime, int, int]]:
        """``(at, amount won, value milli-won)`` of a jackpot level's hits in ``[since, until)``."""
        ...

    def movements(self, since: datetime | None, until: datetime, *, codes_like: str | None = None
                  ) -> list[tuple[str, int, int, int]]:
        """``(code, debits, credits, postings)`` per account of the entries in ``[since, until)``."""
        ...

    def entries(self, since: datetime | None, until: datetime) -> int: ...

    def balances(self, *, codes_like: Sequence[str] = (), codes: Sequence[str] = ()) -> dict[str, int]: ...

    def outstanding_tickets(self, as_of: datetime) -> list[TicketRecord]: ...

    def jackpot_levels(self) -> list[LevelMeters]: ...

    def wallets(self) -> list[WalletRecord]: ...

    def points(self) -> tuple[list[PlayerPoints], int, int]:
        """(players' points, promotional won per point, cash won per point)."""
        ...

    def machine_redemptions(self, asset: str, since: datetime | None, until: datetime) -> list[CountedTicket]: ...

    def drawer_shifts(self, day: date, shifts: Sequence[Shift], until: datetime) -> list[ShiftAccount]: ...

    def kiosk_shifts(self, day: date, shifts: Sequence[Shift]) -> list[ShiftAccount]: ...


class AccountingUnitOfWork(UnitOfWork, Protocol):
    day_close: DayCloseRecords
    drops: DropRecords
    day_sources: DaySourceReads
