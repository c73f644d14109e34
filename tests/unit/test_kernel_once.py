"""The kernel's exactly-once use-case runner (slotsys.kernel.idempotency.run_once) on the in-memory unit of work:
a replay returns the first result and moves nothing, a reused key with another request is refused, a failed use
case leaves no claim behind, and a record from before typed results is handed back as stored."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from slotsys.kernel import accounts
from slotsys.kernel.errors import IdempotencyKeyReused, InsufficientFunds, ValidationFailed
from slotsys.kernel.idempotency import OnceKey, fingerprint, run_once
from slotsys.kernel.ledger import AccountType, EntryBuilder
from tests.fakes.kernel import fake_context


class Moved(BaseModel):
    amount: int
    entry: int


def _ctx():
    ctx = fake_context()
    with ctx.uow() as uow:
        uow.ledger.ensure_account(accounts.machine_drop("M1"), AccountType.ASSET, non_negative=True)
        uow.ledger.ensure_account(accounts.machine_credits("M1"), AccountType.LIABILITY, non_negative=True)
        uow.commit()
    return ctx


def _bill_in(amount: int):
    def fn(uow) -> Moved:
        e = EntryBuilder("machine.bill_in").add(debit=accounts.machine_drop("M1"), credit=accounts.machine_credits("M1"),
                                               amount=amount)
        return Moved(amount=amount, entry=uow.ledger.post(e.build()))
    return fn


def test_a_replay_returns_the_first_result_and_moves_nothing():
    ctx = _ctx()
    key = OnceKey("machine:M1", "k-1", fingerprint("POST", "bill-in/M1", 10_000))
    first = run_once(ctx, key, _bill_in(10_000), result=Moved)
    again = run_once(ctx, key, _bill_in(10_000), result=Moved)
    assert not first.replayed and again.replayed
    assert again.result == first.result == Moved(amount=10_000, entry=1)
    with ctx.uow() as uow:
        assert uow.ledger.balance(accounts.machine_credits("M1")) == 10_000


def test_the_same_key_for_another_request_is_refused():
    ctx = _ctx()
    run_once(ctx, OnceKey("machine:M1", "k-1", fingerprint("POST", "bill-in/M1", 10_000)), _bill_in(10_000), result=Moved)
    with pytest.raises(IdempotencyKeyReused):
        run_once(ctx, OnceKey("machine:M1", "k-1", fingerprint("POST", "bill-in/M1", 50_000)), _bill_in(50_000),
                 result=Moved)


def test_a_refused_use_case_leaves_no_claim_and_may_be_retried_with_its_key():
    ctx = _ctx()

    def overdraw(uow) -> Moved:
        e = EntryBuilder("machine.cash_out").add(debit=accounts.machine_credits("M1"), credit=accounts.machine_drop("M1"),
                                                amount=1_000)
        return Moved(amount=1_000, entry=uow.ledger.post(e.build()))

    key = OnceKey("machine:M1", "k-2", fingerprint("POST", "x", None))
    with pytest.raises(InsufficientFunds):
        run_once(ctx, key, overdraw, result=Moved)
    assert ctx.uow.repos["idempotency"].records == {}
    assert run_once(ctx, OnceKey("machine:M1", "k-2", fingerprint("POST", "bill-in/M1", 5_000)), _bill_in(5_000),
                    result=Moved).result.amount == 5_000


@pytest.mark.parametrize("key", [None, "", "has space", "x" * 201])
def test_a_missing_or_malformed_key_is_refused_naming_the_header(key):
    with pytest.raises(ValidationFailed) as e:
        run_once(_ctx(), OnceKey("machine:M1", key, "fp"), _bill_in(1_000), result=Moved)
    assert e.value.field == "Idempotency-Key"


def test_a_record_from_before_typed_results_is_handed_back_as_stored():
    ctx = _ctx()
    ctx.uow.repos["idempotency"].claim("machine:M1", "old", "fp")
    ctx.uow.repos["idempotency"].complete(1, 201, {"machine": "M1", "ticket": {"amount": 5_000}})
    once = run_once(ctx, OnceKey("machine:M1", "old", "fp"), _bill_in(1_000), result=Moved)
    assert once.replayed and once.result is None and once.stored == (201, {"machine": "M1", "ticket": {"amount": 5_000}})
