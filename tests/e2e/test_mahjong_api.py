"""Mahjong through HTTP on SQLite: the pure scoring endpoint, a four-player table (buy-in, a scored hand
settled between the stacks in one entry with the house fee, riichi sticks, a draw carrying sticks, leave →
wallet), exact wallet and stack movements, the ledger audit, idempotent retries, the Korean table, and bad
input that moves nothing. Expected points are the standard table (see tests/unit/test_mahjong.py)."""

from __future__ import annotations

import uuid

import pytest

FUND = 1_000_000
BASE = "234m567m345p999s11p"  # no yaku of its own; with riichi 1 han 40 fu
MANGAN_OPEN = {"hand": "111234567m99m", "win_tile": "5m", "melds": [{"type": "pon", "tiles": "888m"}]}  # chinitsu 5


def enrol(api, name, pin="2468", fund=FUND) -> dict:
    r = api.as_staff("host", "POST", "/api/v1/players", {"name": name, "pin": pin})
    assert r.status_code == 201, r.json
    p = r.json
    r = api.as_staff("cashier", "POST", f"/api/v1/players/{p['player']}/deposit", {"amount": fund})
    assert r.status_code == 200, r.json
    return p


def cashable(api, pid) -> int:
    r = api.as_staff("host", "GET", f"/api/v1/players/{pid}", key=None)
    assert r.status_code == 200, r.json
    return r.json["wallet"]["cashable"]


def make_table(api, code, **kw) -> dict:
    body = {"code": code, "point_value": 10, "fee_ppm": 50_000, "fee_unit": 100, "min_buy_in": 100_000,
            "max_buy_in": 1_000_000, **kw}
    r = api.as_staff("pit", "POST", "/api/v1/mahjong/tables", body, key=None)
    assert r.status_code == 201, r.json
    return r.json


def seat_four(api, code, buy_in=500_000) -> dict[str, int]:
    pids = {}
    for seat in "ESWN":
        p = enrol(api, f"Mahjong {code} {seat}")
        r = api.as_staff("pit", "POST", f"/api/v1/mahjong/tables/{code}/seats",
                         {"seat": seat, "player_id": p["player"], "buy_in": buy_in})
        assert r.status_code == 201, r.json
        pids[seat] = p["player"]
    return pids


def stacks(api, code) -> dict[str, int]:
    r = api.as_staff("pit", "GET", f"/api/v1/mahjong/tables/{code}", key=None)
    assert r.status_code == 200, r.json
    return {s["seat"]: s["stack"] for s in r.json["seats"]}


def table_state(api, code) -> dict:
    return api.as_staff("pit", "GET", f"/api/v1/mahjong/tables/{code}", key=None).json


def hand(api, code, body, key="auto"):
    return api.as_staff("pit", "POST", f"/api/v1/mahjong/tables/{code}/hands", body, key=key)


def assert_balanced(api):
    a = api.audit()
    assert a["balanced"], a


# ------------------------------------------------------------------ pure scoring
def test_score_endpoint_returns_han_fu_yaku_names_and_payments(api):
    r = api.as_staff("pit", "POST", "/api/v1/mahjong/score",
                     {"hand": BASE, "win_tile": "4m", "riichi": True, "seat_wind": "S", "dora_indicators": "9p",
                      "honba": 1, "riichi_sticks": 1}, key=None)
    assert r.status_code == 200, r.json
    s = r.json
    # riichi 1 + dora 2 (indicator 9p → 1p, a pair) = 3 han 40 fu: 4 × 1,280 = 5,120 → 5,200, + 300 honba
    assert (s["han"], s["fu"], s["payments"], s["riichi_stick_points"], s["total"]) == \
        (3, 40, {"discarder": 5500}, 1000, 6500)
    assert s["dora"] == ["1p"]
    riichi = next(y for y in s["yaku"] if y["key"] == "riichi")
    assert (riichi["ko"], riichi["ja"], riichi["en"]) == ("리치", "立直", "Riichi")
    # a yakuman with its limit name; the Korean rule set through the same endpoint
    r = api.as_staff("supervisor", "POST", "/api/v1/mahjong/score",
                     {"hand": "555z666z777z234m11p", "win_tile": "3m", "seat_wind": "E"}, key=None)
    assert (r.json["limit"]["key"], r.json["limit"]["ko"], r.json["payments"]) == \
        ("yakuman", "역만", {"discarder": 48000})
    r = api.as_staff("pit", "POST", "/api/v1/mahjong/score",
                     {"hand": BASE, "win_tile": "4m", "riichi": True, "rules": {"rule_set": "korean"}}, key=None)
    assert (r.json["points"], r.json["payments"]) == (3, {"discarder": 3})


