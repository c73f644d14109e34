"""Floor administration through the API (Flask test client on SQLite, the demo floor): enrol, edit, disable /
enable, move, game change, key rotation, retirement; zones and banks; the floor plan; every refusal a problem
naming the field, with nothing changed and the refusal in the audit log."""

from __future__ import annotations

import sqlalchemy as sa

ENROL = {"asset_number": "N001", "bank": "M4", "game": "dragon_pearl_50", "denomination": 100,
         "denominations": [100, 500], "serial": "SN-1001", "manufacturer": "Acme Gaming", "model": "Upright 27",
         "max_bet": 50_000, "x": 7, "y": 6, "reason": "new cabinet"}


def _counts(app) -> dict:
    engine = app.extensions["slotsys"].uow.engine
    with engine.connect() as c:
        return {t: c.execute(sa.text(f'SELECT count(*) FROM "{t}"')).scalar_one()
                for t in ("machines", "zones", "banks", "accounts", "machine_meter_snapshots", "journal_entries")}


def _audit(app, subject: str) -> list[dict]:
    engine = app.extensions["slotsys"].uow.engine
    with engine.connect() as c:
        rows = c.execute(sa.text("SELECT action, outcome, before, after, reason, detail, actor FROM audit_log "
                                 "WHERE subject = :s ORDER BY id"), {"s": subject}).mappings().all()
    import json

    return [{k: (json.loads(v) if k in ("before", "after", "detail") and isinstance(v, str) else v)
             for k, v in r.items()} for r in rows]


def _enrol(api, **changes):
    r = api.as_staff("operator", "POST", "/api/v1/machines", {**ENROL, **changes})
    assert r.status_code == 201, r.json
    return r.json


def _play(api, asset: str, key: str, amount: int = 10_000):
    r = api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/bill-in", {"amount": amount}, token=key)
    assert r.status_code == 200, r.json
    return api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/spin", {"lines": 1, "multiplier": 1}, token=key)


def _cash_out(api, asset: str, key: str) -> None:
    r = api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/cash-out", token=key)
    assert r.status_code == 201, r.json


def test_the_seed_builds_the_demo_floor_through_floor_administration(api, app):
    plan = api.as_staff("auditor", "GET", "/api/v1/floor/plan", key=None).json
    assert [z["code"] for z in plan["zones"]] == ["MASS", "VIP"]
    assert sorted(b["code"] for b in plan["banks"]) == ["M1", "M2", "M3", "M4", "V1", "V2"]
    by_asset = {m["asset_number"]: m for m in plan["machines"]}
    assert len(by_asset) == 30 and by_asset["V001"]["position"] == {"x": 0, "y": 0}
    assert by_asset["M006"]["bank"] == "M2" and by_asset["M006"]["zone"] == "MASS"
    assert len({(m["position"]["x"], m["position"]["y"]) for m in plan["machines"]}) == 30  # one machine a cell
    assert (plan["width"], plan["height"]) == (5, 11)
    assert _audit(app, "machine:M001")[0]["action"] == "machine.enrol"
    assert _audit(app, "machine:M001")[0]["actor"] == "system"


def test_enrol_play_and_read_back(api, app):
    m = _enrol(api)
    key = m.pop("key")
    assert key.startswith("mk_") and m["zone"] == "MASS" and m["position"] == {"x": 7, "y": 6}
    assert m["denominations"] == [100, 500] and m["status"] == "active"
    r = _play(api, "N001", key)
    assert r.status_code == 200 and r.json["game"] == "dragon_pearl_50", r.json
    got = api.as_staff("attendant", "GET", "/api/v1/machines/N001", key=None).json
    assert "key" not in got and got["serial"] == "SN-1001" and got["snapshots"] == []
    listed = api.as_staff("auditor", "GET", "/api/v1/machines?bank=M4", key=None).json["machines"]
    assert [x["asset_number"] for x in listed] == ["M016", "M017", "M018", "M019", "M020", "N001"]
    (entry,) = _audit(app, "machine:N001")
    assert entry["action"] == "machine.enrol" and entry["after"]["serial"] == "SN-1001"
    assert entry["reason"] == "new cabinet" and "key" not in entry["after"]
    # the machine's maximum bet holds at the spin: 50 lines × 10 × ₩100 = ₩50,000 ok, a ₩51,000 bet … none: the
    # game's bets at ₩100 top out at ₩50,000, so lower the maximum and try a bet above it
    r = api.as_staff("operator", "PATCH", "/api/v1/machines/N001", {"max_bet": 1_000, "reason": "low-limit bank"})
    assert r.status_code == 200 and r.json["max_bet"] == 1_000, r.json
    r = api.as_machine("N001", "POST", "/api/v1/machines/N001/spin", {"lines": 20, "multiplier": 1}, token=key)
    assert r.status_code == 422 and r.json["field"] == "multiplier", r.json
    assert api.audit()["balanced"] is True


