"""The machine event log: what a machine reported (over the REST API or SAS) and what the system noticed
about it (a refused game report, a machine gone silent). Events are recorded in the caller's transaction.
"""

from __future__ import annotations

from datetime import datetime


def record_event(uow, machine_id: int, kind: str, *, source: str = "api", sas_code: int | None = None,
                 game_number: int | None = None, detail: dict | None = None,
                 reported_at: datetime | None = None):
    """Append one event for the machine (``machines.id``) in ``uow``'s transaction and return its row.

    ``kind``: the event's name (e.g. ``main_door_opened``, ``game_report_refused``); ``source``: ``api`` |
    ``sas`` | ``system``; ``sas_code``: the SAS general exception code where SAS has one."""
    return uow.machine_events.append(machine_id, kind, sas_code=sas_code, source=source, game_number=game_number,
                                     detail=detail, reported_at=reported_at)
