"""Players: enrolment, cards and PINs, the player club and cage desks (deposits, withdrawals,
redemptions to the wallet), table ratings, program configuration and the player-facing reads.

Machine-side use cases (card-in/out, cashless transfers, two-phase redemption at a machine) are
in :mod:`slotsys.players.services.sessions`; the spin hook and point arithmetic in
:mod:`slotsys.players.services.loyalty_play`; the wallet API for other packages in
:mod:`slotsys.players.services.wallet`.

Roles: ``host`` (player club: enrol, cards, redemptions), ``cashier`` (deposits, withdrawals,
redemptions), ``pit`` (table ratings), ``auditor`` (reads), ``admin`` (program, rules, tiers,
expiry sweep). A player reads their own account with a player token (card number + PIN login).
"""

from __future__ import annotations

import dataclasses
from datetime import datetime, timedelta

import structlog

from slotsys.players.services.ports import CardRecord as PlayerCard
from slotsys.players.services.ports import CashDesk, MachineView as Machine, PlayersUnitOfWork
from slotsys.players.services.ports import ProgramSettings as LoyaltyProgram
from slotsys.players.domain.player import Player, PlayerSession
from slotsys.kernel import accounts
from slotsys.kernel import ledger as L
from slotsys.kernel.errors import Forbidden, NotFound, Unauthorized, ValidationFailed
from slotsys.players.domain.loyalty import (
    MILLI_PER_POINT,
    PIN_BLOCK_AFTER,
    PIN_THROTTLE_AFTER,
    PIN_THROTTLE_SECONDS,
    AccrualRule,
    CardBlocked,
    CardLost,
    CardNotUsable,
    PinIncorrect,
    PinThrottled,
    TransferLimits,
    accrue,
    after_pin_failure,
    check_available,
    new_card_number,
    normalize_card_number,
    pin_retry_after,
    points_expire_at,
    points_expired,
    SESSION_METERS,
    meter_delta,
    rated_play,
    redemption_value,
    require_pin_format,
    require_points,
    resolve_rule,
)
from slotsys.kernel.money import milli_to_won_floor
from slotsys.kernel.security import hash_password, new_token, token_digest, verify_password
from slotsys.players.services import loyalty_play as LP
from slotsys.kernel.context import Principal, ServiceContext
from slotsys.kernel.idempotency import Once, OnceKey, run_once
from slotsys.kernel.checks import require_role
from slotsys.players.services.wallet import WalletService, wallet_account
from slotsys.players.services.results import (
    CardIssued,
    CardView,
    JournalLine,
    NextTier,
    PlayerHistory,
    PlayerToken,
    PlayerView,
    PointsBalance,
    PointsExpiry,
    PointsJournalPage,
    ProgramConfig,
    ProgramView,
    RatingLine,
    RuleView,
    SessionRule,
    SessionView,
    TableRating,
    TierBadge,
    TierView,
    TransferLine,
    WalletMovement,
    WalletRedemption,
    WalletStatement,
)
from slotsys.kernel.accounts import MAIN_CAGE

log = structlog.get_logger("slotsys.players")

READ_ROLES = ("host", "cashier", "pit", "auditor")
PROGRAM_MAX = {"points_idle_days": 36_500, "redemption_hold_seconds": 86_400, "promo_won_per_point": 1_000_000,
               "cash_won_per_point": 1_000_000}
PLAYER_TOKEN_HOURS = 2
CAGE = MAIN_CAGE  # the cage bank funds the demo players' opening deposit


class CardNotOnFile(NotFound):
    code = "card-not-on-file"
    title = "Card not on file"


# ------------------------------------------------------------------ cards and PINs
def refuse_unusable(card: PlayerCard) -> None:
    """403 for a card that is lost, blocked or replaced (field ``card_number``)."""
    if card.status == "lost":
        raise CardLost("this card is reported lost: the player club issues a new one", field="card_number")
    if card.status == "blocked":
        raise CardBlocked("this card is blocked (wrong PIN 5 times): the player club can unblock it", field="card_number")
    if card.status != "active":
        raise CardNotUsable(f"this card is {card.status}: use the player's current card", field="card_number",
                            reason=card.status)


def usable_card(uow, raw_number: object) -> PlayerCard:
    """The active card with this number (422 malformed, 404 not on file, 403 lost/blocked)."""
    number = normalize_card_number(raw_number)
    card = uow.players.card(number)
    if card is None:
        raise CardNotOnFile("card number not on file", field="card_number")
    refuse_unusable(card)
    return card


