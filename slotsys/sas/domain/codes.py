"""SAS code tables used by the host and the EGM model (SAS 6.02/6.03): long poll command codes, the exception
codes the protocol itself acts on (the machine event vocabulary of :mod:`slotsys.floor.domain.machine_events` names
doors, power, tilts and printer conditions; it is reused, not copied), priority exceptions (table A-1, "P"),
meter codes and their BCD sizes (table C-7), denomination codes (table C-4), bill denomination codes (table C-6),
and the AFT / ticket redemption status codes (tables 8.3, 15.12c, 15.12d).

Money: a SAS amount "in cents" is carried here in won (₩1 per unit; KRW has no minor unit), a meter "in credits"
is in units of the machine's accounting denomination (won per credit, from enrolment).
"""

from __future__ import annotations

from enum import IntEnum

__all__ = [
    "LP", "EXC", "PRIORITY_EXCEPTIONS", "BILL_EXCEPTIONS", "METER", "METER_SIZE", "meter_size",
    "DENOMINATION_CODES", "denomination_code", "denomination_won", "BILL_CODES", "bill_code", "bill_won",
    "AftStatus", "AftTransferType", "RedeemCode", "RedeemStatus", "HandpayLevel", "ValidationType",
    "ReceiveValidationStatus", "HandpayResetCode", "TaxStatus",
]


class LP(IntEnum):
    """Long poll command codes used here (appendix B). R: address + command, no CRC; S: with data and CRC."""

    SHUTDOWN = 0x01  # S: disable play
    STARTUP = 0x02  # S: enable play
    SEND_HANDPAY_INFO = 0x1B  # R
    SEND_METERS = 0x1C  # R: 8 × 4 BCD
    SEND_CURRENT_CREDITS = 0x1A  # R
    SEND_MACHINE_INFO = 0x1F  # R
    ROM_SIGNATURE = 0x21  # S: 2-byte seed
    SEND_SELECTED_METERS = 0x2F  # S, variable: game number + meter codes
    SEND_LAST_BILL = 0x48  # R
    SET_VALIDATION_ID = 0x4C  # S
    SEND_ENHANCED_VALIDATION = 0x4D  # S: function code
    SEND_SAS_VERSION = 0x54  # R, variable response
    SEND_ENABLED_GAMES = 0x56  # R, variable response
    SEND_PENDING_CASHOUT = 0x57  # R
    RECEIVE_VALIDATION_NUMBER = 0x58  # S
    SEND_TICKET_VALIDATION_DATA = 0x70  # R, variable response
    REDEEM_TICKET = 0x71  # S, variable
    AFT_TRANSFER = 0x72  # S, variable
    AFT_LOCK_STATUS = 0x74  # S, variable response
    SEND_DATE_TIME = 0x7E  # R
    SET_DATE_TIME = 0x7F  # S (or G: address 0)
    LEGACY_BONUS = 0x8A  # S
    SEND_LEGACY_BONUS_WIN = 0x90  # R
    REMOTE_HANDPAY_RESET = 0x94  # S (CRC, no data)
    SEND_LEGACY_BONUS_METERS = 0x9A  # S: game number


class EXC(IntEnum):
    """Exception codes the SAS layer acts on (appendix A, table A-1). Every code in the machine event
    vocabulary (doors 0x11–0x1E, power 0x17/0x18, tilts, printer …) is also accepted and reported as an event."""

    NO_ACTIVITY = 0x00
    POWER_ON = 0x17
    POWER_OFF = 0x18
    TICKET_PRINTED = 0x3D
    HANDPAY_VALIDATED = 0x3E
    VALIDATION_ID_NOT_CONFIGURED = 0x3F
    BILL_1 = 0x47
    BILL_5 = 0x48
    BILL_10 = 0x49
    BILL_20 = 0x4A
    BILL_50 = 0x4B
    BILL_100 = 0x4C
    BILL_2 = 0x4D
    BILL_500 = 0x4E
    BILL_ACCEPTED = 0x4F
    BILL_200 = 0x50
    HANDPAY_PENDING = 0x51
    HANDPAY_RESET = 0x52
    SYSTEM_VALIDATION_REQUEST = 0x57
    CASHOUT_PRESSED = 0x66
    TICKET_INSERTED = 0x67
    TICKET_TRANSFER_COMPLETE = 0x68
    AFT_TRANSFER_COMPLETE = 0x69
    GAME_LOCKED = 0x6F
    BUFFER_OVERFLOW = 0x70
    LEGACY_BONUS_AWARDED = 0x7C
    GAME_STARTED = 0x7E
    GAME_ENDED = 0x7F


# table A-1 "P" and "Q/P" (priority when validation or the handpay queue is configured, as here): reported before
# any queued exception and never lost to a queue overflow
PRIORITY_EXCEPTIONS = frozenset({0x3D, 0x3E, 0x3F, 0x51, 0x52, 0x55, 0x56, 0x57, 0x67, 0x68, 0x69, 0x6A, 0x6B,
                                 0x6C, 0x6D, 0x6F, 0x70, 0x8F})
