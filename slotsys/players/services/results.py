"""What the players' use cases return: pydantic models, rendered by the API as they are (``model_dump(mode="json")``)
and stored whole by the exactly-once ones (a replay returns an equal result).

Units: money integer won; points whole points unless the field says ``_milli`` (milli-points, 1 point = 1,000);
theoretical win ``theo_win`` won (rounded down) and ``theo_milli`` milli-won; times ISO 8601 UTC text (the text
the first answer showed, so a replay renders byte for byte the same); ``entry`` a ledger journal entry id.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, model_serializer


# ------------------------------------------------------------------ the player's account
class CardView(BaseModel):
    """A player card: ``status`` active | lost | blocked | replaced; consecutive wrong PINs ``pin_failures``."""

    card_number: str
    status: str
    issued_at: str
    pin_failures: int


class SessionRule(BaseModel):
    """The accrual rule a session earns under (fixed at card-in): ``basis`` coin_in | theo, won per point."""

    scope: str
    basis: str
    won_per_point: int


class SessionView(BaseModel):
    """A carded session: its ``meters`` are the change of the machine's meters since card-in (coin_in, coin_out,
    jackpot_out won; games_played, games_won counts), up to card-out or, while open, up to now;
    ``time_played_seconds``; ``jackpots_in_games`` (won) the jackpots its own games credited;
    ``player_net_won`` = coin-out + jackpots − coin-in; ``points_earned_milli``; ``ended_by`` the principal id
    that closed it (None while open)."""

    session: int
    player: int
    machine: str
    status: str
    started_at: str
    ended_at: str | None
    last_game_at: str | None
    time_played_seconds: int
    rule: SessionRule
    meters: dict[str, int]
    jackpots_in_games: int
    player_net_won: int
    theo_win: int
    theo_milli: int
    points_earned_milli: int
    ended_by: str | None


class TierBadge(BaseModel):
    code: str
    name: str
    multiplier_permille: int


class NextTier(BaseModel):
    code: str
    threshold_points: int
    points_to_go: int


class PointsBalance(BaseModel):
    """Whole points ``balance`` (``progress_milli`` toward the next one; ``balance_milli`` in all), ``held`` by
    pending machine redemptions, ``available`` = balance − held, their value at the program's rates (won), the
    expiry (idle days after the last activity)."""

    balance: int
    progress_milli: int
    balance_milli: int
    held: int
    available: int
    value_promo_won: int
    value_cash_won: int
    expires_at: str
    expired: bool


class PlayerView(BaseModel):
    """A player's account: tier, tier progress (whole base points), next tier, points, the wallet
    (``{"cashable": won, "promo": won}``), cards and the open session (None when not carded in)."""

    player: int
    name: str
    enrolled_at: str
    tier: TierBadge
    tier_points: int
    next_tier: NextTier | None
    points: PointsBalance
    wallet: dict[str, int]
    cards: list[CardView]
    session: SessionView | None


class CardIssued(PlayerView):
    """An enrolment or a replacement card: the new ``card_number`` and the player's account."""

    card_number: str


class PlayerToken(BaseModel):
    """A read-only player token (``pl_…``) and when it expires."""

    token: str
    player: int
    expires_at: str


class RatingLine(BaseModel):
    rating: int
    table: str
    area: str
    game: str
    average_bet: int
    minutes: int
    decisions_per_hour: int
    house_edge_ppm: int
    handle_won: int
    theo_win: int
    points_earned_milli: int
    at: str


class TransferLine(BaseModel):
    """A cashless transfer: ``direction`` to_machine | to_wallet, ``via`` aft | cash_out, won by wallet."""

    transfer: int
    machine: str
    direction: str
    via: str
    cashable: int
    promo: int
    gaming_day: str
    at: str


class PlayerHistory(BaseModel):
    """Machine sessions, table ratings and cashless transfers, each newest first."""

    player: int
    sessions: list[SessionView]
    table_ratings: list[RatingLine]
    transfers: list[TransferLine]


class JournalLine(BaseModel):
    """A points-journal row: ``kind`` play | rating | redeem | expire | adjust, signed milli-points."""

    id: int
    kind: str
    points_milli: int
    balance_after_milli: int
    session: int | None
    rating: int | None
    redemption: int | None
    entry: int | None
    memo: str
    at: str


class PointsJournalPage(BaseModel):
    player: int
    balance_milli: int
    entries: list[JournalLine]


class WalletStatement(BaseModel):
    """Ledger postings on one wallet account, newest first (the ledger's statement rows; + credits the wallet)."""

    player: int
    wallet: str
    account: str
    balance: int
    entries: list[dict[str, Any]]
    next_cursor: str | None = None  # ?cursor= of the next page (older entries); None on the last page


# ------------------------------------------------------------------ the program
class ProgramView(BaseModel):
    """The program's settings: idle days before points expire, won per point redeemed (promo, cash), transfer
    limits (won), the gaming day's start hour (UTC), the machine redemption hold (s)."""

    points_idle_days: int
    promo_won_per_point: int
    cash_won_per_point: int
    per_transfer_max_won: int
    daily_to_machine_max_won: int
    daily_to_wallet_max_won: int
    redemption_hold_seconds: int


