"""TITO end to end through the HTTP API on a migrated SQLite database: issue, every channel,
every refusal, supervisor actions, printable tickets, reports, and the ledger after each."""

from __future__ import annotations

import io
from datetime import datetime, timedelta, timezone

import pypdfium2 as pdfium
import pytest
import zxingcpp
from PIL import Image

from tito.domain.validation import SystemValidation, sas_secure_enhanced_number

NOTES = (50_000, 10_000, 5_000, 1_000)


class ShiftClock:
    """The real clock moved forward by ``offset`` (machines and staff tokens keep working)."""

    def __init__(self) -> None:
        self.offset = timedelta(0)

    def now(self) -> datetime:
        return datetime.now(timezone.utc) + self.offset


@pytest.fixture
def clock(app):
    c = ShiftClock()
    ctx = app.extensions["slotsys"].ctx
    old, ctx.clock = ctx.clock, c
    yield c
    ctx.clock = old


def bill_in(api, asset, amount):
    for note in NOTES:
        while amount >= note:
            r = api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/bill-in", {"amount": note})
            assert r.status_code == 200, r.json
            amount -= note
    assert amount == 0


def cash_out(api, asset, amount=None) -> dict:
    if amount:
        bill_in(api, asset, amount)
    r = api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/cash-out")
    assert r.status_code == 201, r.json
    return r.json


def ticket(api, asset, amount) -> dict:
    return cash_out(api, asset, amount)["ticket"]


def meters(api, asset) -> dict:
    return api.as_machine(asset, "GET", f"/api/v1/machines/{asset}/meters", key=None).json


def promo_ticket(api, amount) -> dict:
    r = api.as_staff("supervisor", "POST", "/api/v1/tickets/promotional", {"amount": amount})
    assert r.status_code == 201, r.json
    return r.json["ticket"]


def problem(r, status, kind):
    assert r.status_code == status, r.json
    assert r.headers["Content-Type"] == "application/problem+json"
    assert r.json["type"].endswith(kind), r.json
    return r.json


def balanced(api):
    a = api.audit()
    assert a["balanced"] is True and a["tickets"]["agrees"], a
    return a


# ------------------------------------------------------------------ issue
def test_cash_out_with_cashable_and_promotional_credits_prints_two_tickets(api):
    promo = promo_ticket(api, 20_000)
    assert promo["type"] == "promotional" and promo["issued_by"] == "PROMO" and promo["sequence"] == 1
    r = api.as_machine("M001", "POST", "/api/v1/machines/M001/ticket-in", {"validation_number": promo["validation_number"]})
    assert r.status_code == 200 and r.json["promo_credits"] == 20_000 and r.json["credits"] == 0
    out = cash_out(api, "M001", 15_000)
    types = {t["type"]: t for t in out["tickets"]}
    assert set(types) == {"cashable", "promotional"} and len(out["tickets"]) == 2
    assert types["cashable"]["amount"] == 15_000 and types["promotional"]["amount"] == 20_000
    assert out["credits"] == 0 and out["promo_credits"] == 0
    assert types["cashable"]["validation_number"] != types["promotional"]["validation_number"]
    assert [t["sequence"] for t in out["tickets"]] == [1, 2]
    m = meters(api, "M001")["meters"]
    assert m["tickets_out"] == 35_000 and m["tickets_out_count"] == 2 and m["tickets_in"] == 20_000
    # the promotional ticket: never cash, a machine credits it to its promo meter
    vn = types["promotional"]["validation_number"]
    problem(api.as_staff("cashier", "POST", "/api/v1/cage/redeem", {"validation_number": vn}), 409,
            "ticket-promotional-not-cashable")
    problem(api.as_staff("kiosk", "POST", "/api/v1/kiosk/redeem", {"validation_number": vn}), 409,
            "ticket-not-accepted-here")
    r = api.as_machine("M002", "POST", "/api/v1/machines/M002/ticket-in", {"validation_number": vn})
    assert r.status_code == 200 and r.json["promo_credits"] == 20_000 and r.json["credits"] == 0
    balanced(api)


def secret(api, asset) -> tuple[int, int, int]:
    """(validation ID, next sequence, generation) as the machine itself reads them."""
    v = api.as_machine(asset, "GET", f"/api/v1/machines/{asset}/validation", key=None).json
    return v["sas_validation_id"], v["sas_next_sequence"], v["sas_generation"]


SECRET_KEYS = {"sas_validation_id", "sas_validation_id_hex", "sas_next_sequence"}


