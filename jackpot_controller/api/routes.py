"""Jackpot API (thin): levels, operator actions, hits, handpays, events, the live stream.

Amounts in won (``_milli``: milli-won), rates in ppm (1% = 10,000). The mystery trigger is never
exposed. Bad input → 422 problem+json naming the field, and nothing changes.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from apiflask import APIBlueprint
from flask import request
from pydantic import Field

from slotsys.kernel.api.common import (
    AUTH_DOC, Limit, QueryModel, StrictModel, once_key, principal, reply_once, services,
)
from slotsys.kernel.api.exports import ExportQuery, report
from slotsys.kernel.api.streaming import sse_response
from slotsys.kernel.checks import require_role
from jackpot_controller.services.results import CorrectedLevel, HandpayPaid, LevelView, Verified, ZoneMove
from slotsys.kernel.api.contract import CSV, EVENT_STREAM, Shape, answers


bp = APIBlueprint("jackpots", __name__, url_prefix="/api/v1/jackpots", tag="Jackpots")

Amount = Annotated[int, Field(strict=True, ge=-(10**12), le=10**12, description="integer won")]
Ppm = Annotated[int, Field(strict=True, ge=-(10**7), le=10**7, description="parts per million (1% = 10,000)")]
Text = Annotated[str, Field(max_length=300)]


class LevelParamsIn(StrictModel):
    scope: Literal["machine", "bank", "zone", "floor"] | None = None
    machine: str | None = None
    bank: str | None = None
    zone: str | None = None
    start: Amount | None = None
    reset: Amount | None = None
    ceiling: Amount | None = None
    rate_ppm: Ppm | None = None
    reserve_rate_ppm: Ppm | None = None
    min_bet: Amount | None = None
    overflow: Literal["carry", "divert"] | None = None
    overflow_to: str | None = None
    combination: str | None = None
    max_award: Amount | None = None
    second_hit_rule: Literal["next_value", "same_amount"] | None = None


class LevelIn(LevelParamsIn):
    code: str
    name: str
    kind: Literal["standalone", "linked", "mystery", "table"]
    reset: Amount
    ceiling: Amount
    rate_ppm: Ppm


class LevelPatch(LevelParamsIn):
    name: str | None = None
    kind: Literal["standalone", "linked", "mystery", "table"] | None = None
    reason: Text | None = None


class ReasonIn(StrictModel):
    reason: Text = ""


class CorrectionIn(StrictModel):
    value: Amount
    reason: Text


class VerifyIn(StrictModel):
    decision: Literal["pay", "void"]
    reason: Text


class ZoneIn(StrictModel):
    zone: str


def _body(model) -> dict:
    return model.model_dump(exclude_unset=True)


def _json(result) -> dict:
    """A use case's result model as the JSON it answers."""
    return result.model_dump(mode="json")


Rows = list[dict[str, Any]]


class JackpotLevels(Shape):
    levels: Rows = Field(description="every level with its live value; staff also see reserve, overflow, pending changes")


class JackpotLevelDetail(Shape):
    code: str
    name: str
    kind: str
    value: int
    history: Rows = Field(description="its last 25 hits")


class JackpotHits(Shape):
    hits: Rows


class JackpotHandpays(Shape):
    waiting: Rows = Field(description="hits waiting for an attendant (handpay) or an operator (verification)")


class JackpotEvents(Shape):
    events: Rows


class JackpotQueue(Shape):
    pending: int
    oldest: str | None
    unpaid: dict[str, Any]
    unpaid_statuses: list[str]


@bp.get("/levels")
@bp.doc(summary="Levels with their live values (any authenticated caller; staff also see reserve and "
                "pending changes)", **AUTH_DOC)
@answers(JackpotLevels)
def levels():
    return services().jackpots.reads.levels(principal())


@bp.post("/levels")
@bp.input(LevelIn, arg_name="body")
@bp.doc(summary="Create a level (operator; Idempotency-Key): standalone, linked or mystery", **AUTH_DOC)
@answers(LevelView, status=201, once=True)
def create_level(body: LevelIn):
    b = _body(body)
    return reply_once(services().jackpots.admin.create_level(principal(), b, once_key("jackpots/levels", b, status=201)),
                      status=201)


@bp.get("/levels/<code>")
@bp.doc(summary="A level: parameters, pending changes, meters and its last 25 hits (operator, auditor, "
                "attendant)", **AUTH_DOC)
@answers(JackpotLevelDetail)
def level(code: str):
    require_role(principal(), "operator", "auditor", "attendant")
    return services().jackpots.reads.level(code)


@bp.patch("/levels/<code>")
@bp.input(LevelPatch, arg_name="body")
@bp.doc(summary="Edit a level (operator): the name now, parameters after its next hit", **AUTH_DOC)
@answers(LevelView)
def edit_level(code: str, body: LevelPatch):
    b = _body(body)
    reason = b.pop("reason", "") or ""
    return _json(services().jackpots.admin.edit_level(principal(), code, b, reason))


@bp.post("/levels/<code>/pause")
@bp.input(ReasonIn, arg_name="body")
@bp.doc(summary="Pause a level: no contributions, no hits (operator)", **AUTH_DOC)
@answers(LevelView)
def pause(code: str, body: ReasonIn):
    return _json(services().jackpots.admin.pause(principal(), code, True, body.reason))


