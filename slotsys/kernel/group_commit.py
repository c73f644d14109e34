"""Group commit: concurrent requests of one process run together, by one of their own threads, in one transaction.

A thread :meth:`GroupCommit.submit`-s its request and waits. The first thread to arrive while no batch runs
becomes the *leader*: it takes every request queued at that moment (at most ``max_batch``, never two with the same
``conflict`` key: those wait for the next batch) and runs them with ``run_batch``; the requests arriving meanwhile
queue up and the leader hands leadership to the first of them when it is done, then returns its own answer. No
thread waits for a timer: under light load a batch is one request; under load, the requests that arrived while the
previous batch ran (the classic group commit of databases, here of the use case's whole transaction).

``run_batch(items)`` answers each item with :meth:`Item.done` (a result), :meth:`Item.fail` (an exception, raised
in the item's own thread) or :meth:`Item.alone` (the caller runs it on its own path, e.g. a replay, or every item
when the batch's transaction failed); an item left unanswered, or every item of a batch whose ``run_batch`` raised,
is answered ``alone``. So a failing batch costs its items a second try on the single-request path and nothing else.
"""

from __future__ import annotations

import threading
from collections import deque
from typing import Any, Callable, Generic, Hashable, TypeVar

import structlog

log = structlog.get_logger("slotsys.group_commit")

T = TypeVar("T")

ALONE = object()  # the answer of an item the caller must run on its own path


class Item(Generic[T]):
    """One request waiting in a :class:`GroupCommit`: ``request`` (the caller's) and its answer."""

    __slots__ = ("request", "conflict", "_answer", "_error", "_event", "_lead")

    def __init__(self, request: T, conflict: Hashable) -> None:
        self.request = request
        self.conflict = conflict
        self._answer: Any = None
        self._error: BaseException | None = None
        self._event = threading.Event()
        self._lead = False

    @property
    def answered(self) -> bool:
        return self._answer is not None or self._error is not None

    def done(self, result: Any) -> None:
        """Answer with ``result`` (never None)."""
        self._answer = result

    def fail(self, error: BaseException) -> None:
        """Answer with ``error``, raised in the submitting thread."""
        self._error = error

    def alone(self) -> None:
        """Answer: run on the caller's own path."""
        self._answer = ALONE


class GroupCommit(Generic[T]):
    """Leader/follower batching of concurrent requests (see the module). ``run_batch(items)`` must answer each
    item; ``max_batch`` ≥ 1 caps a batch (1: every request alone in its own batch). Thread-safe."""

    def __init__(self, run_batch: Callable[[list[Item[T]]], None], *, max_batch: int) -> None:
        if max_batch < 1:
            raise ValueError("max_batch must be at least 1")
        self._run_batch = run_batch
        self.max_batch = max_batch
        self._lock = threading.Lock()
        self._queue: deque[Item[T]] = deque()
        self._busy = False
        self.batches = 0  # statistics (read by benchmarks and tests): batches run, items in them
        self.items = 0

    def submit(self, request: T, conflict: Hashable) -> Any:
        """Run ``request`` in a batch; returns its result or :data:`ALONE`, raises what the batch failed it with.
        ``conflict``: requests with equal keys never share a batch (e.g. two spins of one machine)."""
        item: Item[T] = Item(request, conflict)
        with self._lock:
            self._queue.append(item)
            lead = not self._busy
            self._busy = True
        if not lead:
            item._event.wait()
            lead = item._lead
        if lead:
            self._lead_batch()
        if item._error is not None:
            raise item._error
        return item._answer

    def _take(self) -> list[Item[T]]:
        """The next batch off the queue (under the lock): in arrival order, one item per conflict key."""
        batch: list[Item[T]] = []
        seen: set = set()
        kept: deque[Item[T]] = deque()
        while self._queue and len(batch) < self.max_batch:
            it = self._queue.popleft()
            if it.conflict in seen:
                kept.append(it)
                continue
            seen.add(it.conflict)
            batch.append(it)
        kept.extend(self._queue)
        self._queue = kept
        return batch

    def _lead_batch(self) -> None:
        """Run one batch (the leader's own item is the first: the queue's head), answer it, hand over."""
        with self._lock:
            batch = self._take()
        try:
            self.batches += 1
            self.items += len(batch)
            self._run_batch(batch)
        except BaseException:
            log.warning("group_commit.batch_failed", items=len(batch), exc_info=True)
            for it in batch:
                it._answer, it._error = ALONE, None
        finally:
            for it in batch:
                if not it.answered:
                    it.alone()
            with self._lock:
                if self._queue:  # the next batch's leader is the request that waited longest
                    nxt = self._queue[0]
                    nxt._lead = True
                    nxt._event.set()
                else:
                    self._busy = False
            for it in batch:
                it._event.set()
