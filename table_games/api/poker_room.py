"""Poker room API under ``/api/v1/poker``: tables, seats, buy-ins/cash-outs on the wallet, hands and
actions (with whose turn it is and the legal actions and amounts), records and PHH hand histories. Thin routes:
the rules are in ``table_games.services.poker_room``. Money-moving POSTs (buy-in, cash-out, actions) need an
``Idempotency-Key``. A player's own token (``pl_…``) works on the seat, chip, hand and action endpoints.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from apiflask import APIBlueprint
from flask import Response
from pydantic import Field

from slotsys.kernel.api.common import (
    AUTH_DOC,
    RecordId,
    StrictModel,
    Won,
    once_key,
    player_token_hook,
    principal,
    reply_once,
    services,
)
from table_games.services.poker_room import PokerAction, PokerRoomService
from slotsys.kernel.api.contract import TEXT, Shape, answers
from table_games.services.results import (
    PokerBuyIn, PokerCashOut, PokerHandList, PokerHandView, PokerTableList, PokerTableView,
)


bp = APIBlueprint("poker", __name__, url_prefix="/api/v1/poker", tag="Poker room")

Code = Annotated[str, Field(min_length=1, max_length=20, pattern=r"^[A-Za-z0-9_-]+$")]
PlayerId = RecordId
PLAYER_ENDPOINTS = {"poker.get_table", "poker.sit", "poker.buy_in", "poker.cash_out", "poker.get_hand", "poker.act"}


def room() -> PokerRoomService:
    return services().poker


bp.before_app_request(player_token_hook(PLAYER_ENDPOINTS))


class TableIn(StrictModel):
    code: Code
    name: Annotated[str, Field(max_length=60)] = ""
    rules: dict[str, Any]


class SitIn(StrictModel):
    seat: Annotated[int, Field(strict=True, ge=1, le=10)]
    player_id: PlayerId


class BuyInIn(StrictModel):
    player_id: PlayerId
    amount: Won


class CashOutIn(StrictModel):
    player_id: PlayerId
    leave: bool = False


class ActionIn(StrictModel):
    action: Literal["fold", "check", "call", "bet", "raise", "all_in"]
    amount: Won | None = None
    seq: Annotated[int, Field(strict=True, ge=0, le=10_000)] | None = None
    seat: Annotated[int, Field(strict=True, ge=1, le=10)] | None = None  # dealer: the seat acting (checked)


class PhhIn(StrictModel):
    phh: Annotated[str, Field(min_length=1, max_length=200_000)]


class PHHReplay(Shape):
    variant: str
    players: list[Any] | None
    finishing_stacks: list[Any]
    expected: list[Any] | None = Field(description="the finishing stacks the PHH records, if it does")
    matches: bool | None = Field(description="the replayed stacks equal the recorded ones (null: none recorded)")


class PokerReplay(Shape):
    table: str
    hand: int
    finishing_stacks: list[Any]
    matches: bool = Field(description="pokerkit's finishing stacks equal the settled hand's")


@bp.get("/tables")
@bp.doc(summary="Every poker table with seats and stacks (pit, supervisor, operator, auditor, host)", **AUTH_DOC)
@answers(PokerTableList)
def list_tables():
    return room().list_tables(principal()).model_dump(mode="json")


@bp.post("/tables")
@bp.input(TableIn, arg_name="body")
@bp.doc(summary="Open a table: FL or NL, seats 2-10, blinds, bets, antes, buy-in range, rake (pit, supervisor)",
        **AUTH_DOC)
@answers(PokerTableView, status=201)
def create_table(body: TableIn):
    return room().create_table(principal(), body.code, body.name, body.rules).model_dump(mode="json"), 201


@bp.get("/tables/<code>")
@bp.doc(summary="A poker table: rules, button, seats with stacks, hand in play", **AUTH_DOC)
@answers(PokerTableView)
def get_table(code: str):
    return room().get_table(principal(), code).model_dump(mode="json")


@bp.post("/tables/<code>/seats")
@bp.input(SitIn, arg_name="body")
@bp.doc(summary="Seat a player (pit, or the player's own token)", **AUTH_DOC)
@answers(PokerTableView, status=201)
def sit(code: str, body: SitIn):
    return room().sit(principal(), code, body.seat, body.player_id).model_dump(mode="json"), 201


@bp.post("/tables/<code>/buy-in")
@bp.input(BuyInIn, arg_name="body")
@bp.doc(summary="Wallet → table stack within the buy-in range; needs Idempotency-Key", **AUTH_DOC)
@answers(PokerBuyIn, once=True)
def buy_in(code: str, body: BuyInIn):
    key = once_key(f"poker/{code}/buy-in", body.model_dump())
    return reply_once(room().buy_in(principal(), code, body.player_id, body.amount, key))


@bp.post("/tables/<code>/cash-out")
@bp.input(CashOutIn, arg_name="body")
@bp.doc(summary="Table stack → wallet (and leave the seat with leave=true); needs Idempotency-Key", **AUTH_DOC)
@answers(PokerCashOut, once=True)
def cash_out(code: str, body: CashOutIn):
    key = once_key(f"poker/{code}/cash-out", body.model_dump())
    return reply_once(room().cash_out(principal(), code, body.player_id, body.leave, key))


@bp.post("/tables/<code>/hands")
@bp.doc(summary="Deal the next hand: the button moves, blinds/antes, CSPRNG deck (pit, supervisor)", **AUTH_DOC)
@answers(PokerHandView, status=201)
def start_hand(code: str):
    return room().start_hand(principal(), code).model_dump(mode="json"), 201


@bp.get("/tables/<code>/hands")
@bp.doc(summary="The table's hands, newest first", **AUTH_DOC)
@answers(PokerHandList)
def list_hands(code: str):
    return room().hands(principal(), code).model_dump(mode="json")


@bp.get("/tables/<code>/hands/<int:number>")
@bp.doc(summary="A hand: board, pot, stacks, whose turn with legal actions and amounts; results at the end",
        **AUTH_DOC)
@answers(PokerHandView)
def get_hand(code: str, number: int):
    return room().get_hand(principal(), code, number).model_dump(mode="json")


@bp.post("/tables/<code>/hands/<int:number>/actions")
@bp.input(ActionIn, arg_name="body")
@bp.doc(summary="fold / check / call / bet / raise (to amount) / all_in by the player to act; needs Idempotency-Key",
        **AUTH_DOC)
@answers(PokerHandView, once=True)
def act(code: str, number: int, body: ActionIn):
    key = once_key(f"poker/{code}/hands/{number}/actions", body.model_dump(exclude_none=True))
    cmd = PokerAction(action=body.action, amount=body.amount, seq=body.seq, seat=body.seat)
    return reply_once(room().act(principal(), code, number, cmd, key))


@bp.get("/tables/<code>/hands/<int:number>/phh")
@bp.doc(summary="The finished hand as a PHH file (text)", **AUTH_DOC)
@answers(media=TEXT)
def hand_phh(code: str, number: int):
    return Response(room().hand_phh(principal(), code, number), mimetype="text/plain; charset=utf-8")


@bp.get("/tables/<code>/hands/<int:number>/replay")
@bp.doc(summary="Replay the stored PHH with pokerkit; `matches` compares with the settled hand", **AUTH_DOC)
@answers(PokerReplay)
def replay_hand(code: str, number: int):
    return room().replay_hand(principal(), code, number)


@bp.post("/phh/replay")
@bp.input(PhhIn, arg_name="body")
@bp.doc(summary="Import a PHH hold'em hand and replay it: finishing stacks against the file's; a flag its "
        "recorded stacks contradict (ante_trimming_status) is overridden, named in `overrides` and `warnings`",
        **AUTH_DOC)
@answers(PHHReplay)
def replay_phh(body: PhhIn):
    return room().replay_phh(principal(), body.phh)
