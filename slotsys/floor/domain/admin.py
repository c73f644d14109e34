"""Floor administration rules (pure): what a machine's enrolment record may hold, and when its game may change.

Every check raises :class:`FloorRuleError` naming the request field it is about (the service turns it into a
422 problem, or a 409 for a rule of the machine's current state). Amounts are integer won.

Rules followed (docs/floor-administration.md):

* asset numbers, zone and bank codes: 1–20 letters, digits, ``-`` or ``_`` (the SAS asset number a machine
  shows is the host's key; we keep the casino's alphanumeric one);
* denominations: won per credit, from the floor's standard set :data:`DENOMINATIONS` (Korean floors: ₩10 … ₩10,000);
  the active one must be among those offered;
* maximum bet: at least the smallest bet the game takes at the active denomination (else the machine could
  not be played), at most :data:`MAX_BET_CAP_WON`;
* game, variation or denomination change (GLI-11 §3.9 / SAS meter snapshot practice): only with every credit
  meter at zero and no game in progress (the machine is ``active`` or ``disabled``, not locked for a handpay,
  verification or award guard); meters are snapshotted before and after;
* floor-plan cells: integer grid coordinates 0 … :data:`PLAN_MAX`, one machine a cell; bank orientation N/E/S/W.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

CODE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,19}$")
DENOMINATIONS = (10, 50, 100, 200, 500, 1_000, 5_000, 10_000)
MAX_BET_CAP_WON = 10_000_000
PLAN_MAX = 999
ORIENTATIONS = ("N", "E", "S", "W")
VALIDATION_SCHEMES = ("system", "sas")
CHANGEABLE_STATUSES = ("active", "disabled")  # no game in progress, no lock pending an attendant or operator
SNAPSHOT_METERS = ("coin_in", "coin_out", "jackpot_out", "games_played", "games_won", "bills_in", "tickets_in",
                   "tickets_out", "tickets_in_count", "tickets_out_count", "handpay_out", "handpay_out_count",
                   "restricted_played", "nonrestricted_played", "game_seq")


class FloorRuleError(ValueError):
    """A rule of floor administration refused the request. ``field``: the request field; ``status``: 422 for a
    value that can never be right, 409 for one the machine's (or zone's, bank's) current state refuses."""

    def __init__(self, field: str, message: str, status: int = 422) -> None:
        super().__init__(message)
        self.field = field
        self.message = message
        self.status = status


def code(field: str, value: object) -> str:
    """An asset number, zone or bank code: returned stripped; FloorRuleError(field) if malformed."""
    if not isinstance(value, str) or not CODE.match(value.strip()):
        raise FloorRuleError(field, "must be 1-20 letters, digits, '-' or '_' (starting with a letter or digit)")
    return value.strip()


def text(field: str, value: object, max_len: int, *, required: bool = False) -> str:
    """A free-text attribute (name, serial, manufacturer, model, reason), stripped, at most ``max_len``."""
    if value is None:
        value = ""
    if not isinstance(value, str):
        raise FloorRuleError(field, "must be text")
    value = value.strip()
    if required and not value:
        raise FloorRuleError(field, "is required")
    if len(value) > max_len:
        raise FloorRuleError(field, f"must be at most {max_len} characters")
    return value


def denominations(offered: object, active: object) -> tuple[list[int], int]:
    """(offered sorted, active) in won per credit: every one in :data:`DENOMINATIONS`, the active among them.
    ``offered`` None means the active one only."""
    if not isinstance(active, int) or isinstance(active, bool) or active not in DENOMINATIONS:
        raise FloorRuleError("denomination", f"must be one of {', '.join(f'₩{d:,}' for d in DENOMINATIONS)}")
    if offered is None:
        return [active], active
    if not isinstance(offered, (list, tuple)) or not offered:
        raise FloorRuleError("denominations", "must be a non-empty list of won per credit")
    out = set()
    for d in offered:
        if not isinstance(d, int) or isinstance(d, bool) or d not in DENOMINATIONS:
            raise FloorRuleError("denominations", f"{d!r} is not offered on this floor "
                                                  f"({', '.join(str(x) for x in DENOMINATIONS)})")
        out.add(d)
    if active not in out:
        raise FloorRuleError("denomination", f"₩{active:,} is not among the denominations offered {sorted(out)}")
    return sorted(out), active


def max_bet(value: object, *, min_bet_credits: int, max_bet_credits: int, denomination: int) -> int | None:
    """The machine's maximum bet in won (None: the game's own maximum, ``max_bet_credits`` × denomination)."""
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or not 0 < value <= MAX_BET_CAP_WON:
        raise FloorRuleError("max_bet", f"must be whole won, 1 … {MAX_BET_CAP_WON:,}")
    smallest = min_bet_credits * denomination
    if value < smallest:
        raise FloorRuleError("max_bet", f"₩{value:,} is below the game's smallest bet ₩{smallest:,} at ₩{denomination:,} "
                                        "a credit: the machine could not be played")
    return value


def credit_limit(value: object) -> int | None:
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or not 0 < value <= 10**12:
        raise FloorRuleError("credit_limit", "must be whole won above 0")
    return value


def position(x: object, y: object) -> tuple[int | None, int | None]:
    """A floor-plan cell: both None (not placed) or both integers in 0 … PLAN_MAX."""
    if x is None and y is None:
        return None, None
    return _cell("x", x), _cell("y", y)


def _cell(name: str, v: object) -> int:
    if not isinstance(v, int) or isinstance(v, bool) or not 0 <= v <= PLAN_MAX:
        raise FloorRuleError(name, f"must be a grid cell 0 … {PLAN_MAX} (x and y together)")
    return v


def orientation(value: object) -> str:
    if value is None:
        return "N"
    if value not in ORIENTATIONS:
        raise FloorRuleError("orientation", f"must be one of {', '.join(ORIENTATIONS)}")
    return value


def validation_scheme(value: object) -> str:
    if value is None:
        return "system"
    if value not in VALIDATION_SCHEMES:
        raise FloorRuleError("validation_scheme", "must be 'system' or 'sas' (docs/tickets-security.md)")
    return value


def reason(value: object, *, required: bool = True) -> str:
    return text("reason", value, 400, required=required)


@dataclass(frozen=True)
class MachineState:
    """What the game-change and retirement rules look at: status and the three credit meters (won)."""

    asset: str
    status: str
    cashable: int
    restricted: int
    nonrestricted: int

    @property
    def credits(self) -> int:
        return self.cashable + self.restricted + self.nonrestricted


def require_idle(state: MachineState, action: str) -> None:
    """A game change or retirement needs no credits and no game in progress (409 naming ``credits`` /
    ``status``)."""
    if state.status not in CHANGEABLE_STATUSES:
        raise FloorRuleError("status", f"machine {state.asset} is {state.status}: finish the game in progress "
                                       f"(handpay, verification, lock) before the {action}", 409)
    if state.credits:
        raise FloorRuleError("credits", f"machine {state.asset} holds ₩{state.credits:,} in credits (cashable "
                                        f"₩{state.cashable:,}, restricted ₩{state.restricted:,}, non-restricted "
                                        f"₩{state.nonrestricted:,}): cash out before the {action}", 409)


def meters_of(m: object) -> dict[str, int]:
    """The snapshot of a machine's meters (won and counts) from any object with those attributes."""
    return {k: int(getattr(m, k) or 0) for k in SNAPSHOT_METERS}
