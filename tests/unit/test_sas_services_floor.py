"""ServicesFloor (the SAS host's floor port over the floor's real services) on the SQLite demo floor: enrolment
accepted or refused with the reason, a game / notes / a ticket applied once per port key (a repeat changes
nothing), a refusal recorded without stopping the host, a disabled machine told to stop."""

from __future__ import annotations

import pytest

from slotsys.app.wiring.sas import build_sas_floor, prepare_sas_machines
from slotsys.kernel.context import Principal
from slotsys.sas.services.floor_port import (
    BillIn, GamePlayed, InstructionDone, MachineIdentity, MeterReport, TicketIssued,
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
