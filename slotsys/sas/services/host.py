"""The SAS host engine: :class:`SasChannel` polls the machines (addresses 1–127) on one link; :class:`SasHost`
runs several channels, one thread each. SAS is mapped onto a :class:`~.floor_port.FloorPort`.

Poll cycle. Every cycle (``LinkTimings.period_s``: 170 ms, so each machine is polled within SAS's 200 ms
``cycle_s`` with 30 ms to spare for a slot that moves within its cycle) starts with the address-0 general poll (an implied
ACK for everything before it and the synchronisation point of §3.3), then gives each enrolled machine a slot:
one general poll, then up to ``long_polls_per_slot`` queued long polls (the follow-ups of the exceptions, the
floor's instructions). An identical poll that just succeeded is never sent again without the address-0 poll in
between, so a machine cannot read it as an implied NACK. The cycle then waits for its period to end.

Exceptions → long polls → port (exactly once: each port call carries a key from SAS data, see floor_port):
game ended 7F → 2F game meters → bill_in for any notes its bills meter shows first, then record_game (games
played meter); bill 47–50 → 48 (lost: the bills meter) → bill_in (count of that
note); ticket printed 3D → 4D → ticket_issued (secure enhanced numbers checked against the validation ID and
sequence the host set with 4C); system validation 57 → 57 → port number → 58; ticket inserted 67 → 70 →
authorize_ticket → 71, then 68 → 71 FF → ticket_redeemed (commit or release); handpay 51 → 1B →
handpay_pending, the port's paid handpays → 94, handpay reset 52 → handpay_reset; a legacy bonus instruction →
9A (the meter before its first send: bonus_sending, kept by the floor) → 8A → 9A, bonus_result once the meters
grew by it (a bonus the meters already show is never sent again: a lost ACK or a host restart pays once);
legacy bonus 7C is informational; an AFT instruction → 74 lock → 72 transfer → 72 interrogation by transaction
ID → aft_result (one handed again with ``resend``: interrogated first, sent only if the machine does not know
it); AFT 69 → 72 interrogation; door, power, tilt and printer exceptions →
record_event; 70 (buffer overflow) → a full meter reconciliation. Enrolment (first contact, back online,
power applied): 1F, 54, 56, the meters (2F), 9A → port.enrol; then 4C (secure enhanced), 7F (date/time),
21 (ROM signature with a random seed; a mismatch disables the machine, 01, and is reported) and 1B (a handpay
lock-up still pending: handpay_pending again under its key, so a restarted host still resets it once paid).

Floor worker. The port calls that answer nothing the machine waits for (games, notes, tickets, handpays, events,
bonus and AFT results) are queued per machine and applied in order by the channel's floor worker thread, so the
poll cycle never waits on the database; a call that fails is tried again, the same call with the same key, and the
machine's later calls wait behind it. Enrolment and the instructions wait until the machine's queue is empty.

Bad input is logged and counted, moves no money and never stops the channel: a bad CRC, a truncated or
wrong-address response (retried), an unknown exception code, a meter going backwards (``meter_regressions``;
no game is derived from it), a ticket inserted twice (the port refuses the second), an AFT above the balance
(the port refuses it before it reaches the machine).
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from collections import deque
from dataclasses import asdict, dataclass, field
from typing import Callable, Mapping, Sequence

from slotsys.floor.domain.machine_events import BY_CODE
from slotsys.sas.domain import messages as m
from slotsys.sas.domain.clock import Clock, SystemClock
from slotsys.sas.domain.codes import (
    BILL_EXCEPTIONS, EXC, LP, METER, AftStatus, AftTransferType, HandpayLevel, RedeemCode, RedeemStatus,
    bill_won, denomination_won,
)
from slotsys.sas.domain.framing import FrameError, general_poll
from slotsys.sas.domain.link import LinkCounters, LinkState, LinkTimings, MachineLink, PollTransaction, TxOutcome, percentile
from slotsys.sas.services.floor_port import (
    AftResult, AftTransferRequest, BillIn, BonusResult, BonusSending, FloorPort, GamePlayed, HandpayPending, HandpayReset,
    InstructionDone, LegacyBonusAward, MachineEvent, MachineIdentity, MeterReport, SetEnabled, SignatureCheck,
    SystemValidationRequest, TicketAuthorize, TicketIssued, TicketRedeemed,
)
from tito.domain.validation import sas_secure_enhanced_number

log = logging.getLogger("slotsys.sas.host")

__all__ = ["SasHost", "SasChannel", "MachineSpec", "ChannelCounters", "MachineSnapshot", "GAME_METERS",
           "RECON_METERS"]

# meters read after a game ended (one 2F poll)
GAME_METERS = (METER.COIN_IN, METER.COIN_OUT, METER.JACKPOT, METER.GAMES_PLAYED, METER.GAMES_WON,
               METER.MACHINE_PAID_PAYTABLE_WIN, METER.CURRENT_CREDITS, METER.HANDPAID_CANCELLED, METER.BILLS)
# the full reconciliation set (two 2F polls + 9A)
RECON_METERS = (
    (METER.COIN_IN, METER.COIN_OUT, METER.JACKPOT, METER.HANDPAID_CANCELLED, METER.CANCELLED, METER.GAMES_PLAYED,
     METER.GAMES_WON, METER.BILLS, METER.CURRENT_CREDITS, METER.MACHINE_PAID_PAYTABLE_WIN),
    (METER.TICKET_IN_CENTS, METER.TICKET_OUT_CENTS, METER.TICKET_IN_COUNT, METER.TICKET_OUT_COUNT,
     METER.MACHINE_PAID_EXTERNAL_BONUS, METER.HAND_PAID_PAYTABLE_WIN, METER.AFT_IN_CENTS, METER.AFT_IN_COUNT,
     METER.AFT_OUT_CENTS, METER.AFT_OUT_COUNT),
)
# meter code → (name, is a credit meter: × denomination for won)
_NAMES: dict[int, tuple[str, bool]] = {
    METER.COIN_IN: ("coin_in", True), METER.COIN_OUT: ("coin_out", True), METER.JACKPOT: ("jackpot", True),
    METER.HANDPAID_CANCELLED: ("handpaid_cancelled", True), METER.CANCELLED: ("cancelled", True),
    METER.GAMES_PLAYED: ("games_played", False), METER.GAMES_WON: ("games_won", False),
    METER.BILLS: ("bills", True), METER.CURRENT_CREDITS: ("credits", True),
    METER.MACHINE_PAID_PAYTABLE_WIN: ("paytable_win", True), METER.TICKET_IN_CENTS: ("ticket_in", False),
    METER.TICKET_OUT_CENTS: ("ticket_out", False), METER.TICKET_IN_COUNT: ("ticket_in_count", False),
    METER.TICKET_OUT_COUNT: ("ticket_out_count", False), METER.MACHINE_PAID_EXTERNAL_BONUS: ("external_bonus", True),
    METER.HAND_PAID_PAYTABLE_WIN: ("handpaid_paytable_win", True), METER.AFT_IN_CENTS: ("aft_in", False),
    METER.AFT_IN_COUNT: ("aft_in_count", False), METER.AFT_OUT_CENTS: ("aft_out", False),
    METER.AFT_OUT_COUNT: ("aft_out_count", False),
}
# meters that only ever grow (a decrease is a machine fault or a soft reset: never accounted)
_MONOTONIC = frozenset(c for c in _NAMES if c != METER.CURRENT_CREDITS)


@dataclass(frozen=True)
class MachineSpec:
    """A machine enrolled on a channel: SAS ``address`` 1–127, the floor's ``asset`` number, and the AFT
    ``asset_number`` the machine carries (0: not checked)."""

    address: int
    asset: str
    asset_number: int = 0


@dataclass
class ChannelCounters(LinkCounters):
    """A channel's counters: the sum of its machines' link counters plus the host-level ones."""

    cycles: int = 0
    sync_polls: int = 0
    stray_bytes: int = 0
    meter_regressions: int = 0
    port_errors: int = 0
    games: int = 0
    signature_mismatches: int = 0
    aft_refused: int = 0
    bonus_refused: int = 0


@dataclass(frozen=True)
class MachineSnapshot:
    """One machine's link state for dashboards (plain data)."""

    address: int
    asset: str
    state: str
    enrolled: bool
    polls: int
    retries: int
    timeouts: int
    crc_errors: int
    last_exception: str | None
    signature: str  # unknown | pending | ok | mismatch
    queued_long_polls: int
    cycle_p50_ms: float | None
    cycle_p99_ms: float | None


