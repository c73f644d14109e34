"""The house-banked table use cases on fakes (no database): a baccarat round from open betting to settlement with
the ledger balanced, a blackjack round with a decision, a three card poker round through the ante-poker base with
its progressive paid by the jackpot port, and exactly-once bets and settlements."""

from __future__ import annotations

import pytest

from slotsys.kernel import accounts
from slotsys.kernel.context import Principal
from slotsys.kernel.errors import Forbidden, IdempotencyKeyReused, InsufficientFunds
from slotsys.kernel.idempotency import OnceKey, fingerprint
from table_games.domain.engines.base import DealerInput, Decision
from table_games.services.rounds import PlaceBet
from table_games.services.tables import NewTable
from tests.fakes.kernel import SeqRng
from tests.fakes.tables import HOUSE_CASH, enrol, table_context, table_games

OPERATOR = Principal("staff", "op", "operator")
PIT = Principal("staff", "pit", "pit")
SUPERVISOR = Principal("staff", "sup", "supervisor")
ANN, BEN = 11, 12
FUND = 1_000_000


def key(name: str, *parts) -> OnceKey:
    return OnceKey(PIT.id, name, fingerprint("POST", name, *parts))


@pytest.fixture
def floor():
    ctx = table_context(rng=SeqRng(*range(0, 1000, 7)))
    games, wallet, progressives = table_games(ctx)
    enrol(ctx, ANN, FUND)
    enrol(ctx, BEN, FUND)
    return ctx, games, progressives


def balance(ctx, code: str) -> int:
    return ctx.uow.repos["ledger"].balance(code)


def cashable(ctx, pid: int) -> int:
    return balance(ctx, accounts.player_cashable(pid))


def bet(games, code: str, n: int, pid: int, spot: str, amount: int, box: str | None = None, k: str | None = None):
    cmd = PlaceBet(spot=spot, amount=amount, player_id=pid, box=box)
    return games.rounds.place_bet(PIT, code, n, cmd, key(k or f"{code}/{n}/{pid}/{spot}/{box}", cmd))


def test_baccarat_round_bets_from_the_wallet_settle_and_the_ledger_balances(floor):
    ctx, games, _ = floor
    t = games.tables.create(OPERATOR, NewTable(code="BAC-T", game="baccarat"))
    assert t.rules["commission_unit"] == 100 and t.bets_in_play == 0
    games.tables.sit(PIT, "BAC-T", "1", ANN)
    games.tables.sit(PIT, "BAC-T", "2", BEN)
    n = games.rounds.open_round(PIT, "BAC-T").round
    placed = bet(games, "BAC-T", n, ANN, "banker", 100_000)
    assert placed.result.wallet == {"cashable": FUND - 100_000, "promo": 0}
    bet(games, "BAC-T", n, BEN, "player", 50_000)
    assert games.tables.get(PIT, "BAC-T").bets_in_play == 150_000
    games.rounds.no_more_bets(PIT, "BAC-T", n)
    # dealing order: player 9 5 (4) draws 4 → 8; banker K K (0) draws 2 → 2
    done = games.settlement.settle(PIT, "BAC-T", n, DealerInput(cards=["9S", "KD", "5H", "KC", "4D", "2C"]),
                                   key("settle-bac")).result
    assert done.outcome["winner"] == "player" and done.status == "settled" and done.mode == "input"
    assert done.payouts == {str(ANN): 0, str(BEN): 100_000}  # the player bet paid 1:1; the banker bet lost
    assert done.house_net == 50_000 and done.shoe_no == 1
    # what the wallets lost, the table's hold won; nothing is left in play
    lost = (FUND - cashable(ctx, ANN)) + (FUND - cashable(ctx, BEN))
    assert lost == balance(ctx, accounts.table_hold("BAC-T")) == 50_000
    assert balance(ctx, accounts.table_bets("BAC-T")) == 0
    assert ctx.uow.repos["ledger"].sum_of_balances() == 0
    again = games.settlement.replay(PIT, "BAC-T", n)
    assert again.matches and again.house_net == 50_000