def verify_pin(ctx: ServiceContext, raw_number: object, pin: object, *, actor: str) -> tuple[int, int]:
    """Check a card's PIN in its own short transaction; returns ``(card id, player id)``.

    The outcome of a wrong PIN is committed even though the request is refused (the count must
    survive the refusal), but nothing else is: no money or points move. Rules (domain/loyalty):
    after 3 consecutive wrong PINs a try within 60 s of the last failure is refused with 429
    and not counted; the 5th consecutive wrong PIN blocks the card (403 ``card-blocked``) and is
    logged (``card_events`` + a warning log line); a right PIN resets the count.
    """
    number = normalize_card_number(raw_number)
    require_pin_format(pin)
    now = ctx.clock.now()
    with ctx.uow() as uow:
        card = uow.players.card(number, for_update=True)
        if card is None:
            raise CardNotOnFile("card number not on file", field="card_number")
        uow.players.refresh(card)
        refuse_unusable(card)
        wait = pin_retry_after(card.pin_failures, card.pin_last_failure_at, now)
        if wait:
            uow.players.card_event(card, "pin_throttled", actor, now, retry_after=wait)
            uow.commit()
            raise PinThrottled(f"too many wrong PINs: try again in {wait} s", field="pin", retry_after=wait)
        if verify_password(pin, card.pin_hash):
            if card.pin_failures:
                card.pin_failures = 0
                card.pin_last_failure_at = None
                uow.commit()
            return card.id, card.player_id
        failures, blocked = after_pin_failure(card.pin_failures)
        card.pin_failures = failures
        card.pin_last_failure_at = now
        uow.players.card_event(card, "pin_failed", actor, now, failures=failures)
        if blocked:
            card.status = "blocked"
            card.status_changed_at = now
            uow.players.card_event(card, "blocked", actor, now, reason=f"{failures} wrong PINs in a row")
            log.warning("card.blocked", card=card.card_number[-4:], player=card.player_id, failures=failures, by=actor)
        uow.commit()
    if blocked:
        raise CardBlocked(f"wrong PIN {failures} times in a row: the card is now blocked; the player club can unblock it",
                          field="pin")
    left = PIN_BLOCK_AFTER - failures
    if failures >= PIN_THROTTLE_AFTER:
        raise PinIncorrect(f"wrong PIN ({failures} in a row, {left} left before the card is blocked); "
                           f"wait {PIN_THROTTLE_SECONDS} s before the next try", field="pin", attempts_left=left,
                           retry_after=PIN_THROTTLE_SECONDS)
    raise PinIncorrect(f"wrong PIN ({left} tries left before the card is blocked)", field="pin", attempts_left=left)


def pin_card(ctx: ServiceContext, card_number: object, pin: object, player_id: int, actor: str) -> int:
    """Verify ``card_number`` + ``pin`` (:func:`verify_pin`) and that the card is this player's (403 naming
    ``card_number`` otherwise); returns the card id."""
    card_id, owner = verify_pin(ctx, card_number, pin, actor=actor)
    if owner != player_id:
        raise Forbidden("this card belongs to another player", field="card_number")
    return card_id


# ------------------------------------------------------------------ views
def limits_of(p: LoyaltyProgram) -> TransferLimits:
    return TransferLimits(int(p.per_transfer_max_won), int(p.daily_to_machine_max_won), int(p.daily_to_wallet_max_won))


def program_view(p: LoyaltyProgram) -> ProgramView:
    return ProgramView(**{name: getattr(p, name) for name in ProgramView.model_fields})


def card_view(c: PlayerCard) -> CardView:
    return CardView(card_number=c.card_number, status=c.status, issued_at=c.issued_at.isoformat(),
                    pin_failures=c.pin_failures)


def tier_view(t) -> TierView:
    return TierView(code=t.code, name=t.name, threshold_points=t.threshold_points,
                    multiplier_permille=t.multiplier_permille)


def session_view(s: PlayerSession, m: Machine, now: datetime) -> SessionView:
    """A session: its meters are the change of the machine's meters since card-in (up to card-out,
    or up to now while open): coin-in, coin-out, jackpots, games played and won (won / counts);
    time played (s); theoretical win (won, rounded down, and milli-won); points earned
    (milli-points); the rule it accrued under. ``jackpots_in_games`` counts the jackpots credited
    by the session's own games (the meter also counts awards paid outside a game, e.g. a handpay)."""
    end = s.ended_at or now
    last = {k: (getattr(m, k) if s.status == "open" else getattr(s, f"end_{k}")) for k in SESSION_METERS}
    meters = meter_delta({k: getattr(s, f"start_{k}") for k in SESSION_METERS}, last)
    return SessionView(
        session=s.id,
        player=s.player_id,
        machine=m.asset_number,
        status=s.status,
        started_at=s.started_at.isoformat(),
        ended_at=s.ended_at.isoformat() if s.ended_at else None,
        last_game_at=s.last_game_at.isoformat() if s.last_game_at else None,
        time_played_seconds=max(0, int((end - s.started_at).total_seconds())),
        rule=SessionRule(scope=s.rule_scope, basis=s.rule_basis, won_per_point=s.rule_won_per_point),
        meters=meters,
        jackpots_in_games=s.jackpot_out,
        player_net_won=meters["coin_out"] + meters["jackpot_out"] - meters["coin_in"],
        theo_win=milli_to_won_floor(s.theo_milli),
        theo_milli=s.theo_milli,
        points_earned_milli=s.points_milli,
        ended_by=s.ended_by or None,
    )


