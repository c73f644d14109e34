"""Players on the real PostgreSQL: a hypothesis state machine plays random sequences of card-in,
bill-in, spins, cashless transfers (with the odd wrong PIN), cash-outs to the wallet and to
tickets, point redemptions (two-phase at a machine, and to the wallet) and card-outs, and after
every step checks the books and the players against an independent model:

* the ledger sums to zero, every cached balance equals its postings, no non-negative account
  is negative (the audit endpoint), and each wallet holds what the model says;
* each player's points equal the sum of their accruals minus their redemptions (the model adds
  the points each game must earn, computed here from the bet, the rule and the game's RTP),
  and never go negative or below what pending redemptions hold;
* each session's meters equal the change of its machine's meters since card-in, and its
  coin-in and games equal the bets the model placed.
"""

from __future__ import annotations

import uuid
from datetime import datetime, timezone
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule, run_state_machine_as_test
from sqlalchemy import func, select

from slotsys.players.adapters.tables import Player, PlayerSession, PointsJournal
from slotsys.kernel import accounts
from slotsys.kernel.gaming_day import GamingDay
from slotsys.floor.domain.parsheet import par_sheet
from slotsys.floor.games import load_game
from tests.conftest import Api
from slotsys.kernel.accounts import machine_restricted as machine_promo

pytestmark = pytest.mark.integration

PIN = "2468"
# asset → (accrual rule, bets as (body, won)); M001/M002 earn 1 point per ₩1,000 of coin-in,
# V001 (VIP) 1 point per ₩50 of theoretical win.
MACHINES = {
    "M001": ("coin_in", [({"lines": 10, "multiplier": 1}, 1_000), ({"lines": 20, "multiplier": 3}, 6_000)]),
    "M002": ("coin_in", [({"reels": 5, "multiplier": 1}, 2_500), ({"reels": 3, "multiplier": 2}, 1_400)]),
    "V001": ("theo", [({"lines": 1, "multiplier": 1}, 1_000), ({"lines": 10, "multiplier": 2}, 20_000)]),
}
PER_TRANSFER, DAILY_IN, DAILY_OUT = 300_000, 800_000, 1_000_000
PROMO_RATE, CASH_RATE = 10, 5
METERS = ("coin_in", "coin_out", "jackpot_out", "games_played", "games_won")


def expected_points_milli(asset: str, bet: dict, won: int) -> int:
    """What one game must earn a CLASSIC (×1) player, computed independently of the service."""
    basis, _ = MACHINES[asset]
    if basis == "coin_in":
        return won  # ₩1,000 a point = 1 milli-point a won
    rtp = Fraction(par_sheet(load_game("dragon_pearl_50")).option(lines=bet["lines"]).rtp)
    return int(won * (1 - rtp) * 1000) // 50


