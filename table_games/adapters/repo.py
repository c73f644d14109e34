"""Repository over the table-games tables (bound to the unit of work's session)."""

from __future__ import annotations

from sqlalchemy import select

from slotsys.kernel.errors import NotFound
from table_games.adapters.base import ByCodeRepo
from table_games.adapters.tables import ColourStack, GameTable, TableBacker, TableBet, TableRound, TableSeat


class TableRepo(ByCodeRepo):
    model = GameTable
    noun = "table"

    def seats(self, table_id: int) -> list[TableSeat]:
        return list(self.s.scalars(select(TableSeat).where(TableSeat.table_id == table_id).order_by(TableSeat.seat)))

    def round(self, table_id: int, number: int, *, for_update: bool = False) -> TableRound:
        stmt = select(TableRound).where(TableRound.table_id == table_id, TableRound.number == number)
        if for_update:  # lock and reload in one statement
            stmt = stmt.with_for_update().execution_options(populate_existing=True)
        r = self.s.scalar(stmt)
        if r is None:
            raise NotFound(f"no round {number} at this table", field="round")
        return r

    def rounds(self, table_id: int, *, shoe_no: int | None = None, limit: int = 100) -> list[TableRound]:
        stmt = select(TableRound).where(TableRound.table_id == table_id)
        if shoe_no is not None:
            stmt = stmt.where(TableRound.shoe_no == shoe_no)
        return list(self.s.scalars(stmt.order_by(TableRound.number.desc()).limit(limit)))

    def bets(self, round_id: int) -> list[TableBet]:
        return list(self.s.scalars(select(TableBet).where(TableBet.round_id == round_id).order_by(TableBet.id)))

    def stacks(self, table_id: int) -> list[ColourStack]:
        return list(self.s.scalars(select(ColourStack).where(ColourStack.table_id == table_id).order_by(ColourStack.id)))

    def stack(self, table_id: int, player_id: int) -> ColourStack | None:
        return self.s.scalar(select(ColourStack).where(ColourStack.table_id == table_id,
                                                       ColourStack.player_id == player_id))

    def backers(self, table_id: int, seat: str | None = None) -> list[TableBacker]:
        stmt = select(TableBacker).where(TableBacker.table_id == table_id)
        if seat is not None:
            stmt = stmt.where(TableBacker.seat == seat)
        return list(self.s.scalars(stmt.order_by(TableBacker.seat, TableBacker.id)))
