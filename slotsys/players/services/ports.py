"""What the players' use cases need from outside the feature, as Protocols the composition root fills.

* :class:`PlayersUnitOfWork` — the players' repository (``uow.players``) and the machines the carded play happens on
  (``uow.machines``: the floor's repository, through the :class:`Machines` view of it the players need);
* :class:`CashDesk` — TITO's cage: the cashier's open drawer, where cash deposits and withdrawals are taken / paid.

Amounts are integer won; points integer milli-points.
"""

from __future__ import annotations

from typing import Any, Protocol

from slotsys.kernel.ports import UnitOfWork


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


class Machines(Protocol):
    def get(self, asset: str, *, for_update: bool = False) -> MachineView:
        """``NotFound`` (field ``asset``); ``for_update`` takes the machine's row lock (always the first lock)."""
        ...

    def get_by_id(self, machine_id: int) -> MachineView: ...

    def refresh(self, machine: MachineView) -> None: ...

    def credits(self, asset: str) -> Any:
        """The three credit meters (``slotsys.kernel.credits.Credits``)."""
        ...


class PlayersUnitOfWork(UnitOfWork, Protocol):
    players: Any  # slotsys.players.adapters.repo.PlayerRepo
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
    gaming_day_start_hour_utc: int
    redemption_hold_seconds: int
