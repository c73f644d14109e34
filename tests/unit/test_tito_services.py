"""TITO's main use cases on in-memory fakes (no database): cash-out ticket issue, cage redemption (paid once,
replay, already redeemed, expired, amount mismatch), kiosk redemption, two-phase machine ticket-in (authorise →
commit, release), void — each checked on the ledger, the ticket's state and its trail."""

from __future__ import annotations

from datetime import timedelta

import pytest

from slotsys.kernel import accounts
from slotsys.kernel.errors import InsufficientFunds, MachineLocked
from slotsys.kernel.idempotency import OnceKey, fingerprint
from tests.fakes.kernel import FixedClock
from tests.fakes.tito import machine, staff, tito_context
from tito.domain.errors import (
    CreditLimitExceeded,
    HandpayRequired,
    HoldExpired,
    HoldNotFound,
    NoOpenDrawer,
    PromotionalAtCage,
    TerminalThrottled,
    TicketAlreadyRedeemed,
    TicketAmountMismatch,
    TicketExpired,
    TicketNotAcceptedHere,
    TicketNotOnFile,
    TicketPendingElsewhere,
    TicketVoided,
)
from tito.domain.machines import TicketNumbering
from tito.domain.validation import SystemValidation, compact, sas_secure_enhanced_number
from tito.settings import TitoSettings

CASHIER, SUPERVISOR, KIOSK = staff("cashier", "cashier"), staff("supervisor", "supervisor"), staff("kiosk1", "kiosk")


def key(principal, name: str, path: str, payload=None) -> OnceKey:
    return OnceKey(principal.id, name, fingerprint("POST", path, payload))


@pytest.fixture
def floor():
    f = tito_context(settings=TitoSettings(ticket_limit_won=1_000_000, guard_max_failures=3),
                     clock=FixedClock())
    f.cage_bank(10_000_000)
    for asset in ("M001", "M002"):
        f.machine(asset)
    return f


def cash_out(f, asset: str, won: int, *, restricted: int = 0):
    if won:
        f.credit(asset, won)
    if restricted:
        f.credit(asset, restricted, meter="restricted")
    with f.ctx.uow() as uow:
        out = f.services.book.cash_out(uow, f.machines.lock(uow, asset))
        uow.commit()
    return out


def open_drawer(f, float_won: int = 1_000_000):
    return f.services.cage.open_session(CASHIER, "D1", float_won, key(CASHIER, "open", "cage/sessions",
                                                                      ["D1", float_won])).result


def redeem_at_cage(f, vn: str, name: str = "r1", amount: int | None = None):
    return f.services.cage.redeem(CASHIER, vn, amount, key(CASHIER, name, "cage/redeem", [compact(vn), amount]))


# ------------------------------------------------------------------ issue
def test_cash_out_prints_one_ticket_per_credit_type_and_empties_the_machine(floor):
    out = cash_out(floor, "M001", 15_000, restricted=20_000)
    assert [(t.type, t.amount, t.sequence) for t in out.tickets] == [("cashable", 15_000, 1), ("promotional", 20_000, 2)]
    assert out.ticket == out.tickets[0] and out.ticket.issued_location == "MASS/M001"
    assert (out.credits, out.promo_credits, out.restricted_credits) == (0, 0, 0)
    assert floor.ledger.balance(accounts.TICKETS_OUTSTANDING) == 35_000
    assert floor.machines.machines["M001"].meters == {"tickets_out": 35_000, "tickets_out_count": 2}
    assert floor.machines.machines["M001"].view.numbering.ticket_seq == 2
    for t in out.tickets:
        assert floor.tickets.kinds(floor.tickets.get(t.validation_number).id) == ["issued"]


def test_a_sas_machine_numbers_its_tickets_from_its_validation_id_and_sequence(floor):
    floor.machine("V001", zone="VIP", numbering=TicketNumbering("sas", 0x654321, 0xFFFFFF, 1))
    first, second = (cash_out(floor, "V001", 1_000).ticket for _ in range(2))
    assert first.validation_number == sas_secure_enhanced_number(0x654321, 0xFFFFFF) and first.scheme == "sas"
    assert second.validation_number == sas_secure_enhanced_number(0x654321, 0)  # the 3-byte sequence wrapped
    stored = floor.tickets.get(second.validation_number)
    assert (stored.sas_sequence, stored.sas_generation) == (0, 1)
    assert floor.machines.machines["V001"].view.numbering.sas_sequence == 1


