"""Table games API: tables and seats (pit/operator), rounds, bets (a seated player with their own token,
or a dealer on their behalf), outcome + settlement (dealer input or CSPRNG), records, replay, the
baccarat shoe and roadmaps; blackjack and the poker games (three card poker, Caribbean stud, hold'em
bonus, pai gow poker) dealt and decided one decision at a time, the pai gow bank and hand-setting helpers.
Thin routes: the rules are in ``table_games.services`` (tables and seats, rounds, settlement) and the games'
engines (``table_games.domain.engines``).

Money-moving POSTs (bets, decisions, the bank, settle, colour chips) need an ``Idempotency-Key``: the route
names the request (``once_key``: the path and the body it fingerprints) and answers with the use case's result
(``reply_once``: ``Idempotent-Replayed: true`` on a replay).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from apiflask import APIBlueprint
from pydantic import Field

from slotsys.kernel.api.common import (
    AUTH_DOC,
    MAX_WON,
    QueryId,
    QueryModel,
    RecordId,
    StrictModel,
    Won,
    once_key,
    player_token_hook,
    principal,
    reply_once,
    services,
)
from table_games.domain.engines.base import DealerInput
from table_games.domain.engines.base import Decision as DecisionCmd
from table_games.services.container import TableGames
from table_games.services.rounds import PlaceBet, bettor
from table_games.services.tables import ColourBuyIn, ColourCashOut, NewTable
from slotsys.kernel.api.contract import Shape, answers
from table_games.services.results import (
    BackersView, BankTaken, BetPlaced, ColourBought, ColourCashed, DecisionMade, RoundDealt, RoundReplayed,
    RoundSettled, RoundView, ShoeShuffled, TableList, TableView,
)


bp = APIBlueprint("tables", __name__, url_prefix="/api/v1/tables", tag="Table games")

Code = Annotated[str, Field(min_length=1, max_length=20, pattern=r"^[A-Za-z0-9_-]+$")]
Seat = Annotated[str, Field(min_length=1, max_length=10, pattern=r"^[A-Za-z0-9_-]+$")]
Unit = Annotated[int, Field(strict=True, gt=0, le=MAX_WON)]
PLAYER_ENDPOINTS = {"tables.place_bet", "tables.decide", "tables.grant_backer", "tables.revoke_backer",
                    "tables.list_backers", "tables.take_bank", "tables.house_way", "tables.optimal_setting"}
GAME_NAMES = Literal["baccarat", "blackjack", "roulette", "sic_bo", "big_wheel", "three_card_poker", "caribbean_stud",
                     "holdem_bonus", "pai_gow_poker"]
ACTIONS = Literal["hit", "stand", "double", "split", "surrender", "insurance", "even_money", "no_insurance",
                  "play", "call", "fold", "bet", "check", "set", "house_way"]
Card = Annotated[str, Field(max_length=5)]
Hand = Annotated[list[Card], Field(max_length=20)]


def games() -> TableGames:
    return services().tables


def shown(result) -> dict:
    """A read or non-idempotent use case's result as the JSON answer."""
    return result.model_dump(mode="json")


bp.before_app_request(player_token_hook(PLAYER_ENDPOINTS))


class TableIn(StrictModel):
    code: Code
    game: GAME_NAMES
    name: Annotated[str, Field(max_length=60)] = ""
    rules: dict[str, Any] | None = None
    limits: dict[str, Any] | None = None
    chip_unit: Unit = 1_000
    commission_unit: Unit = 100
    status: Literal["open", "closed", "private"] = "open"
    progressive_level: Annotated[str, Field(min_length=2, max_length=40)] | None = None  # a jackpot "table" level


class StatusIn(StrictModel):
    status: Literal["open", "closed", "private"]


class SitIn(StrictModel):
    seat: Seat
    player_id: RecordId


class BetIn(StrictModel):
    spot: Annotated[str, Field(min_length=1, max_length=40)]
    amount: Won
    player_id: RecordId | None = None
    box: Seat | None = None
    accepted_over_max: bool | None = None  # pit only: a dealer's mistake, paid/taken up to the maximum


class BackerIn(StrictModel):
    player_id: RecordId


class Decision(StrictModel):
    """One decision: blackjack (hit … no_insurance); three card poker play / fold; Caribbean stud call / fold;
    hold'em bonus bet / check / fold; pai gow ``set`` (``high`` 5 cards, ``low`` 2; ``confirm_foul`` to accept
    a foul as an automatic loser) or ``house_way``. ``amount`` (optional) must equal the bet the decision places."""

    box: Seat
    action: ACTIONS
    amount: Won | None = None
    high: Hand | None = None
    low: Hand | None = None
    confirm_foul: bool | None = None