@dataclass
class _Job:
    name: str
    command: int
    frame: bytes
    on_ok: Callable[[bytes], None]
    on_fail: Callable[[str], None] | None = None
    on_busy: Callable[[], None] | None = None


@dataclass
class _Session:
    spec: MachineSpec
    link: MachineLink
    jobs: deque = field(default_factory=deque)
    enrolled: bool = False
    enrolling: bool = False
    enrolment: object = None
    denom: int = 0
    baseline: dict[int, int] = field(default_factory=dict)
    bill_counts: dict[int, int] = field(default_factory=dict)
    validation_id: int = 0
    validation_seq: int = 0
    signature: str = "unknown"
    seed: int | None = None
    handpays_open: list = field(default_factory=list)  # [(key, kind, amount)] oldest first
    resetting: set = field(default_factory=set)
    ticket_in: tuple | None = None  # (key, validation number, decision)
    inflight: dict = field(default_factory=dict)  # instruction id → state
    bonus_acked: set = field(default_factory=set)  # legacy bonuses the machine ACKed: owed, never sent again
    pending_calls: deque = field(default_factory=deque)  # port calls not applied yet, in order (the floor worker's)
    calls_retry_at: float = 0.0  # the head call failed: the floor worker tries it again from then
    calls_ready: threading.Condition = field(default_factory=threading.Condition)  # _call notifies the worker
    fetching: bool = False  # the floor worker is asking the floor for this machine's instructions
    fetched: tuple | None = None  # (instructions, paid handpay keys) the floor worker got, for the poll thread
    event_seq: int = 0
    identity: dict = field(default_factory=dict)
    last_instructions_at: float = -1e9
    last_recon_at: float = 0.0
    disabled_for: str | None = None


