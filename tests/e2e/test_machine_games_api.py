"""Machine-reported games through the HTTP API on a migrated SQLite database: the machine decides, the system
accounts (ledger, jackpot wager, loyalty, recall, meters), refuses bad reports without moving money and records
them, derives games from meters and reconciles the machine's meters against its own."""

from __future__ import annotations

import uuid

from slotsys.floor.domain.evaluator import SeededRng, spin as play
from slotsys.floor.games import load_game
from slotsys.floor.services.reported_games import reconcile_floor


def machine_mode(api, asset):
    return api.app.extensions["slotsys"].reported_games.set_outcome_source(None, asset, "machine")


def meters(api, asset):
    return api.as_machine(asset, "GET", f"/api/v1/machines/{asset}/meters", key=None).json


def events(api, asset, kind):
    svc = api.app.extensions["slotsys"]
    with svc.uow(readonly=True) as uow:
        m = uow.machines.get(asset)
        return [e.detail for e in uow.machine_events.for_machine(m.id, kind=kind)]


def played(seed, lines=20, multiplier=3, game_id="dragon_pearl_50"):
    """A game the machine decides with its own RNG: the bet option, the outcome (the one evaluator)."""
    game = load_game(game_id)
    option = game.resolve_bet(lines=lines, multiplier=multiplier)
    return option, play(game, option, SeededRng(seed))


def report(option, outcome, game_number, denomination=100, **over):
    body = {"game_number": game_number, "denomination": denomination, "bet_credits": option.credits,
            "win_credits": outcome.total_win_credits, "lines": option.lines, "multiplier": option.multiplier,
            "stops": list(outcome.stops), "free_stops": [list(f.stops) for f in outcome.free_games] or None}
    body.update(over)
    return body


def test_reported_game_is_accounted_like_a_spin_and_exactly_once(api):
    asset = "M001"  # MASS, ₩100, Dragon Pearl
    machine_mode(api, asset)
    api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/bill-in", {"amount": 50_000})
    player = api.as_staff("host", "POST", "/api/v1/players", {"name": "Reported Play", "pin": "2468"}).json
    r = api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/card-in", {"card_number": player["card_number"]})
    assert r.status_code in (200, 201), r.json
    option, outcome = played(7)
    key = uuid.uuid4().hex
    r = api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/games", report(option, outcome, 1), key=key)
    assert r.status_code == 200, r.json
    b = r.json
    win = outcome.total_win_credits * 100
    assert b["bet"]["won"] == 6_000 and b["total_win"] == win and b["stops"] == list(outcome.stops)
    assert b["credits"] == 50_000 - 6_000 + win + sum(j["amount"] for j in b["jackpots"])
    # the carded player's session and points, as for a spin
    assert b["player"]["player"] == player["player"] and b["player"]["points_earned_milli"] > 0
    again = api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/games", report(option, outcome, 1), key=key)
    assert again.status_code == 200 and again.headers["Idempotent-Replayed"] == "true" and again.json == b
    view = meters(api, asset)
    assert view["credits"] == b["credits"]
    assert view["meters"]["coin_in"] == 6_000 and view["meters"]["games_played"] == 1
    assert view["meters"]["game_number"] == 1
    recall = api.as_machine(asset, "GET", f"/api/v1/machines/{asset}/games", key=None).json["games"]
    assert [g["game_number"] for g in recall] == [1] and recall[0]["stops"] == list(outcome.stops)
    # the same game number under a new key is a repeated game: refused, recorded, nothing moves
    r = api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/games", report(option, outcome, 1))
    assert r.status_code == 409 and r.json["field"] == "game_number" and r.json["reason"] == "repeated"
    assert meters(api, asset)["credits"] == b["credits"]
    assert events(api, asset, "game_report_refused")[0]["field"] == "game_number"
    assert api.audit()["balanced"] is True


def test_each_mode_refuses_the_other(api):
    machine_mode(api, "M001")
    api.as_machine("M001", "POST", "/api/v1/machines/M001/bill-in", {"amount": 10_000})
    r = api.as_machine("M001", "POST", "/api/v1/machines/M001/spin", {"lines": 1, "multiplier": 1})
    assert r.status_code == 409 and r.json["field"] == "outcome_source" and "machine mode" in r.json["detail"]
    option, outcome = played(1, lines=1, multiplier=1)
    r = api.as_machine("M003", "POST", "/api/v1/machines/M003/games", report(option, outcome, 1))
    assert r.status_code == 409 and r.json["field"] == "outcome_source" and "server mode" in r.json["detail"]
    assert events(api, "M003", "game_report_refused")[0]["reason"] == "machine_in_server_mode"
    assert meters(api, "M003")["meters"]["games_played"] == 0