def test_cash_out_above_the_ticket_limit_needs_a_handpay_and_moves_nothing(floor):
    floor.credit("M001", 1_500_000)
    m1 = floor.machines.machines["M001"].view  # the floor hands the desk its own machine object
    with pytest.raises(HandpayRequired) as e, floor.ctx.uow() as uow:
        floor.services.desk.cash_out(uow, m1)
    assert e.value.extra == {"amount": 1_500_000, "ticket_limit": 1_000_000}
    assert floor.ledger.balance(accounts.machine_credits("M001")) == 1_500_000 and not floor.tickets.rows
    with pytest.raises(InsufficientFunds), floor.ctx.uow() as uow:
        floor.services.desk.cash_out(uow, floor.machines.machines["M002"].view)


def test_the_desk_answers_the_floor_with_the_cash_out_json(floor):
    floor.credit("M001", 4_000)
    with floor.ctx.uow() as uow:
        out = floor.services.desk.cash_out(uow, floor.machines.machines["M001"].view)
        uow.commit()
    assert set(out) == {"machine", "ticket", "tickets", "credits", "promo_credits", "restricted_credits",
                        "nonrestricted_credits"}
    assert out["ticket"]["amount"] == 4_000 and out["ticket"]["issued_at"] == floor.ctx.clock.now().isoformat()
    assert "effective_status" not in out["ticket"] and "pending_location" not in out["ticket"]
    assert floor.services.desk.credit_limit(floor.machines.machines["M001"].view) == floor.services.settings.machine_credit_limit_won


# ------------------------------------------------------------------ cage
def test_the_cage_pays_a_ticket_once_and_a_replay_moves_nothing(floor):
    vn = cash_out(floor, "M001", 12_000).ticket.validation_number
    open_drawer(floor)
    once = redeem_at_cage(floor, vn)
    assert not once.replayed and once.result.paid == 12_000 and once.result.drawer == 988_000
    assert once.result.ticket.status == "redeemed" and once.result.ticket.redeemed_channel == "cage"
    assert floor.ctx.metrics.redemptions == [("cage", 12_000)]
    replay = redeem_at_cage(floor, vn)
    assert replay.replayed and replay.result == once.result
    assert floor.ctx.metrics.redemptions == [("cage", 12_000)]  # nothing counted for a replay
    assert floor.ledger.balance(accounts.cashier_drawer("D1")) == 988_000
    assert floor.ledger.balance(accounts.TICKETS_OUTSTANDING) == 0
    t = floor.tickets.get(vn)
    assert t.status == "redeemed" and t.redeemed_session_id == 1
    assert floor.tickets.paid_in_session(1) == (1, 12_000)
    # presented again under another key: refused, with where it was paid, and the refusal leaves a trail
    with pytest.raises(TicketAlreadyRedeemed) as e:
        redeem_at_cage(floor, vn, "r2")
    assert e.value.extra["redeemed_channel"] == "cage" and e.value.extra["redeemed_location"] == "MAIN"
    assert floor.tickets.kinds(t.id) == ["issued", "redeemed", "refused"]
    assert floor.ledger.balance(accounts.cashier_drawer("D1")) == 988_000


def test_the_cage_refuses_a_wrong_amount_a_promotional_ticket_and_pays_nothing_without_a_drawer(floor):
    out = cash_out(floor, "M001", 5_000, restricted=2_000)
    cashable, promotional = (t.validation_number for t in out.tickets)
    with pytest.raises(NoOpenDrawer):
        redeem_at_cage(floor, cashable)
    open_drawer(floor)
    with pytest.raises(TicketAmountMismatch) as e:
        redeem_at_cage(floor, cashable, amount=5_100)
    assert e.value.field == "amount" and e.value.extra["amount_on_file"] == 5_000
    with pytest.raises(PromotionalAtCage):
        redeem_at_cage(floor, promotional, "r2")
    assert floor.tickets.get(cashable).status == "issued"
    assert floor.ledger.balance(accounts.TICKETS_OUTSTANDING) == 7_000
    assert floor.ledger.balance(accounts.cashier_drawer("D1")) == 1_000_000
    assert redeem_at_cage(floor, cashable, "r3", amount=5_000).result.paid == 5_000