class SasChannel:
    """One SAS channel (one link, many machines). ``run_cycle`` polls every machine once; ``run`` loops until
    ``stop`` is set.

    The floor's side of what the machines report (games, notes, tickets out and in, handpays, events, bonus and
    AFT results: the port calls that answer nothing the machine waits for) is applied by a **floor worker** per
    machine (``run_floor``, a thread each, started by ``run``), in the machine's order, so a slow, hung or
    unreachable floor never stretches the poll cycle: the machines keep their 200 ms general poll while the floor
    catches up, and one machine's stuck call never holds another's. A call that raises stays at the head of its
    machine's queue and is tried again (the same call, the same key) after ``retry_s``; the machine's later calls
    wait behind it. The calls whose answer the
    protocol needs now (enrolment, a ticket's authorisation, a system validation number, the expected ROM
    signature, the instructions and paid handpays, a bonus's meter) stay on the poll thread, and a machine's
    instructions and enrolment wait until its queue is empty, so the floor has seen everything before it decides.
    ``floor_worker=False``: every call on the poll thread (``run_cycle`` then drains the queues itself)."""

    def __init__(self, name: str, link, machines: Sequence[MachineSpec], port: FloorPort, *,
                 clock: Clock | None = None, timings: LinkTimings | None = None, instructions_every_s: float = 0.5,
                 reconcile_every_s: float = 60.0, handpays_every_s: float = 0.5, floor_worker: bool = True,
                 retry_s: float = 0.5) -> None:
        self.name = name
        self.link = link
        self.port = port
        self.clock = clock or SystemClock()
        self.timings = timings or LinkTimings()
        self.instructions_every_s = instructions_every_s
        self.reconcile_every_s = reconcile_every_s
        self.handpays_every_s = handpays_every_s
        addrs = [s.address for s in machines]
        if len(set(addrs)) != len(addrs) or not all(1 <= a <= 127 for a in addrs):
            raise ValueError(f"channel {name}: addresses must be unique, 1..127: {addrs}")
        self.sessions = [_Session(s, MachineLink(s.address, self.timings)) for s in machines]
        self.by_asset = {s.spec.asset: s for s in self.sessions}
        self.counters = ChannelCounters()
        self._last_frame: bytes | None = None
        self._last_ok = False
        self.cycle_times: list[float] = []
        self.stop = threading.Event()
        self.lock = threading.RLock()
        self.floor_worker = floor_worker
        self.retry_s = retry_s

    # ------------------------------------------------------------------ wire
    def _exchange(self, link: MachineLink | None, address: int, command: int | None, frame: bytes):
        """Send one poll (with its retries) and wait for the response; returns the transaction."""
        stray = self.link.receive(0)
        if stray:
            self.counters.stray_bytes += len(stray)
        if self._last_ok and frame == self._last_frame and address != 0:
            self._sync_poll()
        tx = PollTransaction(link, address, command, frame, self.timings)
        self.link.send(tx.start(self.clock.monotonic()), wakeup=True)
        while tx.outcome is TxOutcome.PENDING:
            now = self.clock.monotonic()
            if tx.resend:
                self.link.send(tx.start(now), wakeup=True)
                continue
            chars = self.link.receive(max(tx.deadline() - now, 0.0))
            now = self.clock.monotonic()
            if chars:
                tx.feed(chars, now)
            else:
                tx.tick(now)
        self._last_frame, self._last_ok = frame, tx.outcome is TxOutcome.OK
        if link is not None and address != 0:
            change = link.result(tx.outcome in (TxOutcome.OK, TxOutcome.BUSY), self.clock.monotonic())
            if change:
                self._link_changed(self._session(address), change)
        return tx

    def _sync_poll(self) -> None:
        self.counters.sync_polls += 1
        self.link.send(general_poll(0), wakeup=True)
        self._last_frame, self._last_ok = general_poll(0), False

    def _session(self, address: int) -> _Session:
        return next(s for s in self.sessions if s.spec.address == address)

    # ------------------------------------------------------------------ cycle
    def run(self) -> None:
        workers = []
        if self.floor_worker:
            for s in self.sessions:
                workers.append(threading.Thread(target=self.run_floor, args=(s,), daemon=True,
                                                name=f"sas-floor-{self.name}-{s.spec.address}"))
                workers[-1].start()
        try:
            self._poll_loop()
        finally:
            for s in self.sessions:
                with s.calls_ready:
                    s.calls_ready.notify_all()
            deadline = time.monotonic() + 6.0
            for w in workers:
                w.join(max(0.0, deadline - time.monotonic()))

    def _poll_loop(self) -> None:
        while not self.stop.is_set():
            started = self.clock.monotonic()
            self.run_cycle()
            rest = self.timings.period_s - (self.clock.monotonic() - started)
            if rest > 0:
                self.stop.wait(rest)

    def run_cycle(self) -> None:
        with self.lock:
            started = self.clock.monotonic()
            self.counters.cycles += 1
            self._sync_poll()
            for s in self.sessions:
                self._slot(s)
            self.cycle_times.append(self.clock.monotonic() - started)
            if len(self.cycle_times) > 10_000:
                del self.cycle_times[:5_000]

    def _slot(self, s: _Session) -> None:
        if not self.floor_worker:
            self._drain_calls(s)
        tx = self._exchange(s.link, s.spec.address, None, general_poll(s.spec.address))
        if tx.outcome is TxOutcome.OK:
            self._general_response(s, tx.result.frame)
        if s.link.state is LinkState.OFFLINE:
            return
        now = self.clock.monotonic()
        if s.fetched is not None:  # what the floor worker asked the floor for: act on it in this slot
            todo, paid = s.fetched
            s.fetched = None
            self._act(s, todo, paid)
        if s.enrolled and not s.pending_calls:
            if now - s.last_instructions_at >= self.instructions_every_s:
                s.last_instructions_at = now
                self._instructions(s)
            if self.reconcile_every_s and now - s.last_recon_at >= self.reconcile_every_s:
                self.reconcile(s.spec.asset, "periodic")
        for _ in range(self.timings.long_polls_per_slot):
            if not s.jobs:
                break
            self._run_job(s, s.jobs.popleft())

    def _run_job(self, s: _Session, job: _Job) -> None:
        tx = self._exchange(s.link, s.spec.address, job.command, job.frame)
        if tx.outcome is TxOutcome.OK:
            try:
                job.on_ok(tx.result.frame)
            except FrameError as e:
                log.warning("sas.bad_response", extra={"asset": s.spec.asset, "poll": job.name, "error": str(e)})
                self.counters.garbage += 1
                if job.on_fail:
                    job.on_fail("bad_response")
        elif tx.outcome is TxOutcome.BUSY:
            (job.on_busy or (lambda: s.jobs.append(job)))()
        else:
            log.info("sas.poll_failed", extra={"asset": s.spec.asset, "poll": job.name, "errors": tx.errors})
            if job.on_fail:
                job.on_fail(",".join(tx.errors))

    def _job(self, s: _Session, name: str, msg: m.Message, on_ok, on_fail=None, on_busy=None, *, front=False):
        job = _Job(name, msg.COMMAND, msg.encode(s.spec.address), on_ok, on_fail, on_busy)
        (s.jobs.appendleft if front else s.jobs.append)(job)

    # ------------------------------------------------------------------ port calls, exactly once
    def _call(self, s: _Session, fn: Callable[[], None]) -> None:
        """Queue a port call for the floor worker (in order per machine; the same call, same key, until it
        succeeds). Without a floor worker it is applied now, the queue first."""
        s.pending_calls.append(fn)
        if self.floor_worker:
            with s.calls_ready:
                s.calls_ready.notify()
        else:
            self._drain_calls(s)

    def _drain_calls(self, s: _Session) -> bool:
        """Apply ``s``'s queued calls in order; stop at the first that raises (kept for ``retry_s`` later).
        Returns True when the queue is empty."""
        while s.pending_calls:
            if s.calls_retry_at and self.clock.monotonic() < s.calls_retry_at:
                return False
            fn = s.pending_calls[0]
            try:
                fn()
            except Exception:
                self.counters.port_errors += 1
                s.calls_retry_at = self.clock.monotonic() + self.retry_s
                log.warning("sas.port_error asset=%s (kept, tried again in %.1f s)", s.spec.asset, self.retry_s,
                            exc_info=True)
                return False
            s.calls_retry_at = 0.0
            s.pending_calls.popleft()
        return True

    def run_floor(self, s: _Session) -> None:
        """Machine ``s``'s floor worker: apply its queued port calls until ``stop``, then what is still queued if
        the floor takes it within 5 s (a host that stops loses nothing it could hand over)."""
        give_up_at: float | None = None
        while True:
            drained = self._drain_calls(s)
            if self.stop.is_set():
                give_up_at = give_up_at or self.clock.monotonic() + 5.0
                if drained or self.clock.monotonic() > give_up_at:
                    return
            with s.calls_ready:
                if not drained:  # the head call failed: try it again at its retry time
                    s.calls_ready.wait(self.retry_s / 5)
                elif not s.pending_calls:
                    s.calls_ready.wait(0.5)

    def _event(self, s: _Session, kind: str, code: int | None = None, **detail) -> None:
        s.event_seq += 1
        ev = MachineEvent(s.spec.asset, f"{s.spec.asset}:event:{s.event_seq}", kind, code, detail)
        self._call(s, lambda: self.port.record_event(ev))

    # ------------------------------------------------------------------ link state
    def _link_changed(self, s: _Session, change: str) -> None:
        if change == "offline":
            self._event(s, "comms_lost")
            s.enrolled = False
            s.jobs.clear()
        else:
            if s.link.counters.polls > 1 and s.signature != "unknown":
                self._event(s, "comms_restored")
            self._start_enrolment(s, "online")

    # ------------------------------------------------------------------ general poll responses
    def _general_response(self, s: _Session, frame: bytes) -> None:
        now = self.clock.monotonic()
        if len(frame) == 6 and frame[1] == LP.ROM_SIGNATURE:
            self._signature(s, m.RomSignature.decode(frame).signature)
            return
        code = frame[0]
        if code == EXC.NO_ACTIVITY:
            return
        handled = self._exception(s, code)
        known = handled or code in BY_CODE
        s.link.exception(code, now, known=known)
        if code in BY_CODE:
            self._event(s, BY_CODE[code].kind, code)
        if not known:
            log.warning("sas.unknown_exception %s 0x%02X", s.spec.asset, code)

    def _exception(self, s: _Session, code: int) -> bool:
        if not s.enrolled and code not in (EXC.POWER_ON,):
            return code in (EXC.GAME_STARTED, EXC.GAME_ENDED) or code in BILL_EXCEPTIONS or code in (
                0x3D, 0x51, 0x52, 0x57, 0x67, 0x68, 0x69, 0x6F, 0x70, 0x7C, 0x3F)
        if code == EXC.GAME_ENDED:
            self._job(s, "2F game", m.SelectedMetersRequest(GAME_METERS), lambda f: self._game_meters(s, f),
                      lambda e: self._job(s, "2F game", m.SelectedMetersRequest(GAME_METERS),
                                          lambda f: self._game_meters(s, f)))
        elif code in BILL_EXCEPTIONS:
            self._job(s, "48", m.SendLastBill(), lambda f: self._bill(s, f),
                      lambda e: self._job(s, "2F bills", m.SelectedMetersRequest((METER.BILLS,)),
                                          lambda f: self._bill_meter(s, m.SelectedMeters.decode(f).meters, None),
                                          front=True))
        elif code in (EXC.TICKET_PRINTED, EXC.HANDPAY_VALIDATED):
            # a priority exception, reported before older queued game-ended ones: the games that won the
            # ticket's credits are accounted from the meters first (their keys make the later 7F a no-op)
            self._job(s, "2F game", m.SelectedMetersRequest(GAME_METERS), lambda f: self._game_meters(s, f))
            self._job(s, "4D", m.EnhancedValidationRequest(0), lambda f: self._ticket_out(s, f))
        elif code == EXC.VALIDATION_ID_NOT_CONFIGURED:
            self._set_validation_id(s)
        elif code == EXC.SYSTEM_VALIDATION_REQUEST:
            self._job(s, "57", m.SendPendingCashout(), lambda f: self._pending_cashout(s, f))
        elif code == EXC.TICKET_INSERTED:
            self._job(s, "70", m.SendTicketValidationData(), lambda f: self._ticket_data(s, f))
        elif code == EXC.TICKET_TRANSFER_COMPLETE:
            self._job(s, "71 status", m.RedeemTicket(RedeemCode.REQUEST_STATUS), lambda f: self._ticket_final(s, f))
        elif code == EXC.HANDPAY_PENDING:
            # priority too: the games before it first (a cancelled-credit handpay pays the credits they left)
            self._job(s, "2F game", m.SelectedMetersRequest(GAME_METERS), lambda f: self._game_meters(s, f))
            self._job(s, "1B", m.SendHandpayInfo(), lambda f: self._handpay_info(s, f))
        elif code == EXC.HANDPAY_RESET:
            self._job(s, "2F handpay", m.SelectedMetersRequest(GAME_METERS), lambda f: self._handpay_reset(s, f))
        elif code == EXC.AFT_TRANSFER_COMPLETE:
            self._job(s, "72 interrogate", m.AftInterrogate(), lambda f: self._aft_final(s, f))
        elif code == EXC.BUFFER_OVERFLOW:
            self._event(s, "exception_buffer_overflow")
            self.reconcile(s.spec.asset, "overflow")
        elif code == EXC.POWER_ON:
            self._start_enrolment(s, "power_on")
        elif code in (EXC.GAME_STARTED, EXC.GAME_LOCKED, EXC.LEGACY_BONUS_AWARDED, EXC.CASHOUT_PRESSED):
            pass  # informational here: games are derived at game end, bonuses confirmed by the 9A meters
        else:
            return code in BY_CODE
        return True

    # ------------------------------------------------------------------ enrolment
    def _start_enrolment(self, s: _Session, trigger: str) -> None:
        if s.enrolling:
            return
        s.enrolling = True
        s.identity = {"trigger": trigger}
        log.info("sas.enrolment", extra={"asset": s.spec.asset, "trigger": trigger})
        fail = lambda e: self._enrol_failed(s, e)  # noqa: E731
        self._job(s, "1F", m.SendMachineInfo(), lambda f: s.identity.update(info=m.MachineInfo.decode(f)), fail)
        self._job(s, "54", m.SendSasVersion(), lambda f: s.identity.update(version=m.SasVersion.decode(f)), fail)
        self._job(s, "56", m.SendEnabledGames(), lambda f: s.identity.update(games=m.EnabledGames.decode(f)), fail)
        for i, codes in enumerate(RECON_METERS):
            self._job(s, f"2F recon{i}", m.SelectedMetersRequest(codes),
                      lambda f: s.identity.setdefault("meters", {}).update(m.SelectedMeters.decode(f).meters), fail)
        self._job(s, "9A", m.SendLegacyBonusMeters(), lambda f: self._enrol_finish(s, m.LegacyBonusMeters.decode(f)),
                  fail)

    def _enrol_failed(self, s: _Session, error: str) -> None:
        s.enrolling = False
        for job in list(s.jobs):
            if job.name in ("1F", "54", "56", "2F recon0", "2F recon1", "9A"):
                s.jobs.remove(job)
        # try again at the next slot
        self._start_enrolment(s, s.identity.get("trigger", "retry"))

    def _named(self, s: _Session, meters: dict[int, int], bonus: int | None = None) -> dict[str, int]:
        out = {}
        for code, value in meters.items():
            name, credit = _NAMES.get(code, (None, False))
            if name:
                out[name] = value * s.denom if credit else value
        if bonus is not None:
            out["legacy_bonus"] = bonus * s.denom
        return out

    def _codes(self, s: _Session, named: Mapping[str, int]) -> dict[int, int]:
        """The inverse of :meth:`_named`: SAS names (won / counts) → meter codes (credits / counts)."""
        out = {}
        for code, (name, credit) in _NAMES.items():
            if name in named:
                out[code] = int(named[name]) // s.denom if credit else int(named[name])
        return out

    def _enrol_finish(self, s: _Session, bonus: m.LegacyBonusMeters) -> None:
        ident = s.identity
        info: m.MachineInfo = ident["info"]
        try:
            s.denom = denomination_won(info.denomination_code)
        except ValueError:
            s.enrolling = False
            self._event(s, "enrolment_refused", reason=f"denomination code 0x{info.denomination_code:02X}")
            return
        raw = dict(ident.get("meters", {}))
        identity = MachineIdentity(s.spec.asset, s.spec.address, ident["version"].version, ident["version"].serial,
                                   info.game_id, info.additional_id, info.paytable_id, s.denom, info.max_bet,
                                   info.base_percent, ident["games"].games)
        report = MeterReport(s.spec.asset, f"{s.spec.asset}:meters:{raw.get(METER.GAMES_PLAYED, 0)}:enrolment",
                             "enrolment", self._named(s, raw, bonus.total))
        s.enrolling = False
        if s.pending_calls:  # the floor has not seen all this machine reported before: enrol once it has
            self._start_enrolment(s, "floor_catching_up")
            return
        try:
            enrolment = self.port.enrol(identity, report)
        except Exception:
            self.counters.port_errors += 1
            log.exception("sas.enrol_port_error", extra={"asset": s.spec.asset})
            self._start_enrolment(s, "retry")
            return
        if not enrolment.accepted:
            s.disabled_for = enrolment.reason
            self._event(s, "enrolment_refused", reason=enrolment.reason)
            self._job(s, "01", m.EnablePlay(False), lambda f: None)
            return
        s.enrolment = enrolment
        if not s.baseline and enrolment.accounted:
            # this host has no baseline of its own (it started, or restarted after a crash) but the floor accounted
            # the machine before: what it did since (notes, games played while no host ran) is accounted below
            s.baseline = self._codes(s, enrolment.accounted)
        if s.baseline:
            # enrolled before (back online, power applied): account what happened meanwhile from the same
            # meters before they become the baseline, with the same keys the exceptions would have produced;
            # notes first (money in can only raise the credits: games staked from them then find them there)
            self._bill_meter(s, raw, None)
            self._account_games(s, raw)
        s.enrolled = True
        s.baseline = {c: v for c, v in raw.items()}
        s.bonus_total = bonus.total
        s.last_recon_at = self.clock.monotonic()
        if enrolment.validation == "secure_enhanced":
            s.validation_id, s.validation_seq = enrolment.validation_id, enrolment.validation_sequence
            self._set_validation_id(s)
        self._job(s, "7F", m.SetDateTime(self.clock.now()), lambda f: None)
        s.seed = secrets.randbelow(0x10000)
        s.signature = "pending"
        self._job(s, "21", m.RomSignatureRequest(s.seed), lambda f: None)
        self._job(s, "02", m.EnablePlay(True), lambda f: None)
        # a handpay lock-up this host has not heard of (it restarted, or 0x51 was read before it went offline):
        # 1B again, the same key from the same meters, so the port's queue is found again and the reset follows
        self._job(s, "1B", m.SendHandpayInfo(), lambda f: self._handpay_info(s, f))

    def _set_validation_id(self, s: _Session) -> None:
        if s.enrolment is None or s.enrolment.validation != "secure_enhanced":
            return

        def done(f: bytes) -> None:
            st = m.ValidationIdState.decode(f)
            if st.machine_id == s.validation_id:
                s.validation_seq = st.sequence  # the machine keeps a sequence it already moved past (§15.6)

        self._job(s, "4C", m.SetValidationId(s.validation_id, s.validation_seq), done)

    def _signature(self, s: _Session, reported: int) -> None:
        if s.seed is None:
            return
        seed, s.seed = s.seed, None
        expected = self.port.expected_signature(s.spec.asset, seed)
        check = SignatureCheck(s.spec.asset, seed, expected, reported)
        s.signature = "ok" if check.ok else "mismatch"
        if not check.ok:
            self.counters.signature_mismatches += 1
            log.warning("sas.signature_mismatch", extra={"asset": s.spec.asset, "seed": seed})
            self._job(s, "01", m.EnablePlay(False), lambda f: None, front=True)
            self._event(s, "software_signature_mismatch", seed=seed, expected=expected, reported=reported)
        self._call(s, lambda: self.port.software_verification(check))

    def verify_software(self, asset: str) -> None:
        """Ask ``asset`` for its ROM signature with a fresh random seed (the answer arrives on a general poll)."""
        with self.lock:
            s = self.by_asset[asset]
            s.seed = secrets.randbelow(0x10000)
            s.signature = "pending"
            self._job(s, "21", m.RomSignatureRequest(s.seed), lambda f: None)

    # ------------------------------------------------------------------ meters, games
    def _regressed(self, s: _Session, meters: dict[int, int]) -> bool:
        back = {c: (s.baseline[c], v) for c, v in meters.items()
                if c in _MONOTONIC and c in s.baseline and v < s.baseline[c]}
        if back:
            self.counters.meter_regressions += 1
            log.warning("sas.meter_decreased", extra={"asset": s.spec.asset, "meters": back})
            self._event(s, "meter_decreased", meters={_NAMES[c][0]: pair for c, pair in back.items()})
        return bool(back)

    def _game_meters(self, s: _Session, frame: bytes) -> None:
        """A game-ended read: the notes behind its bills meter first (a 48 lost to the link, or not polled yet,
        must not leave the game staked from credits the floor has not been told of), then the game(s)."""
        meters = dict(m.SelectedMeters.decode(frame).meters)
        self._bill_meter(s, meters, None)
        self._account_games(s, meters)

    def _account_games(self, s: _Session, meters: dict[int, int]) -> None:
        """Derive the game(s) played since the baseline from ``meters`` (games played, coin-in, paytable win)."""
        if any(c not in meters for c in (METER.GAMES_PLAYED, METER.COIN_IN, METER.MACHINE_PAID_PAYTABLE_WIN)):
            return
        if self._regressed(s, meters):
            return
        b = s.baseline
        games = meters[METER.GAMES_PLAYED] - b.get(METER.GAMES_PLAYED, 0)
        if games <= 0:
            return  # already accounted (a repeated game-ended exception)
        d = {c: meters[c] - b.get(c, 0) for c in (METER.COIN_IN, METER.MACHINE_PAID_PAYTABLE_WIN, METER.GAMES_WON)}
        gp_ = meters[METER.GAMES_PLAYED]
        game = GamePlayed(s.spec.asset, f"{s.spec.asset}:game:{gp_}", gp_, games, d[METER.COIN_IN] * s.denom,
                          d[METER.MACHINE_PAID_PAYTABLE_WIN] * s.denom, d[METER.GAMES_WON], self._named(s, meters))
        for c in (METER.COIN_IN, METER.COIN_OUT, METER.GAMES_PLAYED, METER.GAMES_WON, METER.MACHINE_PAID_PAYTABLE_WIN):
            b[c] = meters[c]
        self.counters.games += games
        self._call(s, lambda: self.port.record_game(game))

    def reconcile(self, asset: str, trigger: str = "reconcile") -> None:
        """Queue a full meter reconciliation of ``asset``: the game meters (notes and games accounted), the unread
        validation records (tickets whose 3D an overflowing queue lost), then 2F × 2, 9A → port.reconcile_meters.
        In that order the money comes in before it is played and played before it is cashed out, and the meters
        compared are read after the tickets (a machine still playing may move them again meanwhile)."""
        s = self.by_asset[asset]
        s.last_recon_at = self.clock.monotonic()

        def read() -> None:
            got: dict[int, int] = {}
            for i, codes in enumerate(RECON_METERS):
                self._job(s, f"2F recon{i}", m.SelectedMetersRequest(codes),
                          lambda f: got.update(m.SelectedMeters.decode(f).meters))

            def finish(f: bytes) -> None:
                if len(got) < sum(len(c) for c in RECON_METERS):
                    return  # a part was lost: the next reconciliation covers it
                # notes and games since are accounted from these same meters first (an exception queue overflow
                # loses game-ended exceptions; the meters do not lose games), notes first
                self._bill_meter(s, got, None)
                self._account_games(s, got)
                bonus = m.LegacyBonusMeters.decode(f).total
                report = MeterReport(asset, f"{asset}:meters:{got.get(METER.GAMES_PLAYED, 0)}:{trigger}", trigger,
                                     self._named(s, got, bonus))
                self._call(s, lambda: self.port.reconcile_meters(report))

            self._job(s, "9A recon", m.SendLegacyBonusMeters(), finish)

        def games(f: bytes) -> None:
            self._game_meters(s, f)
            if s.ticket_in is not None:
                # a ticket in whose end (68) has not been read (still queued behind others, or lost to an
                # overflow): ask its status (71 FF) first, so the ticket is settled before the meters compare
                self._job(s, "71 status recon", m.RedeemTicket(RedeemCode.REQUEST_STATUS),
                          lambda f2: (self._ticket_final(s, f2), self._drain_tickets(s, read)),
                          lambda e: self._drain_tickets(s, read))
                return
            self._drain_tickets(s, read)

        self._job(s, "2F recon game", m.SelectedMetersRequest(GAME_METERS), games,
                  lambda e: self._drain_tickets(s, read))

    def _drain_tickets(self, s: _Session, then: Callable[[], None]) -> None:
        """Read unread validation records (4D) until the machine has none, each to ticket_issued; then ``then``
        (also when a read fails: the next reconciliation reads again)."""
        def got(f: bytes) -> None:
            rec = m.EnhancedValidationRecord.decode(f)
            if rec.empty:
                then()
                return
            self._ticket_record(s, rec)
            self._job(s, "4D drain", m.EnhancedValidationRequest(0), got, lambda e: then(), front=True)

        self._job(s, "4D drain", m.EnhancedValidationRequest(0), got, lambda e: then(), front=True)

    # ------------------------------------------------------------------ bills
    def _bill(self, s: _Session, frame: bytes) -> None:
        """Long poll 48 names the LAST note only; the money comes from the total bill credits meter (0B), so
        two notes accepted between two polls are both accounted."""
        bill = m.LastBill.decode(frame)
        self._job(s, "2F bills", m.SelectedMetersRequest((METER.BILLS,)),
                  lambda f: self._bill_meter(s, m.SelectedMeters.decode(f).meters, bill), front=True)

    def _bill_meter(self, s: _Session, meters: dict[int, int], bill: m.LastBill | None) -> None:
        total = meters.get(METER.BILLS)
        if total is None or self._regressed(s, {METER.BILLS: total}):
            return
        delta = total - s.baseline.get(METER.BILLS, 0)
        if delta <= 0:
            return
        code = -1
        if bill is not None:
            try:
                if bill_won(bill.denomination_code) == delta * s.denom:
                    code = bill.denomination_code
            except ValueError:
                pass
        b = BillIn(s.spec.asset, f"{s.spec.asset}:bills:{total}", delta * s.denom, code,
                   bill.bill_meter if bill is not None and code >= 0 else 0)
        s.baseline[METER.BILLS] = total
        self._call(s, lambda: self.port.bill_in(b))

    # ------------------------------------------------------------------ tickets out
    def _ticket_out(self, s: _Session, frame: bytes) -> None:
        rec = m.EnhancedValidationRecord.decode(frame)
        if rec.empty:
            return
        self._ticket_record(s, rec)
        # more unread records may wait (several tickets between polls)
        self._job(s, "4D", m.EnhancedValidationRequest(0), lambda f: self._ticket_out(s, f))

    def _ticket_record(self, s: _Session, rec: m.EnhancedValidationRecord) -> None:
        vn = rec.validation_number
        verified = True
        scheme = "sas" if rec.system_id == 0 else "system"
        if scheme == "sas":
            verified = False
            for k in range(1, 65):
                seq = (s.validation_seq + k) & 0xFFFFFF
                if sas_secure_enhanced_number(s.validation_id, seq) == vn:
                    s.validation_seq, verified = seq, True
                    break
        t = TicketIssued(s.spec.asset, f"{s.spec.asset}:ticket-out:{vn}", vn, rec.amount, rec.at,
                         rec.ticket_number, scheme, verified)
        self._call(s, lambda: self.port.ticket_issued(t))

    def _pending_cashout(self, s: _Session, frame: bytes) -> None:
        p = m.PendingCashout.decode(frame)
        if p.cashout_type == 0x80:
            return
        req = SystemValidationRequest(s.spec.asset, f"{s.spec.asset}:validate:{p.amount}", p.amount)
        number = None
        try:
            number = self.port.system_validation_number(req)
        except Exception:
            self.counters.port_errors += 1
            log.exception("sas.port_error", extra={"asset": s.spec.asset})
        if number is None:
            msg = m.ReceiveValidationNumber(0, "0" * 16)  # deny: the machine keeps the credits
        else:
            msg = m.ReceiveValidationNumber(int(number[:2]), number[2:])
        self._job(s, "58", msg, lambda f: None, front=True)

    # ------------------------------------------------------------------ tickets in
    def _ticket_data(self, s: _Session, frame: bytes) -> None:
        d = m.TicketValidationData.decode(frame)
        if d.status != 0x00 or d.validation_number is None:
            return
        vn = d.validation_number
        key = f"{s.spec.asset}:ticket-in:{vn}"
        try:
            decision = self.port.authorize_ticket(TicketAuthorize(s.spec.asset, key, vn))
        except Exception:
            self.counters.port_errors += 1
            log.exception("sas.port_error", extra={"asset": s.spec.asset})
            decision = None
        if decision is None:
            msg = m.RedeemTicket(RedeemCode.UNABLE_TO_VALIDATE, 0, vn)
        else:
            msg = m.RedeemTicket(decision.code, decision.amount_won if decision.code < 0x80 else 0, vn)
            if decision.code >= 0x80:
                log.info("sas.ticket_refused", extra={"asset": s.spec.asset, "code": f"0x{decision.code:02X}",
                                                      "reason": decision.reason})
        s.ticket_in = (key, vn, decision)
        self._job(s, "71", msg, lambda f: None, front=True)

    def _ticket_final(self, s: _Session, frame: bytes) -> None:
        st = m.RedeemTicketStatus.decode(frame)
        if st.status in (RedeemStatus.WAITING_FOR_71, RedeemStatus.PENDING):
            self._job(s, "71 status", m.RedeemTicket(RedeemCode.REQUEST_STATUS), lambda f: self._ticket_final(s, f))
            return
        if st.status in (RedeemStatus.NO_VALIDATION_INFO, RedeemStatus.NOT_COMPATIBLE) or s.ticket_in is None:
            return
        key, vn, decision = s.ticket_in
        if st.validation_number not in (None, vn):
            return
        s.ticket_in = None
        if decision is None or decision.code >= 0x80:
            accepted = False
        else:
            accepted = st.status in (RedeemStatus.CASHABLE_REDEEMED,)
        r = TicketRedeemed(s.spec.asset, key, vn, st.amount if accepted else 0, st.status, accepted)
        self._call(s, lambda: self.port.ticket_redeemed(r))

    # ------------------------------------------------------------------ handpays
    def _handpay_info(self, s: _Session, frame: bytes) -> None:
        info = m.HandpayInfo.decode(frame)
        if info.amount == 0:
            return
        kind = "cancelled_credits" if info.level == HandpayLevel.CANCELLED_CREDITS else "jackpot"
        b = s.baseline
        key = (f"{s.spec.asset}:handpay:{b.get(METER.JACKPOT, 0)}:{b.get(METER.HANDPAID_CANCELLED, 0)}:"
               f"{info.amount}")
        if any(k == key for k, _, _ in s.handpays_open):
            return  # the same handpay reissued (0x51 every 15 s)
        s.handpays_open.append((key, kind, info.amount))
        hp = HandpayPending(s.spec.asset, key, info.amount, kind, info.level)
        self._call(s, lambda: self.port.handpay_pending(hp))

    def _handpay_reset(self, s: _Session, frame: bytes) -> None:
        meters = dict(m.SelectedMeters.decode(frame).meters)
        if self._regressed(s, meters) or not s.handpays_open:
            return
        key, kind, amount = s.handpays_open.pop(0)
        s.resetting.discard(key)
        for c in (METER.JACKPOT, METER.HANDPAID_CANCELLED):
            s.baseline[c] = meters[c]
        r = HandpayReset(s.spec.asset, key, amount, kind, True)
        self._call(s, lambda: self.port.handpay_reset(r))

    def _remote_resets(self, s: _Session, paid: set) -> None:
        if not s.handpays_open:
            return
        key = s.handpays_open[0][0]  # the machine resets the oldest handpay first
        if key in paid and key not in s.resetting:
            s.resetting.add(key)
            self._job(s, "94", m.RemoteHandpayReset(), lambda f: self._reset_done(s, key, f),
                      lambda e: s.resetting.discard(key))

    def _reset_done(self, s: _Session, key: str, frame: bytes) -> None:
        code = m.HandpayResetResult.decode(frame).code
        if code != 0:
            s.resetting.discard(key)
            log.info("sas.handpay_reset_refused", extra={"asset": s.spec.asset, "code": code})

    # ------------------------------------------------------------------ instructions: bonus, AFT, enable
    def _instructions(self, s: _Session) -> None:
        """Ask the floor for the machine's instructions and paid handpays: on the floor worker (the answer is acted
        on in a later slot, so the poll thread never waits on the floor), or now without one."""
        if not self.floor_worker:
            got = self._fetch_instructions(s)
            if got is not None:
                self._act(s, *got)
            return
        if s.fetching or s.fetched is not None:
            return
        s.fetching = True

        def fetch() -> None:  # never raises: a failed ask is counted and asked again at the next interval
            try:
                got = self._fetch_instructions(s)
                if got is not None and (got[0] or got[1]):  # nothing to do: the machine stays idle
                    s.fetched = got
            finally:
                s.fetching = False

        self._call(s, fetch)

    def _fetch_instructions(self, s: _Session) -> tuple[list, set] | None:
        try:
            todo = list(self.port.instructions(s.spec.asset))
            paid = set(self.port.handpays_paid(s.spec.asset)) if s.handpays_open else set()
        except Exception:
            self.counters.port_errors += 1
            log.warning("sas.instructions_failed asset=%s", s.spec.asset, exc_info=True)
            return None
        return todo, paid

    def _act(self, s: _Session, todo: list, paid: set) -> None:
        self._remote_resets(s, paid)
        for ins in todo:
            if ins.instruction_id in s.inflight:
                continue
            if isinstance(ins, LegacyBonusAward):
                if any(v == "bonus" for v in s.inflight.values()):
                    continue
                self._bonus(s, ins)
            elif isinstance(ins, AftTransferRequest):
                if any(v == "aft" for v in s.inflight.values()):
                    continue
                self._aft(s, ins)
            elif isinstance(ins, SetEnabled):
                s.inflight[ins.instruction_id] = "enable"
                self._job(s, "enable", m.EnablePlay(ins.enabled), lambda f, i=ins: self._enabled(s, i, True),
                          lambda e, i=ins: self._enabled(s, i, False, e))

    def _enabled(self, s: _Session, ins: SetEnabled, ok: bool, reason: str = "") -> None:
        s.inflight.pop(ins.instruction_id, None)
        done = InstructionDone(s.spec.asset, ins.instruction_id, ok, reason)
        self._call(s, lambda: self.port.instruction_done(done))

    def _bonus(self, s: _Session, ins: LegacyBonusAward) -> None:
        enrol = s.enrolment
        guard = getattr(enrol, "max_bonus_won", 0)
        if ins.amount_won <= 0 or ins.amount_won > guard or ins.amount_won % s.denom:
            self.counters.bonus_refused += 1
            reason = (f"₩{ins.amount_won:,} is above the machine's maximum bonus ₩{guard:,}"
                      if ins.amount_won > guard else "not a whole number of credits")
            r = BonusResult(s.spec.asset, ins.instruction_id, "refused", 0, reason)
            self._call(s, lambda: self.port.bonus_result(r))
            return
        s.inflight[ins.instruction_id] = "bonus"
        credits = ins.amount_won // s.denom
        before = {"total": 0, "sent": 0}

        def check_meters(f: bytes) -> None:  # confirmation: the machine's bonus meters grew by the award
            total = m.LegacyBonusMeters.decode(f).total
            if total < before["total"]:  # below the meter before the first send (a RAM clear?): never send again
                s.inflight.pop(ins.instruction_id, None)
                self.counters.bonus_refused += 1
                r = BonusResult(s.spec.asset, ins.instruction_id, "refused", 0,
                                f"the machine's bonus meters ({total} credits) are below the {before['total']} "
                                "recorded before the bonus was first sent: not sent again")
                self._call(s, lambda: self.port.bonus_result(r))
            elif total >= before["total"] + credits:
                s.inflight.pop(ins.instruction_id, None)
                s.bonus_acked.discard(ins.instruction_id)
                r = BonusResult(s.spec.asset, ins.instruction_id, "paid", ins.amount_won)
                self._call(s, lambda: self.port.bonus_result(r))
            elif ins.instruction_id in s.bonus_acked:
                # the machine took it and pays when it can (at its game's end, §13.3): its meters are read again
                # at the next instruction slot, the bonus is never sent again
                s.inflight.pop(ins.instruction_id, None)
            elif before["sent"] >= 3:
                s.inflight.pop(ins.instruction_id, None)  # not paid after three tries: picked up again later
            else:
                send()

        def confirm(_f: bytes = b"") -> None:
            self._job(s, "9A bonus", m.SendLegacyBonusMeters(), check_meters, lambda e: confirm(), front=True)

        def busy() -> None:
            s.inflight.pop(ins.instruction_id, None)  # the machine cannot pay now: try at a later slot

        def acked(_f: bytes) -> None:
            s.bonus_acked.add(ins.instruction_id)
            confirm()

        def send() -> None:
            before["sent"] += 1
            self._job(s, "8A", m.LegacyBonus(credits, ins.tax_status), acked, lambda e: confirm(), busy,
                      front=True)

        def baseline(f: bytes) -> None:
            # the meter before the award's FIRST send, kept by the floor: after a host restart (or an earlier
            # attempt that lost its answers) a bonus the meter already shows is confirmed, never sent again
            kept = ins.meter_before_won
            if kept is None:
                total_won = m.LegacyBonusMeters.decode(f).total * s.denom
                try:
                    kept = self.port.bonus_sending(BonusSending(s.spec.asset, ins.instruction_id, total_won))
                except Exception:
                    self.counters.port_errors += 1
                    log.exception("sas.port_error", extra={"asset": s.spec.asset})
                    s.inflight.pop(ins.instruction_id, None)  # nothing sent: asked again at a later slot
                    return
                if kept is None:  # no longer pending on the floor
                    s.inflight.pop(ins.instruction_id, None)
                    return
            before["total"] = kept // s.denom
            check_meters(f)

        self._job(s, "9A baseline", m.SendLegacyBonusMeters(), baseline,
                  lambda e: s.inflight.pop(ins.instruction_id, None))

    def _aft(self, s: _Session, ins: AftTransferRequest) -> None:
        if ins.amount_won <= 0 or ins.amount_won % s.denom:
            self.counters.aft_refused += 1
            r = AftResult(s.spec.asset, ins.instruction_id, ins.transaction_id, AftStatus.NOT_MULTIPLE_OF_DENOM, 0)
            self._call(s, lambda: self.port.aft_result(r))
            return
        s.inflight[ins.instruction_id] = "aft"
        ttype = AftTransferType.IN_HOUSE_TO_MACHINE if ins.direction == "to_machine" else AftTransferType.IN_HOUSE_TO_HOST
        cond = 0x01 if ins.direction == "to_machine" else 0x02
        transfer = m.AftTransfer(ins.transaction_id, ttype, ins.amount_won, s.spec.asset_number)
        state = {"tries": 0}

        def finish(status: int, amount: int) -> None:
            s.inflight.pop(ins.instruction_id, None)
            r = AftResult(s.spec.asset, ins.instruction_id, ins.transaction_id, status, amount)
            self._call(s, lambda: self.port.aft_result(r))

        def interrogated(f: bytes) -> None:
            r = m.AftTransferResult.decode(f)
            if r.transaction_id != ins.transaction_id:
                if state["tries"] < 3:
                    send()  # the machine never saw our transfer: the same transaction ID again
                else:
                    s.inflight.pop(ins.instruction_id, None)
                return
            if AftStatus.is_pending(r.status):
                interrogate()
                return
            finish(r.status, r.cashable if AftStatus.is_success(r.status) else 0)

        def interrogate(_e: str = "") -> None:
            self._job(s, "72 interrogate", m.AftInterrogate(), interrogated, lambda e: interrogate(), front=False)

        def sent(f: bytes) -> None:
            r = m.AftTransferResult.decode(f)
            if r.status == AftStatus.TXID_NOT_UNIQUE or AftStatus.is_pending(r.status) or AftStatus.is_success(r.status):
                interrogate()  # the result comes with 0x69; ask now as well (a repeat is harmless)
            else:
                finish(r.status, 0)

        def send() -> None:
            state["tries"] += 1
            self._job(s, "72", transfer, sent, interrogate, front=True)

        def locked(f: bytes) -> None:
            st = m.AftLockStatus.decode(f)
            if s.spec.asset_number and st.asset_number != s.spec.asset_number:
                finish(AftStatus.ASSET_MISMATCH, 0)
            elif st.lock_status == 0x00:
                send()
            else:
                finish(AftStatus.UNABLE_NOW, 0)

        def lock() -> None:
            self._job(s, "74", m.AftLockRequest(0x00, cond, 500), locked,
                      lambda e: s.inflight.pop(ins.instruction_id, None))

        def known(f: bytes) -> None:  # a transfer handed before: did the machine do it already?
            r = m.AftTransferResult.decode(f)
            if r.transaction_id != ins.transaction_id:
                lock()  # the machine's last transfer is another one: ours never reached it
            elif AftStatus.is_pending(r.status):
                interrogate()
            else:
                finish(r.status, r.cashable if AftStatus.is_success(r.status) else 0)

        if ins.resend:
            self._job(s, "72 interrogate", m.AftInterrogate(), known, lambda e: s.inflight.pop(ins.instruction_id, None))
        else:
            lock()

    # ------------------------------------------------------------------ reporting
    def _aft_final(self, s: _Session, frame: bytes) -> None:
        pass  # results are matched by the transfer's own interrogation (transaction ID)

    def snapshot(self) -> list[MachineSnapshot]:
        with self.lock:
            out = []
            for s in self.sessions:
                c = s.link.counters
                p50 = percentile(s.link.intervals, 0.5)
                p99 = percentile(s.link.intervals, 0.99)
                le = s.link.last_exception
                out.append(MachineSnapshot(s.spec.address, s.spec.asset, s.link.state.value, s.enrolled, c.polls,
                                           c.retries, c.timeouts, c.crc_errors, None if le is None else f"0x{le:02X}",
                                           s.signature, len(s.jobs), None if p50 is None else p50 * 1000,
                                           None if p99 is None else p99 * 1000))
            return out

    def totals(self) -> ChannelCounters:
        """The channel's counters: host-level ones plus the sum of its machines' link counters."""
        with self.lock:
            total = ChannelCounters(**asdict(self.counters))
            for k in asdict(LinkCounters()):
                setattr(total, k, getattr(self.counters, k))
            for s in self.sessions:
                total.add(s.link.counters)
            return total

    def idle(self) -> bool:
        """No queued long polls, no instruction in flight and no port call waiting (tests wait for this)."""
        with self.lock:
            return all(not s.jobs and not s.inflight and not s.pending_calls and not s.enrolling
                       and not s.fetching and s.fetched is None for s in self.sessions)


