"""The jackpot controller end to end through the HTTP API, on a migrated SQLite database
(the embedded default: the fold runs inside the spin's transaction)."""

from __future__ import annotations

import json
import threading
import time

import pytest

from jackpot_controller.adapters.tables import JackpotHit, JackpotLevel
from slotsys.kernel import accounts

LEVELS = "/api/v1/jackpots/levels"


class WithProgressive:
    """An evaluator outcome that also won the given progressive level keys."""

    def __init__(self, outcome, keys):
        self._o, self.progressive = outcome, tuple(keys)

    def __getattr__(self, name):
        return getattr(self._o, name)


@pytest.fixture
def progressive(monkeypatch):
    """``progressive.keys = [...]``: the next spins' outcomes win these progressive levels."""
    import slotsys.floor.services.play as floor

    class Ctl:
        keys: list[str] = []

    real = floor.play
    monkeypatch.setattr(floor, "play", lambda *a, **k: WithProgressive(real(*a, **k), Ctl.keys))
    return Ctl


def level(api, code):
    r = api.as_staff("operator", "GET", f"{LEVELS}/{code}", key=None)
    assert r.status_code == 200, r.json
    return r.json


def spin(api, asset, bet):
    """Odd-numbered demo machines play the 50-line game (lines), even ones the reel-cost game (reels)."""
    return api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/spin", bet)


def fund(api, asset, amount=50_000):
    assert api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/bill-in", {"amount": amount}).status_code == 200


def credits(api, asset):
    return api.as_machine(asset, "GET", f"/api/v1/machines/{asset}/meters", key=None).json["credits"]


def set_trigger(app, code, above_milli):
    svc = app.extensions["slotsys"]
    with svc.uow() as uow:
        lv = uow.session.query(JackpotLevel).filter_by(code=code).one()
        lv.trigger_milli = lv.value_milli + above_milli
        uow.commit()


def audit_ok(api):
    a = api.audit()
    assert a["balanced"], json.dumps(a, indent=1)[:3000]
    assert all(j["agrees"] for j in a["jackpots"]), a["jackpots"]
    return a


def test_the_casinos_mystery_system_is_seeded_and_the_trigger_is_secret(api):
    levels = {lv["code"]: lv for lv in api.as_staff("operator", "GET", LEVELS, key=None).json["levels"]}
    ranges = {c: (lv["zone"], lv["reset"], lv["ceiling"], lv["kind"]) for c, lv in levels.items()}
    assert ranges == {
        "MASS_MINOR": ("MASS", 30_000, 100_000, "mystery"), "MASS_MAJOR": ("MASS", 300_000, 1_000_000, "mystery"),
        "MASS_GRAND": ("MASS", 5_000_000, 10_000_000, "mystery"),
        "VIP_DRAGON": ("VIP", 30_000_000, 50_000_000, "mystery"), "VIP_TIGER": ("VIP", 30_000_000, 50_000_000, "mystery"),
        "VIP_PHOENIX": ("VIP", 30_000_000, 50_000_000, "mystery"),
        "MEGA": (None, 10_000_000, 100_000_000, "mystery"), "PREMIUM": (None, 1_000_000, 3_000_000, "mystery"),
        "CSP_PROG": (None, 5_000_000, 500_000_000, "table"),  # the Caribbean stud table's progressive (issue 8)
    }
    assert all("trigger" not in k for lv in levels.values() for k in lv)
    public = api.as_machine("M001", "GET", LEVELS, key=None).json["levels"]
    assert "reserve" not in public[0] and "pending" not in public[0] and public[0]["value"] == 30_000
    # a MASS wager feeds its zone's three levels and the two floor-wide ones, a VIP wager its own
    fund(api, "M001")
    fund(api, "V001")
    spin(api, "M001", {"lines": 50, "multiplier": 2})  # ₩10,000
    spin(api, "V001", {"lines": 10, "multiplier": 1})  # ₩10,000
    coin_in = {lv["code"]: lv["qualifying_coin_in"] for lv in api.as_staff("operator", "GET", LEVELS, key=None).json["levels"]}
    assert coin_in == {"MASS_MINOR": 10_000, "MASS_MAJOR": 10_000, "MASS_GRAND": 10_000, "VIP_DRAGON": 10_000,
                       "VIP_TIGER": 10_000, "VIP_PHOENIX": 10_000, "MEGA": 20_000, "PREMIUM": 20_000,
                       "CSP_PROG": 0}  # slot wagers never feed a table progressive
    grand = level(api, "MASS_GRAND")
    assert grand["value_milli"] == 5_000_000_000 + 20_000 and grand["reserve_milli"] == 5_000  # 0.2 %, hidden 0.05 %
    audit_ok(api)


