"""The ledger's entry on the real PostgreSQL is one statement (balances in account-id order, the entry and its
postings: ``LedgerRepo._post_one_statement``). It must keep what the statement-per-account form guaranteed: a
refused entry writes nothing and names the account, concurrent entries over the same accounts in opposite
orders never deadlock and lose nothing, postings keep the entry's order, and a balance read after the entry
answers from the statement's own result."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy import func, select

from slotsys.kernel import ledger as L
from slotsys.kernel.adapters.db import JournalEntryRow, PostingRow
from slotsys.kernel.errors import InsufficientFunds
from slotsys.kernel.ledger import AccountType

pytestmark = pytest.mark.integration


def _accounts(svc, *codes: str, funded: int = 0) -> None:
    with svc.uow() as uow:
        for c in codes:
            uow.ledger.ensure_account(c, AccountType.LIABILITY, non_negative=True)
        uow.ledger.ensure_account("t:house", AccountType.ASSET)
        if funded:
            e = L.EntryBuilder("test.fund", "fund")
            for c in codes:
                e.add(debit="t:house", credit=c, amount=funded)
            uow.ledger.post(e.build({}))
        uow.commit()


def _entries(uow) -> tuple[int, int]:
    s = uow.session
    return (s.scalar(select(func.count()).select_from(JournalEntryRow)),
            s.scalar(select(func.count()).select_from(PostingRow)))


def test_a_refused_entry_writes_nothing_and_names_the_account(pg_app):
    svc = pg_app.extensions["slotsys"]
    _accounts(svc, "t:a", "t:b", funded=1_000)
    with svc.uow() as uow:
        before = _entries(uow)
    with svc.uow() as uow:
        e = L.EntryBuilder("test.move", "too much")
        e.add(debit="t:a", credit="t:house", amount=400)   # fine
        e.add(debit="t:b", credit="t:house", amount=1_250)  # 250 short
        with pytest.raises(InsufficientFunds) as err:
            uow.ledger.post(e.build({}), labels={"t:b": "player B's wallet"})
        assert err.value.extra["account"] == "t:b"
        assert "player B's wallet would go below zero (short by 250 won)" in str(err.value)
        uow.rollback()
    with svc.uow() as uow:
        assert _entries(uow) == before
        assert uow.ledger.balance("t:a") == 1_000 and uow.ledger.balance("t:b") == 1_000
        assert uow.ledger.audit()["balanced"]


def test_the_entry_keeps_its_postings_order_and_answers_balances_from_its_result(pg_app):
    svc = pg_app.extensions["slotsys"]
    _accounts(svc, "t:c", "t:d", funded=500)
    with svc.uow() as uow:
        e = L.EntryBuilder("test.move", "order")
        e.add(debit="t:d", credit="t:c", amount=70, memo="first")
        e.add(debit="t:c", credit="t:d", amount=20, memo="second")
        entry_id = uow.ledger.post(e.build({"k": "v"}))
        # no statement needed: the entry's own RETURNING values (t:c +50, t:d -50 in normal balance)
        assert uow.ledger.balance("t:c") == 550 and uow.ledger.balance("t:d") == 450
        uow.commit()
    with svc.uow() as uow:
        memos = uow.session.scalars(
            select(PostingRow.memo).where(PostingRow.entry_id == entry_id).order_by(PostingRow.id)).all()
        assert memos == ["first", "first", "second", "second"]
        row = uow.session.get(JournalEntryRow, entry_id)
        assert row.kind == "test.move" and row.refs == {"k": "v"}
        assert uow.ledger.balance("t:c") == 550 and uow.ledger.balance("t:d") == 450


def test_opposite_entries_over_the_same_accounts_race_without_deadlock_or_loss(pg_app):
    """32 threads × 25 entries, half moving x→y and half y→x (each entry names its accounts in its own order): the
    accounts are locked in id order whatever the entry's order, so no deadlock is reported and the end balances are
    exactly the sum of what moved; the audit balances."""
    svc = pg_app.extensions["slotsys"]
    _accounts(svc, "t:x", "t:y", funded=1_000_000)
    errors: list[BaseException] = []
    start = threading.Barrier(32)

    def worker(i: int) -> None:
        start.wait()
        for _ in range(25):
            try:
                with svc.uow() as uow:
                    e = L.EntryBuilder("test.move", "race")
                    if i % 2:
                        e.add(debit="t:x", credit="t:y", amount=3)
                        e.add(debit="t:house", credit="t:x", amount=1)
                    else:
                        e.add(debit="t:y", credit="t:x", amount=2)
                        e.add(debit="t:house", credit="t:y", amount=1)
                    uow.ledger.post(e.build({}))
                    uow.commit()
            except BaseException as ex:  # noqa: BLE001 - collected and asserted below
                errors.append(ex)

    with ThreadPoolExecutor(32) as pool:
        list(pool.map(worker, range(32)))
    assert errors == []
    with svc.uow() as uow:
        # 16 threads × 25: x -3 +1 each, y +3; 16 × 25: y -2 +1, x +2
        assert uow.ledger.balance("t:x") == 1_000_000 + 400 * (-3 + 1) + 400 * 2
        assert uow.ledger.balance("t:y") == 1_000_000 + 400 * 3 + 400 * (-2 + 1)
        assert uow.ledger.audit()["balanced"]
