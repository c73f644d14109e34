"""argparse entry points of the SAS host and the SAS machine emulator (``slotsys sas-host`` and
``slotsys sas-egm`` of ``slotsys.app.cli``).

``sas_host_main(["--port", "/dev/ttyS0", "--address", "1", "--address", "2"])`` polls machines 1 and 2 on a
real serial port (mark/space parity); ``--port`` naming a pseudo-terminal (``/dev/pts/N``) uses the in-band
wakeup encoding instead; ``--tcp HOST:PORT`` connects to an emulator over TCP. ``--machine 1=M001`` polls the
floor's machine M001 at address 1 (``--address N``: asset ``A<N>``). ``slotsys sas-host`` (``slotsys.app.cli``)
passes the floor's services (``ServicesFloor``); ``--memory`` (or no ``make_floor``) uses an
:class:`~slotsys.sas.services.memory_floor.InMemoryFloor` that enrols the assets at ``--denomination`` with the
catalogue game's definition as the approved program. Prints counters and link snapshots every ``--report-every`` seconds (JSON lines).

``sas_egm_main(["--pty", "--address", "1", "--address", "2"])`` creates a pseudo-terminal, prints the path
the host must open, and serves machines 1 and 2 on it, each played by a random player; ``--tcp HOST:PORT``
listens instead. Faults: ``--drop P``, ``--corrupt P`` (per response), ``--power-cycle-every S``.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from dataclasses import asdict
from typing import Callable

from slotsys.floor.games import GAMES_DIR, load_game
from slotsys.kernel.errors import DomainError
from slotsys.sas.services.floor_port import FloorPort

__all__ = ["sas_host_main", "sas_egm_main"]


def _hostport(text: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":")
    return host or "127.0.0.1", int(port)


def _machine(text: str) -> tuple[int, str]:
    addr, sep, asset = text.partition("=")
    if not sep or not asset:
        raise argparse.ArgumentTypeError(f"--machine ADDRESS=ASSET, e.g. 1=M001; got {text!r}")
    return int(addr), asset


def sas_host_main(argv: list[str] | None = None,
                  make_floor: Callable[[list[str]], FloorPort] | None = None,
                  publish_links: Callable[[str, list], None] | None = None) -> int:
    """The SAS host (see the module). ``make_floor(assets)`` builds the floor port for the enrolled assets (the
    composition root's ``ServicesFloor``); without it, or with ``--memory``, an ``InMemoryFloor``.
    ``publish_links(channel, snapshots)`` (the floor's ``LinkStateService.publish``, called after ``make_floor``)
    receives each machine's link state every ``--report-every`` seconds for the console (not with ``--memory``).
    Returns 0, or 2 with the reason on standard error (an unknown asset, a bad address, a port that cannot open)."""
    p = argparse.ArgumentParser(prog="slotsys sas-host", description="SAS host: poll machines on one channel")
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--port", help="serial device (/dev/ttyS0) or a pseudo-terminal (/dev/pts/N)")
    where.add_argument("--tcp", help="HOST:PORT of a SAS link over TCP (emulator)")
    p.add_argument("--address", type=int, action="append", default=[],
                   help="machine address 1-127 (repeat): asset A<address>")
    p.add_argument("--machine", type=_machine, action="append", default=[],
                   help="ADDRESS=ASSET (repeat): the floor machine polled at that address")
    p.add_argument("--memory", action="store_true", help="an in-memory floor instead of the floor's services")
    p.add_argument("--game", default="dragon_pearl_50", help="catalogue game the machines are enrolled with")
    p.add_argument("--denomination", type=int, default=100, help="won per credit")
    p.add_argument("--response-timeout-ms", type=float, default=20.0)
    p.add_argument("--inter-byte-ms", type=float, default=5.0)
    p.add_argument("--cycle-ms", type=float, default=200.0)
    p.add_argument("--seconds", type=float, default=0, help="stop after this long (0: run until interrupted)")
    p.add_argument("--report-every", type=float, default=5.0,
                   help="seconds between two link-state reports (printed, and published for the console)")
    p.add_argument("--metrics-port", type=int, default=0,
                   help="serve Prometheus metrics (polls, NACKs, timeouts, exceptions per channel; each machine's "
                        "link state) on http://127.0.0.1:PORT/metrics (0: off)")
    a = p.parse_args(argv)
    machines = sorted([(x, f"A{x}") for x in a.address] + list(a.machine))
    if not machines:
        p.error("give at least one --address or --machine")
    try:
        return _run_host(a, machines, make_floor, publish_links)
    except (DomainError, ValueError, OSError) as e:  # an unknown asset, a bad address, no such port: say so
        print(f"slotsys sas-host: error: {getattr(e, 'detail', None) or e}", file=sys.stderr)
        return 2


def _run_host(a, machines, make_floor, publish_links) -> int:
    from slotsys.sas.adapters.links import FdLink, SerialLink, tcp_connect
    from slotsys.sas.domain.link import LinkTimings
    from slotsys.sas.services.host import MachineSpec, SasChannel, SasHost
    from slotsys.sas.services.memory_floor import InMemoryFloor

    floor: FloorPort
    if make_floor is None or a.memory:
        load_game(a.game)
        program = (GAMES_DIR / f"{a.game}.yaml").read_bytes()
        memory = InMemoryFloor()
        for _, asset in machines:
            memory.add_machine(asset, a.denomination, program)
        floor = memory
    else:
        floor = make_floor([asset for _, asset in machines])
    if a.tcp:
        link = tcp_connect(*_hostport(a.tcp))
    elif a.port.startswith("/dev/pts/"):
        link = FdLink.open_path(a.port)
    else:
        link = SerialLink(a.port)
    timings = LinkTimings(a.response_timeout_ms / 1000, a.inter_byte_ms / 1000, a.cycle_ms / 1000)
    channel = SasChannel(a.tcp or a.port, link, [MachineSpec(x, asset) for x, asset in machines], floor,
                         timings=timings)
    host = SasHost([channel], publish_links=None if a.memory else publish_links, publish_every_s=a.report_every)
    host.start()
    if a.metrics_port:
        from slotsys.sas.adapters.metrics import serve

        serve(host, a.metrics_port)
    end = time.monotonic() + a.seconds if a.seconds else None
    try:
        while end is None or time.monotonic() < end:
            time.sleep(min(a.report_every, max(0.05, (end or 1e18) - time.monotonic())))
            print(json.dumps({"counters": host.counters(),
                              "machines": [asdict(x) for x in channel.snapshot()]}), flush=True)
    except KeyboardInterrupt:
        pass
    finally:
        host.stop()
        link.close()
    return 0


def sas_egm_main(argv: list[str] | None = None) -> int:
    from slotsys.sas.adapters.links import FdLink, SocketLink, open_pty_pair, tcp_listen
    from slotsys.sas.domain.clock import SystemClock
    from slotsys.sas.domain.codes import METER
    from slotsys.sas.domain.egm import EgmConfig, EgmModel
    from slotsys.sas.emulator import EgmServer, Faults, RandomPlayer, SasEgm

    p = argparse.ArgumentParser(prog="slotsys sas-egm", description="SAS machine emulator on a pty or TCP")
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--pty", action="store_true", help="create a pseudo-terminal and print its path")
    where.add_argument("--tcp", help="HOST:PORT to listen on")
    p.add_argument("--address", type=int, action="append", required=True, help="machine address 1-127 (repeat)")
    p.add_argument("--game", default="dragon_pearl_50")
    p.add_argument("--denomination", type=int, default=100)
    p.add_argument("--validation", choices=("secure_enhanced", "system"), default="secure_enhanced")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--drop", type=float, default=0.0, help="probability a response is lost")
    p.add_argument("--corrupt", type=float, default=0.0, help="probability a response's CRC is corrupted")
    p.add_argument("--power-cycle-every", type=float, default=0.0, help="seconds between power cycles (0: none)")
    p.add_argument("--no-player", action="store_true", help="do not play the machines")
    p.add_argument("--pause", type=float, default=1.0,
                   help="seconds between two actions of a machine's player (a host drains one exception a poll)")
    p.add_argument("--enabled", action="store_true",
                   help="start enabled (default: disabled until the host enables them after enrolment, so no note "
                        "goes in before the host accounts for it)")
    p.add_argument("--tamper-program", action="store_true", help="report a ROM signature that does not match")
    p.add_argument("--seconds", type=float, default=0)
    p.add_argument("--settle", type=float, default=3.0,
                   help="seconds to keep answering the host after the players stop (it reads the last meters)")
    a = p.parse_args(argv)
    game = load_game(a.game)
    program = (GAMES_DIR / f"{a.game}.yaml").read_bytes() + (b"#tampered" if a.tamper_program else b"")
    clock = SystemClock()
    egms = [SasEgm(EgmModel(EgmConfig(x, 1000 + x, f"EMU{x:03d}", game, a.denomination, program,
                                      validation=a.validation, seed=a.seed * 1000 + x), clock),
                   Faults(drop=a.drop, corrupt=a.corrupt, seed=a.seed + x)) for x in a.address]
    for e in egms:
        e.model.enabled = a.enabled
    if a.pty:
        master, slave, path = open_pty_pair()
        link = FdLink(master)
        print(path, flush=True)
    else:
        srv = tcp_listen(*_hostport(a.tcp))
        print(f"listening on {srv.getsockname()[0]}:{srv.getsockname()[1]}", flush=True)
        conn, _ = srv.accept()
        link = SocketLink(conn)
    server = EgmServer(link, egms).start()
    tickets: list[str] = []
    players = [] if a.no_player else [RandomPlayer(e, a.seed * 7 + e.address, tickets, pause_s=a.pause) for e in egms]
    threads = [threading.Thread(target=pl.run, daemon=True) for pl in players]
    for t in threads:
        t.start()
    end = time.monotonic() + a.seconds if a.seconds else None
    next_cycle = time.monotonic() + a.power_cycle_every if a.power_cycle_every else None
    try:
        while end is None or time.monotonic() < end:
            time.sleep(0.2)
            if next_cycle and time.monotonic() >= next_cycle:
                egms[0].power_cycle(1.0)
                next_cycle = time.monotonic() + a.power_cycle_every
    except KeyboardInterrupt:
        pass
    finally:
        for pl in players:
            pl.stop.set()
        for t in threads:
            t.join(2)
        try:
            time.sleep(a.settle)
        except KeyboardInterrupt:
            pass
        server.close()
        link.close()
    for e in egms:
        g = e.model.meters
        print(json.dumps({"address": e.address, "credits_won": e.model.credits_won, "games": g[METER.GAMES_PLAYED],
                          "coin_in_won": g[METER.COIN_IN] * e.model.denom, "bills_won": g[METER.BILLS] * e.model.denom,
                          "ticket_in_won": g[METER.TICKET_IN_CENTS], "ticket_out_won": g[METER.TICKET_OUT_CENTS],
                          "dropped": e.faults.dropped, "corrupted": e.faults.corrupted}), flush=True)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(sas_egm_main())