class SasHost:
    """Several channels in one process, one thread each; with ``publish_links`` (``(channel name, snapshots)``, e.g.
    :meth:`slotsys.sas.services.link_state.LinkStateService.publish`) a reporter thread hands every channel's
    :meth:`SasChannel.snapshot` to it every ``publish_every_s`` and once more at :meth:`stop`, so the console sees
    each link. A publication that raises (the database away) is logged and counted (``publish_errors``) and the
    next one is tried at the next interval: the channels never wait for it."""

    def __init__(self, channels: Sequence[SasChannel], *,
                 publish_links: Callable[[str, list[MachineSnapshot]], None] | None = None,
                 publish_every_s: float = 5.0) -> None:
        self.channels = list(channels)
        self._threads: list[threading.Thread] = []
        self.publish_links = publish_links
        self.publish_every_s = publish_every_s
        self.publish_errors = 0
        self.publications = 0
        self._stopping = threading.Event()

    def start(self) -> None:
        self._stopping.clear()
        for ch in self.channels:
            t = threading.Thread(target=ch.run, name=f"sas-{ch.name}", daemon=True)
            t.start()
            self._threads.append(t)
        if self.publish_links is not None:
            t = threading.Thread(target=self._publisher, name="sas-link-state", daemon=True)
            t.start()
            self._threads.append(t)

    def publish_now(self) -> None:
        """Hand every channel's snapshot to ``publish_links`` now (errors logged and counted, never raised)."""
        if self.publish_links is None:
            return
        for ch in self.channels:
            try:
                self.publish_links(ch.name, ch.snapshot())
                self.publications += 1
            except Exception:
                self.publish_errors += 1
                log.warning("sas.link_state_publish_failed channel=%s", ch.name, exc_info=True)

    def _publisher(self) -> None:
        while not self._stopping.wait(self.publish_every_s):
            self.publish_now()

    def stop(self, timeout: float = 5.0) -> None:
        self._stopping.set()
        for ch in self.channels:
            ch.stop.set()
        for t in self._threads:
            t.join(timeout)
        self._threads.clear()
        self.publish_now()  # the links as the host left them (the console then marks them stale)

    def channel_of(self, asset: str) -> SasChannel:
        return next(ch for ch in self.channels if asset in ch.by_asset)

    def reconcile_all(self, trigger: str = "reconcile") -> None:
        for ch in self.channels:
            with ch.lock:
                for s in ch.sessions:
                    if s.enrolled:
                        ch.reconcile(s.spec.asset, trigger)

    def snapshot(self) -> dict[str, list[MachineSnapshot]]:
        return {ch.name: ch.snapshot() for ch in self.channels}

    def counters(self) -> dict[str, dict[str, int]]:
        return {ch.name: asdict(ch.totals()) for ch in self.channels}