Cards = Annotated[list[Annotated[str, Field(max_length=3)]], Field(max_length=416)]
Hands = Annotated[dict[Seat, Hand], Field(max_length=10)]
Dice = Annotated[list[Annotated[int, Field(strict=True, ge=-(10**6), le=10**6)]], Field(max_length=3)]


class DealIn(StrictModel):
    """Empty: the CSPRNG deals. Input mode: blackjack ``cards`` in dealing order; the poker games ``hands``
    {box: cards as dealt} + ``dealer`` (+ hold'em ``board``; pai gow ``dice`` and the dealer's hand in ``hands``)."""

    cards: Cards | None = None  # input mode: the cards in dealing order (more may follow with decisions)
    hands: Hands | None = None
    dealer: Hand | None = None
    board: Hand | None = None
    dice: Dice | None = None


class DecisionIn(Decision):
    cards: Cards | None = None  # blackjack input mode: the card(s) this decision draws


class BankIn(StrictModel):
    seat: Seat


class BuyInIn(StrictModel):
    player_id: RecordId
    colour: Annotated[str, Field(min_length=1, max_length=20)]
    chip_value: Won
    amount: Won


class CashOutIn(StrictModel):
    player_id: RecordId
    chips: Annotated[int, Field(strict=True, ge=0, le=MAX_WON)] | None = None


class SettleIn(StrictModel):
    """Empty body: the CSPRNG decides. Otherwise the dealer's input: ``number`` (roulette), ``dice`` (sic bo),
    ``symbol`` or ``stop`` (big wheel), ``cards`` in dealing order (baccarat, blackjack), blackjack
    ``decisions`` in playing order; ``void`` (+ ``reason``) returns every bet."""

    number: Annotated[int, Field(strict=True, ge=-(10**6), le=10**6)] | None = None
    dice: Dice | None = None
    hands: Hands | None = None  # the poker games, an undealt round: the hands as dealt (see DealIn)
    dealer: Hand | None = None
    board: Hand | None = None
    symbol: Annotated[str, Field(max_length=20)] | None = None
    stop: Annotated[int, Field(strict=True, ge=-(10**6), le=10**6)] | None = None
    cards: Annotated[list[Annotated[str, Field(max_length=3)]], Field(max_length=416)] | None = None
    decisions: Annotated[list[Decision], Field(max_length=100)] | None = None
    void: bool | None = None
    reason: Annotated[str, Field(max_length=100)] | None = None


class HouseEdges(Shape):
    games: list[dict[str, Any]]


class HandHelp(Shape):
    table: str
    round: int


class Roadmaps(Shape):
    table: str
    shoe_no: int | None = Field(description="the shoe the scoreboard is of")


@bp.get("")
@bp.doc(summary="Every table with its seats (pit, operator, auditor, host)", **AUTH_DOC)
@answers(TableList)
def list_tables():
    return shown(games().tables.list(principal()))


@bp.post("")
@bp.input(TableIn, arg_name="body")
@bp.doc(summary="Create a table: game, rules variant, limits per spot, chip and commission units (operator)", **AUTH_DOC)
@answers(TableView, status=201)
def create_table(body: TableIn):
    return shown(games().tables.create(principal(), NewTable(**body.model_dump()))), 201


@bp.get("/house-edges")
@bp.doc(summary="Every table game's house edge: exact or simulated with its 95% CI, the published figure beside it", **AUTH_DOC)
@answers(HouseEdges)
def house_edges():
    return games().tables.house_edges(principal())


@bp.get("/<code>")
@bp.doc(summary="A table: rules, limits, seats, shoe, stakes in play", **AUTH_DOC)
@answers(TableView)
def get_table(code: str):
    return shown(games().tables.get(principal(), code))


@bp.patch("/<code>")
@bp.input(StatusIn, arg_name="body")
@bp.doc(summary="Open, close or make private a table (operator)", **AUTH_DOC)
@answers(TableView)
def update_table(code: str, body: StatusIn):
    return shown(games().tables.update(principal(), code, body.status))


@bp.post("/<code>/seats")
@bp.input(SitIn, arg_name="body")
@bp.doc(summary="Seat a player (with their wallet) at the table (pit)", **AUTH_DOC)
@answers(TableView, status=201)
def sit(code: str, body: SitIn):
    return shown(games().tables.sit(principal(), code, body.seat, body.player_id)), 201


