"""The EGM model: a SAS gaming machine the emulator runs, deciding its own outcomes with a catalogue game and
its own RNG, keeping SAS meters, an exception queue, tickets, handpays, legacy bonuses and AFT transfers.

Two faces:
* player / attendant actions: :meth:`EgmModel.insert_bill`, :meth:`play`, :meth:`cash_out`,
  :meth:`insert_ticket`, :meth:`event` (doors, printer, tilts: any code of the machine event vocabulary),
  :meth:`power_off` / :meth:`power_on`;
* the SAS side: :class:`EgmSasInterface` decodes host messages, applies the implied ACK / NACK rules (§3) and
  synchronisation (§3.3), and calls :meth:`EgmModel.general_poll` / :meth:`EgmModel.long_poll` for NEW polls
  only (a repeated poll is answered with the same bytes and never processed twice).

Units: credits (accounting denomination = the machine's denomination, won per credit) for the credit meter and
credit meters; won for SAS "cents" amounts (tickets, AFT, handpay amounts). Rules followed: SAS 6.02 §7.8
(handpay queue, 1B, 94), §8 (AFT lock, transfer, interrogation; transaction IDs unique), §13.3 (legacy bonus:
paid at once when idle, refused with "busy" in a handpay, tilt or door open), §15 (secure enhanced validation:
the sequence number is incremented before each ticket; system validation 57/58 with a 10 s timeout; redemption
70/71 with statuses of tables 15.12c/d). Thread safety: callers hold :attr:`EgmModel.lock`.
"""

from __future__ import annotations

import threading
from collections import deque
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Callable

from slotsys.floor.domain.evaluator import SeededRng, spin
from slotsys.floor.domain.game import BetOption, GameDefinition
from slotsys.floor.domain.machine_events import BY_CODE
from slotsys.sas.domain.clock import Clock
from slotsys.sas.domain.codes import (
    BILL_EXCEPTION_BY_WON, EXC, LP, METER, AftStatus, AftTransferType, HandpayLevel, HandpayResetCode, RedeemCode,
    RedeemStatus, ReceiveValidationStatus, ValidationType, bill_code, denomination_code,
)
from slotsys.sas.domain.crc import crc16
from slotsys.sas.domain.exception_queue import ExceptionQueue
from slotsys.sas.domain.framing import FrameError, HostMessage
from slotsys.sas.domain import messages as m
from tito.domain.validation import sas_secure_enhanced_number

__all__ = ["EgmConfig", "EgmModel", "EgmSasInterface", "Handpay", "PrintedTicket", "program_signature"]

DOOR_OPEN_CLOSE = {0x11: 0x12, 0x13: 0x14, 0x15: 0x16, 0x19: 0x1A, 0x1D: 0x1E}
SYSTEM_VALIDATION_TIMEOUT_S = 10.0  # §15.8
REDEMPTION_TIMEOUT_S = 10.0


def program_signature(program: bytes, seed: int) -> int:
    """The ROM signature (§6): the SAS CRC-16 of the program image with the host's seed as initial value."""
    return crc16(program, seed)


@dataclass(frozen=True)
class EgmConfig:
    """A machine's configuration. ``denomination`` won per credit (the accounting denomination); limits in won
    (``ticket_limit`` largest cash-out ticket; above it a cancelled-credit handpay; ``credit_limit`` largest
    credit meter a ticket or AFT may reach) or credits (``jackpot_limit_credits``: a game win at or above it
    locks up in a jackpot handpay). ``validation``: ``secure_enhanced`` or ``system``. ``program``: the bytes
    the ROM signature covers (the game's approved definition)."""

    address: int
    asset_number: int
    serial: str
    game: GameDefinition
    denomination: int
    program: bytes
    variation: str | None = None
    validation: str = "secure_enhanced"
    ticket_limit: int = 1_000_000
    credit_limit: int = 5_000_000
    jackpot_limit_credits: int = 1_000_000
    queue_capacity: int = 20
    sas_version: str = "602"
    game_id: str = "SL"
    base_percent: str = "9500"
    bill_country: int = 0
    seed: int | str = 1
    rom_delay_s: float = 0.05
    # a legacy bonus ACKed at once and paid this long after (0: at once), as a machine that holds a bonus until
    # its game ends (§13.3) does
    bonus_delay_s: float = 0.0


