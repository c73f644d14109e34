"""The results of the table-games use cases: pydantic models whose JSON (``model_dump(mode="json")``) is exactly
the answer the API sends.

Every model shows the fields it was given and only those (a key a use case leaves out is absent, not null), so a
result stored by ``run_once`` and read back for an idempotent replay renders exactly as the first time.
Game-specific shapes (what a dealt round shows, a round's outcome) stay plain dicts; the answers that merge a
game's view into their top level (the deal, a decision) carry those keys as extra fields. Extra fields are kept
on every model, so a stored result is rendered back whole even if a later model names fewer fields.

Money is integer won; ids are integers; times are ISO 8601 text.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, model_serializer


class Result(BaseModel):
    """A use case's answer: only the fields given are shown (see the module doc)."""

    model_config = ConfigDict(extra="allow")

    @model_serializer(mode="wrap")
    def _given_only(self, handler: Any) -> dict[str, Any]:
        shown = self.model_fields_set
        return {k: v for k, v in handler(self).items() if k in shown}


# ------------------------------------------------------------------------------------------ house-banked tables
class TableView(Result):
    """A table: rules and limits (their stored form), units (won), status, rounds opened, baccarat shoe, seats;
    the stakes in play (``bets_in_play``, won), its progressive level and meter (``value`` won), roulette colour
    stacks."""

    code: str
    game: str
    name: str
    rules: dict[str, Any]
    limits: dict[str, Any]
    chip_unit: int
    commission_unit: int
    status: str
    rounds: int
    shoe_no: int
    seats: list[dict[str, Any]]
    shoe: dict[str, Any] | None = None
    progressive_level: str | None = None
    bets_in_play: int | None = None
    progressive: dict[str, Any] | None = None
    colour_stacks: list[dict[str, Any]] | None = None


class TableList(Result):
    tables: list[TableView]


class BackersView(Result):
    """Who may back the box at a seat (granted by its seated player)."""

    table: str
    seat: str
    player_id: int
    backers: list[dict[str, Any]]


class RoundView(Result):
    """A round's record: bets (with the journal entry that debited each), outcome, settlements, the house's net
    (won); ``play`` (how a dealt round stands) or ``bank`` (pai gow: who banks) while it is played."""

    table: str
    game: str
    round: int
    status: str
    mode: str | None
    shoe_no: int
    outcome: dict[str, Any] | None
    bets: list[dict[str, Any]]
    settlements: list[dict[str, Any]] | None
    house_net: int | None
    opened_at: str | None
    settled_at: str | None
    play: dict[str, Any] | None = None
    bank: dict[str, Any] | None = None


class RoundSettled(RoundView):
    """A settled round: the payout to each player (won, by player id), paid in roulette colour chips where the
    bet was, the journal entries posted, and the progressive's contributions and awards."""

    payouts: dict[str, int]
    entries: list[int]
    payouts_in_chips: dict[str, int] | None = None
    progressive: dict[str, Any] | None = None


class BetPlaced(Result):
    """The bet as accepted (canonical spot, ``cap`` when over the maximum, the debit's journal entry) and the
    player's wallet after it; a colour-chip bet shows the stack left."""

    table: str
    round: int
    bet: dict[str, Any]
    wallet: dict[str, int]
    colour_stack: dict[str, Any] | None = None


class RoundDealt(Result):
    """The first deal: what the table shows (the game's view: ``game``, boxes, who acts …, as extra fields)."""

    table: str
    round: int


class DecisionMade(Result):
    """One decision: as recorded, the bets it placed (debited now) and the game's view after it (extra fields)."""

    table: str
    round: int
    decision: dict[str, Any]
    debited: list[dict[str, Any]]


class BankTaken(Result):
    """Pai gow: the seated player who banks the round, the cover debited (won) and the house's bet against them."""

    table: str
    round: int
    banker: str
    player_id: int
    cover: int
    house_bet: int
    entry: int
    wallet: dict[str, int]


