"""What the house-banked poker games share: boxes acting in turn, side bets that need the ante, progressive
awards reported for the jackpot controller, and settlement lines whose result follows their net.

* :class:`BoxStake` -- a box in play (its id, the seated player, the ante), in dealing order;
* :class:`TurnOrder` -- whose decision it is: boxes act one at a time in dealing order, street by street;
  a decision from any other box is refused (``TableRuleError("box", ...)``: acting out of turn);
* :func:`check_ante_game_bet` -- bet validation for ante games: a side bet (pair plus, bonus, progressive)
  needs the same player's ante on the box (placed first), the progressive is a fixed stake;
  :func:`ante_game_spot` -- an ante game's spots, the bets its decisions place priced off the ante;
* :class:`ProgressivePay` / :class:`ProgressiveAward` -- the progressive side bet's paytable (a share of
  the meter in ppm, or a fixed amount in won) and the award a hand qualifies for. The engines only
  **report** awards (:func:`progressive_awards`, :func:`ante_progressive_awards` from a round's outcome);
  the meter lives on the jackpot controller and the
  framework pays. A progressive bet settles as ``"jackpot"`` (its stake feeds the meter, nothing is
  returned; the award is paid by the controller) or as lost.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from slotsys.kernel.money import format_won, payout_floor
from table_games.domain import limits as L
from table_games.domain.errors import TableRuleError
from table_games.domain.settlement import LOSE, PUSH, WIN, Bet, Settlement, Void
from table_games.domain.shoe import Shoe

JACKPOT = "jackpot"  # settlement result of a progressive bet whose hand qualifies for an award
PROGRESSIVE = "progressive"


# ------------------------------------------------------------------------------------------- boxes, turns
@dataclass(frozen=True)
class BoxStake:
    """A box in play: its id, the seated player, and the ante (the box's main bet)."""

    box: str
    player: str
    ante: int


def box_stakes(boxes: Sequence[BoxStake | tuple[str, str, int]], *, max_boxes: int | None = None) -> list[BoxStake]:
    if not boxes:
        raise TableRuleError("boxes", "a round needs at least one box with an ante")
    out: list[BoxStake] = []
    seen: set[str] = set()
    for b in boxes:
        b = b if isinstance(b, BoxStake) else BoxStake(*b)
        if b.box in seen:
            raise TableRuleError("boxes", f"box {b.box} appears twice")
        if isinstance(b.ante, bool) or not isinstance(b.ante, int) or b.ante <= 0:
            raise TableRuleError("amount", f"box {b.box} has no ante")
        seen.add(b.box)
        out.append(b)
    if max_boxes is not None and len(out) > max_boxes:
        raise TableRuleError("boxes", f"at most {max_boxes} boxes at this table")
    return out


class TurnOrder:
    """Boxes decide one at a time, in dealing order; ``active`` boxes only (folded boxes drop out)."""

    def __init__(self, boxes: Iterable[str]) -> None:
        self.order = list(boxes)
        self.waiting: list[str] = list(self.order)

    @property
    def current(self) -> str | None:
        return self.waiting[0] if self.waiting else None

    def expect(self, box: str) -> None:
        if box not in self.order:
            raise TableRuleError("box", f"box {box} is not in this round")
        cur = self.current
        if cur is None:
            raise TableRuleError("action", "no decision is due now")
        if box != cur:
            raise TableRuleError("box", f"box {cur} is to act, not box {box} (acting out of turn)")

    def done(self, box: str) -> None:
        self.waiting.remove(box)

    def next_street(self, boxes: Iterable[str]) -> None:
        keep = set(boxes)
        self.waiting = [b for b in self.order if b in keep]


# ------------------------------------------------------------------------------------------- bets
def ante_spot(spot: str, game: str, spots: Sequence[str]) -> L.SpotInfo:
    s = str(spot).strip().lower()
    if s not in spots:
        raise TableRuleError("spot", f"unknown {game} spot {spot!r} (bets before the deal: {', '.join(spots)})")
    return L.SpotInfo(s, s)


def ante_game_spot(spot: str, game: str, spots: Sequence[str], decisions: Mapping[str, int]) -> L.SpotInfo:
    """An ante game's spot: one of ``spots`` (bets before the deal), or a bet a decision places
    (``decisions``: spot → its chips per ante chip, e.g. Caribbean stud's call = 2), priced off the ante's limits.
    ``TableRuleError("spot")`` for anything else."""
    s = str(spot).strip().lower()
    if s in decisions:
        return L.SpotInfo(s, "ante", chips=decisions[s])
    if s not in spots:
        raise TableRuleError("spot", f"unknown {game} spot {spot!r} (before the deal: {', '.join(spots)})")
    return L.SpotInfo(s, s)


def check_ante_game_bet(bet: Bet, limits: L.TableLimits, existing: Sequence[Bet], *, game: str,
                        spots: Sequence[str], side_spots: Iterable[str], progressive_stake: int | None,
                        **ctx: Any) -> Bet:
    """Validate a bet before the deal (ante, or a side bet on a box where the player has an ante).

    The ante comes first: a side bet without the same player's ante on the same box is refused; the
    progressive is exactly ``progressive_stake`` (one per box and player).
    """
    if bet.box is None:
        raise TableRuleError("box", f"a {game} bet names its box")
    info = ante_spot(bet.spot, game, spots)
    side = set(side_spots)
    if info.spot in side:
        if not any(b.spot == "ante" and b.box == bet.box and b.player == bet.player for b in existing):
            raise TableRuleError("spot", f"a {info.spot.replace('_', ' ')} bet needs the ante on box {bet.box} first")
    if info.spot == PROGRESSIVE:
        if progressive_stake is not None and bet.amount != progressive_stake:
            raise TableRuleError("amount", f"the progressive bet is {format_won(progressive_stake or 0)}")
        if any(b.spot == PROGRESSIVE and b.box == bet.box and b.player == bet.player for b in existing):
            raise TableRuleError("spot", f"one progressive bet per box (box {bet.box})")
    parsed = [(b, ante_spot(b.spot, game, spots)) for b in existing if str(b.spot).strip().lower() in spots]
    return L.check_bet(bet, info, limits, parsed, **ctx)


# ------------------------------------------------------------------------------------------- settlement
def by_net(bet: Bet, stake_returned_of_action: int, win: int = 0, commission: int = 0) -> Settlement:
    """A settlement whose result says what the player got: win (payout above the bet), push, lose.

    ``stake_returned_of_action`` is the part of the bet's *action* handed back; an over-maximum excess is
    always handed back too. Used where a bet can lose its stake and still collect a bonus (three card
    poker's ante bonus on a losing hand).
    """
    returned = bet.excess + stake_returned_of_action
    payout = returned + win - commission
    result = WIN if payout > bet.amount else PUSH if payout == bet.amount else LOSE
    return Settlement(bet, result, returned, win, commission)


def pays(bet: Bet, odds: int) -> Settlement:
    """``odds`` to 1 on the bet's action (stake back)."""
    return Settlement(bet, WIN, bet.amount, bet.action * odds)


# ------------------------------------------------------------------------------------------- progressive
@dataclass(frozen=True)
class ProgressivePay:
    """One line of a progressive paytable: ``meter_ppm`` of the meter (1,000,000 = 100%) or ``fixed`` won."""

    meter_ppm: int = 0
    fixed: int = 0

    def __post_init__(self) -> None:
        if (self.meter_ppm > 0) == (self.fixed > 0) or self.meter_ppm < 0 or self.fixed < 0:
            raise ValueError("a progressive line pays either a share of the meter or a fixed amount")
        if self.meter_ppm > 1_000_000:
            raise ValueError("at most 100% of the meter")

    def to_dict(self) -> dict[str, int]:
        return {"meter_ppm": self.meter_ppm} if self.meter_ppm else {"fixed": self.fixed}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any] | ProgressivePay) -> ProgressivePay:
        if isinstance(d, ProgressivePay):
            return d
        return cls(int(d.get("meter_ppm", 0)), int(d.get("fixed", 0)))


