"""A SAS host that stops (a crash, a kill -9) while its machines play on: the next host has no baseline of its own,
takes from the floor the meters up to which it accounted each machine, and accounts the notes and games played
while no host ran; the floor's meters then equal the machine's. A machine whose meters are below what the floor
accounted (a RAM clear, another machine at the address) is refused at enrolment, with the event and its reason
(the floor's services on SQLite, the emulator on a pseudo-terminal)."""

from __future__ import annotations

import time

import pytest

from slotsys.app.emulator_sas import egm_meters
from slotsys.app.wiring.sas import build_sas_floor, prepare_sas_machines
from slotsys.floor.games import GAMES_DIR, load_game
from slotsys.kernel.settings import Settings
from slotsys.sas.adapters.floor_services import floor_meters
from slotsys.sas.adapters.links import FdLink, open_pty_pair
from slotsys.sas.domain.clock import SystemClock
from slotsys.sas.domain.egm import EgmConfig, EgmModel
from slotsys.sas.domain.link import LinkTimings
from slotsys.sas.emulator import EgmServer, SasEgm
from slotsys.sas.services.host import MachineSpec, SasChannel, SasHost
from tests import helpers

TIMINGS = LinkTimings(response_timeout_s=0.1, inter_byte_timeout_s=0.05, cycle_s=0.05)


def wait(cond, timeout=30.0, what=""):
    helpers.wait(cond, timeout, what)


@pytest.fixture
def svc(tmp_path):
    from tests.conftest import _make_app

    app = _make_app(Settings(database_url=f"sqlite:///{tmp_path / 'floor.db'}", redis_url=None, celery_eager=True,
                             credentials_file=tmp_path / "creds.json"))
    s = app.extensions["slotsys"]
    with s.uow(readonly=True) as uow:
        m = uow.machines.get("M001")
        game, denom = m.game_id, m.denomination
    prepare_sas_machines(s, ["M001"])
    yield s, game, denom
    s.jackpots.driver.stop()
    s.uow.engine.dispose()


def _egm(game: str, denom: int, seed: int) -> SasEgm:
    cfg = EgmConfig(1, 7001, "SN-R1", load_game(game), denom, (GAMES_DIR / f"{game}.yaml").read_bytes(), seed=seed,
                    rom_delay_s=0.01, jackpot_limit_credits=10_000_000)
    return SasEgm(EgmModel(cfg, SystemClock()))


def _host(svc, link):
    ch = SasChannel("R", link, [MachineSpec(1, "M001", 7001)], build_sas_floor(svc), timings=TIMINGS,
                    reconcile_every_s=0)
    host = SasHost([ch])
    host.start()
    return host, ch


def _play(egm, games):
    for _ in range(games):
        with egm.model.lock:
            assert egm.model.play() is not None


def _floor_view(svc):
    with svc.uow(readonly=True) as uow:
        m = uow.machines.get("M001")
        return floor_meters(m, uow.machines.credits("M001").total, uow.floor_events.paid_total(m.id, "machine_jackpot"))


def test_play_while_no_host_runs_is_accounted_by_the_next_host_and_a_ram_clear_is_refused(svc):
    svc, game, denom = svc
    egm = _egm(game, denom, seed=5)
    master, slave, _ = open_pty_pair()
    server = EgmServer(FdLink(slave), [egm]).start()
    host, ch = _host(svc, FdLink(master))
    wait(lambda: ch.sessions[0].enrolled and ch.sessions[0].signature == "ok", what="enrolment")
    with egm.model.lock:
        assert egm.model.insert_bill(50_000)
    _play(egm, 4)
    wait(lambda: ch.idle() and _floor_view(svc)["games_played"] == 4, what="the first host's games")
    host.stop()  # the host goes away; the machine plays on (notes and games nobody polls)
    with egm.model.lock:
        assert egm.model.insert_bill(10_000)
    _play(egm, 7)
    assert _floor_view(svc)["games_played"] == 4
    host2, ch2 = _host(svc, ch.link)  # a new host process: a new floor port, no baseline of its own
    try:
        wait(lambda: ch2.sessions[0].enrolled, what="the second host's enrolment")
        host2.reconcile_all("test")
        wait(lambda: ch2.idle() and _floor_view(svc)["games_played"] == 11, what="the games played while no host ran")
        time.sleep(0.3)
        wait(ch2.idle, what="idle")
        assert _floor_view(svc) == egm_meters(egm.model)
        assert svc.audit.report()["balanced"]
        with svc.uow(readonly=True) as uow:
            m = uow.machines.get("M001")
            assert uow.machine_events.for_machine(m.id, kind="meter_mismatch", limit=5) == []
            assert uow.machine_events.for_machine(m.id, kind="game_report_refused", limit=5) == []
    finally:
        host2.stop()
        server.close()

    # a RAM clear: the same address answers with new meters; the floor refuses it, saying why, and nothing moves
    cleared = _egm(game, denom, seed=6)
    master3, slave3, _ = open_pty_pair()
    server3 = EgmServer(FdLink(slave3), [cleared]).start()
    before = _floor_view(svc)
    host3, ch3 = _host(svc, FdLink(master3))
    try:
        wait(lambda: ch3.sessions[0].disabled_for is not None, what="the refusal")
        assert "below what the floor accounted" in ch3.sessions[0].disabled_for
        wait(lambda: not cleared.model.enabled, what="the machine disabled (long poll 01)")
        wait(ch3.idle, what="idle")
        with svc.uow(readonly=True) as uow:
            m = uow.machines.get("M001")
            refused = uow.machine_events.for_machine(m.id, kind="enrolment_refused", limit=5)
            assert refused and "RAM clear" in str(refused[0].detail)
        assert _floor_view(svc) == before
    finally:
        host3.stop()
        server3.close()
        for link in (ch.link, ch3.link, server.link, server3.link):
            link.close()
