"""TITO validation numbers: SAS secure enhanced vectors and wrap, Damm check, system issue, classify/check."""

from __future__ import annotations

import random

import pytest

from tito.domain.validation import (
    SAS_MAX_SEQUENCE,
    CheckDigitError,
    InvalidValidationNumber,
    MalformedValidationNumber,
    SasSecureEnhanced,
    SystemValidation,
    ValidationNumberGenerator,
    check,
    classify,
    damm_check_digit,
    damm_is_valid,
    format_for_reading,
    normalize,
    sas_crc16,
    sas_secure_enhanced_number,
)

VECTOR_ID = 0x654321
VECTOR_SEQ_1 = "006429188185446104"
VECTOR_SEQ_0 = "004580945669109504"


def seeded_system(seed: int) -> SystemValidation:
    return SystemValidation(randbelow=random.Random(seed).randrange)


# ------------------------------------------------------------------ SAS secure enhanced


def test_sas_crc16_is_the_kermit_crc():
    assert sas_crc16(b"123456789") == 0x2189
    assert sas_crc16(b"") == 0
    # continuing a running CRC equals one pass over the concatenation
    assert sas_crc16(b"6789", sas_crc16(b"12345")) == sas_crc16(b"123456789")


@pytest.mark.parametrize(("sequence", "expected"), [(1, VECTOR_SEQ_1), (0, VECTOR_SEQ_0)])
def test_sas_published_vectors(sequence, expected):
    assert sas_secure_enhanced_number(VECTOR_ID, sequence) == expected
    assert SasSecureEnhanced(VECTOR_ID).number_for(sequence) == expected


def test_sas_generator_issues_the_vectors_in_order():
    gen = SasSecureEnhanced(VECTOR_ID)
    assert gen.next_number() == VECTOR_SEQ_0
    assert gen.next_number() == VECTOR_SEQ_1
    assert gen.next_sequence == 2


def test_sas_sequence_wraps_after_0xffffff():
    gen = SasSecureEnhanced(VECTOR_ID, next_sequence=SAS_MAX_SEQUENCE)
    last = gen.next_number()
    assert last == sas_secure_enhanced_number(VECTOR_ID, 0xFFFFFF)
    assert gen.next_sequence == 0
    assert gen.next_number() == VECTOR_SEQ_0
    assert gen.next_number() == VECTOR_SEQ_1
    assert last not in (VECTOR_SEQ_0, VECTOR_SEQ_1)


@pytest.mark.parametrize("bad", [-1, 0x1000000, 1.0, True, "1", None])
def test_sas_rejects_out_of_range_id_and_sequence(bad):
    with pytest.raises(ValueError, match="0xFFFFFF"):
        sas_secure_enhanced_number(bad, 0)
    with pytest.raises(ValueError, match="0xFFFFFF"):
        sas_secure_enhanced_number(0, bad)
    with pytest.raises(ValueError):
        SasSecureEnhanced(bad)
    with pytest.raises(ValueError):
        SasSecureEnhanced(0, next_sequence=bad)


def test_sas_numbers_are_18_digits_classified_sas_and_pass_check():
    rng = random.Random(6_02)
    pairs = [(rng.randrange(1 << 24), rng.randrange(1 << 24)) for _ in range(2_000)]
    pairs += [(0, 0), (0xFFFFFF, 0xFFFFFF), (0, 0xFFFFFF), (0xFFFFFF, 0)]
    for machine_id, seq in pairs:
        number = sas_secure_enhanced_number(machine_id, seq)
        assert len(number) == 18 and number.isdigit() and number.startswith("00")
        assert classify(number) == "sas"
        assert check(number) == "sas"


def test_sas_numbers_differ_across_a_machines_sequence():
    gen = SasSecureEnhanced(VECTOR_ID)
    numbers = [gen.next_number() for _ in range(5_000)]
    assert len(set(numbers)) == len(numbers)


def test_sas_check_catches_a_mistyped_digit():
    mistyped = VECTOR_SEQ_1[:5] + str((int(VECTOR_SEQ_1[5]) + 1) % 10) + VECTOR_SEQ_1[6:]
    with pytest.raises(CheckDigitError) as err:
        check(mistyped)
    assert err.value.scheme == "sas"
    assert err.value.number == mistyped


def test_sas_prefix_errors_are_always_caught():
    """One wrong digit in the '00' prefix never yields another valid-looking number."""
    for number in (VECTOR_SEQ_0, VECTOR_SEQ_1):
        for pos in (0, 1):
            for d in "123456789":
                with pytest.raises(MalformedValidationNumber):
                    check(number[:pos] + d + number[pos + 1 :])


# ---------------------------------------------------------------------------- Damm


