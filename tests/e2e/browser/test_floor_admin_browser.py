"""The floor administration screen in headless Chromium: an operator enrols a machine on an empty cell of the floor
plan (its key shown once, and it works), disables and enables it, moves it, changes its game, sees a refusal
explained with its field; each outcome is checked through the API too."""

from __future__ import annotations

import pytest

from slotsys.kernel.settings import Settings
from tests.e2e.browser.conftest import LiveServer, login, shot

ASSET = "B001"


@pytest.fixture(scope="module")
def live(chromium_path, tmp_path_factory):
    """A floor of this module's own: the machine it enrols must not change the shared floor other screens count."""
    from tests.conftest import Api, _make_app

    tmp = tmp_path_factory.mktemp("floor-admin-screen")
    app = _make_app(Settings(database_url=f"sqlite:///{tmp / 'floor.db'}", redis_url=None, celery_eager=True,
                             credentials_file=tmp / "creds.json"))
    app.config["TESTING"] = False  # a real server: errors answered as problems, not raised
    server = LiveServer(app)
    yield server, Api(app)
    server.stop()
    app.extensions["slotsys"].uow.engine.dispose()


def _machine(api, asset: str = ASSET) -> dict:
    r = api.as_staff("auditor", "GET", f"/api/v1/machines/{asset}", key=None)
    assert r.status_code == 200, r.json
    return r.json


def test_operator_enrols_disables_moves_and_regames_a_machine_on_the_floor_plan(page, live):
    server, api = live
    page.goto(server.url + "/console/floor")
    login(page, api, "operator")
    page.wait_for_selector('.plan .fm[data-asset="V001"]')
    shot(page, "floor-admin-1-plan")

    # enrol on an empty cell of the plan
    page.click('.plan .cell[data-x="6"][data-y="4"]')
    assert page.input_value("#enrol-form input[name=x]") == "6"
    page.fill("#enrol-form input[name=asset_number]", ASSET)
    page.select_option("#enrol-form select[name=bank]", "M2")
    page.select_option("#enrol-form select[name=game]", "dragon_pearl_50")
    page.fill("#enrol-form input[name=denomination]", "100")
    page.fill("#enrol-form input[name=serial]", "SN-B001")
    page.click("#enrol-submit")
    page.wait_for_selector("#new-key:not([hidden])")
    key = page.inner_text("#new-key-value")
    assert key.startswith("mk_")
    page.wait_for_selector(f'.plan .fm[data-asset="{ASSET}"]')
    m = _machine(api)
    assert (m["bank"], m["zone"], m["position"], m["serial"]) == ("M2", "MASS", {"x": 6, "y": 4}, "SN-B001")
    r = api.as_machine(ASSET, "POST", f"/api/v1/machines/{ASSET}/bill-in", {"amount": 10_000}, token=key)
    assert r.status_code == 200, r.json  # the key shown once is the machine's
    shot(page, "floor-admin-2-enrolled")

    # the same asset number again: the refusal names the field
    page.fill("#enrol-form input[name=asset_number]", ASSET)
    page.click("#enrol-submit")
    page.wait_for_function("() => document.getElementById('enrol-error').textContent.includes('asset_number')")

    # disable with a reason: play is refused; enable again
    page.click(f'.plan .fm[data-asset="{ASSET}"]')
    page.wait_for_selector("#machine-panel:not([hidden])")
    page.fill("#act-reason", "door open alarm")
    page.click("#act-disable")
    page.wait_for_selector(f'.plan .fm[data-asset="{ASSET}"][data-status="disabled"]')
    r = api.as_machine(ASSET, "POST", f"/api/v1/machines/{ASSET}/spin", {"lines": 1, "multiplier": 1}, token=key)
    assert r.status_code == 409 and "door open alarm" in r.json["detail"], r.json
    shot(page, "floor-admin-3-disabled")
    page.click("#act-enable")
    page.wait_for_selector(f'.plan .fm[data-asset="{ASSET}"][data-status="active"]')

    # a game change with credits on the machine is refused, with the field
    page.select_option("#game-game", "tiger_reels_243")
    page.fill("#game-denomination", "100")
    page.click("#act-game")
    page.wait_for_function("() => document.getElementById('act-error').textContent.includes('credits')")
    assert _machine(api)["game"] == "dragon_pearl_50"
    r = api.as_machine(ASSET, "POST", f"/api/v1/machines/{ASSET}/cash-out", token=key)
    assert r.status_code == 201, r.json
    page.click("#act-game")
    page.wait_for_function("() => document.getElementById('act-result').textContent !== ''")
    page.wait_for_function(
        "() => document.querySelector('#sel-facts dd[data-fact=\"game\"]').textContent.startsWith('tiger_reels_243')")
    assert [s["kind"] for s in _machine(api)["snapshots"]] == ["game_change_before", "game_change_after"]

    # move to another bank and cell
    page.select_option("#move-bank", "M3")
    page.fill("#move-x", "7")
    page.fill("#move-y", "4")
    page.click("#act-move")
    page.wait_for_selector(f'.plan .fm[data-asset="{ASSET}"]')
    page.wait_for_function("() => document.querySelector('#sel-facts dd[data-fact=\"bank\"]').textContent === 'M3'")
    m = _machine(api)
    assert (m["bank"], m["position"]) == ("M3", {"x": 7, "y": 4})
    shot(page, "floor-admin-4-moved")

    # retiring is the admin's: the operator is told so, and nothing changes
    page.click("#act-retire")
    page.wait_for_function("() => document.getElementById('act-error').textContent.includes('admin')")
    assert _machine(api)["status"] == "active"
    page.click('button[data-lang="ko"]')
    page.wait_for_function("() => document.querySelector('h1').textContent === '플로어 관리'")
    shot(page, "floor-admin-5-korean")
    page.click('button[data-lang="en"]')