class TierView(BaseModel):
    code: str
    name: str
    threshold_points: int
    multiplier_permille: int


class RuleView(BaseModel):
    """An accrual rule: ``scope`` default | zone | machine | table, its ``key``, ``basis`` coin_in | theo."""

    scope: str
    key: str
    basis: str
    won_per_point: int


class ProgramConfig(BaseModel):
    program: ProgramView
    tiers: list[TierView]
    accrual_rules: list[RuleView]


class PointsExpiry(BaseModel):
    """An expiry sweep: how many players lost points, and how many milli-points in all."""

    players: int
    points_expired_milli: int


# ------------------------------------------------------------------ the cage and the pit
class WalletMovement(BaseModel):
    """Cash into or out of the cashable wallet at the cage: ``amount`` won, the wallet after."""

    player: int
    amount: int
    entry: int
    wallet: dict[str, int]


class WalletRedemption(BaseModel):
    """Points redeemed to the wallet: ``kind`` promo | cash, ``amount`` won (``entry`` None when it is ₩0)."""

    redemption: int
    player: int
    points: int
    kind: str
    amount: int
    status: str
    entry: int | None
    points_balance: int
    wallet: dict[str, int]


class TableRating(BaseModel):
    """A stretch of table play rated: handle (won) = average bet × minutes / 60 × decisions per hour; theoretical
    win = handle × house edge (ppm); the points earned under ``rule``; the player's points and tier after."""

    rating: int
    player: int
    table: str
    area: str
    game: str
    average_bet: int
    minutes: int
    decisions_per_hour: int
    house_edge_ppm: int
    handle_won: int
    theo_win: int
    theo_milli: int
    points_earned_milli: int
    rule: RuleView
    points: int
    tier: str


# ------------------------------------------------------------------ at a machine
class Greeting(BaseModel):
    """What the machine shows the carded player: name, tier, whole points and the progress toward the next."""

    player: int
    name: str
    tier: str
    tier_name: str
    points: int
    progress_milli: int


class CardInResult(BaseModel):
    """The session opened (or, ``already_carded``, the one already open for this card) and the greeting."""

    already_carded: bool
    session: SessionView
    player: Greeting


class CardOutResult(BaseModel):
    session: SessionView


class MachineSession(BaseModel):
    """The machine's open session and its player's greeting; ``session`` None (and no ``player`` key) when no card
    is in."""

    machine: str
    session: SessionView | None
    player: Greeting | None = None

    @model_serializer(mode="wrap")
    def _without_absent_player(self, handler):
        out = handler(self)
        if self.player is None:
            out.pop("player", None)
        return out


class TransferResult(BaseModel):
    """A cashless transfer or a cash-out to the wallet: ``cashable`` / ``promo`` won moved (``amount`` both), the
    wallet and the machine's ``credits`` (cashable) and ``promo_credits`` (restricted) after."""

    transfer: int
    machine: str
    player: int
    direction: str
    cashable: int
    promo: int
    amount: int
    entry: int
    wallet: dict[str, int]
    credits: int
    promo_credits: int


class AftTransferView(BaseModel):
    """An AFT transfer at a SAS machine (SAS 6.02 §8): ``direction`` to_machine | to_wallet, ``amount`` won asked,
    ``moved`` won the machine moved (0 until completed), ``state`` pending | sent | completed | failed | expired,
    ``transaction_id`` the SAS transaction ID, ``status_code`` the machine's final AFT status (table 8.3; None
    before), ``reason`` why it failed or expired; ``hold_entry`` the wallet hold's journal entry (to the machine),
    ``settle_entry`` the settlement's (the credits, or the hold returned); ``wallet`` the player's wallets when it
    was answered."""

    transfer: int
    transaction_id: str
    machine: str
    player: int
    direction: str
    amount: int
    moved: int
    state: str
    status_code: int | None
    reason: str
    created_at: str
    expires_at: str
    sent_at: str | None
    settled_at: str | None
    hold_entry: int | None
    settle_entry: int | None
    wallet: dict[str, int]


class RedemptionHold(BaseModel):
    """Phase 1 of a redemption at a machine: the points held (not debited) until ``expires_at``; ``amount`` won of
    ``kind`` promo | cash credits to offer the machine; the points still ``points_available``."""

    redemption: int
    machine: str
    player: int
    points: int
    kind: str
    amount: int
    status: str
    expires_at: str
    points_available: int


class RedemptionCompleted(BaseModel):
    """Phase 2 acknowledged: the points debited, the credits posted (``entry`` None for ₩0), the machine's credits
    after."""

    redemption: int
    status: str
    machine: str
    player: int
    points: int
    kind: str
    amount: int
    entry: int | None
    points_balance: int
    credits: int
    promo_credits: int


class RedemptionCancelled(BaseModel):
    """The machine could not take the credits: the hold released, nothing debited."""

    redemption: int
    status: str
    machine: str
    player: int
    points_balance: int
