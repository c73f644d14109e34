"""The house-banked poker games end to end through HTTP on SQLite (issue 8): three card poker, Caribbean stud
(with its progressive on the jackpot controller), Texas hold'em bonus and pai gow poker -- a full round of
each with decisions, a fold, a foul, a dealer who does not qualify, misdeals, the pai gow bank, the CSPRNG
path, refusals that change nothing, the records, replays and a balanced ledger afterwards."""

from __future__ import annotations

import uuid

from tests.helpers import conforms as _conforms

from tests.e2e.test_tables_api import (
    FUND, bet, cashable, check_round, enrol, no_more_bets, ok_bet, ok_settle, open_round, settle, sit, table,
)

T = "/api/v1/tables"


def deal(api, code, n, body=None):
    return api.as_staff("pit", "POST", f"{T}/{code}/rounds/{n}/deal", body or {}, key=None)


def ok_deal(api, code, n, body=None):
    r = deal(api, code, n, body)
    assert r.status_code == 201, r.json
    return r.json


def decide(api, code, n, box, action, key="auto", **extra):
    return api.as_staff("pit", "POST", f"{T}/{code}/rounds/{n}/decisions", {"box": box, "action": action, **extra},
                        key=key)


def ok_decide(api, code, n, box, action, **extra):
    r = decide(api, code, n, box, action, **extra)
    assert r.status_code == 200, r.json
    return r.json


def level(api, code) -> dict:
    r = api.as_staff("operator", "GET", f"/api/v1/jackpots/levels/{code}", key=None)
    assert r.status_code == 200, r.json
    return r.json


def books(api, *codes):
    a = api.audit()
    assert a["balanced"], a
    assert all(j["agrees"] for j in a["jackpots"]), a["jackpots"]
    for code in codes:
        assert table(api, code)["bets_in_play"] == 0


def replayed(api, code, n) -> dict:
    r = api.as_staff("auditor", "GET", f"{T}/{code}/rounds/{n}/replay", key=None)
    assert r.status_code == 200, r.json
    assert r.json["matches"] and r.json.get("deal_matches", True) and r.json.get("progressive_matches", True), r.json
    return r.json


def seated(api, code, *names):
    players = []
    for i, name in enumerate(names, 1):
        p = enrol(api, name)
        sit(api, code, str(i), p["player"])
        players.append(p["player"])
    return players


def play_out_rng(api, code, n, view, choose):
    """Act for whoever is to act until nobody is (the CSPRNG path), choosing with ``choose(to_act)``."""
    while view.get("to_act"):
        ta = view["to_act"]
        box = ta["box"] if "box" in ta else ta["places"][0]
        view = ok_decide(api, code, n, box, choose(ta))
    return view


# ------------------------------------------------------------------ three card poker
def test_three_card_poker_round_with_fold_bonus_and_pair_plus(api):
    a, b, c, d = seated(api, "TCP-01", "Tcp A", "Tcp B", "Tcp C", "Tcp D")
    n = open_round(api, "TCP-01")
    # a side bet without the ante is refused, nothing debited
    r = bet(api, "TCP-01", n, a, "pair_plus", 5_000, box="1")
    assert r.status_code == 422 and r.json["field"] == "spot" and "ante" in r.json["detail"]
    assert cashable(api, a) == FUND
    # a box is the seated player's own
    r = bet(api, "TCP-01", n, b, "ante", 10_000, box="1")
    assert r.status_code == 422 and r.json["field"] == "box"
    ok_bet(api, "TCP-01", n, a, "ante", 10_000, box="1")
    ok_bet(api, "TCP-01", n, a, "pair_plus", 5_000, box="1")
    ok_bet(api, "TCP-01", n, b, "ante", 10_000, box="2")
    ok_bet(api, "TCP-01", n, c, "ante", 20_000, box="3")
    # no progressive level at this table: the progressive is refused
    r = bet(api, "TCP-01", n, c, "progressive", 5_000, box="3")
    assert r.status_code == 422 and r.json["field"] == "spot"
    no_more_bets(api, "TCP-01", n)
    v = ok_deal(api, "TCP-01", n, {"hands": {"1": ["AS", "KS", "QS"], "2": ["2C", "7D", "9H"], "3": ["5H", "5D", "9C"]},
                                   "dealer": ["KH", "JD", "4C"]})
    assert v["to_act"] == {"box": "1", "allowed": ["play", "fold"], "bet": 10_000} and v["dealer"] == []
    assert v["boxes"]["1"]["category"] == "straight_flush"
    assert deal(api, "TCP-01", n).status_code == 409  # dealt once
    # acting out of turn; a fifth player's box is not in the round
    r = decide(api, "TCP-01", n, "2", "fold")
    assert r.status_code == 422 and r.json["field"] == "box" and "out of turn" in r.json["detail"]
    r = decide(api, "TCP-01", n, "4", "play")
    assert r.status_code == 422 and r.json["field"] == "box"
    # a decision another game uses
    r = decide(api, "TCP-01", n, "1", "call")
    assert r.status_code == 422 and r.json["field"] == "action"
    v = ok_decide(api, "TCP-01", n, "1", "play", amount=10_000)
    assert v["debited"][0]["amount"] == 10_000 and cashable(api, a) == FUND - 25_000
    ok_decide(api, "TCP-01", n, "2", "fold")
    # the play bet is exactly the ante
    r = decide(api, "TCP-01", n, "3", "play", amount=10_000)
    assert r.status_code == 422 and r.json["field"] == "amount" and r.json["required"] == 20_000
    assert cashable(api, c) == FUND - 20_000
    v = ok_decide(api, "TCP-01", n, "3", "play")
    assert v["to_act"] is None and v["dealer"] == ["KH", "JD", "4C"]
    assert decide(api, "TCP-01", n, "3", "fold").status_code == 422  # nothing is due now
    s = ok_settle(api, "TCP-01", n)
    assert s["outcome"]["dealer_qualifies"] is True
    # A: mini royal beats K-high: ante 1:1 + ante bonus 5:1, play 1:1, pair plus 40:1
    assert s["payouts"] == {str(a): 20_000 + 50_000 + 20_000 + 205_000, str(b): 0, str(c): 80_000}
    assert cashable(api, a) == FUND + 270_000 and cashable(api, b) == FUND - 10_000 and cashable(api, c) == FUND + 40_000
    assert cashable(api, d) == FUND
    check_round(api, "TCP-01", n, s)
    replayed(api, "TCP-01", n)
    books(api, "TCP-01")


