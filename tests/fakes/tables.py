"""In-memory fakes for the table-games services: the tables repository (``uow.tables``), the players' wallet and
the jackpot controller's table progressives (their state kept in repositories of the fake unit of work, so a
rolled-back transaction leaves nothing behind).

They apply the rules a use case can tell apart: a missing table or round is ``NotFound`` (field ``code`` /
``round``), records come back as copies (a service never aliases stored state), seats and bets come back in the
SQL repositories' order; the wallet refuses an unknown player (``NotFound`` field ``player_id``) and a debit
larger than the cashable balance (``InsufficientFunds`` field ``amount``) and moves money only by balanced
journal entries on the fake ledger; a progressive level's meter grows by ``rate_ppm`` of each stake and pays its
lines best first, as :func:`jackpot_controller.domain.pool.table_round` does (no reserve, ceiling or overflow:
nothing the tables can see).

Use :func:`table_context` for a :class:`~slotsys.kernel.context.ServiceContext` with all of them, and
:func:`table_games` for the services built on it.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from slotsys.kernel import accounts
from slotsys.kernel import ledger as L
from slotsys.kernel.errors import Conflict, InsufficientFunds, NotFound, ValidationFailed
from slotsys.kernel.money import MILLI_PER_WON, contribution_milli, payout_floor
from table_games.domain.model import Backer, ColourStack, PlacedBet, Round, Seat, Table
from table_games.domain.poker_table import ProgressiveAward
from table_games.services.container import TableGames
from table_games.services.ports import ProgressiveLevel
from tests.fakes.kernel import fake_context

HOUSE_CASH = "house:cash"  # the counter account a test funds wallets from


class FakeTables:
    """``uow.tables`` in memory (:class:`table_games.services.ports.TableRepository`)."""

    def __init__(self) -> None:
        self.tables: dict[int, Table] = {}
        self.seats_: list[tuple[int, Seat]] = []
        self.backers_: list[tuple[int, Backer]] = []
        self.rounds_: dict[int, Round] = {}
        self.bets_: list[PlacedBet] = []
        self.stacks_: list[ColourStack] = []
        self.next_id = 1

    def _id(self) -> int:
        self.next_id += 1
        return self.next_id - 1

    # ------------------------------------------------------------------ tables
    def get(self, code: str, *, for_update: bool = False) -> Table:
        t = self.find(code)
        if t is None:
            raise NotFound(f"no table {code!r}", field="code")
        return t

    def find(self, code: str) -> Table | None:
        t = next((t for t in self.tables.values() if t.code == code), None)
        return copy.deepcopy(t)

    def all(self) -> list[Table]:
        return [copy.deepcopy(t) for t in sorted(self.tables.values(), key=lambda t: t.code)]

    def create(self, table: Table) -> Table:
        if self.find(table.code) is not None:
            raise Conflict(f"table {table.code!r} exists", field="code")  # the unique index
        t = replace(copy.deepcopy(table), id=self._id())
        self.tables[t.id] = t
        return copy.deepcopy(t)

    def save(self, table: Table) -> None:
        old = self.tables[table.id]
        self.tables[table.id] = replace(old, status=table.status, round_seq=table.round_seq, shoe_no=table.shoe_no,
                                        shoe=copy.deepcopy(table.shoe))

    # ------------------------------------------------------------------ seats and backers
    def seats(self, table_id: int) -> list[Seat]:
        return sorted((s for t, s in self.seats_ if t == table_id), key=lambda s: s.seat)

    def add_seat(self, table_id: int, seat: Seat) -> None:
        if any(t == table_id and s.seat == seat.seat for t, s in self.seats_):
            raise Conflict(f"seat {seat.seat} is taken", field="seat")  # the unique index
        self.seats_.append((table_id, seat))

    def remove_seat(self, table_id: int, seat: str) -> None:
        self.seats_ = [(t, s) for t, s in self.seats_ if not (t == table_id and s.seat == seat)]

    def backers(self, table_id: int, seat: str | None = None) -> list[Backer]:
        rows = [b for t, b in self.backers_ if t == table_id and (seat is None or b.seat == seat)]
        return sorted(rows, key=lambda b: (b.seat, b.id))

    def add_backer(self, table_id: int, backer: Backer) -> Backer:
        b = replace(backer, id=self._id())
        self.backers_.append((table_id, b))
        return b

    def remove_backer(self, backer_id: int) -> None:
        self.backers_ = [(t, b) for t, b in self.backers_ if b.id != backer_id]

    # ------------------------------------------------------------------ rounds and bets
    def round(self, table_id: int, number: int, *, for_update: bool = False) -> Round:
        r = next((r for r in self.rounds_.values() if r.table_id == table_id and r.number == number), None)
        if r is None:
            raise NotFound(f"no round {number} at this table", field="round")
        return copy.deepcopy(r)

    def rounds(self, table_id: int, *, shoe_no: int | None = None, limit: int = 100) -> list[Round]:
        rows = [r for r in self.rounds_.values() if r.table_id == table_id and (shoe_no is None or r.shoe_no == shoe_no)]
        return [copy.deepcopy(r) for r in sorted(rows, key=lambda r: -r.number)[:limit]]

    def add_round(self, rnd: Round) -> Round:
        r = replace(copy.deepcopy(rnd), id=self._id())
        self.rounds_[r.id] = r
        return copy.deepcopy(r)

    def save_round(self, rnd: Round) -> None:
        if rnd.id not in self.rounds_:
            raise NotFound(f"no round {rnd.number} at this table", field="round")
        self.rounds_[rnd.id] = copy.deepcopy(rnd)

    def bets(self, round_id: int) -> list[PlacedBet]:
        return [b for b in self.bets_ if b.round_id == round_id]

    def add_bet(self, bet: PlacedBet) -> PlacedBet:
        if bet.amount <= 0:
            raise ValidationFailed("a bet is positive", field="amount")  # the CHECK constraint
        b = replace(bet, id=self._id())
        self.bets_.append(b)
        return b

    # ------------------------------------------------------------------ colour stacks
    def stacks(self, table_id: int) -> list[ColourStack]:
        return [s for s in self.stacks_ if s.table_id == table_id]

    def stack(self, table_id: int, player_id: int) -> ColourStack | None:
        return next((s for s in self.stacks_ if s.table_id == table_id and s.player_id == player_id), None)

    def save_stack(self, stack: ColourStack) -> None:
        if stack.chips < 0:
            raise ValidationFailed("chips are never negative", field="chips")  # the CHECK constraint
        for i, s in enumerate(self.stacks_):
            if s.table_id == stack.table_id and s.player_id == stack.player_id:
                self.stacks_[i] = replace(s, chips=stack.chips)
                return
        self.stacks_.append(stack)

    def remove_stack(self, table_id: int, player_id: int) -> None:
        self.stacks_ = [s for s in self.stacks_ if not (s.table_id == table_id and s.player_id == player_id)]


class FakePlayers:
    """The enrolled players (``uow.players``), by id."""

    def __init__(self) -> None:
        self.ids: set[int] = set()


class FakeWallet:
    """The players' wallet port (:class:`table_games.services.ports.PlayerWallet`) on the fake ledger: a player's
    ``cashable`` and ``promo`` accounts, one balanced entry per move."""

    def require_player(self, uow: Any, player_id: int) -> None:
        if player_id not in uow.players.ids:
            raise NotFound(f"player {player_id} is not enrolled", field="player_id")

    def open(self, uow: Any, player_id: int) -> None:
        for code in (accounts.player_cashable(player_id), accounts.player_promo(player_id)):
            uow.ledger.ensure_account(code, L.AccountType.LIABILITY, non_negative=True)

    def balances(self, uow: Any, player_id: int) -> dict[str, int]:
        out = {}
        for name, code in (("cashable", accounts.player_cashable(player_id)), ("promo", accounts.player_promo(player_id))):
            out[name] = uow.ledger.balance(code) if code in uow.ledger.accounts else 0
        return out

    def transfer(self, uow: Any, *, player_id: int, counter_account: str, amount: int, direction: str, kind: str,
                 refs: Mapping[str, Any] | None = None) -> int:
        if isinstance(amount, bool) or not isinstance(amount, int) or amount <= 0:
            raise ValidationFailed("a positive whole number of won", field="amount")
        self.require_player(uow, player_id)
        self.open(uow, player_id)
        wallet = accounts.player_cashable(player_id)
        if counter_account not in uow.ledger.accounts:
            raise NotFound(f"account {counter_account!r} does not exist")
        if direction == "out":
            have = uow.ledger.balance(wallet)
            if have < amount:
                raise InsufficientFunds(f"the cashable wallet holds ₩{have:,}, less than ₩{amount:,}", field="amount",
                                        balance=have)
            debit, credit = wallet, counter_account
        else:
            debit, credit = counter_account, wallet
        e = L.EntryBuilder(kind, f"player {player_id} cashable wallet {direction}")
        e.add(debit=debit, credit=credit, amount=amount)
        return uow.ledger.post(e.build({"player": player_id, "wallet": "cashable", **(refs or {})}))

    def debit_for_table(self, uow: Any, player_id: int, table_account: str, amount: int, *,
                        refs: Mapping[str, Any] | None = None) -> int:
        return self.transfer(uow, player_id=player_id, counter_account=table_account, amount=amount, direction="out",
                             kind="table.debit", refs=refs)

    def credit_from_table(self, uow: Any, player_id: int, table_account: str, amount: int, *,
                          refs: Mapping[str, Any] | None = None) -> int:
        return self.transfer(uow, player_id=player_id, counter_account=table_account, amount=amount, direction="in",
                             kind="table.credit", refs=refs)


@dataclass
class _Level:
    code: str
    name: str
    kind: str
    reset: int
    rate_ppm: int
    value_milli: int
    cycle: int = 1
    paused: bool = False


class FakeLevels:
    """The jackpot controller's levels (``uow.levels``), by code."""

    def __init__(self) -> None:
        self.levels: dict[str, _Level] = {}


