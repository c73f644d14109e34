"""Players end to end through the HTTP API on a migrated SQLite database: enrolment, cards and
PINs, sessions and points, cashless transfers, redemptions, table ratings, expiry, the player API."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from fractions import Fraction

import pytest

from slotsys.floor.domain.parsheet import par_sheet
from slotsys.floor.games import load_game


class FakeClock:
    def __init__(self, t: datetime) -> None:
        self.t = t

    def now(self) -> datetime:
        return self.t

    def advance(self, **kw) -> None:
        self.t += timedelta(**kw)


@pytest.fixture
def clock(app):
    c = FakeClock(datetime.now(timezone.utc).replace(microsecond=0))
    app.extensions["slotsys"].ctx.clock = c
    return c


# ------------------------------------------------------------------ helpers
def enrol(api, name="Choi Yu-na", pin="2468") -> dict:
    r = api.as_staff("host", "POST", "/api/v1/players", {"name": name, "pin": pin})
    assert r.status_code == 201, r.json
    return r.json


def view(api, pid) -> dict:
    r = api.as_staff("host", "GET", f"/api/v1/players/{pid}", key=None)
    assert r.status_code == 200, r.json
    return r.json


def card_in(api, asset, card):
    return api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/card-in", {"card_number": card})


def card_out(api, asset):
    return api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/card-out")


def spin(api, asset, **bet):
    r = api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/spin", bet)
    assert r.status_code == 200, r.json
    return r.json


def meters(api, asset) -> dict:
    return api.as_machine(asset, "GET", f"/api/v1/machines/{asset}/meters", key=None).json


def deposit(api, pid, amount):
    r = api.as_staff("cashier", "POST", f"/api/v1/players/{pid}/deposit", {"amount": amount})
    assert r.status_code == 200, r.json
    return r.json


def transfer(api, asset, card, amount, pin="2468", direction="to-machine", kind="cashable", key="auto"):
    return api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/wallet/{direction}",
                          {"card_number": card, "pin": pin, "amount": amount, "kind": kind}, key=key)


def rate(api, pid, **over):
    body = {"table": "BJ-01", "area": "PIT", "game": "blackjack", "average_bet": 50_000, "minutes": 120,
            "decisions_per_hour": 60, "house_edge_ppm": 5_000, **over}
    r = api.as_staff("pit", "POST", f"/api/v1/players/{pid}/ratings", body)
    assert r.status_code == 201, r.json
    return r.json


def state(api) -> tuple:
    """Everything a refusal must leave unchanged: journal entries, balances, points, sessions, redemptions."""
    a = api.audit()
    assert a["balanced"], a
    svc = api.app.extensions["slotsys"]
    from sqlalchemy import func, select

    from slotsys.kernel.adapters.db import Account
    from slotsys.players.adapters.tables import Player, PlayerSession, PointRedemption, WalletTransfer

    with svc.uow(readonly=True) as uow:
        s = uow.session
        return (
            a["journal_entries"],
            tuple(s.execute(select(Account.code, Account.balance).order_by(Account.id)).all()),
            tuple(s.execute(select(Player.id, Player.points_milli, Player.points_held_milli).order_by(Player.id)).all()),
            tuple(s.execute(select(PlayerSession.id, PlayerSession.status).order_by(PlayerSession.id)).all()),
            s.scalar(select(func.count(PointRedemption.id))),
            s.scalar(select(func.count(WalletTransfer.id))),
        )


# ------------------------------------------------------------------ sessions and points
def test_carded_play_earns_points_and_the_session_meters_are_the_machine_meters_change(api):
    p = enrol(api)
    pid, card = p["player"], p["card_number"]
    assert p["tier"]["code"] == "CLASSIC" and p["points"]["balance"] == 0 and p["wallet"] == {"cashable": 0, "promo": 0}
    asset = "M001"  # MASS, ₩100, line game: the default rule, 1 point per ₩1,000 of coin-in
    api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/bill-in", {"amount": 50_000})
    spin(api, asset, lines=10, multiplier=1)  # uncarded: no points
    before = meters(api, asset)["meters"]
    r = card_in(api, asset, card)
    assert r.status_code == 201, r.json
    assert r.json["player"]["name"] == "Choi Yu-na" and r.json["session"]["rule"] == {
        "scope": "default", "basis": "coin_in", "won_per_point": 1000}
    games = [spin(api, asset, lines=20, multiplier=3) for _ in range(3)] + [spin(api, asset, lines=1, multiplier=1)]
    assert [g["player"]["points_earned_milli"] for g in games] == [6_000, 6_000, 6_000, 100]
    assert games[-1]["player"]["points"] == 18 and games[-1]["player"]["progress_milli"] == 100
    r = card_out(api, asset)
    assert r.status_code == 200, r.json
    s = r.json["session"]
    after = meters(api, asset)["meters"]
    change = {k: after[k] - before[k] for k in ("coin_in", "coin_out", "jackpot_out", "games_played", "games_won")}
    assert s["meters"] == change
    assert s["meters"]["coin_in"] == 18_100 and s["meters"]["games_played"] == 4
    assert s["meters"]["coin_out"] == sum(g["total_win"] for g in games)
    assert s["points_earned_milli"] == 18_100 and s["status"] == "closed" and s["time_played_seconds"] >= 0
    assert s["player_net_won"] == s["meters"]["coin_out"] + s["meters"]["jackpot_out"] - 18_100
    # the theoretical win is coin-in × (1 − RTP) of each game's bet option, rounded down to the milli-won
    rtp = Fraction(par_sheet(load_game("dragon_pearl_50")).option(lines=20).rtp)
    assert s["theo_milli"] == 3 * int(6_000 * (1 - rtp) * 1000) + int(100 * (1 - rtp) * 1000)
    # uncarded again: the next game earns nothing
    assert spin(api, asset, lines=1, multiplier=1)["player"] is None
    v = view(api, pid)
    assert (v["points"]["balance"], v["points"]["progress_milli"]) == (18, 100) and v["session"] is None
    pts = api.as_staff("host", "GET", f"/api/v1/players/{pid}/points", key=None).json
    assert [e["kind"] for e in pts["entries"]] == ["play"] * 4 and sum(e["points_milli"] for e in pts["entries"]) == 18_100
    hist = api.as_staff("auditor", "GET", f"/api/v1/players/{pid}/sessions", key=None).json
    assert hist["sessions"][0]["session"] == s["session"] and hist["sessions"][0]["meters"] == change
    assert card_out(api, asset).status_code == 409
    audit = api.audit()
    assert audit["balanced"] and audit["players"]["agrees"], audit["players"]


def test_fractional_progress_carries_between_sessions(api):
    p = enrol(api)
    api.as_machine("M003", "POST", "/api/v1/machines/M003/bill-in", {"amount": 10_000})
    for _ in range(3):  # three sessions of one ₩300 game (0.3 point each)
        assert card_in(api, "M003", p["card_number"]).status_code == 201
        spin(api, "M003", lines=1, multiplier=3)
        assert card_out(api, "M003").status_code == 200
    assert card_in(api, "M003", p["card_number"]).status_code == 201
    g = spin(api, "M003", lines=1, multiplier=1)
    assert (g["player"]["points"], g["player"]["progress_milli"]) == (1, 0)  # 0.3 × 3 + 0.1 = 1 point


def test_vip_zone_earns_on_theoretical_win(api):
    p = enrol(api)
    deposit(api, p["player"], 1_000_000)
    asset = "V001"  # VIP ₩1,000 line game: 1 point per ₩50 of theoretical win
    assert card_in(api, asset, p["card_number"]).json["session"]["rule"]["basis"] == "theo"
    assert transfer(api, asset, p["card_number"], 200_000).status_code == 200
    rtp = Fraction(par_sheet(load_game("dragon_pearl_50")).option(lines=20).rtp)
    theo_milli = int(20_000 * (1 - rtp) * 1000)  # ₩20,000 bet
    g = [spin(api, asset, lines=20, multiplier=1) for _ in range(3)]
    assert [x["player"]["points_earned_milli"] for x in g] == [theo_milli // 50] * 3
    s = card_out(api, asset).json["session"]
    assert s["theo_milli"] == 3 * theo_milli and s["theo_win"] == 3 * theo_milli // 1000


def test_machine_rule_and_tier_multiplier_and_tier_up(api):
    lee = api.creds["players"][1]  # GOLD, ×1.25
    assert lee["tier"] == "GOLD"
    api.as_machine("M020", "POST", "/api/v1/machines/M020/bill-in", {"amount": 50_000})
    assert card_in(api, "M020", lee["card_number"]).json["session"]["rule"] == {
        "scope": "machine", "basis": "coin_in", "won_per_point": 500}
    g = spin(api, "M020", reels=5, multiplier=1)  # 25 credits × ₩100 = ₩2,500 → 5 points × 1.25
    assert g["bet"]["won"] == 2_500 and g["player"]["points_earned_milli"] == 6_250
    card_out(api, "M020")
    # a CLASSIC player who reaches GOLD's threshold earns ×1.25 from the next game
    r = api.as_staff("admin", "PUT", "/api/v1/players/config/tiers/GOLD",
                     {"name": "Gold", "threshold_points": 10, "multiplier_permille": 1250}, key=None)
    assert r.status_code == 200, r.json
    p = enrol(api)
    api.as_machine("M005", "POST", "/api/v1/machines/M005/bill-in", {"amount": 50_000})
    card_in(api, "M005", p["card_number"])
    g1 = spin(api, "M005", lines=50, multiplier=2)  # ₩10,000: 10 points, reaches 10
    assert g1["player"]["points_earned_milli"] == 10_000 and g1["player"]["tier"] == "GOLD"
    g2 = spin(api, "M005", lines=10, multiplier=1)  # ₩1,000 × 1.25
    assert g2["player"]["points_earned_milli"] == 1_250
    assert view(api, p["player"])["tier_points"] == 11  # tier progress counts base points


def test_card_in_refusals_change_nothing(api):
    a, b = enrol(api, "A Player"), enrol(api, "B Player")
    assert card_in(api, "M006", a["card_number"]).status_code == 201
    before = state(api)
    r = card_in(api, "M006", b["card_number"])
    assert r.status_code == 409 and r.json["type"].endswith("machine-carded-by-another-player")
    assert r.json["field"] == "card_number" and r.headers["Content-Type"] == "application/problem+json"
    r = card_in(api, "M007", a["card_number"])
    assert r.status_code == 409 and r.json["type"].endswith("player-carded-elsewhere") and r.json["machine"] == "M006"
    r = card_in(api, "M007", "9410 0000 0000 0000")
    assert r.status_code in (404, 422) and r.json["field"] == "card_number"
    assert card_in(api, "M007", "12345").status_code == 422
    assert state(api) == before
    # the same card again in the same machine: the open session, nothing new
    again = card_in(api, "M006", a["card_number"])
    assert again.status_code == 201 and again.json["already_carded"] is True
    # a lost card is refused everywhere
    r = api.as_staff("host", "POST", f"/api/v1/players/cards/{b['card_number']}/lost", key=None)
    assert r.status_code == 200 and r.json["status"] == "lost"
    before = state(api)
    r = card_in(api, "M007", b["card_number"])
    assert r.status_code == 403 and r.json["type"].endswith("card-lost")
    r = transfer(api, "M006", b["card_number"], 1_000)
    assert r.status_code == 403 and r.json["type"].endswith("card-lost")
    assert state(api) == before
    # a replacement card works and the lost one stays lost
    r = api.as_staff("host", "POST", f"/api/v1/players/{b['player']}/cards", {"pin": "1357"})
    assert r.status_code == 201, r.json
    assert {c["status"] for c in r.json["cards"]} == {"lost", "active"}
    assert card_in(api, "M007", r.json["card_number"]).status_code == 201


def test_wrong_pin_is_throttled_after_three_and_blocks_the_card_at_five(api, clock):
    p = enrol(api, pin="2468")
    deposit(api, p["player"], 100_000)
    card = p["card_number"]
    card_in(api, "M008", card)
    before = state(api)
    codes = []
    for _ in range(3):
        r = transfer(api, "M008", card, 10_000, pin="1111")
        codes.append((r.status_code, r.json["type"].rsplit("/", 1)[1], r.json.get("attempts_left")))
    assert codes == [(403, "pin-incorrect", 4), (403, "pin-incorrect", 3), (403, "pin-incorrect", 2)]
    r = transfer(api, "M008", card, 10_000, pin="2468")  # even the right PIN waits
    assert r.status_code == 429 and r.json["type"].endswith("pin-throttled") and 0 < r.json["retry_after"] <= 60
    clock.advance(seconds=61)
    r = transfer(api, "M008", card, 10_000, pin="1111")
    assert r.status_code == 403 and r.json["attempts_left"] == 1
    clock.advance(seconds=61)
    r = transfer(api, "M008", card, 10_000, pin="1111")
    assert r.status_code == 403 and r.json["type"].endswith("card-blocked") and r.json["field"] == "pin"
    r = transfer(api, "M008", card, 10_000, pin="2468")
    assert r.status_code == 403 and r.json["type"].endswith("card-blocked")
    assert state(api)[:3] == before[:3]  # no money and no points moved
    svc = api.app.extensions["slotsys"]
    with svc.uow(readonly=True) as uow:
        kinds = [e.kind for e in reversed(uow.players.card_events(p["player"]))]
    assert kinds == ["issued"] + ["pin_failed"] * 3 + ["pin_throttled", "pin_failed", "pin_failed", "blocked"]
    assert view(api, p["player"])["cards"][0]["status"] == "blocked"
    r = api.as_staff("host", "POST", f"/api/v1/players/cards/{card}/unblock", key=None)
    assert r.status_code == 200 and r.json["status"] == "active" and r.json["pin_failures"] == 0
    assert transfer(api, "M008", card, 10_000, pin="2468").status_code == 200


# ------------------------------------------------------------------ cashless transfers
def test_cashless_transfers_limits_carding_and_cash_out_to_wallet(api):
    p, other = enrol(api), enrol(api, "Other Player", pin="9753")
    pid, card = p["player"], p["card_number"]
    deposit(api, pid, 10_000_000)
    asset = "M009"
    r = transfer(api, asset, card, 10_000)
    assert r.status_code == 409 and r.json["type"].endswith("no-carded-player")  # card in first
    card_in(api, asset, card)
    r = api.as_staff("admin", "PATCH", "/api/v1/players/config/program",
                     {"per_transfer_max_won": 3_000_000, "daily_to_machine_max_won": 5_000_000}, key=None)
    assert r.status_code == 200 and r.json["per_transfer_max_won"] == 3_000_000
    r = transfer(api, asset, card, 2_000_000, key="t-1")
    assert r.status_code == 200, r.json
    assert r.json["credits"] == 2_000_000 and r.json["wallet"]["cashable"] == 8_000_000
    replay = transfer(api, asset, card, 2_000_000, key="t-1")
    assert replay.json == r.json and replay.headers.get("Idempotent-Replayed") == "true"
    before = state(api)
    r = transfer(api, asset, card, 3_000_001)
    assert r.status_code == 422 and r.json["type"].endswith("transfer-above-limit") and r.json["field"] == "amount"
    r = transfer(api, asset, card, 3_000_000)  # exactly the per-transfer limit, and the day reaches ₩5,000,000
    assert r.status_code == 200, r.json
    before = state(api)
    r = transfer(api, asset, card, 1_000)
    assert r.status_code == 409 and r.json["type"].endswith("daily-limit-reached") and r.json["remaining"] == 0
    r = transfer(api, asset, other["card_number"], 1_000, pin="9753")
    assert r.status_code == 409 and r.json["type"].endswith("machine-carded-by-another-player")
    r = transfer(api, asset, card, 6_000_000, direction="to-wallet")
    assert r.status_code == 422  # above the per-transfer limit
    assert state(api) == before
    r = transfer(api, asset, card, 2_000_000, direction="to-wallet")
    assert r.status_code == 200 and r.json["credits"] == 3_000_000 and r.json["wallet"]["cashable"] == 7_000_000
    r = transfer(api, asset, card, 3_000_000, direction="to-wallet", kind="promo")
    assert r.status_code == 409 and r.json["type"].endswith("insufficient-funds")  # no promo credits on the machine
    # cash out to the wallet instead of a ticket: every credit, one entry (within the to-wallet limits)
    spin(api, asset, lines=50, multiplier=10)
    api.as_staff("admin", "PATCH", "/api/v1/players/config/program", {"per_transfer_max_won": 50_000_000}, key=None)
    credits = meters(api, asset)["credits"]
    r = api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/wallet/cash-out", {"card_number": card, "pin": "2468"})
    assert r.status_code == 200, r.json
    assert r.json["cashable"] == credits and r.json["credits"] == 0
    assert r.json["wallet"]["cashable"] == 7_000_000 + credits
    assert meters(api, asset)["meters"]["tickets_out"] == 0
    r = api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/wallet/cash-out", {"card_number": card, "pin": "2468"})
    assert r.status_code == 409
    hist = api.as_staff("host", "GET", f"/api/v1/players/{pid}/sessions", key=None).json
    assert [(t["direction"], t["via"]) for t in hist["transfers"]] == [
        ("to_wallet", "cash_out"), ("to_wallet", "aft"), ("to_machine", "aft"), ("to_machine", "aft")]
    st = api.as_staff("host", "GET", f"/api/v1/players/{pid}/statement?wallet=cashable", key=None).json
    assert st["balance"] == 7_000_000 + credits
    assert [e["kind"] for e in st["entries"]][:2] == ["wallet.to_wallet", "wallet.to_wallet"]
    assert api.audit()["balanced"]


def test_wallet_to_machine_refuses_more_than_the_wallet_holds(api):
    p = enrol(api)
    deposit(api, p["player"], 5_000)
    card_in(api, "M010", p["card_number"])
    before = state(api)
    r = transfer(api, "M010", p["card_number"], 5_001)
    assert r.status_code == 409 and r.json["type"].endswith("insufficient-funds") and r.json["field"] == "amount"
    assert state(api) == before


def test_deposit_and_withdrawal_go_through_the_cashier_drawer(api):
    p = enrol(api)
    drawer0 = api.as_staff("cashier", "GET", "/api/v1/cage/sessions/current", key=None).json["expected_cash"]
    deposit(api, p["player"], 300_000)
    body = {"card_number": p["card_number"], "pin": "2468", "amount": 120_000}
    r = api.as_staff("cashier", "POST", f"/api/v1/players/{p['player']}/withdraw", body)
    assert r.status_code == 200 and r.json["wallet"]["cashable"] == 180_000
    drawer1 = api.as_staff("cashier", "GET", "/api/v1/cage/sessions/current", key=None).json["expected_cash"]
    assert drawer1 - drawer0 == 180_000
    before = state(api)
    r = api.as_staff("cashier", "POST", f"/api/v1/players/{p['player']}/withdraw", {**body, "amount": 180_001})
    assert r.status_code == 409 and r.json["field"] == "amount"
    r = api.as_staff("cashier", "POST", f"/api/v1/players/{p['player']}/withdraw", {**body, "pin": "0000"})
    assert r.status_code == 403 and r.json["type"].endswith("pin-incorrect")
    assert state(api)[:3] == before[:3]


# ------------------------------------------------------------------ redemptions
def test_redemption_at_a_machine_is_two_phase(api, clock):
    p = enrol(api)
    pid, card = p["player"], p["card_number"]
    assert rate(api, pid)["points_earned_milli"] == 600_000  # 600 points from the pit
    asset = "M011"
    card_in(api, asset, card)
    body = {"card_number": card, "pin": "2468", "points": 100, "kind": "promo"}
    r = api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/redemptions", body)
    assert r.status_code == 201, r.json
    red = r.json
    assert red["status"] == "pending" and red["amount"] == 1_000 and red["points_available"] == 500
    v = view(api, pid)["points"]
    assert (v["balance"], v["held"], v["available"]) == (600, 100, 500)  # held, not debited
    assert meters(api, asset)["credits"] == 0
    r = api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/redemptions/{red['redemption']}/ack")
    assert r.status_code == 200, r.json
    assert r.json["status"] == "completed" and r.json["points_balance"] == 500 and r.json["promo_credits"] == 1_000
    again = api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/redemptions/{red['redemption']}/ack")
    assert again.status_code == 409 and again.json["type"].endswith("redemption-not-pending")
    before = state(api)
    r = api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/redemptions", {**body, "points": 501})
    assert r.status_code == 409 and r.json["type"].endswith("insufficient-points") and r.json["available"] == 500
    assert state(api) == before
    # the machine could not take the credits: cancelled, nothing debited
    r = api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/redemptions", {**body, "kind": "cash", "points": 200})
    rid = r.json["redemption"]
    assert api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/redemptions/{rid}/cancel").json["status"] == "cancelled"
    assert view(api, pid)["points"]["available"] == 500
    # not acknowledged within the hold time: refused, nothing debited, the hold released
    r = api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/redemptions", {**body, "kind": "cash", "points": 300})
    rid = r.json["redemption"]
    clock.advance(seconds=61)
    r = api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/redemptions/{rid}/ack")
    assert r.status_code == 409 and r.json["redemption_status"] == "expired"
    assert view(api, pid)["points"]["available"] == 500
    # cash credits at ₩5 a point
    r = api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/redemptions", {**body, "kind": "cash", "points": 500})
    assert r.status_code == 201, r.json  # the expired hold no longer counts
    r = api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/redemptions/{r.json['redemption']}/ack")
    assert r.json["credits"] == 2_500 and r.json["points_balance"] == 0
    audit = api.audit()
    assert audit["balanced"] and audit["players"]["agrees"], audit["players"]
    pts = api.as_staff("auditor", "GET", f"/api/v1/players/{pid}/points", key=None).json
    assert sum(e["points_milli"] for e in pts["entries"]) == 0
    assert [e["kind"] for e in pts["entries"]] == ["redeem", "redeem", "rating"]


def test_redemption_to_the_wallet(api):
    p = enrol(api)
    pid = p["player"]
    rate(api, pid)
    body = {"card_number": p["card_number"], "pin": "2468", "points": 100, "kind": "promo"}
    r = api.as_staff("host", "POST", f"/api/v1/players/{pid}/redeem", body)
    assert r.status_code == 201 and r.json["amount"] == 1_000 and r.json["wallet"] == {"cashable": 0, "promo": 1_000}
    r = api.as_staff("cashier", "POST", f"/api/v1/players/{pid}/redeem", {**body, "kind": "cash", "points": 300})
    assert r.status_code == 201 and r.json["wallet"] == {"cashable": 1_500, "promo": 1_000}
    before = state(api)
    r = api.as_staff("host", "POST", f"/api/v1/players/{pid}/redeem", {**body, "points": 201})
    assert r.status_code == 409 and r.json["type"].endswith("insufficient-points")
    r = api.as_staff("pit", "POST", f"/api/v1/players/{pid}/redeem", body)
    assert r.status_code == 403
    assert state(api) == before
    st = api.as_staff("host", "GET", f"/api/v1/players/{pid}/statement?wallet=promo", key=None).json
    assert st["balance"] == 1_000 and st["entries"][0]["kind"] == "loyalty.redeem"
    # promotional wallet credits go to the machine's promo meter
    card_in(api, "M012", p["card_number"])
    r = transfer(api, "M012", p["card_number"], 1_000, kind="promo")
    assert r.status_code == 200 and r.json["promo_credits"] == 1_000 and r.json["wallet"]["promo"] == 0


# ------------------------------------------------------------------ table ratings
def test_table_ratings_through_the_same_rules(api):
    p = enrol(api)
    r = rate(api, p["player"])  # PIT: 1 point per ₩50 of theo
    assert (r["handle_won"], r["theo_win"], r["points_earned_milli"]) == (6_000_000, 30_000, 600_000)
    assert r["rule"] == {"scope": "zone", "key": "PIT", "basis": "theo", "won_per_point": 50}
    r = rate(api, p["player"], area="SALON", minutes=7, average_bet=10_000, decisions_per_hour=50,
             house_edge_ppm=14_000)  # no rule for SALON: the default, 1 point per ₩1,000 of handle
    assert r["rule"]["scope"] == "default" and r["handle_won"] == 58_333 and r["points_earned_milli"] == 58_333
    assert r["theo_milli"] == 816_666  # 58,333.33 × 1.4%
    hist = api.as_staff("host", "GET", f"/api/v1/players/{p['player']}/sessions", key=None).json
    assert len(hist["table_ratings"]) == 2
    before = state(api)
    r = api.as_staff("pit", "POST", f"/api/v1/players/{p['player']}/ratings",
                     {"table": "BJ-01", "area": "PIT", "game": "blackjack", "average_bet": 50_000, "minutes": 0,
                      "decisions_per_hour": 60, "house_edge_ppm": 5_000})
    assert r.status_code == 422 and r.json["field"] == "minutes"
    r = api.as_staff("host", "POST", f"/api/v1/players/{p['player']}/ratings",
                     {"table": "BJ-01", "area": "PIT", "game": "blackjack", "average_bet": 50_000, "minutes": 10,
                      "decisions_per_hour": 60, "house_edge_ppm": 5_000})
    assert r.status_code == 403
    assert state(api) == before


# ------------------------------------------------------------------ expiry
def test_points_expire_after_the_idle_period(api, clock):
    r = api.as_staff("admin", "PATCH", "/api/v1/players/config/program", {"points_idle_days": 30}, key=None)
    assert r.status_code == 200
    a, b = enrol(api, "Idle"), enrol(api, "Active")
    rate(api, a["player"])
    rate(api, b["player"])
    clock.advance(days=29)
    api._tokens.clear()  # staff tokens expire with the clock
    rate(api, b["player"], minutes=1)  # b stays active
    clock.advance(days=2)
    api._tokens.clear()
    v = view(api, a["player"])["points"]
    assert v["expired"] is True and v["balance"] == 0
    r = api.as_staff("admin", "POST", "/api/v1/players/expire-points", key=None)
    assert r.status_code == 200 and r.json == {"players": 1, "points_expired_milli": 600_000}
    pts = api.as_staff("host", "GET", f"/api/v1/players/{a['player']}/points", key=None).json
    assert pts["balance_milli"] == 0 and pts["entries"][0]["kind"] == "expire"
    assert view(api, b["player"])["points"]["balance"] == 605
    assert api.audit()["players"]["agrees"]


# ------------------------------------------------------------------ the player API
def test_player_reads_their_own_account_with_card_and_pin(api):
    p, q = enrol(api), enrol(api, "Someone Else", pin="1357")
    r = api.client.post("/api/v1/players/login", json={"card_number": p["card_number"], "pin": "2468"})
    assert r.status_code == 200, r.json
    h = {"Authorization": f"Bearer {r.json['token']}"}
    for path in ("", "/sessions", "/points", "/statement?wallet=promo"):
        assert api.client.get(f"/api/v1/players/{p['player']}{path}", headers=h).status_code == 200, path
    assert api.client.get(f"/api/v1/players/{q['player']}", headers=h).status_code == 403
    assert api.client.post("/api/v1/players", json={"name": "x", "pin": "1234"}, headers=h).status_code == 401
    r = api.client.post("/api/v1/players/login", json={"card_number": p["card_number"], "pin": "0000"})
    assert r.status_code == 403 and r.json["type"].endswith("pin-incorrect")
    # the player reports their own card lost; they cannot do it for someone else's
    assert api.client.post(f"/api/v1/players/cards/{q['card_number']}/lost", headers=h).status_code == 403
    r = api.client.post(f"/api/v1/players/cards/{p['card_number']}/lost", headers=h)
    assert r.status_code == 200 and r.json["status"] == "lost"
    found = api.as_staff("cashier", "GET", f"/api/v1/players?card_number={q['card_number']}", key=None)
    assert found.status_code == 200 and found.json["player"] == q["player"]
    assert api.as_staff("attendant", "GET", f"/api/v1/players/{q['player']}", key=None).status_code == 403


def test_attendant_ends_an_abandoned_session(api):
    p = enrol(api)
    card_in(api, "M013", p["card_number"])
    s = api.as_staff("attendant", "GET", "/api/v1/machines/M013/session", key=None).json
    assert s["player"]["player"] == p["player"] and s["session"]["status"] == "open"
    r = api.as_staff("attendant", "POST", "/api/v1/machines/M013/card-out")
    assert r.status_code == 200 and r.json["session"]["ended_by"] == "staff:attendant"
    assert api.as_machine("M013", "GET", "/api/v1/machines/M013/session", key=None).json["session"] is None
    assert api.as_machine("M014", "POST", "/api/v1/machines/M013/card-out").status_code == 403


# ------------------------------------------------------------------ the wallet API for table games
def test_wallet_service_moves_money_inside_the_callers_unit_of_work(api):
    from slotsys.kernel import ledger as L
    from slotsys.kernel.errors import InsufficientFunds
    from slotsys.players.services.wallet import WalletService

    p = enrol(api)
    deposit(api, p["player"], 100_000)
    svc = api.app.extensions["slotsys"]
    tray = "table:BJ-01:tray"
    with svc.uow() as uow:
        uow.ledger.ensure_account(tray, L.AccountType.ASSET)
        WalletService.debit_for_table(uow, p["player"], tray, 50_000, refs={"round": 1})
        WalletService.credit_from_table(uow, p["player"], tray, 75_000, refs={"round": 1})
        uow.commit()
    with svc.uow() as uow:
        assert WalletService.balances(uow, p["player"]) == {"cashable": 125_000, "promo": 0}
        with pytest.raises(InsufficientFunds) as e:
            WalletService.debit_for_table(uow, p["player"], tray, 125_001)
        assert e.value.field == "amount"
    st = api.as_staff("host", "GET", f"/api/v1/players/{p['player']}/statement", key=None).json
    assert [(e["kind"], e["amount"]) for e in st["entries"][:2]] == [("table.credit", 75_000), ("table.debit", -50_000)]
    assert api.audit()["balanced"]


# ------------------------------------------------------------------ bad input
@pytest.mark.parametrize("who,method,path,body,status,field", [
    ("host", "POST", "/api/v1/players", {"name": "", "pin": "2468"}, 422, "name"),
    ("host", "POST", "/api/v1/players", {"name": "X", "pin": "24"}, 422, "pin"),
    ("host", "POST", "/api/v1/players", {"name": "X", "pin": 2468}, 422, "pin"),
    ("cashier", "POST", "/api/v1/players", {"name": "X", "pin": "2468"}, 403, None),
    ("cashier", "POST", "/api/v1/players/{pid}/deposit", {"amount": 0}, 422, "amount"),
    ("cashier", "POST", "/api/v1/players/{pid}/deposit", {"amount": 1.5}, 422, "amount"),
    ("cashier", "POST", "/api/v1/players/999999/deposit", {"amount": 1_000}, 404, "player_id"),
    ("host", "POST", "/api/v1/players/{pid}/redeem", {"card_number": "{card}", "pin": "2468", "points": -1, "kind": "promo"}, 422, "points"),
    ("host", "POST", "/api/v1/players/{pid}/redeem", {"card_number": "{card}", "pin": "2468", "points": 1, "kind": "gold"}, 422, "kind"),
    ("host", "POST", "/api/v1/players/{pid}/redeem", {"card_number": "{card}", "pin": "2468", "points": 1, "kind": "promo"}, 409, "points"),
    ("machine", "POST", "/api/v1/machines/M015/wallet/to-machine", {"card_number": "{card}", "pin": "2468", "amount": -5}, 422, "amount"),
    ("machine", "POST", "/api/v1/machines/M015/wallet/to-machine", {"card_number": "{card}", "pin": "2468", "amount": 1000, "kind": "x"}, 422, "kind"),
    ("machine", "POST", "/api/v1/machines/M015/wallet/to-machine", {"card_number": "123", "pin": "2468", "amount": 1000}, 422, "card_number"),
    ("machine", "POST", "/api/v1/machines/M015/wallet/to-machine", {"card_number": "{card}", "pin": "2468", "amount": 10**13}, 422, "amount"),
    ("machine", "POST", "/api/v1/machines/M015/redemptions", {"card_number": "{card}", "pin": "2468", "points": 0, "kind": "promo"}, 422, "points"),
    ("machine", "POST", "/api/v1/machines/M015/aft/to-machine", {"card_number": "{card}", "pin": "2468", "amount": -5}, 422, "amount"),
    ("machine", "POST", "/api/v1/machines/M015/aft/to-machine", {"card_number": "{card}", "pin": "2468", "amount": "1000"}, 422, "amount"),
    ("machine", "POST", "/api/v1/machines/M015/aft/to-wallet", {"card_number": "{card}", "pin": "2468", "amount": 10.5}, 422, "amount"),
    ("machine", "POST", "/api/v1/machines/M015/aft/to-machine", {"card_number": "{card}", "pin": "2468", "amount": 1000}, 409, "asset"),  # not SAS
    ("machine", "POST", "/api/v1/machines/M016/aft/to-machine", {"card_number": "{card}", "pin": "2468", "amount": 1000}, 403, None),
    ("host", "GET", "/api/v1/machines/NOPE/aft/1", None, 404, "asset"),
    ("host", "GET", "/api/v1/machines/M015/aft/999999", None, 404, "transfer"),
    ("machine", "POST", "/api/v1/machines/M015/card-in", {"card_number": "{card}", "extra": 1}, 422, "extra"),
    ("machine", "POST", "/api/v1/machines/M016/card-in", {"card_number": "{card}"}, 403, None),  # M015's key
    ("admin", "PATCH", "/api/v1/players/config/program", {"per_transfer_max_won": 0}, 422, "per_transfer_max_won"),
    ("admin", "PUT", "/api/v1/players/config/rules", {"scope": "zone", "key": "", "basis": "theo", "won_per_point": 5}, 422, "key"),
    ("host", "PUT", "/api/v1/players/config/rules", {"scope": "default", "basis": "theo", "won_per_point": 5}, 403, None),
])
def test_bad_player_input_is_refused_and_changes_nothing(api, who, method, path, body, status, field):
    p = enrol(api)
    card_in(api, "M015", p["card_number"])
    before = state(api)
    path = path.replace("{pid}", str(p["player"]))
    body = None if body is None else {k: (v.replace("{card}", p["card_number"]) if isinstance(v, str) else v)
                                      for k, v in body.items()}
    if who == "machine":
        r = api.as_machine("M015", method, path, body)
    else:
        r = api.as_staff(who, method, path, body)
    assert r.status_code == status, r.json
    assert r.headers["Content-Type"] == "application/problem+json"
    if field:
        assert r.json["field"] == field, r.json
    assert state(api) == before


def test_openapi_lists_the_player_endpoints(api):
    paths = api.client.get("/openapi.json").json["paths"]
    for p in ("/api/v1/players", "/api/v1/players/{player_id}", "/api/v1/machines/{asset}/card-in",
              "/api/v1/machines/{asset}/wallet/to-machine", "/api/v1/machines/{asset}/redemptions/{redemption_id}/ack"):
        assert p in paths, p


def test_the_wallet_statement_pages_by_cursor(api):
    """?limit= pages of the statement, newest first, each answering the next page's ?cursor= until the last
    (next_cursor null): together exactly the unpaged statement; a cursor not made by the API is a 422."""
    p = enrol(api)
    for amount in (1_000, 2_000, 3_000, 4_000, 5_000):
        deposit(api, p["player"], amount)
    url = f"/api/v1/players/{p['player']}/statement"
    whole = api.as_staff("host", "GET", url, key=None).json
    assert [e["amount"] for e in whole["entries"]] == [5_000, 4_000, 3_000, 2_000, 1_000]
    assert whole["next_cursor"] is None
    pages, cursor = [], None
    while True:
        r = api.as_staff("host", "GET", f"{url}?limit=2" + (f"&cursor={cursor}" if cursor else ""), key=None)
        assert r.status_code == 200, r.json
        pages.append([e["amount"] for e in r.json["entries"]])
        cursor = r.json["next_cursor"]
        if cursor is None:
            break
    assert pages == [[5_000, 4_000], [3_000, 2_000], [1_000]]
    deposit(api, p["player"], 6_000)  # a newer entry never shifts the older pages
    first = api.as_staff("host", "GET", f"{url}?limit=2", key=None).json
    older = api.as_staff("host", "GET", f"{url}?limit=2&cursor={first['next_cursor']}", key=None).json
    assert [e["amount"] for e in older["entries"]] == [4_000, 3_000]
    for bad in ("abc", "1", "1-", "-1-2", "9" * 20 + "-1"):
        r = api.as_staff("host", "GET", f"{url}?cursor={bad}", key=None)
        assert r.status_code == 422 and r.json["field"] == "cursor", (bad, r.json)
