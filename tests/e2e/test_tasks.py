"""Every beat-scheduled task is registered and runs (eagerly, in-process) against the real app."""


def test_beat_schedule_tasks_are_registered_and_run(app):
    celery = app.extensions["slotsys"].celery
    for entry in celery.conf.beat_schedule.values():
        assert entry["task"] in celery.tasks, entry["task"]
    assert celery.tasks["slotsys.expire_idle_points"].delay().get() == {"players": 0, "points_expired_milli": 0}
    assert celery.tasks["tito.expire_tickets"].delay().get() == 0
    assert celery.tasks["slotsys.expire_aft_transfers"].delay().get() == {"expired": 0}
    assert celery.tasks["slotsys.reconcile_machine_meters"].delay().get() == {"machines": 0, "mismatched": [], "not_comparable": []}
