"""The jackpot part of a spin: the floor's spin hands every wager to :meth:`WagerRecorder.on_wager`.

In the spin's transaction, after the game's own entry is posted, the wager is INSERTed into the sequencer's
queue (``jackpot_wagers``: machine, zone, bank, bet, game number and the progressive level keys the evaluator
reported in ``outcome.progressive``). No pool row is locked, so spins on different machines never wait for
each other here (lock order of the spin: machine row → account rows).

Then, by ``SLOTSYS_JACKPOT_SEQUENCER`` (see :mod:`jackpot_controller.services.sequencer`):

* ``in_spin`` (the embedded SQLite default): the fold runs right here, in the spin's transaction, and this
  wager's own awards are settled in it (credited, or the machine locks for a handpay / verification): the
  response lists them;
* ``async`` / ``process`` (PostgreSQL): after the commit the process's sequencer is kicked (``async``) or the
  sequencer process folds it; the wager is folded within a second and any award is credited as a bonus (or
  handpaid) by the award task. The response's ``jackpots`` is then empty; the award shows in
  ``GET /jackpots/hits``, the game's recall and the live stream.
"""

from __future__ import annotations

from typing import Any

from jackpot_controller.domain.records import MachineRef
from jackpot_controller.services.awards import AwardService
from jackpot_controller.services.ports import JackpotUnitOfWork, MachinePort
from jackpot_controller.services.results import WagerAwards
from jackpot_controller.services.sequencer import Sequencer
from jackpot_controller.services.views import award_view
from slotsys.kernel.context import ServiceContext


class WagerRecorder:
    """The port the floor's spin calls (``machines``: to settle this wager's own awards in the spin)."""

    def __init__(self, ctx: ServiceContext, *, sequencer: Sequencer, awards: AwardService,
                 machines: MachinePort) -> None:
        self.ctx = ctx
        self.sequencer = sequencer
        self.awards = awards
        self.machines = machines

    def on_wager(self, uow: JackpotUnitOfWork, machine: MachineRef, bet_won: int, game_number: int,
                 outcome: Any) -> WagerAwards:
        """Record one wager of ``bet_won`` won played on ``machine`` (its row locked by the spin) as its game
        ``game_number``; ``outcome.progressive`` (optional): the progressive level keys the game won.

        Returns (this wager's awards as ``{hit, level, name, amount, status, pay_method}``, won credited to the
        machine's cashable meter now); both are empty / 0 unless the sequencer runs in the spin. The credited
        won is already posted (Dr ``jackpot:<L>:payable`` / Cr ``machine:<asset>:credits``): the floor adds it
        to the game's jackpot meter and recall itself."""
        keys = tuple(str(k) for k in (getattr(outcome, "progressive", None) or ()))
        in_spin = self.sequencer.in_spin()
        uow.levels.record_wager(defer=not in_spin, machine_id=machine.id, asset=machine.asset, zone=machine.zone,
                                bank=machine.bank or "", game_number=game_number, bet_won=bet_won,
                                progressive=",".join(keys)[:200], created_at=self.ctx.clock.now())
        if not in_spin:
            uow.after_commit(self.sequencer.kick)
            return WagerAwards([], 0)
        res = self.sequencer.fold_in(uow)
        own, credited = [], 0
        for hit in res.hits:
            if hit.machine_id == machine.id and hit.game_number == game_number:
                level = uow.levels.by_id(hit.level_id)
                settled, won = self.awards.settle(uow, hit, level, self.machines.current(uow, machine.id),
                                                  in_spin=True)
                credited += won
                own.append(award_view(settled, level))
        owned = {a["hit"] for a in own}
        uow.after_commit(lambda: self.sequencer.after_fold(res, settled=owned))
        return WagerAwards(own, credited)
