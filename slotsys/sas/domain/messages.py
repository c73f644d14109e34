"""Codecs of the SAS long polls the host and the EGM model use: one frozen dataclass per message, each with
``encode(address) -> bytes`` (the whole frame: address, command, [length], data, [CRC]) and
``decode(frame) -> message`` (which checks address presence, command, length and CRC).

Layouts follow SAS 6.02 (chapter 7, 8, 13, 15); BCD is most significant byte first, binary least significant
first. Amounts "in cents" are won here (₩1 a unit); bonus amounts and meters "in credits" are accounting
denomination credits. Errors: :class:`~slotsys.sas.domain.framing.FrameError` (``reason``: ``bad_crc``,
``wrong_command``, ``bad_length``, ``bad_bcd`` …).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import ClassVar, Mapping, TypeVar

from slotsys.sas.domain.bcd import BcdError, bcd_digits, from_bcd, to_bcd
from slotsys.sas.domain.codes import LP, meter_size
from slotsys.sas.domain.crc import append_crc, crc_ok
from slotsys.sas.domain.framing import FrameError

__all__ = [
    "Message", "EnablePlay", "SendMeters", "Meters", "SelectedMetersRequest", "SelectedMeters", "CurrentCredits",
    "SendHandpayInfo", "HandpayInfo", "SendMachineInfo", "MachineInfo", "RomSignatureRequest", "RomSignature",
    "SendLastBill", "LastBill", "SetValidationId", "ValidationIdState", "EnhancedValidationRequest",
    "EnhancedValidationRecord", "SendSasVersion", "SasVersion", "SendEnabledGames", "EnabledGames",
    "SendPendingCashout", "PendingCashout", "ReceiveValidationNumber", "ReceiveValidationNumberAck",
    "SendTicketValidationData", "TicketValidationData", "RedeemTicket", "RedeemTicketStatus", "AftTransfer",
    "AftInterrogate", "AftTransferResult", "AftLockRequest", "AftLockStatus", "SendDateTime", "DateTimeValue",
    "SetDateTime", "LegacyBonus", "SendLegacyBonusWin", "LegacyBonusWin", "RemoteHandpayReset",
    "HandpayResetResult", "SendLegacyBonusMeters", "LegacyBonusMeters", "sas_date", "sas_time",
    "parse_sas_datetime", "validation_bcd", "validation_digits",
]

M = TypeVar("M", bound="Message")


def _bcd(data: bytes) -> int:
    try:
        return from_bcd(data)
    except BcdError as e:
        raise FrameError("bad_bcd", str(e)) from None


def _ascii(text: str, n: int) -> bytes:
    raw = text.encode("ascii")
    if n and len(raw) > n:
        raise FrameError("too_long", f"{text!r} is longer than {n} ASCII characters")
    return raw.ljust(n, b" ") if n else raw


def sas_date(dt: datetime) -> bytes:
    """MMDDYYYY as 4 BCD bytes."""
    return to_bcd(int(dt.strftime("%m%d%Y")), 4)


def sas_time(dt: datetime) -> bytes:
    """HHMMSS (24 hour) as 3 BCD bytes."""
    return to_bcd(int(dt.strftime("%H%M%S")), 3)


def parse_sas_datetime(date: bytes, time: bytes) -> datetime:
    """The naive local datetime of a 4-byte BCD MMDDYYYY and a 3-byte BCD HHMMSS; ``FrameError`` if invalid."""
    try:
        d, t = bcd_digits(date), bcd_digits(time)
        return datetime(int(d[4:8]), int(d[0:2]), int(d[2:4]), int(t[0:2]), int(t[2:4]), int(t[4:6]))
    except (BcdError, ValueError) as e:
        raise FrameError("bad_datetime", f"not a SAS date/time: {date.hex()} {time.hex()} ({e})") from None


def validation_bcd(number: str, nbytes: int) -> bytes:
    """An 18- or 16-digit validation number (str of digits) as ``nbytes`` BCD bytes."""
    if not number.isdigit() or len(number) != 2 * nbytes:
        raise FrameError("bad_validation_number", f"{number!r} is not {2 * nbytes} decimal digits")
    return bytes(int(number[i:i + 2], 16) for i in range(0, len(number), 2))


def validation_digits(data: bytes) -> str:
    try:
        return bcd_digits(data)
    except BcdError as e:
        raise FrameError("bad_bcd", str(e)) from None


class Message:
    """Base of the codecs. Subclasses set ``COMMAND``, ``FORM`` (``R`` address + command; ``S`` fixed data +
    CRC; ``V`` length byte + data + CRC) and implement ``_pack`` / ``_unpack`` of the data bytes."""

    COMMAND: ClassVar[int]
    FORM: ClassVar[str] = "S"

    def _pack(self) -> bytes:
        return b""

    @classmethod
    def _unpack(cls: type[M], data: bytes) -> M:
        return cls()

    def encode(self, address: int) -> bytes:
        body = bytes([address, self.COMMAND])
        if self.FORM == "R":
            return body
        data = self._pack()
        if self.FORM == "V":
            body += bytes([len(data)])
        return append_crc(body + data)

    @classmethod
    def decode(cls: type[M], frame: bytes) -> M:
        frame = bytes(frame)
        if len(frame) < 2 or frame[1] != cls.COMMAND:
            raise FrameError("wrong_command", f"not a 0x{cls.COMMAND:02X} frame: {frame.hex(' ')}")
        if cls.FORM == "R":
            if len(frame) != 2:
                raise FrameError("bad_length", f"a type R poll is 2 bytes, got {len(frame)}")
            return cls._unpack(b"")
        if not crc_ok(frame):
            raise FrameError("bad_crc", f"CRC mismatch: {frame.hex(' ')}")
        if cls.FORM == "V":
            if len(frame) < 5 or frame[2] != len(frame) - 5:
                raise FrameError("bad_length", f"length byte does not match: {frame.hex(' ')}")
            return cls._unpack(frame[3:-2])
        return cls._unpack(frame[2:-2])


def _need(data: bytes, n: int, what: str) -> None:
    if len(data) != n:
        raise FrameError("bad_length", f"{what}: {n} data bytes expected, got {len(data)}")


# ------------------------------------------------------------------ enable / disable (01 / 02)
@dataclass(frozen=True)
class EnablePlay(Message):
    """Long poll 02 (startup: enable play) when ``enable``, 01 (shutdown: lock out play) otherwise; ACKed."""

    enable: bool

    @property
    def COMMAND(self) -> int:  # type: ignore[override]
        return LP.STARTUP if self.enable else LP.SHUTDOWN

    @classmethod
    def decode(cls, frame: bytes) -> "EnablePlay":
        if len(frame) != 4 or frame[1] not in (LP.SHUTDOWN, LP.STARTUP) or not crc_ok(frame):
            raise FrameError("bad_frame", f"not an enable/disable poll: {bytes(frame).hex(' ')}")
        return cls(frame[1] == LP.STARTUP)


# ------------------------------------------------------------------ meters (1C, 2F, 1A)
@dataclass(frozen=True)
class SendMeters(Message):
    COMMAND = LP.SEND_METERS
    FORM = "R"


@dataclass(frozen=True)
class Meters(Message):
    """Long poll 1C response: eight 4-byte BCD meters (credits / counts)."""

    COMMAND = LP.SEND_METERS
    coin_in: int
    coin_out: int
    drop: int
    jackpot: int
    games_played: int
    games_won: int
    door_opened: int
    power_reset: int

    def _pack(self) -> bytes:
        return b"".join(to_bcd(v, 4) for v in (self.coin_in, self.coin_out, self.drop, self.jackpot,
                                               self.games_played, self.games_won, self.door_opened,
                                               self.power_reset))

    @classmethod
    def _unpack(cls, data: bytes) -> "Meters":
        _need(data, 32, "1C")
        return cls(*(_bcd(data[i:i + 4]) for i in range(0, 32, 4)))


@dataclass(frozen=True)
class SelectedMetersRequest(Message):
    """Long poll 2F: up to ten meter codes (table C-7) of ``game_number`` (0 = the whole machine)."""

    COMMAND = LP.SEND_SELECTED_METERS
    FORM = "V"
    codes: tuple[int, ...]
    game_number: int = 0

    def __post_init__(self) -> None:
        if not 1 <= len(self.codes) <= 10:
            raise FrameError("bad_length", "long poll 2F asks for 1 to 10 meters")

    def _pack(self) -> bytes:
        return to_bcd(self.game_number, 2) + bytes(self.codes)

    @classmethod
    def _unpack(cls, data: bytes) -> "SelectedMetersRequest":
        if len(data) < 3:
            raise FrameError("bad_length", "2F needs a game number and a meter code")
        return cls(tuple(data[2:]), _bcd(data[:2]))


@dataclass(frozen=True)
class SelectedMeters(Message):
    """Long poll 2F response: ``meters`` code → value, each value in the BCD size of
    :func:`~slotsys.sas.domain.codes.meter_size`, in the order given."""

    COMMAND = LP.SEND_SELECTED_METERS
    FORM = "V"
    meters: Mapping[int, int]
    game_number: int = 0

    def _pack(self) -> bytes:
        out = to_bcd(self.game_number, 2)
        for code, value in self.meters.items():
            out += bytes([code]) + to_bcd(value, meter_size(code))
        return out

    @classmethod
    def _unpack(cls, data: bytes) -> "SelectedMeters":
        if len(data) < 2:
            raise FrameError("bad_length", "2F response needs a game number")
        meters: dict[int, int] = {}
        i = 2
        while i < len(data):
            code = data[i]
            size = meter_size(code)
            if i + 1 + size > len(data):
                raise FrameError("bad_length", f"meter 0x{code:02X} truncated")
            meters[code] = _bcd(data[i + 1:i + 1 + size])
            i += 1 + size
        return cls(meters, _bcd(data[:2]))


@dataclass(frozen=True)
class CurrentCredits(Message):
    """Long poll 1A response: current credits (4 BCD)."""

    COMMAND = LP.SEND_CURRENT_CREDITS
    credits: int

    def _pack(self) -> bytes:
        return to_bcd(self.credits, 4)

    @classmethod
    def _unpack(cls, data: bytes) -> "CurrentCredits":
        _need(data, 4, "1A")
        return cls(_bcd(data))


# ------------------------------------------------------------------ handpay (1B, 94)
@dataclass(frozen=True)
class SendHandpayInfo(Message):
    COMMAND = LP.SEND_HANDPAY_INFO
    FORM = "R"


@dataclass(frozen=True)
class HandpayInfo(Message):
    """Long poll 1B response: progressive group, level (01–20 progressive, 40 non-progressive win, 80
    cancelled credits; 00 with amount 0 when no handpay is pending), amount (5 BCD, won), partial pay (2 BCD),
    reset ID (00 attendant key-off only, 01 may reset to the credit meter), then 10 reserved zero bytes."""

    COMMAND = LP.SEND_HANDPAY_INFO
    group: int
    level: int
    amount: int
    partial_pay: int = 0
    reset_id: int = 0

    def _pack(self) -> bytes:
        return (bytes([self.group, self.level]) + to_bcd(self.amount, 5) + to_bcd(self.partial_pay, 2)
                + bytes([self.reset_id]) + bytes(10))

    @classmethod
    def _unpack(cls, data: bytes) -> "HandpayInfo":
        _need(data, 20, "1B")
        return cls(data[0], data[1], _bcd(data[2:7]), _bcd(data[7:9]), data[9])


@dataclass(frozen=True)
class RemoteHandpayReset(Message):
    COMMAND = LP.REMOTE_HANDPAY_RESET


@dataclass(frozen=True)
class HandpayResetResult(Message):
    """Long poll 94 response: 00 reset, 01 unable, 02 not in a handpay."""

    COMMAND = LP.REMOTE_HANDPAY_RESET
    code: int

    def _pack(self) -> bytes:
        return bytes([self.code])

    @classmethod
    def _unpack(cls, data: bytes) -> "HandpayResetResult":
        _need(data, 1, "94")
        return cls(data[0])


# ------------------------------------------------------------------ identity (1F, 54, 56)
@dataclass(frozen=True)
class SendMachineInfo(Message):
    COMMAND = LP.SEND_MACHINE_INFO
    FORM = "R"


@dataclass(frozen=True)
class MachineInfo(Message):
    """Long poll 1F response: game ID (2 ASCII), additional ID (3 ASCII), denomination code (table C-4), max bet
    (credits, 1 byte), progressive group, game options (2 binary), paytable ID (6 ASCII), base % (4 ASCII,
    hundredths of a percent: "9512" = 95.12%)."""

    COMMAND = LP.SEND_MACHINE_INFO
    game_id: str
    additional_id: str
    denomination_code: int
    max_bet: int
    progressive_group: int
    game_options: int
    paytable_id: str
    base_percent: str

    def _pack(self) -> bytes:
        return (_ascii(self.game_id, 2) + _ascii(self.additional_id, 3)
                + bytes([self.denomination_code, min(self.max_bet, 255), self.progressive_group])
                + self.game_options.to_bytes(2, "little") + _ascii(self.paytable_id, 6)
                + _ascii(self.base_percent, 4))

    @classmethod
    def _unpack(cls, data: bytes) -> "MachineInfo":
        _need(data, 20, "1F")
        try:
            return cls(data[0:2].decode("ascii"), data[2:5].decode("ascii"), data[5], data[6], data[7],
                       int.from_bytes(data[8:10], "little"), data[10:16].decode("ascii").rstrip(),
                       data[16:20].decode("ascii"))
        except UnicodeDecodeError as e:
            raise FrameError("bad_ascii", str(e)) from None


@dataclass(frozen=True)
class SendSasVersion(Message):
    COMMAND = LP.SEND_SAS_VERSION
    FORM = "R"


@dataclass(frozen=True)
class SasVersion(Message):
    """Long poll 54 response: SAS version (3 ASCII, "602") and the machine serial number (0–40 ASCII)."""

    COMMAND = LP.SEND_SAS_VERSION
    FORM = "V"
    version: str
    serial: str

    def _pack(self) -> bytes:
        return _ascii(self.version, 3) + _ascii(self.serial, 0)[:40]

    @classmethod
    def _unpack(cls, data: bytes) -> "SasVersion":
        if len(data) < 3:
            raise FrameError("bad_length", "54 needs a 3-character version")
        try:
            return cls(data[:3].decode("ascii"), data[3:].decode("ascii"))
        except UnicodeDecodeError as e:
            raise FrameError("bad_ascii", str(e)) from None


@dataclass(frozen=True)
class SendEnabledGames(Message):
    COMMAND = LP.SEND_ENABLED_GAMES
    FORM = "R"


@dataclass(frozen=True)
class EnabledGames(Message):
    """Long poll 56 response: number of enabled games (1 binary), then each game number (2 BCD)."""

    COMMAND = LP.SEND_ENABLED_GAMES
    FORM = "V"
    games: tuple[int, ...]

    def _pack(self) -> bytes:
        return bytes([len(self.games)]) + b"".join(to_bcd(g, 2) for g in self.games)

    @classmethod
    def _unpack(cls, data: bytes) -> "EnabledGames":
        if not data or len(data) != 1 + 2 * data[0]:
            raise FrameError("bad_length", "56: count and game numbers do not match")
        return cls(tuple(_bcd(data[1 + 2 * i:3 + 2 * i]) for i in range(data[0])))


# ------------------------------------------------------------------ ROM signature (21)
@dataclass(frozen=True)
class RomSignatureRequest(Message):
    """Long poll 21: the seed (2 binary, LSB first). The machine ACKs and answers a later general poll with
    :class:`RomSignature`."""

    COMMAND = LP.ROM_SIGNATURE
    seed: int

    def _pack(self) -> bytes:
        return self.seed.to_bytes(2, "little")

    @classmethod
    def _unpack(cls, data: bytes) -> "RomSignatureRequest":
        _need(data, 2, "21")
        return cls(int.from_bytes(data, "little"))


@dataclass(frozen=True)
class RomSignature(Message):
    """The ROM signature response: CRC-16 of the program memory with the host's seed (2 binary, LSB first)."""

    COMMAND = LP.ROM_SIGNATURE
    signature: int

    def _pack(self) -> bytes:
        return self.signature.to_bytes(2, "little")

    @classmethod
    def _unpack(cls, data: bytes) -> "RomSignature":
        _need(data, 2, "21")
        return cls(int.from_bytes(data, "little"))


