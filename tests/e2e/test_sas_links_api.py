"""The SAS links' state for the console: a host on a pseudo-terminal publishes each machine's link (polls, retries,
CRC errors, last exception, signature) through the floor's service into the database; ``GET /api/v1/sas/links``
shows it to floor staff (403 otherwise) and marks a link ``stale`` once its host stops publishing; a publication
that fails is counted and the channel keeps polling (Flask test client, SQLite)."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import pytest

from slotsys.floor.games import GAMES_DIR, load_game
from slotsys.kernel.settings import Settings
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


@pytest.fixture(scope="module")
def floor(tmp_path_factory):
    from tests.conftest import Api, _make_app

    tmp = tmp_path_factory.mktemp("saslinks")
    app = _make_app(Settings(database_url=f"sqlite:///{tmp / 'floor.db'}", redis_url=None, celery_eager=True,
                             credentials_file=tmp / "creds.json"))
    yield Api(app)
    app.extensions["slotsys"].jackpots.driver.stop()
    app.extensions["slotsys"].uow.engine.dispose()


@pytest.fixture
def host_on_pty(floor):
    """Two emulated machines on one pty channel (an in-memory floor for their play), the host publishing their
    links through the app's LinkStateService every 0.2 s."""
    svc = floor.app.extensions["slotsys"]
    memory = InMemoryFloor()
    egms = []
    for address, asset in ((1, "S-LINK-1"), (2, "S-LINK-2")):
        memory.add_machine(asset, 100, PROGRAM)
        egms.append(SasEgm(EgmModel(EgmConfig(address, 1000 + address, f"SN{address}", load_game("dragon_pearl_50"),
                                              100, PROGRAM, rom_delay_s=0.01), SystemClock())))
    master, slave, _ = open_pty_pair()
    server = EgmServer(FdLink(slave), egms).start()
    ch = SasChannel("pty-links", FdLink(master), [MachineSpec(1, "S-LINK-1", 1001), MachineSpec(2, "S-LINK-2", 1002)],
                    memory, timings=TIMINGS, reconcile_every_s=0)
    host = SasHost([ch], publish_links=svc.sas_links.publish, publish_every_s=0.2)
    host.start()
    yield host, ch, egms
    host.stop()
    server.close()
    ch.link.close()
    server.link.close()


def _links(api, role="operator"):
    r = api.as_staff(role, "GET", "/api/v1/sas/links", key=None)
    assert r.status_code == 200, r.json
    return {link["asset"]: link for link in r.json["links"]}


def test_the_console_sees_each_link_its_host_publishes(floor, host_on_pty):
    host, ch, egms = host_on_pty
    wait(lambda: all(s.signature == "ok" for s in ch.sessions), what="both machines enrolled and verified")
    wait(lambda: {"S-LINK-1", "S-LINK-2"} <= set(_links(floor)) and
         all(x["enrolled"] and x["signature"] == "ok" for x in _links(floor).values()), what="published links")
    links = _links(floor)
    one = links["S-LINK-1"]
    assert one["channel"] == "pty-links" and one["address"] == 1 and one["state"] == "online"
    assert one["polls"] > 0 and one["stale"] is False and one["cycle_p99_ms"] is not None
    assert one["crc_errors"] == 0
    egms[0].faults.corrupt = 1.0  # every long poll answer with a flipped CRC byte: counted, retried, published
    ch.reconcile("S-LINK-1", "test")  # the meters' long polls
    wait(lambda: ch.sessions[0].link.counters.crc_errors >= 2, what="CRC errors on the link")
    egms[0].faults.corrupt = 0.0
    wait(lambda: _links(floor).get("S-LINK-1", {}).get("crc_errors", 0) >= 2, what="the CRC errors published")
    later = _links(floor)["S-LINK-1"]
    assert later["polls"] > one["polls"] and later["retries"] >= 2 and later["state"] == "online"
    for role in ("attendant", "auditor", "supervisor"):
        assert set(_links(floor, role)) >= {"S-LINK-1", "S-LINK-2"}
    assert floor.as_staff("cashier", "GET", "/api/v1/sas/links", key=None).status_code == 403
    assert host.publish_errors == 0 and host.publications > 0


def test_a_silent_machine_shows_offline_and_a_stopped_host_stale(floor, host_on_pty):
    host, ch, egms = host_on_pty
    wait(lambda: all(s.enrolled for s in ch.sessions), what="enrolment")
    egms[1].silent_for(30)
    wait(lambda: _links(floor).get("S-LINK-2", {}).get("state") == "offline", what="machine 2 offline, published")
    assert _links(floor)["S-LINK-2"]["timeouts"] > 0
    host.stop()
    svc = floor.app.extensions["slotsys"].sas_links
    clock = svc.ctx.clock
    later = replace(svc.ctx, clock=type("Later", (), {"now": staticmethod(lambda: clock.now() + timedelta(seconds=60))})())
    svc_later = type(svc)(later, stale_after_s=svc.stale_after_s)
    from slotsys.kernel.context import Principal

    view = {x.asset: x for x in svc_later.links(Principal("staff", "op", "operator")).links}
    assert view["S-LINK-1"].stale and view["S-LINK-2"].stale


def test_a_failing_publication_is_counted_and_the_channel_keeps_polling(host_on_pty):
    host, ch, _ = host_on_pty
    wait(lambda: all(s.enrolled for s in ch.sessions), what="enrolment")

    def broken(channel, snapshots):
        raise ConnectionError("database away")

    host.publish_links = broken
    polls = ch.totals().polls
    wait(lambda: host.publish_errors >= 2, what="two failed publications")
    wait(lambda: ch.totals().polls > polls + 10, what="the channel polling on")
