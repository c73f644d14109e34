"""Pai gow poker: 53 cards with the joker, the dice deal, hand setting and fouls, the casino page's three house
ways (sections 9-1, 9-2, 9-3) as selectable policies, player banking, settlement with the 5% commission,
"house way for me" and an optimal-setting helper.

Rules (seed page 001, DESIGN §5):

* **Cards**: 52 + the joker. The joker is an ace, or completes a straight, a flush or a straight flush
  (:func:`high_key`). Ranking: five aces (four aces + joker) > royal flush > straight flush > four of a kind
  > full house > flush > straight > three of a kind > two pair > pair > high card; **A-K-Q-J-10 is the top
  straight and A-2-3-4-5 the second** (also among straight flushes). Low hands (two cards): a pair beats no
  pair; the joker is an ace.
* **Deal**: the banker shakes three dice; positions are counted counter-clockwise with the banker as 1 (so
  also 8 and 15); the seven stacks of seven go out from the position the total names, counter-clockwise
  (``rules.ring`` lists the places counter-clockwise from the dealer). Empty places' hands are discarded
  unseen; four cards remain. A hand dealt with other than seven cards is dead (its bets come back); the
  banker's: all hands are dead (the round is void).
* **Setting**: players set a five-card high hand and a two-card low hand, then the banking player, then the
  dealer by the table's house way. The high hand must outrank the low hand, else the hand **fouls** and is an
  automatic loser (a banker who fouls pays every player). Wrong card counts or cards not in the hand are
  refused; a foul is refused unless the player confirms it (``confirm_foul=True``), then it is accepted and
  settled as an automatic loser.
* **Result** against the banker: a player winning both hands wins even money less 5% commission (rounded UP
  to the table's commission unit); losing both loses; one each pushes; **copies** (equal hands) go to the
  banker.
* **Player banking**: a player may bank once every ``bank_every`` (7) hands, having played the previous
  hand and able to cover the action (every other player's bet, plus the house's bet against the banker,
  which equals the banker's last bet). The banker's hand plays each player; the house (the dealer's hand,
  house way) plays the banker. The banker pays 5% commission on a net win.

House ways: :data:`HOUSE_WAYS` (``"9-1"``, ``"9-2"``, ``"9-3"``) -- each clause of the page is implemented
in order; where the page's text is incomplete the reading chosen is written beside the clause.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any, Union

from slotsys.kernel.money import commission_ceil, format_won
from table_games.domain import limits as L
from table_games.domain.cards import Card, parse_card
from table_games.domain.cards import deck as deck52
from table_games.domain.errors import TableRuleError
from table_games.domain.settlement import LOSE, PUSH, WIN, Bet, Settlement, Void, lost, void_all, voided, won
from table_games.domain.shoe import Shoe

GAME = "pai_gow_poker"


# ------------------------------------------------------------------------------------------- the joker
@dataclass(frozen=True, slots=True)
class Joker:
    rank: int = 0
    suit: str = "*"

    def __str__(self) -> str:
        return "JK"

    def __repr__(self) -> str:
        return "Joker"


JOKER = Joker()
PGCard = Union[Card, Joker]


def parse_pg_card(text: Any, *, field: str = "cards") -> PGCard:
    if isinstance(text, (Card, Joker)):
        return text
    t = str(text).strip().upper()
    if t in ("JK", "JOKER", "XX", "W"):
        return JOKER
    return parse_card(t, field=field)


def parse_pg_cards(cards: str | Iterable[Any], *, field: str = "cards") -> list[PGCard]:
    if isinstance(cards, str):
        cards = cards.replace(",", " ").split()
    return [parse_pg_card(c, field=field) for c in cards]


def pg_strings(cards: Iterable[PGCard]) -> list[str]:
    return [str(c) for c in cards]


def deck53() -> list[PGCard]:
    return [*deck52(), JOKER]


# ------------------------------------------------------------------------------------------- ranking
HIGH, PAIR, TWO_PAIR, TRIPS, STRAIGHT, FLUSH, FULL_HOUSE, QUADS, STRAIGHT_FLUSH, ROYAL_FLUSH, FIVE_ACES = range(11)
CATEGORY_NAMES = ("high_card", "one_pair", "two_pair", "three_kind", "straight", "flush", "full_house",
                  "four_kind", "straight_flush", "royal_flush", "five_aces")
BROADWAY, WHEEL = 15, 14  # straight heights: A-K-Q-J-10 first, A-2-3-4-5 second, then K-high (13) … 6-high
_STRAIGHTS = [(BROADWAY, frozenset({14, 13, 12, 11, 10})), (WHEEL, frozenset({14, 2, 3, 4, 5}))] + [
    (top, frozenset(range(top - 4, top + 1))) for top in range(13, 5, -1)]


def _r(c: PGCard) -> int:
    """Rank 2..14 (ace 14); the joker counts as an ace for pairs and kickers."""
    if isinstance(c, Joker):
        return 14
    return 14 if c.rank == 1 else c.rank


def _key5(rs: Sequence[tuple[int, str]]) -> tuple[int, ...]:
    """Key of five (rank, suit) cards, no joker (a bug ace has suit ``*`` and makes no flush)."""
    ranks = sorted((r for r, _ in rs), reverse=True)
    cnt = Counter(ranks)
    flush = len({s for _, s in rs}) == 1 and rs[0][1] != "*"
    height = 0
    if len(cnt) == 5:
        rset = frozenset(ranks)
        for h, st in _STRAIGHTS:
            if rset == st:
                height = h
                break
    if height and flush:
        return (ROYAL_FLUSH if height == BROADWAY else STRAIGHT_FLUSH, height)
    groups = sorted(cnt.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)
    shape = [n for _, n in groups]
    order = tuple(r for r, _ in groups)
    if shape[0] == 5:
        return (FIVE_ACES,)
    if shape[0] == 4:
        return (QUADS, *order)
    if shape[:2] == [3, 2]:
        return (FULL_HOUSE, *order)
    if flush:
        return (FLUSH, *ranks)
    if height:
        return (STRAIGHT, height)
    if shape[0] == 3:
        return (TRIPS, *order)
    if shape[:2] == [2, 2]:
        return (TWO_PAIR, *order)
    if shape[0] == 2:
        return (PAIR, *order)
    return (HIGH, *ranks)


def high_key(cards: Sequence[PGCard]) -> tuple[int, ...]:
    """Comparable key of a five-card hand (higher is better); the joker is an ace or completes a straight,
    flush or straight flush, whichever ranks higher."""
    if len(cards) != 5:
        raise ValueError("a high hand has five cards")
    rs = [(_r(c), c.suit) for c in cards if not isinstance(c, Joker)]
    if len(rs) == 5:
        return _key5(rs)
    if len(rs) < 4:
        raise ValueError("one joker per deck")
    best = _key5(rs + [(14, "*")])  # the joker as an ace
    if best[0] == FIVE_ACES:
        return best
    ranks = {r for r, _ in rs}
    suits = {s for _, s in rs}
    if len(ranks) == 4:
        for h, st in _STRAIGHTS:
            if ranks <= st:
                (missing,) = st - ranks
                suit = next(iter(suits)) if len(suits) == 1 else "*"
                if suit != "*":
                    k = _key5(rs + [(missing, suit)])  # straight flush (or royal)
                else:
                    k = (STRAIGHT, h)
                best = max(best, k)
                break
    if len(suits) == 1:
        suit = next(iter(suits))
        free = max(r for r in range(14, 1, -1) if r not in ranks)  # the highest rank missing from the flush
        best = max(best, _key5(rs + [(free, suit)]))
    return best


def low_key(cards: Sequence[PGCard]) -> tuple[int, ...]:
    """Comparable key of a two-card hand: (1, rank) for a pair, (0, high, low) otherwise; the joker is an ace."""
    if len(cards) != 2:
        raise ValueError("a low hand has two cards")
    a, b = sorted((_r(c) for c in cards), reverse=True)
    return (1, a) if a == b else (0, a, b)


def category_name(key: tuple[int, ...]) -> str:
    return CATEGORY_NAMES[key[0]]


def is_foul(high: Sequence[PGCard], low: Sequence[PGCard]) -> bool:
    """True when the two-card hand outranks the five-card hand (equal leading ranks: the high hand, having
    more cards, is the higher)."""
    return fouls(high_key(high), low_key(low))


def fouls(hk: tuple[int, ...], lk: tuple[int, ...]) -> bool:
    if hk[0] >= TWO_PAIR:
        return False
    if hk[0] == PAIR:
        return lk[0] == 1 and lk[1] > hk[1]
    # high card
    if lk[0] == 1:
        return True
    return (hk[1], hk[2]) < (lk[1], lk[2])


# ------------------------------------------------------------------------------------------- settings
@dataclass(frozen=True)
class Setting:
    high: tuple[PGCard, ...]
    low: tuple[PGCard, ...]

    @property
    def high_key(self) -> tuple[int, ...]:
        return high_key(self.high)

    @property
    def low_key(self) -> tuple[int, ...]:
        return low_key(self.low)

    @property
    def foul(self) -> bool:
        return is_foul(self.high, self.low)

    def to_dict(self) -> dict[str, Any]:
        return {"high": pg_strings(self.high), "low": pg_strings(self.low), "high_hand": category_name(self.high_key),
                "foul": self.foul}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Setting:
        return cls(tuple(parse_pg_cards(d["high"])), tuple(parse_pg_cards(d["low"])))


def all_settings(cards: Sequence[PGCard]) -> list[Setting]:
    """The 21 ways to split seven cards into a high and a low hand (fouls included)."""
    cards = list(cards)
    out = []
    for i, j in combinations(range(7), 2):
        low = (cards[i], cards[j])
        high = tuple(c for k, c in enumerate(cards) if k not in (i, j))
        out.append(Setting(high, low))
    return out


def validate_setting(cards: Sequence[PGCard], high: Sequence[Any], low: Sequence[Any]) -> Setting:
    """Parse and check a player's setting against the seven cards dealt (counts, cards, no duplicates)."""
    hi = parse_pg_cards(high, field="high")
    lo = parse_pg_cards(low, field="low")
    if len(hi) != 5:
        raise TableRuleError("high", f"the high hand has five cards, not {len(hi)}")
    if len(lo) != 2:
        raise TableRuleError("low", f"the low hand has two cards, not {len(lo)}")
    if Counter(hi + lo) != Counter(cards):
        raise TableRuleError("cards", "the setting must use exactly the seven cards dealt to the hand")
    return Setting(tuple(hi), tuple(lo))


