"""Browser tests of the screens (issue 10): the real app on a loopback port (SQLite, Celery
eager, a threaded WSGI server in this process) driven by Debian's headless Chromium through
Playwright. Skipped, saying why, when /usr/bin/chromium (or SLOTSYS_CHROMIUM) is missing.

Screenshots land in ``var/artifacts/screens/`` (gitignored with ``var/``)."""

from __future__ import annotations

import os
import shutil
import socket
import threading
import uuid
from pathlib import Path

import pytest

from slotsys.kernel.settings import Settings

CHROMIUM = os.environ.get("SLOTSYS_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]
SCREENS = Path(__file__).resolve().parents[3] / "var" / "artifacts" / "screens"


def pytest_configure(config):
    config.addinivalue_line("markers", "browser: drives the screens in headless Chromium (select with -m browser)")


def pytest_collection_modifyitems(config, items):
    for item in items:  # every test that drives the browser (the API-only tests here run everywhere)
        if {"page", "browser"} & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def chromium_path() -> str:
    if not (os.path.exists(CHROMIUM) and os.access(CHROMIUM, os.X_OK)):
        pytest.skip(f"browser tests skipped: Chromium not found at {CHROMIUM} "
                    "(install Debian's `chromium` package, or set SLOTSYS_CHROMIUM)")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:  # pragma: no cover - playwright is a test extra
        pytest.skip("browser tests skipped: the `playwright` Python package is not installed")
    return CHROMIUM


class LiveServer:
    """The app served on 127.0.0.1:<free port> by a threaded werkzeug server in a daemon thread."""

    def __init__(self, app) -> None:
        from werkzeug.serving import make_server

        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        self.app = app
        self.port = port
        self.url = f"http://127.0.0.1:{port}"
        self.server = make_server("127.0.0.1", port, app, threaded=True)
        self.thread = threading.Thread(target=self.server.serve_forever, name="live-server", daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.server.shutdown()


class CuttableProxy:
    """A TCP proxy in front of the live server whose connections can be cut, to show that a page
    notices a lost connection and recovers: ``cut()`` resets every open connection and refuses
    new ones until ``restore()``."""

    def __init__(self, upstream_port: int) -> None:
        self.upstream = ("127.0.0.1", upstream_port)
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.down = False
        self.conns: list[socket.socket] = []
        self.lock = threading.Lock()
        threading.Thread(target=self._accept, name="proxy-accept", daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.sock.accept()
            except OSError:
                return
            if self.down:
                self._reset(client)
                continue
            upstream = socket.create_connection(self.upstream)
            with self.lock:
                self.conns += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    @staticmethod
    def _pump(a: socket.socket, b: socket.socket) -> None:
        try:
            while data := a.recv(65536):
                b.sendall(data)
        except OSError:
            pass
        finally:
            for s in (a, b):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    @staticmethod
    def _reset(s: socket.socket) -> None:
        import struct

        try:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # RST, not FIN
            s.shutdown(socket.SHUT_RDWR)  # wakes the pump blocked in recv() on it
        except OSError:
            pass
        s.close()

    def cut(self) -> None:
        self.down = True
        with self.lock:
            conns, self.conns = self.conns, []
        for s in conns:
            self._reset(s)

    def restore(self) -> None:
        self.down = False

    def close(self) -> None:
        self.cut()
        self.sock.close()


@pytest.fixture(scope="session")
def live(chromium_path, tmp_path_factory):
    """(server, Api): one seeded floor for the whole browser session."""
    from tests.conftest import Api, _make_app

    tmp = tmp_path_factory.mktemp("screens")
    settings = Settings(database_url=f"sqlite:///{tmp / 'floor.db'}", redis_url=None, celery_eager=True,
                        credentials_file=tmp / "creds.json")
    app = _make_app(settings)
    app.config["TESTING"] = False  # a real server: errors answered as problems, not raised
    server = LiveServer(app)
    yield server, Api(app)
    server.stop()
    app.extensions["slotsys"].uow.engine.dispose()


@pytest.fixture(scope="session")
def browser(chromium_path):
    from playwright.sync_api import sync_playwright

    if SCREENS.exists():
        shutil.rmtree(SCREENS)
    SCREENS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium_path, headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser, live):
    ctx = browser.new_context(viewport={"width": 1400, "height": 900}, accept_downloads=True)
    ctx.set_default_timeout(10_000)
    pg = ctx.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    blocked: list[str] = []  # the pages' Content-Security-Policy refused something (slotsys/app/api/guards.py)
    pg.on("console", lambda m: blocked.append(m.text) if "Content Security Policy" in m.text else None)
    yield pg
    ctx.close()
    assert not errors, f"JavaScript errors on the page: {errors}"
    assert not blocked, f"Content-Security-Policy violations: {blocked}"


def login(page, api, role: str) -> None:
    """Log in through the page's own login form with the demo credentials of ``role``."""
    s = next(s for s in api.creds["staff"] if s["role"] == role)
    page.wait_for_selector("#login:not([hidden])")
    page.fill("#login-username", s["username"])
    page.fill("#login-password", s["password"])
    page.click("#login-submit")
    page.wait_for_selector("#login", state="hidden")


def shot(page, name: str) -> Path:
    path = SCREENS / f"{name}.png"
    page.evaluate("() => document.fonts.ready.then(() => true)")  # Hangul font loaded before the picture
    page.screenshot(path=str(path), full_page=True)
    return path


def cash_out_ticket(api, asset: str, amount: int = 50_000) -> str:
    """A fresh cashable ticket of ``amount`` won printed by ``asset`` (bill in, cash out): its number."""
    r = api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/bill-in", {"amount": amount})
    assert r.status_code == 200, r.json
    r = api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/cash-out")
    assert r.status_code == 201, r.json
    return r.json["ticket"]["validation_number"]


def new_key() -> str:
    return uuid.uuid4().hex