def test_linked_progressive_won_by_the_combination_on_any_machine_of_its_bank(api, progressive):
    r = api.as_staff("operator", "POST", LEVELS, {
        "code": "BANK_M1_GRAND", "name": "Bank M1 Grand", "kind": "linked", "scope": "bank", "bank": "M1",
        "reset": 50_000, "ceiling": 200_000, "rate_ppm": 10_000, "combination": "grand"})
    assert r.status_code == 201, r.json
    assert r.json["value"] == 50_000 and r.json["kind"] == "linked"
    for asset in ("M002", "M003", "M006"):
        fund(api, asset)
    spin(api, "M002", {"reels": 5, "multiplier": 2})  # ₩5,000 → +₩50
    spin(api, "M006", {"reels": 5, "multiplier": 2})  # bank M2: not eligible
    assert level(api, "BANK_M1_GRAND")["value_milli"] == 50_050_000
    progressive.keys = ["grand"]
    before = credits(api, "M003")
    r = spin(api, "M003", {"lines": 10, "multiplier": 1})  # ₩1,000 → +₩10, then wins ₩50,060
    assert r.status_code == 200, r.json
    jp = [j for j in r.json["jackpots"] if j["level"] == "BANK_M1_GRAND"]
    assert jp == [{"hit": jp[0]["hit"], "level": "BANK_M1_GRAND", "name": "Bank M1 Grand", "amount": 50_060,
                   "status": "awarded", "pay_method": "credit"}]
    assert r.json["credits"] == before - 1_000 + r.json["total_win"] + 50_060 == credits(api, "M003")
    r = spin(api, "M006", {"reels": 5, "multiplier": 1})  # the combination on a machine of another bank wins nothing
    assert not [j for j in r.json["jackpots"] if j["level"] == "BANK_M1_GRAND"]
    lv = level(api, "BANK_M1_GRAND")
    assert lv["cycle"] == 2 and lv["hits"] == 1 and lv["total_won"] == 50_060 and lv["value"] == 50_000
    h = lv["history"][0]
    assert (h["machine"], h["zone"], h["amount"], h["status"], h["player"]) == ("M003", "MASS", 50_060, "awarded", None)
    recall = api.as_machine("M003", "GET", "/api/v1/machines/M003/games", key=None).json["games"][0]
    assert any(j["level"] == "BANK_M1_GRAND" for j in recall["jackpots"])
    progressive.keys = ["DRAGON_GRAND"]  # a combination no level is bound to: logged, pays nothing
    assert spin(api, "M003", {"lines": 10, "multiplier": 1}).json["jackpots"] == []
    ev = api.as_staff("auditor", "GET", "/api/v1/jackpots/events", key=None).json["events"][0]
    assert ev["kind"] == "unmatched_progressive" and ev["machine"] == "M003" and ev["detail"]["key"] == "DRAGON_GRAND"
    audit_ok(api)