def paytable_from_dict(d: Mapping[str, Any]) -> dict[str, ProgressivePay]:
    return {k: ProgressivePay.from_dict(v) for k, v in d.items()}


@dataclass(frozen=True)
class ProgressiveAward:
    """A progressive bet's hand qualifies for ``hand``: pay ``meter_ppm`` of the meter divided among the
    ``shared_by`` hands that share it, or ``fixed`` won. The framework pays it through the jackpot
    controller (:meth:`amount` computes it from the meter, rounded down to the won)."""

    bet: Bet
    box: str
    player: str
    hand: str
    meter_ppm: int = 0
    fixed: int = 0
    shared_by: int = 1

    def amount(self, meter_won: int = 0) -> int:
        if self.fixed:
            return self.fixed
        return payout_floor(meter_won, self.meter_ppm, 1_000_000 * self.shared_by)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"bet": self.bet.to_dict(), "box": self.box, "player": self.player, "hand": self.hand}
        if self.meter_ppm:
            d.update(meter_ppm=self.meter_ppm, shared_by=self.shared_by)
        else:
            d["fixed"] = self.fixed
        return d


def best_award(categories: Iterable[str], paytable: Mapping[str, ProgressivePay]) -> str | None:
    """The first of the hand's ``categories`` (best first) that the paytable pays, or ``None``."""
    for c in categories:
        if c in paytable:
            return c
    return None


