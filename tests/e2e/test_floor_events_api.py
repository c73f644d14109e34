"""Machine events, alerts and handpays over the API (Flask test client, SQLite): the machine reports events by
kind or SAS code, unknown ones are refused naming the field, the floor's rules open alerts (security alerts for a
stacker removed outside the drop window), attendants move alerts through their states (409 otherwise), the
heartbeat and offline sweep, and the two-person handpay sign-off."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta, timezone

import pytest

from slotsys.floor.domain import machine_events as V
from slotsys.kernel import accounts
from slotsys.kernel.settings import Settings


@pytest.fixture(scope="module")
def floor(tmp_path_factory):
    """One seeded floor for the module (each test uses its own machines): the app is built once."""
    from tests.conftest import Api, _make_app

    tmp = tmp_path_factory.mktemp("events")
    app = _make_app(Settings(database_url=f"sqlite:///{tmp / 'floor.db'}", redis_url=None, celery_eager=True,
                             credentials_file=tmp / "creds.json"))
    yield Api(app)
    app.extensions["slotsys"].jackpots.driver.stop()
    app.extensions["slotsys"].uow.engine.dispose()


@pytest.fixture
def api(floor):
    """The module's floor; the events service's settings and drop windows are restored after each test."""
    svc = floor.app.extensions["slotsys"].events
    settings, windows = svc.settings, svc.drop_windows
    yield floor
    svc.settings, svc.drop_windows = settings, windows


def _events(api, asset, body, key=None):
    return api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/events", body, key=key)


def _alerts(api, role="attendant", **q):
    qs = "&".join(f"{k}={v}" for k, v in q.items())
    r = api.as_staff(role, "GET", f"/api/v1/alerts?{qs}", key=None)
    assert r.status_code == 200, r.json
    return r.json["alerts"]


def test_event_by_kind_and_by_sas_code_is_recorded_with_labels(api):
    r = _events(api, "M001", {"events": [{"kind": "printer_paper_low"}, {"sas_code": 0x61}]})
    assert r.status_code == 201, r.json
    kinds = [e["kind"] for e in r.json["events"]]
    assert kinds == ["printer_paper_low", "printer_paper_out"]
    assert r.json["events"][1]["sas_hex"] == "0x61" and r.json["events"][1]["label_ko"] == "프린터 용지 없음"
    assert r.json["events"][0]["alert_id"] is None and r.json["events"][1]["alert_id"] is not None
    log = api.as_staff("attendant", "GET", "/api/v1/machines/M001/events?kind=printer_paper_out", key=None)
    assert log.status_code == 200 and [e["sas_code"] for e in log.json["events"]] == [0x61]
    assert log.json["link"]["online"] is True


@pytest.mark.parametrize("body, field", [
    ({"kind": "door_fell_off"}, "events[0].kind"),
    ({"sas_code": 0xFE}, "events[0].sas_code"),
    ({"events": [{"kind": "bill_jam"}, {"kind": "main_door_opened", "sas_code": 0x13}]}, "events[1].sas_code"),
    ({"kind": "comms_lost"}, "events[0].kind"),
])
def test_unknown_event_is_refused_naming_the_field_and_nothing_is_recorded(api, body, field):
    before = api.as_staff("auditor", "GET", "/api/v1/machines/M002/events", key=None).json["events"]
    r = _events(api, "M002", body)
    assert r.status_code == 422 and r.json["field"] == field, r.json
    after = api.as_staff("auditor", "GET", "/api/v1/machines/M002/events", key=None).json["events"]
    assert after == before


def test_malformed_event_body_is_422_naming_the_field(api):
    r = _events(api, "M001", {"sas_code": "0x11"})
    assert r.status_code == 422 and "sas_code" in r.json["field"]
    r = _events(api, "M001", {})
    assert r.status_code == 422
    for detail in ({"nested": {"a": 1}}, {"x": "\x00"}, {"x": "y" * 201}, {f"k{i}": i for i in range(21)}):
        r = _events(api, "M001", {"kind": "bill_jam", "detail": detail})
        assert r.status_code == 422 and "detail" in r.json["field"], r.json
    r = _events(api, "M001", {"events": []})
    assert r.status_code == 422 and r.json["field"].startswith("events")
    r = _events(api, "M001", {"kind": "bill_jam", "events": [{"kind": "bill_jam"}]})
    assert r.status_code == 422


def test_main_door_open_during_play_names_the_game_and_is_a_security_alert(api):
    api.as_machine("M003", "POST", "/api/v1/machines/M003/bill-in", {"amount": 50_000})
    spin = api.as_machine("M003", "POST", "/api/v1/machines/M003/spin", {"lines": 1, "multiplier": 1})
    assert spin.status_code == 200, spin.json
    r = _events(api, "M003", {"sas_code": 0x11})
    ev = r.json["events"][0]
    assert ev["kind"] == "main_door_opened" and ev["game_number"] == spin.json["game_number"]
    assert ev["detail"]["in_play"] is True
    alert = next(a for a in _alerts(api, state="active", machine="M003") if a["id"] == ev["alert_id"])
    assert alert["security"] is True and alert["severity"] == "warning"
    # closing the door clears the condition but a security alert stays for a person (flagged)
    _events(api, "M003", {"kind": "main_door_closed"})
    alert = next(a for a in _alerts(api, machine="M003") if a["id"] == ev["alert_id"])
    assert alert["state"] == "open" and "condition_cleared_at" in alert["detail"]


def test_stacker_removed_outside_drop_window_is_a_security_alert(api):
    svc = api.app.extensions["slotsys"].events
    svc.drop_windows = V.parse_drop_windows("05:00-06:30")
    seoul_0545 = datetime(2026, 12, 1, 20, 45, tzinfo=timezone.utc)  # 05:45 KST
    seoul_1200 = datetime(2026, 12, 1, 3, 0, tzinfo=timezone.utc)  # 12:00 KST
    r = _events(api, "M004", {"kind": "stacker_removed", "reported_at": seoul_0545.isoformat()})
    assert r.json["events"][0]["detail"]["drop_window"] is True and r.json["events"][0]["alert_id"] is None
    _events(api, "M004", {"kind": "stacker_installed"})
    r = _events(api, "M004", {"sas_code": 0x1B, "reported_at": seoul_1200.isoformat()})
    ev = r.json["events"][0]
    assert ev["detail"]["drop_window"] is False
    alert = next(a for a in _alerts(api, security="true") if a["id"] == ev["alert_id"])
    assert alert["kind"] == "stacker_removed_outside_drop" and alert["severity"] == "critical"


def test_power_off_on_pair_and_non_security_alert_auto_resolves(api):
    off = _events(api, "M005", {"kind": "power_off"}).json["events"][0]
    on = _events(api, "M005", {"kind": "power_on"}).json["events"][0]
    assert on["detail"]["power_off_event"] == off["id"] and on["detail"]["off_for_s"] >= 0
    alert = next(a for a in _alerts(api, machine="M005") if a["id"] == off["alert_id"])
    assert alert["state"] == "resolved" and alert["resolved_by"] == "system"


def test_repeated_event_counts_on_the_open_alert(api):
    a1 = _events(api, "M006", {"kind": "bill_jam"}).json["events"][0]["alert_id"]
    a2 = _events(api, "M006", {"kind": "bill_jam"}).json["events"][0]["alert_id"]
    assert a1 == a2
    assert next(a for a in _alerts(api, machine="M006") if a["id"] == a1)["repeats"] == 1


def test_alert_life_cycle_with_who_and_when_and_invalid_transition_409(api):
    aid = _events(api, "M007", {"kind": "printer_carriage_jammed"}).json["events"][0]["alert_id"]
    r = api.as_staff("attendant", "POST", f"/api/v1/alerts/{aid}/acknowledge", key=None)
    assert r.status_code == 200 and r.json["state"] == "acknowledged" and r.json["acknowledged_by"] == "attendant"
    assert r.json["response"]["ack_s"] >= 0
    again = api.as_staff("supervisor", "POST", f"/api/v1/alerts/{aid}/acknowledge", key=None)
    assert again.status_code == 409 and again.json["field"] == "state"
    r = api.as_staff("supervisor", "POST", f"/api/v1/alerts/{aid}/dispatch", {"to": "attendant"}, key=None)
    assert r.json["state"] == "dispatched" and r.json["dispatched_to"] == "attendant" and r.json["dispatched_by"] == "supervisor"
    r = api.as_staff("attendant", "POST", f"/api/v1/alerts/{aid}/resolve", {"note": "cleared the jam"}, key=None)
    assert r.json["state"] == "resolved" and r.json["resolution"] == "cleared the jam"
    assert r.json["response"]["resolve_s"] >= r.json["response"]["dispatch_s"] >= r.json["response"]["ack_s"]
    assert api.as_staff("attendant", "POST", f"/api/v1/alerts/{aid}/resolve", {}, key=None).status_code == 409
    assert api.as_staff("attendant", "POST", "/api/v1/alerts/999999/resolve", {}, key=None).status_code == 404
    assert api.as_staff("operator", "POST", f"/api/v1/alerts/{aid}/resolve", {}, key=None).status_code == 403


def test_alert_list_filters_and_cursor(api):
    for _ in range(3):
        aid = _events(api, "M008", {"kind": "general_tilt"}).json["events"][0]["alert_id"]
        api.as_staff("attendant", "POST", f"/api/v1/alerts/{aid}/resolve", {}, key=None)
    page1 = api.as_staff("attendant", "GET", "/api/v1/alerts?machine=M008&limit=2", key=None).json
    assert len(page1["alerts"]) == 2 and page1["next"]
    page2 = api.as_staff("attendant", "GET", f"/api/v1/alerts?machine=M008&limit=2&before_id={page1['next']}",
                         key=None).json
    ids = [a["id"] for a in page1["alerts"] + page2["alerts"]]
    assert len(ids) == len(set(ids)) == 3
    assert api.as_staff("attendant", "GET", "/api/v1/alerts?state=bogus", key=None).json["field"] == "state"


def test_offline_sweep_and_comms_restored(api):
    svc = api.app.extensions["slotsys"].events
    svc.settings = svc.settings.model_copy(update={"machine_offline_after_s": 0.05, "machine_heartbeat_write_s": 0})
    _events(api, "M009", {"kind": "printer_paper_low"})  # heard now
    import time

    time.sleep(0.1)
    out = svc.sweep_offline().model_dump()
    assert "M009" in out["offline"]
    log = api.as_staff("attendant", "GET", "/api/v1/machines/M009/events", key=None).json
    assert log["link"]["online"] is False and log["events"][0]["kind"] == "comms_lost"
    floor = api.as_staff("operator", "GET", "/api/v1/floor/overview", key=None)  # the console shows it offline
    assert floor.status_code == 200
    ms = [m for z in floor.json["zones"] for b in z["banks"] for m in b["machines"] if m["asset"] == "M009"]
    assert ms[0]["state"] == "offline"
    detail = api.as_staff("operator", "GET", "/api/v1/floor/machines/M009", key=None)
    assert detail.status_code == 200 and detail.json["state"] == "offline"
    lost = next(a for a in _alerts(api, machine="M009", state="active") if a["kind"] == "comms_lost")
    api.as_machine("M009", "GET", "/api/v1/machines/M009/meters", key=None)  # any request: heard again
    log = api.as_staff("attendant", "GET", "/api/v1/machines/M009/events", key=None).json
    assert log["link"]["online"] is True and log["events"][0]["kind"] == "comms_restored"
    assert next(a for a in _alerts(api, machine="M009") if a["id"] == lost["id"])["state"] == "resolved"


def test_cancelled_credit_handpay_two_person_sign_off(api, monkeypatch):
    svc = api.app.extensions["slotsys"].events
    svc.settings = svc.settings.model_copy(update={"handpay_two_person_won": 100_000})
    monkeypatch.setattr(api.app.extensions["slotsys"].tito.settings, "ticket_limit_won", 50_000)
    try:
        for _ in range(3):
            api.as_machine("M010", "POST", "/api/v1/machines/M010/bill-in", {"amount": 50_000})
        r = api.as_machine("M010", "POST", "/api/v1/machines/M010/cash-out")
        assert r.status_code == 409 and r.json["type"].endswith("handpay-required"), r.json
    finally:
        monkeypatch.undo()  # the ticket limit back to its setting
    q = api.as_staff("attendant", "GET", "/api/v1/handpays?state=pending", key=None).json
    hp = next(h for h in q["handpays"] if h["machine"] == "M010")
    assert hp["amount"] == 150_000 and hp["signers_needed"] == 2 and hp["source"] == "cancelled_credit"
    first = api.as_staff("attendant", "POST", f"/api/v1/handpays/{hp['id']}/sign")
    assert first.status_code == 200 and first.json["state"] == "pending" and first.json["signer1"] == "attendant"
    same = api.as_staff("attendant", "POST", f"/api/v1/handpays/{hp['id']}/sign")
    assert same.status_code == 409 and same.json["field"] == "signer"
    with api.app.extensions["slotsys"].uow(readonly=True) as uow:  # the refusal is in the audit log
        entries = uow.audit_log.query(action="handpay.sign", subject=f"handpay:{hp['id']}")
        assert [(e.actor, e.outcome) for e in entries] == [("attendant", "refused"), ("attendant", "done")]
    ledger_before = api.audit()
    second = api.as_staff("supervisor", "POST", f"/api/v1/handpays/{hp['id']}/sign")
    assert second.status_code == 200, second.json
    assert second.json["state"] == "paid" and second.json["signer2"] == "supervisor"
    assert second.json["payout"]["receipt"]["ticket"]["amount"] == 150_000
    assert api.as_staff("supervisor", "POST", f"/api/v1/handpays/{hp['id']}/sign").status_code == 409
    assert api.audit()["balanced"] is True and ledger_before["balanced"] is True
    with api.app.extensions["slotsys"].uow(readonly=True) as uow:
        signed = uow.audit_log.query(action="handpay.sign", subject=f"handpay:{hp['id']}", outcome="done")
        assert [e.actor for e in signed] == ["supervisor", "attendant"]
    meters = api.as_machine("M010", "GET", "/api/v1/machines/M010/meters", key=None).json
    assert meters["credits"] == 0


def test_small_handpay_needs_one_signer(api):
    api.as_machine("M011", "POST", "/api/v1/machines/M011/bill-in", {"amount": 10_000})
    r = _events(api, "M011", {"kind": "handpay_pending", "amount": 10_000})
    assert r.status_code == 201 and r.json["events"][0]["detail"]["amount"] == 10_000
    hp = next(h for h in api.as_staff("attendant", "GET", "/api/v1/handpays?state=pending", key=None).json["handpays"]
              if h["machine"] == "M011")
    assert hp["signers_needed"] == 1 and hp["amount"] == 10_000
    r = api.as_staff("attendant", "POST", f"/api/v1/handpays/{hp['id']}/sign")
    assert r.status_code == 200 and r.json["state"] == "paid" and r.json["signer2"] is None
    assert r.json["payout"]["receipt"]["ticket"]["amount"] == 10_000


def test_handpay_is_not_paid_when_the_credits_changed_after_it_was_queued(api):
    api.as_machine("M013", "POST", "/api/v1/machines/M013/bill-in", {"amount": 10_000})
    _events(api, "M013", {"sas_code": 0x51})
    hp = next(h for h in api.as_staff("attendant", "GET", "/api/v1/handpays?state=pending", key=None).json["handpays"]
              if h["machine"] == "M013")
    api.as_machine("M013", "POST", "/api/v1/machines/M013/bill-in", {"amount": 1_000})
    r = api.as_staff("attendant", "POST", f"/api/v1/handpays/{hp['id']}/sign")
    assert r.status_code == 409 and r.json["field"] == "handpay_id"
    still = api.as_staff("attendant", "GET", "/api/v1/handpays?state=pending", key=None).json["handpays"]
    assert any(h["id"] == hp["id"] and h["signer1"] is None for h in still)


def test_events_from_another_machine_or_staff_are_403(api):
    r = api.as_machine("M001", "POST", "/api/v1/machines/M002/events", {"kind": "bill_jam"})
    assert r.status_code == 403
    r = api.as_staff("attendant", "POST", "/api/v1/machines/M002/events", {"kind": "bill_jam"})
    assert r.status_code == 403


def test_vocabulary_lists_codes_and_labels(api):
    r = api.as_staff("attendant", "GET", "/api/v1/machine-events/vocabulary", key=None)
    by = {k["kind"]: k for k in r.json["kinds"]}
    assert by["main_door_opened"]["sas_code"] == 0x11 and by["power_off"]["sas_hex"] == "0x18"


def test_events_idempotency_key_replays(api):
    key = uuid.uuid4().hex
    a = _events(api, "M012", {"kind": "bill_jam"}, key=key)
    b = _events(api, "M012", {"kind": "bill_jam"}, key=key)
    assert a.json == b.json and b.headers.get("Idempotent-Replayed") == "true"
    since = (datetime.now(timezone.utc) - timedelta(minutes=5)).isoformat().replace("+00:00", "Z")
    log = api.client.get(f"/api/v1/machines/M012/events?kind=bill_jam&since={since}",
                         headers={"Authorization": f"Bearer {api.staff_token('attendant')}"})
    assert len(log.json["events"]) == 1


def test_jackpot_handpay_through_the_queue_needs_a_supervisor_above_the_threshold(api, monkeypatch):
    """A jackpot hit the controller locked for a handpay joins the queue; above the two-person threshold the
    attendant's signature alone does not pay it (the machine stays locked), the supervisor's pays it from the cage."""
    import slotsys.floor.services.play as floor
    from tests.e2e.test_jackpot_api import WithProgressive

    svc = api.app.extensions["slotsys"]
    svc.events.settings = svc.events.settings.model_copy(update={"handpay_two_person_won": 2_000_000})
    r = api.as_staff("operator", "POST", "/api/v1/jackpots/levels", {
        "code": "SAP_V006", "name": "V006 Major", "kind": "standalone", "scope": "machine", "machine": "V006",
        "start": 2_500_000, "reset": 2_000_000, "ceiling": 4_000_000, "rate_ppm": 20_000, "combination": "major"})
    assert r.status_code == 201, r.json
    api.as_machine("V006", "POST", "/api/v1/machines/V006/bill-in", {"amount": 50_000})
    real = floor.play
    monkeypatch.setattr(floor, "play", lambda *a, **k: WithProgressive(real(*a, **k), ["major"]))
    r = api.as_machine("V006", "POST", "/api/v1/machines/V006/spin", {"reels": 1, "multiplier": 1})
    monkeypatch.setattr(floor, "play", real)
    jp = r.json["jackpots"][0]
    assert jp["status"] == "handpay"
    with svc.uow(readonly=True) as uow:
        cage_before = uow.ledger.balance(accounts.cage_bank("MAIN"))

    hp = next(h for h in api.as_staff("attendant", "GET", "/api/v1/handpays?state=pending", key=None).json["handpays"]
              if h["hit_id"] == jp["hit"])
    assert (hp["source"], hp["machine"], hp["amount"], hp["signers_needed"]) == ("jackpot", "V006", jp["amount"], 2)
    first = api.as_staff("attendant", "POST", f"/api/v1/handpays/{hp['id']}/sign")
    assert first.status_code == 200 and first.json["state"] == "pending"
    assert api.as_machine("V006", "GET", "/api/v1/machines/V006/meters", key=None).json["status"] == "handpay"
    second = api.as_staff("supervisor", "POST", f"/api/v1/handpays/{hp['id']}/sign")
    assert second.status_code == 200 and second.json["state"] == "paid", second.json
    assert api.as_machine("V006", "GET", "/api/v1/machines/V006/meters", key=None).json["status"] == "active"
    with svc.uow(readonly=True) as uow:
        assert uow.ledger.balance(accounts.cage_bank("MAIN")) == cage_before - jp["amount"]
    assert api.audit()["balanced"] is True


def test_due_heartbeats_of_machines_heard_before_go_in_one_statement(api):
    """Due last-heard writes wait up to ``machine_heard_batch_s`` and go with the others in one UPDATE; a machine
    marked offline meanwhile by another node
    (its link offline in the database, this process never saw the sweep) comes back through the single-machine
    path, with its ``comms_restored``."""
    import threading
    import time

    from sqlalchemy import event, select, update

    from slotsys.floor.adapters.events import MachineLink
    from slotsys.floor.adapters.tables import Machine

    services = api.app.extensions["slotsys"]
    svc = services.events
    svc.settings = svc.settings.model_copy(update={"machine_offline_after_s": 60, "machine_heartbeat_write_s": 0.3,
                                                   "machine_heard_batch_s": 0.15})
    assets = ["M014", "M015", "M016", "M017"]

    def heard_at() -> dict[str, datetime]:
        with services.uow(readonly=True) as uow:
            rows = uow.session.execute(
                select(Machine.asset_number, MachineLink.last_heard_at, MachineLink.online)
                .join(MachineLink, MachineLink.machine_id == Machine.id).where(Machine.asset_number.in_(assets))).all()
        return {a: (t, online) for a, t, online in rows}

    svc._heard.clear()  # as a process that has not heard them yet
    for a in assets:  # coalesced too: the machines have links already (earlier tests), so one UPDATE writes them
        api.as_machine(a, "GET", f"/api/v1/machines/{a}/meters", key=None)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and len(heard_at()) < len(assets):
        time.sleep(0.05)
    first = heard_at()
    assert set(first) == set(assets) and all(online for _, online in first.values())
    with services.uow() as uow:  # another node's sweep took M017 offline
        mid = uow.session.scalar(select(Machine.id).where(Machine.asset_number == "M017"))
        uow.session.execute(update(MachineLink).where(MachineLink.machine_id == mid)
                            .values(online=False, offline_since=first["M017"][0]))
        uow.commit()
    time.sleep(0.35)  # every machine due again
    updates: list[str] = []
    main = threading.get_ident()

    def count(conn, cursor, statement, parameters, context, executemany):
        if statement.lstrip().upper().startswith("UPDATE MACHINE_LINKS") and threading.get_ident() != main:
            updates.append("batch" if "CASE" in statement.upper() else "single")

    event.listen(services.uow.engine, "before_cursor_execute", count)
    try:
        for a in assets:
            r = api.as_machine(a, "GET", f"/api/v1/machines/{a}/meters", key=None)
            assert r.status_code == 200
        assert {a: t for a, (t, _) in heard_at().items()} == {a: t for a, (t, _) in first.items()}  # not yet: waiting
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and not all(
                t > first[a][0] and online for a, (t, online) in heard_at().items()):
            time.sleep(0.05)
    finally:
        event.remove(services.uow.engine, "before_cursor_execute", count)
    after = heard_at()
    assert all(after[a][0] > first[a][0] and after[a][1] for a in assets), after
    # one UPDATE for the online machines; M017's return online through the single-machine path (its own)
    assert updates.count("batch") == 1 and "single" in updates, updates
    log = api.as_staff("attendant", "GET", "/api/v1/machines/M017/events", key=None).json
    assert log["link"]["online"] is True and log["events"][0]["kind"] == "comms_restored"
    svc.settings = svc.settings.model_copy(update={"machine_heard_batch_s": 0})


def test_a_machine_that_talked_is_not_swept_while_its_heartbeat_waits_in_the_batch(api):
    """A machine silent past the offline threshold talks again; its last-heard write waits for the batch when this
    process's sweep runs: the sweep writes the waiting ones first, so no comms_lost (found by an outside tester)."""
    import time

    services = api.app.extensions["slotsys"]
    svc = services.events
    svc.settings = svc.settings.model_copy(update={"machine_offline_after_s": 1.0, "machine_heartbeat_write_s": 10,
                                                   "machine_heard_batch_s": 0.2})  # write interval 0.25 s
    try:
        api.as_machine("M018", "GET", "/api/v1/machines/M018/meters", key=None)
        time.sleep(0.5)  # written (the batch) and still online
        assert "M018" not in svc.sweep_offline().offline
        time.sleep(1.2)  # silent past the threshold
        api.as_machine("M018", "GET", "/api/v1/machines/M018/meters", key=None)  # heard: waiting in the batch
        assert "M018" not in svc.sweep_offline().offline
        log = api.as_staff("attendant", "GET", "/api/v1/machines/M018/events", key=None).json
        assert log["link"]["online"] is True
        assert "comms_lost" not in [e["kind"] for e in log["events"]]
    finally:
        svc.settings = svc.settings.model_copy(update={"machine_offline_after_s": 60, "machine_heard_batch_s": 0})
