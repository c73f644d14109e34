"""The pure rules of floor administration (slotsys/floor/domain/admin.py): codes, denominations, maximum bet,
floor-plan cells and when a machine's game may change or it may be retired."""

from __future__ import annotations

import pytest

from slotsys.floor.domain import admin as R


def _refused(fn, *args, **kw) -> R.FloorRuleError:
    with pytest.raises(R.FloorRuleError) as e:
        fn(*args, **kw)
    return e.value


def test_codes():
    assert R.code("asset_number", " M001 ") == "M001"
    for bad in ("", "M 01", "-M1", "A" * 21, None, 7):
        assert _refused(R.code, "asset_number", bad).field == "asset_number"


def test_denominations_offered_and_active():
    assert R.denominations(None, 100) == ([100], 100)
    assert R.denominations([500, 100, 100], 500) == ([100, 500], 500)
    assert _refused(R.denominations, None, 300).field == "denomination"
    assert _refused(R.denominations, [100, 200], 500).field == "denomination"  # active not offered
    assert _refused(R.denominations, [100, 7], 100).field == "denominations"
    assert _refused(R.denominations, [], 100).field == "denominations"
    assert _refused(R.denominations, None, True).field == "denomination"


def test_max_bet_must_allow_the_smallest_bet():
    assert R.max_bet(None, min_bet_credits=1, max_bet_credits=500, denomination=100) is None
    assert R.max_bet(100, min_bet_credits=1, max_bet_credits=500, denomination=100) == 100
    e = _refused(R.max_bet, 99, min_bet_credits=1, max_bet_credits=500, denomination=100)
    assert e.field == "max_bet" and "₩100" in e.message
    assert _refused(R.max_bet, R.MAX_BET_CAP_WON + 1, min_bet_credits=1, max_bet_credits=5,
                    denomination=100).field == "max_bet"


def test_positions_orientation_scheme():
    assert R.position(None, None) == (None, None)
    assert R.position(0, R.PLAN_MAX) == (0, R.PLAN_MAX)
    assert _refused(R.position, 1, None).field == "y"
    assert _refused(R.position, -1, 0).field == "x"
    assert R.orientation(None) == "N" and _refused(R.orientation, "NE").field == "orientation"
    assert R.validation_scheme("sas") == "sas" and _refused(R.validation_scheme, "x").field == "validation_scheme"


@pytest.mark.parametrize("status,credits,field", [
    ("active", (0, 0, 0), None), ("disabled", (0, 0, 0), None),
    ("active", (100, 0, 0), "credits"), ("active", (0, 0, 5), "credits"), ("disabled", (0, 300, 0), "credits"),
    ("handpay", (0, 0, 0), "status"), ("verification", (0, 0, 0), "status"), ("locked", (0, 0, 0), "status"),
])
def test_game_change_and_retirement_need_an_idle_machine(status, credits, field):
    state = R.MachineState("M001", status, *credits)
    if field is None:
        R.require_idle(state, "game change")
    else:
        e = _refused(R.require_idle, state, "game change")
        assert (e.field, e.status) == (field, 409)


def test_meter_snapshot_reads_every_meter():
    from types import SimpleNamespace

    m = SimpleNamespace(**{k: None for k in R.SNAPSHOT_METERS})  # a machine row whose new meters are still NULL
    m.coin_in, m.coin_out, m.games_played = 5_000, 1_200, 3
    snap = R.meters_of(m)
    assert set(snap) == set(R.SNAPSHOT_METERS)
    assert (snap["coin_in"], snap["coin_out"], snap["games_played"], snap["tickets_in"]) == (5_000, 1_200, 3, 0)
