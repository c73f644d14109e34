"""The port between the SAS host and the floor's services: what the host tells the floor (typed commands,
each with a deterministic idempotency ``key`` derived from SAS data, so a call repeated after a lost response
or a host restart is applied once) and what it asks (instructions for a machine, decisions on tickets,
validation numbers, expected signatures).

Units: won for amounts (``*_won``), counts for games; meters by name (:data:`METER_NAMES`) in won or counts.
Idempotency keys (``asset`` is the floor's asset number):

* game(s): ``{asset}:game:{games played meter after them}``;
* bill: ``{asset}:bill:{bill code}:{count of that note}``;
* ticket out: ``{asset}:ticket-out:{validation number}``; ticket in: ``{asset}:ticket-in:{validation number}``;
* handpay: ``{asset}:handpay:{jackpot meter}:{hand-paid cancelled credits meter}:{amount}`` (the meters before
  the reset, which moves one of them);
* events: ``{asset}:event:{host sequence}``; meters: ``{asset}:meters:{games played}:{trigger}``;
* legacy bonus: the award's ``instruction_id`` (the floor's own id of the award), with the bonus meter before
  its first send kept by the floor (:class:`BonusSending`);
* AFT: the transfer's ``transaction_id`` (unique, the machine refuses a reused one): the floor settles each once
  by it and hands a transfer it sent but has no result for back to the host, which interrogates the machine
  (or sends the same ID again) rather than issue a new one (SAS 6.02 §8).

Errors: a port method may raise; the host keeps the same command and calls again later with the same key.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Mapping, Protocol, Sequence, Union, runtime_checkable

__all__ = [
    "METER_NAMES", "MachineIdentity", "Enrolment", "MeterReport", "MeterMismatch", "GamePlayed", "MachineEvent",
    "BillIn", "TicketIssued", "SystemValidationRequest", "TicketAuthorize", "TicketDecision", "TicketRedeemed",
    "HandpayPending", "HandpayReset", "LegacyBonusAward", "BonusSending", "AftTransferRequest", "SetEnabled", "Instruction",
    "BonusResult", "AftResult", "InstructionDone", "SignatureCheck", "FloorPort",
]

# meter names of MeterReport / GamePlayed.meters (won for amounts, counts for games and tickets)
METER_NAMES = (
    "coin_in", "coin_out", "jackpot", "handpaid_cancelled", "cancelled", "games_played", "games_won", "bills",
    "credits", "ticket_in", "ticket_out", "ticket_in_count", "ticket_out_count", "paytable_win",
    "external_bonus", "handpaid_paytable_win", "aft_in", "aft_in_count", "aft_out", "aft_out_count",
    "legacy_bonus",
)


@dataclass(frozen=True)
class MachineIdentity:
    """What a machine says it is (long polls 1F, 54, 56, 74): SAS version and serial, game and paytable IDs,
    accounting denomination (won), max bet (credits), base % ("9500" = 95.00%), enabled game numbers and the
    AFT asset number it reports (None: not asked)."""

    asset: str
    address: int
    sas_version: str
    serial: str
    game_id: str
    additional_id: str
    paytable_id: str
    denomination_won: int
    max_bet_credits: int
    base_percent: str
    enabled_games: tuple[int, ...]


@dataclass(frozen=True)
class Enrolment:
    """The floor's answer to an enrolment check. ``accepted`` False: the host disables the machine (``reason``).
    ``validation``: ``secure_enhanced`` (the host sets ``validation_id`` / ``validation_sequence`` with 4C) or
    ``system`` (the host supplies numbers via 57/58). ``max_bonus_won``: the legacy bonus award guard.
    ``accounted``: the machine's meters (:data:`METER_NAMES`, won / counts) up to which the floor has accounted
    what it did, for a machine enrolled before (None: a first enrolment): a host that starts without a baseline
    of its own (a restart, a crash) accounts the notes and games since from them, so play while no host ran is
    never lost."""

    accepted: bool
    reason: str = ""
    validation: str = "secure_enhanced"
    validation_id: int = 0
    validation_sequence: int = 0
    max_bonus_won: int = 0
    accounted: Mapping[str, int] | None = None


@dataclass(frozen=True)
class MeterMismatch:
    meter: str
    floor: int
    machine: int


@dataclass(frozen=True)
class MeterReport:
    """The machine's meters (``meters``: :data:`METER_NAMES` → won / counts) at ``trigger`` (``enrolment``,
    ``reconcile``, ``overflow``, ``power_on`` …)."""

    asset: str
    key: str
    trigger: str
    meters: Mapping[str, int]


@dataclass(frozen=True)
class GamePlayed:
    """The game(s) behind a game-ended exception: ``games`` played since the last report (normally 1),
    ``game_number`` the machine's games-played meter after them, ``bet_won`` (coin-in delta), ``win_won``
    (machine-paid paytable win delta; a jackpot handpay's win comes with its :class:`HandpayReset`),
    ``games_won``, and the machine's meters after them."""

    asset: str
    key: str
    game_number: int
    games: int
    bet_won: int
    win_won: int
    games_won: int
    meters: Mapping[str, int]


@dataclass(frozen=True)
class MachineEvent:
    """An exception of the machine event vocabulary (``sas_code``; ``kind`` its name) or one the host noticed
    (``sas_code`` None: ``comms_lost``, ``comms_restored``, ``meter_mismatch``, ``software_signature_mismatch``,
    ``exception_buffer_overflow``, ``meter_decreased``, ``validation_number_unexpected``)."""

    asset: str
    key: str
    kind: str
    sas_code: int | None = None
    detail: Mapping[str, object] = field(default_factory=dict)


@dataclass(frozen=True)
class BillIn:
    asset: str
    key: str
    amount_won: int
    bill_code: int
    bill_count: int


@dataclass(frozen=True)
class TicketIssued:
    """A cash-out ticket the machine printed: 18-digit ``validation_number`` (``00…`` secure enhanced,
    ``NN…`` a system number), ``amount_won``, ``printed_at`` (the machine's clock), ``ticket_number``;
    ``verified`` False when a secure enhanced number is not one the host expects from the validation ID and
    sequence it set."""

    asset: str
    key: str
    validation_number: str
    amount_won: int
    printed_at: datetime | None
    ticket_number: int
    scheme: str
    verified: bool = True


@dataclass(frozen=True)
class SystemValidationRequest:
    asset: str
    key: str
    amount_won: int


@dataclass(frozen=True)
class TicketAuthorize:
    asset: str
    key: str
    validation_number: str


@dataclass(frozen=True)
class TicketDecision:
    """``code``: a long poll 71 transfer code (00 valid cashable; 0x82 not on file, 0x83 pending elsewhere,
    0x84 already redeemed, 0x85 expired, 0x87 amount mismatch …); ``amount_won`` for a valid ticket."""

    code: int
    amount_won: int = 0
    reason: str = ""


@dataclass(frozen=True)
class TicketRedeemed:
    """The machine's final redemption status (``status``, table 15.12d): ``accepted`` True when it stacked the
    ticket and credited ``amount_won`` (commit); False when it returned it (release)."""

    asset: str
    key: str
    validation_number: str
    amount_won: int
    status: int
    accepted: bool


@dataclass(frozen=True)
class HandpayPending:
    """``kind``: ``jackpot`` (a game win at or above the machine's jackpot limit) or ``cancelled_credits``
    (a cash-out above the ticket limit); ``level`` the long poll 1B level."""

    asset: str
    key: str
    amount_won: int
    kind: str
    level: int


@dataclass(frozen=True)
class HandpayReset:
    asset: str
    key: str
    amount_won: int
    kind: str
    remote: bool


@dataclass(frozen=True)
class LegacyBonusAward:
    """Pay ``amount_won`` (a whole number of credits, at most the machine's maximum bonus) as a legacy bonus
    (8A) with ``tax_status`` (0 deductible, 1 non-deductible, 2 wager match). ``instruction_id`` is the award's
    own id (the same across host restarts). ``meter_before_won``: the machine's legacy bonus meter total (won)
    recorded before the award's first 8A (:meth:`FloorPort.bonus_sending`), None before it was ever sent: the
    award is paid once that total has grown by ``amount_won``, so it is never sent again once it is there."""

    instruction_id: str
    amount_won: int
    tax_status: int = 0
    meter_before_won: int | None = None


@dataclass(frozen=True)
class BonusSending:
    """The host is about to send award ``instruction_id`` for the first time: the machine's legacy bonus meter
    total (long poll 9A, all three meters, won) before it."""

    asset: str
    instruction_id: str
    meter_before_won: int


@dataclass(frozen=True)
class AftTransferRequest:
    """An AFT in-house cashable transfer: ``direction`` ``to_machine`` (the player's wallet to the credit
    meter) or ``to_host`` (the credit meter to the wallet); ``transaction_id`` 1–20 printable ASCII, unique.
    ``resend`` True: handed to a host before and not settled (a lost answer, a host restart): the machine may
    have done it already, so the host interrogates first (72 FF) and settles a result for this transaction ID
    as it stands; only a machine that does not know it is locked and sent the transfer (SAS 6.02 §8)."""

    instruction_id: str
    transaction_id: str
    direction: str
    amount_won: int
    account: str
    resend: bool = False


@dataclass(frozen=True)
class SetEnabled:
    instruction_id: str
    enabled: bool
    reason: str = ""


Instruction = Union[LegacyBonusAward, AftTransferRequest, SetEnabled]


@dataclass(frozen=True)
class BonusResult:
    """``status``: ``paid`` (the machine's bonus meters grew by it), ``refused`` (the award guard or the
    machine refused it), ``busy`` is never final (the host tries again)."""

    asset: str
    instruction_id: str
    status: str
    amount_won: int
    reason: str = ""


@dataclass(frozen=True)
class AftResult:
    """The machine's final AFT status (``status``, table 8.3; success 0x00/0x01) and ``amount_won`` moved."""

    asset: str
    instruction_id: str
    transaction_id: str
    status: int
    amount_won: int

    @property
    def ok(self) -> bool:
        return self.status & 0xE0 == 0


@dataclass(frozen=True)
class InstructionDone:
    asset: str
    instruction_id: str
    ok: bool
    reason: str = ""


@dataclass(frozen=True)
class SignatureCheck:
    asset: str
    seed: int
    expected: int | None
    reported: int

    @property
    def ok(self) -> bool:
        return self.expected is not None and self.expected == self.reported


@runtime_checkable
class FloorPort(Protocol):
    """What the SAS host needs from the floor. Every method taking a command with a ``key`` is idempotent on it."""

    def enrol(self, identity: MachineIdentity, meters: MeterReport) -> Enrolment: ...

    def reconcile_meters(self, report: MeterReport) -> Sequence[MeterMismatch]: ...

    def record_game(self, game: GamePlayed) -> None: ...

    def record_event(self, event: MachineEvent) -> None: ...

    def bill_in(self, bill: BillIn) -> None: ...

    def ticket_issued(self, ticket: TicketIssued) -> None: ...

    def system_validation_number(self, request: SystemValidationRequest) -> str | None: ...

    def authorize_ticket(self, request: TicketAuthorize) -> TicketDecision: ...

    def ticket_redeemed(self, result: TicketRedeemed) -> None: ...

    def handpay_pending(self, handpay: HandpayPending) -> None: ...

    def handpays_paid(self, asset: str) -> Sequence[str]: ...

    def handpay_reset(self, reset: HandpayReset) -> None: ...

    def instructions(self, asset: str) -> Sequence[Instruction]: ...

    def bonus_sending(self, sending: BonusSending) -> int | None:
        """Record the meter before an award's first send; returns the value to confirm it by (the first one
        recorded for that award: a restarted host gets the original back) or None: do not send it (no longer
        pending)."""
        ...

    def bonus_result(self, result: BonusResult) -> None: ...

    def aft_result(self, result: AftResult) -> None: ...

    def instruction_done(self, done: InstructionDone) -> None: ...

    def expected_signature(self, asset: str, seed: int) -> int | None: ...

    def software_verification(self, check: SignatureCheck) -> None: ...
