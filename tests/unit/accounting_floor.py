"""A constructed slot floor for the accounting tests: every money event moves the machine's meters AND posts the
balanced journal entry the services post (slotsys.floor.services.play, tito.services.tickets,
jackpot_controller.services.awards), time-stamped, so a day close can be tied to its postings exactly."""

from __future__ import annotations

import random
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from slotsys.kernel import accounts as JA
from slotsys.accounting.domain.day_close import METERS, MachineInfo, OptionPlay, Snapshot
from slotsys.kernel.gaming_day import GamingDay
from slotsys.kernel import accounts
from slotsys.kernel import ledger as L
from slotsys.floor.domain.game import BetOption
from slotsys.floor.domain.parsheet import ParSheet, par_sheet
from slotsys.floor.games import load_game

KEPT_METERS = tuple(m for m in METERS if m not in ("promo_in", "promo_out"))  # what the machines table keeps


def par(game_id: str, variation: str) -> ParSheet:
    return par_sheet(load_game(game_id), variation or None)


@dataclass
class Floor:
    gd: GamingDay
    machines: dict[str, MachineInfo] = field(default_factory=dict)
    config: dict[str, tuple[str, str, int]] = field(default_factory=dict)
    meters: dict[str, dict[str, int]] = field(default_factory=dict)
    snapshots: list[Snapshot] = field(default_factory=list)
    entries: list[tuple[datetime, L.JournalEntry]] = field(default_factory=list)
    # (gaming day, asset, config, (lines, reels, multiplier)) → [games, coin-in]
    plays: dict[tuple, list[int]] = field(default_factory=lambda: defaultdict(lambda: [0, 0]))
    # (gaming day, asset, meter) → the sum of that meter's events (an independent count of the day's figures)
    events: dict[tuple, int] = field(default_factory=lambda: defaultdict(int))

    def enrol(self, asset: str, bank: str, zone: str, game_id: str, variation: str, denomination: int) -> None:
        self.machines[asset] = MachineInfo(asset, bank, zone)
        self.config[asset] = (game_id, variation, denomination)
        self.meters[asset] = {m: 0 for m in KEPT_METERS}

    # ------------------------------------------------------------------ snapshots
    def snapshot(self, asset: str, at: datetime, kind: str) -> None:
        g, v, d = self.config[asset]
        self.snapshots.append(Snapshot(asset, at, kind, g, v, d, dict(self.meters[asset])))

    def open_day(self, day: date) -> None:
        for a in self.machines:
            self.snapshot(a, self.gd.bounds(day)[0], "day_open")

    def close_day(self, day: date) -> None:
        for a in self.machines:
            self.snapshot(a, self.gd.bounds(day)[1], "day_close")

    def change_game(self, asset: str, at: datetime, game_id: str, variation: str, denomination: int) -> None:
        self.snapshot(asset, at, "game_change_before")
        self.config[asset] = (game_id, variation, denomination)
        self.snapshot(asset, at, "game_change_after")

    def day_snapshots(self, day: date) -> list[Snapshot]:
        start, end = self.gd.bounds(day)
        out = []
        for s in self.snapshots:
            if s.kind == "day_open" and s.at == start or s.kind == "day_close" and s.at == end \
                    or s.kind not in ("day_open", "day_close") and start <= s.at < end:
                out.append(s)
        return out

    def day_plays(self, day: date) -> list[OptionPlay]:
        return [OptionPlay(a, g, v, d, lines, reels, mult, games, coin_in)
                for (dd, a, (g, v, d), (lines, reels, mult)), (games, coin_in) in sorted(self.plays.items(), key=str)
                if dd == day]

    def day_postings(self, day: date) -> list[tuple[str, int]]:
        return [(p.account, p.amount) for at, e in self.entries if self.gd.day_of(at) == day for p in e.postings]

    # ------------------------------------------------------------------ money events
    def _post(self, at: datetime, e: L.EntryBuilder) -> None:
        self.entries.append((at, e.build()))

    def _meter(self, asset: str, at: datetime, **deltas: int) -> None:
        for k, v in deltas.items():
            self.meters[asset][k] += v
            self.events[(self.gd.day_of(at), asset, k)] += v

    def bill_in(self, asset: str, at: datetime, amount: int) -> None:
        self._post(at, L.EntryBuilder("machine.bill_in").add(debit=accounts.machine_drop(asset),
                                                             credit=accounts.machine_credits(asset), amount=amount))
        self._meter(asset, at, bills_in=amount)

    def game(self, asset: str, at: datetime, option: BetOption, win_credits: int) -> None:
        g, v, d = self.config[asset]
        bet, win = option.credits * d, win_credits * d
        e = L.EntryBuilder("machine.spin").add(debit=accounts.machine_credits(asset), credit=accounts.machine_hold(asset), amount=bet)
        e.add(debit=accounts.machine_hold(asset), credit=accounts.machine_credits(asset), amount=win)
        self._post(at, e)
        self._meter(asset, at, coin_in=bet, coin_out=win, games_played=1, games_won=1 if win else 0)
        p = self.plays[(self.gd.day_of(at), asset, (g, v, d), (option.lines, option.reels, option.multiplier))]
        p[0] += 1
        p[1] += bet

    def ticket_out(self, asset: str, at: datetime, amount: int) -> None:
        self._post(at, L.EntryBuilder("tito.issue").add(debit=accounts.machine_credits(asset), credit=accounts.TICKETS_OUTSTANDING,
                                                        amount=amount))
        self._meter(asset, at, tickets_out=amount, tickets_out_count=1)

    def ticket_in(self, asset: str, at: datetime, amount: int) -> None:
        self._post(at, L.EntryBuilder("tito.redeem").add(debit=accounts.TICKETS_OUTSTANDING, credit=accounts.machine_credits(asset),
                                                         amount=amount))
        self._meter(asset, at, tickets_in=amount, tickets_in_count=1)

    def jackpot(self, asset: str, at: datetime, level: str, amount: int) -> None:
        self._post(at, L.EntryBuilder("jackpot.award").add(debit=JA.jackpot_payable(level), credit=accounts.machine_credits(asset),
                                                           amount=amount))
        self._meter(asset, at, jackpot_out=amount)

    def handpay(self, asset: str, at: datetime, amount: int) -> None:
        self._post(at, L.EntryBuilder("tito.issue").add(debit=accounts.machine_credits(asset), credit=accounts.TICKETS_OUTSTANDING,
                                                        amount=amount))
        self._meter(asset, at, handpay_out=amount, handpay_out_count=1)


