"""AFT end to end on the real PostgreSQL: the SAS host over :class:`ServicesFloor` and emulated SAS machines on a
pseudo-terminal (the fixture of ``test_sas_floor_pg``). A carded player at machine S002 moves wallet money to the
machine by AFT (the transfer's 72 response dropped, the interrogation's CRC corrupted: resolved by interrogation,
never a second transfer), plays, and moves the credits back to the wallet; a transfer sent while the floor is
unreachable is settled once by a restarted host from the machine's interrogation (the machine busy meanwhile: it
could not be locked for a second transfer, nor needs to be). The same Idempotency-Key from several threads holds
once, and requests with different keys racing for one wallet hold no more than it holds; a request above the
wallet, bad amounts and a machine that is not a SAS machine change nothing. At the end every won is accounted
once: the floor's meters (AFT ones included) equal the emulator's, the host's AFT meters are the machine's, the
wallet is what it should be and the ledger audit balances."""

from __future__ import annotations

import threading
import time
import uuid

import pytest
from sqlalchemy import func, select

from slotsys.app.wiring.sas import build_sas_floor
from slotsys.kernel import accounts
from slotsys.kernel.adapters.db import JournalEntryRow
from slotsys.players.adapters.tables import AftTransferRow
from slotsys.sas.adapters.floor_services import floor_meters
from slotsys.sas.domain.codes import LP, METER
from slotsys.sas.services.host import MachineSpec, SasChannel, SasHost
from tests.conftest import Api
from tests.integration.test_sas_floor_pg import (  # noqa: F401 (fixtures)
    ASSETS, TIMINGS, egm_meters, machine_keys, sas_floor, wait,
)

pytestmark = pytest.mark.integration

PIN = "2468"


def aft_meters(model) -> dict[str, int]:
    g = model.meters
    return {"aft_in": g[METER.AFT_IN_CENTS], "aft_in_count": g[METER.AFT_IN_COUNT],
            "aft_out": g[METER.AFT_OUT_CENTS], "aft_out_count": g[METER.AFT_OUT_COUNT]}


class Player:
    """The player-tracking side of a SAS machine over the REST API (the machine's key)."""

    def __init__(self, api: Api, keys: dict[str, str], asset: str) -> None:
        self.api, self.keys, self.asset = api, keys, asset
        r = api.as_staff("host", "POST", "/api/v1/players", {"name": "Park Ji-woo", "pin": PIN})
        assert r.status_code == 201, r.json
        self.id, self.card = r.json["player"], r.json["card_number"]

    def call(self, method: str, path: str, body=None, key: str | None = "auto", client=None):
        headers = {"Authorization": f"Bearer {self.keys[self.asset]}"}
        if key is not None:
            headers["Idempotency-Key"] = uuid.uuid4().hex if key == "auto" else key
        return (client or self.api.client).open(path, method=method, json=body, headers=headers)

    def aft(self, direction: str, amount, key: str | None = "auto", client=None):
        return self.call("POST", f"/api/v1/machines/{self.asset}/aft/{direction}",
                         {"card_number": self.card, "pin": PIN, "amount": amount}, key, client)

    def state(self, transfer: int) -> dict:
        r = self.call("GET", f"/api/v1/machines/{self.asset}/aft/{transfer}", key=None)
        assert r.status_code == 200, r.json
        return r.json

    def wallet(self) -> int:
        r = self.api.as_staff("host", "GET", f"/api/v1/players/{self.id}", key=None)
        assert r.status_code == 200, r.json
        return r.json["wallet"]["cashable"]