BAD_ENROLMENTS = [
    ({"bank": "NOPE"}, 422, "bank"),
    ({"zone": "NOPE"}, 422, "zone"),
    ({"zone": "VIP"}, 422, "zone"),  # bank M4 is in MASS
    ({"game": "no_such_game"}, 422, "game"),
    ({"variation": "99"}, 422, "variation"),
    ({"asset_number": "M001"}, 409, "asset_number"),
    ({"denomination": 300}, 422, "denomination"),
    ({"denomination": 1_000}, 422, "denomination"),  # not among those offered
    ({"denominations": [100, 7]}, 422, "denominations"),
    ({"max_bet": 50}, 422, "max_bet"),  # below the game's smallest bet at ₩100
    ({"x": 0, "y": 0}, 409, "x"),  # V001's cell
    ({"asset_number": "bad asset!"}, 422, "asset_number"),
    ({"validation_scheme": "ticketless"}, 422, "validation_scheme"),
]


def test_bad_enrolments_are_problems_naming_the_field_and_change_nothing(api, app):
    """One floor for every case (a fresh seeded app each would cost ~5 s a case)."""
    for change, status, field in BAD_ENROLMENTS:
        before = _counts(app)
        r = api.as_staff("operator", "POST", "/api/v1/machines", {**ENROL, **change})
        assert r.status_code == status and r.json["field"] == field, (change, r.json)
        assert r.headers["Content-Type"] == "application/problem+json"
        assert _counts(app) == before, change
        asset = change.get("asset_number", "N001")
        refused = [e for e in _audit(app, f"machine:{asset}") if e["outcome"] == "refused"]
        assert refused and refused[-1]["action"] == "machine.enrol" and refused[-1]["detail"]["field"] == field, change


def test_an_unassignable_variation_is_refused_through_the_port(api, app):
    """The assignability port (E2's approvals plug in here): a catalogue game whose variation the port refuses."""
    svc = app.extensions["slotsys"].floor_admin
    svc.assignable = lambda uow, game_id, variation: variation != "88"
    r = api.as_staff("operator", "POST", "/api/v1/machines", {**ENROL, "variation": "88"})
    assert r.status_code == 422 and r.json["field"] == "variation" and "not assignable" in r.json["detail"], r.json
    assert _enrol(api, variation="95")["variation"] == "95"


def test_disable_refuses_play_until_enabled(api, app):
    key = api.key("M009")
    r = api.as_staff("operator", "POST", "/api/v1/machines/M009/disable", {"reason": "bill validator jammed"})
    assert r.status_code == 200 and r.json["status"] == "disabled", r.json
    r = api.as_machine("M009", "POST", "/api/v1/machines/M009/bill-in", {"amount": 10_000})
    assert r.status_code == 409 and "bill validator jammed" in r.json["detail"], r.json
    r = api.as_staff("operator", "POST", "/api/v1/machines/M009/disable", {"reason": "again"})
    assert r.status_code == 409 and r.json["field"] == "status"
    r = api.as_staff("operator", "POST", "/api/v1/machines/M009/enable", {"reason": "validator cleared"})
    assert r.status_code == 200 and r.json["status"] == "active"
    assert _play(api, "M009", key).status_code == 200
    actions = [(e["action"], e["before"]["status"], e["after"]["status"]) for e in _audit(app, "machine:M009")
               if e["outcome"] == "done" and e["action"] != "machine.enrol"]
    assert actions[-2:] == [("machine.disable", "active", "disabled"), ("machine.enable", "disabled", "active")]


