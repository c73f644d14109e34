"""GroupCommit (slotsys.kernel.group_commit): leader/follower batching of concurrent requests, with real threads."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from slotsys.kernel.group_commit import ALONE, GroupCommit, Item


class Recorder:
    """A run_batch that answers each request with (request, batch number) after ``hold`` seconds."""

    def __init__(self, hold: float = 0.0) -> None:
        self.hold = hold
        self.batches: list[list] = []
        self.running = 0
        self.most_running = 0
        self.lock = threading.Lock()

    def __call__(self, items: list[Item]) -> None:
        with self.lock:
            self.running += 1
            self.most_running = max(self.most_running, self.running)
            self.batches.append([it.request for it in items])
            n = len(self.batches)
        time.sleep(self.hold)
        for it in items:
            it.done((it.request, n))
        with self.lock:
            self.running -= 1


def test_a_lone_request_runs_at_once_in_a_batch_of_one():
    rec = Recorder()
    g = GroupCommit(rec, max_batch=8)
    assert g.submit("a", conflict="a") == ("a", 1)
    assert rec.batches == [["a"]] and (g.batches, g.items) == (1, 1)


def test_requests_arriving_while_a_batch_runs_share_the_next_one():
    rec = Recorder(hold=0.2)
    g = GroupCommit(rec, max_batch=8)
    with ThreadPoolExecutor(8) as pool:
        first = pool.submit(g.submit, "r0", "c0")
        time.sleep(0.05)  # r0 leads and holds its batch; r1..r5 queue behind it
        rest = [pool.submit(g.submit, f"r{i}", f"c{i}") for i in range(1, 6)]
        answers = [first.result()] + [f.result() for f in rest]
    assert rec.batches[0] == ["r0"] and sorted(rec.batches[1]) == ["r1", "r2", "r3", "r4", "r5"]
    assert [a[0] for a in answers] == [f"r{i}" for i in range(6)]  # each thread gets its own answer
    assert rec.most_running == 1  # one batch at a time


def test_max_batch_caps_a_batch_and_the_rest_wait_for_the_next():
    rec = Recorder(hold=0.2)
    g = GroupCommit(rec, max_batch=3)
    with ThreadPoolExecutor(8) as pool:
        first = pool.submit(g.submit, "r0", "c0")
        time.sleep(0.05)
        rest = [pool.submit(g.submit, f"r{i}", f"c{i}") for i in range(1, 8)]
        for f in [first, *rest]:
            f.result()
    assert [len(b) for b in rec.batches] == [1, 3, 3, 1]
    assert sorted(r for b in rec.batches for r in b) == sorted(f"r{i}" for i in range(8))


def test_two_requests_with_one_conflict_key_never_share_a_batch():
    rec = Recorder(hold=0.2)
    g = GroupCommit(rec, max_batch=8)
    with ThreadPoolExecutor(8) as pool:
        first = pool.submit(g.submit, "x0", "other")
        time.sleep(0.05)
        same = []
        for i in range(3):  # three spins of one machine, queued in this order
            same.append(pool.submit(g.submit, f"m{i}", "machine"))
            time.sleep(0.01)
        free = pool.submit(g.submit, "y", "y")
        for f in [first, *same, free]:
            f.result()
    for b in rec.batches:
        assert sum(r.startswith("m") for r in b) <= 1, rec.batches
    order = [r for b in rec.batches for r in b if r.startswith("m")]
    assert order == ["m0", "m1", "m2"]  # one machine's requests keep their arrival order
    assert "y" in rec.batches[1]  # a request of another key does not wait behind them


def test_a_batch_that_raises_answers_every_item_alone_and_the_next_batch_runs():
    calls = []

    def run(items: list[Item]) -> None:
        calls.append([it.request for it in items])
        if any(it.request == "bad" for it in items):
            items[0].done("half answered")
            raise RuntimeError("the batch's transaction failed")
        for it in items:
            it.done(it.request.upper())

    g = GroupCommit(run, max_batch=8)
    assert g.submit("bad", conflict=1) is ALONE  # even an item answered before the failure runs again alone
    assert g.submit("ok", conflict=1) == "OK"


def test_unanswered_items_are_answered_alone_and_fail_raises_in_the_submitting_thread():
    def run(items: list[Item]) -> None:
        for it in items:
            if it.request == "refused":
                it.fail(ValueError("credits short"))
            elif it.request == "replay":
                pass  # left unanswered

    g = GroupCommit(run, max_batch=8)
    with pytest.raises(ValueError, match="credits short"):
        g.submit("refused", conflict=1)
    assert g.submit("replay", conflict=1) is ALONE


def test_many_threads_each_get_their_answer_and_none_is_lost():
    """200 threads × 20 requests with a few conflict keys: every request answered once, with its own answer, one
    batch at a time, and the group idle afterwards (a lost wakeup would hang the pool: the timeout fails it)."""
    rec = Recorder(hold=0.0005)
    g = GroupCommit(rec, max_batch=16)

    def client(t: int) -> list:
        return [g.submit((t, i), conflict=t % 7) for i in range(20)]

    with ThreadPoolExecutor(200) as pool:
        futures = [pool.submit(client, t) for t in range(200)]
        results = [f.result(timeout=60) for f in futures]
    for t, got in enumerate(results):
        assert [a[0] for a in got] == [(t, i) for i in range(20)]
    seen = [r for b in rec.batches for r in b]
    assert len(seen) == len(set(seen)) == 200 * 20 == g.items
    assert rec.most_running == 1
    assert all(len(b) <= 7 for b in rec.batches)  # at most one request per conflict key in a batch
    assert g.batches < g.items  # they were grouped
    assert g.submit("after", conflict="z") == ("after", len(rec.batches))  # idle again: the next one leads at once


def test_two_leaders_run_two_batches_at_once_and_a_key_is_never_in_both():
    """max_leaders=2: batches overlap (their database waits would), yet one conflict key is in at most one running
    batch and its requests keep their order."""
    live: set = set()
    overlap: list = []
    lock = threading.Lock()
    rec = Recorder(hold=0.002)

    def run(items: list[Item]) -> None:
        keys = {it.conflict for it in items}
        with lock:
            overlap.append(keys & live)
            live.update(keys)
        rec(items)
        with lock:
            live.difference_update(keys)

    g = GroupCommit(run, max_batch=4, max_leaders=2)

    def client(t: int) -> list:
        return [g.submit((t, i), conflict=t % 5) for i in range(30)]

    with ThreadPoolExecutor(40) as pool:
        results = [f.result(timeout=60) for f in [pool.submit(client, t) for t in range(40)]]
    assert rec.most_running == 2
    assert not any(overlap)
    for t, got in enumerate(results):
        assert [a[0] for a in got] == [(t, i) for i in range(30)]
    per_key: dict = {}
    for b in rec.batches:
        for t, i in b:
            per_key.setdefault(t % 5, []).append((t, i))
    for t in range(40):  # within a key, a client's requests ran in its order
        mine = [r for r in per_key[t % 5] if r[0] == t]
        assert mine == sorted(mine)


def test_max_batch_and_leaders_must_be_positive():
    with pytest.raises(ValueError):
        GroupCommit(lambda items: None, max_batch=0)
    with pytest.raises(ValueError):
        GroupCommit(lambda items: None, max_batch=4, max_leaders=0)
