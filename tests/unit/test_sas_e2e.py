"""End to end: one SAS host, two channels (three machines on a real pseudo-terminal daisy chain, one over
TCP), lost responses and corrupted CRCs injected, games, bills, a ticket printed on one machine and inserted
in another (and inserted again: refused), a legacy bonus (and one above the guard: refused), an AFT in and out
(and one above the wallet: refused). At the end every won is accounted once in the InMemoryFloor and its
meters equal the machines' own."""

from __future__ import annotations

import threading
import time

import pytest

from slotsys.floor.games import GAMES_DIR, load_game
from slotsys.sas.adapters.links import FdLink, SocketLink, open_pty_pair, tcp_connect, tcp_listen
from slotsys.sas.domain.clock import SystemClock
from slotsys.sas.domain.codes import METER
from slotsys.sas.domain.egm import EgmConfig, EgmModel
from slotsys.sas.domain.link import LinkTimings
from slotsys.sas.emulator import EgmServer, Faults, SasEgm
from slotsys.sas.services.host import MachineSpec, SasChannel, SasHost
from slotsys.sas.services.memory_floor import InMemoryFloor, InsufficientFunds
from tests import helpers

PROGRAM = (GAMES_DIR / "dragon_pearl_50.yaml").read_bytes()
TIMINGS = LinkTimings(response_timeout_s=0.1, inter_byte_timeout_s=0.05, cycle_s=0.05)


def egm_meters_won(model: EgmModel) -> dict[str, int]:
    d, g = model.denom, model.meters
    return {
        "coin_in": g[METER.COIN_IN] * d, "coin_out": g[METER.COIN_OUT] * d, "games_played": g[METER.GAMES_PLAYED],
        "bills": g[METER.BILLS] * d, "credits": model.credits * d, "ticket_in": g[METER.TICKET_IN_CENTS],
        "ticket_out": g[METER.TICKET_OUT_CENTS], "aft_in": g[METER.AFT_IN_CENTS], "aft_out": g[METER.AFT_OUT_CENTS],
        "external_bonus": g[METER.MACHINE_PAID_EXTERNAL_BONUS] * d,
        "paytable_win": g[METER.MACHINE_PAID_PAYTABLE_WIN] * d, "jackpot": g[METER.JACKPOT] * d,
    }


def wait(cond, timeout=20.0, what=""):
    helpers.wait(cond, timeout, what)


@pytest.fixture
def floor_setup():
    clock = SystemClock()
    floor = InMemoryFloor()
    game = load_game("dragon_pearl_50")
    egms = {}
    for addr in (1, 2, 3, 4):
        asset = f"A{addr}"
        floor.add_machine(asset, 100, PROGRAM, max_bonus_won=20_000)
        cfg = EgmConfig(address=addr, asset_number=1000 + addr, serial=f"SN{addr}", game=game, denomination=100,
                        program=PROGRAM, seed=addr, jackpot_limit_credits=10_000_000, rom_delay_s=0.02)
        faults = Faults(drop=0.1 if addr == 2 else 0.0, corrupt=0.1 if addr == 3 else 0.0, seed=addr)
        egms[addr] = SasEgm(EgmModel(cfg, clock), faults)
    floor.open_wallet("P1", 100_000)
    # channel A: a pty daisy chain with machines 1-3
    master, slave, _ = open_pty_pair()
    server_a = EgmServer(FdLink(slave), [egms[1], egms[2], egms[3]]).start()
    # channel B: TCP with machine 4
    srv = tcp_listen("127.0.0.1", 0)
    port = srv.getsockname()[1]
    holder = {}
    t = threading.Thread(target=lambda: holder.update(conn=srv.accept()[0]))
    t.start()
    host_b_link = tcp_connect("127.0.0.1", port)
    t.join(5)
    server_b = EgmServer(SocketLink(holder["conn"]), [egms[4]]).start()
    ch_a = SasChannel("A", FdLink(master), [MachineSpec(a, f"A{a}", 1000 + a) for a in (1, 2, 3)], floor,
                      timings=TIMINGS, reconcile_every_s=0)
    ch_b = SasChannel("B", host_b_link, [MachineSpec(4, "A4", 1004)], floor, timings=TIMINGS, reconcile_every_s=0)
    host = SasHost([ch_a, ch_b])
    host.start()
    yield floor, egms, host
    host.stop()
    for s in (server_a, server_b):
        s.close()
    for link in (ch_a.link, ch_b.link, server_a.link, server_b.link):
        link.close()
    srv.close()


