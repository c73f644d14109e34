"""One time zone for the whole floor: with SLOTSYS_GAMING_DAY_TZ set (and no SLOTSYS_TITO_TIMEZONE), the ticket
faces and TITO report dates use it, and every screen formats its date-times in it (``<html data-tz>``)."""

from __future__ import annotations

from slotsys.kernel.settings import Settings


def test_the_gaming_days_zone_is_the_screens_and_the_tickets(tmp_path, monkeypatch):
    from tests.conftest import _make_app

    monkeypatch.delenv("SLOTSYS_TITO_TIMEZONE", raising=False)
    app = _make_app(Settings(database_url=f"sqlite:///{tmp_path / 'floor.db'}", redis_url=None, celery_eager=True,
                             credentials_file=tmp_path / "creds.json", gaming_day_tz="Pacific/Chatham"))
    try:
        svc = app.extensions["slotsys"]
        assert svc.tito.settings.timezone == "Pacific/Chatham"
        page = app.test_client().get("/console").get_data(as_text=True)
        assert '<html lang="en" data-tz="Pacific/Chatham">' in page
    finally:
        app.extensions["slotsys"].jackpots.driver.stop()
        app.extensions["slotsys"].uow.engine.dispose()
