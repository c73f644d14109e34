"""Cashless AFT transfers between a carded player's wallet and a SAS machine (SAS 6.02 §8, in-house cashable
transfers), two-phase and exactly once. The money moves on the one ledger; the SAS host moves it on the machine.

Flow (amounts integer won; ``asset`` the floor's asset number):

1. :meth:`AftService.request` — the carded player (card + PIN, Idempotency-Key) asks for ``amount`` ``to_machine``
   (wallet → credit meter, AFT in) or ``to_wallet`` (credit meter → wallet, AFT out), with the refusals and limits
   of the REST cashless transfer (:class:`~slotsys.players.services.sessions.SessionService`). The machine must be
   a SAS machine: enrolled by a SAS host (``sas_meter_base`` recorded) and in machine mode (``outcome_source``
   ``machine``), otherwise 409 ``machine-not-sas`` naming why. It records a ``pending`` transfer with a unique SAS
   transaction ID (20 printable ASCII characters: ``AFT`` + 17 random base-32 characters) that expires
   :attr:`AftService.timeout_s` after it was asked for. To the machine the money is HELD at once:
   ``Dr player:<id>:cashable / Cr machine:<asset>:aft_in_transit`` (kind ``aft.hold``).
2. :meth:`AftService.next_for_machine` — the SAS host's floor takes the machine's transfer to send: a ``sent``
   one first (``resend``: handed before, its result unknown: the host interrogates the machine first and sends
   it, with the same transaction ID, only when the machine does not know it — never a second transfer),
   otherwise the oldest ``pending`` one, marked ``sent`` (one asked in a session that has ended since — the
   player carded out — is ``failed`` instead, its hold returned: credits never reach a machine its player left).
   One at a time per machine.
3. :meth:`AftService.settle` — the machine's final status for the transaction ID, exactly once (a repeat changes
   nothing): success to the machine ``Dr machine:<asset>:aft_in_transit / Cr machine:<asset>:credits``
   (``aft.to_machine``; a part the machine did not take goes back to the wallet in the same entry); success to the
   wallet ``Dr machine:<asset>:credits / Cr player:<id>:cashable`` for what the machine moved (``aft.to_wallet``;
   409 ``insufficient-funds`` while the floor holds fewer credits: its games are still on their way, called again);
   failure: the hold back to the wallet (``aft.release``) or nothing (to the wallet). A completed transfer is also
   a cashless transfer row (``via`` ``sas_aft``) in the player's history and daily totals.
4. Resolution — a ``sent`` transfer whose result the host never reported (the host or its link gone for good,
   the machine replaced) is settled by a supervisor from the machine's AFT log (:meth:`AftService.resolve`),
   with the same entries as the machine's answer and an audit-log entry, once it has waited longer than
   :attr:`AftService.timeout_s`.
5. Expiry — a ``pending`` transfer (never handed to the host) past its ``expires_at`` becomes ``expired`` and its
   hold returns (``aft.release``); checked whenever the machine's transfers are read (the host's instruction
   slot, a request, a GET) and by beat (:meth:`AftService.expire_stale`, every 10 s). A ``sent`` one never
   expires: the machine's answer resolves it.

Daily limits count the transfers done and the AFT transfers pending or sent. Lock order: machine row → player
row → transfer rows → ledger accounts.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import structlog

from slotsys.kernel import accounts, audit_log
from slotsys.kernel import ledger as L
from slotsys.kernel.checks import require_machine, require_role
from slotsys.kernel.context import Principal, ServiceContext
from slotsys.kernel.errors import Conflict, InsufficientFunds, MachineLocked, NotFound, ValidationFailed
from slotsys.kernel.idempotency import Once, OnceKey, run_once
from slotsys.kernel.money import MoneyError, require_won
from slotsys.kernel.gaming_day import GamingDay
from slotsys.players.domain.loyalty import check_transfer
from slotsys.players.services.players import limits_of, refuse_unusable, verify_pin
from slotsys.players.services.ports import PlayersUnitOfWork
from slotsys.players.services.results import AftTransferView
from slotsys.players.services.sessions import carded_session
from slotsys.players.services.wallet import WalletService, wallet_account

log = structlog.get_logger("slotsys.players.aft")

__all__ = ["AftService", "AftPending", "AftSettled", "MachineNotSas", "AftNotOpen", "AftInProgress", "DIRECTIONS",
           "FINAL_STATES"]

DIRECTIONS = ("to_machine", "to_wallet")
FINAL_STATES = frozenset({"completed", "failed", "expired"})
_TXID_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # 32 printable ASCII characters


class MachineNotSas(Conflict):
    code = "machine-not-sas"
    title = "The machine is not an enrolled SAS machine"


class AftNotOpen(Conflict):
    code = "aft-not-open"
    title = "The AFT transfer is not waiting for a resolution"


class AftInProgress(Conflict):
    code = "aft-in-progress"
    title = "The SAS host may still answer for this AFT transfer"


@dataclass(frozen=True)
class AftPending:
    """A transfer for the SAS host to carry out: ``transfer`` its id, ``transaction_id``, ``direction``
    to_machine | to_wallet, ``amount_won``, ``player``; ``resend`` True when it was handed to a host
    before and is not settled (the host asks the machine before sending it)."""

    transfer: int
    transaction_id: str
    direction: str
    amount_won: int
    player: int
    resend: bool = False


@dataclass(frozen=True)
class AftSettled:
    """What became of a transfer: ``state`` (completed | failed | expired, or pending/sent: unchanged),
    ``moved_won``, ``entry`` the settlement's journal entry, ``changed`` False for a repeat."""

    transfer: int
    direction: str
    state: str
    moved_won: int
    entry: int | None
    changed: bool