# ------------------------------------------------------------------------------------------- house ways
class _Hand:
    """A seven-card hand analysed for the house ways (the joker is an ace for pairs)."""

    def __init__(self, cards: Sequence[PGCard]) -> None:
        self.cards = list(cards)
        self.by_rank: dict[int, list[PGCard]] = {}
        for c in sorted(self.cards, key=lambda c: (_r(c), isinstance(c, Joker)), reverse=True):
            self.by_rank.setdefault(_r(c), []).append(c)
        self.settings = all_settings(self.cards)
        self.keys = [(s.high_key, s.low_key) for s in self.settings]

    def groups(self, n: int) -> list[int]:
        """Ranks held exactly ``n`` times, highest first."""
        return sorted((r for r, cs in self.by_rank.items() if len(cs) == n), reverse=True)

    @property
    def singles(self) -> list[int]:
        return self.groups(1)

    def has_single(self, *ranks: int) -> bool:
        return any(r in self.singles for r in ranks)

    def best_category(self) -> int:
        return max(hk[0] for hk, _ in self.keys)

    def rest(self, used: Iterable[PGCard]) -> list[PGCard]:
        left = list(self.cards)
        for c in used:
            left.remove(c)
        return left

    def of(self, rank: int, n: int | None = None) -> list[PGCard]:
        cs = self.by_rank.get(rank, [])
        return list(cs if n is None else cs[:n])

    # -- building settings
    def keep(self, high_core: Sequence[PGCard]) -> Setting:
        """``high_core`` in the high hand; the best two-card low from the rest; the others fill the high."""
        rest = self.rest(high_core)
        core = tuple(high_core)
        settings = (Setting(core + tuple(c for k, c in enumerate(rest) if k not in (a, b)), (rest[a], rest[b]))
                    for a, b in combinations(range(len(rest)), 2))
        # the first of the best (low, then high) keys, as the house way reads them
        return max(settings, key=lambda s: (low_key(s.low), high_key(s.high)))

    def low_to(self, low: Sequence[PGCard]) -> Setting:
        """``low`` is the low hand, everything else the high hand."""
        return Setting(tuple(self.rest(low)), tuple(low))

    def best_with(self, pred: Callable[[tuple[int, ...]], bool]) -> Setting | None:
        """The setting whose high hand satisfies ``pred`` with the best low hand (then the best high)."""
        best = None
        for s, (hk, lk) in zip(self.settings, self.keys):
            if pred(hk) and not fouls(hk, lk):
                cand = (lk, hk)
                if best is None or cand > best[0]:
                    best = (cand, s)
        return None if best is None else best[1]


