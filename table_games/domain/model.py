"""The table games' records as the services see them: frozen dataclasses the repositories return and store.

A service never changes a row: it builds the changed record (``dataclasses.replace``) and hands it back to its
repository (``uow.tables.save_round(r)``). JSON-shaped fields (rules, limits, the baccarat shoe, a round's state,
outcome and settlements, a poker hand's seats and actions, a mahjong hand's result …) are plain dicts and lists
owned by the record: a repository copies them in and out, so a record never aliases a row.

Money is integer won throughout; ``player_id`` is the players feature's id (an integer); ``seat`` / ``box`` are
the table's own seat names (text at the house-banked tables, 1..10 at a poker table, E/S/W/N at mahjong).

* house-banked tables: :class:`Table`, :class:`Seat`, :class:`Backer`, :class:`Round`, :class:`PlacedBet`,
  :class:`ColourStack` (roulette colour chips);
* the poker room: :class:`PokerTable`, :class:`PokerSeat`, :class:`PokerHand`;
* mahjong: :class:`MahjongTable`, :class:`MahjongSeat`, :class:`MahjongHand`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from table_games.domain.settlement import Bet

TABLE_STATUSES = ("open", "closed", "private")
IN_PLAY = ("betting", "no_more_bets")  # round statuses before settlement
FINISHED = ("settled", "void")


# ------------------------------------------------------------------------------------------ house-banked tables
@dataclass(frozen=True)
class Table:
    """A house-banked table: its game (a :data:`table_games.domain.games.GAMES` name), the rules variant and
    limits (their ``to_dict`` form), the chip and commission units (won), ``status`` (open | closed | private),
    ``round_seq`` (rounds opened), the baccarat shoe (``shoe_no`` and ``shoe`` = {"cards", "pos", "cut_index",
    "burned", "cut_card_out"}) and the jackpot controller's ``table`` level its progressive side bet feeds."""

    id: int
    code: str
    game: str
    name: str
    rules: dict[str, Any]
    limits: dict[str, Any]
    chip_unit: int
    commission_unit: int
    status: str = "open"
    round_seq: int = 0
    shoe_no: int = 0
    shoe: dict[str, Any] | None = None
    progressive_level: str | None = None


@dataclass(frozen=True)
class Seat:
    seat: str
    player_id: int


@dataclass(frozen=True)
class Backer:
    """A seated player's permission for ``player_id`` to back the box at ``seat``; live only while
    ``granted_by_player`` still sits there."""

    id: int
    seat: str
    player_id: int
    granted_by_player: int
    granted_by: str
    granted_at: datetime | None = None


@dataclass(frozen=True)
class Round:
    """One round of a table: ``status`` betting → no_more_bets → settled | void; ``mode`` rng | input;
    ``state`` while in play (dealt cards, decisions; the pai gow bank); the recorded ``outcome``,
    ``settlements`` (:meth:`Settlement.to_dict` each) and the house's net (won)."""

    id: int
    table_id: int
    number: int
    status: str = "betting"
    mode: str | None = None
    shoe_no: int = 0
    state: dict[str, Any] | None = None
    outcome: dict[str, Any] | None = None
    settlements: list[dict[str, Any]] | None = None
    house_net: int | None = None
    opened_at: datetime | None = None
    settled_at: datetime | None = None

    @property
    def dealt(self) -> bool:
        """Dealt and being decided (blackjack and the poker games): the state holds the decisions so far."""
        return self.state is not None and "decisions" in self.state


@dataclass(frozen=True)
class PlacedBet:
    """A bet as recorded: the journal entry that debited it, the principal who placed it and, at roulette,
    the colour of the chips it was placed in."""

    id: int
    round_id: int
    player_id: int
    spot: str
    amount: int
    box: str | None = None
    cap: int | None = None
    entry_id: int | None = None
    colour: str | None = None
    placed_by: str = ""

    def bet(self) -> Bet:
        """The engines' view of it (``player`` and ``id`` as text)."""
        return Bet(spot=self.spot, amount=self.amount, player=str(self.player_id), box=self.box, cap=self.cap,
                   id=str(self.id))


@dataclass(frozen=True)
class ColourStack:
    """Roulette colour chips a seated player holds (their value sits in ``table:<code>:chips``)."""

    table_id: int
    player_id: int
    colour: str
    chip_value: int
    chips: int = 0

    @property
    def value(self) -> int:
        return self.chips * self.chip_value


# ------------------------------------------------------------------------------------------ the poker room
@dataclass(frozen=True)
class PokerTable:
    """A poker-room table: rules (``RoomConfig.to_dict``), status (open | closed), the button, hands dealt."""

    id: int
    code: str
    name: str
    rules: dict[str, Any]
    status: str = "open"
    button_seat: int | None = None
    hand_seq: int = 0


@dataclass(frozen=True)
class PokerSeat:
    seat: int
    player_id: int


@dataclass(frozen=True)
class PokerHand:
    """A hand: the inputs pokerkit replays (rules, seats and starting stacks in pokerkit order, the deck, the PHH
    actions) and, once complete, the PHH text, finishing stacks, rake (won), results and the journal entry."""

    id: int
    table_id: int
    number: int
    rules: dict[str, Any]
    button_seat: int
    seats: list[dict[str, Any]]
    starting_stacks: list[int]
    deck: list[str]
    actions: list[str]
    status: str = "in_play"
    phh: str | None = None
    finishing_stacks: list[int] | None = None
    rake: int = 0
    results: dict[str, Any] | None = None
    entry_id: int | None = None
    started_at: datetime | None = None
    ended_at: datetime | None = None


# ------------------------------------------------------------------------------------------ mahjong
@dataclass(frozen=True)
class MahjongTable:
    """A mahjong table: rules, won per point, the house fee (ppm of the winner's take, rounded up to
    ``fee_unit`` won), the buy-in range (won), hands recorded and the riichi sticks carried."""

    id: int
    code: str
    name: str
    rules: dict[str, Any]
    point_value: int
    fee_ppm: int
    fee_unit: int
    min_buy_in: int
    max_buy_in: int
    status: str = "open"
    hand_seq: int = 0
    riichi_pot: int = 0


@dataclass(frozen=True)
class MahjongSeat:
    seat: str
    player_id: int


@dataclass(frozen=True)
class MahjongHand:
    """A scored (``win``) or drawn (``draw``) hand with its declaration, result and settlement per seat."""

    id: int
    table_id: int
    number: int
    kind: str
    rule_set: str
    dealer: str
    recorded_by: str
    winner: str | None = None
    discarder: str | None = None
    declaration: dict[str, Any] | None = None
    result: dict[str, Any] | None = None
    settlement: dict[str, Any] | None = None
    fee: int = 0
    entry_id: int | None = None
    created_at: datetime | None = None
