"""The SAS host's :class:`~slotsys.sas.services.floor_port.FloorPort` over the floor's real services
(:class:`ServicesFloor`): every won a SAS machine moves goes through the use cases the REST machines use, so
the one ledger stays balanced. Built by the composition root (``slotsys.app.wiring.sas``).

Mapping (amounts in won; ``asset`` the floor's asset number; each command applied once under its port key,
used as the Idempotency-Key of the machine ``machine:<asset>``, namespaced ``sas:``):

* ``enrol`` — the machine must be on the floor (not retired), in machine mode (``outcome_source`` ``machine``:
  it decides and reports its own games), at the enrolled denomination, playing a game the library can load,
  its maximum bet within the floor's, and, at its first SAS enrolment, hold the credits the floor holds for it
  (0, usually). That first enrolment records the meter baseline (``Machine.sas_meter_base``: the machine's meters
  and the floor's): from then on the machine's meters reach the floor as the floor's figures at the baseline plus
  what they grew since (:func:`on_floor`), so a machine with lifetime meters is numbered and reconciled on the
  difference. Accepted with the floor's validation (``sas`` scheme with a validation
  ID → ``secure_enhanced`` with that ID and the next sequence; otherwise ``system``) and the legacy bonus
  award guard (the jackpot controller's maximum award). Otherwise refused with the reason. No money moves.
* ``record_game`` — one game: :meth:`MachineGameService.report_game` (bet, win, jackpot wager, meters, loyalty,
  recall, with the machine's meters reconciled); several games since the last report (a lost game-ended
  exception): :meth:`MachineGameService.report_meters`. Meters passed in the floor's names: ``coin_in``,
  ``coin_out`` (the machine-paid paytable win meter), ``games_played``, ``games_won``.
* ``bill_in`` — :meth:`FloorService.bill_in`, one call per note (a bills-meter delta of several notes is split
  into the floor's notes, largest first; each note its own key ``…:<i>``).
* ``ticket_issued`` — :meth:`tito.services.machine_out.TicketOutService.printed`: the machine's number on file,
  paid from its credits. ``system_validation_number`` draws a system number not on file.
* ``authorize_ticket`` / ``ticket_redeemed`` — TITO's two-phase ticket-in (:class:`TicketInService`
  ``authorize`` → ``commit`` or ``reject``); refusals map to the long poll 71 codes (:data:`REDEEM_CODES`).
* ``handpay_pending`` (cancelled credits) — a ``handpay_pending`` event (:meth:`FloorEventsService.report`):
  the machine's cashable credits join the attendant's handpay queue; a *jackpot* handpay (a game win at or above
  the machine's jackpot limit, never on its credit meter) — :meth:`FloorEventsService.machine_jackpot_handpay`:
  the win joins the queue (source ``machine_jackpot``), with its event and alert, once per host key; signed, it
  is paid in cash from the cage as the machine's game win (``Dr machine:<a>:hold / Cr cage:MAIN:drawer``, the
  floor's coin-out). ``handpays_paid`` — the host keys of those the attendant paid (the host then resets the
  machine with long poll 94); ``handpay_reset`` — a ``handpay_reset`` event. The machine meters a hand-paid win
  on its jackpot meter (0x02), not its paytable-win meter: the floor's coin-out is compared with (and a reported
  game's coin-out given as) the machine's paytable win + jackpot (:func:`machine_meters`, :func:`floor_meters`).
* ``record_event`` — the floor's event log and alerts (``handpay_pending`` / ``handpay_reset`` excepted: the
  handpay calls above record them): machine-reportable kinds through
  :meth:`FloorEventsService.report`; the system's own (``comms_lost``, ``comms_restored``, ``meter_mismatch``)
  and the SAS host's (``exception_buffer_overflow``, ``meter_decreased``, ``software_signature_mismatch``,
  ``enrolment_refused``, ``validation_number_unexpected``) recorded as system events, with their alerts; kinds
  outside the vocabulary are logged and counted (``unrecorded_events``).
* ``reconcile_meters`` — the machine's meters against the floor's (coin-in, coin-out, games, bills, tickets,
  AFT in / out, credits); a difference is ONE ``meter_mismatch`` event (both figures), never a correction.
* ``instructions`` — enable / disable as the floor's machine status says (disabled, locked, verification and
  retired machines are disabled), and the oldest mystery award waiting ``at_machine`` for this machine
  (:class:`jackpot_controller.services.machine_bonus.MachineBonuses`: the jackpot controller leaves a SAS
  machine's award there, owed on ``jackpot:<L>:payable``) as a :class:`LegacyBonusAward` (instruction id
  ``jackpot-hit-<hit id>``, with the bonus meter kept from before its first send), one at a time;
  ``bonus_sending`` keeps that meter on the hit; ``bonus_result`` ``paid`` credits the award on the ledger
  (``Dr jackpot:<L>:payable / Cr machine:<a>:credits``: the machine's credit meter already holds it), once;
  ``refused`` makes it a handpay for the attendant's queue. While it is enabled, also the machine's AFT transfer
  a carded player asked for (:class:`slotsys.players.services.aft.AftService`, SAS 6.02 §8): one at a time, a
  transfer already sent first (``resend``: the host interrogates the machine and settles what it did; only a
  transfer the machine does not know is locked and sent, with the same transaction ID — the machine refuses a
  reused one: never a second transfer), otherwise the oldest pending one, marked sent, as an
  :class:`AftTransferRequest` (instruction id ``aft-<transfer id>``, ``to_machine`` or ``to_host``, account
  the player's cashable wallet).
* ``aft_result`` — the machine's final AFT status, exactly once by transaction ID (:meth:`AftService.settle`):
  success to the machine ``Dr machine:<a>:aft_in_transit / Cr machine:<a>:credits`` (the wallet hold taken at the
  request), then the machine's waiting money out; success to the wallet ``Dr machine:<a>:credits /
  Cr player:<id>:cashable`` for what the machine moved (a money out: waits in the backlog while the floor holds
  fewer credits); a failure returns the hold (to the machine) or moves nothing (to the wallet); a repeat
  changes nothing. ``reconcile_meters`` compares the machine's AFT meters (``aft_in``, ``aft_out`` and their
  counts) with the floor's completed transfers.

Order: SAS reports priority exceptions (a ticket printed or redeemed, a handpay) before older queued ones, so a
game or a ticket out may reach the floor before the note or ticket in that paid for it. A game or ticket out
refused for credits the floor does not hold yet waits in the machine's backlog (in memory, in order; later ones
queue behind it) and is called again after the next money in (a note, a ticket redeemed) or reconciliation.

Refusals: any other domain refusal (a report refused, a ticket already on file) is final: it is recorded by the
use case (or logged here) and the call returns, so the host goes on; any other error (the database down, a
locked machine) is raised and the host calls again with the same key.
"""

