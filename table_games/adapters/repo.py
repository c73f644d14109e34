"""The house-banked tables' repository (``uow.tables``, :class:`table_games.services.ports.TableRepository`),
bound to the unit of work's session: rows in, domain records (:mod:`table_games.domain.model`) out."""

from __future__ import annotations

from sqlalchemy import delete, select

from slotsys.kernel.errors import NotFound
from table_games.adapters.base import ByCodeRepo, copied
from table_games.adapters.tables import ColourStack, GameTable, TableBacker, TableBet, TableRound, TableSeat
from table_games.domain import model as M


def _table(row: GameTable) -> M.Table:
    return M.Table(id=row.id, code=row.code, game=row.game, name=row.name, rules=copied(row.rules),
                   limits=copied(row.limits), chip_unit=row.chip_unit, commission_unit=row.commission_unit,
                   status=row.status, round_seq=row.round_seq, shoe_no=row.shoe_no, shoe=copied(row.shoe),
                   progressive_level=row.progressive_level)


def _round(row: TableRound) -> M.Round:
    return M.Round(id=row.id, table_id=row.table_id, number=row.number, status=row.status, mode=row.mode,
                   shoe_no=row.shoe_no, state=copied(row.state), outcome=copied(row.outcome),
                   settlements=copied(row.settlements), house_net=row.house_net, opened_at=row.opened_at,
                   settled_at=row.settled_at)


def _bet(row: TableBet) -> M.PlacedBet:
    return M.PlacedBet(id=row.id, round_id=row.round_id, player_id=row.player_id, spot=row.spot, amount=row.amount,
                       box=row.box, cap=row.cap, entry_id=row.entry_id, colour=row.colour, placed_by=row.placed_by)


def _stack(row: ColourStack) -> M.ColourStack:
    return M.ColourStack(table_id=row.table_id, player_id=row.player_id, colour=row.colour,
                         chip_value=row.chip_value, chips=row.chips)


def _backer(row: TableBacker) -> M.Backer:
    return M.Backer(id=row.id, seat=row.seat, player_id=row.player_id, granted_by_player=row.granted_by_player,
                    granted_by=row.granted_by, granted_at=row.granted_at)


