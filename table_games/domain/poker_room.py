"""Poker room: Texas hold'em (fixed-limit and no-limit) on top of **pokerkit** (pure; DESIGN.md §5 "Poker room").

pokerkit is the state machine: who acts, which actions and amounts are legal, blinds and antes, bet collection,
uncalled bets returned, main and side pots, showdown, odd chips, and PHH (Poker Hand History) export/import.
This module only wraps it for the casino:

* :class:`RoomConfig` -- a table's rules: ``variant`` ``"FL"`` (small bet / big bet; the first two rounds in small
  bets, the last two in big bets; a bet and three raises per round, **uncapped when the hand is dealt heads-up**)
  or ``"NL"`` (blinds set at opening, min bet = big blind, all-in allowed); small/big blind; ``ante`` with
  ``ante_mode`` ``"none"`` / ``"each"`` (every player) / ``"big_blind"`` (the big blind posts it: dead money,
  not part of the blind); min/max buy-in; rake ``rake_ppm`` (parts per million of the hand's pot) with ``rake_cap``
  (won per hand, 0 = no cap), ``no_flop_no_drop``. Amounts are integer won.
* :func:`new_state` / :func:`rebuild` -- a hand from its starting stacks (in pokerkit order: the first seat left
  of the button first, the button last; heads-up the button is the small blind), a deck shuffled with the caller's
  CSPRNG (:func:`shuffled_deck`) and the player actions so far (PHH action strings such as ``"p3 cbr 4000"``).
  Cards are dealt from that deck, burn cards included, so the same inputs rebuild the same hand.
* :func:`legal` -- whose turn it is and what they may do (``fold``/``check``/``call``/``bet``/``raise`` with the
  call amount and the min/max "raise to" amounts); :func:`act` applies one action or raises
  :class:`TableRuleError` naming ``action``/``amount``/``seat``.
* :func:`showdown` -- each shown hand with the standard name and the Korean name (Mountain = broadway straight,
  Back straight = A-2-3-4-5, Back straight flush = A-2-3-4-5 suited).
* :func:`to_phh` / :func:`load_phh` / :func:`replay_phh` -- export, import and replay (the replay's finishing
  stacks are compared with the file's ``finishing_stacks``; a flag the recorded result contradicts, such as
  ``ante_trimming_status = true`` on a big-blind-ante hand, is overridden with a warning).

Odd chips of a split pot go to the first winner left of the button (pokerkit gives the remainder to the lowest
player index, which is the first seat left of the button). Rake: ``rake_ppm`` of the hand's total pot, rounded
DOWN to the won and capped at ``rake_cap``; with side pots each pot carries its pro-rata share, rounded down
(pokerkit rakes pot by pot), so a hand's rake is never above the cap.
"""

from __future__ import annotations

import copy
import warnings
from collections import deque
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from pokerkit import (
    Automation,
    Card,
    Deck,
    FixedLimitTexasHoldem,
    HandHistory,
    HoleCardsShowingOrMucking,
    Label,
    Mode,
    NoLimitTexasHoldem,
    Rank,
    StandardHighHand,
    State,
)
from pokerkit.notation import parse_action

from slotsys.kernel.money import PPM, payout_floor
from table_games.domain.errors import TableRuleError

VARIANTS = ("FL", "NL")
ANTE_MODES = ("none", "each", "big_blind")
MIN_SEATS, MAX_SEATS = 2, 10

AUTOMATIONS = (
    Automation.ANTE_POSTING,
    Automation.BET_COLLECTION,
    Automation.BLIND_OR_STRADDLE_POSTING,
    Automation.RUNOUT_COUNT_SELECTION,
    Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
    Automation.HAND_KILLING,
    Automation.CHIPS_PUSHING,
    Automation.CHIPS_PULLING,
)


class CasinoFixedLimitTexasHoldem(FixedLimitTexasHoldem):
    """Fixed-limit hold'em capped at a bet and three raises on every round; pre-flop the big blind is the bet, so
    three raises (pokerkit's stock game counts raises only and would allow a fourth pre-flop)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        first, *rest = self.streets
        self.streets = (replace(first, max_completion_betting_or_raising_count=3), *rest)


class HeadsUpFixedLimitTexasHoldem(FixedLimitTexasHoldem):
    """Fixed-limit hold'em dealt heads-up: no cap on the number of raises (DESIGN.md §5)."""

    max_completion_betting_or_raising_count = None


