"""The pages' two limit rules end to end through HTTP: a spectator backs a seated player's box only with that
player's (revocable) permission and within the box's limit, and is settled from the same hand; a dealer's
mistake accepting a bet over the maximum is paid or taken only up to the maximum, the excess handed back."""

from __future__ import annotations

import uuid

from tests.e2e.test_tables_api import FUND, assert_books, bet, cashable, check_round, enrol, open_round, sit, table

BJ = "BJ-LIM"
BJ_LIMITS = {"chip_unit": 1_000, "spots": {"main": {"minimum": 10_000, "maximum": 50_000},
                                           "pair": {"minimum": 1_000, "maximum": 10_000}}}


def login(api, p) -> str:
    r = api.client.post("/api/v1/players/login", json={"card_number": p["card_number"], "pin": "2468"})
    assert r.status_code == 200, r.json
    return r.json["token"]


def as_player(api, token, method, path, body=None, key="auto"):
    h = {"Authorization": f"Bearer {token}"}
    if key == "auto":
        h["Idempotency-Key"] = uuid.uuid4().hex
    return api.client.open(path, method=method, json=body, headers=h)


def bj_table(api):
    r = api.as_staff("operator", "POST", "/api/v1/tables", {"code": BJ, "game": "blackjack", "limits": BJ_LIMITS},
                     key=None)
    assert r.status_code == 201, r.json


def refused(r, status, field):
    assert r.status_code == status, r.json
    assert r.headers["Content-Type"].startswith("application/problem+json")
    assert r.json["field"] == field, r.json


def settle(api, code, n, body):
    r = api.as_staff("pit", "POST", f"/api/v1/tables/{code}/rounds/{n}/no-more-bets", key=None)
    assert r.status_code == 200, r.json
    r = api.as_staff("pit", "POST", f"/api/v1/tables/{code}/rounds/{n}/settle", body)
    assert r.status_code == 200, r.json
    return r.json


# ------------------------------------------------------------------ spectator backing with permission
def test_backer_needs_live_permission_and_is_settled_from_the_same_hand(api):
    bj_table(api)
    a, b, c = enrol(api, "Seated A"), enrol(api, "Backer B"), enrol(api, "Stranger C")
    pa, pb, pc = a["player"], b["player"], c["player"]
    ta, tc = login(api, a), login(api, c)
    sit(api, BJ, "1", pa)
    backers = f"/api/v1/tables/{BJ}/seats/1/backers"

    n = open_round(api, BJ)
    assert bet(api, BJ, n, pa, "main", 20_000, box="1").status_code == 201
    refused(bet(api, BJ, n, pb, "main", 10_000, box="1"), 403, "box")          # no permission: nothing debited
    assert cashable(api, pb) == FUND and table(api, BJ)["bets_in_play"] == 20_000

    refused(as_player(api, tc, "POST", backers, {"player_id": pc}, key=None), 403, "seat")  # not C's seat
    r = as_player(api, ta, "POST", backers, {"player_id": pb}, key=None)      # A grants B with A's own token
    assert r.status_code == 201, r.json
    assert [x["player_id"] for x in r.json["backers"]] == [pb]
    r = api.as_staff("pit", "GET", backers, key=None)
    assert r.status_code == 200 and [x["player_id"] for x in r.json["backers"]] == [pb]

    refused(bet(api, BJ, n, pb, "main", 5_000, box="1"), 422, "amount")       # below the backer's own minimum
    refused(bet(api, BJ, n, pb, "main", 40_000, box="1"), 422, "amount")      # box total 60,000 > max 50,000
    assert bet(api, BJ, n, pb, "main", 10_000, box="1").status_code == 201   # box total 30,000
    r = bet(api, BJ, n, pb, "main", 20_000, box="1")                           # exactly the box maximum
    assert r.status_code == 201, r.json
    refused(bet(api, BJ, n, pb, "main", 1_000, box="1"), 422, "amount")
    assert cashable(api, pb) == FUND - 30_000 and table(api, BJ)["bets_in_play"] == 50_000

    # box 1: TH 9S = 19 stands; dealer 7D TC = 17 → box 1 wins 1:1 for the player and the backer
    s = settle(api, BJ, n, {"cards": ["TH", "7D", "9S", "TC"], "decisions": [{"box": "1", "action": "stand"}]})
    assert s["payouts"] == {str(pa): 40_000, str(pb): 60_000}
    assert cashable(api, pa) == FUND + 20_000 and cashable(api, pb) == FUND + 30_000
    check_round(api, BJ, n, s)
    assert_books(api, BJ)

    # revoked: the next bet is refused and changes nothing
    r = as_player(api, ta, "DELETE", f"{backers}/{pb}", key=None)
    assert r.status_code == 200 and r.json["backers"] == []
    refused(as_player(api, ta, "DELETE", f"{backers}/{pb}", key=None), 404, "player_id")
    m = open_round(api, BJ)
    assert bet(api, BJ, m, pa, "main", 10_000, box="1").status_code == 201
    refused(bet(api, BJ, m, pb, "main", 10_000, box="1"), 403, "box")
    assert cashable(api, pb) == FUND + 30_000

    # the pit may grant too; a permission ends when the granting player leaves the seat
    r = api.as_staff("pit", "POST", backers, {"player_id": pb}, key=None)
    assert r.status_code == 201, r.json
    assert bet(api, BJ, m, pb, "main", 10_000, box="1").status_code == 201
    s = settle(api, BJ, m, {"void": True, "reason": "misdeal"})
    assert s["payouts"] == {str(pa): 10_000, str(pb): 10_000}
    assert api.as_staff("pit", "DELETE", f"/api/v1/tables/{BJ}/seats/1", key=None).status_code == 200
    sit(api, BJ, "1", pc)
    k = open_round(api, BJ)
    assert bet(api, BJ, k, pc, "main", 10_000, box="1").status_code == 201
    refused(bet(api, BJ, k, pb, "main", 10_000, box="1"), 403, "box")        # A's permission did not pass to C
    assert cashable(api, pa) == FUND + 20_000 and cashable(api, pb) == FUND + 30_000
    assert api.audit()["balanced"]


