"""What the table-games use cases need from outside the feature, as Protocols the composition root fills.

**Storage.** The unit of work (:class:`slotsys.kernel.ports.UnitOfWork`) with this feature's repositories
(registered in ``table_games.adapters.uow``): :class:`TablesUnitOfWork` (``uow.tables``: the house-banked tables,
seats, backers, rounds, bets and roulette colour stacks), :class:`PokerRoomUnitOfWork` (``uow.poker_tables``) and
:class:`MahjongUnitOfWork` (``uow.mahjong_tables``). Repositories return the records of
:mod:`table_games.domain.model` and store changed ones; a ``for_update`` read locks the row (lock order at a
table: table row → round row → progressive level → player row → ledger accounts).

**Other features.** :class:`PlayerWallet` -- the players' cashable wallet, debited for a table and credited from
it inside the caller's transaction; :class:`TableProgressives` -- the jackpot controller's ``table`` levels that
a progressive side bet feeds and pays from. Both take the caller's unit of work: they never commit.

Money is integer won (``value_milli``: milli-won); errors are the kernel's (``slotsys.kernel.errors``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from slotsys.kernel.ports import UnitOfWork
from table_games.domain.model import (
    Backer, ColourStack, MahjongHand, MahjongSeat, MahjongTable, PlacedBet, PokerHand, PokerSeat, PokerTable, Round,
    Seat, Table,
)
from table_games.domain.poker_table import ProgressiveAward


# ------------------------------------------------------------------------------------------ repositories
class TableRepository(Protocol):
    """The house-banked tables. ``NotFound`` (field ``code`` / ``round``) for a missing table or round."""

    def get(self, code: str, *, for_update: bool = False) -> Table: ...

    def find(self, code: str) -> Table | None: ...

    def all(self) -> list[Table]:
        """Every table, by code."""
        ...

    def create(self, table: Table) -> Table:
        """Store a new table (its ``id`` is ignored); returns it with its id."""
        ...

    def save(self, table: Table) -> None:
        """Store the table's status, round counter and baccarat shoe."""
        ...

    def seats(self, table_id: int) -> list[Seat]:
        """The occupied seats, by seat."""
        ...

    def add_seat(self, table_id: int, seat: Seat) -> None: ...

    def remove_seat(self, table_id: int, seat: str) -> None: ...

    def backers(self, table_id: int, seat: str | None = None) -> list[Backer]:
        """The backing permissions at the table (or one seat), by seat then as granted."""
        ...

    def add_backer(self, table_id: int, backer: Backer) -> Backer:
        """Store a permission (its ``id`` is ignored); returns it with its id."""
        ...

    def remove_backer(self, backer_id: int) -> None: ...

    def round(self, table_id: int, number: int, *, for_update: bool = False) -> Round: ...

    def rounds(self, table_id: int, *, shoe_no: int | None = None, limit: int = 100) -> list[Round]:
        """The latest ``limit`` rounds (of one baccarat shoe), newest first."""
        ...

    def add_round(self, rnd: Round) -> Round:
        """Store a new round (its ``id`` is ignored); returns it with its id."""
        ...

    def save_round(self, rnd: Round) -> None:
        """Store the round's status, mode, shoe number, state, outcome, settlements, house net, settlement time."""
        ...

    def bets(self, round_id: int) -> list[PlacedBet]:
        """The round's bets, as placed."""
        ...

    def add_bet(self, bet: PlacedBet) -> PlacedBet:
        """Store a new bet (its ``id`` is ignored); returns it with its id."""
        ...

    def stacks(self, table_id: int) -> list[ColourStack]:
        """The roulette colour stacks at the table, as bought."""
        ...

    def stack(self, table_id: int, player_id: int) -> ColourStack | None: ...

    def save_stack(self, stack: ColourStack) -> None:
        """Store the player's stack at the table (a new one, or its chip count)."""
        ...

    def remove_stack(self, table_id: int, player_id: int) -> None:
        """Free the player's colour (an empty stack)."""
        ...


class PokerRoomRepository(Protocol):
    """The poker room's tables, seats and hands. ``NotFound`` (field ``code`` / ``hand``)."""

    def get(self, code: str, *, for_update: bool = False) -> PokerTable: ...

    def find(self, code: str) -> PokerTable | None: ...

    def all(self) -> list[PokerTable]: ...

    def create(self, table: PokerTable) -> PokerTable: ...

    def save(self, table: PokerTable) -> None:
        """Store the table's button and hand counter."""
        ...

    def seats(self, table_id: int) -> list[PokerSeat]:
        """The occupied seats, by seat number."""
        ...

    def add_seat(self, table_id: int, seat: PokerSeat) -> None: ...

    def remove_seat(self, table_id: int, seat: int) -> None: ...

    def hand(self, table_id: int, number: int) -> PokerHand: ...

    def hands(self, table_id: int, limit: int = 50) -> list[PokerHand]:
        """The latest hands, newest first."""
        ...

    def add_hand(self, hand: PokerHand) -> PokerHand: ...

    def save_hand(self, hand: PokerHand) -> None:
        """Store the hand's actions and, once complete, its result (status, PHH, stacks, rake, entry, end)."""
        ...