# the bill accepted exceptions (non-RTE): 0x47–0x50
BILL_EXCEPTIONS = frozenset(range(0x47, 0x51)) - {0x51}


class METER(IntEnum):
    """Meter codes of long poll 2F (table C-7) used here."""

    COIN_IN = 0x00  # total coin in (credits): wagered
    COIN_OUT = 0x01  # total coin out (credits): won, paid by the machine (paytable and bonus)
    JACKPOT = 0x02  # total jackpot (credits): handpaid jackpot wins
    HANDPAID_CANCELLED = 0x03  # total hand paid cancelled credits
    CANCELLED = 0x04  # total cancelled credits (cash-outs by ticket, handpay, AFT to host)
    GAMES_PLAYED = 0x05
    GAMES_WON = 0x06
    BILLS = 0x0B  # total credits from bills accepted
    CURRENT_CREDITS = 0x0C
    TICKET_IN_CENTS = 0x0D  # SAS cashable ticket in (won here), incl. nonrestricted
    TICKET_OUT_CENTS = 0x0E  # SAS cashable ticket out (won)
    TICKET_IN_COUNT = 0x11
    TICKET_OUT_COUNT = 0x12
    MACHINE_PAID_PAYTABLE_WIN = 0x1C  # credits, without progressive or external bonus
    MACHINE_PAID_EXTERNAL_BONUS = 0x1E  # credits: legacy bonus (and AFT bonus) paid by the machine
    HAND_PAID_PAYTABLE_WIN = 0x1F  # credits
    AFT_IN_CENTS = 0xA0  # in-house cashable transfers to the machine (won)
    AFT_IN_COUNT = 0xA1
    AFT_OUT_CENTS = 0xB8  # in-house cashable transfers to the host (won)
    AFT_OUT_COUNT = 0xB9


_CENTS_METERS = frozenset({0x0D, 0x0E, 0x0F, 0x10, *range(0x80, 0x94), *range(0xA0, 0xC0, 2)})


def meter_size(code: int) -> int:
    """BCD bytes of meter ``code`` in a long poll 2F response: 5 for amounts in cents (0D–10, 80–93, the AFT
    amounts A0–BE even), 4 for credits and counts (table C-7 minimum sizes)."""
    return 5 if code in _CENTS_METERS else 4


METER_SIZE = {int(m): meter_size(int(m)) for m in METER}

# table C-4: denomination code → cents (read here as won, 1:1)
DENOMINATION_CODES: dict[int, int] = {
    0x01: 1, 0x02: 5, 0x03: 10, 0x04: 25, 0x05: 50, 0x06: 100, 0x07: 500, 0x08: 1_000, 0x09: 2_000,
    0x0A: 10_000, 0x0B: 20, 0x0C: 200, 0x0D: 250, 0x0E: 2_500, 0x0F: 5_000, 0x10: 20_000, 0x11: 25_000,
    0x12: 50_000, 0x13: 100_000, 0x14: 200_000, 0x15: 250_000, 0x16: 500_000, 0x17: 2, 0x18: 3, 0x19: 15,
    0x1A: 40,
}
_DENOM_BY_WON = {v: k for k, v in DENOMINATION_CODES.items()}


def denomination_code(won: int) -> int:
    """The table C-4 code of a denomination of ``won`` (₩100 → 0x06). ``ValueError`` for one not in the table."""
    try:
        return _DENOM_BY_WON[won]
    except KeyError:
        raise ValueError(f"₩{won:,} is not a SAS denomination (table C-4)") from None


def denomination_won(code: int) -> int:
    """The won of denomination ``code``; ``ValueError`` for an unknown code."""
    try:
        return DENOMINATION_CODES[code]
    except KeyError:
        raise ValueError(f"0x{code:02X} is not a SAS denomination code") from None


# table C-6: bill denomination code (sent as BCD of the decimal code) → cents of the bill (won here, 1:1)
BILL_CODES: dict[int, int] = {
    0: 100, 1: 200, 2: 500, 3: 1_000, 4: 2_000, 5: 2_500, 6: 5_000, 7: 10_000, 8: 20_000, 9: 25_000,
    10: 50_000, 11: 100_000, 12: 200_000, 13: 250_000, 14: 500_000, 15: 1_000_000,
}
_BILL_BY_WON = {v: k for k, v in BILL_CODES.items()}
# the specific bill exception of a note, if it has one (0x4F otherwise)
BILL_EXCEPTION_BY_WON = {100: 0x47, 500: 0x48, 1_000: 0x49, 2_000: 0x4A, 5_000: 0x4B, 10_000: 0x4C, 200: 0x4D,
                         50_000: 0x4E, 20_000: 0x50}


def bill_code(won: int) -> int:
    """The table C-6 code of a ₩``won`` note (₩10,000 → 7); ``ValueError`` for a note not in the table."""
    try:
        return _BILL_BY_WON[won]
    except KeyError:
        raise ValueError(f"₩{won:,} is not a SAS bill denomination (table C-6)") from None


def bill_won(code: int) -> int:
    """The won of bill code ``code``; ``ValueError`` for an unknown code."""
    try:
        return BILL_CODES[code]
    except KeyError:
        raise ValueError(f"{code} is not a SAS bill denomination code") from None