def test_handpay_locks_the_machine_until_an_attendant_pays_it_from_the_cage(api, app, progressive):
    r = api.as_staff("operator", "POST", LEVELS, {
        "code": "SAP_V002", "name": "V002 Major", "kind": "standalone", "scope": "machine", "machine": "V002",
        "start": 2_500_000, "reset": 2_000_000, "ceiling": 4_000_000, "rate_ppm": 20_000, "combination": "major"})
    assert r.status_code == 201, r.json
    fund(api, "V002")
    svc = app.extensions["slotsys"]
    with svc.uow(readonly=True) as uow:
        cage_before = uow.ledger.balance(accounts.cage_bank("MAIN"))
    progressive.keys = ["major"]
    r = spin(api, "V002", {"reels": 1, "multiplier": 1})  # ₩1,000 → +₩20 → ₩2,500,020 ≥ ₩2,000,000: handpay
    assert r.status_code == 200
    jp = r.json["jackpots"][0]
    assert jp["amount"] == 2_500_020 and jp["status"] == "handpay"
    assert r.json["credits"] == 50_000 - 1_000 + r.json["total_win"]  # not credited
    meters = api.as_machine("V002", "GET", "/api/v1/machines/V002/meters", key=None).json
    assert meters["status"] == "handpay"
    progressive.keys = []
    refused = spin(api, "V002", {"reels": 1, "multiplier": 1})
    assert refused.status_code == 409 and refused.json["type"].endswith("machine-locked")
    waiting = api.as_staff("attendant", "GET", "/api/v1/jackpots/handpays", key=None).json["waiting"]
    assert [(w["id"], w["machine"], w["amount"]) for w in waiting] == [(jp["hit"], "V002", 2_500_020)]
    audit_ok(api)  # payable = the unpaid handpay
    assert api.as_staff("cashier", "POST", f"/api/v1/jackpots/hits/{jp['hit']}/handpay").status_code == 403
    assert api.as_staff("attendant", "POST", f"/api/v1/jackpots/hits/{jp['hit']}/handpay", key=None).status_code == 422
    paid = api.as_staff("attendant", "POST", f"/api/v1/jackpots/hits/{jp['hit']}/handpay", key="hp-1")
    assert paid.status_code == 200, paid.json
    assert paid.json["machine_status"] == "active" and paid.json["paid_by"] == "attendant"
    replay = api.as_staff("attendant", "POST", f"/api/v1/jackpots/hits/{jp['hit']}/handpay", key="hp-1")
    assert replay.json == paid.json and replay.headers.get("Idempotent-Replayed") == "true"
    again = api.as_staff("attendant", "POST", f"/api/v1/jackpots/hits/{jp['hit']}/handpay")
    assert again.status_code == 409 and again.json["hit_status"] == "awarded" and again.json["paid_by"] == "attendant"
    with svc.uow(readonly=True) as uow:
        assert uow.ledger.balance(accounts.cage_bank("MAIN")) == cage_before - 2_500_020
    meters = api.as_machine("V002", "GET", "/api/v1/machines/V002/meters", key=None).json
    assert meters["status"] == "active" and meters["meters"]["jackpot_out"] == 2_500_020
    assert meters["credits"] == r.json["credits"]  # paid in cash, not onto the credit meter
    assert spin(api, "V002", {"reels": 1, "multiplier": 1}).status_code == 200
    audit_ok(api)


def corrupt(app, api, code):
    """A faulty controller's trigger (the reference's ₩42,949,672 display): ₩5,000 above the value,
    so above the ceiling ₩5,000 of the levels below; one qualifying ₩25,000 spin brings the meter
    (10 %) to ₩3,500, the next crosses ₩6,000."""
    set_trigger(app, code, 5_000_000)
    r = spin(api, "M004", {"reels": 5, "multiplier": 10})
    assert r.status_code == 200 and not [j for j in r.json["jackpots"] if j["level"] == code], r.json


def test_an_award_above_the_maximum_is_never_credited_and_locks_for_verification(api, app):
    body = {"code": "CAPPED", "name": "Capped", "kind": "mystery", "scope": "zone", "zone": "MASS",
            "reset": 1_000, "ceiling": 5_000, "rate_ppm": 100_000, "max_award": 1_500}
    r = api.as_staff("operator", "POST", LEVELS, body)  # a maximum below the ceiling would lock every big hit
    assert r.status_code == 422 and r.json["field"] == "max_award", r.json
    r = api.as_staff("operator", "POST", LEVELS, {**body, "max_award": 5_000})
    assert r.status_code == 201, r.json
    fund(api, "M004")
    fund(api, "M004")
    corrupt(app, api, "CAPPED")  # a faulty trigger at ₩6,000: above the maximum ₩5,000
    before = credits(api, "M004")
    r = spin(api, "M004", {"reels": 5, "multiplier": 10})  # ₩25,000 → +₩2,500 crosses it
    jp = [j for j in r.json["jackpots"] if j["level"] == "CAPPED"][0]
    assert jp["status"] == "verification" and jp["amount"] == 6_000
    assert r.json["credits"] == before - 25_000 + r.json["total_win"] + sum(
        j["amount"] for j in r.json["jackpots"] if j["status"] == "awarded")
    assert api.as_machine("M004", "GET", "/api/v1/machines/M004/meters", key=None).json["status"] == "verification"
    ev = [e for e in api.as_staff("auditor", "GET", "/api/v1/jackpots/events", key=None).json["events"]
          if e["kind"] == "verification"][0]
    assert ev["detail"]["amount_won"] == 6_000 and ev["detail"]["maximum_won"] == 5_000 and "trigger_milli" in ev["detail"]
    audit_ok(api)
    assert api.as_staff("attendant", "POST", f"/api/v1/jackpots/hits/{jp['hit']}/handpay").status_code == 409
    bad = api.as_staff("operator", "POST", f"/api/v1/jackpots/hits/{jp['hit']}/verify", {"decision": "keep", "reason": "x"})
    assert bad.status_code == 422 and bad.json["field"] == "decision"
    overflow = level(api, "CAPPED")["overflow"]
    r = api.as_staff("operator", "POST", f"/api/v1/jackpots/hits/{jp['hit']}/verify",
                     {"decision": "void", "reason": "award above the game's maximum: configuration error"})
    assert r.status_code == 200 and r.json["status"] == "void" and r.json["machine_status"] == "active"
    assert level(api, "CAPPED")["overflow"] == overflow + 6_000  # the players' money stays in the pool
    audit_ok(api)