def _is(*cats: int) -> Callable[[tuple[int, ...]], bool]:
    return lambda hk: hk[0] in cats


def _low_has(s: Setting, ranks: Iterable[int], pair: bool = False) -> bool:
    lk = s.low_key
    if pair and lk[0] == 1:
        return True
    return any(_r(c) in set(ranks) for c in s.low)


def _two_pair_split(h: _Hand, hi: int, lo: int) -> Setting:
    """Higher pair in the high hand, lower pair as the low hand."""
    return h.low_to(h.of(lo, 2))


def _two_pair_keep(h: _Hand, hi: int, lo: int) -> Setting:
    """Both pairs in the high hand, the best two of the other cards low."""
    return h.keep(h.of(hi, 2) + h.of(lo, 2))


FACE = (11, 12, 13)


# ---- the sections common to the three pages (no pair, one pair, three pair, trips, two trips, full house)
def _no_pair(h: _Hand) -> Setting:
    # highest card high, the 2nd and 3rd highest low
    order = sorted(h.cards, key=_r, reverse=True)
    return h.low_to(order[1:3])


def _one_pair(h: _Hand) -> Setting:
    return h.keep(h.of(h.groups(2)[0]))


def _three_pair(h: _Hand) -> Setting:
    # the highest pair low, the other two pairs high
    return h.low_to(h.of(h.groups(2)[0]))


def _trips(h: _Hand) -> Setting:
    t = h.groups(3)[0]
    if t == 14:
        # three aces: two aces high, the third ace and the highest other card low
        aces = h.of(14)
        others = sorted(h.rest(aces), key=_r, reverse=True)
        return h.low_to([aces[2], others[0]])
    return h.keep(h.of(t))


def _two_trips(h: _Hand) -> Setting:
    hi, lo = h.groups(3)[:2]
    return h.low_to(h.of(hi, 2))


def _full_house(h: _Hand) -> Setting:
    t = h.groups(3)[0]
    pairs = h.groups(2)
    singles = h.singles
    # (2) the pair is 2s and the other two cards are A and K: keep the full house, A-K low
    if pairs == [2] and sorted(singles) == [13, 14]:
        return h.keep(h.of(t) + h.of(2))
    # (1) trips high, the (higher) pair low
    return h.low_to(h.of(pairs[0]))


def _five_aces(h: _Hand) -> Setting:
    # 9-1-13 / 9-2-13 / 9-3-13: a pair of kings: five aces high, the kings low; otherwise split, three aces
    # high (with any other pair: a full house, 9-3-13 (2)) and two aces low
    if 13 in h.groups(2):
        return h.low_to(h.of(13))
    return h.low_to(h.of(14)[3:5])


# ---- policy 9-1
def _two_pair_91(h: _Hand) -> Setting:
    hi, lo = h.groups(2)[:2]
    ace = h.has_single(14)
    if hi == 14:  # (1) aces and any pair: split
        return _two_pair_split(h, hi, lo)
    if hi in FACE:  # (2) J/Q/K pair and another: split, (3) unless the other pair is 5 or lower and an A is left
        if lo <= 5 and ace:
            return _two_pair_keep(h, hi, lo)
        return _two_pair_split(h, hi, lo)
    if 7 <= hi <= 10:  # (4) 7-10 pair and a lower pair: split, (5) unless an A is left
        # reading: the page's "lower than 9" is read as "a lower pair" (10s and 9s are split too)
        if ace:
            return _two_pair_keep(h, hi, lo)
        return _two_pair_split(h, hi, lo)
    return _two_pair_keep(h, hi, lo)  # (6) both pairs 6 or lower: keep together


def _two_pair_override_91(h: _Hand) -> bool:
    """9-1-7 (4)(5) / 9-1-8 (4): give up a straight or flush for two pair (J/Q/K pair with a pair above 6,
    or a pair of aces with any pair)."""
    pairs = h.groups(2)
    if len(pairs) < 2:
        return False
    hi, lo = pairs[:2]
    return hi == 14 or (hi in FACE and lo > 6)


def _sf_family_91(h: _Hand, *, pair_to_low_counts: bool) -> Setting:
    """Straight / flush / straight flush for 9-1 (and 9-2 with ``pair_to_low_counts``)."""
    best = h.best_category()
    straight = h.best_with(_is(STRAIGHT))
    flush = h.best_with(_is(FLUSH))
    sflush = h.best_with(_is(STRAIGHT_FLUSH, ROYAL_FLUSH))

    def sends(s: Setting | None) -> bool:
        return s is not None and _low_has(s, (14, 13), pair=pair_to_low_counts)

    if best in (STRAIGHT_FLUSH, ROYAL_FLUSH) and sflush is not None:
        # keep the straight flush unless a plain straight or flush sends an A or K (9-2: or a pair) low
        for alt in sorted((s for s in (straight, flush) if s is not None), key=lambda s: s.low_key, reverse=True):
            if sends(alt) and alt.low_key > sflush.low_key:
                return alt
        return sflush
    if flush is not None and straight is not None:
        # 9-1-8 (5)(6): give up the flush for a straight that sends an A or K, or a pair, low
        if (_low_has(straight, (14, 13), pair=True)) and straight.low_key > flush.low_key:
            return straight
        return flush
    return flush or straight or h.keep([])


def _four_kind_91(h: _Hand) -> Setting:
    q = h.groups(4)[0]
    rest = h.rest(h.of(q))
    pairs = h.groups(2)
    if pairs and pairs[0] >= 7:  # (5) any four of a kind with a pair of 7s or better: keep, the pair low
        return h.low_to(h.of(pairs[0]))
    if q <= 6:  # (1) keep, the two highest others low
        return h.keep(h.of(q))
    if 7 <= q <= 10 and (any(_r(c) == 14 for c in rest) or pairs):  # (3) keep, the A or the pair low
        return h.keep(h.of(q))
    if q in FACE and pairs and pairs[0] <= 6:  # (4) split: two pair high, the face pair low
        return h.low_to(h.of(q)[2:])
    return h.low_to(h.of(q)[2:])  # (2) 7 or higher: split two and two


