"""The machine event vocabulary (SAS general exception codes), the drop-window rule, the alert state machine
and the handpay sign-off rule: pure, nothing running."""

from __future__ import annotations

from datetime import datetime, time, timedelta, timezone

import pytest

from slotsys.floor.domain import alerts as A
from slotsys.floor.domain import machine_events as V


@pytest.mark.parametrize("code, kind", [
    (0x11, "main_door_opened"), (0x12, "main_door_closed"), (0x13, "drop_door_opened"), (0x15, "logic_door_opened"),
    (0x17, "power_on"), (0x18, "power_off"), (0x19, "cashbox_door_opened"), (0x1B, "stacker_removed"),
    (0x1C, "stacker_installed"), (0x20, "general_tilt"), (0x27, "cashbox_full"), (0x28, "bill_jam"),
    (0x29, "bill_acceptor_failure"), (0x31, "cmos_ram_error_recovered"), (0x3A, "memory_reset"),
    (0x40, "reel_tilt"), (0x43, "reel_3_tilt"), (0x46, "reel_disconnected"), (0x51, "handpay_pending"),
    (0x52, "handpay_reset"), (0x60, "printer_comm_error"), (0x61, "printer_paper_out"), (0x6F, "game_locked"),
    (0x74, "printer_paper_low"), (0x78, "printer_carriage_jammed"),
])
def test_sas_codes_map_to_kinds_both_ways(code, kind):
    assert V.resolve(sas_code=code).kind == kind
    assert V.resolve(kind=kind).sas_code == code
    assert V.resolve(kind, code).kind == kind


def test_every_kind_has_labels_a_severity_and_unique_code():
    codes = [k.sas_code for k in V.VOCABULARY if k.sas_code is not None]
    assert len(codes) == len(set(codes))
    for k in V.VOCABULARY:
        assert k.en and k.ko and k.severity in V.SEVERITIES
        assert not k.security or k.alert, f"{k.kind}: a security event must open an alert"
        assert k.clears is None or k.clears in V.BY_KIND


def test_the_bill_accepted_code_0x47_is_not_a_reel_tilt():
    with pytest.raises(V.UnknownEvent) as e:
        V.resolve(sas_code=0x47)
    assert e.value.field == "sas_code"


@pytest.mark.parametrize("kind, code, field", [
    (None, None, "kind"), ("no_such_event", None, "kind"), (None, 0xFF, "sas_code"),
    ("main_door_opened", 0x13, "sas_code"), ("comms_lost", None, "kind"),
])
def test_unknown_or_inconsistent_events_name_the_field(kind, code, field):
    with pytest.raises(V.UnknownEvent) as e:
        V.resolve(kind, code)
    assert e.value.field == field


def test_system_kinds_are_allowed_for_the_system():
    assert V.resolve("comms_lost", machine_reported=False).alert is True


def test_security_alerts():
    assert V.BY_KIND["logic_door_opened"].security and V.BY_KIND["main_door_opened"].security
    assert V.BY_KIND["stacker_removed_outside_drop"].security
    assert not V.BY_KIND["printer_paper_out"].security and V.BY_KIND["printer_paper_out"].alert
    assert not V.BY_KIND["printer_paper_low"].alert


def test_drop_windows_parse_and_wrap_midnight():
    w = V.parse_drop_windows("05:00-06:30, 23:30-00:30")
    assert w == ((time(5), time(6, 30)), (time(23, 30), time(0, 30)))
    assert V.in_drop_window(w, time(5, 0)) and V.in_drop_window(w, time(6, 29))
    assert not V.in_drop_window(w, time(6, 30)) and not V.in_drop_window(w, time(12))
    assert V.in_drop_window(w, time(23, 45)) and V.in_drop_window(w, time(0, 15))
    assert not V.in_drop_window(w, time(0, 30))
    assert V.parse_drop_windows("") == () and not V.in_drop_window((), time(5, 30))


@pytest.mark.parametrize("text", ["5-6", "05:00-24:00", "05:00", "aa:bb-cc:dd"])
def test_bad_drop_windows_are_refused(text):
    with pytest.raises(ValueError):
        V.parse_drop_windows(text)


def test_alert_state_machine():
    assert A.next_state("open", "acknowledge") == "acknowledged"
    assert A.next_state("acknowledged", "dispatch") == "dispatched"
    assert A.next_state("open", "dispatch") == "dispatched"
    assert A.next_state("dispatched", "resolve") == "resolved"
    assert A.next_state("open", "resolve") == "resolved"
    for state, action in [("acknowledged", "acknowledge"), ("dispatched", "acknowledge"), ("dispatched", "dispatch"),
                          ("resolved", "resolve"), ("resolved", "acknowledge"), ("open", "explode")]:
        with pytest.raises(A.InvalidTransition) as e:
            A.next_state(state, action)
        assert e.value.state == state


def test_response_times():
    t0 = datetime(2026, 12, 1, tzinfo=timezone.utc)
    assert A.seconds_between(t0, t0 + timedelta(seconds=42, milliseconds=5)) == 42.005
    assert A.seconds_between(t0, None) is None


def test_handpay_sign_off_rule():
    assert A.signers_needed(9_999_999, 10_000_000) == 1
    assert A.signers_needed(10_000_000, 10_000_000) == 2
    assert A.second_signer_problem("kim", "kim", "supervisor") == "the second signer must be a different person from the first"
    assert "supervisor" in A.second_signer_problem("kim", "lee", "attendant")
    assert A.second_signer_problem("kim", "lee", "supervisor") is None
    assert A.second_signer_problem("kim", "lee", "admin") is None


def test_heartbeat_write_interval_is_capped_by_the_offline_threshold():
    from slotsys.floor.services.events import FloorEventsService
    from slotsys.floor.settings import EventsSettings

    def interval(**kw) -> float:
        return FloorEventsService(ctx=None, settings=EventsSettings(**kw), jackpots=None, tickets=None).heartbeat_interval_s

    assert interval(machine_heartbeat_write_s=10, machine_offline_after_s=60) == 10
    assert interval(machine_heartbeat_write_s=10, machine_offline_after_s=4) == 1
