"""The EGM model and its SAS interface: implied ACK / NACK, synchronisation, meters, tickets (secure enhanced
and system validation, redemption), handpays, legacy bonus, AFT and the ROM signature, frame by frame."""

from __future__ import annotations

from datetime import datetime

import pytest

from slotsys.floor.games import GAMES_DIR, load_game
from slotsys.sas.domain import messages as m
from slotsys.sas.domain.clock import FakeClock
from slotsys.sas.domain.codes import METER, AftStatus, RedeemCode, RedeemStatus
from slotsys.sas.domain.egm import EgmConfig, EgmModel, EgmSasInterface, program_signature
from slotsys.sas.domain.framing import HostFrameDecoder, general_poll, long_poll
from tito.domain.validation import sas_secure_enhanced_number

PROGRAM = (GAMES_DIR / "dragon_pearl_50.yaml").read_bytes()


def make(**kw):
    clock = FakeClock()
    cfg = EgmConfig(address=1, asset_number=1001, serial="SN1001", game=load_game("dragon_pearl_50"),
                    denomination=100, program=PROGRAM, **kw)
    egm = EgmModel(cfg, clock)
    iface = EgmSasInterface(egm)
    send(iface, general_poll(0))  # synchronise (§3.3)
    return egm, iface, clock


def send(iface: EgmSasInterface, frame: bytes):
    dec = HostFrameDecoder()
    msgs = dec.feed([(frame[0], True)] + [(b, False) for b in frame[1:]])
    assert len(msgs) == 1, frame.hex()
    return iface.handle(msgs[0])


def gp(iface):
    return send(iface, general_poll(1))


def lp(iface, msg: m.Message):
    return send(iface, msg.encode(1))


def ack(iface):
    send(iface, general_poll(0))


def test_ignores_polls_until_synchronised():
    clock = FakeClock()
    egm = EgmModel(EgmConfig(1, 1001, "S", load_game("dragon_pearl_50"), 100, PROGRAM), clock)
    iface = EgmSasInterface(egm)
    assert send(iface, general_poll(1)) is None and iface.ignored == 1
    send(iface, general_poll(2))  # another machine polled: synchronised
    assert send(iface, general_poll(1)) == b"\x00"


def test_exception_implied_ack_and_nack():
    egm, iface, _ = make()
    egm.event(0x11)
    egm.event(0x12)
    assert gp(iface) == b"\x11"
    assert gp(iface) == b"\x11"  # identical poll again = implied NACK: same byte, not dequeued
    ack(iface)
    assert gp(iface) == b"\x12"
    ack(iface)
    assert gp(iface) == b"\x00"


def test_third_poll_keeps_the_exception():
    egm, iface, _ = make()
    egm.event(0x19)
    assert [gp(iface) for _ in range(3)] == [b"\x19"] * 3
    ack(iface)  # after a third poll the machine must not dispose of it (§3.2)
    assert gp(iface) == b"\x19"


def test_bad_crc_is_nacked():
    _, iface, _ = make()
    f = bytearray(m.LegacyBonus(10).encode(1))
    f[-1] ^= 0xFF
    assert send(iface, bytes(f)) == b"\x81" and iface.crc_errors == 1


def test_unsupported_long_poll_ignored():
    egm, iface, _ = make()
    dec = HostFrameDecoder()
    frame = long_poll(1, 0x2E, bytes(2))  # game delay: not implemented here
    assert dec.feed([(frame[0], True)] + [(b, False) for b in frame[1:]]) == [] and dec.unknown == 1
    assert egm.long_poll(HostFrameDecoder().feed([(1, True), (0x1A, False)])[0]) is not None
    assert egm.long_poll(type("Msg", (), {"command": 0x2E, "address": 1, "data": b""})()) is None  # not NACKed


def test_bill_game_meters():
    egm, iface, _ = make()
    assert egm.insert_bill(10_000)
    assert gp(iface) == b"\x4c"  # $100-code bill = ₩10,000 note (table C-6, cents read as won)
    bill = m.LastBill.decode(lp(iface, m.SendLastBill()))
    assert (bill.denomination_code, bill.bill_meter) == (7, 1)
    out = egm.play()
    assert out is not None
    assert egm.credits == 100 - 1 + (out.total_win_credits if out.total_win_credits < 1_000_000 else 0)
    got = m.SelectedMeters.decode(lp(iface, m.SelectedMetersRequest((0x00, 0x01, 0x05, 0x0B, 0x0C))))
    assert got.meters == {0x00: 1, 0x01: out.total_win_credits, 0x05: 1, 0x0B: 100, 0x0C: egm.credits}
    ack(iface)
    codes = []
    for _ in range(4):
        codes.append(gp(iface)[0])
        ack(iface)
    assert codes == [0x7E, 0x7F, 0x00, 0x00]  # 0x4C was ACKed by the long poll 48 that followed it