# ---------------------------------------------------------------------- configuration
@dataclass(frozen=True)
class RoomConfig:
    """A poker table's rules (integer won). ``small_bet``/``big_bet`` are for ``FL`` only."""

    variant: str = "NL"
    seats: int = 9
    small_blind: int = 1_000
    big_blind: int = 2_000
    small_bet: int = 0
    big_bet: int = 0
    ante: int = 0
    ante_mode: str = "none"
    min_buy_in: int = 40_000
    max_buy_in: int = 200_000
    rake_ppm: int = 0
    rake_cap: int = 0
    no_flop_no_drop: bool = True

    def __post_init__(self) -> None:
        def need(ok: bool, name: str, msg: str) -> None:
            if not ok:
                raise TableRuleError(name, msg)

        for name, v in asdict(self).items():
            if name not in ("variant", "ante_mode", "no_flop_no_drop"):
                need(isinstance(v, int) and not isinstance(v, bool), name, f"{name} must be an integer")
        need(isinstance(self.no_flop_no_drop, bool), "no_flop_no_drop", "no_flop_no_drop must be true or false")
        need(self.variant in VARIANTS, "variant", "variant must be FL (fixed-limit) or NL (no-limit)")
        need(MIN_SEATS <= self.seats <= MAX_SEATS, "seats", f"a table has {MIN_SEATS}-{MAX_SEATS} seats")
        need(0 < self.small_blind <= self.big_blind, "small_blind", "blinds must be positive, small ≤ big")
        if self.variant == "FL":
            need(0 < self.small_bet and self.big_bet >= self.small_bet, "small_bet",
                 "fixed-limit needs small_bet > 0 and big_bet ≥ small_bet")
            need(self.big_blind <= self.small_bet, "big_blind", "the big blind may not exceed the small bet")
        need(self.ante_mode in ANTE_MODES, "ante_mode", "ante_mode must be none, each or big_blind")
        need(self.ante >= 0 and (self.ante > 0) == (self.ante_mode != "none"), "ante",
             "ante must be > 0 exactly when ante_mode is each or big_blind")
        need(0 < self.min_buy_in <= self.max_buy_in, "min_buy_in", "buy-ins need 0 < min_buy_in ≤ max_buy_in")
        need(self.min_buy_in >= self.big_blind, "min_buy_in", "the minimum buy-in must cover the big blind")
        need(0 <= self.rake_ppm <= 100_000, "rake_ppm", "rake_ppm must be 0-100,000 (0-10%)")
        need(self.rake_cap >= 0, "rake_cap", "rake_cap must not be negative (0 = no cap)")

    @classmethod
    def from_dict(cls, d: dict | None) -> "RoomConfig":
        d = dict(d or {})
        unknown = set(d) - set(cls.__dataclass_fields__)
        if unknown:
            raise TableRuleError("rules", f"unknown rule(s): {', '.join(sorted(unknown))}")
        return cls(**d)

    def to_dict(self) -> dict:
        return asdict(self)


# ---------------------------------------------------------------------- rake
@dataclass(frozen=True)
class Rake:
    """pokerkit rake callable ``(pot amount, state) -> (raked, unraked)``: ``rate_ppm`` of the hand's total pot
    (rounded down to the won), capped at ``cap`` (0 = none) per hand, shared pro rata over the pots."""

    rate_ppm: int = 0
    cap: int = 0
    no_flop_no_drop: bool = True

    def hand_rake(self, total: int, flop_seen: bool) -> int:
        if not self.rate_ppm or total <= 0 or (self.no_flop_no_drop and not flop_seen):
            return 0
        r = payout_floor(total, self.rate_ppm, PPM)
        return min(r, self.cap) if self.cap else r

    def __call__(self, amount: int, state: State | None = None) -> tuple[int, int]:
        if state is None or not self.rate_ppm:
            return 0, amount
        total = sum(state.starting_stacks) - sum(state.stacks) - sum(state.bets)  # every chip in the pots
        r = self.hand_rake(total, any(state.board_cards))
        share = payout_floor(amount, r, total) if total else 0
        return share, amount - share


def rake_of(cfg: RoomConfig) -> Rake:
    return Rake(cfg.rake_ppm, cfg.rake_cap, cfg.no_flop_no_drop)