def snapshot(api):
    a = api.audit()
    return a["journal_entries"], api.as_staff("operator", "GET", LEVELS, key=None).json


@pytest.mark.parametrize("body,field", [
    ({"reset": 200_000, "ceiling": 100_000}, "reset"),  # reset above the ceiling
    ({"rate_ppm": 0}, "rate_ppm"),
    ({"rate_ppm": 100_001}, "rate_ppm"),  # above 10 %
    ({"zone": "ATLANTIS"}, "zone"),
    ({"reset": -5}, "reset"),
    ({"min_bet": -1}, "min_bet"),
    ({"reserve_rate_ppm": -1}, "reserve_rate_ppm"),
    ({"rate_ppm": 1.5}, "rate_ppm"),
    ({"scope": "floor"}, "zone"),
    ({"kind": "linked"}, "combination"),
    ({"overflow": "divert"}, "overflow_to"),
    ({"overflow": "divert", "overflow_to": "NOPE"}, "overflow_to"),
    ({"code": "bad code"}, "code"),
    ({"code": "MASS_MINOR"}, "code"),
    ({"max_award": 1_500}, "max_award"),  # below the ceiling (and the reset on the edit of Minor)
    ({"max_award": 0}, "max_award"),
    ({"reset": 1_000, "ceiling": 200_000_000}, "ceiling"),  # above the system maximum award ₩150,000,000
])
def test_bad_configuration_is_refused_naming_the_field_and_changes_nothing(api, body, field):
    base = {"code": "NEW_LEVEL", "name": "New", "kind": "mystery", "scope": "zone", "zone": "VIP",
            "reset": 1_000, "ceiling": 2_000, "rate_ppm": 5_000}
    before = snapshot(api)
    r = api.as_staff("operator", "POST", LEVELS, {**base, **body})
    assert r.status_code in (409, 422), r.json
    assert r.headers["Content-Type"] == "application/problem+json" and r.json["field"] == field, r.json
    assert snapshot(api) == before
    # the same refusals on an edit of a live level
    if not {"code", "kind", "scope"} & set(body):
        r = api.as_staff("operator", "PATCH", f"{LEVELS}/MASS_MINOR", body)
        assert r.status_code == 422 and r.json["field"] == field, r.json
        assert snapshot(api) == before