def player_view(uow, player: Player, now: datetime, model: type[PlayerView] = PlayerView, **extra) -> PlayerView:
    """A player's account: tier, points (whole, progress in milli-points, held by pending machine
    redemptions, available, value at the program's rates, expiry), wallet (won), cards, session. ``model``: the
    :class:`PlayerView` subclass to build, given its own fields in ``extra`` (``CardIssued``: ``card_number``)."""
    prog = uow.players.program()
    tiers = LP.tiers(uow)
    tier = next((t for t in tiers if t.code == player.tier_code), None)
    higher = [t for t in tiers if tier is None or t.threshold_points > tier.threshold_points]
    nxt = min(higher, key=lambda t: t.threshold_points) if higher else None
    expired = player.points_milli > 0 and points_expired(player.last_activity_at, now, prog.points_idle_days)
    balance = 0 if expired else player.points_milli
    held = uow.players.live_held_milli(player.id, now)
    available = max(balance - held, 0) // MILLI_PER_POINT
    open_s = uow.players.open_session_for_player(player.id)
    return model(
        **extra,
        player=player.id,
        name=player.name,
        enrolled_at=player.enrolled_at.isoformat(),
        tier=TierBadge(code=player.tier_code, name=tier.name if tier else player.tier_code,
                       multiplier_permille=tier.multiplier_permille if tier else 1000),
        tier_points=player.tier_points_milli // MILLI_PER_POINT,
        next_tier=(NextTier(code=nxt.code, threshold_points=nxt.threshold_points,
                            points_to_go=max(0, nxt.threshold_points - player.tier_points_milli // MILLI_PER_POINT))
                   if nxt else None),
        points=PointsBalance(
            balance=balance // MILLI_PER_POINT,
            progress_milli=balance % MILLI_PER_POINT,
            balance_milli=balance,
            held=held // MILLI_PER_POINT,
            available=available,
            value_promo_won=redemption_value(available, prog.promo_won_per_point) if available else 0,
            value_cash_won=redemption_value(available, prog.cash_won_per_point) if available else 0,
            expires_at=points_expire_at(player.last_activity_at, prog.points_idle_days).isoformat(),
            expired=expired,
        ),
        wallet=WalletService.balances(uow, player.id),
        cards=[card_view(c) for c in uow.players.cards_of(player.id)],
        session=session_view(open_s, uow.machines.get_by_id(open_s.machine_id), now) if open_s else None,
    )


def require_reader(principal: Principal, player_id: int) -> None:
    """The player themselves (player token) or staff with a reading role."""
    if principal.kind == "player":
        if principal.name != str(player_id):
            raise Forbidden("a player may read only their own account")
        return
    require_role(principal, *READ_ROLES)


# ------------------------------------------------------------------ table ratings (also for table_games)
@dataclasses.dataclass(frozen=True)
class TablePlay:
    """A stretch of table play to rate: the ``table`` code (1-20 characters), its pit ``area`` (1-20), the ``game``
    (1-40), the ``average_bet`` (won), ``minutes`` played, ``decisions_per_hour`` and the game's ``house_edge_ppm``
    (parts per million)."""

    table: str
    area: str
    game: str
    average_bet: int
    minutes: int
    decisions_per_hour: int
    house_edge_ppm: int


def rate_table_play(uow, player_id: int, *, table: str, area: str, game: str, average_bet: int, minutes: int,
                    decisions_per_hour: int, house_edge_ppm: int, rated_by: str, now: datetime) -> TableRating:
    """Rate a stretch of table play inside the caller's unit of work (does not commit).

    Handle = average bet (won) × minutes / 60 × decisions per hour; theoretical win = handle × house edge
    (``house_edge_ppm``, parts per million); points through the same accrual rules as slots (the table's own
    rule, else its pit area's, else the default) at the player's tier multiplier. Returns :class:`TableRating`.
    Raises ``ValidationFailed`` (422) naming ``table`` / ``area`` / ``game`` (1-20, 1-20, 1-40 characters) or a
    figure out of range, ``NotFound`` (404 ``player_id``) for a player not enrolled.
    """
    for name, v in (("table", table), ("area", area), ("game", game)):
        if not isinstance(v, str) or not 1 <= len(v) <= (40 if name == "game" else 20):
            raise ValidationFailed(f"{name} must be 1-{40 if name == 'game' else 20} characters", field=name)
    handle, edge = rated_play(average_bet, minutes, decisions_per_hour, house_edge_ppm)
    player = uow.players.get(player_id, for_update=True)
    prog = uow.players.program()
    LP.apply_expiry(uow, player, prog.points_idle_days, now)
    rule = resolve_rule(LP.rules(uow), table=table, zone=area)
    acc = accrue(rule, handle, edge, LP.multiplier_of(uow, player))
    r = uow.players.new(
        "rating", player_id=player.id, table_code=table, area=area, game=game, average_bet_won=average_bet, minutes=minutes,
        decisions_per_hour=decisions_per_hour, house_edge_ppm=house_edge_ppm, rule_scope=rule.scope,
        rule_basis=rule.basis.value, rule_won_per_point=rule.won_per_point, handle_won=int(handle),
        theo_milli=acc.theo_milli, points_milli=acc.points_milli, rated_by=rated_by, created_at=now)
    LP.credit_points(uow, player, acc, kind="rating", now=now, rating_id=r.id, memo=f"{game} at {table}")
    return TableRating(
        rating=r.id, player=player.id, table=table, area=area, game=game,
        average_bet=average_bet, minutes=minutes, decisions_per_hour=decisions_per_hour,
        house_edge_ppm=house_edge_ppm, handle_won=int(handle), theo_win=milli_to_won_floor(acc.theo_milli),
        theo_milli=acc.theo_milli, points_earned_milli=acc.points_milli,
        rule=RuleView(scope=rule.scope, key=rule.key, basis=rule.basis.value, won_per_point=rule.won_per_point),
        points=player.points_milli // MILLI_PER_POINT, tier=player.tier_code,
    )


# ------------------------------------------------------------------ the service

def _statement_cursor(cursor: str | None) -> tuple[int, int] | None:
    """``<entry>-<posting>`` (a statement's ``next_cursor``) as the key to page from; 422 naming ``cursor``."""
    if cursor is None:
        return None
    entry, sep, posting = cursor.partition("-")
    if not (sep and entry.isascii() and entry.isdigit() and posting.isascii() and posting.isdigit()
            and len(entry) <= 19 and len(posting) <= 19):
        raise ValidationFailed("cursor must be the next_cursor of the previous page", field="cursor")
    return int(entry), int(posting)

class PlayerService:
    """The player club, the cage desk and the player's own reads. ``cash_desk``: the cashier's drawer (TITO's
    cage), for cash deposits and withdrawals.

    Exactly-once use cases take the request's :class:`~slotsys.kernel.idempotency.OnceKey` (built by the API from
    the path and payload) and return ``Once[<result>]``: a replay with the same key returns the first result and
    moves nothing (``Once.replayed``)."""

    def __init__(self, ctx: ServiceContext, cash_desk: CashDesk | None = None) -> None:
        self.ctx = ctx
        self.cash_desk = cash_desk

    def _now(self) -> datetime:
        return self.ctx.clock.now()

    # -- enrolment and cards
    def enrol(self, principal: Principal, name: object, pin: object, key: OnceKey) -> Once[CardIssued]:
        """Enrol a player at the lowest tier with a new card and PIN (host). Opens the wallet (two ledger accounts
        at ₩0: ``player:<id>:cashable``, ``player:<id>:promo``). Returns :class:`CardIssued`: the card number and
        the player's account. Errors: 403 not a host; 422 ``name`` (1-120 characters) / ``pin`` (4-6 digits);
        404 when no tier is configured."""
        require_role(principal, "host")
        if not isinstance(name, str) or not name.strip() or len(name) > 120:
            raise ValidationFailed("name must be 1-120 characters", field="name")
        require_pin_format(pin)
        pin_hash = hash_password(pin)

        def fn(uow: PlayersUnitOfWork) -> CardIssued:
            now = self._now()
            tiers = LP.tiers(uow)
            if not tiers:
                raise NotFound("no tiers are configured (seed the loyalty program)")
            base = min(tiers, key=lambda t: t.threshold_points)
            player = uow.players.add(Player(name=name.strip(), tier_code=base.code, tier_points_milli=0, points_milli=0,
                                            points_held_milli=0, last_activity_at=now, enrolled_at=now))
            card = self._new_card(uow, player.id, pin_hash, now, principal.id)
            WalletService.open(uow, player.id)
            return player_view(uow, player, now, CardIssued, card_number=card.card_number)

        return run_once(self.ctx, key, fn, result=CardIssued)

    def _new_card(self, uow, player_id: int, pin_hash: str, now: datetime, by: str) -> PlayerCard:
        for _ in range(10):
            number = new_card_number(self.ctx.rng.randbelow)
            if not uow.players.card_exists(number):
                break
        else:  # pragma: no cover - 10 clashes in 10**11
            raise ValidationFailed("could not draw a unique card number")
        card = uow.players.new("card", card_number=number, player_id=player_id, status="active", pin_hash=pin_hash,
                                          pin_failures=0, issued_at=now)
        uow.players.card_event(card, "issued", by, now)
        return card

    def issue_card(self, principal: Principal, player_id: int, pin: object, key: OnceKey) -> Once[CardIssued]:
        """A replacement card with a new PIN (host): the player's active card becomes ``replaced`` (a lost or
        blocked one keeps its state). Returns :class:`CardIssued` (the new card number). 404 ``player_id``."""
        require_role(principal, "host")
        require_pin_format(pin)
        pin_hash = hash_password(pin)

        def fn(uow: PlayersUnitOfWork) -> CardIssued:
            now = self._now()
            player = uow.players.get(player_id, for_update=True)
            for c in uow.players.cards_of(player.id):
                if c.status == "active":
                    c.status = "replaced"
                    c.status_changed_at = now
                    uow.players.card_event(c, "replaced", principal.id, now)
            card = self._new_card(uow, player.id, pin_hash, now, principal.id)
            return player_view(uow, player, now, CardIssued, card_number=card.card_number)

        return run_once(self.ctx, key, fn, result=CardIssued)

    def set_card_status(self, principal: Principal, raw_number: object, action: str) -> CardView:
        """``lost`` (host, or the card's own player): the card stops working at once (an open
        session on it is left to end at card-out). ``unblock`` (host): a blocked card becomes
        active with its PIN failure count reset. Both are logged in ``card_events``. Returns the card
        (:class:`CardView`); 404 ``card-not-on-file``, 422 ``card_number`` when the card is not in a state
        the action applies to."""
        number = normalize_card_number(raw_number)
        now = self._now()
        with self.ctx.uow() as uow:
            card = uow.players.card(number, for_update=True)
            if card is None:
                raise CardNotOnFile("card number not on file", field="card_number")
            if action == "lost":
                if not (principal.kind == "player" and principal.name == str(card.player_id)):
                    require_role(principal, "host")
                if card.status not in ("active", "blocked"):
                    raise ValidationFailed(f"the card is {card.status}", field="card_number")
                card.status = "lost"
            elif action == "unblock":
                require_role(principal, "host")
                if card.status != "blocked":
                    raise ValidationFailed(f"the card is {card.status}, not blocked", field="card_number")
                card.status = "active"
                card.pin_failures = 0
                card.pin_last_failure_at = None
            else:  # pragma: no cover - routes pass one of the two
                raise ValidationFailed("unknown action", field="action")
            card.status_changed_at = now
            uow.players.card_event(card, action, principal.id, now)
            log.info("card.status", card=number[-4:], player=card.player_id, action=action, by=principal.id)
            uow.commit()
            return card_view(card)

    # -- player login (read-only token)
    def login(self, raw_number: object, pin: object) -> PlayerToken:
        """Card number + PIN → a player token (``pl_…``, 2 hours) for reading one's own account.
        Wrong PINs count toward the same throttle and block as everywhere (:func:`verify_pin`)."""
        _, player_id = verify_pin(self.ctx, raw_number, pin, actor="player-login")
        token = new_token("pl")
        expires = self._now() + timedelta(hours=PLAYER_TOKEN_HOURS)
        with self.ctx.uow() as uow:
            uow.players.add_token(token_digest(token), player_id, expires)
            uow.commit()
        return PlayerToken(token=token, player=player_id, expires_at=expires.isoformat())

    def authenticate(self, token: str) -> Principal:
        """A player token → ``Principal("player", "<player id>")``; 401 when unknown or expired."""
        with self.ctx.uow(readonly=True) as uow:
            pid = uow.players.player_for_token(token_digest(token), self._now())
        if pid is None:
            raise Unauthorized("unknown or expired player token")
        return Principal("player", str(pid))

    # -- reads
    def view(self, principal: Principal, player_id: int) -> PlayerView:
        """The player's account (the player, or host / cashier / pit / auditor); 404 ``player_id``."""
        require_reader(principal, player_id)
        with self.ctx.uow(readonly=True) as uow:
            return player_view(uow, uow.players.get(player_id), self._now())

    def find_by_card(self, principal: Principal, raw_number: object) -> PlayerView:
        """The account of a card's player (host, cashier, pit, auditor); 404 ``card-not-on-file``."""
        require_role(principal, *READ_ROLES)
        number = normalize_card_number(raw_number)
        with self.ctx.uow(readonly=True) as uow:
            card = uow.players.card(number)
            if card is None:
                raise CardNotOnFile("card number not on file", field="card_number")
            return player_view(uow, uow.players.get(card.player_id), self._now())

    def sessions(self, principal: Principal, player_id: int, limit: int = 50) -> PlayerHistory:
        """Session history, newest first (machine sessions, table ratings, transfers; at most ``limit`` each)."""
        require_reader(principal, player_id)
        now = self._now()
        with self.ctx.uow(readonly=True) as uow:
            uow.players.get(player_id)
            return PlayerHistory(
                player=player_id,
                sessions=[session_view(s, m, now) for s, m in uow.players.sessions_of(player_id, limit)],
                table_ratings=[
                    RatingLine(rating=r.id, table=r.table_code, area=r.area, game=r.game, average_bet=r.average_bet_won,
                               minutes=r.minutes, decisions_per_hour=r.decisions_per_hour,
                               house_edge_ppm=r.house_edge_ppm, handle_won=r.handle_won,
                               theo_win=milli_to_won_floor(r.theo_milli), points_earned_milli=r.points_milli,
                               at=r.created_at.isoformat())
                    for r in uow.players.ratings_of(player_id, limit)
                ],
                transfers=[
                    TransferLine(transfer=t.id, machine=a, direction=t.direction, via=t.via, cashable=t.cashable_won,
                                 promo=t.promo_won, gaming_day=t.gaming_day.isoformat(), at=t.created_at.isoformat())
                    for t, a in uow.players.transfers_of(player_id, limit)
                ],
            )

    def points(self, principal: Principal, player_id: int, limit: int = 100) -> PointsJournalPage:
        """The points journal, newest first (milli-points, signed)."""
        require_reader(principal, player_id)
        with self.ctx.uow(readonly=True) as uow:
            p = uow.players.get(player_id)
            return PointsJournalPage(
                player=player_id,
                balance_milli=p.points_milli,
                entries=[
                    JournalLine(id=j.id, kind=j.kind, points_milli=j.points_milli,
                                balance_after_milli=j.balance_after_milli, session=j.session_id, rating=j.rating_id,
                                redemption=j.redemption_id, entry=j.entry_id, memo=j.memo, at=j.created_at.isoformat())
                    for j in uow.players.journal(player_id, limit)
                ],
            )

    def statement(self, principal: Principal, player_id: int, wallet: str = "cashable", limit: int = 50,
                  cursor: str | None = None) -> WalletStatement:
        """Ledger postings on one wallet (``cashable`` | ``promo``), newest first (won; + credits the wallet;
        ``limit`` 1-500), from just past ``cursor`` (the ``next_cursor`` of the previous page: ``<entry>-<posting>``;
        422 naming ``cursor`` otherwise); a wallet never opened has balance 0 and no entries."""
        require_reader(principal, player_id)
        after = _statement_cursor(cursor)
        code = wallet_account(player_id, wallet)
        with self.ctx.uow(readonly=True) as uow:
            uow.players.get(player_id)
            try:
                rows, last = uow.ledger.statement_page(code, limit=max(1, min(limit, 500)), after=after)
                balance = uow.ledger.balance(code)
            except NotFound:
                rows, last, balance = [], None, 0
            return WalletStatement(player=player_id, wallet=wallet, account=code, balance=balance, entries=rows,
                                   next_cursor=f"{last[0]}-{last[1]}" if last else None)

    # -- the cage: deposits and withdrawals (through the cashier's open drawer)
    def _drawer(self, uow, principal: Principal) -> str:
        """The ledger account of the cashier's open drawer (409 ``no-open-drawer-session``)."""
        return self.cash_desk.open_drawer_account(uow, principal.name)

    def deposit(self, principal: Principal, player_id: int, amount: object, key: OnceKey) -> Once[WalletMovement]:
        """Cash deposited at the cage into the cashable wallet (cashier with an open drawer; ``amount`` won).
        Ledger: Dr ``cage:MAIN:drawer:<drawer>`` / Cr ``player:<id>:cashable``. Returns :class:`WalletMovement`.
        Errors: 403 not a cashier; 409 ``no-open-drawer-session``; 404 ``player_id``; 422 ``amount``."""
        require_role(principal, "cashier")

        def fn(uow: PlayersUnitOfWork) -> WalletMovement:
            drawer = self._drawer(uow, principal)
            entry = WalletService.transfer(uow, player_id=player_id, counter_account=drawer, amount=amount,
                                           direction="in", kind="wallet.deposit", memo=f"cash deposit ({principal.name})",
                                           refs={"drawer": drawer})
            return WalletMovement(player=player_id, amount=amount, entry=entry, wallet=WalletService.balances(uow, player_id))

        return run_once(self.ctx, key, fn, result=WalletMovement)

    def withdraw(self, principal: Principal, player_id: int, card_number: object, pin: object, amount: object,
                 key: OnceKey) -> Once[WalletMovement]:
        """Cash paid out of the cashable wallet at the cage (cashier with an open drawer; the player's card + PIN,
        checked first in a transaction of its own: :func:`verify_pin`). Ledger: Dr ``player:<id>:cashable`` / Cr
        ``cage:MAIN:drawer:<drawer>``. Returns :class:`WalletMovement`. Errors: 409 ``insufficient-funds`` (field
        ``amount``) when the wallet or the drawer is short; 403 another player's / a lost or blocked card or a
        wrong PIN; 429 PIN throttled."""
        require_role(principal, "cashier")
        card_id = pin_card(self.ctx, card_number, pin, player_id, principal.id)

        def fn(uow: PlayersUnitOfWork) -> WalletMovement:
            self._recheck_card(uow, card_id)
            drawer = self._drawer(uow, principal)
            entry = WalletService.transfer(uow, player_id=player_id, counter_account=drawer, amount=amount,
                                           direction="out", kind="wallet.withdraw",
                                           memo=f"cash withdrawal ({principal.name})", refs={"drawer": drawer})
            return WalletMovement(player=player_id, amount=amount, entry=entry, wallet=WalletService.balances(uow, player_id))

        return run_once(self.ctx, key, fn, result=WalletMovement)

    @staticmethod
    def _recheck_card(uow, card_id: int) -> None:
        card = uow.players.card_by_id(card_id)
        refuse_unusable(card)

    # -- redemption to the wallet (one phase: no machine to acknowledge)
    def redeem_to_wallet(self, principal: Principal, player_id: int, card_number: object, pin: object,
                         points: object, kind: object, key: OnceKey) -> Once[WalletRedemption]:
        """Points → the wallet at the program's rate (host or cashier; the player's card + PIN).

        ``kind`` ``promo`` credits the promotional wallet (points × promo rate), ``cash`` the
        cashable wallet (points × cash rate). Ledger: Dr ``loyalty:comps:<kind>`` / Cr the
        wallet; points journal: ``redeem`` −points. Returns :class:`WalletRedemption`. 409
        ``insufficient-points`` (field points) when fewer whole points are available (balance − held);
        nothing moves. 422 ``points`` / ``kind``.
        """
        require_role(principal, "host", "cashier")
        points = require_points(points)
        if kind not in ("promo", "cash"):
            raise ValidationFailed("kind must be promo or cash", field="kind")
        card_id = pin_card(self.ctx, card_number, pin, player_id, principal.id)

        def fn(uow: PlayersUnitOfWork) -> WalletRedemption:
            now = self._now()
            self._recheck_card(uow, card_id)
            player = uow.players.get(player_id, for_update=True)
            prog = uow.players.program()
            LP.apply_expiry(uow, player, prog.points_idle_days, now)
            check_available(points, player.points_milli, player.points_held_milli)
            rate = prog.promo_won_per_point if kind == "promo" else prog.cash_won_per_point
            amount = redemption_value(points, rate)
            red = uow.players.new("redemption", player_id=player.id, target="wallet", kind=kind, points=points,
                                                  amount_won=amount, status="completed", requested_by=principal.id,
                                                  created_at=now, settled_at=now)
            entry = None
            if amount:
                uow.ledger.ensure_account(accounts.comp_expense(kind), L.AccountType.EXPENSE)
                WalletService.open(uow, player.id)
                e = L.EntryBuilder("loyalty.redeem", f"{points:,} points to the {kind} wallet")
                e.add(debit=accounts.comp_expense(kind), credit=wallet_account(player.id, "promo" if kind == "promo" else "cashable"),
                      amount=amount)
                entry = uow.ledger.post(e.build({"player": player.id, "redemption": red.id, "points": points}))
                red.entry_id = entry
            LP.debit_points(uow, player, points * MILLI_PER_POINT, kind="redeem", now=now, redemption_id=red.id,
                            entry_id=entry, memo=f"{kind} to wallet")
            return WalletRedemption(redemption=red.id, player=player.id, points=points, kind=kind, amount=amount,
                                    status=red.status, entry=entry, points_balance=player.points_milli // MILLI_PER_POINT,
                                    wallet=WalletService.balances(uow, player.id))

        return run_once(self.ctx, key, fn, result=WalletRedemption)

    # -- table ratings
    def rate(self, principal: Principal, player_id: int, play: TablePlay, key: OnceKey) -> Once[TableRating]:
        """The pit rates table play (pit): see :func:`rate_table_play`. Returns :class:`TableRating`."""
        require_role(principal, "pit")
        rated_play(play.average_bet, play.minutes, play.decisions_per_hour, play.house_edge_ppm)  # 422 early

        def fn(uow: PlayersUnitOfWork) -> TableRating:
            return rate_table_play(uow, player_id, rated_by=principal.id, now=self._now(), **dataclasses.asdict(play))

        return run_once(self.ctx, key, fn, result=TableRating)

    # -- program configuration
    def config(self, principal: Principal) -> ProgramConfig:
        """The program's settings, tiers (by threshold) and accrual rules (host, pit, auditor)."""
        require_role(principal, "host", "pit", "auditor")
        with self.ctx.uow(readonly=True) as uow:
            return ProgramConfig(
                program=program_view(uow.players.program()),
                tiers=[tier_view(t) for t in uow.players.tiers()],
                accrual_rules=[RuleView(scope=r.scope, key=r.key, basis=r.basis, won_per_point=r.won_per_point)
                               for r in uow.players.rules()],
            )

    def update_program(self, principal: Principal, changes: dict[str, int | None]) -> ProgramView:
        """Change program settings (admin; a None value is left as it is). Returns the settings after.
        422 naming the setting: unknown, not a positive integer (0 allowed for the rates), or above its maximum
        (:data:`PROGRAM_MAX`; 10**12 for the limits). The gaming day the daily limits count in is the casino's
        (settings ``SLOTSYS_GAMING_DAY_START_HOUR`` / ``_TZ``), not the program's."""
        require_role(principal, "admin")
        with self.ctx.uow() as uow:
            p = uow.players.program()
            for k, v in changes.items():
                if v is None:
                    continue
                if k not in ProgramView.model_fields:
                    raise ValidationFailed(f"unknown setting {k}", field=k)
                if isinstance(v, bool) or not isinstance(v, int) or v < 0 or (v == 0 and k not in (
                        "promo_won_per_point", "cash_won_per_point")):
                    raise ValidationFailed(f"{k} must be a positive integer", field=k)
                if v > PROGRAM_MAX.get(k, 10**12):  # days/seconds beyond these overflow dates; rates overflow BIGINT
                    raise ValidationFailed(f"{k} must be at most {PROGRAM_MAX.get(k, 10**12):,}", field=k)
                setattr(p, k, v)
            p.updated_at = self._now()
            uow.commit()
            return program_view(p)

    def put_rule(self, principal: Principal, scope: str, key: str, basis: object, won_per_point: object) -> RuleView:
        """Create or replace the accrual rule of a scope (admin). Sessions already open keep the
        rule they started with; new sessions and ratings use the new one. 422 ``basis`` (coin_in | theo) or
        an invalid rate."""
        require_role(principal, "admin")
        if basis not in ("coin_in", "theo"):
            raise ValidationFailed("basis must be coin_in or theo", field="basis")
        rule = AccrualRule(basis, won_per_point, scope, key)  # type: ignore[arg-type]
        with self.ctx.uow() as uow:
            row = uow.players.rule(scope, key)
            if row is None:
                row = uow.players.new("rule", scope=scope, key=key, basis=rule.basis.value,
                                                     won_per_point=rule.won_per_point, updated_at=self._now())
            else:
                row.basis, row.won_per_point, row.updated_at = rule.basis.value, rule.won_per_point, self._now()
            uow.commit()
            return RuleView(scope=scope, key=key, basis=row.basis, won_per_point=row.won_per_point)

    def put_tier(self, principal: Principal, code: str, name: object, threshold_points: object,
                 multiplier_permille: object) -> TierView:
        """Create or change a tier (admin). Players are re-tiered when they next earn points. 422 ``name``
        (1-60 characters), ``threshold_points`` (≥ 0), ``multiplier_permille`` (> 0)."""
        require_role(principal, "admin")
        if not isinstance(name, str) or not 1 <= len(name) <= 60:
            raise ValidationFailed("name must be 1-60 characters", field="name")
        for f, v in (("threshold_points", threshold_points), ("multiplier_permille", multiplier_permille)):
            if isinstance(v, bool) or not isinstance(v, int) or v < 0 or (f == "multiplier_permille" and v == 0):
                raise ValidationFailed(f"{f} must be a non-negative integer", field=f)
        with self.ctx.uow() as uow:
            t = uow.players.tier(code)
            if t is None:
                t = uow.players.new("tier", code=code, name=name, threshold_points=threshold_points,
                                                multiplier_permille=multiplier_permille)
            else:
                t.name, t.threshold_points, t.multiplier_permille = name, threshold_points, multiplier_permille
            uow.commit()
            return tier_view(t)

    def expire_idle(self, principal: Principal | None = None) -> PointsExpiry:
        """Expire the points of every idle player (admin, or a scheduled job). Each player in
        its own short transaction (player row locked). Returns :class:`PointsExpiry`."""
        if principal is not None:
            require_role(principal, "admin")
        now = self._now()
        with self.ctx.uow(readonly=True) as uow:
            idle_days = uow.players.program().points_idle_days
            ids = uow.players.idle_players(now - timedelta(days=idle_days))
        players = total = 0
        for pid in ids:
            with self.ctx.uow() as uow:
                player = uow.players.get(pid, for_update=True)
                n = LP.apply_expiry(uow, player, idle_days, now)
                uow.commit()
            if n:
                players += 1
                total += n
        return PointsExpiry(players=players, points_expired_milli=total)


# ------------------------------------------------------------------ demo data
DEMO_TIERS = (("CLASSIC", "Classic", 0, 1_000), ("GOLD", "Gold", 5_000, 1_250), ("PLATINUM", "Platinum", 25_000, 1_500),
              ("BLACK", "Black", 100_000, 2_000))
# scope, key, basis, won per point
DEMO_RULES = (
    ("default", "", "coin_in", 1_000),  # 1 point per ₩1,000 wagered
    ("zone", "VIP", "theo", 50),  # VIP: 1 point per ₩50 of theoretical win (≈ 1.2 per ₩1,000 at 94% RTP)
    ("machine", "M020", "coin_in", 500),  # a double-points machine
    ("zone", "PIT", "theo", 50),  # table games in the main pit
)
DEMO_PLAYERS = (("Kim Min-jun", "CLASSIC"), ("Lee Seo-yeon", "GOLD"), ("Park Ji-hoon", "PLATINUM"))


def seed_loyalty(uow, ctx: ServiceContext, *, demo_players: bool = True) -> list[dict]:
    """The loyalty program, tiers, accrual rules and comp accounts; with ``demo_players`` three
    players with cards and random PINs (₩1,000,000 deposited from the cage for the first).
    Returns the players' credentials. Does not commit."""
    import secrets

    if not uow.players.program_exists():
        uow.players.new("program", id=1)
    for code, name, threshold, mult in DEMO_TIERS:
        if uow.players.tier(code) is None:
            uow.players.new("tier", code=code, name=name, threshold_points=threshold, multiplier_permille=mult)
    for scope, key, basis, wpp in DEMO_RULES:
        if uow.players.rule(scope, key) is None:
            uow.players.new("rule", scope=scope, key=key, basis=basis, won_per_point=wpp)
    for kind in ("promo", "cash"):
        uow.ledger.ensure_account(accounts.comp_expense(kind), L.AccountType.EXPENSE)
    creds = []
    if not demo_players:
        return creds
    svc = PlayerService(ctx)
    now = ctx.clock.now()
    tiers = {t.code: t for t in LP.tiers(uow)}
    for i, (name, tier) in enumerate(DEMO_PLAYERS):
        pin = f"{secrets.randbelow(10_000):04d}"
        p = uow.players.add(Player(name=name, tier_code=tier, tier_points_milli=tiers[tier].threshold_points * MILLI_PER_POINT,
                                   points_milli=0, points_held_milli=0, last_activity_at=now, enrolled_at=now))
        card = svc._new_card(uow, p.id, hash_password(pin), now, "seed")
        WalletService.open(uow, p.id)
        if i == 0:
            WalletService.transfer(uow, player_id=p.id, counter_account=accounts.cage_bank(CAGE), amount=1_000_000,
                                   direction="in", kind="wallet.deposit", memo="demo deposit", player_locked=True)
        creds.append({"player": p.id, "name": name, "tier": tier, "card_number": card.card_number, "pin": pin})
    return creds


def reissue_demo_pins(uow) -> list[dict]:
    """New random PINs for the demo players' active cards (their failure counts reset). Does not commit."""
    import secrets

    creds = []
    for p in uow.players.by_names([n for n, _ in DEMO_PLAYERS]):
        for card in uow.players.cards_of(p.id):
            if card.status == "active":
                pin = f"{secrets.randbelow(10_000):04d}"
                card.pin_hash, card.pin_failures, card.pin_last_failure_at = hash_password(pin), 0, None
                creds.append({"player": p.id, "name": p.name, "tier": p.tier_code, "card_number": card.card_number,
                              "pin": pin})
    return creds
