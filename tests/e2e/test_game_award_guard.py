"""Game math on the floor: the award guard locks the machine, free-games choice through the API."""

from __future__ import annotations

import dataclasses

import pytest

from slotsys.floor.games import load_game


def credits(api, asset):
    return api.as_machine(asset, "GET", f"/api/v1/machines/{asset}/meters", key=None).json


@pytest.fixture
def tiny_max_award(monkeypatch, app):
    """Dragon Pearl exactly as catalogued, except that its maximum award is 1 credit (the floor's game library)."""
    library = app.extensions["slotsys"].game_library
    real = library.load

    def patched(game_id: str):
        g = real(game_id)
        return dataclasses.replace(g, max_award_credits=1) if game_id == "dragon_pearl_50" else g

    monkeypatch.setattr(library, "load", patched)


def test_a_win_above_the_maximum_award_locks_the_machine_and_credits_nothing(api, tiny_max_award, capsys):
    asset = "M001"  # Dragon Pearl, ₩100 per credit
    for _ in range(3):
        assert api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/bill-in", {"amount": 50_000}).status_code == 200
    before_meters = credits(api, asset)
    locked = None
    for _ in range(30):
        r = api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/spin", {"lines": 50, "multiplier": 1})
        assert r.status_code == 200, r.json
        if r.json["award_guard"]:
            locked = r.json
            break
    assert locked is not None, "some paid game wins within 30 games (hit frequency ~47%)"
    g = locked["award_guard"]
    assert g["max_award_credits"] == 1 and g["win_credits"] >= 2 and g["win_won"] == g["win_credits"] * 100
    assert g["stops"] == locked["stops"]
    # nothing above the maximum is credited: the bet is taken, the win is not
    jackpots = sum(j["amount"] for j in locked["jackpots"])
    assert locked["total_win"] == 0 and locked["total_win_credits"] == g["win_credits"]
    assert locked["credits"] == locked["credits_before"] - 5_000 + jackpots
    m = credits(api, asset)
    assert m["status"] == "locked" and m["credits"] == locked["credits"]
    assert m["meters"]["coin_out"] == before_meters["meters"]["coin_out"], "every earlier win was guarded too"
    assert m["meters"]["coin_in"] == before_meters["meters"]["coin_in"] + 5_000 * locked["game_number"]
    # a locked machine plays no more
    r = api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/spin", {"lines": 50, "multiplier": 1})
    assert r.status_code == 409 and "award guard" in r.json["detail"] and str(g["win_credits"]) in r.json["detail"]
    # game recall keeps the raw outcome for the attendant's verification
    games = api.as_machine(asset, "GET", f"/api/v1/machines/{asset}/games", key=None).json["games"]
    assert games[0]["game_number"] == locked["game_number"] and games[0]["win_won"] == 0
    assert api.audit()["balanced"] is True
    logged = capsys.readouterr()
    assert "award_guard_lock" in logged.out + logged.err and f"win_credits={g['win_credits']}" in logged.out + logged.err


def test_free_games_choice_passes_through_the_api(api):
    asset = "M002"  # Tiger Reels, ₩100 per credit
    api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/bill-in", {"amount": 50_000})
    r = api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/spin", {"reels": 5, "multiplier": 1, "choice": 4})
    assert r.status_code == 200, r.json
    body = r.json
    assert set(body) >= {"free_games", "free_games_awarded", "choice", "progressive", "award_guard"}
    assert body["award_guard"] is None and body["progressive"] == []
    assert body["total_win_credits"] == sum(w["pay_credits"] for w in body["wins"]) + sum(
        f["win_credits"] for f in body["free_games"])
    assert body["total_win"] == body["total_win_credits"] * 100
    assert body["choice"] in (None, 4)
    r = api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/spin", {"reels": 5, "multiplier": 1, "choice": 5})
    assert r.status_code == 422 and r.json["field"] == "choice"
    r = api.as_machine("M001", "POST", "/api/v1/machines/M001/spin", {"lines": 50, "multiplier": 1, "choice": 1})
    assert r.status_code == 422 and r.json["field"] == "choice"


def test_free_games_play_inside_one_paid_game_on_the_floor(api, monkeypatch):
    """Force a trigger: the service credits one total (paid game + every free game) per paid game."""
    asset = "M002"
    game = load_game("tiger_reels_243")
    var = game.variation()
    # stops showing TEMPLE on reels 1-3 (row 0), found from the strips themselves
    trigger = [next(t for t, s in enumerate(strip) if s == "TEMPLE") for strip in var.reels[:3]]

    class Scripted:
        """Reel stops for the paid game, then the CSPRNG-shaped draws for the free games."""

        def __init__(self):
            self.queue = trigger + [0, 0]
            self.i = 0

        def randbelow(self, n):
            self.i += 1
            return self.queue.pop(0) % n if self.queue else (self.i * 7919) % n

    api.app.extensions["slotsys"].ctx.rng = Scripted()
    api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/bill-in", {"amount": 50_000})
    r = api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/spin", {"reels": 5, "multiplier": 2, "choice": 1})
    assert r.status_code == 200, r.json
    body = r.json
    assert body["choice"] == 1 and body["free_games_awarded"] == 15 and len(body["free_games"]) >= 15
    assert body["total_win_credits"] == sum(w["pay_credits"] for w in body["wins"]) + sum(
        f["win_credits"] for f in body["free_games"])
    assert body["credits"] == 50_000 - 25 * 2 * 100 + body["total_win"] + sum(j["amount"] for j in body["jackpots"])
    games = api.as_machine(asset, "GET", f"/api/v1/machines/{asset}/games", key=None).json["games"]
    assert games[0]["win_won"] == body["total_win"]