class TableRepo(ByCodeRepo[M.Table]):
    model = GameTable
    noun = "table"

    def record(self, row: GameTable) -> M.Table:
        return _table(row)

    def create(self, table: M.Table) -> M.Table:
        row = self._insert(GameTable(code=table.code, game=table.game, name=table.name, rules=copied(table.rules),
                                     limits=copied(table.limits), chip_unit=table.chip_unit,
                                     commission_unit=table.commission_unit, status=table.status,
                                     round_seq=table.round_seq, shoe_no=table.shoe_no, shoe=copied(table.shoe),
                                     progressive_level=table.progressive_level))
        return _table(row)

    def save(self, table: M.Table) -> None:
        row = self._by_id(table.id)
        row.status, row.round_seq, row.shoe_no = table.status, table.round_seq, table.shoe_no
        row.shoe = copied(table.shoe)
        self.s.flush()

    # ------------------------------------------------------------------ seats and backers
    def seats(self, table_id: int) -> list[M.Seat]:
        return [M.Seat(s.seat, s.player_id)
                for s in self.s.scalars(select(TableSeat).where(TableSeat.table_id == table_id).order_by(TableSeat.seat))]

    def add_seat(self, table_id: int, seat: M.Seat) -> None:
        self._insert(TableSeat(table_id=table_id, seat=seat.seat, player_id=seat.player_id))

    def remove_seat(self, table_id: int, seat: str) -> None:
        self.s.execute(delete(TableSeat).where(TableSeat.table_id == table_id, TableSeat.seat == seat))

    def backers(self, table_id: int, seat: str | None = None) -> list[M.Backer]:
        stmt = select(TableBacker).where(TableBacker.table_id == table_id)
        if seat is not None:
            stmt = stmt.where(TableBacker.seat == seat)
        return [_backer(b) for b in self.s.scalars(stmt.order_by(TableBacker.seat, TableBacker.id))]

    def add_backer(self, table_id: int, backer: M.Backer) -> M.Backer:
        return _backer(self._insert(TableBacker(table_id=table_id, seat=backer.seat, player_id=backer.player_id,
                                                granted_by_player=backer.granted_by_player,
                                                granted_by=backer.granted_by, granted_at=backer.granted_at)))

    def remove_backer(self, backer_id: int) -> None:
        self.s.execute(delete(TableBacker).where(TableBacker.id == backer_id))

    # ------------------------------------------------------------------ rounds and bets
    def round(self, table_id: int, number: int, *, for_update: bool = False) -> M.Round:
        stmt = select(TableRound).where(TableRound.table_id == table_id, TableRound.number == number)
        if for_update:  # lock and reload in one statement
            stmt = stmt.with_for_update().execution_options(populate_existing=True)
        r = self.s.scalar(stmt)
        if r is None:
            raise NotFound(f"no round {number} at this table", field="round")
        return _round(r)

    def rounds(self, table_id: int, *, shoe_no: int | None = None, limit: int = 100) -> list[M.Round]:
        stmt = select(TableRound).where(TableRound.table_id == table_id)
        if shoe_no is not None:
            stmt = stmt.where(TableRound.shoe_no == shoe_no)
        return [_round(r) for r in self.s.scalars(stmt.order_by(TableRound.number.desc()).limit(limit))]

    def add_round(self, rnd: M.Round) -> M.Round:
        return _round(self._insert(TableRound(table_id=rnd.table_id, number=rnd.number, status=rnd.status,
                                              mode=rnd.mode, shoe_no=rnd.shoe_no, state=copied(rnd.state),
                                              opened_at=rnd.opened_at)))

    def save_round(self, rnd: M.Round) -> None:
        row = self.s.get(TableRound, rnd.id)
        if row is None:
            raise NotFound(f"no round {rnd.number} at this table", field="round")
        row.status, row.mode, row.shoe_no, row.house_net = rnd.status, rnd.mode, rnd.shoe_no, rnd.house_net
        row.state, row.outcome, row.settlements = copied(rnd.state), copied(rnd.outcome), copied(rnd.settlements)
        row.settled_at = rnd.settled_at
        self.s.flush()

    def bets(self, round_id: int) -> list[M.PlacedBet]:
        return [_bet(b) for b in self.s.scalars(select(TableBet).where(TableBet.round_id == round_id)
                                                .order_by(TableBet.id))]

    def add_bet(self, bet: M.PlacedBet) -> M.PlacedBet:
        return _bet(self._insert(TableBet(round_id=bet.round_id, player_id=bet.player_id, spot=bet.spot,
                                          box=bet.box, amount=bet.amount, cap=bet.cap, entry_id=bet.entry_id,
                                          colour=bet.colour, placed_by=bet.placed_by)))

    # ------------------------------------------------------------------ roulette colour stacks
    def stacks(self, table_id: int) -> list[M.ColourStack]:
        return [_stack(c) for c in self.s.scalars(select(ColourStack).where(ColourStack.table_id == table_id)
                                                  .order_by(ColourStack.id))]

    def _stack_row(self, table_id: int, player_id: int) -> ColourStack | None:
        return self.s.scalar(select(ColourStack).where(ColourStack.table_id == table_id,
                                                       ColourStack.player_id == player_id))

    def stack(self, table_id: int, player_id: int) -> M.ColourStack | None:
        row = self._stack_row(table_id, player_id)
        return None if row is None else _stack(row)

    def save_stack(self, stack: M.ColourStack) -> None:
        row = self._stack_row(stack.table_id, stack.player_id)
        if row is None:
            self._insert(ColourStack(table_id=stack.table_id, player_id=stack.player_id, colour=stack.colour,
                                     chip_value=stack.chip_value, chips=stack.chips))
        else:
            row.chips = stack.chips
            self.s.flush()

    def remove_stack(self, table_id: int, player_id: int) -> None:
        self.s.execute(delete(ColourStack).where(ColourStack.table_id == table_id,
                                                 ColourStack.player_id == player_id))
