"""Staff repositories, registered with the unit of work by the composition root."""

from slotsys.staff.adapters.repo import StaffRepo
from slotsys.staff.adapters.sessions import StaffSessionRepo

REPOSITORIES = {"staff": StaffRepo, "staff_sessions": StaffSessionRepo}
