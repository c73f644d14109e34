"""The write-behind pipeline: a transaction's result-less writes sent with its COMMIT in one round trip.

A use case that never reads back what it writes (the spin: its postings, wager, meters, game round and stored
response) lets its unit of work queue those statements (:func:`execute_or_defer`); the commit then sends them and
COMMIT in one psycopg pipeline (:func:`send_with_commit`): one round trip instead of one per statement, the
same-shaped writes of a group commit's spins as one multi-row statement (:func:`_coalesced`), and the writes on
different tables as one ``WITH`` statement (:func:`_batched`, :func:`_merged`). A failure
there rolls the whole transaction back like any other; the connection goes back to the pool only after the pipeline
is closed. PostgreSQL only; elsewhere the statements run at once.

This module is the one place that reaches below SQLAlchemy's public API (the DBAPI connection's pipeline, the
pool's invalidation on a disconnect, a Core INSERT's ``_inline`` flag): docs/decisions/0003-write-behind.md.
"""

from __future__ import annotations

import re
from typing import Any

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
# shape → (SQL, [(part, new name, old name, bind processor, one value per row)]), or None: cannot be merged
_MERGED: dict[tuple, tuple[str, list[tuple[int, str, str, Any, bool]]] | None] = {}
# one-row shape → (the multi-row SQL, its placeholders, those of its WHERE), or None: it has no multi-row form
_MANY: dict[tuple, tuple[str, list[str], list[str]] | None] = {}
_INSERT_VALUES = re.compile(r"(INSERT INTO \S+ \([^()]*\)) VALUES \((.*)\)", re.S)
_UPDATE_WHERE = re.compile(r"(UPDATE \S+ SET .*?) WHERE (.*)", re.S)
_ROWS_ALIAS = "wb_rows"  # the multi-row statements' unnest alias: wb_rows."<placeholder>"


class Rows(list):
    """The parameters of same-shaped writes coalesced into one multi-row statement (:func:`_coalesced`), one dict
    per row in queue order; unlike a plain list (an executemany its caller queued) it may join a ``WITH``."""


def _table(stmt):
    return stmt.table if isinstance(stmt, (Insert, Update)) else None


def _independent(a, b) -> bool:
    """Whether writes ``a`` and ``b`` may run in either order, or as parts of one statement: INSERTs or UPDATEs
    on different tables, neither inserting into a table the other's table references (a foreign key checked
    against a row the other inserts)."""
    ta, tb = _table(a), _table(b)
    if ta is None or tb is None or ta is tb:
        return False
    return not ((isinstance(b, Insert) and any(fk.column.table is tb for fk in ta.foreign_keys)) or (
        isinstance(a, Insert) and any(fk.column.table is ta for fk in tb.foreign_keys)))


def _mergeable(group: list, stmt, params) -> bool:
    """Whether ``stmt`` may join ``group`` as one more part of a single ``WITH`` statement: an INSERT or UPDATE
    with one set of parameters (not executemany) or coalesced :class:`Rows`, on a table no part of the group
    writes (the parts of one statement see one snapshot and not each other's rows), neither part inserting into
    a table the other's table references (a foreign key checked against a row inserted by the same statement)."""
    if _table(stmt) is None or not isinstance(params, (dict, Rows)) or _returns(stmt):
        return False
    return all(_independent(stmt, other) for other, _ in group)


def _returns(stmt) -> bool:
    return bool(getattr(stmt, "_returning", None))


def _shape_of(stmt, params: dict):
    key = stmt._generate_cache_key()
    return None if key is None else (key.key, tuple(sorted(params)))


def _bind_type(stmt, bind):
    """A placeholder's SQL type: its own, or (a foreign key column's bind typed before its target was known)
    its column's."""
    if bind.type._isnull and bind.key in stmt.table.c:
        return stmt.table.c[bind.key].type
    return bind.type


def _many_form(conn, stmt, params: dict, shape) -> tuple[str, list[str], list[str]] | None:
    """The multi-row form of a one-row INSERT (``… SELECT <values> FROM unnest(…)``) or UPDATE (``… FROM
    unnest(…) WHERE …``), each placeholder an array cast to its column's type; None for any other statement,
    one binding a value of its own, or an UPDATE already reading another table. Built once per shape."""
    if shape not in _MANY:
        _MANY[shape] = None
        compiled = stmt.compile(dialect=conn.dialect, column_keys=list(params))
        sql = compiled.string
        names = list(dict.fromkeys(_PARAM.findall(sql)))
        types = {n: _bind_type(stmt, compiled.binds[n]) for n in names if n in compiled.binds}
        if names and all(n in params for n in names) and len(types) == len(names) and not any(
                t._isnull for t in types.values()):
            def rows(text: str) -> str:
                return _PARAM.sub(lambda m: f'{_ROWS_ALIAS}."{m.group(1)}"', text)

            cols = ", ".join(f'"{n}"' for n in names)
            arrays = ", ".join(f"CAST(%({n})s AS {types[n].compile(dialect=conn.dialect)}[])" for n in names)
            source = f"unnest({arrays}) AS {_ROWS_ALIAS}({cols})"
            ins, upd = _INSERT_VALUES.fullmatch(sql), _UPDATE_WHERE.fullmatch(sql)
            if " ON CONFLICT " in sql or " RETURNING " in sql:
                pass
            elif isinstance(stmt, Insert) and ins and not stmt._multi_values:
                _MANY[shape] = (f"{ins.group(1)} SELECT {rows(ins.group(2))} FROM {source}", names, [])
            elif isinstance(stmt, Update) and upd and " FROM " not in sql:
                where = list(dict.fromkeys(_PARAM.findall(upd.group(2))))
                _MANY[shape] = (f"{rows(upd.group(1))} FROM {source} WHERE {rows(upd.group(2))}", names, where)
    return _MANY[shape]


