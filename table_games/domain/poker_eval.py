"""Standard poker hand ranking for the house-banked poker games, on well-kept evaluators.

* **Ranking** (Caribbean stud's five cards, hold'em's best five of seven): phevaluator's perfect-hash
  evaluator (C extension, millions of hands a second) -- :func:`strength` returns an int where **higher is
  better** (1 … 7462; a royal flush is 7462), so hands compare with ``<`` / ``==``.
* **Best five cards** for the record (which five cards played): pokerkit's ``StandardHighHand``
  (:func:`best_five`), slower but it names the cards.

Both agree on every hand (``7462 - phevaluator_rank == pokerkit entry.index + 1``; a test checks it).
Three card poker and pai gow rank hands differently (three-card straights beat flushes; the joker, five aces
and A-2-3-4-5 as the second straight) and have their own rankers in their modules.

Cards are :class:`table_games.domain.cards.Card` (rank 1..13 with A = 1, suit ``S H D C``);
:func:`card_id` maps them to the evaluator's ids (``(rank-2 with A high) * 4 + suit``, clubs 0 … spades 3).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from phevaluator import _pheval

from table_games.domain.cards import Card

#: category names, best first (shared by the Caribbean stud and hold'em paytables)
ROYAL_FLUSH, STRAIGHT_FLUSH, FOUR_KIND, FULL_HOUSE = "royal_flush", "straight_flush", "four_kind", "full_house"
FLUSH, STRAIGHT, THREE_KIND, TWO_PAIR, ONE_PAIR, HIGH_CARD = (
    "flush", "straight", "three_kind", "two_pair", "one_pair", "high_card")
CATEGORIES = (ROYAL_FLUSH, STRAIGHT_FLUSH, FOUR_KIND, FULL_HOUSE, FLUSH, STRAIGHT, THREE_KIND, TWO_PAIR,
              ONE_PAIR, HIGH_CARD)
CATEGORY_ORDER = {c: i for i, c in enumerate(reversed(CATEGORIES))}  # high_card 0 … royal_flush 9

#: phevaluator's rank bands (1 = royal flush … 7462 = 7-5-4-3-2): the lowest rank of each category
_BANDS = ((1, ROYAL_FLUSH), (2, STRAIGHT_FLUSH), (11, FOUR_KIND), (167, FULL_HOUSE), (323, FLUSH),
          (1600, STRAIGHT), (1610, THREE_KIND), (2468, TWO_PAIR), (3326, ONE_PAIR), (6186, HIGH_CARD))
TOP = 7462
HIGH_CARD_FROM = 6186  # phevaluator ranks from here on are high-card hands (no pair)

_SUIT_ID = {"C": 0, "D": 1, "H": 2, "S": 3}
_E5, _E6, _E7 = _pheval.evaluate_5cards, _pheval.evaluate_6cards, _pheval.evaluate_7cards


def card_id(c: Card) -> int:
    """The evaluator's id of a card (2c = 0 … As = 51)."""
    r = 12 if c.rank == 1 else c.rank - 2
    return r * 4 + _SUIT_ID[c.suit]


def phe_rank(ids: Sequence[int]) -> int:
    """phevaluator's rank of the best five of 5–7 card ids (1 = royal flush; smaller is stronger)."""
    n = len(ids)
    if n == 7:
        return _E7(*ids)
    if n == 5:
        return _E5(*ids)
    if n == 6:
        return _E6(*ids)
    raise ValueError("a poker hand is evaluated from 5 to 7 cards")


def strength(cards: Iterable[Card]) -> int:
    """Strength of the best five of 5–7 cards: **higher is better**, 1 … 7462 (royal flush)."""
    return TOP + 1 - phe_rank([card_id(c) for c in cards])


def category_of_phe(rank: int) -> str:
    for lo, name in reversed(_BANDS):
        if rank >= lo:
            return name
    raise ValueError(rank)


def category(cards_or_strength: Iterable[Card] | int) -> str:
    """The category name (``"full_house"`` …) of a hand or of a :func:`strength`."""
    s = cards_or_strength if isinstance(cards_or_strength, int) else strength(cards_or_strength)
    return category_of_phe(TOP + 1 - s)


def at_least(cat: str, floor: str) -> bool:
    return CATEGORY_ORDER[cat] >= CATEGORY_ORDER[floor]


def best_five(cards: Sequence[Card]) -> list[Card]:
    """The five cards that play (pokerkit), best first as pokerkit orders them."""
    from pokerkit import StandardHighHand  # imported lazily: pokerkit is slow to import and only names cards

    text = "".join(_pk(c) for c in cards)
    hand = StandardHighHand.from_game(text[:4], text[4:]) if len(cards) > 5 else StandardHighHand(text)
    out = []
    for pc in hand.cards:
        rank = "A23456789TJQK".index(str(pc.rank)) + 1
        out.append(Card(rank, str(pc.suit).upper()))
    return out


def _pk(c: Card) -> str:
    return "A23456789TJQK"[c.rank - 1] + c.suit.lower()
