"""The one interface every house-banked table game implements, and what passes through it.

The table framework (``table_games.services``) stores a table's rules, limits, bets and each round's state and
outcome as JSON and moves the money; everything a game decides is behind :class:`GameEngine`, one class per game
(``table_games.domain.engines.GAMES[name]``), so the framework never asks which game it runs:

* **rules from config** -- :meth:`~GameEngine.rules_from_dict` reads a table's stored variant,
  :meth:`~GameEngine.table_rules` builds a new table's (the game's default, the table's commission unit where the
  game charges one), :meth:`~GameEngine.default_limits`;
* **seats and bets** -- :meth:`~GameEngine.check_seat`, :meth:`~GameEngine.seats_per_player`,
  :meth:`~GameEngine.check_bet` (raising ``TableRuleError(field, …)`` / ``BettingClosed``);
* **deal** and **decide** (blackjack and the poker games, ``dealt = True``): the first deal after no more bets
  from the CSPRNG or the dealer's input, then one decision at a time; the round's state (cards as dealt, decisions
  so far) is stored and the round is rebuilt from it each time, so live play, the dealer's input and a replay run
  the same code;
* **outcome** -- :meth:`~GameEngine.resolve`: the round's outcome from the dealer-entered :class:`DealerInput` or
  the CSPRNG, with the bets its last decisions place and what the round and the table record;
* **settle** -- :meth:`~GameEngine.settle` (one :class:`~table_games.domain.settlement.Settlement` per bet) and
  :meth:`~GameEngine.progressive_awards` (the progressive side bet's claims, paid by the jackpot controller);
* **replay** -- :meth:`~GameEngine.outcome_from_dict` reads a recorded outcome back and
  :meth:`~GameEngine.replay_checks` plays a dealt round again from its recorded cards and decisions.

A game with more than this says so by a capability mixin the framework looks for: :class:`ShoeGame` (a shoe kept
across rounds, roadmaps: baccarat), :class:`ColourChipGame` (roulette colour chips), :class:`BankingGame` (a
seated player banks the round: pai gow poker).

Money is integer won; a bet's ``player`` is the player's id as text and ``box`` the seat it plays.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from slotsys.kernel.ports import Rng
from table_games.domain.limits import TableLimits
from table_games.domain.poker_table import ProgressiveAward
from table_games.domain.settlement import Bet, Settlement, Void


#: the dealer-input fields that make a settlement an input-mode one (the engines' common settle body)
SETTLE_INPUT = ("number", "dice", "symbol", "stop", "cards")
#: the dealer-input fields of a poker game's deal (the hands as dealt)
DEAL_INPUT = ("hands", "dealer", "board", "dice", "cards")


# ------------------------------------------------------------------------------------------- what passes
@dataclass(frozen=True)
class Decision:
    """One decision on a dealt round: ``box`` acts with ``action`` (blackjack hit … no_insurance; play / call /
    bet / check / fold; pai gow ``set`` with the five-card ``high`` and two-card ``low`` hands, ``confirm_foul``
    to accept a foul, or ``house_way``). ``amount`` (won, optional) must equal the bet the decision places."""

    box: str
    action: str
    amount: int | None = None
    high: list[str] | None = None
    low: list[str] | None = None
    confirm_foul: bool | None = None

    def to_dict(self) -> dict[str, Any]:
        """The decision as recorded in a round's state (the fields given, in this order)."""
        out: dict[str, Any] = {"box": self.box, "action": self.action}
        for k in ("amount", "high", "low", "confirm_foul"):
            v = getattr(self, k)
            if v is not None:
                out[k] = v
        return out

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Decision:
        return cls(box=d["box"], action=d["action"], amount=d.get("amount"), high=d.get("high"), low=d.get("low"),
                   confirm_foul=d.get("confirm_foul"))


