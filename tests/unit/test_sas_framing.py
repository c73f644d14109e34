"""SAS CRC, BCD, framing and the wakeup-bit encoding, byte for byte (SAS 6.02 §1.2, §2.2, §5)."""

from __future__ import annotations

import pytest

from slotsys.sas.domain.bcd import BcdError, bcd_digits, from_bcd, to_bcd
from slotsys.sas.domain.crc import append_crc, crc16, crc_ok
from slotsys.sas.domain.framing import (
    FrameError, HostFrameDecoder, InbandDecoder, ResponseAssembler, RxStatus, encode_inband, general_poll,
    long_poll,
)
from tito.domain.validation import sas_crc16


# ------------------------------------------------------------------ CRC
def test_crc_check_value_and_the_hand_written_one_agree():
    assert crc16(b"123456789") == 0x2189  # CRC-16/KERMIT check value
    for data in (b"", b"\x01", b"\x01\x21\x00\x00", bytes(range(256))):
        assert crc16(data) == sas_crc16(data)


def test_crc_of_published_sas_frames():
    # shutdown / startup long polls to address 1 as published by SAS host implementations
    assert long_poll(1, 0x01) == bytes.fromhex("01015108")
    assert long_poll(1, 0x02) == bytes.fromhex("0102ca3a")
    assert crc_ok(bytes.fromhex("01015108")) and not crc_ok(bytes.fromhex("01015109"))


def test_crc_seed_is_the_initial_value():
    assert crc16(b"123456789", seed=0x1234) == sas_crc16(b"123456789", 0x1234)
    assert crc16(b"56789", seed=crc16(b"1234")) == 0x2189  # a CRC continues from its seed
    with pytest.raises(ValueError):
        crc16(b"x", seed=0x10000)


def test_crc_is_the_crccheck_librarys_kermit_on_any_data_and_seed():
    """The stdlib-backed CRC against ``crccheck``'s CRC-16/KERMIT (which takes its initial value unreflected)
    on 3,000 random messages and program-sized images with random seeds."""
    import random

    from crccheck.crc import Crc16Kermit

    def reflect16(x: int) -> int:
        return int(f"{x:016b}"[::-1], 2)

    rng = random.Random(602)
    for n in [0, 1, 2, 3] + [rng.randrange(4, 300) for _ in range(2_990)] + [11_382] * 6:
        data, seed = rng.randbytes(n), rng.randrange(0x10000)
        assert crc16(data, seed) == Crc16Kermit.calc(data, initvalue=reflect16(seed)), (data.hex(), seed)


def test_append_crc_is_lsb_first():
    assert append_crc(b"\x01\x01")[-2:] == bytes([0x51, 0x08])


# ------------------------------------------------------------------ BCD
def test_bcd_round_trip_and_errors():
    assert to_bcd(1234, 4) == bytes.fromhex("00001234")
    assert from_bcd(bytes.fromhex("0099999999")) == 99_999_999
    assert bcd_digits(bytes.fromhex("0064")) == "0064"
    with pytest.raises(BcdError):
        to_bcd(123456789, 4)
    with pytest.raises(BcdError):
        from_bcd(b"\x1a")
    with pytest.raises(BcdError):
        to_bcd(-1, 2)


# ------------------------------------------------------------------ polls
def test_general_and_type_r_polls():
    assert general_poll(1) == b"\x81" and general_poll(0x7F) == b"\xff" and general_poll(0) == b"\x80"
    assert long_poll(5, 0x1C, crc=False) == b"\x05\x1c"
    with pytest.raises(FrameError):
        general_poll(128)
    with pytest.raises(FrameError):
        long_poll(1, 0x1C, b"\x00", crc=False)


def test_variable_poll_has_length_byte():
    f = long_poll(1, 0x2F, bytes.fromhex("0000000105"), variable=True)
    assert f[:3] == bytes.fromhex("012f05") and crc_ok(f) and len(f) == 3 + 5 + 2


# ------------------------------------------------------------------ wakeup in-band encoding
def test_inband_encoding_marks_wakeup_and_escapes_ff():
    assert encode_inband(b"\x81") == b"\xff\x00\x81"
    assert encode_inband(b"\x01\xff\x02") == b"\xff\x00\x01\xff\xff\x02"
    assert encode_inband(b"\xff\x10", wakeup_first=False) == b"\xff\xff\x10"


