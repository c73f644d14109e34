"""Group commit of concurrent spins on the real PostgreSQL (``FloorService._spin_batch``): spins of different
machines arriving together run as one transaction, and each is still applied exactly once, answered as if alone,
refused alone, replayed from its own stored answer; a batch that fails runs its spins again one by one."""

from __future__ import annotations

import threading
import time
import uuid
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy import event, func, select, text

from jackpot_controller.adapters.tables import JackpotWager
from slotsys.floor.adapters.tables import GameRound, Machine
from slotsys.kernel.adapters.db import IdempotencyRecord, JournalEntryRow
from slotsys.kernel.context import Principal
from slotsys.kernel.errors import InsufficientFunds, ValidationFailed
from slotsys.kernel.idempotency import OnceKey, fingerprint

pytestmark = pytest.mark.integration

def _bet(asset: str) -> dict:
    """The smallest bet of ``asset`` on the demo floor: odd machines run the line game, even ones the reel-cost
    game (slotsys/app/seed.py)."""
    return {"lines": 1, "multiplier": 1} if int(asset[1:]) % 2 else {"reels": 1, "multiplier": 1}


def _key(asset: str, key: str, bet: dict) -> OnceKey:
    return OnceKey(f"machine:{asset}", key, fingerprint("POST", f"spin/{asset}", bet))


def _spin(svc, asset: str, key: str, bet: dict | None = None):
    bet = bet or _bet(asset)
    return svc.floor.spin(Principal("machine", asset), asset, bet, _key(asset, key, bet))


def _bill_in(api, asset: str, amount: int = 50_000) -> None:
    assert api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/bill-in", {"amount": amount}).status_code == 200


def _state(svc, assets: list[str]) -> dict:
    with svc.uow(readonly=True) as uow:
        out = {}
        for a in assets:
            m = uow.machines.get(a)
            numbers = list(uow.session.scalars(
                select(GameRound.game_number).where(GameRound.machine_id == m.id).order_by(GameRound.game_number)))
            out[a] = {"coin_in": m.coin_in, "coin_out": m.coin_out, "games": m.games_played, "seq": m.game_seq,
                      "numbers": numbers, "credits": uow.machines.credits(a).cashable}
        return out


