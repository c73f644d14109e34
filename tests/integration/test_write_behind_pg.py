"""Write-behind on the real PostgreSQL (``SqlUnitOfWork.write_behind``): the spin's result-less
writes go with COMMIT in one psycopg pipeline. A failure there applies nothing and leaves the
pooled connection usable; concurrent spins on a pool smaller than the thread count never hand a
connection to another thread while its pipeline is open."""

from __future__ import annotations

import copy
import dataclasses
import types
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy import func, insert, select
from sqlalchemy.exc import IntegrityError

from tests.helpers import spin as spin_directly
from slotsys.floor.adapters.tables import GameRound
from slotsys.kernel import accounts
from slotsys.kernel.adapters.db import IdempotencyRecord, JournalEntryRow, make_engine, utcnow
from slotsys.kernel.adapters.write_behind import execute_or_defer
from slotsys.app.bootstrap import make_uow
from slotsys.kernel.adapters.uow import UowFactory
from slotsys.kernel import ledger as L
from slotsys.kernel.context import Principal

pytestmark = pytest.mark.integration


def _small_pool(pg_app, size: int) -> UowFactory:
    url = pg_app.extensions["slotsys"].settings.database_url
    return make_uow(make_engine(url, pool_size=size, max_overflow=0))


def _bet(asset: str) -> dict:
    return {"lines": 1, "multiplier": 1} if int(asset[1:]) % 2 else {"reels": 1, "multiplier": 1}


def _spin_behind_an_entry(svc, asset: str, entry: L.JournalEntry) -> dict:
    """Hold ``asset``'s machine lock, post ``entry``, start a spin (it waits for the lock), commit.
    Returns ``{"result": (status, body, replayed)}`` or ``{"error": the exception}``."""
    out: dict = {}

    def spin():
        try:
            out["result"] = spin_directly(svc, Principal("machine", asset), asset, _bet(asset), uuid.uuid4().hex)
        except Exception as e:  # noqa: BLE001 - a refusal may be the expected outcome
            out["error"] = e

    with svc.uow() as uow:
        uow.machines.get(asset, for_update=True)
        uow.ledger.post(entry)
        t = threading.Thread(target=spin)
        t.start()
        time.sleep(0.5)  # the spin is now waiting for the machine row
        assert t.is_alive()
        uow.commit()
    t.join(timeout=30)
    return out


def _defer_key(uow, key: str, fingerprint: str) -> None:
    """Queue (or run) the insert of an idempotency record ``("t", key)``: a second one of a key is a unique violation."""
    execute_or_defer(uow.session, insert(IdempotencyRecord.__table__),
                     {"principal": "t", "key": key, "fingerprint": fingerprint, "created_at": utcnow()})


def _counts(uow) -> tuple[int, int, int]:
    s = uow.session
    return (s.scalar(select(func.count()).select_from(JournalEntryRow)),
            s.scalar(select(func.count()).select_from(GameRound)),
            s.scalar(select(func.count()).select_from(IdempotencyRecord)))


def test_a_failing_deferred_write_applies_nothing_and_the_connection_is_reused(pg_app, pg_api):
    uows = _small_pool(pg_app, 1)  # one connection: the next unit of work reuses the failed one
    try:
        with uows() as uow:
            _defer_key(uow, "dup", "x")
            uow.commit()
        with uows() as uow:
            before, credits = _counts(uow), uow.ledger.balance(accounts.machine_credits("M001"))
        with uows() as uow:
            assert uow.write_behind() is True
            e = L.EntryBuilder("machine.bill_in", "write-behind failure test")
            e.add(debit=accounts.machine_drop("M001"), credit=accounts.machine_credits("M001"), amount=10_000)
            uow.ledger.post(e.build({"machine": "M001"}))  # the entry now (one statement), the insert below deferred
            _defer_key(uow, "dup", "y")  # the same key: unique violation
            with pytest.raises(IntegrityError):
                uow.commit()
        for _ in range(5):  # the one pooled connection is clean: reads and writes work
            with uows() as uow:
                assert _counts(uow) == before
                assert uow.ledger.balance(accounts.machine_credits("M001")) == credits
        assert pg_api.audit()["balanced"]
    finally:
        uows.engine.dispose()


def test_a_failing_part_of_merged_deferred_writes_applies_none_of_them(pg_app, pg_api):
    """Deferred writes on different tables go as one ``WITH`` statement; one part failing (a unique violation)
    applies none of the parts, and the connection is reused clean."""
    from slotsys.floor.adapters.tables import Machine
    from slotsys.floor.adapters.repositories import MachineRepo

    uows = _small_pool(pg_app, 1)
    try:
        with uows() as uow:
            _defer_key(uow, "dup2", "x")
            uow.commit()
        with uows() as uow:
            before = uow.session.scalar(select(Machine.bills_in).where(Machine.asset_number == "M002"))
            mid = uow.session.scalar(select(Machine.id).where(Machine.asset_number == "M002"))
        with uows() as uow:
            assert uow.write_behind() is True
            MachineRepo(uow.session).add_meters(mid, bills_in=5_000)  # deferred, machines
            _defer_key(uow, "dup2", "y")  # deferred, the same key again
            with pytest.raises(IntegrityError):
                uow.commit()
        with uows() as uow:
            assert uow.session.scalar(select(Machine.bills_in).where(Machine.asset_number == "M002")) == before
        with uows() as uow:  # and a good pair commits both, as one statement
            assert uow.write_behind() is True
            MachineRepo(uow.session).add_meters(mid, bills_in=5_000)
            _defer_key(uow, "fresh", "z")
            uow.commit()
        with uows() as uow:
            assert uow.session.scalar(select(Machine.bills_in).where(Machine.asset_number == "M002")) == before + 5_000
            assert uow.session.scalar(select(func.count()).select_from(IdempotencyRecord)
                                      .where(IdempotencyRecord.key == "fresh")) == 1
        assert pg_api.audit()["balanced"]
    finally:
        uows.engine.dispose()