def test_inband_decoder_across_split_reads():
    wire = encode_inband(bytes([0x01, 0xFF, 0x1C]))
    d = InbandDecoder()
    got = []
    for i in range(len(wire)):
        got += d.feed(wire[i:i + 1])
    assert got == [(0x01, True), (0xFF, False), (0x1C, False)]


def test_inband_decoder_counts_a_corrupt_escape():
    d = InbandDecoder()
    assert d.feed(b"\xff\x10\x20") == [(0xFF, False), (0x10, False), (0x20, False)] and d.errors == 1


# ------------------------------------------------------------------ machine-side streaming decoder
def _chars(*frames: bytes, garbage: bytes = b""):
    out = [(b, False) for b in garbage]
    for f in frames:
        out += [(f[0], True)] + [(b, False) for b in f[1:]]
    return out


def test_decoder_survives_garbage_truncation_unknown_and_bad_crc():
    d = HostFrameDecoder()
    bad = bytearray(long_poll(1, 0x8A, bytes.fromhex("0000010000")))
    bad[-1] ^= 0xFF
    truncated = long_poll(1, 0x4D, b"\x00")[:3]
    chars = (_chars(garbage=b"\x13\x37")
             + _chars(truncated)  # cut short by the next wakeup byte
             + _chars(general_poll(3))
             + _chars(b"\x02\x99\x00\x00")  # unknown command 0x99
             + _chars(bytes(bad))
             + _chars(long_poll(2, 0x2F, bytes.fromhex("00000005"), variable=True)))
    msgs = d.feed(chars)
    assert [(m.kind, m.address, m.command, m.crc_valid) for m in msgs] == [
        ("general", 3, None, True), ("long", 1, 0x8A, False), ("long", 2, 0x2F, True)]
    assert msgs[2].data == bytes.fromhex("00000005")
    assert (d.garbage, d.truncated, d.unknown, d.crc_errors) == (2, 1, 1, 1)


def test_decoder_fixed_and_type_r_lengths():
    d = HostFrameDecoder()
    msgs = d.feed(_chars(long_poll(1, 0x1C, crc=False), long_poll(1, 0x74, bytes.fromhex("00030500"))))
    assert [m.frame for m in msgs] == [b"\x01\x1c", long_poll(1, 0x74, bytes.fromhex("00030500"))]


# ------------------------------------------------------------------ host-side response assembler
def _feed(asm: ResponseAssembler, data: bytes):
    return asm.feed([(b, False) for b in data])


def test_assembler_exception_byte_and_rom_signature():
    assert _feed(ResponseAssembler(1, None), b"\x7f").frame == b"\x7f"
    a = ResponseAssembler(0x11, None)  # exception 0x11 (door opened) equals the address
    assert _feed(a, b"\x11").status is RxStatus.INCOMPLETE and a.finish().frame == b"\x11"
    sig = append_crc(bytes([0x11, 0x21, 0x34, 0x12]))
    a = ResponseAssembler(0x11, None)
    assert _feed(a, sig).status is RxStatus.COMPLETE


def test_assembler_fixed_variable_crc_busy_nack_wrong_address():
    from slotsys.sas.domain.messages import CurrentCredits, SasVersion
    frame = CurrentCredits(1234).encode(1)
    a = ResponseAssembler(1, 0x1A)
    assert _feed(a, frame[:4]).status is RxStatus.INCOMPLETE and a.finish().status is RxStatus.TRUNCATED
    assert _feed(ResponseAssembler(1, 0x1A), frame).status is RxStatus.COMPLETE
    bad = frame[:-1] + bytes([frame[-1] ^ 1])
    assert _feed(ResponseAssembler(1, 0x1A), bad).status is RxStatus.BAD_CRC
    assert _feed(ResponseAssembler(2, 0x1A), frame).status is RxStatus.WRONG_ADDRESS
    assert _feed(ResponseAssembler(1, 0x1A), b"\x01\x00").status is RxStatus.BUSY
    v = SasVersion("602", "SN-1").encode(1)
    assert _feed(ResponseAssembler(1, 0x54), v).frame == v
    ack = ResponseAssembler(1, 0x8A)
    assert _feed(ack, b"\x01").status is RxStatus.INCOMPLETE and ack.finish().status is RxStatus.COMPLETE
    assert _feed(ResponseAssembler(1, 0x8A), b"\x81").status is RxStatus.NACK
    assert ResponseAssembler(1, 0x1A).feed([(0x01, True)]).status is RxStatus.GARBAGE  # a chirp
