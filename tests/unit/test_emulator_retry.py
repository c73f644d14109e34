"""The floor emulator's client (``slotsys.app.emulator.Client.call``) against a real HTTP server on loopback that
answers "try later" first: 503 (overloaded, database unavailable) and 429 (throttled) with ``Retry-After`` are
retried after the delay with the same Idempotency-Key and are not counted as errors; a 429 or 503 without
``Retry-After`` is returned as it is (an error for the caller to count)."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from slotsys.app.emulator import Client, Stats


class _Server:
    def __init__(self, script: list[tuple[int, dict[str, str]]]) -> None:
        self.script, self.seen = list(script), []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 - http.server's naming
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                outer.seen.append((time.monotonic(), self.headers.get("Idempotency-Key")))
                status, headers = outer.script.pop(0) if outer.script else (200, {})
                body = json.dumps({"status": status}).encode()
                self.send_response(status)
                for k, v in {"Content-Type": "application/json", "Content-Length": str(len(body)), **headers}.items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def serve():
    servers = []

    def start(script):
        servers.append(_Server(script))
        return servers[-1]

    yield start
    for s in servers:
        s.close()


def test_429_and_503_with_retry_after_are_retried_with_the_same_key(serve):
    srv = serve([(503, {"Retry-After": "0"}), (429, {"Retry-After": "1"}), (503, {"Retry-After": "0"})])
    stats = Stats()
    t0 = time.monotonic()
    r = Client(srv.url, "mk_test", stats).call("POST", "/api/v1/machines/M001/spin", {"lines": 1}, money=True)
    assert r.status_code == 200
    keys = {k for _, k in srv.seen}
    assert len(srv.seen) == 4 and len(keys) == 1 and None not in keys  # one key for every try
    assert srv.seen[2][0] - srv.seen[1][0] >= 1.0  # waited the 429's Retry-After
    assert time.monotonic() - t0 < 5
    assert stats.shed_retries == 3 and not stats.errors


@pytest.mark.parametrize("status", [429, 503])
def test_without_retry_after_the_answer_is_returned(serve, status):
    srv = serve([(status, {})])
    r = Client(srv.url, "mk_test", Stats()).call("POST", "/x", {}, money=True)
    assert r.status_code == status and len(srv.seen) == 1