from __future__ import annotations

import itertools
import json
import logging
import secrets
import threading
from dataclasses import asdict, dataclass
from functools import partial
from typing import Any, Callable, Mapping, Sequence

from pydantic import BaseModel

from jackpot_controller.services.machine_bonus import MachineBonuses

from slotsys.floor.domain import machine_events as V
from slotsys.floor.domain.machine_reports import GameReport
from slotsys.floor.services.event_log import record_system_event
from slotsys.floor.services.events import FloorEventsService
from slotsys.floor.services.play import BILL_DENOMINATIONS, FloorService
from slotsys.floor.services.reported_games import MachineGameService
from slotsys.kernel import accounts, audit_log
from slotsys.kernel.context import Principal, ServiceContext
from slotsys.kernel.errors import DomainError, InsufficientFunds, MachineLocked, NotFound
from slotsys.kernel.idempotency import OnceKey, fingerprint, run_once
from slotsys.players.services.aft import AftService
from slotsys.sas.domain.codes import RedeemCode
from slotsys.sas.domain.egm import program_signature
from slotsys.sas.services.floor_port import (
    AftResult, AftTransferRequest, BillIn, BonusResult, BonusSending, Enrolment, GamePlayed, HandpayPending, HandpayReset, Instruction,
    InstructionDone, LegacyBonusAward, MachineEvent, MachineIdentity, MeterMismatch, MeterReport, SetEnabled,
    SignatureCheck,
    SystemValidationRequest, TicketAuthorize, TicketDecision, TicketIssued, TicketRedeemed,
)
from tito.domain.validation import SystemValidation
from tito.services.container import TitoServices

log = logging.getLogger("slotsys.sas.floor")

__all__ = ["ServicesFloor", "REDEEM_CODES", "DISABLED_STATES", "BASE_METERS", "split_notes", "floor_meters",
           "machine_meters", "on_floor", "floor_game_number"]

# TITO's refusal codes → long poll 71 transfer codes (table 15.12c)
REDEEM_CODES: dict[str, int] = {
    "ticket-not-on-file": RedeemCode.NOT_ON_FILE,
    "check-digit-wrong": RedeemCode.NOT_A_VALID_NUMBER,
    "validation-failed": RedeemCode.NOT_A_VALID_NUMBER,
    "ticket-already-redeemed": RedeemCode.ALREADY_REDEEMED,
    "ticket-pending-elsewhere": RedeemCode.PENDING_ELSEWHERE,
    "ticket-expired": RedeemCode.EXPIRED,
    "ticket-amount-mismatch": RedeemCode.AMOUNT_MISMATCH,
    "ticket-voided": RedeemCode.NOT_ON_FILE,
    "credit-limit-exceeded": RedeemCode.ABOVE_AUTO_REDEMPTION_LIMIT,
}
# the host reports every exception of the vocabulary as an event; these two come through the handpay calls, which
# know whether the handpay is a jackpot or the cancelled credits (only those join the attendant's queue)
_HANDPAY_KINDS = frozenset({"handpay_pending", "handpay_reset"})
# floor machine states in which the SAS machine is disabled (long poll 01)
DISABLED_STATES = frozenset({"disabled", "locked", "verification", "retired"})
# SAS money this floor does not account (AFT: in-house cashable transfers only, with the player's wallet)
NOT_ACCOUNTED = ("AFT restricted / non-restricted promotional amounts, bonus and debit transfers (only in-house "
                 "cashable transfers to and from the carded player's wallet are requested)",)
BONUS_PREFIX = "jackpot-hit-"  # the instruction id of a mystery award paid as a legacy bonus: this + the hit id
AFT_PREFIX = "aft-"  # the instruction id of an AFT transfer: this + the floor's transfer id
AFT_METERS = ("aft_in", "aft_in_count", "aft_out", "aft_out_count")


# the meters a SAS machine is reconciled on relative to its baseline (SAS names; ``credits`` is money: absolute)
BASE_METERS = ("coin_in", "paytable_win", "handpaid_cancelled", "games_played", "games_won", "bills", "ticket_in",
               "ticket_out", "ticket_in_count", "ticket_out_count", "jackpot", *AFT_METERS)