class MahjongRepository(Protocol):
    """The mahjong tables, seats and recorded hands. ``NotFound`` (field ``code`` / ``number``)."""

    def get(self, code: str, *, for_update: bool = False) -> MahjongTable: ...

    def find(self, code: str) -> MahjongTable | None: ...

    def all(self) -> list[MahjongTable]: ...

    def create(self, table: MahjongTable) -> MahjongTable: ...

    def save(self, table: MahjongTable) -> None:
        """Store the table's hand counter and the riichi sticks it carries."""
        ...

    def seats(self, table_id: int) -> list[MahjongSeat]:
        """The occupied seats, by seat."""
        ...

    def add_seat(self, table_id: int, seat: MahjongSeat) -> None: ...

    def remove_seat(self, table_id: int, seat: str) -> None: ...

    def hand(self, table_id: int, number: int) -> MahjongHand: ...

    def hands(self, table_id: int, limit: int = 100) -> list[MahjongHand]:
        """The latest hands, newest first."""
        ...

    def add_hand(self, hand: MahjongHand) -> MahjongHand:
        """Store a hand (one per table and number); returns it with its id and time recorded."""
        ...


class TablesUnitOfWork(UnitOfWork, Protocol):
    tables: TableRepository


class PokerRoomUnitOfWork(UnitOfWork, Protocol):
    poker_tables: PokerRoomRepository


class MahjongUnitOfWork(UnitOfWork, Protocol):
    mahjong_tables: MahjongRepository


# ------------------------------------------------------------------------------------------ other features
class PlayerWallet(Protocol):
    """A player's wallet on the ledger, moved inside the caller's unit of work (one balanced journal entry per
    call, the player's row locked first; the caller commits). Amounts are integer won.

    Errors: ``NotFound`` (field ``player_id``) for an unknown player, ``NotFound`` for an unknown table
    account, ``InsufficientFunds`` (field ``amount``) when the cashable wallet holds less than a debit,
    ``ValidationFailed`` (field ``amount``) for a non-positive amount."""

    def require_player(self, uow: Any, player_id: int) -> None:
        """The player is enrolled (``NotFound`` otherwise)."""
        ...

    def open(self, uow: Any, player_id: int) -> None:
        """Open the player's wallet accounts (idempotent)."""
        ...

    def balances(self, uow: Any, player_id: int) -> dict[str, int]:
        """``{"cashable": won, "promo": won}`` (0 for a wallet never opened)."""
        ...

    def debit_for_table(self, uow: Any, player_id: int, table_account: str, amount: int, *,
                        refs: Mapping[str, Any] | None = None) -> int:
        """A bet or buy-in: cashable wallet → ``table_account``. Returns the journal entry id."""
        ...

    def credit_from_table(self, uow: Any, player_id: int, table_account: str, amount: int, *,
                          refs: Mapping[str, Any] | None = None) -> int:
        """A win or cash-out: ``table_account`` → cashable wallet. Returns the journal entry id."""
        ...

    def transfer(self, uow: Any, *, player_id: int, counter_account: str, amount: int,
                 direction: Literal["in", "out"], kind: str, refs: Mapping[str, Any] | None = None) -> int:
        """``out``: cashable wallet → ``counter_account`` (the player spends); ``in``: the reverse. ``kind`` names
        the journal entry (e.g. ``poker.buy_in``). Returns the journal entry id."""
        ...


@dataclass(frozen=True)
class ProgressiveLevel:
    """A jackpot level as the tables see it: its code, kind (``table`` for a table progressive), the meter
    (milli-won), the cycle (awards since it was created) and whether it is paused."""

    code: str
    kind: str
    value_milli: int
    cycle: int
    paused: bool


class TableLevels(Protocol):
    """The jackpot controller's ``table`` levels (a progressive side bet's meter), looked up and created inside the
    caller's unit of work. Errors: ``NotFound`` / ``Conflict`` (field ``progressive_level``) for a missing level or
    one that is not a table level."""

    def find(self, uow: Any, code: str) -> ProgressiveLevel | None:
        """The level (any kind), or None."""
        ...

    def table_level(self, uow: Any, code: str, *, for_update: bool = False) -> ProgressiveLevel:
        """The ``table`` level ``code``; ``for_update`` locks it (after the table and round rows)."""
        ...

    def create_table_level(self, uow: Any, *, code: str, name: str, reset: int, ceiling: int, rate_ppm: int) -> None:
        """A new ``table`` level: the meter restarts at ``reset`` won after a 100% award; ``rate_ppm`` of each
        stake feeds it; ``ceiling`` (won) bounds it."""
        ...


class TableProgressives(TableLevels, Protocol):
    """The table progressives a round settles on: its stakes feed the meter, its qualifying hands are paid."""

    def settle_round(self, uow: Any, code: str, *, stakes: Sequence[int], awards: Sequence[ProgressiveAward],
                     refs: Mapping[str, Any]) -> dict[str, Any]:
        """One round's progressive on level ``code``: every stake in play (won) contributes its share to the
        meter, then the ``awards`` (best line first) are paid into the players' wallets, in this transaction.
        Returns what the round records: ``{"level", "cycle", "meter_before", "meter_after" (won),
        "contributed_milli", "awards": [{"player_id", "box", "hand", "amount", "from_meter", "from_house",
        "meter", "cycle", "entry"} (+ "meter_ppm", "shared_by" for a share of the meter)]}``."""
        ...

    def announce(self, *, force: bool) -> None:
        """After the commit: show the meters' new values on signage (``force``: at once, after an award)."""
        ...
