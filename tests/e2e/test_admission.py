"""Admission control end to end, under real gunicorn with ``slotsys.server.gunicorn_worker.AdmissionWorker``: a
request that waited longer than the queue budget is a 503 problem with Retry-After that changes nothing, and
its retry with the same Idempotency-Key is served once. (The rule itself: tests/unit/test_admission.py.)
"""

from __future__ import annotations

import json
import socket
import threading
import time
import uuid

import httpx
import pytest

from slotsys.kernel.settings import Settings
from tests.conftest import _make_app
from tests.e2e._gunicorn import gunicorn

SPIN = {"lines": 1, "multiplier": 1}


def test_without_the_worker_nothing_is_queued_or_shed(api):
    """The Flask test client (or any server but AdmissionWorker): no queue time, so no refusal, and the
    Server-Timing header names the app's time only."""
    api.as_machine("M001", "POST", "/api/v1/machines/M001/bill-in", {"amount": 10_000})
    r = api.as_machine("M001", "POST", "/api/v1/machines/M001/spin", SPIN)
    assert r.status_code == 200, r.json
    assert r.headers["Server-Timing"].startswith("app;dur=") and "queue" not in r.headers["Server-Timing"]


@pytest.fixture(scope="module")
def one_thread_server(tmp_path_factory):
    """gunicorn as production runs it (``-c python:slotsys.server.gunicorn_conf``), one worker with one thread, every
    Idempotency-Key use case held 1 s (SLOTSYS_FAULT_DELAY_MS), queue budget 250 ms."""
    tmp = tmp_path_factory.mktemp("admission")
    db = f"sqlite:///{tmp / 'floor.db'}"
    app = _make_app(Settings(database_url=db, redis_url=None, celery_eager=True, credentials_file=tmp / "creds.json"))
    creds = app.config["DEMO_CREDENTIALS"]
    app.extensions["slotsys"].jackpots.driver.stop()
    app.extensions["slotsys"].uow.engine.dispose()
    with gunicorn(db, tmp, workers=1, threads=1, SLOTSYS_FAULT_DELAY_MS="1000", SLOTSYS_SHED_QUEUE_MS="250") as srv:
        yield {**srv, "creds": creds}


def _hold_the_only_thread(base: str, creds: dict, asset: str) -> tuple[threading.Thread, str]:
    """Send a bill-in on ``asset`` (it holds the server's one thread for SLOTSYS_FAULT_DELAY_MS) and return once
    it has been taken up; returns the thread reading its answer (join it) and the machine's key.

    The request is written on a raw socket from this thread before returning (no client start-up to wait for on
    a loaded machine), then given 0.3 s to reach the idle thread, well inside the 1 s it then holds it."""
    key = next(m["key"] for m in creds["machines"] if m["asset"] == asset)
    host, port = base.removeprefix("http://").split(":")
    body = json.dumps({"amount": 10_000}).encode()
    sock = socket.create_connection((host, int(port)), timeout=30)
    sock.sendall(f"POST /api/v1/machines/{asset}/bill-in HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {key}\r\n"
                 f"Idempotency-Key: {uuid.uuid4().hex}\r\nContent-Type: application/json\r\n"
                 f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode() + body)

    def answer() -> None:
        with sock:
            while sock.recv(65536):
                pass

    busy = threading.Thread(target=answer)
    busy.start()
    time.sleep(0.3)
    return busy, key