@dataclass(frozen=True)
class DealerInput:
    """What the dealer entered for a deal or a settlement; every field optional (none: the CSPRNG decides).

    ``number`` (roulette pocket), ``dice`` (sic bo: three; pai gow: the banker's three), ``symbol`` or ``stop``
    (big wheel), ``cards`` in dealing order (baccarat, blackjack), ``hands`` {box: cards as dealt} + ``dealer``
    (+ ``board``) for the poker games, ``decisions`` (in playing order, settled with the round), ``void`` with a
    ``reason`` (a misdeal / no game: every bet is returned)."""

    number: int | None = None
    dice: list[int] | None = None
    symbol: str | None = None
    stop: int | None = None
    cards: list[str] | None = None
    hands: dict[str, list[str]] | None = None
    dealer: list[str] | None = None
    board: list[str] | None = None
    decisions: tuple[Decision, ...] = ()
    void: bool = False
    reason: str | None = None

    def has(self, *names: str) -> bool:
        """Whether any of the fields ``names`` was entered."""
        return any(getattr(self, n) is not None for n in names)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> DealerInput:
        return cls(number=d.get("number"), dice=d.get("dice"), symbol=d.get("symbol"), stop=d.get("stop"),
                   cards=d.get("cards"), hands=d.get("hands"), dealer=d.get("dealer"), board=d.get("board"),
                   decisions=tuple(Decision.from_dict(x) for x in d.get("decisions") or ()),
                   void=bool(d.get("void")), reason=d.get("reason"))


@dataclass(frozen=True)
class BetContext:
    """What a bet is checked against besides the limits: whether betting is open, the players already in the
    round (``participants``, for shared limits), the seated players by box (``seats``, games whose bets name a
    box), the live backing permissions (box, backer), a dealer's acceptance of a bet over the maximum, and a
    roulette player's colour-chip value (bets are then whole chips of it)."""

    betting_open: bool = True
    participants: frozenset[str] = frozenset()
    seats: Mapping[str, str] | None = None
    permissions: frozenset[tuple[str, str]] = frozenset()
    accept_over_max: bool = False
    chip_value: int | None = None

    def limits(self) -> dict[str, Any]:
        """Keyword arguments of :func:`table_games.domain.limits.check_bet`."""
        return {"betting_open": self.betting_open, "participants": self.participants, "seats": self.seats,
                "permissions": self.permissions, "accept_over_max": self.accept_over_max}


@dataclass(frozen=True)
class RoundPlay:
    """A round as an engine sees it: the table's rules, the round's bets so far, its stored ``state`` (None
    before a deal), the seated players by seat, the table's chip unit (won) and, for a game that keeps a shoe,
    the table's shoe (its state and number)."""

    rules: Any
    bets: tuple[Bet, ...]
    state: Mapping[str, Any] | None = None
    seats: Mapping[str, str] = field(default_factory=dict)
    chip_unit: int = 1_000
    shoe: Mapping[str, Any] | None = None
    shoe_no: int = 0


@dataclass(frozen=True)
class Dealt:
    """A fresh deal: the round's new ``state`` and what the table shows (``view``, merged into the answer)."""

    state: dict[str, Any]
    view: dict[str, Any]


@dataclass(frozen=True)
class Decided:
    """A decision applied: the round's new ``state``, the bets it places (debited now), the decision as
    recorded and what the table shows now."""

    state: dict[str, Any]
    placed: tuple[Bet, ...]
    record: dict[str, Any]
    view: dict[str, Any]


@dataclass(frozen=True)
class Resolution:
    """A round's outcome and what it changes: ``mode`` (rng | input), the bets its last decisions place
    (debited with the settlement), the outcome as recorded (``record``; default ``outcome.to_dict()``), the round's
    new ``state`` (None: unchanged) and, for a game that keeps a shoe, the table's new shoe (``shoe``; None:
    unchanged) and shoe number."""

    outcome: Any
    mode: str
    placed: tuple[Bet, ...] = ()
    record: dict[str, Any] | None = None
    state: dict[str, Any] | None = None
    shoe: dict[str, Any] | None = None
    shoe_no: int | None = None

    @property
    def void(self) -> bool:
        return isinstance(self.outcome, Void)

    def recorded(self) -> dict[str, Any]:
        return self.record if self.record is not None else self.outcome.to_dict()


