"""SAS machines on a link, for tests and the emulated floor: :class:`EgmServer` serves one or more
:class:`~slotsys.sas.domain.egm.EgmModel` addresses on one link (a daisy chain: every machine sees every
byte, only the addressed one answers), with fault injection per machine; :class:`RandomPlayer` plays a machine
(bills, games, cash-outs, tickets, door and printer events) with its own seeded RNG.

Faults (:class:`Faults`): ``drop`` (probability a response is not sent), ``corrupt`` (probability its last
CRC byte is flipped), ``drop_next`` / ``corrupt_next`` (the next N responses), ``silent_for(seconds)`` (the
machine stops answering: the host sees it offline), ``power_cycle(off_seconds)`` (AC power lost then applied:
exceptions 0x18 and 0x17, and the machine resynchronises). Faults never change the machine's state, only what
reaches the wire, so every lost response is a retry or a repeat for the host to survive.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from dataclasses import dataclass, field

from slotsys.sas.domain.egm import EgmModel, EgmSasInterface
from slotsys.sas.domain.framing import HostFrameDecoder

log = logging.getLogger("slotsys.sas.emulator")

__all__ = ["Faults", "SasEgm", "EgmServer", "RandomPlayer"]


@dataclass
class Faults:
    drop: float = 0.0
    corrupt: float = 0.0
    drop_next: int = 0
    corrupt_next: int = 0
    silent_until: float = 0.0
    seed: int = 0
    dropped: int = 0
    corrupted: int = 0
    rng: random.Random = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)

    def apply(self, response: bytes, now: float) -> bytes | None:
        if now < self.silent_until:
            self.dropped += 1
            return None
        if self.drop_next > 0:
            self.drop_next -= 1
            self.dropped += 1
            return None
        if self.drop and self.rng.random() < self.drop:
            self.dropped += 1
            return None
        if self.corrupt_next > 0 or (self.corrupt and len(response) > 1 and self.rng.random() < self.corrupt):
            if self.corrupt_next > 0:
                self.corrupt_next -= 1
            self.corrupted += 1
            return response[:-1] + bytes([response[-1] ^ 0x5A])
        return response


class SasEgm:
    """One machine on a link: its model, its SAS interface and its faults."""

    def __init__(self, model: EgmModel, faults: Faults | None = None) -> None:
        self.model = model
        self.iface = EgmSasInterface(model)
        self.faults = faults or Faults()

    @property
    def address(self) -> int:
        return self.model.cfg.address

    def silent_for(self, seconds: float) -> None:
        self.faults.silent_until = time.monotonic() + seconds

    def power_cycle(self, off_seconds: float = 0.5) -> None:
        """AC power off for ``off_seconds`` (the machine is silent), then on (0x18, 0x17 reported)."""
        with self.model.lock:
            self.model.power_off()

        def back() -> None:
            with self.model.lock:
                self.model.power_on()
                self.iface.power_cycled()

        threading.Timer(off_seconds, back).start()


class EgmServer:
    """Serves ``egms`` on ``link`` until stopped (a thread: :meth:`start`)."""

    def __init__(self, link, egms: list[SasEgm]) -> None:
        self.link = link
        self.egms = egms
        self.decoder = HostFrameDecoder()
        self.stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.responses = 0

    def serve_once(self, timeout: float = 0.05) -> None:
        chars = self.link.receive(timeout)
        if not chars:
            return
        for msg in self.decoder.feed(chars):
            for egm in self.egms:
                resp = egm.iface.handle(msg)
                if resp:
                    out = egm.faults.apply(resp, time.monotonic())
                    if out:
                        self.link.send(out, wakeup=False)
                        self.responses += 1

    def run(self) -> None:
        while not self.stop.is_set():
            try:
                self.serve_once()
            except OSError:
                if self.stop.is_set():
                    return
                time.sleep(0.05)

    def start(self) -> "EgmServer":
        self._thread = threading.Thread(target=self.run, name="sas-egm-server", daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        self.stop.set()
        if self._thread is not None:
            self._thread.join(2)


class RandomPlayer:
    """Plays ``egm`` at random with its own RNG: bills (₩1,000–₩50,000), games at random bet options it can
    afford, a cash-out now and then (the ticket goes to ``tickets``, a shared list other players insert from),
    a door opened and closed, printer paper low."""

    def __init__(self, egm: SasEgm, seed: int, tickets: list | None = None, *, pause_s: float = 0.05,
                 event_rate: float = 0.01) -> None:
        self.egm = egm
        self.r = random.Random(seed)
        self.tickets = tickets if tickets is not None else []
        self.pause_s = pause_s
        self.event_rate = event_rate
        self.stop = threading.Event()
        self.actions: dict[str, int] = {}

    def step(self) -> str:
        model = self.egm.model
        with model.lock:
            roll = self.r.random()
            if roll < self.event_rate:
                model.event(0x11)
                model.event(0x12)
                action = "door"
            elif model.credits == 0 or roll < 0.05:
                if self.tickets and self.r.random() < 0.3 and model.insert_ticket(self.tickets.pop(0)):
                    action = "ticket_in"
                else:
                    action = "bill" if model.insert_bill(self.r.choice((1_000, 5_000, 10_000, 50_000))) else "busy"
            elif roll < 0.08:
                result = model.cash_out()
                if result == "ticket":
                    self.tickets.append(model.printed[-1].validation_number)
                action = f"cash_out:{result}"
            else:
                opts = [o for o in model.cfg.game.bet_options() if o.credits <= model.credits]
                out = model.play(self.r.choice(opts[:8])) if opts else None
                action = "game" if out is not None else "no_game"
        self.actions[action.split(":")[0]] = self.actions.get(action.split(":")[0], 0) + 1
        return action

    def run(self, seconds: float | None = None) -> None:
        end = None if seconds is None else time.monotonic() + seconds
        while not self.stop.is_set() and (end is None or time.monotonic() < end):
            self.step()
            self.stop.wait(self.pause_s)
