"""Carded play at a machine: card-in / card-out, cashless (AFT-like) transfers between the
player's wallet and the machine, cash-out to the wallet, two-phase point redemption onto the
machine.

Every use case runs in one transaction with the **machine row locked first** (the same lock a
spin takes), then the player row, then redemption rows, then ledger accounts. Spins are atomic
(free games are played inside the paid game's request), so a card-out that arrives during a
game waits on the machine row until that game has committed: a session always ends at a game
boundary, and every game is counted wholly in one session or wholly outside it.

Money-moving requests need an Idempotency-Key and the carded player's card number and PIN
(checked first, in its own transaction: see :func:`slotsys.players.services.players.verify_pin`).
"""

from __future__ import annotations

from datetime import timedelta

import structlog

from slotsys.players.services.ports import CardRecord as PlayerCard
from slotsys.players.services.ports import MachineView as Machine, PlayersUnitOfWork
from slotsys.players.domain.player import PlayerSession
from slotsys.kernel import accounts
from slotsys.kernel import ledger as L
from slotsys.kernel.gaming_day import GamingDay
from slotsys.kernel.errors import Conflict, InsufficientFunds, MachineLocked, NotFound, ValidationFailed
from slotsys.players.domain.loyalty import (
    MILLI_PER_POINT,
    MachineCardedByOther,
    NotCarded,
    PlayerCardedElsewhere,
    check_available,
    check_transfer,
    redemption_value,
    require_points,
    resolve_rule,
)
from slotsys.kernel.money import MoneyError, require_won
from slotsys.players.services import loyalty_play as LP
from slotsys.kernel.context import Principal, ServiceContext
from slotsys.kernel.checks import require_machine
from slotsys.kernel.idempotency import Once, OnceKey, run_once
from slotsys.players.services.players import limits_of, refuse_unusable, session_view, usable_card, verify_pin
from slotsys.kernel.checks import require_role
from slotsys.players.services.wallet import WalletService, wallet_account
from slotsys.players.services.results import (
    CardInResult,
    CardOutResult,
    Greeting,
    MachineSession,
    RedemptionCancelled,
    RedemptionCompleted,
    RedemptionHold,
    TransferResult,
)

log = structlog.get_logger("slotsys.players")


class RedemptionNotPending(Conflict):
    code = "redemption-not-pending"
    title = "The redemption is no longer pending"


class SasMachineUsesAft(Conflict):
    code = "sas-machine-uses-aft"
    title = "A SAS machine takes cashless transfers by AFT"


def _not_sas(m: Machine) -> None:
    """409 for a SAS machine (machine mode, enrolled by a SAS host): its credit meter is on the machine, moved by
    AFT (:mod:`slotsys.players.services.aft`), never by the floor alone."""
    if m.outcome_source == "machine" and m.sas_meter_base is not None:
        raise SasMachineUsesAft(f"machine {m.asset_number} is a SAS machine: move money with an AFT transfer "
                                f"(/machines/{m.asset_number}/aft/…)", field="asset")


def _active(m: Machine) -> None:
    if m.status != "active":
        raise MachineLocked(f"machine {m.asset_number} is locked: {m.lock_reason or m.status}")


def _amount(value: object) -> int:
    try:
        return require_won(value, field="amount")
    except MoneyError as e:
        raise ValidationFailed(str(e), field="amount") from None


def _balance_or_zero(uow, code: str) -> int:
    try:
        return uow.ledger.balance(code)
    except NotFound:
        return 0


def machine_credits(uow, asset: str) -> dict[str, int]:
    """The machine's ``credits`` (cashable meter) and ``promo_credits`` (restricted promotional meter; 0 if never
    opened), won."""
    return {"credits": uow.ledger.balance(accounts.machine_credits(asset)), "promo_credits": _balance_or_zero(uow, accounts.machine_restricted(asset))}


def carded_session(uow, m: Machine, card: PlayerCard) -> PlayerSession:
    """The machine's open session, which must be ``card``'s player's (409 otherwise)."""
    s = uow.players.open_session_for_machine(m.id)
    if s is None:
        raise NotCarded(f"no player card is in machine {m.asset_number}: card in first", field="card_number")
    if s.player_id != card.player_id:
        raise MachineCardedByOther(f"machine {m.asset_number} is carded by another player", field="card_number")
    return s