# ------------------------------------------------------------------------------------------- the interface
class GameEngine(ABC):
    """A house-banked table game (see the module doc). Subclasses set ``name`` and ``default_rules``.

    ``dealt``: dealt after no more bets, then decided one decision at a time. ``boxed``: bets name the box they
    play (checked against the seated players). ``owner_only_boxes``: a box's bets are the seated player's own (no
    backers). ``progressive_spot``: a bet on the ``progressive`` spot is checked against the table's progressive
    level first."""

    name: ClassVar[str]
    default_rules: ClassVar[Any]
    dealt: ClassVar[bool] = False
    boxed: ClassVar[bool] = False
    owner_only_boxes: ClassVar[bool] = False
    progressive_spot: ClassVar[bool] = False

    @property
    def title(self) -> str:
        """The game's name in messages (``three card poker``)."""
        return self.name.replace("_", " ")

    # -------------------------------------------------------------- rules from config
    @abstractmethod
    def rules_from_dict(self, d: Mapping[str, Any]) -> Any:
        """The rules variant from its stored form (``TypeError`` / ``ValueError`` / ``KeyError`` if malformed)."""

    def table_rules(self, given: Mapping[str, Any] | None, *, commission_unit: int) -> Any:
        """A new table's rules: ``given`` (its stored form) or the game's default. Games that charge a commission
        round it up to the table's ``commission_unit`` (won) and override this."""
        return self.rules_from_dict(given) if given else self.default_rules

    @abstractmethod
    def default_limits(self, rules: Any = None, *, chip_unit: int = 1_000) -> TableLimits:
        """The game's default limits per spot for ``rules`` (default: the game's default rules)."""

    @property
    def offers_progressive(self) -> bool:
        """The game has a progressive side bet (a table may name a jackpot ``table`` level for it)."""
        return False

    # -------------------------------------------------------------- seats and bets
    def check_seat(self, rules: Any, seat: str) -> None:
        """Refuse a seat the game does not have (``ValidationFailed`` field ``seat``); any seat by default."""

    def seats_per_player(self, rules: Any) -> int:
        """How many seats one player may hold at the table (a box per seat)."""
        return 1

    @abstractmethod
    def check_bet(self, bet: Bet, limits: TableLimits, existing: Sequence[Bet], rules: Any, ctx: BetContext) -> Bet:
        """The accepted bet (canonical spot, ``cap`` when a dealer accepted it over the maximum); raises
        ``TableRuleError`` (field ``spot`` / ``amount`` / ``box``) or ``BettingClosed``."""

    # -------------------------------------------------------------- deal and decide (dealt games)
    def deal(self, play: RoundPlay, inp: DealerInput, rng: Rng) -> Dealt:
        """The first deal after no more bets (dealer's input, else the CSPRNG). Dealt games only."""
        raise NotImplementedError(f"{self.name} is not dealt")

    def decide(self, play: RoundPlay, decision: Decision, cards: Sequence[str] | None = None) -> Decided:
        """One decision in turn on a dealt round; ``cards``: the card(s) it draws, entered by the dealer."""
        raise NotImplementedError(f"{self.name} is not decided")

    def round_view(self, play: RoundPlay, status: str) -> dict[str, Any]:
        """Keys a round's record shows besides its bets and outcome (how a dealt round stands)."""
        return {}

    # -------------------------------------------------------------- outcome, settlement, replay
    def resolve(self, play: RoundPlay, inp: DealerInput, rng: Rng) -> Resolution:
        """The round's outcome: ``void`` returns every bet, otherwise :meth:`outcome`."""
        if inp.void:
            return self.voided(play, Void(str(inp.reason or "no game")))
        return self.outcome(play, inp, rng)

    def voided(self, play: RoundPlay, void: Void) -> Resolution:
        return Resolution(void, "input")

    @abstractmethod
    def outcome(self, play: RoundPlay, inp: DealerInput, rng: Rng) -> Resolution:
        """The outcome from the dealer's input (when given) or the CSPRNG, through the same engine calls."""

    @abstractmethod
    def settle(self, bets: Sequence[Bet], outcome: Any, rules: Any) -> list[Settlement]:
        """One settlement per bet (a :class:`Void` outcome returns every bet)."""

    def outcome_from_dict(self, d: Mapping[str, Any]) -> Any:
        """A recorded outcome read back (a void round's included)."""
        if d.get("void"):
            return Void(d.get("reason", "no game"))
        return self._outcome_from_dict(d)

    @abstractmethod
    def _outcome_from_dict(self, d: Mapping[str, Any]) -> Any: ...

    def progressive_awards(self, bets: Sequence[Bet], outcome: Any, rules: Any) -> list[ProgressiveAward]:
        """The progressive claims of the round's hands, best paytable line first (none by default)."""
        return []

    def replay_checks(self, rules: Any, bets: Sequence[Bet], state: Mapping[str, Any] | None,
                      recorded: Mapping[str, Any]) -> dict[str, Any]:
        """A settled round played again from what was recorded: keys added to the replay's answer."""
        return {}


