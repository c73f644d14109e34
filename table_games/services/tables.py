"""Table use cases on the shared wallet: tables and seats, rounds (open betting → bets → no more bets →
outcome from the CSPRNG or dealer input → settle), records, replay, the baccarat shoe and roadmaps.

Money (DESIGN §4): a bet is debited from the player's cashable wallet into ``table:<code>:bets`` when
placed (``WalletService.debit_for_table``); settling a round, in ONE transaction, moves the house's net
between ``table:<code>:bets`` and ``table:<code>:hold`` (one entry) and credits each player's payout
(stake returned + win − commission, per the engines' :class:`Settlement`) from the bet account (one entry
per player). A void round returns every bet. Lock order: table row → round row → (progressive level row) →
player row → accounts. The table row lock serialises the bets of one table, so the limits hold under concurrency.

Blackjack and the house-banked poker games (three card poker, Caribbean stud, hold'em bonus, pai gow poker:
:mod:`table_games.services.poker_games`) are played decision by decision: ``deal`` after no more bets, one
``decide`` per decision (play / call / flop, turn and river bets are debited then), ``settle`` finishes the
round. A progressive side bet feeds the table's ``progressive_level`` on the jackpot controller, whose
contributions and awards are posted in the settlement's own transaction
(:func:`jackpot_controller.services.table.settle_table_round`).
"""

from __future__ import annotations

from typing import Any

from slotsys.kernel import accounts
from slotsys.kernel import ledger as L
from slotsys.kernel.errors import Conflict, Forbidden, InsufficientFunds, NotFound, ValidationFailed
from slotsys.kernel.money import milli_to_won_floor
from slotsys.kernel.context import Principal, ServiceContext
from slotsys.kernel.idempotency import fingerprint, OnceKey, run_once_dict
from slotsys.kernel.checks import require_role
from slotsys.players.services.wallet import WalletService
from jackpot_controller.services.controller import service_for
from jackpot_controller.services.table import TableAward, settle_table_round, table_level
from table_games.adapters.tables import ColourStack, GameTable, TableBacker, TableBet, TableRound, TableSeat
from table_games.domain import baccarat, bigwheel, blackjack, caribbean, holdem_bonus, paigow, roadmaps, roulette
from table_games.domain import house_edges, sicbo, three_card
from table_games.domain.poker_table import PROGRESSIVE
from table_games.domain.cards import card_strings, parse_cards
from table_games.domain.errors import BettingClosed, ShoeExhausted, TableRuleError
from table_games.domain.games import GAMES
from table_games.domain.limits import TableLimits
from table_games.domain.settlement import VOID, Bet, Void
from table_games.domain.shoe import Shoe
from table_games.services.poker_games import ANTE_GAMES, POKER, check_decision_bet, is_input

TABLE_GAMES = ("baccarat", "blackjack", "roulette", "sic_bo", "big_wheel", "three_card_poker", "caribbean_stud",
               "holdem_bonus", "pai_gow_poker")
PLAYED = ("blackjack", *POKER)  # dealt, then decided one decision at a time
DEALER_ROLES = ("pit", "operator")  # pit staff act as dealers / inspectors
MANAGER_ROLES = ("operator",)
READ_ROLES = ("pit", "operator", "auditor", "host")
STATUSES = ("open", "closed", "private")


def _rules(t: GameTable):
    return GAMES[t.game].rules_from_dict(t.rules)


def _limits(t: GameTable) -> TableLimits:
    return TableLimits.from_dict(t.limits)


def _pid(player: str) -> int:
    return int(player)


def _bet_of(b: TableBet) -> Bet:
    return Bet(spot=b.spot, amount=b.amount, player=str(b.player_id), box=b.box, cap=b.cap, id=str(b.id))


def table_view(t: GameTable, seats: list[TableSeat], uow=None) -> dict:
    out = {"code": t.code, "game": t.game, "name": t.name, "rules": t.rules, "limits": t.limits,
           "chip_unit": t.chip_unit, "commission_unit": t.commission_unit, "status": t.status,
           "rounds": t.round_seq, "shoe_no": t.shoe_no,
           "seats": [{"seat": s.seat, "player_id": s.player_id} for s in seats]}
    if t.shoe is not None:
        out["shoe"] = {"cards_left": len(t.shoe["cards"]) - t.shoe["pos"], "cut_card_out": t.shoe.get("cut_card_out", False)}
    if t.progressive_level:
        out["progressive_level"] = t.progressive_level
    if uow is not None:
        out["bets_in_play"] = uow.ledger.balance(accounts.table_bets(t.code))
        if t.progressive_level:
            lv = uow.levels.get(t.progressive_level)
            out["progressive"] = {"level": lv.code, "value": milli_to_won_floor(lv.value_milli), "cycle": lv.cycle,
                                  "paused": lv.paused} if lv else None
        if t.game == "roulette":
            out["colour_stacks"] = [{"player_id": c.player_id, "colour": c.colour, "chip_value": c.chip_value,
                                     "chips": c.chips, "value": c.chips * c.chip_value} for c in uow.tables.stacks(t.id)]
    return out


def round_view(t: GameTable, r: TableRound, bets: list[TableBet]) -> dict:
    return {"table": t.code, "game": t.game, "round": r.number, "status": r.status, "mode": r.mode,
            "shoe_no": r.shoe_no, "outcome": r.outcome,
            "bets": [{"id": b.id, "player_id": b.player_id, "spot": b.spot, "box": b.box, "amount": b.amount,
                      "cap": b.cap, "placed_by": b.placed_by, "entry": b.entry_id} for b in bets],
            "settlements": r.settlements, "house_net": r.house_net,
            "opened_at": r.opened_at.isoformat() if r.opened_at else None,
            "settled_at": r.settled_at.isoformat() if r.settled_at else None}


def _apply(rnd, d: dict):
    a = d.get("action")
    if a == "insurance":
        return rnd.insure(d["box"], d.get("amount"))
    if a == "even_money":
        return rnd.take_even_money(d["box"])
    if a == "no_insurance":
        return rnd.decline_insurance(d["box"])
    return rnd.act(d["box"], a, d.get("amount"))


class _Round(blackjack.BlackjackRound):
    def finish_checked(self):
        """The dealer's hand from the cards given; raises :class:`TableRuleError` (``cards``) naming the card the
        dealer still needs (``dealer_needs``: the second card, or the next card while drawing to 17)."""
        try:
            return self.finish()
        except ShoeExhausted:
            need = self.dealer_needs or "next card"
            raise TableRuleError("cards", f"enter the dealer's {need}", dealer_needs=need) from None


def bj_play(t: GameTable, rules, bets: list[Bet], cards: list, done: list[dict], new: list[dict]):
    """Rebuild a blackjack round from its cards and the decisions made so far, then apply ``new`` ones.

    Returns (round, extra bets of the new decisions). The boxes are the seated players' main bets."""
    stakes: dict[str, tuple[str, int]] = {}
    for b in bets:
        if b.spot == "main" and b.box is not None:
            owner, amt = stakes.get(b.box, (b.player, 0))
            if owner == b.player:
                stakes[b.box] = (owner, amt + b.amount)
    order = sorted(stakes, key=lambda b: (len(b), b))  # seat order: the dealer's left first
    boxes = [blackjack.BoxStake(box, *stakes[box]) for box in order]
    extra: list[Bet] = []
    rnd = None
    try:
        rnd = _Round(rules, Shoe.stacked(parse_cards(cards)), boxes, chip_unit=t.chip_unit)
        for d in done:
            _apply(rnd, d)
        for d in new:
            x = _apply(rnd, d)
            if isinstance(x, Bet):
                extra.append(x)
    except ShoeExhausted:
        raise TableRuleError("cards", _card_prompt(rnd, len(boxes), (done + new)[-1:])) from None
    except KeyError as e:
        raise TableRuleError("decisions", f"a decision needs {e.args[0]}") from None
    return rnd, extra


