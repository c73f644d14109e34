"""A legacy bonus (long poll 8A) is paid exactly once on one pty machine and the InMemoryFloor: with the 8A
ACK lost (the 9A meters confirm it), and across a host restart after the machine paid it but before the floor
heard (the new host finds it on the bonus meter the floor kept from before the first send, and sends nothing);
a bonus meter below the one kept (a RAM clear) is never sent to: refused."""

from __future__ import annotations

import dataclasses
import time

from slotsys.floor.games import GAMES_DIR, load_game
from slotsys.sas.adapters.links import FdLink, open_pty_pair
from slotsys.sas.domain.clock import SystemClock
from slotsys.sas.domain.egm import EgmConfig, EgmModel
from slotsys.sas.domain.link import LinkTimings
from slotsys.sas.emulator import EgmServer, SasEgm
from slotsys.sas.services.host import MachineSpec, SasChannel, SasHost
from slotsys.sas.services.memory_floor import InMemoryFloor
from tests import helpers

PROGRAM = (GAMES_DIR / "dragon_pearl_50.yaml").read_bytes()
TIMINGS = LinkTimings(response_timeout_s=0.1, inter_byte_timeout_s=0.05, cycle_s=0.05)


def wait(cond, timeout=15.0, what=""):
    helpers.wait(cond, timeout, what)


def spy_8a(egm: SasEgm, lose_first_ack: bool) -> tuple[list[int], list[int]]:
    """The 8A polls the machine answers (a link retry of a lost answer included) and the bonuses it paid (credits
    each); the first 8A's ACK lost when ``lose_first_ack``."""
    polls: list[int] = []
    paid: list[int] = []
    handle = egm.iface.handle

    def spy(msg):
        before = sum(egm.model.bonus_meters)
        resp = handle(msg)
        if msg.command == 0x8A and msg.crc_valid:
            polls.append(len(polls))
            if sum(egm.model.bonus_meters) > before:
                paid.append(sum(egm.model.bonus_meters) - before)
            if lose_first_ack and len(polls) == 1:
                egm.faults.drop_next = 1  # this very response: applied after handle
        return resp

    egm.iface.handle = spy  # type: ignore[method-assign]
    return polls, paid


def start(floor, link) -> tuple[SasHost, SasChannel]:
    ch = SasChannel("A", link, [MachineSpec(1, "A1", 1001)], floor, timings=TIMINGS, reconcile_every_s=0)
    host = SasHost([ch])
    host.start()
    wait(lambda: ch.sessions[0].signature == "ok" and ch.idle(), what="enrolment")
    return host, ch


def test_a_lost_ack_and_a_host_restart_pay_the_bonus_once():
    floor = InMemoryFloor()
    floor.add_machine("A1", 100, PROGRAM, max_bonus_won=100_000)
    cfg = EgmConfig(1, 1001, "SN1", load_game("dragon_pearl_50"), 100, PROGRAM, rom_delay_s=0.01)
    egm = SasEgm(EgmModel(cfg, SystemClock()))
    polls, paid = spy_8a(egm, lose_first_ack=True)
    master, slave, _ = open_pty_pair()
    server = EgmServer(FdLink(slave), [egm]).start()
    link = FdLink(master)
    try:
        host, ch = start(floor, link)
        # 1. the ACK of the 8A is lost: the 9A meters show it paid, no second 8A
        first = floor.award_bonus("A1", 5_000)
        wait(lambda: floor.bonuses[first]["status"] == "paid" and ch.idle(), what="first bonus")
        assert paid == [50] and len(polls) >= 2  # the lost ACK: the link repeated the poll, the machine paid once
        assert egm.model.bonus_meters[0] == 50 and egm.model.credits == 50
        assert floor.bonuses[first]["meter_before"] == 0 and egm.faults.dropped == 1

        # 2. the machine pays the second bonus, the floor never hears (its port is down), the host stops
        down = []
        result = floor.bonus_result

        def unreachable(r):
            down.append(r)
            raise ConnectionError("the floor is down")

        floor.bonus_result = unreachable  # type: ignore[method-assign]
        second = floor.award_bonus("A1", 3_000)
        wait(lambda: down, what="the second bonus paid on the machine")
        host.stop()
        assert egm.model.bonus_meters[0] == 80 and paid == [50, 30]
        polled = len(polls)
        assert floor.bonuses[second]["status"] == "pending" and floor.bonuses[second]["meter_before"] == 5_000

        # 3. a new host: the award is on the bonus meter the floor kept, so it is confirmed and never sent again
        floor.bonus_result = result  # type: ignore[method-assign]
        host, ch = start(floor, link)
        wait(lambda: floor.bonuses[second]["status"] == "paid" and ch.idle(), what="second bonus confirmed")
        assert len(polls) == polled and paid == [50, 30]  # not one 8A from the new host
        assert egm.model.bonus_meters[0] == 80 and egm.model.credits == 80
        assert floor.machines["A1"].accounted["legacy_bonus"] == 8_000

        # 4. an award whose kept meter is above the machine's (its bonus meters were cleared): refused, not sent
        third = floor.award_bonus("A1", 2_000)
        with floor._lock:
            floor.outbox["A1"][third] = dataclasses.replace(floor.outbox["A1"][third], meter_before_won=900_000)
        wait(lambda: floor.bonuses[third]["status"] == "refused" and ch.idle(), what="the third bonus refused")
        assert len(polls) == polled and paid == [50, 30] and "below" in floor.bonuses[third]["reason"]
        host.stop()
    finally:
        server.close()
        link.close()
        server.link.close()


def test_a_machine_that_pays_the_bonus_later_is_sent_it_once():
    """A machine that ACKs the 8A and pays it only later (it holds a bonus until its game ends, §13.3): while its
    bonus meters still show nothing the host reads them again, never sends the 8A again, and the floor hears
    ``paid`` once the meters show it."""
    floor = InMemoryFloor()
    floor.add_machine("A1", 100, PROGRAM, max_bonus_won=100_000)
    cfg = EgmConfig(1, 1001, "SN1", load_game("dragon_pearl_50"), 100, PROGRAM, rom_delay_s=0.01, bonus_delay_s=1.5)
    egm = SasEgm(EgmModel(cfg, SystemClock()))
    polls, paid = spy_8a(egm, lose_first_ack=False)
    master, slave, _ = open_pty_pair()
    server = EgmServer(FdLink(slave), [egm]).start()
    link = FdLink(master)
    try:
        host, ch = start(floor, link)
        award = floor.award_bonus("A1", 4_000)
        wait(lambda: polls, what="the 8A")
        time.sleep(1.0)  # the machine still holds it: the host reads its meters meanwhile
        assert floor.bonuses[award]["status"] == "pending" and egm.model.bonus_meters[0] == 0
        wait(lambda: floor.bonuses[award]["status"] == "paid" and ch.idle(), what="the late bonus confirmed")
        assert len(polls) == 1  # one 8A, however long the machine took
        assert egm.model.bonus_meters[0] == 40 and egm.model.credits == 40
        assert floor.machines["A1"].accounted["legacy_bonus"] == 4_000
        host.stop()
    finally:
        server.close()
        link.close()
        server.link.close()