def progressive_awards(claims: Sequence[tuple[Bet, str, str, str | None]],
                       paytable: Mapping[str, ProgressivePay],
                       shared: Iterable[str] = ()) -> list[ProgressiveAward]:
    """``claims`` = (bet, box, player, qualifying hand or None) per progressive bet → awards.

    Hands of a category in ``shared`` (e.g. several royal flushes in one round) share that line's meter
    percentage equally (``shared_by``).
    """
    shared = set(shared)
    count: dict[str, int] = {}
    for _, _, _, hand in claims:
        if hand is not None:
            count[hand] = count.get(hand, 0) + 1
    out = []
    for bet, box, player, hand in claims:
        if hand is None:
            continue
        p = paytable[hand]
        n = count[hand] if (hand in shared and p.meter_ppm) else 1
        out.append(ProgressiveAward(bet, box, player, hand, p.meter_ppm, p.fixed, n))
    return out


def ante_progressive_awards(bets: Sequence[Bet], outcome: Any, rules: Any, hand_of: Callable[[Any], str | None], *,
                            in_play: Callable[[Any], bool] | None = None) -> list[ProgressiveAward]:
    """The progressive awards of an ante game's round: each progressive bet's box hand (``outcome.boxes``) in play
    (``in_play``, default every hand) claims the line ``hand_of(hand)`` names (or none) of ``rules.progressive``;
    ``rules.progressive_shared`` lines are shared. A :class:`Void` outcome claims nothing."""
    if isinstance(outcome, Void):
        return []
    claims = []
    for b in bets:
        if b.spot == PROGRESSIVE:
            h = box_hand(outcome.boxes, b)
            if in_play is None or in_play(h):
                claims.append((b, h.box, h.player, hand_of(h)))
    return progressive_awards(claims, rules.progressive, rules.progressive_shared)


def settle_progressive(bet: Bet, hand: str | None) -> Settlement:
    """The progressive stake feeds the meter: ``jackpot`` (award reported separately) or lost."""
    return Settlement(bet, JACKPOT if hand is not None else LOSE, bet.excess)


# ------------------------------------------------------------------ shared by the one-deck poker games
def new_deck(rng) -> Shoe:
    """One 52-card deck shuffled with ``rng`` (Fisher-Yates); input mode uses ``Shoe.stacked``."""
    return Shoe.shuffled(1, rng, cut_card_from_end=0)


def require_one_deck(cards: Sequence[Any]) -> list[Any]:
    """Input mode: refuse a dealt sequence that names a card twice (one deck); returns it as a list."""
    out = list(cards)
    if len(set(out)) != len(out):
        raise TableRuleError("cards", "a card appears twice (one deck)")
    return out


def play_out(rnd: Any, decisions: Iterable[Mapping[str, Any]]) -> Any:
    """Replay recorded decisions ({"box", "action"}) on a dealt round, finish it and return it."""
    for d in decisions:
        rnd.act(d["box"], d["action"])
    rnd.finish()
    return rnd


def box_hand(boxes: Mapping[str, Any], b: Bet) -> Any:
    """The hand of the box a bet sits on, or TableRuleError("box") if the box was not dealt."""
    h = boxes.get(b.box or "")
    if h is None:
        raise TableRuleError("box", f"bet on box {b.box} which was not in the round")
    return h
