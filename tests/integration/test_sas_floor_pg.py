"""End to end on the real PostgreSQL: a SAS host over :class:`ServicesFloor` (the floor's real services) polls
three emulated SAS machines on one pseudo-terminal daisy chain, with lost responses (machine 2) and corrupted
CRCs (machine 3) injected. The machines take notes, play, print a ticket that machine 3 redeems (and machine 2
is refused: already redeemed; an unknown number: not on file); machine 2 hands a cancelled-credit handpay and
machine 3 a jackpot handpay (a win at its jackpot limit) to the attendant's queue, reset by long poll 94 once
paid; a mystery level of machine 1 hits and is paid ON the machine as a legacy bonus (8A, its ACK lost), confirmed
by the bonus meter; its next hit is paid by the machine while the floor is unreachable and the host restarts (a
new host over a new ServicesFloor confirms it from the bonus meter kept on the hit and sends nothing). At the end
every won is accounted once: the floor's meters equal each emulator's, no meter
mismatch was recorded, each note, game, ticket, handpay and award is one journal entry, the host's meters equal
the emulators' and the ledger audit balances."""

from __future__ import annotations

import dataclasses
import time

import pytest
from sqlalchemy import func, select

from jackpot_controller.adapters.tables import JackpotWager
from jackpot_controller.domain.levels import LevelParams
from jackpot_controller.services.levels import create_level
from slotsys.app.emulator_sas import egm_meters
from slotsys.app.wiring.sas import build_sas_floor
from slotsys.floor.adapters.tables import GameRound
from slotsys.floor.games import GAMES_DIR, load_game
from slotsys.floor.services.admin import create_bank, create_zone, enrol_machine
from slotsys.kernel.adapters.db import JournalEntryRow
from slotsys.kernel.context import Principal
from slotsys.kernel.idempotency import OnceKey, fingerprint
from slotsys.sas.adapters.floor_services import floor_meters
from slotsys.sas.adapters.links import FdLink, open_pty_pair
from slotsys.sas.domain.clock import SystemClock
from slotsys.sas.domain.codes import METER, RedeemCode, RedeemStatus
from slotsys.sas.domain.egm import EgmConfig, EgmModel
from slotsys.sas.domain.link import LinkTimings
from slotsys.sas.emulator import EgmServer, Faults, SasEgm
from slotsys.sas.services.host import MachineSpec, SasChannel, SasHost
from tito.domain.validation import sas_secure_enhanced_number
from tests import helpers

pytestmark = pytest.mark.integration

PROGRAM = (GAMES_DIR / "dragon_pearl_50.yaml").read_bytes()
TIMINGS = LinkTimings(response_timeout_s=0.1, inter_byte_timeout_s=0.05, cycle_s=0.05)
ASSETS = {1: "S001", 2: "S002", 3: "S003"}
GAMES = 12


def wait(cond, timeout=25.0, what=""):
    helpers.wait(cond, timeout, what)


@pytest.fixture
def machine_keys() -> dict[str, str]:
    """The SAS machines' REST keys (``mk_…``) by asset, filled by :func:`sas_floor` (for the player-tracking side
    of a SAS machine: card-in, AFT requests)."""
    return {}


@pytest.fixture
def sas_floor(pg_app, machine_keys):
    svc = pg_app.extensions["slotsys"]
    with svc.uow() as uow:  # a SAS bank of its own (its mystery level: a machine level of S001, made later)
        create_zone(uow, None, "SAS", "SAS zone")
        create_bank(uow, None, "S1", "Bank S1", "SAS", "N")
        for x, asset in enumerate(ASSETS.values()):
            spec = {"asset_number": asset, "bank": "S1", "game": "dragon_pearl_50", "denomination": 100,
                    "validation_scheme": "sas", "outcome_source": "machine", "x": x, "y": 20,
                    "reason": "SAS test floor"}
            _, machine_keys[asset] = enrol_machine(uow, svc.ctx, None, spec, tickets=svc.tito.desk)
        uow.commit()
    floor = build_sas_floor(svc)
    game = load_game("dragon_pearl_50")
    clock = SystemClock()
    egms = {}
    for addr in ASSETS:
        cfg = EgmConfig(address=addr, asset_number=2000 + addr, serial=f"SN{addr}", game=game, denomination=100,
                        program=PROGRAM, seed=addr, jackpot_limit_credits=10_000_000, rom_delay_s=0.02,
                        ticket_limit=20_000 if addr == 2 else 1_000_000)
        faults = Faults(drop=0.1 if addr == 2 else 0.0, corrupt=0.1 if addr == 3 else 0.0, seed=addr)
        egms[addr] = SasEgm(EgmModel(cfg, clock), faults)
    master, slave, _ = open_pty_pair()
    server = EgmServer(FdLink(slave), list(egms.values())).start()
    channel = SasChannel("pty", FdLink(master), [MachineSpec(a, asset, 2000 + a) for a, asset in ASSETS.items()],
                         floor, timings=TIMINGS, reconcile_every_s=0)
    host = SasHost([channel])
    host.start()
    yield svc, floor, egms, host, channel
    host.stop()
    server.close()
    channel.link.close()
    server.link.close()


