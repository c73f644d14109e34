"""The day close (slotsys.accounting.domain.day_close): figures from meter snapshots tied to the postings,
theoretical hold from the exact par sheets of the catalogue, and the variance flag."""

from __future__ import annotations

import math
from datetime import datetime, timedelta, timezone
from fractions import Fraction

import pytest

from slotsys.accounting.domain import chart as C
from slotsys.accounting.domain.day_close import (
    METERS, DayCloseError, MachineInfo, OptionPlay, Snapshot, close_day, meters_vs_ledger, segments,
)
from tests.unit.accounting_floor import KEPT_METERS, par, two_day_floor

UTC = timezone.utc


@pytest.fixture(scope="module")
def floor():
    return two_day_floor()


@pytest.fixture(scope="module")
def closes(floor):
    f, d1, d2 = floor
    return {d: close_day(f.machines.values(), f.day_snapshots(d), f.day_plays(d), par) for d in (d1, d2)}


def test_machine_figures_are_the_sums_of_the_days_events(floor, closes):
    f, d1, d2 = floor
    for day in (d1, d2):
        for m in closes[day].machines:
            for meter in KEPT_METERS:
                assert m.figures.meters[meter] == f.events.get((day, m.asset, meter), 0), (day, m.asset, meter)
            assert m.figures.meters["promo_in"] is None and m.figures.meters["promo_out"] is None  # not kept yet
            assert m.exceptions == []
    # play at 05:59:59 KST is day 1, at 06:00:00 KST day 2 (M2's bill)
    assert closes[d2].machine("M2").figures.meters["bills_in"] == 105_000


def test_the_two_days_add_up_to_the_meters(floor, closes):
    f, d1, d2 = floor
    for asset, meters in f.meters.items():
        for meter in KEPT_METERS:
            assert closes[d1].machine(asset).figures.meters[meter] + closes[d2].machine(asset).figures.meters[meter] \
                == meters[meter]


def test_day_figures_tie_exactly_to_the_days_postings(floor, closes):
    f, d1, d2 = floor
    for day in (d1, d2):
        close = closes[day]
        postings = f.day_postings(day)
        ties = meters_vs_ledger(close, C.account_movements(postings))
        assert len(ties) == 2 * len(f.machines)
        assert all(t["difference"] == 0 for t in ties), ties
        s = C.summarise(postings)
        fl = close.floor.figures.meters
        assert s.balanced
        assert (s.row("4110").credits, s.row("4110").debits) == (fl["coin_in"], fl["coin_out"])
        assert s.row("4110").normal_net == close.floor.figures.hold
        assert s.row("1210").debits == fl["bills_in"]
        assert s.row("2340").debits == fl["jackpot_out"]
        outstanding = s.row("2210")
        assert outstanding.credits == fl["tickets_out"] + fl["handpay_out"]  # handpay receipts are tickets
        assert outstanding.debits == fl["tickets_in"]


def test_rollups_are_the_sums_of_their_machines(floor, closes):
    f, d1, _ = floor
    close = closes[d1]
    for level in (close.banks, close.zones, close.games, [close.floor]):
        assert sum(r.figures.coin_in for r in level) == close.floor.figures.coin_in
        assert sum(r.figures.theo_won for r in level) == close.floor.figures.theo_won
        assert sum(r.figures.hold for r in level) == close.floor.figures.hold
    b1 = next(r for r in close.banks if r.key == "B1")
    assert b1.machines == ["M1", "M2"]
    for meter in METERS:
        if meter not in ("promo_in", "promo_out"):
            assert b1.figures.meters[meter] == sum(close.machine(a).figures.meters[meter] for a in ("M1", "M2"))
    assert close.floor.figures.theo_won == sum(m.figures.theo_won for m in close.machines)
    # variances add: Var(floor) = Σ Var(machine)
    assert close.floor.figures.variance == pytest.approx(sum(m.figures.variance for m in close.machines))


def test_a_game_change_splits_the_machine_between_two_games(floor, closes):
    f, d1, d2 = floor
    m3 = closes[d1].machine("M3")
    assert [(p.game_id, p.denomination) for p in m3.parts] == [("dragon_pearl_50", 100), ("tiger_reels_243", 10)]
    assert sum(p.figures.coin_in for p in m3.parts) == m3.figures.coin_in
    games = {r.key: r for r in closes[d1].games}
    assert games["dragon_pearl_50"].machines == ["M1", "M3"] and games["tiger_reels_243"].machines == ["M2", "M3"]
    assert closes[d2].machine("M3").games == ["tiger_reels_243"]
    kinds = [s.kind for s in f.day_snapshots(d1) if s.asset == "M3"]
    assert kinds == ["day_open", "game_change_before", "game_change_after", "day_close"]
    segs = segments([s for s in f.day_snapshots(d1) if s.asset == "M3"])
    assert len(segs) == 3 and not segs[1].has_play


