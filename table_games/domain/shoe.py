"""The shoe: N decks shuffled with the injected RNG (or stacked from given cards), a cut card and burns.

One code path deals every card: :meth:`Shoe.draw`. Live play builds the shoe with :meth:`Shoe.shuffled`
(Fisher-Yates with ``rng.randbelow``); **input mode** builds it with :meth:`Shoe.stacked` from the cards a
dealer (or a test) enters, in dealing order. Running out of cards mid-coup raises
:class:`ShoeExhausted` (a misdeal: the framework voids the round and returns every bet).

Cut card: it sits in front of card ``cut_index``; when that card is drawn the cut card has come out
(:attr:`cut_card_out`), and the coup in progress is the last of the shoe (DESIGN §5).
"""

from __future__ import annotations

from collections.abc import Sequence

from slotsys.kernel.ports import Rng
from table_games.domain.cards import Card, decks as make_decks
from table_games.domain.errors import ShoeExhausted


def fisher_yates(items: list, rng: Rng) -> list:
    """Shuffle ``items`` in place with ``rng.randbelow`` (unbiased) and return it."""
    for i in range(len(items) - 1, 0, -1):
        j = rng.randbelow(i + 1)
        items[i], items[j] = items[j], items[i]
    return items


class Shoe:
    def __init__(self, cards: Sequence[Card], *, cut_index: int | None = None) -> None:
        self._cards = list(cards)
        self._pos = 0
        self.cut_index = cut_index if cut_index is not None else len(self._cards)
        self.cut_card_out = False
        self.burned: list[Card] = []

    # ------------------------------------------------------------------ construction
    @classmethod
    def shuffled(cls, n_decks: int, rng: Rng, *, cut_card_from_end: int = 14) -> Shoe:
        """A freshly shuffled shoe of ``n_decks`` with the cut card ``cut_card_from_end`` cards from the end."""
        cards = fisher_yates(make_decks(n_decks), rng)
        if not 0 <= cut_card_from_end < len(cards):
            raise ValueError("the cut card must lie inside the shoe")
        return cls(cards, cut_index=len(cards) - cut_card_from_end)

    @classmethod
    def stacked(cls, cards: Sequence[Card], *, cut_index: int | None = None) -> Shoe:
        """Input mode: deal exactly these cards, in this order (no cut card unless ``cut_index`` is given)."""
        return cls(cards, cut_index=cut_index)

    # ------------------------------------------------------------------ dealing
    def draw(self) -> Card:
        if self._pos >= len(self._cards):
            raise ShoeExhausted()
        if self._pos >= self.cut_index:
            self.cut_card_out = True
        card = self._cards[self._pos]
        self._pos += 1
        return card

    def burn(self, n: int) -> list[Card]:
        out = [self.draw() for _ in range(n)]
        self.burned.extend(out)
        return out

    def burn_baccarat(self) -> list[Card]:
        """Start of a baccarat shoe: expose the first card and burn as many as it counts (10/J/Q/K = 10).

        Returns every card removed, the exposed card first.
        """
        first = self.draw()
        self.burned.append(first)
        return [first, *self.burn(first.burn_count)]

    # ------------------------------------------------------------------ state
    @property
    def position(self) -> int:
        return self._pos

    @property
    def remaining(self) -> int:
        return len(self._cards) - self._pos

    def __len__(self) -> int:
        return len(self._cards)

    def dealt(self) -> list[Card]:
        """The cards drawn so far, in order (burns included): the record that replays the shoe."""
        return self._cards[: self._pos]