# ------------------------------------------------------------------------------------------- capabilities
class ShoeGame(ABC):
    """A game whose shoe lasts across rounds (baccarat): shuffled with a shoe number, read by the roadmaps."""

    @abstractmethod
    def shuffle(self, rules: Any, rng: Rng) -> dict[str, Any]:
        """A freshly shuffled shoe's state: {"cards", "pos" (after the opening burn), "cut_index", "burned",
        "cut_card_out": False}."""

    @abstractmethod
    def scoreboard(self, outcomes: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        """The roadmaps of a shoe's recorded outcomes, oldest first."""


@dataclass(frozen=True)
class ColourPurchase:
    colour: str
    chip_value: int
    chips: int


class ColourChipGame(ABC):
    """A game played with colour chips bought from the wallet (roulette): each seated player's own colour."""

    @abstractmethod
    def buy_in(self, in_use: Mapping[str, str], player: str, colour: str, chip_value: int, amount: int, *,
               chip_unit: int, rules: Any) -> ColourPurchase:
        """Colour chips for ``amount`` won; ``in_use`` maps each colour in use to its player. ``TableRuleError``."""

    @abstractmethod
    def cash_out(self, player: str, colour: str, chip_value: int, chips_held: int, chips: int) -> int:
        """The won value of ``chips`` handed in from a stack of ``chips_held``."""


class BankingGame(ABC):
    """A game where a seated player may bank the round (pai gow poker)."""

    @abstractmethod
    def bank_window(self, rules: Any) -> int:
        """How many earlier rounds the banking rule looks at."""

    @abstractmethod
    def bank_cover(self, rules: Any, seat: str, number: int, bets: Sequence[Bet], *, house_bet: int,
                   banked: Sequence[int], bankroll: int) -> int:
        """The cover (won) the player at ``seat`` puts up to bank round ``number``; raises ``TableRuleError`` when
        the rules refuse (``banked``: the earlier rounds this player banked; ``bankroll``: their cashable won)."""

    @abstractmethod
    def bank_state(self, seat: str, player_id: int, house_bet: int) -> dict[str, Any]:
        """The round's state once the bank is taken (before the deal)."""

    @abstractmethod
    def bank_view(self, state: Mapping[str, Any]) -> dict[str, Any]:
        """Who banks the round, as a round's record shows it."""

    @abstractmethod
    def hand_owner(self, state: Mapping[str, Any], number: int, place: str) -> str:
        """The player (id as text) of the dealt hand at ``place``; ``Conflict`` before the deal, ``NotFound``."""

    @abstractmethod
    def hand_help(self, rules: Any, state: Mapping[str, Any], place: str, kind: str, rng: Rng,
                  samples: int) -> dict[str, Any]:
        """Hand-setting help for the dealt hand at ``place`` (``kind``: ``house_way`` or ``optimal``)."""
