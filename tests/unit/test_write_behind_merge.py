"""Which deferred writes go as one ``WITH`` statement (``slotsys.kernel.adapters.write_behind._batched``): the
spin's four (wager, meters, game round, stored response) do; two writes of one table, an executemany and an
insert whose table references a table the group inserts into do not (their order or visibility would matter).
Which go as one multi-row statement (``_coalesced``): same-shaped writes of a group commit's spins, in queue
order, unless one would move past a write it depends on or an UPDATE names one row twice."""

from __future__ import annotations

from datetime import datetime, timezone

from sqlalchemy import bindparam, insert, update

from slotsys.floor.adapters.tables import GameRound, machines
from slotsys.kernel.adapters.db import IdempotencyRecord, JournalEntryRow, PostingRow
from sqlalchemy.dialects import postgresql

from slotsys.kernel.adapters.write_behind import Rows, _batched, _coalesced, _merged

_ROUND = insert(GameRound.__table__).inline()
_METERS = update(machines).where(machines.c.id == bindparam("mid")).values(coin_in=machines.c.coin_in + bindparam("d"))
_DONE = update(IdempotencyRecord.__table__).where(IdempotencyRecord.__table__.c.id == bindparam("rid"))
_ENTRY = insert(JournalEntryRow.__table__).inline()
_POSTINGS = insert(PostingRow.__table__).inline()


def _shape(batched) -> list:
    return [("merged", len(p)) if s == "merged" else s for s, p in batched]


def test_writes_on_different_tables_go_as_one():
    q = [(_METERS, {"mid": 1, "d": 5}), (_ROUND, {"machine_id": 1}), (_DONE, {"rid": 3, "status_code": 200})]
    assert _shape(_batched(q)) == [("merged", 3)]


def test_a_second_write_of_one_table_starts_a_new_group():
    q = [(_METERS, {"mid": 1, "d": 5}), (_DONE, {"rid": 3}), (_METERS, {"mid": 2, "d": 1}), (_ROUND, {"machine_id": 2})]
    assert _shape(_batched(q)) == [("merged", 2), ("merged", 2)]


def test_executemany_and_foreign_keys_into_the_group_stay_alone():
    many = (_POSTINGS, [{"entry_id": 1}, {"entry_id": 1}])
    assert _shape(_batched([(_METERS, {"mid": 1, "d": 5}), many, (_DONE, {"rid": 3})])) == [_METERS, _POSTINGS, _DONE]
    # postings reference journal_entries: an entry and its postings inserted by one statement are not merged
    assert _shape(_batched([(_ENTRY, {"kind": "k"}), (_POSTINGS, {"entry_id": 1})])) == [_ENTRY, _POSTINGS]


class _Conn:
    dialect = postgresql.psycopg.dialect()


def _spin_writes(mid: int, rid: int) -> list:
    game_round = {"machine_id": mid, "game_number": 7, "bet": {"lines": 1}, "bet_won": 100, "win_won": 0,
                  "outcome": {"stops": [1, 2, 3]}, "jackpots": [], "credits_before": 100, "credits_after": 0,
                  "entry_id": rid, "created_at": datetime(2026, 1, 1, tzinfo=timezone.utc)}
    return [(_METERS, {"mid": mid, "d": 100}), (_ROUND, game_round), (_DONE, {"rid": rid, "status_code": 200})]


def test_a_batchs_same_shaped_writes_become_one_multi_row_write_each_in_queue_order():
    q = [*_spin_writes(1, 11), *_spin_writes(2, 12), *_spin_writes(3, 13)]
    out = _coalesced(_Conn, q)
    assert [s for s, _ in out] == [_METERS, _ROUND, _DONE]
    assert [p["mid"] for p in out[0][1]] == [1, 2, 3] and isinstance(out[0][1], Rows)
    assert [p["rid"] for p in out[2][1]] == [11, 12, 13]
    # and the three multi-row writes go as one WITH statement, each placeholder an array of the rows' values
    batched = _batched(out)
    assert _shape(batched) == [("merged", 3)]
    sql, params = _merged(_Conn, batched[0][1])
    assert sql.startswith("WITH w0 AS (UPDATE machines SET") and "unnest(" in sql and "INSERT INTO game_rounds" in sql
    assert params["w0_mid"] == [1, 2, 3] and params["w0_d"] == [100, 100, 100] and params["w2_rid"] == [11, 12, 13]
    assert [v.obj for v in params["w1_outcome"]] == [{"stops": [1, 2, 3]}] * 3  # each row through the JSON bind processor


def test_an_update_naming_one_row_twice_stays_one_by_one_in_order():
    q = [(_METERS, {"mid": 1, "d": 5}), (_METERS, {"mid": 1, "d": 7})]
    assert _coalesced(_Conn, q) == q


def test_a_write_never_moves_past_one_it_depends_on():
    # postings reference journal_entries: the second entry's postings stay after the second entry
    q = [(_ENTRY, {"kind": "a"}), (_POSTINGS, {"entry_id": 1}), (_ENTRY, {"kind": "b"}), (_POSTINGS, {"entry_id": 2})]
    out = _coalesced(_Conn, q)
    assert [s for s, _ in out] == [_ENTRY, _POSTINGS, _ENTRY, _POSTINGS]
    # another shape on the same table in between: no reordering of one table's writes
    other = update(machines).where(machines.c.id == bindparam("mid")).values(coin_out=machines.c.coin_out + bindparam("d"))
    q = [(_METERS, {"mid": 1, "d": 5}), (other, {"mid": 2, "d": 1}), (_METERS, {"mid": 2, "d": 3})]
    assert [p for _, p in _coalesced(_Conn, q)] == [p for _, p in q]


def test_a_lone_write_and_an_executemany_keep_their_one_row_form():
    many = (_POSTINGS, [{"entry_id": 1}, {"entry_id": 1}])
    q = [(_METERS, {"mid": 1, "d": 5}), many]
    assert _coalesced(_Conn, q) == q
