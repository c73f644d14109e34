"""Mahjong API (/api/v1/mahjong): pure scoring, tables of four, seats with buy-in / top-up / leave, scored and
drawn hands. Thin routes: the rules are in ``table_games.services.mahjong`` and ``table_games.domain.mahjong``.

Money-moving POSTs (seats, top-up, leave, hands, draws) need an ``Idempotency-Key``. Players (``pl_`` token)
may read tables and hands and call ``/score``.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from apiflask import APIBlueprint
from pydantic import Field, StrictBool

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
from table_games.services.mahjong import DrawHand, MahjongService, NewMahjongTable, ScoreHand
from slotsys.kernel.api.contract import Shape, answers
from table_games.services.results import (
    MahjongHandList, MahjongHandRecorded, MahjongHandView, MahjongLeft, MahjongStackMoved, MahjongTableList,
    MahjongTableView,
)


bp = APIBlueprint("mahjong", __name__, url_prefix="/api/v1/mahjong", tag="Mahjong")

Code = Annotated[str, Field(min_length=1, max_length=20, pattern=r"^[A-Za-z0-9_-]+$")]
SeatW = Literal["E", "S", "W", "N"]
Tiles = Annotated[str, Field(max_length=80)]
Counter = Annotated[int, Field(strict=True, ge=0, le=100)]
Condition = Literal["haitei", "houtei", "rinshan", "chankan", "tenhou", "chiihou", "renhou", "nagashi_mangan"]
PLAYER_ENDPOINTS = {"mahjong.score", "mahjong.list_tables", "mahjong.get_table", "mahjong.list_hands",
                    "mahjong.get_hand"}


def svc() -> MahjongService:
    return services().mahjong


bp.before_app_request(player_token_hook(PLAYER_ENDPOINTS))


class MeldIn(StrictModel):
    type: Literal["chi", "pon", "kan", "added_kan", "closed_kan"]
    tiles: Annotated[str, Field(max_length=20)]


class WinFields(StrictModel):
    """The declared win: concealed ``hand`` (with the win tile), ``melds``, ``win_tile``, tsumo or ron, riichi
    flags, dora INDICATORS, honba, ``conditions``."""

    hand: Tiles = ""
    win_tile: Annotated[str, Field(max_length=4)] = ""
    melds: Annotated[list[MeldIn], Field(max_length=4)] = []
    tsumo: StrictBool = False
    riichi: StrictBool = False
    double_riichi: StrictBool = False
    ippatsu: StrictBool = False
    open_riichi: StrictBool = False
    paarenchan: Annotated[int, Field(strict=True, ge=0, le=6)] = 0
    round_wind: SeatW = "E"
    dora_indicators: Annotated[str, Field(max_length=20)] = ""
    ura_dora_indicators: Annotated[str, Field(max_length=20)] = ""
    honba: Counter = 0
    conditions: Annotated[list[Condition], Field(max_length=8)] = []


class ScoreIn(WinFields):
    """``seat_wind``, or the seating ``winner`` + ``dealer`` it follows from; neither: tenhou → E, chiihou /
    renhou → a non-dealer, otherwise E."""

    seat_wind: SeatW | None = None
    winner: SeatW | None = None
    dealer: SeatW | None = None
    riichi_sticks: Counter = 0
    rules: dict[str, Any] | None = None  # {"rule_set": "riichi" | "korean", ...}; default: the casino's riichi


class TableIn(StrictModel):
    code: Code
    name: Annotated[str, Field(max_length=60)] = ""
    rules: dict[str, Any] | None = None
    point_value: Won = 10
    fee_ppm: Annotated[int, Field(strict=True, ge=0, le=1_000_000)] = 0
    fee_unit: Won = 100
    min_buy_in: Won = 100_000
    max_buy_in: Won = 2_000_000


class SitIn(StrictModel):
    seat: SeatW
    player_id: RecordId
    buy_in: Won


class TopUpIn(StrictModel):
    amount: Won


class HandIn(WinFields):
    number: Annotated[int, Field(strict=True, ge=1, le=10**9)]
    winner: SeatW
    discarder: SeatW | None = None
    dealer: SeatW | None = None  # default: the table's dealer (E, then renchan)
    seat_wind: SeatW | None = None  # optional: must agree with winner and dealer
    riichi_seats: Annotated[list[SeatW], Field(max_length=4)] = []


class DrawIn(StrictModel):
    number: Annotated[int, Field(strict=True, ge=1, le=10**9)]
    dealer: SeatW | None = None  # default: the table's dealer
    dealer_tenpai: StrictBool = False  # the dealer deals again after the draw
    riichi_seats: Annotated[list[SeatW], Field(max_length=4)] = []


class MahjongScore(Shape):
    """``table_games.domain.mahjong.Score.to_dict``: the value of a declared win."""

    rule_set: str
    han: int | None
    fu: int | None
    yaku: list[dict[str, Any]]
    tsumo: bool
    dealer: bool
    payments: dict[str, int]
    total: int
    payment_form: str


@bp.post("/score")
@bp.input(ScoreIn, arg_name="body")
@bp.doc(summary="Score a declared win (han, fu, yaku in Korean/Japanese/English, limit, payments); moves nothing",
        **AUTH_DOC)
@answers(MahjongScore)
def score(body: ScoreIn):
    return svc().score(principal(), body.model_dump())


@bp.get("/tables")
@bp.doc(summary="Mahjong tables with seats and stacks", **AUTH_DOC)
@answers(MahjongTableList)
def list_tables():
    return svc().list(principal()).model_dump(mode="json")


@bp.post("/tables")
@bp.input(TableIn, arg_name="body")
@bp.doc(summary="Open a mahjong table: rule set, won per point, house fee, buy-in range (pit, supervisor)", **AUTH_DOC)
@answers(MahjongTableView, status=201)
def create_table(body: TableIn):
    return svc().create(principal(), NewMahjongTable(**body.model_dump())).model_dump(mode="json"), 201


@bp.get("/tables/<code>")
@bp.doc(summary="A mahjong table: rules, seats and stacks, hands played, riichi sticks carried", **AUTH_DOC)
@answers(MahjongTableView)
def get_table(code: str):
    return svc().get(principal(), code).model_dump(mode="json")


@bp.post("/tables/<code>/seats")
@bp.input(SitIn, arg_name="body")
@bp.doc(summary="Seat a player with a buy-in from their wallet (pit, supervisor); needs Idempotency-Key", **AUTH_DOC)
@answers(MahjongStackMoved, status=201, once=True)
def sit(code: str, body: SitIn):
    key = once_key(f"mahjong/{code}/seats", body.model_dump(), status=201)
    return reply_once(svc().sit(principal(), code, body.seat, body.player_id, body.buy_in, key), status=201)


@bp.post("/tables/<code>/seats/<seat>/top-up")
@bp.input(TopUpIn, arg_name="body")
@bp.doc(summary="Top up a seated player's stack from their wallet (pit, supervisor); needs Idempotency-Key", **AUTH_DOC)
@answers(MahjongStackMoved, once=True)
def top_up(code: str, seat: str, body: TopUpIn):
    key = once_key(f"mahjong/{code}/seats/{seat}/top-up", body.model_dump())
    return reply_once(svc().top_up(principal(), code, seat, body.amount, key))


@bp.post("/tables/<code>/seats/<seat>/leave")
@bp.doc(summary="The player leaves: the stack goes back to the wallet (pit, supervisor); needs Idempotency-Key",
        **AUTH_DOC)
@answers(MahjongLeft, once=True)
def leave(code: str, seat: str):
    key = once_key(f"mahjong/{code}/seats/{seat}/leave", {})
    return reply_once(svc().leave(principal(), code, seat, key))


@bp.post("/tables/<code>/hands")
@bp.input(HandIn, arg_name="body")
@bp.doc(summary="Score a won hand and settle it between the stacks in one entry (pit, supervisor); "
                "needs Idempotency-Key", **AUTH_DOC)
@answers(MahjongHandRecorded, status=201, once=True)
def score_hand(code: str, body: HandIn):
    data = body.model_dump(exclude_none=True)
    key = once_key(f"mahjong/{code}/hands", data, status=201)
    return reply_once(svc().score_hand(principal(), code, ScoreHand.from_body(data), key), status=201)


@bp.post("/tables/<code>/draws")
@bp.input(DrawIn, arg_name="body")
@bp.doc(summary="Record a drawn hand: riichi sticks go to the table's pot (pit, supervisor); needs Idempotency-Key",
        **AUTH_DOC)
@answers(MahjongHandRecorded, status=201, once=True)
def draw(code: str, body: DrawIn):
    key = once_key(f"mahjong/{code}/draws", body.model_dump(), status=201)
    cmd = DrawHand(number=body.number, dealer=body.dealer, dealer_tenpai=body.dealer_tenpai,
                   riichi_seats=tuple(body.riichi_seats))
    return reply_once(svc().draw(principal(), code, cmd, key), status=201)


@bp.get("/tables/<code>/hands")
@bp.doc(summary="The table's recorded hands, newest first", **AUTH_DOC)
@answers(MahjongHandList)
def list_hands(code: str):
    return svc().hands(principal(), code).model_dump(mode="json")


@bp.get("/tables/<code>/hands/<int:number>")
@bp.doc(summary="A recorded hand: tiles, result, payments", **AUTH_DOC)
@answers(MahjongHandView)
def get_hand(code: str, number: int):
    return svc().get_hand(principal(), code, number).model_dump(mode="json")