def test_write_behind_is_off_outside_postgresql(app):
    with app.extensions["slotsys"].uow() as uow:
        assert uow.write_behind() is False


def test_concurrent_spins_on_a_pool_smaller_than_the_threads(pg_app, pg_api):
    """16 threads share 2 pooled connections: every spin commits its round, postings, wager, meters
    and stored response, and the books balance."""
    svc = pg_app.extensions["slotsys"]
    uows = _small_pool(pg_app, 2)
    floor = copy.copy(svc.floor)
    floor.ctx = dataclasses.replace(svc.ctx, uow=uows)
    floor_svc = types.SimpleNamespace(floor=floor)
    machines = [f"M{n:03d}" for n in range(1, 9)]
    for m in machines:
        assert pg_api.as_machine(m, "POST", f"/api/v1/machines/{m}/bill-in", {"amount": 50_000}).status_code == 200
    with svc.uow() as uow:
        entries0, rounds0, _ = _counts(uow)

    def play(i: int):
        asset, key = machines[i % len(machines)], uuid.uuid4().hex
        return key, spin_directly(floor_svc, Principal("machine", asset), asset, _bet(asset), key)

    try:
        with ThreadPoolExecutor(max_workers=16) as pool:
            results = list(pool.map(play, range(160)))
    finally:
        svc.jackpots.sequencer.stop()  # the sequencer thread these spins kicked (the floor's jackpot port's)
        uows.engine.dispose()
    assert all(status == 200 for _, (status, _, _) in results)
    by_machine: dict[str, list[int]] = {}
    for _, (_, body, _) in results:
        by_machine.setdefault(body["machine"], []).append(body["game_number"])
    for asset, numbers in by_machine.items():  # game numbers per machine: consecutive, none twice
        assert sorted(numbers) == list(range(min(numbers), min(numbers) + len(numbers))), asset
    chains: dict[str, list[dict]] = {}
    for _, (_, body, _) in results:
        chains.setdefault(body["machine"], []).append(body)
    for asset, games in chains.items():  # each spin starts from the credits the previous one left
        games.sort(key=lambda b: b["game_number"])
        for prev, cur in zip(games, games[1:]):
            assert cur["credits_before"] == prev["credits"], (asset, prev["game_number"], cur["game_number"])
    with svc.uow() as uow:
        entries, rounds, _ = _counts(uow)
        assert rounds - rounds0 == 160 and entries - entries0 >= 160
    for key, (_, body, _) in results[:20]:  # the stored response (deferred) replays the one returned
        asset = body["machine"]
        status, again, replayed = spin_directly(svc, Principal("machine", asset), asset, _bet(asset), key)
        assert (status, again, replayed) == (200, body, True)
    for m in machines:
        meters = pg_api.as_machine(m, "GET", f"/api/v1/machines/{m}/meters", key=None).json["meters"]
        assert meters["games_played"] == len(by_machine[m]) and meters["game_number"] == max(by_machine[m])
    assert pg_api.audit()["balanced"]


def test_a_spin_that_waited_for_the_machine_lock_sees_what_was_committed_meanwhile(pg_app, pg_api):
    """A cash-out-like entry empties M001's credits while holding its machine lock; a spin arriving
    meanwhile waits for the lock and must then see no credits (409), not the credits of the snapshot
    it took before waiting (the spin would have been staked on credits already gone)."""
    svc = pg_app.extensions["slotsys"]
    assert pg_api.as_machine("M001", "POST", "/api/v1/machines/M001/bill-in", {"amount": 10_000}).status_code == 200
    e = L.EntryBuilder("machine.cash_out", "test: credits leave while a spin waits")
    e.add(debit=accounts.machine_credits("M001"), credit=accounts.machine_drop("M001"), amount=10_000)
    out = _spin_behind_an_entry(svc, "M001", e.build({"machine": "M001"}))
    # refused by the check on the credits read after the lock (not merely by the ledger's non-negative
    # guard, which a winning spin would pass)
    assert "error" in out and type(out["error"]).__name__ == "InsufficientFunds", out
    assert "credits ₩0 are less than the bet" in str(out["error"].detail), out["error"].detail
    with svc.uow() as uow:
        assert uow.ledger.balance(accounts.machine_credits("M001")) == 0
    assert pg_api.audit()["balanced"]


def test_a_spin_that_waited_for_the_machine_lock_reports_credits_added_meanwhile(pg_app, pg_api):
    """A bill-in-like entry adds ₩10,000 to M002 while holding its machine lock; the waiting spin's
    credits_before is the ₩20,000 on the meter after the wait, and its credits follow from it."""
    svc = pg_app.extensions["slotsys"]
    assert pg_api.as_machine("M002", "POST", "/api/v1/machines/M002/bill-in", {"amount": 10_000}).status_code == 200
    e = L.EntryBuilder("machine.bill_in", "test: credits arrive while a spin waits")
    e.add(debit=accounts.machine_drop("M002"), credit=accounts.machine_credits("M002"), amount=10_000)
    out = _spin_behind_an_entry(svc, "M002", e.build({"machine": "M002"}))
    status, body, _ = out["result"]
    assert status == 200 and body["credits_before"] == 20_000, body
    assert body["credits"] == 20_000 - body["bet"]["won"] + body["total_win"]
    with svc.uow() as uow:
        assert uow.ledger.balance(accounts.machine_credits("M002")) == body["credits"]
    assert pg_api.audit()["balanced"]