def test_game_change_needs_no_credits_and_snapshots_the_meters(api, app):
    key = api.key("M003")
    assert _play(api, "M003", key).status_code == 200
    body = {"game": "tiger_reels_243", "variation": "95", "denomination": 200, "denominations": [100, 200],
            "reason": "new title"}
    before = _counts(app)
    r = api.as_staff("operator", "POST", "/api/v1/machines/M003/game", body)
    assert r.status_code == 409 and r.json["field"] == "credits", r.json
    assert _counts(app) == before
    _cash_out(api, "M003", key)
    bad = api.as_staff("operator", "POST", "/api/v1/machines/M003/game", {**body, "denomination": 500})
    assert bad.status_code == 422 and bad.json["field"] == "denomination"
    r = api.as_staff("operator", "POST", "/api/v1/machines/M003/game", body)
    assert r.status_code == 200 and (r.json["game"], r.json["variation"], r.json["denomination"]) == (
        "tiger_reels_243", "95", 200), r.json
    snaps = api.as_staff("auditor", "GET", "/api/v1/machines/M003", key=None).json["snapshots"]
    assert [(s["kind"], s["game"], s["denomination"]) for s in snaps] == [
        ("game_change_before", "dragon_pearl_50", 100), ("game_change_after", "tiger_reels_243", 200)]
    assert snaps[0]["meters"] == snaps[1]["meters"] and snaps[0]["meters"]["games_played"] == 1
    r = api.as_machine("M003", "POST", "/api/v1/machines/M003/bill-in", {"amount": 10_000}, token=key)
    spin = api.as_machine("M003", "POST", "/api/v1/machines/M003/spin", {"reels": 1, "multiplier": 1}, token=key)
    assert spin.status_code == 200 and spin.json["game"] == "tiger_reels_243" and spin.json["bet"]["won"] == 200
    done = [e for e in _audit(app, "machine:M003") if e["action"] == "machine.game_change" and e["outcome"] == "done"]
    assert done[0]["before"]["game"] == "dragon_pearl_50" and done[0]["after"]["game"] == "tiger_reels_243"
    assert any(e["outcome"] == "refused" and e["detail"]["field"] == "credits" for e in _audit(app, "machine:M003"))
    assert api.audit()["balanced"] is True


def test_move_between_zones_follows_the_jackpot_next_reset_rule(api, app):
    r = api.as_staff("operator", "POST", "/api/v1/machines/M005/move",
                     {"bank": "V2", "x": 5, "y": 2, "reason": "VIP expansion"})
    assert r.status_code == 200 and (r.json["zone"], r.json["bank"], r.json["position"]) == (
        "VIP", "V2", {"x": 5, "y": 2}), r.json
    events = api.as_staff("operator", "GET", "/api/v1/jackpots/events", key=None).json["events"]
    assert any(e["kind"] == "zone_move" and e["machine"] == "M005" for e in events)
    r = api.as_staff("operator", "POST", "/api/v1/machines/M005/move", {"bank": "V2", "reason": "again"})
    assert r.status_code == 409 and r.json["field"] == "bank"
    r = api.as_staff("operator", "POST", "/api/v1/machines/M005/move", {"bank": "M1", "x": 0, "y": 0, "reason": "x"})
    assert r.status_code == 409 and r.json["field"] == "x"  # V001's cell
    (move,) = [e for e in _audit(app, "machine:M005") if e["action"] == "machine.move" and e["outcome"] == "done"]
    assert move["before"]["zone"] == "MASS" and move["after"]["zone"] == "VIP" and move["reason"] == "VIP expansion"


