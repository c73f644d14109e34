"""Machine events, alerts and the handpay queue (thin routes; ``slotsys.floor.services.events``).

* ``POST /api/v1/machines/<asset>/events`` (the machine's own key): one event or ``{"events": [...]}``.
* ``GET /api/v1/machines/<asset>/events`` (staff): ``?kind=&since=&before_id=&limit=``.
* ``GET /api/v1/machine-events/vocabulary``: the kinds, SAS codes, labels, severities.
* ``GET /api/v1/alerts`` (staff), ``POST /api/v1/alerts/<id>/acknowledge|dispatch|resolve`` (attendant, supervisor).
* ``GET /api/v1/handpays`` (staff), ``POST /api/v1/handpays/<id>/sign`` (attendant, supervisor; Idempotency-Key).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from apiflask import APIBlueprint
from flask import g
from pydantic import AwareDatetime, Field, field_validator, model_validator

from slotsys.kernel.api.common import (
    AUTH_DOC,
    Limit,
    QueryId,
    QueryModel,
    StrictModel,
    once_key,
    principal,
    reply_once,
    services,
)
from slotsys.floor.services.events import AlertPage, AlertView, EventBatch, HandpayQueue, HandpayView, MachineEventLog
from slotsys.kernel.api.contract import Shape, answers


bp = APIBlueprint("floor_events", __name__, url_prefix="/api/v1", tag="Machine events and alerts")

SasCode = Annotated[int, Field(strict=True, ge=0, le=255, description="SAS general exception code (0x00–0xFF)")]
GameNumber = Annotated[int, Field(strict=True, ge=1, le=2**62)]


class _EventFields(StrictModel):
    kind: str | None = Field(None, max_length=40, description="event kind (see /machine-events/vocabulary)")
    sas_code: SasCode | None = None
    reported_at: AwareDatetime | None = Field(None, description="the machine's own time stamp, ISO 8601 with zone")
    game_number: GameNumber | None = None
    amount: Annotated[int, Field(strict=True, ge=1, le=10**12)] | None = Field(
        None, description="won: the amount of a handpay pending")
    detail: dict | None = None

    @field_validator("detail")
    @classmethod
    def _flat(cls, v):
        """``detail``: at most 20 names (≤ 40 characters) with text (≤ 200, no NUL), number, boolean or null values."""
        if v is None:
            return v
        if len(v) > 20:
            raise ValueError("detail has more than 20 entries")
        for name, value in v.items():
            if len(name) > 40 or "\x00" in name:
                raise ValueError(f"detail name {name[:40]!r} is longer than 40 characters or holds NUL")
            if isinstance(value, str):
                if len(value) > 200 or "\x00" in value:
                    raise ValueError(f"detail.{name} is longer than 200 characters or holds NUL")
            elif value is not None and not isinstance(value, (bool, int, float)):
                raise ValueError(f"detail.{name} must be text, a number, a boolean or null")
            elif isinstance(value, int) and not isinstance(value, bool) and abs(value) > 2**53:
                raise ValueError(f"detail.{name} is out of range")
        return v

    def event(self) -> dict:
        return self.model_dump(exclude_none=True, exclude={"events"})


class EventIn(_EventFields):
    @model_validator(mode="after")
    def _one_of(self):
        if self.kind is None and self.sas_code is None:
            raise ValueError("give kind or sas_code")
        return self


class ReportIn(_EventFields):
    """One event (its fields at the top level) or a batch: ``{"events": [event, …]}`` (1 … 100)."""

    events: list[EventIn] | None = Field(None, min_length=1, max_length=100)

    @model_validator(mode="after")
    def _one_or_batch(self):
        if self.events is not None:
            if self.event():
                raise ValueError("send either one event's fields or events, not both")
        elif self.kind is None and self.sas_code is None:
            raise ValueError("give kind or sas_code (or events)")
        return self

    def batch(self) -> list[dict]:
        return [e.event() for e in self.events] if self.events is not None else [self.event()]


class EventsQuery(QueryModel):
    kind: str | None = None
    since: AwareDatetime | None = None
    before_id: QueryId | None = None
    limit: Limit(500) = 100


class AlertsQuery(QueryModel):
    state: str | None = None
    machine: str | None = Field(None, max_length=20)
    kind: str | None = None
    security: bool | None = None
    since: AwareDatetime | None = None
    before_id: QueryId | None = None
    limit: Limit(500) = 100


class HandpaysQuery(QueryModel):
    state: Literal["pending", "paid", "cancelled"] | None = None
    before_id: QueryId | None = None
    limit: Limit(500) = 100


class DispatchIn(StrictModel):
    to: str | None = Field(None, max_length=60, description="the attendant sent (default: the caller)")
    note: str = Field("", max_length=400)


class ResolveIn(StrictModel):
    note: str = Field("", max_length=400, description="what was found / done")


def _events_service():
    return services().events


@bp.after_app_request
def _machine_heard(resp):
    """Every authenticated machine request marks the machine heard (at most one write per machine per
    ``SLOTSYS_MACHINE_HEARTBEAT_WRITE_S`` and process)."""
    p = g.get("principal")
    if p is not None and p.kind == "machine" and resp.status_code not in (401, 403):
        _events_service().heard(p.name)
    return resp


class EventVocabulary(Shape):
    kinds: list[dict[str, Any]] = Field(description="each event kind: its SAS code, severity, alert, English and Korean")


@bp.post("/machines/<asset>/events")
@bp.input(ReportIn, arg_name="body")
@bp.doc(summary="Report machine events (one, or {\"events\": [...]}; kind or SAS exception code; optional "
                "Idempotency-Key)", **AUTH_DOC)
@answers(EventBatch, status=201, once=True)
def report_events(asset: str, body: ReportIn):
    events = body.batch()
    key = once_key(f"events/{asset}", events, status=201)
    return reply_once(_events_service().report(principal(), asset, events, key),
                      status=201)


@bp.get("/machines/<asset>/events")
@bp.input(EventsQuery, location="query", arg_name="query")
@bp.doc(summary="A machine's event log, newest first (staff)", **AUTH_DOC)
@answers(MachineEventLog)
def machine_events(asset: str, query: EventsQuery):
    return _events_service().events(principal(), asset, kind=query.kind, since=query.since,
                                    before_id=query.before_id, limit=query.limit).model_dump(mode="json")


@bp.get("/machine-events/vocabulary")
@bp.doc(summary="Event kinds: SAS code, labels (English, Korean), severity, alert, security", **AUTH_DOC)
@answers(EventVocabulary)
def vocabulary():
    principal()
    return _events_service().vocabulary()


@bp.get("/alerts")
@bp.input(AlertsQuery, location="query", arg_name="query")
@bp.doc(summary="Attendant alerts, newest first (state=active for the open queue)", **AUTH_DOC)
@answers(AlertPage)
def alerts(query: AlertsQuery):
    return _events_service().alerts(principal(), state=query.state, machine=query.machine, kind=query.kind,
                                    security=query.security, since=query.since, before_id=query.before_id,
                                    limit=query.limit).model_dump(mode="json")


@bp.post("/alerts/<int:alert_id>/acknowledge")
@bp.doc(summary="Acknowledge an open alert (attendant, supervisor)", **AUTH_DOC)
@answers(AlertView)
def acknowledge(alert_id: int):
    return _events_service().transition(principal(), alert_id, "acknowledge").model_dump(mode="json")


@bp.post("/alerts/<int:alert_id>/dispatch")
@bp.input(DispatchIn, arg_name="body")
@bp.doc(summary="Dispatch an attendant to the machine (attendant, supervisor)", **AUTH_DOC)
@answers(AlertView)
def dispatch(alert_id: int, body: DispatchIn):
    return _events_service().transition(principal(), alert_id, "dispatch", to=body.to,
                                        note=body.note).model_dump(mode="json")


@bp.post("/alerts/<int:alert_id>/resolve")
@bp.input(ResolveIn, arg_name="body")
@bp.doc(summary="Resolve an alert with a note (attendant, supervisor)", **AUTH_DOC)
@answers(AlertView)
def resolve(alert_id: int, body: ResolveIn):
    return _events_service().transition(principal(), alert_id, "resolve", note=body.note).model_dump(mode="json")


@bp.get("/handpays")
@bp.input(HandpaysQuery, location="query", arg_name="query")
@bp.doc(summary="The handpay queue: jackpot and cancelled-credit handpays with their signers (staff)", **AUTH_DOC)
@answers(HandpayQueue)
def handpays(query: HandpaysQuery):
    return _events_service().handpays(principal(), state=query.state, before_id=query.before_id,
                                      limit=query.limit).model_dump(mode="json")


@bp.post("/handpays/<int:handpay_id>/sign")
@bp.doc(summary="Sign a handpay; the last needed signature pays it (Idempotency-Key; two signers above "
                "SLOTSYS_HANDPAY_TWO_PERSON_WON)", **AUTH_DOC)
@answers(HandpayView, once=True)
def sign_handpay(handpay_id: int):
    return reply_once(_events_service().sign(principal(), handpay_id, once_key(f"handpays/{handpay_id}/sign")))
