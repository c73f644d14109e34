"""TITO validation numbers: 18 decimal digits, two schemes behind one interface.

A ticket's validation number is the key the whole TITO system redeems by. Every
number is a ``str`` of exactly 18 ASCII digits (leading zeros matter, so never an
``int``). Two schemes share the 18-digit space and are told apart by the prefix:

``"sas"`` (prefix ``"00"``)
    SAS *secure enhanced* validation (SAS 6.02 §15): the gaming machine computes
    the number itself from its 3-byte machine validation ID and a 3-byte sequence
    number, using the SAS CRC-16. See :func:`sas_secure_enhanced_number`.

``"system"`` (first two digits both 1-9)
    System validation: the host issues the number from a CSPRNG: two random digits
    1-9, fifteen random digits 0-9, then one Damm check digit (see
    :func:`damm_check_digit`). Because neither of the first two digits is ever 0,
    one mistyped digit or one swapped pair can never turn a system number into
    something that looks like a SAS number (or the reverse): every single-digit
    substitution and adjacent transposition of a system number is caught by
    :func:`check`.

Anything else (not 18 ASCII digits, or a prefix ``"0d"`` / ``"d0"`` with d != 0)
is malformed: no scheme ever issues it.

:func:`check` is what the service calls on every presentation (cashier keying,
kiosk scan, ticket-in): it raises :class:`MalformedValidationNumber` or
:class:`CheckDigitError` for a number that *cannot* be genuine, i.e. a misread or
mistyped number, so that only well-formed numbers are looked up and a miss can be
reported as "not on file".

Pure domain code: standard library only; randomness is injected.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import ClassVar, Final, Literal, Protocol, runtime_checkable

__all__ = [
    "LENGTH",
    "SAS_MAX_ID",
    "SAS_MAX_SEQUENCE",
    "SAS_PREFIX",
    "CheckDigitError",
    "InvalidValidationNumber",
    "MalformedValidationNumber",
    "SasSecureEnhanced",
    "Scheme",
    "SystemValidation",
    "ValidationNumberGenerator",
    "check",
    "classify",
    "compact",
    "damm_check_digit",
    "damm_is_valid",
    "draw_machine_secret",
    "sequence_breaks",
    "format_for_reading",
    "normalize",
    "sas_crc16",
    "sas_secure_enhanced_number",
]

Scheme = Literal["system", "sas"]

LENGTH: Final = 18
"""Every validation number has exactly this many decimal digits."""

SAS_PREFIX: Final = "00"
"""Leading digits of every SAS secure enhanced validation number."""

SAS_MAX_ID: Final = 0xFFFFFF
"""Largest 3-byte machine validation ID."""

SAS_MAX_SEQUENCE: Final = 0xFFFFFF
"""Largest 3-byte sequence number; the next one after it is 0."""

_DIGITS: Final = frozenset("0123456789")

# Reading groups: 2-4-4-4-4, the grouping printed on TITO tickets
# ("00-6429-1881-8544-6104"): the 2-digit prefix, then four groups of four.
_READING_GROUPS: Final = (2, 4, 4, 4, 4)
_SEPARATORS: Final = " -"


# --------------------------------------------------------------------------- errors


class InvalidValidationNumber(ValueError):
    """A presented number that cannot be a genuine validation number (a misread or mistyped one)."""


class MalformedValidationNumber(InvalidValidationNumber):
    """Not a validation number at all: wrong type or length, a non-digit, or a prefix no scheme issues.

    ``reason`` is a short human-readable sentence naming the problem.
    """

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class CheckDigitError(InvalidValidationNumber):
    """Well-formed, but its check digits are wrong: the number was mistyped or misread.

    ``scheme`` is ``"system"`` (the Damm check digit failed) or ``"sas"`` (the SAS
    digit-sum check in the lead digit of an 8-digit half failed). ``number`` is the
    number as presented.
    """

    def __init__(self, number: str, scheme: Scheme, reason: str) -> None:
        super().__init__(reason)
        self.number = number
        self.scheme = scheme
        self.reason = reason


# ---------------------------------------------------------------------- Damm check

# The order-10 totally anti-symmetric quasigroup from H. Michael Damm's 2004
# dissertation (the table commonly published for the Damm algorithm). Zero
# diagonal, so a number followed by its check digit reduces to interim digit 0.
_DAMM: Final[tuple[tuple[int, ...], ...]] = (
    (0, 3, 1, 7, 5, 9, 8, 6, 4, 2),
    (7, 0, 9, 2, 1, 5, 4, 8, 6, 3),
    (4, 2, 0, 6, 8, 7, 1, 3, 5, 9),
    (1, 7, 5, 0, 9, 8, 3, 4, 2, 6),
    (6, 1, 2, 3, 0, 4, 5, 9, 7, 8),
    (3, 6, 7, 4, 2, 0, 9, 5, 8, 1),
    (5, 8, 6, 9, 7, 2, 0, 1, 3, 4),
    (8, 9, 4, 5, 3, 6, 2, 0, 1, 7),
    (9, 4, 3, 8, 6, 1, 7, 2, 0, 5),
    (2, 5, 8, 1, 4, 3, 6, 7, 9, 0),
)


def _damm_interim(digits: str) -> int:
    interim = 0
    for ch in digits:
        interim = _DAMM[interim][ord(ch) - 48]
    return interim


def damm_check_digit(digits: str) -> str:
    """The Damm check digit (one character ``"0"``-``"9"``) for a string of ASCII digits.

    Damm algorithm: fold the digits through the order-10 totally anti-symmetric
    quasigroup starting from 0; the final interim digit is the check digit. Appending
    it detects every single-digit substitution and every transposition of two
    adjacent digits. Raises :class:`MalformedValidationNumber` on a non-digit.
    """
    _require_digits(digits)
    return str(_damm_interim(digits))


def damm_is_valid(digits: str) -> bool:
    """True iff ``digits`` (check digit last) passes the Damm check. Non-digits → False."""
    return bool(digits) and _is_ascii_digits(digits) and _damm_interim(digits) == 0


# ------------------------------------------------------------------ SAS (§15) CRC


def sas_crc16(data: bytes, crc: int = 0) -> int:
    """The SAS CRC-16 of ``data`` as an int 0..0xFFFF (SAS 6.02 CRC; CRC-16/KERMIT parameters).

    Polynomial x^16 + x^12 + x^5 + 1 processed LSB first (reflected 0x8408),
    initial value 0 (or ``crc`` to continue a running CRC), no final XOR. On the
    wire SAS sends the result low byte first. Check value:
    ``sas_crc16(b"123456789") == 0x2189``.
    """
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0x8408 if crc & 1 else crc >> 1
    return crc


def _sas_half(value: int) -> str:
    """Eight decimal digits of a 24-bit value with the SAS digit-sum mark in the lead digit.

    ``value`` <= 0xFFFFFF = 16,777,215, so its 8-digit decimal form leads with 0 or 1;
    that digit is OR-ed with ``(sum of the 8 digits mod 5) << 1``.
    """
    digits = [int(ch) for ch in f"{value:08d}"]
    digits[0] |= (sum(digits) % 5) << 1
    return "".join(map(str, digits))


def _sas_half_ok(half: str) -> bool:
    """Inverse check of :func:`_sas_half` for one 8-character half of a SAS number."""
    lead = ord(half[0]) - 48
    original_lead = lead & 1
    rest = half[1:]
    if int(str(original_lead) + rest) > 0xFFFFFF:
        return False
    return (lead >> 1) == (original_lead + sum(ord(c) - 48 for c in rest)) % 5


def sas_secure_enhanced_number(machine_validation_id: int, sequence: int) -> str:
    """The 18-digit SAS secure enhanced validation number for one ticket.

    Rule followed (SAS 6.02 §15, secure enhanced validation), bytes 0..5:

    1. A = sequence number (3 bytes, least significant first) followed by the
       machine validation ID (3 bytes, least significant first).
    2. B0 = A0, B1 = A1, B2 = A2 ^ A0, B3 = A3 ^ A1, B4 = A4 ^ A0, B5 = A5 ^ A1.
    3. C = the SAS CRC-16 (:func:`sas_crc16`, seed 0) of each pair (B0,B1),
       (B2,B3), (B4,B5), each CRC stored low byte first into C0..C5.
    4. The 24-bit values C5:C4:C3 and C2:C1:C0 are each written as 8 decimal
       (BCD) digits, C5:C4:C3 first; the lead digit of each 8 is OR-ed with
       ``(sum of its 8 digits mod 5) << 1``.
    5. The 16 digits are prefixed with ``"00"``.

    ``machine_validation_id`` and ``sequence`` are ints 0..0xFFFFFF; anything else
    raises ``ValueError`` (wrapping is the generator's job: :class:`SasSecureEnhanced`).
    Published vectors: ID 0x654321, sequence 1 → ``"006429188185446104"``;
    sequence 0 → ``"004580945669109504"``.
    """
    for name, value in (("machine_validation_id", machine_validation_id), ("sequence", sequence)):
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 0xFFFFFF:
            raise ValueError(f"{name} must be an int 0..0xFFFFFF (3 bytes), got {value!r}")
    a = sequence.to_bytes(3, "little") + machine_validation_id.to_bytes(3, "little")
    b = (a[0], a[1], a[2] ^ a[0], a[3] ^ a[1], a[4] ^ a[0], a[5] ^ a[1])
    c = b"".join(sas_crc16(bytes(b[i : i + 2])).to_bytes(2, "little") for i in (0, 2, 4))
    high = int.from_bytes(c[3:6], "little")  # C5:C4:C3
    low = int.from_bytes(c[0:3], "little")  # C2:C1:C0
    return SAS_PREFIX + _sas_half(high) + _sas_half(low)


# ------------------------------------------------------------------- generators


@runtime_checkable
class ValidationNumberGenerator(Protocol):
    """Something that issues validation numbers: ``next_number()`` → 18-digit ``str``."""

    scheme: ClassVar[Scheme]

    def next_number(self) -> str: ...


class SystemValidation:
    """Host-issued system validation numbers (scheme ``"system"``).

    Layout: two digits 1-9, fifteen digits 0-9, one Damm check digit (18 in all).
    The 81 x 10**15 (about 2**56) possible bodies are drawn uniformly from
    ``randbelow`` (``randbelow(n)`` → int in ``[0, n)``; default
    :func:`secrets.randbelow`, a CSPRNG; inject a seeded source only in tests).
    Repeats are negligible (about 6e-4 chance of any repeat among 10 million
    tickets) but not impossible: the ticket store must still hold validation
    numbers unique and draw again on a clash.
    """

    scheme: ClassVar[Scheme] = "system"

    def __init__(self, randbelow: Callable[[int], int] = secrets.randbelow) -> None:
        self._randbelow = randbelow

    def _draw(self, n: int) -> int:
        value = self._randbelow(n)
        if not 0 <= value < n:  # a misbehaving injected source must not yield a malformed number
            raise ValueError(f"randbelow({n}) returned {value!r}, outside [0, {n})")
        return value

    def next_number(self) -> str:
        """A fresh 18-digit system validation number (Damm-valid, no zero in the first two digits)."""
        body = f"{1 + self._draw(9)}{1 + self._draw(9)}{self._draw(10**15):015d}"
        return body + str(_damm_interim(body))


class SasSecureEnhanced:
    """SAS secure enhanced validation numbers for one machine (scheme ``"sas"``).

    Mirrors what the gaming machine computes (SAS 6.02 §15): each ticket uses the
    current 3-byte sequence number, which then advances, wrapping from 0xFFFFFF to
    0. ``machine_validation_id`` is the 3-byte ID the host assigned (0..0xFFFFFF);
    ``next_sequence`` (0..0xFFFFFF) is the sequence number the next ticket will use:
    persist it after every :meth:`next_number` (not thread-safe; one instance per
    machine). See :func:`sas_secure_enhanced_number` for the rule.
    """

    scheme: ClassVar[Scheme] = "sas"

    def __init__(self, machine_validation_id: int, next_sequence: int = 0) -> None:
        sas_secure_enhanced_number(machine_validation_id, next_sequence)  # range-checks both
        self.machine_validation_id = machine_validation_id
        self.next_sequence = next_sequence

    def number_for(self, sequence: int) -> str:
        """The number this machine prints for ``sequence`` (0..0xFFFFFF; ``ValueError`` otherwise)."""
        return sas_secure_enhanced_number(self.machine_validation_id, sequence)

    def next_number(self) -> str:
        """The number for ``next_sequence``; then ``next_sequence`` advances (0xFFFFFF → 0)."""
        number = self.number_for(self.next_sequence)
        self.next_sequence = (self.next_sequence + 1) & SAS_MAX_SEQUENCE
        return number


# ------------------------------------------------ machine secrets and their sequence


def draw_machine_secret(randbelow: Callable[[int], int] = secrets.randbelow,
                        taken: Callable[[int], bool] = lambda _id: False) -> tuple[int, int]:
    """A fresh (machine validation ID, first sequence number) for SAS secure enhanced validation.

    Both come from ``randbelow`` (default :func:`secrets.randbelow`, a CSPRNG; inject a seeded
    source only in tests): the ID uniformly in 1..0xFFFFFF (0 is never used), skipping any
    ``taken(id)`` (unique on the floor), and the sequence start uniformly in 0..0xFFFFFF. Why: the
    SAS §15 algorithm is public, so the number of a machine's next ticket is a function of (ID,
    sequence) alone; a sequential ID (0x100001, 0x100002 …) and a sequence starting at 0 let anyone
    holding one ticket compute the next (docs/tickets-security.md). ``ValueError`` if 64 draws are
    all taken (a floor never has millions of machines)."""
    for _ in range(64):
        vid = 1 + randbelow(SAS_MAX_ID)
        if not 1 <= vid <= SAS_MAX_ID:
            raise ValueError(f"randbelow({SAS_MAX_ID}) returned {vid - 1!r}")
        if not taken(vid):
            seq = randbelow(SAS_MAX_SEQUENCE + 1)
            if not 0 <= seq <= SAS_MAX_SEQUENCE:
                raise ValueError(f"randbelow({SAS_MAX_SEQUENCE + 1}) returned {seq!r}")
            return vid, seq
    raise ValueError("no free machine validation ID in 64 draws")


def sequence_breaks(tickets: list[tuple[str, int, int]]) -> list[dict]:
    """Where one machine's SAS tickets arrive out of sequence.

    ``tickets``: (validation number, ID generation, sequence) in arrival order (the order the host
    recorded them). Within one generation of the machine's validation ID every ticket must use the
    previous one's sequence + 1 (mod 2**24, SAS §15: 0xFFFFFF → 0); a new generation (rotation,
    re-enrolment) starts a new chain. Returns one dict per break: ``kind`` ``"gap"`` (``skipped``
    sequence numbers never seen: tickets printed and not reported, or numbers computed by someone
    else), ``"repeat"`` (a sequence already used in this generation) or ``"backwards"`` (a jump back
    by more than half the 24-bit space, not yet seen); with the ``validation_number`` that broke the
    chain and the one ``after`` it. Sequence values are deliberately not returned (with the ID they
    are the machine's secret)."""
    out: list[dict] = []
    prev: tuple[str, int, int] | None = None
    seen: set[tuple[int, int]] = set()
    for vn, gen, seq in tickets:
        if prev is not None and prev[1] == gen:
            expected = (prev[2] + 1) & SAS_MAX_SEQUENCE
            if seq != expected:
                skipped = (seq - expected) & SAS_MAX_SEQUENCE
                if (gen, seq) in seen:
                    kind = "repeat"
                elif skipped > SAS_MAX_SEQUENCE // 2:
                    kind = "backwards"
                else:
                    kind = "gap"
                row: dict[str, object] = {"kind": kind, "validation_number": vn, "after": prev[0]}
                if kind == "gap":
                    row["skipped"] = skipped
                out.append(row)
        seen.add((gen, seq))
        prev = (vn, gen, seq)
    return out


# ------------------------------------------------------------- classify / check


def _is_ascii_digits(text: str) -> bool:
    # str.isdigit() also accepts e.g. "²" and Arabic-Indic digits: only 0-9 count here.
    return all(ch in _DIGITS for ch in text)


def _require_digits(text: object) -> str:
    if not isinstance(text, str):
        raise MalformedValidationNumber(f"a validation number is a string of digits, got {type(text).__name__}")
    if not _is_ascii_digits(text):
        raise MalformedValidationNumber("a validation number contains only the digits 0-9")
    return text


def _require_shape(number: object) -> str:
    if not isinstance(number, str):
        raise MalformedValidationNumber(f"a validation number is a string of digits, got {type(number).__name__}")
    if len(number) != LENGTH:
        raise MalformedValidationNumber(f"a validation number has {LENGTH} digits, got {len(number)} characters")
    return _require_digits(number)


def classify(number: str) -> Scheme:
    """Which scheme an 18-digit number belongs to, by its prefix alone (no check digits).

    ``"00"`` → ``"sas"``; first two digits both 1-9 → ``"system"``. Raises
    :class:`MalformedValidationNumber` for anything that is not 18 ASCII digits or
    starts ``"0d"``/``"d0"`` (d != 0), which neither scheme issues.
    """
    number = _require_shape(number)
    if number.startswith(SAS_PREFIX):
        return "sas"
    if "0" in number[:2]:
        raise MalformedValidationNumber(
            f"prefix {number[:2]!r} is not issued: SAS numbers start '00', system numbers with two non-zero digits"
        )
    return "system"


def check(number: str) -> Scheme:
    """Verify a presented number; return its scheme, or raise if it cannot be genuine.

    Raises :class:`MalformedValidationNumber` (see :func:`classify`) or
    :class:`CheckDigitError`:

    - system: the Damm check over all 18 digits must reduce to 0. This catches every
      single-digit substitution and every adjacent transposition.
    - sas: each 8-digit half must carry the SAS lead-digit mark (lead digit's low bit
      is the value's own lead digit 0/1, its upper bits are the digit sum mod 5) and
      be <= 0xFFFFFF. Every genuine SAS number passes; this catches most single-digit
      substitutions (all but changes of ±5) but not transpositions, so a mistyped SAS
      number may instead surface as "not on file".

    A number that passes may still be unknown: looking it up is the service's job.
    """
    scheme = classify(number)
    if scheme == "system":
        if _damm_interim(number) != 0:
            raise CheckDigitError(number, scheme, "the Damm check digit does not match: mistyped or misread")
    else:
        for half in (number[2:10], number[10:18]):
            if not _sas_half_ok(half):
                raise CheckDigitError(number, scheme, "the SAS check digits do not match: mistyped or misread")
    return scheme


def compact(text: object) -> object:
    """Keyed or scanned text without its spaces and hyphens, unchecked (anything but a string as it is).

    ``"00-6429-1881-8544-6104"`` → ``"006429188185446104"``; for a genuine number it equals
    :func:`normalize` (which also checks it), so a caller may name a presentation by it before the
    number is judged."""
    if not isinstance(text, str):
        return text
    return "".join(ch for ch in text.strip() if ch not in _SEPARATORS)


def normalize(text: str) -> str:
    """Keyed or scanned text → a checked 18-digit number (spaces and hyphens removed).

    ``"00-6429-1881-8544-6104"`` → ``"006429188185446104"``. Raises like :func:`check`.
    """
    if not isinstance(text, str):
        raise MalformedValidationNumber(f"a validation number is a string of digits, got {type(text).__name__}")
    number = compact(text)
    check(number)  # type: ignore[arg-type]
    return number  # type: ignore[return-value]


def format_for_reading(number: str) -> str:
    """The number grouped 2-4-4-4-4 with hyphens, as printed on tickets and read aloud.

    ``"006429188185446104"`` → ``"00-6429-1881-8544-6104"``: the 2-digit scheme
    prefix, then four groups of four. Checks shape only (18 ASCII digits), not check
    digits; raises :class:`MalformedValidationNumber` otherwise.
    """
    number = _require_shape(number)
    parts, start = [], 0
    for size in _READING_GROUPS:
        parts.append(number[start : start + size])
        start += size
    return "-".join(parts)