def test_secure_enhanced_ticket_out():
    egm, iface, _ = make()
    assert egm.cash_out() == "nothing"
    egm.insert_bill(10_000)
    assert egm.cash_out() == "validation_not_configured"
    state = m.ValidationIdState.decode(lp(iface, m.SetValidationId(0x654321, 0)))
    assert (state.machine_id, state.sequence) == (0x654321, 0)
    assert egm.cash_out() == "ticket"
    ticket = egm.printed[-1]
    # the sequence is incremented before it is used: the first ticket carries sequence 1
    assert ticket.validation_number == sas_secure_enhanced_number(0x654321, 1) == "006429188185446104"
    ack(iface)
    assert gp(iface) == b"\x3d"
    rec = m.EnhancedValidationRecord.decode(lp(iface, m.EnhancedValidationRequest(0)))
    assert rec.validation_number == ticket.validation_number and rec.amount == 10_000
    ack(iface)
    assert m.EnhancedValidationRecord.decode(lp(iface, m.EnhancedValidationRequest(0))).empty  # read once
    assert egm.meters[METER.TICKET_OUT_CENTS] == 10_000 and egm.credits == 0


def test_system_validation_and_denial():
    egm, iface, clock = make(validation="system")
    egm.insert_bill(5_000)
    assert egm.cash_out() == "awaiting_validation"
    pend = m.PendingCashout.decode(lp(iface, m.SendPendingCashout()))
    assert (pend.cashout_type, pend.amount) == (0, 5_000)
    assert m.ReceiveValidationNumberAck.decode(lp(iface, m.ReceiveValidationNumber(12, "3456789012345678"))).status == 0
    assert egm.printed[-1].validation_number == "123456789012345678" and egm.credits == 0
    egm.insert_bill(5_000)
    egm.cash_out()
    ack(iface)
    lp(iface, m.ReceiveValidationNumber(0, "0" * 16))  # system ID 00: validation denied
    assert egm.credits == 50 and len(egm.printed) == 1
    ack(iface)
    assert m.ReceiveValidationNumberAck.decode(lp(iface, m.ReceiveValidationNumber(12, "1" * 16))).status == 0x80


def test_ticket_redemption_cycle():
    egm, iface, _ = make()
    vn = "006429188185446104"
    assert egm.insert_ticket(vn)
    assert gp(iface) == b"\x67"
    data = m.TicketValidationData.decode(lp(iface, m.SendTicketValidationData()))
    assert (data.status, data.validation_number) == (0x00, vn)
    ack(iface)
    pending = m.RedeemTicketStatus.decode(lp(iface, m.RedeemTicket(RedeemCode.VALID_CASHABLE, 12_000, vn)))
    assert pending.status == RedeemStatus.PENDING
    ack(iface)
    assert gp(iface) == b"\x68"
    final = m.RedeemTicketStatus.decode(lp(iface, m.RedeemTicket(0xFF)))
    assert (final.status, final.amount) == (RedeemStatus.CASHABLE_REDEEMED, 12_000) and egm.credits == 120
    assert egm.meters[METER.TICKET_IN_CENTS] == 12_000


def test_ticket_rejected_by_host_changes_nothing():
    egm, iface, _ = make()
    vn = "006429188185446104"
    egm.insert_ticket(vn)
    lp(iface, m.SendTicketValidationData())
    ack(iface)
    lp(iface, m.RedeemTicket(RedeemCode.ALREADY_REDEEMED, 0, vn))
    ack(iface)
    final = m.RedeemTicketStatus.decode(lp(iface, m.RedeemTicket(0xFF)))
    assert final.status == RedeemStatus.REJECTED_BY_HOST and egm.credits == 0


def test_jackpot_handpay_and_remote_reset():
    egm, iface, _ = make(jackpot_limit_credits=1)  # any win locks up
    egm.insert_bill(50_000)
    while not egm.handpays:
        assert egm.play() is not None
    hp = egm.handpays[0]
    info = m.HandpayInfo.decode(lp(iface, m.SendHandpayInfo()))
    assert (info.level, info.amount) == (0x40, hp.amount)
    assert egm.play() is None  # locked up
    assert m.HandpayResetResult.decode(lp(iface, m.RemoteHandpayReset())).code == 0
    assert egm.meters[METER.JACKPOT] == hp.credits and not egm.handpays
    ack(iface)
    assert m.HandpayResetResult.decode(lp(iface, m.RemoteHandpayReset())).code == 2


