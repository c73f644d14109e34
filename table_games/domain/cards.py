"""Playing cards: ranks, suits, the two point systems (baccarat, blackjack), parsing and decks.

A card is written rank + suit: ``"AS"``, ``"TD"`` (or ``"10D"``), ``"KH"``, ``"7C"``. Ranks are ints
1..13 (A=1, J=11, Q=12, K=13); suits ``S H D C``. Pairs on the pair side bets are by **rank**
(10-J is not a pair), so :attr:`Card.rank` is what they compare.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from table_games.domain.errors import TableRuleError

SUITS = "SHDC"
RANK_CHARS = "A23456789TJQK"
RANKS = tuple(range(1, 14))


@dataclass(frozen=True, slots=True)
class Card:
    rank: int  # 1..13
    suit: str  # one of SUITS

    def __post_init__(self) -> None:
        if self.rank not in RANKS or self.suit not in SUITS or len(self.suit) != 1:
            raise ValueError(f"not a card: rank={self.rank!r} suit={self.suit!r}")

    @property
    def baccarat_value(self) -> int:
        """A=1, 2-9 face value, 10/J/Q/K = 0."""
        return self.rank if self.rank < 10 else 0

    @property
    def blackjack_value(self) -> int:
        """A=1 (counted 11 by the hand when it helps), 2-9 face value, 10/J/Q/K = 10."""
        return min(self.rank, 10)

    @property
    def burn_count(self) -> int:
        """Cards burned after this card is exposed at the start of a baccarat shoe (10/J/Q/K count 10)."""
        return min(self.rank, 10)

    def __str__(self) -> str:
        return RANK_CHARS[self.rank - 1] + self.suit

    def __repr__(self) -> str:
        return f"Card({self})"


def parse_card(text: str, *, field: str = "cards") -> Card:
    """``"AS"``, ``"10h"``, ``"TD"``, ``"kc"`` → :class:`Card`; anything else → :class:`TableRuleError`."""
    t = str(text).strip().upper()
    if t.startswith("10"):
        t = "T" + t[2:]
    if len(t) != 2 or t[0] not in RANK_CHARS or t[1] not in SUITS:
        raise TableRuleError(field, f"{text!r} is not a card (write rank + suit, e.g. AS, 10H, KD)")
    return Card(RANK_CHARS.index(t[0]) + 1, t[1])


def parse_cards(cards: str | Iterable[str | Card], *, field: str = "cards") -> list[Card]:
    """A space/comma separated string or a list of card texts (or cards) → cards."""
    if isinstance(cards, str):
        cards = cards.replace(",", " ").split()
    return [c if isinstance(c, Card) else parse_card(c, field=field) for c in cards]


def card_strings(cards: Sequence[Card]) -> list[str]:
    return [str(c) for c in cards]


def deck() -> list[Card]:
    """One 52-card deck in a fixed order (suit by suit, A..K)."""
    return [Card(r, s) for s in SUITS for r in RANKS]


def decks(n: int) -> list[Card]:
    if n < 1:
        raise ValueError("a shoe has at least one deck")
    return deck() * n