@dataclass
class Handpay:
    """A pending handpay: ``level`` 0x40 jackpot (non-progressive win) or 0x80 cancelled credits, ``credits``
    and ``amount`` (won)."""

    level: int
    credits: int
    amount: int


@dataclass(frozen=True)
class PrintedTicket:
    validation_number: str  # 18 digits
    amount: int  # won
    at: datetime


@dataclass
class _Validation:
    vtype: int
    at: datetime
    number16: str
    amount: int
    ticket_number: int
    system_id: int
    read: bool = False


@dataclass
class _Escrow:
    validation_number: str
    inserted_at: float
    state: str = "inserted"  # inserted → authorising → done
    final: m.RedeemTicketStatus | None = None


@dataclass
class _Aft:
    result: m.AftTransferResult
    history: list[str] = field(default_factory=list)


class EgmModel:
    """One SAS machine. See the module docstring."""

    def __init__(self, config: EgmConfig, clock: Clock) -> None:
        self.cfg = config
        self.clock = clock
        self.lock = threading.RLock()
        self.rng = SeededRng(config.seed)
        self.denom = config.denomination
        self.meters: dict[int, int] = {int(c): 0 for c in METER}
        self.bills: dict[int, int] = {}  # bill code → count
        self.last_bill_code: int | None = None
        self.bonus_meters = [0, 0, 0]  # deductible, non-deductible, wager match (credits)
        self.last_bonus = m.LegacyBonusWin(0, 0, 0, 0)
        self.bonuses_due: list[tuple[float, int, int]] = []  # (when, tax status, credits): ACKed, not yet paid
        self.credits = 0
        self.queue = ExceptionQueue(config.queue_capacity)
        self.enabled = True
        self.powered = True
        self.open_doors: set[int] = set()
        self.handpays: deque[Handpay] = deque()
        self.validation_id = 0
        self.validation_seq = 0
        self.validations: deque[_Validation] = deque(maxlen=31)
        self.ticket_number = 0
        self.pending_cashout: tuple[int, float] | None = None  # (won, since) awaiting long poll 58
        self.escrow: _Escrow | None = None
        self.last_redemption: m.RedeemTicketStatus | None = None
        self.aft_lock_until: float | None = None
        self.aft_last: m.AftTransferResult | None = None
        self.aft_txids: set[str] = set()
        self.clock_offset = timedelta(0)
        self.rom_pending: tuple[int, float] | None = None  # (signature, ready at)
        self.printed: list[PrintedTicket] = []
        self.games_since_power = 0
        self.power_resets = 0

    # ------------------------------------------------------------------ helpers
    def _now(self) -> float:
        return self.clock.monotonic()

    def wall(self) -> datetime:
        return self.clock.now() + self.clock_offset

    def _push(self, code: int) -> None:
        self.queue.push(code, self._now())

    @property
    def credits_won(self) -> int:
        return self.credits * self.denom

    @property
    def aft_locked(self) -> bool:
        return self.aft_lock_until is not None and self._now() < self.aft_lock_until

    def playable(self) -> str | None:
        """Why the machine cannot play now (None: it can)."""
        if not self.powered:
            return "power_off"
        if not self.enabled:
            return "disabled"
        if self.open_doors:
            return "door_open"
        if self.handpays:
            return "handpay"
        if self.escrow is not None or self.pending_cashout is not None:
            return "busy"
        if self.aft_locked:
            return "aft_locked"
        return None

    # ------------------------------------------------------------------ player / attendant actions
    def insert_bill(self, won: int) -> bool:
        """Accept a note of ``won`` (table C-6) onto the credit meter; False (refused) if the machine cannot
        play, the note is not a whole number of credits or would pass the credit limit."""
        code = bill_code(won)
        if self.playable() or won % self.denom or self.credits_won + won > self.cfg.credit_limit:
            return False
        self.credits += won // self.denom
        self.meters[METER.BILLS] += won // self.denom
        self.bills[code] = self.bills.get(code, 0) + 1
        self.last_bill_code = code
        self._push(BILL_EXCEPTION_BY_WON.get(won, EXC.BILL_ACCEPTED))
        return True

    def play(self, option: BetOption | None = None):
        """Play one game at ``option`` (default: the cheapest bet); returns the SpinOutcome, or None when the
        machine cannot play or the player cannot afford the bet. Queues 0x7E, then 0x7F (game ended); a win at
        or above the jackpot limit locks up in a handpay (0x51) instead of paying the credit meter."""
        game = self.cfg.game
        option = option or game.bet_options()[0]
        if self.playable() or self.credits < option.credits:
            return None
        self._push(EXC.GAME_STARTED)
        self.credits -= option.credits
        self.meters[METER.COIN_IN] += option.credits
        self.meters[METER.GAMES_PLAYED] += 1
        self.games_since_power += 1
        outcome = spin(game, option, self.rng, self.cfg.variation)
        win = outcome.total_win_credits
        if win:
            self.meters[METER.GAMES_WON] += 1
        if win >= self.cfg.jackpot_limit_credits:
            self.handpays.append(Handpay(HandpayLevel.NON_PROGRESSIVE, win, win * self.denom))
            self._push(EXC.HANDPAY_PENDING)
        elif win:
            self.credits += win
            self.meters[METER.COIN_OUT] += win
            self.meters[METER.MACHINE_PAID_PAYTABLE_WIN] += win
        self._push(EXC.GAME_ENDED)
        return outcome

    def cash_out(self) -> str:
        """The player pressed cash out. Returns ``nothing`` (no credits), ``refused`` (cannot now),
        ``handpay`` (above the ticket limit: a cancelled-credit handpay), ``validation_not_configured``
        (secure enhanced without a validation ID: 0x3F), ``awaiting_validation`` (system validation: 0x57) or
        ``ticket`` (printed; :attr:`printed` has it)."""
        if self.credits == 0:
            return "nothing"
        if self.playable():
            return "refused"
        won = self.credits_won
        if won > self.cfg.ticket_limit:
            self.handpays.append(Handpay(HandpayLevel.CANCELLED_CREDITS, self.credits, won))
            self._push(EXC.HANDPAY_PENDING)
            return "handpay"
        if self.cfg.validation == "system":
            self.pending_cashout = (won, self._now())
            self._push(EXC.SYSTEM_VALIDATION_REQUEST)
            return "awaiting_validation"
        if self.validation_id == 0:
            self._push(EXC.VALIDATION_ID_NOT_CONFIGURED)
            return "validation_not_configured"
        self.validation_seq = (self.validation_seq + 1) & 0xFFFFFF
        number = sas_secure_enhanced_number(self.validation_id, self.validation_seq)
        self._print_ticket(number[2:], 0)
        return "ticket"

    def _print_ticket(self, number16: str, system_id: int) -> None:
        won, credits = self.credits_won, self.credits
        self.ticket_number = (self.ticket_number + 1) % 10_000
        at = self.wall()
        self.validations.append(_Validation(ValidationType.CASHABLE_TICKET, at, number16, won, self.ticket_number,
                                            system_id))
        self.credits = 0
        self.meters[METER.CANCELLED] += credits
        self.meters[METER.TICKET_OUT_CENTS] += won
        self.meters[METER.TICKET_OUT_COUNT] += 1
        self.printed.append(PrintedTicket(f"{system_id:02d}{number16}", won, at))
        self._push(EXC.TICKET_PRINTED)

    def insert_ticket(self, validation_number: str) -> bool:
        """A ticket with this 18-digit number in the bill validator: escrowed, 0x67 reported. False if the
        machine cannot take it now."""
        if self.playable():
            return False
        self.escrow = _Escrow(validation_number, self._now())
        self._push(EXC.TICKET_INSERTED)
        return True

    def event(self, code: int) -> None:
        """A machine event from the vocabulary (door opened/closed, printer, tilt …): queued; an open door
        blocks play until its close event."""
        if code not in BY_CODE:
            raise ValueError(f"0x{code:02X} is not in the machine event vocabulary")
        if code in DOOR_OPEN_CLOSE:
            self.open_doors.add(code)
        for opened, closed in DOOR_OPEN_CLOSE.items():
            if code == closed:
                self.open_doors.discard(opened)
        self._push(code)

    def power_off(self) -> None:
        """AC power lost: the machine stops answering; 0x18 is recorded (reported after power returns)."""
        self._push(EXC.POWER_OFF)
        self.powered = False
        self.aft_lock_until = None

    def power_on(self) -> None:
        """AC power applied: 0x17 queued; the SAS interface must resynchronise (§3.3)."""
        self.powered = True
        self.games_since_power = 0
        self.power_resets += 1
        self._push(EXC.POWER_ON)

    def tick(self) -> None:
        """Timeouts: system validation (10 s, then the cashout is aborted), ticket redemption (10 s, the ticket
        is returned), the AFT lock, 0x6F while locked."""
        now = self._now()
        if self.pending_cashout is not None and now - self.pending_cashout[1] > SYSTEM_VALIDATION_TIMEOUT_S:
            self.pending_cashout = None
            self.queue.clear(EXC.SYSTEM_VALIDATION_REQUEST)
        if self.escrow is not None and self.escrow.state != "done" and now - self.escrow.inserted_at > REDEMPTION_TIMEOUT_S:
            self._finish_redemption(m.RedeemTicketStatus(RedeemStatus.TIMED_OUT, 0, self.escrow.validation_number))
        if self.aft_lock_until is not None and now >= self.aft_lock_until:
            self.aft_lock_until = None
            self.queue.clear(EXC.GAME_LOCKED)
        while self.bonuses_due and now >= self.bonuses_due[0][0]:
            _, tax, n = self.bonuses_due.pop(0)
            self._pay_bonus(tax, n)

    # ------------------------------------------------------------------ SAS: general poll
    def general_poll(self) -> bytes:
        """The response to a new general poll: a finished ROM signature, else the head exception (one byte)."""
        self.tick()
        if self.rom_pending is not None and self._now() >= self.rom_pending[1]:
            sig = self.rom_pending[0]
            self.rom_pending = None
            return m.RomSignature(sig).encode(self.cfg.address)
        return bytes([self.queue.head(self._now())])

    def acked(self, response: bytes) -> None:
        """The host implicitly ACKed ``response`` (a general poll's exception)."""
        if len(response) == 1:
            code = response[0]
            if code:
                self.queue.acked(code, self._now())

    # ------------------------------------------------------------------ SAS: long polls
    def long_poll(self, msg: HostMessage) -> bytes | None:
        """The response to a NEW long poll (None: no response: unsupported poll, or a broadcast)."""
        self.tick()
        a = self.cfg.address
        handler: Callable[[HostMessage], bytes | None] | None = self._handlers().get(msg.command or -1)
        if handler is None:
            return None  # §4.4: unsupported long polls are ignored, not NACKed
        try:
            out = handler(msg)
        except FrameError:
            return bytes([a | 0x80])  # data that does not parse: NACK
        return out if msg.address else None

    def _ack(self) -> bytes:
        return bytes([self.cfg.address])

    def _busy(self) -> bytes:
        return bytes([self.cfg.address, 0x00])

    def _handlers(self) -> dict[int, Callable[[HostMessage], bytes | None]]:
        return {
            LP.SHUTDOWN: self._lp_enable, LP.STARTUP: self._lp_enable,
            LP.SEND_METERS: self._lp_1c, LP.SEND_SELECTED_METERS: self._lp_2f, LP.SEND_CURRENT_CREDITS: self._lp_1a,
            LP.SEND_HANDPAY_INFO: self._lp_1b, LP.REMOTE_HANDPAY_RESET: self._lp_94,
            LP.SEND_MACHINE_INFO: self._lp_1f, LP.SEND_SAS_VERSION: self._lp_54, LP.SEND_ENABLED_GAMES: self._lp_56,
            LP.ROM_SIGNATURE: self._lp_21, LP.SEND_LAST_BILL: self._lp_48,
            LP.SET_VALIDATION_ID: self._lp_4c, LP.SEND_ENHANCED_VALIDATION: self._lp_4d,
            LP.SEND_PENDING_CASHOUT: self._lp_57, LP.RECEIVE_VALIDATION_NUMBER: self._lp_58,
            LP.SEND_TICKET_VALIDATION_DATA: self._lp_70, LP.REDEEM_TICKET: self._lp_71,
            LP.AFT_TRANSFER: self._lp_72, LP.AFT_LOCK_STATUS: self._lp_74,
            LP.SEND_DATE_TIME: self._lp_7e, LP.SET_DATE_TIME: self._lp_7f,
            LP.LEGACY_BONUS: self._lp_8a, LP.SEND_LEGACY_BONUS_WIN: self._lp_90,
            LP.SEND_LEGACY_BONUS_METERS: self._lp_9a,
        }

    def _lp_enable(self, msg: HostMessage) -> bytes:
        self.enabled = msg.command == LP.STARTUP
        return self._ack()

    def _lp_1c(self, msg: HostMessage) -> bytes:
        g = self.meters
        return m.Meters(g[METER.COIN_IN], g[METER.COIN_OUT], g[METER.BILLS] + g[METER.TICKET_IN_CENTS] // self.denom,
                        g[METER.JACKPOT], g[METER.GAMES_PLAYED], g[METER.GAMES_WON], 0,
                        self.power_resets).encode(self.cfg.address)

    def meter(self, code: int) -> int:
        if code == METER.CURRENT_CREDITS:
            return self.credits
        return self.meters.get(code, 0)

    def _lp_2f(self, msg: HostMessage) -> bytes:
        req = m.SelectedMetersRequest._unpack(msg.data)
        return m.SelectedMeters({c: self.meter(c) for c in req.codes}, req.game_number).encode(self.cfg.address)

    def _lp_1a(self, msg: HostMessage) -> bytes:
        return m.CurrentCredits(self.credits).encode(self.cfg.address)

    def _lp_1b(self, msg: HostMessage) -> bytes:
        self.queue.clear(EXC.HANDPAY_PENDING)
        if not self.handpays:
            return m.HandpayInfo(0, 0, 0).encode(self.cfg.address)
        hp = self.handpays[0]
        return m.HandpayInfo(0, hp.level, hp.amount).encode(self.cfg.address)

    def _lp_94(self, msg: HostMessage) -> bytes:
        if not self.handpays:
            return m.HandpayResetResult(HandpayResetCode.NOT_IN_HANDPAY).encode(self.cfg.address)
        hp = self.handpays.popleft()
        if hp.level == HandpayLevel.CANCELLED_CREDITS:
            self.credits -= hp.credits
            self.meters[METER.HANDPAID_CANCELLED] += hp.credits
            self.meters[METER.CANCELLED] += hp.credits
        else:
            self.meters[METER.JACKPOT] += hp.credits
            self.meters[METER.HAND_PAID_PAYTABLE_WIN] += hp.credits
        self._push(EXC.HANDPAY_RESET)
        if self.handpays:
            self._push(EXC.HANDPAY_PENDING)
        return m.HandpayResetResult(HandpayResetCode.RESET).encode(self.cfg.address)

    def _lp_1f(self, msg: HostMessage) -> bytes:
        g = self.cfg.game
        max_bet = g.full_bet().credits
        paytable = (g.id.replace("_", "")[:4].upper() + (self.cfg.variation or g.default_variation))[:6]
        return m.MachineInfo(self.cfg.game_id, g.id[:3].upper(), denomination_code(self.denom), max_bet, 0, 0,
                             paytable, self.cfg.base_percent).encode(self.cfg.address)

    def _lp_54(self, msg: HostMessage) -> bytes:
        return m.SasVersion(self.cfg.sas_version, self.cfg.serial).encode(self.cfg.address)

    def _lp_56(self, msg: HostMessage) -> bytes:
        return m.EnabledGames((1,) if self.enabled else ()).encode(self.cfg.address)

    def _lp_21(self, msg: HostMessage) -> bytes:
        seed = m.RomSignatureRequest._unpack(msg.data).seed
        self.rom_pending = (program_signature(self.cfg.program, seed), self._now() + self.cfg.rom_delay_s)
        return self._ack()

    def _lp_48(self, msg: HostMessage) -> bytes:
        code = self.last_bill_code
        if code is None:
            return m.LastBill(self.cfg.bill_country, 0, 0).encode(self.cfg.address)
        return m.LastBill(self.cfg.bill_country, code, self.bills[code]).encode(self.cfg.address)

    def _lp_4c(self, msg: HostMessage) -> bytes:
        req = m.SetValidationId._unpack(msg.data)
        if req.machine_id:
            if req.machine_id != self.validation_id:
                self.validation_id, self.validation_seq = req.machine_id, req.sequence
            elif req.sequence > self.validation_seq:
                self.validation_seq = req.sequence
            self.queue.clear(EXC.VALIDATION_ID_NOT_CONFIGURED)
        return m.ValidationIdState(self.validation_id, self.validation_seq).encode(self.cfg.address)

    def _record(self, v: _Validation, index: int) -> bytes:
        return m.EnhancedValidationRecord(v.vtype, index, v.at, v.number16, v.amount, v.ticket_number,
                                          v.system_id).encode(self.cfg.address)

    def _lp_4d(self, msg: HostMessage) -> bytes:
        fn = m.EnhancedValidationRequest._unpack(msg.data).function
        a = self.cfg.address
        if fn in (0x00, 0xFF):
            for i, v in enumerate(self.validations):
                if not v.read:
                    if fn == 0x00:
                        v.read = True
                        if all(x.read for x in self.validations):
                            self.queue.clear(EXC.TICKET_PRINTED)
                    return self._record(v, i + 1)
            return m.EnhancedValidationRecord(0, 0, None, "0" * 16, 0, 0, 0).encode(a)
        if 1 <= fn <= len(self.validations):
            return self._record(self.validations[fn - 1], fn)
        return m.EnhancedValidationRecord(0, 0, None, "0" * 16, 0, 0, 0).encode(a)

    def _lp_57(self, msg: HostMessage) -> bytes:
        self.queue.clear(EXC.SYSTEM_VALIDATION_REQUEST)
        if self.pending_cashout is None:
            return m.PendingCashout(0x80, 0).encode(self.cfg.address)
        return m.PendingCashout(0x00, self.pending_cashout[0]).encode(self.cfg.address)

    def _lp_58(self, msg: HostMessage) -> bytes:
        req = m.ReceiveValidationNumber._unpack(msg.data)
        a = self.cfg.address
        if self.cfg.validation != "system":
            return m.ReceiveValidationNumberAck(ReceiveValidationStatus.IMPROPER_VALIDATION_REJECTED).encode(a)
        if self.pending_cashout is None:
            return m.ReceiveValidationNumberAck(ReceiveValidationStatus.NOT_IN_CASHOUT).encode(a)
        self.pending_cashout = None
        if req.system_id != 0:  # 00 denies the validation: the cashout is abandoned, credits stay
            self._print_ticket(req.number16, req.system_id)
        return m.ReceiveValidationNumberAck(ReceiveValidationStatus.ACKNOWLEDGED).encode(a)

    def _lp_70(self, msg: HostMessage) -> bytes:
        self.queue.clear(EXC.TICKET_INSERTED)
        e = self.escrow
        if e is None or e.state == "done":
            return m.TicketValidationData(0xFF).encode(self.cfg.address)
        e.state = "authorising"
        return m.TicketValidationData(0x00, 0, e.validation_number).encode(self.cfg.address)

    def _finish_redemption(self, final: m.RedeemTicketStatus) -> None:
        assert self.escrow is not None
        self.escrow.state = "done"
        self.escrow.final = final
        self.last_redemption = final
        self.escrow = None
        self.queue.clear(EXC.TICKET_INSERTED)
        self._push(EXC.TICKET_TRANSFER_COMPLETE)

    def _lp_71(self, msg: HostMessage) -> bytes:
        req = m.RedeemTicket._unpack(msg.data)
        a = self.cfg.address
        if req.code == RedeemCode.REQUEST_STATUS:
            self.queue.clear(EXC.TICKET_TRANSFER_COMPLETE)
            if self.escrow is not None:
                return m.RedeemTicketStatus(RedeemStatus.WAITING_FOR_71, 0, self.escrow.validation_number).encode(a)
            return (self.last_redemption or m.RedeemTicketStatus(RedeemStatus.NO_VALIDATION_INFO)).encode(a)
        e = self.escrow
        if e is None or e.state != "authorising":
            return m.RedeemTicketStatus(RedeemStatus.NOT_COMPATIBLE).encode(a)
        vn = e.validation_number
        if req.validation_number != vn:
            status = RedeemStatus.VALIDATION_NUMBER_MISMATCH
        elif req.code >= 0x80:
            status = RedeemStatus.REJECTED_BY_HOST
        elif req.code != RedeemCode.VALID_CASHABLE:
            status = RedeemStatus.NOT_VALID_FUNCTION  # restricted promotional tickets are not offered here
        elif req.amount <= 0:
            status = RedeemStatus.NOT_VALID_AMOUNT
        elif req.amount % self.denom:
            status = RedeemStatus.NOT_MULTIPLE_OF_DENOM
        elif self.credits_won + req.amount > self.cfg.credit_limit:
            status = RedeemStatus.EXCEEDS_CREDIT_LIMIT
        else:
            status = RedeemStatus.CASHABLE_REDEEMED
            self.credits += req.amount // self.denom
            self.meters[METER.TICKET_IN_CENTS] += req.amount
            self.meters[METER.TICKET_IN_COUNT] += 1
        amount = req.amount if status == RedeemStatus.CASHABLE_REDEEMED else 0
        self._finish_redemption(m.RedeemTicketStatus(status, amount, vn))
        return m.RedeemTicketStatus(RedeemStatus.PENDING, req.amount, vn).encode(a)

    def _lp_74(self, msg: HostMessage) -> bytes:
        req = m.AftLockRequest._unpack(msg.data)
        now = self._now()
        if req.lock_code == 0x00:
            reason = self.playable()
            if reason in (None, "aft_locked"):
                self.aft_lock_until = now + max(req.timeout_cs, 1) / 100
                self._push(EXC.GAME_LOCKED)
        elif req.lock_code == 0x80:
            self.aft_lock_until = None
            self.queue.clear(EXC.GAME_LOCKED)
        return self._lock_status().encode(self.cfg.address)

    def _lock_status(self) -> m.AftLockStatus:
        can = self.playable() in (None, "aft_locked")
        available = (0x01 if can else 0) | (0x02 if can and self.credits else 0)
        return m.AftLockStatus(self.cfg.asset_number, 0x00 if self.aft_locked else 0xFF, available,
                               self.credits_won, max(self.cfg.credit_limit - self.credits_won, 0))

    def _aft_result(self, status: int, req: m.AftTransfer, amount: int | None = None) -> m.AftTransferResult:
        return m.AftTransferResult(status, req.transaction_id, req.transfer_type,
                                   req.cashable if amount is None else amount, self.cfg.asset_number, self.wall())

    def _lp_72(self, msg: HostMessage) -> bytes:
        a = self.cfg.address
        if msg.data[:1] in (b"\xfe", b"\xff"):
            req_i = m.AftInterrogate._unpack(msg.data)
            self.queue.clear(EXC.AFT_TRANSFER_COMPLETE)
            if req_i.index != 0 or self.aft_last is None:
                return m.AftTransferResult(AftStatus.NO_TRANSFER_INFO).encode(a)
            return self.aft_last.encode(a)
        req = m.AftTransfer._unpack(msg.data)
        if req.code == 0x80:
            return m.AftTransferResult(AftStatus.CANCELLED_BY_HOST, req.transaction_id, req.transfer_type, 0,
                                       self.cfg.asset_number, self.wall()).encode(a)
        if req.transaction_id in self.aft_txids:
            return self._aft_result(AftStatus.TXID_NOT_UNIQUE, req, 0).encode(a)
        status, moved = self._aft_apply(req)
        result = self._aft_result(status, req, moved)
        self.aft_txids.add(req.transaction_id)
        self.aft_last = result
        if not (req.flags & 0x10):
            self.aft_lock_until = None
            self.queue.clear(EXC.GAME_LOCKED)
        self._push(EXC.AFT_TRANSFER_COMPLETE)
        # the transfer is carried out at once; the host learns the result by interrogation after 0x69 (§8.3)
        pending = m.AftTransferResult(AftStatus.PENDING, req.transaction_id, req.transfer_type, req.cashable,
                                      self.cfg.asset_number, None)
        return pending.encode(a)

    def _aft_apply(self, req: m.AftTransfer) -> tuple[int, int]:
        if req.asset_number != self.cfg.asset_number:
            return AftStatus.ASSET_MISMATCH, 0
        if req.flags & 0x40 and not self.aft_locked:
            return AftStatus.NOT_LOCKED, 0
        if req.restricted or req.nonrestricted:
            return AftStatus.NOT_VALID_AMOUNT, 0
        if req.cashable <= 0:
            return AftStatus.NOT_VALID_AMOUNT, 0
        if req.cashable % self.denom:
            return AftStatus.NOT_MULTIPLE_OF_DENOM, 0
        if self.playable() not in (None, "aft_locked"):
            return AftStatus.UNABLE_NOW, 0
        credits = req.cashable // self.denom
        if req.transfer_type == AftTransferType.IN_HOUSE_TO_MACHINE:
            if self.credits_won + req.cashable > self.cfg.credit_limit:
                return AftStatus.EXCEEDS_LIMIT, 0
            self.credits += credits
            self.meters[METER.AFT_IN_CENTS] += req.cashable
            self.meters[METER.AFT_IN_COUNT] += 1
            return AftStatus.FULL_SUCCESS, req.cashable
        if req.transfer_type == AftTransferType.IN_HOUSE_TO_HOST:
            if credits > self.credits:
                if req.code != 0x01 or self.credits == 0:
                    return AftStatus.NOT_VALID_AMOUNT, 0
                credits = self.credits
            moved = credits * self.denom
            self.credits -= credits
            self.meters[METER.AFT_OUT_CENTS] += moved
            self.meters[METER.AFT_OUT_COUNT] += 1
            return (AftStatus.FULL_SUCCESS if moved == req.cashable else AftStatus.PARTIAL_SUCCESS), moved
        return AftStatus.NOT_VALID_FUNCTION, 0

    def _lp_7e(self, msg: HostMessage) -> bytes:
        return m.DateTimeValue(self.wall()).encode(self.cfg.address)

    def _lp_7f(self, msg: HostMessage) -> bytes:
        at = m.SetDateTime._unpack(msg.data).at
        self.clock_offset = at - self.clock.now()
        return self._ack()

    def _lp_8a(self, msg: HostMessage) -> bytes:
        req = m.LegacyBonus._unpack(msg.data)
        if self.handpays or self.open_doors or not self.powered or req.tax_status > 2:
            return self._busy()  # §13.3.5: not escrowed during a malfunction, door open or handpay
        if self.cfg.bonus_delay_s > 0:
            self.bonuses_due.append((self._now() + self.cfg.bonus_delay_s, req.tax_status, req.credits))
        else:
            self._pay_bonus(req.tax_status, req.credits)
        return self._ack()

    def _pay_bonus(self, tax_status: int, n: int) -> None:
        self.credits += n
        self.meters[METER.COIN_OUT] += n
        self.meters[METER.MACHINE_PAID_EXTERNAL_BONUS] += n
        self.bonus_meters[tax_status] += n
        self.last_bonus = m.LegacyBonusWin(0, 0, tax_status, n)
        self._push(EXC.LEGACY_BONUS_AWARDED)

    def _lp_90(self, msg: HostMessage) -> bytes:
        return self.last_bonus.encode(self.cfg.address)

    def _lp_9a(self, msg: HostMessage) -> bytes:
        d, nd, wm = self.bonus_meters
        return m.LegacyBonusMeters(d, nd, wm).encode(self.cfg.address)