def house_way_91(cards: Sequence[PGCard]) -> Setting:
    h = _Hand(cards)
    if len(h.of(14)) == 5:
        return _five_aces(h)
    best = h.best_category()
    if best == ROYAL_FLUSH:
        pairs = h.groups(2)
        if len(pairs) >= 2 and all(p >= 10 for p in pairs[:2]):  # (2) two pair among 10-A: two pair
            return _two_pair_split(h, pairs[0], pairs[1])
        return h.best_with(_is(ROYAL_FLUSH)) or h.keep([])
    if h.groups(4):
        return _four_kind_91(h)
    if len(h.groups(3)) >= 2:
        return _two_trips(h)
    if h.groups(3) and h.groups(2):
        return _full_house(h)
    if best in (STRAIGHT, FLUSH, STRAIGHT_FLUSH):
        if _two_pair_override_91(h):
            hi, lo = h.groups(2)[:2]
            return _two_pair_split(h, hi, lo)
        return _sf_family_91(h, pair_to_low_counts=False)
    if h.groups(3):
        return _trips(h)
    pairs = h.groups(2)
    if len(pairs) >= 3:
        return _three_pair(h)
    if len(pairs) == 2:
        return _two_pair_91(h)
    if len(pairs) == 1:
        return _one_pair(h)
    return _no_pair(h)


# ---- policy 9-2
def _two_pair_92(h: _Hand) -> Setting:
    hi, lo = h.groups(2)[:2]
    if hi == 14:  # (3) a pair of aces: always split
        return _two_pair_split(h, hi, lo)
    if h.has_single(14):  # (2) with an A: split only a J/Q/K pair with a pair of 6 or better
        if hi in FACE and lo >= 6:
            return _two_pair_split(h, hi, lo)
        return _two_pair_keep(h, hi, lo)
    if hi >= 7:  # (1) no A: split with a pair of 7 or better
        return _two_pair_split(h, hi, lo)
    return _two_pair_keep(h, hi, lo)


def _two_pair_override_92(h: _Hand) -> bool:
    """9-2-7/8/11 (3)(4)(5): J/Q/K pair with a 6+ pair, any two pair with an A, a pair of aces with a pair."""
    pairs = h.groups(2)
    if len(pairs) < 2:
        return False
    hi, lo = pairs[:2]
    return hi == 14 or h.has_single(14) or (hi in FACE and lo >= 6)


def _four_kind_92(h: _Hand) -> Setting:
    q = h.groups(4)[0]
    rest = h.rest(h.of(q))
    pairs = h.groups(2)
    if q <= 6:  # (1) keep
        return h.keep(h.of(q))
    if 7 <= q <= 10 and (any(_r(c) == 14 for c in rest) or pairs):  # (3) keep, the A or the pair low
        return h.keep(h.of(q))
    if q >= 11 and pairs and pairs[0] >= 7:  # (4) J/Q/K/A with a pair of 7 or better: keep, pair low
        return h.low_to(h.of(pairs[0]))
    return h.low_to(h.of(q)[2:])  # (2) split two and two


def house_way_92(cards: Sequence[PGCard]) -> Setting:
    h = _Hand(cards)
    if len(h.of(14)) == 5:
        return _five_aces(h)
    best = h.best_category()
    if best == ROYAL_FLUSH:
        pairs = h.groups(2)
        if len(pairs) >= 2 and all(p >= 10 for p in pairs[:2]):
            return _two_pair_split(h, pairs[0], pairs[1])
        return h.best_with(_is(ROYAL_FLUSH)) or h.keep([])
    if h.groups(4):
        return _four_kind_92(h)
    if len(h.groups(3)) >= 2:
        return _two_trips(h)
    if h.groups(3) and h.groups(2):
        return _full_house(h)
    if best in (STRAIGHT, FLUSH, STRAIGHT_FLUSH):
        if _two_pair_override_92(h):
            return _two_pair_92(h)  # then set as two pair
        return _sf_family_91(h, pair_to_low_counts=True)
    if h.groups(3):
        return _trips(h)
    pairs = h.groups(2)
    if len(pairs) >= 3:
        return _three_pair(h)
    if len(pairs) == 2:
        return _two_pair_92(h)
    if len(pairs) == 1:
        return _one_pair(h)
    return _no_pair(h)


# ---- policy 9-3
def _band(r: int) -> str:
    return "low" if r <= 5 else "middle" if r <= 10 else "face"


def _two_pair_93(h: _Hand) -> Setting:
    hi, lo = h.groups(2)[:2]
    bands = (_band(hi), _band(lo))
    ace, king = h.has_single(14), h.has_single(13)
    if hi == 14:  # (7) aces with any pair: split
        return _two_pair_split(h, hi, lo)
    if bands == ("low", "low"):  # (1) never split two low pairs
        return _two_pair_keep(h, hi, lo)
    if bands == ("middle", "low"):  # (2) split unless a K or an A is left
        return _two_pair_keep(h, hi, lo) if (ace or king) else _two_pair_split(h, hi, lo)
    if bands == ("middle", "middle"):  # (3) split unless an A is left
        return _two_pair_keep(h, hi, lo) if ace else _two_pair_split(h, hi, lo)
    if bands == ("face", "middle"):  # (4) always split
        return _two_pair_split(h, hi, lo)
    if bands == ("face", "low"):  # (5) split unless an A is left
        return _two_pair_keep(h, hi, lo) if ace else _two_pair_split(h, hi, lo)
    return _two_pair_split(h, hi, lo)  # (6) two face pairs: always split