def test_edits_take_effect_after_the_next_hit_and_pause_stops_contributions(api, app):
    r = api.as_staff("operator", "PATCH", f"{LEVELS}/MASS_MINOR", {"rate_ppm": 10_000, "reset": 40_000,
                                                                    "name": "Mass Minor", "reason": "new season"})
    assert r.status_code == 200, r.json
    assert r.json["name"] == "Mass Minor" and r.json["rate_ppm"] == 5_000 and r.json["pending"]["rate_ppm"] == 10_000
    fund(api, "M005")
    v0 = level(api, "MASS_MINOR")["value_milli"]
    spin(api, "M005", {"lines": 10, "multiplier": 1})  # ₩1,000 at the old 0.5 %
    assert level(api, "MASS_MINOR")["value_milli"] == v0 + 5_000
    set_trigger(app, "MASS_MINOR", 1_000)
    r = spin(api, "M005", {"lines": 10, "multiplier": 1})
    assert [j["level"] for j in r.json["jackpots"]] == ["MASS_MINOR"]
    lv = level(api, "MASS_MINOR")
    assert lv["rate_ppm"] == 10_000 and lv["reset"] == 40_000 and lv["pending"] is None and lv["cycle"] == 2
    assert 40_000 <= lv["value"] < 40_010
    v1 = lv["value_milli"]
    assert api.as_staff("operator", "POST", f"{LEVELS}/MASS_MINOR/pause", {"reason": "display fault"}).status_code == 200
    spin(api, "M005", {"lines": 10, "multiplier": 1})
    assert level(api, "MASS_MINOR")["value_milli"] == v1
    assert api.as_staff("operator", "POST", f"{LEVELS}/MASS_MINOR/pause", {}).status_code == 409
    assert api.as_staff("operator", "POST", f"{LEVELS}/MASS_MINOR/resume", {}).status_code == 200
    spin(api, "M005", {"lines": 10, "multiplier": 1})
    assert level(api, "MASS_MINOR")["value_milli"] == v1 + 10_000  # the new 1 %
    kinds = [e["kind"] for e in api.as_staff("auditor", "GET", "/api/v1/jackpots/events?level=MASS_MINOR",
                                             key=None).json["events"]]
    assert kinds == ["resumed", "paused", "edited"]
    audit_ok(api)


def test_a_correction_needs_a_reason_moves_the_ledger_and_is_visible_to_auditors(api):
    before = snapshot(api)
    for body, field in (({"value": 40_000}, "reason"), ({"value": 10_000, "reason": "meter fault"}, "value"),
                        ({"value": 200_000, "reason": "meter fault"}, "value"), ({"value": -1, "reason": "x y z"}, "value")):
        r = api.as_staff("operator", "POST", f"{LEVELS}/MASS_MINOR/corrections", body)
        assert r.status_code == 422 and r.json["field"] == field, r.json
    r = api.as_staff("operator", "POST", f"{LEVELS}/MASS_MINOR/corrections", {"value": 40_000, "reason": "x y z"}, key=None)
    assert r.status_code == 422 and r.json["field"] == "Idempotency-Key"
    assert api.as_staff("attendant", "POST", f"{LEVELS}/MASS_MINOR/corrections",
                        {"value": 40_000, "reason": "meter fault"}).status_code == 403
    assert snapshot(api) == before
    r = api.as_staff("operator", "POST", f"{LEVELS}/MASS_MINOR/corrections",
                     {"value": 45_000, "reason": "restore value lost by controller fault #17"})
    assert r.status_code == 200 and r.json["value"] == 45_000 and r.json["correction"]["old"] == 30_000
    ev = api.as_staff("auditor", "GET", "/api/v1/jackpots/events", key=None).json["events"][0]
    assert ev["kind"] == "correction" and ev["actor"] == "operator" and "fault #17" in ev["reason"]
    assert ev["detail"]["old_value_milli"] == 30_000_000 and ev["detail"]["new_value_milli"] == 45_000_000
    audit_ok(api)


def test_a_machine_moved_between_zones_changes_levels_at_each_levels_next_reset(api, app):
    fund(api, "M007")
    r = api.as_staff("operator", "POST", "/api/v1/jackpots/machines/M007/zone", {"zone": "VIP"})
    assert r.status_code == 200 and r.json["from"] == "MASS"
    bad = api.as_staff("operator", "POST", "/api/v1/jackpots/machines/M007/zone", {"zone": "MOON"})
    assert bad.status_code == 422 and bad.json["field"] == "zone"

    def coin_in():
        return {lv["code"]: lv["qualifying_coin_in"] for lv in api.as_staff("operator", "GET", LEVELS, key=None).json["levels"]}

    c0 = coin_in()
    spin(api, "M007", {"lines": 10, "multiplier": 1})  # ₩1,000: still a MASS machine for every level
    c1 = coin_in()
    assert c1["MASS_MINOR"] - c0["MASS_MINOR"] == 1_000 and c1["VIP_DRAGON"] == c0["VIP_DRAGON"]
    set_trigger(app, "MASS_MINOR", 1)  # the Minor resets: from now on M007 no longer feeds it
    spin(api, "M007", {"lines": 10, "multiplier": 1})
    assert level(api, "MASS_MINOR")["cycle"] == 2
    set_trigger(app, "VIP_DRAGON", 1)  # nor does it win the Dragon before the Dragon resets
    spin(api, "M007", {"lines": 10, "multiplier": 1})
    c2 = coin_in()
    assert c2["MASS_MINOR"] == c1["MASS_MINOR"] + 1_000 and c2["MASS_MAJOR"] == c1["MASS_MAJOR"] + 2_000
    assert c2["VIP_DRAGON"] == c0["VIP_DRAGON"] and level(api, "VIP_DRAGON")["cycle"] == 1
    fund(api, "V003")
    spin(api, "V003", {"lines": 1, "multiplier": 1})  # a VIP machine wins the Dragon: its new cycle takes M007
    assert level(api, "VIP_DRAGON")["cycle"] == 2
    spin(api, "M007", {"lines": 10, "multiplier": 1})
    assert coin_in()["VIP_DRAGON"] == c2["VIP_DRAGON"] + 1_000 + 1_000
    audit_ok(api)


