"""Table games end to end through HTTP on SQLite: one round per game in input mode (wallet, ledger,
record, replay), the CSPRNG path, baccarat shoe and roadmaps, blackjack decisions, void rounds, and
refusals that change nothing."""

from __future__ import annotations

import uuid

import pytest

FUND = 1_000_000


# ------------------------------------------------------------------ helpers
def enrol(api, name="Kim Table", pin="2468", fund=FUND) -> dict:
    r = api.as_staff("host", "POST", "/api/v1/players", {"name": name, "pin": pin})
    assert r.status_code == 201, r.json
    p = r.json
    if fund:
        r = api.as_staff("cashier", "POST", f"/api/v1/players/{p['player']}/deposit", {"amount": fund})
        assert r.status_code == 200, r.json
    return p


def cashable(api, pid) -> int:
    r = api.as_staff("host", "GET", f"/api/v1/players/{pid}", key=None)
    assert r.status_code == 200, r.json
    return r.json["wallet"]["cashable"]


def sit(api, code, seat, pid):
    r = api.as_staff("pit", "POST", f"/api/v1/tables/{code}/seats", {"seat": seat, "player_id": pid}, key=None)
    assert r.status_code == 201, r.json
    return r.json


def open_round(api, code) -> int:
    r = api.as_staff("pit", "POST", f"/api/v1/tables/{code}/rounds", key=None)
    assert r.status_code == 201, r.json
    return r.json["round"]


def bet(api, code, n, pid, spot, amount, box=None, key="auto"):
    body = {"spot": spot, "amount": amount, "player_id": pid}
    if box is not None:
        body["box"] = box
    return api.as_staff("pit", "POST", f"/api/v1/tables/{code}/rounds/{n}/bets", body, key=key)


def ok_bet(api, code, n, pid, spot, amount, box=None):
    r = bet(api, code, n, pid, spot, amount, box)
    assert r.status_code == 201, r.json
    return r.json


def no_more_bets(api, code, n):
    r = api.as_staff("pit", "POST", f"/api/v1/tables/{code}/rounds/{n}/no-more-bets", key=None)
    assert r.status_code == 200, r.json


def settle(api, code, n, body=None, key="auto"):
    return api.as_staff("pit", "POST", f"/api/v1/tables/{code}/rounds/{n}/settle", body or {}, key=key)


def ok_settle(api, code, n, body=None):
    r = settle(api, code, n, body)
    assert r.status_code == 200, r.json
    return r.json


def table(api, code) -> dict:
    r = api.as_staff("pit", "GET", f"/api/v1/tables/{code}", key=None)
    assert r.status_code == 200, r.json
    return r.json


def replay(api, code, n) -> dict:
    r = api.as_staff("auditor", "GET", f"/api/v1/tables/{code}/rounds/{n}/replay", key=None)
    assert r.status_code == 200, r.json
    return r.json


def assert_books(api, code):
    audit = api.audit()
    assert audit["balanced"], audit
    assert table(api, code)["bets_in_play"] == 0


def check_round(api, code, n, settled):
    rec = api.as_staff("auditor", "GET", f"/api/v1/tables/{code}/rounds/{n}", key=None).json
    assert rec["status"] == settled["status"]
    assert rec["outcome"] == settled["outcome"] and rec["settlements"] == settled["settlements"]
    rp = replay(api, code, n)
    assert rp["matches"] and rp["house_net"] == rec["house_net"]
    return rec


# ------------------------------------------------------------------ one round per game, input mode
def test_roulette_round_input_mode(api):
    a, b = enrol(api, "Roul A"), enrol(api, "Roul B")
    sit(api, "RL-01", "1", a['player'])
    sit(api, "RL-01", "2", b['player'])
    n = open_round(api, "RL-01")
    ok_bet(api, "RL-01", n, a['player'], "straight:17", 10_000)   # wins 35:1
    ok_bet(api, "RL-01", n, a['player'], "red", 20_000)           # 17 is black: loses
    ok_bet(api, "RL-01", n, b['player'], "black", 50_000)         # wins 1:1
    ok_bet(api, "RL-01", n, b['player'], "dozen:3", 10_000)       # loses
    assert cashable(api, a['player']) == FUND - 30_000
    assert table(api, "RL-01")["bets_in_play"] == 90_000
    no_more_bets(api, "RL-01", n)
    s = ok_settle(api, "RL-01", n, {"number": 17})
    assert s["mode"] == "input" and s["outcome"]["number"] == 17 and s["status"] == "settled"
    assert s["payouts"] == {str(a['player']): 360_000, str(b['player']): 100_000}
    assert s["house_net"] == 90_000 - 460_000
    assert cashable(api, a['player']) == FUND - 30_000 + 360_000
    assert cashable(api, b['player']) == FUND - 60_000 + 100_000
    check_round(api, "RL-01", n, s)
    assert_books(api, "RL-01")


