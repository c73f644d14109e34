"""Hostile input under real gunicorn (``-c python:slotsys.server.gunicorn_conf``, ``AdmissionWorker``): after a 413 the
answer says ``Connection: close`` and the server closes the socket (gunicorn dropped the app's hop-by-hop
``Connection: close``, answered ``keep-alive`` and closed anyway, so a client reused a dead connection); the
security headers reach the client; a chunked body over the limit is a 413 that closes, never cut and applied (the
tester's padded request credited ₩1,000), and one within it still works. One server for the module (about 5 s)."""

from __future__ import annotations

import socket
import time
import uuid

import httpx
import pytest

from slotsys.kernel.settings import Settings
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


def _chunked_head(creds, asset: str) -> bytes:
    key = next(m["key"] for m in creds["machines"] if m["asset"] == asset)
    return (f"POST /api/v1/machines/{asset}/bill-in HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {key}\r\n"
            f"Idempotency-Key: {uuid.uuid4().hex}\r\nContent-Type: application/json\r\n"
            "Transfer-Encoding: chunked\r\n\r\n").encode()


def _chunks(body: bytes, size: int = 8192) -> list[bytes]:
    """``body`` in HTTP/1.1 chunks (RFC 9112 §7.1), then the last chunk."""
    out = [b"%x\r\n" % len(body[i:i + size]) + body[i:i + size] + b"\r\n" for i in range(0, len(body), size)]
    return out + [b"0\r\n\r\n"]


def _credits(server, asset: str) -> int:
    key = next(m["key"] for m in server["creds"]["machines"] if m["asset"] == asset)
    r = httpx.get(f"{server['base']}/api/v1/machines/{asset}/meters", headers={"Authorization": f"Bearer {key}"})
    assert r.status_code == 200, r.text
    return r.json()["credits"]


def test_a_chunked_body_over_the_limit_is_413_closes_and_credits_nothing(server):
    """The tester's exact request: ``{"amount": 1000}`` + 70,000 spaces + ``}}}} NOT JSON {"amount": 50000}``,
    chunked, straight at gunicorn. Was: 200, ₩1,000 credited (the body cut at 64 KiB), keep-alive."""
    before = _credits(server, "M017")
    body = b'{"amount": 1000}' + b" " * 70_000 + b'}}}} NOT JSON {"amount": 50000}'
    answer, closed = _exchange(server["port"], _chunked_head(server["creds"], "M017"), _chunks(body))
    head, _, payload = answer.partition(b"\r\n\r\n")
    head_text = head.decode().lower()
    assert head_text.startswith("http/1.1 413"), answer[:300]
    assert "connection: close" in head_text and "keep-alive" not in head_text, head_text
    assert "content-type: application/problem+json" in head_text
    assert b'"field": "body"' in payload or b'"field":"body"' in payload, payload[:300]
    assert closed, "the server kept the connection open after a 413"
    assert _credits(server, "M017") == before


def test_a_chunked_body_within_the_limit_still_credits(server):
    before = _credits(server, "M017")
    body = b'{"amount": 1000}' + b" " * 30_000
    answer, closed = _exchange(server["port"], _chunked_head(server["creds"], "M017"), _chunks(body))
    head = answer.split(b"\r\n\r\n", 1)[0].decode().lower()
    assert head.startswith("http/1.1 200") and "connection: keep-alive" in head, head
    assert not closed
    assert _credits(server, "M017") == before + 1000
