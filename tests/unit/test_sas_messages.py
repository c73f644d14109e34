"""SAS long poll codecs, byte for byte (layouts: SAS 6.02 chapters 7, 8, 13, 15)."""

from __future__ import annotations

from datetime import datetime

import pytest

from slotsys.sas.domain.crc import append_crc
from slotsys.sas.domain.framing import FrameError
from slotsys.sas.domain.messages import (
    AftInterrogate, AftLockRequest, AftLockStatus, AftTransfer, AftTransferResult, CurrentCredits, EnablePlay,
    EnabledGames, EnhancedValidationRecord, EnhancedValidationRequest, HandpayInfo, HandpayResetResult, LastBill,
    LegacyBonus, LegacyBonusMeters, LegacyBonusWin, MachineInfo, Meters, PendingCashout, ReceiveValidationNumber,
    ReceiveValidationNumberAck, RedeemTicket, RedeemTicketStatus, RemoteHandpayReset, RomSignature,
    RomSignatureRequest, SasVersion, SelectedMeters, SelectedMetersRequest, SendMeters, SetDateTime,
    SetValidationId, TicketValidationData,
)

AT = datetime(2025, 3, 14, 15, 9, 26)


def crc(hexbody: str) -> bytes:
    return append_crc(bytes.fromhex(hexbody))


@pytest.mark.parametrize("msg, frame", [
    (EnablePlay(False), bytes.fromhex("01015108")),
    (EnablePlay(True), bytes.fromhex("0102ca3a")),
    (SendMeters(), bytes.fromhex("011c")),
    (SelectedMetersRequest((0x00, 0x01, 0x05)), crc("012f05" "0000" "000105")),
    (RomSignatureRequest(0x1234), crc("0121" "3412")),
    (SetValidationId(0x654321, 0x000001), crc("014c" "214365" "010000")),
    (EnhancedValidationRequest(0), crc("014d00")),
    (ReceiveValidationNumber(12, "3456789012345678"), crc("0158" "12" "3456789012345678")),
    (RedeemTicket(0x00, 12_000, "006429188185446104"), crc("017110" "00" "0000012000" "00" "006429188185446104")),
    (RedeemTicket(0xFF), crc("017101ff")),
    (AftLockRequest(0x00, 0x03, 500), crc("0174" "00" "03" "0500")),
    (AftInterrogate(), crc("017202ff00")),
    (SetDateTime(AT), crc("017f" "03142025" "150926")),
    (LegacyBonus(150, 0), crc("018a" "00000150" "00")),
    (RemoteHandpayReset(), crc("0194")),
])
def test_host_polls_byte_for_byte(msg, frame):
    assert msg.encode(1) == frame
    assert type(msg).decode(frame) == msg


@pytest.mark.parametrize("msg, frame", [
    (Meters(100, 90, 10, 0, 5, 2, 1, 0),
     crc("011c" "00000100" "00000090" "00000010" "00000000" "00000005" "00000002" "00000001" "00000000")),
    (SelectedMeters({0x00: 1200, 0x0D: 50_000}), crc("012f0d" "0000" "00" "00001200" "0d" "0000050000")),
    (CurrentCredits(345), crc("011a00000345")),
    (HandpayInfo(0, 0x40, 1_500_000), crc("011b" "00" "40" "0001500000" "0000" "00" + "00" * 10)),
    (HandpayResetResult(0), crc("019400")),
    (MachineInfo("SL", "DRA", 0x06, 50, 0, 0, "DP5092", "9512"),
     crc("011f" + b"SLDRA".hex() + "06" "32" "00" "0000" + b"DP5092".hex() + b"9512".hex())),
    (SasVersion("602", "SN1"), crc("015406" + b"602SN1".hex())),
    (EnabledGames((1,)), crc("0156" "03" "01" "0001")),
    (RomSignature(0xBEEF), crc("0121efbe")),
    (LastBill(0, 7, 12), crc("0148" "00" "07" "00000012")),
    (PendingCashout(0x00, 12_000), crc("0157" "00" "0000012000")),
    (ReceiveValidationNumberAck(0x00), crc("015800")),
    (TicketValidationData(0x00, 0, "006429188185446104"), crc("017010" "00" "0000000000" "00" "006429188185446104")),
    (TicketValidationData(0xFF), crc("017007" "ff" "0000000000" "00")),
    (RedeemTicketStatus(0x40, 12_000, "006429188185446104"),
     crc("017110" "40" "0000012000" "00" "006429188185446104")),
    (RedeemTicketStatus(0xC0), crc("017101c0")),
    (LegacyBonusWin(0, 0, 0, 150), crc("0190" "00" "00000000" "00" "00000150")),
    (LegacyBonusMeters(150, 0, 20), crc("019a" "0000" "00000150" "00000000" "00000020")),
])
def test_machine_responses_byte_for_byte(msg, frame):
    assert msg.encode(1) == frame
    assert type(msg).decode(frame) == msg


def test_enhanced_validation_record_layout_and_empty_answer():
    rec = EnhancedValidationRecord(0x00, 1, AT, "6429188185446104", 12_000, 7, 0)
    frame = rec.encode(1)
    assert frame == crc("014d" "00" "01" "03142025" "150926" "6429188185446104" "0000012000" "0700" "00"
                        "00000000" "0000")
    back = EnhancedValidationRecord.decode(frame)
    assert back == rec and back.validation_number == "006429188185446104" and not back.empty
    empty = EnhancedValidationRecord.decode(crc("014d" + "00" * 31))
    assert empty.empty


def test_aft_transfer_layout():
    m = AftTransfer("TX-7", 0x00, 50_000, 0x01020304)
    frame = m.encode(1)
    body = ("00" "00" "00" "0000050000" "0000000000" "0000000000" "00" "04030201" + "00" * 20 + "04"
            + b"TX-7".hex() + "00000000" "0000" "00")
    assert frame == crc("0172" + f"{len(bytes.fromhex(body)):02x}" + body)
    assert AftTransfer.decode(frame) == m
    with pytest.raises(FrameError):
        AftTransfer("", 0, 1, 1)


def test_aft_result_and_lock_status_round_trip():
    r = AftTransferResult(0x00, "TX-7", 0x80, 50_000, 42, AT)
    assert AftTransferResult.decode(r.encode(1)) == r
    none = AftTransferResult(0xFF)
    assert none.encode(1) == crc("017202" "00" "ff") and AftTransferResult.decode(none.encode(1)) == none
    s = AftLockStatus(42, 0x00, 0x03, 12_000, 1_000_000)
    frame = s.encode(1)
    assert frame[2] == 0x23 and AftLockStatus.decode(frame) == s  # length 35


def test_decode_refuses_bad_crc_length_and_bcd():
    frame = bytearray(CurrentCredits(345).encode(1))
    frame[-1] ^= 1
    with pytest.raises(FrameError) as e:
        CurrentCredits.decode(bytes(frame))
    assert e.value.reason == "bad_crc"
    with pytest.raises(FrameError) as e:
        CurrentCredits.decode(crc("011a000003"))
    assert e.value.reason == "bad_length"
    with pytest.raises(FrameError) as e:
        CurrentCredits.decode(crc("011a0000034a"))
    assert e.value.reason == "bad_bcd"
    with pytest.raises(FrameError) as e:
        Meters.decode(CurrentCredits(1).encode(1))
    assert e.value.reason == "wrong_command"
