"""The read-only API behind the screens (no browser needed): floor overview, machine detail,
signage stream tokens, the cage's ticket check, par sheets; roles and refusals."""

from __future__ import annotations

import base64
import json

import pytest

from slotsys.floor.adapters.tables import Machine

STREAM = "/api/v1/screens/jackpot-stream"


def _machine(overview, asset):
    return next(m for z in overview["zones"] for b in z["banks"] for m in b["machines"] if m["asset"] == asset)


def test_floor_overview_states_credits_and_todays_coin_in_and_hold(api, app):
    assert api.as_machine("M001", "POST", "/api/v1/machines/M001/bill-in", {"amount": 50_000}).status_code == 200
    bets = wins = 0
    for _ in range(4):
        r = api.as_machine("M001", "POST", "/api/v1/machines/M001/spin", {"lines": 10, "multiplier": 1})
        assert r.status_code == 200
        bets, wins = bets + r.json["bet"]["won"], wins + r.json["total_win"]
    with app.extensions["slotsys"].uow() as uow:  # locked for a handpay, for a verification, and taken offline
        uow.session.query(Machine).filter_by(asset_number="V003").one().status = "handpay"
        uow.session.query(Machine).filter_by(asset_number="V004").one().status = "verification"
        uow.session.query(Machine).filter_by(asset_number="V005").one().status = "offline"
        uow.commit()
    card = api.creds["players"][0]["card_number"]
    r = api.as_machine("M004", "POST", "/api/v1/machines/M004/card-in", {"card_number": card})
    assert r.status_code in (200, 201), r.json
    r = api.as_staff("operator", "GET", "/api/v1/floor/overview", key=None)
    assert r.status_code == 200, r.json
    f = r.json
    assert [z["code"] for z in f["zones"]] == ["MASS", "VIP"]
    assert [b["bank"] for b in f["zones"][0]["banks"]] == ["M1", "M2", "M3", "M4"]
    m = _machine(f, "M001")
    credits = api.as_machine("M001", "GET", "/api/v1/machines/M001/meters", key=None).json["credits"]
    assert m["state"] == "in_play" and m["credits"] == credits
    assert m["today"] == {"coin_in": bets, "coin_out": wins, "jackpot_out": 0, "hold": bets - wins, "games": 4}
    assert _machine(f, "V003")["state"] == "handpay" and _machine(f, "V004")["state"] == "locked"
    assert _machine(f, "V005")["state"] == "offline"
    assert _machine(f, "M004")["state"] == "carded" and _machine(f, "M004")["carded"] is True
    assert _machine(f, "M002")["state"] == "idle"
    assert f["totals"]["machines"] == 30 and sum(f["totals"]["by_state"].values()) == 30
    assert {k: v for k, v in f["totals"]["by_state"].items() if k != "idle"} == {
        "in_play": 1, "carded": 1, "handpay": 1, "locked": 1, "offline": 1}
    assert f["totals"]["coin_in"] == bets
    for role in ("attendant", "auditor"):
        assert api.as_staff(role, "GET", "/api/v1/floor/overview", key=None).status_code == 200
    assert api.as_staff("cashier", "GET", "/api/v1/floor/overview", key=None).status_code == 403
    assert api.as_machine("M001", "GET", "/api/v1/floor/overview", key=None).status_code == 403
    assert api.client.get("/api/v1/floor/overview").status_code == 401


def test_machine_detail_has_meters_and_the_last_ten_games_with_windows(api):
    assert api.as_machine("M002", "POST", "/api/v1/machines/M002/bill-in", {"amount": 50_000}).status_code == 200
    for _ in range(12):
        assert api.as_machine("M002", "POST", "/api/v1/machines/M002/spin", {"reels": 1, "multiplier": 1}).status_code == 200
    d = api.as_staff("operator", "GET", "/api/v1/floor/machines/M002", key=None).json
    assert d["asset"] == "M002" and d["meters"]["games_played"] == 12 and d["rows"] == 3 and d["reels"] == 5
    assert [g["game_number"] for g in d["games"]] == list(range(12, 2, -1))
    assert all(len(g["window"]) == 3 and len(g["window"][0]) == 5 for g in d["games"])
    assert set(d["symbols"]) >= {s for g in d["games"] for row in g["window"] for s in row}
    r = api.as_staff("operator", "GET", "/api/v1/floor/machines/NOPE", key=None)
    assert r.status_code == 404 and r.json["field"] == "asset"


def _sse_first_event(client, url):
    r = client.get(url, buffered=False)
    assert r.status_code == 200 and r.mimetype == "text/event-stream"
    chunk = next(iter(r.response))
    r.close()
    return chunk.decode() if isinstance(chunk, bytes) else chunk


