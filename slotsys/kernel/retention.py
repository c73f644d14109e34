"""Data retention: purge idempotency records older than the retention window.

The stored responses behind ``Idempotency-Key`` (``services/idempotency.run_once``) are a retry cache, not a
record of the money: the ledger, the tickets, the game rounds and the event logs are. At 100 spins/s they grow
by about 7 GB a day, so they are kept for ``SLOTSYS_IDEMPOTENCY_RETENTION_DAYS`` (default 7) and then deleted.

Rule (why a late retry cannot pay twice): a retry is recognised only while its record exists, i.e. for the
retention window. Every client retries a request for seconds to minutes (a machine's request times out and the
machine gives up, the emulator retries a few times, a screen's button sends a fresh key per press), so a window
of days is several orders of magnitude above any real retry; the setting cannot go below one day. Beyond the
window the state the first request left still refuses the money movement a second time: a redeemed ticket is
refused by its validation number (unique; ``409 ticket-already-redeemed``), a cash-out finds the machine's
credits already at zero (the first one moved them to ``tito:outstanding``), a two-phase redemption's
transaction id is settled, a jackpot award is claimed once by its hit row (unique per level and cycle). Only
requests that create new money from their body alone (a bill-in, a cage deposit) are protected by the window
alone; those come from a live device or cashier, which never retries a week-old request.

Shape: :func:`purge_idempotency` → :class:`PurgeReport`; units: days, rows. Each batch is its own short
transaction (``DELETE … WHERE id IN (SELECT … ORDER BY created_at LIMIT n)``, index on ``created_at``,
migration 0016), so the purge never holds locks or a snapshot for long, and spins interleave between batches.
Raises nothing of its own; database errors propagate (the next run continues where this one stopped).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import datetime, timedelta
from typing import Any, Callable


@dataclass(frozen=True)
class PurgeReport:
    cutoff: datetime  # records created before this instant (UTC) are purged
    retention_days: int
    batch_size: int
    deleted: int  # rows deleted (0 on a dry run)
    batches: int  # transactions that deleted something
    eligible: int | None = None  # dry run only: rows older than the cutoff
    dry_run: bool = False

    def as_dict(self) -> dict:
        d = asdict(self)
        d["cutoff"] = self.cutoff.isoformat()
        return d


def purge_idempotency(uow_factory: Callable[..., Any], now: datetime, *, retention_days: int, batch_size: int,
                      dry_run: bool = False, max_batches: int | None = None) -> PurgeReport:
    """Delete idempotency records created before ``now - retention_days``, ``batch_size`` rows per transaction,
    until a batch comes back short (or after ``max_batches``). ``dry_run`` counts them and deletes nothing."""
    if retention_days < 1 or batch_size < 1:
        raise ValueError("retention_days and batch_size must be at least 1")
    cutoff = now - timedelta(days=retention_days)
    if dry_run:
        with uow_factory(readonly=True) as uow:
            eligible = uow.idempotency.count_older(cutoff)
        return PurgeReport(cutoff, retention_days, batch_size, 0, 0, eligible, True)
    deleted = batches = 0
    while max_batches is None or batches < max_batches:
        with uow_factory() as uow:
            n = uow.idempotency.purge_batch(cutoff, batch_size)
            uow.commit()
        if n:
            deleted += n
            batches += 1
        if n < batch_size:
            break
    return PurgeReport(cutoff, retention_days, batch_size, deleted, batches)


def purge_from_settings(ctx, *, dry_run: bool = False) -> PurgeReport:
    """:func:`purge_idempotency` with the service context's clock and the retention settings."""
    s = ctx.settings
    return purge_idempotency(ctx.uow, ctx.clock.now(), retention_days=s.idempotency_retention_days,
                             batch_size=s.idempotency_purge_batch, dry_run=dry_run)