def test_sas_machines_print_secure_enhanced_numbers_and_wrap(api):
    v = api.as_staff("operator", "GET", "/api/v1/machines/V001/validation", key=None).json
    assert v["scheme"] == "sas" and v["sas_validation_id_set"] is True and not SECRET_KEYS & set(v)
    vid, seq, gen = secret(api, "V001")
    first = ticket(api, "V001", 10_000)
    assert first["scheme"] == "sas" and first["validation_number"] == sas_secure_enhanced_number(vid, seq)
    # an admin configures a machine with the reference's validation ID, one ticket before the 3-byte wrap
    r = api.as_staff("admin", "PUT", "/api/v1/machines/M005/validation",
                     {"scheme": "sas", "sas_validation_id": 0x654321, "sas_sequence": 0xFFFFFF}, key=None)
    assert r.status_code == 200 and not SECRET_KEYS & set(r.json), r.json
    numbers = [ticket(api, "M005", 1_000)["validation_number"] for _ in range(3)]
    assert numbers == [sas_secure_enhanced_number(0x654321, 0xFFFFFF), "004580945669109504", "006429188185446104"]
    # the reference's vectors now redeem like any ticket
    r = api.as_staff("cashier", "POST", "/api/v1/cage/redeem", {"validation_number": "00-6429-1881-8544-6104"})
    assert r.status_code == 200 and r.json["paid"] == 1_000
    # an ID is unique on the floor; bad input names its field; only an admin chooses an ID
    problem(api.as_staff("admin", "PUT", "/api/v1/machines/M006/validation",
                         {"scheme": "sas", "sas_validation_id": 0x654321}, key=None), 409, "conflict")
    assert api.as_staff("operator", "PUT", "/api/v1/machines/M006/validation",
                        {"scheme": "sas", "sas_validation_id": 0x123456}, key=None).status_code == 403
    r = api.as_staff("admin", "PUT", "/api/v1/machines/M006/validation",
                     {"scheme": "sas", "sas_validation_id": 0x1000000}, key=None)
    assert r.status_code == 422 and r.json["field"] == "sas_validation_id"
    # an operator switching a machine to SAS gets an ID and sequence start from the CSPRNG
    r = api.as_staff("operator", "PUT", "/api/v1/machines/M006/validation", {"scheme": "sas"}, key=None)
    assert r.status_code == 200 and r.json["sas_validation_id_set"] and not SECRET_KEYS & set(r.json)
    vid6, seq6, _ = secret(api, "M006")
    assert ticket(api, "M006", 1_000)["validation_number"] == sas_secure_enhanced_number(vid6, seq6)
    assert api.as_staff("cashier", "PUT", "/api/v1/machines/M006/validation", {"scheme": "system"},
                        key=None).status_code == 403
    balanced(api)


def test_seeded_validation_ids_and_sequences_are_random_and_secret(api):
    """The tester's attack: from one ticket (and a known, sequential ID) compute the next. The
    seeded IDs are drawn from the CSPRNG, sequences do not start at 0, and no staff role, no other
    machine, can read them."""
    sas = [a for a in ("V001", "V002", "V003", "V004", "V005")
           if api.as_staff("auditor", "GET", f"/api/v1/machines/{a}/validation", key=None).json["scheme"] == "sas"]
    assert len(sas) >= 3
    ids = [secret(api, a)[0] for a in sas]
    seqs = [secret(api, a)[1] for a in sas]
    assert len(set(ids)) == len(ids) and all(1 <= i <= 0xFFFFFF for i in ids)
    assert sorted(ids) != list(range(min(ids), min(ids) + len(ids)))  # not consecutive (chance ≈ 2**-100)
    assert 0x100001 not in ids and seqs != [0] * len(seqs)
    for role in ("operator", "auditor", "admin", "supervisor"):
        r = api.as_staff(role, "GET", f"/api/v1/machines/{sas[0]}/validation", key=None)
        assert r.status_code in (200, 403) and not SECRET_KEYS & set(r.json or {}), (role, r.json)
    assert api.as_machine(sas[1], "GET", f"/api/v1/machines/{sas[0]}/validation", key=None).status_code == 403
    # the tester's prediction: the next number from the old sequential scheme is not what prints
    t = ticket(api, sas[0], 1_000)
    guess = {sas_secure_enhanced_number(0x100001 + k, s) for k in range(len(sas)) for s in (0, 1)}
    assert t["validation_number"] not in guess


