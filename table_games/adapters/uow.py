"""The table games' repositories, registered with the unit of work by the composition root: ``uow.tables`` (the
house-banked tables), ``uow.poker_tables`` (the poker room), ``uow.mahjong_tables`` (mahjong)."""

from table_games.adapters.mahjong import MahjongRepo
from table_games.adapters.poker_room import PokerRepo
from table_games.adapters.repo import TableRepo

REPOSITORIES = {"tables": TableRepo, "poker_tables": PokerRepo, "mahjong_tables": MahjongRepo}
