"""The signage page on the ``make run`` shape (``slotsys run``: one gunicorn worker, SQLite, in-process
broadcast), where the worker hands its stream to the event loop: the page's same-origin EventSource works on
that raw HTTP/1.1 stream, and when the server ends a stream at its lifetime the page reconnects by itself
(fresh stream token) and keeps showing live values."""

from __future__ import annotations

import json
import os
import time

import httpx

from tests.e2e.browser.conftest import login
from tests.integration._procs import BIN, Proc, free_port, tail, wait_until

COUNT_EVENTSOURCES = """
window.__opened = 0;
const Native = window.EventSource;
window.EventSource = class extends Native {
  constructor(url, opts) { super(url, opts); window.__opened += 1; }
};
"""


class _Creds:
    def __init__(self, creds: dict) -> None:
        self.creds = creds


def test_signage_on_make_run_reconnects_after_the_server_ends_each_stream(browser, tmp_path):
    port = free_port()
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("SLOTSYS_") and k not in ("REDIS_URL", "DATABASE_URL", "PROMETHEUS_MULTIPROC_DIR")}
    env.update(DATABASE_URL=f"sqlite:///{tmp_path / 'floor.db'}", SLOTSYS_PORT=str(port),
               SLOTSYS_CREDENTIALS_FILE=str(tmp_path / "creds.json"), SLOTSYS_LOG_LEVEL="WARNING",
               SLOTSYS_STREAM_MAX_LIFETIME_S="3")
    run = Proc([BIN / "slotsys", "run", "--threads", "2"], env, tmp_path / "run.log").start()
    base = f"http://127.0.0.1:{port}"
    ctx = None
    try:
        assert wait_until(lambda: httpx.get(base + "/readyz", timeout=2).status_code == 200, timeout=90), tail(run.log)
        creds = json.loads((tmp_path / "creds.json").read_text())
        ctx = browser.new_context(viewport={"width": 1400, "height": 900})
        ctx.set_default_timeout(10_000)
        ctx.add_init_script(COUNT_EVENTSOURCES)
        page = ctx.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(base + "/signage/MASS")
        login(page, _Creds(creds), "attendant")
        page.wait_for_selector('#conn[data-state="connected"]')
        page.wait_for_selector('.lv[data-level="MASS_MINOR"] .val')
        # three 3-second lifetimes later the page has opened new streams by itself and is live
        assert wait_until(lambda: page.evaluate("window.__opened") >= 3, timeout=20), page.evaluate("window.__opened")
        page.wait_for_selector('#conn[data-state="connected"]')
        op = next(s for s in creds["staff"] if s["role"] == "operator")
        token = httpx.post(base + "/api/v1/auth/login", json={"username": op["username"], "password": op["password"]},
                           timeout=10).json()["token"]
        r = httpx.post(base + "/api/v1/jackpots/levels/PREMIUM/pause", json={"reason": "streams test"}, timeout=10,
                       headers={"Authorization": f"Bearer {token}"})
        assert r.status_code == 200, r.text
        t = time.monotonic()
        page.wait_for_selector('.lv.paused[data-level="PREMIUM"]', timeout=8_000)
        assert time.monotonic() - t < 8
        assert not errors, errors
    finally:
        if ctx is not None:
            ctx.close()
        run.stop()