@pytest.mark.parametrize("body,field", [
    ({"hand": "234m567m345p999s1p", "win_tile": "4m"}, "hand"),  # 13 tiles
    ({"hand": "234m567m345p999s111p", "win_tile": "4m"}, "hand"),  # 15 tiles
    ({"hand": "11111m567m345p99s1p", "win_tile": "1m"}, "hand"),  # five 1m
    ({"hand": "234m567q345p999s11p", "win_tile": "4m"}, "hand"),  # malformed
    ({"hand": BASE, "win_tile": "8m"}, "win_tile"),  # not in the hand
    ({"hand": "234m567m345p11p", "win_tile": "4m", "melds": [{"type": "pon", "tiles": "789s"}]}, "melds[0]"),
    ({"hand": "234m567m345p999s12p", "win_tile": "4m"}, "hand"),  # not a winning hand
    ({"hand": BASE, "win_tile": "4m"}, "hand"),  # no yaku
    ({"hand": BASE, "win_tile": "4m", "seat_wind": "X"}, "seat_wind"),  # pydantic
    ({"hand": BASE, "win_tile": "4m", "conditions": ["haitei"]}, "conditions"),  # haitei is a tsumo
    ({"hand": BASE, "win_tile": "4m", "riichi": "yes"}, "riichi"),  # true/false only, not truthy strings
    ({"hand": BASE, "win_tile": "4m", "rules": {"foo": 1}}, "rules.foo"),  # an unknown rule option, named
    ({"hand": BASE, "win_tile": "4m", "riichi": True, "rules": {"kiriage": 1}}, "rules.kiriage"),  # not a bool
    ({"hand": "234m567m345p999s12p", "win_tile": "9m"}, "hand"),  # not a winning hand, whatever the win tile
    ({"hand": BASE, "win_tile": "4m", "tsumo": True, "conditions": ["tenhou"], "winner": "S", "dealer": "E"},
     "conditions"),  # tenhou for a non-dealer
    ({"hand": BASE, "win_tile": "4m", "riichi": True, "open_riichi": True}, "open_riichi"),  # not played here
    ({"hand": BASE, "win_tile": "4m", "tsumo": True, "ura_dora_indicators": "1m"}, "ura_dora_indicators"),
])
def test_score_endpoint_bad_input_is_problem_json(api, body, field):
    r = api.as_staff("pit", "POST", "/api/v1/mahjong/score", body, key=None)
    assert r.status_code == 422, r.json
    assert r.headers["Content-Type"].startswith("application/problem+json")
    assert r.json["field"] == field, r.json


def test_score_endpoint_authorisation(api, app):
    body = {"hand": BASE, "win_tile": "4m", "riichi": True}
    assert api.as_machine("M001", "POST", "/api/v1/mahjong/score", body, key=None).status_code == 403
    assert api.as_staff("cashier", "POST", "/api/v1/mahjong/score", body, key=None).status_code == 403
    assert api.client.post("/api/v1/mahjong/score", json=body).status_code == 401
    p = app.config["DEMO_CREDENTIALS"]["players"][0]
    tok = api.client.post("/api/v1/players/login", json={"card_number": p["card_number"], "pin": p["pin"]}).json["token"]
    r = api.client.post("/api/v1/mahjong/score", json=body, headers={"Authorization": f"Bearer {tok}"})
    assert r.status_code == 200 and r.json["han"] == 1