def test_stream_token_opens_the_jackpot_stream_and_nothing_else_does(api, app):
    r = api.as_staff("attendant", "POST", "/api/v1/screens/stream-token", key=None)
    assert r.status_code == 200 and r.json["expires_in"] == 60
    token = r.json["token"]
    assert r.json["stream_url"] == f"{STREAM}?token={token}"
    assert api.staff_token("attendant") not in r.json["stream_url"]  # the bearer token never goes in a URL
    first = _sse_first_event(api.client, r.json["stream_url"])
    assert first.startswith("event: meters\n") and '"MEGA"' in first

    payload, mac = token.rsplit(".", 1)
    claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    assert claims["u"] == "attendant" and claims["s"] == "jackpot-stream"

    def forged(**change):
        body = base64.urlsafe_b64encode(json.dumps({**claims, **change}).encode()).decode().rstrip("=")
        return f"{body}.{mac}"

    for bad in (None, "", "garbage", token[:-2] + "xx", forged(u="admin"), forged(exp=claims["exp"] + 3600),
                forged(exp=claims["exp"] - 3600), forged(s="other")):
        url = STREAM if bad is None else f"{STREAM}?token={bad}"
        r = api.client.get(url)
        assert r.status_code == 401, (bad, r.json)
        assert r.mimetype == "application/problem+json" and r.json["field"] == "token"
    # the staff bearer token is not a stream token, and a machine key cannot mint one
    assert api.client.get(f"{STREAM}?token={api.staff_token('attendant')}").status_code == 401
    assert api.as_machine("M001", "POST", "/api/v1/screens/stream-token", key=None).status_code == 401
    assert api.client.post("/api/v1/screens/stream-token").status_code == 401
    # a deactivated user's tokens stop working
    from slotsys.staff.adapters.tables import StaffUser

    with app.extensions["slotsys"].uow() as uow:
        uow.session.query(StaffUser).filter_by(username="attendant").one().active = False
        uow.commit()
    assert api.client.get(f"{STREAM}?token={token}").status_code == 401


def test_cage_ticket_check_says_payable_or_why_not_and_changes_nothing(api):
    r = api.as_machine("M003", "POST", "/api/v1/machines/M003/bill-in", {"amount": 10_000})
    vn = api.as_machine("M003", "POST", "/api/v1/machines/M003/cash-out").json["ticket"]["validation_number"]
    check = f"/api/v1/screens/tickets/{vn}/check"
    r = api.as_staff("cashier", "GET", check, key=None)
    assert r.status_code == 200 and r.json["payable"] is True and r.json["refusal"] is None
    assert r.json["ticket"]["amount"] == 10_000 and r.json["ticket"]["issued_by"] == "M003"
    assert api.as_staff("cashier", "GET", check, key=None).json["ticket"]["status"] == "issued"  # nothing changed
    assert api.as_staff("cashier", "POST", "/api/v1/cage/redeem", {"validation_number": vn}).status_code == 200
    r = api.as_staff("cashier", "GET", check, key=None).json
    assert r["payable"] is False
    ref = r["refusal"]
    assert ref["reason"] == "already_redeemed" and ref["code"] == "ticket-already-redeemed"
    assert ref["redeemed_channel"] == "cage" and ref["redeemed_location"] == "MAIN" and ref["redeemed_at"]
    bad = vn[:-1] + str((int(vn[-1]) + 1) % 10)
    r = api.as_staff("cashier", "GET", f"/api/v1/screens/tickets/{bad}/check", key=None)
    assert r.status_code == 422 and r.json["type"].endswith("check-digit-wrong")
    assert api.as_staff("operator", "GET", check, key=None).status_code == 403
    assert api.as_staff("kiosk", "GET", check, key=None).status_code == 403


@pytest.mark.parametrize("chart", ["rtp", "parts", "awards"])
def test_par_sheet_and_its_charts(api, chart):
    r = api.as_staff("operator", "GET", "/api/v1/games/tiger_reels_243/par-sheet/" + chart + ".png?variation=88", key=None)
    assert r.status_code == 200 and r.mimetype == "image/png" and r.data[:8] == b"\x89PNG\r\n\x1a\n"


def test_par_sheet_figures_and_refusals(api):
    games = api.as_staff("auditor", "GET", "/api/v1/games", key=None).json["games"]
    assert {g["id"] for g in games} >= {"dragon_pearl_50", "tiger_reels_243"}
    s = api.as_staff("operator", "GET", "/api/v1/games/dragon_pearl_50/par-sheet?variation=95", key=None).json
    assert s["variation"] == "95" and 0.9497 < s["rtp_full_bet"] < 0.9499 and s["charts"] == ["rtp", "parts", "awards"]
    o = s["options"][-1]
    assert 0 < o["line_hit_frequency"] < o["hit_frequency"] and 0 < o["trigger_frequency"] < o["hit_frequency"]
    r = api.as_staff("operator", "GET", "/api/v1/games/nope/par-sheet", key=None)
    assert r.status_code == 404 and r.json["field"] == "game"
    r = api.as_staff("operator", "GET", "/api/v1/games/dragon_pearl_50/par-sheet?variation=99", key=None)
    assert r.status_code == 422 and r.json["field"] == "variation"
    r = api.as_staff("operator", "GET", "/api/v1/games/dragon_pearl_50/par-sheet/pie.png", key=None)
    assert r.status_code == 422 and r.json["field"] == "chart"
    assert api.as_staff("cashier", "GET", "/api/v1/games", key=None).status_code == 403


def test_pages_and_assets_are_served_without_a_token_and_carry_none(api):
    c = api.client
    for path in ("/", "/console", "/console/machines/M001", "/console/jackpots", "/console/par-sheets", "/cashier",
                 "/cashier/receipt/123456789012345678", "/kiosk", "/signage/VIP", "/reports"):
        r = c.get(path)
        assert r.status_code == 200 and r.mimetype == "text/html", path
        html = r.get_data(as_text=True)
        assert "http://" not in html.replace("http://127.0.0.1", "") and "https://" not in html, path  # no CDN
    for asset in ("app.js", "app.css", "stream.js", "cashier.js", "signage.js", "reports.js"):
        assert c.get(f"/assets/{asset}").status_code == 200
    r = c.get("/assets/fonts/NanumGothic.woff")
    assert r.status_code == 200 and r.data[:4] == b"wOFF"
    assert c.get("/assets/fonts/Other.woff").status_code == 404
    assert c.get("/signage/<script>").status_code == 404
