"""A small, real floor behind :class:`~slotsys.sas.services.floor_port.FloorPort`, held in memory: machines
with the meters the floor has accounted, player wallets for AFT, tickets (issued → pending → redeemed, or back
to issued), the handpay queue, legacy bonus awards and AFT requests as instructions, machine events.
For tests and the emulated floor (``sas-host`` until it is wired to the real services). Thread-safe.

Rules: every command is applied once per ``key``; a ticket is paid once (a second insertion is refused
"already redeemed", one pending at another machine "pending elsewhere"); an AFT to the machine holds the
amount in the wallet when requested (refused, nothing moved, above the balance), settles on success and
releases on failure; a bonus above the machine's maximum is refused by the host's award guard.
"""

from __future__ import annotations

import itertools
import secrets
import threading
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Sequence

from slotsys.sas.domain.codes import RedeemCode
from slotsys.sas.domain.egm import program_signature
from slotsys.sas.services.floor_port import (
    AftResult, AftTransferRequest, BillIn, BonusResult, BonusSending, Enrolment, GamePlayed, HandpayPending, HandpayReset,
    Instruction, InstructionDone, LegacyBonusAward, MachineEvent, MachineIdentity, MeterMismatch, MeterReport,
    SetEnabled, SignatureCheck, SystemValidationRequest, TicketAuthorize, TicketDecision, TicketIssued,
    TicketRedeemed,
)
from tito.domain.validation import SystemValidation

__all__ = ["InMemoryFloor", "InsufficientFunds", "FloorMachine", "Ticket"]


class InsufficientFunds(ValueError):
    """An AFT to the machine above the wallet's balance: refused, nothing moved."""


@dataclass
class FloorMachine:
    asset: str
    denomination: int
    program: bytes
    validation: str = "secure_enhanced"
    validation_id: int = 0
    validation_sequence: int = 0
    max_bonus_won: int = 1_000_000
    enabled: bool = True
    enrolled: bool = False
    accounted: dict[str, int] = field(default_factory=dict)
    identity: MachineIdentity | None = None


@dataclass
class Ticket:
    validation_number: str
    amount: int
    issued_by: str
    issued_at: datetime
    expires_at: datetime
    status: str = "issued"  # issued | pending | redeemed
    pending_key: str | None = None
    redeemed_by: str | None = None


