"""In-memory repositories of gaming-day accounting for service unit tests (``uow.day_close``, ``uow.drops``,
``uow.day_sources``). They keep real state and apply the SQL repositories' rules a use case can tell: a second
read or close of a day is refused by its key, a stacker is counted once per day, a variance accepted once;
``FakeFloor`` is a floor of machines whose games move their meters, recall and ledger postings together."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace
from datetime import date, datetime

from slotsys.accounting.domain.closing import ClosedDay, ClosedMachine, FloorMachine, MeterRead, RecordedVariance
from slotsys.accounting.domain.day_close import Snapshot
from slotsys.accounting.domain.drop import ACCEPTED, BALANCED, OPEN, DropRule, DropSchedule, StackerCount, Variance
from slotsys.floor.domain.admin import SNAPSHOT_METERS
from slotsys.kernel import accounts


class FakeDayClose:
    def __init__(self) -> None:
        self.reads: dict[date, MeterRead] = {}
        self.snapshots: dict[date, dict[int, tuple[Snapshot, str, str]]] = {}
        self.closed_: dict[date, ClosedDay] = {}
        self.rows: dict[date, list[ClosedMachine]] = {}
        self.locks = 0

    def lock(self) -> None:
        self.locks += 1

    def read(self, day):
        return self.reads.get(day)

    def latest_read(self):
        return self.reads[max(self.reads)] if self.reads else None

    def read_before(self, day):
        days = [d for d in self.reads if d < day]
        return self.reads[max(days)] if days else None

    def add_read(self, read, machines):
        if read.day in self.reads:
            raise AssertionError("a second read of a day: the primary key refuses it")
        self.reads[read.day] = read
        self.snapshots[read.day] = {m.machine_id: (m.snapshot(read.at), m.zone, m.bank) for m in machines}

    def read_snapshots(self, day):
        return dict(self.snapshots.get(day, {}))

    def closed(self, day):
        return self.closed_.get(day)

    def closed_days(self, first, last):
        return {d for d in self.closed_ if first <= d <= last}

    def first_closed_day(self):
        return min(self.closed_) if self.closed_ else None

    def add_closed(self, closed, machines):
        if closed.day in self.closed_:
            return False
        self.closed_[closed.day] = closed
        self.rows[closed.day] = sorted(machines, key=lambda m: m.asset)
        return True

    def machine_rows(self, day, *, zone=None, bank=None, asset=None, after=None, limit=None):
        rows = [r for r in self.rows.get(day, []) if (zone is None or r.zone == zone) and
                (bank is None or r.bank == bank) and (asset is None or r.asset == asset) and
                (after is None or r.asset > after)]
        return rows[:limit] if limit is not None else rows

    def machine_days(self, asset, first, last):
        return {d: r for d, rows in self.rows.items() if first <= d <= last for r in rows if r.asset == asset}


class FakeDrops:
    def __init__(self) -> None:
        self.rules: list[tuple[str, DropRule]] = []
        self.counts: dict[int, StackerCount] = {}
        self.variances_: dict[int, tuple[Variance, int | None]] = {}
        self.acceptances: dict[int, tuple[str, str, str, datetime]] = {}

    def schedule(self):
        latest = dict(self.rules)
        return DropSchedule(latest.pop("*", DropRule()), latest)

    def add_rule(self, asset, rule, *, by, at, reason):
        self.rules.append((asset, rule))

    def add_count(self, count):
        if any((c.asset, c.stacker, c.day) == (count.asset, count.stacker, count.day) for c in self.counts.values()):
            return None
        cid = len(self.counts) + 1
        self.counts[cid] = count
        return cid

    def add_variances(self, variances, *, at, count_id=None):
        out = []
        for v in variances:
            same = next((i for i, (w, _) in self.variances_.items() if w.key == v.key), None)
            if same is not None:
                out.append(self.variance(same))
                continue
            vid = len(self.variances_) + 1
            self.variances_[vid] = (v, count_id)
            out.append(RecordedVariance(vid, v, count_id))
        return out

    def variance(self, variance_id):
        if variance_id not in self.variances_:
            return None
        v, cid = self.variances_[variance_id]
        a = self.acceptances.get(variance_id)
        if a is not None:
            v = replace(v, state=ACCEPTED, accepted_by=a[0], accepted_role=a[1], reason=a[2], accepted_at=a[3])
        return RecordedVariance(variance_id, v, cid)

    def variances(self, *, state=None, day=None, limit=500):
        rows = [self.variance(i) for i in sorted(self.variances_)]
        return [r for r in rows if (state is None or r.variance.state == state) and
                (day is None or r.variance.day == day)][:limit]

    def accept(self, variance_id, *, by, role, reason, at):
        if variance_id in self.acceptances:
            return False
        self.acceptances[variance_id] = (by, role, reason, at)
        return True


class FakeFloor:
    """``uow.day_sources``: machines with meters, their recall (game number → option, games, coin-in), the
    floor's own snapshots and the ledger's postings (time, account code, debit-positive won), all in memory.
    Liabilities are empty (no tickets, levels, wallets or points), so they agree."""

    def __init__(self) -> None:
        self.machines_: dict[int, FloorMachine] = {}
        self.meters: dict[int, dict[str, int]] = {}
        self.rounds: dict[int, list[tuple[int, int | None, int | None, int, int]]] = defaultdict(list)
        self.own_snapshots: dict[int, list[Snapshot]] = defaultdict(list)
        self.postings: list[tuple[datetime, str, int]] = []
        self.entries_: list[datetime] = []
        self.round_times: list[tuple[datetime, str, int]] = []  # (at, asset, coin-in): the recall's time stamps

    # ---- arranging
    def enrol(self, machine_id: int, asset: str, zone: str, bank: str, game: str, variation: str, denomination: int,
              at: datetime) -> None:
        self.machines_[machine_id] = FloorMachine(machine_id, asset, zone, bank, game, variation, denomination, at, {})
        self.meters[machine_id] = {m: 0 for m in SNAPSHOT_METERS}

    def game(self, machine_id: int, at: datetime, *, lines: int, multiplier: int, bet: int, win: int) -> None:
        """One game: the meters, the recall and the ledger (``Dr credits / Cr hold`` the bet, the win back)."""
        m, asset = self.meters[machine_id], self.machines_[machine_id].asset
        m["coin_in"] += bet
        m["coin_out"] += win
        m["games_played"] += 1
        m["games_won"] += 1 if win else 0
        m["game_seq"] += 1
        self.rounds[machine_id].append((m["game_seq"], lines, None, multiplier, bet))
        self.round_times.append((at, asset, bet))
        self._entry(at, (accounts.machine_credits(asset), bet), (accounts.machine_hold(asset), -bet),
                    (accounts.machine_hold(asset), win), (accounts.machine_credits(asset), -win))

    def bill(self, machine_id: int, at: datetime, amount: int) -> None:
        asset = self.machines_[machine_id].asset
        self.meters[machine_id]["bills_in"] += amount
        self._entry(at, (accounts.machine_drop(asset), amount), (accounts.machine_credits(asset), -amount))

    def _entry(self, at: datetime, *legs: tuple[str, int]) -> None:
        self.entries_.append(at)
        self.postings += [(at, code, amount) for code, amount in legs if amount]

    # ---- DaySourceReads
    def consistent(self) -> None:
        pass

    def _current(self, mid: int) -> FloorMachine:
        return replace(self.machines_[mid], meters=dict(self.meters[mid]))

    def lock_floor(self, *, created_before):
        return [self._current(i) for i in sorted(self.machines_) if self.machines_[i].created_at < created_before]

    def machines(self, ids):
        return {i: self._current(i) for i in ids}

    def asset_exists(self, asset):
        return any(m.asset == asset for m in self.machines_.values())

    def retired_between(self, after, until):
        return []

    def floor_snapshots(self, machine_ids, after, until):
        return {i: [s for s in self.own_snapshots[i] if (after is None or s.at > after) and s.at < until]
                for i in machine_ids}

    def option_play(self, machine_id, first, last):
        acc: dict[tuple, list[int]] = defaultdict(lambda: [0, 0])
        for n, lines, reels, mult, bet in self.rounds[machine_id]:
            if first <= n <= last:
                a = acc[(lines, reels, mult, None)]
                a[0] += 1
                a[1] += bet
        return [(*k, g, c) for k, (g, c) in acc.items()]

    def movements(self, since, until, *, codes_like=None):
        acc: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
        for at, code, amount in self.postings:
            if (since is None or at >= since) and at < until and \
                    (codes_like is None or code.startswith(codes_like.rstrip("%"))):
                a = acc[code]
                a[0 if amount > 0 else 1] += abs(amount)
                a[2] += 1
        return [(c, d, cr, n) for c, (d, cr, n) in acc.items()]

    def round_coin_in(self, since, until, assets=None):
        return [(at, bet, 1) for at, asset, bet in sorted(self.round_times)
                if since <= at < until and (assets is None or asset in assets)]

    def account_history(self, code, since, until):
        """Credit-normal accounts only (every account a chart of this fake floor draws: jackpot meters)."""
        rows = [(at, -amount) for at, c, amount in self.postings if c == code]
        if not rows:
            return None
        return sum(a for at, a in rows if at < since), [(at, a) for at, a in rows if since <= at < until]

    def level_hits(self, level, since, until):
        return []

    def entries(self, since, until):
        return sum(1 for at in self.entries_ if (since is None or at >= since) and at < until)

    def balances(self, *, codes_like=(), codes=()):
        return {}

    def outstanding_tickets(self, as_of):
        return []

    def jackpot_levels(self):
        return []

    def wallets(self):
        return []

    def points(self):
        return [], 10, 5

    def machine_redemptions(self, asset, since, until):
        return []

    def drawer_shifts(self, day, shifts, until):
        return []

    def kiosk_shifts(self, day, shifts):
        return []


__all__ = ["FakeDayClose", "FakeDrops", "FakeFloor", "OPEN", "BALANCED"]
