"""``GET /api/v1/sas/links``: every SAS machine's link as its host last published it (polls, retries, timeouts,
CRC errors, the last exception, the program signature's status; ``stale`` when the host stopped publishing).
Staff readers only (operator, attendant, auditor, supervisor, admin): the service checks the role (403)."""

from __future__ import annotations

from apiflask import APIBlueprint

from slotsys.kernel.api.common import AUTH_DOC, principal, services
from slotsys.kernel.api.contract import answers
from slotsys.sas.services.link_state import LinkStates

bp = APIBlueprint("sas", __name__, url_prefix="/api/v1/sas", tag="SAS")


@bp.get("/links")
@bp.doc(summary="Every SAS machine's link as its host last published it (operator, attendant, auditor, supervisor)",
        **AUTH_DOC)
@answers(LinkStates)
def links():
    return services().sas_links.links(principal()).model_dump(mode="json")
