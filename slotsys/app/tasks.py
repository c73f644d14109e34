"""Celery tasks of the slot floor package (thin: they call a service)."""

from celery import shared_task


@shared_task(name="slotsys.expire_idle_points")
def expire_idle_points() -> dict:
    """Expire the points of players idle past the program's idle period (beat, hourly)."""
    from slotsys.app.bootstrap import services
    from slotsys.players.services.players import PlayerService

    return PlayerService(services().ctx).expire_idle()


@shared_task(name="slotsys.purge_idempotency")
def purge_idempotency() -> dict:
    """Delete idempotency records past the retention window in bounded batches (beat, hourly)."""
    from slotsys.app.bootstrap import services
    from slotsys.kernel.retention import purge_from_settings

    return purge_from_settings(services().ctx).as_dict()


@shared_task(name="slotsys.machines_offline_sweep")
def machines_offline_sweep() -> dict:
    """Mark machines not heard for SLOTSYS_MACHINE_OFFLINE_AFTER_S offline, with an event and an alert (beat)."""
    from slotsys.app.bootstrap import services

    return services().events.sweep_offline()


@shared_task(name="slotsys.reconcile_machine_meters")
def reconcile_machine_meters() -> dict:
    """The gaming-day close: every machine-mode machine's last reported meters against the system's; each
    difference is recorded as a ``meter_mismatch`` event (beat, daily at 21:00 UTC = 06:00 Asia/Seoul)."""
    from slotsys.app.bootstrap import services
    from slotsys.floor.services.reported_games import reconcile_floor

    return reconcile_floor(services().ctx)