def test_an_expired_ticket_is_refused_until_a_supervisor_approves_it(floor):
    vn = cash_out(floor, "M001", 7_000).ticket.validation_number
    open_drawer(floor)
    floor.ctx.clock.at += timedelta(days=31)
    assert floor.services.expiry.expire_tickets() == 1
    with pytest.raises(TicketExpired) as e:
        redeem_at_cage(floor, vn)
    assert "supervisor" in str(e.value)
    approved = floor.services.admin.approve_expired(SUPERVISOR, vn, "  guest was abroad ")
    assert approved.expiry_override_by == "supervisor" and approved.effective_status == "expired"
    assert approved.expiry_override_reason == "guest was abroad"
    paid = redeem_at_cage(floor, vn, "r2").result
    assert paid.honoured_expired is True and paid.paid == 7_000
    assert floor.tickets.kinds(floor.tickets.get(vn).id)[-1] == "honoured_expired"


def test_unknown_numbers_lock_the_terminal_out(floor):
    open_drawer(floor)
    real = cash_out(floor, "M001", 1_000).ticket.validation_number
    gen = SystemValidation()
    for _ in range(3):
        with pytest.raises(TicketNotOnFile):
            redeem_at_cage(floor, gen.next_number(), "x")
    with pytest.raises(TerminalThrottled):
        redeem_at_cage(floor, real, "r")
    assert floor.tickets.get(real).status == "issued"
    assert floor.tickets.kinds().count("unknown_presented") == 3 and floor.tickets.kinds().count("terminal_locked") == 1


# ------------------------------------------------------------------ kiosk
def test_a_kiosk_pays_from_its_cassette_and_refuses_what_it_cannot_pay(floor):
    small = cash_out(floor, "M001", 3_000).ticket.validation_number
    big = cash_out(floor, "M002", 60_000, restricted=1_000).tickets
    filled = floor.services.kiosk.fill(CASHIER, "kiosk1", 50_000, key(CASHIER, "f", "kiosks/kiosk1/fill", 50_000))
    assert filled.result.cassette == 50_000
    once = floor.services.kiosk.redeem(KIOSK, small, key(KIOSK, "k1", "kiosk/redeem", small))
    assert once.result.paid == 3_000 and once.result.cassette == 47_000 and once.result.kiosk == "kiosk1"
    assert floor.ctx.metrics.redemptions == [("kiosk", 3_000)]
    with pytest.raises(InsufficientFunds):
        floor.services.kiosk.redeem(KIOSK, big[0].validation_number, key(KIOSK, "k2", "kiosk/redeem", "big"))
    assert floor.tickets.get(big[0].validation_number).status == "issued"  # rolled back whole
    with pytest.raises(TicketNotAcceptedHere):
        floor.services.kiosk.redeem(KIOSK, big[1].validation_number, key(KIOSK, "k3", "kiosk/redeem", "promo"))
    assert floor.ledger.balance(accounts.kiosk_cassette("kiosk1")) == 47_000


# ------------------------------------------------------------------ machine: two-phase
def test_two_phase_ticket_in_holds_then_credits_the_machine(floor):
    vn = cash_out(floor, "M001", 10_000).ticket.validation_number
    m2 = machine("M002")
    auth = floor.services.machine.authorize(m2, "M002", vn, key(m2, "a", "ticket-in/authorize/M002", vn)).result
    assert auth.amount == 10_000 and auth.credit_meter == "cashable" and auth.hold_seconds == 15
    t = floor.tickets.get(vn)
    assert (t.status, t.pending_location, t.pending_txn) == ("pending", "M002", auth.transaction_id)
    assert floor.ledger.balance(accounts.machine_credits("M002")) == 0  # nothing moves before the commit
    open_drawer(floor)
    with pytest.raises(TicketPendingElsewhere):
        redeem_at_cage(floor, vn)
    with pytest.raises(HoldNotFound):
        floor.services.machine.commit(m2, "M002", vn, "0" * 16, key(m2, "c0", "ticket-in/commit/M002", [vn, "0" * 16]))
    commit_key = key(m2, "c1", "ticket-in/commit/M002", [vn, auth.transaction_id])
    done = floor.services.machine.commit(m2, "M002", vn, auth.transaction_id, commit_key)
    assert done.result.credits == 10_000 and done.result.ticket.status == "redeemed"
    assert done.result.ticket.pending_location == "M002"  # the view shows the hold it was paid under
    assert floor.machines.machines["M002"].meters == {"tickets_in": 10_000, "tickets_in_count": 1}
    assert floor.services.machine.commit(m2, "M002", vn, auth.transaction_id, commit_key).replayed
    assert floor.ledger.balance(accounts.machine_credits("M002")) == 10_000
    assert floor.ctx.metrics.redemptions == [("machine", 10_000)]
    assert floor.tickets.kinds(t.id) == ["issued", "authorised", "refused", "committed"]