# ------------------------------------------------------------------ bills (48)
@dataclass(frozen=True)
class SendLastBill(Message):
    COMMAND = LP.SEND_LAST_BILL
    FORM = "R"


@dataclass(frozen=True)
class LastBill(Message):
    """Long poll 48 response: country code (1 BCD), bill denomination code (1 BCD, table C-6), and the number
    of bills of that denomination accepted (4 BCD)."""

    COMMAND = LP.SEND_LAST_BILL
    country: int
    denomination_code: int
    bill_meter: int

    def _pack(self) -> bytes:
        return to_bcd(self.country, 1) + to_bcd(self.denomination_code, 1) + to_bcd(self.bill_meter, 4)

    @classmethod
    def _unpack(cls, data: bytes) -> "LastBill":
        _need(data, 6, "48")
        return cls(_bcd(data[0:1]), _bcd(data[1:2]), _bcd(data[2:6]))


# ------------------------------------------------------------------ validation (4C, 4D, 57, 58)
@dataclass(frozen=True)
class SetValidationId(Message):
    """Long poll 4C: machine validation ID (3 binary) and sequence number (3 binary); all zeros only reads."""

    COMMAND = LP.SET_VALIDATION_ID
    machine_id: int
    sequence: int

    def _pack(self) -> bytes:
        return self.machine_id.to_bytes(3, "little") + self.sequence.to_bytes(3, "little")

    @classmethod
    def _unpack(cls, data: bytes) -> "SetValidationId":
        _need(data, 6, "4C")
        return cls(int.from_bytes(data[:3], "little"), int.from_bytes(data[3:], "little"))