def test_sic_bo_round_input_mode(api):
    a = enrol(api, "Dice A")
    sit(api, "SB-01", "1", a['player'])
    n = open_round(api, "SB-01")
    ok_bet(api, "SB-01", n, a['player'], "big", 10_000)       # 4+5+6 = 15 big: 1:1
    ok_bet(api, "SB-01", n, a['player'], "total:15", 5_000)   # Macau 14:1
    ok_bet(api, "SB-01", n, a['player'], "single:1", 5_000)   # loses
    no_more_bets(api, "SB-01", n)
    s = ok_settle(api, "SB-01", n, {"dice": [4, 5, 6]})
    assert s["outcome"]["dice"] == [4, 5, 6]
    assert s["payouts"] == {str(a['player']): 20_000 + 75_000}
    assert cashable(api, a['player']) == FUND - 20_000 + 95_000
    check_round(api, "SB-01", n, s)
    assert_books(api, "SB-01")


def test_big_wheel_round_input_mode(api):
    a = enrol(api, "Wheel A")
    sit(api, "BW-01", "1", a['player'])
    n = open_round(api, "BW-01")
    ok_bet(api, "BW-01", n, a['player'], "joker", 5_000)   # 40:1
    ok_bet(api, "BW-01", n, a['player'], "1", 10_000)      # loses
    no_more_bets(api, "BW-01", n)
    s = ok_settle(api, "BW-01", n, {"symbol": "joker"})
    assert s["outcome"]["symbol"] == "joker"
    assert s["payouts"] == {str(a['player']): 205_000}
    assert cashable(api, a['player']) == FUND - 15_000 + 205_000
    check_round(api, "BW-01", n, s)
    assert_books(api, "BW-01")


def test_baccarat_round_input_mode_commission_and_roadmaps(api):
    a, b = enrol(api, "Bac A"), enrol(api, "Bac B")
    sit(api, "BAC-01", "1", a['player'])
    sit(api, "BAC-01", "2", b['player'])
    n = open_round(api, "BAC-01")
    ok_bet(api, "BAC-01", n, a['player'], "banker", 15_000)   # banker wins: 5% = 750 → ₩800 (unit ₩100)
    ok_bet(api, "BAC-01", n, b['player'], "player", 20_000)   # loses
    ok_bet(api, "BAC-01", n, b['player'], "banker_pair", 1_000)  # banker 9-9: pair 11:1
    no_more_bets(api, "BAC-01", n)
    # P: 2 3 (5) draws 4 → 9? no: P1 B1 P2 B2 = 2C 9H 3D 9S → banker 8 natural; player 5 stands? natural ends it
    s = ok_settle(api, "BAC-01", n, {"cards": ["2C", "9H", "3D", "9S"]})
    assert s["outcome"]["winner"] == "banker" and s["outcome"]["banker_pair"] is True
    assert s["payouts"] == {str(a['player']): 15_000 + 15_000 - 800, str(b['player']): 12_000}
    assert cashable(api, a['player']) == FUND + 14_200
    assert cashable(api, b['player']) == FUND - 21_000 + 12_000
    check_round(api, "BAC-01", n, s)
    assert_books(api, "BAC-01")
    road = api.as_staff("pit", "GET", "/api/v1/tables/BAC-01/roadmaps", key=None).json
    assert road["coups"] == 1 and road["counts"]["banker"] == 1 and road["counts"]["banker_pair"] == 1
    assert road["bead_plate"][0]["result"] in ("banker", "B")


def test_blackjack_round_input_mode_with_decisions(api):
    a, b = enrol(api, "BJ A"), enrol(api, "BJ B")
    sit(api, "BJ-01", "1", a['player'])
    sit(api, "BJ-01", "2", b['player'])
    n = open_round(api, "BJ-01")
    ok_bet(api, "BJ-01", n, a['player'], "main", 20_000, box="1")
    ok_bet(api, "BJ-01", n, b['player'], "main", 10_000, box="2")
    no_more_bets(api, "BJ-01", n)
    # deal: box1 6H, box2 TC, dealer 9D, box1 5S (11), box2 7C (17)
    # box1 doubles (+₩20,000) and draws TD → 21; box2 stands; dealer second card 8H → 17
    cards = ["6H", "TC", "9D", "5S", "7C", "TD", "8H"]
    s = ok_settle(api, "BJ-01", n, {"cards": cards, "decisions": [
        {"box": "1", "action": "double", "amount": 20_000}, {"box": "2", "action": "stand"}]})
    assert s["outcome"]["dealer"] == ["9D", "8H"]
    assert any(x["spot"].startswith("double") for x in s["bets"])
    assert s["payouts"] == {str(a['player']): 80_000, str(b['player']): 10_000}  # 17 v 17 pushes
    assert cashable(api, a['player']) == FUND + 40_000
    assert cashable(api, b['player']) == FUND
    check_round(api, "BJ-01", n, s)
    assert_books(api, "BJ-01")


