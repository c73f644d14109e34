"""The rules a machine's report must pass (pure domain: slotsys.floor.domain.machine_reports)."""

from __future__ import annotations

import pytest

from slotsys.floor.domain.evaluator import SeededRng, spin as play
from slotsys.floor.domain.machine_reports import (
    GameReport,
    ReportRefused,
    check_game_number,
    check_game_report,
    check_meters,
    check_outcome_source,
    derive_play,
    meter_deltas,
    reconcile,
    require_mode,
)
from slotsys.floor.games import load_game

DP = load_game("dragon_pearl_50")  # lines game, max award 2,500,000 credits
TR = load_game("tiger_reels_243")  # reel-cost game


def refused(fn, *a, **kw) -> ReportRefused:
    with pytest.raises(ReportRefused) as e:
        fn(*a, **kw)
    return e.value


def check(report, game=DP, last=0, denomination=100, variation=""):
    return check_game_report(game, report, denomination=denomination, variation=variation, last_game_number=last)


def test_modes():
    assert check_outcome_source("machine") == "machine"
    e = refused(check_outcome_source, "both")
    assert (e.field, e.status) == ("outcome_source", 422)
    require_mode("server", "server", "M001")
    e = refused(require_mode, "machine", "server", "M001")
    assert (e.field, e.status, e.reason) == ("outcome_source", 409, "machine_in_machine_mode")


def test_game_numbers_increase_strictly_and_gaps_are_reported():
    assert check_game_number(4, 5) is None
    assert check_game_number(4, 9) == (5, 8)
    assert (refused(check_game_number, 4, 4).reason, refused(check_game_number, 4, 4).status) == ("repeated", 409)
    assert refused(check_game_number, 4, 2).reason == "out_of_order"


def test_a_reported_game_with_stops_is_evaluated_by_the_one_evaluator():
    option = DP.resolve_bet(lines=20, multiplier=3)
    for seed in range(30):
        o = play(DP, option, SeededRng(seed))
        r = GameReport(game_number=1, denomination=100, bet_won=option.credits * 100, win_credits=o.total_win_credits,
                       lines=20, multiplier=3, stops=o.stops, free_stops=[f.stops for f in o.free_games] or None)
        c = check(r)
        assert c.option == option and c.win_credits == o.total_win_credits and c.outcome.stops == o.stops
        wrong = GameReport(**{**r.__dict__, "win_credits": o.total_win_credits + 1})
        e = refused(check, wrong)
        assert (e.field, e.reason) == ("stops", "win_mismatch")


def test_bet_must_be_an_offered_option():
    assert check(GameReport(game_number=1, denomination=100, bet_credits=60, win_credits=0)).option.credits == 60
    e = refused(check, GameReport(game_number=1, denomination=100, bet_credits=7, win_credits=0))
    assert (e.field, e.reason, e.reported) == ("bet_credits", "bet_not_offered", 7)
    e = refused(check, GameReport(game_number=1, denomination=100, bet_credits=60, win_credits=0, lines=20,
                                  multiplier=2))  # 40 credits named, 60 reported
    assert (e.field, e.reason) == ("bet_credits", "bet_mismatch")
    e = refused(check, GameReport(game_number=1, denomination=100, bet_credits=60, win_credits=0, lines=7,
                                  multiplier=2))
    assert (e.field, e.reason) == ("lines", "bet_not_offered")
    e = refused(check, GameReport(game_number=1, denomination=100, bet_won=150, win_credits=0))
    assert (e.field, e.reason) == ("bet_won", "not_whole_credits")
    e = refused(check, GameReport(game_number=1, denomination=100, win_credits=0))
    assert (e.field, e.reason) == ("bet_credits", "one_amount_required")
    # reel-cost: reels 1-3 cost 7 credits a multiplier credit
    assert check(GameReport(game_number=1, denomination=100, bet_credits=35, win_credits=0, reels=3, multiplier=5),
                 game=TR).option.reels == 3


def test_win_at_most_the_maximum_award_and_the_enrolled_denomination_and_paytable():
    top = DP.max_award_credits
    assert check(GameReport(game_number=1, denomination=100, bet_credits=50, win_credits=top)).win_credits == top
    e = refused(check, GameReport(game_number=1, denomination=100, bet_credits=50, win_won=(top + 1) * 100))
    assert (e.field, e.reason, e.reported) == ("win_won", "above_max_award", top + 1)
    e = refused(check, GameReport(game_number=1, denomination=1000, bet_credits=50, win_credits=0))
    assert e.field == "denomination"
    e = refused(check, GameReport(game_number=1, denomination=100, bet_credits=50, win_credits=0, variation="95"))
    assert (e.field, e.reason) == ("variation", "paytable_mismatch")
    assert check(GameReport(game_number=1, denomination=100, bet_credits=50, win_credits=0, variation="95"),
                 variation="95").bet_credits == 50


