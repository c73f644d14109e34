"""Staff API: sign-in and sign-out, passwords, staff accounts (admin), the floor, the ledger audit."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from apiflask import APIBlueprint
from flask import request
from pydantic import Field

from slotsys.kernel.api.common import AUTH_DOC, Limit, QueryId, QueryModel, StrictModel, principal, services
from slotsys.kernel.api.exports import ExportQuery, report
from slotsys.kernel.checks import require_role
from slotsys.kernel.api.contract import CSV, Shape, answers
from slotsys.staff.services.results import AuthEvents, Deactivated, LoggedOut, StaffToken, TokensRevoked, Unlocked


bp = APIBlueprint("staff", __name__, url_prefix="/api/v1", tag="Staff")

# Token responses must not be stored by a browser or a proxy (RFC 9111 §5.2.2.5; RFC 6749 §5.1 does the same)
NO_STORE = {"Cache-Control": "no-store", "Pragma": "no-cache"}
EVENT_KINDS = ("login", "login_failed", "locked_out", "unlocked", "logout", "deactivated", "password_changed",
               "password_change_failed", "password_reset")


class LoginIn(StrictModel):
    username: str
    password: str


class PasswordChangeIn(StrictModel):
    old_password: str
    new_password: str


class PasswordResetIn(StrictModel):
    new_password: str


class FloorMeters(Shape):
    machines: list[dict[str, Any]]
    zones: list[dict[str, Any]]


class LedgerAudit(Shape):
    balanced: bool
    accounts: int
    journal_entries: int
    sum_of_balances: int
    sum_of_postings: int


@bp.post("/auth/login")
@bp.input(LoginIn, arg_name="body")
@bp.doc(summary="Staff login: a bearer token with the user's role (429 + Retry-After when throttled or locked out)")
@answers(StaffToken, throttled=True)
def login(body: LoginIn):
    token = services().auth.login(body.username, body.password, request.remote_addr)
    return token.model_dump(mode="json"), 200, NO_STORE


@bp.post("/auth/logout")
@bp.doc(summary="Revoke the presented staff token (every node refuses it within 1 s)", **AUTH_DOC)
@answers(LoggedOut)
def logout():
    out = services().auth.logout(principal(), request.headers.get("Authorization"), request.remote_addr)
    return out.model_dump(mode="json"), 200, NO_STORE


@bp.post("/auth/password")
@bp.input(PasswordChangeIn, arg_name="body")
@bp.doc(summary="Change your own password (old + new); every token of yours is revoked: sign in again", **AUTH_DOC)
@answers(TokensRevoked, throttled=True)
def change_password(body: PasswordChangeIn):
    out = services().auth.change_password(principal(), body.old_password, body.new_password, request.remote_addr)
    return out.model_dump(mode="json"), 200, NO_STORE


@bp.post("/staff/users/<username>/unlock")
@bp.doc(summary="Lift a username's sign-in lock-out (admin)", **AUTH_DOC)
@answers(Unlocked)
def unlock(username: str):
    return services().auth.unlock(principal(), username, request.remote_addr).model_dump(mode="json")


@bp.post("/staff/users/<username>/deactivate")
@bp.doc(summary="Deactivate a staff user and revoke every token of theirs (admin)", **AUTH_DOC)
@answers(Deactivated)
def deactivate(username: str):
    return services().auth.deactivate(principal(), username, request.remote_addr).model_dump(mode="json")


@bp.post("/staff/users/<username>/password")
@bp.input(PasswordResetIn, arg_name="body")
@bp.doc(summary="Reset a staff user's password, revoke their tokens and lift any lock-out (admin)", **AUTH_DOC)
@answers(TokensRevoked)
def reset_password(username: str, body: PasswordResetIn):
    out = services().auth.reset_password(principal(), username, body.new_password, request.remote_addr)
    return out.model_dump(mode="json"), 200, NO_STORE


class AuthEventsQuery(QueryModel):
    username: Annotated[str, Field(max_length=64, description="one staff user's events")] | None = None
    kind: Literal[EVENT_KINDS] | None = None  # type: ignore[valid-type]
    limit: Limit(1000) = 100
    cursor: QueryId | None = Field(None, description="next_cursor of the previous page")


@bp.get("/staff/auth-events")
@bp.input(AuthEventsQuery, location="query", arg_name="query")
@bp.doc(summary="The staff sign-in audit trail, newest first (auditor); ?username= &kind= &limit= (1-1000); older "
                "pages by ?cursor= (the answer's next_cursor)", **AUTH_DOC)
@answers(AuthEvents)
def auth_events(query: AuthEventsQuery):
    events = services().auth.events(principal(), username=query.username, kind=query.kind, limit=query.limit,
                                    cursor=query.cursor)
    return events.model_dump(mode="json")


@bp.get("/floor")
@bp.input(ExportQuery, location="query", arg_name="query")
@bp.doc(summary="Zones and machines with credits and meters (operator, attendant, auditor); ?format=csv&table=machines",
        **AUTH_DOC)
@answers(FloorMeters, media=CSV)
def floor(query: ExportQuery):
    require_role(principal(), "operator", "attendant", "auditor")
    return report(services().floor.floor(), query, "meters")


@bp.get("/audit/ledger")
@bp.doc(summary="Proof that the books balance (auditor)", **AUTH_DOC)
@answers(LedgerAudit)
def audit():
    require_role(principal(), "auditor")
    return services().audit.report()