def test_roles(api):
    assert api.as_machine("M001", "POST", LEVELS, {"code": "X1", "name": "x", "kind": "mystery", "reset": 1,
                                                   "ceiling": 2, "rate_ppm": 1}).status_code == 403
    assert api.as_staff("cashier", "GET", "/api/v1/jackpots/events", key=None).status_code == 403
    assert api.as_staff("attendant", "PATCH", f"{LEVELS}/MEGA", {"name": "x"}).status_code == 403
    assert api.client.get(LEVELS).status_code == 401
    assert api.as_staff("auditor", "GET", f"{LEVELS}/NOPE", key=None).status_code == 404


def test_the_live_stream_shows_a_hit_within_two_seconds(api, app):
    token = api.staff_token("operator")
    events: list[tuple[str, dict, float]] = []

    def listen():
        r = app.test_client().get("/api/v1/jackpots/stream?max_seconds=8", headers={"Authorization": f"Bearer {token}"},
                                  buffered=False)
        assert r.status_code == 200 and r.mimetype == "text/event-stream"
        buf = ""
        for chunk in r.response:
            buf += chunk.decode() if isinstance(chunk, bytes) else chunk
            while "\n\n" in buf:
                block, buf = buf.split("\n\n", 1)
                lines = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line)
                events.append((lines.get("event"), json.loads(lines.get("data", "{}")), time.monotonic()))
                if lines.get("event") == "hit":
                    r.close()
                    return

    t = threading.Thread(target=listen, daemon=True)
    t.start()
    deadline = time.monotonic() + 5
    while not events and time.monotonic() < deadline:
        time.sleep(0.05)
    assert events and events[0][0] == "meters" and {lv["code"] for lv in events[0][1]["levels"]} >= {"MEGA"}
    set_trigger(app, "MASS_MAJOR", 1)
    fund(api, "M011")
    t0 = time.monotonic()
    r = spin(api, "M011", {"lines": 10, "multiplier": 1})
    assert [j["level"] for j in r.json["jackpots"]] == ["MASS_MAJOR"]
    t.join(timeout=5)
    hits = [(e, at) for kind, e, at in events if kind == "hit"]
    assert hits, events
    hit, at = hits[0]
    assert hit["machine"] == "M011" and hit["level"] == "MASS_MAJOR" and hit["amount"] == r.json["jackpots"][0]["amount"]
    assert 300_000 <= hit["new_value"] < 300_100 and at - t0 < 2.0


def test_async_sequencer_awards_each_hit_once_as_a_bonus(api, app):
    """With the sequencer outside the spin: the spin only records its wager, a fold decides
    the hit, the award task credits it; duplicated tasks and folds pay nothing more."""
    svc = app.extensions["slotsys"]
    svc.jackpots.sequencer.stop()  # no background thread: this test folds by hand
    svc.jackpots.settings.sequencer = "async"
    fund(api, "M009")
    set_trigger(app, "MASS_MINOR", 1)
    before = credits(api, "M009")
    r = spin(api, "M009", {"lines": 10, "multiplier": 1})
    assert r.json["jackpots"] == [] and r.json["credits"] == before - 1_000 + r.json["total_win"]
    assert api.as_staff("operator", "GET", "/api/v1/jackpots/queue", key=None).json["pending"] == 1
    assert audit_ok(api)
    assert svc.jackpots.sequencer.fold_all() == 1 and svc.jackpots.sequencer.fold_all() == 0
    with svc.uow(readonly=True) as uow:
        hit = uow.session.query(JackpotHit).filter_by(machine_id=uow.machines.get("M009").id).one()
        assert hit.status == "awarded" and hit.pay_method == "credit" and hit.announced  # eager award + announce
        uow.session.expunge(hit)
    assert credits(api, "M009") == r.json["credits"] + hit.amount_won
    assert svc.jackpots.awards.process(hit.id) is None  # a duplicated task pays nothing
    assert svc.jackpots.sweeper.run().awarded == []
    assert credits(api, "M009") == r.json["credits"] + hit.amount_won
    recall = api.as_machine("M009", "GET", "/api/v1/machines/M009/games", key=None).json["games"][0]
    assert recall["jackpots"][0]["amount"] == hit.amount_won
    audit_ok(api)


