"""``slotsys emulate --sas N``: the floor played over SAS. N emulated SAS machines (``slotsys.sas.emulator``, each
deciding its own games with its floor machine's catalogue game and denomination) on pseudo-terminals, 32 to a
channel as on an interface board's daisy chain, played by random players (notes, games, cash-out tickets that other
machines take in, doors, printer), against a SAS host over the floor's own services (``DATABASE_URL``): every note,
game, ticket and handpay on the ledger exactly as a real SAS floor's.

The machines are the floor's first N active machines that were never enrolled over SAS and hold no credits (an
emulated machine starts with new meters; a machine enrolled before keeps the baseline of the meters it had). They
are switched to machine mode and SAS secure enhanced validation through the floor's administration (audit-logged).

At the end the host reconciles every machine; the run fails (exit 1) when a machine's meters differ from the
floor's, the host refused a report, or the ledger audit does not balance. Faults: ``drop`` / ``corrupt`` (the
probability a response is lost / has its CRC flipped).
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from typing import Any

from slotsys.floor.games import GAMES_DIR, load_game
from slotsys.sas.adapters.floor_services import floor_meters
from slotsys.sas.adapters.links import FdLink, open_pty_pair
from slotsys.sas.domain.clock import SystemClock
from slotsys.sas.domain.codes import METER
from slotsys.sas.domain.egm import EgmConfig, EgmModel
from slotsys.sas.domain.link import LinkTimings
from slotsys.sas.emulator import EgmServer, Faults, RandomPlayer, SasEgm
from slotsys.sas.services.host import MachineSpec, SasChannel, SasHost

__all__ = ["run_sas_floor", "egm_meters"]

PER_CHANNEL = 32


def egm_meters(model: EgmModel) -> dict[str, int]:
    """An emulated machine's meters in won (counts) under the names of :func:`floor_meters`."""
    d, g = model.denom, model.meters
    return {"coin_in": g[METER.COIN_IN] * d, "paytable_win": g[METER.MACHINE_PAID_PAYTABLE_WIN] * d,
            "jackpot": g[METER.JACKPOT] * d, "handpaid_cancelled": g[METER.HANDPAID_CANCELLED] * d,
            "games_played": g[METER.GAMES_PLAYED], "games_won": g[METER.GAMES_WON], "bills": g[METER.BILLS] * d,
            "ticket_in": g[METER.TICKET_IN_CENTS], "ticket_out": g[METER.TICKET_OUT_CENTS],
            "ticket_in_count": g[METER.TICKET_IN_COUNT], "ticket_out_count": g[METER.TICKET_OUT_COUNT],
            "credits": model.credits * d}


def _wait(cond, timeout: float) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.1)
    return False


@dataclass(frozen=True)
class _Pick:
    asset_number: str
    game_id: str
    variation: str
    denomination: int


def _pick(svc: Any, n: int) -> list[_Pick]:
    with svc.uow(readonly=True) as uow:
        out = [_Pick(m.asset_number, m.game_id, m.variation, m.denomination) for m in uow.machines.all()
               if m.status == "active" and m.sas_meter_base is None and uow.machines.credits(m.asset_number).total == 0]
    return sorted(out, key=lambda m: m.asset_number)[:n]