def _card_prompt(rnd, n_boxes: int, last: list[dict]) -> str:
    """What to type when the cards entered so far run out: the initial deal's cards, a split hand's second card,
    or the card the last decision draws."""
    if rnd is None:
        return f"enter the initial deal: {2 * n_boxes + 1} cards (each box, the dealer's upcard, each box)"
    waiting = rnd.hand_waiting_for_card()
    if waiting is not None:
        return f"enter box {waiting[0]} hand {waiting[1]}'s second card"
    if last and last[0].get("action") in ("hit", "double"):
        return f"enter the card box {last[0].get('box')} draws ({last[0]['action']})"
    return "enter the next card (the cards given have run out)"


def bj_view(rnd) -> dict:
    """What the table shows during play: the upcard, every hand, who acts and what they may do, and
    ``dealer_needs`` once every hand is played: ``"second card"``, ``"next card"`` (drawing to 17) or None (settle:
    the dealer's hand is complete, or no bet depends on it and it stays at the upcard)."""
    try:
        allowed = rnd.allowed_actions() if not rnd.finished else []
    except ShoeExhausted:
        allowed = []
    cur = rnd.current
    return {"dealer": card_strings(rnd.dealer), "insurance_open": rnd.insurance_open, "dealer_needs": rnd.dealer_needs,
            "to_act": {"box": cur[0], "hand": cur[1], "allowed": allowed} if cur else None,
            "boxes": {bx.box: {"player_id": int(bx.player), "insurance": bx.insurance, "even_money": bx.even_money,
                               "hands": [{"id": h.id, "cards": card_strings(h.cards), "total": h.total,
                                          "stake": h.stake, "double": h.double, "surrendered": h.surrendered,
                                          "done": h.done} for h in (bx.hand(i) for i in bx.order)]}
                      for bx in rnd.boxes.values()}}


def create_table_accounts(uow, code: str, game: str = "") -> None:
    uow.ledger.ensure_account(accounts.table_bets(code), L.AccountType.LIABILITY, non_negative=True)
    uow.ledger.ensure_account(accounts.table_hold(code), L.AccountType.REVENUE)
    if game == "roulette":
        uow.ledger.ensure_account(accounts.table_chips(code), L.AccountType.LIABILITY, non_negative=True)


def new_table(uow, *, code: str, game: str, name: str = "", rules: dict | None = None, limits: dict | None = None,
              chip_unit: int = 1_000, commission_unit: int = 100, status: str = "open",
              progressive_level: str | None = None) -> GameTable:
    """Create a table with its two ledger accounts (rules/limits default to the game's). ``progressive_level``:
    the jackpot controller's ``table`` level its progressive side bet feeds (three card poker, Caribbean
    stud, hold'em bonus)."""
    if game not in TABLE_GAMES:
        raise ValidationFailed(f"game must be one of {', '.join(TABLE_GAMES)}", field="game")
    if status not in STATUSES:
        raise ValidationFailed("status must be open, closed or private", field="status")
    eng = GAMES[game]
    try:
        r = eng.rules_from_dict(rules) if rules else eng.default_rules
        rd = r.to_dict()
        if game in ("baccarat", "pai_gow_poker"):  # commissions round up to the table's unit
            rd["commission_unit"] = commission_unit
            r = eng.rules_from_dict(rd)
            rd = r.to_dict()
    except (TypeError, ValueError, KeyError) as e:
        raise ValidationFailed(f"rules: {e}", field="rules") from None
    try:
        if limits:
            lim = TableLimits.from_dict(limits)
        elif game == "big_wheel":
            lim = eng.default_limits(r, chip_unit=chip_unit)
        else:
            lim = eng.default_limits(chip_unit=chip_unit)
    except (TypeError, ValueError, KeyError) as e:
        raise ValidationFailed(f"limits: {e}", field="limits") from None
    if lim.chip_unit != chip_unit:
        raise ValidationFailed("limits.chip_unit must equal chip_unit", field="limits")
    if progressive_level is not None:
        if POKER.get(game) is None or POKER[game].awards is None:
            raise ValidationFailed(f"{game} has no progressive side bet", field="progressive_level")
        table_level(uow, progressive_level)
    t = GameTable(code=code, game=game, name=name or code, rules=rd, limits=lim.to_dict(), chip_unit=chip_unit,
                  commission_unit=commission_unit, status=status, round_seq=0, shoe_no=0, shoe=None,
                  progressive_level=progressive_level)
    uow.tables.add(t)
    create_table_accounts(uow, code, game)
    return t


def _check_kwargs(t: GameTable, rules) -> dict:
    if t.game in ("blackjack", "roulette", *ANTE_GAMES):  # the poker games: the progressive's fixed stake
        return {"rules": rules}
    if t.game == "big_wheel":
        return {"config": rules}
    return {}


