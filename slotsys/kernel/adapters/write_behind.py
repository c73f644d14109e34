"""The write-behind pipeline: a transaction's result-less writes sent with its COMMIT in one round trip.

A use case that never reads back what it writes (the spin: its postings, wager, meters, game round and stored
response) lets its unit of work queue those statements (:func:`execute_or_defer`); the commit then sends them and
COMMIT in one psycopg pipeline (:func:`send_with_commit`): one round trip instead of one per statement, and the
writes on different tables as one ``WITH`` statement (:func:`_batched`, :func:`_merged`). A failure
there rolls the whole transaction back like any other; the connection goes back to the pool only after the pipeline
is closed. PostgreSQL only; elsewhere the statements run at once.

This module is the one place that reaches below SQLAlchemy's public API (the DBAPI connection's pipeline, the
pool's invalidation on a disconnect, a Core INSERT's ``_inline`` flag): docs/decisions/0003-write-behind.md.
"""

from __future__ import annotations

import re

from sqlalchemy.exc import DBAPIError
from sqlalchemy.sql.dml import Insert, Update

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


def defer_first(session, stmt, params) -> bool:
    """Queue ``stmt`` ahead of every deferred write (the group commit's ledger entries, which the later writes'
    foreign keys name); ``params`` is read when it is sent, so its owner may still fill it. False (nothing
    queued) when the session does not defer its writes."""
    queue = session.info.get(WRITE_BEHIND)
    if queue is None:
        return False
    queue.insert(0, (stmt, params))
    return True


def start(session) -> bool:
    """Queue this session's deferred writes until the commit; False (nothing changes) off PostgreSQL."""
    if session.get_bind().dialect.name != "postgresql":
        return False
    session.info[WRITE_BEHIND] = []
    return True


def discard(session) -> None:
    """Forget the queue (the transaction is rolled back or closed)."""
    session.info.pop(WRITE_BEHIND, None)


_PARAM = re.compile(r"(?<!%)%\((\w+)\)s")  # a pyformat placeholder in SQL compiled for psycopg
# shape → (SQL, [(part, new name, old name, bind processor)]), or None for a shape that cannot be merged
_MERGED: dict[tuple, tuple[str, list[tuple[int, str, str, object]]] | None] = {}


def _table(stmt):
    return stmt.table if isinstance(stmt, (Insert, Update)) else None


def _mergeable(group: list, stmt, params) -> bool:
    """Whether ``stmt`` may join ``group`` as one more part of a single ``WITH`` statement: an INSERT or UPDATE
    with one set of parameters (not executemany), on a table no part of the group writes (the parts of one
    statement see one snapshot and not each other's rows), neither part inserting into a table the other's
    table references (a foreign key checked against a row inserted by the same statement)."""
    table = _table(stmt)
    if table is None or not isinstance(params, dict) or getattr(stmt, "_returning", ()):
        return False
    for other, _ in group:
        t = _table(other)
        if t is table:
            return False
        if (isinstance(other, Insert) and any(fk.column.table is t for fk in table.foreign_keys)) or (
                isinstance(stmt, Insert) and any(fk.column.table is table for fk in t.foreign_keys)):
            return False
    return True


def _merged(conn, group: list) -> tuple[str, dict] | None:
    """``group``'s statements as one: ``WITH w0 AS (first), w1 AS (second) … last`` (every data-modifying part of
    a WITH runs to completion, read or not: PostgreSQL's rule), each part's parameters renamed ``w<i>_<name>`` and
    passed through its own bind processors (as SQLAlchemy would). None when a part binds a value of its own (a
    literal in the statement, a column default computed at execution): such a group runs statement by
    statement. The SQL of a shape (the statements' cache keys and parameter names) is built once per process."""
    keys = [stmt._generate_cache_key() for stmt, _ in group]
    if any(k is None for k in keys):  # a statement SQLAlchemy would not cache either
        return None
    shape = tuple((k.key, tuple(sorted(params))) for k, (_, params) in zip(keys, group))
    if shape not in _MERGED:
        parts, binds = [], []
        for i, (stmt, params) in enumerate(group):
            compiled = stmt.compile(dialect=conn.dialect, column_keys=list(params))
            processors = compiled._bind_processors
            names = _PARAM.findall(compiled.string)
            if any(n not in params for n in names):
                _MERGED[shape] = None
                break
            binds.extend((i, f"w{i}_{n}", n, processors.get(n)) for n in dict.fromkeys(names))
            parts.append(_PARAM.sub(lambda m, i=i: f"%(w{i}_{m.group(1)})s", compiled.string))
        else:
            sql = "WITH " + ", ".join(f"w{i} AS ({part})" for i, part in enumerate(parts[:-1])) + " " + parts[-1]
            _MERGED[shape] = (sql, binds)
    hit = _MERGED[shape]
    if hit is None:
        return None
    sql, binds = hit
    merged = {}
    for i, new, old, proc in binds:
        v = group[i][1][old]
        merged[new] = proc(v) if proc is not None else v
    return sql, merged


def _batched(queue: list) -> list:
    """The queue as runs: a run of 2+ mergeable statements becomes one ``("merged", group)``; others stay."""
    out: list = []
    group: list = []
    for stmt, params in queue:
        if _mergeable(group, stmt, params):
            group.append((stmt, params))
            continue
        out.extend(_flush(group))
        group = [(stmt, params)] if _mergeable([], stmt, params) else []
        if not group:
            out.append((stmt, params))
    out.extend(_flush(group))
    return out


def _flush(group: list) -> list:
    return [("merged", group)] if len(group) > 1 else list(group)


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
                for stmt, params in _batched(queue):
                    if stmt != "merged":
                        conn.execute(stmt, params)
                        continue
                    one = _merged(conn, params)
                    if one is not None:  # several writes as one statement (one parse/bind/execute, not several)
                        conn.exec_driver_sql(*one)
                    else:
                        for part, values in params:
                            conn.execute(part, values)
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