def _sf_family_93(h: _Hand) -> Setting:
    pairs = h.groups(2)
    if len(pairs) >= 2:
        hi, lo = pairs[:2]
        if hi == 14:  # (5) a pair of aces and another pair: two pair, aces high
            return _two_pair_split(h, hi, lo)
        if lo >= 6:  # (3) two pairs of 6 or better: two pair (set by 9-3-3)
            return _two_pair_93(h)
        single = h.singles
        if 14 in single and any(r in single for r in (10, 11, 12, 13)):
            # (4) even with lower pairs, an A and a 10-K left: two pair high, the A and that card low
            other = max(r for r in single if r in (10, 11, 12, 13))
            return h.low_to(h.of(14)[:1] + h.of(other)[:1])
        # (8) low two pairs otherwise: keep the straight / flush
    # (1)(2)(6)(7): the straight, flush or straight flush that leaves the best low hand
    return h.best_with(_is(STRAIGHT, FLUSH, STRAIGHT_FLUSH, ROYAL_FLUSH)) or h.keep([])


def _four_kind_93(h: _Hand) -> Setting:
    q = h.groups(4)[0]
    rest = h.rest(h.of(q))
    pairs = h.groups(2)
    rest_ranks = {_r(c) for c in rest}
    if q <= 6:  # (1) keep, the two highest others low
        return h.keep(h.of(q))
    if 7 <= q <= 10 and ((14 in rest_ranks and rest_ranks & set(FACE)) or pairs):  # (3) keep, the rest low
        return h.keep(h.of(q))
    if q in FACE and pairs:  # (4) J/Q/K with a pair: keep, the pair low
        return h.low_to(h.of(pairs[0]))
    if q == 14 and pairs and pairs[0] == 13:  # (5) four aces and a pair of kings: kings low
        return h.low_to(h.of(13))
    if q == 14 and pairs:  # (6) four aces and another pair: as three pair, two aces low
        return h.low_to(h.of(14)[2:])
    return h.low_to(h.of(q)[2:])  # (2) 7 or higher: split two and two


def house_way_93(cards: Sequence[PGCard]) -> Setting:
    h = _Hand(cards)
    if len(h.of(14)) == 5:
        return _five_aces(h)
    best = h.best_category()
    if h.groups(4) and best < STRAIGHT_FLUSH:
        return _four_kind_93(h)
    if len(h.groups(3)) >= 2:
        return _two_trips(h)
    if h.groups(3) and h.groups(2) and best < STRAIGHT_FLUSH:
        return _full_house(h)
    if best in (STRAIGHT, FLUSH, STRAIGHT_FLUSH, ROYAL_FLUSH):
        return _sf_family_93(h)  # 9-3-5 (3): three aces made with the joker play the straight / flush
    if h.groups(3):
        return _trips(h)
    pairs = h.groups(2)
    if len(pairs) >= 3:
        return _three_pair(h)
    if len(pairs) == 2:
        return _two_pair_93(h)
    if len(pairs) == 1:
        return _one_pair(h)
    return _no_pair(h)


HOUSE_WAYS: dict[str, Callable[[Sequence[PGCard]], Setting]] = {
    "9-1": house_way_91, "9-2": house_way_92, "9-3": house_way_93}


def house_way(cards: Sequence[PGCard] | str, policy: str = "9-1") -> Setting:
    """How the house (or a player asking for "house way") sets these seven cards under ``policy``."""
    cs = parse_pg_cards(cards) if isinstance(cards, str) else list(cards)
    if len(cs) != 7:
        raise TableRuleError("cards", "a pai gow hand has seven cards")
    if len(set(cs)) != 7:
        raise TableRuleError("cards", "a card appears twice")
    fn = HOUSE_WAYS.get(policy)
    if fn is None:
        raise TableRuleError("house_way", f"unknown house way {policy!r} (one of {', '.join(HOUSE_WAYS)})")
    s = fn(cs)
    if s.foul:  # a house way never fouls; this would be a bug in a clause
        raise RuntimeError(f"house way {policy} fouled {' '.join(pg_strings(cs))}")
    return s


# ------------------------------------------------------------------------------------------- comparing
def compare(player: Setting, banker: Setting) -> int:
    """+1 player wins both hands, -1 banker wins (copies go to the banker), 0 push. Fouls are handled by
    the caller (:func:`result`)."""
    hi = player.high_key > banker.high_key
    lo = player.low_key > banker.low_key
    if hi and lo:
        return 1
    if not hi and not lo:
        return -1
    return 0


def result(player: Setting, banker: Setting) -> int:
    """The player's result against the banker with the foul rules: a fouled player loses; otherwise a fouled
    banker pays; otherwise :func:`compare`. (Both fouled: the player's automatic loss stands.)"""
    if player.foul:
        return -1
    if banker.foul:
        return 1
    return compare(player, banker)


# ------------------------------------------------------------------------------------------- rules
@dataclass(frozen=True)
class PaiGowRules:
    house_way: str = "9-1"
    commission_ppm: int = 50_000  # 5%
    commission_unit: int = 100  # won; commissions round UP to it
    bank_every: int = 7  # a player may bank once every 7 hands
    ring: tuple[str, ...] = ("dealer", "6", "5", "4", "3", "2", "1")  # places counter-clockwise from the dealer

    def __post_init__(self) -> None:
        if self.house_way not in HOUSE_WAYS:
            raise ValueError(f"house_way is one of {', '.join(HOUSE_WAYS)}")
        if len(self.ring) != 7 or "dealer" not in self.ring or len(set(self.ring)) != 7:
            raise ValueError("the ring lists the dealer and six seats, each once")

    def to_dict(self) -> dict[str, Any]:
        return {"house_way": self.house_way, "commission_ppm": self.commission_ppm,
                "commission_unit": self.commission_unit, "bank_every": self.bank_every, "ring": list(self.ring)}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> PaiGowRules:
        d = dict(d)
        if "ring" in d:
            d["ring"] = tuple(d["ring"])
        return cls(**d)


HOUSE_WAY_91 = PaiGowRules("9-1")
HOUSE_WAY_92 = PaiGowRules("9-2")
HOUSE_WAY_93 = PaiGowRules("9-3")
DEALER = "dealer"


# ------------------------------------------------------------------------------------------- the deal
def roll_dice(rng) -> tuple[int, int, int]:
    """Three dice through ``rng.randbelow(6)`` (input mode: :func:`dealer_input`)."""
    first = rng.randbelow(6) + 1
    second = rng.randbelow(6) + 1
    return first, second, rng.randbelow(6) + 1


def dealer_input(d1: int, d2: int, d3: int):
    from table_games.domain.rng import ScriptedRng

    return ScriptedRng([d - 1 if isinstance(d, int) and not isinstance(d, bool) else d for d in (d1, d2, d3)],
                       field="dice")