def on_floor(base: Mapping[str, Any] | None, meters: Mapping[str, int]) -> dict[str, int]:
    """A machine's meters (SAS names) as the floor's figures: the floor's at the baseline plus what the machine's
    grew since (``base``: ``{"machine", "floor"}``, see ``Machine.sas_meter_base``; None: as they are). Meters
    outside :data:`BASE_METERS` (``credits``) are as they are."""
    if not base:
        return dict(meters)
    mine, floor = base["machine"], base["floor"]
    return {k: int(floor[k]) + int(v) - int(mine[k]) if k in mine and k in floor else int(v)
            for k, v in meters.items()}


def floor_game_number(base: Mapping[str, Any] | None, games_played: int) -> int:
    """The floor's game number of the game after which the machine's games-played meter reads ``games_played``."""
    if not base:
        return games_played
    return int(base["floor"]["game_seq"]) + games_played - int(base["machine"]["games_played"])


class _Noted(BaseModel):
    """The stored answer of an exactly-once event record."""

    event: int | None


def split_notes(amount_won: int) -> list[int] | None:
    """``amount_won`` as the floor's bill denominations, largest first (``[50_000, 10_000, 1_000]`` for
    ₩61,000); None when it is not a sum of them (not a whole ₩1,000)."""
    out: list[int] = []
    rest = amount_won
    for note in sorted(BILL_DENOMINATIONS, reverse=True):
        n, rest = divmod(rest, note)
        out += [note] * n
    return out if rest == 0 and out else None


def floor_meters(m: Any, credits_won: int, handpaid_jackpots_won: int = 0,
                 aft: Mapping[str, int] | None = None) -> dict[str, int]:
    """The floor's meters of machine ``m`` (won; counts) under the SAS names of :data:`METER_NAMES`:
    ``coin_in``, ``paytable_win`` (the floor's coin-out less ``handpaid_jackpots_won``: wins on the credit meter),
    ``jackpot`` (``handpaid_jackpots_won``: the machine's jackpot handpays the attendant paid, SAS meter 0x02),
    ``handpaid_cancelled`` (the handpay receipts: cancelled credits paid by an attendant), ``games_played``,
    ``games_won``, ``bills``, ``ticket_in`` / ``ticket_out`` and their counts, ``credits`` (all three meters), and
    with ``aft`` (:meth:`AftService.meters`) the :data:`AFT_METERS` of its completed AFT transfers."""
    out = {"coin_in": m.coin_in, "paytable_win": m.coin_out - handpaid_jackpots_won,
           "jackpot": handpaid_jackpots_won, "handpaid_cancelled": m.handpay_out,
           "games_played": m.games_played,
           "games_won": m.games_won, "bills": m.bills_in, "ticket_in": m.tickets_in, "ticket_out": m.tickets_out,
           "ticket_in_count": m.tickets_in_count, "ticket_out_count": m.tickets_out_count, "credits": credits_won}
    if aft is not None:
        out.update({k: int(aft.get(k, 0)) for k in AFT_METERS})
    return out


def machine_meters(meters: Mapping[str, int]) -> dict[str, int]:
    """A SAS machine's meters (:data:`METER_NAMES`, won) as a machine-reported game gives them to the floor:
    ``coin_in``, ``coin_out`` (= the machine-paid paytable win + the hand-paid jackpots, its ``jackpot`` meter:
    the floor's coin-out is every game win), ``games_played``, ``games_won`` (absent ones left out)."""
    names = {"coin_in": "coin_in", "coin_out": "paytable_win", "games_played": "games_played",
             "games_won": "games_won"}
    out = {floor: int(meters[sas]) for floor, sas in names.items() if sas in meters}
    if "coin_out" in out and "jackpot" in meters:
        out["coin_out"] += int(meters["jackpot"])
    return out


@dataclass(frozen=True)
class _Snapshot:
    """The machine's fields enrolment reads, copied inside the transaction (the row is not used after it);
    amounts in won."""

    status: str
    retired_at: Any
    outcome_source: str
    denomination: int
    game_id: str
    max_bet: int | None
    validation_scheme: str
    sas_validation_id: int | None
    sas_sequence: int
    sas_meter_base: dict | None

    @classmethod
    def of(cls, m: Any) -> "_Snapshot":
        return cls(m.status, m.retired_at, m.outcome_source, m.denomination, m.game_id, m.max_bet,
                   m.validation_scheme, m.sas_validation_id, m.sas_sequence or 0, m.sas_meter_base)


KEPT_REFUSALS = 1_000  # final refusals kept in memory for the console (the log has every one)


def _fingerprint(obj: Any) -> str:
    return json.dumps(asdict(obj), sort_keys=True, default=str)


def _game_money(game: GamePlayed) -> str:
    """What a game's key stands for (the meters read with it differ by the poll that read them: the game-ended
    2F, an enrolment's or a reconciliation's)."""
    return f"game:{game.game_number}:{game.games}:{game.bet_won}:{game.win_won}:{game.games_won}"