@dataclass(frozen=True)
class ValidationIdState(SetValidationId):
    """Long poll 4C response: the machine's current validation ID and sequence number (same layout)."""


@dataclass(frozen=True)
class EnhancedValidationRequest(Message):
    """Long poll 4D: function 00 read the current unread record (marks it read), 01–1F buffer index, FF look
    ahead without marking."""

    COMMAND = LP.SEND_ENHANCED_VALIDATION
    function: int = 0

    def _pack(self) -> bytes:
        return bytes([self.function])

    @classmethod
    def _unpack(cls, data: bytes) -> "EnhancedValidationRequest":
        _need(data, 1, "4D")
        return cls(data[0])


@dataclass(frozen=True)
class EnhancedValidationRecord(Message):
    """Long poll 4D response (31 data bytes; all zeros when there is no record): validation type, buffer index,
    date (4 BCD) and time (3 BCD), validation number (8 BCD = 16 digits), amount (5 BCD, won), ticket number
    (2 binary), validation system ID (1 BCD: 00 secure enhanced, 01–99 the host's), expiration (4 BCD), pool ID
    (2 binary). :attr:`empty` tells the all-zero "no record" answer."""

    COMMAND = LP.SEND_ENHANCED_VALIDATION
    validation_type: int
    index: int
    at: datetime | None
    number16: str
    amount: int
    ticket_number: int
    system_id: int
    expiration: int = 0
    pool_id: int = 0

    @property
    def empty(self) -> bool:
        return self.at is None and self.amount == 0 and set(self.number16) <= {"0"}

    @property
    def validation_number(self) -> str:
        """The 18-digit number printed on the ticket: the system ID's two digits, then the 16."""
        return f"{self.system_id:02d}{self.number16}"

    def _pack(self) -> bytes:
        if self.at is None:
            return bytes(31)
        return (bytes([self.validation_type, self.index]) + sas_date(self.at) + sas_time(self.at)
                + validation_bcd(self.number16, 8) + to_bcd(self.amount, 5)
                + self.ticket_number.to_bytes(2, "little") + to_bcd(self.system_id, 1)
                + to_bcd(self.expiration, 4) + self.pool_id.to_bytes(2, "little"))

    @classmethod
    def _unpack(cls, data: bytes) -> "EnhancedValidationRecord":
        _need(data, 31, "4D")
        if data == bytes(31):
            return cls(0, 0, None, "0" * 16, 0, 0, 0)
        return cls(data[0], data[1], parse_sas_datetime(data[2:6], data[6:9]), validation_digits(data[9:17]),
                   _bcd(data[17:22]), int.from_bytes(data[22:24], "little"), _bcd(data[24:25]),
                   _bcd(data[25:29]), int.from_bytes(data[29:31], "little"))