def test_damm_known_example():
    assert damm_check_digit("572") == "4"
    assert damm_is_valid("5724")
    assert not damm_is_valid("5723")
    assert not damm_is_valid("")
    assert not damm_is_valid("57a4")


def test_damm_check_digit_rejects_non_digits():
    with pytest.raises(MalformedValidationNumber):
        damm_check_digit("12x")


def _substitutions(number: str):
    for pos, ch in enumerate(number):
        for d in "0123456789":
            if d != ch:
                yield number[:pos] + d + number[pos + 1 :]


def _adjacent_transpositions(number: str):
    for pos in range(len(number) - 1):
        a, b = number[pos], number[pos + 1]
        if a != b:
            yield number[:pos] + b + a + number[pos + 2 :]


def test_damm_detects_every_single_substitution_and_adjacent_transposition():
    gen = seeded_system(13)
    for _ in range(300):
        number = gen.next_number()
        assert damm_is_valid(number)
        for wrong in _substitutions(number):
            assert not damm_is_valid(wrong), wrong
        for wrong in _adjacent_transpositions(number):
            assert not damm_is_valid(wrong), wrong


def test_check_rejects_every_single_substitution_and_adjacent_transposition_of_a_system_number():
    """Through the public check(): nothing mistyped once ever passes, not even by looking like SAS."""
    gen = seeded_system(17)
    for _ in range(300):
        number = gen.next_number()
        assert check(number) == "system"
        for wrong in [*_substitutions(number), *_adjacent_transpositions(number)]:
            with pytest.raises(InvalidValidationNumber):
                check(wrong)
            if "0" not in wrong[:2]:  # still a system-scheme prefix: the Damm digit is what catches it
                with pytest.raises(CheckDigitError) as err:
                    check(wrong)
                assert err.value.scheme == "system"


# -------------------------------------------------------------------- system issue


def test_ten_thousand_system_numbers_are_unique_and_well_formed():
    gen = SystemValidation()  # the real CSPRNG
    numbers = [gen.next_number() for _ in range(10_000)]
    assert len(set(numbers)) == 10_000
    for number in numbers:
        assert len(number) == 18 and all(c in "0123456789" for c in number)
        assert number[0] != "0" and number[1] != "0"
        assert damm_is_valid(number)
        assert classify(number) == "system"
        assert check(number) == "system"
    # every leading digit 1-9 turns up, so the prefix is drawn, not fixed
    assert {n[0] for n in numbers} == set("123456789")


def test_system_numbers_come_from_the_injected_source():
    assert [seeded_system(1).next_number() for _ in range(3)] == [seeded_system(1).next_number() for _ in range(3)]
    a, b = seeded_system(1), seeded_system(1)
    assert [a.next_number() for _ in range(5)] == [b.next_number() for _ in range(5)]

    low = SystemValidation(randbelow=lambda n: 0).next_number()
    high = SystemValidation(randbelow=lambda n: n - 1).next_number()
    assert low[:17] == "11" + "0" * 15 and damm_is_valid(low)
    assert high[:17] == "99" + "9" * 15 and damm_is_valid(high)


@pytest.mark.parametrize("bad_source", [lambda n: n, lambda n: -1])
def test_system_refuses_a_source_that_leaves_its_range(bad_source):
    with pytest.raises(ValueError, match="randbelow"):
        SystemValidation(randbelow=bad_source).next_number()


def test_both_generators_share_one_interface():
    for gen in (SystemValidation(), SasSecureEnhanced(VECTOR_ID)):
        assert isinstance(gen, ValidationNumberGenerator)
        assert classify(gen.next_number()) == gen.scheme


# ----------------------------------------------------------------- classify / check


@pytest.mark.parametrize(
    "bad",
    [
        "",
        "00642918818544610",  # 17
        "0064291881854461045",  # 19
        "00642918818544610a",
        "00-6429-1881-8544-6104",
        " 006429188185446104",
        "٠٠٦٤٢٩١٨٨١٨٥٤٤٦١٠٤",  # Arabic-Indic digits: str.isdigit() says yes, we say no
        "00642918818544610²",
        6429188185446104,
        None,
    ],
)
def test_malformed_numbers(bad):
    for fn in (classify, check, format_for_reading):
        with pytest.raises(MalformedValidationNumber) as err:
            fn(bad)
        assert err.value.reason
        assert isinstance(err.value, ValueError)


@pytest.mark.parametrize("prefix", ["01", "09", "10", "90"])
def test_prefixes_no_scheme_issues_are_malformed(prefix):
    with pytest.raises(MalformedValidationNumber, match="prefix"):
        classify(prefix + "1234567890123456")


