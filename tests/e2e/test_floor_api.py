"""The floor end to end through the HTTP API, on a migrated SQLite database."""

from __future__ import annotations

import pytest


def credits(api, asset):
    return api.as_machine(asset, "GET", f"/api/v1/machines/{asset}/meters", key=None).json["credits"]


def line_bet(lines=20, multiplier=3):
    return {"lines": lines, "multiplier": multiplier}


def test_probes_and_openapi(api):
    assert api.client.get("/healthz").json == {"status": "ok"}
    r = api.client.get("/readyz")
    assert r.status_code == 200 and r.json["checks"]["database"] == "ok"
    spec = api.client.get("/openapi.json").json
    assert "/api/v1/machines/{asset}/spin" in spec["paths"]
    assert api.client.get("/metrics").status_code == 200


def test_bill_in_spin_cash_out_redeem_round_trip(api):
    asset = "M001"  # MASS, ₩100 denomination, 50-line game
    r = api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/bill-in", {"amount": 50_000})
    assert r.status_code == 200 and r.json["credits"] == 50_000
    r = api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/spin", line_bet(20, 3))
    assert r.status_code == 200, r.json
    body = r.json
    assert body["bet"]["won"] == 100 * 20 * 3 == 6_000  # ₩100 × 20 lines × 3
    assert body["game_number"] == 1
    assert len(body["stops"]) == 5 and len(body["window"]) == 4 and len(body["window"][0]) == 5
    assert body["credits"] == 50_000 - 6_000 + body["total_win"] + sum(j["amount"] for j in body["jackpots"])
    # the total includes the wins of any free games the spin triggered (played inside the game)
    assert body["total_win"] == sum(w["pay_won"] for w in body["wins"]) + sum(
        w["pay_won"] for f in body["free_games"] for w in f["wins"])
    for w in body["wins"]:
        assert w["kind"] in ("line", "scatter") and (w["kind"] == "scatter" or 1 <= w["line"] <= 20)
    # cash out → ticket; redeem at the cage; second presentation refused with when/where
    r = api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/cash-out")
    assert r.status_code == 201, r.json
    ticket = r.json["ticket"]
    assert len(ticket["validation_number"]) == 18 and ticket["amount"] == body["credits"]
    assert credits(api, asset) == 0
    png = api.as_machine(asset, "GET", ticket["barcode_url"], key=None)
    assert png.status_code == 200 and png.data[:8] == b"\x89PNG\r\n\x1a\n"
    r = api.as_staff("cashier", "POST", "/api/v1/cage/redeem", {"validation_number": ticket["validation_number"]})
    assert r.status_code == 200 and r.json["paid"] == ticket["amount"]
    r = api.as_staff("cashier", "POST", "/api/v1/cage/redeem", {"validation_number": ticket["validation_number"]})
    assert r.status_code == 409 and r.headers["Content-Type"] == "application/problem+json"
    assert r.json["redeemed_channel"] == "cage" and r.json["redeemed_location"] == "MAIN" and r.json["redeemed_at"]
    assert api.audit()["balanced"] is True


def test_reel_cost_game_bet_and_centre_row(api):
    asset = "M002"  # 243-ways reel-cost game, ₩100
    api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/bill-in", {"amount": 10_000})
    r = api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/spin", {"reels": 3, "multiplier": 5})
    assert r.status_code == 200, r.json
    assert r.json["bet"]["won"] == 100 * 7 * 5 == 3_500  # reels 1-3 cost 7 credits
    for w in r.json["wins"]:
        assert w["kind"] in ("way", "scatter")


def test_ticket_inserted_into_another_machine(api):
    api.as_machine("M003", "POST", "/api/v1/machines/M003/bill-in", {"amount": 10_000})
    t = api.as_machine("M003", "POST", "/api/v1/machines/M003/cash-out").json["ticket"]
    r = api.as_machine("M004", "POST", "/api/v1/machines/M004/ticket-in", {"validation_number": t["validation_number"]})
    assert r.status_code == 200 and r.json["credits"] == 10_000
    again = api.as_machine("M005", "POST", "/api/v1/machines/M005/ticket-in", {"validation_number": t["validation_number"]})
    assert again.status_code == 409 and again.json["redeemed_location"] == "M004"
    m = api.as_machine("M004", "GET", "/api/v1/machines/M004/meters", key=None).json["meters"]
    assert m["tickets_in"] == 10_000 and m["tickets_in_count"] == 1
    assert api.audit()["balanced"] is True


