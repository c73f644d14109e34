"""The host's per-machine link state machine (SAS 6.02 §2.3, §3, §4), driven by an injected clock.

* :class:`PollTransaction`: one poll and its retries. The caller writes :attr:`frame`, feeds the characters it
  reads (:meth:`feed`) and calls :meth:`tick` when :meth:`deadline` passes. A response must START within
  ``response_timeout_s`` of the poll (§2.3.1: 20 ms) and no gap between its bytes may exceed
  ``inter_byte_timeout_s`` (§2.3.2: 5 ms). A lost, truncated, NACKed, wrong-address or bad-CRC response is
  retried by sending the IDENTICAL poll again, which the machine reads as an implied NACK (§3.2), at most
  ``retries`` times (2: three polls in all). A "busy" response (address, 00) is not retried (§4.1): the caller
  tries the long poll again later.
* :class:`MachineLink`: online/offline state (offline after ``offline_after`` consecutive polls that failed
  after their retries; online again at the next good response), the counters and the last exception.
* Implied ACK (§3.1) is the host's next different poll to the machine, a poll to another machine or a poll to
  address 0; the channel sends the address-0 general poll at the start of every cycle and before repeating an
  identical poll that succeeded, so a new poll is never mistaken for a retry.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from enum import Enum
from typing import Iterable

from slotsys.sas.domain.framing import ResponseAssembler, ResponseKind, RxResult, RxStatus, response_spec

__all__ = ["LinkTimings", "LinkCounters", "LinkState", "MachineLink", "PollTransaction", "TxOutcome",
           "percentile"]


@dataclass(frozen=True)
class LinkTimings:
    """Timing of one channel (seconds). The defaults are SAS's; an emulated link (pty, TCP, a busy test
    machine) may be given wider windows. ``cycle_s`` is the longest a machine may go without a general poll
    (SAS: 200 ms); the host starts a cycle every ``cycle_s - cycle_margin_s`` (:attr:`period_s`) so that a slot
    that moves within its cycle (the long polls before it differ from one cycle to the next) and a late wake-up
    still poll each machine within ``cycle_s``."""

    response_timeout_s: float = 0.020
    inter_byte_timeout_s: float = 0.005
    cycle_s: float = 0.200
    cycle_margin_s: float = 0.030
    retries: int = 2
    offline_after: int = 5
    long_polls_per_slot: int = 3

    @property
    def period_s(self) -> float:
        """The host's cycle period: ``cycle_s`` less the margin (never below half of ``cycle_s``)."""
        return max(self.cycle_s - self.cycle_margin_s, self.cycle_s / 2)


@dataclass
class LinkCounters:
    """Counters of one machine's link (plain ints: the lead exports them to Prometheus)."""

    polls: int = 0  # every poll sent, retries included
    general_polls: int = 0
    long_polls: int = 0
    retries: int = 0  # implied NACKs sent (identical poll repeated)
    timeouts: int = 0  # no response began in time
    truncated: int = 0  # inter-byte timeout inside a response
    crc_errors: int = 0
    nacks: int = 0  # the machine NACKed our poll
    busy: int = 0
    wrong_address: int = 0
    garbage: int = 0
    failed: int = 0  # polls given up after their retries
    exceptions: int = 0  # non-zero exceptions received
    unknown_exceptions: int = 0

    def add(self, other: "LinkCounters") -> None:
        for k, v in asdict(other).items():
            setattr(self, k, getattr(self, k) + v)

    def as_dict(self) -> dict[str, int]:
        return asdict(self)


class LinkState(Enum):
    UNKNOWN = "unknown"
    ONLINE = "online"
    OFFLINE = "offline"


class TxOutcome(Enum):
    PENDING = "pending"
    OK = "ok"  # :attr:`PollTransaction.result` holds the response
    BUSY = "busy"
    FAILED = "failed"  # no good response after the retries