def test_legacy_bonus_and_busy_in_handpay():
    egm, iface, _ = make()
    assert lp(iface, m.LegacyBonus(150, 0)) == b"\x01"
    assert lp(iface, m.LegacyBonus(150, 0)) == b"\x01"  # the same poll again: a NACK, paid once
    assert egm.credits == 150 and egm.meters[METER.COIN_OUT] == 150
    assert m.LegacyBonusWin.decode(lp(iface, m.SendLegacyBonusWin())).bonus == 150
    assert m.LegacyBonusMeters.decode(lp(iface, m.SendLegacyBonusMeters())).total == 150
    egm.event(0x11)  # main door open
    ack(iface)
    assert lp(iface, m.LegacyBonus(10, 0)) == b"\x01\x00"  # busy: not escrowed while a door is open


def test_aft_lock_transfer_interrogate_and_unique_txid():
    egm, iface, clock = make()
    st = m.AftLockStatus.decode(lp(iface, m.AftLockRequest(0x00, 0x03, 500)))
    assert st.lock_status == 0x00 and st.asset_number == 1001
    assert egm.play() is None  # locked for the transfer
    r = m.AftTransferResult.decode(lp(iface, m.AftTransfer("T1", 0x00, 30_000, 1001)))
    assert r.status == AftStatus.PENDING
    ack(iface)
    assert gp(iface) == b"\x69"
    done = m.AftTransferResult.decode(lp(iface, m.AftInterrogate()))
    assert (done.status, done.transaction_id, done.cashable) == (0x00, "T1", 30_000) and egm.credits == 300
    ack(iface)
    again = m.AftTransferResult.decode(lp(iface, m.AftTransfer("T1", 0x00, 30_000, 1001)))
    assert again.status == AftStatus.TXID_NOT_UNIQUE and egm.credits == 300
    ack(iface)
    lp(iface, m.AftTransfer("T2", 0x80, 50_000, 1001))  # more than the credit meter, full transfer only
    ack(iface)
    assert m.AftTransferResult.decode(lp(iface, m.AftInterrogate())).status == AftStatus.NOT_VALID_AMOUNT
    ack(iface)
    lp(iface, m.AftTransfer("T3", 0x80, 30_000, 1001))
    ack(iface)
    assert m.AftTransferResult.decode(lp(iface, m.AftInterrogate())).status == 0 and egm.credits == 0
    assert (egm.meters[METER.AFT_IN_CENTS], egm.meters[METER.AFT_OUT_CENTS]) == (30_000, 30_000)


def test_aft_lock_times_out():
    egm, iface, clock = make()
    lp(iface, m.AftLockRequest(0x00, 0x01, 100))  # 1 s
    clock.advance(1.5)
    egm.tick()
    assert not egm.aft_locked


def test_rom_signature_answered_on_a_later_general_poll():
    egm, iface, clock = make()
    assert lp(iface, m.RomSignatureRequest(0xBEEF)) == b"\x01"
    ack(iface)
    assert gp(iface) == b"\x00"  # still computing
    ack(iface)
    clock.advance(0.1)
    sig = m.RomSignature.decode(gp(iface))
    assert sig.signature == program_signature(PROGRAM, 0xBEEF)


def test_enable_disable_and_date_time():
    egm, iface, clock = make()
    egm.insert_bill(1_000)
    assert lp(iface, m.EnablePlay(False)) == b"\x01" and egm.play() is None
    ack(iface)
    lp(iface, m.EnablePlay(True))
    assert egm.play() is not None
    ack(iface)
    lp(iface, m.SetDateTime(datetime(2030, 6, 1, 12, 0, 0)))
    ack(iface)
    assert m.DateTimeValue.decode(lp(iface, m.SendDateTime())).at == datetime(2030, 6, 1, 12, 0, 0)


def test_power_cycle_resynchronises_and_reports():
    egm, iface, _ = make()
    egm.power_off()
    assert gp(iface) is None  # silent
    egm.power_on()
    iface.power_cycled()
    assert gp(iface) is None  # ignored until synchronised
    ack(iface)
    got = []
    for _ in range(2):
        got.append(gp(iface))
        ack(iface)
    assert got == [b"\x18", b"\x17"]


def test_identity_polls():
    _, iface, _ = make()
    info = m.MachineInfo.decode(lp(iface, m.SendMachineInfo()))
    assert info.denomination_code == 0x06 and info.max_bet == 255  # 500 credits capped to the 1-byte field
    assert m.SasVersion.decode(lp(iface, m.SendSasVersion())) == m.SasVersion("602", "SN1001")
    assert m.EnabledGames.decode(lp(iface, m.SendEnabledGames())).games == (1,)


def test_event_outside_vocabulary_refused():
    egm, _, _ = make()
    with pytest.raises(ValueError):
        egm.event(0x05)
