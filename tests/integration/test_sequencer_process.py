"""The jackpot sequencer as a process of its own (``slotsys sequencer``, SLOTSYS_JACKPOT_SEQUENCER=process):
one active per floor by a PostgreSQL advisory lease, a standby that takes over when the active one is killed
(SIGKILL, mid-fold) within 5 s, and no wager folded twice or lost across the take-over: every level's
contributions equal exactly what its rules give the recorded wagers.
"""

from __future__ import annotations

import json
import time

import pytest
from sqlalchemy import func, select, text

from jackpot_controller.adapters.tables import JackpotFold, JackpotWager
from slotsys.floor.adapters.tables import Machine
from slotsys.kernel.money import contribution_milli
from tests.integration._procs import BIN, FloorDb, PrivateRedis, Proc, service_env, tail, wait_until
from tests.integration.test_faults import snapshot_levels

pytestmark = [pytest.mark.integration, pytest.mark.faults]

WAGERS = 30_000
BET = 6_000


def folded(db: FloorDb) -> int:
    with db.svc.uow(readonly=True) as uow:
        return uow.session.scalar(select(func.count()).select_from(JackpotWager).where(JackpotWager.fold_id.is_not(None)))


def active_in(log) -> bool:
    return "jackpot.sequencer.active" in log.read_text(errors="replace")


def test_kill9_the_active_sequencer_mid_fold_the_standby_takes_over_and_nothing_is_folded_twice(pg_server_url, tmp_path):
    redis = PrivateRedis(tmp_path).start()  # the award tasks the folds enqueue go to a broker of this test's own
    db = FloorDb(pg_server_url, tmp_path, redis.url)
    procs: list[Proc] = [redis]
    try:
        with db.svc.uow(readonly=True) as uow:
            mass = [(m.id, m.asset_number, m.bank or "", m.zone) for m in uow.session.scalars(
                select(Machine).where(Machine.zone == "MASS").order_by(Machine.id))]
        assert mass
        before = snapshot_levels(db)
        env = service_env(db.url, redis.url, tmp_path, SLOTSYS_JACKPOT_SEQUENCER="process",
                          SLOTSYS_JACKPOT_FOLD_BATCH="500", SLOTSYS_LOG_LEVEL="INFO")  # "active" is an info line
        a = Proc([BIN / "slotsys", "sequencer"], env, tmp_path / "seq-a.log").start()
        procs.append(a)
        assert wait_until(lambda: active_in(a.log), timeout=60), tail(a.log)
        b = Proc([BIN / "slotsys", "sequencer"], env, tmp_path / "seq-b.log").start()
        procs.append(b)
        time.sleep(3)
        assert b.alive() and not active_in(b.log), tail(b.log)  # one active per floor: b waits as a standby

        # a backlog of wagers, as the floor's spins record them (one INSERT each; here in one statement)
        with db.svc.uow() as uow:
            uow.session.execute(text(
                "INSERT INTO jackpot_wagers (machine_id, asset, zone, bank, game_number, bet_won, progressive, created_at) "
                "SELECT m.id, m.asset, m.zone, m.bank, 1000000 + g, :bet, '', now() "
                "FROM generate_series(1, :n) AS g "
                "JOIN (SELECT * FROM json_to_recordset(CAST(:machines AS json)) AS x(id int, asset text, zone text, bank text)) m "
                "ON m.id = (SELECT (array_agg(id ORDER BY id))[1 + g % :k] FROM json_to_recordset(CAST(:machines AS json)) "
                "AS y(id int, asset text, zone text, bank text))"),
                {"bet": BET, "n": WAGERS, "k": len(mass),
                 "machines": json.dumps([{"id": i, "asset": s, "zone": z, "bank": bk} for i, s, bk, z in mass])})
            uow.commit()
        assert wait_until(lambda: folded(db) >= 3_000, timeout=60, step=0.05), tail(a.log)
        at_kill = folded(db)
        assert at_kill < WAGERS, "the backlog was folded before the kill: make it longer"
        a.kill()  # SIGKILL, mid-fold: its transaction is rolled back by the server and its lease is freed
        killed = time.monotonic()
        assert wait_until(lambda: active_in(b.log), timeout=10, step=0.05), tail(b.log)
        assert wait_until(lambda: folded(db) > at_kill, timeout=10, step=0.05), tail(b.log)
        takeover_s = time.monotonic() - killed
        assert takeover_s < 5, takeover_s
        assert wait_until(lambda: folded(db) == WAGERS, timeout=120, step=0.2), (folded(db), tail(b.log))

        after = snapshot_levels(db)
        with db.svc.uow(readonly=True) as uow:
            folds = uow.session.execute(select(func.count(), func.sum(JackpotFold.wagers))).one()
            per_fold = dict(uow.session.execute(select(JackpotWager.fold_id, func.count()).group_by(JackpotWager.fold_id)).all())
            sizes = dict(uow.session.execute(select(JackpotFold.id, JackpotFold.wagers)).all())
            audit = db.svc.audit.report()
        assert folds[1] == WAGERS  # a fold counts exactly the wagers it marked: none twice, none lost
        assert per_fold == sizes  # and every fold row is the one its wagers carry
        wagers = [(asset, bank, zone) for _, asset, bank, zone in mass]
        fed = 0
        for code, lv in after.items():
            p, b0 = lv["params"], before[code]
            eligible = sum(1 for g in range(1, WAGERS + 1)
                           if p.eligible(*wagers[g % len(wagers)]) and BET >= p.min_bet)
            expected = eligible * (contribution_milli(BET, p.rate_ppm) + contribution_milli(BET, p.reserve_rate_ppm))
            assert lv["contributed"] - b0["contributed"] == expected, code
            growth = (lv["value"] + lv["reserve"] + lv["overflow"]) - (b0["value"] + b0["reserve"] + b0["overflow"])
            assert growth + 1000 * ((lv["total_won"] - b0["total_won"]) - (lv["seeded"] - b0["seeded"])) == expected, code
            fed += bool(expected)
        assert fed >= 3  # the MASS levels and the floor-wide ones took every wager
        assert audit["balanced"] is True, audit
        print(f"\nsequencer take-over: {at_kill:,} of {WAGERS:,} wagers folded at the SIGKILL, the standby folded "
              f"again {takeover_s:.2f} s later; {folds[0]} folds, each wager once")
    finally:
        for p in reversed(procs):
            p.stop()
        db.drop()
