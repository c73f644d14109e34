"""Staff API: login, the floor, the ledger audit."""

from __future__ import annotations

from apiflask import APIBlueprint

from slotsys.api.common import AUTH_DOC, StrictModel, principal, services
from slotsys.api.exports import ExportQuery, report
from slotsys.services.staff import require_role

bp = APIBlueprint("staff", __name__, url_prefix="/api/v1", tag="Staff")


class LoginIn(StrictModel):
    username: str
    password: str


@bp.post("/auth/login")
@bp.input(LoginIn, arg_name="body")
@bp.doc(summary="Staff login: returns a bearer token with the user's role")
def login(body: LoginIn):
    return services().auth.login(body.username, body.password)


@bp.get("/floor")
@bp.input(ExportQuery, location="query", arg_name="query")
@bp.doc(summary="Zones and machines with credits and meters (operator, attendant, auditor); ?format=csv&table=machines",
        **AUTH_DOC)
def floor(query: ExportQuery):
    require_role(principal(), "operator", "attendant", "auditor")
    return report(services().floor.floor(), query, "meters")


@bp.get("/audit/ledger")
@bp.doc(summary="Proof that the books balance (auditor)", **AUTH_DOC)
def audit():
    require_role(principal(), "auditor")
    return services().audit.report()