def test_a_supervisor_rotates_a_machines_validation_id(api):
    old_ticket = ticket(api, "V002", 5_000)
    vid, seq, gen = secret(api, "V002")
    for role in ("cashier", "operator", "attendant", "auditor"):
        assert api.as_staff(role, "POST", "/api/v1/machines/V002/validation/rotate", {}, key=None).status_code == 403
    assert api.as_machine("V002", "POST", "/api/v1/machines/V002/validation/rotate", {}, key=None).status_code == 403
    r = api.as_staff("supervisor", "POST", "/api/v1/machines/V002/validation/rotate",
                     {"reason": "a ticket number was computed outside"}, key=None)
    assert r.status_code == 200 and r.json["sas_generation"] == gen + 1 and not SECRET_KEYS & set(r.json), r.json
    vid2, seq2, gen2 = secret(api, "V002")
    assert gen2 == gen + 1 and (vid2, seq2) != (vid, seq)
    nxt = ticket(api, "V002", 5_000)
    assert nxt["validation_number"] == sas_secure_enhanced_number(vid2, seq2)
    assert nxt["validation_number"] != sas_secure_enhanced_number(vid, seq)  # the old secret no longer predicts
    # tickets printed before the rotation are still paid
    r = api.as_staff("cashier", "POST", "/api/v1/cage/redeem", {"validation_number": old_ticket["validation_number"]})
    assert r.status_code == 200 and r.json["paid"] == 5_000
    assert api.as_staff("admin", "POST", "/api/v1/machines/V002/validation/rotate", {}, key=None).status_code == 200
    r = api.as_staff("supervisor", "POST", "/api/v1/machines/M001/validation/rotate", {}, key=None)
    assert r.status_code == 409 and r.json["field"] == "scheme"  # a system-validation machine has no ID
    r = api.as_staff("supervisor", "POST", "/api/v1/machines/V002/validation/rotate", {"reason": "x" * 201}, key=None)
    assert r.status_code == 422 and r.json["field"] == "reason"
    sec = api.as_staff("auditor", "GET", "/api/v1/tito/reports/security", key=None).json
    rot = [e for e in sec["events"] if e["kind"] == "validation_id_rotated" and e["location"] == "V002"]
    assert len(rot) >= 2 and all(not SECRET_KEYS & set(e) for e in rot)
    # the rotation restarts the chain: no sequence break is reported for V002
    assert not [f for f in sec["sas_sequence"]["flagged"] if f["machine"] == "V002"], sec["sas_sequence"]
    balanced(api)


def test_re_enrolment_draws_a_new_validation_id(api, app):
    from slotsys.app.seed import reissue_credentials

    before = secret(api, "V003")
    creds = reissue_credentials(app.extensions["slotsys"], announce=False)
    key = next(m["key"] for m in creds["machines"] if m["asset"] == "V003")
    v = api.as_machine("V003", "GET", "/api/v1/machines/V003/validation", key=None, token=key).json
    assert v["sas_generation"] == before[2] + 1 and (v["sas_validation_id"], v["sas_next_sequence"]) != before[:2]


def test_the_security_report_flags_a_machine_whose_tickets_arrive_out_of_sequence(api):
    for _ in range(3):  # in sequence: nothing flagged
        ticket(api, "V004", 1_000)
    sec = api.as_staff("auditor", "GET", "/api/v1/tito/reports/security", key=None).json["sas_sequence"]
    assert sec["tickets_checked"] >= 3 and not [f for f in sec["flagged"] if f["machine"] == "V004"]
    _, seq, _ = secret(api, "V004")
    # the machine's sequence jumps ahead by 5 (tickets printed and never reported), then back
    assert api.as_staff("admin", "PUT", "/api/v1/machines/V004/validation",
                        {"scheme": "sas", "sas_sequence": (seq + 5) & 0xFFFFFF}, key=None).status_code == 200
    gap = ticket(api, "V004", 1_000)
    assert api.as_staff("admin", "PUT", "/api/v1/machines/V004/validation",
                        {"scheme": "sas", "sas_sequence": (seq - 10) & 0xFFFFFF}, key=None).status_code == 200
    back = ticket(api, "V004", 1_000)
    sec = api.as_staff("supervisor", "GET", "/api/v1/tito/reports/security", key=None).json["sas_sequence"]
    v4 = [f for f in sec["flagged"] if f["machine"] == "V004"]
    assert len(v4) == 1 and v4[0]["kinds"] == ["backwards", "gap"], sec
    breaks = {b["validation_number"]: b for b in v4[0]["breaks"]}
    assert breaks[gap["validation_number"]]["kind"] == "gap" and breaks[gap["validation_number"]]["skipped"] == 5
    assert breaks[back["validation_number"]]["kind"] == "backwards"
    assert not [k for b in v4[0]["breaks"] for k in b if "sequence" in k]  # no secret in the report
    assert api.as_staff("cashier", "GET", "/api/v1/tito/reports/security", key=None).status_code == 403


# ----------------------------------------------------- machine: two-phase
def authorize(api, asset, vn):
    return api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/ticket-in/authorize", {"validation_number": vn})


