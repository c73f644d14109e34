"""Ticket amounts in words, as printed on a TITO ticket's face (GLI-13: amount in words and numerals).

- :func:`korean_won_words`: Sino-Korean numerals in the financial (cheque) style, every
  unit written with its digit so nothing can be inserted in front of it:
  ``12_300`` → ``"일만이천삼백원"``, ``1_010_000`` → ``"일백일만원"``, ``0`` → ``"영원"``.
  Groups of four digits take 만 (10^4), 억 (10^8), 조 (10^12); inside a group 천, 백, 십.
- :func:`english_won_words`: short-scale English in capitals:
  ``12_300`` → ``"TWELVE THOUSAND THREE HUNDRED WON"``.

Both take an ``int`` number of won, 0 <= amount < 10**16, and raise ``ValueError``
otherwise (``bool`` and ``float`` are refused: money is never a float). Pure.
"""

from __future__ import annotations

from typing import Final

__all__ = ["MAX_WORDS_AMOUNT", "english_won_words", "korean_won_words"]

MAX_WORDS_AMOUNT: Final = 10**16 - 1
"""Largest amount either function spells (just under 1경)."""

_KO_DIGITS: Final = ("", "일", "이", "삼", "사", "오", "육", "칠", "팔", "구")
_KO_SMALL: Final = ("천", "백", "십", "")  # place names inside a four-digit group, most significant first
_KO_BIG: Final = ("", "만", "억", "조")  # group names, least significant first

_EN_ONES: Final = (
    "", "ONE", "TWO", "THREE", "FOUR", "FIVE", "SIX", "SEVEN", "EIGHT", "NINE", "TEN", "ELEVEN", "TWELVE",
    "THIRTEEN", "FOURTEEN", "FIFTEEN", "SIXTEEN", "SEVENTEEN", "EIGHTEEN", "NINETEEN",
)
_EN_TENS: Final = ("", "", "TWENTY", "THIRTY", "FORTY", "FIFTY", "SIXTY", "SEVENTY", "EIGHTY", "NINETY")
_EN_SCALES: Final = ("", "THOUSAND", "MILLION", "BILLION", "TRILLION", "QUADRILLION")


def _require_amount(amount: object) -> int:
    if isinstance(amount, bool) or not isinstance(amount, int):
        raise ValueError(f"amount must be an int number of won, got {type(amount).__name__}")
    if not 0 <= amount <= MAX_WORDS_AMOUNT:
        raise ValueError(f"amount must be 0..{MAX_WORDS_AMOUNT:,} won, got {amount:,}")
    return amount


def korean_won_words(amount: int) -> str:
    """``amount`` won in Korean words, cheque style, ending in 원 (no spaces)."""
    amount = _require_amount(amount)
    if amount == 0:
        return "영원"
    groups: list[str] = []
    for big in _KO_BIG:
        amount, group = divmod(amount, 10_000)
        if group:
            digits = f"{group:04d}"
            text = "".join(_KO_DIGITS[int(d)] + place for d, place in zip(digits, _KO_SMALL) if d != "0")
            groups.append(text + big)
        if not amount:
            break
    return "".join(reversed(groups)) + "원"


def _en_below_1000(n: int) -> list[str]:
    words: list[str] = []
    hundreds, rest = divmod(n, 100)
    if hundreds:
        words += [_EN_ONES[hundreds], "HUNDRED"]
    if rest >= 20:
        tens, ones = divmod(rest, 10)
        words.append(_EN_TENS[tens] + (f"-{_EN_ONES[ones]}" if ones else ""))
    elif rest:
        words.append(_EN_ONES[rest])
    return words


def english_won_words(amount: int) -> str:
    """``amount`` won in English words (capitals, short scale), ending in WON."""
    amount = _require_amount(amount)
    if amount == 0:
        return "ZERO WON"
    parts: list[str] = []
    for scale in _EN_SCALES:
        amount, group = divmod(amount, 1000)
        if group:
            parts = _en_below_1000(group) + ([scale] if scale else []) + parts
        if not amount:
            break
    return " ".join(parts + ["WON"])
