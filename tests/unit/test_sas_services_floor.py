"""ServicesFloor (the SAS host's floor port over the floor's real services) on the SQLite demo floor: enrolment
accepted or refused with the reason, a game / notes / a ticket applied once per port key (a repeat changes
nothing), a refusal recorded without stopping the host, a disabled machine told to stop."""

from __future__ import annotations

import dataclasses

import pytest

from slotsys.app.wiring.sas import build_sas_floor, prepare_sas_machines
from slotsys.kernel import accounts
from slotsys.kernel.context import Principal
from slotsys.kernel.idempotency import OnceKey, fingerprint
from slotsys.sas.services.floor_port import (
    AftResult, AftTransferRequest, BillIn, GamePlayed, HandpayPending, HandpayReset, InstructionDone, MachineEvent, MachineIdentity, MeterReport,
    TicketIssued,
)
from tito.domain.validation import sas_secure_enhanced_number


def identity(asset: str, denomination: int = 100, max_bet: int = 50) -> MachineIdentity:
    return MachineIdentity(asset, 1, "602", "SN1", "SL", "000", "DP50", denomination, max_bet, "9500", (1,))


def meters(asset: str) -> MeterReport:
    return MeterReport(asset, f"{asset}:meters:0:enrolment", "enrolment", {"coin_in": 0, "games_played": 0})


@pytest.fixture
def sas(app):
    svc = app.extensions["slotsys"]
    return svc, build_sas_floor(svc)


def test_enrolment_is_refused_with_the_reason_until_the_machine_is_a_sas_machine(sas):
    svc, floor = sas
    assert floor.enrol(identity("Z999"), meters("Z999")).reason == "asset Z999 is not on the floor"
    refused = floor.enrol(identity("M001"), meters("M001"))  # the demo floor's M001 plays server-decided spins
    assert not refused.accepted and "server mode" in refused.reason
    prepare_sas_machines(svc, ["M001"])
    wrong = floor.enrol(identity("M001", denomination=1_000), meters("M001"))
    assert not wrong.accepted and "denomination" in wrong.reason
    ok = floor.enrol(identity("M001"), meters("M001"))
    assert ok.accepted and ok.validation == "secure_enhanced" and 0 < ok.validation_id <= 0xFFFFFF
    assert ok.max_bonus_won == svc.jackpots.settings.max_award_won


def test_a_game_notes_and_a_ticket_are_applied_once_per_key(sas):
    svc, floor = sas
    prepare_sas_machines(svc, ["M001"])
    enrolment = floor.enrol(identity("M001"), meters("M001"))
    bill = BillIn("M001", "M001:bills:160", 16_000, -1, 0)  # two notes between two polls: ₩10,000 + 5,000 + 1,000
    floor.bill_in(bill)
    floor.bill_in(bill)  # the host's retry after a lost answer
    game = GamePlayed("M001", "M001:game:1", 1, 1, 1_000, 400, 1,
                      {"coin_in": 1_000, "paytable_win": 400, "games_played": 1, "games_won": 1})
    floor.record_game(game)
    floor.record_game(game)
    with svc.uow(readonly=True) as uow:
        m = uow.machines.get("M001")
        assert (m.bills_in, m.coin_in, m.coin_out, m.games_played, m.game_seq) == (16_000, 1_000, 400, 1, 1)
        assert uow.machines.credits("M001").cashable == 15_400
    vn = sas_secure_enhanced_number(enrolment.validation_id, enrolment.validation_sequence + 1)
    ticket = TicketIssued("M001", f"M001:ticket-out:{vn}", vn, 15_400, None, 1, "sas", True)
    floor.ticket_issued(ticket)
    floor.ticket_issued(ticket)
    with svc.uow(readonly=True) as uow:
        t = uow.tickets.get(vn)
        assert (t.status, t.amount, t.issued_by) == ("issued", 15_400, "M001")
        assert uow.machines.credits("M001").cashable == 0 and uow.machines.get("M001").tickets_out_count == 1
    # a ticket out before the note that paid for it (SAS reports the priority 3D before the queued bill
    # exception): it waits for the credits, and a game after it waits behind it, in order
    other = sas_secure_enhanced_number(enrolment.validation_id, enrolment.validation_sequence + 2)
    floor.ticket_issued(TicketIssued("M001", f"M001:ticket-out:{other}", other, 5_000, None, 2, "sas", True))
    floor.record_game(GamePlayed("M001", "M001:game:2", 2, 1, 1_000, 0, 0,
                                 {"coin_in": 2_000, "paytable_win": 400, "games_played": 2, "games_won": 1}))
    assert floor.waiting("M001") == 2 and floor.refused == []
    with svc.uow(readonly=True) as uow:
        assert uow.tickets.get(other) is None and uow.machines.get("M001").game_seq == 1
    floor.bill_in(BillIn("M001", "M001:bills:210", 5_000, -1, 0))  # wrong order: the ticket first, the game waits
    assert floor.waiting("M001") == 1
    floor.bill_in(BillIn("M001", "M001:bills:220", 1_000, -1, 0))
    assert floor.waiting("M001") == 0 and floor.refused == []
    with svc.uow(readonly=True) as uow:
        assert uow.tickets.get(other).amount == 5_000 and uow.machines.get("M001").game_seq == 2
        assert uow.machines.credits("M001").cashable == 0
    # a refusal that more credits cannot cure is final: recorded, the host goes on
    floor.ticket_issued(TicketIssued("M001", f"M001:ticket-out:{other}:again", other, 5_000, None, 3, "sas", True))
    assert [(a, what) for a, what, _ in floor.refused] == [("M001", "ticket_out")]
    assert svc.audit.report()["balanced"]


