"""Bet validation shared by the games: chip unit, minimum/maximum, shared tie/pair limits, spectators,
dealer's over-maximum mistakes, no more bets -- each refusal a problem+json naming the field."""

from __future__ import annotations

import json

import pytest
from flask import Flask

from slotsys.kernel.api.problems import from_domain
from table_games.domain import baccarat as B
from table_games.domain import blackjack as BJ
from table_games.domain import sicbo as S
from table_games.domain.errors import BettingClosed, TableRuleError
from table_games.domain.games import GAMES
from table_games.domain.limits import Phase, TableLimits, require_betting
from table_games.domain.settlement import Bet, Void

LIM = B.default_limits(chip_unit=1_000, minimum=10_000, maximum=3_000_000, side_minimum=1_000, side_maximum=300_000)
SEATS = {"1": "ann", "2": "bob", "3": "cho"}
PLAYERS = ("ann", "bob", "cho")


def check(bet, existing=(), **kw):
    kw.setdefault("seats", SEATS)
    kw.setdefault("participants", PLAYERS)
    return B.check_bet(bet, LIM, existing, **kw)


def refused(bet, existing=(), **kw) -> TableRuleError:
    with pytest.raises(TableRuleError) as e:
        check(bet, existing, **kw)
    return e.value


def test_chip_unit_minimum_maximum_unknown_spot():
    assert check(Bet("player", 10_000, "ann", "1")).cap is None
    assert refused(Bet("player", 10_500, "ann", "1")).field == "amount"
    assert "minimum" in refused(Bet("player", 9_000, "ann", "1")).detail
    assert "maximum" in refused(Bet("player", 3_001_000, "ann", "1")).detail
    assert refused(Bet("dragon", 10_000, "ann", "1")).field == "spot"
    assert refused(Bet("player", 0, "ann", "1")).field == "amount"
    assert refused(Bet("player", 10_000.0, "ann", "1")).field == "amount"
    # adding chips to one's own spot: the total counts for minimum and maximum
    first = check(Bet("player", 2_000_000, "ann", "1"))
    check(Bet("player", 1_000_000, "ann", "1"), [first])
    assert "maximum" in refused(Bet("player", 1_001_000, "ann", "1"), [first]).detail


def test_no_more_bets():
    with pytest.raises(BettingClosed) as e:
        check(Bet("player", 10_000, "ann", "1"), betting_open=False)
    assert e.value.status == 409 and e.value.field == "round"
    require_betting(Phase.BETTING)
    with pytest.raises(BettingClosed):
        require_betting("no_more_bets")


def test_tie_and_pair_share_the_unused_table_limit():
    # three players in the game, tie maximum 300,000 each: ann may use what bob and cho leave unused
    ann = check(Bet("tie", 700_000, "ann", "1"))
    bob = check(Bet("tie", 200_000, "bob", "2"), [ann])
    e = refused(Bet("tie", 1_000, "cho", "3"), [ann, bob])
    assert e.field == "amount" and e.extra["available"] == 0
    assert refused(Bet("tie", 901_000, "ann", "1")).extra["available"] == 900_000
    # alone at the table the player has only the spot's own limit
    with pytest.raises(TableRuleError):
        check(Bet("tie", 301_000, "ann", "1"), participants=("ann",))
    # player/banker do not share
    assert "maximum" in refused(Bet("player", 3_001_000, "ann", "1")).detail
    # blackjack's pair bet shares too
    bj = BJ.default_limits(pair_maximum=200_000)
    BJ.check_bet(Bet("pair", 400_000, "ann", "1"), bj, seats=SEATS, participants=("ann", "bob"))
    with pytest.raises(TableRuleError):
        BJ.check_bet(Bet("pair", 400_000, "ann", "1"), bj, seats=SEATS, participants=("ann",))


def test_spectator_backs_a_box_with_permission_within_its_limit():
    e = refused(Bet("banker", 100_000, "dan", "1"))
    assert e.field == "box" and "permission" in e.detail
    assert refused(Bet("banker", 100_000, "dan", "9")).field == "box"
    seated = check(Bet("banker", 2_500_000, "ann", "1"))
    ok = check(Bet("banker", 500_000, "dan", "1"), [seated], permissions={("1", "dan")})
    assert ok.box == "1" and ok.player == "dan"
    assert "maximum" in refused(Bet("banker", 1_000, "dan", "1"), [seated, ok], permissions={("1", "dan")}).detail
    # another box's bets do not count against box 1
    check(Bet("banker", 3_000_000, "bob", "2"), [seated, ok])


def test_over_maximum_accepted_by_mistake_is_capped():
    bet = check(Bet("banker", 3_500_000, "ann", "1"), accept_over_max=True)
    assert (bet.cap, bet.action, bet.excess) == (3_000_000, 3_000_000, 500_000)
    coup = B.coup_from_cards("3S 7H 3D KC")  # banker 7 wins
    s = B.settle([bet], coup, B.COMMISSION)[0]
    assert (s.win, s.commission, s.stake_returned) == (3_000_000, 150_000, 3_500_000)
    s = B.settle([bet], B.coup_from_cards("9S 7H KD KC"), B.COMMISSION)[0]
    assert (s.result, s.payout) == ("lose", 500_000)
    sb = S.check_bet(Bet("big", 2_500_000, "ann"), S.default_limits(even_max=2_000_000), accept_over_max=True)
    assert S.settle([sb], S.Dice((6, 5, 4)))[0].win == 2_000_000


def test_refusals_render_as_problem_json_naming_the_field():
    app = Flask(__name__)
    with app.test_request_context("/api/v1/tables/7/bets"):
        resp = from_domain(refused(Bet("player", 10_500, "ann", "1")))
        body = json.loads(resp.get_data())
        assert resp.status_code == 422 and resp.mimetype == "application/problem+json"
        assert body["field"] == "amount" and body["type"].endswith("/table-rule") and "₩1,000" in body["detail"]
        with pytest.raises(BettingClosed) as e:
            check(Bet("player", 10_000, "ann", "1"), betting_open=False)
        resp = from_domain(e.value)
        assert resp.status_code == 409 and json.loads(resp.get_data())["field"] == "round"


def test_limits_round_trip_and_game_registry():
    assert TableLimits.from_dict(LIM.to_dict()) == LIM
    assert set(GAMES) == {"baccarat", "blackjack", "roulette", "sic_bo", "big_wheel", "three_card_poker",
                          "caribbean_stud", "holdem_bonus", "pai_gow_poker"}
    for g in GAMES.values():
        assert g.outcome_from_dict({"void": True, "reason": "misdeal"}) == Void("misdeal")
        g.default_limits()
    coup = B.coup_from_cards("9S 5H KD KC")
    assert GAMES["baccarat"].outcome_from_dict(coup.to_dict()) == coup
    rules = GAMES["blackjack"].rules_from_dict(BJ.H17.to_dict())
    assert rules == BJ.H17


def test_settlement_json():
    s = B.settle([Bet("player", 10_000, "ann", "1", id="b1")], B.coup_from_cards("9S 5H KD KC"))[0]
    d = s.to_dict()
    assert d == {"bet": {"spot": "player", "amount": 10_000, "player": "ann", "box": "1", "id": "b1"},
                 "result": "win", "stake_returned": 10_000, "win": 10_000, "commission": 0, "payout": 20_000,
                 "net": 10_000}
    assert Bet.from_dict(d["bet"]) == s.bet
