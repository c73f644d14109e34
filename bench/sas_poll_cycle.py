"""SAS poll cycle: one host channel with 32 emulated machines on a pseudo-terminal keeps the ≤ 200 ms general
poll cycle; then as many channels as 256 machines need (8 × 32) in one host process. Prints the poll cycle
(the time between two general polls of the same machine) p50 / p99 per channel, and the wire time a cycle
would take at 19.2 kbaud.

The machines run in a child process (one thread per channel), idle except for a light random player on a few
of them; the pty link is not paced (bytes arrive as fast as the kernel moves them) unless ``--pace`` is given,
which sleeps for each frame's 19.2 kbaud wire time (11 bits a character) on both sides.

    .venv/bin/python bench/sas_poll_cycle.py [--seconds 6] [--pace]
"""

from __future__ import annotations

import argparse
import logging
import multiprocessing as mp
import os
import time

from slotsys.floor.games import GAMES_DIR, load_game
from slotsys.sas.adapters.links import FdLink, open_pty_pair, wire_seconds
from slotsys.sas.domain.clock import SystemClock
from slotsys.sas.domain.egm import EgmConfig, EgmModel
from slotsys.sas.domain.link import LinkTimings, percentile
from slotsys.sas.services.host import MachineSpec, SasChannel, SasHost
from slotsys.sas.services.memory_floor import InMemoryFloor

PER_CHANNEL = 32
PROGRAM = (GAMES_DIR / "dragon_pearl_50.yaml").read_bytes()


def machines_process(slave_fds: list[int], seconds: float, pace: bool) -> None:
    import threading

    from slotsys.sas.emulator import EgmServer, RandomPlayer, SasEgm

    game = load_game("dragon_pearl_50")
    clock = SystemClock()
    servers, players = [], []
    for ch, fd in enumerate(slave_fds):
        egms = [SasEgm(EgmModel(EgmConfig(a, 1000 + a, f"B{ch}-{a}", game, 100, PROGRAM, seed=ch * 100 + a,
                                          rom_delay_s=0.01), clock)) for a in range(1, PER_CHANNEL + 1)]
        servers.append(EgmServer(FdLink(fd, pace_baud=19_200 if pace else None), egms).start())
        players += [RandomPlayer(e, ch * 100 + e.address, pause_s=1.0) for e in egms[:4]]
    for pl in players:
        threading.Thread(target=pl.run, args=(seconds,), daemon=True).start()
    time.sleep(seconds)
    for s in servers:
        s.close()


def run(channels: int, seconds: float, pace: bool) -> list[tuple[str, float, float, int, dict]]:
    pairs = [open_pty_pair() for _ in range(channels)]
    ctx = mp.get_context("fork")
    child = ctx.Process(target=machines_process, args=([p[1] for p in pairs], seconds + 34, pace), daemon=True)
    child.start()
    for _, slave, _ in pairs:
        os.close(slave)
    floor = InMemoryFloor()
    timings = LinkTimings(response_timeout_s=0.05, inter_byte_timeout_s=0.02, cycle_s=0.2)
    chans = []
    for c, (master, _, _) in enumerate(pairs):
        specs = []
        for a in range(1, PER_CHANNEL + 1):
            asset = f"C{c}-{a}"
            floor.add_machine(asset, 100, PROGRAM)
            specs.append(MachineSpec(a, asset, 1000 + a))
        chans.append(SasChannel(f"ch{c}", FdLink(master, pace_baud=19_200 if pace else None), specs, floor,
                                timings=timings, reconcile_every_s=0))
    host = SasHost(chans)
    host.start()
    end = time.monotonic() + 30
    while time.monotonic() < end and not all(s.enrolled and not s.jobs for ch in chans for s in ch.sessions):
        time.sleep(0.2)  # enrolment (its long polls, the ROM signature and date/time among them) before measuring
    time.sleep(0.5)  # the last enrolment's replies
    for ch in chans:
        for s in ch.sessions:
            s.link.intervals.clear()
    time.sleep(seconds)
    host.stop()
    child.terminate()
    child.join(10)
    out = []
    for ch in chans:
        iv = [x for s in ch.sessions for x in s.link.intervals]
        t = ch.totals()
        out.append((ch.name, percentile(iv, 0.5) * 1000, percentile(iv, 0.99) * 1000, len(iv),
                    {"timeouts": t.timeouts, "retries": t.retries, "games": t.games}))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=6.0)
    ap.add_argument("--pace", action="store_true", help="pace the pty at 19.2 kbaud wire time")
    a = ap.parse_args()
    logging.getLogger("slotsys.sas").setLevel(logging.ERROR)  # a warning per late byte would skew the figures
    gp = PER_CHANNEL * 2 + 1  # address-0 poll + (poll byte + exception byte) per machine
    game_end = 15 + 47  # 2F request (8 meters) + its response
    print(f"wire time at 19.2 kbaud (11-bit characters, {19_200 / 11 / 1000:.2f} chars/ms):")
    print(f"  general polls only, {PER_CHANNEL} machines: {gp} chars = {wire_seconds(gp) * 1000:.1f} ms a cycle "
          f"(+ each machine's turnaround, up to 20 ms by SAS, typically 1-2 ms)")
    print(f"  each game ended adds a 2F meter poll: {game_end} chars = {wire_seconds(game_end) * 1000:.1f} ms")
    spare = 200 - wire_seconds(gp) * 1000 - PER_CHANNEL * 1.5
    print(f"  → 32 machines fit a 200 ms cycle with ~{spare:.0f} ms spare at 1.5 ms turnaround: about "
          f"{int(spare // (wire_seconds(game_end) * 1000))} game-end meter polls per cycle")
    for channels in (1, 256 // PER_CHANNEL):
        rows = run(channels, a.seconds, a.pace)
        print(f"{channels} channel(s) × {PER_CHANNEL} machines ({'paced 19.2k' if a.pace else 'unpaced pty'}):")
        for name, p50, p99, n, extra in rows:
            print(f"  {name}: poll cycle p50 {p50:.1f} ms  p99 {p99:.1f} ms  ({n} intervals) {extra}")


if __name__ == "__main__":
    main()
