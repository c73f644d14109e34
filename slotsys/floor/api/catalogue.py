"""Administration API of games, staff and the audit log (docs/games-and-staff-administration.md): game uploads
under dual control, staff accounts and sessions, the audit log of privileged changes with its CSV export.
Thin: each route validates its input, names the caller and calls one service."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from apiflask import APIBlueprint
from flask import request
from pydantic import AwareDatetime, ConfigDict, Field, StrictBool

from slotsys.kernel.api.common import AUTH_DOC, Limit, QueryId, QueryModel, StrictModel, principal, services
from slotsys.kernel.api.exports import ExportQuery, report
from slotsys.floor.domain.game_upload import MAX_DEFINITION_CHARS
from slotsys.floor.services.catalogue import STATUSES
from slotsys.floor.services.catalogue import GameUpload, GameUploadDetail, GameUploads
from slotsys.kernel.api.contract import CSV, Shape, answers


bp = APIBlueprint("administration", __name__, url_prefix="/api/v1", tag="Administration")


def _svc(name: str):
    s = services()
    return {"games": s.games, "staff": s.staff_admin, "audit": s.audit_log}[name]


Text400 = Annotated[str, Field(max_length=400)]


# ------------------------------------------------------------------ games
class GameUploadIn(StrictModel):
    model_config = ConfigDict(extra="forbid", str_max_length=MAX_DEFINITION_CHARS)
    definition: Annotated[str, Field(description="the game's YAML text (docs/game-format.md)")]


class GameDecisionIn(StrictModel):
    variations: Annotated[list[Annotated[str, Field(max_length=32)]], Field(min_length=1, max_length=64)] | None = None
    reason: Text400 = ""


class GameRejectIn(StrictModel):
    reason: Text400


class UploadsQuery(QueryModel):
    status: Literal[STATUSES] | None = None  # type: ignore[valid-type]
    limit: Limit(500) = 100


class AuditLogPage(Shape):
    entries: list[dict[str, Any]]
    next_cursor: int | None = Field(description="the ?cursor= of the next page, null on the last")


@bp.post("/games")
@bp.input(GameUploadIn, arg_name="body")
@bp.doc(summary="Upload a game definition (admin, operator): validated (422 lists {field, line, message}), its par "
                "sheet computed; assignable after a second person approves it", **AUTH_DOC)
@answers(GameUpload, status=201)
def upload_game(body: GameUploadIn):
    return _svc("games").upload(principal(), body.definition).model_dump(mode="json"), 201


@bp.get("/games/uploads")
@bp.input(UploadsQuery, location="query", arg_name="query")
@bp.doc(summary="Uploaded game definitions, newest first, and the shipped catalogue (admin, operator, supervisor, "
                "auditor)", **AUTH_DOC)
@answers(GameUploads)
def list_uploads(query: UploadsQuery):
    return _svc("games").list(principal(), status=query.status, limit=query.limit).model_dump(mode="json")


@bp.get("/games/<int:upload_id>")
@bp.doc(summary="One uploaded game definition with its text and exact par sheet per variation", **AUTH_DOC)
@answers(GameUploadDetail)
def get_upload(upload_id: int):
    return _svc("games").get(principal(), upload_id).model_dump(mode="json")


@bp.post("/games/<int:upload_id>/approve")
@bp.input(GameDecisionIn, arg_name="body")
@bp.doc(summary="Approve an upload, all or some variations (admin, supervisor; never the uploader: 403)", **AUTH_DOC)
@answers(GameUpload)
def approve_game(upload_id: int, body: GameDecisionIn):
    upload = _svc("games").approve(principal(), upload_id, variations=body.variations, reason=body.reason)
    return upload.model_dump(mode="json")


@bp.post("/games/<int:upload_id>/reject")
@bp.input(GameRejectIn, arg_name="body")
@bp.doc(summary="Reject an upload with a reason (admin, supervisor; never the uploader: 403)", **AUTH_DOC)
@answers(GameUpload)
def reject_game(upload_id: int, body: GameRejectIn):
    return _svc("games").reject(principal(), upload_id, reason=body.reason).model_dump(mode="json")


# ------------------------------------------------------------------ staff
class StaffCreateIn(StrictModel):
    username: Annotated[str, Field(max_length=60)]
    password: Annotated[str, Field(max_length=200)]
    role: Annotated[str, Field(max_length=20, description="operator, cashier, attendant, auditor, admin, "
                                                          "supervisor, kiosk, host or pit")]


class StaffPatchIn(StrictModel):
    role: Annotated[str, Field(max_length=20)] | None = None
    active: StrictBool | None = None
    reason: Text400 = ""


class SessionsQuery(QueryModel):
    username: Annotated[str, Field(max_length=60)] | None = None


@bp.post("/staff/users")
@bp.input(StaffCreateIn, arg_name="body")
@bp.doc(summary="Create a staff user with a role (admin; the password policy of docs/staff-auth.md)", **AUTH_DOC)
@answers('StaffUser', status=201)
def create_user(body: StaffCreateIn):
    return _svc("staff").create_user(principal(), body.username, body.password, body.role).model_dump(mode="json"), 201


@bp.get("/staff/users")
@bp.doc(summary="Every staff user with role, active and unexpired sessions (admin)", **AUTH_DOC)
@answers('StaffUsers')
def list_users():
    return _svc("staff").users(principal()).model_dump(mode="json")


@bp.patch("/staff/users/<username>")
@bp.input(StaffPatchIn, arg_name="body")
@bp.doc(summary="Change a staff user's role and/or disable / enable them (admin; disabling revokes every token)",
        **AUTH_DOC)
@answers('StaffUserChanged')
def update_user(username: str, body: StaffPatchIn):
    user = _svc("staff").update_user(principal(), username, role=body.role, active=body.active, reason=body.reason)
    return user.model_dump(mode="json")


@bp.get("/staff/sessions")
@bp.input(SessionsQuery, location="query", arg_name="query")
@bp.doc(summary="Active staff sessions: who, since, until, address (admin)", **AUTH_DOC)
@answers('StaffSessions')
def list_sessions(query: SessionsQuery):
    return _svc("staff").sessions(principal(), username=query.username).model_dump(mode="json")


@bp.delete("/staff/sessions/<session_id>")
@bp.doc(summary="End a staff session: its token is refused on every node within 1 s (admin)", **AUTH_DOC)
@answers('SessionEnded')
def end_session(session_id: str):
    return _svc("staff").end_session(principal(), session_id, request.remote_addr).model_dump(mode="json")


# ------------------------------------------------------------------ the audit log
class AuditLogQuery(QueryModel):
    model_config = ConfigDict(extra="ignore", str_max_length=200, populate_by_name=True)
    actor: Annotated[str, Field(max_length=60, description="a username, or system")] | None = None
    action: Annotated[str, Field(max_length=40, description="game.approve exactly; game or game. for the family")] | None = None
    subject: Annotated[str, Field(max_length=80, description="kind:id, e.g. user:cashier1")] | None = None
    outcome: Literal["done", "refused"] | None = None
    from_: Annotated[AwareDatetime | None, Field(alias="from", description="ISO 8601 with a zone, inclusive")] = None
    to: Annotated[AwareDatetime | None, Field(description="ISO 8601 with a zone, exclusive")] = None
    cursor: QueryId | None = None
    limit: Limit(1000) = 100
    format: Literal["json", "csv"] = "json"


@bp.get("/audit/log")
@bp.input(AuditLogQuery, location="query", arg_name="query")
@bp.doc(summary="The audit log of privileged changes, newest first (auditor): ?actor= &action= &subject= &outcome= "
                "&from= &to= &cursor= &limit= (1-1000); ?format=csv exports every match (formula cells neutralised)",
        **AUTH_DOC)
@answers(AuditLogPage, media=CSV)
def audit_log(query: AuditLogQuery):
    filters = {"actor": query.actor, "action": query.action, "subject": query.subject, "outcome": query.outcome,
               "since": query.from_, "until": query.to}
    if query.format == "csv":
        return report(_svc("audit").export(principal(), **filters), ExportQuery(format="csv", table="entries"),
                      "audit-log")
    return _svc("audit").read(principal(), **filters, cursor=query.cursor, limit=query.limit)