def test_random_play_keeps_the_books_and_the_players_straight(pg_app):
    api = Api(pg_app)
    svc = pg_app.extensions["slotsys"]
    # the daily limits count in the casino's gaming day: one that starts 12 hours from now has no boundary during
    # the test (the service is given it, as the composition root gives it the configured one)
    svc.sessions.gaming_day = GamingDay((datetime.now(timezone.utc).hour + 12) % 24, "UTC")
    r = api.as_staff("admin", "PATCH", "/api/v1/players/config/program", {
        "per_transfer_max_won": PER_TRANSFER, "daily_to_machine_max_won": DAILY_IN,
        "daily_to_wallet_max_won": DAILY_OUT, "redemption_hold_seconds": 3_600}, key=None)
    assert r.status_code == 200, r.json

    def post_machine(asset, path, body=None):
        return api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/{path}", body)

    def machine_state(asset) -> dict:
        """Credits and promotional credits on the machine now (the ledger's balances)."""
        with svc.uow(readonly=True) as uow:
            return {"credits": uow.ledger.balance(accounts.machine_credits(asset)),
                    "promo_credits": uow.ledger.balance(machine_promo(asset))}

    class Floor(RuleBasedStateMachine):
        def __init__(self) -> None:
            super().__init__()
            self.players = []
            for _ in range(2):
                r = api.as_staff("host", "POST", "/api/v1/players", {"name": f"Player {uuid.uuid4().hex[:6]}", "pin": PIN})
                assert r.status_code == 201, r.json
                pid = r.json["player"]
                assert api.as_staff("cashier", "POST", f"/api/v1/players/{pid}/deposit", {"amount": 1_000_000}).status_code == 200
                self.players.append({"pid": pid, "card": r.json["card_number"], "cashable": 1_000_000, "promo": 0,
                                     "points": 0, "held": 0, "to_machine": 0, "to_wallet": 0, "failures": 0,
                                     "accrued": 0, "redeemed": 0})
            for asset in MACHINES:  # every example starts from empty machines (the database is shared)
                m = machine_state(asset)
                if m["credits"] + m["promo_credits"]:
                    assert post_machine(asset, "cash-out").status_code == 201
            self.carded: dict[str, int] = {}
            self.sessions: dict[str, dict] = {}  # asset → the model's count of the open session's play
            self.pending: dict[int, tuple[str, int, int]] = {}  # redemption → (asset, player index, points)
            self.locked: set[str] = set()

        # ---------------------------------------------------------------- helpers
        def expect(self, r, status, type_=None):
            assert r.status_code == status, (status, r.status_code, r.json)
            if type_:
                assert r.json["type"].endswith(type_), r.json

        def carded_check(self, i, asset):
            """The refusal a machine-side request of player i at asset must get, or None."""
            cur = self.carded.get(asset)
            if cur is None:
                return 409, "no-carded-player"
            if cur != i:
                return 409, "machine-carded-by-another-player"
            return None

        def pin_for(self, p, wrong: bool) -> str:
            if wrong and p["failures"] < 2:  # never throttled or blocked here (covered in e2e)
                return "1111"
            return PIN

        # ---------------------------------------------------------------- rules
        @rule(i=st.integers(0, 1), asset=st.sampled_from(sorted(MACHINES)))
        def card_in(self, i, asset):
            if asset in self.locked:
                return
            r = post_machine(asset, "card-in", {"card_number": self.players[i]["card"]})
            cur = self.carded.get(asset)
            if cur is not None and cur != i:
                self.expect(r, 409, "machine-carded-by-another-player")
            elif cur == i:
                self.expect(r, 201)
                assert r.json["already_carded"] is True
            elif i in self.carded.values():
                self.expect(r, 409, "player-carded-elsewhere")
            else:
                self.expect(r, 201)
                self.carded[asset] = i
                self.sessions[asset] = {"coin_in": 0, "games_played": 0, "points": 0, "session": r.json["session"]["session"]}

        @rule(asset=st.sampled_from(sorted(MACHINES)))
        def card_out(self, asset):
            r = post_machine(asset, "card-out")
            if asset not in self.carded:
                self.expect(r, 409, "no-carded-player")
                return
            self.expect(r, 200)
            s, model = r.json["session"], self.sessions.pop(asset)
            del self.carded[asset]
            assert s["session"] == model["session"] and s["status"] == "closed"
            assert s["meters"]["coin_in"] == model["coin_in"] and s["meters"]["games_played"] == model["games_played"]
            assert s["points_earned_milli"] == model["points"]

        @rule(asset=st.sampled_from(sorted(MACHINES)), note=st.sampled_from([10_000, 50_000]))
        def bill_in(self, asset, note):
            if asset in self.locked:
                return
            self.expect(post_machine(asset, "bill-in", {"amount": note}), 200)

        @rule(asset=st.sampled_from(sorted(MACHINES)), which=st.integers(0, 1))
        def spin(self, asset, which):
            if asset in self.locked:
                return
            bet, won = MACHINES[asset][1][which]
            credits = machine_state(asset)["credits"]
            r = post_machine(asset, "spin", bet)
            if credits < won:
                self.expect(r, 409, "insufficient-funds")
                return
            self.expect(r, 200)
            g = r.json
            assert g["bet"]["won"] == won
            assert g["credits"] == g["credits_before"] - won + g["total_win"] + sum(j["amount"] for j in g["jackpots"])
            if g.get("award_guard"):
                self.locked.add(asset)
            if asset in self.carded:
                p = self.players[self.carded[asset]]
                earned = expected_points_milli(asset, bet, won)
                assert g["player"]["player"] == p["pid"] and g["player"]["points_earned_milli"] == earned
                p["points"] += earned
                p["accrued"] += earned
                s = self.sessions[asset]
                s["coin_in"] += won
                s["games_played"] += 1
                s["points"] += earned
            else:
                assert g["player"] is None

        @rule(i=st.integers(0, 1), asset=st.sampled_from(sorted(MACHINES)),
              amount=st.sampled_from([50_000, 150_000, 300_000, 350_000]), wrong=st.booleans())
        def wallet_to_machine(self, i, asset, amount, wrong):
            if asset in self.locked:
                return
            p = self.players[i]
            pin = self.pin_for(p, wrong)
            r = post_machine(asset, "wallet/to-machine", {"card_number": p["card"], "pin": pin, "amount": amount})
            if pin != PIN:
                self.expect(r, 403, "pin-incorrect")
                p["failures"] += 1
                return
            p["failures"] = 0
            refusal = self.carded_check(i, asset)
            if refusal:
                self.expect(r, *refusal)
            elif amount > PER_TRANSFER:
                self.expect(r, 422, "transfer-above-limit")
            elif p["to_machine"] + amount > DAILY_IN:
                self.expect(r, 409, "daily-limit-reached")
            elif p["cashable"] < amount:
                self.expect(r, 409, "insufficient-funds")
            else:
                self.expect(r, 200)
                p["cashable"] -= amount
                p["to_machine"] += amount
                assert r.json["wallet"]["cashable"] == p["cashable"]

        @rule(i=st.integers(0, 1), asset=st.sampled_from(sorted(MACHINES)),
              amount=st.sampled_from([5_000, 40_000, 250_000]))
        def machine_to_wallet(self, i, asset, amount):
            if asset in self.locked:
                return
            p = self.players[i]
            credits = machine_state(asset)["credits"]
            r = post_machine(asset, "wallet/to-wallet", {"card_number": p["card"], "pin": PIN, "amount": amount})
            p["failures"] = 0
            refusal = self.carded_check(i, asset)
            if refusal:
                self.expect(r, *refusal)
            elif p["to_wallet"] + amount > DAILY_OUT:
                self.expect(r, 409, "daily-limit-reached")
            elif credits < amount:
                self.expect(r, 409, "insufficient-funds")
            else:
                self.expect(r, 200)
                p["cashable"] += amount
                p["to_wallet"] += amount

        @rule(i=st.integers(0, 1), asset=st.sampled_from(sorted(MACHINES)))
        def cash_out_to_wallet(self, i, asset):
            if asset in self.locked:
                return
            p = self.players[i]
            m = machine_state(asset)
            credits, promo = m["credits"], m["promo_credits"]
            r = post_machine(asset, "wallet/cash-out", {"card_number": p["card"], "pin": PIN})
            p["failures"] = 0
            refusal = self.carded_check(i, asset)
            total = credits + promo
            if refusal:
                self.expect(r, *refusal)
            elif total == 0:
                self.expect(r, 409, "insufficient-funds")
            elif total > PER_TRANSFER:
                self.expect(r, 422, "transfer-above-limit")
            elif p["to_wallet"] + total > DAILY_OUT:
                self.expect(r, 409, "daily-limit-reached")
            else:
                self.expect(r, 200)
                assert (r.json["cashable"], r.json["promo"], r.json["credits"]) == (credits, promo, 0)
                p["cashable"] += credits
                p["promo"] += promo
                p["to_wallet"] += total

        @rule(asset=st.sampled_from(sorted(MACHINES)))
        def cash_out_ticket(self, asset):
            if asset in self.locked:
                return
            m = machine_state(asset)
            r = post_machine(asset, "cash-out")
            if m["credits"] + m["promo_credits"] == 0:
                self.expect(r, 409)
            else:
                self.expect(r, 201)

        @rule(i=st.integers(0, 1), asset=st.sampled_from(sorted(MACHINES)), points=st.sampled_from([1, 5, 20]),
              kind=st.sampled_from(["promo", "cash"]))
        def redeem_at_machine(self, i, asset, points, kind):
            if asset in self.locked:
                return
            p = self.players[i]
            r = post_machine(asset, "redemptions", {"card_number": p["card"], "pin": PIN, "points": points, "kind": kind})
            p["failures"] = 0
            refusal = self.carded_check(i, asset)
            if refusal:
                self.expect(r, *refusal)
            elif (p["points"] - p["held"]) // 1000 < points:
                self.expect(r, 409, "insufficient-points")
            else:
                self.expect(r, 201)
                assert r.json["amount"] == points * (PROMO_RATE if kind == "promo" else CASH_RATE)
                p["held"] += points * 1000
                self.pending[r.json["redemption"]] = (asset, i, points)

        @precondition(lambda self: self.pending)
        @rule(data=st.data(), ack=st.booleans())
        def settle_redemption(self, data, ack):
            rid = data.draw(st.sampled_from(sorted(self.pending)))
            asset, i, points = self.pending[rid]
            if ack and asset in self.locked:
                return
            r = post_machine(asset, f"redemptions/{rid}/{'ack' if ack else 'cancel'}")
            self.expect(r, 200)
            del self.pending[rid]
            p = self.players[i]
            p["held"] -= points * 1000
            if ack:
                p["points"] -= points * 1000
                p["redeemed"] += points * 1000

        @rule(i=st.integers(0, 1), points=st.sampled_from([1, 3]), kind=st.sampled_from(["promo", "cash"]))
        def redeem_to_wallet(self, i, points, kind):
            p = self.players[i]
            r = api.as_staff("host", "POST", f"/api/v1/players/{p['pid']}/redeem",
                             {"card_number": p["card"], "pin": PIN, "points": points, "kind": kind})
            p["failures"] = 0
            if (p["points"] - p["held"]) // 1000 < points:
                self.expect(r, 409, "insufficient-points")
                return
            self.expect(r, 201)
            p["points"] -= points * 1000
            p["redeemed"] += points * 1000
            p["promo" if kind == "promo" else "cashable"] += points * (PROMO_RATE if kind == "promo" else CASH_RATE)

        # ---------------------------------------------------------------- invariants
        @invariant()
        def books_and_players_agree(self):
            a = api.audit()
            assert a["sum_of_balances"] == 0 and a["sum_of_postings"] == 0, a
            assert not a["negative_balances"] and not a["cached_balance_mismatches"] and not a["unbalanced_entries"], a
            assert a["players"]["agrees"], a["players"]
            assert a["balanced"], ({k: a[k] for k in ("tickets",)}, [j for j in a["jackpots"] if not j["agrees"]])
            with svc.uow(readonly=True) as uow:
                s = uow.session
                for p in self.players:
                    row = s.get(Player, p["pid"])
                    assert (row.points_milli, row.points_held_milli) == (p["points"], p["held"])
                    assert 0 <= row.points_held_milli <= row.points_milli
                    by_kind = dict(s.execute(select(PointsJournal.kind, func.sum(PointsJournal.points_milli))
                                             .where(PointsJournal.player_id == p["pid"]).group_by(PointsJournal.kind)).all())
                    accrued = int(by_kind.get("play", 0)) + int(by_kind.get("rating", 0))
                    redeemed = -int(by_kind.get("redeem", 0))
                    assert (accrued, redeemed) == (p["accrued"], p["redeemed"])
                    assert row.points_milli == accrued - redeemed
                    assert uow.ledger.balance(accounts.player_cashable(p["pid"])) == p["cashable"]
                    assert uow.ledger.balance(accounts.player_promo(p["pid"])) == p["promo"]
                for asset, model in self.sessions.items():
                    sess = s.get(PlayerSession, model["session"])
                    m = uow.machines.get(asset)
                    change = {k: getattr(m, k) - getattr(sess, f"start_{k}") for k in METERS}
                    assert {k: getattr(sess, k) for k in METERS if k != "jackpot_out"} == {
                        k: v for k, v in change.items() if k != "jackpot_out"}
                    assert sess.jackpot_out <= change["jackpot_out"]
                    assert (sess.coin_in, sess.games_played, sess.points_milli) == (
                        model["coin_in"], model["games_played"], model["points"])

        def teardown(self):
            for rid, (asset, _, _) in list(self.pending.items()):
                post_machine(asset, f"redemptions/{rid}/cancel")
            for asset in list(self.carded):
                post_machine(asset, "card-out")

    run_state_machine_as_test(Floor, settings=settings(
        max_examples=25, stateful_step_count=20, deadline=None, database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much]))
    final = api.audit()
    assert final["balanced"] and final["players"]["agrees"]
