"""Reads other features' screens and reports need from the jackpot controller (in their transaction).

The floor's read model receives these as functions (the composition root passes them); they read through the
jackpot repository registered with the unit of work (``uow.levels``)."""

from __future__ import annotations

from datetime import datetime


def jackpot_out_by_machine(uow, since: datetime) -> dict[int, int]:
    """Won of the jackpot hits decided since ``since`` (UTC), by machine id: the floor's "today" jackpot out
    (every decided hit counts, paid or still owed)."""
    return uow.levels.jackpot_out_by_machine(since)


def levels_in_zone(uow, zone: str) -> list[str]:
    """Codes of the jackpot levels whose eligibility names ``zone`` (a zone they name cannot be retired)."""
    return uow.levels.codes_in_zone(zone)


def handpay_hits(uow) -> list:
    """The jackpot hits waiting for a handpay (records with ``id``, ``machine_id``, ``amount_won`` (won),
    ``created_at``), oldest first: the floor's handpay queue joins them."""
    return uow.levels.hits_with_status(("handpay",))