# ------------------------------------------------------------------ CSPRNG path, shoe, void, idempotency
def test_csprng_rounds_and_baccarat_shoe(api):
    a = enrol(api, "Rng A")
    for code in ("RL-01", "SB-01", "BW-01", "BAC-01"):
        sit(api, code, "1", a['player'])
    shoe = api.as_staff("pit", "POST", "/api/v1/tables/BAC-01/shoe", key=None)
    assert shoe.status_code == 201 and shoe.json["shoe_no"] == 1
    left = shoe.json["cards_left"]
    spots = {"RL-01": "red", "SB-01": "small", "BW-01": "1", "BAC-01": "player"}
    for code, spot in spots.items():
        for _ in range(3):
            n = open_round(api, code)
            ok_bet(api, code, n, a['player'], spot, 10_000)
            no_more_bets(api, code, n)
            s = ok_settle(api, code, n)
            assert s["mode"] == "rng" and s["status"] == "settled"
            check_round(api, code, n, s)
            assert_books(api, code)
    t = table(api, "BAC-01")
    assert t["shoe_no"] == 1 and t["shoe"]["cards_left"] <= left - 12  # three coups of 4 to 6 cards each
    road = api.as_staff("pit", "GET", "/api/v1/tables/BAC-01/roadmaps", key=None).json
    assert road["coups"] == 3 and road["shoe_no"] == 1


def test_void_round_returns_every_bet_and_idempotent_settle(api):
    a = enrol(api, "Void A")
    sit(api, "RL-01", "1", a['player'])
    n = open_round(api, "RL-01")
    ok_bet(api, "RL-01", n, a['player'], "straight:0", 3_000)
    ok_bet(api, "RL-01", n, a['player'], "even", 5_000)
    no_more_bets(api, "RL-01", n)
    key = uuid.uuid4().hex
    r1 = settle(api, "RL-01", n, {"void": True, "reason": "ball off the wheel"}, key=key)
    r2 = settle(api, "RL-01", n, {"void": True, "reason": "ball off the wheel"}, key=key)
    assert r1.status_code == r2.status_code == 200 and r2.headers.get("Idempotent-Replayed") == "true"
    assert r1.json["status"] == "void" and r1.json["house_net"] == 0
    assert cashable(api, a['player']) == FUND
    again = settle(api, "RL-01", n, {"number": 0})
    assert again.status_code == 409
    check_round(api, "RL-01", n, r1.json)
    assert_books(api, "RL-01")


def test_bet_replay_with_same_key_debits_once(api):
    a = enrol(api, "Idem A")
    sit(api, "SB-01", "1", a['player'])
    n = open_round(api, "SB-01")
    key = uuid.uuid4().hex
    r1 = bet(api, "SB-01", n, a['player'], "big", 10_000, key=key)
    r2 = bet(api, "SB-01", n, a['player'], "big", 10_000, key=key)
    assert r1.status_code == r2.status_code == 201 and r2.headers.get("Idempotent-Replayed") == "true"
    assert cashable(api, a['player']) == FUND - 10_000
    assert bet(api, "SB-01", n, a['player'], "big", 10_000, key=None).status_code == 422  # key required


def test_player_bets_with_own_token(api, app):
    creds = app.config["DEMO_CREDENTIALS"]["players"][0]
    r = api.client.post("/api/v1/players/login", json={"card_number": creds["card_number"], "pin": creds["pin"]})
    assert r.status_code == 200, r.json
    token, pid = r.json["token"], r.json['player']
    before = cashable(api, pid)
    sit(api, "BW-01", "3", pid)
    n = open_round(api, "BW-01")
    h = {"Authorization": f"Bearer {token}", "Idempotency-Key": uuid.uuid4().hex}
    r = api.client.post(f"/api/v1/tables/BW-01/rounds/{n}/bets", json={"spot": "2", "amount": 5_000}, headers=h)
    assert r.status_code == 201, r.json
    assert cashable(api, pid) == before - 5_000
    h["Idempotency-Key"] = uuid.uuid4().hex
    r = api.client.post(f"/api/v1/tables/BW-01/rounds/{n}/bets",
                        json={"spot": "2", "amount": 5_000, "player_id": pid + 1000}, headers=h)
    assert r.status_code == 403


# ------------------------------------------------------------------ refusals change nothing
@pytest.mark.parametrize("code,spot,amount,box,status,field", [
    ("RL-01", "straight:37", 1_000, None, 422, "spot"),        # unknown spot
    ("RL-01", "red", 1_000, None, 422, "amount"),              # below the outside minimum ₩5,000
    ("RL-01", "straight:7", 1_500, None, 422, "amount"),       # not a chip-unit multiple
    ("RL-01", "straight:7", 101_000, None, 422, "amount"),     # above the straight maximum ₩100,000
    ("SB-01", "total:3", 5_000, None, 422, "spot"),
    ("BAC-01", "dragon", 10_000, None, 422, "spot"),
    ("BAC-01", "banker", 3_001_000, None, 422, "amount"),
    ("BJ-01", "main", 10_000, "7", 422, "box"),                # nobody seated at box 7
    ("BJ-01", "main", 5_000, "1", 422, "amount"),
    ("BW-01", "3", 5_000, None, 422, "spot"),
])
def test_bad_bets_change_nothing(api, code, spot, amount, box, status, field):
    a = enrol(api, "Bad A")
    sit(api, code, "1", a['player'])
    n = open_round(api, code)
    before = api.audit()
    r = bet(api, code, n, a['player'], spot, amount, box)
    assert r.status_code == status, r.json
    assert r.headers["Content-Type"].startswith("application/problem+json")
    assert r.json["field"] == field, r.json
    assert cashable(api, a['player']) == FUND
    assert table(api, code)["bets_in_play"] == 0
    assert api.audit()["balanced"] and before["balanced"]


