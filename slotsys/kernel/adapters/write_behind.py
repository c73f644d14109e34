"""The write-behind pipeline: a transaction's result-less writes sent with its COMMIT in one round trip.

A use case that never reads back what it writes (the spin: its postings, wager, meters, game round and stored
response) lets its unit of work queue those statements (:func:`execute_or_defer`); the commit then sends them and
COMMIT in one psycopg pipeline (:func:`send_with_commit`): one round trip instead of one per statement. A failure
there rolls the whole transaction back like any other; the connection goes back to the pool only after the pipeline
is closed. PostgreSQL only; elsewhere the statements run at once.

This module is the one place that reaches below SQLAlchemy's public API (the DBAPI connection's pipeline, the
pool's invalidation on a disconnect, a Core INSERT's ``_inline`` flag): docs/decisions/0003-write-behind.md.
"""

from __future__ import annotations

from sqlalchemy.exc import DBAPIError
from sqlalchemy.sql.dml import Insert

WRITE_BEHIND = "slotsys_write_behind"  # Session.info key: the unit of work's queue of deferred writes


def execute_or_defer(session, stmt, params, *, allowed: bool = True) -> None:
    """Execute a Core statement that returns no rows (INSERT/UPDATE without RETURNING) on the
    session's connection, or, when the unit of work batches its writes
    (``SqlUnitOfWork.write_behind``) and ``allowed``, queue it for the commit: the queued
    statements run in order right before COMMIT, on PostgreSQL in one round trip (psycopg
    pipeline mode). A deferred write must not be read back in the same transaction; a deferred
    INSERT is made ``inline`` (no implicit RETURNING of its key, which a pipeline cannot return)."""
    queue = session.info.get(WRITE_BEHIND)
    if queue is None or not allowed:
        session.connection().execute(stmt, params)
    else:
        if isinstance(stmt, Insert) and not stmt._inline:
            stmt = stmt.inline()
        queue.append((stmt, params))


def start(session) -> bool:
    """Queue this session's deferred writes until the commit; False (nothing changes) off PostgreSQL."""
    if session.get_bind().dialect.name != "postgresql":
        return False
    session.info[WRITE_BEHIND] = []
    return True


def discard(session) -> None:
    """Forget the queue (the transaction is rolled back or closed)."""
    session.info.pop(WRITE_BEHIND, None)


def send_with_commit(session) -> None:
    """Send the queued writes and COMMIT in one psycopg pipeline (a no-op without a queue). On a failure the
    server-side transaction is ended (or the connection invalidated) before the error is raised as SQLAlchemy
    would raise it, so the pool never gets a connection with an open pipeline or an aborted transaction."""
    queue = session.info.pop(WRITE_BEHIND, None)
    if queue:
        session.flush()  # ORM changes first, outside the pipeline (the ORM reads rowcounts)
        conn = session.connection()
        driver = conn.connection.driver_connection
        try:
            with driver.pipeline():
                for stmt, params in queue:
                    conn.execute(stmt, params)
                driver.commit()  # COMMIT rides in the same pipeline
        except BaseException as e:
            dbapi_error = conn.dialect.loaded_dbapi.Error
            if isinstance(e, dbapi_error) and conn.dialect.is_disconnect(e, driver, None):
                # as SQLAlchemy does on a disconnect it sees itself: every connection pooled before
                # now is stale (the server went away for all of them), then this one
                conn.engine.pool._invalidate(conn.connection, e)
                conn.invalidate(e)
            else:
                try:  # the server-side transaction is aborted: end it before the pool reuses the connection
                    driver.rollback()
                except Exception:
                    conn.invalidate(e)  # a connection that cannot even roll back is not pooled again
            if isinstance(e, dbapi_error):  # raised by psycopg itself: report it as SQLAlchemy would
                raise DBAPIError.instance(None, None, e, dbapi_error, connection_invalidated=conn.invalidated) from e
            raise