@dataclass(frozen=True)
class SendPendingCashout(Message):
    COMMAND = LP.SEND_PENDING_CASHOUT
    FORM = "R"


@dataclass(frozen=True)
class PendingCashout(Message):
    """Long poll 57 response: cashout type (00 cashable ticket, 01 restricted, 80 not waiting for system
    validation) and amount (5 BCD, won)."""

    COMMAND = LP.SEND_PENDING_CASHOUT
    cashout_type: int
    amount: int

    def _pack(self) -> bytes:
        return bytes([self.cashout_type]) + to_bcd(self.amount, 5)

    @classmethod
    def _unpack(cls, data: bytes) -> "PendingCashout":
        _need(data, 6, "57")
        return cls(data[0], _bcd(data[1:]))


@dataclass(frozen=True)
class ReceiveValidationNumber(Message):
    """Long poll 58: validation system ID (1 BCD; 00 denies the cashout) and the 16-digit number (8 BCD)."""

    COMMAND = LP.RECEIVE_VALIDATION_NUMBER
    system_id: int
    number16: str

    def _pack(self) -> bytes:
        return to_bcd(self.system_id, 1) + validation_bcd(self.number16, 8)

    @classmethod
    def _unpack(cls, data: bytes) -> "ReceiveValidationNumber":
        _need(data, 9, "58")
        return cls(_bcd(data[:1]), validation_digits(data[1:]))