def test_two_phase_ticket_in_commit(api):
    t = ticket(api, "M003", 10_000)
    vn = t["validation_number"]
    r = authorize(api, "M004", vn)
    assert r.status_code == 200 and r.json["amount"] == 10_000 and r.json["credit_meter"] == "cashable"
    assert r.json["hold_seconds"] == 15
    txn = r.json["transaction_id"]
    assert meters(api, "M004")["credits"] == 0  # nothing moves before the commit
    look = api.as_staff("cashier", "GET", f"/api/v1/tickets/{vn}", key=None).json
    assert look["status"] == "pending" and look["pending_location"] == "M004"
    # everyone else is told it is in process at M004
    p = problem(api.as_staff("cashier", "POST", "/api/v1/cage/redeem", {"validation_number": vn}), 409,
                "ticket-pending-elsewhere")
    assert p["pending_location"] == "M004"
    problem(authorize(api, "M005", vn), 409, "ticket-pending-elsewhere")
    problem(api.as_staff("kiosk", "POST", "/api/v1/kiosk/redeem", {"validation_number": vn}), 409,
            "ticket-pending-elsewhere")
    # a commit with another transaction id is refused; the right one credits the machine
    r = api.as_machine("M004", "POST", "/api/v1/machines/M004/ticket-in/commit",
                       {"validation_number": vn, "transaction_id": "0" * 16})
    problem(r, 409, "ticket-hold-not-found")
    key = "commit-1"
    body = {"validation_number": vn, "transaction_id": txn}
    r = api.as_machine("M004", "POST", "/api/v1/machines/M004/ticket-in/commit", body, key=key)
    assert r.status_code == 200 and r.json["credits"] == 10_000 and r.json["ticket"]["status"] == "redeemed"
    replay = api.as_machine("M004", "POST", "/api/v1/machines/M004/ticket-in/commit", body, key=key)
    assert replay.json == r.json and replay.headers["Idempotent-Replayed"] == "true"
    m = meters(api, "M004")
    assert m["credits"] == 10_000 and m["meters"]["tickets_in"] == 10_000 and m["meters"]["tickets_in_count"] == 1
    p = problem(api.as_staff("cashier", "POST", "/api/v1/cage/redeem", {"validation_number": vn}), 409,
                "ticket-already-redeemed")
    assert p["redeemed_channel"] == "machine" and p["redeemed_location"] == "M004"
    kinds = [e["kind"] for e in api.as_staff("auditor", "GET", f"/api/v1/tickets/{vn}", key=None).json["events"]]
    assert kinds[:3] == ["issued", "authorised", "refused"] and "committed" in kinds
    balanced(api)


def test_two_phase_reject_leaves_the_ticket_redeemable(api):
    vn = ticket(api, "M006", 5_000)["validation_number"]
    txn = authorize(api, "M007", vn).json["transaction_id"]
    r = api.as_machine("M007", "POST", "/api/v1/machines/M007/ticket-in/reject",
                       {"validation_number": vn, "transaction_id": txn, "reason": "stacker full"})
    assert r.status_code == 200 and r.json["status"] == "issued"
    assert meters(api, "M007")["credits"] == 0
    # the rejected authorisation cannot be committed any more
    problem(api.as_machine("M007", "POST", "/api/v1/machines/M007/ticket-in/commit",
                           {"validation_number": vn, "transaction_id": txn}), 409, "ticket-hold-not-found")
    r = api.as_staff("cashier", "POST", "/api/v1/cage/redeem", {"validation_number": vn})
    assert r.status_code == 200 and r.json["paid"] == 5_000
    balanced(api)


def test_lost_commit_is_released_after_the_hold(api, app, clock):
    vn = ticket(api, "M008", 10_000)["validation_number"]
    txn = authorize(api, "M009", vn).json["transaction_id"]
    problem(authorize(api, "M010", vn), 409, "ticket-pending-elsewhere")
    clock.offset = timedelta(seconds=16)  # M009 never commits: the 15 s hold passes
    r = authorize(api, "M010", vn)  # already payable elsewhere, before any sweep
    assert r.status_code == 200
    api.as_machine("M010", "POST", "/api/v1/machines/M010/ticket-in/reject",
                   {"validation_number": vn, "transaction_id": r.json["transaction_id"]})
    # M009's late commit is refused: the machine must return the ticket
    problem(api.as_machine("M009", "POST", "/api/v1/machines/M009/ticket-in/commit",
                           {"validation_number": vn, "transaction_id": txn}), 409, "ticket-hold-not-found")
    txn2 = authorize(api, "M011", vn).json["transaction_id"]
    clock.offset = timedelta(seconds=40)
    p = problem(api.as_machine("M011", "POST", "/api/v1/machines/M011/ticket-in/commit",
                               {"validation_number": vn, "transaction_id": txn2}), 409, "ticket-hold-expired")
    assert p["hold_until"]
    # the beat task releases it; the release is logged; the ticket pays once
    svc = app.extensions["slotsys"]
    assert svc.celery.tasks["tito.release_ticket_holds"].delay().get() == 1
    look = api.as_staff("cashier", "GET", f"/api/v1/tickets/{vn}", key=None).json
    assert look["status"] == "issued" and look["events"][-1]["kind"] == "released"
    r = api.as_machine("M012", "POST", "/api/v1/machines/M012/ticket-in", {"validation_number": vn})
    assert r.status_code == 200 and r.json["credits"] == 10_000
    assert [meters(api, a)["credits"] for a in ("M009", "M010", "M011")] == [0, 0, 0]
    balanced(api)


def test_machines_refuse_handpay_receipts_and_locked_machines_refuse_tickets(api, app):
    from slotsys.floor.adapters.tables import Machine

    vn = ticket(api, "M013", 1_000)["validation_number"]
    svc = app.extensions["slotsys"]
    with svc.uow() as uow:
        uow.session.query(Machine).filter_by(asset_number="M014").one().status = "locked"
        uow.commit()
    problem(authorize(api, "M014", vn), 409, "machine-locked")
    assert api.as_staff("cashier", "GET", f"/api/v1/tickets/{vn}", key=None).json["status"] == "issued"
    # a machine acts only as itself
    r = api.as_machine("M001", "POST", "/api/v1/machines/M002/ticket-in/authorize", {"validation_number": vn},
                       token=api.key("M001"))
    assert r.status_code == 403