def test_three_card_poker_dealer_not_qualifying_and_the_csprng(api):
    a, = seated(api, "TCP-01", "Tcp Q")
    n = open_round(api, "TCP-01")
    ok_bet(api, "TCP-01", n, a, "ante", 10_000, box="1")
    no_more_bets(api, "TCP-01", n)
    # settled in one go from the dealer's input: hands, dealer and decisions
    s = ok_settle(api, "TCP-01", n, {"hands": {"1": ["9S", "6H", "2C"]}, "dealer": ["JH", "8C", "3D"],
                                    "decisions": [{"box": "1", "action": "play"}]})
    assert s["outcome"]["dealer_qualifies"] is False
    assert s["payouts"] == {str(a): 20_000 + 10_000}  # ante 1:1, play pushes
    assert cashable(api, a) == FUND + 10_000
    replayed(api, "TCP-01", n)
    # the CSPRNG deals; the player plays everything
    n = open_round(api, "TCP-01")
    ok_bet(api, "TCP-01", n, a, "ante", 10_000, box="1")
    no_more_bets(api, "TCP-01", n)
    v = ok_deal(api, "TCP-01", n)
    assert len(v["boxes"]["1"]["cards"]) == 3
    rec = api.as_staff("pit", "GET", f"{T}/TCP-01/rounds/{n}", key=None).json
    assert rec["mode"] == "rng" and rec["play"]["to_act"]["box"] == "1"
    play_out_rng(api, "TCP-01", n, v, lambda ta: "play")
    s = ok_settle(api, "TCP-01", n)
    assert s["mode"] == "rng" and len(s["outcome"]["dealer"]) == 3
    replayed(api, "TCP-01", n)
    books(api, "TCP-01")


# ------------------------------------------------------------------ Caribbean stud + its progressive
def test_caribbean_round_royal_takes_the_meter_and_call_paytable(api):
    assert table(api, "CSP-01")["progressive"]["level"] == "CSP_PROG"
    before = level(api, "CSP_PROG")
    assert before["kind"] == "table" and before["value"] == 5_000_000
    a, b, c = seated(api, "CSP-01", "Csp A", "Csp B", "Csp C")
    n = open_round(api, "CSP-01")
    r = bet(api, "CSP-01", n, a, "progressive", 1_000, box="1")
    assert r.status_code == 422 and r.json["field"] == "spot"  # the ante first
    for p, box in ((a, "1"), (b, "2"), (c, "3")):
        ok_bet(api, "CSP-01", n, p, "ante", 10_000, box=box)
        ok_bet(api, "CSP-01", n, p, "progressive", 1_000, box=box)
    r = bet(api, "CSP-01", n, a, "progressive", 2_000, box="1")
    assert r.status_code == 422 and r.json["field"] in ("amount", "spot")  # a fixed stake, one per box
    no_more_bets(api, "CSP-01", n)
    v = ok_deal(api, "CSP-01", n, {"hands": {"1": ["AH", "KH", "QH", "JH", "TH"], "2": ["9C", "9D", "4S", "4H", "2C"],
                                             "3": ["8S", "7D", "5C", "3H", "2D"]},
                                   "dealer": ["AS", "KD", "7C", "5D", "3S"]})
    assert v["dealer_upcard"] == "3S" and v["to_act"] == {"box": "1", "allowed": ["call", "fold"], "bet": 20_000}
    # the call bet is exactly twice the ante
    r = decide(api, "CSP-01", n, "1", "call", amount=10_000)
    assert r.status_code == 422 and r.json["field"] == "amount"
    ok_decide(api, "CSP-01", n, "1", "call", amount=20_000)
    ok_decide(api, "CSP-01", n, "2", "call")
    ok_decide(api, "CSP-01", n, "3", "fold")
    # a ₩5M progressive on dealer-entered cards: the pit may not settle it, a supervisor verifies and settles
    entries, wallet = api.audit()["journal_entries"], cashable(api, a)
    r = settle(api, "CSP-01", n)
    assert r.status_code == 403 and r.json["field"] == "round", r.json
    assert api.audit()["journal_entries"] == entries and cashable(api, a) == wallet
    assert level(api, "CSP_PROG")["value"] == 5_000_000
    r = api.as_staff("supervisor", "POST", f"{T}/CSP-01/rounds/{n}/settle", {})
    assert r.status_code == 200, r.json
    s = r.json
    prog = s["progressive"]
    # three stakes of ₩1,000 put 25% each on the meter; the royal takes all of it; the meter restarts at its seed
    assert prog["meter_before"] == 5_000_000 and prog["contributed_milli"] == 750_000
    assert [(x["box"], x["hand"], x["amount"]) for x in prog["awards"]] == [("1", "royal_flush", 5_000_750)]
    lv = level(api, "CSP_PROG")
    assert lv["value"] == 5_000_000 and lv["cycle"] == before["cycle"] + 1 and lv["hits"] == 1
    # A: ante 1:1, call 100:1 (royal), the meter; B: ante 1:1, call 2:1 (two pair); C folded (ante, progressive lost)
    assert s["payouts"] == {str(a): 20_000 + 20_000 + 2_000_000, str(b): 20_000 + 60_000, str(c): 0}
    assert cashable(api, a) == FUND - 31_000 + 2_040_000 + 5_000_750
    assert cashable(api, b) == FUND - 31_000 + 80_000
    assert cashable(api, c) == FUND - 11_000
    check_round(api, "CSP-01", n, s)
    assert replayed(api, "CSP-01", n)["progressive"]["awards"][0]["amount"] == 5_000_750
    events = api.as_staff("auditor", "GET", "/api/v1/jackpots/events?level=CSP_PROG", key=None).json["events"]
    assert events[0]["kind"] == "table_award" and events[0]["detail"]["amount"] == 5_000_750
    books(api, "CSP-01")


