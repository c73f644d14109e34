"""The slot floor's machine use cases (slotsys.floor.services.play) on the in-memory unit of work: no database, the
real game library and evaluator, fake ports for the jackpot controller, TITO and loyalty."""

from __future__ import annotations

import pytest

from slotsys.floor.domain.machine import Machine
from slotsys.floor.services.games import GameLibrary
from slotsys.floor.services.play import FloorService
from slotsys.kernel import accounts
from slotsys.kernel.context import Principal
from slotsys.kernel.errors import Forbidden, InsufficientFunds, MachineLocked, ValidationFailed
from slotsys.kernel.idempotency import OnceKey, fingerprint
from tests.fakes.floor import FakeJackpots, FakeLoyalty, FakeMachines, FakeRounds, FakeTickets
from tests.fakes.kernel import FakeLedger, SeqRng, fake_context

M001 = Principal("machine", "M001")


def _floor(**machine):
    ledger = FakeLedger()
    m = Machine(asset_number="M001", zone="MASS", bank="M1", denomination=100, game_id="dragon_pearl_50",
                key_hash="k", **machine)
    ctx = fake_context(rng=SeqRng(7, 3, 11, 2, 5), ledger=ledger, machines=FakeMachines(ledger, [m]),
                       rounds=FakeRounds())
    jackpots, tickets = FakeJackpots(), FakeTickets(ledger)
    svc = FloorService(ctx, games=GameLibrary(), jackpots=jackpots, tickets=tickets, loyalty=FakeLoyalty())
    return svc, ctx, m, jackpots, tickets


def key(k: str, path: str, payload=None) -> OnceKey:
    return OnceKey(M001.id, k, fingerprint("POST", path, payload))


def balance(ctx, code: str) -> int:
    return ctx.uow.repos["ledger"].balance(code)


def test_a_spin_stakes_the_bet_pays_the_win_and_keeps_the_books_balanced():
    svc, ctx, m, jackpots, _ = _floor()
    svc.bill_in(M001, "M001", 50_000, key("b1", "bill-in/M001", 50_000))
    bet = {"lines": 50, "multiplier": 1}
    once = svc.spin(M001, "M001", bet, key("s1", "spin/M001", bet))
    r = once.result
    assert not once.replayed and r.game_number == 1 and r.bet["won"] == 5_000
    assert r.credits == 50_000 - 5_000 + r.total_win == balance(ctx, accounts.machine_credits("M001"))
    assert balance(ctx, accounts.machine_hold("M001")) == 5_000 - r.total_win  # the game's win for the house
    assert ctx.uow.repos["ledger"].sum_of_balances() == 0
    assert (m.coin_in, m.coin_out, m.games_played, m.game_seq) == (5_000, r.total_win, 1, 1)
    assert jackpots.wagers == [("M001", 5_000, 1)]  # the wager went to the jackpot port
    assert ctx.metrics.games == [(5_000, r.total_win)]
    assert ctx.uow.repos["rounds"].rows[0]["game_number"] == 1  # the recall


def test_a_replayed_spin_returns_the_first_game_and_moves_nothing():
    svc, ctx, m, jackpots, _ = _floor()
    svc.bill_in(M001, "M001", 50_000, key("b1", "bill-in/M001", 50_000))
    bet = {"lines": 50, "multiplier": 1}
    first = svc.spin(M001, "M001", bet, key("s1", "spin/M001", bet))
    again = svc.spin(M001, "M001", bet, key("s1", "spin/M001", bet))
    assert again.replayed and again.result == first.result
    assert m.games_played == 1 and len(jackpots.wagers) == 1 and len(ctx.metrics.games) == 1


def test_a_spin_above_the_credits_or_on_a_locked_machine_is_refused_and_changes_nothing():
    svc, ctx, m, jackpots, _ = _floor()
    bet = {"lines": 50, "multiplier": 1}
    with pytest.raises(InsufficientFunds):
        svc.spin(M001, "M001", bet, key("s1", "spin/M001", bet))
    m = ctx.uow.repos["machines"].get("M001")  # the rolled-back transaction restored the machine's state
    m.lock("attendant check")
    with pytest.raises(MachineLocked):
        svc.bill_in(M001, "M001", 50_000, key("b1", "bill-in/M001", 50_000))
    assert m.games_played == 0 and not jackpots.wagers and ctx.uow.repos["ledger"].entries == []
    assert ctx.uow.repos["idempotency"].records == {}  # the refused requests may be retried with their keys


@pytest.mark.parametrize("bet, field", [({"lines": 7, "multiplier": 1}, "lines"), ({"lines": 50, "multiplier": 99}, "multiplier")])
def test_an_invalid_bet_is_refused_naming_the_field(bet, field):
    svc, ctx, *_ = _floor()
    svc.bill_in(M001, "M001", 50_000, key("b1", "bill-in/M001", 50_000))
    with pytest.raises(ValidationFailed) as e:
        svc.spin(M001, "M001", bet, key("s1", "spin/M001", bet))
    assert e.value.field == field


def test_a_machine_acts_only_as_itself():
    svc, *_ = _floor()
    with pytest.raises(Forbidden):
        svc.bill_in(Principal("machine", "M002"), "M001", 10_000, key("b1", "bill-in/M001", 10_000))


def test_cash_out_prints_a_ticket_for_the_credits_through_the_ticket_port():
    svc, ctx, m, _, tickets = _floor()
    svc.bill_in(M001, "M001", 10_000, key("b1", "bill-in/M001", 10_000))
    once = svc.cash_out(M001, "M001", key("c1", "cash-out/M001"))
    assert once.result.ticket["amount"] == 10_000 and once.result.credits == 0
    assert balance(ctx, accounts.TICKETS_OUTSTANDING) == 10_000 and balance(ctx, accounts.machine_credits("M001")) == 0
    assert svc.cash_out(M001, "M001", key("c1", "cash-out/M001")).replayed and len(tickets.printed) == 1
    assert (m.tickets_out, m.tickets_out_count) == (10_000, 1)