def test_a_machine_disabled_on_the_floor_is_told_to_stop_and_to_play_again(sas):
    svc, floor = sas
    prepare_sas_machines(svc, ["M003"])
    assert floor.instructions("M003") == []
    operator = Principal("staff", "operator", "operator")
    svc.floor_admin.disable(operator, "M003", "reel glass cracked")
    (stop,) = floor.instructions("M003")
    assert stop.enabled is False and "reel glass" in stop.reason
    assert floor.instructions("M003") == [stop]  # the same instruction until the host has done it
    floor.instruction_done(InstructionDone("M003", stop.instruction_id, True))
    assert floor.instructions("M003") == []
    svc.floor_admin.enable(operator, "M003", "glass replaced")
    (go,) = floor.instructions("M003")
    assert go.enabled is True and go.instruction_id != stop.instruction_id


def test_a_machine_with_lifetime_meters_is_numbered_and_reconciled_from_its_baseline(sas):
    """M005 played server-decided games on the floor before; the SAS machine now behind it has 10 years of meters."""
    svc, floor = sas
    api_machine = Principal("machine", "M005")
    from slotsys.kernel.idempotency import OnceKey, fingerprint

    svc.floor.bill_in(api_machine, "M005", 10_000, OnceKey(api_machine.id, "b1", fingerprint("bill", 1)))
    for n in range(3):
        svc.floor.spin(api_machine, "M005", {"lines": 10, "multiplier": 1},
                       OnceKey(api_machine.id, f"s{n}", fingerprint("spin", n)))
    svc.floor.cash_out(api_machine, "M005", OnceKey(api_machine.id, "c", fingerprint("cash-out")))
    prepare_sas_machines(svc, ["M005"])
    lifetime = {"coin_in": 900_000_000, "paytable_win": 850_000_000, "handpaid_cancelled": 0, "games_played": 4_000_000,
                "games_won": 1_000_000, "bills": 700_000_000, "ticket_in": 1_000, "ticket_out": 2_000,
                "ticket_in_count": 1, "ticket_out_count": 1, "credits": 0}
    report = MeterReport("M005", "M005:meters:4000000:enrolment", "enrolment", lifetime)
    assert floor.enrol(identity("M005"), report).accepted
    with svc.uow(readonly=True) as uow:
        m = uow.machines.get("M005")
        base = m.sas_meter_base
        floor_before = (m.game_seq, m.coin_in, m.bills_in)
    assert base["machine"]["games_played"] == 4_000_000 and base["floor"]["game_seq"] == floor_before[0] == 3
    assert floor.reconcile_meters(MeterReport("M005", "M005:meters:4000000:r", "reconcile", lifetime)) == []
    floor.bill_in(BillIn("M005", "M005:bills:7000050", 5_000, -1, 0))
    played = {**lifetime, "coin_in": lifetime["coin_in"] + 1_000, "paytable_win": lifetime["paytable_win"] + 200,
              "games_played": 4_000_001, "games_won": 1_000_001, "bills": lifetime["bills"] + 5_000, "credits": 4_200}
    floor.record_game(GamePlayed("M005", "M005:game:4000001", 4_000_001, 1, 1_000, 200, 1, played))
    assert floor.refused == []
    with svc.uow(readonly=True) as uow:
        m = uow.machines.get("M005")
        assert (m.game_seq, m.coin_in - floor_before[1], m.bills_in - floor_before[2]) == (4, 1_000, 5_000)
        assert uow.machine_events.for_machine(m.id, kind="game_number_skipped", limit=5) == []
        assert uow.machine_events.for_machine(m.id, kind="meter_mismatch", limit=5) == []
    assert floor.reconcile_meters(MeterReport("M005", "M005:meters:4000001:r", "reconcile", played)) == []
    # a second enrolment (power applied) keeps the baseline
    assert floor.enrol(identity("M005"), MeterReport("M005", "k", "power_on", played)).accepted
    with svc.uow(readonly=True) as uow:
        assert uow.machines.get("M005").sas_meter_base == base