def test_caribbean_dealer_not_qualifying_flush_fixed_award_and_misdeals(api):
    a, b = seated(api, "CSP-01", "Csp Q", "Csp R")
    n = open_round(api, "CSP-01")
    for p, box in ((a, "1"), (b, "2")):
        ok_bet(api, "CSP-01", n, p, "ante", 10_000, box=box)
        ok_bet(api, "CSP-01", n, p, "progressive", 1_000, box=box)
    no_more_bets(api, "CSP-01", n)
    # box 2 was dealt four cards: a dead hand, its bets come back
    ok_deal(api, "CSP-01", n, {"hands": {"1": ["2H", "6H", "9H", "JH", "KH"], "2": ["3C", "3D", "8S", "TC"]},
                               "dealer": ["QS", "9D", "7C", "5S", "2S"]})
    r = decide(api, "CSP-01", n, "2", "call")
    assert r.status_code == 422 and r.json["field"] == "box" and "dead" in r.json["detail"]
    ok_decide(api, "CSP-01", n, "1", "call")
    s = ok_settle(api, "CSP-01", n)
    assert s["outcome"]["dealer_qualifies"] is False
    # A: ante 1:1, call pushes; the flush's fixed ₩50,000 paid by the house through the controller
    assert s["payouts"] == {str(a): 20_000 + 20_000, str(b): 11_000}
    assert [(x["hand"], x["amount"], x["from_house"]) for x in s["progressive"]["awards"]] == [("flush", 50_000, 50_000)]
    assert cashable(api, a) == FUND - 31_000 + 40_000 + 50_000 and cashable(api, b) == FUND
    replayed(api, "CSP-01", n)
    # the dealer dealt six cards: a misdeal, antes returned, the progressive hands still paid (A: full house)
    meter = level(api, "CSP_PROG")["value_milli"]
    n = open_round(api, "CSP-01")
    for p, box in ((a, "1"), (b, "2")):
        ok_bet(api, "CSP-01", n, p, "ante", 10_000, box=box)
        ok_bet(api, "CSP-01", n, p, "progressive", 1_000, box=box)
    no_more_bets(api, "CSP-01", n)
    v = ok_deal(api, "CSP-01", n, {"hands": {"1": ["8H", "8D", "8S", "4C", "4D"], "2": ["3C", "7D", "9S", "TC", "QD"]},
                                   "dealer": ["AS", "KD", "7C", "5S", "2S", "6H"]})
    assert v["misdeal"] is True and v["to_act"] is None
    s = ok_settle(api, "CSP-01", n)
    assert s["outcome"]["misdeal"] is True
    assert s["payouts"] == {str(a): 10_000, str(b): 10_000}  # antes back; progressive stakes stay in the game
    assert [(x["hand"], x["amount"]) for x in s["progressive"]["awards"]] == [("full_house", 100_000)]
    assert level(api, "CSP_PROG")["value_milli"] == meter + 2 * 250_000
    assert cashable(api, a) == FUND - 31_000 + 40_000 + 50_000 - 1_000 + 100_000
    replayed(api, "CSP-01", n)
    books(api, "CSP-01")


def test_settle_retried_with_the_same_key_pays_the_progressive_once(api):
    a, = seated(api, "CSP-01", "Csp Once")
    n = open_round(api, "CSP-01")
    ok_bet(api, "CSP-01", n, a, "ante", 10_000, box="1")
    ok_bet(api, "CSP-01", n, a, "progressive", 1_000, box="1")
    no_more_bets(api, "CSP-01", n)
    ok_deal(api, "CSP-01", n, {"hands": {"1": ["AD", "KD", "QD", "JD", "TD"]}, "dealer": ["AS", "KS", "7C", "5S", "2S"]})
    ok_decide(api, "CSP-01", n, "1", "call")
    key = uuid.uuid4().hex  # a ₩5M royal on dealer-entered cards: the supervisor settles (verifies) it

    def settle(api, code, n, key="auto"):
        return api.as_staff("supervisor", "POST", f"{T}/{code}/rounds/{n}/settle", {}, key=key)

    first = settle(api, "CSP-01", n, key=key)
    again = settle(api, "CSP-01", n, key=key)
    assert first.status_code == again.status_code == 200 and first.json == again.json
    assert again.headers.get("Idempotent-Replayed") in ("true", None)
    other = settle(api, "CSP-01", n)
    assert other.status_code == 409
    assert cashable(api, a) == FUND - 31_000 + 20_000 + 20_000 + 2_000_000 + 5_000_250
    assert level(api, "CSP_PROG")["hits"] == 1
    books(api, "CSP-01")


