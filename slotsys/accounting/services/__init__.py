"""Gaming-day accounting's use cases (``days``: reads, closes, reports; ``drops``: schedule, counts, variances)."""

from __future__ import annotations

from dataclasses import dataclass

from slotsys.kernel.gaming_day import GamingDay
from slotsys.accounting.services.days import DayCloseService
from slotsys.accounting.services.drops import DropService
from slotsys.accounting.services.ports import ParSheets
from slotsys.accounting.settings import AccountingSettings
from slotsys.kernel.context import ServiceContext


@dataclass
class AccountingServices:
    """The feature's services, built once by the composition root."""

    gaming_day: GamingDay
    days: DayCloseService
    drops: DropService

    @classmethod
    def build(cls, ctx: ServiceContext, *, gaming_day: GamingDay, par_sheets: ParSheets,
              settings: AccountingSettings) -> "AccountingServices":
        return cls(gaming_day, DayCloseService(ctx, gaming_day=gaming_day, par_sheets=par_sheets, settings=settings),
                   DropService(ctx))