def test_jackpot_and_cancelled_credit_handpays_reach_the_attendants_queue_once_and_are_paid_there(sas):
    from slotsys.kernel import accounts
    from slotsys.kernel.idempotency import OnceKey, fingerprint

    svc, floor = sas
    prepare_sas_machines(svc, ["M007"])
    assert floor.enrol(identity("M007"), meters("M007")).accepted
    floor.bill_in(BillIn("M007", "M007:bills:500", 50_000, -1, 0))
    attendant = Principal("staff", "attendant", "attendant")

    def queued():
        return [h for h in svc.events.handpays(attendant, state="pending", before_id=None, limit=50).handpays
                if h.machine == "M007"]

    def balances():
        with svc.uow(readonly=True) as uow:
            return (uow.ledger.balance(accounts.cage_bank("MAIN")), uow.ledger.balance(accounts.machine_hold("M007")),
                    uow.machines.get("M007").coin_out)

    # the host's generic event of exception 0x51: recorded, nothing queued (the handpay calls queue)
    floor.record_event(MachineEvent("M007", "M007:event:1", "handpay_pending", 0x51))
    assert queued() == []
    # a jackpot handpay (a game win at or above the machine's jackpot limit): its win joins the queue, once
    jackpot = HandpayPending("M007", "M007:handpay:0:0:1200000", 1_200_000, "jackpot", 0x40)
    floor.handpay_pending(jackpot)
    floor.handpay_pending(jackpot)  # the host's call repeated after a lost answer
    (j,) = queued()
    assert (j.source, j.amount, j.signers_needed) == ("machine_jackpot", 1_200_000, 1)
    before = balances()
    svc.events.sign(attendant, j.id, OnceKey(attendant.id, "hp-j", fingerprint("sign", j.id)))
    cage, hold, coin_out = balances()
    # paid in cash from the cage as the machine's game win (its coin-out: the day's hold stays coin-in − coin-out)
    assert (before[0] - cage, before[1] - hold, coin_out - before[2]) == (1_200_000, 1_200_000, 1_200_000)
    assert floor.handpays_paid("M007") == [jackpot.key]
    floor.handpay_reset(HandpayReset("M007", jackpot.key, 1_200_000, "jackpot", True))
    assert floor.handpays_paid("M007") == []
    # the machine meters the paid win on its jackpot meter, not its paytable win: its meters agree with the floor's
    with svc.uow(readonly=True) as uow:
        m = uow.machines.get("M007")
        after_reset = {"coin_in": m.coin_in, "paytable_win": m.coin_out - 1_200_000, "jackpot": 1_200_000,
                       "games_played": m.games_played, "credits": 50_000}
    assert floor.reconcile_meters(MeterReport("M007", "M007:meters:0:r", "reconcile", after_reset)) == []

    floor.handpay_pending(HandpayPending("M007", "M007:handpay:1200000:0:50000", 50_000, "cancelled_credits", 0x80))
    (h,) = queued()
    assert (h.source, h.amount) == ("cancelled_credit", 50_000)
    assert floor.handpays_paid("M007") == []
    svc.events.sign(attendant, h.id, OnceKey(attendant.id, "hp", fingerprint("sign", h.id)))
    assert floor.handpays_paid("M007") == ["M007:handpay:1200000:0:50000"]
    floor.handpay_reset(HandpayReset("M007", "M007:handpay:1200000:0:50000", 50_000, "cancelled_credits", True))
    assert floor.handpays_paid("M007") == []
    with svc.uow(readonly=True) as uow:
        m = uow.machines.get("M007")
        assert uow.machines.credits("M007").total == 0 and m.handpay_out == 50_000
        kinds = [e.kind for e in uow.machine_events.for_machine(m.id, limit=20)]
    # the jackpot's and the credits' (the generic 0x51 event is left to the handpay calls)
    assert kinds.count("handpay_pending") == 2 and kinds.count("handpay_reset") == 2
    assert svc.audit.report()["balanced"]


