"""The mapping of the SAS host's floor port onto the floor's services (slotsys.sas.adapters.floor_services): notes
of a bills-meter delta, meters under the floor's names, TITO's refusals as long poll 71 codes, and the floor states
that disable a SAS machine. The use cases behind them run end to end in tests/integration/test_sas_floor_pg.py."""

from __future__ import annotations

from types import SimpleNamespace

from slotsys.floor.domain import machine_events as V
from slotsys.sas.adapters.floor_services import (
    DISABLED_STATES, REDEEM_CODES, floor_meters, machine_meters, split_notes,
)
from slotsys.sas.domain.codes import RedeemCode
from tito.domain import errors as E


def test_a_bills_meter_delta_is_split_into_the_floors_notes_largest_first():
    assert split_notes(10_000) == [10_000]
    assert split_notes(66_000) == [50_000, 10_000, 5_000, 1_000]
    assert split_notes(3_000) == [1_000, 1_000, 1_000]
    assert split_notes(1_500) is None and split_notes(0) is None  # not whole notes: refused, nothing moves
    assert sum(split_notes(123_000) or []) == 123_000


def test_a_machines_meters_in_the_floors_names():
    sas = {"coin_in": 5_000, "coin_out": 4_700, "paytable_win": 4_200, "games_played": 9, "games_won": 3,
           "credits": 1_000, "jackpot": 0}
    # the floor's coin-out is the win onto the credit meter: the machine-paid paytable win
    assert machine_meters(sas) == {"coin_in": 5_000, "coin_out": 4_200, "games_played": 9, "games_won": 3}
    assert machine_meters({"coin_in": 1, "games_played": 1}) == {"coin_in": 1, "games_played": 1}


def test_the_floors_meters_under_the_sas_names():
    m = SimpleNamespace(coin_in=5_000, coin_out=4_200, handpay_out=0, games_played=9, games_won=3, bills_in=15_000,
                        tickets_in=2_000, tickets_out=7_000, tickets_in_count=1, tickets_out_count=2)
    assert floor_meters(m, 5_800) == {
        "coin_in": 5_000, "paytable_win": 4_200, "jackpot": 0, "handpaid_cancelled": 0, "games_played": 9,
        "games_won": 3, "bills": 15_000, "ticket_in": 2_000, "ticket_out": 7_000, "ticket_in_count": 1,
        "ticket_out_count": 2, "credits": 5_800}
    # ₩1,000 of the coin-out were a jackpot handpay the attendant paid: the machine meters it as jackpot (0x02)
    hand = floor_meters(m, 5_800, 1_000)
    assert (hand["paytable_win"], hand["jackpot"]) == (3_200, 1_000)


def test_a_reported_games_coin_out_is_the_paytable_win_and_the_hand_paid_jackpots():
    assert machine_meters({"coin_in": 10, "paytable_win": 4, "jackpot": 3, "games_played": 2}) == {
        "coin_in": 10, "coin_out": 7, "games_played": 2}
    assert machine_meters({"coin_in": 10, "paytable_win": 4}) == {"coin_in": 10, "coin_out": 4}


def test_titos_refusals_are_the_long_poll_71_codes():
    assert REDEEM_CODES[E.TicketNotOnFile.code] == RedeemCode.NOT_ON_FILE
    assert REDEEM_CODES[E.TicketAlreadyRedeemed.code] == RedeemCode.ALREADY_REDEEMED
    assert REDEEM_CODES[E.TicketExpired.code] == RedeemCode.EXPIRED
    assert REDEEM_CODES[E.TicketPendingElsewhere.code] == RedeemCode.PENDING_ELSEWHERE
    assert REDEEM_CODES[E.TicketAmountMismatch.code] == RedeemCode.AMOUNT_MISMATCH
    assert REDEEM_CODES[E.CheckDigitWrong.code] == RedeemCode.NOT_A_VALID_NUMBER
    assert all(code >= 0x80 for code in REDEEM_CODES.values())  # every refusal is a rejection code


def test_disabled_states_and_the_hosts_event_kinds():
    assert {"disabled", "locked", "verification", "retired"} == DISABLED_STATES
    assert "active" not in DISABLED_STATES and "handpay" not in DISABLED_STATES  # a handpay lock-up is the machine's
    for kind in ("comms_lost", "comms_restored", "meter_mismatch", "exception_buffer_overflow", "meter_decreased",
                 "software_signature_mismatch", "enrolment_refused", "validation_number_unexpected"):
        assert kind in V.BY_KIND and kind in V.SYSTEM_ONLY, kind
