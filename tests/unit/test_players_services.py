"""The players' use cases (slotsys.players.services) on the in-memory unit of work: no database. Enrolment, a carded
game's points through the floor's loyalty port, cashless transfers exactly once, and the two-phase point redemption
at a machine. The floor's own use cases (bill-in, spin) run beside them on the floor's fakes."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

import pytest

from slotsys.floor.domain.machine import Machine
from slotsys.floor.services.games import GameLibrary
from slotsys.floor.services.play import FloorService
from slotsys.kernel import accounts
from slotsys.kernel.context import Principal
from slotsys.kernel.errors import Forbidden, InsufficientFunds, ValidationFailed
from slotsys.kernel.idempotency import OnceKey, fingerprint
from slotsys.players.domain.loyalty import DailyLimitReached, MachineCardedByOther, NotCarded
from slotsys.players.services.loyalty_play import LoyaltyAccrual
from slotsys.players.services.players import PlayerService
from slotsys.players.services.results import CardIssued
from slotsys.players.services.sessions import RedemptionNotPending, SessionService
from tests.fakes.floor import FakeJackpots, FakeTickets
from tests.fakes.players import FakeCashDesk, players_context

HOST = Principal("staff", "host", "host")
CASHIER = Principal("staff", "cashier", "cashier")
M001 = Principal("machine", "M001")
PIN = "2468"
BET = {"lines": 50, "multiplier": 1}  # 50 credits × ₩100 = ₩5,000


def machine(asset: str = "M001") -> Machine:
    return Machine(asset_number=asset, zone="MASS", bank="M1", denomination=100, game_id="dragon_pearl_50",
                   key_hash=f"k-{asset}")


def key(principal: Principal, k: str, path: str, payload=None) -> OnceKey:
    """The key the API builds: ``once_key(path, payload)`` for this caller."""
    return OnceKey(principal.id, k, fingerprint("POST", path, payload))


class Floor:
    """The players' services and the floor's machine use cases over one in-memory unit of work."""

    def __init__(self, *machines: Machine, **context) -> None:
        self.ctx = players_context(*(machines or (machine(),)), **context)
        self.repos = self.ctx.uow.repos
        self.players = PlayerService(self.ctx, cash_desk=FakeCashDesk())
        self.sessions = SessionService(self.ctx)
        self.jackpots = FakeJackpots()
        self.floor = FloorService(self.ctx, games=GameLibrary(), jackpots=self.jackpots,
                                  tickets=FakeTickets(self.repos["ledger"]), loyalty=LoyaltyAccrual(self.ctx.settings))
        self._n = 0

    def k(self) -> str:
        self._n += 1
        return f"k{self._n}"

    def balance(self, code: str) -> int:
        return self.repos["ledger"].balance(code)

    def enrol(self, name: str = "Kim Min-jun") -> CardIssued:
        return self.players.enrol(HOST, name, PIN, key(HOST, self.k(), "players", [name])).result

    def card_in(self, card_number: str, asset: str = "M001"):
        who = Principal("machine", asset)
        return self.sessions.card_in(who, asset, card_number, key(who, self.k(), f"card-in/{asset}", card_number))

    def deposit(self, player_id: int, amount: int):
        return self.players.deposit(CASHIER, player_id, amount,
                                    key(CASHIER, self.k(), f"players/{player_id}/deposit", amount))

    def spin(self):
        self.floor.bill_in(M001, "M001", 10_000, key(M001, self.k(), "bill-in/M001", 10_000))
        return self.floor.spin(M001, "M001", BET, key(M001, self.k(), "spin/M001", BET)).result

    def to_machine(self, card_number: str, amount: int, k: str, kind: str = "cashable"):
        return self.sessions.to_machine(M001, "M001", card_number, PIN, amount, kind,
                                        key(M001, k, "wallet/to_machine/M001", [card_number, amount, kind]))

    def to_wallet(self, card_number: str, amount: int, k: str, kind: str = "cashable"):
        return self.sessions.to_wallet(M001, "M001", card_number, PIN, amount, kind,
                                       key(M001, k, "wallet/to_wallet/M001", [card_number, amount, kind]))

    def redeem(self, card_number: str, points: int, kind: str = "promo", k: str | None = None):
        return self.sessions.redeem_request(M001, "M001", card_number, PIN, points, kind,
                                            key(M001, k or self.k(), "redemptions/M001", [card_number, points, kind]))

    def ack(self, redemption: int, k: str):
        return self.sessions.redeem_ack(M001, "M001", redemption, key(M001, k, f"redemptions/M001/{redemption}/ack"))

    def cancel(self, redemption: int):
        return self.sessions.redeem_cancel(M001, "M001", redemption,
                                           key(M001, self.k(), f"redemptions/M001/{redemption}/cancel"))


# ------------------------------------------------------------------ enrolment
def test_enrolment_opens_the_wallet_and_issues_an_active_card_exactly_once():
    f = Floor()
    once = f.players.enrol(HOST, "Kim Min-jun", PIN, key(HOST, "e1", "players", ["Kim Min-jun"]))
    p = once.result
    assert not once.replayed and isinstance(p, CardIssued)
    assert (p.name, p.tier.code, p.points.balance, p.session) == ("Kim Min-jun", "CLASSIC", 0, None)
    assert [(c.card_number, c.status) for c in p.cards] == [(p.card_number, "active")]
    # the wallet: two ledger accounts at ₩0
    assert p.wallet == {"cashable": 0, "promo": 0}
    assert f.balance(accounts.player_cashable(p.player)) == 0 and f.balance(accounts.player_promo(p.player)) == 0
    assert f.repos["players"].card_events_log[0]["kind"] == "issued"

    again = f.players.enrol(HOST, "Kim Min-jun", PIN, key(HOST, "e1", "players", ["Kim Min-jun"]))
    assert again.replayed and again.result == p and len(f.repos["players"].players) == 1


def test_enrolment_is_for_a_host_with_a_name_and_a_well_formed_pin():
    f = Floor()
    with pytest.raises(Forbidden):
        f.players.enrol(CASHIER, "Kim", PIN, key(CASHIER, "e1", "players", ["Kim"]))
    for name, pin, field in (("", PIN, "name"), ("Kim", "12", "pin")):
        with pytest.raises(ValidationFailed) as e:
            f.players.enrol(HOST, name, pin, key(HOST, "e2", "players", [name]))
        assert e.value.field == field
    assert f.repos["players"].players == [] and f.repos["idempotency"].records == {}


# ------------------------------------------------------------------ carded play
def test_card_in_opens_a_session_and_a_carded_game_earns_points_through_the_loyalty_port():
    f = Floor()
    p = f.enrol()
    cin = f.card_in(p.card_number).result
    assert not cin.already_carded and cin.session.status == "open" and cin.session.machine == "M001"
    assert (cin.player.name, cin.player.tier, cin.player.points) == ("Kim Min-jun", "CLASSIC", 0)

    game = f.spin()  # ₩5,000 coin-in at the default rule (1 point per ₩1,000) and CLASSIC's ×1.000
    assert game.player == {"player": p.player, "session": cin.session.session, "points_earned_milli": 5_000,
                           "points": 5, "progress_milli": 0, "tier": "CLASSIC"}
    journal = f.players.points(HOST, p.player)
    assert journal.balance_milli == 5_000 and [(j.kind, j.points_milli, j.session) for j in journal.entries] == [
        ("play", 5_000, cin.session.session)]

    out = f.sessions.card_out(M001, "M001", key(M001, "o1", "card-out/M001")).result.session
    assert out.status == "closed" and out.ended_by == "machine:M001"
    assert out.meters == {"coin_in": 5_000, "coin_out": game.total_win, "jackpot_out": 0, "games_played": 1,
                          "games_won": 1 if game.total_win else 0}
    assert out.points_earned_milli == 5_000 and out.player_net_won == game.total_win - 5_000

    uncarded = f.spin()  # no card in: the loyalty port earns nothing
    assert uncarded.player is None and f.players.view(HOST, p.player).points.balance_milli == 5_000


def test_a_machine_holds_one_player_and_a_player_one_machine():
    f = Floor(machine("M001"), machine("M002"))
    kim, lee = f.enrol("Kim"), f.enrol("Lee")
    f.card_in(kim.card_number)
    assert f.card_in(kim.card_number).result.already_carded  # the same card again: the open session
    with pytest.raises(MachineCardedByOther):
        f.card_in(lee.card_number)
    with pytest.raises(Exception) as e:
        f.card_in(kim.card_number, "M002")
    assert e.value.code == "player-carded-elsewhere" and e.value.extra["machine"] == "M001"
    assert len(f.repos["players"].sessions) == 1
    with pytest.raises(NotCarded):
        f.sessions.card_out(Principal("machine", "M002"), "M002", key(Principal("machine", "M002"), "o", "card-out/M002"))


# ------------------------------------------------------------------ cashless transfers
def test_a_cashless_transfer_moves_money_exactly_once_and_never_more_than_the_wallet_holds():
    f = Floor()
    p = f.enrol()
    f.deposit(p.player, 100_000)
    f.card_in(p.card_number)
    wallet, credits = accounts.player_cashable(p.player), accounts.machine_credits("M001")

    def transfers():  # read after each use case: a transaction that does not commit restores the repositories
        return f.repos["players"].records["transfer"]

    first = f.to_machine(p.card_number, 30_000, "t1")
    assert first.result.wallet == {"cashable": 70_000, "promo": 0} and first.result.credits == 30_000
    again = f.to_machine(p.card_number, 30_000, "t1")
    assert again.replayed and again.result == first.result
    assert (f.balance(wallet), f.balance(credits), len(transfers())) == (70_000, 30_000, 1)

    with pytest.raises(InsufficientFunds) as e:  # above the wallet: refused, nothing moved, the key not spent
        f.to_machine(p.card_number, 70_001, "t2")
    assert e.value.field == "amount" and e.value.extra["balance"] == 70_000
    assert (f.balance(wallet), f.balance(credits), len(transfers())) == (70_000, 30_000, 1)
    assert (M001.id, "t2") not in f.repos["idempotency"].records

    back = f.to_wallet(p.card_number, 30_000, "w1")
    assert back.result.direction == "to_wallet" and back.result.credits == 0
    assert f.to_wallet(p.card_number, 30_000, "w1").replayed
    assert (f.balance(wallet), f.balance(credits), len(transfers())) == (100_000, 0, 2)
    assert f.repos["ledger"].sum_of_balances() == 0
    assert [(t.direction, t.cashable_won) for t in transfers()] == [("to_machine", 30_000), ("to_wallet", 30_000)]


def test_the_daily_transfer_limit_counts_in_the_casinos_gaming_day():
    """06:00 Asia/Seoul (the casino's gaming day, given to the service): ₩50,000 a day to the machine; at 05:59:59
    KST the day's limit is spent, at 06:00:00 KST a new gaming day begins."""
    f = Floor(daily_to_machine_max_won=50_000)
    p = f.enrol()
    f.deposit(p.player, 200_000)
    f.card_in(p.card_number)
    f.ctx.clock.at = datetime(2026, 12, 2, 20, 0, tzinfo=timezone.utc)  # 05:00 KST: gaming day 2026-12-02
    assert f.to_machine(p.card_number, 50_000, "d1").result.amount == 50_000
    f.ctx.clock.at = datetime(2026, 12, 2, 20, 59, 59, tzinfo=timezone.utc)  # 05:59:59 KST: the same day
    with pytest.raises(DailyLimitReached) as e:
        f.to_machine(p.card_number, 10_000, "d2")
    assert e.value.field == "amount"
    f.ctx.clock.at = datetime(2026, 12, 2, 21, 0, tzinfo=timezone.utc)  # 06:00 KST: gaming day 2026-12-03
    assert f.to_machine(p.card_number, 10_000, "d3").result.amount == 10_000
    days = [t.gaming_day for t in f.repos["players"].records["transfer"]]
    assert days == [date(2026, 12, 2), date(2026, 12, 3)]  # labelled with the local date the day starts on


def test_a_transfer_needs_the_carded_players_own_card_and_pin():
    f = Floor()
    kim, lee = f.enrol("Kim"), f.enrol("Lee")
    f.deposit(kim.player, 50_000)
    f.deposit(lee.player, 50_000)
    with pytest.raises(NotCarded):
        f.to_machine(kim.card_number, 10_000, "t1")
    f.card_in(kim.card_number)
    with pytest.raises(MachineCardedByOther):
        f.to_machine(lee.card_number, 10_000, "t2")
    with pytest.raises(Exception) as e:
        f.sessions.to_machine(M001, "M001", kim.card_number, "9999", 10_000, "cashable",
                              key(M001, "t3", "wallet/to_machine/M001", [kim.card_number, 10_000, "cashable"]))
    assert e.value.code == "pin-incorrect"
    assert f.repos["players"].card(kim.card_number).pin_failures == 1  # the wrong PIN is counted, nothing moves
    assert f.balance(accounts.machine_credits("M001")) == 0 and f.repos["players"].records["transfer"] == []


# ------------------------------------------------------------------ two-phase redemption at a machine
def test_a_redemption_at_a_machine_holds_the_points_until_the_machine_acknowledges_the_credits():
    f = Floor(rules=(("default", "", "coin_in", 100),))  # 1 point per ₩100: a ₩5,000 game earns 50 points
    p = f.enrol()
    f.card_in(p.card_number)
    f.spin()
    restricted = accounts.machine_restricted("M001")
    before = f.balance(restricted)

    hold = f.redeem(p.card_number, 20).result  # 20 points × ₩10 (the promo rate) = ₩200 of promo credits
    assert (hold.status, hold.amount, hold.points_available) == ("pending", 200, 30)
    account = f.players.view(HOST, p.player).points
    assert (account.balance, account.held, account.available) == (50, 20, 30)
    assert f.balance(restricted) == before  # nothing credited, nothing debited yet

    ack = f.ack(hold.redemption, "a1")
    assert (ack.result.status, ack.result.points_balance, ack.result.amount) == ("completed", 30, 200)
    assert ack.result.promo_credits == before + 200 == f.balance(restricted)
    assert f.balance(accounts.comp_expense("promo")) == 200
    replay = f.ack(hold.redemption, "a1")
    assert replay.replayed and replay.result == ack.result and f.balance(restricted) == before + 200
    with pytest.raises(RedemptionNotPending):  # settled once: another acknowledgement is refused
        f.ack(hold.redemption, "a2")
    journal = [(j.kind, j.points_milli) for j in f.players.points(HOST, p.player).entries]
    assert journal == [("redeem", -20_000), ("play", 50_000)]


def test_a_cancelled_or_expired_redemption_debits_nothing():
    f = Floor(rules=(("default", "", "coin_in", 100),))
    p = f.enrol()
    f.card_in(p.card_number)
    f.spin()
    cancelled = f.cancel(f.redeem(p.card_number, 10).result.redemption).result
    assert (cancelled.status, cancelled.points_balance) == ("cancelled", 50)
    assert f.players.view(HOST, p.player).points.held == 0

    late = f.redeem(p.card_number, 10).result
    f.ctx.clock.at += timedelta(seconds=61)  # past the program's 60 s hold
    with pytest.raises(RedemptionNotPending) as e:
        f.ack(late.redemption, "late")
    assert e.value.extra["redemption_status"] == "expired"
    account = f.players.view(HOST, p.player).points
    assert (account.balance, account.held) == (50, 0)
    assert f.balance(accounts.machine_restricted("M001")) == 0
    with pytest.raises(Exception) as e:  # more points than the player has
        f.redeem(p.card_number, 51)
    assert e.value.code == "insufficient-points"