def test_a_mystery_award_on_a_sas_machine_is_a_legacy_bonus_settled_once_by_its_bonus_meter(sas):
    """SQLite folds in the spin: the machine-reported game that crosses the trigger leaves the award at_machine;
    the port hands it out as a legacy bonus, keeps the bonus meter from before its first send (a restarted host
    gets it back) and credits it once when the machine's bonus meter shows it."""
    from jackpot_controller.domain.levels import LevelParams
    from jackpot_controller.services.levels import create_level
    from slotsys.kernel import accounts
    from slotsys.sas.services.floor_port import BonusResult, BonusSending, LegacyBonusAward

    svc, floor = sas
    prepare_sas_machines(svc, ["M001"])
    assert floor.enrol(identity("M001"), meters("M001")).accepted
    with svc.uow() as uow:
        create_level(uow, code="SASM", name="SAS mystery", rng=svc.ctx.rng,
                     params=LevelParams("mystery", reset=10_000, ceiling=10_300, rate_ppm=100_000, scope="machine",
                                        machine="M001"))
        uow.commit()
    floor.bill_in(BillIn("M001", "M001:bills:500", 50_000, -1, 0))

    def bonuses():
        return [i for i in floor.instructions("M001") if isinstance(i, LegacyBonusAward)]

    coin_in = 0
    for n in range(1, 60):
        if bonuses():
            break
        coin_in += 1_000
        floor.record_game(GamePlayed("M001", f"M001:game:{n}", n, 1, 1_000, 0, 0,
                                     {"coin_in": coin_in, "paytable_win": 0, "games_played": n, "games_won": 0}))
    assert floor.refused == []
    (bonus,) = bonuses()
    assert bonus.instruction_id.startswith("jackpot-hit-") and bonus.meter_before_won is None
    assert bonus.amount_won % 100 == 0 and 10_000 <= bonus.amount_won <= 10_300
    operator = Principal("staff", "operator", "operator")
    svc.floor_admin.disable(operator, "M001", "door investigation")
    assert bonuses() == []  # a machine the floor disables is paid nothing meanwhile
    svc.floor_admin.enable(operator, "M001", "cleared")
    assert bonuses() == [bonus]

    def credits() -> int:
        with svc.uow(readonly=True) as uow:
            return uow.machines.credits("M001").total

    held = credits()  # the award is not on the floor's credits while it waits at the machine
    assert floor.bonus_sending(BonusSending("M001", bonus.instruction_id, 7_000)) == 7_000
    assert floor.bonus_sending(BonusSending("M001", bonus.instruction_id, 9_900)) == 7_000  # the first one kept
    assert bonuses()[0].meter_before_won == 7_000  # what a restarted host is given
    assert floor.bonus_sending(BonusSending("M001", "bonus-elsewhere", 0)) is None
    paid = BonusResult("M001", bonus.instruction_id, "paid", bonus.amount_won)
    floor.bonus_result(paid)
    floor.bonus_result(paid)  # repeated after a lost answer
    assert credits() == held + bonus.amount_won and bonuses() == []
    with svc.uow(readonly=True) as uow:
        assert uow.ledger.balance(accounts.jackpot_payable("SASM")) == 0
    assert floor.bonus_sending(BonusSending("M001", bonus.instruction_id, 0)) is None  # settled: never sent again
    assert svc.audit.report()["balanced"]