class EgmSasInterface:
    """The SAS link layer of one machine: feeds decoded host messages, returns the bytes to transmit.

    Implements §3 (implied ACK: any other poll to this machine, a poll to another address, a broadcast or the
    address-0 poll acknowledges the last response; implied NACK: the identical poll again is answered with the
    identical bytes, never processed twice; after the third identical poll the exception is kept and reported
    again), §3.3 (after start-up or power-up, polls to this machine are ignored until another address or address
    0 is polled) and the CRC rule (a CRC-bearing poll with a bad CRC gets a NACK, ``address | 0x80``).
    Counters: ``polls``, ``nacked_by_host`` (repeats seen), ``crc_errors``, ``ignored``."""

    def __init__(self, egm: EgmModel) -> None:
        self.egm = egm
        self.address = egm.cfg.address
        self.synced = False
        self._last_frame: bytes | None = None
        self._last_response: bytes | None = None
        self._repeats = 0
        self.polls = self.nacked_by_host = self.crc_errors = self.ignored = 0

    def power_cycled(self) -> None:
        self.synced = False
        self._last_frame = self._last_response = None

    def _implied_ack(self) -> None:
        if self._last_response is not None and self._repeats < 2:
            self.egm.acked(self._last_response)
        self._last_frame = self._last_response = None
        self._repeats = 0

    def handle(self, msg: HostMessage) -> bytes | None:
        with self.egm.lock:
            if not self.egm.powered:
                return None
            if msg.address != self.address:
                self._implied_ack()
                self.synced = True
                if msg.address == 0 and msg.kind == "long" and msg.crc_valid:
                    self.egm.long_poll(msg)  # type G broadcast (e.g. 7F): processed, never answered
                return None
            if not self.synced:
                self.ignored += 1
                return None
            self.polls += 1
            if msg.kind == "long" and not msg.crc_valid:
                self.crc_errors += 1
                return bytes([self.address | 0x80])
            if self._last_frame is not None and msg.frame == self._last_frame:
                self.nacked_by_host += 1
                self._repeats += 1
                return self._last_response
            self._implied_ack()
            resp = self.egm.general_poll() if msg.kind == "general" else self.egm.long_poll(msg)
            self._last_frame = msg.frame
            self._last_response = resp
            return resp