def test_theoretical_hold_from_the_catalogue_par_sheets(floor, closes):
    f, d1, _ = floor
    close = closes[d1]
    for m in close.machines:
        for part in m.parts:
            plays = [p for p in f.day_plays(d1) if p.asset == m.asset and p.config == (part.game_id, part.variation,
                                                                                        part.denomination)]
            sheet = par(part.game_id, part.variation)
            milli = sum(math.floor(Fraction(p.coin_in) * (1 - sheet.option(lines=p.lines, reels=p.reels,
                                                                             multiplier=p.multiplier).rtp) * 1000)
                        for p in plays)
            assert part.figures.theo_milli == milli
            assert part.figures.theo_won == milli // 1000
            assert part.figures.coin_in_unattributed == 0 and part.figures.games_unattributed == 0
    # Dragon Pearl's RTP does not depend on the lines or multiplier played (every line has the same expected pay),
    # so its theoretical hold is coin-in × (1 − RTP) of any option, 92.0186…% on variation 92.
    m1 = close.machine("M1").figures
    rtp = par("dragon_pearl_50", "92").rtp_full_bet
    assert float(rtp) == pytest.approx(0.9201864, abs=1e-7)
    assert m1.expected == m1.coin_in * (1 - rtp)
    assert abs(m1.theo_won - m1.coin_in * (1 - rtp)) < 1


def test_a_free_games_choice_uses_that_choices_figures():
    sheet = par("tiger_reels_243", "95")
    opt = sheet.option(reels=5, multiplier=1)
    choice = opt.by_choice[4]
    assert choice.rtp != opt.rtp
    at = datetime(2026, 12, 1, 0, tzinfo=UTC)
    info = [MachineInfo("T1", "B", "Z")]
    snaps = [Snapshot("T1", at, "day_open", "tiger_reels_243", "95", 10, {"coin_in": 0, "coin_out": 0, "games_played": 0}),
             Snapshot("T1", at + timedelta(hours=1), "day_close", "tiger_reels_243", "95", 10,
                      {"coin_in": 250_000, "coin_out": 200_000, "games_played": 1_000})]
    play = OptionPlay("T1", "tiger_reels_243", "95", 10, None, 5, 1, 1_000, 250_000, choice=4)
    f = close_day(info, snaps, [play], par).machine("T1").figures
    assert f.expected == 250_000 * (1 - choice.rtp)
    assert f.variance == pytest.approx(250_000 ** 2 / 1_000 * choice.sd ** 2)


# ------------------------------------------------------------------ the variance flag
def _planted_floor():
    """Four Dragon Pearl machines, 2,000 games each of 50 lines × 1 at ₩100 (₩5,000 a game, ₩10,000,000 coin-in);
    X4 held ₩4,000,000, far above what the game's SD allows; the others near the theoretical ₩798,135."""
    at = datetime(2026, 11, 30, 21, tzinfo=UTC)
    holds = {"X1": 700_000, "X2": 900_000, "X3": 820_000, "X4": 4_000_000}
    machines, snaps, plays = [], [], []
    for a, hold in holds.items():
        machines.append(MachineInfo(a, "B9", "Z9"))
        cfg = ("dragon_pearl_50", "92", 100)
        snaps.append(Snapshot(a, at, "day_open", *cfg, {m: 0 for m in METERS if m not in ("promo_in", "promo_out")}))
        close = {m: 0 for m in METERS if m not in ("promo_in", "promo_out")}
        close.update(coin_in=10_000_000, coin_out=10_000_000 - hold, games_played=2_000, games_won=600)
        snaps.append(Snapshot(a, at + timedelta(days=1), "day_close", *cfg, close))
        plays.append(OptionPlay(a, *cfg, 50, None, 1, 2_000, 10_000_000))
    return machines, snaps, plays


def test_a_planted_outlier_is_flagged_outside_k_sd():
    close = close_day(*_planted_floor(), par)
    assert [m.asset for m in close.flagged()] == ["X4"]
    opt = par("dragon_pearl_50", "92").option(lines=50, multiplier=1)
    sd = math.sqrt(2_000) * 5_000 * opt.sd  # √n · bet · σ
    expected = 10_000_000 * (1 - opt.rtp)
    x4 = close.machine("X4").figures
    assert x4.sd == pytest.approx(sd)
    assert x4.z == pytest.approx((4_000_000 - float(expected)) / sd)
    assert x4.z > 3
    for a in ("X1", "X2", "X3"):
        assert abs(close.machine(a).figures.z) < 3
    d = close.to_dict()
    assert d["flagged"] == ["X4"]
    assert next(r for r in d["machines"] if r["asset"] == "X4")["flagged"] is True
    # k is configurable: at 10 SD nothing is flagged; at 0.05 SD (σ of the hold ≈ ₩980,000) X1 (−₩98,135) and
    # X2 (+₩101,865) are too, X3 (+₩21,865) not
    assert close_day(*_planted_floor(), par, k=10).flagged() == []
    assert [m.asset for m in close_day(*_planted_floor(), par, k=0.05).flagged()] == ["X1", "X2", "X4"]
    # too few games for the flag: min_games
    assert close_day(*_planted_floor(), par, min_games=5_000).flagged() == []