def test_concurrent_spins_of_many_machines_share_transactions_and_each_applies_once(pg_app, pg_api):
    svc = pg_app.extensions["slotsys"]
    group = svc.floor.spin_group
    assert group is not None and group.max_batch > 1
    assets = [f"M{n:03d}" for n in range(1, 13)]
    for a in assets:
        _bill_in(pg_api, a)
    before = _state(svc, assets)
    batches0, items0 = group.batches, group.items
    answers: dict[str, list] = defaultdict(list)
    start = threading.Barrier(len(assets))

    def play(asset: str) -> None:
        start.wait()
        for _ in range(25):
            once = _spin(svc, asset, uuid.uuid4().hex)
            answers[asset].append(once)

    sent: list[str] = []

    def count(conn, cursor, statement, parameters, context, executemany):
        sent.append(statement)

    engine = svc.uow.engine
    event.listen(engine, "before_cursor_execute", count)
    try:
        with ThreadPoolExecutor(max_workers=len(assets)) as pool:
            list(pool.map(play, assets))
    finally:
        event.remove(engine, "before_cursor_execute", count)

    # spins were batched: fewer transactions than spins led through the group
    batches, items = group.batches - batches0, group.items - items0
    assert items == 25 * len(assets)
    assert batches < items * 0.8, (batches, items)
    # a batch's wagers, meters, rounds and stored answers go as multi-row writes in one statement: one
    # statement writing wagers per transaction, not one per spin
    wager_writes = [s for s in sent if "INSERT INTO jackpot_wagers" in s]
    assert len(wager_writes) == batches, (len(wager_writes), batches)
    multi = [s for s in wager_writes if "unnest(" in s]
    assert multi and all("UPDATE machines" in s and "INSERT INTO game_rounds" in s
                         and "UPDATE idempotency_records" in s for s in multi)
    after = _state(svc, assets)
    for a in assets:
        got = answers[a]
        assert [o.replayed for o in got] == [False] * 25
        # game numbers follow each other, answered in order, and the rounds are exactly these games
        first = before[a]["seq"] + 1
        assert [o.result.game_number for o in got] == list(range(first, first + 25))
        assert after[a]["numbers"][-25:] == list(range(first, first + 25)) and after[a]["seq"] == first + 24
        coin_in = sum(o.result.bet["won"] for o in got)
        coin_out = sum(o.result.total_win for o in got)
        assert after[a]["coin_in"] - before[a]["coin_in"] == coin_in
        assert after[a]["coin_out"] - before[a]["coin_out"] == coin_out
        assert after[a]["credits"] == before[a]["credits"] - coin_in + coin_out == got[-1].result.credits
        # each answer is its game: credits before it are the credits after the previous one
        for prev, nxt in zip(got, got[1:]):
            assert nxt.result.credits_before == prev.result.credits
    with svc.uow(readonly=True) as uow:
        entries = set(uow.session.scalars(select(JournalEntryRow.id)))
        stored = uow.session.scalar(select(func.count()).select_from(IdempotencyRecord)
                                    .where(IdempotencyRecord.response.is_not(None)))
    assert {o.result.entry for g in answers.values() for o in g} <= entries
    assert len({o.result.entry for g in answers.values() for o in g}) == 25 * len(assets)
    assert stored >= 25 * len(assets)
    assert pg_api.audit()["balanced"]
    # the jackpot controller's queue holds each game once, in each machine's play order (the fold order)
    with svc.uow(readonly=True) as uow:
        for a in assets:
            wagered = list(uow.session.scalars(select(JackpotWager.game_number).where(JackpotWager.asset == a)
                                               .order_by(JackpotWager.id)))
            first = before[a]["seq"] + 1
            assert wagered[-25:] == list(range(first, first + 25)), a
        # the rounds written by the multi-row INSERT are the games answered (JSON columns included)
        m = uow.machines.get(assets[0])
        rounds = {r.game_number: r for r in uow.session.scalars(select(GameRound).where(GameRound.machine_id == m.id))}
        for o in answers[assets[0]]:
            r = rounds[o.result.game_number]
            assert (r.outcome["stops"], r.bet_won, r.win_won, r.credits_after, r.entry_id) == (
                o.result.stops, o.result.bet["won"], o.result.total_win, o.result.credits, o.result.entry)
    # a replay of any of them answers the stored result and moves nothing
    a = assets[3]
    once = answers[a][7]
    replay = _spin(svc, a, _key_of(svc, a, once.result.game_number))
    assert replay.replayed and replay.result == once.result
    assert _state(svc, [a])[a] == after[a]


def _key_of(svc, asset: str, game_number: int) -> str:
    """The Idempotency-Key whose stored answer is ``asset``'s game ``game_number``."""
    with svc.uow(readonly=True) as uow:
        for rec in uow.session.scalars(select(IdempotencyRecord).where(IdempotencyRecord.principal == f"machine:{asset}")):
            if rec.response and rec.response.get("game_number") == game_number:
                return rec.key
    raise AssertionError(f"no stored spin {game_number} of {asset}")


