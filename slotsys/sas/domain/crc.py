"""The SAS CRC-16 (SAS 6.02 §5): CCITT polynomial x^16 + x^12 + x^5 + 1, processed least significant bit first
(the reflected "Kermit" form), initial value 0 for every message (the seed of a ROM signature, §6), no final XOR,
sent on the wire LSB first after the bytes it covers.

Computed by the ``crccheck`` library's :class:`~crccheck.crc.Crc16Kermit`. Check value: ``crc16(b"123456789")``
is ``0x2189``; a real frame: the shutdown long poll to address 1 is ``01 01 51 08`` (CRC 0x0851).
"""

from __future__ import annotations

from crccheck.crc import Crc16Kermit

__all__ = ["crc16", "append_crc", "crc_ok", "CRC_LEN"]

CRC_LEN = 2


def _reflect16(x: int) -> int:
    return int(f"{x:016b}"[::-1], 2)


def crc16(data: bytes, seed: int = 0) -> int:
    """The SAS CRC of ``data`` (0..0xFFFF). ``seed`` is the CRC register's starting value (0 for messages, the
    host's seed for a ROM signature, §6) in the same LSB-first form as a result, so a CRC continues:
    ``crc16(a + b) == crc16(b, seed=crc16(a))``. (``crccheck`` takes the initial value unreflected, hence the
    bit reversal.) Raises ``ValueError`` for a seed outside 0..0xFFFF."""
    if not 0 <= seed <= 0xFFFF:
        raise ValueError(f"CRC seed must be 0..0xFFFF, got {seed!r}")
    return Crc16Kermit.calc(bytes(data), initvalue=_reflect16(seed))


def append_crc(frame: bytes) -> bytes:
    """``frame`` followed by its CRC, low byte first (every type S/M/G long poll and multi-byte response)."""
    return bytes(frame) + crc16(frame).to_bytes(2, "little")


def crc_ok(frame: bytes) -> bool:
    """Whether the last two bytes of ``frame`` are the CRC (LSB first) of the bytes before them."""
    if len(frame) < 3:
        return False
    return crc16(frame[:-2]) == int.from_bytes(frame[-2:], "little")