class TableService:
    def __init__(self, ctx: ServiceContext) -> None:
        self.ctx = ctx

    # ------------------------------------------------------------------ tables
    def create(self, principal: Principal, data: dict) -> dict:
        require_role(principal, *MANAGER_ROLES)
        with self.ctx.uow() as uow:
            try:
                uow.tables.get(data["code"])
                raise Conflict(f"table {data['code']!r} exists", field="code")
            except NotFound:
                pass
            t = new_table(uow, **data)
            out = table_view(t, [], uow)
            uow.commit()
            return out

    def update(self, principal: Principal, code: str, status: str) -> dict:
        require_role(principal, *MANAGER_ROLES)
        if status not in STATUSES:
            raise ValidationFailed("status must be open, closed or private", field="status")
        with self.ctx.uow() as uow:
            t = uow.tables.get(code, for_update=True)
            t.status = status
            out = table_view(t, uow.tables.seats(t.id), uow)
            uow.commit()
            return out

    def list(self, principal: Principal) -> dict:
        require_role(principal, *READ_ROLES)
        with self.ctx.uow(readonly=True) as uow:
            return {"tables": [table_view(t, uow.tables.seats(t.id), uow) for t in uow.tables.all()]}

    def house_edges(self, principal: Principal) -> dict:
        """Every game's stated house edge (:func:`table_games.domain.house_edges.catalogue`): exact figures
        and stored simulations with their 95% CI, the published figure beside each. Nothing is simulated."""
        require_role(principal, *READ_ROLES)
        return {"games": house_edges.catalogue()}

    def get(self, principal: Principal, code: str) -> dict:
        require_role(principal, *READ_ROLES)
        with self.ctx.uow(readonly=True) as uow:
            t = uow.tables.get(code)
            return table_view(t, uow.tables.seats(t.id), uow)

    # ------------------------------------------------------------------ seats
    def sit(self, principal: Principal, code: str, seat: str, player_id: int) -> dict:
        require_role(principal, *DEALER_ROLES)
        with self.ctx.uow() as uow:
            t = uow.tables.get(code, for_update=True)
            if t.status == "closed":
                raise Conflict(f"table {code} is closed", field="code")
            uow.players.get(player_id)
            WalletService.open(uow, player_id)
            seats = uow.tables.seats(t.id)
            if any(s.seat == seat for s in seats):
                raise Conflict(f"seat {seat} is taken", field="seat")
            if t.game == "pai_gow_poker":  # the dice count the places of the ring
                places = [p for p in _rules(t).ring if p != paigow.DEALER]
                if seat not in places:
                    raise ValidationFailed(f"a pai gow seat is one of {', '.join(sorted(places))}", field="seat")
            mine = sum(s.player_id == player_id for s in seats)
            most = _rules(t).boxes_per_player if t.game == "blackjack" else 1  # blackjack: a seat per box played
            if mine >= most:
                raise Conflict(f"player {player_id} already sits at {code}"
                               f"{f' in {most} boxes' if most > 1 else ''}", field="player_id")
            uow.tables.add(TableSeat(table_id=t.id, seat=seat, player_id=player_id))
            out = table_view(t, uow.tables.seats(t.id), uow)
            uow.commit()
            return out

    def leave(self, principal: Principal, code: str, seat: str) -> dict:
        require_role(principal, *DEALER_ROLES)
        with self.ctx.uow() as uow:
            t = uow.tables.get(code, for_update=True)
            s = next((s for s in uow.tables.seats(t.id) if s.seat == seat), None)
            if s is None:
                raise NotFound(f"nobody sits at seat {seat}", field="seat")
            for bk in uow.tables.backers(t.id, seat):  # a seated player's permissions leave with them
                uow.tables.delete(bk)
            uow.tables.delete(s)
            out = table_view(t, uow.tables.seats(t.id), uow)
            uow.commit()
            return out

    # ------------------------------------------------------------------ backers (spectators backing a box)
    def _seat_holder(self, principal: Principal, uow, t: GameTable, seat: str) -> TableSeat:
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
    def _backers_view(t: GameTable, s: TableSeat, rows: list[TableBacker]) -> dict:
        return {"table": t.code, "seat": s.seat, "player_id": s.player_id,
                "backers": [{"player_id": b.player_id, "granted_by": b.granted_by,
                             "granted_at": b.granted_at.isoformat() if b.granted_at else None}
                            for b in rows if b.granted_by_player == s.player_id]}

    def grant_backer(self, principal: Principal, code: str, seat: str, backer_id: int) -> dict:
        """The seated player (own token) or the pit lets ``backer_id`` back the box at ``seat``."""
        with self.ctx.uow() as uow:
            t = uow.tables.get(code, for_update=True)
            s = self._seat_holder(principal, uow, t, seat)
            if backer_id == s.player_id:
                raise ValidationFailed("the seated player plays their own box; name another player", field="player_id")
            uow.players.get(backer_id)
            WalletService.open(uow, backer_id)
            rows = uow.tables.backers(t.id, seat)
            old = next((b for b in rows if b.player_id == backer_id), None)
            if old is not None and old.granted_by_player != s.player_id:  # left over from an earlier occupant
                uow.tables.delete(old)
                old = None
            if old is None:
                uow.tables.add(TableBacker(table_id=t.id, seat=seat, player_id=backer_id,
                                           granted_by_player=s.player_id, granted_by=principal.id,
                                           granted_at=self.ctx.clock.now()))
            out = self._backers_view(t, s, uow.tables.backers(t.id, seat))
            uow.commit()
            return out

    def revoke_backer(self, principal: Principal, code: str, seat: str, backer_id: int) -> dict:
        """Withdraw the permission (bets already placed stay in play for the round)."""
        with self.ctx.uow() as uow:
            t = uow.tables.get(code, for_update=True)
            s = self._seat_holder(principal, uow, t, seat)
            row = next((b for b in uow.tables.backers(t.id, seat)
                        if b.player_id == backer_id and b.granted_by_player == s.player_id), None)
            if row is None:
                raise NotFound(f"player {backer_id} has no permission to back seat {seat}", field="player_id")
            uow.tables.delete(row)
            out = self._backers_view(t, s, uow.tables.backers(t.id, seat))
            uow.commit()
            return out

    def backers(self, principal: Principal, code: str, seat: str) -> dict:
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

    # ------------------------------------------------------------------ rounds
    def open_round(self, principal: Principal, code: str) -> dict:
        require_role(principal, *DEALER_ROLES)
        with self.ctx.uow() as uow:
            t = uow.tables.get(code, for_update=True)
            if t.status == "closed":
                raise Conflict(f"table {code} is closed", field="code")
            if t.round_seq:
                last = uow.tables.round(t.id, t.round_seq)
                if last.status in ("betting", "no_more_bets"):
                    raise Conflict(f"round {last.number} is still in play", field="round")
            t.round_seq += 1
            r = TableRound(table_id=t.id, number=t.round_seq, status="betting", shoe_no=t.shoe_no,
                           opened_at=self.ctx.clock.now())
            uow.tables.add(r)
            out = round_view(t, r, [])
            uow.commit()
            return out

    def no_more_bets(self, principal: Principal, code: str, number: int) -> dict:
        require_role(principal, *DEALER_ROLES)
        with self.ctx.uow() as uow:
            t = uow.tables.get(code, for_update=True)
            r = uow.tables.round(t.id, number, for_update=True)
            if r.status != "betting":
                raise BettingClosed(f"round {number} is {r.status}")
            r.status = "no_more_bets"
            out = round_view(t, r, uow.tables.bets(r.id))
            uow.commit()
            return out

    def get_round(self, principal: Principal, code: str, number: int) -> dict:
        require_role(principal, *READ_ROLES)
        with self.ctx.uow(readonly=True) as uow:
            t = uow.tables.get(code)
            r = uow.tables.round(t.id, number)
            rows = uow.tables.bets(r.id)
            out = round_view(t, r, rows)
            if t.game in POKER and r.status == "no_more_bets" and r.state and "decisions" in r.state:
                flow = POKER[t.game]
                out["play"] = flow.view(flow.rebuild(_rules(t), [_bet_of(b) for b in rows], r.state))
            elif t.game == "pai_gow_poker" and r.state:
                out["bank"] = {k: r.state[k] for k in ("banker", "banker_player", "house_bet") if k in r.state}
            return out

    # ------------------------------------------------------------------ bets
    def place_bet(self, principal: Principal, code: str, number: int, body: dict, idem_key: str | None) -> tuple[int, dict, bool]:
        """A bet by the player (player token: for themself only) or by a dealer on a seated player's behalf."""
        if principal.kind == "player":
            player_id = int(principal.name)
            if body.get("player_id") not in (None, player_id):
                raise Forbidden("a player bets only for themself", field="player_id")
        else:
            require_role(principal, *DEALER_ROLES)
            player_id = body.get("player_id")
            if player_id is None:
                raise ValidationFailed("player_id is required when staff place a bet", field="player_id")
        spot, amount, box = body["spot"], body["amount"], body.get("box")
        over_max = bool(body.get("accepted_over_max"))
        if over_max and principal.kind == "player":  # only the dealer can make (and own) that mistake
            raise Forbidden("only the pit accepts a bet over the maximum", field="accepted_over_max")

        def fn(uow) -> dict:
            t = uow.tables.get(code, for_update=True)
            if t.status == "closed":
                raise Conflict(f"table {code} is closed", field="code")
            r = uow.tables.round(t.id, number, for_update=True)
            seats = uow.tables.seats(t.id)
            existing = [_bet_of(b) for b in uow.tables.bets(r.id)]
            rules = _rules(t)
            seat_map = {s.seat: str(s.player_id) for s in seats}
            kw = _check_kwargs(t, rules)
            if t.game in PLAYED:
                kw["seats"] = seat_map
            elif box is not None:
                raise TableRuleError("box", f"{t.game} bets have no box")
            backing = box is not None and box in seat_map and seat_map[box] != str(player_id)
            if backing and t.game in ANTE_GAMES:  # one hand, one player: the engines play a box per ante
                raise TableRuleError("box", f"box {box} is {seat_map[box]}'s: at {t.game.replace('_', ' ')} a box's "
                                            "ante and side bets are the seated player's own")
            if str(spot).strip().lower() == PROGRESSIVE and t.game in POKER:
                self._progressive_open(uow, t)
            if backing:  # a spectator (or another seated player) backing someone's box: a live permission
                holder = int(seat_map[box])
                if not any(b.player_id == player_id and b.granted_by_player == holder
                           for b in uow.tables.backers(t.id, box)):
                    raise Forbidden(f"player {player_id} may back box {box} only with the seated player's permission",
                                    field="box")
                kw["permissions"] = {(box, str(player_id))}
                if not any(b.box == box and b.player == seat_map[box] and b.spot == "main" for b in existing):
                    raise Conflict(f"the seated player has no main bet on box {box} to back yet", field="box")
            elif not any(s.player_id == player_id for s in seats):
                raise Conflict(f"player {player_id} is not seated at {code}", field="player_id")
            if over_max:
                kw["accept_over_max"] = True
            participants = {b.player for b in existing} | {str(player_id)}
            stack = uow.tables.stack(t.id, player_id) if t.game == "roulette" else None
            if stack is not None:  # a colour-chip player bets whole chips of their colour
                kw["chip_value"] = stack.chip_value
            bet = GAMES[t.game].check_bet(Bet(spot=spot, amount=amount, player=str(player_id), box=box), _limits(t),
                                          existing, betting_open=(r.status == "betting"),
                                          participants=participants, **kw)
            refs = {"table": code, "round": number, "spot": bet.spot, "player": player_id}
            if stack is not None:
                if stack.chips * stack.chip_value < bet.amount:
                    raise InsufficientFunds(f"the {stack.colour} stack holds {stack.chips} chips of "
                                            f"₩{stack.chip_value:,}, less than ₩{bet.amount:,}", field="amount")
                stack.chips -= bet.amount // stack.chip_value
                e = L.EntryBuilder("table.colour_bet", f"{stack.colour} chips bet at {code}")
                e.add(debit=accounts.table_chips(code), credit=accounts.table_bets(code), amount=bet.amount)
                entry = uow.ledger.post(e.build({**refs, "colour": stack.colour}))
            else:
                entry = WalletService.debit_for_table(uow, player_id, accounts.table_bets(code), bet.amount, refs=refs)
            row = TableBet(round_id=r.id, player_id=player_id, spot=bet.spot, box=bet.box, amount=bet.amount,
                           cap=bet.cap, entry_id=entry, placed_by=principal.id, colour=stack.colour if stack else None)
            uow.tables.add(row)
            out = {"table": code, "round": number, "bet": {"id": row.id, "player_id": player_id, "spot": bet.spot,
                                                           "box": bet.box, "amount": bet.amount, "cap": bet.cap,
                                                           "entry": entry, "colour": row.colour},
                   "wallet": WalletService.balances(uow, player_id)}
            if stack is not None:
                out["colour_stack"] = {"colour": stack.colour, "chip_value": stack.chip_value, "chips": stack.chips}
            return out

        fp = fingerprint("POST", f"tables/{code}/rounds/{number}/bets", {**body, "player_id": player_id})
        res = run_once_dict(self.ctx, OnceKey(principal.id, idem_key, fp), fn, status=201)
        return res.status, res.body, res.replayed

    @staticmethod
    def _progressive_open(uow, t: GameTable) -> None:
        """A progressive bet needs the table's level on the jackpot controller, not paused."""
        if not t.progressive_level:
            raise TableRuleError("spot", f"table {t.code} offers no progressive (no progressive level is set)")
        if table_level(uow, t.progressive_level).paused:
            raise Conflict(f"the progressive {t.progressive_level} is paused", field="spot")

    # ------------------------------------------------------------------ pai gow: the bank, the helpers
    def take_bank(self, principal: Principal, code: str, number: int, seat: str,
                  idem_key: str | None) -> tuple[int, dict, bool]:
        """Pai gow: the player seated at ``seat`` banks this hand (after no more bets, before the dice).

        Rules (seed page 001, :func:`table_games.domain.paigow.check_banker`): once every ``bank_every`` (7)
        hands, having played the previous hand, able to cover the action: every other place's bets plus the
        house's bet against the banker (= the player's bet on the previous hand). The cover is debited from
        the wallet now (a ``bank`` bet) and settled with the round: the banker's hand plays each player, the
        dealer's hand (house way) plays the banker; 5% commission on the banker's net win. The banking
        player's place has no main bet of its own."""
        if principal.kind != "player":
            require_role(principal, *DEALER_ROLES)

        def fn(uow) -> dict:
            t = uow.tables.get(code, for_update=True)
            if t.game != "pai_gow_poker":
                raise ValidationFailed("players bank at pai gow poker only", field="code")
            r = uow.tables.round(t.id, number, for_update=True)
            if r.status != "no_more_bets" or r.state:
                raise Conflict(f"round {number}: the bank is taken once, after no more bets and before the deal",
                               field="round")
            pid = {s.seat: s.player_id for s in uow.tables.seats(t.id)}.get(seat)
            if pid is None:
                raise NotFound(f"nobody sits at seat {seat}", field="seat")
            if principal.kind == "player" and pid != int(principal.name):
                raise Forbidden(f"seat {seat} is not the player's", field="seat")
            bets = [_bet_of(b) for b in uow.tables.bets(r.id)]
            if any(b.box == seat for b in bets):
                raise TableRuleError("seat", f"place {seat} has bets this hand: the banking player's place plays none")
            rules = _rules(t)
            earlier = [x for x in uow.tables.rounds(t.id, limit=rules.bank_every + 1) if x.number < number]
            prev = next((x for x in earlier if x.number == number - 1), None)
            house_bet = sum(b.amount for b in (uow.tables.bets(prev.id) if prev else [])
                            if b.player_id == pid and b.spot == "main")
            banked = [x.number for x in earlier if (x.state or {}).get("banker_player") == pid]
            cover = paigow.banker_cover(bets, seat, house_bet)
            if cover == 0:
                raise TableRuleError("seat", "no player has a bet: there is no action to bank")
            paigow.check_banker(seat, number, rules, played_previous=bool(house_bet) or number - 1 in banked,
                                last_banked=max(banked, default=None),
                                bankroll=WalletService.balances(uow, pid)["cashable"], cover=cover)
            _, escrow = self._debit_decision_bet(uow, principal, t, r, Bet("bank", cover, str(pid), seat))
            r.state = {"banker": seat, "banker_player": pid, "house_bet": house_bet}
            return {"table": code, "round": number, "banker": seat, "player_id": pid, "cover": cover,
                    "house_bet": house_bet, "entry": escrow["entry"], "wallet": WalletService.balances(uow, pid)}

        res = run_once_dict(self.ctx, OnceKey(principal.id, idem_key, fingerprint("POST", f"tables/{code}/rounds/{number}/bank", {"seat": seat})), fn, status=201)
        return res.status, res.body, res.replayed

    def hand_help(self, principal: Principal, code: str, number: int, place: str, kind: str,
                  samples: int = 1_000) -> dict:
        """Pai gow helpers for a dealt hand (the seated player's token, or staff): ``house_way`` -- how the
        table's house way sets it ("house way for me"); ``optimal`` -- every non-foul setting valued against
        the dealer's house way (``samples`` dealer hands from the unseen cards, CSPRNG), best first, with the
        house way's own value (EV per unit bet after the 5% commission, ± its standard error). The valuation
        runs after the read transaction is closed (≈ 1 s per 1,000 samples)."""
        if principal.kind != "player":
            require_role(principal, *READ_ROLES)
        with self.ctx.uow(readonly=True) as uow:
            t = uow.tables.get(code)
            if t.game != "pai_gow_poker":
                raise ValidationFailed("hand-setting helpers are for pai gow poker", field="code")
            r = uow.tables.round(t.id, number)
            st = r.state or {}
            rules = _rules(t)
        if "deal" not in st:
            raise Conflict(f"round {number} has not been dealt", field="round")
        if place not in st["players"]:
            raise NotFound(f"no hand at place {place} in round {number}", field="box")
        if principal.kind == "player" and st["players"][place] != principal.name:
            raise Forbidden(f"place {place} is not the player's", field="box")
        dealt = paigow.PaiGowDeal.from_dict(st["deal"])
        if dealt.dead(place):
            raise TableRuleError("box", f"the hand at place {place} is dead (dealt other than seven cards)")
        cards = dealt.hands[place]
        hw = paigow.house_way(cards, rules.house_way)
        out = {"table": code, "round": number, "box": place, "cards": paigow.pg_strings(cards),
               "house_way_policy": rules.house_way, "house_way": hw.to_dict()}
        if kind == "optimal":
            vals = paigow.optimal_setting(cards, self.ctx.rng, policy=rules.house_way, samples=samples)

            def row(v) -> dict:
                return {**v.setting.to_dict(), "ev": round(v.ev, 4), "se": round(v.se, 4), "win": round(v.win, 4),
                        "push": round(v.push, 4), "lose": round(v.lose, 4)}

            mine = next((v for v in vals if (v.setting.high_key, v.setting.low_key) == (hw.high_key, hw.low_key)))
            out.update(samples=samples, settings=[row(v) for v in vals[:5]], house_way=row(mine))
        return out

    # ------------------------------------------------------------------ outcome + settle
    def _outcome(self, t: GameTable, rules, body: dict, bets: list[Bet],
                 state_in: dict | None = None, seats: dict[str, str] | None = None) -> tuple[Any, str, list[Bet], dict]:
        """The round's outcome from dealer input (``body`` has it) or the CSPRNG; same engine calls.

        Returns (outcome, mode, extra bets to debit (blackjack / poker decisions), table-state changes)."""
        if body.get("void"):
            return Void(str(body.get("reason") or "no game")), "input", [], {}
        if t.game in POKER:
            return self._poker_outcome(t, rules, body, bets, state_in, seats or {})
        mode = "input" if any(k in body for k in ("number", "dice", "symbol", "stop", "cards")) else "rng"
        rng = self.ctx.rng
        g = t.game
        if g == "roulette":
            return roulette.spin(roulette.dealer_input(body["number"]) if mode == "input" else rng), mode, [], {}
        if g == "sic_bo":
            if mode == "input":
                dice = body.get("dice")
                if not isinstance(dice, list):
                    raise TableRuleError("dice", "enter three dice")
                return sicbo.roll(sicbo.dealer_input(*dice)), mode, [], {}
            return sicbo.roll(rng), mode, [], {}
        if g == "big_wheel":
            if mode == "input":
                src = bigwheel.dealer_input(rules, stop=body.get("stop"), symbol=body.get("symbol"))
            else:
                src = rng
            return bigwheel.spin(src, rules), mode, [], {}
        if g == "baccarat":
            if mode == "input":
                return baccarat.coup_from_cards(body["cards"]), mode, [], {}
            shoe, state = self._baccarat_shoe(t, rules)
            try:
                coup = baccarat.play_coup(shoe)
            except ShoeExhausted:
                return Void("the shoe ran out (misdeal)"), mode, [], {"shoe_done": True}
            return coup, mode, [], {"shoe": {**state, "pos": state["pos"] + shoe.position,
                                             "cut_card_out": coup.last_of_shoe}}
        if g == "blackjack":
            st = state_in or {}
            if st:
                mode = st["mode"]
                cards = st["cards"] + list(body.get("cards") or [])
            elif mode == "input":
                cards = list(body["cards"])
            else:
                cards = card_strings(self._bj_shoe_cards(rules))
            rnd, extra = bj_play(t, rules, bets, cards, (st.get("decisions") or []), body.get("decisions") or [])
            out = rnd.finish_checked()
            d = out.to_dict()
            d["log"] = list(rnd.log)
            d["cards_dealt"] = card_strings(rnd.shoe.dealt())
            return out, mode, extra, {"outcome_dict": d}
        raise ValidationFailed(f"unknown game {g}", field="game")

    def _poker_outcome(self, t: GameTable, rules, body: dict, bets: list[Bet], state_in: dict | None,
                       seats: dict[str, str]) -> tuple[Any, str, list[Bet], dict]:
        """A poker round's outcome: the dealt round rebuilt with its decisions (plus any ``decisions`` in the
        body, whose bets are debited with the settlement), finished. An undealt round can be settled in one
        go from the dealer's input (the cards as dealt and every decision)."""
        flow = POKER[t.game]
        st = dict(state_in or {})
        if "decisions" not in st:
            if not is_input(body):
                raise Conflict("deal the round first, or enter the cards with the decisions", field="round")
            st = {**flow.deal(rules, bets, body, self.ctx.rng, st, seats), "decisions": []}
        rnd = flow.rebuild(rules, bets, st)
        extra: list[Bet] = []
        for d in body.get("decisions") or []:
            x = flow.act(rnd, d)
            check_decision_bet(d, x)
            if x is not None:
                extra.append(x)
        st["decisions"] = st["decisions"] + list(body.get("decisions") or [])
        out, d = flow.finish(rnd)
        return out, st["mode"], extra, {"outcome_dict": d, "round_state": st}

    def _bj_shoe_cards(self, rules) -> list:
        """A freshly shuffled blackjack shoe for the round (one card burned): the cards still to deal."""
        shoe = blackjack.new_shoe(rules, self.ctx.rng)
        return [shoe.draw() for _ in range(shoe.remaining)]

    # ------------------------------------------------------------------ blackjack decisions, one at a time
    def deal(self, principal: Principal, code: str, number: int, body: dict) -> dict:
        """The initial deal after no more bets: blackjack (dealer's ``cards`` in input mode, else the CSPRNG) and
        the poker games (the dealer's hands as dealt, see :mod:`table_games.services.poker_games`, else the
        CSPRNG shuffles a deck; pai gow also rolls the dice)."""
        require_role(principal, *DEALER_ROLES)
        with self.ctx.uow() as uow:
            t = uow.tables.get(code, for_update=True)
            if t.game not in PLAYED:
                raise ValidationFailed("only blackjack and the poker games are dealt and played decision by decision",
                                       field="code")
            r = uow.tables.round(t.id, number, for_update=True)
            dealt = r.state is not None and "decisions" in r.state
            if r.status != "no_more_bets" or dealt:
                raise Conflict(f"round {number} is {r.status}{' and already dealt' if dealt else ''}: "
                               "deal once, after no more bets", field="round")
            rules = _rules(t)
            bets = [_bet_of(b) for b in uow.tables.bets(r.id)]
            if t.game in POKER:
                flow = POKER[t.game]
                seats = {s.seat: str(s.player_id) for s in uow.tables.seats(t.id)}
                st = {**flow.deal(rules, bets, body, self.ctx.rng, dict(r.state or {}), seats), "decisions": []}
                rnd = flow.build(rules, bets, st)
                r.state, r.mode = st, st["mode"]
                out = {"table": code, "round": number, "game": t.game, **flow.view(rnd)}
                uow.commit()
                return out
            if body.get("cards"):
                st = {"mode": "input", "cards": list(body["cards"]), "decisions": []}
            else:
                st = {"mode": "rng", "cards": card_strings(self._bj_shoe_cards(rules)), "decisions": []}
            rnd, _ = bj_play(t, rules, bets, st["cards"], [], [])
            r.state = st
            r.mode = st["mode"]
            out = {"table": code, "round": number, **bj_view(rnd)}
            uow.commit()
            return out

    def decide(self, principal: Principal, code: str, number: int, body: dict, idem_key: str | None) -> tuple[int, dict, bool]:
        """Blackjack: one decision (hit, stand, double, split, surrender, insurance, even money, no insurance)
        by the box's seated player (player token) or the dealer; a double / split / insurance is debited now."""
        if principal.kind != "player":
            require_role(principal, *DEALER_ROLES)

        def fn(uow) -> dict:
            t = uow.tables.get(code, for_update=True)
            r = uow.tables.round(t.id, number, for_update=True)
            if t.game not in PLAYED or not r.state or "decisions" not in r.state or r.status != "no_more_bets":
                raise Conflict(f"round {number} is not being played (deal it first)", field="round")
            seats = {s.seat: s.player_id for s in uow.tables.seats(t.id)}
            if principal.kind == "player" and seats.get(body["box"]) != int(principal.name):
                raise Forbidden(f"box {body['box']} is not the player's", field="box")
            rules = _rules(t)
            rows = uow.tables.bets(r.id)
            if t.game in POKER:
                return self._poker_decision(uow, principal, t, r, rules, rows, body)
            st = dict(r.state)
            if body.get("cards"):
                if st["mode"] != "input":
                    raise ValidationFailed("cards are entered only on an input-mode round", field="cards")
                st["cards"] = st["cards"] + list(body["cards"])
            decision = {k: v for k, v in body.items() if k in ("box", "action", "amount") and v is not None}
            rnd, extra = bj_play(t, rules, [_bet_of(b) for b in rows], st["cards"], st["decisions"], [decision])
            out_bets = [self._debit_decision_bet(uow, principal, t, r, x)[1] for x in extra]
            st["decisions"] = st["decisions"] + [decision]
            r.state = st
            return {"table": code, "round": number, "decision": decision, "debited": out_bets, **bj_view(rnd)}

        fp = fingerprint("POST", f"tables/{code}/rounds/{number}/decisions", body)
        res = run_once_dict(self.ctx, OnceKey(principal.id, idem_key, fp), fn)
        return res.status, res.body, res.replayed

    @staticmethod
    def _debit_decision_bet(uow, principal: Principal, t: GameTable, r: TableRound, x: Bet) -> tuple[TableBet, dict]:
        """A bet a decision places (double, split, insurance; play, call, flop / turn / river; a pai gow banker's
        cover): debited from the player's wallet now, settled with the round."""
        pid = _pid(x.player)
        entry = WalletService.debit_for_table(uow, pid, accounts.table_bets(t.code), x.amount,
                                              refs={"table": t.code, "round": r.number, "spot": x.spot})
        row = TableBet(round_id=r.id, player_id=pid, spot=x.spot, box=x.box, amount=x.amount, cap=x.cap,
                       entry_id=entry, placed_by=principal.id)
        uow.tables.add(row)
        return row, {"id": row.id, "spot": x.spot, "box": x.box, "amount": x.amount, "entry": entry}

    def _poker_decision(self, uow, principal: Principal, t: GameTable, r: TableRound, rules, rows, body: dict) -> dict:
        """One poker decision in turn: play / call / flop, turn or river bet (debited now, exactly the table's
        multiple of the ante), fold, check, or a pai gow hand setting (``set`` high/low, ``house_way``)."""
        flow = POKER[t.game]
        if body["action"] not in flow.actions:
            raise TableRuleError("action", f"{body['action']!r} is not a {t.game.replace('_', ' ')} decision "
                                           f"({', '.join(flow.actions)})")
        st = dict(r.state)
        rnd = flow.rebuild(rules, [_bet_of(b) for b in rows], st)
        decision = {k: v for k, v in body.items()
                    if k in ("box", "action", "amount", "high", "low", "confirm_foul") and v is not None}
        x = flow.act(rnd, decision)
        check_decision_bet(decision, x)
        debited = [self._debit_decision_bet(uow, principal, t, r, x)[1]] if x is not None else []
        st["decisions"] = st["decisions"] + [decision]
        r.state = st
        return {"table": t.code, "round": r.number, "game": t.game, "decision": decision, "debited": debited,
                **flow.view(rnd)}

    def _baccarat_shoe(self, t: GameTable, rules) -> tuple[Shoe, dict]:
        st = t.shoe
        if st is None or st.get("cut_card_out"):
            st = self._shuffle(t, rules)
        remaining = parse_cards(st["cards"][st["pos"]:])
        return Shoe.stacked(remaining, cut_index=max(st["cut_index"] - st["pos"], 0)), st

    def _shuffle(self, t: GameTable, rules) -> dict:
        shoe, burned = baccarat.new_shoe(rules, self.ctx.rng)
        all_cards = shoe.dealt() + [shoe.draw() for _ in range(shoe.remaining)]
        st = {"cards": card_strings(all_cards), "pos": len(burned), "cut_index": shoe.cut_index,
              "burned": card_strings(burned), "cut_card_out": False}
        t.shoe_no += 1
        t.shoe = st
        return st

    def new_shoe(self, principal: Principal, code: str) -> dict:
        """Baccarat: a fresh shuffled shoe (CSPRNG) and a new shoe number (its roadmaps start empty)."""
        require_role(principal, *DEALER_ROLES)
        with self.ctx.uow() as uow:
            t = uow.tables.get(code, for_update=True)
            if t.game != "baccarat":
                raise ValidationFailed("only baccarat tables keep a shoe", field="code")
            if t.round_seq and uow.tables.round(t.id, t.round_seq).status in ("betting", "no_more_bets"):
                raise Conflict("finish the round in play first", field="round")
            st = self._shuffle(t, _rules(t))
            out = {"table": code, "shoe_no": t.shoe_no, "burned": st["burned"], "cards_left": len(st["cards"]) - st["pos"]}
            uow.commit()
            return out

    def settle(self, principal: Principal, code: str, number: int, body: dict, idem_key: str | None) -> tuple[int, dict, bool]:
        """Outcome (input or CSPRNG) and settlement of the round, in one transaction. A progressive award
        of at least ``Settings.table_progressive_verify_won`` on dealer-entered cards needs a supervisor
        (403 field ``round`` for the pit; the whole settlement is refused, nothing moves)."""
        require_role(principal, *DEALER_ROLES, "supervisor")

        def fn(uow) -> dict:
            t = uow.tables.get(code, for_update=True)
            r = uow.tables.round(t.id, number, for_update=True)
            if r.status in ("settled", "void"):
                raise Conflict(f"round {number} is already {r.status}", field="round")
            rules = _rules(t)
            rows = uow.tables.bets(r.id)
            bets = [_bet_of(b) for b in rows]
            progressive = t.game in POKER and any(b.spot == PROGRESSIVE for b in rows)
            if progressive:  # lock order: table → round → level → accounts
                table_level(uow, t.progressive_level, for_update=True)
            seats = {s.seat: str(s.player_id) for s in uow.tables.seats(t.id)} if t.game in POKER else None
            outcome, mode, extra, state = self._outcome(t, rules, body, bets, r.state, seats)
            if t.game == "baccarat" and t.shoe_no == 0:  # input mode before any shuffled shoe: shoe 1
                t.shoe_no = 1
            for x in extra:  # blackjack doubles / splits / insurance, poker bets: debited now, settled with the round
                row, _ = self._debit_decision_bet(uow, principal, t, r, x)
                rows.append(row)
                bets.append(_bet_of(row))
            settlements = GAMES[t.game].settle(bets, outcome, rules)
            body_out = self._post(uow, t, number, settlements, {b.id: b.colour for b in rows})
            r.outcome = state.get("outcome_dict") or outcome.to_dict()
            if progressive:
                r.outcome = {**r.outcome, "progressive": self._pay_progressive(uow, t, number, rules, bets, outcome,
                                                                               settlements)}
                self._verify_progressive(principal, mode, number, r.outcome["progressive"])
            if "round_state" in state:
                r.state = state["round_state"]
            r.mode = mode
            r.shoe_no = t.shoe_no
            r.status = "void" if isinstance(outcome, Void) else "settled"
            r.settlements = [s.to_dict() for s in settlements]
            r.house_net = body_out["house_net"]
            r.settled_at = self.ctx.clock.now()
            if "shoe" in state:
                t.shoe = state["shoe"]
            if state.get("shoe_done") and t.shoe:
                t.shoe = {**t.shoe, "cut_card_out": True}
            out = round_view(t, r, rows)
            out["payouts"] = body_out["payouts"]
            if "payouts_in_chips" in body_out:
                out["payouts_in_chips"] = body_out["payouts_in_chips"]
            out["entries"] = body_out["entries"]
            if progressive:
                out["progressive"] = r.outcome["progressive"]
            return out

        fp = fingerprint("POST", f"tables/{code}/rounds/{number}/settle", body)
        res = run_once_dict(self.ctx, OnceKey(principal.id, idem_key, fp), fn)
        return res.status, res.body, res.replayed

    def _verify_progressive(self, principal: Principal, mode: str, number: int, progressive: dict) -> None:
        """Dealer-entered cards that win a large progressive award: a supervisor settles (verifies) the round."""
        big = max((a["amount"] for a in progressive.get("awards", [])), default=0)
        limit = self.ctx.settings.table_progressive_verify_won
        if mode == "input" and big >= limit and principal.role not in ("supervisor", "admin"):
            raise Forbidden(f"round {number}: a progressive award of ₩{big:,} on dealer-entered cards (₩{limit:,} or "
                            f"more) is verified and settled by a supervisor", field="round")

    def _pay_progressive(self, uow, t: GameTable, number: int, rules, bets: list[Bet], outcome, settlements) -> dict:
        """The round's progressive on the jackpot controller, in this transaction: every progressive stake
        still in play (not returned) contributes to the meter; the qualifying hands are paid from it (or
        the fixed amounts by the house) into the players' wallets."""
        stakes = [s.bet.action for s in settlements if s.bet.spot == PROGRESSIVE and s.result != VOID]
        claims = POKER[t.game].progressive_awards(bets, outcome, rules)
        awards = [TableAward(int(a.player), a.box, a.hand, a.meter_ppm, a.fixed, a.shared_by, a.bet.id) for a in claims]
        out = settle_table_round(uow, self.ctx, t.progressive_level, stakes=stakes, awards=awards,
                                 refs={"table": t.code, "round": number})
        signage = service_for(self.ctx)  # the meters stream shows the new value (at once after an award)
        uow.after_commit(lambda: signage.publish_meters(force=bool(out["awards"])))
        return out

    def _post(self, uow, t: GameTable, number: int, settlements, colours: dict | None = None) -> dict:
        staked = sum(s.bet.amount for s in settlements)
        payouts: dict[int, int] = {}
        chips_paid: dict[int, int] = {}  # roulette colour-chip bets are paid in the player's colour
        for s in settlements:
            pid = _pid(s.bet.player)
            if (colours or {}).get(int(s.bet.id) if s.bet.id else None):
                chips_paid[pid] = chips_paid.get(pid, 0) + s.payout
            else:
                payouts[pid] = payouts.get(pid, 0) + s.payout
        for pid, won in list(chips_paid.items()):
            stack = uow.tables.stack(t.id, pid)
            if stack is None or won % stack.chip_value:  # colour cashed out meanwhile: pay the wallet
                payouts[pid] = payouts.get(pid, 0) + chips_paid.pop(pid)
        paid = sum(payouts.values()) + sum(chips_paid.values())
        house_net = staked - paid
        refs = {"table": t.code, "round": number}
        entries = []
        if house_net < 0:  # the house funds the winnings from the table's hold
            e = L.EntryBuilder("table.settle", f"table {t.code} round {number}: house pays")
            e.add(debit=accounts.table_hold(t.code), credit=accounts.table_bets(t.code), amount=-house_net)
            entries.append(uow.ledger.post(e.build(refs)))
        for pid in sorted(payouts):
            if payouts[pid] > 0:
                entries.append(WalletService.credit_from_table(uow, pid, accounts.table_bets(t.code), payouts[pid], refs=refs))
        for pid in sorted(chips_paid):
            if chips_paid[pid] > 0:
                stack = uow.tables.stack(t.id, pid)
                stack.chips += chips_paid[pid] // stack.chip_value
                e = L.EntryBuilder("table.colour_pay", f"{stack.colour} chips paid at {t.code}")
                e.add(debit=accounts.table_bets(t.code), credit=accounts.table_chips(t.code), amount=chips_paid[pid])
                entries.append(uow.ledger.post(e.build({**refs, "player": pid, "colour": stack.colour})))
        if house_net > 0:  # the losing stakes go to the table's hold
            e = L.EntryBuilder("table.settle", f"table {t.code} round {number}: house wins")
            e.add(debit=accounts.table_bets(t.code), credit=accounts.table_hold(t.code), amount=house_net)
            entries.append(uow.ledger.post(e.build(refs)))
        out = {"house_net": house_net, "payouts": {str(k): v for k, v in sorted(payouts.items())}, "entries": entries}
        if chips_paid:
            out["payouts_in_chips"] = {str(k): v for k, v in sorted(chips_paid.items())}
        return out

    # ------------------------------------------------------------------ roulette colour chips
    def colour_buy_in(self, principal: Principal, code: str, body: dict, idem_key: str | None) -> tuple[int, dict, bool]:
        """A seated roulette player buys colour chips from the wallet (wallet → ``table:<code>:chips``)."""
        require_role(principal, *DEALER_ROLES)
        pid = body["player_id"]

        def fn(uow) -> dict:
            t = uow.tables.get(code, for_update=True)
            if t.game != "roulette":
                raise ValidationFailed("colour chips are for roulette tables", field="code")
            if not any(s.player_id == pid for s in uow.tables.seats(t.id)):
                raise Conflict(f"player {pid} is not seated at {code}", field="player_id")
            stacks = uow.tables.stacks(t.id)
            in_use = {c.colour: str(c.player_id) for c in stacks}
            mine = next((c for c in stacks if c.player_id == pid), None)
            got = roulette.buy_in(in_use, str(pid), body["colour"], body["chip_value"], body["amount"],
                                  chip_unit=t.chip_unit, rules=_rules(t))
            if mine is not None and mine.chip_value != got.chip_value:
                raise TableRuleError("chip_value", f"the player's {mine.colour} chips are worth ₩{mine.chip_value:,}")
            entry = WalletService.debit_for_table(uow, pid, accounts.table_chips(code), body["amount"],
                                                  refs={"table": code, "colour": got.colour})
            if mine is None:
                mine = ColourStack(table_id=t.id, player_id=pid, colour=got.colour, chip_value=got.chip_value, chips=0)
                uow.tables.add(mine)
            mine.chips += got.chips
            return {"table": code, "player_id": pid, "colour": mine.colour, "chip_value": mine.chip_value,
                    "chips": mine.chips, "entry": entry, "wallet": WalletService.balances(uow, pid)}

        res = run_once_dict(self.ctx, OnceKey(principal.id, idem_key, fingerprint("POST", f"tables/{code}/colour/buy-in", body)), fn)
        return res.status, res.body, res.replayed

    def colour_cash_out(self, principal: Principal, code: str, body: dict, idem_key: str | None) -> tuple[int, dict, bool]:
        """The player hands colour chips in (all by default): their value goes back to the wallet; an empty
        stack frees the colour."""
        require_role(principal, *DEALER_ROLES)
        pid = body["player_id"]

        def fn(uow) -> dict:
            t = uow.tables.get(code, for_update=True)
            stack = uow.tables.stack(t.id, pid)
            if stack is None:
                raise NotFound(f"player {pid} holds no colour chips at {code}", field="player_id")
            chips = body.get("chips", stack.chips)
            if chips > stack.chips:
                raise TableRuleError("chips", f"the player holds {stack.chips} {stack.colour} chips")
            won = roulette.cash_out(roulette.ColourStack(str(pid), stack.colour, stack.chip_value, stack.chips), chips)
            entry = (WalletService.credit_from_table(uow, pid, accounts.table_chips(code), won, refs={"table": code,
                                                                                            "colour": stack.colour})
                     if won else None)
            stack.chips -= chips
            out = {"table": code, "player_id": pid, "colour": stack.colour, "chips_cashed": chips, "amount": won,
                   "chips_left": stack.chips, "entry": entry}
            if stack.chips == 0:
                uow.tables.delete(stack)
            out["wallet"] = WalletService.balances(uow, pid)
            return out

        res = run_once_dict(self.ctx, OnceKey(principal.id, idem_key, fingerprint("POST", f"tables/{code}/colour/cash-out", body)), fn)
        return res.status, res.body, res.replayed

    # ------------------------------------------------------------------ replay + roadmaps
    def replay(self, principal: Principal, code: str, number: int) -> dict:
        """Recompute the settlement from the stored outcome, bets and rules; compare with the record."""
        require_role(principal, *READ_ROLES)
        with self.ctx.uow(readonly=True) as uow:
            t = uow.tables.get(code)
            r = uow.tables.round(t.id, number)
            if r.status not in ("settled", "void"):
                raise Conflict(f"round {number} is not settled", field="round")
            eng = GAMES[t.game]
            bets = [_bet_of(b) for b in uow.tables.bets(r.id)]
            outcome = eng.outcome_from_dict(r.outcome)
            rules = _rules(t)
            again = [s.to_dict() for s in eng.settle(bets, outcome, rules)]
            out = {"table": code, "round": number, "settlements": again, "matches": again == r.settlements,
                   "house_net": sum(s["bet"]["amount"] - s["payout"] for s in again)}
            if t.game in POKER and r.status == "settled":
                out.update(self._poker_replay(t, r, rules, bets, outcome))
            return out

    @staticmethod
    def _poker_replay(t: GameTable, r: TableRound, rules, bets: list[Bet], outcome) -> dict:
        """A poker round played again from its dealt cards and recorded decisions (``deal_matches``) and its
        progressive claims recomputed from the outcome (``progressive_matches``; the amounts are the
        controller's, recorded with the meter they were paid from)."""
        flow = POKER[t.game]
        out: dict[str, Any] = {}
        if r.state and "decisions" in r.state:
            _, d = flow.finish(flow.rebuild(rules, bets, r.state))
            out["deal_matches"] = d == {k: v for k, v in r.outcome.items() if k != "progressive"}
        if "progressive" in r.outcome:
            claims = [(a.box, a.hand, a.shared_by) for a in flow.progressive_awards(bets, outcome, rules)]
            paid = [(a["box"], a["hand"], a.get("shared_by", 1)) for a in r.outcome["progressive"]["awards"]]
            out["progressive"] = r.outcome["progressive"]
            out["progressive_matches"] = claims == paid
        return out

    def roadmaps(self, principal: Principal, code: str, shoe_no: int | None = None) -> dict:
        require_role(principal, *READ_ROLES)
        with self.ctx.uow(readonly=True) as uow:
            t = uow.tables.get(code)
            if t.game != "baccarat":
                raise ValidationFailed("roadmaps are for baccarat tables", field="code")
            n = t.shoe_no if shoe_no is None else shoe_no
            rounds = [r for r in reversed(uow.tables.rounds(t.id, shoe_no=n, limit=1000))
                      if r.status == "settled" and r.outcome and "winner" in r.outcome]
            board = roadmaps.scoreboard([r.outcome for r in rounds])
            return {"table": code, "shoe_no": n, **board}