# ---------------------------------------------------------------------- the game
def antes_for(cfg: RoomConfig, players: int) -> dict[int, int] | int:
    """pokerkit antes: everyone, or the big blind's position (index 1 in pokerkit's blind order, which pokerkit
    swaps for heads-up play just as it swaps the blinds, so the big blind posts it there too)."""
    if cfg.ante_mode == "each":
        return cfg.ante
    if cfg.ante_mode == "big_blind":
        return {1: cfg.ante}
    return 0


def make_game(cfg: RoomConfig, players: int):
    """The pokerkit game (cash-game mode) for ``players`` dealt in."""
    if not MIN_SEATS <= players <= MAX_SEATS:
        raise TableRuleError("seats", f"a hand needs {MIN_SEATS}-{MAX_SEATS} players with chips, not {players}")
    antes, blinds, rake = antes_for(cfg, players), (cfg.small_blind, cfg.big_blind), rake_of(cfg)
    if cfg.variant == "FL":
        cls = HeadsUpFixedLimitTexasHoldem if players == 2 else CasinoFixedLimitTexasHoldem
        return cls(automations=AUTOMATIONS, ante_trimming_status=False, raw_antes=antes,
                   raw_blinds_or_straddles=blinds, small_bet=cfg.small_bet, big_bet=cfg.big_bet,
                   mode=Mode.CASH_GAME, rake=rake)
    return NoLimitTexasHoldem(automations=AUTOMATIONS, ante_trimming_status=False, raw_antes=antes,
                              raw_blinds_or_straddles=blinds, min_bet=cfg.big_blind, mode=Mode.CASH_GAME, rake=rake)


def shuffled_deck(rng) -> list[str]:
    """A standard 52-card deck shuffled (Fisher-Yates) with ``rng.randbelow`` (the live CSPRNG)."""
    cards = [repr(c) for c in Deck.STANDARD]
    for i in range(len(cards) - 1, 0, -1):
        j = rng.randbelow(i + 1)
        cards[i], cards[j] = cards[j], cards[i]
    return cards


def _deal(state: State) -> None:
    """Burn and deal whatever the state waits for, from its deck (the caller's shuffled cards)."""
    while True:
        if state.can_burn_card():
            state.burn_card()
        elif state.can_deal_hole():
            state.deal_hole()
        elif state.can_deal_board():
            state.deal_board()
        else:
            return


def new_state(cfg: RoomConfig, stacks: list[int], deck: list[str]) -> State:
    """A fresh hand: blinds/antes posted, hole cards dealt from ``deck`` (strings like ``"Ah"``)."""
    if any(s <= 0 for s in stacks):
        raise TableRuleError("stacks", "every player dealt in needs chips")
    state = make_game(cfg, len(stacks))(list(stacks), len(stacks))
    state.deck_cards = deque(Card.parse("".join(deck)))
    _deal(state)
    return state


def rebuild(cfg: RoomConfig, stacks: list[int], deck: list[str], actions: list[str]) -> State:
    """The hand after ``actions`` (PHH player-action strings), re-dealt from the same deck."""
    state = new_state(cfg, stacks, deck)
    for a in actions:
        parse_action(state, a)
        _deal(state)
    return state


# ---------------------------------------------------------------------- actions
def legal(state: State) -> dict | None:
    """Whose turn and what they may do: ``{"player": index, "actions": [...], "call": won to call,
    "min_raise_to": won, "max_raise_to": won, "bet_or_raise": "bet"|"raise"|None}``; None when nobody acts."""
    i = state.actor_index
    if i is None or not state.status:
        return None
    call = state.checking_or_calling_amount or 0
    acts = []
    if call > 0 and state.can_fold():
        acts.append("fold")
    acts.append("call" if call > 0 else "check")
    kind = None
    lo = hi = None
    if state.can_complete_bet_or_raise_to():
        kind = "raise" if max(state.bets) > 0 else "bet"
        acts.append(kind)
        lo = state.min_completion_betting_or_raising_to_amount
        hi = state.max_completion_betting_or_raising_to_amount
    return {"player": i, "actions": acts, "call": call, "bet_or_raise": kind, "min_raise_to": lo,
            "max_raise_to": hi, "stack": state.stacks[i], "bet": state.bets[i]}