def _coalesced(conn, queue: list) -> list:
    """The queue with same-shaped INSERTs and UPDATEs (one statement object, the same parameter names) as one
    :class:`Rows` item, at the place of the first: a group commit's spins write one wager, meters, game round
    and stored answer each, and these become four multi-row statements for the batch, not four per spin. A
    write joins an earlier one of its shape only if it may run before every write queued between them
    (:func:`_independent`); an UPDATE's rows join only if no two name the same row (the WHERE's values differ),
    since one multi-row UPDATE changes a row once. Rows keep their queue order (wager ids, so fold order, too)."""
    out: list = []  # (stmt, params, the WHERE's placeholders of a Rows group)
    at: dict = {}  # shape → index in out of its open group
    for stmt, params in queue:
        shape = _shape_of(stmt, params) if isinstance(params, dict) and _table(stmt) is not None and not _returns(
            stmt) else None
        i = at.get(shape) if shape is not None else None
        if i is not None and all(_independent(s, stmt) for s, _, _ in out[i + 1:]):
            out[i][1].append(params)
            continue
        many = _many_form(conn, stmt, params, shape) if shape is not None else None
        if many is not None:
            at[shape] = len(out)
            out.append((stmt, Rows([params]), many[2]))
        else:
            out.append((stmt, params, None))
    result: list = []
    for stmt, params, where in out:
        if not isinstance(params, Rows):
            result.append((stmt, params))
            continue
        keys = [tuple(p[n] for n in where) for p in params]
        try:  # an INSERT's rows are new rows (no WHERE): always distinct
            distinct = not where or len(set(keys)) == len(keys)
        except TypeError:  # a WHERE value that cannot be compared here (a dict): no telling, so one by one
            distinct = False
        if len(params) == 1 or not distinct:  # one row, or a row named twice: one by one, in order
            result.extend((stmt, p) for p in params)
        else:
            result.append((stmt, params))
    return result


def _merged(conn, group: list) -> tuple[str, dict] | None:
    """``group``'s statements as one: ``WITH w0 AS (first), w1 AS (second) … last`` (every data-modifying part of
    a WITH runs to completion, read or not: PostgreSQL's rule), each part's parameters renamed ``w<i>_<name>`` and
    passed through its own bind processors (as SQLAlchemy would); a :class:`Rows` part in its multi-row form
    (:func:`_many_form`), each parameter an array of the rows' values (a group of one such part: that statement). None when a part binds a value of its own (a
    literal in the statement, a column default computed at execution): such a group runs statement by
    statement. The SQL of a shape (the statements' cache keys and parameter names) is built once per process."""
    shapes = [_shape_of(stmt, params[0] if isinstance(params, Rows) else params) for stmt, params in group]
    if any(k is None for k in shapes):  # a statement SQLAlchemy would not cache either
        return None
    shape = tuple((k, isinstance(params, Rows)) for k, (_, params) in zip(shapes, group))
    if shape not in _MERGED:
        parts: list[str] = []
        binds: list[tuple[int, str, str, Any, bool]] = []
        for i, ((stmt, params), one) in enumerate(zip(group, shapes)):
            rows = isinstance(params, Rows)
            first = params[0] if rows else params
            compiled = stmt.compile(dialect=conn.dialect, column_keys=list(first))
            processors = compiled._bind_processors
            many = _many_form(conn, stmt, first, one) if rows else None
            sql = many[0] if many else compiled.string
            names = _PARAM.findall(sql)
            if (rows and many is None) or any(n not in first for n in names):
                _MERGED[shape] = None
                break
            binds.extend((i, f"w{i}_{n}", n, processors.get(n), rows) for n in dict.fromkeys(names))
            parts.append(_PARAM.sub(lambda m, i=i: f"%(w{i}_{m.group(1)})s", sql))
        else:
            sql = ("WITH " + ", ".join(f"w{i} AS ({part})" for i, part in enumerate(parts[:-1])) + " "
                   if len(parts) > 1 else "") + parts[-1]
            _MERGED[shape] = (sql, binds)
    hit = _MERGED[shape]
    if hit is None:
        return None
    sql, binds = hit
    merged = {}
    for i, new, old, proc, rows in binds:
        if rows:  # one array per placeholder: each row's value through the column's bind processor
            merged[new] = [proc(p[old]) if proc is not None else p[old] for p in group[i][1]]
        else:
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
    # a lone multi-row write goes as a group of one: its multi-row SQL is built by _merged
    return [("merged", group)] if len(group) > 1 or (group and isinstance(group[0][1], Rows)) else list(group)


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
                for stmt, params in _batched(_coalesced(conn, queue)):
                    if stmt != "merged":
                        conn.execute(stmt, params)
                        continue
                    one = _merged(conn, params)
                    if one is not None:  # several writes as one statement (one parse/bind/execute, not several)
                        conn.exec_driver_sql(*one)
                    else:
                        for part, values in params:
                            conn.execute(part, list(values) if isinstance(values, Rows) else values)
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
