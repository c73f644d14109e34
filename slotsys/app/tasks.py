"""Celery tasks of the slot floor, the players and the kernel (thin: they call a service of their Celery app)."""

from celery import shared_task

from slotsys.floor.services.reported_games import reconcile_floor
from slotsys.kernel.retention import purge_from_settings


@shared_task(name="slotsys.expire_idle_points", bind=True)
def expire_idle_points(self) -> dict:
    """Expire the points of players idle past the program's idle period (beat, hourly)."""
    return self.app.services.players.expire_idle().model_dump(mode="json")


@shared_task(name="slotsys.expire_aft_transfers", bind=True)
def expire_aft_transfers(self) -> dict:
    """Expire the AFT transfers the SAS host never took within SLOTSYS_AFT_PENDING_TIMEOUT_S, their wallet holds
    returned (beat, every 10 s; services/aft.py)."""
    return self.app.services.aft.expire_stale()


@shared_task(name="slotsys.purge_idempotency", bind=True)
def purge_idempotency(self) -> dict:
    """Delete idempotency records past the retention window in bounded batches (beat, hourly)."""
    return purge_from_settings(self.app.services.ctx).as_dict()


@shared_task(name="slotsys.machines_offline_sweep", bind=True)
def machines_offline_sweep(self) -> dict:
    """Mark machines not heard for SLOTSYS_MACHINE_OFFLINE_AFTER_S offline, with an event and an alert (beat)."""
    return self.app.services.events.sweep_offline().model_dump(mode="json")


@shared_task(name="slotsys.reconcile_machine_meters", bind=True)
def reconcile_machine_meters(self) -> dict:
    """The gaming-day close: every machine-mode machine's last reported meters against the system's; each
    difference is recorded as a ``meter_mismatch`` event (beat, daily at 21:00 UTC = 06:00 Asia/Seoul)."""
    return reconcile_floor(self.app.services.ctx).model_dump(mode="json")


@shared_task(name="slotsys.accounting_close_due", bind=True)
def accounting_close_due(self) -> dict:
    """Read the meters of the gaming day just ended and close it SLOTSYS_ACCOUNTING_CLOSE_AFTER_S after its end,
    catching up on any day a missed run left open, in order (beat, every SLOTSYS_ACCOUNTING_BEAT_INTERVAL_S)."""
    return self.app.services.accounting.days.close_due().model_dump(mode="json")