# ---------------------------------------------------------------------- demo floor
# code, game, name, limits builder (won; chip unit ₩1,000, commission unit ₩100)
def _demo_limits(game: str) -> TableLimits:
    if game == "baccarat":
        return baccarat.default_limits(chip_unit=1_000, minimum=10_000, maximum=3_000_000,
                                       side_minimum=1_000, side_maximum=300_000)
    if game == "blackjack":
        return blackjack.default_limits(chip_unit=1_000, minimum=10_000, maximum=2_000_000,
                                        pair_minimum=1_000, pair_maximum=200_000)
    if game == "roulette":
        return roulette.default_limits(chip_unit=1_000, inside_min=1_000, straight_max=100_000,
                                       outside_min=5_000, outside_max=1_000_000)
    if game == "sic_bo":
        return sicbo.default_limits(chip_unit=1_000, minimum=5_000, even_max=2_000_000, other_max=200_000)
    if game == "three_card_poker":
        return three_card.default_limits(chip_unit=1_000, minimum=10_000, maximum=1_000_000)
    if game == "caribbean_stud":
        return caribbean.default_limits(chip_unit=1_000, minimum=10_000, maximum=500_000)
    if game == "holdem_bonus":
        return holdem_bonus.default_limits(chip_unit=1_000, minimum=10_000, maximum=500_000)
    if game == "pai_gow_poker":
        return paigow.default_limits(chip_unit=1_000, minimum=10_000, maximum=2_000_000)
    return bigwheel.default_limits(bigwheel.STANDARD_54, chip_unit=1_000, minimum=5_000, max_win=2_000_000)