@bp.post("/levels/<code>/resume")
@bp.input(ReasonIn, arg_name="body")
@bp.doc(summary="Resume a paused level (operator)", **AUTH_DOC)
@answers(LevelView)
def resume(code: str, body: ReasonIn):
    return _json(services().jackpots.admin.pause(principal(), code, False, body.reason))


@bp.post("/levels/<code>/corrections")
@bp.input(CorrectionIn, arg_name="body")
@bp.doc(summary="Correct a level's value with a reason (operator; Idempotency-Key; logged for auditors)",
        **AUTH_DOC)
@answers(CorrectedLevel, once=True)
def correct(code: str, body: CorrectionIn):
    key = once_key(f"jackpots/levels/{code}/corrections", [body.value, body.reason])
    return reply_once(services().jackpots.admin.correct(principal(), code, body.value, body.reason, key))


class HitsQuery(ExportQuery):
    limit: Limit(500) = 25
    level: Annotated[str, Field(max_length=40)] | None = None


class EventsQuery(HitsQuery):
    limit: Limit(1000) = 100


class StreamQuery(QueryModel):
    max_seconds: Annotated[float, Field(ge=0, le=86_400, allow_inf_nan=False)] | None = None


@bp.get("/hits")
@bp.input(HitsQuery, location="query", arg_name="query")
@bp.doc(summary="The last hits, newest first (operator, auditor, attendant); ?limit=1..500 (default 25)&level=CODE&format=csv",
        **AUTH_DOC)
@answers(JackpotHits, media=CSV)
def hits(query: HitsQuery):
    require_role(principal(), "operator", "auditor", "attendant")
    return report(services().jackpots.reads.hits(limit=query.limit, level=query.level), query, "hits")


@bp.get("/handpays")
@bp.doc(summary="Hits waiting for a handpay or a verification (attendant, operator)", **AUTH_DOC)
@answers(JackpotHandpays)
def handpays():
    require_role(principal(), "attendant", "operator", "auditor")
    return services().jackpots.reads.handpays()


@bp.post("/hits/<int:hit_id>/handpay")
@bp.doc(summary="Pay a jackpot handpay in cash and reset the machine (attendant; Idempotency-Key)", **AUTH_DOC)
@answers(HandpayPaid, once=True)
def handpay(hit_id: int):
    return reply_once(services().jackpots.awards.pay_handpay(principal(), hit_id, once_key(f"jackpots/hits/{hit_id}/handpay")))


@bp.post("/hits/<int:hit_id>/verify")
@bp.input(VerifyIn, arg_name="body")
@bp.doc(summary="Resolve an over-maximum award: pay (handpay) or void (to overflow), with a reason "
                "(operator; Idempotency-Key)", **AUTH_DOC)
@answers(Verified, once=True)
def verify(hit_id: int, body: VerifyIn):
    key = once_key(f"jackpots/hits/{hit_id}/verify", [body.decision, body.reason])
    return reply_once(services().jackpots.awards.verify(principal(), hit_id, body.decision, body.reason, key))


@bp.get("/events")
@bp.input(EventsQuery, location="query", arg_name="query")
@bp.doc(summary="The jackpot event log: corrections, parameter changes, pauses, second hits, verifications "
                "(auditor, operator); ?limit=1..1000 (default 100)&level=CODE&format=csv", **AUTH_DOC)
@answers(JackpotEvents, media=CSV)
def events(query: EventsQuery):
    require_role(principal(), "auditor", "operator")
    return report(services().jackpots.reads.events(limit=query.limit, level=query.level), query, "jackpot-events")


@bp.get("/queue")
@bp.doc(summary="The sequencer's queue: wagers waiting to be folded (operator, auditor)", **AUTH_DOC)
@answers(JackpotQueue)
def queue():
    require_role(principal(), "operator", "auditor")
    return services().jackpots.reads.queue()


@bp.post("/machines/<asset>/zone")
@bp.input(ZoneIn, arg_name="body")
@bp.doc(summary="Move a machine to another zone; its levels change at each level's next reset (operator)",
        **AUTH_DOC)
@answers(ZoneMove)
def move_machine(asset: str, body: ZoneIn):
    return _json(services().jackpots.admin.move_machine(principal(), asset, body.zone))


@bp.get("/stream")
@bp.input(StreamQuery, location="query", arg_name="query")
@bp.doc(summary="Live meters and hits as Server-Sent Events (any authenticated caller; ?max_seconds= ends it); "
                "served by the stream server or the worker's event loop (docs/streams.md)", **AUTH_DOC)
@answers(media=EVENT_STREAM)
def stream(query: StreamQuery):
    principal()
    svc, authorization = services(), request.headers.get("Authorization")
    return sse_response(svc, signage_feed(svc), query.max_seconds, recheck=lambda: svc.auth.authenticate(authorization))


def signage_feed(svc):
    """The live signage feed of the process's ``svc``: its subscription to the jackpot channel and the SSE frames."""
    from jackpot_controller.adapters.stream import subscribe
    from jackpot_controller.domain.signage import CHANNEL

    def feed(heartbeat_s: float, max_seconds: float):
        sub = subscribe(svc.publisher, svc.settings.redis_url, CHANNEL)
        return sub, svc.jackpots.signage.stream(sub, heartbeat_s=heartbeat_s, max_seconds=max_seconds)

    return feed