def test_stops_need_the_bet_option_and_valid_positions():
    e = refused(check, GameReport(game_number=1, denomination=100, bet_credits=60, win_credits=0, stops=(0, 0, 0, 0, 0)))
    assert e.reason == "bet_option_required"
    e = refused(check, GameReport(game_number=1, denomination=100, bet_credits=60, win_credits=0, lines=20,
                                  multiplier=3, stops=(0, 0, 0)))
    assert (e.field, e.reason) == ("stops", "invalid_stops")


def test_meters_never_decrease():
    m = check_meters({"coin_in": 100, "coin_out": 0, "games_played": 1})
    assert m["jackpot"] is None
    assert refused(check_meters, {"coin_in": 1, "coin_out": 0}).field == "meters.games_played"
    assert refused(check_meters, {"coin_in": 1, "coin_out": 0, "games_played": 1, "hopper": 2}).reason == "unknown_meter"
    assert refused(check_meters, {"coin_in": -1, "coin_out": 0, "games_played": 1}).reason == "invalid_meter"
    before = {"coin_in": 1000, "coin_out": 500, "games_played": 3, "jackpot": None}
    assert meter_deltas(before, {"coin_in": 1600, "coin_out": 500, "games_played": 4, "jackpot": 10}) == {
        "coin_in": 600, "coin_out": 0, "games_played": 1}
    e = refused(meter_deltas, before, {"coin_in": 1600, "coin_out": 400, "games_played": 4})
    assert (e.field, e.reason, e.reported) == ("meters.coin_out", "meter_decreased", {"previous": 500, "reported": 400})


def test_games_derived_from_meter_deltas():
    p = derive_play(DP, 100, {"coin_in": 6000, "coin_out": 1500, "games_played": 1})
    assert (p.games, p.bet_credits, p.win_credits, p.option.credits) == (1, 60, 15, 60)
    p = derive_play(DP, 100, {"coin_in": 3000, "coin_out": 0, "games_played": 3})
    assert (p.games, p.bet_credits, p.option.credits) == (3, 30, 10)
    assert refused(derive_play, DP, 100, {"coin_in": 6000, "coin_out": 0, "games_played": 0}).reason == "no_game_played"
    assert refused(derive_play, DP, 100, {"coin_in": 6050, "coin_out": 0, "games_played": 1}).field == "meters.coin_in"
    assert refused(derive_play, DP, 100, {"coin_in": 700, "coin_out": 0, "games_played": 1}).reason == "bet_not_offered"
    over = (2 * DP.max_award_credits + 1) * 100
    assert refused(derive_play, DP, 100, {"coin_in": 200, "coin_out": over, "games_played": 2}).reason == "above_max_award"


def test_reconcile_reports_each_difference_with_both_figures():
    system = {"coin_in": 6000, "coin_out": 1500, "games_played": 1, "jackpot": 30_000, "games_won": 1}
    assert reconcile(system, {"coin_in": 6000, "coin_out": 1500, "games_played": 1, "jackpot": None}) == []
    (m,) = reconcile(system, {"coin_in": 6100, "coin_out": 1500, "games_played": 1})
    assert m.to_dict() == {"meter": "coin_in", "system": 6000, "machine": 6100, "difference": -100}


def test_the_emulated_reporting_machine_reports_what_the_rules_accept():
    from slotsys.app.emulator_reported import ReportingMachine

    info = {"game": "tiger_reels_243", "variation": "92", "denomination": 100,
            "meters": {"coin_in": 0, "coin_out": 0, "games_played": 0, "game_number": 0}}
    machine = ReportingMachine("M002", info, seed=3)
    kinds = set()
    previous = {"coin_in": 0, "coin_out": 0, "games_played": 0}
    for opt in [o.to_dict() for o in TR.bet_options()] * 3:
        decided = machine.next_report(opt)
        if decided is None:
            continue
        path, body, after = decided
        deltas = meter_deltas(previous, check_meters(after))
        if path.endswith("/games"):
            kinds.add("stops" if "stops" in body else "bet_only")
            c = check(GameReport(**{k: v for k, v in body.items()}), game=TR, last=machine.game_number,
                      variation="92")
            assert c.bet_credits * 100 == deltas["coin_in"] and c.win_credits * 100 == deltas["coin_out"]
        else:
            kinds.add("meters")
            p = derive_play(TR, 100, deltas)
            assert p.games == 1 and p.bet_credits == opt["credits"]
        machine.accepted(after)
        previous = after
    assert kinds == {"stops", "bet_only", "meters"} and machine.game_number == machine.meters["games_played"]