def test_aft_on_the_real_services(sas_floor, machine_keys, pg_app):  # noqa: F811 (fixtures)
    svc, floor, egms, host, channel = sas_floor
    api = Api(pg_app)
    wait(lambda: all(s.signature == "ok" for s in channel.sessions), what="enrolment + ROM signature")
    m2 = egms[2].model
    egms[2].faults.drop = 0.0  # only the faults injected below on machine 2
    player = Player(api, machine_keys, "S002")
    r = api.as_staff("cashier", "POST", f"/api/v1/players/{player.id}/deposit", {"amount": 200_000})
    assert r.status_code == 200, r.json
    r = player.call("POST", "/api/v1/machines/S002/card-in", {"card_number": player.card})
    assert r.status_code == 201, r.json

    # refusals first: nothing moves
    audit_before = svc.audit.report()
    r = player.aft("to-machine", 500_000)
    assert r.status_code == 409 and r.json["type"].endswith("insufficient-funds") and r.json["field"] == "amount", \
        r.json
    for bad in (-1_000, 1_000.5, "1000"):
        r = player.aft("to-machine", bad)
        assert r.status_code == 422 and "amount" in str(r.json), r.json
    r = player.aft("to-wallet", 1_000)  # no credits on the machine
    assert r.status_code == 409 and r.json["type"].endswith("insufficient-funds"), r.json
    r = api.as_staff("host", "GET", "/api/v1/machines/S999/aft/1", key=None)
    assert r.status_code == 404, r.json
    with svc.uow(readonly=True) as uow:
        assert uow.session.scalar(select(func.count()).select_from(AftTransferRow)) == 0
    assert player.wallet() == 200_000 and m2.credits == 0
    assert svc.audit.report()["balanced"] and audit_before["balanced"]

    # wallet → machine: the 72 transfer's response is lost, the first interrogation's CRC corrupted
    seen = {"72": 0, "interrogate": 0}
    handle = egms[2].iface.handle

    def faulty(msg):
        resp = handle(msg)
        if msg.command == LP.AFT_TRANSFER and msg.crc_valid:
            if msg.data[:1] in (b"\xfe", b"\xff"):
                seen["interrogate"] += 1
                if seen["interrogate"] == 1:
                    egms[2].faults.corrupt_next = 1
            else:
                seen["72"] += 1
                if seen["72"] == 1:
                    egms[2].faults.drop_next = 1
        return resp

    egms[2].iface.handle = faulty
    r = player.aft("to-machine", 60_000)
    assert r.status_code == 202, r.json
    t1 = r.json
    assert (t1["state"], t1["direction"], t1["amount"], t1["wallet"]["cashable"]) == ("pending", "to_machine",
                                                                                       60_000, 140_000)
    wait(lambda: player.state(t1["transfer"])["state"] == "completed" and channel.idle(), what="AFT in")
    assert m2.credits * 100 == 60_000 and m2.meters[METER.AFT_IN_COUNT] == 1  # moved once
    assert egms[2].faults.dropped >= 1 and egms[2].faults.corrupted >= 1 and seen["interrogate"] >= 2
    assert player.wallet() == 140_000

    # play, then machine → wallet for what is left
    for _ in range(8):
        with m2.lock:
            assert m2.play() is not None
        time.sleep(0.03)
    wait(lambda: channel.idle(), what="games")
    left = m2.credits_won
    r = player.aft("to-wallet", left)
    assert r.status_code == 202, r.json
    t2 = r.json
    wait(lambda: player.state(t2["transfer"])["state"] == "completed" and channel.idle(), what="AFT out")
    assert player.state(t2["transfer"])["moved"] == left and m2.credits == 0
    assert player.wallet() == 140_000 + left

    # the same Idempotency-Key from six threads: one transfer, the money held once
    answers: list[tuple[int, dict]] = []
    lock = threading.Lock()

    def racer():
        r = player.aft("to-machine", 20_000, key="race-1", client=pg_app.test_client())
        with lock:
            answers.append((r.status_code, r.json))

    threads = [threading.Thread(target=racer) for _ in range(6)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    ok = [body for code, body in answers if code == 202]
    assert ok and all(code in (202, 409) for code, _ in answers), answers
    assert len({body["transfer"] for body in ok}) == 1
    t3 = ok[0]
    wait(lambda: player.state(t3["transfer"])["state"] == "completed" and channel.idle(), what="raced AFT in")
    assert player.wallet() == 120_000 + left and m2.credits_won == 20_000

    # the floor is unreachable when the machine's result comes: a new host settles the SENT transfer by
    # interrogation (the machine refuses its reused transaction ID); the machine moved it once
    down = []

    def unreachable(result):
        down.append(result)
        raise ConnectionError("the floor is down")

    floor.aft_result = unreachable
    r = player.aft("to-machine", 30_000)
    assert r.status_code == 202, r.json
    t4 = r.json
    wait(lambda: down, what="the AFT done on the machine, its result lost")
    host.stop()
    assert player.state(t4["transfer"])["state"] == "sent" and m2.credits_won == 50_000
    # and the machine cannot be locked now (busy): the new host asks it first, it never needs the lock
    m2.playable = lambda: "busy"
    floor2 = build_sas_floor(svc)
    channel2 = SasChannel("pty", channel.link, [MachineSpec(a, asset, 2000 + a) for a, asset in ASSETS.items()],
                          floor2, timings=TIMINGS, reconcile_every_s=0)
    host2 = SasHost([channel2])
    host2.start()
    try:
        wait(lambda: player.state(t4["transfer"])["state"] == "completed" and channel2.idle()
             and all(s.enrolled for s in channel2.sessions), what="the sent AFT settled by the new host")
        assert m2.meters[METER.AFT_IN_COUNT] == 3 and m2.credits_won == 50_000  # not moved twice
        del m2.playable
        assert player.wallet() == 90_000 + left
        host2.reconcile_all("final")
        time.sleep(0.3)
        wait(lambda: channel2.idle() and not any(s.jobs or s.pending_calls for s in channel2.sessions),
             what="reconciliation")
    finally:
        host2.stop()

    assert floor2.refused == [], floor2.refused
    with svc.uow(readonly=True) as uow:
        for addr, asset in ASSETS.items():
            m = uow.machines.get(asset)
            handpaid = uow.floor_events.paid_total(m.id, "machine_jackpot")
            mine = {**egm_meters(egms[addr].model), **aft_meters(egms[addr].model)}
            assert floor_meters(m, uow.machines.credits(asset).total, handpaid, aft=svc.aft.meters(asset)) == mine
            assert uow.machine_events.for_machine(m.id, kind="meter_mismatch", limit=5) == [], asset
        # the host's AFT meters (its baseline after the reconciliation) are the machine's own
        base = channel2.by_asset["S002"].baseline
        for code in (METER.AFT_IN_CENTS, METER.AFT_IN_COUNT, METER.AFT_OUT_CENTS, METER.AFT_OUT_COUNT):
            assert base[code] == m2.meters[code], hex(code)
        rows = uow.session.scalars(select(AftTransferRow).order_by(AftTransferRow.id)).all()
        assert [(t.direction, t.state, t.moved_won) for t in rows] == [
            ("to_machine", "completed", 60_000), ("to_wallet", "completed", left),
            ("to_machine", "completed", 20_000), ("to_machine", "completed", 30_000)]
        for kind, n in (("aft.hold", 3), ("aft.to_machine", 3), ("aft.to_wallet", 1), ("aft.release", 0)):
            assert uow.session.scalar(select(func.count()).select_from(JournalEntryRow).where(
                JournalEntryRow.kind == kind)) == n, kind
        assert uow.ledger.balance(accounts.aft_in_transit("S002")) == 0
    assert player.wallet() == 90_000 + left
    audit = svc.audit.report()
    assert audit["balanced"], audit


def test_aft_requests_racing_for_one_wallet_hold_no_more_than_it_holds(sas_floor, machine_keys, pg_app):  # noqa: F811
    """Six requests with different Idempotency-Keys at once, each for 40% of the wallet: the machine's row lock
    orders them, two are held and sent, four are refused 409 insufficient-funds and move nothing."""
    svc, floor, egms, host, channel = sas_floor
    api = Api(pg_app)
    wait(lambda: all(s.signature == "ok" for s in channel.sessions), what="enrolment + ROM signature")
    player = Player(api, machine_keys, "S003")
    assert api.as_staff("cashier", "POST", f"/api/v1/players/{player.id}/deposit", {"amount": 100_000}).status_code == 200
    assert player.call("POST", "/api/v1/machines/S003/card-in", {"card_number": player.card}).status_code == 201
    answers: list[tuple[int, dict]] = []
    lock = threading.Lock()
    start = threading.Barrier(6)

    def racer(i: int):
        client = pg_app.test_client()
        start.wait()
        r = player.aft("to-machine", 40_000, key=f"wallet-race-{i}", client=client)
        with lock:
            answers.append((r.status_code, r.json))

    threads = [threading.Thread(target=racer, args=(i,)) for i in range(6)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    codes = sorted(code for code, _ in answers)
    assert codes == [202, 202, 409, 409, 409, 409], answers
    assert all(body["type"].endswith("insufficient-funds") for code, body in answers if code == 409)
    held = [body["transfer"] for code, body in answers if code == 202]
    wait(lambda: all(player.state(t)["state"] == "completed" for t in held) and channel.idle(), what="both sent")
    assert player.wallet() == 20_000 and egms[3].model.credits_won == 80_000
    with svc.uow(readonly=True) as uow:
        assert uow.machines.credits("S003").cashable == 80_000
        assert uow.ledger.balance(accounts.aft_in_transit("S003")) == 0
    assert svc.audit.report()["balanced"]