BAD_REPORTS = [  # (fields overridden in a good report of game 2, the field refused, the reason)
    ({"bet_credits": 7, "lines": None, "multiplier": None, "stops": None, "free_stops": None}, "bet_credits",
     "bet_not_offered"),
    ({"win_credits": 2_500_001, "stops": None, "free_stops": None}, "win_credits", "above_max_award"),
    ({"denomination": 1_000}, "denomination", "denomination_mismatch"),
    ({"variation": "88"}, "variation", "paytable_mismatch"),
    ({"stops": [0, 0, 0, 0, 999]}, "stops", "invalid_stops"),
    ({"bet_won": 6_050, "bet_credits": None}, "bet_won", "not_whole_credits"),
    ({"lines": 7}, "lines", "bet_not_offered"),
    ({"meters": {"coin_in": 0, "coin_out": 0, "games_played": 0}}, "meters.coin_in", "meter_decreased"),
]


def test_bad_reports_are_refused_recorded_and_move_nothing(api):
    asset = "M005"
    machine_mode(api, asset)
    api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/bill-in", {"amount": 50_000})
    option, outcome = played(3)
    # one good game with its meters first, so a later meter set can go backwards
    good = report(option, outcome, 1, meters={"coin_in": 6_000, "coin_out": outcome.total_win_credits * 100,
                                              "games_played": 1})
    assert api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/games", good).status_code == 200
    before = meters(api, asset)
    for over, field, reason in BAD_REPORTS:
        r = api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/games", report(option, outcome, 2, **over))
        assert r.status_code == 422, (over, r.json)
        assert r.headers["Content-Type"] == "application/problem+json"
        assert (r.json["field"], r.json["reason"]) == (field, reason)
        assert meters(api, asset) == before
        refused = events(api, asset, "game_report_refused")
        assert (refused[0]["field"], refused[0]["reason"]) == (field, reason) and "reported" in refused[0]
    assert len(events(api, asset, "game_report_refused")) == len(BAD_REPORTS)
    assert api.audit()["balanced"] is True


def test_stops_must_evaluate_to_the_reported_win(api):
    machine_mode(api, "M001")
    api.as_machine("M001", "POST", "/api/v1/machines/M001/bill-in", {"amount": 50_000})
    option, outcome = played(11)
    r = api.as_machine("M001", "POST", "/api/v1/machines/M001/games",
                       report(option, outcome, 1, win_credits=outcome.total_win_credits + 1))
    assert r.status_code == 422 and r.json["field"] == "stops" and r.json["reason"] == "win_mismatch"
    assert r.json["reported"]["evaluated_win_credits"] == outcome.total_win_credits
    assert meters(api, "M001")["credits"] == 50_000


def test_bet_above_the_credit_meter_is_refused(api):
    machine_mode(api, "M001")
    api.as_machine("M001", "POST", "/api/v1/machines/M001/bill-in", {"amount": 1_000})
    option, outcome = played(5)
    r = api.as_machine("M001", "POST", "/api/v1/machines/M001/games", report(option, outcome, 1))
    assert r.status_code == 409 and r.json["field"] == "bet_credits"
    assert events(api, "M001", "game_report_refused")[0]["reason"] == "insufficient_funds"
    assert meters(api, "M001")["credits"] == 1_000


def test_skipped_game_number_is_accepted_and_recorded(api):
    machine_mode(api, "M001")
    api.as_machine("M001", "POST", "/api/v1/machines/M001/bill-in", {"amount": 50_000})
    option, outcome = played(2)
    assert api.as_machine("M001", "POST", "/api/v1/machines/M001/games", report(option, outcome, 1)).status_code == 200
    r = api.as_machine("M001", "POST", "/api/v1/machines/M001/games", report(option, outcome, 5))
    assert r.status_code == 200 and r.json["skipped"] == {"first": 2, "last": 4}
    (ev,) = events(api, "M001", "game_number_skipped")
    assert ev["count"] == 3 and ev["reported"] == 5
    r = api.as_machine("M001", "POST", "/api/v1/machines/M001/games", report(option, outcome, 3))
    assert r.status_code == 409 and r.json["reason"] == "out_of_order"


def test_reported_game_without_stops_needs_only_an_offered_bet(api):
    machine_mode(api, "M002")  # Tiger Reels, reel-cost
    api.as_machine("M002", "POST", "/api/v1/machines/M002/bill-in", {"amount": 10_000})
    r = api.as_machine("M002", "POST", "/api/v1/machines/M002/games",
                       {"game_number": 1, "denomination": 100, "bet_won": 3_500, "win_won": 1_200})
    assert r.status_code == 200, r.json
    assert r.json["bet"]["credits"] == 35 and r.json["credits"] == 10_000 - 3_500 + 1_200
    assert r.json["stops"] is None and r.json["reconciliation"] is None
    # no meters reported at its current game: nothing to compare yet (neither balanced nor a mismatch)
    rec = api.as_staff("auditor", "GET", "/api/v1/machines/M002/reconciliation", key=None).json
    assert rec["comparable"] is False and rec["balanced"] is None and rec["reported"] is None
    assert reconcile_floor(api.app.extensions["slotsys"].ctx)["not_comparable"] == ["M002"]


