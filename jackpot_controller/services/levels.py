"""Opening a level and its accounts, in the caller's unit of work (the operator's create, the seeds).

``params_of`` / ``pending_of`` (the parameters of a level's current cycle / of its pending change) live in
:mod:`jackpot_controller.domain.records` and are re-exported here.
"""

from __future__ import annotations

from jackpot_controller.domain.levels import LevelParams
from jackpot_controller.domain.pool import open_cycle
from jackpot_controller.domain.records import Level, params_of, pending_of
from jackpot_controller.services.ports import JackpotUnitOfWork
from slotsys.kernel import accounts
from slotsys.kernel import ledger as L
from slotsys.kernel.money import milli_to_won_floor
from slotsys.kernel.ports import Rng

__all__ = ["create_level", "ensure_accounts", "params_of", "pending_of"]


def ensure_accounts(uow: JackpotUnitOfWork, code: str) -> None:
    """The level's ledger accounts (liability, reserve, overflow, payable, contributions, seed, adjustments)."""
    for acc, typ, non_negative in accounts.jackpot_level_accounts(code):
        uow.ledger.ensure_account(acc, typ, non_negative=non_negative)


def create_level(uow: JackpotUnitOfWork, *, code: str, name: str, params: LevelParams, rng: Rng) -> Level:
    """Create a level at its start value (a mystery level with its first secret trigger, drawn with ``rng``);
    the house funds the start on the ledger (Dr ``jackpot:<code>:seed`` / Cr ``:liability``, won). ``params``
    must be checked by the caller (zone, bank, machine and ``overflow_to`` exist); ``LevelConfigError`` if
    they break a rule of :class:`~jackpot_controller.domain.levels.LevelParams`."""
    params.validate()
    value, trigger = open_cycle(params, rng)
    level = uow.levels.create(code=code, name=name, params=params, value_milli=value, trigger_milli=trigger,
                              seeded_won=params.start_value)
    ensure_accounts(uow, code)
    entry = L.EntryBuilder("jackpot.seed", f"{code} opening seed").add(
        debit=accounts.jackpot_seed(code), credit=accounts.jackpot_liability(code), amount=milli_to_won_floor(value),
        memo="start")
    uow.ledger.post(entry.build({"level": code}))
    return level
