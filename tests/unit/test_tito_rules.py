"""TITO pure rules: validation numbers (both schemes), presentation refusals, the
brute-force guard, amounts in words, report grouping."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tito.domain import guard as G
from tito.domain import reports as R
from tito.domain.tickets import (
    CASHABLE,
    EXPIRED,
    HANDPAY_RECEIPT,
    ISSUED,
    PENDING,
    PROMOTIONAL,
    REDEEMED,
    VOIDED,
    TicketSnapshot,
    check_presentation,
    effective_status,
)
from tito.domain.validation import (
    CheckDigitError,
    MalformedValidationNumber,
    SasSecureEnhanced,
    SystemValidation,
    check,
    normalize,
    sas_crc16,
    sas_secure_enhanced_number,
)
from tito.domain.words import english_won_words, korean_won_words

NOW = datetime(2026, 11, 29, 5, 0, tzinfo=timezone.utc)


# ------------------------------------------------------------ validation numbers
def test_sas_secure_enhanced_reproduces_the_published_vectors():
    assert sas_secure_enhanced_number(0x654321, 1) == "006429188185446104"
    assert sas_secure_enhanced_number(0x654321, 0) == "004580945669109504"
    assert sas_crc16(b"123456789") == 0x2189  # CRC-16/KERMIT check value
    gen = SasSecureEnhanced(0x654321)
    assert [gen.next_number(), gen.next_number()] == ["004580945669109504", "006429188185446104"]
    assert gen.next_sequence == 2


def test_sas_sequence_wraps_after_0xffffff():
    gen = SasSecureEnhanced(0x654321, next_sequence=0xFFFFFF)
    last = gen.next_number()
    assert gen.next_sequence == 0
    assert last == sas_secure_enhanced_number(0x654321, 0xFFFFFF)
    assert gen.next_number() == "004580945669109504"  # sequence 0 again
    assert check(last) == "sas"
    with pytest.raises(ValueError):
        sas_secure_enhanced_number(0x654321, 0x1000000)
    with pytest.raises(ValueError):
        SasSecureEnhanced(0x1000000)


@given(st.integers(0, 0xFFFFFF), st.integers(0, 0xFFFFFF))
def test_every_sas_number_passes_its_own_check(vid, seq):
    vn = sas_secure_enhanced_number(vid, seq)
    assert len(vn) == 18 and vn.isdigit() and vn.startswith("00")
    assert check(vn) == "sas"


@given(st.integers(0, 2**64))
def test_system_numbers_catch_every_single_digit_error_and_adjacent_swap(seed):
    import random

    rnd = random.Random(seed)
    vn = SystemValidation(rnd.randrange).next_number()
    assert check(vn) == "system" and vn[0] != "0" and vn[1] != "0"
    for i in range(18):
        for d in "0123456789":
            if d == vn[i]:
                continue
            typo = vn[:i] + d + vn[i + 1:]
            with pytest.raises((CheckDigitError, MalformedValidationNumber)):
                check(typo)
    for i in range(17):
        if vn[i] != vn[i + 1]:
            swapped = vn[:i] + vn[i + 1] + vn[i] + vn[i + 2:]
            with pytest.raises((CheckDigitError, MalformedValidationNumber)):
                check(swapped)


def test_mistyped_is_told_apart_from_malformed():
    vn = SystemValidation(lambda n: n // 3).next_number()
    typo = vn[:-1] + str((int(vn[-1]) + 1) % 10)
    with pytest.raises(CheckDigitError) as e:
        check(typo)
    assert e.value.scheme == "system"
    with pytest.raises(MalformedValidationNumber):
        check("12345")
    with pytest.raises(MalformedValidationNumber):
        check("10" + "1" * 16)  # prefix no scheme issues
    assert normalize(" 00-6429-1881-8544-6104 ") == "006429188185446104"
    with pytest.raises(CheckDigitError):
        check("006429188185446105")


# ------------------------------------------------------------ presentation rules
def snap(**kw) -> TicketSnapshot:
    base = dict(status=ISSUED, type=CASHABLE, amount=12_300, expires_at=NOW + timedelta(days=30))
    base.update(kw)
    return TicketSnapshot(**base)


def reason(t, channel="cage", location="MAIN", **kw):
    r = check_presentation(t, channel=channel, location=location, now=NOW, **kw)
    return r.reason if r else None


def test_an_issued_cashable_ticket_is_payable_at_every_channel():
    for channel in ("machine", "cage", "kiosk"):
        assert reason(snap(), channel) is None


def test_every_refusal_is_told_apart():
    paid = snap(status=REDEEMED, redeemed_at=NOW - timedelta(hours=1), redeemed_channel="kiosk",
                redeemed_location="kiosk1")
    r = check_presentation(paid, channel="cage", location="MAIN", now=NOW)
    assert r.reason == "already_redeemed" and r.extra["redeemed_location"] == "kiosk1" and "kiosk kiosk1" in r.detail
    held = snap(status=PENDING, pending_location="M002", pending_since=NOW, pending_until=NOW + timedelta(seconds=15))
    assert reason(held, "cage") == "pending_elsewhere"
    assert reason(held, "machine", "M003") == "pending_elsewhere"
    assert reason(held, "machine", "M002") is None  # the holder may ask again
    assert reason(snap(status=VOIDED, voided_at=NOW, voided_by="sup", void_reason="misprint")) == "voided"
    old = snap(expires_at=NOW - timedelta(seconds=1))
    assert [reason(old, ch) for ch in ("machine", "cage", "kiosk")] == ["expired"] * 3
    assert reason(snap(status=EXPIRED, expires_at=NOW - timedelta(days=1), expiry_override_by="sup")) is None
    assert reason(snap(status=EXPIRED, expires_at=NOW - timedelta(days=1), expiry_override_by="sup"), "kiosk") == "expired"
    assert reason(snap(type=PROMOTIONAL), "cage") == "promotional_at_cage"
    assert reason(snap(type=PROMOTIONAL), "kiosk") == "not_accepted_here"
    assert reason(snap(type=PROMOTIONAL), "machine") is None
    assert reason(snap(type=HANDPAY_RECEIPT), "machine") == "not_accepted_here"
    assert reason(snap(type=HANDPAY_RECEIPT), "cage") is None
    r = check_presentation(snap(), channel="cage", location="MAIN", now=NOW, expected_amount=12_000)
    assert r.reason == "amount_mismatch" and r.extra == {"amount_on_file": 12_300}
    assert reason(snap(amount=0)) == "zero_amount"


def test_a_lapsed_hold_counts_as_issued_and_a_passed_expiry_as_expired():
    lapsed = snap(status=PENDING, pending_location="M002", pending_until=NOW - timedelta(seconds=1))
    assert effective_status(lapsed, NOW) == ISSUED
    assert reason(lapsed, "cage") is None
    assert effective_status(snap(expires_at=NOW), NOW) == EXPIRED


# ------------------------------------------------------------------ the guard
def test_guard_locks_a_terminal_after_max_failures_within_the_window():
    policy = G.GuardPolicy(max_failures=3, window=timedelta(minutes=5), lockout=timedelta(minutes=10))
    state = G.GuardState()
    locks = []
    for i in range(3):
        state, newly = G.record_failure(state, NOW + timedelta(seconds=i), policy)
        locks.append(newly)
    assert locks == [False, False, True]
    assert G.blocked_until(state, NOW + timedelta(minutes=1)) == NOW + timedelta(seconds=2, minutes=10)
    assert G.blocked_until(state, NOW + timedelta(minutes=11)) is None
    # failures spread over more than the window never lock
    state = G.GuardState()
    for i in range(10):
        state, newly = G.record_failure(state, NOW + timedelta(minutes=3 * i), policy)
        assert not newly
    with pytest.raises(ValueError):
        G.GuardPolicy(max_failures=0)


# ------------------------------------------------------------------- words
@pytest.mark.parametrize("amount,ko,en", [
    (0, "영원", "ZERO WON"),
    (100, "일백원", "ONE HUNDRED WON"),
    (12_300, "일만이천삼백원", "TWELVE THOUSAND THREE HUNDRED WON"),
    (50_000, "오만원", "FIFTY THOUSAND WON"),
    (1_010_000, "일백일만원", "ONE MILLION TEN THOUSAND WON"),
    (100_000_000, "일억원", "ONE HUNDRED MILLION WON"),
    (123_456_789, "일억이천삼백사십오만육천칠백팔십구원",
     "ONE HUNDRED TWENTY-THREE MILLION FOUR HUNDRED FIFTY-SIX THOUSAND SEVEN HUNDRED EIGHTY-NINE WON"),
    (1_000_000_000_001, "일조일원", "ONE TRILLION ONE WON"),
])
def test_amount_in_words(amount, ko, en):
    assert korean_won_words(amount) == ko
    assert english_won_words(amount) == en


@pytest.mark.parametrize("bad", [-1, 10**16, 1.5, True, "100"])
def test_words_refuse_what_is_not_won(bad):
    for fn in (korean_won_words, english_won_words):
        with pytest.raises(ValueError):
            fn(bad)


# ------------------------------------------------------------------ reports
def test_reports_group_by_gaming_day_and_reconcile():
    """Report rows are dated by the gaming day (06:00 to 06:00 Seoul): a ticket printed at 01:30 belongs to the
    night's gaming day, one printed at 06:30 to the new one."""
    from slotsys.kernel.gaming_day import GamingDay

    day_of = GamingDay(6, "Asia/Seoul").day_of
    late = datetime(2026, 11, 29, 16, 30, tzinfo=timezone.utc)  # 01:30 on the 30th in Seoul: gaming day the 29th
    early = datetime(2026, 11, 29, 1, 0, tzinfo=timezone.utc)  # 10:00 on the 29th
    morning = datetime(2026, 11, 29, 21, 30, tzinfo=timezone.utc)  # 06:30 on the 30th: gaming day the 30th
    issued = R.group_issued([R.IssuedRow(early, "M001", "cashable", 1000), R.IssuedRow(late, "M001", "cashable", 500),
                             R.IssuedRow(early, "M001", "cashable", 200), R.IssuedRow(early, "PROMO", "promotional", 5),
                             R.IssuedRow(morning, "M001", "cashable", 30)], day_of)
    assert issued["rows"] == [
        {"date": "2026-11-29", "issued_by": "M001", "type": "cashable", "count": 3, "amount": 1700},
        {"date": "2026-11-29", "issued_by": "PROMO", "type": "promotional", "count": 1, "amount": 5},
        {"date": "2026-11-30", "issued_by": "M001", "type": "cashable", "count": 1, "amount": 30},
    ]
    assert issued["total"] == {"count": 5, "amount": 1735}
    red = R.group_redeemed([R.RedeemedRow(early, "cage", "MAIN", "cashable", 7),
                            R.RedeemedRow(early, "machine", "M002", "cashable", 3),
                            R.RedeemedRow(early, "machine", "M003", "cashable", 4)], day_of)
    assert red["rows"] == [{"date": "2026-11-29", "channel": "cage", "count": 1, "amount": 7},
                           {"date": "2026-11-29", "channel": "machine", "count": 2, "amount": 7}]
    rec = R.reconcile_machines([R.MachineMeters("M001", 700, 2, 0, 0, 700, 2, 0, 0),
                                R.MachineMeters("M002", 700, 2, 10, 1, 600, 2, 10, 1)])
    assert rec["disagreeing"] == ["M002"] and rec["machines"][1]["tickets_out"]["difference"] == 100