def test_meters_at_game_end_derive_the_games_and_reconcile(api):
    asset = "M007"
    machine_mode(api, asset)
    api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/bill-in", {"amount": 50_000})
    url = f"/api/v1/machines/{asset}/meters"
    # one game: ₩6,000 in, ₩1,500 out
    r = api.as_machine(asset, "POST", url, {"meters": {"coin_in": 6_000, "coin_out": 1_500, "games_played": 1}})
    assert r.status_code == 200, r.json
    assert r.json["games"] == 1 and r.json["credits"] == 50_000 - 6_000 + 1_500
    assert r.json["reconciliation"] == {"balanced": True, "mismatches": []}
    # three more games in one report: ₩3 × 1,000 in, nothing out
    r = api.as_machine(asset, "POST", url, {"meters": {"coin_in": 9_000, "coin_out": 1_500, "games_played": 4}})
    assert r.status_code == 200 and r.json["games"] == 3 and r.json["game_number"] == 4
    # a meter going backwards: 422 naming it, recorded, nothing changed
    before = meters(api, asset)
    r = api.as_machine(asset, "POST", url, {"meters": {"coin_in": 8_900, "coin_out": 1_500, "games_played": 5}})
    assert r.status_code == 422 and r.json["field"] == "meters.coin_in" and r.json["reason"] == "meter_decreased"
    assert meters(api, asset) == before
    assert events(api, asset, "game_report_refused")[0]["reported"] == {"previous": 9_000, "reported": 8_900}
    # no game played
    r = api.as_machine(asset, "POST", url, {"meters": {"coin_in": 9_000, "coin_out": 1_500, "games_played": 4}})
    assert r.status_code == 422 and r.json["field"] == "meters.games_played"
    rec = api.as_staff("auditor", "GET", f"/api/v1/machines/{asset}/reconciliation", key=None)
    assert rec.status_code == 200 and rec.json["balanced"] is True
    assert rec.json["system"]["coin_in"] == rec.json["reported"]["coin_in"] == 9_000
    assert api.as_machine(asset, "GET", f"/api/v1/machines/{asset}/reconciliation", key=None).status_code == 403
    assert api.audit()["balanced"] is True


def test_meter_mismatch_is_an_exception_never_a_correction(api):
    asset = "M009"
    machine_mode(api, asset)
    api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/bill-in", {"amount": 50_000})
    option, outcome = played(4)
    win = outcome.total_win_credits * 100
    body = report(option, outcome, 1, meters={"coin_in": 6_100, "coin_out": win, "games_played": 1})
    r = api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/games", body)
    assert r.status_code == 200
    assert r.json["reconciliation"]["mismatches"] == [
        {"meter": "coin_in", "system": 6_000, "machine": 6_100, "difference": -100}]
    assert meters(api, asset)["meters"]["coin_in"] == 6_000  # the system's figure stands
    rec = api.as_staff("operator", "GET", f"/api/v1/machines/{asset}/reconciliation", key=None).json
    assert rec["balanced"] is False and rec["mismatches"][0]["meter"] == "coin_in"
    assert rec["exceptions"][0]["detail"]["mismatches"][0]["difference"] == -100
    out = reconcile_floor(api.app.extensions["slotsys"].ctx)
    assert out["mismatched"] == [asset]
    assert len(events(api, asset, "meter_mismatch")) == 2
    # a person must look: ONE attendant alert for the machine's mismatch (the second counts as a repeat)
    alerts = api.as_staff("attendant", "GET", "/api/v1/alerts?kind=meter_mismatch", key=None).json["alerts"]
    assert [(a["machine"], a["state"], a["repeats"]) for a in alerts] == [(asset, "open", 1)]


def test_mystery_award_is_answered_as_a_bonus_to_pay_on_the_machine(api):
    """Embedded SQLite folds the wager in the report's transaction: the award comes back in the answer,
    credited to the machine (as a spin's)."""
    from jackpot_controller.adapters.tables import JackpotLevel

    svc = api.app.extensions["slotsys"]
    with svc.uow() as uow:  # arm MASS_MINOR: the first contribution crosses its trigger
        lv = uow.session.query(JackpotLevel).filter_by(code="MASS_MINOR").one()
        lv.trigger_milli = lv.value_milli + 1
        uow.commit()
    machine_mode(api, "M011")
    api.as_machine("M011", "POST", "/api/v1/machines/M011/bill-in", {"amount": 10_000})
    r = api.as_machine("M011", "POST", "/api/v1/machines/M011/games",
                       {"game_number": 1, "denomination": 100, "bet_credits": 10, "win_credits": 0})
    assert r.status_code == 200, r.json
    (award,) = [j for j in r.json["jackpots"] if j["level"] == "MASS_MINOR"]
    assert award["amount"] > 0 and r.json["credits"] == 10_000 - 1_000 + sum(j["amount"] for j in r.json["jackpots"])
    assert meters(api, "M011")["meters"]["jackpot_out"] == sum(j["amount"] for j in r.json["jackpots"])
    assert api.audit()["balanced"] is True