def test_an_aft_transfer_is_handed_to_the_host_one_at_a_time_and_settled_once(sas):
    svc, floor = sas
    prepare_sas_machines(svc, ["M001"])
    aft0 = {"aft_in": 0, "aft_in_count": 0, "aft_out": 0, "aft_out_count": 0}
    assert floor.enrol(identity("M001"), MeterReport("M001", "M001:meters:0:enrolment", "enrolment",
                                                     {"coin_in": 0, "games_played": 0, "credits": 0, **aft0})).accepted
    host, cashier, machine = (Principal("staff", "host", "host"), Principal("staff", "cashier", "cashier"),
                              Principal("machine", "M001"))
    p = svc.players.enrol(host, "Lee Seo-yeon", "2468", OnceKey(host.id, "aft-enrol", fingerprint("e"))).result
    svc.players.deposit(cashier, p.player, 50_000, OnceKey(cashier.id, "aft-dep", fingerprint("d")))
    svc.sessions.card_in(machine, "M001", p.card_number, OnceKey(machine.id, "aft-in", fingerprint("c")))

    def ask(direction: str, amount: int, k: str):
        return svc.aft.request(machine, "M001", p.card_number, "2468", amount, direction,
                               OnceKey(machine.id, k, fingerprint("POST", direction, amount))).result

    def wallet() -> int:
        with svc.uow(readonly=True) as uow:
            return uow.ledger.balance(accounts.player_cashable(p.player))

    def credits() -> int:
        with svc.uow(readonly=True) as uow:
            return uow.machines.credits("M001").cashable

    t = ask("to_machine", 30_000, "t1")
    assert (t.state, wallet(), credits()) == ("pending", 20_000, 0)
    (ins,) = [i for i in floor.instructions("M001") if isinstance(i, AftTransferRequest)]
    assert (ins.transaction_id, ins.direction, ins.amount_won) == (t.transaction_id, "to_machine", 30_000)
    assert not ins.resend  # sent: handed again, flagged for the host to interrogate the machine first
    assert [i for i in floor.instructions("M001") if isinstance(i, AftTransferRequest)] == [
        dataclasses.replace(ins, resend=True)]
    done = AftResult("M001", ins.instruction_id, ins.transaction_id, 0x00, 30_000)
    floor.aft_result(done)
    floor.aft_result(done)  # the host's repeat
    assert (wallet(), credits(), svc.aft.get(machine, "M001", t.transfer).state) == (20_000, 30_000, "completed")
    assert [i for i in floor.instructions("M001") if isinstance(i, AftTransferRequest)] == []
    # the machine's AFT meters against the floor's
    assert floor.reconcile_meters(MeterReport("M001", "M001:meters:0:reconcile", "reconcile",
                                              {**aft0, "aft_in": 30_000, "aft_in_count": 1, "credits": 30_000})) == []
    (bad,) = floor.reconcile_meters(MeterReport("M001", "M001:meters:0:reconcile", "reconcile",
                                                {**aft0, "aft_in": 40_000, "aft_in_count": 1, "credits": 30_000}))
    assert (bad.meter, bad.floor, bad.machine) == ("aft_in", 30_000, 40_000)

    # a refused AFT in returns the hold; an AFT out moves what the machine moved
    t = ask("to_machine", 10_000, "t2")
    (ins,) = [i for i in floor.instructions("M001") if isinstance(i, AftTransferRequest)]
    floor.aft_result(AftResult("M001", ins.instruction_id, ins.transaction_id, 0x87, 0))
    assert (wallet(), credits(), svc.aft.get(machine, "M001", t.transfer).state) == (20_000, 30_000, "failed")
    t = ask("to_wallet", 30_000, "t3")
    (ins,) = [i for i in floor.instructions("M001") if isinstance(i, AftTransferRequest)]
    assert ins.direction == "to_host"
    floor.aft_result(AftResult("M001", ins.instruction_id, ins.transaction_id, 0x00, 30_000))
    assert (wallet(), credits(), svc.aft.get(machine, "M001", t.transfer).moved) == (50_000, 0, 30_000)
    assert svc.aft.meters("M001") == {"aft_in": 30_000, "aft_in_count": 1, "aft_out": 30_000, "aft_out_count": 1}
    # an AFT out of credits the floor does not hold yet (a note still on its way): it waits, once, and is not
    # handed to the host again meanwhile; the note comes, the transfer settles
    floor.bill_in(BillIn("M001", "M001:bills:a1", 10_000, -1, 0))
    t = ask("to_wallet", 10_000, "t4")
    (ins,) = [i for i in floor.instructions("M001") if isinstance(i, AftTransferRequest)]
    # the machine moved ₩20,000: its credits include a win the floor has not heard of yet
    out = AftResult("M001", ins.instruction_id, ins.transaction_id, 0x00, 20_000)
    floor.aft_result(out)
    floor.aft_result(out)
    assert floor.waiting("M001") == 1 and svc.aft.get(machine, "M001", t.transfer).state == "sent"
    assert [i for i in floor.instructions("M001") if isinstance(i, AftTransferRequest)] == []
    floor.bill_in(BillIn("M001", "M001:bills:a2", 10_000, -1, 0))
    assert floor.waiting("M001") == 0 and svc.aft.get(machine, "M001", t.transfer).moved == 20_000
    assert (wallet(), credits()) == (70_000, 0)
    assert floor.refused == [] and svc.audit.report()["balanced"]