@dataclass(frozen=True)
class ReceiveValidationNumberAck(Message):
    """Long poll 58 response: 00 acknowledged, 80 not in cashout, 81 improper validation rejected."""

    COMMAND = LP.RECEIVE_VALIDATION_NUMBER
    status: int

    def _pack(self) -> bytes:
        return bytes([self.status])

    @classmethod
    def _unpack(cls, data: bytes) -> "ReceiveValidationNumberAck":
        _need(data, 1, "58")
        return cls(data[0])


# ------------------------------------------------------------------ ticket redemption (70, 71)
@dataclass(frozen=True)
class SendTicketValidationData(Message):
    COMMAND = LP.SEND_TICKET_VALIDATION_DATA
    FORM = "R"


@dataclass(frozen=True)
class TicketValidationData(Message):
    """Long poll 70 response: ticket status (00 in escrow, FF none), amount (5 BCD, won; 0 when the machine
    cannot read it), parsing code 00 and the 18-digit validation data (9 BCD). With no ticket only the status
    and a zero amount and parsing code are sent."""

    COMMAND = LP.SEND_TICKET_VALIDATION_DATA
    FORM = "V"
    status: int
    amount: int = 0
    validation_number: str | None = None
    parsing_code: int = 0

    def _pack(self) -> bytes:
        out = bytes([self.status]) + to_bcd(self.amount, 5) + bytes([self.parsing_code])
        if self.validation_number is not None:
            out += validation_bcd(self.validation_number, 9)
        return out

    @classmethod
    def _unpack(cls, data: bytes) -> "TicketValidationData":
        if len(data) not in (7, 16):
            raise FrameError("bad_length", f"70: 7 or 16 data bytes expected, got {len(data)}")
        vn = validation_digits(data[7:16]) if len(data) == 16 else None
        return cls(data[0], _bcd(data[1:6]), vn, data[6])