def listen_stream(app, token, events, stop, seconds=12):
    """Collect (event, data) of the live stream into ``events`` until ``stop(events)`` or ``seconds``."""
    r = app.test_client().get(f"/api/v1/jackpots/stream?max_seconds={seconds}",
                              headers={"Authorization": f"Bearer {token}"}, buffered=False)
    assert r.status_code == 200 and r.mimetype == "text/event-stream"
    buf = ""
    for chunk in r.response:
        buf += chunk.decode() if isinstance(chunk, bytes) else chunk
        while "\n\n" in buf:
            block, buf = buf.split("\n\n", 1)
            lines = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line)
            events.append((lines.get("event"), json.loads(lines.get("data", "{}"))))
            if stop(events):
                r.close()
                return


def test_the_stream_announces_a_hit_when_paid_and_one_held_for_verification_without_celebration(api, app):
    """A hit held for verification is announced with that status and no amount; the stream carries
    its amount only once an operator decides to pay it (a handpay an attendant pays). Hits credited
    to the machine carry their amount. The sign's value never reads above what the level pays."""
    r = api.as_staff("operator", "POST", LEVELS, {
        "code": "CAPPED", "name": "Capped", "kind": "mystery", "scope": "zone", "zone": "MASS",
        "reset": 1_000, "ceiling": 5_000, "rate_ppm": 100_000, "max_award": 5_000})
    assert r.status_code == 201, r.json
    events: list = []

    def capped_hits(evs):
        return [d for kind, d in evs if kind == "hit" and d.get("level") == "CAPPED"]

    t = threading.Thread(target=listen_stream, args=(app, api.staff_token("operator"), events,
                                                     lambda evs: len(capped_hits(evs)) >= 3), daemon=True)
    t.start()
    deadline = time.monotonic() + 5
    while not events and time.monotonic() < deadline:
        time.sleep(0.05)
    assert events and events[0][0] == "meters"
    fund(api, "M004")
    fund(api, "M004")
    corrupt(app, api, "CAPPED")  # the faulty controller: ₩6,000 above the maximum ₩5,000
    r = spin(api, "M004", {"reels": 5, "multiplier": 10})
    held = next(j for j in r.json["jackpots"] if j["level"] == "CAPPED")
    assert held["status"] == "verification"
    r = api.as_staff("operator", "POST", f"/api/v1/jackpots/hits/{held['hit']}/verify",
                     {"decision": "pay", "reason": "verified with the manufacturer: pay it"})
    assert r.status_code == 200 and r.json["status"] == "handpay", r.json
    r = api.as_staff("attendant", "POST", f"/api/v1/jackpots/hits/{held['hit']}/handpay")
    assert r.status_code == 200 and r.json["amount"] == 6_000 and r.json["machine_status"] == "active", r.json
    set_trigger(app, "CAPPED", 1)  # a small, ordinary hit: credited
    r = spin(api, "M004", {"reels": 5, "multiplier": 10})
    credited = next(j for j in r.json["jackpots"] if j["level"] == "CAPPED")
    assert credited["status"] == "awarded"
    t.join(timeout=10)
    hits = capped_hits(events)
    assert [(h["hit"], h["status"]) for h in hits] == [(held["hit"], "verification"), (held["hit"], "handpay"),
                                                      (credited["hit"], "awarded")], hits
    assert hits[0]["amount"] is None  # no amount beyond what will be paid: maybe nothing (a void)
    assert hits[1]["amount"] == 6_000 and hits[2]["amount"] == credited["amount"]
    assert all(h["amount"] is None for h in hits if h["status"] not in ("awarded", "handpay"))
    for kind, d in events:  # every meters snapshot: CAPPED never reads above its ceiling = its maximum
        if kind == "meters":
            assert all(lv["value"] <= 5_000 for lv in d["levels"] if lv["code"] == "CAPPED"), d