# ------------------------------------------------------------------ Texas hold'em bonus
def test_holdem_bonus_round_streets_fold_bonus_and_bad_input(api):
    a, b = seated(api, "HB-01", "Hb A", "Hb B")
    n = open_round(api, "HB-01")
    r = bet(api, "HB-01", n, a, "bonus", 5_000, box="1")
    assert r.status_code == 422 and r.json["field"] == "spot"
    ok_bet(api, "HB-01", n, a, "ante", 10_000, box="1")
    ok_bet(api, "HB-01", n, a, "bonus", 5_000, box="1")
    ok_bet(api, "HB-01", n, b, "ante", 10_000, box="2")
    no_more_bets(api, "HB-01", n)
    r = deal(api, "HB-01", n, {"board": ["2H", "7D", "9C", "KS"], "hands": {"1": ["AH", "AD"], "2": ["8C", "8S"]},
                               "dealer": ["QC", "4D"]})
    assert r.status_code == 422 and r.json["field"] == "board"  # the board has five cards; nothing dealt
    v = ok_deal(api, "HB-01", n, {"board": ["2H", "7D", "9C", "KS", "3H"], "hands": {"1": ["AH", "AD"], "2": ["8C", "8S"]},
                                  "dealer": ["QC", "4D"]})
    assert v["street"] == "preflop" and v["board"] == [] and v["to_act"]["allowed"] == ["bet", "fold"]
    assert v["to_act"]["bet"] == 20_000 and v["dealer"] == []
    assert decide(api, "HB-01", n, "2", "fold").json["field"] == "box"  # out of turn
    r = decide(api, "HB-01", n, "1", "check")  # no check before the flop
    assert r.status_code == 422 and r.json["field"] == "action"
    r = decide(api, "HB-01", n, "1", "bet", amount=10_000)  # the flop bet is 2× the ante
    assert r.status_code == 422 and r.json["field"] == "amount"
    ok_decide(api, "HB-01", n, "1", "bet", amount=20_000)
    v = ok_decide(api, "HB-01", n, "2", "fold")
    assert v["street"] == "flop" and v["board"] == ["2H", "7D", "9C"] and v["to_act"]["bet"] == 10_000
    v = ok_decide(api, "HB-01", n, "1", "bet", amount=10_000)
    assert v["street"] == "turn" and v["board"][-1] == "KS"
    v = ok_decide(api, "HB-01", n, "1", "check")
    assert v["street"] == "showdown" and v["to_act"] is None and v["dealer"] == ["QC", "4D"]
    s = ok_settle(api, "HB-01", n)
    # A's aces beat K-high: flop and turn 1:1, the ante pushes (below a straight), bonus A-A 30:1; B folded
    assert s["payouts"] == {str(a): 10_000 + 40_000 + 20_000 + 155_000, str(b): 0}
    assert cashable(api, a) == FUND + 180_000 and cashable(api, b) == FUND - 10_000
    check_round(api, "HB-01", n, s)
    replayed(api, "HB-01", n)
    books(api, "HB-01")


def test_holdem_bonus_csprng_round(api):
    a, b = seated(api, "HB-01", "Hb R", "Hb S")
    n = open_round(api, "HB-01")
    ok_bet(api, "HB-01", n, a, "ante", 10_000, box="1")
    ok_bet(api, "HB-01", n, b, "ante", 20_000, box="2")
    no_more_bets(api, "HB-01", n)
    v = ok_deal(api, "HB-01", n)
    play_out_rng(api, "HB-01", n, v, lambda ta: "bet")
    s = ok_settle(api, "HB-01", n)
    assert s["mode"] == "rng" and len(s["outcome"]["board"]) == 5
    assert {x["bet"]["spot"] for x in s["settlements"]} == {"ante", "flop", "turn", "river"}
    replayed(api, "HB-01", n)
    books(api, "HB-01")


# ------------------------------------------------------------------ pai gow poker
PG_HANDS = {"1": ["AS", "AH", "KC", "KD", "QS", "JS", "4H"], "2": ["8C", "8D", "6S", "4C", "3H", "TH", "2S"],
            "3": ["9S", "9H", "7C", "6D", "5S", "4D", "QH"], "dealer": ["2C", "3D", "5H", "7S", "9C", "JD", "KH"]}