def test_idempotent_replay_moves_nothing(api):
    asset = "M015"
    first = api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/bill-in", {"amount": 10_000}, key="bill-1")
    replay = api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/bill-in", {"amount": 10_000}, key="bill-1")
    assert replay.status_code == 200 and replay.json == first.json
    assert replay.headers.get("Idempotent-Replayed") == "true"
    assert credits(api, asset) == 10_000
    spin1 = api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/spin", line_bet(10, 1), key="spin-1")
    spin2 = api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/spin", line_bet(10, 1), key="spin-1")
    assert spin1.json == spin2.json
    meters = api.as_machine(asset, "GET", f"/api/v1/machines/{asset}/meters", key=None).json["meters"]
    assert meters["games_played"] == 1
    other = api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/spin", line_bet(5, 1), key="spin-1")
    assert other.status_code == 422 and other.json["field"] == "Idempotency-Key"


def snapshot(api):
    a = api.audit()
    floor = api.as_staff("operator", "GET", "/api/v1/floor", key=None).json
    return a["journal_entries"], [(m["asset"], m["credits"], m["meters"]) for m in floor["machines"]], a["tickets"]


@pytest.mark.parametrize(
    "method,path,body,key,status,field",
    [
        ("POST", "/api/v1/machines/M007/spin", {"lines": 7, "multiplier": 1}, "auto", 422, "lines"),
        ("POST", "/api/v1/machines/M007/spin", {"lines": 20, "multiplier": 4}, "auto", 422, "multiplier"),
        ("POST", "/api/v1/machines/M007/spin", {"reels": 3, "multiplier": 1}, "auto", 422, None),
        ("POST", "/api/v1/machines/M007/spin", {"lines": "20", "multiplier": 1}, "auto", 422, "lines"),
        ("POST", "/api/v1/machines/M007/spin", {"lines": 20, "multiplier": 1, "extra": 1}, "auto", 422, "extra"),
        ("POST", "/api/v1/machines/M007/spin", {"lines": 20, "multiplier": 1}, None, 422, "Idempotency-Key"),
        ("POST", "/api/v1/machines/M007/bill-in", {"amount": -1000}, "auto", 422, "amount"),
        ("POST", "/api/v1/machines/M007/bill-in", {"amount": 0}, "auto", 422, "amount"),
        ("POST", "/api/v1/machines/M007/bill-in", {"amount": 1.5}, "auto", 422, "amount"),
        ("POST", "/api/v1/machines/M007/bill-in", {"amount": 7_000}, "auto", 422, "amount"),
        ("POST", "/api/v1/machines/M007/bill-in", {"amount": 10**30}, "auto", 422, "amount"),
        ("POST", "/api/v1/machines/M007/ticket-in", {"validation_number": "12345"}, "auto", 422, "validation_number"),
        ("POST", "/api/v1/machines/M007/ticket-in", {"validation_number": "abcdefghijklmnopqr"}, "auto", 422, "validation_number"),
        ("POST", "/api/v1/machines/M007/cash-out", None, "auto", 409, None),
    ],
)
def test_bad_machine_input_is_refused_and_changes_nothing(api, method, path, body, key, status, field):
    api.as_machine("M007", "POST", "/api/v1/machines/M007/bill-in", {"amount": 1_000})
    api.as_machine("M007", "POST", "/api/v1/machines/M007/cash-out")  # leaves 0 credits and a ticket
    before = snapshot(api)
    r = api.as_machine("M007", method, path, body, key=key)
    assert r.status_code == status, r.json
    assert r.headers["Content-Type"] == "application/problem+json"
    assert r.json["status"] == status and r.json["detail"]
    if field:
        assert r.json["field"] == field or field in r.json["detail"]
    assert snapshot(api) == before


def test_spin_without_enough_credits_is_409_and_changes_nothing(api):
    before = snapshot(api)
    r = api.as_machine("M017", "POST", "/api/v1/machines/M017/spin", line_bet(20, 3))
    assert r.status_code == 409 and r.json["type"].endswith("insufficient-funds")
    assert snapshot(api) == before