class InMemoryFloor:
    """See the module docstring. ``now`` gives the floor's time (ticket expiry)."""

    def __init__(self, *, ticket_expiry: timedelta = timedelta(days=30), now=datetime.now,
                 system_validation: SystemValidation | None = None) -> None:
        self._lock = threading.RLock()
        self.now = now
        self.ticket_expiry = ticket_expiry
        self.system_validation = system_validation or SystemValidation()
        self.machines: dict[str, FloorMachine] = {}
        self.wallets: dict[str, int] = {}
        self.holds: dict[str, int] = {}
        self.tickets: dict[str, Ticket] = {}
        self.keys: set[str] = set()
        self.games: list[GamePlayed] = []
        self.events: list[MachineEvent] = []
        self.bills: list[BillIn] = []
        self.handpays: dict[str, dict] = {}
        self.outbox: dict[str, dict[str, Instruction]] = {}
        self.bonuses: dict[str, dict] = {}
        self.afts: dict[str, dict] = {}
        self.done: list[InstructionDone] = []
        self.mismatches: list[tuple[str, MeterMismatch]] = []
        self.signatures: list[SignatureCheck] = []
        self.refused_enrolments: list[tuple[str, str]] = []
        self._ids = itertools.count(1)

    # ------------------------------------------------------------------ set-up (the floor's own side)
    def add_machine(self, asset: str, denomination: int, program: bytes, *, validation: str = "secure_enhanced",
                    max_bonus_won: int = 1_000_000, validation_id: int | None = None) -> FloorMachine:
        with self._lock:
            vid = validation_id if validation_id is not None else 1 + secrets.randbelow(0xFFFFFF)
            m = FloorMachine(asset, denomination, program, validation, vid, secrets.randbelow(0x1000),
                             max_bonus_won)
            self.machines[asset] = m
            self.outbox[asset] = {}
            return m

    def open_wallet(self, account: str, balance_won: int) -> None:
        with self._lock:
            self.wallets[account] = balance_won

    def _instruction_id(self, kind: str) -> str:
        return f"{kind}-{next(self._ids)}"

    def award_bonus(self, asset: str, amount_won: int, tax_status: int = 0) -> str:
        """A mystery award to pay on ``asset`` as a legacy bonus; returns its instruction id."""
        with self._lock:
            iid = self._instruction_id("bonus")
            self.outbox[asset][iid] = LegacyBonusAward(iid, amount_won, tax_status)
            self.bonuses[iid] = {"asset": asset, "amount": amount_won, "status": "pending"}
            return iid

    def request_aft(self, asset: str, account: str, direction: str, amount_won: int) -> str:
        """An AFT between ``account``'s wallet and ``asset``. ``to_machine`` holds the amount now; raises
        :class:`InsufficientFunds` (nothing moved) above the balance."""
        if direction not in ("to_machine", "to_host") or amount_won <= 0:
            raise ValueError("direction is to_machine or to_host, amount > 0")
        with self._lock:
            if direction == "to_machine":
                if self.wallets.get(account, 0) < amount_won:
                    raise InsufficientFunds(f"wallet {account} holds ₩{self.wallets.get(account, 0):,}, "
                                            f"₩{amount_won:,} asked")
                self.wallets[account] -= amount_won
            iid = self._instruction_id("aft")
            self.holds[iid] = amount_won if direction == "to_machine" else 0
            txid = f"AFT{next(self._ids):08d}"
            self.outbox[asset][iid] = AftTransferRequest(iid, txid, direction, amount_won, account)
            self.afts[iid] = {"asset": asset, "account": account, "direction": direction, "amount": amount_won,
                              "status": "pending", "moved": 0}
            return iid

    def set_enabled(self, asset: str, enabled: bool, reason: str = "") -> str:
        with self._lock:
            iid = self._instruction_id("enable")
            self.outbox[asset][iid] = SetEnabled(iid, enabled, reason)
            return iid

    def pay_handpay(self, key: str) -> None:
        """The attendant paid the handpay ``key``: the host resets it remotely (long poll 94)."""
        with self._lock:
            hp = self.handpays[key]
            if hp["status"] == "pending":
                hp["status"] = "paid"

    # ------------------------------------------------------------------ helpers
    def _once(self, key: str) -> bool:
        """True the first time ``key`` is seen (then apply), False on a repeat."""
        if key in self.keys:
            return False
        self.keys.add(key)
        return True

    def _add(self, asset: str, **deltas: int) -> None:
        acc = self.machines[asset].accounted
        for k, v in deltas.items():
            acc[k] = acc.get(k, 0) + v

    def _event(self, asset: str, kind: str, **detail) -> None:
        self.events.append(MachineEvent(asset, f"{asset}:floor:{len(self.events)}", kind, None, detail))

    # ------------------------------------------------------------------ FloorPort
    def enrol(self, identity: MachineIdentity, meters: MeterReport) -> Enrolment:
        with self._lock:
            m = self.machines.get(identity.asset)
            if m is None:
                self.refused_enrolments.append((identity.asset, "unknown asset"))
                return Enrolment(False, "unknown asset")
            if identity.denomination_won != m.denomination:
                reason = f"denomination ₩{identity.denomination_won} is not the enrolled ₩{m.denomination}"
                self.refused_enrolments.append((identity.asset, reason))
                return Enrolment(False, reason)
            m.identity = identity
            if not m.enrolled:
                m.accounted = dict(meters.meters)
                m.enrolled = True
            else:
                self._reconcile(m, meters)
            return Enrolment(True, "", m.validation, m.validation_id, m.validation_sequence, m.max_bonus_won)

    def _reconcile(self, m: FloorMachine, report: MeterReport) -> list[MeterMismatch]:
        out = [MeterMismatch(k, m.accounted[k], v) for k, v in report.meters.items()
               if k in m.accounted and m.accounted[k] != v]
        for x in out:
            self.mismatches.append((m.asset, x))
        if out:
            self._event(m.asset, "meter_mismatch", trigger=report.trigger,
                        mismatches=[(x.meter, x.floor, x.machine) for x in out])
        return out

    def reconcile_meters(self, report: MeterReport) -> Sequence[MeterMismatch]:
        with self._lock:
            return self._reconcile(self.machines[report.asset], report)

    def record_game(self, game: GamePlayed) -> None:
        with self._lock:
            if not self._once(game.key):
                return
            self.games.append(game)
            self._add(game.asset, coin_in=game.bet_won, coin_out=game.win_won, paytable_win=game.win_won,
                      games_played=game.games, games_won=game.games_won, credits=game.win_won - game.bet_won)

    def record_event(self, event: MachineEvent) -> None:
        with self._lock:
            if self._once(event.key):
                self.events.append(event)

    def bill_in(self, bill: BillIn) -> None:
        with self._lock:
            if self._once(bill.key):
                self.bills.append(bill)
                self._add(bill.asset, bills=bill.amount_won, credits=bill.amount_won)

    def ticket_issued(self, ticket: TicketIssued) -> None:
        with self._lock:
            if not self._once(ticket.key):
                return
            at = self.now()
            self.tickets[ticket.validation_number] = Ticket(ticket.validation_number, ticket.amount_won,
                                                            ticket.asset, at, at + self.ticket_expiry)
            self._add(ticket.asset, ticket_out=ticket.amount_won, ticket_out_count=1, cancelled=ticket.amount_won,
                      credits=-ticket.amount_won)
            if not ticket.verified:
                self._event(ticket.asset, "validation_number_unexpected", validation_number=ticket.validation_number)

    def system_validation_number(self, request: SystemValidationRequest) -> str | None:
        with self._lock:
            number = self.system_validation.next_number()
            while number in self.tickets:
                number = self.system_validation.next_number()
            return number

    def authorize_ticket(self, request: TicketAuthorize) -> TicketDecision:
        with self._lock:
            t = self.tickets.get(request.validation_number)
            if t is None:
                return TicketDecision(RedeemCode.NOT_ON_FILE, 0, "not on file")
            if t.status == "redeemed":
                return TicketDecision(RedeemCode.ALREADY_REDEEMED, 0, f"redeemed at {t.redeemed_by}")
            if t.status == "pending":
                if t.pending_key == request.key:
                    return TicketDecision(RedeemCode.VALID_CASHABLE, t.amount, "pending here")
                return TicketDecision(RedeemCode.PENDING_ELSEWHERE, 0, "in process at another location")
            if self.now() >= t.expires_at:
                return TicketDecision(RedeemCode.EXPIRED, 0, "expired")
            t.status, t.pending_key = "pending", request.key
            return TicketDecision(RedeemCode.VALID_CASHABLE, t.amount, "")

    def ticket_redeemed(self, result: TicketRedeemed) -> None:
        with self._lock:
            t = self.tickets.get(result.validation_number)
            if t is None or t.status != "pending" or t.pending_key != result.key:
                return  # a repeat, or a rejection of a ticket this floor never authorised
            if result.accepted and result.amount_won != t.amount:
                self._event(result.asset, "ticket_amount_mismatch", validation_number=t.validation_number,
                            floor=t.amount, machine=result.amount_won)
            if result.accepted:
                t.status, t.redeemed_by = "redeemed", result.asset
                self._add(result.asset, ticket_in=result.amount_won, ticket_in_count=1, credits=result.amount_won)
            else:
                t.status, t.pending_key = "issued", None

    def handpay_pending(self, handpay: HandpayPending) -> None:
        with self._lock:
            if self._once(handpay.key):
                self.handpays[handpay.key] = {"asset": handpay.asset, "amount": handpay.amount_won,
                                              "kind": handpay.kind, "status": "pending"}

    def handpays_paid(self, asset: str) -> Sequence[str]:
        with self._lock:
            return [k for k, h in self.handpays.items() if h["asset"] == asset and h["status"] == "paid"]

    def handpay_reset(self, reset: HandpayReset) -> None:
        with self._lock:
            hp = self.handpays.get(reset.key)
            if hp is None or hp["status"] == "reset":
                return
            hp["status"] = "reset"
            if reset.kind == "jackpot":
                self._add(reset.asset, jackpot=reset.amount_won, handpaid_paytable_win=reset.amount_won)
            else:
                self._add(reset.asset, handpaid_cancelled=reset.amount_won, cancelled=reset.amount_won,
                          credits=-reset.amount_won)

    def instructions(self, asset: str) -> Sequence[Instruction]:
        """The machine's instructions; of its legacy bonuses only the oldest (one at a time: each is confirmed by
        the bonus meter's growth since the meter before its first send, which a later bonus must not move); an AFT
        transfer handed before comes with ``resend`` (the host asks the machine before sending it)."""
        with self._lock:
            out, bonus = [], False
            for iid, ins in list(self.outbox.get(asset, {}).items()):
                if isinstance(ins, LegacyBonusAward):
                    if bonus:
                        continue
                    bonus = True
                elif isinstance(ins, AftTransferRequest) and not ins.resend:
                    # handed out now: handed again (a lost answer, a host restart) it is interrogated first
                    self.outbox[asset][iid] = replace(ins, resend=True)
                out.append(ins)
            return out

    def bonus_sending(self, sending: BonusSending) -> int | None:
        """Keep the meter before the award's first send (the first value recorded wins)."""
        with self._lock:
            b = self.bonuses.get(sending.instruction_id)
            ins = self.outbox.get(sending.asset, {}).get(sending.instruction_id)
            if b is None or b["status"] != "pending" or not isinstance(ins, LegacyBonusAward):
                return None
            if ins.meter_before_won is None:
                ins = replace(ins, meter_before_won=sending.meter_before_won)
                self.outbox[sending.asset][sending.instruction_id] = ins
                b["meter_before"] = sending.meter_before_won
            return ins.meter_before_won

    def bonus_result(self, result: BonusResult) -> None:
        with self._lock:
            b = self.bonuses.get(result.instruction_id)
            if b is None or b["status"] != "pending" or result.status == "busy":
                return
            b["status"] = result.status
            b["reason"] = result.reason
            self.outbox[result.asset].pop(result.instruction_id, None)
            if result.status == "paid":
                self._add(result.asset, external_bonus=result.amount_won, coin_out=result.amount_won,
                          legacy_bonus=result.amount_won, credits=result.amount_won)

    def aft_result(self, result: AftResult) -> None:
        with self._lock:
            a = self.afts.get(result.instruction_id)
            if a is None or a["status"] != "pending":
                return
            self.outbox[result.asset].pop(result.instruction_id, None)
            held = self.holds.pop(result.instruction_id, 0)
            if not result.ok:
                a["status"] = f"failed:0x{result.status:02X}"
                self.wallets[a["account"]] += held  # release the hold
                return
            a["status"], a["moved"] = "done", result.amount_won
            if a["direction"] == "to_machine":
                self.wallets[a["account"]] += held - result.amount_won
                self._add(result.asset, aft_in=result.amount_won, aft_in_count=1, credits=result.amount_won)
            else:
                self.wallets[a["account"]] += result.amount_won
                self._add(result.asset, aft_out=result.amount_won, aft_out_count=1, credits=-result.amount_won)

    def instruction_done(self, done: InstructionDone) -> None:
        with self._lock:
            if self.outbox.get(done.asset, {}).pop(done.instruction_id, None) is not None:
                self.done.append(done)

    def expected_signature(self, asset: str, seed: int) -> int | None:
        with self._lock:
            m = self.machines.get(asset)
            return None if m is None else program_signature(m.program, seed)

    def software_verification(self, check: SignatureCheck) -> None:
        with self._lock:
            self.signatures.append(check)
            if not check.ok:
                self.machines[check.asset].enabled = False
                self._event(check.asset, "software_signature_mismatch", seed=check.seed, expected=check.expected,
                            reported=check.reported)