@bp.delete("/<code>/seats/<seat>")
@bp.doc(summary="A player leaves the seat (pit)", **AUTH_DOC)
@answers(TableView)
def leave(code: str, seat: str):
    return shown(games().tables.leave(principal(), code, seat))


@bp.get("/<code>/seats/<seat>/backers")
@bp.doc(summary="Who may back the box at this seat (the seated player's token, or pit/operator/auditor/host)", **AUTH_DOC)
@answers(BackersView)
def list_backers(code: str, seat: str):
    return shown(games().tables.backers(principal(), code, seat))


@bp.post("/<code>/seats/<seat>/backers")
@bp.input(BackerIn, arg_name="body")
@bp.doc(summary="Let a player back the box at this seat (the seated player's token, or pit)", **AUTH_DOC)
@answers(BackersView, status=201)
def grant_backer(code: str, seat: str, body: BackerIn):
    return shown(games().tables.grant_backer(principal(), code, seat, body.player_id)), 201


@bp.delete("/<code>/seats/<seat>/backers/<int:player_id>")
@bp.doc(summary="Revoke a backer's permission (the seated player's token, or pit)", **AUTH_DOC)
@answers(BackersView)
def revoke_backer(code: str, seat: str, player_id: int):
    return shown(games().tables.revoke_backer(principal(), code, seat, player_id))


@bp.post("/<code>/shoe")
@bp.doc(summary="Baccarat: a new shuffled shoe (CSPRNG), opening burn, new roadmaps (pit)", **AUTH_DOC)
@answers(ShoeShuffled, status=201)
def new_shoe(code: str):
    return shown(games().rounds.new_shoe(principal(), code)), 201


class RoadmapsQuery(QueryModel):
    shoe_no: QueryId | None = None


@bp.get("/<code>/roadmaps")
@bp.input(RoadmapsQuery, location="query", arg_name="query")
@bp.doc(summary="Baccarat scoreboard of the current shoe (?shoe_no=1… for an earlier one)", **AUTH_DOC)
@answers(Roadmaps)
def get_roadmaps(code: str, query: RoadmapsQuery):
    return games().settlement.roadmaps(principal(), code, query.shoe_no)


@bp.post("/<code>/rounds")
@bp.doc(summary="Open betting on a new round (pit)", **AUTH_DOC)
@answers(RoundView, status=201)
def open_round(code: str):
    return shown(games().rounds.open_round(principal(), code)), 201


@bp.get("/<code>/rounds/<int:number>")
@bp.doc(summary="A round's record: bets, outcome, settlements", **AUTH_DOC)
@answers(RoundView)
def get_round(code: str, number: int):
    return shown(games().rounds.get_round(principal(), code, number))


@bp.post("/<code>/rounds/<int:number>/bets")
@bp.input(BetIn, arg_name="body")
@bp.doc(summary="Place a bet (seated player's token, or pit for player_id); debits the wallet; needs Idempotency-Key",
        **AUTH_DOC)
@answers(BetPlaced, status=201, once=True)
def place_bet(code: str, number: int, body: BetIn):
    data = body.model_dump()
    if data.get("accepted_over_max") is None:
        data.pop("accepted_over_max", None)
    who = principal()
    key = once_key(f"tables/{code}/rounds/{number}/bets", {**data, "player_id": bettor(who, body.player_id)}, status=201)
    cmd = PlaceBet(spot=body.spot, amount=body.amount, player_id=body.player_id, box=body.box,
                   accepted_over_max=bool(body.accepted_over_max))
    return reply_once(games().rounds.place_bet(who, code, number, cmd, key), status=201)


@bp.post("/<code>/rounds/<int:number>/no-more-bets")
@bp.doc(summary="No more bets (pit)", **AUTH_DOC)
@answers(RoundView)
def no_more_bets(code: str, number: int):
    return shown(games().rounds.no_more_bets(principal(), code, number))


@bp.post("/<code>/rounds/<int:number>/settle")
@bp.input(SettleIn, arg_name="body")
@bp.doc(summary="Outcome (dealer input or CSPRNG) and settlement in one transaction (pit); needs Idempotency-Key",
        **AUTH_DOC)
@answers(RoundSettled, once=True)
def settle(code: str, number: int, body: SettleIn):
    data = body.model_dump(exclude_none=True)
    if "decisions" in data:
        data["decisions"] = [{k: v for k, v in d.items() if v is not None} for d in data["decisions"]]
    key = once_key(f"tables/{code}/rounds/{number}/settle", data)
    return reply_once(games().settlement.settle(principal(), code, number, DealerInput.from_dict(data), key))


