"""Glue between the table games and the features they use: the players' wallet and the jackpot controller's
table progressives, behind the ports ``table_games.services.ports`` declares. Translation only: every rule stays
with the feature that owns it.

* :class:`TableWallet` -- :class:`~table_games.services.ports.PlayerWallet` over
  :class:`slotsys.players.services.wallet.WalletService` and the players repository (``uow.players``);
* :class:`ControllerTableLevels` -- :class:`~table_games.services.ports.TableLevels` over the controller's levels
  (``uow.levels``, :func:`jackpot_controller.services.table.table_level`, ``create_level``);
* :class:`ControllerTableProgressives` -- :class:`~table_games.services.ports.TableProgressives`: also a round's
  contributions and awards (:meth:`jackpot_controller.services.table.TableProgressives.settle_round_in`) and the
  meters shown on signage after the commit (the controller's signage service).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from jackpot_controller.domain.levels import LevelParams
from jackpot_controller.services.container import JackpotServices
from jackpot_controller.services.levels import create_level
from jackpot_controller.services.table import TableAward, table_level
from slotsys.kernel.context import ServiceContext
from slotsys.players.services.wallet import WalletService
from table_games.domain.poker_table import ProgressiveAward
from table_games.services.ports import ProgressiveLevel


class TableWallet:
    """The players' wallet, as the tables use it (see :class:`~table_games.services.ports.PlayerWallet`)."""

    @staticmethod
    def require_player(uow: Any, player_id: int) -> None:
        uow.players.get(player_id)

    @staticmethod
    def open(uow: Any, player_id: int) -> None:
        WalletService.open(uow, player_id)

    @staticmethod
    def balances(uow: Any, player_id: int) -> dict[str, int]:
        return WalletService.balances(uow, player_id)

    @staticmethod
    def debit_for_table(uow: Any, player_id: int, table_account: str, amount: int, *,
                        refs: Mapping[str, Any] | None = None) -> int:
        return WalletService.debit_for_table(uow, player_id, table_account, amount, refs=dict(refs or {}))

    @staticmethod
    def credit_from_table(uow: Any, player_id: int, table_account: str, amount: int, *,
                          refs: Mapping[str, Any] | None = None) -> int:
        return WalletService.credit_from_table(uow, player_id, table_account, amount, refs=dict(refs or {}))

    @staticmethod
    def transfer(uow: Any, *, player_id: int, counter_account: str, amount: int, direction: Literal["in", "out"],
                 kind: str, refs: Mapping[str, Any] | None = None) -> int:
        return WalletService.transfer(uow, player_id=player_id, counter_account=counter_account, amount=amount,
                                      direction=direction, kind=kind, refs=dict(refs or {}))


def _level(row: Any) -> ProgressiveLevel:
    return ProgressiveLevel(code=row.code, kind=row.kind, value_milli=row.value_milli, cycle=row.cycle,
                            paused=row.paused)


class ControllerTableLevels:
    """The controller's ``table`` levels (see :class:`~table_games.services.ports.TableLevels`); a new level's
    opening draw uses the context's CSPRNG."""

    def __init__(self, ctx: ServiceContext) -> None:
        self.ctx = ctx

    @staticmethod
    def find(uow: Any, code: str) -> ProgressiveLevel | None:
        row = uow.levels.get(code)
        return None if row is None else _level(row)

    @staticmethod
    def table_level(uow: Any, code: str, *, for_update: bool = False) -> ProgressiveLevel:
        return _level(table_level(uow, code, for_update=for_update))

    def create_table_level(self, uow: Any, *, code: str, name: str, reset: int, ceiling: int, rate_ppm: int) -> None:
        create_level(uow, code=code, name=name, rng=self.ctx.rng,
                     params=LevelParams(kind="table", reset=reset, ceiling=ceiling, rate_ppm=rate_ppm))


class ControllerTableProgressives(ControllerTableLevels):
    """The table progressives a round settles on (see :class:`~table_games.services.ports.TableProgressives`)."""

    def __init__(self, ctx: ServiceContext, jackpots: JackpotServices) -> None:
        super().__init__(ctx)
        self.jackpots = jackpots

    def settle_round(self, uow: Any, code: str, *, stakes: Sequence[int], awards: Sequence[ProgressiveAward],
                     refs: Mapping[str, Any]) -> dict[str, Any]:
        claims = [TableAward(int(a.player), a.box, a.hand, a.meter_ppm, a.fixed, a.shared_by, a.bet.id)
                  for a in awards]
        return self.jackpots.tables.settle_round_in(uow, code, stakes=list(stakes), awards=claims,
                                                    refs=dict(refs)).model_dump(mode="json")

    def announce(self, *, force: bool) -> None:
        self.jackpots.signage.publish_meters(force=force)