def test_pai_gow_round_foul_house_way_and_commission_rounded_up(api):
    a, b, c = seated(api, "PG-01", "Pg A", "Pg B", "Pg C")
    r = api.as_staff("pit", "POST", f"{T}/PG-01/seats", {"seat": "7", "player_id": a}, key=None)
    assert r.status_code == 422 and r.json["field"] == "seat"  # the ring has six seats
    n = open_round(api, "PG-01")
    ok_bet(api, "PG-01", n, a, "main", 100_000, box="1")
    ok_bet(api, "PG-01", n, b, "main", 50_000, box="2")
    ok_bet(api, "PG-01", n, c, "main", 31_000, box="3")
    no_more_bets(api, "PG-01", n)
    r = deal(api, "PG-01", n, {"dice": [3, 4, 9], "hands": PG_HANDS})
    assert r.status_code == 422 and r.json["field"] == "dice"
    v = ok_deal(api, "PG-01", n, {"dice": [3, 4, 5], "hands": PG_HANDS})
    assert v["dice"] == [3, 4, 5] and v["banker"] == "dealer" and sorted(v["to_act"]["places"]) == ["1", "2", "3"]
    assert "dealer" not in v["places"]
    # "house way for me" and the optimal setting, before deciding
    hw = api.as_staff("pit", "GET", f"{T}/PG-01/rounds/{n}/boxes/3/house-way", key=None)
    assert hw.status_code == 200, hw.json
    assert hw.json["house_way_policy"] == "9-1" and sorted(hw.json["house_way"]["low"]) == ["7C", "QH"]
    opt = api.as_staff("pit", "GET", f"{T}/PG-01/rounds/{n}/boxes/1/optimal-setting?samples=300", key=None)
    assert opt.status_code == 200, opt.json
    best = opt.json["settings"]
    assert best and best[0]["ev"] >= best[-1]["ev"] and not any(s["foul"] for s in best)
    spec = api.client.get("/openapi.json").json  # both answers have the shape the document gives them
    _conforms(spec, "/api/v1/tables/{code}/rounds/{number}/boxes/{box}/house-way", "get", 200, hw.json)
    _conforms(spec, "/api/v1/tables/{code}/rounds/{number}/boxes/{box}/optimal-setting", "get", 200, opt.json)
    # invalid settings: wrong card counts, a card not in the hand
    r = decide(api, "PG-01", n, "1", "set", high=["AS", "AH", "QS", "JS"], low=["KC", "KD", "4H"])
    assert r.status_code == 422 and r.json["field"] in ("high", "low")
    r = decide(api, "PG-01", n, "1", "set", high=["AS", "AH", "QS", "JS", "2D"], low=["KC", "KD"])
    assert r.status_code == 422
    ok_decide(api, "PG-01", n, "1", "set", high=["AS", "AH", "QS", "JS", "4H"], low=["KC", "KD"])
    # B's low outranks the high: refused until confirmed, then an automatic loser
    foul = {"high": ["TH", "6S", "4C", "3H", "2S"], "low": ["8C", "8D"]}
    r = decide(api, "PG-01", n, "2", "set", **foul)
    assert r.status_code == 422 and r.json["field"] == "low" and r.json["foul"] is True
    ok_decide(api, "PG-01", n, "2", "set", confirm_foul=True, **foul)
    r = decide(api, "PG-01", n, "2", "house_way")
    assert r.status_code == 422  # already set
    v = ok_decide(api, "PG-01", n, "3", "house_way")
    assert v["to_act"] is None and v["places"]["3"]["house_way"] is True
    s = ok_settle(api, "PG-01", n)
    dealer = next(h for h in s["outcome"]["hands"] if h["place"] == "dealer")
    assert dealer["house_way"] is True and dealer["high_hand"] == "high_card"
    assert s["outcome"]["results"] == {"1": 1, "2": -1, "3": 1}
    # wins pay even money less 5% rounded UP to the ₩100 unit: 31,000 → 1,550 → 1,600
    commissions = {x["bet"]["box"]: x["commission"] for x in s["settlements"]}
    assert commissions == {"1": 5_000, "2": 0, "3": 1_600}
    assert s["payouts"] == {str(a): 195_000, str(b): 0, str(c): 60_400}
    assert cashable(api, b) == FUND - 50_000
    check_round(api, "PG-01", n, s)
    replayed(api, "PG-01", n)
    books(api, "PG-01")


