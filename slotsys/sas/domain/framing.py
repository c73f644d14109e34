"""SAS framing (SAS 6.02 §1.2, §2.2, §3, §4): the wakeup (9th) bit, general and long polls, the host's
response assembler and the machine's streaming decoder of host messages.

Wire model. SAS sends 11-bit characters at 19.2 kbaud: start, 8 data bits, the wakeup bit, stop. The host sets
the wakeup bit on the first byte of each message (the address) and clears it on the rest; a machine clears it on
everything it sends (a "chirp", its address with the bit set, is the one exception). Here a received character
is ``(value, wakeup)``.

In-band wakeup encoding (pseudo-terminals and TCP carry no 9th bit; a Linux UART receiving with SPACE parity
and ``PARMRK`` reports a character whose 9th bit is set as a parity error in exactly this form, so one decoder
serves all three links): a character with the wakeup bit set is sent as ``FF 00 b``; a plain ``FF`` data byte as
``FF FF``; every other byte as itself. (``FF 00 00`` is also how ``PARMRK`` reports a line break; here it is
the wakeup byte 0x00, the global broadcast address.)

General poll: one byte, ``0x80 | address`` with wakeup. Long polls: type R is address + command (no CRC); type
S/M/G is address, command, [length], data, CRC (LSB first, over every byte before it). A machine ACKs a type S
poll without response data with its address, NACKs with ``address | 0x80``, answers "busy" with address + 00.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Iterable

from slotsys.sas.domain.crc import append_crc, crc_ok

__all__ = [
    "WAKEUP_ESCAPE", "general_poll", "long_poll", "encode_inband", "InbandDecoder", "HostMessage",
    "HostFrameDecoder", "HOST_POLL_LENGTH", "VARIABLE_POLLS", "ResponseKind", "ResponseSpec", "response_spec",
    "RxStatus", "RxResult", "ResponseAssembler", "FrameError",
]

WAKEUP_ESCAPE = 0xFF


class FrameError(ValueError):
    """A frame that cannot be built or decoded (bad address, bad CRC, wrong length …); ``reason`` is a stable
    snake_case code."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


def _check_address(address: int, *, allow_zero: bool = False) -> None:
    if not (0 if allow_zero else 1) <= address <= 127:
        raise FrameError("bad_address", f"a SAS machine address is 1..127, got {address!r}")


def general_poll(address: int) -> bytes:
    """The general poll of ``address`` (0..127; 0 polls nobody and serves as an implied ACK and a
    synchronisation point, §3.3): one byte ``0x80 | address``, sent with the wakeup bit."""
    _check_address(address, allow_zero=True)
    return bytes([0x80 | address])


def long_poll(address: int, command: int, data: bytes = b"", *, crc: bool = True, variable: bool = False) -> bytes:
    """A long poll frame: ``address, command, [len(data)], data, [CRC]``. ``crc`` False for type R polls
    (address + command only); ``variable`` adds the length byte (the bytes that follow it, CRC excluded).
    ``address`` 0 is a type G global broadcast. The first byte goes out with the wakeup bit."""
    _check_address(address, allow_zero=True)
    if not 0 <= command <= 0xFF:
        raise FrameError("bad_command", f"command 0x{command:X} is not a byte")
    body = bytes([address, command])
    if variable:
        if len(data) > 255:
            raise FrameError("too_long", f"{len(data)} data bytes do not fit a length byte")
        body += bytes([len(data)])
    body += bytes(data)
    if not crc:
        if data:
            raise FrameError("type_r_with_data", "a type R long poll carries no data")
        return body
    return append_crc(body)


def encode_inband(frame: bytes, *, wakeup_first: bool = True) -> bytes:
    """``frame`` with the in-band wakeup encoding (module docstring): the first byte marked when
    ``wakeup_first``, every literal FF doubled."""
    out = bytearray()
    for i, b in enumerate(frame):
        if i == 0 and wakeup_first:
            out += bytes([WAKEUP_ESCAPE, 0x00, b])
        elif b == WAKEUP_ESCAPE:
            out += b"\xff\xff"
        else:
            out.append(b)
    return bytes(out)


class InbandDecoder:
    """Decodes the in-band wakeup encoding back to ``(value, wakeup)`` characters, across reads (an escape may be
    split between two reads). An ``FF`` followed by anything but ``00``/``FF`` is kept as a plain ``FF`` and
    counted in ``errors`` (a corrupted escape)."""

    def __init__(self) -> None:
        self._pending = b""
        self.errors = 0

    def feed(self, data: bytes) -> list[tuple[int, bool]]:
        buf = self._pending + bytes(data)
        out: list[tuple[int, bool]] = []
        i, n = 0, len(buf)
        while i < n:
            b = buf[i]
            if b != WAKEUP_ESCAPE:
                out.append((b, False))
                i += 1
                continue
            if i + 1 >= n:
                break
            nxt = buf[i + 1]
            if nxt == WAKEUP_ESCAPE:
                out.append((WAKEUP_ESCAPE, False))
                i += 2
            elif nxt == 0x00:
                if i + 2 >= n:
                    break
                out.append((buf[i + 2], True))
                i += 3
            else:
                self.errors += 1
                out.append((WAKEUP_ESCAPE, False))
                i += 1
        self._pending = buf[i:]
        return out


