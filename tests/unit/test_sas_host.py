"""The SAS host on one pty machine: bad input is logged and counted, moves no money and the channel keeps
running (unknown exception code, a meter going backwards, garbage on the line, a wrong ROM signature); a
jackpot handpay goes through the floor's handpay queue and the remote reset (94), also when the host restarts
while it is pending (the new host reads 1B at enrolment)."""

from __future__ import annotations

import time

import pytest

from slotsys.floor.games import GAMES_DIR, load_game
from slotsys.sas.adapters.links import FdLink, open_pty_pair
from slotsys.sas.domain.clock import SystemClock
from slotsys.sas.domain.codes import METER
from slotsys.sas.domain.egm import EgmConfig, EgmModel
from slotsys.sas.domain.link import LinkTimings
from slotsys.sas.emulator import EgmServer, SasEgm
from slotsys.sas.services.floor_port import FloorPort
from slotsys.sas.services.host import MachineSpec, SasChannel, SasHost
from slotsys.sas.services.memory_floor import InMemoryFloor
from tests import helpers

PROGRAM = (GAMES_DIR / "dragon_pearl_50.yaml").read_bytes()
TIMINGS = LinkTimings(response_timeout_s=0.1, inter_byte_timeout_s=0.05, cycle_s=0.05)


def wait(cond, timeout=15.0, what=""):
    helpers.wait(cond, timeout, what)


@pytest.fixture
def one(request):
    program = getattr(request, "param", PROGRAM)
    floor = InMemoryFloor()
    floor.add_machine("A1", 100, PROGRAM)
    cfg = EgmConfig(1, 1001, "SN1", load_game("dragon_pearl_50"), 100, program, jackpot_limit_credits=1,
                    rom_delay_s=0.01)
    egm = SasEgm(EgmModel(cfg, SystemClock()))
    master, slave, _ = open_pty_pair()
    server = EgmServer(FdLink(slave), [egm]).start()
    ch = SasChannel("A", FdLink(master), [MachineSpec(1, "A1", 1001)], floor, timings=TIMINGS, reconcile_every_s=0)
    host = SasHost([ch])
    host.start()
    wait(lambda: ch.sessions[0].signature in ("ok", "mismatch"), what="enrolment")
    yield floor, egm, ch
    host.stop()
    server.close()
    ch.link.close()
    server.link.close()


def test_in_memory_floor_is_a_floor_port():
    assert isinstance(InMemoryFloor(), FloorPort)


def test_unknown_exception_and_meter_going_backwards_counted(one):
    floor, egm, ch = one
    with egm.model.lock:
        egm.model.queue.push(0x05, time.monotonic())  # not an exception code this host knows
    wait(lambda: ch.totals().unknown_exceptions == 1, what="unknown exception")
    with egm.model.lock:
        egm.model.insert_bill(10_000)
        egm.model.play()
    wait(lambda: ch.idle() and floor.games, what="first game")
    games = len(floor.games)
    with egm.model.lock:
        egm.model.meters[METER.COIN_IN] -= 1  # a meter going backwards
        egm.model.meters[METER.GAMES_PLAYED] += 1
        egm.model.queue.push(0x7F, time.monotonic())
    # (the counter moves just before the event reaches the port: wait for both)
    wait(lambda: ch.counters.meter_regressions >= 1 and any(e.kind == "meter_decreased" for e in floor.events),
         what="regression")
    assert len(floor.games) == games  # no game derived from it, no money moved
    ch.link.send(b"\x13\x37", wakeup=False)  # garbage on the line: the channel keeps polling
    polls = ch.totals().general_polls
    wait(lambda: ch.totals().general_polls > polls + 5, what="still polling")


def test_jackpot_handpay_paid_through_the_floor(one):
    floor, egm, ch = one
    with egm.model.lock:
        egm.model.insert_bill(50_000)
    while True:
        with egm.model.lock:
            if egm.model.handpays or egm.model.play() is None:
                break
    wait(lambda: floor.handpays, what="handpay pending")
    key, hp = next(iter(floor.handpays.items()))
    assert hp["kind"] == "jackpot" and hp["amount"] == egm.model.handpays[0].amount
    floor.pay_handpay(key)
    wait(lambda: floor.handpays[key]["status"] == "reset", what="remote reset")
    assert not egm.model.handpays
    assert floor.machines["A1"].accounted["jackpot"] == egm.model.meters[METER.JACKPOT] * 100


@pytest.mark.parametrize("one", [PROGRAM + b"#tampered"], indirect=True)
def test_signature_mismatch_disables_the_machine(one):
    floor, egm, ch = one
    assert ch.sessions[0].signature == "mismatch"
    wait(lambda: not egm.model.enabled, what="disabled")
    assert floor.signatures and not floor.signatures[-1].ok
    assert any(e.kind == "software_signature_mismatch" for e in floor.events)


def test_a_jackpot_handpay_pending_across_a_host_restart_is_reset_once_paid(one):
    floor, egm, ch = one
    with egm.model.lock:
        egm.model.insert_bill(50_000)
    while True:
        with egm.model.lock:
            if egm.model.handpays or egm.model.play() is None:
                break
    wait(lambda: floor.handpays and ch.idle(), what="handpay pending")
    (key,) = floor.handpays
    ch.stop.set()  # the host goes away (its thread ends at the next slot)
    time.sleep(0.3)
    floor.pay_handpay(key)  # paid while no host runs
    ch2 = SasChannel("A2", ch.link, [MachineSpec(1, "A1", 1001)], floor, timings=TIMINGS, reconcile_every_s=0)
    host2 = SasHost([ch2])
    host2.start()
    try:
        wait(lambda: floor.handpays[key]["status"] == "reset" and not egm.model.handpays, what="reset by the new host")
        assert list(floor.handpays) == [key]  # found again under the same key, not queued twice
        assert floor.machines["A1"].accounted["jackpot"] == egm.model.meters[METER.JACKPOT] * 100
    finally:
        host2.stop()


def test_a_tcp_link_whose_other_end_closed_is_a_silent_wire_not_a_dead_channel():
    """The emulator (or a terminal server) closing its end: sending raises nothing (counted in ``send_errors``) and
    receiving hears nothing, so the host's channel marks the machine silent and keeps polling the others; before,
    the broken pipe ended the channel's thread."""
    import socket

    from slotsys.sas.adapters.links import SocketLink

    with socket.create_server(("127.0.0.1", 0)) as server:
        a = socket.create_connection(server.getsockname())
        b, _ = server.accept()
    link = SocketLink(a)
    b.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")  # close = reset
    b.close()
    for _ in range(3):  # the first send may still be buffered; the later ones meet EPIPE
        link.send(b"\x01\x80", wakeup=True)
        assert link.receive(0.01) == []
    assert link.send_errors >= 1
    link.close()