@dataclass(frozen=True)
class RedeemTicket(Message):
    """Long poll 71: transfer code (table 15.12c; FF requests the current status and carries nothing else),
    transfer amount (5 BCD, won), parsing code 00, the 18-digit validation data (9 BCD); for restricted
    tickets also expiration (4 BCD) and pool ID (2 binary)."""

    COMMAND = LP.REDEEM_TICKET
    FORM = "V"
    code: int
    amount: int = 0
    validation_number: str | None = None
    parsing_code: int = 0
    expiration: int | None = None
    pool_id: int = 0

    def _pack(self) -> bytes:
        if self.code == 0xFF:
            return b"\xff"
        if self.validation_number is None:
            raise FrameError("bad_validation_number", "71 needs the validation data")
        out = bytes([self.code]) + to_bcd(self.amount, 5) + bytes([self.parsing_code])
        out += validation_bcd(self.validation_number, 9)
        if self.expiration is not None:
            out += to_bcd(self.expiration, 4) + self.pool_id.to_bytes(2, "little")
        return out

    @classmethod
    def _unpack(cls, data: bytes) -> "RedeemTicket":
        if data == b"\xff":
            return cls(0xFF)
        if len(data) not in (16, 22):
            raise FrameError("bad_length", f"71: 1, 16 or 22 data bytes expected, got {len(data)}")
        exp = _bcd(data[16:20]) if len(data) == 22 else None
        pool = int.from_bytes(data[20:22], "little") if len(data) == 22 else 0
        return cls(data[0], _bcd(data[1:6]), validation_digits(data[7:16]), data[6], exp, pool)


@dataclass(frozen=True)
class RedeemTicketStatus(Message):
    """Long poll 71 response: machine status (table 15.12d), then amount (5 BCD), parsing code and validation
    data (9 BCD), the last three left out for status C0 and FF."""

    COMMAND = LP.REDEEM_TICKET
    FORM = "V"
    status: int
    amount: int = 0
    validation_number: str | None = None
    parsing_code: int = 0

    def _pack(self) -> bytes:
        if self.status in (0xC0, 0xFF) or self.validation_number is None:
            return bytes([self.status])
        return (bytes([self.status]) + to_bcd(self.amount, 5) + bytes([self.parsing_code])
                + validation_bcd(self.validation_number, 9))

    @classmethod
    def _unpack(cls, data: bytes) -> "RedeemTicketStatus":
        if len(data) == 1:
            return cls(data[0])
        if len(data) != 16:
            raise FrameError("bad_length", f"71 response: 1 or 16 data bytes expected, got {len(data)}")
        return cls(data[0], _bcd(data[1:6]), validation_digits(data[7:16]), data[6])


# ------------------------------------------------------------------ AFT (72, 74)
@dataclass(frozen=True)
class AftTransfer(Message):
    """Long poll 72 transfer request (SAS 6.02 §8.3): transfer code (00 full only, 01 partial allowed, 80
    cancel), transaction index 00, transfer type (00 in-house to the machine, 80 machine to host …), cashable,
    restricted and nonrestricted amounts (5 BCD each, won), transfer flags, asset number (4 binary),
    registration key (20 bytes; zeros when not required), transaction ID (1–20 printable ASCII, with its length
    byte), expiration (4 BCD), pool ID (2 binary), receipt data (length 0 here)."""

    COMMAND = LP.AFT_TRANSFER
    FORM = "V"
    transaction_id: str
    transfer_type: int
    cashable: int
    asset_number: int
    restricted: int = 0
    nonrestricted: int = 0
    code: int = 0x00
    flags: int = 0x00
    registration_key: bytes = bytes(20)
    expiration: int = 0
    pool_id: int = 0

    def __post_init__(self) -> None:
        tid = self.transaction_id
        if not 1 <= len(tid) <= 20 or not all(0x20 <= ord(c) <= 0x7E for c in tid):
            raise FrameError("bad_transaction_id", "an AFT transaction ID is 1–20 printable ASCII characters")
        if len(self.registration_key) != 20:
            raise FrameError("bad_length", "the AFT registration key is 20 bytes")

    def _pack(self) -> bytes:
        tid = self.transaction_id.encode("ascii")
        return (bytes([self.code, 0x00, self.transfer_type]) + to_bcd(self.cashable, 5)
                + to_bcd(self.restricted, 5) + to_bcd(self.nonrestricted, 5) + bytes([self.flags])
                + self.asset_number.to_bytes(4, "little") + self.registration_key + bytes([len(tid)]) + tid
                + to_bcd(self.expiration, 4) + self.pool_id.to_bytes(2, "little") + b"\x00")

    @classmethod
    def _unpack(cls, data: bytes) -> "AftTransfer":
        if len(data) < 44:
            raise FrameError("bad_length", "72 transfer request too short")
        n = data[43]
        if len(data) < 44 + n + 7:
            raise FrameError("bad_length", "72 transaction ID / expiration truncated")
        try:
            tid = data[44:44 + n].decode("ascii")
        except UnicodeDecodeError as e:
            raise FrameError("bad_transaction_id", str(e)) from None
        rest = data[44 + n:]
        return cls(tid, data[2], _bcd(data[3:8]), int.from_bytes(data[19:23], "little"), _bcd(data[8:13]),
                   _bcd(data[13:18]), data[0], data[18], bytes(data[23:43]), _bcd(rest[0:4]),
                   int.from_bytes(rest[4:6], "little"))