class ServicesFloor:
    """See the module docstring. ``program`` gives the bytes of a game's approved program (its definition)
    for the ROM signature check (None: unknown, the check fails and the host disables the machine);
    ``max_bonus_won`` the legacy bonus award guard sent at enrolment; ``bonuses`` the jackpot controller's awards
    waiting to be paid on their machine (None: no legacy bonus is ever issued); ``aft`` the players' AFT transfers
    (None: no AFT is ever issued). Thread-safe (one SAS channel per
    thread)."""

    def __init__(self, ctx: ServiceContext, *, floor: FloorService, reported_games: MachineGameService,
                 events: FloorEventsService, tito: TitoServices, program: Callable[[str], bytes | None],
                 max_bonus_won: int, bonuses: MachineBonuses | None = None, aft: AftService | None = None) -> None:
        self.ctx = ctx
        self.floor = floor
        self.reported_games = reported_games
        self.events = events
        self.tito = tito
        self.program = program
        self.max_bonus_won = max_bonus_won
        self.bonuses = bonuses
        self.aft = aft
        self.boot = secrets.token_hex(4)  # the host's event sequence restarts with the process: keys per boot
        # (asset, what, reason): the latest final refusals, for the console (the host runs for months: bounded)
        self.refused: list[tuple[str, str, str]] = []
        self.unrecorded_events = 0
        self._lock = threading.Lock()
        self._denoms: dict[str, int] = {}
        self._handpays: dict[str, int] = {}  # host handpay key → floor handpay id
        self._enable: dict[str, SetEnabled] = {}  # asset → the enable/disable instruction not yet done
        self._enabled: dict[str, bool] = {}  # asset → what the machine was last told
        self._backlog: dict[str, list[tuple[str, Callable[[], Any]]]] = {}  # asset → money out waiting for credits
        self._bases: dict[str, dict | None] = {}  # asset → its meter baseline (Machine.sas_meter_base)
        self._ids = itertools.count(1)

    # ------------------------------------------------------------------ helpers
    @staticmethod
    def _machine(asset: str) -> Principal:
        return Principal("machine", asset)

    def _key(self, asset: str, key: str, payload: Any) -> OnceKey:
        fp = payload if isinstance(payload, str) else _fingerprint(payload)
        return OnceKey(self._machine(asset).id, f"sas:{key}", fingerprint("SAS", fp))

    def _keep_refusal(self, asset: str, what: str, reason: str) -> None:
        """Keep a final refusal among the latest :data:`KEPT_REFUSALS`."""
        with self._lock:
            self.refused.append((asset, what, reason))
            del self.refused[:-KEPT_REFUSALS]

    def _refused(self, asset: str, what: str, err: DomainError) -> None:
        """A final refusal: kept and logged; the host goes on."""
        self._keep_refusal(asset, what, f"{err.code}: {err}")
        log.warning("sas.floor_refused %s %s %s: %s", asset, what, err.code, err)

    def _final(self, asset: str, what: str, fn: Callable[[], Any]) -> Any:
        """``fn()``; a domain refusal is final (recorded, None returned) except a locked machine (raised: the host
        calls again once it is unlocked) and too few credits (raised: :meth:`_money_out` waits)."""
        try:
            return fn()
        except (MachineLocked, InsufficientFunds):
            raise
        except DomainError as e:
            self._refused(asset, what, e)
            return None

    def _money_out(self, asset: str, what: str, fn: Callable[[], Any]) -> Any:
        """A call staking or paying out the machine's credits (a game, a ticket out), in the machine's order.
        Refused for credits the floor does not hold yet (``InsufficientFunds``: the money that came in first —
        a note, a ticket redeemed — is still on its way: SAS reports priority exceptions before older queued
        ones), it waits in the machine's backlog and is called again, in order, after the next money in or
        reconciliation; later ones queue behind it. Other refusals are final (:meth:`_final`)."""
        with self._lock:
            backlog = self._backlog.setdefault(asset, [])
            if backlog:
                backlog.append((what, fn))
                parked = True
            else:
                parked = False
        if parked:
            return None  # behind the waiting one, until money comes in
        try:
            return self._final(asset, what, fn)
        except InsufficientFunds:
            with self._lock:
                self._backlog[asset].append((what, fn))
            log.info("sas.waiting_for_credits %s %s", asset, what)
            return None

    def _drain(self, asset: str) -> None:
        """Call the machine's backlog in order until one still finds too few credits."""
        while True:
            with self._lock:
                backlog = self._backlog.get(asset) or []
                if not backlog:
                    return
                what, fn = backlog[0]
            try:
                self._final(asset, what, fn)
            except InsufficientFunds:
                return
            with self._lock:
                self._backlog[asset].pop(0)

    def _parked(self, asset: str, what: str) -> bool:
        """Whether the machine's backlog holds a call named ``what``."""
        with self._lock:
            return any(w == what for w, _ in self._backlog.get(asset, ()))

    def waiting(self, asset: str) -> int:
        """How many calls of ``asset`` wait for credits (the backlog)."""
        with self._lock:
            return len(self._backlog.get(asset, ()))

    def _denomination(self, asset: str) -> int:
        d = self._denoms.get(asset)
        if d is None:
            with self.ctx.uow(readonly=True) as uow:
                d = self._denoms[asset] = uow.machines.get(asset).denomination
        return d

    # ------------------------------------------------------------------ enrolment, meters
    def enrol(self, identity: MachineIdentity, meters: MeterReport) -> Enrolment:
        """Accept ``identity`` (see the module) or refuse it with the reason. Writes only the meter baseline, at the
        first SAS enrolment."""
        asset = identity.asset
        try:
            with self.ctx.uow(readonly=True) as uow:
                m = _Snapshot.of(uow.machines.get(asset))
        except NotFound:
            return self._refuse_enrolment(asset, f"asset {asset} is not on the floor")
        reason = ""
        if m.retired_at is not None or m.status == "retired":
            reason = f"machine {asset} is retired"
        elif m.outcome_source != "machine":
            reason = (f"machine {asset} is in {m.outcome_source} mode: a SAS machine decides its own games "
                      "(set its outcome source to machine)")
        elif identity.denomination_won != m.denomination:
            reason = f"denomination ₩{identity.denomination_won:,} is not the enrolled ₩{m.denomination:,}"
        if not reason:
            try:
                game = self.floor.games.load(m.game_id)
            except Exception as e:  # not in the library / not approved: the loader's own error
                return self._refuse_enrolment(asset, f"game {m.game_id} cannot be played here: {e}")
            top = max(o.credits for o in game.bet_options()) * m.denomination
            limit = m.max_bet if m.max_bet is not None else top
            if identity.max_bet_credits * m.denomination > limit:
                reason = (f"the machine's maximum bet {identity.max_bet_credits} credits is above the floor's "
                          f"₩{limit:,}")
        if not reason and m.sas_meter_base is None:
            reason = self._unaccounted_credits(asset, int(meters.meters.get("credits", 0)))
        if reason:
            return self._refuse_enrolment(asset, reason)
        accounted = None
        if m.sas_meter_base is not None:
            accounted = self._accounted(asset, m.sas_meter_base)
            behind = [f"{k} {int(meters.meters[k]):,} < {v:,}" for k, v in (accounted or {}).items()
                      if k in meters.meters and k != "credits" and int(meters.meters[k]) < v]
            if behind:  # a RAM clear, or another machine at this address: its games would be numbered again
                return self._refuse_enrolment(asset, "the machine's meters are below what the floor accounted for it ("
                                              + ", ".join(behind) + "): a RAM clear or another machine at this "
                                              "address; retire it and enrol the machine under a new asset number")
        self._denoms[asset] = m.denomination
        base = m.sas_meter_base if m.sas_meter_base is not None else self._baseline(asset, meters)
        with self._lock:
            self._bases[asset] = base
        if m.validation_scheme == "sas" and m.sas_validation_id is not None:
            return Enrolment(True, "", "secure_enhanced", m.sas_validation_id, m.sas_sequence,
                             self.max_bonus_won, accounted)
        return Enrolment(True, "", "system", 0, 0, self.max_bonus_won, accounted)

    def _floor_figures(self, asset: str) -> dict[str, int]:
        """The floor's meters of ``asset`` now, under the SAS names (:func:`floor_meters`; AFT meters apart)."""
        with self.ctx.uow(readonly=True) as uow:
            m = uow.machines.get(asset)
            return floor_meters(m, uow.machines.credits(asset).total,
                                uow.floor_events.paid_total(m.id, "machine_jackpot"))

    def _accounted(self, asset: str, base: Mapping[str, Any]) -> dict[str, int] | None:
        """The machine's meters (SAS names) up to which the floor has accounted it: the baseline's machine meters
        plus what the floor's figures grew since (the inverse of :func:`on_floor`). None while this floor still
        holds money out of the machine waiting for credits (its backlog: a host re-enrolling it in this process
        keeps its own baseline, and those calls are still to come)."""
        with self._lock:
            if self._backlog.get(asset):
                return None
        system = self._floor_figures(asset)
        mine, floor = base["machine"], base["floor"]
        return {k: int(mine[k]) + int(system[k]) - int(floor[k]) for k in BASE_METERS
                if k in mine and k in floor and k in system}

    def _unaccounted_credits(self, asset: str, machine_credits: int) -> str:
        """At its first SAS enrolment the machine's credit meter must be the floor's credits (both 0, usually):
        credits the floor never saw (notes or tickets taken before the host) would be staked from money the ledger
        does not hold. The reason, or "" when they agree."""
        with self.ctx.uow(readonly=True) as uow:
            held = uow.machines.credits(asset).total
        if machine_credits == held:
            return ""
        return (f"the machine holds ₩{machine_credits:,} of credits, the floor ₩{held:,}: cash them out or clear them "
                "before it joins the floor")

    def _baseline(self, asset: str, report: MeterReport) -> dict:
        """Record the machine's meters and the floor's at its first SAS enrolment (``Machine.sas_meter_base``,
        audit-logged as ``machine.sas_meter_base``); returns it (or the one a concurrent enrolment stored)."""
        with self.ctx.uow() as uow:
            m = uow.machines.get(asset, for_update=True)
            if m.sas_meter_base is not None:
                return dict(m.sas_meter_base)
            floor = floor_meters(m, 0, aft={})  # no AFT before the first SAS enrolment (AFT needs it)
            base = {"machine": {k: int(report.meters[k]) for k in BASE_METERS if k in report.meters},
                    "floor": {**{k: floor[k] for k in BASE_METERS}, "game_seq": m.game_seq}}
            m.sas_meter_base = base
            audit_log.record(uow, None, "machine.sas_meter_base", f"machine:{asset}", after=base,
                             reason=f"first SAS enrolment ({report.trigger})")
            uow.commit()
            return base

    def _base(self, asset: str) -> dict | None:
        with self._lock:
            if asset in self._bases:
                return self._bases[asset]
        with self.ctx.uow(readonly=True) as uow:
            base = uow.machines.get(asset).sas_meter_base
        with self._lock:
            self._bases[asset] = base
        return base

    def _refuse_enrolment(self, asset: str, reason: str) -> Enrolment:
        self._keep_refusal(asset, "enrol", reason)
        log.warning("sas.enrolment_refused %s: %s", asset, reason)
        return Enrolment(False, reason)

    def reconcile_meters(self, report: MeterReport) -> Sequence[MeterMismatch]:
        """The machine's meters against the floor's (:func:`floor_meters`, only those the report carries);
        the differences, recorded as ONE ``meter_mismatch`` event (trigger, both figures) when any. Exactly once
        per report key and set of differences. The machine's backlog is called first."""
        self._drain(report.asset)
        system = self._floor_figures(report.asset)
        base = self._base(report.asset)
        # AFT meters: against the floor's completed transfers, unless the baseline predates them (lifetime meters)
        if self.aft is not None and (base is None or "aft_in" in base["machine"]):
            aft = self.aft.meters(report.asset)
            system.update({k: int(aft.get(k, 0)) for k in AFT_METERS})
        machine = on_floor(base, report.meters)
        out = [MeterMismatch(k, v, machine[k]) for k, v in system.items() if k in machine and machine[k] != v]
        if out:
            detail = {"trigger": report.trigger, "source": "sas",
                      "mismatches": [{"meter": x.meter, "system": x.floor, "machine": x.machine,
                                      "difference": x.floor - x.machine} for x in out]}
            # a periodic reconciliation repeats its key while no game is played: one event per set of differences
            self._system_event(report.asset, f"{report.key}:mismatch:{fingerprint(detail)[:16]}", "meter_mismatch",
                               detail)
            log.warning("sas.meter_mismatch %s %s", report.asset, detail["mismatches"])
        return out

    # ------------------------------------------------------------------ games, bills
    def record_game(self, game: GamePlayed) -> None:
        """The game(s) on the ledger through the machine-reported game use case, exactly once per key."""
        asset, principal = game.asset, self._machine(game.asset)
        base = self._base(asset)
        meters = machine_meters(on_floor(base, game.meters))
        if game.games == 1:
            report = GameReport(game_number=floor_game_number(base, game.game_number),
                                denomination=self._denomination(asset),
                                bet_won=game.bet_won, win_won=game.win_won, meters=meters or None)
            self._money_out(asset, "game", lambda: self.reported_games.report_game(
                principal, asset, report, self._key(asset, game.key, _game_money(game))))
        else:
            self._money_out(asset, "games", lambda: self.reported_games.report_meters(
                principal, asset, meters, self._key(asset, game.key, _game_money(game))))

    def bill_in(self, bill: BillIn) -> None:
        """The notes on the ledger (``Dr machine:<a>:drop / Cr machine:<a>:credits``), one call per note."""
        notes = split_notes(bill.amount_won)
        if notes is None:
            log.warning("sas.bill_not_notes %s ₩%s", bill.asset, bill.amount_won)
            self._keep_refusal(bill.asset, "bill", f"₩{bill.amount_won:,} is not a sum of the floor's notes")
            return
        principal = self._machine(bill.asset)
        for i, note in enumerate(notes):
            key = self._key(bill.asset, f"{bill.key}:{i}", f"bill:{bill.amount_won}:{i}:{note}")
            self._final(bill.asset, "bill", partial(self.floor.bill_in, principal, bill.asset, note, key))
        self._drain(bill.asset)

    # ------------------------------------------------------------------ tickets out
    def ticket_issued(self, ticket: TicketIssued) -> None:
        """The machine's ticket on file, paid from its credits (``Dr machine credits / Cr tito:outstanding``)."""
        def printed() -> Any:
            once = self.tito.machine_out.printed(
                self._machine(ticket.asset), ticket.asset, ticket.validation_number, ticket.amount_won,
                self._key(ticket.asset, ticket.key, f"ticket-out:{ticket.validation_number}:{ticket.amount_won}"))
            self._printed(ticket, once)
            return once

        self._money_out(ticket.asset, "ticket_out", printed)

    def _printed(self, ticket: TicketIssued, once: Any) -> None:
        if not once.replayed and not (ticket.verified and once.result.verified):
            log.warning("sas.validation_number_unexpected %s %s", ticket.asset, ticket.validation_number)
            self._system_event(ticket.asset, f"{ticket.key}:unexpected", "validation_number_unexpected",
                               {"validation_number": ticket.validation_number, "host_verified": ticket.verified,
                                "floor_verified": once.result.verified})

    def system_validation_number(self, request: SystemValidationRequest) -> str | None:
        """A system validation number (18 digits, Damm check digit) not on file, for the machine to print."""
        gen = SystemValidation(self.ctx.rng.randbelow)
        with self.ctx.uow(readonly=True) as uow:
            for _ in range(10):
                number = gen.next_number()
                if not uow.tickets.exists(number):
                    return number
        return None

    # ------------------------------------------------------------------ tickets in
    def authorize_ticket(self, request: TicketAuthorize) -> TicketDecision:
        """TITO's authorise: the ticket held for this machine (valid cashable, its amount), or the refusal's
        long poll 71 code. Each call is a new presentation (its own key: the ticket may come back after a
        release)."""
        principal = self._machine(request.asset)
        key = self._key(request.asset, f"{request.key}:authorize:{secrets.token_hex(6)}", request)
        try:
            once = self.tito.machine.authorize(principal, request.asset, request.validation_number, key)
        except DomainError as e:
            code = REDEEM_CODES.get(e.code, RedeemCode.UNABLE_TO_VALIDATE)
            return TicketDecision(int(code), 0, f"{e.code}: {e}")
        held = once.result
        if held.type != "cashable":  # a promotional ticket: a SAS machine here takes cashable tickets only
            self.tito.machine.reject(principal, request.asset, request.validation_number, held.transaction_id,
                                     "promotional ticket at a SAS machine",
                                     self._key(request.asset, f"{request.key}:reject:{held.transaction_id}",
                                               f"reject:{held.transaction_id}"))
            return TicketDecision(int(RedeemCode.UNABLE_TO_VALIDATE), 0, f"{held.type} ticket")
        return TicketDecision(int(RedeemCode.VALID_CASHABLE), held.amount, "")

    def ticket_redeemed(self, result: TicketRedeemed) -> None:
        """The machine stacked the ticket (TITO's commit: ``Dr tito:outstanding / Cr machine:<a>:credits``) or
        returned it (reject: payable anywhere again). Nothing when no hold of this machine is pending (a refused
        ticket, or a repeat)."""
        asset, principal = result.asset, self._machine(result.asset)
        with self.ctx.uow(readonly=True) as uow:
            t = uow.tickets.get(result.validation_number)
            held = None if t is None else (t.status, t.pending_location, t.pending_txn, t.amount)
        if held is None or held[0] != "pending" or held[1] != asset or not held[2]:
            return
        txn, amount = held[2], held[3]
        if result.accepted:
            if result.amount_won != amount:
                log.warning("sas.ticket_amount_mismatch %s %s floor ₩%s machine ₩%s", asset,
                            result.validation_number, amount, result.amount_won)
            self._final(asset, "ticket_in", lambda: self.tito.machine.commit(
                principal, asset, result.validation_number, txn,
                self._key(asset, f"{result.key}:commit:{txn}", result)))
            self._drain(asset)
        else:
            self._final(asset, "ticket_in", lambda: self.tito.machine.reject(
                principal, asset, result.validation_number, txn, f"returned by the machine (status "
                f"0x{result.status:02X})", self._key(asset, f"{result.key}:reject:{txn}", result)))

    # ------------------------------------------------------------------ handpays
    def handpay_pending(self, handpay: HandpayPending) -> None:
        """The attendant's handpay queue: cancelled credits (the machine's cashable credits on the floor) or a
        jackpot handpay's win (see the module), once per host key."""
        asset = handpay.asset
        detail = {"sas_level": handpay.level, "handpay": handpay.kind, "host_key": handpay.key}
        if handpay.kind != "cancelled_credits":
            once = self._final(asset, "handpay", lambda: self.events.machine_jackpot_handpay(
                asset, handpay.amount_won, detail, self._key(asset, handpay.key, handpay)))
            if once is not None:
                with self._lock:
                    self._handpays.setdefault(handpay.key, once.result.id)
            return
        self._final(asset, "handpay", lambda: self.events.report(
            self._machine(asset), asset, [{"kind": "handpay_pending", "amount": handpay.amount_won, "detail": detail}],
            self._key(asset, handpay.key, handpay)))
        with self.ctx.uow(readonly=True) as uow:
            m = uow.machines.get(asset)
            h = uow.floor_events.pending_handpay(m.id, "cancelled_credit")
            hid = None if h is None else h.id
        if hid is not None:
            with self._lock:
                self._handpays.setdefault(handpay.key, hid)

    def handpays_paid(self, asset: str) -> Sequence[str]:
        """The host keys of this machine's queued handpays the attendant has paid."""
        with self._lock:
            mine = dict(self._handpays)
        if not mine:
            return []
        paid = []
        with self.ctx.uow(readonly=True) as uow:
            for key, hid in mine.items():
                if not key.startswith(f"{asset}:"):
                    continue
                h = uow.floor_events.handpay(hid)
                if h is not None and h.state == "paid":
                    paid.append(key)
        return paid

    def handpay_reset(self, reset: HandpayReset) -> None:
        """The machine left its handpay lock-up: a ``handpay_reset`` event (it clears the pending alert)."""
        with self._lock:
            self._handpays.pop(reset.key, None)
        self._final(reset.asset, "handpay_reset", lambda: self.events.report(
            self._machine(reset.asset), reset.asset,
            [{"kind": "handpay_reset", "amount": reset.amount_won,
              "detail": {"handpay": reset.kind, "remote": reset.remote, "host_key": reset.key}}],
            self._key(reset.asset, f"{reset.key}:reset", reset)))

    # ------------------------------------------------------------------ events
    def _system_event(self, asset: str, key: str, kind: str, detail: dict) -> None:
        def fn(uow) -> _Noted:
            m = uow.machines.get(asset)
            return _Noted(event=record_system_event(uow, self.ctx, m.id, kind, source="sas", detail=detail).id)

        run_once(self.ctx, self._key(asset, f"{self.boot}:{key}" if ":event:" in key else key, f"{kind}:{detail}"),
                 fn, result=_Noted)

    def record_event(self, event: MachineEvent) -> None:
        """The floor's event log and alerts (see the module). The host's event keys count from 1 again when it
        restarts, so they are kept per boot of this process."""
        kind = event.kind
        if kind in _HANDPAY_KINDS:
            return  # recorded by handpay_pending / handpay_reset (the queue must not take a jackpot's credits)
        detail = {k: v for k, v in event.detail.items()}
        found = V.BY_KIND.get(kind)
        if found is None:
            with self._lock:
                self.unrecorded_events += 1
            log.warning("sas.event_unrecorded %s %s %s", event.asset, event.kind, detail)
            return
        if kind in V.SYSTEM_ONLY:
            self._system_event(event.asset, event.key, kind, json.loads(json.dumps(detail, default=str)))
            return
        item: dict[str, Any] = {"kind": kind, "detail": json.loads(json.dumps(detail, default=str))}
        self._final(event.asset, "event", lambda: self.events.report(
            self._machine(event.asset), event.asset, [item],
            self._key(event.asset, f"{self.boot}:{event.key}", f"{kind}:{item['detail']}")))

    # ------------------------------------------------------------------ instructions
    def instructions(self, asset: str) -> Sequence[Instruction]:
        """Enable or disable the machine as its floor status says (one instruction until it is done); while it is
        enabled, its oldest award waiting at the machine as a legacy bonus (see the module)."""
        with self.ctx.uow(readonly=True) as uow:
            m = uow.machines.get(asset)
            status, reason = m.status, m.lock_reason
            aft_open = self.aft is not None and self.aft.has_open(uow, m.id)
        want = status not in DISABLED_STATES
        with self._lock:
            pending = self._enable.get(asset)
            told = self._enabled.get(asset, True)
            if pending is None and want != told:
                pending = self._enable[asset] = SetEnabled(f"enable-{asset}-{next(self._ids)}", want,
                                                           reason or status)
                self._enabled[asset] = want
        out: list[Instruction] = [pending] if pending is not None else []
        if self.bonuses is not None and want:  # a machine the floor disables is paid nothing meanwhile
            # one at a time: each is confirmed by the bonus meter's growth since its own first send
            for p in self.bonuses.pending(asset, limit=1):
                out.append(LegacyBonusAward(f"{BONUS_PREFIX}{p.hit}", p.amount_won, 0, p.meter_before_won))
        if self.aft is not None and want and aft_open:  # one at a time: a sent one again until it is settled
            t = self.aft.next_for_machine(asset)
            if t is not None and not self._parked(asset, f"aft out {t.transaction_id}"):
                out.append(AftTransferRequest(f"{AFT_PREFIX}{t.transfer}", t.transaction_id,
                                              "to_machine" if t.direction == "to_machine" else "to_host",
                                              t.amount_won, accounts.player_cashable(t.player), t.resend))
        return out

    def instruction_done(self, done: InstructionDone) -> None:
        with self._lock:
            p = self._enable.get(done.asset)
            if p is not None and p.instruction_id == done.instruction_id:
                del self._enable[done.asset]
                if not done.ok:
                    self._enabled[done.asset] = not p.enabled  # try again
        if not done.ok:
            log.warning("sas.instruction_failed %s %s %s", done.asset, done.instruction_id, done.reason)

    @staticmethod
    def _hit_of(instruction_id: str) -> int | None:
        if not instruction_id.startswith(BONUS_PREFIX) or not instruction_id[len(BONUS_PREFIX):].isdigit():
            return None
        return int(instruction_id[len(BONUS_PREFIX):])

    def bonus_sending(self, sending: BonusSending) -> int | None:
        """Keep the machine's bonus meter (won) on the award before its first send; the value kept (the first),
        or None when it is no longer waiting at the machine (or is not one of this floor's awards)."""
        hit = self._hit_of(sending.instruction_id)
        if hit is None or self.bonuses is None:
            log.warning("sas.bonus_unknown %s %s", sending.asset, sending.instruction_id)
            return None
        try:
            return self.bonuses.sending(hit, sending.meter_before_won, asset=sending.asset)
        except NotFound as e:
            self._refused(sending.asset, "bonus", e)
            return None

    def bonus_result(self, result: BonusResult) -> None:
        """``paid``: the award on the ledger (once; the machine's waiting money out follows it); ``refused``:
        a handpay for the attendant; ``busy`` is not final (nothing)."""
        hit, bonuses = self._hit_of(result.instruction_id), self.bonuses
        if hit is None or bonuses is None:
            log.warning("sas.bonus_result_unexpected %s", result)
            return
        if result.status == "busy":
            return
        if result.status == "paid":
            self._final(result.asset, "bonus", lambda: bonuses.paid(hit, asset=result.asset))
            self._drain(result.asset)
        else:
            self._final(result.asset, "bonus", lambda: bonuses.refused(hit, result.reason or result.status,
                                                                       asset=result.asset))

    def aft_result(self, result: AftResult) -> None:
        """The machine's final AFT status (SAS 6.02 §8, table 8.3) for the transfer's transaction ID, settled once
        (see the module): to the machine, then its waiting money out; to the wallet, a money out (it waits for
        credits the floor does not hold yet). A result for a transfer this floor did not issue is logged."""
        if self.aft is None or not result.instruction_id.startswith(AFT_PREFIX):
            log.warning("sas.aft_result_unexpected %s", result)
            return
        aft, asset = self.aft, result.asset
        reason = "" if result.ok else f"the machine's AFT status 0x{result.status:02X}"

        def settle() -> Any:
            return aft.settle(asset, result.transaction_id, result.status, result.amount_won, reason)

        peek = self._final(asset, "aft", lambda: aft.direction_of(asset, result.transaction_id))
        if peek is None:  # not one of this machine's transfers: refused (kept and logged), nothing moves
            return
        if peek == "to_wallet" and result.ok and result.amount_won > 0:
            if self._parked(asset, f"aft out {result.transaction_id}"):
                return  # already waiting for the credits (the host interrogated it again meanwhile)
            self._money_out(asset, f"aft out {result.transaction_id}", settle)
        else:
            self._final(asset, "aft", settle)
            self._drain(asset)

    # ------------------------------------------------------------------ software verification
    def expected_signature(self, asset: str, seed: int) -> int | None:
        """The ROM signature of the machine's approved program (its game's definition) for ``seed``."""
        with self.ctx.uow(readonly=True) as uow:
            game_id = uow.machines.get(asset).game_id
        program = self.program(game_id)
        return None if program is None else program_signature(program, seed)

    def software_verification(self, check: SignatureCheck) -> None:
        """A mismatch is already a ``software_signature_mismatch`` event (the host reports it, with its alert)
        and the host disabled the machine; logged here."""
        if not check.ok:
            log.warning("sas.software_signature_mismatch %s seed=%s", check.asset, check.seed)
