"""Hostile input under real gunicorn (``-c python:slotsys.gunicorn_conf``, ``AdmissionWorker``): after a 413 the
answer says ``Connection: close`` and the server closes the socket (gunicorn dropped the app's hop-by-hop
``Connection: close``, answered ``keep-alive`` and closed anyway, so a client reused a dead connection); the
security headers reach the client. One server for the module (about 5 s)."""

from __future__ import annotations

import socket
import time
import uuid

import httpx
import pytest

from slotsys.settings import Settings
from tests.conftest import _make_app
from tests.e2e._gunicorn import gunicorn


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("hostile-gunicorn")
    db = f"sqlite:///{tmp / 'floor.db'}"
    app = _make_app(Settings(database_url=db, redis_url=None, celery_eager=True, credentials_file=tmp / "creds.json"))
    creds = app.config["DEMO_CREDENTIALS"]
    app.extensions["slotsys"].jackpots.driver.stop()
    app.extensions["slotsys"].uow.engine.dispose()
    with gunicorn(db, tmp, workers=1, threads=2) as srv:
        yield {**srv, "creds": creds, "port": int(srv["base"].rsplit(":", 1)[1])}


def _exchange(port: int, request: bytes, body_chunks: list[bytes]) -> tuple[bytes, bool]:
    """Send ``request`` then ``body_chunks`` (ignoring a reset once the server has answered); return the whole
    answer read until the server closes (True) or 5 s of silence (False)."""
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    try:
        s.sendall(request)
        for chunk in body_chunks:
            try:
                s.sendall(chunk)
            except OSError:
                break
        data, closed = b"", False
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            try:
                got = s.recv(65536)
            except TimeoutError:
                break
            except ConnectionResetError:
                closed = True
                break
            if not got:
                closed = True
                break
            data += got
        return data, closed
    finally:
        s.close()


def _head(creds, path: str, length: int) -> bytes:
    key = next(m["key"] for m in creds["machines"] if m["asset"] == "M001")
    return (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {key}\r\n"
            f"Idempotency-Key: {uuid.uuid4().hex}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {length}\r\n\r\n").encode()


def test_413_says_connection_close_and_closes(server):
    size = 200_000  # beyond SLOTSYS_MAX_BODY_BYTES (64 KiB)
    body = b'{"amount": 10000, "pad": "' + b"x" * (size - 28) + b'"}'
    assert len(body) == size
    answer, closed = _exchange(server["port"], _head(server["creds"], "/api/v1/machines/M001/bill-in", size),
                               [body[i:i + 16384] for i in range(0, size, 16384)])
    head = answer.split(b"\r\n\r\n", 1)[0].decode().lower()
    assert head.startswith("http/1.1 413"), answer[:300]
    assert "connection: close" in head and "keep-alive" not in head, head
    assert "content-type: application/problem+json" in head
    assert closed, "the server kept the connection open after a 413"


def test_an_ordinary_answer_still_keeps_the_connection_alive(server):
    body = b'{"amount": 10000}'
    answer, closed = _exchange(server["port"], _head(server["creds"], "/api/v1/machines/M001/bill-in", len(body)),
                               [body])
    head = answer.split(b"\r\n\r\n", 1)[0].decode().lower()
    assert head.startswith("http/1.1 200") and "connection: keep-alive" in head, head
    assert not closed


def test_security_headers_reach_the_client(server):
    r = httpx.get(server["base"] + "/reports")
    assert r.status_code == 200
    assert "default-src 'self'" in r.headers["content-security-policy"]
    assert r.headers["x-frame-options"] == "DENY" and r.headers["x-content-type-options"] == "nosniff"
