"""The machine event log: what a machine reported (over the REST API or SAS) and what the system noticed
about it (a refused game report, a machine gone silent). Events are recorded in the caller's transaction.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Callable

from slotsys.floor.domain import alerts as A
from slotsys.floor.domain import machine_events as V

ALERT_CHANNEL = "slotsys:jackpots"  # the live channel the console's stream already carries (docs/streams.md)


def record_event(uow, machine_id: int, kind: str, *, source: str = "api", sas_code: int | None = None,
                 game_number: int | None = None, detail: dict | None = None,
                 reported_at: datetime | None = None):
    """Append one event for the machine (``machines.id``) in ``uow``'s transaction and return its row.

    ``kind``: the event's name (e.g. ``main_door_opened``, ``game_report_refused``); ``source``: ``api`` |
    ``sas`` | ``system``; ``sas_code``: the SAS general exception code where SAS has one."""
    return uow.machine_events.append(machine_id, kind, sas_code=sas_code, source=source, game_number=game_number,
                                     detail=detail, reported_at=reported_at)


def announce_alert(uow, alert, publish: Callable[[str, str], None]) -> None:
    """After commit, a notice on the live channel (which also reaches signage and machines: the notice carries
    only the id and state; the console then reads the alert with its own token)."""
    message = json.dumps({"event": "alert", "id": alert.id, "state": alert.state})
    uow.after_commit(lambda: publish(ALERT_CHANNEL, message))


def open_alert(uow, machine_id: int, kind: V.EventKind, event, now: datetime, publish: Callable[[str, str], None],
               *, detail: dict | None = None, security: bool | None = None):
    """Open an alert for ``kind`` on the machine, or count a repeat on its unresolved one; announced after commit."""
    open_ = uow.floor_events.unresolved(machine_id, kind.kind, for_update=True)
    if open_ is not None:
        open_.repeats += 1
        return open_
    a = uow.floor_events.add_alert(machine_id=machine_id, kind=kind.kind, severity=kind.severity,
                                   security=kind.security if security is None else security, state=A.OPEN,
                                   event_id=event.id if event is not None else None, repeats=0,
                                   detail=detail or {}, opened_at=now, resolution="")
    announce_alert(uow, a, publish)
    return a


def record_system_event(uow, ctx, machine_id: int, kind: str, *, source: str = "system",
                        game_number: int | None = None, detail: dict | None = None):
    """An event the system noticed (a refused game report, a skipped game number, a meter mismatch): recorded,
    and, when the vocabulary says the kind needs a person, an alert opened (``ctx.publish`` announces it).
    Raises ``KeyError`` for a kind outside the vocabulary."""
    k = V.BY_KIND[kind]
    event = record_event(uow, machine_id, kind, source=source, game_number=game_number, detail=detail)
    if k.alert:
        open_alert(uow, machine_id, k, event, ctx.clock.now(), ctx.publish, detail=detail)
    return event