# ---------------------------------------------------------- handpay receipts
def test_above_the_ticket_limit_an_attendant_pays_a_handpay_receipt(api, monkeypatch):
    monkeypatch.setattr(api.app.extensions["slotsys"].tito.settings, "ticket_limit_won", 100_000)
    bill_in(api, "V002", 150_000)
    p = problem(api.as_machine("V002", "POST", "/api/v1/machines/V002/cash-out"), 409, "handpay-required")
    assert p["amount"] == 150_000 and p["ticket_limit"] == 100_000
    assert meters(api, "V002")["credits"] == 150_000  # nothing moved
    assert api.as_staff("cashier", "POST", "/api/v1/machines/V002/handpay").status_code == 403
    r = api.as_staff("attendant", "POST", "/api/v1/machines/V002/handpay")
    assert r.status_code == 201, r.json
    receipt = r.json["ticket"]
    assert receipt["type"] == "handpay_receipt" and receipt["amount"] == 150_000 and r.json["credits"] == 0
    m = meters(api, "V002")["meters"]
    assert m["tickets_out"] == 0  # a handpay is not a ticket-out
    vn = receipt["validation_number"]
    problem(api.as_machine("V003", "POST", "/api/v1/machines/V003/ticket-in", {"validation_number": vn}), 409,
            "ticket-not-accepted-here")
    r = api.as_staff("cashier", "POST", "/api/v1/cage/redeem", {"validation_number": vn, "amount": 150_000})
    assert r.status_code == 200 and r.json["paid"] == 150_000
    balanced(api)


# --------------------------------------------------------------- kiosk
def test_kiosk_pays_from_its_cassette_and_refuses_what_it_cannot_pay(api, app):
    start = api.as_staff("kiosk", "GET", "/api/v1/kiosks/kiosk1", key=None).json["cassette"]
    vn = ticket(api, "M015", 61_000)["validation_number"]
    r = api.as_staff("kiosk", "POST", "/api/v1/kiosk/redeem", {"validation_number": vn})
    assert r.status_code == 200 and r.json["paid"] == 61_000 and r.json["cassette"] == start - 61_000
    p = problem(api.as_staff("kiosk", "POST", "/api/v1/kiosk/redeem", {"validation_number": vn}), 409,
                "ticket-already-redeemed")
    assert p["redeemed_channel"] == "kiosk" and p["redeemed_location"] == "kiosk1"
    # a ticket bigger than the cassette: refused, nothing moves
    svc = app.extensions["slotsys"]
    with svc.uow() as uow:
        from slotsys.kernel import ledger as L

        e = L.EntryBuilder("test.drain", "empty the cassette").add(debit="cage:MAIN:drawer", credit="kiosk:kiosk1:cassette",
                                                                      amount=start - 61_000 - 10_000)
        uow.ledger.post(e.build())
        uow.commit()
    big = ticket(api, "M016", 50_000)["validation_number"]
    problem(api.as_staff("kiosk", "POST", "/api/v1/kiosk/redeem", {"validation_number": big}), 409, "insufficient-funds")
    assert api.as_staff("cashier", "GET", f"/api/v1/tickets/{big}", key=None).json["status"] == "issued"
    r = api.as_staff("cashier", "POST", "/api/v1/kiosks/kiosk1/fill", {"amount": 1_000_000})
    assert r.status_code == 200 and r.json["cassette"] == 1_010_000
    assert api.as_staff("kiosk", "POST", "/api/v1/kiosk/redeem", {"validation_number": big}).status_code == 200
    assert api.as_staff("cashier", "POST", "/api/v1/kiosks/nope/fill", {"amount": 1_000}).status_code == 404
    assert api.as_staff("cashier", "POST", "/api/v1/kiosk/redeem", {"validation_number": big}).status_code == 403
    balanced(api)


# ------------------------------------------------------------------ cage
def test_cage_drawer_session_expected_cash_is_the_ledger(api):
    cur = api.as_staff("cashier", "GET", "/api/v1/cage/sessions/current", key=None).json
    float0 = cur["expected_cash"]
    paid = 0
    for asset, amount in (("M017", 12_000), ("M018", 3_000)):
        vn = ticket(api, asset, amount)["validation_number"]
        r = api.as_staff("cashier", "POST", "/api/v1/cage/redeem", {"validation_number": vn})
        assert r.status_code == 200 and r.json["session"] == cur["session"]
        paid += amount
        assert r.json["drawer"] == float0 - paid
    cur = api.as_staff("cashier", "GET", "/api/v1/cage/sessions/current", key=None).json
    assert cur["expected_cash"] == float0 - paid and cur["tickets_paid"] == 2 and cur["tickets_paid_amount"] == paid
    # count out ₩500 short
    r = api.as_staff("cashier", "POST", "/api/v1/cage/sessions/current/close", {"counted_cash": float0 - paid - 500})
    assert r.status_code == 200 and r.json["variance"] == -500 and r.json["status"] == "closed"
    # no open drawer: the cashier cannot pay
    vn = ticket(api, "M019", 1_000)["validation_number"]
    problem(api.as_staff("cashier", "POST", "/api/v1/cage/redeem", {"validation_number": vn}), 409,
            "no-open-drawer-session")
    r = api.as_staff("cashier", "POST", "/api/v1/cage/sessions", {"drawer": "D2", "opening_float": 1_000_000})
    assert r.status_code == 201 and r.json["expected_cash"] == 1_000_000
    problem(api.as_staff("cashier", "POST", "/api/v1/cage/sessions", {"drawer": "D3", "opening_float": 1}), 409,
            "conflict")
    r = api.as_staff("cashier", "POST", "/api/v1/cage/redeem", {"validation_number": vn})
    assert r.status_code == 200 and r.json["drawer"] == 999_000
    a = balanced(api)
    assert a["sum_of_balances"] == 0