def test_bet_after_no_more_bets_and_unseated_and_insufficient(api):
    a, b = enrol(api, "Late A"), enrol(api, "Poor B", fund=5_000)
    sit(api, "SB-01", "1", a['player'])
    sit(api, "SB-01", "2", b['player'])
    n = open_round(api, "SB-01")
    r = bet(api, "SB-01", n, b['player'], "big", 10_000)
    assert r.status_code == 409 and r.json["field"] == "amount"  # insufficient funds
    no_more_bets(api, "SB-01", n)
    r = bet(api, "SB-01", n, a['player'], "big", 10_000)
    assert r.status_code == 409, r.json
    c = enrol(api, "Standing C")
    r = api.as_staff("pit", "POST", f"/api/v1/tables/SB-01/rounds/{n}/bets", {"spot": "big", "amount": 10_000,
                                                                             "player_id": c['player']})
    assert r.status_code == 409 and r.json["field"] == "player_id"
    assert cashable(api, a['player']) == FUND and cashable(api, b['player']) == 5_000 and cashable(api, c['player']) == FUND
    assert table(api, "SB-01")["bets_in_play"] == 0


def test_bad_outcome_and_illegal_decision_change_nothing(api):
    a = enrol(api, "Out A")
    sit(api, "RL-01", "1", a['player'])
    sit(api, "BJ-01", "1", a['player'])
    n = open_round(api, "RL-01")
    ok_bet(api, "RL-01", n, a['player'], "red", 10_000)
    no_more_bets(api, "RL-01", n)
    r = settle(api, "RL-01", n, {"number": 37})
    assert r.status_code == 422 and r.json["field"] == "number"
    m = open_round(api, "BJ-01")
    ok_bet(api, "BJ-01", m, a['player'], "main", 10_000, box="1")
    no_more_bets(api, "BJ-01", m)
    # box 1: TH 9S = 19, dealer 6D; splitting unequal cards is illegal
    r = settle(api, "BJ-01", m, {"cards": ["TH", "6D", "9S", "TC", "5C"],
                                 "decisions": [{"box": "1", "action": "split", "amount": 10_000}]})
    assert r.status_code == 422, r.json
    assert cashable(api, a['player']) == FUND - 20_000
    rec = api.as_staff("pit", "GET", f"/api/v1/tables/BJ-01/rounds/{m}", key=None).json
    assert rec["status"] == "no_more_bets" and len(rec["bets"]) == 1
    assert api.audit()["balanced"]


def test_table_admin(api):
    r = api.as_staff("operator", "POST", "/api/v1/tables", {"code": "RL-02", "game": "roulette", "chip_unit": 5_000},
                     key=None)
    assert r.status_code == 201, r.json
    assert r.json["limits"]["chip_unit"] == 5_000
    assert api.as_staff("pit", "POST", "/api/v1/tables", {"code": "X", "game": "roulette"}, key=None).status_code == 403
    r = api.as_staff("operator", "PATCH", "/api/v1/tables/RL-02", {"status": "closed"}, key=None)
    assert r.status_code == 200 and r.json["status"] == "closed"
    assert api.as_staff("pit", "POST", "/api/v1/tables/RL-02/rounds", key=None).status_code == 409
    lst = api.as_staff("auditor", "GET", "/api/v1/tables", key=None).json["tables"]
    assert {t["game"] for t in lst} >= {"baccarat", "blackjack", "roulette", "sic_bo", "big_wheel"}


# ------------------------------------------------------------------ blackjack decision by decision
def decide(api, n, box, action, amount=None, cards=None, key="auto"):
    body = {"box": box, "action": action}
    if amount is not None:
        body["amount"] = amount
    if cards is not None:
        body["cards"] = cards
    return api.as_staff("pit", "POST", f"/api/v1/tables/BJ-01/rounds/{n}/decisions", body, key=key)


