"""The channel's floor worker: what the machines report reaches the floor on its own thread, so a floor that hangs
or fails never stops the polling; once it answers again every game arrives once, in the machine's order, and the
other machines' calls were never held behind the stuck one (two pty machines, an in-memory floor)."""

from __future__ import annotations

import threading

from slotsys.floor.games import GAMES_DIR, load_game
from slotsys.sas.adapters.links import FdLink, open_pty_pair
from slotsys.sas.domain.clock import SystemClock
from slotsys.sas.domain.codes import METER
from slotsys.sas.domain.egm import EgmConfig, EgmModel
from slotsys.sas.domain.link import LinkTimings
from slotsys.sas.emulator import EgmServer, SasEgm
from slotsys.sas.services.floor_port import GamePlayed
from slotsys.sas.services.host import MachineSpec, SasChannel, SasHost
from slotsys.sas.services.memory_floor import InMemoryFloor
from tests import helpers

PROGRAM = (GAMES_DIR / "dragon_pearl_50.yaml").read_bytes()
TIMINGS = LinkTimings(response_timeout_s=0.1, inter_byte_timeout_s=0.05, cycle_s=0.05)


def wait(cond, timeout=20.0, what=""):
    helpers.wait(cond, timeout, what)


class GatedFloor(InMemoryFloor):
    """Machine A1's games hang on ``gate`` (a floor stuck on a lock); while ``failing`` they raise instead."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = threading.Event()
        self.failing = False
        self.attempts = 0

    def record_game(self, game: GamePlayed) -> None:
        if game.asset == "A1":
            self.attempts += 1
            self.gate.wait()
            if self.failing:
                raise ConnectionError("the floor's database is away")
        super().record_game(game)


def _play(egm, n):
    with egm.model.lock:
        egm.model.insert_bill(50_000)
    for _ in range(n):
        with egm.model.lock:
            assert egm.model.play() is not None


def test_a_hung_then_failing_floor_never_stops_the_polling_and_every_game_lands_once_in_order():
    floor = GatedFloor()
    egms = []
    for a in (1, 2):
        floor.add_machine(f"A{a}", 100, PROGRAM)
        egms.append(SasEgm(EgmModel(EgmConfig(a, 1000 + a, f"SN{a}", load_game("dragon_pearl_50"), 100, PROGRAM,
                                              rom_delay_s=0.01, jackpot_limit_credits=10_000_000), SystemClock())))
    master, slave, _ = open_pty_pair()
    server = EgmServer(FdLink(slave), egms).start()
    ch = SasChannel("W", FdLink(master), [MachineSpec(1, "A1", 1001), MachineSpec(2, "A2", 1002)], floor,
                    timings=TIMINGS, reconcile_every_s=0, retry_s=0.1)
    host = SasHost([ch])
    host.start()
    try:
        wait(lambda: all(s.enrolled for s in ch.sessions), what="enrolment")
        _play(egms[0], 5)
        wait(lambda: floor.attempts >= 1, what="A1's first game handed to the floor (which hangs)")
        polls = ch.totals().general_polls
        _play(egms[1], 3)  # the other machine's games are not held behind A1's
        wait(lambda: floor.machines["A2"].accounted["games_played"] == egms[1].model.meters[METER.GAMES_PLAYED],
             what="A2's games on the floor while A1's hang")
        wait(lambda: ch.totals().general_polls > polls + 20, what="the polling going on")
        a1 = ch.by_asset["A1"]
        wait(lambda: not a1.jobs and len(a1.pending_calls) >= 1, what="A1's games read and queued")
        assert a1.link.state.value == "online"
        floor.failing = True  # the hung call returns with an error: kept, tried again, the later ones wait
        floor.gate.set()
        wait(lambda: floor.attempts >= 4, what="the same call tried again")
        assert [g for g in floor.games if g.asset == "A1"] == []
        floor.failing = False
        wait(lambda: ch.idle(), what="the queue drained")
        games = [g for g in floor.games if g.asset == "A1"]
        played = [g.key for g in games]
        assert played == sorted(played, key=lambda k: int(k.rsplit(":", 1)[1])) and len(set(played)) == len(played)
        assert sum(g.games for g in games) == 5
        assert floor.machines["A1"].accounted["games_played"] == egms[0].model.meters[METER.GAMES_PLAYED]
        assert floor.machines["A1"].accounted["coin_in"] == egms[0].model.meters[METER.COIN_IN] * 100
        assert ch.totals().port_errors >= 2
    finally:
        floor.gate.set()
        host.stop()
        server.close()
        ch.link.close()
        server.link.close()
