"""TITO's ticket-out of a machine that numbers its own tickets (a SAS machine) on in-memory fakes: the printed
number on file, paid from the credits once per key, the floor's SAS sequence following the machine's; refusals
(already on file, credits short, a mistyped number) move nothing."""

from __future__ import annotations

import pytest

from slotsys.kernel import accounts
from slotsys.kernel.errors import Conflict, InsufficientFunds, ValidationFailed
from slotsys.kernel.idempotency import OnceKey, fingerprint
from tests.fakes.kernel import FixedClock
from tests.fakes.tito import machine, tito_context
from tito.domain.errors import CheckDigitWrong
from tito.domain.machines import TicketNumbering
from tito.domain.validation import SystemValidation, sas_secure_enhanced_number
from tito.settings import TitoSettings

VID = 0x2A1B3C


def key(asset: str, name: str, number: str, amount: int) -> OnceKey:
    return OnceKey(machine(asset).id, name, fingerprint("POST", f"ticket-out/{asset}", [number, amount]))


@pytest.fixture
def floor():
    f = tito_context(settings=TitoSettings(ticket_limit_won=1_000_000), clock=FixedClock())
    f.machine("S001", numbering=TicketNumbering("sas", VID, 10, 1))
    f.machine("M001")
    return f


def test_a_printed_secure_enhanced_ticket_is_on_file_once_and_the_sequence_follows(floor):
    floor.credit("S001", 30_000)
    vn = sas_secure_enhanced_number(VID, 11)  # the machine moved one past the sequence the host set
    out = floor.services.machine_out.printed(machine("S001"), "S001", vn, 25_000, key("S001", "k1", vn, 25_000))
    assert not out.replayed and out.result.verified
    assert (out.result.ticket.validation_number, out.result.ticket.amount, out.result.credits) == (vn, 25_000, 5_000)
    again = floor.services.machine_out.printed(machine("S001"), "S001", vn, 25_000, key("S001", "k1", vn, 25_000))
    assert again.replayed and again.result == out.result
    assert floor.ledger.balance(accounts.TICKETS_OUTSTANDING) == 25_000
    assert floor.ledger.balance(accounts.machine_credits("S001")) == 5_000
    m = floor.machines.machines["S001"]
    assert m.view.numbering.sas_sequence == 12 and m.meters == {"tickets_out": 25_000, "tickets_out_count": 1}
    assert floor.tickets.get(vn).status == "issued"


def test_a_number_outside_the_expected_sequences_is_on_file_unverified(floor):
    floor.credit("S001", 10_000)
    vn = sas_secure_enhanced_number(VID, 500)
    out = floor.services.machine_out.printed(machine("S001"), "S001", vn, 10_000, key("S001", "k", vn, 10_000))
    assert not out.result.verified and floor.tickets.get(vn).sas_sequence is None
    assert floor.machines.machines["S001"].view.numbering.sas_sequence == 10  # not moved by a stray number


def test_a_system_number_from_the_host_is_on_file(floor):
    floor.credit("M001", 7_000)
    vn = SystemValidation().next_number()
    out = floor.services.machine_out.printed(machine("M001"), "M001", vn, 7_000, key("M001", "k", vn, 7_000))
    assert out.result.verified and out.result.ticket.scheme == "system" and out.result.credits == 0


def test_refusals_move_nothing(floor):
    floor.credit("S001", 5_000)
    vn = sas_secure_enhanced_number(VID, 11)
    with pytest.raises(InsufficientFunds):  # the floor's credits are less than the ticket
        floor.services.machine_out.printed(machine("S001"), "S001", vn, 6_000, key("S001", "a", vn, 6_000))
    floor.services.machine_out.printed(machine("S001"), "S001", vn, 2_000, key("S001", "b", vn, 2_000))
    with pytest.raises(Conflict):  # the same number under another key: already on file
        floor.services.machine_out.printed(machine("S001"), "S001", vn, 2_000, key("S001", "c", vn, 2_000))
    bad = vn[:-1] + str((int(vn[-1]) + 1) % 10)
    with pytest.raises((CheckDigitWrong, ValidationFailed)):
        floor.services.machine_out.printed(machine("S001"), "S001", bad, 1_000, key("S001", "d", bad, 1_000))
    with pytest.raises(ValidationFailed):
        floor.services.machine_out.printed(machine("S001"), "S001", sas_secure_enhanced_number(VID, 12), 0,
                                           key("S001", "e", "x", 0))
    assert floor.ledger.balance(accounts.TICKETS_OUTSTANDING) == 2_000
    assert floor.ledger.balance(accounts.machine_credits("S001")) == 3_000