def test_blackjack_decisions_through_the_api_input_mode(api):
    a, b = enrol(api, "Dec A"), enrol(api, "Dec B")
    sit(api, "BJ-01", "1", a['player'])
    sit(api, "BJ-01", "2", b['player'])
    n = open_round(api, "BJ-01")
    ok_bet(api, "BJ-01", n, a['player'], "main", 10_000, box="1")
    ok_bet(api, "BJ-01", n, b['player'], "main", 20_000, box="2")
    no_more_bets(api, "BJ-01", n)
    # box1 8H, box2 TC, dealer 6D, box1 8S (8-8), box2 6C (16)
    r = api.as_staff("pit", "POST", f"/api/v1/tables/BJ-01/rounds/{n}/deal", {"cards": ["8H", "TC", "6D", "8S", "6C"]},
                     key=None)
    assert r.status_code == 201, r.json
    assert r.json["dealer"] == ["6D"] and r.json["to_act"]["box"] == "1" and "split" in r.json["to_act"]["allowed"]
    assert bet(api, "BJ-01", n, a['player'], "main", 10_000, box="1").status_code == 409  # no more bets
    # out of turn: box 2 may not act yet; nothing debited
    r = decide(api, n, "2", "stand")
    assert r.status_code == 422 and r.json["field"] == "box"
    # box1 splits 8-8 (+₩10,000): hand 0 gets 3D (11)
    r = decide(api, n, "1", "split", 10_000, cards=["3D"])
    assert r.status_code == 200, r.json
    assert r.json["debited"][0]["amount"] == 10_000 and cashable(api, a['player']) == FUND - 20_000
    # hand 0 (8,3 = 11) doubles (+₩10,000) and draws TH → 21; hand 1 gets 2S (10) and stands
    r = decide(api, n, "1", "double", 10_000, cards=["TH", "2S"])
    assert r.status_code == 200, r.json
    assert cashable(api, a['player']) == FUND - 30_000
    # an illegal decision: surrender after a split → 422, nothing changes
    r = decide(api, n, "1", "surrender")
    assert r.status_code == 422 and r.json["field"] == "action"
    assert decide(api, n, "1", "stand").status_code == 200
    # box2 surrenders 16 (half back)
    assert decide(api, n, "2", "surrender").status_code == 200
    # dealer: second card 9C → 15, draws TS → 25 bust
    s = ok_settle(api, "BJ-01", n, {"cards": ["9C", "TS"]})
    assert s["outcome"]["dealer"] == ["6D", "9C", "TS"]
    # box1: hand 0 (doubled 21) wins 20,000 → 40,000 back; hand 1 (10) wins → 20,000; box2 surrender → 10,000
    assert s["payouts"] == {str(a['player']): 60_000, str(b['player']): 10_000}
    assert cashable(api, a['player']) == FUND + 30_000
    assert cashable(api, b['player']) == FUND - 10_000
    check_round(api, "BJ-01", n, s)
    assert_books(api, "BJ-01")


def test_blackjack_decisions_csprng_by_player_token(api, app):
    creds = app.config["DEMO_CREDENTIALS"]["players"][0]
    r = api.client.post("/api/v1/players/login", json={"card_number": creds["card_number"], "pin": creds["pin"]})
    token, pid = r.json["token"], r.json["player"]
    before = cashable(api, pid)
    sit(api, "BJ-01", "4", pid)
    n = open_round(api, "BJ-01")
    ok_bet(api, "BJ-01", n, pid, "main", 10_000, box="4")
    no_more_bets(api, "BJ-01", n)
    r = api.as_staff("pit", "POST", f"/api/v1/tables/BJ-01/rounds/{n}/deal", {}, key=None)
    assert r.status_code == 201, r.json
    view = r.json
    h = {"Authorization": f"Bearer {token}"}
    for _ in range(12):
        if view["to_act"] is None:
            break
        action = "stand" if view["insurance_open"] is False else "no_insurance"
        h["Idempotency-Key"] = uuid.uuid4().hex
        r = api.client.post(f"/api/v1/tables/BJ-01/rounds/{n}/decisions", json={"box": "4", "action": action}, headers=h)
        assert r.status_code == 200, r.json
        view = r.json
    s = ok_settle(api, "BJ-01", n)
    assert s["mode"] == "rng" and s["status"] == "settled"
    assert cashable(api, pid) == before - 10_000 + s["payouts"].get(str(pid), 0)
    check_round(api, "BJ-01", n, s)
    assert_books(api, "BJ-01")