def test_gunicorn_sheds_what_queued_past_the_budget_and_the_retries_pay_once(one_thread_server):
    base, creds = one_thread_server["base"], one_thread_server["creds"]
    assets = ["M001", "M003", "M005", "M007", "M009"]  # lines games (SPIN)
    keys = {m["asset"]: m["key"] for m in creds["machines"]}
    with httpx.Client(base_url=base, timeout=30) as c:
        for a in assets:
            r = c.post(f"/api/v1/machines/{a}/bill-in", json={"amount": 10_000},
                       headers={"Authorization": f"Bearer {keys[a]}", "Idempotency-Key": uuid.uuid4().hex})
            assert r.status_code == 200, r.text

    idem = {a: uuid.uuid4().hex for a in assets}
    first: dict[str, httpx.Response] = {}
    clients = {a: httpx.Client(base_url=base, timeout=30) for a in assets}  # kept alive for the retries
    go = threading.Barrier(len(assets))

    def spin(a: str) -> None:
        go.wait()
        first[a] = clients[a].post(f"/api/v1/machines/{a}/spin", json=SPIN,
                                   headers={"Authorization": f"Bearer {keys[a]}", "Idempotency-Key": idem[a]})

    threads = [threading.Thread(target=spin, args=(a,)) for a in assets]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    statuses = sorted(r.status_code for r in first.values())
    # one thread, 1 s a spin: whatever joined the queue behind a served spin waited past 250 ms
    assert statuses.count(503) >= 2 and set(statuses) <= {200, 503}, [r.text for r in first.values()]
    for a, r in first.items():
        if r.status_code == 503:
            assert r.headers["Retry-After"] == "1" and r.headers["Content-Type"] == "application/problem+json"
            p = r.json()
            assert p["type"].endswith("/overloaded") and p["status"] == 503 and "same Idempotency-Key" in p["detail"]
            assert p["instance"] == f"/api/v1/machines/{a}/spin" and r.headers["Server-Timing"].startswith("queue;dur=")
            assert r.elapsed.total_seconds() < 5

    try:
        with httpx.Client(base_url=base, timeout=30) as c:
            # before any retry: a refused spin changed nothing (no game, no meter), a served one played once
            for a in assets:
                m = c.get(f"/api/v1/machines/{a}/meters", headers={"Authorization": f"Bearer {keys[a]}"}).json()
                assert m["meters"]["games_played"] == (1 if first[a].status_code == 200 else 0), (a, m)
                assert m["credits"] == 10_000 - (first[a].json()["bet"]["won"] - first[a].json()["total_win"]
                                                 if first[a].status_code == 200 else 0)
        for a in assets:  # one at a time, on each machine's kept-alive connection: every retry is served
            r = clients[a].post(f"/api/v1/machines/{a}/spin", json=SPIN,
                                headers={"Authorization": f"Bearer {keys[a]}", "Idempotency-Key": idem[a]})
            assert r.status_code == 200, r.text
            if first[a].status_code == 200:  # served first time: the retry is that answer, replayed
                assert r.headers.get("Idempotent-Replayed") == "true" and r.json() == first[a].json()
            else:  # refused first time: the retry is the first time it runs
                assert r.headers.get("Idempotent-Replayed") != "true"
            assert r.json()["game_number"] == 1
    finally:
        for cl in clients.values():
            cl.close()

    with httpx.Client(base_url=base, timeout=30) as c:
        for a in assets:
            m = c.get(f"/api/v1/machines/{a}/meters", headers={"Authorization": f"Bearer {keys[a]}"}).json()
            assert m["meters"]["games_played"] == 1, (a, m)  # each machine played exactly one game
        metrics = c.get("/metrics").text
        auditor = next(s for s in creds["staff"] if s["role"] == "auditor")
        tok = c.post("/api/v1/auth/login", json={"username": auditor["username"], "password": auditor["password"]})
        audit = c.get("/api/v1/audit/ledger", headers={"Authorization": f"Bearer {tok.json()['token']}"}).json()
        assert audit["balanced"], audit
    shed = {line.split("{", 1)[1].split("}", 1)[0]: float(line.rsplit(" ", 1)[1]) for line in metrics.splitlines()
            if line.startswith("slotsys_http_shed_total{")}
    assert shed == {'endpoint="machines.spin"': statuses.count(503)}, shed
    refused = [line for line in metrics.splitlines()
               if line.startswith('slotsys_http_requests_total{') and 'machines.spin' in line and '"503"' in line]
    assert refused and float(refused[0].rsplit(" ", 1)[1]) == statuses.count(503)  # answered requests include them
    assert "slotsys_http_queue_seconds_bucket" in metrics
    log = one_thread_server["log"].read_text()
    assert '"queue_ms"' in log  # the access line says how long each request queued
    assert '"admission.shed"' in log  # and the refusals are summed up in the log


def test_a_refused_request_that_expects_100_continue_is_not_invited_to_send_its_body(one_thread_server):
    """Expect: 100-continue while the only thread is busy: the answer is the 503 alone (no "100 Continue"
    inviting a body that would be thrown away) and the connection closes after it."""
    base, creds = one_thread_server["base"], one_thread_server["creds"]
    busy, key = _hold_the_only_thread(base, creds, "M011")
    host, port = base.removeprefix("http://").split(":")
    body = json.dumps(SPIN).encode()
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(f"POST /api/v1/machines/M011/spin HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {key}\r\n"
                     f"Idempotency-Key: {uuid.uuid4().hex}\r\nContent-Type: application/json\r\n"
                     f"Content-Length: {len(body)}\r\nExpect: 100-continue\r\n\r\n".encode())
        raw = b""
        while chunk := sock.recv(65536):  # read to EOF: the server closes
            raw += chunk
    busy.join()
    head = raw.split(b"\r\n\r\n", 1)[0].decode()
    assert head.startswith("HTTP/1.1 503"), raw[:300]
    assert "100 Continue" not in raw.decode(errors="replace")
    assert "connection: close" in head.lower()


def test_a_refusal_never_waits_for_a_trickled_body(one_thread_server):
    """A refused request whose body has not all arrived is answered at once and its connection closed: a
    client trickling its body (no credentials needed: refusals come before authentication) cannot hold the
    worker's thread."""
    base, creds = one_thread_server["base"], one_thread_server["creds"]
    busy, _key = _hold_the_only_thread(base, creds, "M013")
    host, port = base.removeprefix("http://").split(":")
    stop = threading.Event()
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        t0 = time.monotonic()
        sock.sendall(b"POST /api/v1/machines/M013/spin HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     b"Content-Length: 40\r\n\r\n{")

        def trickle():  # the other 39 bytes, one every 0.3 s (12 s in all) until the server hangs up
            for _ in range(39):
                if stop.wait(0.3):
                    return
                try:
                    sock.sendall(b" ")
                except OSError:
                    return

        dripper = threading.Thread(target=trickle)
        dripper.start()
        raw = b""
        try:
            while chunk := sock.recv(65536):  # to EOF: the server closes
                raw += chunk
        finally:
            took = time.monotonic() - t0
            stop.set()
            dripper.join()
    busy.join()
    assert raw.startswith(b"HTTP/1.1 503"), raw[:200]
    assert b"connection: close" in raw.lower()
    assert took < 3, took  # the queue (≤ 1 s) and nothing more: not the 40 bytes that never come
    # the thread is free again: a probe is answered at once
    t0 = time.monotonic()
    assert httpx.get(f"{base}/healthz", timeout=10).status_code == 200 and time.monotonic() - t0 < 2
