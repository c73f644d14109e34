"""What the slot floor needs from outside itself, as Protocols: its unit of work (the floor's repositories) and the
other features it works with. The composition root (``slotsys.app.bootstrap``) fills each port; the floor imports
no other feature.

* :class:`JackpotPort` — the jackpot controller: a game's wager (contributions, the in-spin fold of the embedded
  floor), zone moves, jackpot handpays waiting in the attendants' queue and their payment.
* :class:`TicketPort` — TITO: the cash-out ticket, a ticket inserted in a machine, the machine's credit limit, the
  SAS validation secret of an enrolled machine, the handpay receipt of cancelled credits.
* :class:`LoyaltyPort` — players: the carded player's points and session meters for a game.
* :class:`Games` — the floor's own game library (:class:`slotsys.floor.services.games.GameLibrary`).

Amounts are integer won. Errors are the kernel's domain errors (``slotsys.kernel.errors``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from fractions import Fraction
from typing import Any, Protocol

from slotsys.floor.domain.game import BetOption, GameDefinition
from slotsys.floor.domain.machine import Machine
from slotsys.kernel.context import Principal
from slotsys.kernel.credits import Credits
from slotsys.kernel.idempotency import Once, OnceKey
from slotsys.kernel.ports import UnitOfWork


# ------------------------------------------------------------------ the floor's repositories
class MachineRepository(Protocol):
    """Machines (``uow.machines``). The machine row is the first lock any transaction takes on a machine."""

    def get(self, asset: str, *, for_update: bool = False) -> Machine:
        """``NotFound`` (field ``asset``) for a machine not on the floor."""
        ...

    def get_by_id(self, machine_id: int) -> Machine: ...

    def get_for_play(self, asset: str) -> tuple[Machine, Credits, bool]:
        """The machine locked, then its three credit meters and whether a player is carded in on it."""
        ...

    def credits(self, asset: str) -> Credits: ...

    def by_key_hash(self, key_hash: str) -> Machine | None: ...

    def all(self, *, include_retired: bool = False) -> list[Machine]: ...

    def add(self, machine: Machine) -> Machine: ...

    def add_meters(self, machine: Machine | int, *, set_values: dict | None = None, **deltas: int) -> None:
        """Add ``deltas`` (won / counts) to the meters and set ``set_values``, in one statement."""
        ...

    def zones(self) -> list[Any]: ...

    def ensure_zone(self, code: str, name: str) -> None: ...


class GameRoundRepository(Protocol):
    """The game recall (``uow.rounds``; GLI-11: the last games of a machine with their outcome)."""

    def add(self, **row: Any) -> None: ...

    def recent(self, machine_id: int, limit: int = 10) -> list[Any]: ...


class FloorUnitOfWork(UnitOfWork, Protocol):
    machines: MachineRepository
    rounds: GameRoundRepository
    machine_events: Any  # slotsys.floor.adapters.event_log.MachineEventRepo
    floor_events: Any  # slotsys.floor.adapters.events.FloorEventsRepo (links, alerts, handpays)
    meter_reports: Any  # slotsys.floor.adapters.meter_reports.MachineMeterReportRepo
    floor_admin: Any  # slotsys.floor.adapters.admin.FloorAdminRepo (zones, banks, snapshots, the plan)
    game_definitions: Any  # slotsys.floor.adapters.game_definitions.GameDefinitionRepo (uploads)


# ------------------------------------------------------------------ other features
@dataclass(frozen=True)
class HandpayHit:
    """A jackpot hit whose machine is locked for a handpay (``amount`` won)."""

    id: int
    machine_id: int
    amount: int
    created_at: datetime


class JackpotPort(Protocol):
    def on_wager(self, uow: Any, machine: Machine, bet_won: int, game_number: int, outcome: Any) -> tuple[list[dict], int]:
        """Record the game's wager (``outcome.progressive``: the progressive keys the game reported) in the caller's
        transaction; returns (this wager's awards decided in this transaction, won credited to the machine now)."""
        ...

    def move_machine(self, uow: Any, asset: str, zone: str, actor: str) -> None:
        """The machine's jackpot eligibility follows it to ``zone`` at each level's next reset."""
        ...

    def levels_in_zone(self, uow: Any, zone: str) -> list[str]:
        """Codes of the jackpot levels whose eligibility names ``zone``."""
        ...

    def handpay_hits(self, uow: Any) -> list[HandpayHit]:
        """The hits waiting for a handpay."""
        ...

    def pay_handpay(self, uow: Any, hit_id: int, signer: str) -> dict:
        """Pay the hit's handpay in cash from the cage in the caller's transaction; the machine unlocks."""
        ...


class TicketPort(Protocol):
    def cash_out(self, uow: Any, machine: Machine) -> dict:
        """One ticket per credit type for the locked ``machine``'s credits; ``HandpayRequired`` above the ticket
        limit, ``Conflict`` with no credits."""
        ...

    def ticket_in(self, principal: Principal, asset: str, validation_number: object, key: OnceKey) -> Once:
        """Credit a ticket onto the machine exactly once (the single-call form of the two-phase ticket-in)."""
        ...

    def credit_limit(self, machine: Machine) -> int:
        """The machine's credit limit in won (0 = none)."""
        ...

    def new_machine_secret(self, uow: Any, machine: Machine, *, actor: str, reason: str) -> int:
        """Draw the machine's SAS secure-enhanced validation ID and sequence start; returns the new generation."""
        ...

    def handpay_receipt(self, uow: Any, machine: Machine, attendant: str) -> dict:
        """Pay the machine's cashable credits by hand with a handpay receipt (the cancelled-credit handpay)."""
        ...


class LoyaltyPort(Protocol):
    def on_game(self, uow: Any, machine: Machine, option: BetOption, *, coin_in: int, coin_out: int, jackpot_out: int,
                now: datetime, carded: bool, games: int, cashable_coin_in: int, promotional_coin_in: int,
                house_edge: Fraction | None) -> dict | None:
        """The carded player's session meters and points for ``games`` games (``house_edge`` of the option played,
        for theoretical win); None when no player is carded in."""
        ...


class Games(Protocol):
    def load(self, game_id: str) -> GameDefinition:
        """``KeyError`` for a game no machine may play."""
        ...

    def catalogue(self) -> dict[str, GameDefinition]: ...

    def house_edge(self, game_id: str, variation: str | None, option: BetOption) -> Fraction: ...