@bp.post("/<code>/rounds/<int:number>/deal")
@bp.input(DealIn, arg_name="body")
@bp.doc(summary="Blackjack and the poker games: the initial deal after no more bets (dealer's cards, or the CSPRNG) "
                "(pit)", **AUTH_DOC)
@answers(RoundDealt, status=201)
def deal(code: str, number: int, body: DealIn):
    inp = DealerInput.from_dict(body.model_dump(exclude_none=True))
    return shown(games().rounds.deal(principal(), code, number, inp)), 201


@bp.post("/<code>/rounds/<int:number>/decisions")
@bp.input(DecisionIn, arg_name="body")
@bp.doc(summary="One decision, in turn, by the box's player (token) or the dealer: blackjack; play / call / bet "
                "(debited now) / check / fold; pai gow set / house_way; needs Idempotency-Key", **AUTH_DOC)
@answers(DecisionMade, once=True)
def decide(code: str, number: int, body: DecisionIn):
    data = body.model_dump(exclude_none=True)
    key = once_key(f"tables/{code}/rounds/{number}/decisions", data)
    decision = DecisionCmd(box=body.box, action=body.action, amount=body.amount, high=body.high, low=body.low,
                           confirm_foul=body.confirm_foul)
    return reply_once(games().rounds.decide(principal(), code, number, decision, body.cards, key))


@bp.post("/<code>/rounds/<int:number>/bank")
@bp.input(BankIn, arg_name="body")
@bp.doc(summary="Pai gow: a seated player banks this hand (once every 7 hands, covering the action; the cover is "
                "debited now) (pit or the player's token); needs Idempotency-Key", **AUTH_DOC)
@answers(BankTaken, status=201, once=True)
def take_bank(code: str, number: int, body: BankIn):
    key = once_key(f"tables/{code}/rounds/{number}/bank", {"seat": body.seat}, status=201)
    return reply_once(games().rounds.take_bank(principal(), code, number, body.seat, key), status=201)


class SamplesIn(StrictModel):
    samples: Annotated[int, Field(ge=100, le=5_000, description="dealer hands sampled")] = 1_000


@bp.get("/<code>/rounds/<int:number>/boxes/<box>/house-way")
@bp.doc(summary="Pai gow \"house way for me\": how the table's house way sets this hand", **AUTH_DOC)
@answers(HandHelp)
def house_way(code: str, number: int, box: str):
    return games().rounds.hand_help(principal(), code, number, box, "house_way")


@bp.get("/<code>/rounds/<int:number>/boxes/<box>/optimal-setting")
@bp.doc(summary="Pai gow: the settings of this hand valued against the dealer's house way, best first "
                "(?samples=100..5000 dealer hands, default 1000; about 1 s per 1000)", **AUTH_DOC)
@bp.input(SamplesIn, location="query", arg_name="query")
@answers(HandHelp)
def optimal_setting(code: str, number: int, box: str, query: SamplesIn):
    return games().rounds.hand_help(principal(), code, number, box, "optimal", query.samples)


@bp.post("/<code>/colour/buy-in")
@bp.input(BuyInIn, arg_name="body")
@bp.doc(summary="Roulette: a seated player buys colour chips from the wallet (pit); needs Idempotency-Key", **AUTH_DOC)
@answers(ColourBought, once=True)
def colour_buy_in(code: str, body: BuyInIn):
    key = once_key(f"tables/{code}/colour/buy-in", body.model_dump())
    return reply_once(games().tables.colour_buy_in(principal(), code, ColourBuyIn(**body.model_dump()), key))


@bp.post("/<code>/colour/cash-out")
@bp.input(CashOutIn, arg_name="body")
@bp.doc(summary="Roulette: colour chips back to the wallet (all unless `chips`) (pit); needs Idempotency-Key", **AUTH_DOC)
@answers(ColourCashed, once=True)
def colour_cash_out(code: str, body: CashOutIn):
    key = once_key(f"tables/{code}/colour/cash-out", body.model_dump(exclude_none=True))
    cmd = ColourCashOut(player_id=body.player_id, chips=body.chips)
    return reply_once(games().tables.colour_cash_out(principal(), code, cmd, key))


@bp.get("/<code>/rounds/<int:number>/replay")
@bp.doc(summary="Recompute the settlement from the stored outcome; `matches` compares with the record", **AUTH_DOC)
@answers(RoundReplayed)
def replay(code: str, number: int):
    return shown(games().settlement.replay(principal(), code, number))