# ------------------------------------------------------------------ roulette colour chips
def test_roulette_colour_chips(api):
    a, b = enrol(api, "Colour A"), enrol(api, "Colour B")
    sit(api, "RL-01", "1", a['player'])
    sit(api, "RL-01", "2", b['player'])
    r = api.as_staff("pit", "POST", "/api/v1/tables/RL-01/colour/buy-in",
                     {"player_id": a['player'], "colour": "green", "chip_value": 2_000, "amount": 100_000})
    assert r.status_code == 200, r.json
    assert r.json["chips"] == 50 and cashable(api, a['player']) == FUND - 100_000
    # the colour is taken; a value off the chip unit is refused; neither moves money
    r = api.as_staff("pit", "POST", "/api/v1/tables/RL-01/colour/buy-in",
                     {"player_id": b['player'], "colour": "green", "chip_value": 2_000, "amount": 10_000})
    assert r.status_code == 422 and r.json["field"] == "colour"
    r = api.as_staff("pit", "POST", "/api/v1/tables/RL-01/colour/buy-in",
                     {"player_id": b['player'], "colour": "blue", "chip_value": 1_500, "amount": 15_000})
    assert r.status_code == 422 and r.json["field"] == "chip_value"
    assert cashable(api, b['player']) == FUND
    n = open_round(api, "RL-01")
    assert bet(api, "RL-01", n, a['player'], "straight:5", 3_000).status_code == 422  # not whole green chips
    r = bet(api, "RL-01", n, a['player'], "straight:5", 4_000)   # 2 chips, wins 35:1 → 72 chips back
    assert r.status_code == 201 and r.json["colour_stack"]["chips"] == 48
    ok_bet(api, "RL-01", n, a['player'], "black", 10_000)         # 5 chips, 5 is red: loses
    ok_bet(api, "RL-01", n, b['player'], "red", 10_000)           # cash bet, wins 1:1
    assert cashable(api, a['player']) == FUND - 100_000            # colour bets leave the wallet alone
    no_more_bets(api, "RL-01", n)
    s = ok_settle(api, "RL-01", n, {"number": 5})
    assert s["payouts_in_chips"] == {str(a['player']): 144_000} and s["payouts"] == {str(b['player']): 20_000}
    t = table(api, "RL-01")
    assert t["colour_stacks"] == [{"player_id": a['player'], "colour": "green", "chip_value": 2_000, "chips": 43 + 72,
                                   "value": 230_000}]
    check_round(api, "RL-01", n, s)
    assert_books(api, "RL-01")
    r = api.as_staff("pit", "POST", "/api/v1/tables/RL-01/colour/cash-out", {"player_id": a['player']})
    assert r.status_code == 200, r.json
    assert r.json["amount"] == 230_000 and cashable(api, a['player']) == FUND + 130_000
    assert table(api, "RL-01")["colour_stacks"] == []
    assert api.audit()["balanced"]


def test_openapi_auth_and_malformed_input(api):
    paths = api.client.get("/openapi.json").json["paths"]
    for p in ("/api/v1/tables", "/api/v1/tables/{code}/rounds/{number}/bets", "/api/v1/tables/{code}/rounds/{number}/settle",
              "/api/v1/tables/{code}/rounds/{number}/decisions", "/api/v1/tables/{code}/roadmaps",
              "/api/v1/tables/{code}/colour/buy-in", "/api/v1/tables/{code}/rounds/{number}/replay"):
        assert p in paths, p
    assert api.client.get("/api/v1/tables").status_code == 401
    assert api.client.post("/api/v1/tables/RL-01/rounds/1/bets", json={"spot": "red", "amount": 5_000}).status_code == 401
    a = enrol(api, "Hostile A")
    sit(api, "RL-01", "1", a['player'])
    n = open_round(api, "RL-01")
    for body in ({"spot": "red", "amount": "5000", "player_id": a['player']},
                 {"spot": "red", "amount": 5_000.0, "player_id": a['player']},
                 {"spot": "red", "amount": -5_000, "player_id": a['player']},
                 {"spot": "red", "amount": 5_000, "player_id": a['player'], "extra": 1}):
        r = api.as_staff("pit", "POST", f"/api/v1/tables/RL-01/rounds/{n}/bets", body)
        assert r.status_code == 422, (body, r.json)
    assert api.as_staff("cashier", "POST", f"/api/v1/tables/RL-01/rounds/{n}/bets",
                        {"spot": "red", "amount": 5_000, "player_id": a['player']}).status_code == 403
    assert api.as_staff("pit", "GET", "/api/v1/tables/NOPE", key=None).status_code == 404
    assert cashable(api, a['player']) == FUND and api.audit()["balanced"]


def test_baccarat_shoe_persists_and_ends_at_the_cut_card(api):
    # a one-deck shoe with the cut card 40 cards from the end: a few coups per shoe
    r = api.as_staff("operator", "POST", "/api/v1/tables",
                     {"code": "BAC-T", "game": "baccarat", "rules": {"decks": 1, "cut_card_from_end": 40}}, key=None)
    assert r.status_code == 201, r.json
    a = enrol(api, "Shoe A")
    sit(api, "BAC-T", "1", a['player'])
    coups, last = 0, None
    for _ in range(12):
        n = open_round(api, "BAC-T")
        ok_bet(api, "BAC-T", n, a['player'], "banker", 10_000)
        no_more_bets(api, "BAC-T", n)
        s = ok_settle(api, "BAC-T", n)
        assert s["shoe_no"] == 1
        coups += 1
        left = table(api, "BAC-T")["shoe"]["cards_left"]
        assert last is None or left < last  # the same shoe, dealt on from where it stopped
        last = left
        if s["outcome"]["last_of_shoe"]:
            break
    assert s["outcome"]["last_of_shoe"] and 1 <= coups < 12
    road = api.as_staff("pit", "GET", "/api/v1/tables/BAC-T/roadmaps", key=None).json
    assert road["shoe_no"] == 1 and road["coups"] == coups
    n = open_round(api, "BAC-T")
    no_more_bets(api, "BAC-T", n)
    s = ok_settle(api, "BAC-T", n)  # the next coup comes from a freshly shuffled shoe
    assert s["shoe_no"] == 2
    road = api.as_staff("pit", "GET", "/api/v1/tables/BAC-T/roadmaps", key=None).json
    assert road["shoe_no"] == 2 and road["coups"] == 1
    old = api.as_staff("pit", "GET", "/api/v1/tables/BAC-T/roadmaps?shoe_no=1", key=None).json
    assert old["coups"] == coups
    assert_books(api, "BAC-T")