def test_baccarat_shoe_from_the_csprng_is_kept_across_rounds(floor):
    ctx, games, _ = floor
    games.tables.create(OPERATOR, NewTable(code="BAC-R", game="baccarat"))
    games.tables.sit(PIT, "BAC-R", "1", ANN)
    left = []
    for i in range(2):
        n = games.rounds.open_round(PIT, "BAC-R").round
        bet(games, "BAC-R", n, ANN, "banker", 10_000)
        games.rounds.no_more_bets(PIT, "BAC-R", n)
        done = games.settlement.settle(PIT, "BAC-R", n, DealerInput(), key(f"settle-{i}")).result
        assert done.mode == "rng" and done.shoe_no == 1
        left.append(games.tables.get(PIT, "BAC-R").shoe["cards_left"])
    assert left[1] < left[0]  # the second coup is dealt on from where the first stopped
    road = games.settlement.roadmaps(PIT, "BAC-R")
    assert road["shoe_no"] == 1 and road["coups"] == 2


def test_blackjack_round_with_a_double_debited_when_decided(floor):
    ctx, games, _ = floor
    games.tables.create(OPERATOR, NewTable(code="BJ-T", game="blackjack"))
    games.tables.sit(PIT, "BJ-T", "1", ANN)
    n = games.rounds.open_round(PIT, "BJ-T").round
    bet(games, "BJ-T", n, ANN, "main", 10_000, box="1")
    games.rounds.no_more_bets(PIT, "BJ-T", n)
    dealt = games.rounds.deal(PIT, "BJ-T", n, DealerInput(cards=["TS", "9D", "5C"]))  # box T, upcard 9, box 5
    view = dealt.model_dump()
    assert view["to_act"] == {"box": "1", "hand": 0, "allowed": view["to_act"]["allowed"]}
    assert "double" in view["to_act"]["allowed"] and view["boxes"]["1"]["hands"][0]["total"] == 15
    k = key("double", "1")
    doubled = games.rounds.decide(PIT, "BJ-T", n, Decision("1", "double"), ["6D"], k)
    assert doubled.result.decision == {"box": "1", "action": "double"}
    assert [d["amount"] for d in doubled.result.debited] == [10_000]
    assert cashable(ctx, ANN) == FUND - 20_000
    replayed = games.rounds.decide(PIT, "BJ-T", n, Decision("1", "double"), ["6D"], k)
    assert replayed.replayed and replayed.result == doubled.result and cashable(ctx, ANN) == FUND - 20_000
    # the dealer's second card (7: 16) and the card it draws to (T: bust)
    done = games.settlement.settle(PIT, "BJ-T", n, DealerInput(cards=["7H", "TC"]), key("settle-bj")).result
    assert done.payouts == {str(ANN): 40_000} and done.house_net == -20_000
    assert cashable(ctx, ANN) == FUND + 20_000
    assert balance(ctx, accounts.table_hold("BJ-T")) == -20_000  # the house paid the win from the hold
    assert balance(ctx, accounts.table_bets("BJ-T")) == 0
    assert games.settlement.replay(PIT, "BJ-T", n).matches