def positions(rules: PaiGowRules, banker: str = DEALER) -> list[str]:
    """The places counter-clockwise starting with the banker (position 1, 8, 15)."""
    if banker not in rules.ring:
        raise TableRuleError("banker", f"no place {banker!r} at this table")
    i = rules.ring.index(banker)
    return list(rules.ring[i:] + rules.ring[:i])


def first_position(dice: Sequence[int], rules: PaiGowRules, banker: str = DEALER) -> str:
    """The place the dice total names (counted counter-clockwise from the banker as 1)."""
    total = sum(dice)
    return positions(rules, banker)[(total - 1) % 7]


@dataclass(frozen=True)
class PaiGowDeal:
    dice: tuple[int, int, int]
    banker: str
    hands: Mapping[str, tuple[PGCard, ...]]  # place → cards as dealt (other than 7: dead)

    def dead(self, place: str) -> bool:
        return len(self.hands.get(place, ())) != 7

    def to_dict(self) -> dict[str, Any]:
        return {"dice": list(self.dice), "banker": self.banker,
                "hands": {p: pg_strings(cs) for p, cs in self.hands.items()}}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> PaiGowDeal:
        return cls(tuple(d["dice"]), d["banker"], {p: tuple(parse_pg_cards(cs)) for p, cs in d["hands"].items()})


def new_deck(rng) -> Shoe:
    from table_games.domain.shoe import fisher_yates

    return Shoe(fisher_yates(deck53(), rng))


def deal(shoe: Shoe, dice: Sequence[int], rules: PaiGowRules, *, banker: str = DEALER,
         start_from: str = "right") -> PaiGowDeal:
    """Seven stacks of seven from the shoe; stack 1 (the rightmost; ``start_from="left"``: the leftmost, a
    banking player's choice) to the place the dice name, then counter-clockwise."""
    if len(dice) != 3 or any(isinstance(d, bool) or not isinstance(d, int) or not 1 <= d <= 6 for d in dice):
        raise TableRuleError("dice", "three dice, each 1 to 6")
    stacks = [tuple(shoe.draw() for _ in range(7)) for _ in range(7)]
    if start_from == "left":
        stacks.reverse()
    elif start_from != "right":
        raise TableRuleError("start_from", "the stacks are dealt from the right or the left")
    ring = positions(rules, banker)
    first = ring.index(first_position(dice, rules, banker))
    hands = {ring[(first + k) % 7]: stacks[k] for k in range(7)}
    return PaiGowDeal((dice[0], dice[1], dice[2]), banker, hands)


def deal_live(rng, rules: PaiGowRules, *, banker: str = DEALER, start_from: str = "right") -> PaiGowDeal:
    """Live play: the dice, then the shuffle, from the same ``rng``."""
    dice = roll_dice(rng)
    return deal(new_deck(rng), dice, rules, banker=banker, start_from=start_from)


def deal_from_hands(dice: Sequence[int], hands: Mapping[str, Any], rules: PaiGowRules, *,
                    banker: str = DEALER) -> PaiGowDeal:
    """Input mode: the hands as the dealer dealt them (a miscount makes that hand dead)."""
    if len(dice) != 3 or any(isinstance(d, bool) or not isinstance(d, int) or not 1 <= d <= 6 for d in dice):
        raise TableRuleError("dice", "three dice, each 1 to 6")
    parsed = {p: tuple(parse_pg_cards(cs, field=f"hands.{p}")) for p, cs in hands.items()}
    unknown = set(parsed) - set(rules.ring)
    if unknown:
        raise TableRuleError("hands", f"no place {sorted(unknown)[0]!r} at this table")
    allc = [c for cs in parsed.values() for c in cs]
    if len(set(allc)) != len(allc):
        raise TableRuleError("hands", "a card appears twice (one 53-card deck)")
    return PaiGowDeal((dice[0], dice[1], dice[2]), banker, parsed)


# ------------------------------------------------------------------------------------------- banking
def bank_offer(hand_number: int, rules: PaiGowRules) -> str:
    """Whose turn it is to be offered the bank on hand ``hand_number`` (1-based): the dealer first, then each
    place counter-clockwise -- so each seat once every seven hands. Declined or empty: the dealer banks."""
    return rules.ring[(hand_number - 1) % len(rules.ring)]


def banker_cover(bets: Sequence[Bet], banker: str, house_bet: int = 0) -> int:
    """What a banking player must cover: every other place's bets plus the house's bet against the bank."""
    return sum(b.action for b in bets if b.spot == "main" and b.box != banker) + house_bet


def check_banker(place: str, hand_number: int, rules: PaiGowRules, *, played_previous: bool,
                 last_banked: int | None, bankroll: int, cover: int) -> None:
    """A player's request to bank this hand: once every ``bank_every`` hands, having played the previous
    hand, with enough to cover the action. Raises :class:`TableRuleError` naming the problem."""
    if place == DEALER:
        return
    if place not in rules.ring:
        raise TableRuleError("banker", f"no place {place!r} at this table")
    if not played_previous:
        raise TableRuleError("banker", "a player banks only after playing the previous hand")
    if last_banked is not None and hand_number - last_banked < rules.bank_every:
        raise TableRuleError("banker", f"a player may bank once every {rules.bank_every} hands "
                                       f"(last banked on hand {last_banked})")
    if bankroll < cover:
        raise TableRuleError("banker", f"the bank must cover the action: {format_won(cover)} "
                                       f"(the player has {format_won(bankroll)})")


# ------------------------------------------------------------------------------------------- the round
@dataclass(frozen=True)
class SetHand:
    place: str
    player: str | None
    cards: tuple[PGCard, ...]
    setting: Setting | None  # None: dead hand or unset (dealer's unused hand)
    house_way: bool = False  # set by the house way (dealer, or a player's request)

    @property
    def dead(self) -> bool:
        return len(self.cards) != 7

    @property
    def foul(self) -> bool:
        return self.setting is not None and self.setting.foul

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"place": self.place, "player": self.player, "cards": pg_strings(self.cards),
                             "dead": self.dead, "house_way": self.house_way}
        if self.setting is not None:
            d.update(self.setting.to_dict())
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> SetHand:
        s = Setting.from_dict(d) if "high" in d else None
        return cls(d["place"], d.get("player"), tuple(parse_pg_cards(d["cards"])), s, bool(d.get("house_way")))


