"""The jackpot part of a spin (called by ``slotsys.floor.services.play.FloorService.spin``).

In the spin's transaction, after the game's own entry is posted, :func:`on_wager` INSERTs the
wager into the sequencer's queue (``jackpot_wagers``: machine, zone, bank, bet, game number and
the progressive level keys the evaluator reported in ``outcome.progressive``). No pool row is
locked, so spins on different machines never wait for each other here.

Then, by ``SLOTSYS_JACKPOT_SEQUENCER`` (see :mod:`jackpot_controller.services.sequencer`):

* ``in_spin`` (the embedded SQLite default): the fold runs right here, in the spin's
  transaction, and this wager's own awards are settled in it (credited, or the machine locks
  for a handpay / verification): the response lists them;
* ``async`` (PostgreSQL): after the commit the process's sequencer is kicked; the wager is
  folded within a second and any award is credited as a bonus (or handpaid) by the award
  task. The response's ``jackpots`` is then empty; the award shows in ``GET /jackpots/hits``,
  the game's recall and the live stream.
"""

from __future__ import annotations

from jackpot_controller.services.awards import award_view, settle
from slotsys.floor.adapters.tables import Machine
from slotsys.kernel.context import ServiceContext


def on_wager(uow, ctx: ServiceContext, machine: Machine, bet_won: int, game_number: int, outcome) -> tuple[list[dict], int]:
    """Record one wager; returns (this wager's awards as ``{hit, level, name, amount, status}``,
    won credited to the machine now). Awards are non-empty only in ``in_spin`` mode."""
    from jackpot_controller.services.controller import service_for

    svc = service_for(ctx)
    keys = tuple(str(k) for k in (getattr(outcome, "progressive", None) or ()))
    in_spin = svc.in_spin(uow)
    uow.levels.record_wager(defer=not in_spin, machine_id=machine.id, asset=machine.asset_number, zone=machine.zone,
                            bank=machine.bank or "", game_number=game_number, bet_won=bet_won,
                            progressive=",".join(keys)[:200], created_at=ctx.clock.now())
    if not in_spin:
        uow.after_commit(svc.kick)
        return [], 0
    res = svc.fold_in(uow)
    own, credited = [], 0
    for hit in res.hits:
        if hit.machine_id == machine.id and hit.game_number == game_number:
            level = uow.levels.by_id(hit.level_id)
            credited += settle(uow, svc, hit, level, machine, in_spin=True)
            own.append(award_view(hit, level))
    owned = {a["hit"] for a in own}
    uow.after_commit(lambda: svc.after_fold(res, settled=owned))
    return own, credited
