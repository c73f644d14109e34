"""Tables and seats at the house-banked games: create and list tables, open / close them, seat players (with their
wallet), let spectators back a seated player's box, roulette colour chips, the house edges, the demo floor.

Roles: operator creates and closes tables; pit (and operator) seat players, manage backers and colour chips;
pit / operator / auditor / host read; a player with their own token manages who backs their seat. Errors:
``NotFound`` (404), ``Conflict`` (409: table closed, seat taken, table exists), ``ValidationFailed`` /
``TableRuleError`` (422), ``Forbidden`` (403), ``InsufficientFunds`` (409, from the wallet).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Callable

from slotsys.kernel import accounts
from slotsys.kernel.checks import require_role
from slotsys.kernel.context import Principal
from slotsys.kernel.errors import Conflict, Forbidden, NotFound, ValidationFailed
from slotsys.kernel.idempotency import Once, OnceKey, run_once
from table_games.domain import baccarat, bigwheel, blackjack, caribbean, holdem_bonus, house_edges, paigow
from table_games.domain import roulette, sicbo, three_card
from table_games.domain.engines.base import ColourChipGame
from table_games.domain.errors import TableRuleError
from table_games.domain.games import GAMES, TABLE_GAMES
from table_games.domain.limits import TableLimits
from table_games.domain.model import TABLE_STATUSES, Backer, ColourStack, Seat, Table
from table_games.services.common import (
    DEALER_ROLES, MANAGER_ROLES, READ_ROLES, TableGamesService, engine, rules_of, table_accounts,
)
from table_games.services.ports import TableLevels, TablesUnitOfWork
from table_games.services.results import BackersView, ColourBought, ColourCashed, TableList, TableView


@dataclass(frozen=True)
class NewTable:
    """A table to create: ``game`` (one of :data:`~table_games.domain.games.TABLE_GAMES`), the rules variant and
    limits per spot in their stored form (default: the game's), chip and commission units (won), status, and the
    jackpot controller's ``table`` level its progressive side bet feeds (the ante poker games)."""

    code: str
    game: str
    name: str = ""
    rules: dict[str, Any] | None = None
    limits: dict[str, Any] | None = None
    chip_unit: int = 1_000
    commission_unit: int = 100
    status: str = "open"
    progressive_level: str | None = None


@dataclass(frozen=True)
class ColourBuyIn:
    player_id: int
    colour: str
    chip_value: int
    amount: int


@dataclass(frozen=True)
class ColourCashOut:
    player_id: int
    chips: int | None = None  # None: the whole stack


def new_table(uow: TablesUnitOfWork, levels: TableLevels, spec: NewTable) -> Table:
    """Create a table with its ledger accounts. Rules and limits default to the game's; a game that charges a
    commission rounds it up to the table's commission unit. ``ValidationFailed`` (field ``game`` / ``status`` /
    ``rules`` / ``limits`` / ``progressive_level``); the progressive level must be a jackpot ``table`` level."""
    if spec.game not in GAMES:
        raise ValidationFailed(f"game must be one of {', '.join(TABLE_GAMES)}", field="game")
    if spec.status not in TABLE_STATUSES:
        raise ValidationFailed("status must be open, closed or private", field="status")
    game = GAMES[spec.game]
    try:
        rules = game.table_rules(spec.rules, commission_unit=spec.commission_unit)
        stored = rules.to_dict()
    except (TypeError, ValueError, KeyError) as e:
        raise ValidationFailed(f"rules: {e}", field="rules") from None
    try:
        lim = TableLimits.from_dict(spec.limits) if spec.limits else game.default_limits(rules,
                                                                                         chip_unit=spec.chip_unit)
    except (TypeError, ValueError, KeyError) as e:
        raise ValidationFailed(f"limits: {e}", field="limits") from None
    if lim.chip_unit != spec.chip_unit:
        raise ValidationFailed("limits.chip_unit must equal chip_unit", field="limits")
    if spec.progressive_level is not None:
        if not game.offers_progressive:
            raise ValidationFailed(f"{spec.game} has no progressive side bet", field="progressive_level")
        levels.table_level(uow, spec.progressive_level)
    t = uow.tables.create(Table(id=0, code=spec.code, game=spec.game, name=spec.name or spec.code, rules=stored,
                                limits=lim.to_dict(), chip_unit=spec.chip_unit, commission_unit=spec.commission_unit,
                                status=spec.status, progressive_level=spec.progressive_level))
    table_accounts(uow, spec.code, game)
    return t


class TableService(TableGamesService):
    """Tables, seats, backers and colour chips (see the module doc)."""

    # ------------------------------------------------------------------ tables
    def create(self, principal: Principal, spec: NewTable) -> TableView:
        require_role(principal, *MANAGER_ROLES)
        with self.ctx.uow() as uow:
            if uow.tables.find(spec.code) is not None:
                raise Conflict(f"table {spec.code!r} exists", field="code")
            t = new_table(uow, self.progressives, spec)
            out = self.table_view(uow, t, [])
            uow.commit()
            return out

    def update(self, principal: Principal, code: str, status: str) -> TableView:
        """Open, close or make private a table."""
        require_role(principal, *MANAGER_ROLES)
        if status not in TABLE_STATUSES:
            raise ValidationFailed("status must be open, closed or private", field="status")
        with self.ctx.uow() as uow:
            t = replace(uow.tables.get(code, for_update=True), status=status)
            uow.tables.save(t)
            out = self.table_view(uow, t, uow.tables.seats(t.id))
            uow.commit()
            return out

    def list(self, principal: Principal) -> TableList:
        require_role(principal, *READ_ROLES)
        with self.ctx.uow(readonly=True) as uow:
            return TableList(tables=[self.table_view(uow, t, uow.tables.seats(t.id)) for t in uow.tables.all()])

    def house_edges(self, principal: Principal) -> dict[str, Any]:
        """Every game's stated house edge (:func:`table_games.domain.house_edges.catalogue`): exact figures
        and stored simulations with their 95% CI, the published figure beside each. Nothing is simulated."""
        require_role(principal, *READ_ROLES)
        return {"games": house_edges.catalogue()}

    def get(self, principal: Principal, code: str) -> TableView:
        require_role(principal, *READ_ROLES)
        with self.ctx.uow(readonly=True) as uow:
            t = uow.tables.get(code)
            return self.table_view(uow, t, uow.tables.seats(t.id))

    # ------------------------------------------------------------------ seats
    def sit(self, principal: Principal, code: str, seat: str, player_id: int) -> TableView:
        """Seat a player (their wallet is opened); a seat the game has, one per player (blackjack: a seat per box
        the player plays, up to the rules' boxes per player)."""
        require_role(principal, *DEALER_ROLES)
        with self.ctx.uow() as uow:
            t = uow.tables.get(code, for_update=True)
            if t.status == "closed":
                raise Conflict(f"table {code} is closed", field="code")
            self.wallet.require_player(uow, player_id)
            self.wallet.open(uow, player_id)
            seats = uow.tables.seats(t.id)
            if any(s.seat == seat for s in seats):
                raise Conflict(f"seat {seat} is taken", field="seat")
            game, rules = engine(t), rules_of(t)
            game.check_seat(rules, seat)
            mine = sum(s.player_id == player_id for s in seats)
            most = game.seats_per_player(rules)
            if mine >= most:
                raise Conflict(f"player {player_id} already sits at {code}"
                               f"{f' in {most} boxes' if most > 1 else ''}", field="player_id")
            uow.tables.add_seat(t.id, Seat(seat, player_id))
            out = self.table_view(uow, t, uow.tables.seats(t.id))
            uow.commit()
            return out

    def leave(self, principal: Principal, code: str, seat: str) -> TableView:
        """The player leaves the seat; the permissions they gave leave with them."""
        require_role(principal, *DEALER_ROLES)
        with self.ctx.uow() as uow:
            t = uow.tables.get(code, for_update=True)
            if not any(s.seat == seat for s in uow.tables.seats(t.id)):
                raise NotFound(f"nobody sits at seat {seat}", field="seat")
            for bk in uow.tables.backers(t.id, seat):
                uow.tables.remove_backer(bk.id)
            uow.tables.remove_seat(t.id, seat)
            out = self.table_view(uow, t, uow.tables.seats(t.id))
            uow.commit()
            return out

    # ------------------------------------------------------------------ backers (spectators backing a box)
    @staticmethod
    def _seat_holder(principal: Principal, uow: TablesUnitOfWork, t: Table, seat: str) -> Seat:
        """The seat's occupant; a player token acts only on their own seat, staff need a dealer role."""
        s = next((s for s in uow.tables.seats(t.id) if s.seat == seat), None)
        if principal.kind == "player":
            if s is None or s.player_id != int(principal.name):
                raise Forbidden(f"only the player seated at {seat} manages who backs it", field="seat")
        else:
            require_role(principal, *DEALER_ROLES)
        if s is None:
            raise NotFound(f"nobody sits at seat {seat}", field="seat")
        return s

    @staticmethod
    def _backers_view(t: Table, s: Seat, rows: list[Backer]) -> BackersView:
        return BackersView(table=t.code, seat=s.seat, player_id=s.player_id,
                           backers=[{"player_id": b.player_id, "granted_by": b.granted_by,
                                     "granted_at": b.granted_at.isoformat() if b.granted_at else None}
                                    for b in rows if b.granted_by_player == s.player_id])

    def grant_backer(self, principal: Principal, code: str, seat: str, backer_id: int) -> BackersView:
        """The seated player (own token) or the pit lets ``backer_id`` back the box at ``seat``."""
        with self.ctx.uow() as uow:
            t = uow.tables.get(code, for_update=True)
            s = self._seat_holder(principal, uow, t, seat)
            if backer_id == s.player_id:
                raise ValidationFailed("the seated player plays their own box; name another player", field="player_id")
            self.wallet.require_player(uow, backer_id)
            self.wallet.open(uow, backer_id)
            old = next((b for b in uow.tables.backers(t.id, seat) if b.player_id == backer_id), None)
            if old is not None and old.granted_by_player != s.player_id:  # left over from an earlier occupant
                uow.tables.remove_backer(old.id)
                old = None
            if old is None:
                uow.tables.add_backer(t.id, Backer(id=0, seat=seat, player_id=backer_id, granted_by_player=s.player_id,
                                                   granted_by=principal.id, granted_at=self.ctx.clock.now()))
            out = self._backers_view(t, s, uow.tables.backers(t.id, seat))
            uow.commit()
            return out

    def revoke_backer(self, principal: Principal, code: str, seat: str, backer_id: int) -> BackersView:
        """Withdraw the permission (bets already placed stay in play for the round)."""
        with self.ctx.uow() as uow:
            t = uow.tables.get(code, for_update=True)
            s = self._seat_holder(principal, uow, t, seat)
            row = next((b for b in uow.tables.backers(t.id, seat)
                        if b.player_id == backer_id and b.granted_by_player == s.player_id), None)
            if row is None:
                raise NotFound(f"player {backer_id} has no permission to back seat {seat}", field="player_id")
            uow.tables.remove_backer(row.id)
            out = self._backers_view(t, s, uow.tables.backers(t.id, seat))
            uow.commit()
            return out

    def backers(self, principal: Principal, code: str, seat: str) -> BackersView:
        if principal.kind != "player":
            require_role(principal, *READ_ROLES)
        with self.ctx.uow(readonly=True) as uow:
            t = uow.tables.get(code)
            s = next((s for s in uow.tables.seats(t.id) if s.seat == seat), None)
            if principal.kind == "player" and (s is None or s.player_id != int(principal.name)):
                raise Forbidden(f"only the player seated at {seat} sees who backs it", field="seat")
            if s is None:
                raise NotFound(f"nobody sits at seat {seat}", field="seat")
            return self._backers_view(t, s, uow.tables.backers(t.id, seat))

    # ------------------------------------------------------------------ roulette colour chips
    @staticmethod
    def _colour_game(t: Table) -> ColourChipGame:
        game = engine(t)
        if not isinstance(game, ColourChipGame):
            raise ValidationFailed("colour chips are for roulette tables", field="code")
        return game

    def colour_buy_in(self, principal: Principal, code: str, cmd: ColourBuyIn, key: OnceKey) -> Once[ColourBought]:
        """A seated player buys colour chips from the wallet (wallet → ``table:<code>:chips``): one colour per
        player, its chip value a multiple of the chip unit, a whole number of chips."""
        require_role(principal, *DEALER_ROLES)
        pid = cmd.player_id

        def fn(uow: TablesUnitOfWork) -> ColourBought:
            t = uow.tables.get(code, for_update=True)
            game = self._colour_game(t)
            if not any(s.player_id == pid for s in uow.tables.seats(t.id)):
                raise Conflict(f"player {pid} is not seated at {code}", field="player_id")
            stacks = uow.tables.stacks(t.id)
            mine = next((c for c in stacks if c.player_id == pid), None)
            got = game.buy_in({c.colour: str(c.player_id) for c in stacks}, str(pid), cmd.colour, cmd.chip_value,
                              cmd.amount, chip_unit=t.chip_unit, rules=rules_of(t))
            if mine is not None and mine.chip_value != got.chip_value:
                raise TableRuleError("chip_value", f"the player's {mine.colour} chips are worth ₩{mine.chip_value:,}")
            entry = self.wallet.debit_for_table(uow, pid, accounts.table_chips(code), cmd.amount,
                                                refs={"table": code, "colour": got.colour})
            mine = mine or ColourStack(table_id=t.id, player_id=pid, colour=got.colour, chip_value=got.chip_value)
            mine = replace(mine, chips=mine.chips + got.chips)
            uow.tables.save_stack(mine)
            return ColourBought(table=code, player_id=pid, colour=mine.colour, chip_value=mine.chip_value,
                                chips=mine.chips, entry=entry, wallet=self.wallet.balances(uow, pid))

        return run_once(self.ctx, key, fn, result=ColourBought)

    def colour_cash_out(self, principal: Principal, code: str, cmd: ColourCashOut,
                        key: OnceKey) -> Once[ColourCashed]:
        """The player hands colour chips in (all by default): their value goes back to the wallet; an empty
        stack frees the colour."""
        require_role(principal, *DEALER_ROLES)
        pid = cmd.player_id

        def fn(uow: TablesUnitOfWork) -> ColourCashed:
            t = uow.tables.get(code, for_update=True)
            stack = uow.tables.stack(t.id, pid)
            if stack is None:
                raise NotFound(f"player {pid} holds no colour chips at {code}", field="player_id")
            chips = stack.chips if cmd.chips is None else cmd.chips
            if chips > stack.chips:
                raise TableRuleError("chips", f"the player holds {stack.chips} {stack.colour} chips")
            won = self._colour_game(t).cash_out(str(pid), stack.colour, stack.chip_value, stack.chips, chips)
            entry = (self.wallet.credit_from_table(uow, pid, accounts.table_chips(code), won,
                                                   refs={"table": code, "colour": stack.colour}) if won else None)
            stack = replace(stack, chips=stack.chips - chips)
            if stack.chips == 0:
                uow.tables.remove_stack(t.id, pid)
            else:
                uow.tables.save_stack(stack)
            return ColourCashed(table=code, player_id=pid, colour=stack.colour, chips_cashed=chips, amount=won,
                                chips_left=stack.chips, entry=entry, wallet=self.wallet.balances(uow, pid))

        return run_once(self.ctx, key, fn, result=ColourCashed)


# ---------------------------------------------------------------------- demo floor
# code, game, name, the table's limits (won; chip unit ₩1,000, commission unit ₩100)
DEMO_TABLES: tuple[tuple[str, str, str, Callable[[], TableLimits]], ...] = (
    ("BAC-01", "baccarat", "Baccarat 1",
     lambda: baccarat.default_limits(chip_unit=1_000, minimum=10_000, maximum=3_000_000, side_minimum=1_000,
                                     side_maximum=300_000)),
    ("BJ-01", "blackjack", "Blackjack 1",
     lambda: blackjack.default_limits(chip_unit=1_000, minimum=10_000, maximum=2_000_000, pair_minimum=1_000,
                                      pair_maximum=200_000)),
    ("RL-01", "roulette", "Roulette 1",
     lambda: roulette.default_limits(chip_unit=1_000, inside_min=1_000, straight_max=100_000, outside_min=5_000,
                                     outside_max=1_000_000)),
    ("SB-01", "sic_bo", "Sic Bo 1",
     lambda: sicbo.default_limits(chip_unit=1_000, minimum=5_000, even_max=2_000_000, other_max=200_000)),
    ("BW-01", "big_wheel", "Big Wheel 1",
     lambda: bigwheel.default_limits(bigwheel.STANDARD_54, chip_unit=1_000, minimum=5_000, max_win=2_000_000)),
    ("TCP-01", "three_card_poker", "Three Card Poker 1",
     lambda: three_card.default_limits(chip_unit=1_000, minimum=10_000, maximum=1_000_000)),
    ("CSP-01", "caribbean_stud", "Caribbean Stud 1",
     lambda: caribbean.default_limits(chip_unit=1_000, minimum=10_000, maximum=500_000)),
    ("HB-01", "holdem_bonus", "Hold'em Bonus 1",
     lambda: holdem_bonus.default_limits(chip_unit=1_000, minimum=10_000, maximum=500_000)),
    ("PG-01", "pai_gow_poker", "Pai Gow Poker 1",
     lambda: paigow.default_limits(chip_unit=1_000, minimum=10_000, maximum=2_000_000)),
)
#: the Caribbean stud progressive on the jackpot controller: a ₩1,000 side bet puts 25% on the meter, which
#: restarts at ₩5,000,000 after a royal flush (the ceiling only bounds the meter; contributions past it overflow)
DEMO_PROGRESSIVES = {"CSP-01": ("CSP_PROG", "Caribbean Stud Progressive",
                                {"reset": 5_000_000, "ceiling": 500_000_000, "rate_ppm": 250_000})}


def seed_tables(uow: TablesUnitOfWork, levels: TableLevels) -> list[str]:
    """One demo table per game and the Caribbean table's progressive level (idempotent); the codes created."""
    made = []
    for code, game, name, limits in DEMO_TABLES:
        if uow.tables.find(code) is not None:
            continue
        level = None
        if code in DEMO_PROGRESSIVES:
            level, level_name, params = DEMO_PROGRESSIVES[code]
            if levels.find(uow, level) is None:
                levels.create_table_level(uow, code=level, name=level_name, **params)
        new_table(uow, levels, NewTable(code=code, game=game, name=name, limits=limits().to_dict(),
                                              chip_unit=1_000, commission_unit=100, progressive_level=level))
        made.append(code)
    return made