def test_unknown_and_mistyped_ticket_numbers_are_told_apart(api):
    api.as_machine("M009", "POST", "/api/v1/machines/M009/bill-in", {"amount": 5_000})
    vn = api.as_machine("M009", "POST", "/api/v1/machines/M009/cash-out").json["ticket"]["validation_number"]
    mistyped = vn[:-1] + str((int(vn[-1]) + 1) % 10)
    r = api.as_staff("cashier", "POST", "/api/v1/cage/redeem", {"validation_number": mistyped})
    assert r.status_code == 422 and r.json["type"].endswith("check-digit-wrong")
    from tito.domain.validation import SystemValidation

    unknown = SystemValidation().next_number()
    r = api.as_staff("cashier", "POST", "/api/v1/cage/redeem", {"validation_number": unknown})
    assert r.status_code == 404 and r.json["type"].endswith("ticket-not-on-file")
    r = api.as_staff("cashier", "POST", "/api/v1/cage/redeem", {"validation_number": vn, "amount": 4_000})
    assert r.status_code == 422 and r.json["field"] == "amount" and r.json["amount_on_file"] == 5_000
    r = api.as_staff("cashier", "GET", f"/api/v1/tickets/{vn}", key=None)
    assert r.json["status"] == "issued"


def test_authentication_and_roles(api):
    c = api.client
    assert c.post("/api/v1/machines/M001/spin", json=line_bet()).status_code == 401
    r = c.post("/api/v1/machines/M001/spin", json=line_bet(), headers={"Authorization": "Bearer mk_nope", "Idempotency-Key": "k"})
    assert r.status_code == 401 and r.headers["Content-Type"] == "application/problem+json"
    # a machine acts only as itself
    r = api.as_machine("M001", "POST", "/api/v1/machines/M002/bill-in", {"amount": 10_000}, token=api.key("M001"))
    assert r.status_code == 403
    # unknown machine
    r = api.as_staff("operator", "GET", "/api/v1/machines/NOPE/meters", key=None)
    assert r.status_code == 404
    # roles
    assert api.as_staff("operator", "POST", "/api/v1/cage/redeem", {"validation_number": "1" * 18}).status_code == 403
    assert api.as_staff("cashier", "GET", "/api/v1/audit/ledger", key=None).status_code == 403
    assert api.as_staff("cashier", "POST", "/api/v1/machines/M001/spin", line_bet()).status_code == 403
    assert api.as_machine("M001", "GET", "/api/v1/floor", key=None).status_code == 403
    r = c.post("/api/v1/auth/login", json={"username": "cashier", "password": "wrong"})
    assert r.status_code == 401


def test_recall_last_10_games(api):
    asset = "M010"
    api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/bill-in", {"amount": 50_000})
    for _ in range(12):
        api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/spin", {"reels": 1, "multiplier": 1})
    games = api.as_machine(asset, "GET", f"/api/v1/machines/{asset}/games", key=None).json["games"]
    assert [g["game_number"] for g in games] == list(range(12, 2, -1))
    assert all(len(g["stops"]) == 5 and g["window"] for g in games)


def test_mystery_level_hits_credits_machine_and_resets(api, app):
    """Force the Mass Minor trigger just above the meter: the next MASS wager wins it."""
    from jackpot_controller.adapters.tables import JackpotLevel

    svc = app.extensions["slotsys"]
    with svc.uow() as uow:
        lv = uow.session.query(JackpotLevel).filter_by(code="MASS_MINOR").one()
        lv.trigger_milli = lv.value_milli + 10_000  # ₩10 above the meter
        uow.commit()
    before = api.as_staff("operator", "GET", "/api/v1/jackpots/levels", key=None).json["levels"][0]
    assert "trigger_milli" not in before
    api.as_machine("V001", "POST", "/api/v1/machines/V001/bill-in", {"amount": 50_000})
    r = api.as_machine("V001", "POST", "/api/v1/machines/V001/spin", {"lines": 1, "multiplier": 1})
    assert r.json["jackpots"] == []  # VIP machines are not eligible for the Mass level
    asset = "M011"
    api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/bill-in", {"amount": 10_000})
    r = api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/spin", line_bet(20, 3))
    body = r.json
    assert len(body["jackpots"]) == 1
    award = body["jackpots"][0]["amount"]
    assert award == (before["value_milli"] + 10_000) // 1000
    assert body["credits"] == 10_000 - 6_000 + body["total_win"] + award
    after = api.as_staff("operator", "GET", "/api/v1/jackpots/levels", key=None).json["levels"][0]
    assert after["cycle"] == before["cycle"] + 1 and after["hits"] == 1 and after["total_won"] == award
    assert 30_000 <= after["value"] < 30_100  # reset + carried excess
    hits = api.as_staff("operator", "GET", "/api/v1/jackpots/hits", key=None).json["hits"]
    assert hits[0]["machine"] == asset and hits[0]["amount"] == award and hits[0]["announced"] is True
    audit = api.audit()
    assert audit["balanced"] and all(j["agrees"] for j in audit["jackpots"])


