"""The stream hub's rules (slotsys/streams/hub.py) on a real asyncio loop: caps, the snapshot first,
heartbeat snapshots from one shared read, fan-out of one frame, the lifetime, the slow-reader drop."""

from __future__ import annotations

import asyncio
import json
import threading
import time

import pytest

from slotsys.server.streams.hub import Hub, Limits, TooManyStreams


def run(coro):
    """A fresh event loop on its own thread: a session that also ran the browser tests keeps Playwright's loop
    running on the main thread, where ``asyncio.run`` refuses to start another."""
    out: dict = {}

    def target() -> None:
        try:
            out["result"] = asyncio.run(coro)
        except BaseException as exc:  # re-raised in the test's thread
            out["error"] = exc

    t = threading.Thread(target=target)
    t.start()
    t.join()
    if "error" in out:
        raise out["error"]
    return out.get("result")


class Snapshots:
    def __init__(self) -> None:
        self.reads = 0
        self.lock = threading.Lock()

    def __call__(self) -> dict:
        with self.lock:
            self.reads += 1
        time.sleep(0.02)
        return {"event": "meters", "levels": [], "n": self.reads}


def test_caps_per_principal_and_global():
    async def main():
        hub = Hub(Limits(per_principal=2, max_total=3), Snapshots())
        a1, a2 = hub.open("machine:A"), hub.open("machine:A")
        with pytest.raises(TooManyStreams) as e:
            hub.open("machine:A")
        assert e.value.scope == "principal" and e.value.limit == 2
        hub.open("staff:x")
        with pytest.raises(TooManyStreams) as e:
            hub.open("staff:y")
        assert e.value.scope == "global"
        hub.close(a1)
        hub.close(a1)  # twice is harmless
        assert hub.by_key["machine:A"] == 1
        hub.open("machine:A")
        hub.close(a2)

    run(main())


def test_snapshot_first_messages_in_order_heartbeats_and_the_lifetime():
    async def main():
        snaps = Snapshots()
        hub = Hub(Limits(heartbeat_s=0.2), snaps)
        clients = [hub.open(f"m:{i}", max_seconds=0.9) for i in range(50)]
        got: list[list[bytes]] = [[] for _ in clients]

        async def read(i, c):
            async for f in c.frames():
                got[i].append(f)

        t = time.monotonic()
        tasks = [asyncio.create_task(read(i, c)) for i, c in enumerate(clients)]
        await asyncio.sleep(0.05)
        hub.publish(json.dumps({"event": "hit", "amount": 31000}))
        await asyncio.gather(*tasks)
        lasted = time.monotonic() - t
        assert 0.85 < lasted < 1.5
        for frames in got:
            assert frames[0].startswith(b"event: meters\ndata: {")
            assert frames[1] == b'event: hit\ndata: {"event": "hit", "amount": 31000}\n\n'
            assert sum(f.startswith(b"event: meters") for f in frames) >= 3  # heartbeats
        # 50 clients, ~5 heartbeats each: the database was read a handful of times, not 250
        assert snaps.reads <= 8, snaps.reads

    run(main())


def test_meters_are_coalesced_latest_wins_and_a_hit_is_never_held():
    """Folds publish meters up to 5 times a second per web process; each is a write to every open stream. With
    ``meters_interval_s`` a stream gets at most one meters frame per interval (the latest), and a hit goes out at
    once, after the meters frame that preceded it on the channel."""
    async def main():
        hub = Hub(Limits(heartbeat_s=5, meters_interval_s=0.3), Snapshots())
        c = hub.open("m:1", max_seconds=0.75)
        got: list[bytes] = []

        async def read():
            async for f in c.frames():
                got.append(f)

        task = asyncio.create_task(read())
        await asyncio.sleep(0.05)
        for i in range(10):  # ten folds in 0.1 s
            hub.publish(json.dumps({"event": "meters", "i": i}))
            await asyncio.sleep(0.01)
        hub.publish(json.dumps({"event": "hit", "amount": 5}))
        await task
        live = [f for f in got[1:] if f != b"event: end"]  # after the first snapshot
        meters = [json.loads(f.split(b"data: ", 1)[1]) for f in live if f.startswith(b"event: meters")]
        assert [m["i"] for m in meters] == [0, 9], meters  # the first at once, then only the latest
        hit_at = next(i for i, f in enumerate(live) if f.startswith(b"event: hit"))
        assert live[hit_at - 1].startswith(b"event: meters") and b'"i": 9' in live[hit_at - 1]  # channel order kept
        assert hit_at == len(live) - 1

    run(main())