def test_pai_gow_player_banks_once_every_seven_hands(api):
    a, b, c = seated(api, "PG-01", "Bank A", "Bank B", "Bank C")
    poor = enrol(api, "Bank Poor", fund=20_000)["player"]
    sit(api, "PG-01", "4", poor)
    # hand 1: everybody plays against the dealer (all house way, CSPRNG)
    n = open_round(api, "PG-01")
    for p, box, amt in ((a, "1", 100_000), (b, "2", 50_000), (c, "3", 31_000), (poor, "4", 10_000)):
        ok_bet(api, "PG-01", n, p, "main", amt, box=box)
    no_more_bets(api, "PG-01", n)
    v = ok_deal(api, "PG-01", n)
    play_out_rng(api, "PG-01", n, v, lambda ta: "house_way")
    ok_settle(api, "PG-01", n)
    replayed(api, "PG-01", n)
    # hand 2: A banks: the cover is B's and C's bets plus the house's bet (A's last bet)
    n = open_round(api, "PG-01")
    ok_bet(api, "PG-01", n, b, "main", 50_000, box="2")
    ok_bet(api, "PG-01", n, c, "main", 31_000, box="3")
    ok_bet(api, "PG-01", n, poor, "main", 10_000, box="4")
    r = api.as_staff("pit", "POST", f"{T}/PG-01/rounds/{n}/bank", {"seat": "1"})
    assert r.status_code == 409  # after no more bets
    no_more_bets(api, "PG-01", n)
    r = api.as_staff("pit", "POST", f"{T}/PG-01/rounds/{n}/bank", {"seat": "4"})
    assert r.status_code == 422 and r.json["field"] == "seat"  # has bets this hand
    wallet = cashable(api, a)
    r = api.as_staff("pit", "POST", f"{T}/PG-01/rounds/{n}/bank", {"seat": "1"})
    assert r.status_code == 201, r.json
    assert r.json["cover"] == 50_000 + 31_000 + 10_000 + 100_000 and r.json["house_bet"] == 100_000
    assert cashable(api, a) == wallet - 191_000
    hands = {"1": PG_HANDS["1"], "2": ["2C", "3D", "5H", "7S", "9C", "JD", "6H"], "3": PG_HANDS["2"],
             "4": ["2D", "3C", "5C", "6C", "TD", "JC", "KS"], "dealer": PG_HANDS["3"]}
    v = ok_deal(api, "PG-01", n, {"dice": [1, 2, 4], "hands": hands})
    assert v["banker"] == "1" and v["house_bet"] == 100_000
    # the banker sets last
    r = decide(api, "PG-01", n, "1", "set", high=["AS", "AH", "QS", "JS", "4H"], low=["KC", "KD"])
    assert r.status_code == 422 and "out of turn" in r.json["detail"]
    for place in ("2", "3", "4"):
        ok_decide(api, "PG-01", n, place, "house_way")
    ok_decide(api, "PG-01", n, "1", "set", high=["AS", "AH", "QS", "JS", "4H"], low=["KC", "KD"])
    s = ok_settle(api, "PG-01", n)
    assert s["outcome"]["results"] == {"2": -1, "3": -1, "4": -1} and s["outcome"]["house_result"] == -1
    # the bank wins 91,000 from the players and 100,000 from the house: 5% of 191,000 = 9,550 → 9,600
    bank = next(x for x in s["settlements"] if x["bet"]["spot"] == "bank")
    assert bank["win"] == 191_000 and bank["commission"] == 9_600
    assert cashable(api, a) == wallet + 191_000 - 9_600
    assert s["house_net"] == 9_600 - 100_000
    replayed(api, "PG-01", n)
    books(api, "PG-01")
    # hand 3: A may not bank again within seven hands; the poor player cannot cover
    n = open_round(api, "PG-01")
    ok_bet(api, "PG-01", n, b, "main", 50_000, box="2")
    no_more_bets(api, "PG-01", n)
    r = api.as_staff("pit", "POST", f"{T}/PG-01/rounds/{n}/bank", {"seat": "1"})
    assert r.status_code == 422 and "7 hands" in r.json["detail"]
    r = api.as_staff("pit", "POST", f"{T}/PG-01/rounds/{n}/bank", {"seat": "4"})
    assert r.status_code == 422 and "cover" in r.json["detail"]
    v = ok_deal(api, "PG-01", n)
    assert v["banker"] == "dealer"


def test_pai_gow_dead_hands(api):
    a, b = seated(api, "PG-01", "Dead A", "Dead B")
    n = open_round(api, "PG-01")
    ok_bet(api, "PG-01", n, a, "main", 20_000, box="1")
    ok_bet(api, "PG-01", n, b, "main", 20_000, box="2")
    no_more_bets(api, "PG-01", n)
    # B's hand has six cards: dead, the bet comes back; A plays on
    v = ok_deal(api, "PG-01", n, {"dice": [2, 2, 2], "hands": {"1": PG_HANDS["1"], "2": PG_HANDS["2"][:6],
                                                               "dealer": PG_HANDS["dealer"]}})
    assert v["places"]["2"]["dead"] is True and v["to_act"]["places"] == ["1"]
    r = decide(api, "PG-01", n, "2", "house_way")
    assert r.status_code == 422 and "dead" in r.json["detail"]
    ok_decide(api, "PG-01", n, "1", "house_way")
    s = ok_settle(api, "PG-01", n)
    assert {x["bet"]["box"]: x["result"] for x in s["settlements"]} == {"1": "win", "2": "void"}
    # the banker's (dealer's) hand dealt wrong: every hand is dead, every bet returned
    n = open_round(api, "PG-01")
    ok_bet(api, "PG-01", n, a, "main", 20_000, box="1")
    no_more_bets(api, "PG-01", n)
    v = ok_deal(api, "PG-01", n, {"dice": [2, 2, 2], "hands": {"1": PG_HANDS["1"], "dealer": PG_HANDS["dealer"] + ["QC"]}})
    assert v["all_dead"] is True and v["to_act"] is None
    s = ok_settle(api, "PG-01", n)
    assert [x["result"] for x in s["settlements"]] == ["void"] and s["house_net"] == 0
    replayed(api, "PG-01", n)
    books(api, "PG-01")


