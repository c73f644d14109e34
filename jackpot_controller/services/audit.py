"""The jackpot part of the ledger audit (``GET /api/v1/audit/ledger``).

For every level: ``jackpot:<L>:liability`` = floor(value_milli / 1000), ``:reserve`` =
floor(reserve_milli / 1000), ``:overflow`` = floor(overflow_milli / 1000), and ``:payable`` = the
sum of its hits decided but not yet paid (hit, claimed, handpay, verification).
"""

from __future__ import annotations

from slotsys.kernel import accounts
from slotsys.kernel.errors import NotFound
from slotsys.kernel.money import milli_to_won_floor


def _balance(uow, code: str) -> int:
    try:
        return uow.ledger.balance(code)
    except NotFound:  # an account is created with its first posting's level
        return 0


def jackpot_audit(uow) -> list[dict]:
    """One row per level: ledger vs meters for value, reserve, overflow and payable; ``agrees``."""
    unpaid = uow.levels.unpaid_by_level()
    out = []
    for lv in uow.levels.all():
        pairs = {
            "value": (_balance(uow, accounts.jackpot_liability(lv.code)), milli_to_won_floor(lv.value_milli)),
            "reserve": (_balance(uow, accounts.jackpot_reserve(lv.code)), milli_to_won_floor(lv.reserve_milli)),
            "overflow": (_balance(uow, accounts.jackpot_overflow(lv.code)), milli_to_won_floor(lv.overflow_milli)),
            "payable": (_balance(uow, accounts.jackpot_payable(lv.code)), unpaid.get(lv.id, 0)),
        }
        out.append({
            "level": lv.code, "ledger": pairs["value"][0], "meter": pairs["value"][1],
            **{f"{k}_ledger": v[0] for k, v in pairs.items() if k != "value"},
            **{f"{k}_meter": v[1] for k, v in pairs.items() if k != "value"},
            "agrees": all(a == b for a, b in pairs.values()),
        })
    return out