# ------------------------------------------------------------------ machine side: host messages
# total lengths (address … CRC) of the host's fixed-length long polls; R polls are 2 bytes
_TYPE_R = (0x1A, 0x1B, 0x1C, 0x1F, 0x48, 0x54, 0x56, 0x57, 0x70, 0x7E, 0x90)
HOST_POLL_LENGTH: dict[int, int] = {
    **{c: 2 for c in _TYPE_R},
    0x01: 4, 0x02: 4, 0x21: 6, 0x4C: 10, 0x4D: 5, 0x58: 13, 0x74: 8, 0x7F: 11, 0x8A: 9, 0x94: 4, 0x9A: 6,
}
VARIABLE_POLLS = frozenset({0x2F, 0x71, 0x72})


@dataclass(frozen=True)
class HostMessage:
    """One message from the host as a machine decodes it. ``kind``: ``general`` (general poll; ``command``
    None) or ``long``; ``address`` 0..127 (0: broadcast / sync); ``frame`` the raw bytes (address first);
    ``data`` the bytes between command (or length byte) and CRC; ``crc_valid`` False for a CRC-bearing poll
    whose CRC does not match (the machine ignores it, §5)."""

    kind: str
    address: int
    command: int | None
    frame: bytes
    data: bytes = b""
    crc_valid: bool = True


class HostFrameDecoder:
    """Streaming decoder of host messages from ``(value, wakeup)`` characters, as a machine on the channel sees
    them: every wakeup character starts a new message (§1.2.1). Survives garbage (characters without a message
    start are dropped, counted in ``garbage``), truncated messages (a new wakeup character before the message was
    complete; ``truncated``), unknown commands (the message is dropped at the next wakeup; ``unknown``) and bad
    CRCs (delivered with ``crc_valid`` False; ``crc_errors``)."""

    def __init__(self) -> None:
        self._buf: bytearray | None = None
        self._need: int | None = None
        self.garbage = self.truncated = self.unknown = self.crc_errors = 0

    def feed(self, chars: Iterable[tuple[int, bool]]) -> list[HostMessage]:
        out: list[HostMessage] = []
        for value, wakeup in chars:
            if wakeup:
                if self._buf is not None and self._need != -1:
                    self.truncated += 1
                self._buf, self._need = None, None
                if value & 0x80:
                    out.append(HostMessage("general", value & 0x7F, None, bytes([value])))
                    continue
                self._buf = bytearray([value])
                continue
            if self._buf is None:
                self.garbage += 1
                continue
            if self._need == -1:  # unknown command: ignore until the next wakeup
                continue
            self._buf.append(value)
            msg = self._complete()
            if msg is not None:
                out.append(msg)
        return out

    def _complete(self) -> HostMessage | None:
        buf = self._buf
        assert buf is not None
        if len(buf) == 2:
            cmd = buf[1]
            if cmd in HOST_POLL_LENGTH:
                self._need = HOST_POLL_LENGTH[cmd]
            elif cmd in VARIABLE_POLLS:
                self._need = None
            else:
                self.unknown += 1
                self._need = -1
                return None
        if self._need is None and len(buf) >= 3 and buf[1] in VARIABLE_POLLS:
            self._need = 3 + buf[2] + 2
        if self._need is None or len(buf) < self._need:
            return None
        frame = bytes(buf)
        self._buf, self._need = None, None
        address, cmd = frame[0], frame[1]
        if len(frame) == 2:
            return HostMessage("long", address, cmd, frame)
        ok = crc_ok(frame)
        if not ok:
            self.crc_errors += 1
        start = 3 if cmd in VARIABLE_POLLS else 2
        return HostMessage("long", address, cmd, frame, frame[start:-2], ok)


# ------------------------------------------------------------------ host side: responses
class ResponseKind(Enum):
    EXCEPTION = "exception"  # general poll: one exception byte, or a ROM signature response (21)
    ACK = "ack"  # address only (or NACK, busy)
    FIXED = "fixed"  # known total length with CRC
    VARIABLE = "variable"  # length byte at index 2, CRC
    NONE = "none"  # no response expected (broadcast, address-0 sync poll)


@dataclass(frozen=True)
class ResponseSpec:
    kind: ResponseKind
    length: int = 0  # FIXED: total bytes incl. address, command and CRC


# response lengths of the long polls (address … CRC)
_FIXED_RESPONSES = {0x1A: 8, 0x1B: 24, 0x1C: 36, 0x1F: 24, 0x21: 6, 0x48: 10, 0x4C: 10, 0x4D: 35, 0x57: 10,
                    0x58: 5, 0x7E: 11, 0x90: 14, 0x94: 5, 0x9A: 18}
_VARIABLE_RESPONSES = frozenset({0x2F, 0x54, 0x56, 0x70, 0x71, 0x72, 0x74})
_ACK_RESPONSES = frozenset({0x01, 0x02, 0x7F, 0x8A})
ROM_SIGNATURE_LENGTH = 6