def idle(host):
    return all(ch.idle() for ch in host.channels)


def test_emulated_floor_end_to_end(floor_setup):
    floor, egms, host = floor_setup
    wait(lambda: all(s.signature == "ok" for ch in host.channels for s in ch.sessions), what="enrolment + signature")
    for e in egms.values():
        with e.model.lock:
            assert e.model.insert_bill(10_000) and e.model.insert_bill(5_000)
    for _ in range(15):
        for e in egms.values():
            with e.model.lock:
                e.model.play()
        time.sleep(0.02)
    wait(lambda: idle(host) and sum(ch.counters.games for ch in host.channels) >= 60, what="games")

    # a ticket printed on machine 1 (pty) and inserted in machine 4 (TCP)
    with egms[1].model.lock:
        assert egms[1].model.cash_out() == "ticket"
        ticket = egms[1].model.printed[-1]
    wait(lambda: ticket.validation_number in floor.tickets, what="ticket issued")
    with egms[4].model.lock:
        assert egms[4].model.insert_ticket(ticket.validation_number)
    wait(lambda: floor.tickets[ticket.validation_number].status == "redeemed", what="ticket redeemed")
    # inserted again in machine 2: refused, nothing paid
    credits_before = egms[2].model.credits
    with egms[2].model.lock:
        assert egms[2].model.insert_ticket(ticket.validation_number)
    wait(lambda: egms[2].model.escrow is None and egms[2].model.last_redemption is not None, what="second insert")
    assert egms[2].model.last_redemption.status == 0x80 and egms[2].model.credits == credits_before

    # a legacy bonus on machine 3 (corrupted CRCs there) and one above the award guard
    ok_id = floor.award_bonus("A3", 5_000)
    too_big = floor.award_bonus("A3", 50_000)
    wait(lambda: floor.bonuses[ok_id]["status"] == "paid" and floor.bonuses[too_big]["status"] == "refused",
         what="bonuses")

    # AFT to machine 2 (lost responses there), one above the wallet, then back to the host
    in_id = floor.request_aft("A2", "P1", "to_machine", 20_000)
    with pytest.raises(InsufficientFunds):
        floor.request_aft("A2", "P1", "to_machine", 500_000)
    wait(lambda: floor.afts[in_id]["status"] == "done", what="AFT in")
    out_id = floor.request_aft("A2", "P1", "to_host", 10_000)
    wait(lambda: floor.afts[out_id]["status"] == "done", what="AFT out")
    assert floor.wallets["P1"] == 100_000 - 20_000 + 10_000

    # a power cycle on machine 1: 0x18 / 0x17, re-enrolment, still reconciled
    egms[1].power_cycle(0.3)
    time.sleep(0.6)
    wait(lambda: idle(host), what="after power cycle")
    host.reconcile_all("final")
    time.sleep(0.2)
    wait(lambda: idle(host), what="reconciliation")

    assert floor.mismatches == [], "\n".join(map(str, floor.mismatches))
    for addr, e in egms.items():
        acc = floor.machines[f"A{addr}"].accounted
        mine = egm_meters_won(e.model)
        assert {k: acc.get(k, 0) for k in mine} == mine, f"machine {addr}"
    assert sum(g.games for g in floor.games) == sum(e.model.meters[METER.GAMES_PLAYED] for e in egms.values())
    assert len({g.key for g in floor.games}) == len(floor.games)
    assert floor.bonuses[ok_id]["status"] == "paid" and egms[3].model.bonus_meters[0] == 50
    kinds = {ev.kind for ev in floor.events}
    assert {"power_off", "power_on"} <= kinds
    totals = host.counters()
    assert totals["A"]["retries"] > 0 and totals["A"]["crc_errors"] + totals["A"]["timeouts"] > 0
    assert egms[2].faults.dropped > 0 and egms[3].faults.corrupted > 0
