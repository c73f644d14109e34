"""Liabilities at a day close (slotsys.accounting.domain.liabilities), reconciled to the ledger, with planted
differences that must show."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

import pytest

from slotsys.kernel import accounts as JA
from slotsys.accounting.domain import chart as C
from slotsys.accounting.domain import liabilities as LI
from slotsys.kernel.gaming_day import GamingDay
from slotsys.kernel import accounts
from slotsys.kernel import ledger as L

UTC = timezone.utc
GD = GamingDay()
DAY = date(2026, 12, 1)
START, CLOSE = GD.bounds(DAY)


def _tickets_and_postings():
    """Five tickets issued on day 1 (one after the close), two redeemed before the close, one voided, one
    expired-but-not-voided; the ledger posts all of it, plus the ticket printed after the close."""
    t = START + timedelta(hours=1)
    tickets = [
        LI.TicketRecord("A", "cashable", 31_200, t),
        LI.TicketRecord("B", "cashable", 12_000, t, redeemed_at=t + timedelta(hours=2)),
        LI.TicketRecord("C", "promotional", 5_000, t - timedelta(days=40)),  # expired, still owed
        LI.TicketRecord("D", "handpay_receipt", 1_500_000, t, voided_at=t + timedelta(hours=1)),
        LI.TicketRecord("E", "cashable", 7_700, CLOSE + timedelta(minutes=1)),  # the next day's
        LI.TicketRecord("F", "cashable", 9_900, t, redeemed_at=CLOSE + timedelta(minutes=5)),  # redeemed tomorrow
    ]
    postings: list[tuple[datetime, str, int]] = []

    def post(at, e):
        postings.extend((at, p.account, p.amount) for p in e.postings)

    for tk in tickets:
        post(tk.issued_at, L.EntryBuilder("tito.issue").add(debit=accounts.machine_credits("M1"), credit=accounts.TICKETS_OUTSTANDING,
                                                             amount=tk.amount).build())
        if tk.redeemed_at:
            post(tk.redeemed_at, L.EntryBuilder("tito.redeem").add(debit=accounts.TICKETS_OUTSTANDING,
                                                                   credit=accounts.machine_credits("M2"), amount=tk.amount).build())
        if tk.voided_at:
            post(tk.voided_at, L.EntryBuilder("tito.void").add(debit=accounts.TICKETS_OUTSTANDING, credit="tito:voids",
                                                               amount=tk.amount).build())
    return tickets, postings


def _balances(postings, as_of):
    return C.normal_balances((code, amount) for at, code, amount in postings if at < as_of)


def test_outstanding_tickets_as_of_the_close_agree_with_the_ledger():
    tickets, postings = _tickets_and_postings()
    out = LI.outstanding_as_of(tickets, CLOSE)
    assert [t.validation_number for t in out] == ["C", "A", "F"]
    led = _balances(postings, CLOSE)[accounts.TICKETS_OUTSTANDING]
    r = LI.ticket_liability(tickets, CLOSE, led, GD)
    assert (r["count"], r["amount"]) == (3, 46_100)
    assert r["line"]["ledger"] == 46_100 and r["line"]["difference"] == 0
    assert r["by_type"] == {"cashable": {"count": 2, "amount": 41_100}, "promotional": {"count": 1, "amount": 5_000}}
    assert list(r["by_issue_day"]) == ["2026-10-22", "2026-12-01"]


def test_a_ticket_without_its_posting_shows_as_a_difference():
    tickets, postings = _tickets_and_postings()
    tickets.append(LI.TicketRecord("G", "cashable", 4_400, START + timedelta(hours=3)))  # planted: never posted
    led = _balances(postings, CLOSE)[accounts.TICKETS_OUTSTANDING]
    r = LI.ticket_liability(tickets, CLOSE, led, GD)
    assert (r["amount"], r["line"]["ledger"], r["line"]["difference"]) == (50_500, 46_100, 4_400)


def test_jackpot_meters_in_milli_won_against_whole_won_on_the_ledger():
    levels = [LI.LevelMeters("MINI", 30_123_456, 2_000_999, 0, (12_345,)),
              LI.LevelMeters("GRAND", 5_000_000_000, 0, 1_500, ())]
    balances = {JA.jackpot_liability("MINI"): 30_123, JA.jackpot_reserve("MINI"): 2_000, JA.jackpot_overflow("MINI"): 0,
                JA.jackpot_payable("MINI"): 12_345, JA.jackpot_liability("GRAND"): 5_000_001,  # planted: one won too many
                JA.jackpot_reserve("GRAND"): 0, JA.jackpot_overflow("GRAND"): 1}
    r = LI.jackpot_liability(levels, balances)
    by = {(x["level"], x["part"]): x for x in r["lines"]}
    assert (by[("MINI", "liability")]["record"], by[("MINI", "liability")]["remainder_milli"]) == (30_123, 456)
    assert by[("MINI", "reserve")]["record"] == 2_000 and by[("MINI", "reserve")]["difference"] == 0
    assert by[("MINI", "payable")]["record"] == 12_345 and by[("MINI", "payable")]["difference"] == 0
    assert by[("GRAND", "liability")]["difference"] == -1
    assert by[("GRAND", "overflow")]["record"] == 1 and by[("GRAND", "overflow")]["difference"] == 0
    assert by[("GRAND", "payable")]["ledger"] is None  # no account: shown, not taken as zero
    assert r["total"]["missing_accounts"] == [JA.jackpot_payable("GRAND")]
    assert r["total"]["difference"] == -1


def test_wallets_and_points_with_planted_differences():
    w = LI.wallet_liability([LI.WalletRecord(7, "cashable", 100_000, 100_000), LI.WalletRecord(7, "promo", 5_000, 5_000),
                             LI.WalletRecord(9, "cashable", 40_000, 39_000)])
    assert w["by_wallet"]["cashable"] == {"record": 140_000, "ledger": 139_000, "difference": 1_000, "players": 2,
                                          "missing_accounts": []}
    assert w["lines"][2]["account"] == accounts.player_cashable(9)
    with pytest.raises(ValueError):
        _ = LI.WalletRecord(1, "chips", 0, 0).account  # the property refuses a wallet kind it does not know
    p = LI.points_liability([LI.PlayerPoints(7, 12_345_678, 12_345_678, 1_000_000),
                             LI.PlayerPoints(9, 2_500, 2_000)], promo_won_per_point=10, cash_won_per_point=5)
    assert p["points"] == 12_345 + 2 and p["value_promo_won"] == 123_470 and p["value_cash_won"] == 61_735
    assert not p["all_agree"] and p["lines"][1]["difference_milli"] == 500 and p["on_ledger"] is False


def test_the_report_lists_every_difference():
    tickets, postings = _tickets_and_postings()
    led = _balances(postings, CLOSE)[accounts.TICKETS_OUTSTANDING]
    rep = LI.liabilities_report(
        tickets=LI.ticket_liability(tickets, CLOSE, led, GD),
        jackpots=LI.jackpot_liability([LI.LevelMeters("MINI", 1_000_500, 0, 0)],
                                      {JA.jackpot_liability("MINI"): 1_000, JA.jackpot_reserve("MINI"): 0, JA.jackpot_overflow("MINI"): 0,
                                       JA.jackpot_payable("MINI"): 0}),
        wallets=LI.wallet_liability([LI.WalletRecord(9, "cashable", 40_000, 39_000)]),
        points=LI.points_liability([LI.PlayerPoints(9, 2_000, 2_000)], promo_won_per_point=10, cash_won_per_point=5))
    assert rep["differences"] == ["player 9 cashable"] and rep["all_agree"] is False
    assert rep["total"]["difference"] == 1_000
    assert {x["section"] for x in rep["lines"]} == {"tickets", "jackpots", "wallets"}
    clean = LI.liabilities_report(tickets=LI.ticket_liability(tickets, CLOSE, led, GD),
                                  jackpots=LI.jackpot_liability([], {}), wallets=LI.wallet_liability([]),
                                  points=LI.points_liability([], promo_won_per_point=10, cash_won_per_point=5))
    assert clean["all_agree"] is True and clean["differences"] == []
