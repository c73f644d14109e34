"""The safety net (beat's ``jackpot_controller.sweep``, every 5 s): fold what waits, release claims past the
commit timeout, award hits whose task was lost (e.g. Redis flushed), announce unannounced hits."""

from __future__ import annotations

from datetime import timedelta

from jackpot_controller.services.awards import AwardService
from jackpot_controller.services.results import SweepResult
from jackpot_controller.services.sequencer import Sequencer
from jackpot_controller.services.signage import Signage
from slotsys.kernel.context import ServiceContext

STALE_AFTER = timedelta(seconds=2)  # a hit still ``hit`` this long after it was decided lost its award task


class Sweeper:
    def __init__(self, ctx: ServiceContext, *, sequencer: Sequencer, awards: AwardService, signage: Signage) -> None:
        self.ctx = ctx
        self.sequencer = sequencer
        self.awards = awards
        self.signage = signage

    def run(self) -> SweepResult:
        """One pass; each step is exactly-once on its own (claims, announced flags), so passes may overlap."""
        folded = self.sequencer.fold_safety_net()
        released = self.awards.release_stale_claims()
        with self.ctx.uow(readonly=True) as uow:
            stale = [h.id for h in uow.levels.hits_with_status(("hit",), before=self.ctx.clock.now() - STALE_AFTER)]
        awarded = [h for h in stale if self.awards.process(h)]
        return SweepResult(folded=folded, released=released, awarded=awarded,
                           announced=self.signage.announce_pending())