def test_every_refusal_at_the_cage_is_told_apart_and_changes_nothing(api):
    vn = ticket(api, "M020", 5_000)["validation_number"]
    mistyped = vn[:-1] + str((int(vn[-1]) + 1) % 10)
    before = api.audit()["journal_entries"]
    problem(api.as_staff("cashier", "POST", "/api/v1/cage/redeem", {"validation_number": mistyped}), 422,
            "check-digit-wrong")
    problem(api.as_staff("cashier", "POST", "/api/v1/cage/redeem",
                         {"validation_number": SystemValidation().next_number()}), 404, "ticket-not-on-file")
    p = problem(api.as_staff("cashier", "POST", "/api/v1/cage/redeem", {"validation_number": vn, "amount": 5_100}), 422,
                "ticket-amount-mismatch")
    assert p["field"] == "amount" and p["amount_on_file"] == 5_000
    problem(api.as_staff("cashier", "POST", "/api/v1/cage/redeem", {"validation_number": "12345"}), 422,
            "validation-failed")
    r = api.as_staff("cashier", "POST", "/api/v1/cage/redeem", {"validation_number": vn}, key=None)
    assert r.status_code == 422 and r.json["field"] == "Idempotency-Key"
    assert api.audit()["journal_entries"] == before
    assert api.as_staff("cashier", "GET", f"/api/v1/tickets/{vn}", key=None).json["status"] == "issued"


def test_expired_tickets_refused_at_machines_and_kiosks_honoured_at_the_cage_with_approval(api, app):
    from tito.adapters.tables import Ticket

    vn = ticket(api, "M001", 7_000)["validation_number"]
    svc = app.extensions["slotsys"]
    with svc.uow() as uow:
        uow.session.query(Ticket).filter_by(validation_number=vn).one().expires_at = (
            datetime.now(timezone.utc) - timedelta(minutes=1))
        uow.commit()
    assert svc.celery.tasks["tito.expire_tickets"].delay().get() == 1
    problem(api.as_machine("M002", "POST", "/api/v1/machines/M002/ticket-in", {"validation_number": vn}), 409,
            "ticket-expired")
    problem(api.as_staff("kiosk", "POST", "/api/v1/kiosk/redeem", {"validation_number": vn}), 409, "ticket-expired")
    p = problem(api.as_staff("cashier", "POST", "/api/v1/cage/redeem", {"validation_number": vn}), 409, "ticket-expired")
    assert "supervisor" in p["detail"]
    assert api.audit()["tickets"]["ledger_outstanding"] == 7_000  # still a liability
    # only a supervisor approves, with a reason
    assert api.as_staff("cashier", "POST", f"/api/v1/tickets/{vn}/expiry-override", {"reason": "x"}).status_code == 403
    r = api.as_staff("supervisor", "POST", f"/api/v1/tickets/{vn}/expiry-override", {"reason": ""})
    assert r.status_code == 422 and r.json["field"] == "reason"
    r = api.as_staff("supervisor", "POST", f"/api/v1/tickets/{vn}/expiry-override", {"reason": "guest was abroad"})
    assert r.status_code == 200 and r.json["expiry_override_by"] == "supervisor"
    problem(api.as_staff("kiosk", "POST", "/api/v1/kiosk/redeem", {"validation_number": vn}), 409, "ticket-expired")
    r = api.as_staff("cashier", "POST", "/api/v1/cage/redeem", {"validation_number": vn})
    assert r.status_code == 200 and r.json["honoured_expired"] is True
    events = [e["kind"] for e in api.as_staff("auditor", "GET", f"/api/v1/tickets/{vn}", key=None).json["events"]]
    assert "expiry_override" in events and events[-1] == "honoured_expired"
    rep = api.as_staff("auditor", "GET", "/api/v1/tito/reports/expired", key=None).json
    assert [t["validation_number"] for t in rep["honoured_after_expiry"]["tickets"]] == [vn]
    assert rep["honoured_after_expiry"]["tickets"][0]["approved_by"] == "supervisor"
    balanced(api)


