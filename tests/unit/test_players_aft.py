"""AFT transfers between a carded player's wallet and a SAS machine (slotsys.players.services.aft) on the in-memory
unit of work: the request holds the wallet money (to the machine), the SAS host's floor takes one transfer at a
time (a sent one again until it is settled), the machine's final status settles it exactly once, a transfer never
sent expires and returns its hold, and every refusal moves nothing."""

from __future__ import annotations

from datetime import timedelta

import pytest

from slotsys.floor.domain.machine import Machine
from slotsys.kernel import accounts
from slotsys.kernel.context import Principal
from slotsys.kernel.errors import Forbidden, InsufficientFunds, NotFound, ValidationFailed
from slotsys.kernel.idempotency import OnceKey, fingerprint
from slotsys.players.domain.loyalty import NotCarded
from slotsys.players.services.aft import AftInProgress, AftNotOpen, AftService, MachineNotSas
from slotsys.players.services.players import PlayerService
from slotsys.players.services.sessions import SasMachineUsesAft, SessionService
from tests.fakes.players import FakeCashDesk, players_context

HOST = Principal("staff", "host", "host")
CASHIER = Principal("staff", "cashier", "cashier")
S001 = Principal("machine", "S001")
PIN = "2468"
BASE = {"machine": {"coin_in": 0}, "floor": {"coin_in": 0, "game_seq": 0}}


def sas_machine(asset: str = "S001", **over) -> Machine:
    fields = {"outcome_source": "machine", "sas_meter_base": BASE, **over}
    return Machine(asset_number=asset, zone="MASS", bank="S1", denomination=100, game_id="dragon_pearl_50",
                   key_hash=f"k-{asset}", **fields)


class Floor:
    def __init__(self, *machines: Machine) -> None:
        self.ctx = players_context(*(machines or (sas_machine(),)))
        self.repos = self.ctx.uow.repos
        self.players = PlayerService(self.ctx, cash_desk=FakeCashDesk())
        self.sessions = SessionService(self.ctx)
        self.aft = AftService(self.ctx, timeout_s=60)
        self._n = 0

    def k(self) -> str:
        self._n += 1
        return f"k{self._n}"

    def balance(self, code: str) -> int:
        return self.repos["ledger"].balance(code)

    def player(self, deposit: int = 100_000, asset: str = "S001"):
        p = self.players.enrol(HOST, "Kim Min-jun", PIN, OnceKey(HOST.id, self.k(), fingerprint("enrol"))).result
        if deposit:
            self.players.deposit(CASHIER, p.player, deposit, OnceKey(CASHIER.id, self.k(), fingerprint("dep")))
        who = Principal("machine", asset)
        self.sessions.card_in(who, asset, p.card_number, OnceKey(who.id, self.k(), fingerprint("card-in")))
        return p

    def request(self, card: str, amount, direction: str = "to_machine", k: str | None = None, asset: str = "S001",
                pin: str = PIN):
        who = Principal("machine", asset)
        return self.aft.request(who, asset, card, pin, amount, direction,
                                OnceKey(who.id, k or self.k(), fingerprint("POST", f"aft/{direction}/{asset}",
                                                                           [card, amount])))

    def wallet(self, player: int) -> int:
        return self.balance(accounts.player_cashable(player))

    def money(self, player: int, asset: str = "S001") -> tuple[int, int, int]:
        """(wallet, in transit, machine credits on the floor)."""
        try:
            transit = self.balance(accounts.aft_in_transit(asset))
        except NotFound:
            transit = 0
        return self.wallet(player), transit, self.balance(accounts.machine_credits(asset))


