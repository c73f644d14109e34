"""The jackpot controller's use cases on in-memory fakes (no database): a wager folded into a mystery level
until it crosses its trigger, then the award protocol (claim once, credit below the handpay threshold, lock for
a handpay at or above it, lock for verification above the maximum), and duplicated or replayed award tasks.

The level: mystery, floor-wide, reset ₩10,000, must-hit-by ₩60,000, 1% of every wager. The rng draws the first
trigger at ₩10,100 (reset + 100) and the next at ₩12,000, so one ₩10,000 wager (+₩100) hits for ₩10,100.
"""

from __future__ import annotations

from datetime import timedelta
from types import SimpleNamespace

import pytest

from jackpot_controller.domain.levels import LevelParams
from jackpot_controller.services.levels import create_level
from jackpot_controller.services.results import HandpayPaid, LevelView, Verified
from jackpot_controller.settings import JackpotSettings
from slotsys.kernel import accounts
from slotsys.kernel import ledger as L
from slotsys.kernel.context import Principal
from slotsys.kernel.errors import Conflict, TwoSignaturesRequired, ValidationFailed
from slotsys.kernel.idempotency import OnceKey
from tests.fakes.jackpots import jackpot_context, jackpot_services
from tests.fakes.kernel import SeqRng

BET = 10_000
AWARD = 10_100  # the first trigger, whole won
MINI = LevelParams("mystery", reset=10_000, ceiling=60_000, rate_ppm=10_000)
ATTENDANT = Principal("staff", "attendant", "attendant")
OPERATOR = Principal("staff", "operator", "operator")
NO_PROGRESSIVE = SimpleNamespace(progressive=())


def floor(**settings):
    """The fakes, the services, machine M001 (id 1, zone MASS) with its credit meter and a game on file, the
    cage with ₩1,000,000, and the MINI level."""
    ctx = jackpot_context(rng=SeqRng(100, 2_000))
    jp = jackpot_services(ctx, JackpotSettings(**{"sequencer": "process", **settings}))
    machine = ctx.uow.repos["floor"].add_machine(1, "M001", "MASS", "M1")
    ctx.uow.repos["floor"].recall[(1, 1)] = []
    with ctx.uow() as uow:
        uow.ledger.ensure_account(accounts.machine_credits("M001"), L.AccountType.LIABILITY, non_negative=True)
        uow.ledger.ensure_account(accounts.cage_bank("MAIN"), L.AccountType.ASSET, non_negative=True)
        uow.ledger.ensure_account(accounts.HOUSE_CAPITAL, L.AccountType.EQUITY)
        uow.ledger.post(L.EntryBuilder("cage.float").add(debit=accounts.cage_bank("MAIN"), credit=accounts.HOUSE_CAPITAL,
                                                         amount=1_000_000).build())
        create_level(uow, code="MINI", name="Mini", params=MINI, rng=ctx.rng)
        uow.commit()
    return ctx, jp, machine


def machine_row(ctx) -> dict:
    """M001 on the fake floor, read now (a transaction that rolls back restores the fakes' state)."""
    return ctx.uow.repos["floor"].machines[1]


def balance(ctx, code: str) -> int:
    return ctx.uow.repos["ledger"].balance(code)


def wager_and_fold(ctx, jp, machine, game_number: int = 1):
    """One ₩10,000 wager recorded by the spin, then the sequencer's fold; returns the hit it decided."""
    with ctx.uow() as uow:
        assert jp.wagers.on_wager(uow, machine, BET, game_number, NO_PROGRESSIVE) == ([], 0)
        uow.commit()
    assert ctx.uow.repos["levels"].pending_count() == 1
    assert jp.sequencer.fold_all() == 1 and jp.sequencer.fold_all() == 0
    (hit,) = ctx.uow.repos["levels"].hits.values()
    return hit