def test_unattributed_play_is_reported_and_has_no_z():
    machines, snaps, plays = _planted_floor()
    plays = [p if p.asset != "X1" else OptionPlay("X1", *p.config, 50, None, 1, 1_500, 7_500_000) for p in plays]
    close = close_day(machines, snaps, plays, par)
    x1 = close.machine("X1")
    assert x1.figures.coin_in_unattributed == 2_500_000 and x1.figures.games_unattributed == 500
    assert x1.figures.z is None and close.floor.figures.z is None
    assert [e["code"] for e in x1.exceptions] == ["unattributed_play"]


# ------------------------------------------------------------------ refusals and exceptions
def _snap(at, kind, coin_in, cfg=("dragon_pearl_50", "92", 100), **more):
    return Snapshot("M1", at, kind, *cfg, {"coin_in": coin_in, "coin_out": 0, "games_played": coin_in // 5_000, **more})


def test_a_meter_going_backwards_is_refused():
    at = datetime(2026, 12, 1, tzinfo=UTC)
    with pytest.raises(DayCloseError) as e:
        close_day([MachineInfo("M1", "B", "Z")], [_snap(at, "day_open", 10_000), _snap(at + timedelta(hours=1),
                                                                                       "day_close", 5_000)], [], par)
    assert e.value.asset == "M1" and e.value.detail == {"meter": "coin_in", "start": 10_000, "end": 5_000}


def test_missing_required_meter_unknown_machine_and_no_snapshots_are_refused():
    at = datetime(2026, 12, 1, tzinfo=UTC)
    bad = Snapshot("M1", at, "day_open", "dragon_pearl_50", "92", 100, {"coin_in": 0})
    with pytest.raises(DayCloseError, match="no coin_out"):
        close_day([MachineInfo("M1", "B", "Z")], [bad, bad], [], par)
    with pytest.raises(DayCloseError, match="not on the floor"):
        close_day([], [_snap(at, "day_open", 0)], [], par)
    with pytest.raises(DayCloseError, match="no meter snapshot"):
        close_day([MachineInfo("M1", "B", "Z")], [], [], par)
    with pytest.raises(DayCloseError, match="no bet option"):
        close_day([MachineInfo("M1", "B", "Z")], [_snap(at, "day_open", 0), _snap(at, "day_close", 5_000)],
                  [OptionPlay("M1", "dragon_pearl_50", "92", 100, 7, None, 1, 1, 5_000)], par)


def test_missing_opening_or_closing_and_a_silent_configuration_change_are_exceptions():
    at = datetime(2026, 12, 1, tzinfo=UTC)
    snaps = [_snap(at, "game_change_after", 0), _snap(at + timedelta(hours=5), "game_change_before", 50_000,
                                                      cfg=("tiger_reels_243", "95", 10))]
    plays = [OptionPlay("M1", "dragon_pearl_50", "92", 100, 50, None, 1, 10, 50_000),
             OptionPlay("M1", "tiger_reels_243", "95", 10, None, 5, 1, 4, 1_000)]
    m = close_day([MachineInfo("M1", "B", "Z")], snaps, plays, par).machine("M1")
    assert [e["code"] for e in m.exceptions] == ["no_opening_snapshot", "no_closing_snapshot",
                                                 "configuration_changed_in_segment", "play_without_segment"]
    assert m.figures.coin_in == 50_000 and m.parts[0].game_id == "dragon_pearl_50"


def test_to_dict_carries_every_level(closes):
    d = next(iter(closes.values())).to_dict()
    assert set(d) >= {"machines", "parts", "banks", "zones", "games", "floor", "flagged", "k"}
    assert d["floor"]["coin_in"] == sum(r["coin_in"] for r in d["machines"])
    assert d["k"] == 3.0


def test_signed_milli_floor_rounds_toward_minus_infinity():
    from slotsys.kernel.money import milli_to_won_floor_signed

    assert [milli_to_won_floor_signed(m) for m in (1_999, 1_000, 0, -1, -1_000, -1_500)] == [1, 1, 0, -1, -1, -2]


def test_one_boundary_snapshot_closes_a_day_and_opens_the_next(floor, closes):
    f, d1, d2 = floor
    shared = [s for s in f.day_snapshots(d2) if s.kind != "day_open"]
    shared = [s for s in f.day_snapshots(d1) if s.kind == "day_close"] + shared
    again = close_day(f.machines.values(), shared, f.day_plays(d2), par)
    assert all(m.exceptions == [] for m in again.machines)
    assert again.floor.figures.meters == closes[d2].floor.figures.meters