def test_aft_to_the_machine_holds_the_money_then_settles_it_once():
    f = Floor()
    p = f.player()
    once = f.request(p.card_number, 30_000, k="a")
    t = once.result
    assert (t.state, t.direction, t.amount, t.moved, len(t.transaction_id)) == ("pending", "to_machine", 30_000, 0, 20)
    assert t.transaction_id.isascii() and t.transaction_id.isprintable() and t.hold_entry is not None
    assert f.money(p.player) == (70_000, 30_000, 0)
    again = f.request(p.card_number, 30_000, k="a")  # the same Idempotency-Key: the first answer, nothing moves
    assert again.replayed and again.result == t and f.money(p.player) == (70_000, 30_000, 0)

    sent = f.aft.next_for_machine("S001")
    assert (sent.transfer, sent.transaction_id, sent.direction, sent.amount_won) == (
        t.transfer, t.transaction_id, "to_machine", 30_000)
    assert not sent.resend
    again = f.aft.next_for_machine("S001")  # sent, unresolved: handed again, the host asks the machine first
    assert (again.transfer, again.transaction_id, again.resend) == (sent.transfer, sent.transaction_id, True)
    assert f.aft.get(S001, "S001", t.transfer).state == "sent"

    done = f.aft.settle("S001", t.transaction_id, 0x00, 30_000)
    assert (done.state, done.moved_won, done.changed) == ("completed", 30_000, True)
    assert f.money(p.player) == (70_000, 0, 30_000)
    repeat = f.aft.settle("S001", t.transaction_id, 0x00, 30_000)  # a repeated result changes nothing
    assert (repeat.state, repeat.changed) == ("completed", False) and f.money(p.player) == (70_000, 0, 30_000)
    assert f.aft.next_for_machine("S001") is None
    assert f.aft.meters("S001") == {"aft_in": 30_000, "aft_in_count": 1, "aft_out": 0, "aft_out_count": 0}
    view = f.aft.get(HOST, "S001", t.transfer)
    assert (view.state, view.moved, view.status_code, view.wallet["cashable"]) == ("completed", 30_000, 0, 70_000)
    # the completed AFT is a cashless transfer of the day: it counts towards the daily limit
    assert [r.via for r in f.repos["players"].records["transfer"]] == ["sas_aft"]


def test_a_failed_aft_to_the_machine_returns_the_hold_and_one_to_the_wallet_moves_nothing():
    f = Floor()
    p = f.player()
    t = f.request(p.card_number, 20_000).result
    f.aft.next_for_machine("S001")
    failed = f.aft.settle("S001", t.transaction_id, 0x84, 0, "exceeds the credit limit")
    assert (failed.state, failed.moved_won) == ("failed", 0)
    assert f.money(p.player) == (100_000, 0, 0)
    assert f.aft.get(S001, "S001", t.transfer).reason == "exceeds the credit limit"

    # credits on the machine (an AFT in), then an AFT out the machine refuses, then one it pays in part
    t = f.request(p.card_number, 50_000).result
    f.aft.next_for_machine("S001")
    f.aft.settle("S001", t.transaction_id, 0x00, 50_000)
    out = f.request(p.card_number, 40_000, "to_wallet").result
    assert out.hold_entry is None and f.money(p.player) == (50_000, 0, 50_000)
    with pytest.raises(InsufficientFunds):  # ₩40,000 of the ₩50,000 already asked for
        f.request(p.card_number, 20_000, "to_wallet")
    assert f.aft.next_for_machine("S001").direction == "to_wallet"
    f.aft.settle("S001", out.transaction_id, 0x83, 0)
    assert f.money(p.player) == (50_000, 0, 50_000)
    out = f.request(p.card_number, 40_000, "to_wallet").result
    f.aft.next_for_machine("S001")
    part = f.aft.settle("S001", out.transaction_id, 0x01, 30_000)  # partial success: what the machine moved
    assert (part.state, part.moved_won) == ("completed", 30_000)
    assert f.money(p.player) == (80_000, 0, 20_000)
    assert f.aft.meters("S001") == {"aft_in": 50_000, "aft_in_count": 1, "aft_out": 30_000, "aft_out_count": 1}


def test_an_aft_out_above_the_floors_credits_waits_and_changes_nothing():
    f = Floor()
    p = f.player()
    t = f.request(p.card_number, 10_000).result
    f.aft.next_for_machine("S001")
    f.aft.settle("S001", t.transaction_id, 0x00, 10_000)
    out = f.request(p.card_number, 10_000, "to_wallet").result
    f.aft.next_for_machine("S001")
    with pytest.raises(InsufficientFunds):  # the machine says it moved more than the floor holds (a game on its way)
        f.aft.settle("S001", out.transaction_id, 0x00, 15_000)
    assert f.aft.get(S001, "S001", out.transfer).state == "sent" and f.money(p.player) == (90_000, 0, 10_000)