def test_classify_by_prefix():
    assert classify(VECTOR_SEQ_1) == "sas"
    assert classify("11" + "0" * 16) == "system"  # prefix only: check digits are check()'s job


def test_check_digit_error_for_a_system_number():
    number = seeded_system(5).next_number()
    wrong = number[:-1] + str((int(number[-1]) + 1) % 10)
    with pytest.raises(CheckDigitError) as err:
        check(wrong)
    assert err.value.scheme == "system"
    assert err.value.number == wrong
    assert not isinstance(err.value, MalformedValidationNumber)


# ------------------------------------------------------------------ reading / keying


def test_format_for_reading_groups_2_4_4_4_4():
    assert format_for_reading(VECTOR_SEQ_1) == "00-6429-1881-8544-6104"
    assert format_for_reading("123456789012345678") == "12-3456-7890-1234-5678"


def test_normalize_accepts_keyed_forms_and_checks():
    assert normalize("00-6429-1881-8544-6104") == VECTOR_SEQ_1
    assert normalize(" 00 6429 1881 8544 6104 ") == VECTOR_SEQ_1
    number = seeded_system(9).next_number()
    assert normalize(format_for_reading(number)) == number
    with pytest.raises(CheckDigitError):
        normalize(format_for_reading(number[:-1] + str((int(number[-1]) + 1) % 10)))
    with pytest.raises(MalformedValidationNumber):
        normalize("00-6429-1881-8544-610")


# ------------------------------------------------ machine secrets (IDs) and the sequence check
def test_machine_secrets_come_from_the_random_source_and_skip_taken_ids():
    from tito.domain.validation import SAS_MAX_ID, draw_machine_secret

    draws = iter([0x100000, 0x654320, 42])  # randbelow(2**24 - 1) → ID - 1; then the sequence start
    taken = {0x100001}
    vid, seq = draw_machine_secret(lambda n: next(draws), lambda v: v in taken)
    assert (vid, seq) == (0x654321, 42)
    many = {draw_machine_secret() for _ in range(2_000)}  # the CSPRNG: no repeats, spread over 24 bits
    assert len({v for v, _ in many}) > 1_990 and all(1 <= v <= SAS_MAX_ID for v, _ in many)
    assert max(v for v, _ in many) > 0xF00000 and min(v for v, _ in many) < 0x100000
    assert len({s for _, s in many}) > 1_990
    with pytest.raises(ValueError):
        draw_machine_secret(lambda n: 7, lambda v: True)


def test_sequence_breaks_finds_gaps_repeats_and_backwards_jumps_per_generation():
    from tito.domain.validation import sequence_breaks

    ok = [("a", 1, 0xFFFFFE), ("b", 1, 0xFFFFFF), ("c", 1, 0), ("d", 2, 77), ("e", 2, 78)]  # wrap; rotation
    assert sequence_breaks(ok) == []
    bad = [("a", 1, 10), ("b", 1, 11), ("c", 1, 14), ("d", 1, 11), ("e", 1, 3), ("f", 1, 4)]
    assert sequence_breaks(bad) == [
        {"kind": "gap", "validation_number": "c", "after": "b", "skipped": 2},
        {"kind": "repeat", "validation_number": "d", "after": "c"},
        {"kind": "backwards", "validation_number": "e", "after": "d"},
    ]


def test_one_sas_ticket_reveals_its_machines_id_and_sequence():
    """The residual risk documented in docs/tickets-security.md: the SAS §15 mix is invertible, so
    one ticket gives its machine's validation ID and sequence (random IDs do not hide them from a
    ticket holder; only system validation does)."""
    import secrets

    from tito.domain.validation import sas_crc16

    inverse = {sas_crc16(x.to_bytes(2, "little")): x for x in range(1 << 16)}
    assert len(inverse) == 1 << 16  # the CRC-16 of two bytes is a bijection

    def recover(vn: str) -> tuple[int, int]:
        high, low = (int(str(int(h[0]) & 1) + h[1:]) for h in (vn[2:10], vn[10:]))
        c = low.to_bytes(3, "little") + high.to_bytes(3, "little")
        b = b"".join(inverse[int.from_bytes(c[i:i + 2], "little")].to_bytes(2, "little") for i in (0, 2, 4))
        a = bytes((b[0], b[1], b[2] ^ b[0], b[3] ^ b[1], b[4] ^ b[0], b[5] ^ b[1]))
        return int.from_bytes(a[3:], "little"), int.from_bytes(a[:3], "little")

    assert recover("006429188185446104") == (0x654321, 1)
    for _ in range(1_000):
        vid, seq = 1 + secrets.randbelow(0xFFFFFF), secrets.randbelow(1 << 24)
        assert recover(sas_secure_enhanced_number(vid, seq)) == (vid, seq)
