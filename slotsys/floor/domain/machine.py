"""A slot machine on the floor: the domain object the floor's use cases work with.

The adapters map it onto the ``machines`` table (SQLAlchemy imperative mapping in ``slotsys/floor/adapters/tables.py``),
so this module imports no SQLAlchemy and the services change a machine by changing this object inside their unit of
work. Amounts are integer won; meters only ever grow (a game, a bill, a ticket, an award).

Fields:

* identity and place: ``asset_number`` (never reused), ``serial``, ``manufacturer``, ``model``, ``zone``, ``bank``,
  the floor-plan cell ``plan_x`` / ``plan_y`` (grid units; None = not placed);
* what it plays: ``game_id``, ``variation`` ("" = the game's default), ``denomination`` (won per credit) of the
  offered ``denominations`` (None = only the active one), ``max_bet`` (won; None = the game's maximum),
  ``outcome_source``: ``server`` (the spin decides) or ``machine`` (the machine decides and reports its games);
* state: ``status`` ``active`` | ``locked`` | ``handpay`` | ``verification`` | ``disabled`` | ``retired`` with its
  ``lock_reason``; ``retired_at``; ``key_hash`` (SHA-256 of the machine's key, never the key);
* meters (won unless a count): ``coin_in``, ``coin_out``, ``jackpot_out`` (progressive and mystery awards),
  ``games_played``, ``games_won``, ``bills_in``, ``tickets_in`` / ``tickets_out`` and their counts, ``handpay_out``
  and its count, ``restricted_played`` / ``nonrestricted_played`` (the promotional part of coin-in: SAS "credits
  played" meters), ``game_seq`` (the last game number);
* ticketing (SAS 6.02 §15): ``validation_scheme`` ``system`` (host CSPRNG + Damm check digit) or ``sas`` (secure
  enhanced: ``sas_validation_id`` and the 3-byte ``sas_sequence``, drawn again at each ``sas_generation``),
  ``ticket_seq``; ``credit_limit`` (won; ticket-in above it is refused, SAS status 0x84; None = the floor default);
* on a SAS link: ``sas_meter_base`` (None until a SAS host first enrolls it): ``{"machine": {meter: value},
  "floor": {meter: value, "game_seq": n}}``, the machine's own meters (SAS names, won or counts) and the floor's at
  that moment, so a machine with lifetime meters is reconciled and numbered from the difference since.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone

ACTIVE, LOCKED, DISABLED, RETIRED = "active", "locked", "disabled", "retired"


def _now() -> datetime:
    return datetime.now(timezone.utc)


@dataclass(eq=False)
class Machine:
    asset_number: str
    zone: str
    denomination: int
    game_id: str
    key_hash: str
    bank: str = ""
    variation: str = ""
    status: str = ACTIVE
    lock_reason: str = ""
    game_seq: int = 0
    ticket_seq: int = 0
    validation_scheme: str = "system"
    sas_validation_id: int | None = None
    sas_sequence: int = 0
    sas_generation: int = 0
    handpay_out: int = 0
    handpay_out_count: int = 0
    coin_in: int = 0
    coin_out: int = 0
    jackpot_out: int = 0
    games_played: int = 0
    games_won: int = 0
    bills_in: int = 0
    tickets_in: int = 0
    tickets_out: int = 0
    tickets_in_count: int = 0
    tickets_out_count: int = 0
    created_at: datetime = field(default_factory=_now)
    restricted_played: int = 0
    nonrestricted_played: int = 0
    credit_limit: int | None = None
    outcome_source: str = "server"
    serial: str = ""
    manufacturer: str = ""
    model: str = ""
    denominations: list | None = None
    max_bet: int | None = None
    plan_x: int | None = None
    plan_y: int | None = None
    retired_at: datetime | None = None
    sas_meter_base: dict | None = None
    id: int | None = None  # the database's

    @property
    def active(self) -> bool:
        return self.status == ACTIVE

    @property
    def cashable_coin_in(self) -> int:
        """Coin-in staked from cashable credits (won): coin-in less both promotional parts."""
        return self.coin_in - (self.restricted_played or 0) - (self.nonrestricted_played or 0)

    def lock(self, reason: str, status: str = LOCKED) -> None:
        """Stop play (``status`` locked, or handpay / verification / disabled) with a reason (≤ 200 characters)."""
        self.status, self.lock_reason = status, reason[:200]

    def unlock(self) -> None:
        self.status, self.lock_reason = ACTIVE, ""