# ------------------------------------------------------------------ the framework around the games
def test_void_poker_round_returns_every_bet_and_player_token_decides(api, app):
    creds = app.config["DEMO_CREDENTIALS"]["players"][0]
    r = api.client.post("/api/v1/players/login", json={"card_number": creds["card_number"], "pin": creds["pin"]})
    assert r.status_code == 200, r.json
    token, a = r.json["token"], r.json["player"]
    b, = seated(api, "CSP-01", "Void B")  # seat 1
    sit(api, "CSP-01", "2", a)
    wallet = cashable(api, a)
    meter = level(api, "CSP_PROG")["value_milli"]
    n = open_round(api, "CSP-01")
    ok_bet(api, "CSP-01", n, b, "ante", 10_000, box="1")
    ok_bet(api, "CSP-01", n, a, "ante", 10_000, box="2")
    ok_bet(api, "CSP-01", n, a, "progressive", 1_000, box="2")
    no_more_bets(api, "CSP-01", n)
    ok_deal(api, "CSP-01", n)
    ok_decide(api, "CSP-01", n, "1", "call")
    h = {"Authorization": f"Bearer {token}", "Idempotency-Key": uuid.uuid4().hex}
    r = api.client.post(f"{T}/CSP-01/rounds/{n}/decisions", json={"box": "1", "action": "fold"}, headers=h)
    assert r.status_code == 403  # not the player's box
    h["Idempotency-Key"] = uuid.uuid4().hex
    r = api.client.post(f"{T}/CSP-01/rounds/{n}/decisions", json={"box": "2", "action": "call"}, headers=h)
    assert r.status_code == 200, r.json
    assert cashable(api, a) == wallet - 31_000
    # a void round returns every bet, the decisions' bets included, and feeds no meter
    s = ok_settle(api, "CSP-01", n, {"void": True, "reason": "cards exposed"})
    assert s["status"] == "void" and cashable(api, a) == wallet and cashable(api, b) == FUND
    assert level(api, "CSP_PROG")["value_milli"] == meter
    replayed(api, "CSP-01", n)
    books(api, "CSP-01")


def test_poker_table_admin_and_refusals(api):
    lst = api.as_staff("pit", "GET", T, key=None).json["tables"]
    assert {"three_card_poker", "caribbean_stud", "holdem_bonus", "pai_gow_poker"} <= {t["game"] for t in lst}
    # a table with a progressive needs a table level on the jackpot controller
    r = api.as_staff("operator", "POST", T, {"code": "HB-P", "game": "holdem_bonus", "progressive_level": "MEGA"})
    assert r.status_code == 409 and r.json["field"] == "progressive_level"
    r = api.as_staff("operator", "POST", T, {"code": "PG-P", "game": "pai_gow_poker", "progressive_level": "CSP_PROG"})
    assert r.status_code == 422 and r.json["field"] == "progressive_level"
    r = api.as_staff("operator", "POST", T, {"code": "PG-93", "game": "pai_gow_poker", "rules": {"house_way": "9-3"},
                                             "commission_unit": 500})
    assert r.status_code == 201, r.json
    assert r.json["rules"]["house_way"] == "9-3" and r.json["rules"]["commission_unit"] == 500
    r = api.as_staff("operator", "POST", T, {"code": "PG-X", "game": "pai_gow_poker", "rules": {"house_way": "9-4"}})
    assert r.status_code == 422 and r.json["field"] == "rules"
    # deal before no more bets; settle an undealt round without input
    a, = seated(api, "TCP-01", "Adm A")
    n = open_round(api, "TCP-01")
    ok_bet(api, "TCP-01", n, a, "ante", 10_000, box="1")
    assert deal(api, "TCP-01", n).status_code == 409
    no_more_bets(api, "TCP-01", n)
    assert settle(api, "TCP-01", n).status_code == 409
    r = deal(api, "TCP-01", n, {"hands": {"1": ["AS", "KS", "QS"]}, "dealer": ["AS", "JD", "4C"]})
    assert r.status_code == 422 and r.json["field"] == "cards"  # one deck
    r = deal(api, "TCP-01", n, {"hands": {"1": ["AS", "KS", "QS"], "2": ["2C", "3C", "4C"]}, "dealer": ["KH", "JD", "4D"]})
    assert r.status_code == 422 and r.json["field"] == "hands"  # box 2 has no ante
    assert cashable(api, a) == FUND - 10_000


