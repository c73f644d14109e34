"""Packed BCD (SAS 6.02 §2.2.3): two decimal digits a byte, most significant byte first. Meters, amounts, dates
and times travel in BCD; binary fields travel LSB first.

Errors: :class:`BcdError` (a ``ValueError``) for a nibble above 9 on decode, or a value that does not fit the
byte count on encode.
"""

from __future__ import annotations

__all__ = ["BcdError", "to_bcd", "from_bcd", "bcd_digits"]


class BcdError(ValueError):
    """A BCD field that is not packed decimal, or a value too large for its field."""


def to_bcd(value: int, nbytes: int) -> bytes:
    """``value`` (an int ≥ 0) as ``nbytes`` bytes of packed BCD, most significant first:
    ``to_bcd(1234, 4) == b"\\x00\\x00\\x12\\x34"``. Raises :class:`BcdError` if it has more than 2 × ``nbytes``
    digits or is negative."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise BcdError(f"a BCD value is an int ≥ 0, got {value!r}")
    digits = f"{value:0{2 * nbytes}d}"
    if len(digits) > 2 * nbytes:
        raise BcdError(f"{value} does not fit in {nbytes} BCD bytes")
    return bytes(int(digits[i:i + 2], 16) for i in range(0, 2 * nbytes, 2))


def bcd_digits(data: bytes) -> str:
    """The decimal digits of packed BCD ``data`` as a string (leading zeros kept: validation numbers).
    Raises :class:`BcdError` on a nibble above 9."""
    out = []
    for b in data:
        hi, lo = b >> 4, b & 0x0F
        if hi > 9 or lo > 9:
            raise BcdError(f"byte 0x{b:02X} is not packed BCD")
        out.append(f"{hi}{lo}")
    return "".join(out)


def from_bcd(data: bytes) -> int:
    """The integer value of packed BCD ``data``; raises :class:`BcdError` on a nibble above 9."""
    return int(bcd_digits(data) or "0")