def _active(m: Any) -> None:
    if m.status != "active":
        raise MachineLocked(f"machine {m.asset_number} is locked: {m.lock_reason or m.status}")


def require_sas(m: Any) -> None:
    """409 ``machine-not-sas`` unless ``m`` is a SAS machine: in machine mode and enrolled by a SAS host."""
    if m.outcome_source != "machine":
        raise MachineNotSas(f"machine {m.asset_number} is in {m.outcome_source} mode: AFT is for a SAS machine "
                            "(outcome source machine)", field="asset", reason="not_machine_mode")
    if m.sas_meter_base is None:
        raise MachineNotSas(f"machine {m.asset_number} has never been enrolled by a SAS host", field="asset",
                            reason="not_enrolled")


def _iso(t: Any) -> str | None:
    return None if t is None else t.isoformat()


class AftService:
    """See the module docstring. ``gaming_day``: the casino's gaming day (the daily transfer limits count in it, as
    :class:`~slotsys.players.services.sessions.SessionService`'s; default ``GamingDay()``); ``timeout_s``: how long
    a transfer may wait for the host before it expires (default the setting ``aft_pending_timeout_s``)."""

    def __init__(self, ctx: ServiceContext, gaming_day: GamingDay | None = None, *,
                 timeout_s: int | None = None) -> None:
        self.ctx = ctx
        self.gaming_day = gaming_day or GamingDay()
        self.timeout_s = int(timeout_s if timeout_s is not None
                             else getattr(ctx.settings, "aft_pending_timeout_s", 60))

    def _now(self):
        return self.ctx.clock.now()

    def _txid(self) -> str:
        return "AFT" + "".join(_TXID_ALPHABET[self.ctx.rng.randbelow(32)] for _ in range(17))

    # ------------------------------------------------------------ phase 1
    def request(self, principal: Principal, asset: str, card_number: object, pin: object, amount: object,
                direction: str, key: OnceKey) -> Once[AftTransferView]:
        """Phase 1 (machine key; Idempotency-Key): a ``pending`` AFT transfer of ``amount`` won ``direction``
        (``to_machine`` holds it on the ledger now). Returns :class:`AftTransferView`. Refusals (nothing moves):
        422 ``amount`` not a positive integer, not whole credits of the machine or above the per-transfer limit;
        403 wrong PIN / lost or blocked card; 429 PIN throttled; 404 machine not on the floor; 409
        ``machine-not-sas``, locked machine, not carded or carded by another player, daily limit reached; 409
        ``insufficient-funds`` (field ``amount``): the wallet short (to the machine), or the floor's credits of the
        machine less the AFT outs already asked for (to the wallet)."""
        require_machine(principal, asset)
        if direction not in DIRECTIONS:
            raise ValidationFailed("direction must be to_machine or to_wallet", field="direction")
        try:
            won = require_won(amount, field="amount")
        except MoneyError as e:
            raise ValidationFailed(str(e), field="amount") from None
        card_id, player_id = verify_pin(self.ctx, card_number, pin, actor=principal.id)

        def fn(uow: PlayersUnitOfWork) -> AftTransferView:
            now = self._now()
            m = uow.machines.get(asset, for_update=True)
            require_sas(m)
            _active(m)
            if won % m.denomination:
                raise ValidationFailed(f"₩{won:,} is not a whole number of the machine's ₩{m.denomination:,} credits",
                                       field="amount", denomination=m.denomination)
            card = uow.players.card_by_id(card_id)
            refuse_unusable(card)
            s = carded_session(uow, m, card)
            player = uow.players.get(player_id, for_update=True)
            self._expire(uow, m, now)  # after the player's row: the lock order (machine → player → accounts)
            prog = uow.players.program()
            day = self.gaming_day.day_of(now)
            check_transfer(limits_of(prog), direction, won, uow.players.transferred_on(player.id, day, direction))
            WalletService.open(uow, player.id)
            wallet = wallet_account(player.id, "cashable")
            txid = self._txid()
            hold = None
            if direction == "to_machine":
                have = uow.ledger.balance(wallet)
                if have < won:
                    raise InsufficientFunds(f"the cashable wallet holds ₩{have:,}, less than ₩{won:,}", field="amount",
                                            balance=have)
                transit = accounts.aft_in_transit(asset)
                uow.ledger.ensure_account(transit, L.AccountType.LIABILITY, non_negative=True)
                e = L.EntryBuilder("aft.hold", f"AFT {txid} to machine {asset}: wallet money held")
                e.add(debit=wallet, credit=transit, amount=won)
                hold = uow.ledger.post(e.build({"machine": asset, "player": player.id, "session": s.id,
                                                "transaction_id": txid}))
            else:
                asked = sum(t.amount_won for t in uow.players.aft_open(m.id) if t.direction == "to_wallet")
                have = uow.ledger.balance(accounts.machine_credits(asset)) - asked
                if have < won:
                    raise InsufficientFunds(f"the machine holds ₩{have:,} of credits not yet asked for, less than "
                                            f"₩{won:,}", field="amount", credits=have)
            t = uow.players.new("aft", transaction_id=txid, player_id=player.id, machine_id=m.id, session_id=s.id,
                                direction=direction, amount_won=won, moved_won=0, state="pending", gaming_day=day,
                                requested_by=principal.id, created_at=now,
                                expires_at=now + timedelta(seconds=self.timeout_s), hold_entry_id=hold)
            log.info("aft.requested", machine=asset, player=player.id, transfer=t.id, direction=direction, won=won)
            return self._view(uow, t, asset)

        return run_once(self.ctx, key, fn, result=AftTransferView)

    def get(self, principal: Principal, asset: str, transfer_id: int) -> AftTransferView:
        """The transfer as it is now (the machine itself, or attendant / host / operator / auditor); a pending one
        past its time is expired first. 404 when ``transfer_id`` is not a transfer of machine ``asset``."""
        if principal.kind == "machine":
            require_machine(principal, asset)
        else:
            require_role(principal, "attendant", "host", "operator", "auditor")
        with self.ctx.uow(readonly=True) as uow:
            m = uow.machines.get(asset)
            t = uow.players.aft(transfer_id)
            if t is None or t.machine_id != m.id:
                raise NotFound(f"AFT transfer {transfer_id} is not one of machine {asset}", field="transfer")
            if not (t.state == "pending" and t.expires_at <= self._now()):
                return self._view(uow, t, asset)
        with self.ctx.uow() as uow:  # past its time: expired now (the machine's row lock, as the host's slot)
            m = uow.machines.get(asset, for_update=True)
            self._expire(uow, m, self._now())
            view = self._view(uow, uow.players.aft(transfer_id), asset)
            uow.commit()
            return view

    # ------------------------------------------------------------ phase 2 (the SAS host's floor)
    @staticmethod
    def has_open(uow: PlayersUnitOfWork, machine_id: int) -> bool:
        """Whether the machine has an AFT transfer pending or sent, read in the caller's unit of work (the SAS
        host's floor asks at every instruction slot: :meth:`next_for_machine` only when there is one)."""
        return bool(uow.players.aft_open(machine_id))

    def next_for_machine(self, asset: str) -> AftPending | None:
        """The transfer the SAS host should carry out on ``asset`` now (see the module: a ``sent`` one, else the
        oldest ``pending`` one, marked ``sent``), or None. Expires the machine's stale pending ones. Only a
        pending one to mark costs a write."""
        with self.ctx.uow(readonly=True) as uow:
            m = uow.machines.get(asset)
            open_ = uow.players.aft_open(m.id)
            sent = next((t for t in open_ if t.state == "sent"), None)
            if not open_ or sent is not None:
                return None if sent is None else self._pending(sent, resend=True)
        with self.ctx.uow() as uow:
            now = self._now()
            m = uow.machines.get(asset, for_update=True)
            self._expire(uow, m, now)
            rows = uow.players.aft_open(m.id, for_update=True)
            out = next((t for t in rows if t.state == "sent"), None)
            resend = out is not None
            if out is None:
                session = uow.players.open_session_for_machine(m.id)
                for t in rows:  # the oldest pending one asked in the machine's open session
                    if session is None or session.id != t.session_id:
                        self._close(uow, m, t, now, "failed", "the player carded out before it was sent")
                        continue
                    out = t
                    out.state, out.sent_at = "sent", now
                    log.info("aft.sent", machine=asset, transfer=out.id, transaction_id=out.transaction_id)
                    break
            result = None if out is None else self._pending(out, resend=resend)
            uow.commit()
            return result

    def settle(self, asset: str, transaction_id: str, status: int, moved_won: int, reason: str = "") -> AftSettled:
        """The machine's final AFT status (table 8.3: ``status & 0xE0 == 0`` success) for ``transaction_id`` and
        the won it moved (see the module). Exactly once: a transfer already final is returned unchanged
        (``changed`` False). 404 (field ``transaction_id``) for a transaction not of this machine; 409
        ``insufficient-funds`` to the wallet while the floor holds fewer of the machine's credits."""
        with self.ctx.uow() as uow:
            now = self._now()
            m = uow.machines.get(asset, for_update=True)
            peek = uow.players.aft_by_transaction(transaction_id)
            if peek is None or peek.machine_id != m.id:
                raise NotFound(f"AFT transaction {transaction_id!r} is not one of machine {asset}",
                               field="transaction_id")
            uow.players.get(peek.player_id, for_update=True)
            t = uow.players.aft_by_transaction(transaction_id, for_update=True)
            if t.state in FINAL_STATES:
                return AftSettled(t.id, t.direction, t.state, t.moved_won, t.settle_entry_id, False)
            moved, entry = self._settle_locked(uow, m, t, status, moved_won, reason, now)
            settled = AftSettled(t.id, t.direction, t.state, moved, entry, True)
            uow.commit()
            return settled

    def _settle_locked(self, uow: PlayersUnitOfWork, m: Any, t: Any, status: int, moved_won: int, reason: str,
                       now: Any) -> tuple[int, int | None]:
        """Settle the open transfer ``t`` of machine ``m`` (rows locked by the caller, who commits): the ledger
        entry of what moved (see the module), the transfer final, a completed one in the cashless history.
        Returns (won moved, the settling entry or None)."""
        asset, transaction_id = m.asset_number, t.transaction_id
        ok = status & 0xE0 == 0 and moved_won > 0
        wallet = wallet_account(t.player_id, "cashable")
        refs = {"machine": asset, "player": t.player_id, "transaction_id": transaction_id, "aft": t.id}
        entry = None
        if t.direction == "to_machine":
            moved = min(moved_won, t.amount_won) if ok else 0
            transit = accounts.aft_in_transit(asset)
            e = L.EntryBuilder("aft.to_machine" if moved else "aft.release",
                               f"AFT {transaction_id} to machine {asset}"
                               + ("" if moved else f": refused (status 0x{status:02X}), hold returned"))
            e.add(debit=transit, credit=accounts.machine_credits(asset), amount=moved)
            e.add(debit=transit, credit=wallet, amount=t.amount_won - moved)
            entry = uow.ledger.post(e.build(refs))
        else:
            moved = moved_won if ok else 0
            if moved:
                have = uow.ledger.balance(accounts.machine_credits(asset))
                if have < moved:
                    raise InsufficientFunds(f"the floor holds ₩{have:,} of machine {asset}'s credits, less than "
                                            f"the ₩{moved:,} it moved", field="amount", credits=have)
                e = L.EntryBuilder("aft.to_wallet", f"AFT {transaction_id} from machine {asset} to the wallet")
                e.add(debit=accounts.machine_credits(asset), credit=wallet, amount=moved)
                entry = uow.ledger.post(e.build(refs))
        t.state = "completed" if moved else "failed"
        t.moved_won, t.status_code, t.settled_at, t.settle_entry_id = moved, status, now, entry
        t.reason = "" if moved else (reason or f"the machine's status 0x{status:02X}")[:200]
        if moved:
            uow.players.new("transfer", player_id=t.player_id, machine_id=m.id, session_id=t.session_id,
                            direction=t.direction, via="sas_aft", cashable_won=moved, promo_won=0,
                            gaming_day=t.gaming_day,
                            entry_id=t.hold_entry_id if t.direction == "to_machine" else entry, created_at=now)
        log.info("aft.settled", machine=asset, transfer=t.id, state=t.state, status=status, moved=moved)
        return moved, entry

    def resolve(self, principal: Principal, asset: str, transfer_id: int, outcome: object, moved: object,
                reason: object, key: OnceKey) -> Once[AftTransferView]:
        """A supervisor settles a ``sent`` transfer whose result the host never reported (the host or the link died
        and did not come back, the machine was replaced): ``outcome`` ``completed`` (the machine's AFT log shows
        it, ``moved`` won, default the whole amount; at most the amount) or ``failed`` (it did not: a hold to the
        machine returns to the wallet). The same ledger entries as the machine's own answer (:meth:`settle`), an
        audit-log entry (``aft.resolve``, the reason), exactly once per Idempotency-Key; the host's later answer
        for it changes nothing (the transfer is final). Only once the transfer has been ``sent`` longer than
        :attr:`timeout_s` (409 ``aft-in-progress`` before: the host may still answer). Errors: 403 (role), 404
        ``transfer``, 409 ``aft-not-open`` (pending: it expires by itself; or already final), 422 ``outcome`` /
        ``moved`` / ``reason``, 409 ``insufficient-funds`` (to the wallet, more than the floor's credits)."""
        require_role(principal, "supervisor")
        if outcome not in ("completed", "failed"):
            raise ValidationFailed("outcome must be completed or failed", field="outcome")
        if not isinstance(reason, str) or not reason.strip() or len(reason) > 200:
            raise ValidationFailed("reason: what the machine's AFT log or the attendant showed, 1-200 characters",
                                   field="reason")
        won: int | None = None
        if moved is not None:
            try:
                won = require_won(moved, field="moved")
            except MoneyError as e:
                raise ValidationFailed(str(e), field="moved") from None
            if won <= 0 or outcome == "failed":
                raise ValidationFailed("moved is more than ₩0, and only for a completed transfer", field="moved")

        def fn(uow: PlayersUnitOfWork) -> AftTransferView:
            now = self._now()
            m = uow.machines.get(asset, for_update=True)
            peek = uow.players.aft(transfer_id)
            if peek is None or peek.machine_id != m.id:
                raise NotFound(f"AFT transfer {transfer_id} is not one of machine {asset}", field="transfer")
            uow.players.get(peek.player_id, for_update=True)
            t = uow.players.aft_by_transaction(peek.transaction_id, for_update=True)
            if t.state != "sent":
                raise AftNotOpen(f"AFT transfer {transfer_id} is {t.state}: only a sent one waits for a resolution"
                                 + (" (a pending one expires by itself)" if t.state == "pending" else ""),
                                 field="transfer", state=t.state)
            waited = (now - t.sent_at).total_seconds() if t.sent_at else 0.0
            if waited < self.timeout_s:
                raise AftInProgress(f"AFT transfer {transfer_id} was sent {waited:.0f} s ago: the SAS host may still "
                                    f"answer (resolve after {self.timeout_s:.0f} s)", field="transfer")
            amount = t.amount_won if won is None else won
            if outcome == "completed" and amount > t.amount_won:
                raise ValidationFailed(f"moved ₩{amount:,} is more than the transfer's ₩{t.amount_won:,}",
                                       field="moved")
            before = {"state": t.state, "amount": t.amount_won}
            note = f"resolved by {principal.name}: {reason.strip()}"[:200]
            try:
                self._settle_locked(uow, m, t, 0x00 if outcome == "completed" else 0xFF,
                                    amount if outcome == "completed" else 0, note, now)
            except InsufficientFunds as e:  # to the wallet: the floor holds fewer of the machine's credits
                raise InsufficientFunds(e.detail, field="moved", **e.extra) from None
            if t.state == "completed":
                t.reason = note
            audit_log.record(uow, principal, "aft.resolve", f"aft:{t.id}", before=before,
                             after={"state": t.state, "moved": t.moved_won}, reason=reason.strip()[:200],
                             detail={"machine": asset, "transaction_id": t.transaction_id})
            return self._view(uow, t, asset)

        return run_once(self.ctx, key, fn, result=AftTransferView)

    def direction_of(self, asset: str, transaction_id: str) -> str:
        """``to_machine`` | ``to_wallet`` of the machine's transfer ``transaction_id`` (404 otherwise)."""
        with self.ctx.uow(readonly=True) as uow:
            m = uow.machines.get(asset)
            t = uow.players.aft_by_transaction(transaction_id)
            if t is None or t.machine_id != m.id:
                raise NotFound(f"AFT transaction {transaction_id!r} is not one of machine {asset}",
                               field="transaction_id")
            return t.direction

    def expire_stale(self) -> dict[str, int]:
        """Expire every pending transfer past its time, machine by machine under its row lock (beat: a machine
        whose host is not polling it, or that is disabled, has no instruction slot to do it). Returns
        ``{"expired": n}``."""
        with self.ctx.uow(readonly=True) as uow:
            stale = [uow.machines.get_by_id(mid).asset_number for mid in uow.players.aft_stale_machines(self._now())]
        n = 0
        for asset in stale:
            with self.ctx.uow() as uow:
                n += self._expire(uow, uow.machines.get(asset, for_update=True), self._now())
                uow.commit()
        return {"expired": n}

    def meters(self, asset: str) -> dict[str, int]:
        """The floor's AFT meters of ``asset`` (SAS names): ``aft_in`` / ``aft_out`` won moved by completed
        transfers, ``aft_in_count`` / ``aft_out_count``."""
        with self.ctx.uow(readonly=True) as uow:
            return uow.players.aft_totals(uow.machines.get(asset).id)

    # ------------------------------------------------------------ helpers
    def _expire(self, uow: PlayersUnitOfWork, m: Any, now: Any) -> int:
        """Expire the machine's pending transfers past their time (the holds returned; the caller holds the
        machine's row lock and commits). Returns how many."""
        n = 0
        for t in uow.players.aft_open(m.id, for_update=True):
            if t.state != "pending" or t.expires_at > now:
                continue
            self._close(uow, m, t, now, "expired", f"not sent to the machine within {self.timeout_s} s")
            n += 1
        return n

    @staticmethod
    def _close(uow: PlayersUnitOfWork, m: Any, t: Any, now: Any, state: str, reason: str) -> None:
        """End a transfer never sent (``expired``, or ``failed``: its player carded out): the hold to the machine
        back to the wallet (``aft.release``); nothing to undo from the machine."""
        entry = None
        if t.direction == "to_machine":
            e = L.EntryBuilder("aft.release", f"AFT {t.transaction_id} to machine {m.asset_number}: {reason}, "
                               "hold returned")
            e.add(debit=accounts.aft_in_transit(m.asset_number), credit=wallet_account(t.player_id, "cashable"),
                  amount=t.amount_won)
            entry = uow.ledger.post(e.build({"machine": m.asset_number, "player": t.player_id,
                                             "transaction_id": t.transaction_id, "aft": t.id}))
        t.state, t.settled_at, t.settle_entry_id, t.reason = state, now, entry, reason
        log.info("aft.closed", machine=m.asset_number, transfer=t.id, state=state, reason=reason)

    @staticmethod
    def _pending(t: Any, *, resend: bool) -> AftPending:
        return AftPending(t.id, t.transaction_id, t.direction, t.amount_won, t.player_id, resend)

    @staticmethod
    def _view(uow: PlayersUnitOfWork, t: Any, asset: str) -> AftTransferView:
        return AftTransferView(
            transfer=t.id, transaction_id=t.transaction_id, machine=asset, player=t.player_id, direction=t.direction,
            amount=t.amount_won, moved=t.moved_won, state=t.state, status_code=t.status_code, reason=t.reason,
            created_at=_iso(t.created_at) or "", expires_at=_iso(t.expires_at) or "", sent_at=_iso(t.sent_at),
            settled_at=_iso(t.settled_at), hold_entry=t.hold_entry_id, settle_entry=t.settle_entry_id,
            wallet=WalletService.balances(uow, t.player_id))