def act(state: State, player: int, action: str, amount: int | None = None) -> str:
    """Apply ``action`` for pokerkit ``player`` index; returns the PHH action string.

    ``bet``/``raise`` take ``amount`` = the total to bet or raise **to** on this round (fixed-limit: optional,
    the one legal size); ``all_in`` = bet/raise to the whole stack (or call when that cannot raise).
    Raises :class:`TableRuleError` (``seat`` out of turn, ``action`` not allowed, ``amount`` out of range)."""
    view = legal(state)
    if view is None:
        raise TableRuleError("action", "nobody is to act in this hand")
    if player != view["player"]:
        raise TableRuleError("seat", "it is not this player's turn", to_act=view["player"])
    if action == "all_in":
        if view["bet_or_raise"] and view["max_raise_to"] == view["stack"] + view["bet"]:
            action, amount = view["bet_or_raise"], view["max_raise_to"]
        elif view["call"]:
            action, amount = "call", None
        else:
            raise TableRuleError("action", "nothing to go all in with here")
    if action not in view["actions"]:
        raise TableRuleError("action", f"{action} is not allowed now (allowed: {', '.join(view['actions'])})",
                             allowed=view["actions"])
    p = f"p{player + 1}"
    if action in ("check", "call"):
        if amount is not None:
            raise TableRuleError("amount", f"{action} takes no amount (the call is ₩{view['call']:,})")
        out = f"{p} cc"
    elif action == "fold":
        if amount is not None:
            raise TableRuleError("amount", "fold takes no amount")
        out = f"{p} f"
    else:
        if amount is None:
            if state.betting_structure.name == "FIXED_LIMIT":
                amount = view["min_raise_to"]
            else:
                raise TableRuleError("amount", f"{action} needs an amount to {action} to "
                                               f"(₩{view['min_raise_to']:,}-₩{view['max_raise_to']:,})")
        if isinstance(amount, bool) or not isinstance(amount, int) or not (
                view["min_raise_to"] <= amount <= view["max_raise_to"]):
            raise TableRuleError("amount", f"{action} to ₩{view['min_raise_to']:,}-₩{view['max_raise_to']:,}, "
                                           f"not {amount}", min_raise_to=view["min_raise_to"],
                                 max_raise_to=view["max_raise_to"])
        out = f"{p} cbr {amount}"
    parse_action(state, out)
    _deal(state)
    return out


# ---------------------------------------------------------------------- hand names
STANDARD = {
    Label.HIGH_CARD: ("High card", "하이카드"),
    Label.ONE_PAIR: ("One pair", "원페어"),
    Label.TWO_PAIR: ("Two pair", "투페어"),
    Label.THREE_OF_A_KIND: ("Three of a kind", "트리플"),
    Label.STRAIGHT: ("Straight", "스트레이트"),
    Label.FLUSH: ("Flush", "플러시"),
    Label.FULL_HOUSE: ("Full house", "풀하우스"),
    Label.FOUR_OF_A_KIND: ("Four of a kind", "포카드"),
    Label.STRAIGHT_FLUSH: ("Straight flush", "스트레이트 플러시"),
}


def hand_names(label: Label, cards) -> dict:
    """``{"name", "korean", "casino"}`` for a 5-card hand: the casino's names Mountain (T-J-Q-K-A straight),
    Back straight (A-2-3-4-5) and Back straight flush; Royal straight flush for T-A suited."""
    name, korean = STANDARD[label]
    casino = name
    ranks = {c.rank for c in cards}
    if label in (Label.STRAIGHT, Label.STRAIGHT_FLUSH):
        broadway = ranks == {Rank.TEN, Rank.JACK, Rank.QUEEN, Rank.KING, Rank.ACE}
        wheel = ranks == {Rank.ACE, Rank.DEUCE, Rank.TREY, Rank.FOUR, Rank.FIVE}
        if label == Label.STRAIGHT and broadway:
            casino, korean = "Mountain", "마운틴"
        elif label == Label.STRAIGHT and wheel:
            casino, korean = "Back straight", "백스트레이트"
        elif broadway:
            casino, korean = "Royal straight flush", "로열 스트레이트 플러시"
        elif wheel:
            casino, korean = "Back straight flush", "백스트레이트 플러시"
    return {"name": name, "casino": casino, "korean": korean}


def board(state: State) -> list[str]:
    return [repr(c) for c in state.get_board_cards(0)]


