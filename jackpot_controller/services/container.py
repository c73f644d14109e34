"""The jackpot controller's services, built once per process by the composition root
(``slotsys.app.wiring.jackpots.build_jackpot_services``) and reached as ``services.jackpots``.

Dependencies run one way: ``signage`` ← ``sequencer`` ← ``wagers`` (the floor's spin); ``signage`` ←
``awards`` ← ``wagers``; ``sweeper`` uses the sequencer, the awards and signage; ``admin``, ``reads`` and
``tables`` stand alone. None of them knows another feature: the machines, the carded players and the
wallet come in through the ports of :mod:`jackpot_controller.services.ports`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from jackpot_controller.services.awards import AwardService
from jackpot_controller.services.machine_bonus import MachineBonuses
from jackpot_controller.services.operator import LevelAdmin
from jackpot_controller.services.reads import JackpotReads
from jackpot_controller.services.sequencer import FoldDriver, Sequencer
from jackpot_controller.services.signage import Signage
from jackpot_controller.services.spin import WagerRecorder
from jackpot_controller.services.sweep import Sweeper
from jackpot_controller.services.table import TableProgressives
from jackpot_controller.settings import JackpotSettings


@dataclass
class JackpotServices:
    settings: JackpotSettings
    signage: Signage
    sequencer: Sequencer
    awards: AwardService
    wagers: WagerRecorder
    admin: LevelAdmin
    reads: JackpotReads
    tables: TableProgressives
    sweeper: Sweeper
    bonuses: MachineBonuses  # awards a machine pays itself (a SAS machine's legacy bonus)

    # Shorthands kept for the callers outside the feature that use them (the test suite's set-up, slotsys.server's
    # stream processes, the `slotsys sequencer` command): each is the named service's own method.
    @property
    def driver(self) -> FoldDriver:
        return self.sequencer.driver

    @property
    def lease(self):
        return self.sequencer.lease

    def stop(self) -> None:
        self.sequencer.stop()

    def fold_all(self) -> int:
        return self.sequencer.fold_all()

    def announce_hit(self, hit_id: int) -> bool:
        return self.signage.announce_hit(hit_id)

    def meters_message(self) -> dict[str, Any]:
        return self.signage.meters_message()