@dataclass(frozen=True)
class AftInterrogate(Message):
    """Long poll 72 interrogation (transfer code FF; FE also accepted): transaction index 00 = the current or
    most recent transfer."""

    COMMAND = LP.AFT_TRANSFER
    FORM = "V"
    index: int = 0

    def _pack(self) -> bytes:
        return bytes([0xFF, self.index])

    @classmethod
    def _unpack(cls, data: bytes) -> "AftInterrogate":
        if len(data) != 2 or data[0] not in (0xFE, 0xFF):
            raise FrameError("bad_frame", "not an AFT interrogation")
        return cls(data[1])


@dataclass(frozen=True)
class AftTransferResult(Message):
    """Long poll 72 response: buffer position, transfer status (:class:`~slotsys.sas.domain.codes.AftStatus`),
    receipt status (FF none), transfer type, the three amounts (5 BCD, won), flags, asset number, transaction ID,
    completion date (4 BCD) and time (3 BCD), expiration (4 BCD), pool ID, and the three cumulative meter fields
    (size byte 0 here). With no transfer information only position and status (FF) are sent."""

    COMMAND = LP.AFT_TRANSFER
    FORM = "V"
    status: int
    transaction_id: str = ""
    transfer_type: int = 0
    cashable: int = 0
    asset_number: int = 0
    at: datetime | None = None
    restricted: int = 0
    nonrestricted: int = 0
    position: int = 0
    receipt_status: int = 0xFF
    flags: int = 0

    def _pack(self) -> bytes:
        if self.status == 0xFF and not self.transaction_id:
            return bytes([self.position, 0xFF])
        tid = self.transaction_id.encode("ascii")
        when = (sas_date(self.at) + sas_time(self.at)) if self.at is not None else bytes(7)
        return (bytes([self.position, self.status, self.receipt_status, self.transfer_type])
                + to_bcd(self.cashable, 5) + to_bcd(self.restricted, 5) + to_bcd(self.nonrestricted, 5)
                + bytes([self.flags]) + self.asset_number.to_bytes(4, "little") + bytes([len(tid)]) + tid
                + when + bytes(4) + bytes(2) + bytes(3))

    @classmethod
    def _unpack(cls, data: bytes) -> "AftTransferResult":
        if len(data) == 2:
            return cls(data[1], position=data[0])
        if len(data) < 25:
            raise FrameError("bad_length", "72 response too short")
        n = data[24]
        rest = data[25 + n:]
        if len(rest) < 7:
            raise FrameError("bad_length", "72 response date/time truncated")
        at = None if rest[:7] == bytes(7) else parse_sas_datetime(rest[0:4], rest[4:7])
        try:
            tid = data[25:25 + n].decode("ascii")
        except UnicodeDecodeError as e:
            raise FrameError("bad_transaction_id", str(e)) from None
        return cls(data[1], tid, data[3], _bcd(data[4:9]), int.from_bytes(data[20:24], "little"), at,
                   _bcd(data[9:14]), _bcd(data[14:19]), data[0], data[2], data[19])


@dataclass(frozen=True)
class AftLockRequest(Message):
    """Long poll 74: lock code (00 request lock, 80 cancel, FF interrogate only), transfer conditions (bit 0 to
    the machine, bit 1 from the machine, bit 2 to printer, bit 3 bonus), lock timeout (2 BCD, hundredths of a
    second)."""

    COMMAND = LP.AFT_LOCK_STATUS
    lock_code: int = 0xFF
    conditions: int = 0
    timeout_cs: int = 0

    def _pack(self) -> bytes:
        return bytes([self.lock_code, self.conditions]) + to_bcd(self.timeout_cs, 2)

    @classmethod
    def _unpack(cls, data: bytes) -> "AftLockRequest":
        _need(data, 4, "74")
        return cls(data[0], data[1], _bcd(data[2:4]))


@dataclass(frozen=True)
class AftLockStatus(Message):
    """Long poll 74 response (35 data bytes): asset number (4 binary), lock status (00 locked, 40 pending, FF
    not locked), available transfers, host cashout status, AFT status, max history index, current cashable /
    restricted / nonrestricted amounts and the transfer limit (5 BCD each, won), restricted expiration (4 BCD),
    pool ID (2 binary)."""

    COMMAND = LP.AFT_LOCK_STATUS
    FORM = "V"
    asset_number: int
    lock_status: int
    available: int
    cashable: int
    transfer_limit: int
    host_cashout: int = 0
    aft_status: int = 0x90  # any AFT enabled (bit 7) + in-house enabled (bit 4)
    max_index: int = 0x7F
    restricted: int = 0
    nonrestricted: int = 0
    restricted_expiration: int = 0
    pool_id: int = 0

    def _pack(self) -> bytes:
        return (self.asset_number.to_bytes(4, "little")
                + bytes([self.lock_status, self.available, self.host_cashout, self.aft_status, self.max_index])
                + to_bcd(self.cashable, 5) + to_bcd(self.restricted, 5) + to_bcd(self.nonrestricted, 5)
                + to_bcd(self.transfer_limit, 5) + to_bcd(self.restricted_expiration, 4)
                + self.pool_id.to_bytes(2, "little"))

    @classmethod
    def _unpack(cls, data: bytes) -> "AftLockStatus":
        _need(data, 35, "74")
        return cls(int.from_bytes(data[0:4], "little"), data[4], data[5], _bcd(data[9:14]), _bcd(data[24:29]),
                   data[6], data[7], data[8], _bcd(data[14:19]), _bcd(data[19:24]), _bcd(data[29:33]),
                   int.from_bytes(data[33:35], "little"))