def showdown(state: State) -> list[dict]:
    """Each hand shown face up (pokerkit shows what can win and mucks the rest): pokerkit index, hole cards, the
    best five (pokerkit's evaluator) and the standard, casino and Korean names. ``position`` is pokerkit's
    0-based player index, not a player id."""
    cards = list(state.get_board_cards(0))
    out = []
    for op in state.operations:
        if isinstance(op, HoleCardsShowingOrMucking) and op.hole_cards and len(cards) >= 3:
            h = StandardHighHand.from_game(op.hole_cards, cards)
            out.append({"position": op.player_index, "hole": [repr(c) for c in op.hole_cards],
                        "best": [repr(c) for c in h.cards], **hand_names(h.entry.label, h.cards)})
    return out


# ---------------------------------------------------------------------- records
@dataclass
class HandResult:
    """A finished hand: finishing stacks (pokerkit order), rake (won), each player's net (won)."""

    starting_stacks: list[int]
    finishing_stacks: list[int]
    rake: int
    net: list[int] = field(default_factory=list)

    @classmethod
    def of(cls, state: State) -> "HandResult":
        start, end = list(state.starting_stacks), list(state.stacks)
        return cls(start, end, sum(start) - sum(end), [e - s for s, e in zip(start, end)])


def to_phh(cfg: RoomConfig, state: State, **meta: Any) -> str:
    """The hand as PHH text (TOML). ``meta``: optional PHH fields (``players``, ``seats``, ``table``, ``hand``,
    ``venue``, ``currency`` ...). Our rules that PHH has no field for travel as ``_``-prefixed user fields:
    ``_rake_ppm``, ``_rake_cap``, ``_no_flop_no_drop``, ``_heads_up_raises_uncapped``."""
    game = make_game(cfg, state.player_count)
    user = {"_rake_ppm": cfg.rake_ppm, "_rake_cap": cfg.rake_cap, "_no_flop_no_drop": cfg.no_flop_no_drop}
    if cfg.variant == "FL" and state.player_count == 2:
        user["_heads_up_raises_uncapped"] = True
    if not state.status:
        meta.setdefault("finishing_stacks", list(state.stacks))
    meta["ante_trimming_status"] = False  # antes are dead money in the main pot
    hh = _RoomHandHistory.from_game_state(game, state, **{k: v for k, v in meta.items() if v is not None},
                                          user_defined_fields=user)
    return hh.dumps() + "\n"


class _RoomHandHistory(HandHistory):
    """HandHistory that honours our user fields (heads-up uncapped fixed-limit, rake); our fixed-limit games are
    written as standard ``FT``."""

    variants = {**HandHistory.variants, CasinoFixedLimitTexasHoldem: "FT", HeadsUpFixedLimitTexasHoldem: "FT"}

    def create_game(self):
        game = super().create_game()
        if (self.variant == "FT" and len(self.starting_stacks) == 2
                and self.user_defined_fields.get("_heads_up_raises_uncapped")):
            # the standard FT game built from this history's fields, re-made with uncapped heads-up raises
            return HeadsUpFixedLimitTexasHoldem(
                automations=game.automations, ante_trimming_status=game.ante_trimming_status,
                raw_antes=game.raw_antes, raw_blinds_or_straddles=game.raw_blinds_or_straddles,
                small_bet=game.small_bet, big_bet=game.big_bet, mode=Mode.CASH_GAME, rake=game.rake)
        return game


def load_phh(text: str) -> HandHistory:
    """Parse PHH text (hold'em variants ``FT``/``NT`` only); raises :class:`TableRuleError` (field ``phh``)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            hh = _RoomHandHistory.loads(text)
    except Exception as e:  # tomllib / pokerkit field errors
        raise TableRuleError("phh", f"not a PHH hand history: {e}") from None
    if hh.variant not in ("FT", "NT"):
        raise TableRuleError("phh", f"variant {hh.variant!r} is not Texas hold'em (FT or NT)")
    u = hh.user_defined_fields
    hh.rake = Rake(int(u.get("_rake_ppm", 0) or 0), int(u.get("_rake_cap", 0) or 0),
                   bool(u.get("_no_flop_no_drop", True)))
    return hh


def _play_out(hh: HandHistory) -> State:
    """The state at the end of ``hh``; raises :class:`TableRuleError` (``phh``) if it does not replay or stops
    before the hand ends."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            last = deque(hh, maxlen=1)  # replays every action; keeps the final state
        state = last[0] if last else None
    except Exception as e:
        raise TableRuleError("phh", f"the hand does not replay: {e}") from None
    if state is None or state.status:
        raise TableRuleError("phh", "the hand history stops before the hand ends")
    return state