def test_a_client_that_stops_reading_is_dropped_not_buffered():
    async def main():
        hub = Hub(Limits(buffer=4, heartbeat_s=5), Snapshots())
        stuck = hub.open("m:stuck")

        async def hold():
            await asyncio.sleep(30)

        task = asyncio.create_task(hold())
        stuck.task = task
        ok = hub.open("m:ok")
        frames = []

        async def read():
            async for f in ok.frames():
                frames.append(f)
                if len(frames) == 11:
                    return

        reader = asyncio.create_task(read())
        ok.task = reader  # as in the servers: the task that writes the client's frames
        await asyncio.sleep(0.05)
        for i in range(10):
            hub.publish(json.dumps({"event": "meters", "i": i}))
            await asyncio.sleep(0)
        await asyncio.wait_for(reader, 2)
        await asyncio.sleep(0)
        assert stuck.dropped and task.cancelled() and hub.dropped == 1
        assert stuck.q.qsize() <= 4
        assert not ok.dropped and len(frames) == 11

    run(main())


def test_a_revoked_credential_ends_its_streams_with_an_end_event_and_others_go_on():
    from slotsys.kernel.errors import Unauthorized

    calls: list = []
    revoked: set = set()

    def check(cred) -> None:  # the blocking re-check (gate.recheck in the servers), run in the executor
        calls.append((cred, threading.current_thread().name))
        if cred in revoked:
            raise Unauthorized("unknown or expired credentials")

    async def main():
        hub = Hub(Limits(heartbeat_s=5.0, recheck_s=0.1), Snapshots(), check)
        staff = [hub.open("staff:a", cred="st_a") for _ in range(3)]
        machine = hub.open("machine:M1", cred="mk_1")
        got: dict = {id(c): [] for c in staff + [machine]}

        async def read(c):
            async for f in c.frames():
                got[id(c)].append(f)

        tasks = [asyncio.create_task(read(c)) for c in staff + [machine]]
        await asyncio.sleep(0.35)
        assert not any(t.done() for t in tasks)
        revoked.add("st_a")
        t0 = time.monotonic()
        await asyncio.wait_for(asyncio.gather(*tasks[:3]), 1.0)
        ended_in = time.monotonic() - t0
        assert not tasks[3].done()
        tasks[3].cancel()
        return hub, staff, got, ended_in

    hub, staff, got, ended_in = run(main())
    assert ended_in < 0.5
    for c in staff:
        assert got[id(c)][-1] == b'event: end\ndata: {"reason": "revoked"}\n\n'
    assert hub.revoked == 3
    # one check per distinct credential per tick, never on the loop's thread, whatever the number of streams
    ticks = [c for c, _ in calls if c == "mk_1"]
    assert len([c for c, _ in calls if c == "st_a"]) <= len(ticks) + 1
    assert calls and all(name.startswith("asyncio") for _, name in calls)  # the loop's executor, not the loop


@pytest.mark.parametrize("raw", ["abc", "-1", "99999999999999999999", "inf", "-inf", "nan", "", " ", "86400.5",
                                 "1e400", "0x10", "9" * 40])
def test_max_seconds_outside_its_bounds_is_a_422_naming_it(raw):
    from slotsys.kernel.errors import ValidationFailed
    from slotsys.server.streams import gate

    with pytest.raises(ValidationFailed) as e:
        gate.max_seconds({"max_seconds": raw})
    assert e.value.status == 422 and e.value.field == "max_seconds"


def test_max_seconds_within_its_bounds():
    from slotsys.server.streams import gate

    assert gate.max_seconds({}) is None
    assert gate.max_seconds({"max_seconds": "0"}) == 0.0
    assert gate.max_seconds({"max_seconds": "1.5"}) == 1.5
    assert gate.max_seconds({"max_seconds": "86400"}) == 86_400.0