def test_three_card_and_holdem_progressives_reuse_the_table_level(api):
    """The same mechanism as configuration: a ``table`` level per table; paytables from the table's rules."""
    for code, reset in (("TCP_PROG", 2_000_000), ("HB_PROG", 3_000_000)):
        r = api.as_staff("operator", "POST", "/api/v1/jackpots/levels",
                         {"code": code, "name": code, "kind": "table", "reset": reset, "ceiling": 100_000_000,
                          "rate_ppm": 200_000})
        assert r.status_code == 201, r.json
    r = api.as_staff("operator", "POST", "/api/v1/jackpots/levels",
                     {"code": "BAD_PROG", "name": "x", "kind": "table", "reset": 1_000, "ceiling": 9_000,
                      "rate_ppm": 200_000, "combination": "royal"})
    assert r.status_code == 422 and r.json["field"] == "combination"
    _ok_table = {"TCP-P": ("three_card_poker", "TCP_PROG"), "HB-P": ("holdem_bonus", "HB_PROG")}
    for code, (game, lv) in _ok_table.items():
        r = api.as_staff("operator", "POST", T, {"code": code, "game": game, "progressive_level": lv})
        assert r.status_code == 201 and r.json["progressive"]["value"] > 0, r.json
    a, b = seated(api, "TCP-P", "Prog A", "Prog B")
    n = open_round(api, "TCP-P")
    for p, box in ((a, "1"), (b, "2")):
        ok_bet(api, "TCP-P", n, p, "ante", 10_000, box=box)
        ok_bet(api, "TCP-P", n, p, "progressive", 5_000, box=box)
    no_more_bets(api, "TCP-P", n)
    # the progressive pays whatever the decision (a folded mini royal is rare, but the page pays the hand)
    r = api.as_staff("supervisor", "POST", f"{T}/TCP-P/rounds/{n}/settle",  # a ₩2M award: the supervisor settles
                     {"hands": {"1": ["AD", "KD", "QD"], "2": ["7S", "7H", "7C"]}, "dealer": ["2C", "5H", "9D"],
                      "decisions": [{"box": "1", "action": "play"}, {"box": "2", "action": "fold"}]})
    assert r.status_code == 200, r.json
    s = r.json
    got = [(x["box"], x["hand"], x["amount"]) for x in s["progressive"]["awards"]]
    assert got == [("1", "mini_royal", 2_000_000 + 2 * 1_000), ("2", "three_kind", 150_000)]
    assert level(api, "TCP_PROG")["value"] == 2_000_000
    replayed(api, "TCP-P", n)
    # hold'em: the progressive is on the hole cards and the flop; a hand folded before the flop forfeits it
    c, d = seated(api, "HB-P", "Prog C", "Prog D")
    n = open_round(api, "HB-P")
    for p, box in ((c, "1"), (d, "2")):
        ok_bet(api, "HB-P", n, p, "ante", 10_000, box=box)
        ok_bet(api, "HB-P", n, p, "progressive", 5_000, box=box)
    no_more_bets(api, "HB-P", n)
    ok_deal(api, "HB-P", n, {"board": ["QH", "JH", "TH", "2C", "3D"], "hands": {"1": ["AH", "KH"], "2": ["QS", "QD"]},
                             "dealer": ["7C", "8D"]})
    ok_decide(api, "HB-P", n, "1", "bet")
    ok_decide(api, "HB-P", n, "2", "fold")  # three queens on the flop, forfeited
    ok_decide(api, "HB-P", n, "1", "check")
    ok_decide(api, "HB-P", n, "1", "check")
    r = api.as_staff("pit", "POST", f"{T}/HB-P/rounds/{n}/settle", {})  # a ₩3M award on entered cards
    assert r.status_code == 403 and r.json["field"] == "round"
    r = api.as_staff("supervisor", "POST", f"{T}/HB-P/rounds/{n}/settle", {})
    assert r.status_code == 200, r.json
    s = r.json
    assert [(x["box"], x["hand"], x["amount"]) for x in s["progressive"]["awards"]] == [
        ("1", "royal_flush", 3_000_000 + 2 * 1_000)]
    replayed(api, "HB-P", n)
    books(api, "TCP-P", "HB-P")


def test_pai_gow_helpers_and_the_bank_with_the_players_own_token(api):
    """A player's own token: the house way and the optimal setting for their own place only, and banking
    only from their own seat; another player's token is refused (403) and moves nothing."""
    pa, pb = enrol(api, "Pg Own A"), enrol(api, "Pg Own B")
    a, b = pa["player"], pb["player"]
    sit(api, "PG-01", "1", a)
    sit(api, "PG-01", "2", b)

    def token(p):
        r = api.client.post("/api/v1/players/login", json={"card_number": p["card_number"], "pin": "2468"})
        assert r.status_code == 200, r.json
        return {"Authorization": f"Bearer {r.json['token']}"}

    ta, tb = token(pa), token(pb)
    # hand 1: both play; the helpers answer for one's own place only
    n = open_round(api, "PG-01")
    ok_bet(api, "PG-01", n, a, "main", 10_000, box="1")
    ok_bet(api, "PG-01", n, b, "main", 10_000, box="2")
    no_more_bets(api, "PG-01", n)
    ok_deal(api, "PG-01", n, {"dice": [3, 4, 5], "hands": {"1": PG_HANDS["1"], "2": PG_HANDS["2"],
                                                             "dealer": PG_HANDS["3"]}})
    r = api.client.get(f"{T}/PG-01/rounds/{n}/boxes/1/house-way", headers=ta)
    assert r.status_code == 200 and r.json["box"] == "1", r.json
    r = api.client.get(f"{T}/PG-01/rounds/{n}/boxes/1/house-way", headers=tb)
    assert r.status_code == 403 and r.json["field"] == "box"
    r = api.client.get(f"{T}/PG-01/rounds/{n}/boxes/1/optimal-setting?samples=100", headers=tb)
    assert r.status_code == 403 and r.json["field"] == "box"
    for bad in ("-5", "abc", "100000000"):  # 100..5,000 dealer hands, refused rather than quietly changed
        r = api.client.get(f"{T}/PG-01/rounds/{n}/boxes/1/optimal-setting?samples={bad}", headers=ta)
        assert r.status_code == 422 and r.json["field"] == "samples", r.json
    v = ok_decide(api, "PG-01", n, "1", "house_way")
    play_out_rng(api, "PG-01", n, v, lambda ta_: "house_way")
    ok_settle(api, "PG-01", n)
    # hand 2: B may not bank from A's seat; A banks from their own
    n = open_round(api, "PG-01")
    ok_bet(api, "PG-01", n, b, "main", 10_000, box="2")
    no_more_bets(api, "PG-01", n)
    before = api.audit()["journal_entries"]
    r = api.client.post(f"{T}/PG-01/rounds/{n}/bank", json={"seat": "1"}, headers={**tb, "Idempotency-Key": uuid.uuid4().hex})
    assert r.status_code == 403 and r.json["field"] == "seat"
    assert api.audit()["journal_entries"] == before
    r = api.client.post(f"{T}/PG-01/rounds/{n}/bank", json={"seat": "1"}, headers={**ta, "Idempotency-Key": uuid.uuid4().hex})
    assert r.status_code == 201, r.json
    books(api)
