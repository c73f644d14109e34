"""Group commit: concurrent requests of one process run together, by one of their own threads, in one transaction.

A thread :meth:`GroupCommit.submit`-s its request and waits. A thread arriving while fewer than ``max_leaders``
batches run becomes a *leader*: it takes every request queued at that moment (at most ``max_batch``, never two
with the same ``conflict`` key, nor one whose key is in a running batch: those wait, in order) and runs them with
``run_batch``; the requests arriving meanwhile queue up, and when a batch ends one of the waiting threads leads the
next. No thread waits for a timer: under light load a batch is one request; under load, the requests that arrived
while the previous batches ran (the classic group commit of databases, here of the use case's whole transaction).

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

    __slots__ = ("request", "conflict", "_answer", "_error")

    def __init__(self, request: T, conflict: Hashable) -> None:
        self.request = request
        self.conflict = conflict
        self._answer: Any = None
        self._error: BaseException | None = None

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
    item; ``max_batch`` ≥ 1 caps a batch (1: every request alone in its own batch); ``max_leaders`` ≥ 1 batches
    may run at once (their threads' database waits overlap; a request never shares or overlaps a batch with one of
    its ``conflict`` key). Thread-safe: one condition guards the queue, the running batches and every answer."""

    def __init__(self, run_batch: Callable[[list[Item[T]]], None], *, max_batch: int, max_leaders: int = 1) -> None:
        if max_batch < 1 or max_leaders < 1:
            raise ValueError("max_batch and max_leaders must be at least 1")
        self._run_batch = run_batch
        self.max_batch = max_batch
        self.max_leaders = max_leaders
        self._cond = threading.Condition()
        self._queue: deque[Item[T]] = deque()
        self._leaders = 0
        self._running: set = set()  # conflict keys of the items in running batches
        self.batches = 0  # statistics (read by benchmarks and tests): batches run, items in them
        self.items = 0

    def submit(self, request: T, conflict: Hashable) -> Any:
        """Run ``request`` in a batch; returns its result or :data:`ALONE`, raises what the batch failed it with.
        ``conflict``: requests with equal keys never share a batch nor run in two at once, and keep their order
        (e.g. two spins of one machine). The calling thread waits, or leads a batch (its own request or the
        queue's older ones) when a leader's place is free; it returns once its own request is answered."""
        item: Item[T] = Item(request, conflict)
        with self._cond:
            self._queue.append(item)
            while not item.answered:
                if self._leaders >= self.max_leaders or not self._queue:
                    self._cond.wait()
                    continue
                batch = self._take()
                if not batch:  # every queued key is in a running batch
                    self._cond.wait()
                    continue
                self._leaders += 1
                self._cond.release()
                try:
                    self._lead(batch)
                finally:
                    self._cond.acquire()
                    self._leaders -= 1
                    self._running.difference_update(it.conflict for it in batch)
                    self._cond.notify_all()  # answers are in; a leader's place and their keys are free
        if item._error is not None:
            raise item._error
        return item._answer

    def _take(self) -> list[Item[T]]:
        """The next batch off the queue (under the lock): in arrival order, one item per conflict key, none whose
        key is in a running batch (those stay queued, in order)."""
        batch: list[Item[T]] = []
        kept: deque[Item[T]] = deque()
        while self._queue and len(batch) < self.max_batch:
            it = self._queue.popleft()
            if it.conflict in self._running:
                kept.append(it)
                continue
            self._running.add(it.conflict)
            batch.append(it)
        kept.extend(self._queue)
        self._queue = kept
        return batch

    def _lead(self, batch: list[Item[T]]) -> None:
        """Run one batch outside the lock; every item leaves answered (``alone`` if ``run_batch`` left it so or
        raised)."""
        self.batches += 1
        self.items += len(batch)
        try:
            self._run_batch(batch)
        except BaseException:
            log.warning("group_commit.batch_failed", items=len(batch), exc_info=True)
            for it in batch:
                it._answer, it._error = ALONE, None
        for it in batch:
            if not it.answered:
                it.alone()