# ------------------------------------------------------------------ a four-player table
def test_scored_hand_settles_between_stacks_exactly_and_once(api):
    make_table(api, "MJ-T1")
    pids = seat_four(api, "MJ-T1")
    assert all(cashable(api, p) == FUND - 500_000 for p in pids.values())
    # hand 1: E (dealer) rons S with an open chinitsu (mangan, 12,000); N declared riichi this hand (a stick)
    body = {"number": 1, "winner": "E", "discarder": "S", "dealer": "E", "riichi_seats": ["N"], **MANGAN_OPEN}
    key = uuid.uuid4().hex
    r = hand(api, "MJ-T1", body, key=key)
    assert r.status_code == 201, r.json
    st = r.json["settlement"]
    # ₩10 a point: S pays ₩120,000, N ₩10,000 (stick); fee 5% of the ₩120,000 take = ₩6,000
    assert (st["take"], st["fee"]) == (120_000, 6_000)
    assert {s: v["won"] for s, v in st["seats"].items()} == {"E": 124_000, "S": -120_000, "W": 0, "N": -10_000}
    assert stacks(api, "MJ-T1") == {"E": 624_000, "S": 380_000, "W": 500_000, "N": 490_000}
    assert r.json["result"]["limit"]["key"] == "mangan" and r.json["result"]["payments"] == {"discarder": 12000}
    assert r.json["declaration"]["hand"] == MANGAN_OPEN["hand"]
    entries = api.audit()["journal_entries"]
    # the same request again (same key): the first reply, nothing moves
    again = hand(api, "MJ-T1", body, key=key)
    assert again.status_code == 201 and again.headers.get("Idempotent-Replayed") == "true"
    assert again.json["entry"] == r.json["entry"]
    # the same hand number with another key: refused, nothing moves
    other = hand(api, "MJ-T1", body)
    assert other.status_code == 409 and other.json["field"] == "number"
    assert stacks(api, "MJ-T1") == {"E": 624_000, "S": 380_000, "W": 500_000, "N": 490_000}
    assert api.audit()["journal_entries"] == entries
    assert_balanced(api)
    # the record
    rec = api.as_staff("auditor", "GET", "/api/v1/mahjong/tables/MJ-T1/hands/1", key=None)
    assert rec.status_code == 200 and rec.json["settlement"] == st and rec.json["fee"] == 6_000
    # everyone leaves: wallets = fund + their result exactly
    for seat in pids:
        r = api.as_staff("pit", "POST", f"/api/v1/mahjong/tables/MJ-T1/seats/{seat}/leave")
        assert r.status_code == 200, r.json
    assert {s: cashable(api, p) for s, p in pids.items()} == \
        {"E": FUND + 124_000, "S": FUND - 120_000, "W": FUND, "N": FUND - 10_000}
    assert_balanced(api)