def test_void_with_reason_and_breakage(api, app):
    from tito.adapters.tables import Ticket

    live = ticket(api, "M003", 2_000)["validation_number"]
    old = ticket(api, "M004", 3_000)["validation_number"]
    svc = app.extensions["slotsys"]
    with svc.uow() as uow:
        uow.session.query(Ticket).filter_by(validation_number=old).one().expires_at = (
            datetime.now(timezone.utc) - timedelta(days=1))
        uow.commit()
    assert api.as_staff("cashier", "POST", f"/api/v1/tickets/{live}/void", {"reason": "misprint"}).status_code == 403
    r = api.as_staff("supervisor", "POST", f"/api/v1/tickets/{live}/void", {"reason": "misprint"})
    assert r.status_code == 200 and r.json["written_off_to"] == "tito:voids" and r.json["ticket"]["status"] == "voided"
    r = api.as_staff("supervisor", "POST", f"/api/v1/tickets/{old}/void", {"reason": "unclaimed: breakage"})
    assert r.status_code == 200 and r.json["written_off_to"] == "tito:breakage"
    p = problem(api.as_machine("M005", "POST", "/api/v1/machines/M005/ticket-in", {"validation_number": live}), 409,
                "ticket-voided")
    assert p["voided_by"] == "supervisor" and p["void_reason"] == "misprint"
    problem(api.as_staff("supervisor", "POST", f"/api/v1/tickets/{live}/void", {"reason": "again"}), 409, "ticket-voided")
    a = balanced(api)
    assert a["tickets"]["ledger_outstanding"] == 0
    rep = api.as_staff("auditor", "GET", "/api/v1/tito/reports/voided", key=None).json
    assert rep["count"] == 2 and rep["amount"] == 5_000 and rep["breakage_amount"] == 3_000


def test_brute_force_guard_throttles_and_logs_a_terminal(api, monkeypatch):
    monkeypatch.setattr(api.app.extensions["slotsys"].tito.settings, "guard_max_failures", 4)
    real = ticket(api, "M006", 1_000)["validation_number"]
    gen = SystemValidation()
    codes = []
    for i in range(4):
        vn = gen.next_number()
        if i == 1:  # a mistyped number counts too
            vn = vn[:-1] + str((int(vn[-1]) + 1) % 10)
        codes.append(api.as_staff("kiosk", "POST", "/api/v1/kiosk/redeem", {"validation_number": vn}).status_code)
    assert codes == [404, 422, 404, 404]
    # locked out: even a genuine ticket is refused from this terminal, and nothing moves
    p = problem(api.as_staff("kiosk", "POST", "/api/v1/kiosk/redeem", {"validation_number": real}), 429,
                "too-many-unknown-tickets")
    assert p["retry_after"]
    problem(api.as_staff("kiosk", "POST", "/api/v1/kiosk/redeem", {"validation_number": gen.next_number()}), 429,
            "too-many-unknown-tickets")
    # other terminals are not affected
    assert api.as_machine("M007", "POST", "/api/v1/machines/M007/ticket-in",
                          {"validation_number": real}).status_code == 200
    sec = api.as_staff("auditor", "GET", "/api/v1/tito/reports/security", key=None).json
    assert sec["counts"]["unknown_presented"] >= 3 and sec["counts"]["mistyped_presented"] >= 1
    assert sec["counts"]["terminal_locked"] == 1
    locked = [e for e in sec["events"] if e["kind"] == "terminal_locked"]
    assert locked[0]["terminal"] == "staff:kiosk1"


# ------------------------------------------------------------- rendering
@pytest.mark.parametrize("kind", ["cashable", "promotional", "handpay_receipt"])
def test_printable_ticket_of_every_type_decodes_to_its_validation_number(api, kind):
    if kind == "cashable":
        t, fetch = ticket(api, "V004", 10_000), ("machine", "V004")
    elif kind == "promotional":
        t, fetch = promo_ticket(api, 30_000), ("staff", "cashier")
    else:
        bill_in(api, "M008", 1_000)
        t, fetch = api.as_staff("attendant", "POST", "/api/v1/machines/M008/handpay").json["ticket"], ("staff", "attendant")
    vn = t["validation_number"]
    assert t["type"] == kind

    def get(url):
        if fetch[0] == "machine":
            return api.as_machine(fetch[1], "GET", url, key=None)
        return api.as_staff(fetch[1], "GET", url, key=None)

    png = get(t["ticket_png_url"])
    assert png.status_code == 200 and png.mimetype == "image/png"
    assert [r.text for r in zxingcpp.read_barcodes(Image.open(io.BytesIO(png.data)))] == [vn]
    pdf = get(t["ticket_pdf_url"])
    assert pdf.status_code == 200 and pdf.mimetype == "application/pdf"
    page = pdfium.PdfDocument(pdf.data)[0]
    assert [r.text for r in zxingcpp.read_barcodes(page.render(scale=300 / 72).to_pil())] == [vn]
    text = page.get_textpage().get_text_range()
    assert "VOID AFTER 30 DAYS" in text and f"₩{t['amount']:,}" in text
    bar = get(t["barcode_url"])
    assert [r.text for r in zxingcpp.read_barcodes(Image.open(io.BytesIO(bar.data)))] == [vn]
    qr = get(t["qr_url"])
    assert [r.text for r in zxingcpp.read_barcodes(Image.open(io.BytesIO(qr.data)))] == [vn]