def test_blackjack_player_plays_two_boxes_and_pair_bet(api):
    a = enrol(api, "Two Boxes")
    sit(api, "BJ-01", "1", a['player'])
    sit(api, "BJ-01", "2", a['player'])
    sit(api, "BJ-01", "3", a['player'])
    r = api.as_staff("pit", "POST", "/api/v1/tables/BJ-01/seats", {"seat": "4", "player_id": a['player']}, key=None)
    assert r.status_code == 409  # at most three boxes
    n = open_round(api, "BJ-01")
    ok_bet(api, "BJ-01", n, a['player'], "main", 10_000, box="1")
    ok_bet(api, "BJ-01", n, a['player'], "pair", 1_000, box="1")
    ok_bet(api, "BJ-01", n, a['player'], "main", 10_000, box="2")
    no_more_bets(api, "BJ-01", n)
    # box1 7H, box2 KC, dealer 5D, box1 7S (pair of 7s: 11:1), box2 QD (20); both stand; dealer 5D TC → 15, 9H → 24
    s = ok_settle(api, "BJ-01", n, {"cards": ["7H", "KC", "5D", "7S", "QD", "TC", "9H"],
                                    "decisions": [{"box": "1", "action": "stand"}, {"box": "2", "action": "stand"}]})
    assert s["payouts"] == {str(a['player']): 20_000 + 12_000 + 20_000}
    assert cashable(api, a['player']) == FUND - 21_000 + 52_000
    check_round(api, "BJ-01", n, s)
    assert_books(api, "BJ-01")


# ------------------------------------------------------------------ blackjack: what the dealer-entered mode asks for
def _two_boxes(api, names):
    a, b = enrol(api, names[0]), enrol(api, names[1])
    sit(api, "BJ-01", "1", a['player'])
    sit(api, "BJ-01", "2", b['player'])
    return a['player'], b['player']


def _dealt(api, a, b, cards):
    n = open_round(api, "BJ-01")
    ok_bet(api, "BJ-01", n, a, "main", 10_000, box="1")
    ok_bet(api, "BJ-01", n, b, "main", 10_000, box="2")
    no_more_bets(api, "BJ-01", n)
    r = api.as_staff("pit", "POST", f"/api/v1/tables/BJ-01/rounds/{n}/deal", {"cards": cards}, key=None)
    assert r.status_code == 201, r.json
    return n, r.json


def test_blackjack_dealer_entered_takes_no_second_card_when_no_hand_needs_it(api):
    a, b = _two_boxes(api, ("NHC A", "NHC B"))
    # 1) box 1 blackjack (AS KD) against a 6, box 2 (TH 6C) hits 9S and busts: the blackjack is paid 3:2 at once
    n, view = _dealt(api, a, b, ["AS", "TH", "6D", "KD", "6C"])
    assert view["to_act"]["box"] == "2" and view["dealer_needs"] is None
    r = decide(api, n, "2", "hit", cards=["9S"])
    assert r.status_code == 200, r.json
    assert r.json["to_act"] is None and r.json["dealer_needs"] is None
    s = ok_settle(api, "BJ-01", n)  # no card entered: none is asked for
    assert s["outcome"]["dealer"] == ["6D"]
    assert s["payouts"] == {str(a): 25_000, str(b): 0}
    check_round(api, "BJ-01", n, s)
    # 2) box 1 (TS 6H) surrenders against a 7 (late), box 2 (9C 5S) hits KC and busts
    n, view = _dealt(api, a, b, ["TS", "9C", "7D", "6H", "5S"])
    assert decide(api, n, "1", "surrender").json["dealer_needs"] is None  # box 2 still to act
    r = decide(api, n, "2", "hit", cards=["KC"])
    assert r.status_code == 200 and r.json["dealer_needs"] is None
    s = ok_settle(api, "BJ-01", n)
    assert s["outcome"]["dealer"] == ["7D"] and s["payouts"] == {str(a): 5_000, str(b): 0}
    check_round(api, "BJ-01", n, s)
    # 3) an ace up: box 1's blackjack takes even money, box 2 declines insurance and busts
    n, view = _dealt(api, a, b, ["AH", "8D", "AC", "QS", "8C"])
    assert view["insurance_open"] and view["dealer_needs"] is None
    assert api.as_staff("pit", "POST", f"/api/v1/tables/BJ-01/rounds/{n}/decisions",
                        {"box": "1", "action": "even_money"}).status_code == 200
    assert api.as_staff("pit", "POST", f"/api/v1/tables/BJ-01/rounds/{n}/decisions",
                        {"box": "2", "action": "no_insurance"}).status_code == 200
    r = decide(api, n, "2", "hit", cards=["TD"])
    assert r.status_code == 200 and r.json["to_act"] is None and r.json["dealer_needs"] is None
    s = ok_settle(api, "BJ-01", n)
    assert s["outcome"]["dealer"] == ["AC"] and s["payouts"] == {str(a): 20_000, str(b): 0}
    check_round(api, "BJ-01", n, s)
    assert cashable(api, a) == FUND + 15_000 - 5_000 + 10_000
    assert cashable(api, b) == FUND - 30_000
    assert_books(api, "BJ-01")