def test_backer_waits_for_the_seated_players_bet(api):
    bj_table(api)
    a, b = enrol(api, "Seated D"), enrol(api, "Backer E")
    sit(api, BJ, "2", a["player"])
    r = api.as_staff("pit", "POST", f"/api/v1/tables/{BJ}/seats/2/backers", {"player_id": b["player"]}, key=None)
    assert r.status_code == 201, r.json
    n = open_round(api, BJ)
    refused(bet(api, BJ, n, b["player"], "main", 10_000, box="2"), 409, "box")
    refused(api.as_staff("pit", "POST", f"/api/v1/tables/{BJ}/seats/3/backers", {"player_id": b["player"]},
                         key=None), 404, "seat")
    assert cashable(api, b["player"]) == FUND and table(api, BJ)["bets_in_play"] == 0


# ------------------------------------------------------------------ dealer's mistake over the maximum
def staff_bet(api, code, n, pid, spot, amount, over=None):
    body = {"spot": spot, "amount": amount, "player_id": pid}
    if over is not None:
        body["accepted_over_max"] = over
    return api.as_staff("pit", "POST", f"/api/v1/tables/{code}/rounds/{n}/bets", body)


def test_dealer_accepts_over_max_bet_paid_only_up_to_the_maximum(api):
    a = enrol(api, "Over A")
    pa, ta = a["player"], login(api, a)
    sit(api, "RL-01", "1", pa)
    n = open_round(api, "RL-01")
    url = f"/api/v1/tables/RL-01/rounds/{n}/bets"
    # the straight maximum is ₩100,000: the player's own over-max bet is refused, flag or not
    refused(as_player(api, ta, "POST", url, {"spot": "straight:17", "amount": 150_000}), 422, "amount")
    refused(as_player(api, ta, "POST", url, {"spot": "straight:17", "amount": 150_000, "accepted_over_max": True}),
            403, "accepted_over_max")
    refused(staff_bet(api, "RL-01", n, pa, "straight:17", 150_000), 422, "amount")
    refused(staff_bet(api, "RL-01", n, pa, "straight:17", 150_000, over=False), 422, "amount")
    assert cashable(api, pa) == FUND

    r = staff_bet(api, "RL-01", n, pa, "straight:17", 150_000, over=True)
    assert r.status_code == 201, r.json
    assert r.json["bet"]["amount"] == 150_000 and r.json["bet"]["cap"] == 100_000
    assert cashable(api, pa) == FUND - 150_000                    # the whole amount is debited
    s = settle(api, "RL-01", n, {"number": 17})
    (st,) = s["settlements"]
    assert st["win"] == 35 * 100_000 and st["stake_returned"] == 150_000
    assert s["payouts"] == {str(pa): 3_650_000}
    assert cashable(api, pa) == FUND + 3_500_000                  # won 35 × the maximum, not 35 × 150,000
    check_round(api, "RL-01", n, s)
    assert_books(api, "RL-01")


def test_dealer_accepts_over_max_bet_taken_only_up_to_the_maximum(api):
    a = enrol(api, "Over B")
    pa, ta = a["player"], login(api, a)
    sit(api, "RL-01", "2", pa)
    n = open_round(api, "RL-01")
    r = as_player(api, ta, "POST", f"/api/v1/tables/RL-01/rounds/{n}/bets", {"spot": "straight:17", "amount": 60_000})
    assert r.status_code == 201 and r.json["bet"]["cap"] is None
    r = staff_bet(api, "RL-01", n, pa, "straight:17", 60_000, over=True)   # 40,000 room left on 17
    assert r.status_code == 201 and r.json["bet"]["cap"] == 40_000, r.json
    assert cashable(api, pa) == FUND - 120_000
    s = settle(api, "RL-01", n, {"number": 5})
    assert s["payouts"] == {str(pa): 20_000}                       # the excess comes back, 100,000 is lost
    assert cashable(api, pa) == FUND - 100_000
    assert s["house_net"] == 100_000
    check_round(api, "RL-01", n, s)
    assert_books(api, "RL-01")
