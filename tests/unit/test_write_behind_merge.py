"""Which deferred writes go as one ``WITH`` statement (``slotsys.kernel.adapters.write_behind._batched``): the
spin's four (wager, meters, game round, stored response) do; two writes of one table, an executemany and an
insert whose table references a table the group inserts into do not (their order or visibility would matter)."""

from __future__ import annotations

from sqlalchemy import bindparam, insert, update

from slotsys.floor.adapters.tables import GameRound, machines
from slotsys.kernel.adapters.db import IdempotencyRecord, JournalEntryRow, PostingRow
from slotsys.kernel.adapters.write_behind import _batched

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
