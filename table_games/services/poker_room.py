"""Poker room use cases: tables, seats, buy-ins and cash-outs on the wallet, hands played through pokerkit
(``table_games.domain.poker_room``), settlement with rake, records and PHH hand histories.

Money (DESIGN §4). A seated player's chips at a table are the ledger account ``poker:<code>:stack:<player>``
(liability, never negative). Buy-in: wallet → stack (:meth:`PlayerWallet.transfer`, one entry, Idempotency-Key);
cash-out: stack → cashable wallet. Chips stay in the stack accounts while a hand is played; when the hand ends
ONE balanced entry ``poker.hand`` moves each player's net (finishing − starting stack) between the stack
accounts and the rake into ``poker:<code>:rake`` (house revenue): Σ (starting − finishing) = rake.

Locks: every use case that changes a table takes its row FOR UPDATE first (table → player row → accounts), so
hands, actions, buy-ins and cash-outs at one table serialise; the wallet check runs under the player row lock.

Roles: pit / supervisor / operator open tables; pit / supervisor seat players, take buy-ins and cash-outs, start
hands and may act for a seated player (dealer); a player with their own token (``pl_…``) sits, buys in, cashes out
and acts only for themselves; auditor / host read. Errors: ``NotFound`` (404), ``Conflict`` (409: seat taken,
second seat, hand in play, stale ``seq``), ``TableRuleError`` (422: out of turn ``seat``, ``action``, ``amount``,
buy-in ``amount`` outside [min, max]), ``InsufficientFunds`` (409), ``Forbidden`` (403).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from slotsys.kernel import accounts
from slotsys.kernel import ledger as L
from slotsys.kernel.checks import require_role
from slotsys.kernel.context import Principal, ServiceContext
from slotsys.kernel.errors import Conflict, Forbidden, NotFound, ValidationFailed
from slotsys.kernel.idempotency import Once, OnceKey, run_once
from table_games.domain import poker_room as P
from table_games.domain.errors import TableRuleError
from table_games.domain.model import PokerHand, PokerSeat, PokerTable
from table_games.services.ports import PlayerWallet, PokerRoomUnitOfWork
from table_games.services.results import (
    PokerBuyIn, PokerCashOut, PokerHandList, PokerHandView, PokerTableList, PokerTableView,
)

MANAGER_ROLES = ("pit", "supervisor", "operator")
DEALER_ROLES = ("pit", "supervisor")
READ_ROLES = ("pit", "supervisor", "operator", "auditor", "host")


@dataclass(frozen=True)
class PokerAction:
    """One action: ``fold`` / ``check`` / ``call`` / ``bet`` / ``raise`` / ``all_in``; ``amount``: the raise-to
    (won); ``seq``: the actions the caller has seen (a stale one is refused); ``seat``: the dealer's check of
    whose turn it is."""

    action: str
    amount: int | None = None
    seq: int | None = None
    seat: int | None = None


def _stack(uow: PokerRoomUnitOfWork, code: str, player_id: int) -> int:
    try:
        return uow.ledger.balance(accounts.poker_stack(code, player_id))
    except NotFound:
        return 0


def _cfg(t: PokerTable | PokerHand) -> P.RoomConfig:
    return P.RoomConfig.from_dict(t.rules)


def _state(h: PokerHand) -> Any:
    return P.rebuild(_cfg(h), h.starting_stacks, h.deck, h.actions)


def _player_only(principal: Principal, player_id: int) -> None:
    """A player token acts only for itself; staff need a dealer role."""
    if principal.kind == "player":
        if int(principal.name) != player_id:
            raise Forbidden("a player acts only for themselves", field="player_id")
    else:
        require_role(principal, *DEALER_ROLES)


class PokerRoomService:
    def __init__(self, ctx: ServiceContext, wallet: PlayerWallet) -> None:
        self.ctx = ctx
        self.wallet = wallet

    # ------------------------------------------------------------------ views
    @staticmethod
    def _table_view(uow: PokerRoomUnitOfWork, t: PokerTable) -> PokerTableView:
        repo = uow.poker_tables
        cur = repo.hand(t.id, t.hand_seq) if t.hand_seq else None
        return PokerTableView(
            code=t.code, name=t.name, rules=t.rules, status=t.status, button_seat=t.button_seat, hands=t.hand_seq,
            hand_in_play=cur.number if cur is not None and cur.status == "in_play" else None,
            seats=[{"seat": s.seat, "player_id": s.player_id, "stack": _stack(uow, t.code, s.player_id)}
                   for s in repo.seats(t.id)],
            rake_total=uow.ledger.balance(accounts.poker_rake(t.code)))

    @staticmethod
    def _hand_view(t: PokerTable, h: PokerHand, viewer: int | None = None, staff: bool = False,
                   state: Any = None) -> PokerHandView:
        """The hand as the table sees it. Hole cards: the viewer's own while in play; when complete, the shown
        hands (and, for staff, the PHH with every dealt card). ``state``: the pokerkit state if already built."""
        state = state if state is not None else _state(h)
        seat_of = [s["seat"] for s in h.seats]
        players = []
        for i, s in enumerate(h.seats):
            p = {"seat": s["seat"], "player_id": s["player_id"], "position": i, "stack": int(state.stacks[i]),
                 "bet": int(state.bets[i]), "in_hand": bool(state.statuses[i]) if state.status else None,
                 "starting_stack": h.starting_stacks[i]}
            if viewer is not None and s["player_id"] == viewer:
                p["hole"] = [repr(c) for c in state.hole_cards[i]]
            players.append(p)
        out: dict[str, Any] = {
            "table": t.code, "hand": h.number, "status": h.status, "variant": h.rules["variant"],
            "button_seat": h.button_seat, "players": players, "board": P.board(state),
            "pot": int(state.total_pot_amount), "seq": len(h.actions), "actions": list(h.actions)}
        lg = P.legal(state)
        if lg is not None:
            who = h.seats[lg["player"]]
            out["to_act"] = {"seat": who["seat"], "player_id": who["player_id"], "actions": lg["actions"],
                             "call": lg["call"], "min_raise_to": lg["min_raise_to"],
                             "max_raise_to": lg["max_raise_to"], "stack": lg["stack"]}
        else:
            out["to_act"] = None
        if h.status == "complete":
            out["results"] = h.results
            out["showdown"] = [{**x, "seat": seat_of[x["position"]], "player_id": h.seats[x["position"]]["player_id"]}
                               for x in P.showdown(state)]
            out["rake"] = h.rake
            out["finishing_stacks"] = h.finishing_stacks
            out["entry"] = h.entry_id
            if staff:
                out["phh"] = h.phh
        return PokerHandView(**out)

    # ------------------------------------------------------------------ tables
    def create_table(self, principal: Principal, code: str, name: str, rules: dict[str, Any]) -> PokerTableView:
        """Open a table with its rules (:class:`~table_games.domain.poker_room.RoomConfig` fields). 409 if the
        code exists; 422 bad rules."""
        require_role(principal, *MANAGER_ROLES)
        cfg = P.RoomConfig.from_dict(rules)
        with self.ctx.uow() as uow:
            if uow.poker_tables.find(code) is not None:
                raise Conflict(f"poker table {code!r} exists", field="code")
            t = new_poker_table(uow, code=code, name=name or code, cfg=cfg)
            out = self._table_view(uow, t)
            uow.commit()
            return out

    def list_tables(self, principal: Principal) -> PokerTableList:
        require_role(principal, *READ_ROLES)
        with self.ctx.uow(readonly=True) as uow:
            return PokerTableList(tables=[self._table_view(uow, t) for t in uow.poker_tables.all()])

    def get_table(self, principal: Principal, code: str) -> PokerTableView:
        if principal.kind != "player":
            require_role(principal, *READ_ROLES)
        with self.ctx.uow(readonly=True) as uow:
            return self._table_view(uow, uow.poker_tables.get(code))

    # ------------------------------------------------------------------ seats and chips
    @staticmethod
    def _dealt_in(uow: PokerRoomUnitOfWork, t: PokerTable, player_id: int) -> bool:
        if not t.hand_seq:
            return False
        h = uow.poker_tables.hand(t.id, t.hand_seq)
        return h.status == "in_play" and any(s["player_id"] == player_id for s in h.seats)

    def sit(self, principal: Principal, code: str, seat: int, player_id: int) -> PokerTableView:
        """Seat ``player_id`` at ``seat`` (1..seats). 409 seat taken / player already seated here; 422 bad seat."""
        _player_only(principal, player_id)
        with self.ctx.uow() as uow:
            repo = uow.poker_tables
            t = repo.get(code, for_update=True)
            if t.status != "open":
                raise Conflict(f"poker table {code} is closed", field="code")
            if not 1 <= seat <= _cfg(t).seats:
                raise TableRuleError("seat", f"table {code} has seats 1-{_cfg(t).seats}")
            self.wallet.require_player(uow, player_id)
            seats = repo.seats(t.id)
            if any(s.seat == seat for s in seats):
                raise Conflict(f"seat {seat} at {code} is taken", field="seat")
            if any(s.player_id == player_id for s in seats):
                raise Conflict(f"player {player_id} already has a seat at {code}", field="player_id")
            self.wallet.open(uow, player_id)
            uow.ledger.ensure_account(accounts.poker_stack(code, player_id), L.AccountType.LIABILITY, non_negative=True)
            repo.add_seat(t.id, PokerSeat(seat, player_id))
            out = self._table_view(uow, t)
            uow.commit()
            return out

    def buy_in(self, principal: Principal, code: str, player_id: int, amount: int, key: OnceKey) -> Once[PokerBuyIn]:
        """Wallet → table stack (won). The stack after the buy-in must lie within [min_buy_in, max_buy_in] and the
        amount reach min_buy_in when the stack is empty (422 ``amount``); not while the player is dealt into a hand
        in play (409); 409 ``insufficient-funds`` from the wallet."""
        pid = player_id
        _player_only(principal, pid)

        def fn(uow: PokerRoomUnitOfWork) -> PokerBuyIn:
            t = uow.poker_tables.get(code, for_update=True)
            if not any(s.player_id == pid for s in uow.poker_tables.seats(t.id)):
                raise Conflict(f"player {pid} has no seat at {code}", field="player_id")
            if self._dealt_in(uow, t, pid):
                raise Conflict("buy in between hands (the player is dealt into the hand in play)", field="player_id")
            cfg = _cfg(t)
            have = _stack(uow, code, pid)
            if have + amount > cfg.max_buy_in or (have < cfg.min_buy_in and have + amount < cfg.min_buy_in):
                raise TableRuleError("amount", f"buy-ins at {code} bring the stack to ₩{cfg.min_buy_in:,}-"
                                               f"₩{cfg.max_buy_in:,} (the stack is ₩{have:,})",
                                     min_buy_in=cfg.min_buy_in, max_buy_in=cfg.max_buy_in, stack=have)
            entry = self.wallet.transfer(uow, player_id=pid, counter_account=accounts.poker_stack(code, pid),
                                         amount=amount, direction="out", kind="poker.buy_in",
                                         refs={"poker_table": code})
            return PokerBuyIn(table=code, player_id=pid, amount=amount, stack=_stack(uow, code, pid), entry=entry,
                              wallet=self.wallet.balances(uow, pid))

        return run_once(self.ctx, key, fn, result=PokerBuyIn)

    def cash_out(self, principal: Principal, code: str, player_id: int, leave: bool,
                 key: OnceKey) -> Once[PokerCashOut]:
        """Table stack → cashable wallet (the whole stack); ``leave`` also frees the seat. 409 while dealt in."""
        pid = player_id
        _player_only(principal, pid)

        def fn(uow: PokerRoomUnitOfWork) -> PokerCashOut:
            repo = uow.poker_tables
            t = repo.get(code, for_update=True)
            seat = next((s for s in repo.seats(t.id) if s.player_id == pid), None)
            if seat is None:
                raise NotFound(f"player {pid} has no seat at {code}", field="player_id")
            if self._dealt_in(uow, t, pid):
                raise Conflict("cash out between hands (the player is dealt into the hand in play)", field="player_id")
            amount = _stack(uow, code, pid)
            entry = (self.wallet.transfer(uow, player_id=pid, counter_account=accounts.poker_stack(code, pid),
                                          amount=amount, direction="in", kind="poker.cash_out",
                                          refs={"poker_table": code}) if amount else None)
            if leave:
                repo.remove_seat(t.id, seat.seat)
            return PokerCashOut(table=code, player_id=pid, amount=amount, entry=entry, left=leave,
                                wallet=self.wallet.balances(uow, pid))

        return run_once(self.ctx, key, fn, result=PokerCashOut)

    # ------------------------------------------------------------------ hands
    def start_hand(self, principal: Principal, code: str) -> PokerHandView:
        """Deal a new hand: the button moves to the next seat with chips; blinds/antes are posted and hole cards
        dealt from a deck shuffled with the CSPRNG. 409 if a hand is in play or fewer than two stacks."""
        require_role(principal, *DEALER_ROLES)
        with self.ctx.uow() as uow:
            repo = uow.poker_tables
            t = repo.get(code, for_update=True)
            if t.status != "open":
                raise Conflict(f"poker table {code} is closed", field="code")
            if t.hand_seq and repo.hand(t.id, t.hand_seq).status == "in_play":
                raise Conflict(f"hand {t.hand_seq} is still in play", field="hand")
            live = [(s.seat, s.player_id, _stack(uow, code, s.player_id)) for s in repo.seats(t.id)]
            live = [x for x in live if x[2] > 0]
            if len(live) < 2:
                raise Conflict("a hand needs two seated players with chips", field="seats")
            after = [x for x in live if t.button_seat is None or x[0] > t.button_seat]
            button = (after or live)[0][0]
            i = next(k for k, x in enumerate(live) if x[0] == button)
            order = live[i + 1:] + live[:i + 1]  # first seat left of the button ... the button last
            cfg = _cfg(t)
            deck = P.shuffled_deck(self.ctx.rng)
            P.new_state(cfg, [x[2] for x in order], deck)  # validates before anything is stored
            t = replace(t, button_seat=button, hand_seq=t.hand_seq + 1)
            repo.save(t)
            h = repo.add_hand(PokerHand(id=0, table_id=t.id, number=t.hand_seq, rules=t.rules, button_seat=button,
                                        seats=[{"seat": s, "player_id": p} for s, p, _ in order],
                                        starting_stacks=[x[2] for x in order], deck=deck, actions=[],
                                        status="in_play", rake=0, started_at=self.ctx.clock.now()))
            out = self._hand_view(t, h, staff=True)
            uow.commit()
            return out

    def get_hand(self, principal: Principal, code: str, number: int) -> PokerHandView:
        viewer = int(principal.name) if principal.kind == "player" else None
        if viewer is None:
            require_role(principal, *READ_ROLES)
        with self.ctx.uow(readonly=True) as uow:
            t = uow.poker_tables.get(code)
            return self._hand_view(t, uow.poker_tables.hand(t.id, number), viewer, staff=viewer is None)

    def hands(self, principal: Principal, code: str) -> PokerHandList:
        require_role(principal, *READ_ROLES)
        with self.ctx.uow(readonly=True) as uow:
            t = uow.poker_tables.get(code)
            return PokerHandList(table=code, hands=[{"hand": h.number, "status": h.status,
                                                     "button_seat": h.button_seat, "rake": h.rake,
                                                     "results": h.results} for h in uow.poker_tables.hands(t.id)])

    def act(self, principal: Principal, code: str, number: int, cmd: PokerAction, key: OnceKey) -> Once[PokerHandView]:
        """One action by the player to act (own token) or the dealer for them. When it ends the hand, the hand
        settles in the same transaction (one ``poker.hand`` entry). 422 ``seat`` out of turn, ``action`` /
        ``amount`` illegal; 409 ``seq`` stale or the hand is over."""

        def fn(uow: PokerRoomUnitOfWork) -> PokerHandView:
            repo = uow.poker_tables
            t = repo.get(code, for_update=True)
            h = repo.hand(t.id, number)
            if h.status != "in_play":
                raise Conflict(f"hand {number} is over", field="hand")
            if cmd.seq is not None and cmd.seq != len(h.actions):
                raise Conflict(f"the hand has moved on: {len(h.actions)} actions, not {cmd.seq}", field="seq",
                               seq=len(h.actions))
            state = _state(h)
            lg = P.legal(state)
            actor = h.seats[lg["player"]] if lg else None
            if principal.kind == "player":
                me = int(principal.name)
                mine = next((i for i, s in enumerate(h.seats) if s["player_id"] == me), None)
                if mine is None:
                    raise Forbidden(f"player {me} is not dealt into hand {number}", field="seat")
                if actor is None or actor["player_id"] != me:
                    raise TableRuleError("seat", "it is not your turn",
                                         to_act_seat=actor["seat"] if actor else None)
                index = mine
            else:
                require_role(principal, *DEALER_ROLES)
                if cmd.seat is not None and actor is not None and cmd.seat != actor["seat"]:
                    raise TableRuleError("seat", f"it is seat {actor['seat']}'s turn, not seat {cmd.seat}'s",
                                         to_act_seat=actor["seat"])
                index = lg["player"] if lg else -1
            done = P.act(state, index, cmd.action, cmd.amount)
            h = replace(h, actions=[*h.actions, done])
            if not state.status:
                h = self._settle(uow, t, h, state)
            repo.save_hand(h)
            return self._hand_view(t, h, staff=principal.kind != "player",
                                   viewer=int(principal.name) if principal.kind == "player" else None, state=state)

        return run_once(self.ctx, key, fn, result=PokerHandView)

    def _settle(self, uow: PokerRoomUnitOfWork, t: PokerTable, h: PokerHand, state: Any) -> PokerHand:
        """ONE balanced entry: each stack account by −(finishing − starting), the rake to house revenue. Returns
        the completed hand."""
        res = P.HandResult.of(state)
        postings = []
        for s, net in zip(h.seats, res.net):
            if net:
                postings.append(L.Posting(accounts.poker_stack(t.code, s["player_id"]), -int(net)))
        if res.rake:
            postings.append(L.Posting(accounts.poker_rake(t.code), -int(res.rake)))
        entry_id = None
        if postings:
            entry_id = uow.ledger.post(L.JournalEntry("poker.hand", tuple(postings), f"{t.code} hand {h.number}",
                                                      {"poker_table": t.code, "hand": h.number}))
        seats = [s["seat"] for s in h.seats]
        cfg = _cfg(h)
        return replace(
            h, entry_id=entry_id, finishing_stacks=[int(x) for x in res.finishing_stacks], rake=int(res.rake),
            results={"net": {str(s["player_id"]): int(n) for s, n in zip(h.seats, res.net)},
                     "winners": [{"seat": seats[i], "player_id": h.seats[i]["player_id"], "won": int(n)}
                                 for i, n in enumerate(res.net) if n > 0]},
            phh=P.to_phh(cfg, state, players=[f"player {s['player_id']}" for s in h.seats], seats=seats,
                         seat_count=cfg.seats, table=t.code, hand=h.number, venue="slotsys poker room",
                         currency="KRW", currency_symbol="₩"),
            status="complete", ended_at=self.ctx.clock.now())

    # ------------------------------------------------------------------ hand histories
    def hand_phh(self, principal: Principal, code: str, number: int) -> str:
        """The finished hand's PHH text (staff readers only: it shows every dealt card)."""
        require_role(principal, *READ_ROLES)
        with self.ctx.uow(readonly=True) as uow:
            t = uow.poker_tables.get(code)
            h = uow.poker_tables.hand(t.id, number)
            if h.phh is None:
                raise Conflict(f"hand {number} is still in play", field="hand")
            return h.phh

    def replay_hand(self, principal: Principal, code: str, number: int) -> dict[str, Any]:
        """Replay the stored PHH with pokerkit: its finishing stacks against the settled hand's record."""
        text = self.hand_phh(principal, code, number)
        with self.ctx.uow(readonly=True) as uow:
            h = uow.poker_tables.hand(uow.poker_tables.get(code).id, number)
            out = P.replay_phh(text)
            out["matches"] = out["finishing_stacks"] == h.finishing_stacks and bool(out["matches"])
            out["rake_recorded"] = h.rake
            return {"table": code, "hand": number, **out}

    def replay_phh(self, principal: Principal, text: str) -> dict[str, Any]:
        """Import a PHH hand (any source) and replay it: ``{"finishing_stacks", "expected", "matches", "overrides",
        "warnings", ...}`` (see :func:`table_games.domain.poker_room.replay_phh` for the flag-override rule)."""
        require_role(principal, *READ_ROLES)
        if not text or not text.strip():
            raise ValidationFailed("send the PHH text", field="phh")
        return P.replay_phh(text)