@dataclass(frozen=True)
class PaiGowOutcome:
    dice: tuple[int, ...]
    banker: str  # "dealer" or the banking player's place
    hands: Mapping[str, SetHand]
    house_bet: int = 0  # the house's bet against a banking player

    @property
    def banker_hand(self) -> SetHand:
        return self.hands[self.banker]

    @property
    def all_dead(self) -> bool:
        return self.banker_hand.dead

    def player_result(self, place: str) -> int | None:
        """+1 / 0 / -1 for a place against the banker (``None``: dead hand)."""
        h = self.hands[place]
        if h.dead or self.all_dead:
            return None
        banker = self.banker_hand.setting
        assert h.setting is not None and banker is not None, "every live hand of a set round has its setting"
        return result(h.setting, banker)

    @property
    def house_result(self) -> int | None:
        """The house's (dealer hand's) result against a banking player; ``None`` when the house banks."""
        if self.banker == DEALER or self.all_dead or not self.house_bet:
            return None
        d = self.hands.get(DEALER)
        if d is None or d.dead or d.setting is None:
            return None
        banker = self.banker_hand.setting
        assert banker is not None, "the banker's live hand of a set round has its setting"
        return result(d.setting, banker)

    def to_dict(self) -> dict[str, Any]:
        return {"dice": list(self.dice), "banker": self.banker, "house_bet": self.house_bet,
                "all_dead": self.all_dead, "hands": [h.to_dict() for h in self.hands.values()],
                "results": {p: self.player_result(p) for p, h in self.hands.items()
                            if p not in (self.banker, DEALER) and h.player is not None},
                "house_result": self.house_result}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> PaiGowOutcome:
        hands = [SetHand.from_dict(h) for h in d["hands"]]
        return cls(tuple(d["dice"]), d["banker"], {h.place: h for h in hands}, d.get("house_bet", 0))


class PaiGowRound:
    """Setting the hands after the deal: the players (any order), then the banking player, then the dealer.

    ``players`` maps each place with a bet to its seated player (the banking player included when a player
    banks); ``house_bet`` is the house's bet against a banking player.
    """

    def __init__(self, rules: PaiGowRules, dealt: PaiGowDeal, players: Mapping[str, str], *,
                 house_bet: int = 0) -> None:
        self.rules, self.deal = rules, dealt
        self.banker = dealt.banker
        self.players = dict(players)
        for p in self.players:
            if p not in rules.ring or p == DEALER:
                raise TableRuleError("place", f"no seat {p!r} at this table")
        if self.banker != DEALER and self.banker not in self.players:
            raise TableRuleError("banker", f"the banker's place {self.banker} has no player")
        if self.banker == DEALER and house_bet:
            raise TableRuleError("house_bet", "the house bets against a banking player only")
        self.house_bet = house_bet
        self.settings: dict[str, Setting] = {}
        self.by_house_way: set[str] = set()
        self.log: list[dict[str, Any]] = []
        self.finished = False

    # -- state
    @property
    def all_dead(self) -> bool:
        return self.deal.dead(self.banker)

    def waiting(self) -> list[str]:
        """Places still to set, in the order they may: players first, then the banking player."""
        if self.all_dead or self.finished:
            return []
        players = [p for p in positions(self.rules, self.banker) if p in self.players and p != self.banker
                   and not self.deal.dead(p) and p not in self.settings]
        if players:
            return players
        if self.banker != DEALER and self.banker not in self.settings:
            return [self.banker]
        return []

    def cards(self, place: str) -> tuple[PGCard, ...]:
        return self.deal.hands.get(place, ())

    def _check_turn(self, place: str) -> None:
        if self.finished:
            raise TableRuleError("place", "the hands have been exposed: the round is over")
        if place not in self.players:
            raise TableRuleError("place", f"no player at place {place}")
        if self.all_dead:
            raise TableRuleError("place", "the banker's hand is dead: all hands are dead")
        if self.deal.dead(place):
            raise TableRuleError("place", f"the hand at place {place} is dead (dealt other than seven cards)")
        if place in self.settings:
            raise TableRuleError("place", f"place {place} has already set its hand")
        if place not in self.waiting():
            raise TableRuleError("place", f"place {place} sets after the players (acting out of turn)")

    # -- decisions
    def set_hand(self, place: str, high: Sequence[Any], low: Sequence[Any], *, confirm_foul: bool = False) -> Setting:
        self._check_turn(place)
        s = validate_setting(self.cards(place), high, low)
        if s.foul and not confirm_foul:
            raise TableRuleError("low", "the low hand outranks the high hand: a foul is an automatic loser "
                                        "(set again, or confirm the foul)", foul=True)
        self.settings[place] = s
        self.log.append({"place": place, "action": "set", "high": pg_strings(s.high), "low": pg_strings(s.low),
                         "foul": s.foul})
        return s

    def set_house_way(self, place: str) -> Setting:
        """"House way for me": the table's house way sets this player's hand."""
        self._check_turn(place)
        s = house_way(self.cards(place), self.rules.house_way)
        self.settings[place] = s
        self.by_house_way.add(place)
        self.log.append({"place": place, "action": "house_way"})
        return s

    def finish(self) -> PaiGowOutcome:
        """The dealer sets its hand by the house way and every hand is exposed."""
        if not self.all_dead and self.waiting():
            raise TableRuleError("place", f"place {self.waiting()[0]} has not set its hand")
        if not self.finished and not self.all_dead and not self.deal.dead(DEALER):
            self.settings[DEALER] = house_way(self.cards(DEALER), self.rules.house_way)
            self.by_house_way.add(DEALER)
        self.finished = True
        return self.outcome()

    def outcome(self) -> PaiGowOutcome:
        hands = {}
        for p in self.rules.ring:
            if p in self.players or p == DEALER:
                hands[p] = SetHand(p, self.players.get(p), tuple(self.cards(p)), self.settings.get(p),
                                   p in self.by_house_way)
        return PaiGowOutcome(self.deal.dice, self.banker, hands, self.house_bet)


def replay(rules: PaiGowRules, dealt: PaiGowDeal, players: Mapping[str, str], log: Sequence[Mapping[str, Any]],
           *, house_bet: int = 0) -> PaiGowRound:
    rnd = PaiGowRound(rules, dealt, players, house_bet=house_bet)
    for e in log:
        if e["action"] == "house_way":
            rnd.set_house_way(e["place"])
        else:
            rnd.set_hand(e["place"], e["high"], e["low"], confirm_foul=bool(e.get("foul")))
    rnd.finish()
    return rnd