# ------------------------------------------------------------------ date / time (7E, 7F)
@dataclass(frozen=True)
class SendDateTime(Message):
    COMMAND = LP.SEND_DATE_TIME
    FORM = "R"


@dataclass(frozen=True)
class DateTimeValue(Message):
    """Long poll 7E response: the machine's date (MMDDYYYY, 4 BCD) and time (HHMMSS, 3 BCD)."""

    COMMAND = LP.SEND_DATE_TIME
    at: datetime

    def _pack(self) -> bytes:
        return sas_date(self.at) + sas_time(self.at)

    @classmethod
    def _unpack(cls, data: bytes) -> "DateTimeValue":
        _need(data, 7, "7E")
        return cls(parse_sas_datetime(data[:4], data[4:]))


@dataclass(frozen=True)
class SetDateTime(DateTimeValue):
    """Long poll 7F (type S, or type G to address 0): set the machine's clock; ACKed."""

    COMMAND = LP.SET_DATE_TIME


# ------------------------------------------------------------------ legacy bonus (8A, 90, 9A)
@dataclass(frozen=True)
class LegacyBonus(Message):
    """Long poll 8A: bonus amount (4 BCD, credits) and tax status (00 deductible, 01 non-deductible, 02 wager
    match). ACKed, or "busy" when the machine cannot pay it now."""

    COMMAND = LP.LEGACY_BONUS
    credits: int
    tax_status: int = 0

    def _pack(self) -> bytes:
        return to_bcd(self.credits, 4) + bytes([self.tax_status])

    @classmethod
    def _unpack(cls, data: bytes) -> "LegacyBonus":
        _need(data, 5, "8A")
        return cls(_bcd(data[:4]), data[4])


@dataclass(frozen=True)
class SendLegacyBonusWin(Message):
    COMMAND = LP.SEND_LEGACY_BONUS_WIN
    FORM = "R"


@dataclass(frozen=True)
class LegacyBonusWin(Message):
    """Long poll 90 response: multiplier (binary), multiplied win (4 BCD credits), tax status, bonus (4 BCD
    credits) of the last legacy bonus."""

    COMMAND = LP.SEND_LEGACY_BONUS_WIN
    multiplier: int
    multiplied_win: int
    tax_status: int
    bonus: int

    def _pack(self) -> bytes:
        return (bytes([self.multiplier]) + to_bcd(self.multiplied_win, 4) + bytes([self.tax_status])
                + to_bcd(self.bonus, 4))

    @classmethod
    def _unpack(cls, data: bytes) -> "LegacyBonusWin":
        _need(data, 10, "90")
        return cls(data[0], _bcd(data[1:5]), data[5], _bcd(data[6:10]))


@dataclass(frozen=True)
class SendLegacyBonusMeters(Message):
    """Long poll 9A: the legacy bonus meters of ``game_number`` (0 = the machine)."""

    COMMAND = LP.SEND_LEGACY_BONUS_METERS
    game_number: int = 0

    def _pack(self) -> bytes:
        return to_bcd(self.game_number, 2)

    @classmethod
    def _unpack(cls, data: bytes) -> "SendLegacyBonusMeters":
        _need(data, 2, "9A")
        return cls(_bcd(data))


@dataclass(frozen=True)
class LegacyBonusMeters(Message):
    """Long poll 9A response: game number (2 BCD), deductible, non-deductible and wager match bonus meters
    (4 BCD credits each)."""

    COMMAND = LP.SEND_LEGACY_BONUS_METERS
    deductible: int
    non_deductible: int
    wager_match: int
    game_number: int = 0

    @property
    def total(self) -> int:
        return self.deductible + self.non_deductible + self.wager_match

    def _pack(self) -> bytes:
        return (to_bcd(self.game_number, 2) + to_bcd(self.deductible, 4) + to_bcd(self.non_deductible, 4)
                + to_bcd(self.wager_match, 4))

    @classmethod
    def _unpack(cls, data: bytes) -> "LegacyBonusMeters":
        _need(data, 14, "9A")
        return cls(_bcd(data[2:6]), _bcd(data[6:10]), _bcd(data[10:14]), _bcd(data[:2]))