# ---------------------------------------------------------------------- tables and the demo room
def new_poker_table(uow: PokerRoomUnitOfWork, *, code: str, name: str, cfg: P.RoomConfig) -> PokerTable:
    """A poker table with its rake account (house revenue)."""
    t = uow.poker_tables.create(PokerTable(id=0, code=code, name=name, rules=cfg.to_dict(), status="open"))
    uow.ledger.ensure_account(accounts.poker_rake(code), L.AccountType.REVENUE)
    return t


DEMO_POKER_TABLES = (
    ("PK-NL-01", "No-limit hold'em ₩1,000/₩2,000",
     P.RoomConfig(variant="NL", seats=9, small_blind=1_000, big_blind=2_000, min_buy_in=40_000, max_buy_in=200_000,
                  rake_ppm=50_000, rake_cap=10_000)),
    ("PK-FL-01", "Fixed-limit hold'em ₩20,000/₩40,000",
     P.RoomConfig(variant="FL", seats=10, small_blind=10_000, big_blind=20_000, small_bet=20_000, big_bet=40_000,
                  min_buy_in=400_000, max_buy_in=4_000_000)),
)


def seed_poker_tables(uow: PokerRoomUnitOfWork) -> list[str]:
    """The demo poker room (idempotent): a no-limit table (5% rake, capped at ₩10,000) and a fixed-limit one."""
    made = []
    for code, name, cfg in DEMO_POKER_TABLES:
        if uow.poker_tables.find(code) is not None:
            continue
        new_poker_table(uow, code=code, name=name, cfg=cfg)
        made.append(code)
    return made