def test_a_wager_crossing_the_trigger_is_a_hit_claimed_once_and_credited_below_the_handpay_threshold():
    ctx, jp, machine = floor()
    hit = wager_and_fold(ctx, jp, machine)
    levels = ctx.uow.repos["levels"]
    mini = levels.get("MINI")
    assert (hit.level_id, hit.cycle, hit.machine_id, hit.game_number, hit.amount_won, hit.status) == (
        mini.id, 1, 1, 1, AWARD, "hit")
    assert (mini.cycle, mini.value_milli, mini.trigger_milli, mini.hits, mini.total_won) == (2, 10_000_000,
                                                                                           12_000_000, 1, AWARD)
    assert ("jackpot_controller.award", hit.id) in ctx.enqueued and ctx.metrics.jackpots == [("MINI", AWARD)]
    assert balance(ctx, accounts.jackpot_payable("MINI")) == AWARD  # decided and owed, not paid yet
    assert ctx.uow.repos["floor"].key_shared == [[1]]  # the winner's row, before any account

    token = jp.awards.claim(hit.id)
    assert token and jp.awards.claim(hit.id) is None  # of two claims exactly one wins
    assert jp.awards.award(hit.id, "not-the-token") is None
    assert jp.awards.award(hit.id, token) == "awarded"
    assert balance(ctx, accounts.machine_credits("M001")) == AWARD
    assert balance(ctx, accounts.jackpot_payable("MINI")) == 0
    paid = levels.hit(hit.id)
    assert (paid.status, paid.pay_method, paid.award_entry_id is not None) == ("awarded", "credit", True)
    assert machine_row(ctx)["jackpot_out"] == AWARD
    assert ctx.uow.repos["floor"].recall[(1, 1)] == [{"hit": hit.id, "level": "MINI", "name": "Mini",
                                                      "amount": AWARD, "status": "awarded", "pay_method": "credit"}]
    assert ("jackpot_controller.announce_hit", hit.id) in ctx.enqueued

    assert jp.awards.process(hit.id) is None  # the duplicated award task pays nothing
    assert jp.sweeper.run().awarded == []
    assert balance(ctx, accounts.machine_credits("M001")) == AWARD
    assert [e.kind for e in ctx.uow.repos["ledger"].entries].count("jackpot.award") == 1


def test_an_award_at_or_above_the_handpay_threshold_locks_the_machine_until_an_attendant_pays_it():
    ctx, jp, machine = floor(handpay_threshold_won=AWARD)
    hit = wager_and_fold(ctx, jp, machine)
    assert jp.awards.process(hit.id) == "handpay"
    assert machine_row(ctx)["status"] == "handpay" and f"hit {hit.id}" in machine_row(ctx)["lock_reason"]
    assert balance(ctx, accounts.machine_credits("M001")) == 0  # never onto the credit meter
    assert balance(ctx, accounts.jackpot_payable("MINI")) == AWARD
    assert jp.awards.process(hit.id) is None  # a duplicate neither pays nor locks again

    key = OnceKey(ATTENDANT.id, "hp-1", "fingerprint of the request")
    once = jp.awards.pay_handpay(ATTENDANT, hit.id, key)
    assert not once.replayed and once.result == HandpayPaid(
        hit=hit.id, level="MINI", machine="M001", amount=AWARD, status="awarded", paid_by="attendant",
        paid_at=ctx.clock.now().isoformat(), entry=once.result.entry, machine_status="active")
    assert machine_row(ctx)["status"] == "active" and machine_row(ctx)["jackpot_out"] == AWARD
    assert balance(ctx, accounts.cage_bank("MAIN")) == 1_000_000 - AWARD
    replay = jp.awards.pay_handpay(ATTENDANT, hit.id, key)
    assert replay.replayed and replay.result == once.result
    assert balance(ctx, accounts.cage_bank("MAIN")) == 1_000_000 - AWARD  # paid once
    with pytest.raises(Conflict):  # paid: a new request is refused, and changes nothing
        jp.awards.pay_handpay(ATTENDANT, hit.id, OnceKey(ATTENDANT.id, "hp-2", "another"))
    assert ("staff:attendant", "hp-2") not in ctx.uow.repos["idempotency"].records


def test_a_handpay_at_or_above_the_two_person_threshold_is_refused_to_one_signer_and_nothing_moves():
    ctx, jp, machine = floor(handpay_threshold_won=AWARD, handpay_two_person_won=AWARD)
    hit = wager_and_fold(ctx, jp, machine)
    jp.awards.process(hit.id)
    with pytest.raises(TwoSignaturesRequired):
        jp.awards.pay_handpay(ATTENDANT, hit.id, OnceKey(ATTENDANT.id, "hp-1", "fp"))
    assert machine_row(ctx)["status"] == "handpay"
    assert balance(ctx, accounts.cage_bank("MAIN")) == 1_000_000
    with ctx.uow() as uow:  # the handpay queue pays it once both have signed
        assert jp.awards.pay_handpay_in(uow, hit.id, "attendant").status == "awarded"
        uow.commit()
    assert balance(ctx, accounts.cage_bank("MAIN")) == 1_000_000 - AWARD