def test_a_machine_prints_only_its_own_tickets(api):
    t = ticket(api, "M009", 1_000)
    assert api.as_machine("M010", "GET", t["ticket_png_url"], key=None).status_code == 403
    assert api.as_staff("kiosk", "GET", t["ticket_pdf_url"], key=None).status_code == 403


# --------------------------------------------------------------- reports
def test_reports_agree_with_the_ledger_and_the_meters(api):
    a = ticket(api, "M011", 10_000)["validation_number"]
    b = ticket(api, "M012", 20_000)["validation_number"]
    c = ticket(api, "M012", 5_000)["validation_number"]
    promo_ticket(api, 4_000)
    api.as_staff("cashier", "POST", "/api/v1/cage/redeem", {"validation_number": a})
    api.as_machine("M013", "POST", "/api/v1/machines/M013/ticket-in", {"validation_number": b})
    assert api.as_staff("cashier", "GET", "/api/v1/tito/reports/issued", key=None).status_code == 403

    def report(name, **q):
        r = api.as_staff("auditor", "GET", f"/api/v1/tito/reports/{name}", key=None) if not q else \
            api.client.get(f"/api/v1/tito/reports/{name}", query_string=q,
                           headers={"Authorization": f"Bearer {api.staff_token('auditor')}"})
        assert r.status_code == 200, r.json
        return r.json

    issued = report("issued")
    assert issued["total"] == {"count": 4, "amount": 39_000}
    assert {(r["issued_by"], r["count"], r["amount"]) for r in issued["rows"]} == {
        ("M011", 1, 10_000), ("M012", 2, 25_000), ("PROMO", 1, 4_000)}
    redeemed = report("redeemed")
    assert {(r["channel"], r["amount"]) for r in redeemed["rows"]} == {("cage", 10_000), ("machine", 20_000)}
    out = report("outstanding")
    assert out["agrees"] and out["ledger_outstanding"] == 9_000 == out["total"]["amount"]
    listed = [t["validation_number"] for d in out["dates"] for t in d["tickets"]]
    assert c in listed and a not in listed
    rec = report("reconciliation")
    assert rec["all_agree"], rec["disagreeing"]
    m12 = next(m for m in rec["machines"] if m["asset"] == "M012")
    assert m12["tickets_out"] == {"meter": 25_000, "count_meter": 2, "issued": 25_000, "issued_count": 2, "difference": 0}
    # a range in the past has nothing; bad dates name their field
    assert report("issued", **{"from": "2020-01-01", "to": "2020-01-31"})["total"]["count"] == 0
    for q, field in (({"from": "yesterday"}, "from"), ({"from": "2026-02-01", "to": "2026-01-01"}, "to"),
                     ({"from": "2020-01-01", "to": "2026-01-01"}, "to")):
        r = api.client.get("/api/v1/tito/reports/issued", query_string=q,
                           headers={"Authorization": f"Bearer {api.staff_token('auditor')}"})
        assert r.status_code == 422 and r.json["field"] == field


def test_a_cancelled_credit_handpay_from_the_two_person_threshold_needs_the_queue(api, app, monkeypatch):
    """The single-signer ``/machines/<asset>/handpay`` refuses credits at or above
    ``SLOTSYS_HANDPAY_TWO_PERSON_WON`` (409 ``two-signatures-required``, nothing moved); the refused cash-out's
    handpay is paid in the queue by the attendant and a different supervisor, with a handpay receipt."""
    monkeypatch.setattr(app.extensions["slotsys"].tito.settings, "ticket_limit_won", 100_000)
    monkeypatch.setattr(app.extensions["slotsys"].tito.settings, "handpay_two_person_won", 120_000)
    monkeypatch.setattr(app.extensions["slotsys"].events.settings, "handpay_two_person_won", 120_000)
    bill_in(api, "V002", 150_000)
    problem(api.as_machine("V002", "POST", "/api/v1/machines/V002/cash-out"), 409, "handpay-required")
    p = problem(api.as_staff("attendant", "POST", "/api/v1/machines/V002/handpay"), 409, "two-signatures-required")
    assert p["field"] == "asset" and p["amount"] == 150_000
    assert meters(api, "V002")["credits"] == 150_000  # nothing moved
    queue = api.as_staff("attendant", "GET", "/api/v1/handpays?state=pending", key=None).json["handpays"]
    h = next(h for h in queue if h["machine"] == "V002" and h["source"] == "cancelled_credit")
    assert api.as_staff("attendant", "POST", f"/api/v1/handpays/{h['id']}/sign").json["state"] == "pending"
    paid = api.as_staff("supervisor", "POST", f"/api/v1/handpays/{h['id']}/sign")
    assert paid.status_code == 200 and paid.json["state"] == "paid", paid.json
    assert paid.json["payout"]["receipt"]["ticket"]["amount"] == 150_000 and meters(api, "V002")["credits"] == 0