def test_draw_carries_riichi_sticks_to_the_next_win_and_tsumo_payments(api):
    make_table(api, "MJ-T2", fee_ppm=0)
    seat_four(api, "MJ-T2")
    r = api.as_staff("pit", "POST", "/api/v1/mahjong/tables/MJ-T2/draws",
                     {"number": 1, "dealer": "E", "riichi_seats": ["E", "S"]})
    assert r.status_code == 201, r.json
    assert table_state(api, "MJ-T2")["riichi_pot"] == 2
    assert stacks(api, "MJ-T2") == {"E": 490_000, "S": 490_000, "W": 500_000, "N": 500_000}
    # hand 2: W tsumo, dealer still E, 1 honba: open chinitsu mangan: dealer 4,000 + 100, others 2,000 + 100
    body = {"number": 2, "winner": "W", "dealer": "E", "tsumo": True, "honba": 1, **MANGAN_OPEN}
    r = hand(api, "MJ-T2", body)
    assert r.status_code == 201, r.json
    assert r.json["result"]["payments"] == {"dealer": 4100, "non_dealer": 2100}
    assert r.json["result"]["riichi_stick_points"] == 2000
    # W: +4,100 + 2,100 + 2,100 + 2 sticks = 10,300 points = ₩103,000
    assert stacks(api, "MJ-T2") == {"E": 449_000, "S": 469_000, "W": 603_000, "N": 479_000}
    assert table_state(api, "MJ-T2")["riichi_pot"] == 0
    # hand 3: N's nagashi mangan (no tiles), paid as a non-dealer tsumo mangan: E 4,000, S and W 2,000 each
    r = hand(api, "MJ-T2", {"number": 3, "winner": "N", "dealer": "E", "conditions": ["nagashi_mangan"]})
    assert r.status_code == 201, r.json
    assert r.json["result"]["yaku"][0]["ko"] == "유국만관"
    assert stacks(api, "MJ-T2") == {"E": 409_000, "S": 449_000, "W": 583_000, "N": 559_000}
    assert_balanced(api)


def test_loser_who_cannot_cover_is_refused_and_nothing_moves(api):
    make_table(api, "MJ-T3")
    seat_four(api, "MJ-T3", buy_in=100_000)
    body = {"number": 1, "winner": "S", "discarder": "W", "hand": "555z666z777z234m11p", "win_tile": "3m"}
    entries = api.audit()["journal_entries"]
    r = hand(api, "MJ-T3", body)  # daisangen: 32,000 points = ₩320,000 > W's ₩100,000
    assert r.status_code == 409 and r.json["field"] == "seats", r.json
    assert "seat W" in r.json["detail"]
    assert stacks(api, "MJ-T3") == {s: 100_000 for s in "ESWN"}
    assert table_state(api, "MJ-T3")["hands"] == 0 and api.audit()["journal_entries"] == entries
    # top up W and score again: now it pays
    assert api.as_staff("pit", "POST", "/api/v1/mahjong/tables/MJ-T3/seats/W/top-up",
                        {"amount": 300_000}).status_code == 200
    r = hand(api, "MJ-T3", body)
    assert r.status_code == 201, r.json
    # fee 5% of ₩320,000 = ₩16,000
    assert stacks(api, "MJ-T3") == {"E": 100_000, "S": 404_000, "W": 80_000, "N": 100_000}
    assert_balanced(api)


@pytest.mark.parametrize("body,status,field", [
    ({"number": 1, "winner": "S", "discarder": "W", "hand": "234m567m345p999s12p", "win_tile": "4m"}, 422, "hand"),
    ({"number": 1, "winner": "S", "discarder": "W", "hand": "234m567m345p999s1p", "win_tile": "4m",
      "riichi": True}, 422, "hand"),
    ({"number": 1, "winner": "S", "discarder": "W", "hand": BASE, "win_tile": "8m", "riichi": True}, 422,
     "win_tile"),
    ({"number": 1, "winner": "S", "discarder": "S", "hand": BASE, "win_tile": "4m", "riichi": True}, 422,
     "discarder"),
    ({"number": 1, "winner": "S", "hand": BASE, "win_tile": "4m", "riichi": True}, 422, "discarder"),  # ron w/o
    ({"number": 2, "winner": "S", "discarder": "W", "hand": BASE, "win_tile": "4m", "riichi": True}, 422, "number"),
    ({"number": 1, "winner": "S", "discarder": "W", "hand": "555z234m567p678s99s", "win_tile": "4m",
      "riichi_seats": ["S"]}, 422, "riichi_seats"),  # the winner paid a stick but the hand has no riichi
    ({"number": 1, "winner": "S", "discarder": "W", "hand": BASE, "win_tile": "4m", "riichi": True,
      "melds": [{"type": "chi", "tiles": "246m"}]}, 422, "melds[0]"),
])
def test_bad_hands_at_a_table_move_nothing(api, body, status, field):
    make_table(api, "MJ-T4")
    seat_four(api, "MJ-T4")
    before = api.audit()
    r = hand(api, "MJ-T4", body)
    assert r.status_code == status and r.json["field"] == field, r.json
    assert r.headers["Content-Type"].startswith("application/problem+json")
    assert stacks(api, "MJ-T4") == {s: 500_000 for s in "ESWN"}
    assert table_state(api, "MJ-T4")["hands"] == 0
    after = api.audit()
    assert after["balanced"] and after["journal_entries"] == before["journal_entries"]