def two_day_floor(seed: int = 7) -> tuple[Floor, date, date]:
    """Three machines in two banks and zones over gaming days 2026-12-01 and -02 (06:00 KST); M3 changes from
    Dragon Pearl to Tiger Reels during day 1; play at 05:59:59 and 06:00:00 KST on the boundary."""
    gd = GamingDay()
    f = Floor(gd)
    f.enrol("M1", "B1", "Z1", "dragon_pearl_50", "92", 100)
    f.enrol("M2", "B1", "Z1", "tiger_reels_243", "95", 10)
    f.enrol("M3", "B2", "Z2", "dragon_pearl_50", "92", 100)
    d1, d2 = date(2026, 12, 1), date(2026, 12, 2)
    rng = random.Random(seed)
    options = {g: par(g, v).options for g, v in (("dragon_pearl_50", "92"), ("tiger_reels_243", "95"))}

    def play_some(asset: str, t: datetime, n: int) -> datetime:
        for _ in range(n):
            t += timedelta(seconds=rng.randint(4, 40))
            game = f.config[asset][0]
            opt = rng.choice(options[game][-8:]).bet  # the larger bets
            # a pay mix of about 80% of the bet: 0 six times in ten, ½, 1, 2 and 4½ bets
            win = rng.choice([0] * 6 + [opt.credits // 2, opt.credits, 2 * opt.credits, 9 * opt.credits // 2])
            f.game(asset, t, opt, win)
        return t

    f.open_day(d1)
    start1, end1 = gd.bounds(d1)
    for asset in f.machines:
        t = start1 + timedelta(minutes=rng.randint(1, 50))
        f.bill_in(asset, t, 50_000)
        f.bill_in(asset, t + timedelta(seconds=5), 10_000)
        t = play_some(asset, t + timedelta(seconds=10), 40)
        f.ticket_in(asset, t + timedelta(seconds=3), 23_400)
        t = play_some(asset, t + timedelta(seconds=10), 25)
        f.ticket_out(asset, t + timedelta(seconds=5), 31_200)
    f.jackpot("M1", start1 + timedelta(hours=3), "MINI", 12_345)
    f.handpay("M2", start1 + timedelta(hours=4), 1_500_000)
    f.change_game("M3", start1 + timedelta(hours=10), "tiger_reels_243", "95", 10)
    t = play_some("M3", start1 + timedelta(hours=10, minutes=5), 30)
    # the boundary: 05:59:59 KST is day 1, 06:00:00 KST day 2
    f.game("M1", end1 - timedelta(seconds=1), options["dragon_pearl_50"][-1].bet, 0)
    f.close_day(d1)
    f.open_day(d2)
    f.game("M1", end1, options["dragon_pearl_50"][-1].bet, 0)
    f.bill_in("M2", end1, 5_000)
    start2, _ = gd.bounds(d2)
    for asset in f.machines:
        t = start2 + timedelta(hours=2, minutes=rng.randint(1, 50))
        f.bill_in(asset, t, 100_000)
        t = play_some(asset, t + timedelta(seconds=10), 50)
        f.ticket_out(asset, t + timedelta(seconds=5), 12_000)
    f.jackpot("M3", start2 + timedelta(hours=5), "MAJOR", 480_000)
    f.close_day(d2)
    return f, d1, d2