def test_blackjack_dealer_entered_asks_for_the_second_card_then_each_draw(api):
    a, b = _two_boxes(api, ("Draw A", "Draw B"))
    # box 1 (TS 8H) stands on 18 against a 6; box 2 (9C 7S) hits TD and busts
    n, view = _dealt(api, a, b, ["TS", "9C", "6D", "8H", "7S"])
    assert decide(api, n, "1", "stand").json["dealer_needs"] is None  # box 2 still to act
    r = decide(api, n, "2", "hit")  # the card it draws was not typed
    assert r.status_code == 422 and r.json["field"] == "cards"
    assert r.json["detail"] == "enter the card box 2 draws (hit)"
    r = decide(api, n, "2", "hit", cards=["TD"])
    assert r.status_code == 200 and r.json["dealer_needs"] == "second card"
    before = (cashable(api, a), cashable(api, b))
    for cards, need in (([], "second card"), (["5H"], "next card"), (["5H", "3C"], "next card")):
        r = settle(api, "BJ-01", n, {"cards": cards} if cards else None)
        assert r.status_code == 422 and r.mimetype == "application/problem+json", r.json
        assert r.json["field"] == "cards" and r.json["detail"] == f"enter the dealer's {need}"
        assert r.json["dealer_needs"] == need
    assert (cashable(api, a), cashable(api, b)) == before  # refused: nothing settled
    s = ok_settle(api, "BJ-01", n, {"cards": ["5H", "3C", "4S"]})  # 6 5 3 4 = 18: pushes box 1's 18
    assert s["outcome"]["dealer"] == ["6D", "5H", "3C", "4S"]
    assert s["payouts"] == {str(a): 10_000, str(b): 0}
    check_round(api, "BJ-01", n, s)
    # the next round: a short initial deal is refused naming what to type; a split asks for the first hand's card
    n = open_round(api, "BJ-01")
    ok_bet(api, "BJ-01", n, a, "main", 10_000, box="1")
    ok_bet(api, "BJ-01", n, b, "main", 10_000, box="2")
    no_more_bets(api, "BJ-01", n)
    r = api.as_staff("pit", "POST", f"/api/v1/tables/BJ-01/rounds/{n}/deal", {"cards": ["8S", "9C", "7D"]}, key=None)
    assert r.status_code == 422 and r.json["field"] == "cards"
    assert r.json["detail"] == "enter the initial deal: 5 cards (each box, the dealer's upcard, each box)"
    r = api.as_staff("pit", "POST", f"/api/v1/tables/BJ-01/rounds/{n}/deal", {"cards": ["8S", "9C", "7D", "8C", "9H"]},
                     key=None)
    assert r.status_code == 201 and r.json["dealer_needs"] is None
    r = decide(api, n, "1", "split", 10_000)
    assert r.status_code == 422 and r.json["detail"] == "enter box 1 hand 0's second card"
    assert cashable(api, a) == FUND - 10_000  # round 1 pushed; the refused split debited nothing
    assert decide(api, n, "1", "split", 10_000, cards=["TH"]).status_code == 200
    r = decide(api, n, "1", "stand")  # play moves to hand 1: its second card comes with this decision
    assert r.status_code == 422 and r.json["detail"] == "enter box 1 hand 1's second card"
    r = decide(api, n, "1", "stand", cards=["KD"])
    assert r.status_code == 200 and r.json["boxes"]["1"]["hands"][1]["cards"] == ["8C", "KD"]
    assert r.json["to_act"] == {"box": "1", "hand": 1, "allowed": ["hit", "stand", "double"]}
    assert decide(api, n, "1", "stand").status_code == 200
    r = decide(api, n, "2", "stand")
    assert r.status_code == 200 and r.json["dealer_needs"] == "second card"
    s = ok_settle(api, "BJ-01", n, {"cards": ["TC"]})  # 7 T = 17 stands: three 18s win
    assert s["outcome"]["dealer"] == ["7D", "TC"] and s["payouts"] == {str(a): 40_000, str(b): 20_000}
    check_round(api, "BJ-01", n, s)
    assert_books(api, "BJ-01")
