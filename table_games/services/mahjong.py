"""Mahjong use cases: a pure scoring call, tables of four seats (E/S/W/N), buy-in / top-up /
cash-out, and settling a scored hand (or recording a drawn one) on the ledger — one transaction each.

**Money: pre-funded table stacks (decision).** A player sits with a buy-in from their cashable wallet into
their own stack account ``mahjong:<code>:stack:<player>`` (liability, non-negative; the wallet port's
``debit_for_table``), may top up, and cashes the whole stack back to the wallet when leaving
(``credit_from_table``). A scored hand moves only stacks: ONE balanced journal entry per hand debits each
loser's stack (payment + honba + their riichi stick), debits the pot of carried riichi sticks
(``mahjong:<code>:pot``), credits the winner's stack (net of the house fee) and credits the fee to
``mahjong:<code>:fees`` (revenue). We chose stacks over debiting wallets at settlement because the money at
risk is set aside when the player sits down: nothing the player does elsewhere (a slot machine, a cash-out at
the cage) can empty it between the deal and the score, the table's accounts alone decide whether a hand can
be paid, and no path can overdraw — every loser's stack is checked under the table row lock before posting
(409 ``insufficient-funds``, field ``seats``, naming the seat and player; nothing moves) and the ledger's
non-negative CHECK is the backstop. The buy-in range (``min_buy_in``..``max_buy_in``) lets the casino require
enough to cover ordinary losses; a stack too short for a big hand is refused, not overdrawn.

**Units**: points (riichi: the standard table, e.g. a dealer mangan ron = 12,000 points; Korean: the schedule's
points) × the table's ``point_value`` won (e.g. ₩10 a point). **House fee**: ``fee_ppm`` of the winner's take
(what the others pay for the hand, honba included, riichi sticks not), rounded UP to ``fee_unit``
(``slotsys.kernel.money.commission_ceil``, the one rounding module), never above the take.

**Hands** are numbered per table: a scored or drawn hand must carry ``number`` = the table's last hand + 1,
checked under the table row lock, and ``mahjong_hands`` is unique per (table, number): two requests for the
same hand (same or different ``Idempotency-Key``) settle once; the other gets the first's stored reply
(same key) or 409 ``field: number`` (another key). Lock order: table row → player row (wallet moves) →
ledger accounts.

Roles (``slotsys.kernel.security.ROLES``): ``pit`` / ``supervisor`` open tables, seat players and score;
``operator`` / ``auditor`` / ``host`` read; a player (``pl_`` token) reads tables and hands and may use the
pure scoring call. Errors: ``TableRuleError`` (422, the field), ``Conflict`` (409), ``NotFound`` (404),
``InsufficientFunds`` (409), ``Forbidden`` (403).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from slotsys.kernel import accounts
from slotsys.kernel import ledger as L
from slotsys.kernel.checks import require_role
from slotsys.kernel.context import Principal, ServiceContext
from slotsys.kernel.errors import Conflict, InsufficientFunds, NotFound, ValidationFailed
from slotsys.kernel.idempotency import Once, OnceKey, run_once
from slotsys.kernel.money import MoneyError, require_won
from table_games.domain import mahjong as mj
from table_games.domain.errors import TableRuleError
from table_games.domain.model import MahjongHand, MahjongSeat, MahjongTable
from table_games.services.ports import MahjongUnitOfWork, PlayerWallet
from table_games.services.results import (
    MahjongHandList, MahjongHandRecorded, MahjongHandView, MahjongLeft, MahjongStackMoved, MahjongTableList,
    MahjongTableView,
)

SCORER_ROLES = ("pit", "supervisor")
READ_ROLES = ("pit", "supervisor", "operator", "auditor", "host")
SEATING = ("number", "winner", "discarder", "dealer", "riichi_seats")  # a scored hand's fields besides the win


@dataclass(frozen=True)
class NewMahjongTable:
    """A table to open: ``rules`` ``{"rule_set": "riichi" | "korean", ...}``, won per point, the house fee (ppm of
    the winner's take, rounded up to ``fee_unit`` won), the buy-in range (won)."""

    code: str
    name: str = ""
    rules: dict[str, Any] | None = None
    point_value: int = 10
    fee_ppm: int = 0
    fee_unit: int = 100
    min_buy_in: int = 100_000
    max_buy_in: int = 2_000_000
    status: str = "open"


@dataclass(frozen=True)
class ScoreHand:
    """A won hand at a table: its ``number`` (the next), the ``winner`` (seat), the ``discarder`` (ron), the
    ``dealer`` (default: the table's), the seats that declared riichi, and the declaration (tiles, flags,
    winds, honba, conditions: :class:`table_games.domain.mahjong.Declaration`)."""

    number: Any
    winner: Any
    declaration: Mapping[str, Any] = field(default_factory=dict)
    discarder: str | None = None
    dealer: str | None = None
    riichi_seats: tuple[str, ...] = ()

    @classmethod
    def from_body(cls, body: Mapping[str, Any]) -> ScoreHand:
        return cls(number=body.get("number"), winner=body.get("winner"), discarder=body.get("discarder"),
                   dealer=body.get("dealer"), riichi_seats=tuple(body.get("riichi_seats") or ()),
                   declaration={k: v for k, v in body.items() if k not in SEATING})


@dataclass(frozen=True)
class DrawHand:
    """An exhaustive draw: its ``number``, the ``dealer`` (default: the table's), whether the dealer was tenpai
    (deals again), the seats that declared riichi (a stick each into the pot)."""

    number: Any
    dealer: str | None = None
    dealer_tenpai: Any = False
    riichi_seats: tuple[str, ...] = ()


def require_reader(principal: Principal) -> None:
    if principal.kind == "player":
        return
    require_role(principal, *READ_ROLES)


def _won(v: object, fld: str) -> int:
    try:
        return require_won(v, field=fld)
    except MoneyError as e:
        raise ValidationFailed(str(e), field=fld) from None


def next_dealer(uow: MahjongUnitOfWork, t: MahjongTable) -> str:
    """The seat that deals the table's next hand: E for the first, then ``mj.next_dealer`` from the last hand."""
    last = uow.mahjong_tables.hands(t.id, limit=1)
    if not last:
        return "E"
    h = last[0]
    return mj.next_dealer(h.kind, h.dealer, h.winner, bool((h.settlement or {}).get("dealer_tenpai")))


def table_fields(uow: MahjongUnitOfWork, t: MahjongTable) -> dict[str, Any]:
    """The fields of :class:`~table_games.services.results.MahjongTableView` for ``t``."""
    seats = uow.mahjong_tables.seats(t.id)
    return {"code": t.code, "name": t.name, "rules": mj.rules_from_dict(t.rules).to_dict(),  # every option, in force
            "dealer": next_dealer(uow, t),
            "point_value": t.point_value, "fee_ppm": t.fee_ppm, "fee_unit": t.fee_unit, "min_buy_in": t.min_buy_in,
            "max_buy_in": t.max_buy_in, "status": t.status, "hands": t.hand_seq, "riichi_pot": t.riichi_pot,
            "seats": [{"seat": s.seat, "player_id": s.player_id,
                       "stack": uow.ledger.balance(accounts.mahjong_stack(t.code, s.player_id))} for s in seats]}


def hand_fields(t: MahjongTable, h: MahjongHand) -> dict[str, Any]:
    return {"table": t.code, "number": h.number, "kind": h.kind, "rule_set": h.rule_set, "dealer": h.dealer,
            "winner": h.winner, "discarder": h.discarder, "declaration": h.declaration, "result": h.result,
            "settlement": h.settlement, "fee": h.fee, "entry": h.entry_id, "recorded_by": h.recorded_by,
            "created_at": h.created_at.isoformat() if h.created_at else None}


def new_table(uow: MahjongUnitOfWork, spec: NewMahjongTable) -> MahjongTable:
    """Create a table and its pot and fee accounts. ``ValidationFailed`` / ``TableRuleError`` for bad values,
    ``Conflict`` (field ``code``) if it exists."""
    r = mj.rules_from_dict(spec.rules)
    point_value = _won(spec.point_value, "point_value")
    fee_unit = _won(spec.fee_unit, "fee_unit")
    min_buy_in, max_buy_in = _won(spec.min_buy_in, "min_buy_in"), _won(spec.max_buy_in, "max_buy_in")
    fee_ppm = spec.fee_ppm
    if isinstance(fee_ppm, bool) or not isinstance(fee_ppm, int) or not 0 <= fee_ppm <= 1_000_000:
        raise ValidationFailed("fee_ppm is an integer 0..1,000,000 (1% = 10,000)", field="fee_ppm")
    if max_buy_in < min_buy_in:
        raise ValidationFailed("max_buy_in must be at least min_buy_in", field="max_buy_in")
    if spec.status not in ("open", "closed"):
        raise ValidationFailed("status is open or closed", field="status")
    if uow.mahjong_tables.find(spec.code) is not None:
        raise Conflict(f"mahjong table {spec.code!r} exists", field="code")
    t = uow.mahjong_tables.create(MahjongTable(
        id=0, code=spec.code, name=spec.name or spec.code, rules=r.to_dict(), point_value=point_value,
        fee_ppm=fee_ppm, fee_unit=fee_unit, min_buy_in=min_buy_in, max_buy_in=max_buy_in, status=spec.status))
    uow.ledger.ensure_account(accounts.mahjong_pot(spec.code), L.AccountType.LIABILITY, non_negative=True)
    uow.ledger.ensure_account(accounts.mahjong_fees(spec.code), L.AccountType.REVENUE)
    return t


class MahjongService:
    def __init__(self, ctx: ServiceContext, wallet: PlayerWallet) -> None:
        self.ctx = ctx
        self.wallet = wallet

    # ------------------------------------------------------------------ pure scoring
    def score(self, principal: Principal, body: Mapping[str, Any]) -> dict[str, Any]:
        """Score a declared win without any table or money: ``body`` = a declaration (see
        ``table_games.domain.mahjong``) + optional ``rules`` (default: the casino's riichi rules) + optional
        seating ``winner`` and ``dealer`` (seats; the winner's seat wind follows from them)."""
        require_reader(principal)
        body = {k: v for k, v in body.items() if v is not None}
        rules = mj.rules_from_dict(body.pop("rules", None))
        winner, dealer = body.pop("winner", None), body.pop("dealer", None)
        return mj.score_hand(mj.Declaration.from_dict(body), rules, winner=winner, dealer=dealer).to_dict()

    # ------------------------------------------------------------------ tables
    def create(self, principal: Principal, spec: NewMahjongTable) -> MahjongTableView:
        require_role(principal, *SCORER_ROLES)
        with self.ctx.uow() as uow:
            t = new_table(uow, spec)
            out = MahjongTableView(**table_fields(uow, t))
            uow.commit()
            return out

    def list(self, principal: Principal) -> MahjongTableList:
        require_reader(principal)
        with self.ctx.uow(readonly=True) as uow:
            return MahjongTableList(tables=[MahjongTableView(**table_fields(uow, t))
                                            for t in uow.mahjong_tables.all()])

    def get(self, principal: Principal, code: str) -> MahjongTableView:
        require_reader(principal)
        with self.ctx.uow(readonly=True) as uow:
            return MahjongTableView(**table_fields(uow, uow.mahjong_tables.get(code)))

    def get_hand(self, principal: Principal, code: str, number: int) -> MahjongHandView:
        require_reader(principal)
        with self.ctx.uow(readonly=True) as uow:
            t = uow.mahjong_tables.get(code)
            return MahjongHandView(**hand_fields(t, uow.mahjong_tables.hand(t.id, number)))

    def hands(self, principal: Principal, code: str) -> MahjongHandList:
        require_reader(principal)
        with self.ctx.uow(readonly=True) as uow:
            t = uow.mahjong_tables.get(code)
            return MahjongHandList(table=code, hands=[MahjongHandView(**hand_fields(t, h))
                                                      for h in uow.mahjong_tables.hands(t.id)])

    # ------------------------------------------------------------------ seats and stacks
    def sit(self, principal: Principal, code: str, seat: str, player_id: int, buy_in: int,
            key: OnceKey) -> Once[MahjongStackMoved]:
        """Seat ``player_id`` at ``seat`` (E/S/W/N) with a ``buy_in`` (won) from their cashable wallet into their
        stack (within the table's buy-in range). 409: seat taken, player already seated, table
        closed, wallet short."""
        require_role(principal, *SCORER_ROLES)
        pid = player_id

        def fn(uow: MahjongUnitOfWork) -> MahjongStackMoved:
            repo = uow.mahjong_tables
            t = repo.get(code, for_update=True)
            if t.status != "open":
                raise Conflict(f"mahjong table {code} is closed", field="code")
            if seat not in mj.SEATS:
                raise TableRuleError("seat", "seat is E, S, W or N")
            amount = _won(buy_in, "buy_in")
            if not t.min_buy_in <= amount <= t.max_buy_in:
                raise TableRuleError("buy_in", f"the buy-in is ₩{t.min_buy_in:,} to ₩{t.max_buy_in:,}")
            seats = repo.seats(t.id)
            if any(s.seat == seat for s in seats):
                raise Conflict(f"seat {seat} is taken", field="seat")
            if any(s.player_id == pid for s in seats):
                raise Conflict(f"player {pid} already sits at {code}", field="player_id")
            self.wallet.require_player(uow, pid)
            acct = accounts.mahjong_stack(code, pid)
            uow.ledger.ensure_account(acct, L.AccountType.LIABILITY, non_negative=True)
            entry = self.wallet.debit_for_table(uow, pid, acct, amount, refs={"mahjong": code, "seat": seat})
            repo.add_seat(t.id, MahjongSeat(seat, pid))
            return MahjongStackMoved(**table_fields(uow, t), entry=entry, wallet=self.wallet.balances(uow, pid))

        return run_once(self.ctx, key, fn, result=MahjongStackMoved)

    @staticmethod
    def _seat(uow: MahjongUnitOfWork, t: MahjongTable, seat: str) -> MahjongSeat:
        s = next((s for s in uow.mahjong_tables.seats(t.id) if s.seat == seat), None)
        if s is None:
            raise NotFound(f"nobody sits at seat {seat}", field="seat")
        return s

    def top_up(self, principal: Principal, code: str, seat: str, amount: int, key: OnceKey) -> Once[MahjongStackMoved]:
        """Add ``amount`` won from the seated player's wallet to their stack (the stack stays ≤ max_buy_in)."""
        require_role(principal, *SCORER_ROLES)

        def fn(uow: MahjongUnitOfWork) -> MahjongStackMoved:
            t = uow.mahjong_tables.get(code, for_update=True)
            s = self._seat(uow, t, seat)
            won = _won(amount, "amount")
            acct = accounts.mahjong_stack(code, s.player_id)
            if uow.ledger.balance(acct) + won > t.max_buy_in:
                raise TableRuleError("amount", f"the stack would pass the table's ₩{t.max_buy_in:,} maximum")
            entry = self.wallet.debit_for_table(uow, s.player_id, acct, won, refs={"mahjong": code, "seat": seat})
            return MahjongStackMoved(**table_fields(uow, t), entry=entry,
                                     wallet=self.wallet.balances(uow, s.player_id))

        return run_once(self.ctx, key, fn, result=MahjongStackMoved)

    def leave(self, principal: Principal, code: str, seat: str, key: OnceKey) -> Once[MahjongLeft]:
        """The player leaves: the whole stack goes back to their cashable wallet; the seat is freed."""
        require_role(principal, *SCORER_ROLES)

        def fn(uow: MahjongUnitOfWork) -> MahjongLeft:
            t = uow.mahjong_tables.get(code, for_update=True)
            s = self._seat(uow, t, seat)
            pid = s.player_id
            acct = accounts.mahjong_stack(code, pid)
            amount = uow.ledger.balance(acct)
            entry = (self.wallet.credit_from_table(uow, pid, acct, amount, refs={"mahjong": code, "seat": seat})
                     if amount else None)
            uow.mahjong_tables.remove_seat(t.id, seat)
            return MahjongLeft(**table_fields(uow, t), player_id=pid, cashed_out=amount, entry=entry,
                               wallet=self.wallet.balances(uow, pid))

        return run_once(self.ctx, key, fn, result=MahjongLeft)

    # ------------------------------------------------------------------ hands
    @staticmethod
    def _next_hand(uow: MahjongUnitOfWork, t: MahjongTable, number: object) -> list[MahjongSeat]:
        if t.status != "open":
            raise Conflict(f"mahjong table {t.code} is closed", field="code")
        if isinstance(number, bool) or not isinstance(number, int):
            raise TableRuleError("number", "number is the hand's number at this table")
        if number <= t.hand_seq:
            raise Conflict(f"hand {number} at {t.code} is already recorded (last hand: {t.hand_seq})", field="number")
        if number != t.hand_seq + 1:
            raise TableRuleError("number", f"the next hand at {t.code} is {t.hand_seq + 1}")
        seats = uow.mahjong_tables.seats(t.id)
        if len(seats) != 4:
            raise Conflict(f"a hand needs four seated players ({len(seats)} seated)", field="seats")
        return seats

    @staticmethod
    def _check_cover(uow: MahjongUnitOfWork, code: str, by_seat: dict[str, MahjongSeat], won: dict[str, int]) -> None:
        short = []
        for s, delta in won.items():
            if delta < 0:
                have = uow.ledger.balance(accounts.mahjong_stack(code, by_seat[s].player_id))
                if have < -delta:
                    short.append(f"seat {s} (player {by_seat[s].player_id}) has ₩{have:,}, owes ₩{-delta:,}")
        if short:
            raise InsufficientFunds("a loser cannot cover the hand: " + "; ".join(short) + " (top up, then score again)",
                                    field="seats")

    def score_hand(self, principal: Principal, code: str, cmd: ScoreHand, key: OnceKey) -> Once[MahjongHandRecorded]:
        """Score a won hand at a table and settle it in ONE journal entry.

        The seat wind is the winner's seat relative to the dealer (``mj.score_hand``'s seating); ``riichi_sticks``
        = the table's pot + this hand's declarers (the winner is added when the declaration has ``riichi`` /
        ``double_riichi``; a nagashi mangan paid as a draw leaves the pot and adds this hand's sticks to it).
        Returns the hand's record (result with its ``payment_form``, settlement per seat in points and won, fee,
        entry) and the table after it."""
        require_role(principal, *SCORER_ROLES)

        def fn(uow: MahjongUnitOfWork) -> MahjongHandRecorded:
            t = uow.mahjong_tables.get(code, for_update=True)
            seats = self._next_hand(uow, t, cmd.number)
            by_seat = {s.seat: s for s in seats}
            rules = mj.rules_from_dict(t.rules)
            winner, dealer = cmd.winner, cmd.dealer or next_dealer(uow, t)
            discarder = cmd.discarder
            for name, v in (("winner", winner), ("dealer", dealer)):
                if v not in mj.SEATS:
                    raise TableRuleError(name, f"{name} is a seat: E, S, W or N")
            decl = dict(cmd.declaration)
            riichi_seats = list(cmd.riichi_seats)
            declared = bool(decl.get("riichi") or decl.get("double_riichi"))
            if winner in riichi_seats and not declared:
                raise TableRuleError("riichi_seats", "the winner is listed in riichi_seats: send riichi or double_riichi")
            if declared and winner not in riichi_seats:
                riichi_seats.append(winner)
            if "riichi_sticks" in decl:
                raise TableRuleError("riichi_sticks", "at a table the sticks are the pot + riichi_seats")
            if rules.rule_set == "korean":
                if cmd.riichi_seats:
                    raise TableRuleError("riichi_seats", "the Korean rule set has no riichi sticks (riichi adds points)")
                riichi_seats, pot = [], 0
            else:
                pot = t.riichi_pot
                decl["riichi_sticks"] = pot + len(set(riichi_seats))
            score = mj.score_hand(mj.Declaration.from_dict(decl), rules, winner=winner, dealer=dealer)
            st = mj.settle_hand(score, winner=winner, dealer=dealer, discarder=discarder,
                                riichi_seats=tuple(riichi_seats), pot_sticks=pot, point_value=t.point_value,
                                fee_ppm=t.fee_ppm, fee_unit=t.fee_unit)
            self._check_cover(uow, code, by_seat, st.won)
            e = L.EntryBuilder("mahjong.hand", f"mahjong {code} hand {cmd.number}: {winner} wins")
            win_acct = accounts.mahjong_stack(code, by_seat[winner].player_id)
            stick_won = mj.STICK_POINTS * t.point_value
            for s, delta in st.won.items():
                if s != winner and delta < 0:
                    into_pot = stick_won if (st.sticks_to_pot and s in st.sticks_paid) else 0
                    acct = accounts.mahjong_stack(code, by_seat[s].player_id)
                    e.add(debit=acct, credit=win_acct, amount=-delta - into_pot)
                    e.add(debit=acct, credit=accounts.mahjong_pot(code), amount=into_pot)
            e.add(debit=accounts.mahjong_pot(code), credit=win_acct, amount=st.pot_won)
            e.add(debit=win_acct, credit=accounts.mahjong_fees(code), amount=st.fee)
            entry = uow.ledger.post(e.build({"mahjong": code, "hand": cmd.number})) if not e.empty else None
            settlement = {"seats": {s: {"player_id": by_seat[s].player_id, "points": st.points[s], "won": st.won[s]}
                                    for s in mj.SEATS},
                          "take": st.take, "fee": st.fee, "riichi_sticks_paid": sorted(st.sticks_paid),
                          "pot_sticks_taken": st.pot_sticks, "sticks_to_pot": st.sticks_to_pot,
                          "point_value": t.point_value}
            h = uow.mahjong_tables.add_hand(MahjongHand(
                id=0, table_id=t.id, number=cmd.number, kind="win", rule_set=rules.rule_set, dealer=dealer,
                winner=winner, discarder=discarder, declaration=score.declaration, result=score.to_dict(),
                settlement=settlement, fee=st.fee, entry_id=entry, recorded_by=principal.id))
            t = replace(t, hand_seq=cmd.number,
                        riichi_pot=t.riichi_pot + st.sticks_to_pot if score.payment_form == "nagashi_draw" else 0)
            uow.mahjong_tables.save(t)
            return MahjongHandRecorded(**hand_fields(t, h), table_state=MahjongTableView(**table_fields(uow, t)))

        return run_once(self.ctx, key, fn, result=MahjongHandRecorded)

    def draw(self, principal: Principal, code: str, cmd: DrawHand, key: OnceKey) -> Once[MahjongHandRecorded]:
        """Record an exhaustive draw: the dealer deals again when ``dealer_tenpai``, else the deal
        passes on; each riichi seat puts a 1,000-point stick into the pot, carried to the next win. No other
        payment (tenpai/noten payments are not modelled; a nagashi mangan is scored as a hand with the
        ``nagashi_mangan`` condition)."""
        require_role(principal, *SCORER_ROLES)

        def fn(uow: MahjongUnitOfWork) -> MahjongHandRecorded:
            t = uow.mahjong_tables.get(code, for_update=True)
            seats = self._next_hand(uow, t, cmd.number)
            by_seat = {s.seat: s for s in seats}
            dealer = cmd.dealer or next_dealer(uow, t)
            if not isinstance(cmd.dealer_tenpai, bool):
                raise TableRuleError("dealer_tenpai", "dealer_tenpai is true or false")
            if dealer not in mj.SEATS:
                raise TableRuleError("dealer", "dealer is a seat: E, S, W or N")
            riichi_seats = list(cmd.riichi_seats)
            if any(s not in mj.SEATS for s in riichi_seats) or len(set(riichi_seats)) != len(riichi_seats):
                raise TableRuleError("riichi_seats", "riichi_seats are distinct seats: E, S, W, N")
            if riichi_seats and t.rules.get("rule_set") == "korean":
                raise TableRuleError("riichi_seats", "the Korean rule set has no riichi sticks")
            stick = mj.STICK_POINTS * t.point_value
            won = {s: (-stick if s in riichi_seats else 0) for s in mj.SEATS}
            self._check_cover(uow, code, by_seat, won)
            e = L.EntryBuilder("mahjong.draw", f"mahjong {code} hand {cmd.number}: draw")
            for s in riichi_seats:
                e.add(debit=accounts.mahjong_stack(code, by_seat[s].player_id), credit=accounts.mahjong_pot(code),
                      amount=stick)
            entry = uow.ledger.post(e.build({"mahjong": code, "hand": cmd.number})) if not e.empty else None
            h = uow.mahjong_tables.add_hand(MahjongHand(
                id=0, table_id=t.id, number=cmd.number, kind="draw", rule_set=t.rules.get("rule_set", "riichi"),
                dealer=dealer, declaration={}, result={},
                settlement={"seats": {s: {"player_id": by_seat[s].player_id, "won": won[s]} for s in mj.SEATS},
                            "riichi_sticks_paid": sorted(riichi_seats), "dealer_tenpai": cmd.dealer_tenpai},
                fee=0, entry_id=entry, recorded_by=principal.id))
            t = replace(t, hand_seq=cmd.number, riichi_pot=t.riichi_pot + len(riichi_seats))
            uow.mahjong_tables.save(t)
            return MahjongHandRecorded(**hand_fields(t, h), table_state=MahjongTableView(**table_fields(uow, t)))

        return run_once(self.ctx, key, fn, result=MahjongHandRecorded)


# ---------------------------------------------------------------------- demo floor
DEMO_TABLES = (
    ("MJ-01", "Mahjong 1 (riichi)", {"rule_set": "riichi"}, 10),
    ("MJ-02", "Mahjong 2 (Korean)", {"rule_set": "korean"}, 1_000),
)


def seed_mahjong(uow: MahjongUnitOfWork) -> list[str]:
    """Demo mahjong tables (idempotent): MJ-01 riichi at ₩10 a point, MJ-02 Korean at ₩1,000 a point; house fee
    5% of the winner's take rounded up to ₩100; buy-in ₩100,000 – ₩2,000,000."""
    made = []
    for code, name, rules, pv in DEMO_TABLES:
        if uow.mahjong_tables.find(code) is not None:
            continue
        new_table(uow, NewMahjongTable(code=code, name=name, rules=rules, point_value=pv, fee_ppm=50_000,
                                       fee_unit=100, min_buy_in=100_000, max_buy_in=2_000_000))
        made.append(code)
    return made