class SessionService:
    """Carded play at a machine. The exactly-once use cases take the request's
    :class:`~slotsys.kernel.idempotency.OnceKey` and return ``Once[<result>]`` (a replay returns the first result
    and moves nothing). ``gaming_day``: the casino's gaming day (the daily transfer limits count in it; default
    06:00 Asia/Seoul)."""

    def __init__(self, ctx: ServiceContext, gaming_day: GamingDay | None = None) -> None:
        self.ctx = ctx
        self.gaming_day = gaming_day or GamingDay()

    def _now(self):
        return self.ctx.clock.now()

    # ------------------------------------------------------------ card-in / card-out
    def card_in(self, principal: Principal, asset: str, raw_card: object, key: OnceKey) -> Once[CardInResult]:
        """A player card inserted in the machine opens a session (machine key; Idempotency-Key).

        Snapshots the machine's meters, fixes the accrual rule for the session (machine > zone >
        default), applies points expiry. Returns :class:`CardInResult`: the session and the player's greeting
        (name, tier, points). Errors: 404 card not on file, 403 card lost / blocked, 409 machine
        carded by another player, 409 player carded at another machine, 409 locked machine.
        Inserting the same card again in the same machine returns the open session
        (``already_carded``: true).
        """
        require_machine(principal, asset)

        def fn(uow: PlayersUnitOfWork) -> CardInResult:
            now = self._now()
            m = uow.machines.get(asset, for_update=True)
            _active(m)
            card = usable_card(uow, raw_card)
            current = uow.players.open_session_for_machine(m.id)
            player = uow.players.get(card.player_id, for_update=True)
            if current is not None:
                if current.player_id != card.player_id:
                    raise MachineCardedByOther(f"machine {asset} is already carded by another player", field="card_number")
                return CardInResult(already_carded=True, session=session_view(current, m, now),
                                    player=self._greeting(uow, player))
            elsewhere = uow.players.open_session_for_player(player.id)
            if elsewhere is not None:
                other = uow.machines.get_by_id(elsewhere.machine_id).asset_number
                raise PlayerCardedElsewhere(f"this player's card is in machine {other}: card out there first",
                                            field="card_number", machine=other)
            prog = uow.players.program()
            LP.apply_expiry(uow, player, prog.points_idle_days, now)
            rule = resolve_rule(LP.rules(uow), machine=asset, zone=m.zone)
            s = uow.players.add(PlayerSession(
                player_id=player.id, card_id=card.id, machine_id=m.id, status="open", started_at=now, ended_by="",
                rule_scope=rule.scope, rule_basis=rule.basis.value, rule_won_per_point=rule.won_per_point,
                start_coin_in=m.coin_in, start_coin_out=m.coin_out, start_jackpot_out=m.jackpot_out,
                start_games_played=m.games_played, start_games_won=m.games_won,
                coin_in=0, coin_out=0, jackpot_out=0, games_played=0, games_won=0, theo_milli=0, points_milli=0))
            log.info("session.card_in", machine=asset, player=player.id, session=s.id)
            return CardInResult(already_carded=False, session=session_view(s, m, now), player=self._greeting(uow, player))

        return run_once(self.ctx, key, fn, result=CardInResult)

    @staticmethod
    def _greeting(uow, player) -> Greeting:
        tier = uow.players.tier(player.tier_code)
        return Greeting(player=player.id, name=player.name, tier=player.tier_code,
                        tier_name=tier.name if tier else player.tier_code,
                        points=player.points_milli // MILLI_PER_POINT, progress_milli=player.points_milli % MILLI_PER_POINT)

    def card_out(self, principal: Principal, asset: str, key: OnceKey) -> Once[CardOutResult]:
        """The card is removed (machine key; or an attendant/host closing an abandoned session).

        Waits for any game in progress (machine row lock), snapshots the meters and closes the
        session; its meters are the change of the machine's meters since card-in. 409 ``not-carded`` if no card
        is in the machine. Returns the closed session (:class:`CardOutResult`).
        """
        if principal.kind == "machine":
            require_machine(principal, asset)
        else:
            require_role(principal, "attendant", "host")

        def fn(uow: PlayersUnitOfWork) -> CardOutResult:
            now = self._now()
            m = uow.machines.get(asset, for_update=True)
            s = uow.players.open_session_for_machine(m.id)
            if s is None:
                raise NotCarded(f"no player card is in machine {asset}")
            uow.machines.refresh(m)
            for meter in ("coin_in", "coin_out", "jackpot_out", "games_played", "games_won"):
                setattr(s, f"end_{meter}", getattr(m, meter))
            s.status = "closed"
            s.ended_at = now
            s.ended_by = principal.id
            log.info("session.card_out", machine=asset, player=s.player_id, session=s.id, games=s.games_played)
            return CardOutResult(session=session_view(s, m, now))

        return run_once(self.ctx, key, fn, result=CardOutResult)

    def current(self, principal: Principal, asset: str) -> MachineSession:
        """The machine's open session (machine itself, or attendant / host / operator / auditor): the session and
        the player's greeting, or ``session`` None when no card is in."""
        if principal.kind == "machine":
            require_machine(principal, asset)
        else:
            require_role(principal, "attendant", "host", "operator", "auditor")
        with self.ctx.uow(readonly=True) as uow:
            m = uow.machines.get(asset)
            s = uow.players.open_session_for_machine(m.id)
            if s is None:
                return MachineSession(machine=asset, session=None)
            player = uow.players.get(s.player_id)
            return MachineSession(machine=asset, session=session_view(s, m, self._now()),
                                  player=self._greeting(uow, player))

    # ------------------------------------------------------------ cashless transfers
    def _transfer(self, principal: Principal, asset: str, card_number: object, pin: object, amount: object,
                  kind: object, key: OnceKey, direction: str, cash_out: bool = False) -> Once[TransferResult]:
        require_machine(principal, asset)
        if kind not in ("cashable", "promo"):
            raise ValidationFailed("kind must be cashable or promo", field="kind")
        amount = None if cash_out else _amount(amount)
        card_id, player_id = verify_pin(self.ctx, card_number, pin, actor=principal.id)

        def fn(uow: PlayersUnitOfWork) -> TransferResult:
            now = self._now()
            m = uow.machines.get(asset, for_update=True)
            _active(m)
            _not_sas(m)
            card = uow.players.card_by_id(card_id)
            refuse_unusable(card)
            s = carded_session(uow, m, card)
            player = uow.players.get(player_id, for_update=True)
            prog = uow.players.program()
            nonrestricted = 0  # non-restricted promotional credits: cashable, so they go to the cashable wallet
            if cash_out:  # everything on the machine, cashable and promotional
                cashable = uow.ledger.balance(accounts.machine_credits(asset))
                promo = _balance_or_zero(uow, accounts.machine_restricted(asset))
                nonrestricted = _balance_or_zero(uow, accounts.machine_nonrestricted(asset))
                if cashable <= 0 and promo <= 0 and nonrestricted <= 0:
                    raise InsufficientFunds("there are no credits to cash out")
            elif kind == "cashable":
                cashable, promo = amount, 0
            else:
                cashable, promo = 0, amount
            total = cashable + promo + nonrestricted
            day = self.gaming_day.day_of(now)
            check_transfer(limits_of(prog), direction, total, uow.players.transferred_on(player.id, day, direction))
            WalletService.open(uow, player.id)
            e = L.EntryBuilder("wallet.to_machine" if direction == "to_machine" else "wallet.to_wallet",
                               f"{'cash-out to wallet' if cash_out else 'cashless transfer'} {direction} at {asset}")
            for wallet, won, meter in (("cashable", cashable, accounts.machine_credits(asset)), ("promo", promo, accounts.machine_restricted(asset)),
                                       ("cashable", nonrestricted, accounts.machine_nonrestricted(asset))):
                if not won:
                    continue
                wacc = wallet_account(player.id, wallet)
                if direction == "to_machine":
                    have = uow.ledger.balance(wacc)
                    if have < won:
                        raise InsufficientFunds(f"the {wallet} wallet holds ₩{have:,}, less than ₩{won:,}", field="amount",
                                                balance=have)
                    if wallet == "promo":
                        uow.ledger.ensure_account(meter, L.AccountType.LIABILITY, non_negative=True)
                    e.add(debit=wacc, credit=meter, amount=won)
                else:
                    have = _balance_or_zero(uow, meter)
                    if have < won:
                        raise InsufficientFunds(f"the machine holds ₩{have:,} of {wallet} credits, less than ₩{won:,}",
                                                field="amount", credits=have)
                    e.add(debit=meter, credit=wacc, amount=won)
            entry = uow.ledger.post(e.build({"machine": asset, "player": player.id, "session": s.id}))
            t = uow.players.new("transfer", player_id=player.id, machine_id=m.id, session_id=s.id, direction=direction,
                                               via="cash_out" if cash_out else "aft", cashable_won=cashable + nonrestricted, promo_won=promo,
                                               gaming_day=day, entry_id=entry, created_at=now)
            return TransferResult(transfer=t.id, machine=asset, player=player.id, direction=direction,
                                  cashable=cashable + nonrestricted, promo=promo, amount=total, entry=entry,
                                  wallet=WalletService.balances(uow, player.id), **machine_credits(uow, asset))

        return run_once(self.ctx, key, fn, result=TransferResult)

    def to_machine(self, principal: Principal, asset: str, card_number: object, pin: object, amount: object,
                   kind: object, key: OnceKey) -> Once[TransferResult]:
        """Wallet → machine credits (AFT in): ``amount`` won of ``kind`` (``cashable`` → credit meter, ``promo`` →
        the restricted promo meter), the carded player's card + PIN. Ledger: Dr ``player:<id>:<wallet>`` / Cr
        ``machine:<asset>:credits`` (or ``:promo``). Returns :class:`TransferResult`. Refusals (nothing moves):
        403 wrong PIN / lost or blocked card, 429 PIN throttled, 409 machine not carded or carded by another
        player, 422 above the per-transfer limit, 409 daily limit reached, 409 ``insufficient-funds`` (field
        ``amount``) wallet short."""
        return self._transfer(principal, asset, card_number, pin, amount, kind, key, "to_machine")

    def to_wallet(self, principal: Principal, asset: str, card_number: object, pin: object, amount: object,
                  kind: object, key: OnceKey) -> Once[TransferResult]:
        """Machine credits → wallet (AFT out), the mirror of :meth:`to_machine`; 409 ``insufficient-funds`` if the
        machine holds fewer credits of that kind."""
        return self._transfer(principal, asset, card_number, pin, amount, kind, key, "to_wallet")

    def cash_out_to_wallet(self, principal: Principal, asset: str, card_number: object, pin: object,
                           key: OnceKey) -> Once[TransferResult]:
        """A carded player cashes out to the wallet instead of a ticket: every cashable credit (and non-restricted
        promotional credit) to the cashable wallet and every restricted promotional credit to the promo wallet,
        in one entry, within the to-wallet limits (otherwise 422/409: cash out to a ticket instead); 409 when the
        machine holds no credits."""
        return self._transfer(principal, asset, card_number, pin, None, "cashable", key, "to_wallet", cash_out=True)

    # ------------------------------------------------------------ two-phase redemption at a machine
    def redeem_request(self, principal: Principal, asset: str, card_number: object, pin: object, points: object,
                       kind: object, key: OnceKey) -> Once[RedemptionHold]:
        """Phase 1: the carded player asks for ``points`` as ``promo`` or ``cash`` credits.

        Holds the points (not debited) for the program's hold time and returns the redemption
        to offer the machine (:class:`RedemptionHold`). 409 ``insufficient-points`` when fewer whole points are
        available than asked; 422 ``points`` / ``kind``; the card and session refusals of :meth:`to_machine`."""
        require_machine(principal, asset)
        points = require_points(points)
        if kind not in ("promo", "cash"):
            raise ValidationFailed("kind must be promo or cash", field="kind")
        card_id, player_id = verify_pin(self.ctx, card_number, pin, actor=principal.id)

        def fn(uow: PlayersUnitOfWork) -> RedemptionHold:
            now = self._now()
            m = uow.machines.get(asset, for_update=True)
            _active(m)
            card = uow.players.card_by_id(card_id)
            refuse_unusable(card)
            carded_session(uow, m, card)
            player = uow.players.get(player_id, for_update=True)
            prog = uow.players.program()
            LP.apply_expiry(uow, player, prog.points_idle_days, now)
            check_available(points, player.points_milli, player.points_held_milli)
            rate = prog.promo_won_per_point if kind == "promo" else prog.cash_won_per_point
            red = uow.players.new("redemption",
                player_id=player.id, target="machine", machine_id=m.id, kind=kind, points=points,
                amount_won=redemption_value(points, rate), status="pending", requested_by=principal.id, created_at=now,
                expires_at=now + timedelta(seconds=prog.redemption_hold_seconds))
            player.points_held_milli += points * MILLI_PER_POINT
            return RedemptionHold(redemption=red.id, machine=asset, player=player.id, points=points, kind=kind,
                                  amount=red.amount_won, status=red.status, expires_at=red.expires_at.isoformat(),
                                  points_available=(player.points_milli - player.points_held_milli) // MILLI_PER_POINT)

        return run_once(self.ctx, key, fn, result=RedemptionHold)

    def _settle(self, uow: PlayersUnitOfWork, principal: Principal, asset: str, redemption_id: int, ack: bool):
        """The pending redemption settled in ``uow``: completed (``ack``) or cancelled. Locks machine → player →
        redemption."""
        now = self._now()
        m = uow.machines.get(asset, for_update=True)
        peek = uow.players.redemption(redemption_id)
        if peek is None or peek.machine_id != m.id:
            raise NotFound(f"redemption {redemption_id} is not pending at machine {asset}", field="redemption")
        player = uow.players.get(peek.player_id, for_update=True)  # player before redemption: the lock order
        red = uow.players.redemption(redemption_id, for_update=True)
        if red.status != "pending":
            raise RedemptionNotPending(f"redemption {red.id} is {red.status}", field="redemption",
                                       redemption_status=red.status)
        if ack and red.expires_at <= now:
            raise RedemptionNotPending(
                f"redemption {red.id} expired at {red.expires_at.isoformat()}: its points were not debited; "
                "ask again", field="redemption", redemption_status="expired")
        player.points_held_milli -= red.points * MILLI_PER_POINT
        red.settled_at = now
        if not ack:
            red.status = "cancelled"
            return RedemptionCancelled(redemption=red.id, status=red.status, machine=asset, player=player.id,
                                       points_balance=player.points_milli // MILLI_PER_POINT)
        _active(m)
        entry = None
        if red.amount_won:
            meter = accounts.machine_credits(asset) if red.kind == "cash" else accounts.machine_restricted(asset)
            uow.ledger.ensure_account(meter, L.AccountType.LIABILITY, non_negative=True)
            uow.ledger.ensure_account(accounts.comp_expense(red.kind), L.AccountType.EXPENSE)
            e = L.EntryBuilder("loyalty.redeem", f"{red.points:,} points as {red.kind} credits on {asset}")
            e.add(debit=accounts.comp_expense(red.kind), credit=meter, amount=red.amount_won)
            entry = uow.ledger.post(e.build({"player": player.id, "redemption": red.id, "machine": asset}))
        red.status = "completed"
        red.entry_id = entry
        LP.debit_points(uow, player, red.points * MILLI_PER_POINT, kind="redeem", now=now, redemption_id=red.id,
                        entry_id=entry, memo=f"{red.kind} credits on {asset}")
        return RedemptionCompleted(redemption=red.id, status=red.status, machine=asset, player=player.id,
                                   points=red.points, kind=red.kind, amount=red.amount_won, entry=entry,
                                   points_balance=player.points_milli // MILLI_PER_POINT, **machine_credits(uow, asset))

    def redeem_ack(self, principal: Principal, asset: str, redemption_id: int,
                   key: OnceKey) -> Once[RedemptionCompleted]:
        """Phase 2: the machine has put the credits on its meter. Debits the held points and posts
        Dr ``loyalty:comps:<kind>`` / Cr ``machine:<asset>:credits`` (cash) or ``:promo`` (promo).
        Returns :class:`RedemptionCompleted`. 404 ``redemption`` not at this machine; 409
        ``redemption-not-pending`` if it was cancelled, expired or already settled; 409 locked machine."""
        require_machine(principal, asset)
        return run_once(self.ctx, key, lambda uow: self._settle(uow, principal, asset, redemption_id, True),
                        result=RedemptionCompleted)

    def redeem_cancel(self, principal: Principal, asset: str, redemption_id: int,
                      key: OnceKey) -> Once[RedemptionCancelled]:
        """The machine could not take the credits: the hold is released, nothing is debited
        (:class:`RedemptionCancelled`; the refusals of :meth:`redeem_ack`)."""
        require_machine(principal, asset)
        return run_once(self.ctx, key, lambda uow: self._settle(uow, principal, asset, redemption_id, False),
                        result=RedemptionCancelled)