DEMO_TABLES = (("BAC-01", "baccarat", "Baccarat 1"), ("BJ-01", "blackjack", "Blackjack 1"),
               ("RL-01", "roulette", "Roulette 1"), ("SB-01", "sic_bo", "Sic Bo 1"), ("BW-01", "big_wheel", "Big Wheel 1"),
               ("TCP-01", "three_card_poker", "Three Card Poker 1"), ("CSP-01", "caribbean_stud", "Caribbean Stud 1"),
               ("HB-01", "holdem_bonus", "Hold'em Bonus 1"), ("PG-01", "pai_gow_poker", "Pai Gow Poker 1"))
#: the Caribbean stud progressive on the jackpot controller: a ₩1,000 side bet puts 25% on the meter, which
#: restarts at ₩5,000,000 after a royal flush (the ceiling only bounds the meter; contributions past it overflow)
DEMO_PROGRESSIVES = {"CSP-01": ("CSP_PROG", "Caribbean Stud Progressive",
                                {"kind": "table", "reset": 5_000_000, "ceiling": 500_000_000, "rate_ppm": 250_000})}


def seed_tables(uow) -> list[str]:
    """One demo table per game and the Caribbean table's progressive level (idempotent)."""
    from jackpot_controller.domain.levels import LevelParams
    from jackpot_controller.services.levels import create_level
    from slotsys.kernel.ports import Csprng

    made = []
    for code, game, name in DEMO_TABLES:
        try:
            uow.tables.get(code)
            continue
        except NotFound:
            pass
        level = None
        if code in DEMO_PROGRESSIVES:
            level, level_name, params = DEMO_PROGRESSIVES[code]
            if uow.levels.get(level) is None:
                create_level(uow, code=level, name=level_name, params=LevelParams(**params), rng=Csprng())
        new_table(uow, code=code, game=game, name=name, limits=_demo_limits(game).to_dict(), chip_unit=1_000,
                  commission_unit=100, progressive_level=level)
        made.append(code)
    return made