def response_spec(command: int | None, address: int) -> ResponseSpec:
    """What the host waits for after a poll: ``command`` None is a general poll; address 0 expects nothing."""
    if address == 0:
        return ResponseSpec(ResponseKind.NONE)
    if command is None:
        return ResponseSpec(ResponseKind.EXCEPTION)
    if command in _FIXED_RESPONSES and command != 0x21:
        return ResponseSpec(ResponseKind.FIXED, _FIXED_RESPONSES[command])
    if command in _VARIABLE_RESPONSES:
        return ResponseSpec(ResponseKind.VARIABLE)
    return ResponseSpec(ResponseKind.ACK)  # 01, 02, 21 (ACK now, signature later), 7F, 8A, unknown S polls


class RxStatus(Enum):
    INCOMPLETE = "incomplete"
    COMPLETE = "complete"  # frame holds the response (exception byte, ACK byte, or a CRC-valid frame)
    NACK = "nack"
    BUSY = "busy"
    BAD_CRC = "bad_crc"
    WRONG_ADDRESS = "wrong_address"
    GARBAGE = "garbage"  # a wakeup character (chirp/collision) or bytes that fit no response
    TRUNCATED = "truncated"  # the inter-byte timeout passed inside a frame


@dataclass(frozen=True)
class RxResult:
    status: RxStatus
    frame: bytes = b""

    @property
    def done(self) -> bool:
        return self.status is not RxStatus.INCOMPLETE


class ResponseAssembler:
    """Accumulates a machine's response to one poll to ``address`` (host side). :meth:`feed` takes characters
    and returns the result so far; :meth:`finish` is called when the inter-byte timeout passes after the last
    character and returns the final reading of what arrived (a lone exception byte equal to the address, or a
    lone ACK that might have grown into a busy response, are only known then)."""

    def __init__(self, address: int, command: int | None, spec: ResponseSpec | None = None) -> None:
        self.address = address
        self.command = command
        self.spec = spec or response_spec(command, address)
        self.buf = bytearray()

    def feed(self, chars: Iterable[tuple[int, bool]]) -> RxResult:
        for value, wakeup in chars:
            if wakeup:
                return RxResult(RxStatus.GARBAGE, bytes(self.buf) + bytes([value]))
            self.buf.append(value)
            r = self._check(final=False)
            if r.done:
                return r
        return RxResult(RxStatus.INCOMPLETE, bytes(self.buf))

    def finish(self) -> RxResult:
        """The result once no more characters come (inter-byte timeout)."""
        if not self.buf:
            return RxResult(RxStatus.INCOMPLETE)
        r = self._check(final=True)
        return r if r.done else RxResult(RxStatus.TRUNCATED, bytes(self.buf))

    def _check(self, *, final: bool) -> RxResult:
        b, a, kind = self.buf, self.address, self.spec.kind
        n = len(b)
        if kind is ResponseKind.EXCEPTION:
            if b[0] != a:
                return RxResult(RxStatus.COMPLETE, bytes(b[:1]))
            # the exception code equal to the address, or a ROM signature response (address, 21, sig, CRC)
            if n == 1:
                return RxResult(RxStatus.COMPLETE, bytes(b)) if final else RxResult(RxStatus.INCOMPLETE)
            if b[1] != 0x21:
                return RxResult(RxStatus.GARBAGE, bytes(b))
            if n < ROM_SIGNATURE_LENGTH:
                return RxResult(RxStatus.INCOMPLETE)
            frame = bytes(b[:ROM_SIGNATURE_LENGTH])
            return RxResult(RxStatus.COMPLETE if crc_ok(frame) else RxStatus.BAD_CRC, frame)
        first = b[0]
        if first != a:
            if first == (a | 0x80) and kind is ResponseKind.ACK:
                return RxResult(RxStatus.NACK, bytes(b[:1]))
            return RxResult(RxStatus.WRONG_ADDRESS, bytes(b))
        if kind is ResponseKind.ACK:
            if n == 1:
                return RxResult(RxStatus.COMPLETE, bytes(b)) if final else RxResult(RxStatus.INCOMPLETE)
            if b[1] == 0x00:
                return RxResult(RxStatus.BUSY, bytes(b[:2]))
            return RxResult(RxStatus.GARBAGE, bytes(b))
        if n >= 2 and b[1] == 0x00:
            return RxResult(RxStatus.BUSY, bytes(b[:2]))
        if n >= 2 and b[1] != self.command:
            return RxResult(RxStatus.GARBAGE, bytes(b))
        if kind is ResponseKind.FIXED:
            need = self.spec.length
        else:
            if n < 3:
                return RxResult(RxStatus.INCOMPLETE)
            need = 3 + b[2] + 2
        if n < need:
            return RxResult(RxStatus.INCOMPLETE)
        frame = bytes(b[:need])
        return RxResult(RxStatus.COMPLETE if crc_ok(frame) else RxStatus.BAD_CRC, frame)