def test_a_hand_needs_four_seated_players_and_buy_in_range(api):
    make_table(api, "MJ-T5")
    p = enrol(api, "Lone Player")
    r = api.as_staff("pit", "POST", "/api/v1/mahjong/tables/MJ-T5/seats", {"seat": "E", "player_id": p["player"],
                                                                          "buy_in": 50_000})
    assert r.status_code == 422 and r.json["field"] == "buy_in"
    assert cashable(api, p["player"]) == FUND
    r = api.as_staff("pit", "POST", "/api/v1/mahjong/tables/MJ-T5/seats", {"seat": "E", "player_id": p["player"],
                                                                          "buy_in": 100_000})
    assert r.status_code == 201
    r = hand(api, "MJ-T5", {"number": 1, "winner": "E", "tsumo": True, "hand": BASE, "win_tile": "4m"})
    assert r.status_code == 409 and r.json["field"] == "seats"
    poor = enrol(api, "Poor Player", fund=10_000)
    r = api.as_staff("pit", "POST", "/api/v1/mahjong/tables/MJ-T5/seats", {"seat": "S", "player_id": poor["player"],
                                                                          "buy_in": 100_000})
    assert r.status_code == 409 and r.json["type"].endswith("insufficient-funds")
    assert cashable(api, poor["player"]) == 10_000


def test_korean_demo_table_and_player_reads(api):
    r = api.as_staff("auditor", "GET", "/api/v1/mahjong/tables", key=None)
    assert {t["code"]: t["rules"]["rule_set"] for t in r.json["tables"]} == {"MJ-01": "riichi", "MJ-02": "korean"}
    mj01 = next(t for t in r.json["tables"] if t["code"] == "MJ-01")["rules"]  # every option in force is shown
    assert (mj01["renhou_yakuman"], mj01["nagashi_mangan"], mj01["nagashi_payment"], mj01["daisharin"]) == \
        (False, True, "tsumo", False)
    seat_four(api, "MJ-02", buy_in=100_000)
    # no yaku needed: S rons E with a plain hand: 1 point = ₩1,000; fee 5% = ₩50 → ₩100 (rounded up to ₩100)
    r = hand(api, "MJ-02", {"number": 1, "winner": "S", "discarder": "E", "hand": BASE, "win_tile": "4m"})
    assert r.status_code == 201, r.json
    assert (r.json["result"]["points"], r.json["fee"]) == (1, 100)
    # riichi tsumo: 1 + 2 = 3 points from each of the three = ₩9,000; fee ₩450 → ₩500
    r = hand(api, "MJ-02", {"number": 2, "winner": "W", "dealer": "S", "tsumo": True, "riichi": True, "hand": BASE,
                            "win_tile": "4m"})
    assert r.status_code == 201, r.json
    assert stacks(api, "MJ-02") == {"E": 96_000, "S": 97_900, "W": 108_500, "N": 97_000}
    assert_balanced(api)
    # a player reads the table and the hands with their own token; they cannot score
    p = api.creds["players"][0]
    tok = api.client.post("/api/v1/players/login", json={"card_number": p["card_number"], "pin": p["pin"]}).json["token"]
    h = {"Authorization": f"Bearer {tok}"}
    r = api.client.get("/api/v1/mahjong/tables/MJ-02/hands", headers=h)
    assert r.status_code == 200 and [x["number"] for x in r.json["hands"]] == [2, 1]
    assert api.client.get("/api/v1/mahjong/tables/MJ-02", headers=h).status_code == 200
    r = api.client.post("/api/v1/mahjong/tables/MJ-02/hands", headers={**h, "Idempotency-Key": "x1"},
                        json={"number": 3, "winner": "E", "tsumo": True, "hand": BASE, "win_tile": "4m"})
    assert r.status_code in (401, 403)
    assert stacks(api, "MJ-02")["W"] == 108_500


