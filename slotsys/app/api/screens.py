"""Read-only API behind the screens: the floor overview, a machine's detail, signage
stream tokens and the token-authenticated jackpot stream, the cage's ticket check, par sheets.
Thin: each route names the caller, checks the role and calls one service."""

from __future__ import annotations

from typing import Annotated, Any

from apiflask import APIBlueprint
from flask import Response, g
from pydantic import Field

from slotsys.kernel.api.common import AUTH_DOC, QueryModel, principal, services
from jackpot_controller.api.routes import signage_feed
from slotsys.kernel.api.streaming import sse_response
from slotsys.floor.read_model import FloorViewService
from slotsys.app.screens import ScreensService
from slotsys.kernel.checks import require_role
from slotsys.kernel.api.contract import EVENT_STREAM, PNG, Shape, answers


bp = APIBlueprint("screens", __name__, url_prefix="/api/v1", tag="Screens")

STREAM_ENDPOINT = "screens.jackpot_stream"  # authenticated by its stream token (app.PUBLIC_ENDPOINTS)


def _svc() -> tuple[FloorViewService, ScreensService]:
    s = services()
    return s.floor_view, s.screens


class FloorOverview(Shape):
    day: str
    generated_at: str
    states: list[str]
    totals: dict[str, Any]
    zones: list[dict[str, Any]]


class FloorMachine(Shape):
    asset: str
    state: str
    status: str
    credits: int
    meters: dict[str, int]
    games: list[dict[str, Any]]


class StreamToken(Shape):
    token: str
    expires_in: int
    expires_at: str
    stream_url: str


class TicketCheck(Shape):
    ticket: dict[str, Any]
    payable: bool
    refusal: dict[str, Any] | None


class GameCatalogue(Shape):
    games: list[dict[str, Any]]


class ParSheetAnswer(Shape):
    game: str
    name: str
    kind: str
    charts: list[str]


@bp.get("/floor/overview")
@bp.doc(summary="The floor by zone and bank: each machine's state (idle, in play, carded, handpay, locked, "
                "offline), credits and today's coin-in, coin-out, jackpots and hold (operator, attendant, auditor)",
        **AUTH_DOC)
@answers(FloorOverview)
def floor_overview():
    require_role(principal(), "operator", "attendant", "auditor")
    return _svc()[0].overview()


@bp.get("/floor/machines/<asset>")
@bp.doc(summary="A machine's meters, state and its last 10 games with their reel windows (operator, attendant, "
                "auditor)", **AUTH_DOC)
@answers(FloorMachine)
def floor_machine(asset: str):
    require_role(principal(), "operator", "attendant", "auditor")
    return _svc()[0].machine(asset)


@bp.post("/screens/stream-token")
@bp.doc(summary="A short-lived token (60 s) to open the jackpot stream from a browser's EventSource (staff)",
        **AUTH_DOC)
@answers(StreamToken)
def stream_token():
    return _svc()[1].stream_token(principal())


class StreamTokenQuery(QueryModel):
    """``?token=``: bounded generously (4,096) so that any token the service refuses (missing, malformed, forged,
    expired, longer than 400) keeps its 401 naming ``token``; only a value past any URL a browser sends is a 422."""

    token: Annotated[str, Field(max_length=4096, description="from POST /api/v1/screens/stream-token")] | None = None


@bp.get("/screens/jackpot-stream")
@bp.input(StreamTokenQuery, location="query", arg_name="query")
@bp.doc(summary="Live jackpot meters and hits as Server-Sent Events, authenticated by ?token= from "
                "POST /api/v1/screens/stream-token (same events as /api/v1/jackpots/stream)")
@answers(media=EVENT_STREAM)
def jackpot_stream(query: StreamTokenQuery):
    screens, token = _svc()[1], query.token
    g.principal = screens.check_stream_token(token)
    svc = services()
    return sse_response(svc, signage_feed(svc), recheck=lambda: screens.check_stream_token(token))


@bp.get("/screens/tickets/<number>/check")
@bp.doc(summary="What the cage would answer for a ticket now: payable, or the exact refusal (cashier, "
                "supervisor; changes nothing)", **AUTH_DOC)
@answers(TicketCheck)
def ticket_check(number: str):
    return _svc()[1].ticket_check(principal(), number)


@bp.get("/games")
@bp.doc(summary="The game catalogue with its variations (operator, auditor)", **AUTH_DOC)
@answers(GameCatalogue)
def games():
    require_role(principal(), "operator", "auditor")
    return _svc()[1].games()


class VariationQuery(QueryModel):
    variation: Annotated[str, Field(max_length=20, description="a variation of the game, e.g. 92")] | None = None


@bp.get("/games/<game_id>/par-sheet")
@bp.input(VariationQuery, location="query", arg_name="query")
@bp.doc(summary="A game's exact par sheet, ?variation=92 (operator, auditor)", **AUTH_DOC)
@answers(ParSheetAnswer)
def par_sheet(game_id: str, query: VariationQuery):
    require_role(principal(), "operator", "auditor")
    return _svc()[1].par_sheet(game_id, query.variation)


@bp.get("/games/<game_id>/par-sheet/<chart>.png")
@bp.input(VariationQuery, location="query", arg_name="query")
@bp.doc(summary="A par-sheet chart as PNG: rtp, parts or awards; ?variation=92 (operator, auditor)", **AUTH_DOC)
@answers(media=PNG)
def par_chart(game_id: str, chart: str, query: VariationQuery):
    require_role(principal(), "operator", "auditor")
    png = _svc()[1].par_chart(game_id, query.variation, chart)
    return Response(png, mimetype="image/png", headers={"Cache-Control": "private, max-age=300"})