def test_a_returned_ticket_is_released_and_a_late_commit_refused(floor):
    vn = cash_out(floor, "M001", 5_000).ticket.validation_number
    m2 = machine("M002")
    txn = floor.services.machine.authorize(m2, "M002", vn, key(m2, "a", "ticket-in/authorize/M002", vn)).result
    rejected = floor.services.machine.reject(m2, "M002", vn, txn.transaction_id, None,
                                             key(m2, "r", "ticket-in/reject/M002", [vn, txn.transaction_id]))
    assert rejected.result.status == "issued" and rejected.result.reason == "rejected by the machine"
    assert floor.tickets.get(vn).pending_txn is None
    with pytest.raises(HoldNotFound):
        floor.services.machine.commit(m2, "M002", vn, txn.transaction_id, key(m2, "c", "x", None))
    # authorised again, never committed: the hold passes, the beat releases it, a late commit is refused
    again = floor.services.machine.authorize(m2, "M002", vn, key(m2, "a2", "ticket-in/authorize/M002", vn)).result
    floor.ctx.clock.at += timedelta(seconds=16)
    with pytest.raises(HoldExpired):
        floor.services.machine.commit(m2, "M002", vn, again.transaction_id, key(m2, "c2", "y", None))
    assert floor.services.expiry.release_holds() == 1
    assert floor.tickets.get(vn).status == "issued" and floor.tickets.kinds()[-1] == "released"
    m1 = machine("M001")
    assert floor.services.desk.ticket_in(m1, "M001", vn, key(m1, "s", "ticket-in/M001", vn)).result.credits == 5_000


def test_ticket_in_refuses_a_locked_machine_and_a_ticket_above_the_credit_limit(floor):
    vn = cash_out(floor, "M001", 8_000).ticket.validation_number
    floor.machine("M003", credit_limit=10_000, status="locked")
    m3 = machine("M003")
    with pytest.raises(MachineLocked):
        floor.services.machine.single(m3, "M003", vn, key(m3, "s", "ticket-in/M003", vn))
    floor.machine("M004", credit_limit=10_000)
    floor.credit("M004", 5_000)
    m4 = machine("M004")
    with pytest.raises(CreditLimitExceeded) as e:
        floor.services.machine.single(m4, "M004", vn, key(m4, "s", "ticket-in/M004", vn))
    assert e.value.extra["sas_status"] == "0x84" and e.value.extra["credit_limit"] == 10_000
    assert floor.tickets.get(vn).status == "issued"
    assert floor.services.desk.credit_limit(floor.machines.machines["M004"].view) == 10_000


# ------------------------------------------------------------------ void
def test_a_supervisor_voids_a_live_ticket_to_voids_and_an_expired_one_to_breakage(floor):
    live = cash_out(floor, "M001", 2_000).ticket.validation_number
    old = cash_out(floor, "M002", 3_000).ticket.validation_number
    with floor.ctx.uow() as uow:  # the old ticket's expiry passed
        t = floor.tickets.get(old)
        floor.tickets.rows[t.id] = t.__class__(**{**t.__dict__, "expires_at": floor.ctx.clock.now()})
        uow.commit()
    voided = floor.services.admin.void(SUPERVISOR, live, "misprint",
                                       key(SUPERVISOR, "v1", "tickets/void", [live, "misprint"])).result
    assert voided.written_off_to == "tito:voids" and voided.ticket.status == "voided"
    assert voided.ticket.voided_by == "supervisor" and voided.ticket.void_reason == "misprint"
    breakage = floor.services.admin.void(SUPERVISOR, old, "unclaimed", key(SUPERVISOR, "v2", "tickets/void", [old])).result
    assert breakage.written_off_to == "tito:breakage"
    assert floor.ledger.balance(accounts.TICKETS_VOIDS) == 2_000
    assert floor.ledger.balance(accounts.TICKETS_BREAKAGE) == 3_000
    assert floor.ledger.balance(accounts.TICKETS_OUTSTANDING) == 0
    with pytest.raises(TicketVoided):
        floor.services.admin.void(SUPERVISOR, live, "again", key(SUPERVISOR, "v3", "tickets/void", [live, "again"]))
    open_drawer(floor)
    with pytest.raises(TicketVoided):
        redeem_at_cage(floor, live)