def test_money_moving_posts_need_an_idempotency_key(api):
    make_table(api, "MJ-T6")
    p = enrol(api, "Key Player")
    r = api.as_staff("pit", "POST", "/api/v1/mahjong/tables/MJ-T6/seats",
                     {"seat": "E", "player_id": p["player"], "buy_in": 100_000}, key=None)
    assert r.status_code == 422 and r.json["field"] == "Idempotency-Key"
    assert cashable(api, p["player"]) == FUND


# ------------------------------------------------------------------ rule options, seats, payment forms
def test_score_endpoint_rule_options_seats_and_indicators(api):
    def score(body):
        r = api.as_staff("pit", "POST", "/api/v1/mahjong/score", body, key=None)
        assert r.status_code == 200, r.json
        return r.json

    # 4 han 30 fu (riichi, pinfu, tanyao, dora 2m): 7,700; with kiriage (the library's own name for it) 8,000
    body = {"hand": "234m567m345p678s55p", "win_tile": "4m", "riichi": True, "dora_indicators": "1m", "seat_wind": "S"}
    assert score(body)["payments"] == {"discarder": 7700}
    assert score(body | {"rules": {"kiriage": True}})["payments"] == {"discarder": 8000}
    # renhou: the casino's mangan, or yakuman by option, named in three languages
    renhou = {"hand": "123444s234456m66p", "win_tile": "4s", "conditions": ["renhou"], "seat_wind": "S"}
    assert score(renhou)["payments"] == {"discarder": 8000}
    y = score(renhou | {"rules": {"renhou_as_yakuman": True}})["yaku"][0]
    assert (y["key"], y["ko"], y["ja"], y["en"]) == ("renhou_yakuman", "인화 (역만)", "人和 (役満)",
                                                     "Blessing of man (yakuman)")
    # tenhou without a seat wind is the dealer's (16,000 from each); chiihou a non-dealer's; the seating decides
    tenhou = {"hand": "123444s234456m66p", "win_tile": "4s", "tsumo": True, "conditions": ["tenhou"]}
    assert score(tenhou)["payments"] == {"each": 16000}
    chiihou = tenhou | {"conditions": ["chiihou"]}
    assert score(chiihou)["payments"] == {"dealer": 16000, "non_dealer": 8000}
    assert score(chiihou | {"winner": "N", "dealer": "W"})["seat_wind"] == "S"
    # two kans: three dora indicators
    kans = {"hand": "234m567m11p", "win_tile": "4m", "riichi": True, "dora_indicators": "1m2m3m", "seat_wind": "S",
            "melds": [{"type": "closed_kan", "tiles": "9999s"}, {"type": "closed_kan", "tiles": "5555p"}]}
    assert (score(kans)["han"], score(kans)["dora"]) == (4, ["2m", "3m", "4m"])
    # nagashi mangan's payment form is reported
    assert score({"conditions": ["nagashi_mangan"], "seat_wind": "W"})["payment_form"] == "nagashi_tsumo"