def test_a_batch_replays_refuses_and_plays_each_spin_as_alone(pg_app, pg_api):
    """Keys sent twice at once, a machine short of credits and a bad bet share batches with good spins: the replays
    answer the first result, the refused spins are refused alone and their keys stay free, the others play once."""
    svc = pg_app.extensions["slotsys"]
    rich = [f"M{n:03d}" for n in range(1, 9)]
    poor, bad = "M010", "M009"
    for a in rich + [bad]:
        _bill_in(pg_api, a)
    before = _state(svc, rich + [poor, bad])
    keys = {a: [uuid.uuid4().hex for _ in range(10)] for a in rich}
    poor_keys = [uuid.uuid4().hex for _ in range(10)]
    bad_keys = [uuid.uuid4().hex for _ in range(10)]
    results: dict[tuple[str, str], list] = defaultdict(list)
    lock = threading.Lock()
    start = threading.Barrier(len(rich) * 2 + 2)

    def play(asset: str, ks: list[str], bet: dict | None = None) -> None:
        start.wait()
        for k in ks:
            try:
                out = _spin(svc, asset, k, bet)
            except (InsufficientFunds, ValidationFailed) as e:
                out = e
            with lock:
                results[(asset, k)].append(out)

    with ThreadPoolExecutor(max_workers=len(rich) * 2 + 2) as pool:
        jobs = [pool.submit(play, a, keys[a]) for a in rich] + [pool.submit(play, a, keys[a]) for a in rich]
        jobs += [pool.submit(play, poor, poor_keys), pool.submit(play, bad, bad_keys, {"lines": 999, "multiplier": 1})]
        for j in jobs:
            j.result()

    after = _state(svc, rich + [poor, bad])
    for a in rich:
        for k in keys[a]:
            pair = results[(a, k)]
            assert len(pair) == 2 and pair[0].result == pair[1].result
            assert sorted(o.replayed for o in pair) == [False, True]
        assert after[a]["games"] - before[a]["games"] == 10  # ten keys, ten games, not twenty
        assert after[a]["numbers"][-10:] == list(range(before[a]["seq"] + 1, before[a]["seq"] + 11))
    assert all(isinstance(results[(poor, k)][0], InsufficientFunds) for k in poor_keys)
    assert all(isinstance(results[(bad, k)][0], ValidationFailed) and results[(bad, k)][0].field == "lines"
               for k in bad_keys)
    assert after[poor] == before[poor] and after[bad] == before[bad]
    with svc.uow(readonly=True) as uow:  # the refused spins' claims were released with the batch's commit
        left = uow.session.scalar(select(func.count()).select_from(IdempotencyRecord)
                                  .where(IdempotencyRecord.key.in_(poor_keys + bad_keys)))
    assert left == 0
    _bill_in(pg_api, poor)  # the refused key may be retried once the machine has credits
    once = _spin(svc, poor, poor_keys[0])
    assert not once.replayed and once.result.game_number == before[poor]["seq"] + 1
    assert pg_api.audit()["balanced"]


def test_a_batch_that_fails_runs_its_spins_again_alone(pg_app, pg_api, monkeypatch):
    """A spin failing with an unexpected error inside a batch rolls the batch back; every spin then runs on the
    single-spin path: the others play once, the failing one fails alone, nothing of the batch is left behind."""
    svc = pg_app.extensions["slotsys"]
    assets = [f"M{n:03d}" for n in range(1, 9)]
    for a in assets:
        _bill_in(pg_api, a)
    before = _state(svc, assets)
    real_play = svc.floor._play
    broken = "M004"

    def play(uow, asset, bet):
        out = real_play(uow, asset, bet)
        if asset == broken:
            raise RuntimeError("a defect after the game was accounted")
        return out

    monkeypatch.setattr(svc.floor, "_play", play)
    errors: list[BaseException] = []
    done: dict[str, list] = defaultdict(list)
    start = threading.Barrier(len(assets))

    def run(asset: str) -> None:
        start.wait()
        for _ in range(8):
            try:
                done[asset].append(_spin(svc, asset, uuid.uuid4().hex))
            except RuntimeError as e:
                errors.append(e)

    with ThreadPoolExecutor(max_workers=len(assets)) as pool:
        list(pool.map(run, assets))
    after = _state(svc, assets)
    assert len(errors) == 8 and not done[broken]
    assert after[broken] == before[broken]
    for a in assets:
        if a != broken:
            assert len(done[a]) == 8 and after[a]["games"] - before[a]["games"] == 8
            assert [o.result.game_number for o in done[a]] == list(range(before[a]["seq"] + 1, before[a]["seq"] + 9))
    with svc.uow(readonly=True) as uow:
        mid = uow.machines.get(broken).id
        assert uow.session.scalar(select(func.count()).select_from(GameRound).where(GameRound.machine_id == mid)) \
            == len(before[broken]["numbers"])
        assert uow.session.scalar(select(Machine.status).where(Machine.id == mid)) == "active"
    assert pg_api.audit()["balanced"]