def _count(uow, kind: str, asset: str) -> int:
    return uow.session.scalar(select(func.count()).select_from(JournalEntryRow).where(
        JournalEntryRow.kind == kind, JournalEntryRow.refs["machine"].as_string() == asset))


def test_sas_floor_on_the_real_services(sas_floor):
    svc, floor, egms, host, channel = sas_floor
    wait(lambda: all(s.signature == "ok" for s in channel.sessions), what="enrolment + ROM signature")

    notes = {1: (10_000, 5_000), 2: (50_000,), 3: (10_000, 1_000)}
    for addr, e in egms.items():
        with e.model.lock:
            for won in notes[addr]:
                assert e.model.insert_bill(won)
    for _ in range(GAMES):
        for e in egms.values():
            with e.model.lock:
                assert e.model.play() is not None
        time.sleep(0.03)
    wait(lambda: channel.idle() and channel.counters.games >= GAMES * len(egms), what="games")

    decisions = []  # the floor's answers to the host (recorded on their way back, not replaced)
    authorize = floor.authorize_ticket
    floor.authorize_ticket = lambda request: decisions.append(authorize(request)) or decisions[-1]

    # a ticket printed on machine 1 and redeemed in machine 3
    with egms[1].model.lock:
        assert egms[1].model.cash_out() == "ticket"
        ticket = egms[1].model.printed[-1]

    def on_file(status: str) -> bool:
        with svc.uow(readonly=True) as uow:
            t = uow.tickets.get(ticket.validation_number)
            return t is not None and t.status == status
    wait(lambda: on_file("issued") and channel.idle(), what="ticket on file")
    with egms[3].model.lock:
        assert egms[3].model.insert_ticket(ticket.validation_number)
    wait(lambda: on_file("redeemed") and egms[3].model.escrow is None and channel.idle(), what="ticket redeemed")
    assert egms[3].model.last_redemption.status == RedeemStatus.CASHABLE_REDEEMED
    assert [(d.code, d.amount_won) for d in decisions] == [(RedeemCode.VALID_CASHABLE, ticket.amount)]

    # the same ticket in machine 2: already redeemed; a number never issued: not on file; nothing paid
    for number, code in ((ticket.validation_number, RedeemCode.ALREADY_REDEEMED),
                         (sas_secure_enhanced_number(0x0ABCDE, 7), RedeemCode.NOT_ON_FILE)):
        credits = egms[2].model.credits
        with egms[2].model.lock:
            assert egms[2].model.insert_ticket(number)
        wait(lambda number=number: egms[2].model.escrow is None and egms[2].model.last_redemption is not None
             and egms[2].model.last_redemption.validation_number == number, what=f"refusal 0x{code:02X}")
        assert egms[2].model.last_redemption.status >= 0x80 and egms[2].model.credits == credits
        assert decisions[-1].code == code, decisions[-1]  # the floor's reason, as the long poll 71 code
    # machine 2 cashes out above its ticket limit: a cancelled-credit handpay in the attendant's queue; the
    # attendant pays it (a handpay receipt for the credits on the floor), the host resets the machine (94)
    wait(lambda: channel.idle(), what="idle before the handpay")
    with egms[2].model.lock:
        hand = egms[2].model.credits_won
        assert egms[2].model.cash_out() == "handpay"
    attendant = Principal("staff", "attendant", "attendant")

    def queued():
        q = svc.events.handpays(attendant, state="pending", before_id=None, limit=20).handpays
        return [h for h in q if h.machine == "S002"]
    wait(lambda: queued(), what="handpay queued")
    (h,) = queued()
    assert (h.source, h.amount) == ("cancelled_credit", hand)
    svc.events.sign(attendant, h.id, OnceKey(attendant.id, "sas-test-handpay", fingerprint("sign", h.id)))
    wait(lambda: not egms[2].model.handpays and channel.idle() and not channel.by_asset["S002"].handpays_open,
         what="handpay reset")
    assert egms[2].model.credits == 0 and egms[2].model.meters[METER.HANDPAID_CANCELLED] * 100 == hand

    # machine 1 goes silent (offline: comms_lost) and plays meanwhile; back online, the games are accounted
    # from its meters at re-enrolment under the same keys
    with egms[1].model.lock:
        assert egms[1].model.insert_bill(10_000)
    notes[1] += (10_000,)
    wait(lambda: channel.idle(), what="idle before silence")
    egms[1].faults.silent_until = float("inf")
    wait(lambda: channel.by_asset["S001"].link.state.value == "offline", what="machine 1 offline")
    for _ in range(4):
        with egms[1].model.lock:
            assert egms[1].model.play() is not None
    egms[1].faults.silent_until = 0.0
    wait(lambda: channel.by_asset["S001"].enrolled and channel.idle(), what="machine 1 back")
    # and a power cycle of machine 3 (0x18 / 0x17, enrolment again)
    egms[3].power_cycle(0.3)
    time.sleep(0.6)
    wait(lambda: channel.by_asset["S003"].enrolled and channel.idle(), what="machine 3 after power cycle")

    attendant = Principal("staff", "attendant", "attendant")
    # machine 3 wins at its jackpot limit: a jackpot handpay; the win joins the attendant's queue, the attendant
    # pays it from the cage, the host resets the machine (94) and the machine meters it as jackpot (0x02)
    wait(lambda: channel.idle(), what="idle before the jackpot")
    m3 = egms[3].model
    with m3.lock:
        assert m3.insert_bill(10_000)
        notes[3] += (10_000,)
        m3.cfg = dataclasses.replace(m3.cfg, jackpot_limit_credits=1)  # any win locks up in a handpay
        while not m3.handpays and m3.play() is not None:
            pass
        (won,) = [hp.amount for hp in m3.handpays]
        m3.cfg = dataclasses.replace(m3.cfg, jackpot_limit_credits=10_000_000)

    def jackpot_queued():
        q = svc.events.handpays(attendant, state="pending", before_id=None, limit=20).handpays
        return [h for h in q if h.machine == "S003"]
    wait(lambda: jackpot_queued(), what="jackpot handpay queued")
    (jh,) = jackpot_queued()
    assert (jh.source, jh.amount) == ("machine_jackpot", won)
    svc.events.sign(attendant, jh.id, OnceKey(attendant.id, "sas-test-jackpot", fingerprint("sign", jh.id)))
    wait(lambda: not m3.handpays and channel.idle() and not channel.by_asset["S003"].handpays_open,
         what="jackpot handpay reset")
    assert m3.meters[METER.JACKPOT] * 100 == won

    # a mystery level of machine 1 (must hit by ₩10,300, 10% of each bet): its hit is paid on the machine as a
    # legacy bonus; the machine's first 8A ACK is lost (the 9A meters confirm it, nothing is sent twice)
    with svc.uow() as uow:
        create_level(uow, code="SAS1", name="SAS mystery", rng=svc.ctx.rng,
                     params=LevelParams("mystery", reset=10_000, ceiling=10_300, rate_ppm=100_000, scope="machine",
                                        machine="S001"))
        uow.commit()
    m1 = egms[1].model
    polls, paid = [], []
    handle = egms[1].iface.handle

    def spy(msg):
        before = sum(m1.bonus_meters)
        resp = handle(msg)
        if msg.command == 0x8A and msg.crc_valid:
            polls.append(msg)
            if sum(m1.bonus_meters) > before:
                paid.append((sum(m1.bonus_meters) - before) * 100)
            if len(polls) == 1:
                egms[1].faults.drop_next = 1  # this 8A's ACK never reaches the host
        return resp

    egms[1].iface.handle = spy
    egms[1].faults.drop = 0.0  # (machine 1 has no random faults: only this one)

    def sas1_hits():
        """(id, status, amount won) of the SAS1 level's hits, newest first."""
        with svc.uow(readonly=True) as uow:
            return [(h.id, h.status, h.amount_won) for h in uow.levels.recent_hits(uow.levels.get("SAS1").id)]

    with m1.lock:
        assert m1.insert_bill(50_000)
    notes[1] += (50_000,)
    for _ in range(200):
        if sas1_hits():
            break
        with m1.lock:
            assert m1.play() is not None
        time.sleep(0.05)
        wait(lambda: channel.idle(), what="machine 1's games")
    wait(lambda: sas1_hits(), what="the mystery hit")
    hit_id, _, decided = sas1_hits()[-1]
    # the award task's body (no Celery worker here): the award waits at the machine, nothing on its credits
    assert svc.jackpots.awards.process(hit_id) == "at_machine"
    wait(lambda: {h: st for h, st, _ in sas1_hits()}[hit_id] == "awarded" and channel.idle(), what="bonus paid")
    award = {h: won for h, _, won in sas1_hits()}[hit_id]  # whole credits of ₩100 (the rest to adjustments)
    assert award == decided - decided % 100
    assert paid == [award] and len(polls) >= 2  # paid once; the lost ACK's poll was repeated by the link
    assert sum(m1.bonus_meters) * 100 == award
    assert svc.jackpots.awards.process(hit_id) is None  # a duplicated award task pays nothing

    # more play, then a full reconciliation of every machine
    for _ in range(3):
        for e in egms.values():
            with e.model.lock:
                e.model.play()
        time.sleep(0.03)
    wait(lambda: channel.idle(), what="idle")
    host.reconcile_all("final")
    time.sleep(0.3)
    wait(lambda: channel.idle() and not any(s.jobs or s.pending_calls for s in channel.sessions),
         what="reconciliation")

    assert floor.refused == [], floor.refused
    with svc.uow(readonly=True) as uow:
        for addr, asset in ASSETS.items():
            m = uow.machines.get(asset)
            mine = egm_meters(egms[addr].model)
            handpaid = uow.floor_events.paid_total(m.id, "machine_jackpot")
            assert floor_meters(m, uow.machines.credits(asset).total, handpaid) == mine, asset
            for kind in ("meter_mismatch", "game_report_refused", "game_number_skipped"):
                assert uow.machine_events.for_machine(m.id, kind=kind, limit=5) == [], (asset, kind)
            # every game's bet joined the jackpot controller's wager queue (the floor-wide levels' contributions)
            wagered = uow.session.scalar(select(func.coalesce(func.sum(JackpotWager.bet_won), 0)).where(
                JackpotWager.asset == asset))
            assert wagered == mine["coin_in"], asset
            assert _count(uow, "machine.bill_in", asset) == len(notes[addr])  # each note once
            rounds = uow.session.scalar(select(func.count()).select_from(GameRound).where(GameRound.machine_id == m.id))
            assert rounds <= mine["games_played"] and m.game_seq == mine["games_played"]
            # the host's meters (its baseline after the last poll) are the machine's own
            base = channel.by_asset[asset].baseline
            g = egms[addr].model.meters
            for code in (METER.COIN_IN, METER.GAMES_PLAYED, METER.BILLS, METER.MACHINE_PAID_PAYTABLE_WIN):
                assert base[code] == g[code], (asset, hex(code))
        t = uow.tickets.get(ticket.validation_number)
        assert (t.status, t.redeemed_location, t.amount) == ("redeemed", "S003", ticket.amount)
        issued = uow.session.scalar(select(func.count()).select_from(JournalEntryRow).where(
            JournalEntryRow.kind == "tito.issue",
            JournalEntryRow.refs["validation_number"].as_string() == ticket.validation_number))
        redeemed = uow.session.scalar(select(func.count()).select_from(JournalEntryRow).where(
            JournalEntryRow.kind == "tito.redeem",
            JournalEntryRow.refs["validation_number"].as_string() == ticket.validation_number))
        assert (issued, redeemed) == (1, 1)
        # the jackpot handpay: one cash payment from the cage; the mystery award: one credit when the machine
        # confirmed it (and the fraction of a credit, if any, one entry to the level's adjustments)
        assert _count(uow, "machine.jackpot_handpay", "S003") == 1
        awards = uow.session.scalars(select(JournalEntryRow).where(
            JournalEntryRow.kind == "jackpot.award", JournalEntryRow.refs["hit"].as_integer() == hit_id)).all()
        assert len(awards) == 1 and awards[0].refs["paid_on"] == "on_machine"
        hit = uow.levels.hit(hit_id)
        assert (hit.status, hit.pay_method, hit.amount_won, hit.bonus_meter_before) == (
            "awarded", "on_machine", award, 0)
    audit = svc.audit.report()
    assert audit["balanced"], audit
    # the faults happened and were survived
    assert egms[2].faults.dropped > 0 and egms[3].faults.corrupted > 0
    totals = host.counters()["pty"]
    assert totals["retries"] > 0 and totals["crc_errors"] + totals["timeouts"] > 0
    assert totals["port_errors"] == 0
    with svc.uow(readonly=True) as uow:
        kinds = {e.kind for e in uow.machine_events.for_machine(uow.machines.get("S001").id, limit=200)}
        assert {"comms_lost", "comms_restored"} <= kinds, kinds
        kinds = {e.kind for e in uow.machine_events.for_machine(uow.machines.get("S003").id, limit=200)}
        assert {"power_off", "power_on"} <= kinds, kinds
        kinds = {e.kind for e in uow.machine_events.for_machine(uow.machines.get("S002").id, limit=200)}
        assert {"handpay_pending", "handpay_reset"} <= kinds, kinds

    # the host restarts while a bonus is on its way: the machine pays the next SAS1 hit, but the floor never hears
    # (its port is down); a new host over a new ServicesFloor finds the award on the machine's bonus meter (the
    # meter kept on the hit before the first 8A) and sends nothing: paid once
    down = []

    def unreachable(result):
        down.append(result)
        raise ConnectionError("the floor is down")

    floor.bonus_result = unreachable
    with m1.lock:
        assert m1.insert_bill(50_000)
    for _ in range(200):
        if len(sas1_hits()) > 1:
            break
        with m1.lock:
            assert m1.play() is not None
        time.sleep(0.05)
        wait(lambda: channel.idle(), what="machine 1's games")
    second, _, _ = sas1_hits()[0]
    assert second != hit_id and svc.jackpots.awards.process(second) == "at_machine"
    wait(lambda: down, what="the second bonus paid on the machine")
    host.stop()
    polled, paid_before = len(polls), list(paid)
    assert len(paid_before) == 2
    floor2 = build_sas_floor(svc)
    channel2 = SasChannel("pty", channel.link, [MachineSpec(a, asset, 2000 + a) for a, asset in ASSETS.items()],
                          floor2, timings=TIMINGS, reconcile_every_s=0)
    host2 = SasHost([channel2])
    host2.start()
    try:
        wait(lambda: {h: st for h, st, _ in sas1_hits()}[second] == "awarded" and channel2.idle()
             and all(s.enrolled for s in channel2.sessions), what="the second bonus confirmed by the new host")
        assert len(polls) == polled and paid == paid_before  # not one 8A from the new host
        award2 = {h: won for h, _, won in sas1_hits()}[second]
        assert paid_before[1] == award2 and sum(m1.bonus_meters) * 100 == award + award2
        host2.reconcile_all("after restart")
        time.sleep(0.3)
        wait(lambda: channel2.idle() and not any(s.jobs or s.pending_calls for s in channel2.sessions),
             what="reconciliation after the restart")
        assert floor2.refused == [], floor2.refused
        with svc.uow(readonly=True) as uow:
            m = uow.machines.get("S001")
            assert floor_meters(m, uow.machines.credits("S001").total) == egm_meters(m1)
            assert uow.machine_events.for_machine(m.id, kind="meter_mismatch", limit=5) == []
            assert uow.session.scalar(select(func.count()).select_from(JournalEntryRow).where(
                JournalEntryRow.kind == "jackpot.award", JournalEntryRow.refs["hit"].as_integer() == second)) == 1
        assert svc.audit.report()["balanced"]
    finally:
        host2.stop()