def test_table_rules_dealer_rotation_and_nagashi_paid_as_a_draw(api):
    r = api.as_staff("pit", "POST", "/api/v1/mahjong/tables", {"code": "MJ-R0", "rules": {"kiriag": True}}, key=None)
    assert r.status_code == 422 and r.json["field"] == "rules.kiriag", r.json
    assert api.as_staff("pit", "GET", "/api/v1/mahjong/tables/MJ-R0", key=None).status_code == 404
    t = make_table(api, "MJ-R1", fee_ppm=0, rules={"nagashi_payment": "draw", "has_open_tanyao": False})
    assert (t["rules"]["nagashi_payment"], t["rules"]["open_tanyao"], t["dealer"]) == ("draw", False, "E")
    seat_four(api, "MJ-R1")
    # hand 1: a draw, E noten → S deals; E and N declared riichi (2 sticks in the pot)
    r = api.as_staff("pit", "POST", "/api/v1/mahjong/tables/MJ-R1/draws", {"number": 1, "riichi_seats": ["E", "N"]})
    assert r.status_code == 201 and r.json["dealer"] == "E", r.json
    assert table_state(api, "MJ-R1")["dealer"] == "S"
    # hand 2: tenhou by E, who is not the dealer any more: refused, nothing moves
    tenhou = {"hand": "123444s234456m66p", "win_tile": "4s", "tsumo": True, "conditions": ["tenhou"]}
    r = hand(api, "MJ-R1", {"number": 2, "winner": "E", **tenhou})
    assert r.status_code == 422 and r.json["field"] == "conditions", r.json
    assert stacks(api, "MJ-R1") == {"E": 490_000, "S": 500_000, "W": 500_000, "N": 490_000}
    # hand 2: W's nagashi mangan with S dealing, E declared riichi again: paid as a draw — S 4,000, E and N
    # 2,000 (₩10 a point); E's stick joins the 2 in the pot, which stays
    r = hand(api, "MJ-R1", {"number": 2, "winner": "W", "conditions": ["nagashi_mangan"], "riichi_seats": ["E"]})
    assert r.status_code == 201, r.json
    assert (r.json["result"]["payment_form"], r.json["dealer"]) == ("nagashi_draw", "S")
    assert r.json["result"]["payments"] == {"dealer": 4000, "non_dealer": 2000}
    assert stacks(api, "MJ-R1") == {"E": 460_000, "S": 460_000, "W": 580_000, "N": 470_000}
    state = table_state(api, "MJ-R1")
    assert (state["riichi_pot"], state["dealer"]) == (3, "W")  # the deal passes: S did not win
    # hand 3 (W deals): S rons with an open tanyao only: kuitan is off at this table → no yaku, 422
    r = hand(api, "MJ-R1", {"number": 3, "winner": "S", "discarder": "E", "hand": "222m345p678s55p",
                            "win_tile": "6s", "melds": [{"type": "chi", "tiles": "567m"}]})
    assert r.status_code == 422 and r.json["field"] == "hand", r.json
    # hand 3: W (the dealer, not sent: the table's) tenhou: 16,000 from each plus the 3 sticks of the pot
    r = hand(api, "MJ-R1", {"number": 3, "winner": "W", **tenhou})
    assert r.status_code == 201, r.json
    assert (r.json["result"]["payments"], r.json["result"]["riichi_stick_points"]) == ({"each": 16000}, 3000)
    assert stacks(api, "MJ-R1") == {"E": 300_000, "S": 300_000, "W": 1_090_000, "N": 310_000}
    assert table_state(api, "MJ-R1")["riichi_pot"] == 0
    assert_balanced(api)