class AftStatus(IntEnum):
    """AFT transfer status (long poll 72 response; 000xxxxx success, 010xxxxx pending, 100xxxxx failed)."""

    FULL_SUCCESS = 0x00
    PARTIAL_SUCCESS = 0x01
    PENDING = 0x40
    CANCELLED_BY_HOST = 0x80
    TXID_NOT_UNIQUE = 0x81
    NOT_VALID_FUNCTION = 0x82
    NOT_VALID_AMOUNT = 0x83
    EXCEEDS_LIMIT = 0x84
    NOT_MULTIPLE_OF_DENOM = 0x85
    UNABLE_PARTIAL_TO_HOST = 0x86
    UNABLE_NOW = 0x87
    NOT_REGISTERED = 0x88
    REGISTRATION_KEY_MISMATCH = 0x89
    NO_WON_CREDITS = 0x8B
    ASSET_MISMATCH = 0x93
    NOT_LOCKED = 0x94
    TXID_NOT_VALID = 0x95
    UNEXPECTED_ERROR = 0x9F
    NOT_COMPATIBLE = 0xC0
    UNSUPPORTED_CODE = 0xC1
    NO_TRANSFER_INFO = 0xFF

    @staticmethod
    def is_success(code: int) -> bool:
        return code & 0xE0 == 0x00

    @staticmethod
    def is_pending(code: int) -> bool:
        return code & 0xE0 == 0x40

    @staticmethod
    def is_failure(code: int) -> bool:
        return code & 0xE0 == 0x80


class AftTransferType(IntEnum):
    IN_HOUSE_TO_MACHINE = 0x00
    BONUS_COIN_OUT_TO_MACHINE = 0x10
    IN_HOUSE_TO_HOST = 0x80


class RedeemCode(IntEnum):
    """Host transfer codes of long poll 71 (table 15.12c): 00–02 valid, 80+ rejected, FF status request."""

    VALID_CASHABLE = 0x00
    VALID_RESTRICTED = 0x01
    VALID_NONRESTRICTED = 0x02
    UNABLE_TO_VALIDATE = 0x80
    NOT_A_VALID_NUMBER = 0x81
    NOT_ON_FILE = 0x82
    PENDING_ELSEWHERE = 0x83
    ALREADY_REDEEMED = 0x84
    EXPIRED = 0x85
    INFO_NOT_AVAILABLE = 0x86
    AMOUNT_MISMATCH = 0x87
    ABOVE_AUTO_REDEMPTION_LIMIT = 0x88
    REQUEST_STATUS = 0xFF


class RedeemStatus(IntEnum):
    """Machine status of long poll 71 responses (table 15.12d)."""

    CASHABLE_REDEEMED = 0x00
    RESTRICTED_REDEEMED = 0x01
    NONRESTRICTED_REDEEMED = 0x02
    WAITING_FOR_71 = 0x20
    PENDING = 0x40
    REJECTED_BY_HOST = 0x80
    VALIDATION_NUMBER_MISMATCH = 0x81
    NOT_VALID_FUNCTION = 0x82
    NOT_VALID_AMOUNT = 0x83
    EXCEEDS_CREDIT_LIMIT = 0x84
    NOT_MULTIPLE_OF_DENOM = 0x85
    AMOUNT_MISMATCH = 0x86
    UNABLE_TO_ACCEPT = 0x87
    TIMED_OUT = 0x88
    LINK_DOWN = 0x89
    REDEMPTION_DISABLED = 0x8A
    VALIDATOR_FAILURE = 0x8B
    NOT_COMPATIBLE = 0xC0
    NO_VALIDATION_INFO = 0xFF


class HandpayLevel(IntEnum):
    """Long poll 1B "level": 01–20 progressive levels, 40 non-progressive win, 80 cancelled credits."""

    NON_PROGRESSIVE = 0x40
    CANCELLED_CREDITS = 0x80


class HandpayResetCode(IntEnum):
    """Long poll 94 response."""

    RESET = 0x00
    UNABLE = 0x01
    NOT_IN_HANDPAY = 0x02


class ValidationType(IntEnum):
    """Long poll 4D validation type (table 15.13c) used here."""

    CASHABLE_TICKET = 0x00
    RESTRICTED_TICKET = 0x01
    CANCELLED_CREDIT_HANDPAY_RECEIPT = 0x10
    JACKPOT_HANDPAY_RECEIPT = 0x20
    CANCELLED_CREDIT_HANDPAY = 0x40
    JACKPOT_HANDPAY = 0x60


class ReceiveValidationStatus(IntEnum):
    """Long poll 58 response."""

    ACKNOWLEDGED = 0x00
    NOT_IN_CASHOUT = 0x80
    IMPROPER_VALIDATION_REJECTED = 0x81


class TaxStatus(IntEnum):
    """Legacy bonus tax status (long poll 8A)."""

    DEDUCTIBLE = 0x00
    NON_DEDUCTIBLE = 0x01
    WAGER_MATCH = 0x02
