"""The sequencer's lease: a PostgreSQL session-level advisory lock held on a connection of its own.

One process holds it at a time (the active sequencer); the others wait as standbys. If the holder dies
(killed, host lost), PostgreSQL ends its session and the lock is free at once: a standby's next try takes it.
The lease decides who folds, never whether a fold is correct: folds serialise on the level rows' locks and mark
their wagers in the same transaction, so even two folders at once could not count a wager twice.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

import structlog
from sqlalchemy import text
from sqlalchemy.engine import Connection, Engine

log = structlog.get_logger("jackpot_controller.lease")

SEQUENCER_LEASE_KEY = int.from_bytes(b"SLOTSEQ1", "big")  # a signed 64-bit advisory-lock key


class AdvisoryLease:
    """``try_acquire`` → bool; ``alive`` → the lease is still held (its session answers); ``release``.

    On a database without advisory locks (the embedded SQLite default, one process) the lease is always
    granted."""

    def __init__(self, engine: Engine, key: int = SEQUENCER_LEASE_KEY) -> None:
        self.engine = engine
        self.key = key
        self._conn: Connection | None = None
        self._pg = engine.dialect.name == "postgresql"

    @property
    def held(self) -> bool:
        return self._conn is not None or not self._pg

    def try_acquire(self) -> bool:
        if not self._pg or self._conn is not None:
            return True
        conn = self.engine.connect().execution_options(isolation_level="AUTOCOMMIT")
        try:
            got = bool(conn.execute(text("SELECT pg_try_advisory_lock(:k)"), {"k": self.key}).scalar())
        except Exception:
            conn.invalidate()
            conn.close()
            raise
        if got:
            self._conn = conn
        else:
            conn.close()
        return got

    def alive(self) -> bool:
        """Whether the holding session still answers (a lost connection has lost the lock with it)."""
        if not self._pg:
            return True
        if self._conn is None:
            return False
        try:
            self._conn.execute(text("SELECT 1"))
            return True
        except Exception:
            log.warning("jackpot.lease.lost", exc_info=True)
            self._drop()
            return False

    def release(self) -> None:
        if self._conn is None:
            return
        try:
            self._conn.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": self.key})
        except Exception:  # the session is gone, and its lock with it
            pass
        self._drop()

    def _drop(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            try:
                conn.invalidate()  # never pool a connection whose session held (or may hold) the lock
                conn.close()
            except Exception:
                pass

    @contextmanager
    def held_once(self) -> Iterator[bool]:
        """Take the lease if it is free, for one piece of work (beat's safety-net fold): yields whether it was."""
        got = self.try_acquire()
        try:
            yield got
        finally:
            if got and self._pg:
                self.release()