def test_key_rotation_is_for_admin_and_ends_the_old_key_at_once(api, app):
    old = api.key("M004")
    assert api.as_staff("operator", "POST", "/api/v1/machines/M004/key", {"reason": "x"}).status_code == 403
    r = api.as_staff("admin", "POST", "/api/v1/machines/M004/key", {"reason": "key leaked"})
    assert r.status_code == 200 and r.json["key"] != old, r.json
    assert api.as_machine("M004", "GET", "/api/v1/machines/M004/meters", token=old, key=None).status_code == 401
    assert api.as_machine("M004", "GET", "/api/v1/machines/M004/meters", token=r.json["key"], key=None).status_code == 200


def test_retire_keeps_the_asset_number_forever(api, app):
    key = api.key("M007")
    assert _play(api, "M007", key).status_code == 200
    assert api.as_staff("operator", "POST", "/api/v1/machines/M007/retire", {"reason": "x"}).status_code == 403
    r = api.as_staff("admin", "POST", "/api/v1/machines/M007/retire", {"reason": "end of life"})
    assert r.status_code == 409 and r.json["field"] == "credits"
    _cash_out(api, "M007", key)
    r = api.as_staff("admin", "POST", "/api/v1/machines/M007/retire", {"reason": "end of life"})
    assert r.status_code == 200 and r.json["status"] == "retired" and r.json["final_meters"]["games_played"] == 1
    assert r.json["position"] is None
    assert api.as_machine("M007", "GET", "/api/v1/machines/M007/meters", token=key, key=None).status_code == 401
    r = api.as_staff("operator", "POST", "/api/v1/machines", {**ENROL, "asset_number": "M007"})
    assert r.status_code == 409 and r.json["field"] == "asset_number" and "retired" in r.json["detail"]
    listed = api.as_staff("operator", "GET", "/api/v1/machines", key=None).json["machines"]
    assert "M007" not in {m["asset_number"] for m in listed}
    everything = api.as_staff("operator", "GET", "/api/v1/machines?include_retired=true", key=None).json["machines"]
    assert "M007" in {m["asset_number"] for m in everything}
    snaps = api.as_staff("auditor", "GET", "/api/v1/machines/M007", key=None).json["snapshots"]
    assert [s["kind"] for s in snaps] == ["retire"] and snaps[0]["meters"]["games_played"] == 1
    r = api.as_staff("operator", "POST", "/api/v1/machines/M007/enable", {"reason": "undo"})
    assert r.status_code == 409 and r.json["field"] == "status"
    assert api.audit()["balanced"] is True


