"""Jackpot API: levels and hit history (the trigger is never exposed)."""

from __future__ import annotations

from apiflask import APIBlueprint

from slotsys.api.common import AUTH_DOC, principal, services
from slotsys.services.staff import require_role

bp = APIBlueprint("jackpots", __name__, url_prefix="/api/v1/jackpots", tag="Jackpots")


@bp.get("/levels")
@bp.doc(summary="Levels with their live values (any authenticated caller)", **AUTH_DOC)
def levels():
    principal()
    return services().jackpots.levels()


@bp.get("/hits")
@bp.doc(summary="The last 25 hits (operator, auditor, attendant)", **AUTH_DOC)
def hits():
    require_role(principal(), "operator", "auditor", "attendant")
    return services().jackpots.hits()