class MachineLink:
    """One machine's link as the host sees it."""

    def __init__(self, address: int, timings: LinkTimings) -> None:
        self.address = address
        self.timings = timings
        self.state = LinkState.UNKNOWN
        self.counters = LinkCounters()
        self.missed = 0  # consecutive failed polls
        self.last_exception: int | None = None
        self.last_exception_at: float | None = None
        self.last_response_at: float | None = None
        self.last_general_poll_at: float | None = None
        self.intervals: list[float] = []  # seconds between consecutive general polls (poll cycle)

    def general_poll_started(self, now: float) -> None:
        if self.last_general_poll_at is not None:
            self.intervals.append(now - self.last_general_poll_at)
            if len(self.intervals) > 10_000:
                del self.intervals[:5_000]
        self.last_general_poll_at = now

    def result(self, ok: bool, now: float) -> str | None:
        """Record a poll's end; returns ``"online"`` / ``"offline"`` on a state change, else None."""
        if ok:
            self.missed = 0
            self.last_response_at = now
            if self.state is not LinkState.ONLINE:
                self.state = LinkState.ONLINE
                return "online"
            return None
        self.counters.failed += 1
        self.missed += 1
        if self.missed >= self.timings.offline_after and self.state is not LinkState.OFFLINE:
            self.state = LinkState.OFFLINE
            return "offline"
        return None

    def exception(self, code: int, now: float, *, known: bool) -> None:
        if code:
            self.counters.exceptions += 1
            if not known:
                self.counters.unknown_exceptions += 1
            self.last_exception = code
            self.last_exception_at = now


class PollTransaction:
    """One poll to ``link.address`` (``command`` None: general poll) with its retries. See the module rules."""

    def __init__(self, link: MachineLink | None, address: int, command: int | None, frame: bytes,
                 timings: LinkTimings) -> None:
        self.link = link
        self.address = address
        self.command = command
        self.frame = frame
        self.timings = timings
        self.spec = response_spec(command, address)
        self.attempts = 0
        self.outcome = TxOutcome.PENDING
        self.result: RxResult | None = None
        self.errors: list[str] = []
        self._asm: ResponseAssembler | None = None
        self._sent_at = 0.0
        self._last_char_at: float | None = None
        self.resend = False

    def _c(self) -> LinkCounters:
        return self.link.counters if self.link is not None else LinkCounters()

    def start(self, now: float) -> bytes:
        """Begin (or re-send): returns the frame to write now."""
        self.attempts += 1
        c = self._c()
        c.polls += 1
        if self.attempts > 1:
            c.retries += 1
        elif self.command is None:
            c.general_polls += 1
        else:
            c.long_polls += 1
        if self.command is None and self.attempts == 1 and self.link is not None:
            self.link.general_poll_started(now)
        self._asm = ResponseAssembler(self.address, self.command, self.spec)
        self._sent_at = now
        self._last_char_at = None
        self.resend = False
        if self.spec.kind is ResponseKind.NONE:
            self.outcome = TxOutcome.OK
            self.result = RxResult(RxStatus.COMPLETE)
        return self.frame

    def deadline(self) -> float:
        """When :meth:`tick` must be called if no character arrives."""
        if self._last_char_at is None:
            return self._sent_at + self.timings.response_timeout_s
        return self._last_char_at + self.timings.inter_byte_timeout_s

    def feed(self, chars: Iterable[tuple[int, bool]], now: float) -> None:
        chars = list(chars)
        if not chars or self.outcome is not TxOutcome.PENDING or self.resend:
            return
        assert self._asm is not None
        self._last_char_at = now
        r = self._asm.feed(chars)
        if r.done:
            self._settle(r, now)

    def tick(self, now: float) -> None:
        if self.outcome is not TxOutcome.PENDING or self.resend or now < self.deadline():
            return
        assert self._asm is not None
        if self._last_char_at is None:
            self._settle(None, now)
        else:
            self._settle(self._asm.finish(), now)

    def _settle(self, r: RxResult | None, now: float) -> None:
        c = self._c()
        if r is not None and r.status is RxStatus.COMPLETE:
            self.outcome, self.result = TxOutcome.OK, r
            return
        if r is not None and r.status is RxStatus.BUSY:
            c.busy += 1
            self.outcome, self.result = TxOutcome.BUSY, r
            return
        if r is None:
            c.timeouts += 1
            self.errors.append("timeout")
        else:
            self.errors.append(r.status.value)
            if r.status is RxStatus.BAD_CRC:
                c.crc_errors += 1
            elif r.status is RxStatus.NACK:
                c.nacks += 1
            elif r.status is RxStatus.WRONG_ADDRESS:
                c.wrong_address += 1
            elif r.status is RxStatus.TRUNCATED:
                c.truncated += 1
            else:
                c.garbage += 1
        if self.attempts <= self.timings.retries:
            self.resend = True  # the caller writes :attr:`frame` again (start)
        else:
            self.outcome = TxOutcome.FAILED
            self.result = r


def percentile(values: list[float], q: float) -> float | None:
    """The ``q`` quantile (0..1) of ``values`` by nearest rank; None when empty."""
    if not values:
        return None
    s = sorted(values)
    k = min(len(s) - 1, max(0, int(round(q * (len(s) - 1)))))
    return s[k]



