"""The slot floor's repositories, registered with the unit of work by the composition root."""

from slotsys.floor.adapters.admin import FloorAdminRepo
from slotsys.floor.adapters.event_log import MachineEventRepo
from slotsys.floor.adapters.events import FloorEventsRepo
from slotsys.floor.adapters.game_definitions import GameDefinitionRepo
from slotsys.floor.adapters.meter_reports import MachineMeterReportRepo
from slotsys.floor.adapters.repositories import GameRoundRepo, MachineRepo

REPOSITORIES = {
    "machines": MachineRepo,
    "rounds": GameRoundRepo,
    "machine_events": MachineEventRepo,
    "game_definitions": GameDefinitionRepo,
    "floor_events": FloorEventsRepo,
    "meter_reports": MachineMeterReportRepo,
    "floor_admin": FloorAdminRepo,
}