def test_zones_and_banks_lifecycle(api, app):
    r = api.as_staff("operator", "POST", "/api/v1/zones", {"code": "SMOKE", "name": "Smoking terrace"})
    assert r.status_code == 201, r.json
    assert api.as_staff("operator", "POST", "/api/v1/zones", {"code": "SMOKE", "name": "x"}).json["field"] == "code"
    r = api.as_staff("operator", "POST", "/api/v1/banks", {"code": "S1", "name": "Terrace 1", "zone": "SMOKE",
                                                          "orientation": "E"})
    assert r.status_code == 201 and r.json["orientation"] == "E", r.json
    r = api.as_staff("operator", "POST", "/api/v1/banks", {"code": "S2", "name": "x", "zone": "NOPE"})
    assert r.status_code == 422 and r.json["field"] == "zone"
    r = api.as_staff("operator", "PATCH", "/api/v1/zones/SMOKE", {"name": "Terrace"})
    assert r.status_code == 200 and r.json["name"] == "Terrace"
    _enrol(api, asset_number="T001", bank="S1", x=20, y=0)
    # retiring: admin only; refused while machines / banks / jackpot levels are in it
    assert api.as_staff("operator", "PATCH", "/api/v1/banks/S1", {"retired": True, "reason": "x"}).status_code == 403
    r = api.as_staff("admin", "PATCH", "/api/v1/banks/S1", {"retired": True, "reason": "closing"})
    assert r.status_code == 409 and r.json["field"] == "retired" and "1 active machine" in r.json["detail"]
    r = api.as_staff("admin", "PATCH", "/api/v1/zones/SMOKE", {"retired": True, "reason": "closing"})
    assert r.status_code == 409 and r.json["field"] == "retired"
    assert api.as_staff("admin", "POST", "/api/v1/machines/T001/retire", {"reason": "closing"}).status_code == 200
    assert api.as_staff("admin", "PATCH", "/api/v1/banks/S1", {"retired": True, "reason": "closing"}).status_code == 200
    r = api.as_staff("admin", "PATCH", "/api/v1/zones/SMOKE", {"retired": True, "reason": "closing"})
    assert r.status_code == 200 and r.json["retired_at"], r.json
    r = api.as_staff("operator", "POST", "/api/v1/machines", {**ENROL, "bank": "S1"})
    assert r.status_code == 422 and r.json["field"] == "bank"
    # a zone named by jackpot levels stays (they reference it by code)
    r = api.as_staff("admin", "PATCH", "/api/v1/zones/VIP", {"retired": True, "reason": "x"})
    assert r.status_code == 409 and "VIP_DRAGON" in r.json["detail"]
    r = api.as_staff("operator", "PATCH", "/api/v1/zones/VIP", {"name": "High limit"})
    assert r.status_code == 200
    levels = api.as_staff("operator", "GET", "/api/v1/jackpots/levels", key=None).json["levels"]
    assert any(lv["code"] == "VIP_DRAGON" and lv["zone"] == "VIP" for lv in levels)
    assert [e["action"] for e in _audit(app, "zone:SMOKE") if e["outcome"] == "done"] == [
        "zone.create", "zone.update", "zone.retire"]


def test_readers_and_writers(api):
    for role in ("operator", "attendant", "auditor", "admin"):
        assert api.as_staff(role, "GET", "/api/v1/floor/plan", key=None).status_code == 200
    for role in ("cashier", "attendant", "auditor"):
        assert api.as_staff(role, "POST", "/api/v1/machines", ENROL).status_code == 403
    assert api.as_machine("M001", "GET", "/api/v1/machines/M001", key=None).status_code == 403
    r = api.as_staff("operator", "GET", "/api/v1/machines/NOPE", key=None)
    assert r.status_code == 404 and r.json["field"] == "asset"


def test_outcome_source_is_set_at_enrolment_and_changed_only_on_an_idle_machine(api, app):
    """A machine enrolled in machine mode (it decides and reports its own games) refuses the spin; switching
    modes is a change like a game change: only with no credits, audit-logged with before → after."""
    rec = _enrol(api, asset_number="N010", x=8, y=6, outcome_source="machine")
    asset, key = "N010", rec["key"]
    assert rec["outcome_source"] == "machine"
    spin = _play(api, asset, key)
    assert spin.status_code == 409 and spin.json["field"] == "outcome_source"
    # credits on the machine: the switch to server-decided play is refused and nothing changes
    r = api.as_staff("operator", "PATCH", f"/api/v1/machines/{asset}", {"outcome_source": "server", "reason": "x"})
    assert r.status_code == 409 and r.json["field"] == "credits"
    assert api.as_staff("operator", "GET", f"/api/v1/machines/{asset}", key=None).json["outcome_source"] == "machine"
    _cash_out(api, asset, key)
    r = api.as_staff("operator", "PATCH", f"/api/v1/machines/{asset}", {"outcome_source": "server",
                                                                         "reason": "the SMIB was replaced"})
    assert r.status_code == 200 and r.json["outcome_source"] == "server", r.json
    assert _play(api, asset, key).status_code == 200
    change = [a for a in _audit(app, f"machine:{asset}") if a["action"] == "machine.update"][-1]
    assert change["before"] == {"outcome_source": "machine"} and change["after"] == {"outcome_source": "server"}
    bad = api.as_staff("operator", "PATCH", f"/api/v1/machines/{asset}", {"outcome_source": "dealer"})
    assert bad.status_code == 422 and "outcome_source" in str(bad.json)