def test_an_award_above_the_maximum_is_never_credited_and_locks_for_verification_until_an_operator_decides():
    ctx, jp, machine = floor(max_award_won=AWARD - 50)
    hit = wager_and_fold(ctx, jp, machine)
    assert jp.awards.process(hit.id) == "verification"
    assert machine_row(ctx)["status"] == "verification" and "above the maximum" in machine_row(ctx)["lock_reason"]
    assert balance(ctx, accounts.machine_credits("M001")) == 0
    (event,) = [e for e in ctx.uow.repos["levels"].event_log if e.kind == "verification"]
    assert event.detail["amount_won"] == AWARD and event.detail["maximum_won"] == AWARD - 50
    assert "trigger_milli" in event.detail
    assert jp.awards.process(hit.id) is None  # the replayed task pays nothing

    overflow = ctx.uow.repos["levels"].get("MINI").overflow_milli
    once = jp.awards.verify(OPERATOR, hit.id, "void", "configuration error", OnceKey(OPERATOR.id, "v-1", "fp"))
    assert once.result == Verified(hit=hit.id, level="MINI", machine="M001", amount=AWARD, status="void",
                                   machine_status="active")
    assert ctx.uow.repos["levels"].get("MINI").overflow_milli == overflow + AWARD * 1000  # stays in the pool
    assert balance(ctx, accounts.jackpot_payable("MINI")) == 0
    assert balance(ctx, accounts.jackpot_overflow("MINI")) == AWARD
    assert machine_row(ctx)["status"] == "active" and balance(ctx, accounts.machine_credits("M001")) == 0


def test_in_the_spin_the_wagers_own_award_is_settled_and_no_award_task_is_sent_for_it():
    ctx, jp, machine = floor(sequencer="in_spin")
    with ctx.uow() as uow:
        awards, credited = jp.wagers.on_wager(uow, machine, BET, 1, NO_PROGRESSIVE)
        uow.commit()
    (hit,) = ctx.uow.repos["levels"].hits.values()
    assert awards == [{"hit": hit.id, "level": "MINI", "name": "Mini", "amount": AWARD, "status": "awarded",
                       "pay_method": "credit"}] and credited == AWARD
    assert balance(ctx, accounts.machine_credits("M001")) == AWARD
    # the spin counts the award in its own meters and recall
    assert machine_row(ctx)["jackpot_out"] == 0 and ctx.uow.repos["floor"].recall[(1, 1)] == []
    assert ("jackpot_controller.award", hit.id) not in ctx.enqueued
    assert ("jackpot_controller.announce_hit", hit.id) in ctx.enqueued
    assert jp.sequencer.fold_all() == 0  # every spin folds itself
    assert jp.awards.process(hit.id) is None  # a stray award task pays nothing
    assert balance(ctx, accounts.machine_credits("M001")) == AWARD


def test_a_spin_that_rolls_back_leaves_no_wager_and_a_claim_past_the_timeout_is_released_and_paid_once():
    ctx, jp, machine = floor()
    with ctx.uow() as uow:  # the spin failed after recording its wager: nothing of it stays
        jp.wagers.on_wager(uow, machine, BET, 1, NO_PROGRESSIVE)
    assert ctx.uow.repos["levels"].pending_count() == 0
    hit = wager_and_fold(ctx, jp, machine)
    dead = jp.awards.claim(hit.id)  # a worker claimed it, then died before settling
    ctx.clock.at += timedelta(seconds=jp.settings.claim_timeout_s + 1)
    swept = jp.sweeper.run()
    assert swept.released == [hit.id] and swept.awarded == [hit.id]
    assert jp.awards.award(hit.id, dead) is None  # the dead claim's token settles nothing
    assert jp.sweeper.run().awarded == []
    assert balance(ctx, accounts.machine_credits("M001")) == AWARD
    assert [e.kind for e in ctx.uow.repos["levels"].event_log].count("claim_timeout") == 1


def test_the_operator_creates_a_level_once_per_key_and_a_refused_one_changes_nothing():
    ctx, jp, machine = floor()
    body = {"code": "SAP_M001", "name": "M001 Major", "kind": "standalone", "scope": "machine", "machine": "M001",
            "reset": 20_000, "ceiling": 40_000, "rate_ppm": 20_000, "combination": "major"}
    key = OnceKey(OPERATOR.id, "c-1", "fp")
    once = jp.admin.create_level(OPERATOR, body, key)
    assert isinstance(once.result, LevelView) and once.result.value == 20_000 and once.result.target == "M001"
    assert jp.admin.create_level(OPERATOR, body, key).replayed
    assert balance(ctx, accounts.jackpot_liability("SAP_M001")) == 20_000  # the house funds the start
    entries = len(ctx.uow.repos["ledger"].entries)
    with pytest.raises(ValidationFailed) as refused:
        jp.admin.create_level(OPERATOR, {**body, "code": "SAP_M002", "machine": "M999"}, OnceKey(OPERATOR.id, "c-2", "x"))
    assert refused.value.field == "machine"
    assert ctx.uow.repos["levels"].get("SAP_M002") is None and len(ctx.uow.repos["ledger"].entries) == entries
