"""Gaming-day accounting's repositories, registered with the unit of work by the composition root."""

from slotsys.accounting.adapters.repositories import DayCloseRepo, DaySources, DropRepo

REPOSITORIES = {
    "day_close": DayCloseRepo,
    "drops": DropRepo,
    "day_sources": DaySources,
}