# ------------------------------------------------------------------------------------------- bets
SPOTS = ("main", "bank")


def parse_spot(spot: str) -> L.SpotInfo:
    s = str(spot).strip().lower()
    if s == "main":
        return L.SpotInfo(s, s)
    if s == "bank":
        raise TableRuleError("spot", "the bank is taken with check_banker, not bet")
    raise TableRuleError("spot", f"unknown pai gow spot {spot!r} (main)")


def default_limits(chip_unit: int = 1_000, minimum: int = 10_000, maximum: int = 2_000_000) -> L.TableLimits:
    return L.TableLimits(chip_unit, {"main": L.SpotLimit(minimum, maximum)})


def check_bet(bet: Bet, limits: L.TableLimits, existing: Sequence[Bet] = (), **ctx: Any) -> Bet:
    """A bet before the dice: ``main`` on a seat (``box`` = the place; backers need the seated player's
    permission, within the box's limit)."""
    if bet.box is None:
        raise TableRuleError("box", "a pai gow bet names its place")
    info = parse_spot(bet.spot)
    parsed = [(b, parse_spot(b.spot)) for b in existing if b.spot == "main"]
    return L.check_bet(bet, info, limits, parsed, **ctx)


# ------------------------------------------------------------------------------------------- settlement
def _commission(win: int, rules: PaiGowRules) -> int:
    return commission_ceil(win, rules.commission_ppm, rules.commission_unit)


def settle(bets: Sequence[Bet], outcome: PaiGowOutcome | Void, rules: PaiGowRules = HOUSE_WAY_91) -> list[Settlement]:
    """``main`` bets per place against the banker's hand; a banking player's ``bank`` bet (the escrowed cover)
    takes the sum of its results against every player and the house, less 5% on a net win."""
    if isinstance(outcome, Void) or outcome.all_dead:
        return void_all(bets)
    results: dict[int, int | None] = {}
    bank_net = 0
    for i, b in enumerate(bets):
        if b.spot == "bank":
            if outcome.banker == DEALER or b.box != outcome.banker:
                raise TableRuleError("spot", "a bank bet belongs to the banking player's place")
            continue
        if b.spot != "main":
            raise TableRuleError("spot", f"unknown pai gow spot {b.spot!r}")
        if b.box == outcome.banker:
            raise TableRuleError("box", "the banker's place has no main bet (its stake is the bank)")
        if b.box is None or b.box not in outcome.hands:
            raise TableRuleError("box", f"bet on place {b.box} which was not in the round")
        r = results[i] = outcome.player_result(b.box)
        if r is not None:
            bank_net -= r * b.action
    hr = outcome.house_result
    if hr is not None:
        bank_net -= hr * outcome.house_bet
    out: list[Settlement] = []
    for i, b in enumerate(bets):
        if b.spot == "bank":
            if bank_net > 0:
                out.append(Settlement(b, WIN, b.amount, bank_net, _commission(bank_net, rules)))
            elif bank_net < 0:
                if -bank_net > b.action:
                    raise TableRuleError("amount", "the bank did not cover the action")
                out.append(Settlement(b, LOSE, b.amount + bank_net))
            else:
                out.append(Settlement(b, PUSH, b.amount))
            continue
        r = results[i]
        if r is None:
            out.append(voided(b))
        elif r > 0:
            out.append(won(b, b.action, _commission(b.action, rules)))
        elif r < 0:
            out.append(lost(b))
        else:
            out.append(Settlement(b, PUSH, b.amount))
    return out


def house_net(outcome: PaiGowOutcome, settlements: Sequence[Settlement]) -> int:
    """What the house gains on the round: commissions plus its bet against a banking player."""
    hr = outcome.house_result
    return sum(s.commission for s in settlements) + (hr * outcome.house_bet if hr is not None else 0)


# ------------------------------------------------------------------------------------------- optimal setting
@dataclass(frozen=True)
class SettingValue:
    setting: Setting
    ev: float  # per unit bet (a win pays 0.95 after commission)
    se: float  # its standard error from the sample
    win: float
    push: float
    lose: float


def optimal_setting(cards: Sequence[PGCard] | str, rng, *, policy: str = "9-1", samples: int = 2_000,
                    commission: float = 0.05) -> list[SettingValue]:
    """Every non-foul setting of these seven cards valued against the dealer's house way, best first.

    The dealer's hand is drawn ``samples`` times from the 46 unseen cards (``rng.randbelow``), set by the
    house way, and every setting is played against the same dealer hands (common random numbers), so the
    differences between settings are much more precise than each EV's standard error.
    """
    cs = parse_pg_cards(cards) if isinstance(cards, str) else list(cards)
    if len(cs) != 7 or len(set(cs)) != 7:
        raise TableRuleError("cards", "seven different cards")
    unseen = [c for c in deck53() if c not in set(cs)]
    dealer: list[tuple[tuple[int, ...], tuple[int, ...]]] = []
    for _ in range(samples):
        pool = list(unseen)
        hand = []
        for i in range(7):
            j = i + rng.randbelow(len(pool) - i)
            pool[i], pool[j] = pool[j], pool[i]
            hand.append(pool[i])
        s = house_way(hand, policy)
        dealer.append((s.high_key, s.low_key))
    seen: dict[tuple, Setting] = {}
    for s in all_settings(cs):
        if not s.foul:
            seen.setdefault((s.high_key, s.low_key), s)
    out = []
    for (hk, lk), s in seen.items():
        w = p = 0
        for dh, dl in dealer:
            hi, lo = hk > dh, lk > dl
            if hi and lo:
                w += 1
            elif hi or lo:
                p += 1
        n = len(dealer)
        lose = n - w - p
        ev = (w * (1 - commission) - lose) / n
        m2 = (w * (1 - commission) ** 2 + lose) / n
        se = max(m2 - ev * ev, 0.0) ** 0.5 / n ** 0.5
        out.append(SettingValue(s, ev, se, w / n, p / n, lose / n))
    out.sort(key=lambda v: (v.ev, v.setting.high_key, v.setting.low_key), reverse=True)
    return out