class FakeProgressives:
    """The table progressives port (:class:`table_games.services.ports.TableProgressives`) on ``uow.levels`` and the
    fake ledger; ``announced`` records the signage refreshes (``force`` each)."""

    def __init__(self) -> None:
        self.announced: list[bool] = []

    @staticmethod
    def _view(lv: _Level) -> ProgressiveLevel:
        return ProgressiveLevel(code=lv.code, kind=lv.kind, value_milli=lv.value_milli, cycle=lv.cycle,
                                paused=lv.paused)

    def find(self, uow: Any, code: str) -> ProgressiveLevel | None:
        lv = uow.levels.levels.get(code)
        return None if lv is None else self._view(lv)

    def table_level(self, uow: Any, code: str, *, for_update: bool = False) -> ProgressiveLevel:
        lv = uow.levels.levels.get(code)
        if lv is None:
            raise NotFound(f"jackpot level {code!r} does not exist", field="progressive_level")
        if lv.kind != "table":
            raise Conflict(f"jackpot level {code!r} is a {lv.kind} level, not a table progressive",
                           field="progressive_level")
        return self._view(lv)

    def create_table_level(self, uow: Any, *, code: str, name: str, reset: int, ceiling: int, rate_ppm: int) -> None:
        """The level at its reset value, funded by the house (seed → liability)."""
        uow.levels.levels[code] = _Level(code, name, "table", reset, rate_ppm, reset * MILLI_PER_WON)
        for acct, kind, non_negative in accounts.jackpot_level_accounts(code):
            uow.ledger.ensure_account(acct, kind, non_negative=non_negative)
        e = L.EntryBuilder("jackpot.seed", f"{code} opening seed")
        e.add(debit=accounts.jackpot_seed(code), credit=accounts.jackpot_liability(code), amount=reset)
        uow.ledger.post(e.build({"level": code}))

    def settle_round(self, uow: Any, code: str, *, stakes: Sequence[int], awards: Sequence[ProgressiveAward],
                     refs: Mapping[str, Any]) -> dict[str, Any]:
        lv = uow.levels.levels[code]
        before = lv.value_milli
        contributed = sum(contribution_milli(stake, lv.rate_ppm) for stake in stakes)
        lv.value_milli += contributed
        legs: list[tuple[str, str, int]] = [(accounts.jackpot_contributions(code), accounts.jackpot_liability(code),
                                             lv.value_milli // MILLI_PER_WON - before // MILLI_PER_WON)]
        paid = []
        for line in dict.fromkeys(a.hand for a in awards):
            meter, cycle, resets = lv.value_milli // MILLI_PER_WON, lv.cycle, False
            for a in (a for a in awards if a.hand == line):
                if a.fixed:
                    amount, from_meter = a.fixed, 0
                    legs.append((accounts.jackpot_seed(code), accounts.jackpot_payable(code), amount))
                else:
                    amount = from_meter = payout_floor(meter, a.meter_ppm, 1_000_000 * a.shared_by)
                    lv.value_milli -= amount * MILLI_PER_WON
                    legs.append((accounts.jackpot_liability(code), accounts.jackpot_payable(code), amount))
                    resets = resets or a.meter_ppm >= 1_000_000
                paid.append((a, amount, from_meter, meter, cycle))
            if resets:
                legs.append((accounts.jackpot_seed(code), accounts.jackpot_liability(code), lv.reset))
                lv.value_milli += lv.reset * MILLI_PER_WON
                lv.cycle += 1
        e = L.EntryBuilder("jackpot.table", f"{code}: table {refs.get('table')} round {refs.get('round')}")
        for debit, credit, amount in legs:
            e.add(debit=debit, credit=credit, amount=amount)
        if not e.empty:
            uow.ledger.post(e.build({"level": code, **refs}))
        out = []
        for a, amount, from_meter, meter, cycle in paid:
            entry = (FakeWallet().credit_from_table(uow, int(a.player), accounts.jackpot_payable(code), amount,
                                                    refs={**refs, "level": code}) if amount else None)
            d = {"player_id": int(a.player), "box": a.box, "hand": a.hand, "amount": amount, "from_meter": from_meter,
                 "from_house": amount - from_meter, "meter": meter, "cycle": cycle, "entry": entry}
            if a.meter_ppm:
                d.update(meter_ppm=a.meter_ppm, shared_by=a.shared_by)
            out.append(d)
        return {"level": code, "cycle": lv.cycle, "meter_before": before // MILLI_PER_WON,
                "meter_after": lv.value_milli // MILLI_PER_WON, "contributed_milli": contributed, "awards": out}

    def announce(self, *, force: bool) -> None:
        self.announced.append(force)


def table_context(rng=None, **kw: Any):
    """A fake context with the tables repository, the players and the jackpot levels, and a house cash account
    (asset) to fund wallets from."""
    ctx = fake_context(rng=rng, tables=FakeTables(), players=FakePlayers(), levels=FakeLevels(), **kw)
    ctx.uow.repos["ledger"].ensure_account(HOUSE_CASH, L.AccountType.ASSET)
    return ctx


def table_games(ctx) -> tuple[TableGames, FakeWallet, FakeProgressives]:
    """The table-games services on ``ctx`` with the fake wallet and progressives."""
    wallet, progressives = FakeWallet(), FakeProgressives()
    return TableGames.build(ctx, wallet=wallet, progressives=progressives), wallet, progressives


def enrol(ctx, player_id: int, cash: int = 0) -> None:
    """Enrol ``player_id`` with ``cash`` won in the cashable wallet (from :data:`HOUSE_CASH`)."""
    with ctx.uow() as uow:
        uow.players.ids.add(player_id)
        wallet = FakeWallet()
        wallet.open(uow, player_id)
        if cash:
            e = L.EntryBuilder("cage.deposit", f"deposit for player {player_id}")
            e.add(debit=HOUSE_CASH, credit=accounts.player_cashable(player_id), amount=cash)
            uow.ledger.post(e.build({"player": player_id}))
        uow.commit()