def run_sas_floor(svc: Any, n: int, *, seconds: float = 30.0, drop: float = 0.0, corrupt: float = 0.0,
                  seed: int = 1, pause_s: float = 1.0, echo=print) -> int:
    """Play ``n`` emulated SAS machines for ``seconds`` against a SAS host over ``svc`` (the process's
    ``Services``), each machine's player acting every ``pause_s`` (a host drains one exception per general poll,
    about six a second, so much faster players overflow the machines' exception queues); print a summary (JSON
    lines) with ``echo``. Returns 0 when every machine's meters equal the
    floor's and the ledger audit balances, 1 otherwise (2: not enough machines)."""
    from slotsys.app.wiring.sas import build_sas_floor, prepare_sas_machines

    machines = _pick(svc, n)
    if len(machines) < n:
        echo(f"only {len(machines)} active floor machines were never enrolled over SAS and hold no credits; "
             f"an emulated machine starts with new meters, so it needs such a machine (ask for --sas {len(machines)} "
             "or enrol more machines)")
        return 2
    assets = [m.asset_number for m in machines]
    prepare_sas_machines(svc, assets)
    floor = build_sas_floor(svc)
    clock = SystemClock()
    tickets: list[str] = []  # cash-out tickets, inserted into another machine now and then
    channels, servers, egms, players = [], [], [], []
    timings = LinkTimings(response_timeout_s=0.06, inter_byte_timeout_s=0.02)
    for c in range(0, n, PER_CHANNEL):
        chunk = machines[c:c + PER_CHANNEL]
        master, slave, path = open_pty_pair()
        mine = []
        for i, m in enumerate(chunk, start=1):
            game = load_game(m.game_id)
            program = (GAMES_DIR / f"{m.game_id}.yaml").read_bytes()
            cfg = EgmConfig(i, 5000 + c + i, f"EMU-{m.asset_number}", game, m.denomination, program,
                            variation=m.variation or None, seed=seed * 1000 + c + i)
            egm = SasEgm(EgmModel(cfg, clock), Faults(drop=drop, corrupt=corrupt, seed=seed + c + i))
            egm.model.enabled = False  # until the host enrols it: no note goes in before the floor can count it
            mine.append(egm)
        servers.append(EgmServer(FdLink(slave), mine).start())
        channels.append(SasChannel(path, FdLink(master), [MachineSpec(i, m.asset_number, 5000 + c + i)
                                                          for i, m in enumerate(chunk, start=1)],
                                   floor, timings=timings, reconcile_every_s=0))
        egms += mine
    host = SasHost(channels, publish_links=svc.sas_links.publish)
    host.start()
    ok = True
    try:
        if not _wait(lambda: all(s.enrolled for ch in channels for s in ch.sessions), 60):
            echo("not every machine enrolled within 60 s: " + json.dumps(
                {s.spec.asset: s.disabled_for or s.link.state.value for ch in channels for s in ch.sessions}))
            return 1
        players = [RandomPlayer(e, seed * 7 + i, tickets, pause_s=pause_s) for i, e in enumerate(egms)]
        threads = [threading.Thread(target=p.run, args=(seconds,), daemon=True) for p in players]
        for t in threads:
            t.start()
        for t in threads:
            t.join(seconds + 10)
        for e in egms:
            e.faults.drop = e.faults.corrupt = 0.0  # the last reads clean: the counts below compare
        _wait(lambda: all(ch.idle() for ch in channels), 60)
        host.reconcile_all("emulation end")
        time.sleep(0.5)
        _wait(lambda: all(ch.idle() for ch in channels), 60)
        with svc.uow(readonly=True) as uow:
            for c, ch in enumerate(channels):
                for s, e in zip(ch.sessions, egms[c * PER_CHANNEL:]):
                    m = uow.machines.get(s.spec.asset)
                    handpaid = uow.floor_events.paid_total(m.id, "machine_jackpot")
                    mine = egm_meters(e.model)
                    theirs = floor_meters(m, uow.machines.credits(s.spec.asset).total, handpaid)
                    same = mine == theirs
                    ok &= same
                    echo(json.dumps({"asset": s.spec.asset, "address": s.spec.address, "channel": ch.name,
                                     "games": mine["games_played"], "coin_in_won": mine["coin_in"],
                                     "bills_won": mine["bills"], "tickets_out": mine["ticket_out_count"],
                                     "tickets_in": mine["ticket_in_count"], "meters_agree": same,
                                     **({} if same else {"machine": mine, "floor": theirs})}, ensure_ascii=False))
        audit = svc.audit.report()
        refused = list(getattr(floor, "refused", []))
        totals = host.counters()
        echo(json.dumps({"channels": totals, "refused": refused[-10:], "ledger_balanced": audit["balanced"]}))
        ok &= bool(audit["balanced"]) and not refused
    finally:
        for p in players:
            p.stop.set()
        host.stop()
        for srv in servers:
            srv.close()
        for ch in channels:
            ch.link.close()
    echo("SAS floor: every machine's meters equal the floor's and the ledger balances" if ok else
         "SAS floor: MISMATCH (see above)")
    return 0 if ok else 1