def test_a_transfer_never_sent_expires_and_returns_its_hold_a_sent_one_waits():
    f = Floor()
    p = f.player()
    first = f.request(p.card_number, 10_000).result
    second = f.request(p.card_number, 20_000).result
    assert f.aft.next_for_machine("S001").transfer == first.transfer  # one at a time: the oldest
    f.ctx.clock.at += timedelta(seconds=61)
    assert f.aft.get(S001, "S001", second.transfer).state == "expired"
    assert f.aft.get(S001, "S001", first.transfer).state == "sent"
    assert f.money(p.player) == (90_000, 10_000, 0)  # the expired hold is back; the sent one still held
    late = f.aft.settle("S001", second.transaction_id, 0x00, 20_000)  # a result for an expired one: nothing
    assert (late.state, late.changed) == ("expired", False) and f.money(p.player) == (90_000, 10_000, 0)
    assert f.aft.next_for_machine("S001").transfer == first.transfer
    # beat's sweep: a machine no host polls
    third = f.request(p.card_number, 5_000).result
    assert f.aft.expire_stale() == {"expired": 0}
    f.ctx.clock.at += timedelta(seconds=61)
    assert f.aft.expire_stale() == {"expired": 1} and f.aft.expire_stale() == {"expired": 0}
    assert f.repos["players"].aft(third.transfer).state == "expired" and f.money(p.player) == (90_000, 10_000, 0)


def test_refusals_move_nothing():
    f = Floor(sas_machine(), sas_machine("S002", outcome_source="server"), sas_machine("S003", sas_meter_base=None))
    p = f.player()
    before = f.money(p.player)
    with pytest.raises(InsufficientFunds) as e:
        f.request(p.card_number, 200_000)
    assert (e.value.status, e.value.code, e.value.field) == (409, "insufficient-funds", "amount")
    for bad in (-1_000, 0, 1_000.5, "1000", True, None):
        with pytest.raises(ValidationFailed) as e:
            f.request(p.card_number, bad)
        assert (e.value.status, e.value.field) == (422, "amount")
    with pytest.raises(ValidationFailed) as e:
        f.request(p.card_number, 1_050)  # not whole ₩100 credits
    assert e.value.field == "amount"
    with pytest.raises(InsufficientFunds):  # no credits on the machine to take back
        f.request(p.card_number, 1_000, "to_wallet")
    with pytest.raises(NotFound) as e:
        f.request(p.card_number, 1_000, asset="S999")
    assert e.value.status == 404
    for asset, why in (("S002", "not_machine_mode"), ("S003", "not_enrolled")):
        with pytest.raises(MachineNotSas) as e:
            f.request(p.card_number, 1_000, asset=asset)
        assert (e.value.status, e.value.code, e.value.extra["reason"]) == (409, "machine-not-sas", why)
    f.sessions.card_out(S001, "S001", OnceKey(S001.id, "out", fingerprint("out")))
    with pytest.raises(NotCarded):
        f.request(p.card_number, 1_000)
    assert f.money(p.player) == before and f.repos["players"].records["aft"] == []
    # the floor's own cashless transfer is refused on a SAS machine (its credit meter is the machine's)
    f.sessions.card_in(S001, "S001", p.card_number, OnceKey(S001.id, "in2", fingerprint("in2")))
    with pytest.raises(SasMachineUsesAft):
        f.sessions.to_machine(S001, "S001", p.card_number, PIN, 1_000, "cashable",
                              OnceKey(S001.id, "rest", fingerprint("rest")))
    assert f.money(p.player) == before


def test_pending_aft_counts_towards_the_daily_limit():
    f = Floor()
    f.repos["players"].program_row.daily_to_machine_max_won = 50_000
    p = f.player()
    f.request(p.card_number, 30_000)
    with pytest.raises(Exception) as e:
        f.request(p.card_number, 30_000)
    assert (e.value.status, e.value.field) == (409, "amount")
    assert f.money(p.player) == (70_000, 30_000, 0)


