"""``slotsys emulate --sas N``: emulated SAS machines on pseudo-terminals against a SAS host over the floor's
services (SQLite): they enrol, play, print and take each other's tickets with lost and corrupted responses, and at
the end every machine's meters equal the floor's and the ledger balances; the floor's machines are then SAS machines
(machine mode, a meter baseline), so a second run on them is refused, saying why."""

from __future__ import annotations

import json

import pytest

from slotsys.kernel.settings import Settings


@pytest.fixture(scope="module")
def svc(tmp_path_factory):
    from tests.conftest import _make_app

    tmp = tmp_path_factory.mktemp("emulate_sas")
    app = _make_app(Settings(database_url=f"sqlite:///{tmp / 'floor.db'}", redis_url=None, celery_eager=True,
                             credentials_file=tmp / "creds.json"))
    yield app.extensions["slotsys"]
    app.extensions["slotsys"].jackpots.driver.stop()
    app.extensions["slotsys"].uow.engine.dispose()


def test_the_emulated_sas_floor_plays_and_ties_to_the_floor(svc):
    from slotsys.app.emulator_sas import run_sas_floor

    lines: list[str] = []
    assert run_sas_floor(svc, 4, seconds=6, drop=0.05, corrupt=0.05, seed=3, echo=lines.append) == 0, lines
    machines = [json.loads(x) for x in lines if x.startswith('{"asset"')]
    assert [m["asset"] for m in machines] == ["M001", "M002", "M003", "M004"]
    assert all(m["meters_agree"] for m in machines) and sum(m["games"] for m in machines) > 0
    summary = json.loads(next(x for x in lines if x.startswith('{"channels"')))
    assert summary["ledger_balanced"] and summary["refused"] == []
    (channel,) = summary["channels"].values()
    assert channel["games"] == sum(m["games"] for m in machines)
    assert lines[-1].startswith("SAS floor: every machine's meters equal the floor's")
    with svc.uow(readonly=True) as uow:
        m = uow.machines.get("M001")
        assert m.outcome_source == "machine" and m.sas_meter_base is not None


def test_too_few_never_sas_machines_is_refused_saying_why(svc):
    from slotsys.app.emulator_sas import run_sas_floor

    lines: list[str] = []
    assert run_sas_floor(svc, 1_000, seconds=1, echo=lines.append) == 2
    assert "were never enrolled over SAS" in lines[0]
