"""A body of unknown length (``Transfer-Encoding: chunked``: no ``Content-Length``, the server delimits the
stream and sets ``wsgi.input_terminated``) on the Flask test client, with the app's real request class and body
limit (``SLOTSYS_MAX_BODY_BYTES``, 64 KiB). An outside tester's request ``{"amount": 1000}`` + 70,000 spaces +
``}}}} NOT JSON {"amount": 50000}`` was cut at the limit and its prefix credited ₩1,000; now it is a 413
problem+json naming ``body`` with ``Connection: close`` and nothing applied. Within the limit a chunked body
still works, and at most limit + 1 bytes are ever read from the stream. The same request against real gunicorn
over a raw socket: tests/e2e/test_hostile_input_gunicorn.py."""

from __future__ import annotations

import io
import uuid

TESTER_BODY = b'{"amount": 1000}' + b" " * 70_000 + b'}}}} NOT JSON {"amount": 50000}'
LIMIT = 64 * 1024


class _CountingStream(io.BytesIO):
    """The server's input stream, counting the bytes the app asked for and got."""

    def __init__(self, data: bytes) -> None:
        super().__init__(data)
        self.taken = 0

    def read(self, size: int | None = -1) -> bytes:
        got = super().read(size)
        self.taken += len(got)
        return got


def _chunked_post(api, asset: str, stream: io.BytesIO, key: str | None = None):
    headers = {"Authorization": f"Bearer {api.key(asset)}", "Idempotency-Key": key or uuid.uuid4().hex,
               "Content-Type": "application/json", "Transfer-Encoding": "chunked"}
    return api.client.open(f"/api/v1/machines/{asset}/bill-in", method="POST", input_stream=stream,
                           headers=headers, environ_overrides={"wsgi.input_terminated": True})


def _credits(api, asset: str) -> int:
    r = api.as_machine(asset, "GET", f"/api/v1/machines/{asset}/meters", key=None)
    assert r.status_code == 200, r.json
    return r.json["credits"]


def test_the_testers_padded_chunked_body_is_413_and_credits_nothing(api):
    assert api.app.config["MAX_CONTENT_LENGTH"] == LIMIT
    before, audit = _credits(api, "M017"), api.audit()
    stream = _CountingStream(TESTER_BODY)
    r = _chunked_post(api, "M017", stream)
    assert r.status_code == 413, (r.status_code, r.get_data()[:300])
    assert r.headers["Content-Type"] == "application/problem+json" and r.json["field"] == "body"
    assert r.headers["Connection"] == "close"
    assert stream.taken == LIMIT + 1  # never beyond the limit + 1 byte
    assert _credits(api, "M017") == before
    assert api.audit() == audit


def test_an_oversized_chunked_body_that_is_not_json_is_413_not_400(api):
    stream = _CountingStream(b"a" * 100_000)
    r = _chunked_post(api, "M017", stream)
    assert r.status_code == 413 and r.headers["Connection"] == "close" and r.json["field"] == "body"
    assert stream.taken == LIMIT + 1


def test_a_chunked_body_within_the_limit_still_works(api):
    before = _credits(api, "M017")
    body = b'{"amount": 1000}' + b" " * (LIMIT - 16)  # exactly the limit
    assert len(body) == LIMIT
    r = _chunked_post(api, "M017", _CountingStream(body))
    assert r.status_code == 200, r.json
    assert "Connection" not in r.headers
    assert _credits(api, "M017") == before + 1000


def test_chunked_malformed_and_duplicate_keys_are_still_refused(api):
    before = _credits(api, "M017")
    r = _chunked_post(api, "M017", _CountingStream(b'{"amount": 1000, "amount": 50000}'))
    assert r.status_code == 400 and r.json["field"] == "amount"
    r = _chunked_post(api, "M017", _CountingStream(b'{"amount": 10'))
    assert r.status_code == 400 and r.json["field"] == "body"
    assert _credits(api, "M017") == before


def test_a_chunked_body_that_is_not_declared_json_is_415(api):
    headers = {"Authorization": f"Bearer {api.key('M017')}", "Idempotency-Key": uuid.uuid4().hex,
               "Content-Type": "text/plain", "Transfer-Encoding": "chunked"}
    r = api.client.open("/api/v1/machines/M017/bill-in", method="POST", input_stream=io.BytesIO(b'{"amount": 1000}'),
                        headers=headers, environ_overrides={"wsgi.input_terminated": True})
    assert r.status_code == 415 and r.json["field"] == "Content-Type"