def test_a_transfer_not_sent_before_the_player_carded_out_fails_and_returns_its_hold():
    f = Floor()
    p = f.player()
    t = f.request(p.card_number, 10_000).result
    f.sessions.card_out(S001, "S001", OnceKey(S001.id, "out", fingerprint("out")))
    assert f.aft.next_for_machine("S001") is None
    view = f.aft.get(S001, "S001", t.transfer)
    assert (view.state, view.reason) == ("failed", "the player carded out before it was sent")
    assert f.money(p.player) == (100_000, 0, 0)


SUPERVISOR = Principal("staff", "sup1", "supervisor")


def _resolve(f: Floor, transfer: int, outcome: str, reason: str = "AFT log on the machine", moved=None,
             k: str | None = None, who: Principal = SUPERVISOR):
    return f.aft.resolve(who, "S001", transfer, outcome, moved, reason,
                         OnceKey(who.id, k or f.k(), fingerprint("POST", f"aft/S001/{transfer}/resolve",
                                                                 [outcome, moved, reason])))


def test_a_supervisor_resolves_a_sent_transfer_the_host_never_reported_once():
    """The host died with a transfer sent and never came back: after the timeout a supervisor settles it from the
    machine's AFT log. Failed: the hold returns; completed: the credits reach the machine; each exactly once, in the
    audit log, and the host's late answer changes nothing."""
    f = Floor()
    p = f.player()
    t = f.request(p.card_number, 30_000).result
    f.aft.next_for_machine("S001")  # sent: the host asked the machine, then went away
    with pytest.raises(AftInProgress):  # the host may still answer
        _resolve(f, t.transfer, "failed")
    assert f.money(p.player) == (70_000, 30_000, 0)
    f.ctx.clock.at += timedelta(seconds=61)
    for who in (Principal("staff", "att1", "attendant"), CASHIER, S001):  # a supervisor's decision only
        with pytest.raises(Forbidden):
            _resolve(f, t.transfer, "failed", who=who)
    with pytest.raises(ValidationFailed) as e:
        _resolve(f, t.transfer, "failed", reason=" ")
    assert e.value.field == "reason"
    with pytest.raises(ValidationFailed) as e:
        _resolve(f, t.transfer, "completed", moved=40_000)  # more than the transfer
    assert e.value.field == "moved"
    assert f.money(p.player) == (70_000, 30_000, 0)

    done = _resolve(f, t.transfer, "failed", k="r1")
    assert (done.result.state, done.result.moved) == ("failed", 0) and not done.replayed
    assert done.result.reason.startswith("resolved by sup1: AFT log on the machine")
    assert f.money(p.player) == (100_000, 0, 0)  # the hold is back in the wallet
    again = _resolve(f, t.transfer, "failed", k="r1")  # the same key: the first answer, nothing moves
    assert again.replayed and f.money(p.player) == (100_000, 0, 0)
    with pytest.raises(AftNotOpen):  # final: never resolved twice
        _resolve(f, t.transfer, "completed")
    late = f.aft.settle("S001", t.transaction_id, 0x00, 30_000)  # the host came back after all
    assert (late.state, late.changed) == ("failed", False) and f.money(p.player) == (100_000, 0, 0)
    rows = [r for r in f.repos["audit_log"].rows if r["action"] == "aft.resolve"]
    assert [(r["actor"], r["subject"], r["after"]) for r in rows] == [
        ("sup1", f"aft:{t.transfer}", {"state": "failed", "moved": 0})]

    second = f.request(p.card_number, 20_000).result
    f.aft.next_for_machine("S001")
    f.ctx.clock.at += timedelta(seconds=61)
    ok = _resolve(f, second.transfer, "completed", moved=15_000).result  # the machine's log shows ₩15,000 taken
    assert (ok.state, ok.moved) == ("completed", 15_000)
    assert f.money(p.player) == (85_000, 0, 15_000)  # the part not taken returned
    assert f.aft.meters("S001")["aft_in"] == 15_000


def test_only_a_sent_transfer_is_resolved():
    f = Floor()
    p = f.player()
    t = f.request(p.card_number, 10_000).result  # pending: it expires by itself
    f.ctx.clock.at += timedelta(seconds=61)
    with pytest.raises(AftNotOpen):
        _resolve(f, t.transfer, "failed")
    with pytest.raises(NotFound):
        _resolve(f, 999_999, "failed")
