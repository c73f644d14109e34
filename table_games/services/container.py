"""The table-games use cases, built once per process by the composition root with the ports they need."""

from __future__ import annotations

from dataclasses import dataclass

from slotsys.kernel.context import ServiceContext
from table_games.services.mahjong import MahjongService
from table_games.services.poker_room import PokerRoomService
from table_games.services.ports import PlayerWallet, TableProgressives
from table_games.services.rounds import RoundService
from table_games.services.settlement import SettlementService
from table_games.services.tables import TableService


@dataclass
class TableGames:
    """Tables and seats, rounds (bets, deal, decisions), settlement; the poker room; mahjong."""

    tables: TableService
    rounds: RoundService
    settlement: SettlementService
    poker: PokerRoomService
    mahjong: MahjongService

    @classmethod
    def build(cls, ctx: ServiceContext, *, wallet: PlayerWallet, progressives: TableProgressives) -> TableGames:
        return cls(tables=TableService(ctx, wallet, progressives), rounds=RoundService(ctx, wallet, progressives),
                   settlement=SettlementService(ctx, wallet, progressives), poker=PokerRoomService(ctx, wallet),
                   mahjong=MahjongService(ctx, wallet))