# each rule option through POST /score: (declaration, rules, payments) — the same hand-computed cases as
# tests/unit/test_mahjong.py (library examples from MahjongRepository/mahjong tests_yakuman_calculation.py)
CHIN = "111234567888m99m"
KANS4 = [{"type": "closed_kan", "tiles": t} for t in ("1111z", "2222z", "3333z", "4444z")]
OPTION_CASES = [
    ({"hand": "222m345p678s55p", "win_tile": "6s", "melds": [{"type": "chi", "tiles": "567m"}]},
     {"has_open_tanyao": False}, None),  # kuitan off: no yaku, 422
    ({"hand": "234m067m345p999s11p", "win_tile": "4m", "riichi": True}, {"aka_dora": True},
     {"discarder": 2600}),  # riichi + red five: 2 han 40 fu
    ({"hand": "111m333p555s777m22p", "win_tile": "2p"}, {"double_yakuman": False}, {"discarder": 32000}),
    ({"hand": CHIN, "win_tile": "5m", "riichi": True, "ippatsu": True, "tsumo": True, "dora_indicators": "9m",
      "ura_dora_indicators": "7m"}, {"kazoe_limit": 1}, {"dealer": 12000, "non_dealer": 6000}),  # 15 han → sanbaiman
    ({"hand": "567m345p678s55p", "win_tile": "6s", "melds": [{"type": "chi", "tiles": "234m"}]},
     {"fu_for_open_pinfu": False}, {"discarder": 700}),  # 1 han 20 fu
    ({"hand": "234m567m345p678s99p", "win_tile": "4m", "tsumo": True}, {"fu_for_pinfu_tsumo": True},
     {"dealer": 500, "non_dealer": 300}),  # menzen tsumo 1 han 30 fu
    ({"hand": "22334455667788p", "win_tile": "8p"}, {"daisharin": True}, {"discarder": 32000}),
    ({"hand": "22334455667788s", "win_tile": "8s"}, {"has_daisharin_other_suits": True}, {"discarder": 32000}),
    ({"hand": "11223344556677z", "win_tile": "7z"}, {"has_daichisei": True}, {"discarder": 64000}),
    ({"hand": "123444s234456m66p", "win_tile": "4s", "riichi": True, "open_riichi": True},
     {"open_riichi": True}, {"discarder": 2600}),  # open riichi 2 han 40 fu
    ({"hand": "123444s234456m66p", "win_tile": "4s", "riichi": True, "open_riichi": True},
     {"open_riichi": True, "has_sashikomi_yakuman": True}, {"discarder": 32000}),
    ({"hand": "111222777p44455s", "win_tile": "7p", "tsumo": True, "seat_wind": "E", "paarenchan": 1},
     {"paarenchan": True}, {"each": 32000}),  # suuankou + paarenchan
    ({"hand": "12367778p678s456m", "win_tile": "7p", "seat_wind": "E", "paarenchan": 1},
     {"paarenchan": True, "paarenchan_needs_yaku": False}, {"discarder": 48000}),
    ({"hand": "55z", "win_tile": "5z", "seat_wind": "E", "paarenchan": 1, "melds": KANS4},
     {"paarenchan": True, "limit_to_sextuple_yakuman": False}, {"discarder": 336000}),  # 91 han uncapped
    ({"hand": CHIN, "win_tile": "5m"}, {"aotenjou": True}, {"discarder": 51200}),  # 6 han 50 fu, no limit
    ({"conditions": ["nagashi_mangan"], "honba": 1}, {"nagashi_payment": "draw"},
     {"dealer": 4000, "non_dealer": 2000}),  # no honba: the hand stays a draw
    ({"conditions": ["nagashi_mangan"]}, {"nagashi_mangan": False}, None),
]


def test_every_rule_option_through_the_score_endpoint(api):
    for decl, rules, payments in OPTION_CASES:
        body = {"seat_wind": "S", **decl, "rules": rules}
        r = api.as_staff("pit", "POST", "/api/v1/mahjong/score", body, key=None)
        if payments is None:
            assert r.status_code == 422 and r.headers["Content-Type"].startswith("application/problem+json"), r.json
        else:
            assert r.status_code == 200 and r.json["payments"] == payments, (rules, r.json)
        for y in r.json.get("yaku", []):
            assert y["ko"] and y["ja"] and y["en"] and y["ko"] != y["en"], y