def _hold_row(svc, asset: str) -> tuple[threading.Event, threading.Thread]:
    """Another transaction takes ``asset``'s machine row (FOR UPDATE) and holds it until the event is set (10 s
    at most); returns once the row is held."""
    locked, release = threading.Event(), threading.Event()

    def hold_row() -> None:
        with svc.uow() as uow:
            uow.session.execute(select(Machine.id).where(Machine.asset_number == asset).with_for_update())
            locked.set()
            release.wait(10)

    holder = threading.Thread(target=hold_row)
    holder.start()
    assert locked.wait(10)
    return release, holder


def test_a_machine_row_held_elsewhere_delays_only_that_machine(pg_app, pg_api):
    """Another transaction holds M003's row for 2 s: the batches give up waiting for it within the lock wait
    (SLOTSYS_SPIN_GROUP_COMMIT_LOCK_WAIT_MS, 200 ms) and M003's spin runs alone, waiting for its own row only;
    the other machines keep playing meanwhile, and every spin applies once."""
    svc = pg_app.extensions["slotsys"]
    assets = [f"M{n:03d}" for n in range(1, 9)]
    held = "M003"
    for a in assets:
        _bill_in(pg_api, a)
    before = _state(svc, assets)
    release, holder = _hold_row(svc, held)
    finished: dict[str, float] = {}
    t0 = time.monotonic()
    start = threading.Barrier(len(assets))

    def run(asset: str) -> None:
        start.wait()
        for _ in range(6):
            _spin(svc, asset, uuid.uuid4().hex)
        finished[asset] = time.monotonic() - t0

    with ThreadPoolExecutor(max_workers=len(assets)) as pool:
        jobs = [pool.submit(run, a) for a in assets]
        time.sleep(2.0)
        others_done = {a for a in assets if a in finished}
        release.set()
        for j in jobs:
            j.result(timeout=60)
    holder.join(10)
    assert others_done == set(assets) - {held}, finished  # they did not wait for M003's row
    assert finished[held] >= 2.0
    after = _state(svc, assets)
    for a in assets:
        assert after[a]["games"] - before[a]["games"] == 6
        assert after[a]["numbers"][-6:] == list(range(before[a]["seq"] + 1, before[a]["seq"] + 7))
    assert pg_api.audit()["balanced"]


def test_the_leaders_lone_spin_gives_up_a_held_row_within_the_lock_wait_its_claim_sets(pg_app, pg_api):
    """A batch of one runs in the leader with the lock wait set by its claim statement (no statement of its own):
    on a machine row held elsewhere it rolls back within about the wait (LockWaitExceeded, its claim undone, so
    the same key then plays once), and a claim with a wait leaves PostgreSQL's lock_timeout set for that
    transaction only."""
    from slotsys.floor.services.play import SpinRequest
    from slotsys.kernel.errors import LockWaitExceeded

    svc = pg_app.extensions["slotsys"]
    asset = "M005"
    _bill_in(pg_api, asset)
    with svc.uow() as uow:
        assert uow.idempotency.claim("test", uuid.uuid4().hex, "f", lock_wait_ms=150) is not None
        assert uow.session.execute(text("SHOW lock_timeout")).scalar() == "150ms"
    with svc.uow() as uow:
        assert uow.session.execute(text("SHOW lock_timeout")).scalar() == "0"
    before = _state(svc, [asset])[asset]
    key = uuid.uuid4().hex
    release, holder = _hold_row(svc, asset)
    t0 = time.monotonic()
    try:
        with pytest.raises(LockWaitExceeded):
            svc.floor._spin_alone(SpinRequest(asset, _bet(asset), _key(asset, key, _bet(asset))), lock_wait_ms=200)
        waited = time.monotonic() - t0
    finally:
        release.set()
        holder.join(10)
    assert 0.15 <= waited < 1.5, waited
    assert _state(svc, [asset])[asset] == before  # nothing applied, the claim rolled back with it
    once = _spin(svc, asset, key)
    assert not once.replayed and once.result.game_number == before["seq"] + 1