def test_three_card_poker_through_the_ante_poker_base_and_its_progressive(floor):
    ctx, games, progressives = floor
    with ctx.uow() as uow:
        progressives.create_table_level(uow, code="TCP_PROG", name="TCP", reset=100_000, ceiling=1_000_000,
                                        rate_ppm=200_000)
        uow.commit()
    games.tables.create(OPERATOR, NewTable(code="TCP-T", game="three_card_poker", progressive_level="TCP_PROG"))
    games.tables.sit(PIT, "TCP-T", "1", ANN)
    n = games.rounds.open_round(PIT, "TCP-T").round
    bet(games, "TCP-T", n, ANN, "ante", 10_000, box="1")
    bet(games, "TCP-T", n, ANN, "pair_plus", 5_000, box="1")
    bet(games, "TCP-T", n, ANN, "progressive", 5_000, box="1")
    games.rounds.no_more_bets(PIT, "TCP-T", n)
    dealt = games.rounds.deal(PIT, "TCP-T", n, DealerInput(hands={"1": ["AS", "KS", "QS"]}, dealer=["2C", "3D", "5H"]))
    assert dealt.model_dump()["to_act"] == {"box": "1", "allowed": ["play", "fold"], "bet": 10_000}
    played = games.rounds.decide(PIT, "TCP-T", n, Decision("1", "play", amount=10_000), None, key("play")).result
    assert [d["spot"] for d in played.debited] == ["play"]
    assert games.rounds.get_round(PIT, "TCP-T", n).play["boxes"]["1"]["decision"] == "play"
    # a mini royal on dealer-entered cards wins the whole meter: a supervisor verifies an award this large
    ctx.settings.table_progressive_verify_won = 100_000
    ledger_before = dict((c, a.balance) for c, a in ctx.uow.repos["ledger"].accounts.items())
    with pytest.raises(Forbidden):
        games.settlement.settle(PIT, "TCP-T", n, DealerInput(), key("settle-pit"))
    assert {c: a.balance for c, a in ctx.uow.repos["ledger"].accounts.items()} == ledger_before
    assert progressives.announced == []  # nothing committed, nothing shown
    done = games.settlement.settle(SUPERVISOR, "TCP-T", n, DealerInput(), OnceKey(SUPERVISOR.id, "s", "f")).result
    by_spot = {s["bet"]["spot"]: s for s in done.settlements}
    assert by_spot["ante"]["payout"] == 10_000 + 10_000 + 50_000  # the dealer does not qualify; ante bonus 5:1
    assert by_spot["play"]["result"] == "push" and by_spot["pair_plus"]["payout"] == 5_000 + 200_000
    award = done.progressive["awards"][0]
    assert award["hand"] == "mini_royal" and award["amount"] == 100_000 + 1_000  # the meter with this round's 20%
    assert done.progressive["meter_after"] == 100_000 and progressives.announced == [True]
    paid = done.payouts[str(ANN)] + award["amount"]
    assert cashable(ctx, ANN) == FUND - 30_000 + paid
    assert balance(ctx, accounts.table_bets("TCP-T")) == 0
    assert ctx.uow.repos["ledger"].sum_of_balances() == 0
    again = games.settlement.replay(PIT, "TCP-T", n)
    assert again.matches and again.deal_matches and again.progressive_matches


def test_a_replayed_bet_moves_nothing_and_a_reused_key_is_refused(floor):
    ctx, games, _ = floor
    games.tables.create(OPERATOR, NewTable(code="RL-T", game="roulette"))
    games.tables.sit(PIT, "RL-T", "1", ANN)
    n = games.rounds.open_round(PIT, "RL-T").round
    first = bet(games, "RL-T", n, ANN, "red", 20_000, k="same")
    entries = len(ctx.uow.repos["ledger"].entries)
    second = bet(games, "RL-T", n, ANN, "red", 20_000, k="same")
    assert second.replayed and not first.replayed
    assert second.result.model_dump(mode="json") == first.result.model_dump(mode="json")
    assert len(ctx.uow.repos["ledger"].entries) == entries and cashable(ctx, ANN) == FUND - 20_000
    assert len(games.rounds.get_round(PIT, "RL-T", n).bets) == 1
    with pytest.raises(IdempotencyKeyReused):
        games.rounds.place_bet(PIT, "RL-T", n, PlaceBet("black", 20_000, ANN), OnceKey(PIT.id, "same", "other"))


def test_a_bet_the_wallet_cannot_cover_leaves_nothing_behind(floor):
    ctx, games, _ = floor
    games.tables.create(OPERATOR, NewTable(code="SB-T", game="sic_bo"))
    games.tables.sit(PIT, "SB-T", "1", BEN)
    n = games.rounds.open_round(PIT, "SB-T").round
    with ctx.uow() as uow:  # Ben spends his wallet elsewhere
        games.rounds.wallet.transfer(uow, player_id=BEN, counter_account=HOUSE_CASH, amount=FUND - 1_000,
                                     direction="out", kind="test.spend")
        uow.commit()
    with pytest.raises(InsufficientFunds):
        bet(games, "SB-T", n, BEN, "big", 5_000)
    assert games.rounds.get_round(PIT, "SB-T", n).bets == [] and cashable(ctx, BEN) == 1_000
    assert ctx.uow.repos["idempotency"].records == {}  # the claim rolled back with the bet: the key may be retried