def test_a_correction_above_the_trigger_pays_at_least_the_corrected_value(api, app):
    """The old rule paid the trigger (less than the corrected meter); a rise now redraws it."""
    set_trigger(app, "MASS_MINOR", 5_000_000)  # the trigger ₩35,000 (value ₩30,000)
    r = api.as_staff("operator", "POST", f"{LEVELS}/MASS_MINOR/corrections",
                     {"value": 99_990, "reason": "restore the value lost by a controller fault"})
    assert r.status_code == 200 and r.json["value"] == 99_990, r.json
    ev = api.as_staff("auditor", "GET", "/api/v1/jackpots/events", key=None).json["events"][0]
    assert ev["kind"] == "correction" and ev["detail"]["trigger_redrawn"] is True
    with app.extensions["slotsys"].uow() as uow:
        assert uow.session.query(JackpotLevel).filter_by(code="MASS_MINOR").one().trigger_milli > 99_990_000
    fund(api, "M005")
    for _ in range(3):  # ₩5,000 adds ₩25: the redrawn trigger (≤ the ceiling ₩100,000) is reached
        r = spin(api, "M005", {"lines": 50, "multiplier": 1})
        assert r.status_code == 200, r.json
        hit = [j for j in r.json["jackpots"] if j["level"] == "MASS_MINOR"]
        if hit:
            assert hit[0]["amount"] > 99_990
            break
        assert level(api, "MASS_MINOR")["value"] <= 100_000
    else:
        pytest.fail("no hit")
    audit_ok(api)


def test_a_handpay_at_or_above_the_two_person_threshold_is_paid_only_with_two_signatures(api, app, progressive):
    """The single-signer route refuses a handpay from ``SLOTSYS_HANDPAY_TWO_PERSON_WON`` (409
    ``two-signatures-required``, nothing moved); the handpay queue pays it with the attendant's and a different
    supervisor's signatures."""
    svc = app.extensions["slotsys"]
    svc.jackpots.settings.handpay_two_person_won = 2_000_000  # the queue's and the route's threshold, lowered
    svc.events.settings.handpay_two_person_won = 2_000_000
    r = api.as_staff("operator", "POST", LEVELS, {
        "code": "SAP_V003", "name": "V003 Major", "kind": "standalone", "scope": "machine", "machine": "V003",
        "start": 2_500_000, "reset": 2_000_000, "ceiling": 4_000_000, "rate_ppm": 20_000, "combination": "major"})
    assert r.status_code == 201, r.json
    fund(api, "V003")
    progressive.keys = ["major"]
    jp = spin(api, "V003", {"lines": 1, "multiplier": 1}).json["jackpots"][0]
    progressive.keys = []
    assert jp["status"] == "handpay" and jp["amount"] == 2_500_020
    with svc.uow(readonly=True) as uow:
        cage_before = uow.ledger.balance(accounts.cage_bank("MAIN"))
    r = api.as_staff("attendant", "POST", f"/api/v1/jackpots/hits/{jp['hit']}/handpay")
    assert r.status_code == 409 and r.json["type"].endswith("two-signatures-required") and r.json["field"] == "hit"
    assert api.as_machine("V003", "GET", "/api/v1/machines/V003/meters", key=None).json["status"] == "handpay"
    queue = api.as_staff("attendant", "GET", "/api/v1/handpays?state=pending", key=None).json["handpays"]
    h = next(h for h in queue if h["hit_id"] == jp["hit"])
    assert h["signers_needed"] == 2
    first = api.as_staff("attendant", "POST", f"/api/v1/handpays/{h['id']}/sign")
    assert first.status_code == 200 and first.json["state"] == "pending", first.json
    second = api.as_staff("supervisor", "POST", f"/api/v1/handpays/{h['id']}/sign")
    assert second.status_code == 200 and second.json["state"] == "paid", second.json
    with svc.uow(readonly=True) as uow:
        assert uow.ledger.balance(accounts.cage_bank("MAIN")) == cage_before - 2_500_020
    assert api.as_machine("V003", "GET", "/api/v1/machines/V003/meters", key=None).json["status"] == "active"
    audit_ok(api)