def _whose_antes(hh: HandHistory) -> str:
    """How a warning names the antes: ``the big blind's ante`` when only the big blind posts one, else
    ``the antes``."""
    posters = [i for i, a in enumerate(hh.antes) if a]
    blinds = list(hh.blinds_or_straddles or [])
    if len(posters) == 1 and blinds and blinds[posters[0]] == max(blinds) > 0:
        return "the big blind's ante"
    return "the antes"


def _ante_trimming_override(hh: HandHistory, replays: bool) -> tuple[dict, str] | None:
    """The ``ante_trimming_status`` flip to try when a file's recorded result contradicts its flag, with the
    warning that explains it (``replays``: whether the hand replayed at all as written); None when the hand has
    no antes (the flag cannot matter)."""
    if not any(hh.antes):
        return None
    flag = hh.ante_trimming_status
    whose = _whose_antes(hh)
    record = "the recorded finishing stacks" if replays else "the recorded actions and finishing stacks"
    if flag:
        why = f"{record} treat {whose} as dead money in the main pot"
        how = f"pokerkit would return {whose} as an uncalled bet"
    else:
        why = f"{record} return the unmatched part of {whose} as an uncalled bet (trimmed)"
        how = f"pokerkit would keep {whose} as dead money"
    if not replays:
        how = "as written the hand does not replay"
    return {"ante_trimming_status": not flag}, f"ante_trimming_status={str(flag).lower()} overridden: {why} ({how})"


def replay_phh(text: str) -> dict:
    """Import a PHH hand and replay it to its end (PHH 1.x, hold'em ``FT``/``NT``).

    Returns ``{"variant", "players", "finishing_stacks", "expected", "matches", "rake", "board", "showdown",
    "overrides", "warnings"}``: ``finishing_stacks`` the replayed stacks (won, file order), ``expected`` the
    file's ``finishing_stacks`` (None if absent), ``matches`` compares them (None without a record).

    The rule for flags that contradict the file's own record: the hand is first replayed as its flags say. If it
    records finishing stacks and the replay misses them, the flag that can explain the difference is flipped --
    ``ante_trimming_status``, the only such flag: public PHH datasets write big-blind-ante hands with ``true``, under
    which pokerkit returns the big blind's ante as an uncalled bet, while the real rule (and the recorded
    stacks) keeps it as dead money in the main pot. If the flipped replay reproduces the recorded stacks, that
    replay is the result, ``overrides`` names the flag and its replayed value (``{"ante_trimming_status":
    false}``) and ``warnings`` says which flag was overridden and why. Otherwise the as-written replay stands
    with ``matches`` false. A hand whose recorded actions replay only with the flag flipped (a big blind all in
    for exactly the stack behind the dead ante) is overridden the same way when the flipped replay reproduces the
    recorded stacks. A file without finishing stacks is replayed exactly as its flags say.
    Raises :class:`TableRuleError` (``phh``) if the file is not PHH hold'em or its actions do not replay."""
    hh = load_phh(text)
    try:
        state, failure = _play_out(hh), None
    except TableRuleError as e:
        state, failure = None, e
    expected = [int(x) for x in hh.finishing_stacks] if hh.finishing_stacks is not None else None
    overrides: dict = {}
    notes: list[str] = []
    if expected is not None and (state is None or [int(x) for x in state.stacks] != expected):
        candidate = _ante_trimming_override(hh, replays=state is not None)
        if candidate is not None:
            flags, note = candidate
            alt = copy.copy(hh)
            for name, value in flags.items():
                setattr(alt, name, value)
            try:
                alt_state = _play_out(alt)
            except TableRuleError:
                alt_state = None
            if alt_state is not None and [int(x) for x in alt_state.stacks] == expected:
                state, overrides, notes = alt_state, flags, [note]
    if state is None:
        assert failure is not None, "no state is left only when the as-written replay failed"
        raise failure
    got = [int(x) for x in state.stacks]
    return {"variant": hh.variant, "players": hh.players, "finishing_stacks": got, "expected": expected,
            "matches": expected == got if expected is not None else None,
            "rake": int(sum(state.starting_stacks) - sum(state.stacks)),
            "board": board(state), "showdown": showdown(state), "overrides": overrides, "warnings": notes}
