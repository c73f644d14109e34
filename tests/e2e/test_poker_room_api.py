"""Poker room end to end through HTTP on SQLite: open a table, seat players, buy in from the wallet, play hands
with players' own tokens (whose turn, legal actions and amounts), settlement on the ledger with rake, PHH export
and replay, cash-out back to the wallet with the ledger audit balanced, and refusals that move nothing."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from tests.helpers import conforms as _conforms

PHH_DIR = Path(__file__).resolve().parents[1] / "data" / "phh"
NL = "PK-NL-01"  # demo: no-limit 1,000/2,000, buy-in 40,000-200,000, rake 5% capped at 10,000


@pytest.fixture
def players(api, app):
    """The three demo players logged in (own tokens), each with ₩1,000,000 cashable."""
    out = []
    for c in app.config["DEMO_CREDENTIALS"]["players"]:
        r = api.client.post("/api/v1/players/login", json={"card_number": c["card_number"], "pin": c["pin"]})
        assert r.status_code == 200, r.json
        p = {"id": r.json["player"], "token": r.json["token"]}
        need = 1_000_000 - cashable(api, p["id"])
        if need:
            r = api.as_staff("cashier", "POST", f"/api/v1/players/{p['id']}/deposit", {"amount": need})
            assert r.status_code == 200, r.json
        out.append(p)
    return out


def cashable(api, pid) -> int:
    r = api.as_staff("host", "GET", f"/api/v1/players/{pid}", key=None)
    assert r.status_code == 200, r.json
    return r.json["wallet"]["cashable"]


def as_player(api, p, method, path, body=None, key="auto"):
    headers = {"Authorization": f"Bearer {p['token']}"}
    if key == "auto":
        key = uuid.uuid4().hex
    if key is not None:
        headers["Idempotency-Key"] = key
    return api.client.open(path, method=method, json=body, headers=headers)


def table(api, code=NL) -> dict:
    r = api.as_staff("pit", "GET", f"/api/v1/poker/tables/{code}", key=None)
    assert r.status_code == 200, r.json
    return r.json


def seat_and_buy(api, players, amounts, code=NL):
    for i, (p, amt) in enumerate(zip(players, amounts)):
        r = api.as_staff("pit", "POST", f"/api/v1/poker/tables/{code}/seats", {"seat": i + 2, "player_id": p["id"]},
                         key=None)
        assert r.status_code == 201, r.json
        r = as_player(api, p, "POST", f"/api/v1/poker/tables/{code}/buy-in", {"player_id": p["id"], "amount": amt})
        assert r.status_code == 200, r.json
        assert r.json["stack"] == amt


def start(api, code=NL) -> dict:
    r = api.as_staff("pit", "POST", f"/api/v1/poker/tables/{code}/hands", key=None)
    assert r.status_code == 201, r.json
    return r.json


def play_out(api, players, code, hand, prefer=("check", "call")) -> dict:
    """Each player to act checks or calls with their own token until the hand ends."""
    by_id = {p["id"]: p for p in players}
    view = api.as_staff("pit", "GET", f"/api/v1/poker/tables/{code}/hands/{hand}", key=None).json
    while view["status"] == "in_play":
        ta = view["to_act"]
        action = next(a for a in prefer if a in ta["actions"])
        r = as_player(api, by_id[ta["player_id"]], "POST", f"/api/v1/poker/tables/{code}/hands/{hand}/actions",
                      {"action": action, "seq": view["seq"]})
        assert r.status_code == 200, r.json
        view = r.json
    return view


def test_a_hand_from_buy_in_to_cash_out(api, app, players):
    a, b, c = players
    seat_and_buy(api, players, [100_000, 150_000, 200_000])
    assert [cashable(api, p["id"]) for p in players] == [900_000, 850_000, 800_000]
    assert api.audit()["balanced"]

    h = start(api)
    assert h["button_seat"] == 2 and [x["seat"] for x in h["players"]] == [3, 4, 2]  # SB, BB, button
    assert "hole" not in h["players"][0]  # the pit does not see hole cards in play
    ta = h["to_act"]
    assert ta["seat"] == 2 and ta["actions"] == ["fold", "call", "raise"]
    assert (ta["call"], ta["min_raise_to"], ta["max_raise_to"]) == (2_000, 4_000, 100_000)
    n = h["hand"]
    base = f"/api/v1/poker/tables/{NL}/hands/{n}"

    # out of turn, illegal amounts: 422 naming the field, nothing moves
    r = as_player(api, b, "POST", f"{base}/actions", {"action": "call"})
    assert r.status_code == 422 and r.json["field"] == "seat", r.json
    r = as_player(api, a, "POST", f"{base}/actions", {"action": "raise", "amount": 3_000})
    assert r.status_code == 422 and r.json["field"] == "amount" and r.json["min_raise_to"] == 4_000, r.json
    r = as_player(api, a, "POST", f"{base}/actions", {"action": "check"})
    assert r.status_code == 422 and r.json["field"] == "action", r.json
    mine = as_player(api, a, "GET", base, key=None).json
    assert mine["seq"] == 0 and len(next(x for x in mine["players"] if x["player_id"] == a["id"])["hole"]) == 2

    # the button raises to 10,000; the blinds call; then everyone checks it down
    r = as_player(api, a, "POST", f"{base}/actions", {"action": "raise", "amount": 10_000, "seq": 0})
    assert r.status_code == 200, r.json
    assert r.json["to_act"]["player_id"] == b["id"] and r.json["to_act"]["call"] == 9_000
    end = play_out(api, players, NL, n)
    assert end["status"] == "complete" and len(end["board"]) == 5
    assert end["rake"] == 1_500  # 5% of the 30,000 pot
    net = end["results"]["net"]
    assert sum(net.values()) == -1_500
    stacks = {s["player_id"]: s["stack"] for s in table(api)["seats"]}
    assert stacks == {a["id"]: 100_000 + net[str(a["id"])], b["id"]: 150_000 + net[str(b["id"])],
                      c["id"]: 200_000 + net[str(c["id"])]}
    assert table(api)["rake_total"] == 1_500
    # ONE balanced journal entry settles the hand: the three stack accounts and the rake
    from sqlalchemy import select

    from slotsys.kernel.adapters.db import Account, JournalEntryRow, PostingRow

    with app.extensions["slotsys"].uow() as uow:
        rows = uow.session.execute(select(JournalEntryRow.kind, Account.code, PostingRow.amount)
                                   .join(PostingRow, PostingRow.entry_id == JournalEntryRow.id)
                                   .join(Account, Account.id == PostingRow.account_id)
                                   .where(JournalEntryRow.refs["hand"].as_integer() == n)).all()
    assert {r.kind for r in rows} == {"poker.hand"} and sum(r.amount for r in rows) == 0
    legs = {r.code: r.amount for r in rows}
    assert legs == {**{f"poker:{NL}:stack:{pid}": -v for pid, v in net.items() if v}, f"poker:{NL}:rake": -1_500}
    seated_at = {p["seat"]: p["player_id"] for p in end["players"]}
    for s in end["showdown"]:
        assert s["korean"] and s["name"] and len(s["best"]) == 5
        assert s["player_id"] == seated_at[s["seat"]]  # the shown hand is named by its owner's player id
    assert api.audit()["balanced"]

    # the PHH file, its replay, and an import of it
    phh = api.as_staff("auditor", "GET", f"{base}/phh", key=None)
    assert phh.status_code == 200 and phh.mimetype == "text/plain"
    assert "variant = 'NT'" in phh.text and "finishing_stacks" in phh.text and "_rake_ppm = 50000" in phh.text
    rp = api.as_staff("auditor", "GET", f"{base}/replay", key=None).json
    assert rp["matches"] is True and rp["rake"] == 1_500
    _conforms(api.client.get("/openapi.json").json, "/api/v1/poker/tables/{code}/hands/{number}/replay", "get", 200, rp)
    imp = api.as_staff("auditor", "POST", "/api/v1/poker/phh/replay", {"phh": phh.text}, key=None).json
    assert imp["finishing_stacks"] == end["finishing_stacks"] and imp["matches"] is True

    # the next hand: the button moves one seat
    h2 = start(api)
    assert h2["hand"] == n + 1 and h2["button_seat"] == 3
    r = as_player(api, a, "POST", f"/api/v1/poker/tables/{NL}/cash-out", {"player_id": a["id"]})
    assert r.status_code == 409 and r.json["field"] == "player_id"  # dealt in: cash out between hands
    play_out(api, players, NL, h2["hand"], prefer=("fold", "check"))

    # cash out everyone back to the wallet
    for p in players:
        stack = next(s["stack"] for s in table(api)["seats"] if s["player_id"] == p["id"])
        before = cashable(api, p["id"])
        r = as_player(api, p, "POST", f"/api/v1/poker/tables/{NL}/cash-out", {"player_id": p["id"], "leave": True})
        assert r.status_code == 200 and r.json["amount"] == stack, r.json
        assert cashable(api, p["id"]) == before + stack
    assert table(api)["seats"] == []
    total = sum(cashable(api, p["id"]) for p in players)
    assert total == 3_000_000 - table(api)["rake_total"]  # only the rake left the players
    assert api.audit()["balanced"]


def test_seating_and_buy_in_refusals_move_nothing(api, players):
    a, b, _ = players
    r = api.as_staff("pit", "POST", f"/api/v1/poker/tables/{NL}/seats", {"seat": 1, "player_id": a["id"]}, key=None)
    assert r.status_code == 201
    r = api.as_staff("pit", "POST", f"/api/v1/poker/tables/{NL}/seats", {"seat": 1, "player_id": b["id"]}, key=None)
    assert r.status_code == 409 and r.json["field"] == "seat"  # occupied
    r = api.as_staff("pit", "POST", f"/api/v1/poker/tables/{NL}/seats", {"seat": 5, "player_id": a["id"]}, key=None)
    assert r.status_code == 409 and r.json["field"] == "player_id"  # a second seat
    r = api.as_staff("pit", "POST", f"/api/v1/poker/tables/{NL}/seats", {"seat": 11, "player_id": b["id"]}, key=None)
    assert r.status_code == 422 and r.json["field"] == "seat"
    r = as_player(api, b, "POST", f"/api/v1/poker/tables/{NL}/seats", {"seat": 3, "player_id": a["id"]}, key=None)
    assert r.status_code == 403  # a player seats only themselves

    before = api.audit()
    for amount in (39_000, 201_000):  # outside 40,000-200,000
        r = api.as_staff("pit", "POST", f"/api/v1/poker/tables/{NL}/buy-in", {"player_id": a["id"], "amount": amount})
        assert r.status_code == 422 and r.json["field"] == "amount" and r.json["max_buy_in"] == 200_000, r.json
    r = api.as_staff("pit", "POST", f"/api/v1/poker/tables/{NL}/buy-in", {"player_id": b["id"], "amount": 50_000})
    assert r.status_code == 409 and r.json["field"] == "player_id"  # not seated
    r = api.as_staff("pit", "POST", f"/api/v1/poker/tables/{NL}/buy-in", {"player_id": a["id"], "amount": 50_000},
                     key=None)
    assert r.status_code == 422 and r.json["field"] == "Idempotency-Key"
    assert cashable(api, a["id"]) == 1_000_000 and table(api)["seats"][0]["stack"] == 0
    assert api.audit() == before

    key = uuid.uuid4().hex  # a retried buy-in moves money once
    r1 = api.as_staff("pit", "POST", f"/api/v1/poker/tables/{NL}/buy-in", {"player_id": a["id"], "amount": 150_000},
                      key=key)
    r2 = api.as_staff("pit", "POST", f"/api/v1/poker/tables/{NL}/buy-in", {"player_id": a["id"], "amount": 150_000},
                      key=key)
    assert r1.status_code == r2.status_code == 200 and r2.headers.get("Idempotent-Replayed") == "true"
    assert cashable(api, a["id"]) == 850_000
    r = api.as_staff("pit", "POST", f"/api/v1/poker/tables/{NL}/buy-in", {"player_id": a["id"], "amount": 60_000})
    assert r.status_code == 422 and r.json["stack"] == 150_000  # the top-up would pass the maximum
    r = api.as_staff("pit", "POST", f"/api/v1/poker/tables/{NL}/hands", key=None)
    assert r.status_code == 409 and r.json["field"] == "seats"  # one stack is not a game
    assert api.audit()["balanced"]


def test_fixed_limit_table_through_http(api, players):
    a, b, c = players
    r = api.as_staff("supervisor", "POST", "/api/v1/poker/tables", {
        "code": "FL-T", "name": "Limit", "rules": {"variant": "FL", "seats": 6, "small_blind": 10_000,
                                                  "big_blind": 20_000, "small_bet": 20_000, "big_bet": 40_000,
                                                  "ante": 5_000, "ante_mode": "big_blind",
                                                  "min_buy_in": 200_000, "max_buy_in": 1_000_000}}, key=None)
    assert r.status_code == 201, r.json
    r = api.as_staff("supervisor", "POST", "/api/v1/poker/tables", {"code": "BAD", "rules": {"seats": 12}}, key=None)
    assert r.status_code == 422 and r.json["field"] == "seats"
    r = api.as_staff("auditor", "POST", "/api/v1/poker/tables", {"code": "X", "rules": {}}, key=None)
    assert r.status_code == 403
    seat_and_buy(api, players, [400_000, 400_000, 400_000], code="FL-T")
    h = start(api, "FL-T")
    n = h["hand"]
    assert h["pot"] == 35_000  # blinds + the big blind's dead ante
    base = f"/api/v1/poker/tables/FL-T/hands/{n}"
    by_id = {p["id"]: p for p in players}
    sizes = []
    view = h
    while "raise" in view["to_act"]["actions"]:  # raise until capped: a bet (the blind) and three raises
        ta = view["to_act"]
        assert ta["min_raise_to"] == ta["max_raise_to"]
        sizes.append(ta["min_raise_to"])
        r = as_player(api, by_id[ta["player_id"]], "POST", f"{base}/actions", {"action": "raise"})
        assert r.status_code == 200, r.json
        view = r.json
    assert sizes == [40_000, 60_000, 80_000]
    end = play_out(api, players, "FL-T", n)
    assert sum(end["results"]["net"].values()) == 0  # no rake by default
    hist = api.as_staff("auditor", "GET", f"{base}/replay", key=None).json
    assert hist["matches"] and hist["variant"] == "FT"
    assert api.audit()["balanced"]


@pytest.mark.parametrize("path", sorted(PHH_DIR.glob("*.phh")), ids=lambda p: p.stem)
def test_import_published_phh_over_http(api, path):
    r = api.as_staff("auditor", "POST", "/api/v1/poker/phh/replay", {"phh": path.read_text()}, key=None)
    assert r.status_code == 200, r.json
    assert r.json["matches"] is True and r.json["finishing_stacks"] == r.json["expected"]


def test_bad_phh_is_a_problem(api):
    r = api.as_staff("auditor", "POST", "/api/v1/poker/phh/replay", {"phh": "variant = 'NT'\n= broken"}, key=None)
    assert r.status_code == 422 and r.json["field"] == "phh" and r.mimetype == "application/problem+json"


def test_import_reports_the_overridden_ante_flag(api):
    text = (PHH_DIR / "wsop2019_e42_d3_0107_bb_ante.phh").read_text()
    assert "ante_trimming_status = true" in text
    r = api.as_staff("auditor", "POST", "/api/v1/poker/phh/replay", {"phh": text}, key=None)
    assert r.status_code == 200 and r.json["matches"] is True
    assert r.json["finishing_stacks"] == r.json["expected"]
    assert r.json["overrides"] == {"ante_trimming_status": False}
    assert r.json["warnings"][0].startswith("ante_trimming_status=true overridden: the recorded finishing stacks "
                                            "treat the big blind's ante as dead money")
    bare = "\n".join(line for line in text.splitlines() if not line.startswith("finishing_stacks"))
    r = api.as_staff("auditor", "POST", "/api/v1/poker/phh/replay", {"phh": bare}, key=None)
    assert r.status_code == 200 and r.json["matches"] is None and r.json["warnings"] == []
    assert r.json["finishing_stacks"][1] == 5_625_000 + 500_000  # as the flag says: the ante handed back