def test_malformed_json_and_oversized_body_are_problems(api):
    h = {"Authorization": f"Bearer {api.key('M012')}", "Idempotency-Key": "x1", "Content-Type": "application/json"}
    r = api.client.post("/api/v1/machines/M012/bill-in", data=b"{not json", headers=h)
    assert 400 <= r.status_code < 500 and r.headers["Content-Type"] == "application/problem+json"
    r = api.client.post("/api/v1/machines/M012/bill-in", data=b"[" * 100_000, headers=h)
    assert r.status_code == 413
    r = api.client.get("/api/v1/nothing-here")
    assert r.status_code == 404 and r.headers["Content-Type"] == "application/problem+json"


def test_hostile_bodies_get_problems_not_500s(api):
    key = api.key("M012")
    h = {"Authorization": f"Bearer {key}", "Idempotency-Key": "x2", "Content-Type": "application/json"}
    deep = b"[" * 5_000 + b"]" * 5_000
    r = api.client.post("/api/v1/machines/M012/spin", data=deep, headers=h)
    assert r.status_code == 400 and r.json["field"] == "body"
    r = api.client.post("/api/v1/auth/login", data=deep, headers={"Content-Type": "application/json"})
    assert r.status_code == 400 and r.json["field"] == "body"
    # authentication comes before the body is parsed
    r = api.client.post("/api/v1/machines/M012/spin", data=b"{nope", headers={"Content-Type": "application/json"})
    assert r.status_code == 401
    # JSON sent as text/plain is refused, not played
    r = api.client.post("/api/v1/machines/M012/spin", data=b'{"lines": 1, "multiplier": 1}',
                        headers={**h, "Content-Type": "text/plain"})
    assert r.status_code == 415 and r.json["field"] == "Content-Type"
    r = api.client.post("/api/v1/machines/M012/bill-in", data=b"\xff\xfe\x00", headers=h)
    assert r.status_code == 400 and r.headers["Content-Type"] == "application/problem+json"
    r = api.client.options("/api/v1/machines/M012/spin", headers=h)
    assert r.status_code == 405 and r.headers["Content-Type"] == "application/problem+json"
    meters = api.as_machine("M012", "GET", "/api/v1/machines/M012/meters", key=None).json["meters"]
    assert meters["games_played"] == 0 and meters["bills_in"] == 0


def test_a_cached_staff_token_still_expires_on_time(api, app):
    """Verified credentials are remembered per process (Settings.auth_cache_s), but never past a staff
    token's expiry, judged by the service's clock."""
    from datetime import datetime, timedelta, timezone

    ctx = app.extensions["slotsys"].ctx
    assert ctx.settings.auth_cache_s > 0
    token = api.staff_token("auditor")
    h = {"Authorization": f"Bearer {token}"}
    assert api.client.get("/api/v1/audit/ledger", headers=h).status_code == 200  # now cached

    class Later:
        def now(self):
            return datetime.now(timezone.utc) + timedelta(hours=ctx.settings.staff_token_hours, minutes=1)

    old, ctx.clock = ctx.clock, Later()
    try:
        r = api.client.get("/api/v1/audit/ledger", headers=h)
        assert r.status_code == 401 and r.json["type"].endswith("unauthorized"), r.json
    finally:
        ctx.clock = old
    assert api.client.get("/api/v1/audit/ledger", headers=h).status_code == 200  # back in time: valid again