class ColourBought(Result):
    table: str
    player_id: int
    colour: str
    chip_value: int
    chips: int
    entry: int
    wallet: dict[str, int]


class ColourCashed(Result):
    table: str
    player_id: int
    colour: str
    chips_cashed: int
    amount: int
    chips_left: int
    entry: int | None
    wallet: dict[str, int]


class ShoeShuffled(Result):
    table: str
    shoe_no: int
    burned: list[str]
    cards_left: int


class RoundReplayed(Result):
    """The settlement recomputed from the stored outcome, bets and rules (``matches`` the record); a dealt poker
    round played again (``deal_matches``) and its progressive claims recomputed (``progressive_matches``)."""

    table: str
    round: int
    settlements: list[dict[str, Any]]
    matches: bool
    house_net: int
    deal_matches: bool | None = None
    progressive: dict[str, Any] | None = None
    progressive_matches: bool | None = None


# ------------------------------------------------------------------------------------------ the poker room
class PokerTableView(Result):
    """A poker table: rules, button, seats with their stacks (won), the hand in play, the rake taken (won)."""

    code: str
    name: str
    rules: dict[str, Any]
    status: str
    button_seat: int | None
    hands: int
    hand_in_play: int | None
    seats: list[dict[str, Any]]
    rake_total: int


class PokerTableList(Result):
    tables: list[PokerTableView]


class PokerHandView(Result):
    """A hand as the table sees it (hole cards: the viewer's own); once complete its results, the shown hands,
    rake, finishing stacks, entry and, for staff, the PHH."""

    table: str
    hand: int
    status: str
    variant: str
    button_seat: int
    players: list[dict[str, Any]]
    board: list[Any]
    pot: int
    seq: int
    actions: list[str]
    to_act: dict[str, Any] | None
    results: dict[str, Any] | None = None
    showdown: list[dict[str, Any]] | None = None
    rake: int | None = None
    finishing_stacks: list[int] | None = None
    entry: int | None = None
    phh: str | None = None


class PokerHandList(Result):
    table: str
    hands: list[dict[str, Any]]


class PokerBuyIn(Result):
    table: str
    player_id: int
    amount: int
    stack: int
    entry: int
    wallet: dict[str, int]


class PokerCashOut(Result):
    table: str
    player_id: int
    amount: int
    entry: int | None
    left: bool
    wallet: dict[str, int]


# ------------------------------------------------------------------------------------------ mahjong
class MahjongTableView(Result):
    """A mahjong table: every rule option in force, the next dealer, won per point, the house fee, the buy-in
    range (won), hands recorded, riichi sticks carried, seats with their stacks (won)."""

    code: str
    name: str
    rules: dict[str, Any]
    dealer: str
    point_value: int
    fee_ppm: int
    fee_unit: int
    min_buy_in: int
    max_buy_in: int
    status: str
    hands: int
    riichi_pot: int
    seats: list[dict[str, Any]]


class MahjongTableList(Result):
    tables: list[MahjongTableView]


class MahjongStackMoved(MahjongTableView):
    """A buy-in or top-up: the table after it, the journal entry and the player's wallet."""

    entry: int
    wallet: dict[str, int]


class MahjongLeft(MahjongTableView):
    """The player left: their stack cashed out to the wallet (won; no entry when it was empty)."""

    player_id: int
    cashed_out: int
    entry: int | None
    wallet: dict[str, int]


class MahjongHandView(Result):
    """A recorded hand: the declaration, result, settlement per seat (points and won), fee, entry."""

    table: str
    number: int
    kind: str
    rule_set: str
    dealer: str
    winner: str | None
    discarder: str | None
    declaration: dict[str, Any] | None
    result: dict[str, Any] | None
    settlement: dict[str, Any] | None
    fee: int
    entry: int | None
    recorded_by: str
    created_at: str | None


class MahjongHandList(Result):
    table: str
    hands: list[MahjongHandView]


class MahjongHandRecorded(MahjongHandView):
    """A scored or drawn hand and the table after it."""

    table_state: MahjongTableView
