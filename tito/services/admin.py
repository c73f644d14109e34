"""Supervisor and floor actions on tickets: void, expiry override, promotional tickets,
handpay receipts, and each machine's validation scheme and credit limit.

**Breakage** (the house rule we follow and document): expiry never removes liability by
itself. An expired ticket stays on ``tito:outstanding`` (and in the outstanding report)
until either the cage honours it with a supervisor's approval, or a supervisor voids it;
voiding an expired ticket recognises it as breakage (``Cr tito:breakage``, revenue),
voiding a live one writes it off to ``tito:voids`` (revenue, for review: a misprint, a
ticket reported stolen before use). Both are one balanced entry with the supervisor, the
reason and the time on the ticket and in its event trail.

Exactly once: the caller names each money-moving request with an
:class:`~slotsys.kernel.idempotency.OnceKey` whose fingerprint is
``("POST", "tickets/void", [number, stated(reason)])``,
``("POST", "tickets/promotional", [amount, promo_station(station), credit_type, promo_reason(reason)])``,
``("POST", "tickets/promotional/<id>/approve", None)`` or ``("POST", "handpay/<asset>", None)``
(number: :func:`tito.domain.validation.compact`).
"""

from __future__ import annotations

from dataclasses import replace

from slotsys.kernel import accounts
from slotsys.kernel import credits
from slotsys.kernel import ledger as L
from slotsys.kernel.checks import require_machine, require_role
from slotsys.kernel.context import Principal, ServiceContext
from slotsys.kernel.errors import Conflict, NotFound, TwoSignaturesRequired, ValidationFailed
from slotsys.kernel.idempotency import Once, OnceKey, run_once
from slotsys.kernel.money import MoneyError, require_won
from tito.domain import promo
from tito.domain.errors import PromoAboveMaximum, RequestNotPending, SelfApproval  # noqa: F401 (re-exported)
from tito.domain.machines import MachineView
from tito.domain.promo import PromoRequest
from tito.domain.tickets import (
    EXPIRED,
    ISSUED,
    NONRESTRICTED_PROMO,
    PROMO_TYPES,
    PROMOTIONAL,
    Ticket,
    check_presentation,
    effective_status,
)
from tito.domain.validation import SAS_MAX_ID, SAS_MAX_SEQUENCE
from tito.services import tickets as T
from tito.services.machine_in import effective_credit_limit
from tito.services.ports import TicketMachines, TitoUnitOfWork
from tito.services.results import (
    CreditLimitView,
    HandpayReceipt,
    PromoApproval,
    PromoIssue,
    PromoRefusal,
    PromoRequests,
    PromoRequestView,
    TicketView,
    ValidationView,
    VoidResult,
)
from tito.services.setup import TitoSetup
from tito.settings import TitoSettings

SUPERVISOR_ROLES = ("supervisor",)  # admin holds every role (require_role)


def request_view(r: PromoRequest) -> PromoRequestView:
    return PromoRequestView(id=r.id, amount=r.amount, credit_type=r.credit_type, station=r.station, reason=r.reason,
                            status=r.status, requested_by=r.requested_by, requested_at=r.requested_at.isoformat(),
                            decided_by=r.decided_by, decided_at=r.decided_at.isoformat() if r.decided_at else None,
                            ticket_id=r.ticket_id)


def stated(reason: object) -> object:
    """A stated reason as recorded: without surrounding blanks (anything but a string as it is)."""
    return reason.strip() if isinstance(reason, str) else reason


def _reason(reason: object, field: str = "reason") -> str:
    if not isinstance(reason, str) or not reason.strip() or len(reason) > 200:
        raise ValidationFailed(f"{field} is required (1-200 characters)", field=field)
    return reason.strip()


def promo_station(station: str | None) -> str:
    """The printing station's name as recorded (upper case; ``PROMO`` when none is given)."""
    return (station or "PROMO").upper()


def promo_reason(reason: str | None) -> str:
    """A promotional ticket's reason as recorded (at most 200 characters, blanks stripped; may be empty)."""
    return (reason or "").strip()[:200]


def validation_view(m: MachineView, *, secret: bool = False) -> ValidationView:
    """A machine's validation settings. The SAS validation ID and next sequence are the machine's
    secret (with the public SAS §15 algorithm they give every future ticket number): included only
    with ``secret=True`` (the machine itself); staff see the scheme, whether an ID is set and its
    generation (how many times it was drawn)."""
    n = m.numbering
    return ValidationView(
        machine=m.asset_number, scheme=n.scheme, sas_validation_id_set=n.sas_validation_id is not None,
        sas_generation=n.sas_generation, ticket_sequence=n.ticket_seq, secret=secret,
        sas_validation_id=n.sas_validation_id if secret else None,
        sas_validation_id_hex=f"0x{n.sas_validation_id:06X}" if secret and n.sas_validation_id is not None else None,
        sas_next_sequence=n.sas_sequence if secret else None)


class TicketAdminService:
    def __init__(self, ctx: ServiceContext, settings: TitoSettings, machines: TicketMachines, book: T.TicketBook,
                 setup: TitoSetup) -> None:
        self.ctx = ctx
        self.settings = settings
        self.machines = machines
        self.book = book
        self.setup = setup

    # ------------------------------------------------------------------ void
    def void(self, principal: Principal, raw_number: object, reason: object, key: OnceKey) -> Once[VoidResult]:
        """Void an unredeemed ticket (supervisor; exactly once per ``key``), with a reason.

        Allowed from issued (or a pending whose hold passed) and expired. Ledger:
        ``Dr tito:outstanding / Cr tito:voids`` (live) or ``Cr tito:breakage`` (expired).
        409 already redeemed / voided / pending at a location; 404 not on file.
        """
        require_role(principal, *SUPERVISOR_ROLES)
        vn = T.parse_number(raw_number)
        why = _reason(reason)

        def fn(uow: TitoUnitOfWork) -> VoidResult:
            t = uow.tickets.get(vn, for_update=True)
            if t is None:
                raise T.TicketNotOnFile("validation number not on file", field="validation_number")
            now = self.ctx.clock.now()
            status = effective_status(t.snapshot(), now)
            if status not in (ISSUED, EXPIRED):
                refusal = check_presentation(t.snapshot(), channel="cage", location="-", now=now)
                if refusal is not None:
                    raise T.refusal_error(refusal)
                raise Conflict(f"a {status} ticket cannot be voided", field="validation_number")  # pragma: no cover
            target = accounts.TICKETS_BREAKAGE if status == EXPIRED else accounts.TICKETS_VOIDS
            uow.ledger.ensure_account(target, L.AccountType.REVENUE)
            e = L.EntryBuilder("tito.void", f"ticket voided by {principal.name}: {why}")
            e.add(debit=accounts.TICKETS_OUTSTANDING, credit=target, amount=t.amount)
            entry_id = uow.ledger.post(e.build({"validation_number": vn, "by": principal.name, "reason": why}))
            uow.tickets.void(t.id, t.status, at=now, by=principal.name, reason=why, entry_id=entry_id)
            uow.tickets.log("voided", actor=principal.id, at=now, ticket_id=t.id, reason=why, breakage=status == EXPIRED,
                            amount=t.amount)
            voided = uow.tickets.get(vn)
            assert voided is not None
            return VoidResult(ticket=T.ticket_view(voided), written_off_to=target)

        return run_once(self.ctx, key, fn, result=VoidResult)

    # -------------------------------------------------------- expiry override
    def approve_expired(self, principal: Principal, raw_number: object, reason: object) -> TicketView:
        """A supervisor approves paying one expired ticket at the cage (logged on the ticket).

        409 conflict if the ticket is not expired; refusals for redeemed / voided tickets as
        everywhere. Moves no money (the cashier then pays it). Returns the ticket with its
        ``effective_status``.
        """
        require_role(principal, *SUPERVISOR_ROLES)
        vn = T.parse_number(raw_number)
        why = _reason(reason)
        with self.ctx.uow() as uow:
            t = uow.tickets.get(vn, for_update=True)
            if t is None:
                raise T.TicketNotOnFile("validation number not on file", field="validation_number")
            now = self.ctx.clock.now()
            status = effective_status(t.snapshot(), now)
            if status != EXPIRED:
                refusal = check_presentation(t.snapshot(), channel="cage", location="-", now=now)
                if refusal is not None and refusal.reason != "promotional_at_cage":
                    raise T.refusal_error(refusal)
                raise Conflict(f"ticket is {status}, not expired: nothing to approve", field="validation_number",
                               ticket_status=status)
            if t.type in PROMO_TYPES:
                raise T.PromotionalAtCage("a promotional ticket is not cashable at the cage", field="validation_number")
            uow.tickets.approve_expired(t.id, by=principal.name, at=now, reason=why)
            uow.tickets.log("expiry_override", actor=principal.id, at=now, ticket_id=t.id, reason=why)
            uow.commit()
            return T.ticket_view(replace(t, expiry_override_by=principal.name, expiry_override_at=now,
                                         expiry_override_reason=why), now)

    # ------------------------------------------------------------ promo issue
    def issue_promotional(self, principal: Principal, amount: object, station: str | None, key: OnceKey,
                          credit_type: str = credits.RESTRICTED, reason: str | None = None) -> Once[PromoIssue]:
        """Print a promotional ticket at a station (marketing / promo booth), e.g. a free-play offer.

        (supervisor only — admin holds every role; an operator gets 403: printing value, and a
        non-restricted ticket is cash once on a machine, is a supervisor's act; exactly once per ``key``)
        ``credit_type`` ``restricted`` (default: SAS restricted promotional, type ``promotional``:
        played on a machine it credits the restricted promo meter and is never paid in cash) or
        ``nonrestricted`` (type ``nonrestricted_promo``: credits the non-restricted meter, cashable by
        the player once on the machine). Ledger: ``Dr tito:promo_expense / Cr tito:outstanding``.
        System validation; sequence per station; expiry ``SLOTSYS_TITO_STATION_EXPIRY_DAYS`` or the
        floor default.

        Limits (:func:`tito.domain.promo.promo_issue_decision`): above
        ``SLOTSYS_TITO_PROMO_MAX_WON`` refused, 422 ``promo-above-maximum`` naming ``amount``, nothing
        printed. Dual control — nothing printed, a pending request stored (the result's ``request``,
        with the ``dual_control`` reasons) until a different supervisor approves it
        (:meth:`approve_promotional`) — when any of: a non-restricted ticket above
        ``SLOTSYS_TITO_PROMO_NONRESTRICTED_DUAL_CONTROL_WON`` (0: every one); this issuer's
        promotional tickets in the last ``SLOTSYS_TITO_PROMO_WINDOW_HOURS`` (printed or pending)
        plus this one above ``SLOTSYS_TITO_PROMO_DUAL_CONTROL_WON``; the floor's above
        ``SLOTSYS_TITO_PROMO_FLOOR_CAP_WON``. Otherwise the result's ``ticket``. Issues serialise
        floor-wide (:meth:`tito.services.ports.PromoRequestRepository.lock_issues`), so concurrent issues cannot
        both pass under a cumulative limit.
        """
        require_role(principal, *SUPERVISOR_ROLES)
        try:
            won = require_won(amount, field="amount")
        except MoneyError as e:
            raise ValidationFailed(str(e), field="amount") from None
        name = promo_station(station)
        if not (1 <= len(name) <= 20 and name.replace("-", "").isalnum()):
            raise ValidationFailed("station is 1-20 letters, digits or '-'", field="station")
        if credit_type not in credits.CREDIT_TYPES:
            raise ValidationFailed("credit_type is 'restricted' or 'nonrestricted'", field="credit_type")
        why = promo_reason(reason)
        ts = self.settings
        policy = promo.PromoPolicy(maximum=ts.promo_max_won, issuer_dual_control_above=ts.promo_dual_control_won,
                                   floor_cap=ts.promo_floor_cap_won,
                                   nonrestricted_dual_control_above=ts.promo_nonrestricted_dual_control_won)
        try:  # the maximum needs no totals: refuse before any transaction
            promo.promo_issue_decision(won, credit_type, issuer_total=0, floor_total=0, policy=policy)
        except ValueError as e:
            raise PromoAboveMaximum(str(e), field="amount", amount=won, maximum=ts.promo_max_won) from None

        def fn(uow: TitoUnitOfWork) -> PromoIssue:
            uow.promo_requests.lock_issues()
            now = self.ctx.clock.now()
            since = now - ts.promo_window
            # printed by a station (voided ones too: a void does not give the allowance back) or waiting for
            # approval; an approved request counts once, as its ticket (printed as the requester)
            mine, floor = promo.issue_totals(
                uow.tickets.promotional_printed_since(since) + uow.promo_requests.pending_since(since), principal.id)
            decision = promo.promo_issue_decision(won, credit_type, issuer_total=mine, floor_total=floor,
                                                  policy=policy)
            if decision.outcome == promo.DUAL_CONTROL:
                req = uow.promo_requests.add(amount=won, credit_type=credit_type, station=name, reason=why,
                                             requested_by=principal.id, requested_at=now)
                uow.tickets.log("promo_requested", actor=principal.id, at=now, amount=won, request_id=req.id,
                                credit_type=credit_type, station=name, dual_control=list(decision.reasons),
                                issuer_total=mine, floor_total=floor)
                return PromoIssue(request=request_view(req), dual_control=list(decision.reasons),
                                  dual_control_above=ts.promo_dual_control_won, issuer_total=mine, floor_total=floor)
            return PromoIssue(ticket=T.ticket_view(self._print_promo(uow, won, credit_type, name, principal.id)))

        return run_once(self.ctx, key, fn, result=PromoIssue)

    def _print_promo(self, uow: TitoUnitOfWork, won: int, credit_type: str, station: str, actor: str) -> Ticket:
        uow.ledger.ensure_account(accounts.PROMO_EXPENSE, L.AccountType.EXPENSE)
        ticket_type = PROMOTIONAL if credit_type == credits.RESTRICTED else NONRESTRICTED_PROMO
        t, _ = self.book.issue(uow, ticket_type=ticket_type, amount=won, debit_accounts=[(accounts.PROMO_EXPENSE, won)],
                               station=station, actor=actor, expiry_days=self.settings.station_expiry_days)
        return t

    def approve_promotional(self, principal: Principal, request_id: int, key: OnceKey) -> Once[PromoApproval]:
        """Dual control: a second supervisor approves a pending promotional ticket request and the
        ticket is printed as requested (exactly once per ``key``).

        403 ``dual-control-self-approval`` naming ``approved_by`` when the approver is the requester
        (two different people, the house's dual-control rule); 404 unknown ``request_id``; 409
        ``promo-request-not-pending`` naming ``request_id`` once approved or refused. The request
        row is locked, so two approvals print one ticket. Nothing changes on refusal.
        """
        require_role(principal, *SUPERVISOR_ROLES)

        def fn(uow: TitoUnitOfWork) -> PromoApproval:
            req = self._pending(uow, request_id)
            if req.requested_by == principal.id:
                raise SelfApproval("dual control: the supervisor who asked for this ticket cannot approve it; "
                                   "a second supervisor must", field="approved_by", requested_by=req.requested_by)
            now = self.ctx.clock.now()
            t = self._print_promo(uow, req.amount, req.credit_type, req.station, req.requested_by)
            req = uow.promo_requests.decide(req.id, status="approved", by=principal.id, at=now, ticket_id=t.id)
            uow.tickets.log("promo_approved", actor=principal.id, at=now, ticket_id=t.id, request_id=req.id,
                            requested_by=req.requested_by, amount=req.amount)
            return PromoApproval(ticket=T.ticket_view(t), request=request_view(req))

        return run_once(self.ctx, key, fn, result=PromoApproval)

    def refuse_promotional(self, principal: Principal, request_id: int, reason: object) -> PromoRefusal:
        """A supervisor (the requester too: a withdrawal) refuses a pending request; nothing is printed.
        409 ``promo-request-not-pending`` naming ``request_id`` if it was already decided."""
        require_role(principal, *SUPERVISOR_ROLES)
        why = _reason(reason)
        with self.ctx.uow() as uow:
            req = self._pending(uow, request_id)
            now = self.ctx.clock.now()
            req = uow.promo_requests.decide(
                req.id, status="refused", by=principal.id, at=now,
                reason=(f"{req.reason} | refused: {why}" if req.reason else f"refused: {why}")[:200])
            uow.tickets.log("promo_refused", actor=principal.id, at=now, request_id=req.id, reason=why)
            uow.commit()
            return PromoRefusal(request=request_view(req))

    def promo_requests(self, principal: Principal, status: str | None = "pending") -> PromoRequests:
        """Promotional ticket requests (supervisor, operator, auditor), newest first, by ``status``
        (pending | approved | refused | None for all; 422 naming ``status`` otherwise)."""
        require_role(principal, "supervisor", "operator", "auditor")
        if status not in (None, "pending", "approved", "refused"):
            raise ValidationFailed("status is pending, approved or refused", field="status")
        with self.ctx.uow(readonly=True) as uow:
            return PromoRequests(requests=[request_view(r) for r in uow.promo_requests.list(status)])

    @staticmethod
    def _pending(uow: TitoUnitOfWork, request_id: int) -> PromoRequest:
        req = uow.promo_requests.get(request_id, for_update=True)
        if req is None:
            raise NotFound(f"no promotional ticket request {request_id}", field="request_id")
        if req.status != "pending":
            raise RequestNotPending(f"request {request_id} is already {req.status} by {req.decided_by}",
                                    field="request_id", status_now=req.status)
        return req

    # ---------------------------------------------------------------- handpay
    def handpay(self, principal: Principal, asset: str, key: OnceKey) -> Once[HandpayReceipt]:
        """An attendant pays a machine's cashable credits by hand; the machine prints a handpay receipt.

        (attendant; exactly once per ``key``) See :meth:`tito.services.tickets.TicketBook.handpay_receipt`.
        Used when a cash-out is above the ticket limit (409 ``handpay-required``). A handpay at or above
        ``handpay_two_person_won`` needs two signers: 409 ``two-signatures-required`` (field ``asset``), to be
        signed in the handpay queue (``/api/v1/handpays``), nothing changed.
        """
        require_role(principal, "attendant")
        limit = self.settings.handpay_two_person_won

        def fn(uow: TitoUnitOfWork) -> HandpayReceipt:
            m = self.machines.lock(uow, asset)
            meters = self.machines.credits(uow, asset)
            amount = meters.cashable + meters.nonrestricted
            if amount >= limit:
                raise TwoSignaturesRequired(f"a handpay of ₩{amount:,} needs two signatures (from ₩{limit:,}): sign "
                                            f"it in the handpay queue", field="asset", amount=amount, two_person_won=limit)
            return self.book.handpay_receipt(uow, m, principal.name)

        return run_once(self.ctx, key, fn, result=HandpayReceipt)

    # ------------------------------------------------------ validation scheme
    def set_validation(self, principal: Principal, asset: str, scheme: object, sas_validation_id: object = None,
                       sas_sequence: object = None) -> ValidationView:
        """Choose how a machine's tickets are numbered (operator or admin).

        ``scheme`` "system" (host CSPRNG + Damm check digit) or "sas" (SAS §15 secure enhanced). A
        machine joining "sas" without a validation ID gets one, and its sequence start, from the
        CSPRNG (:meth:`tito.services.setup.TitoSetup.draw_secret`). An explicit ``sas_validation_id``
        (0..0xFFFFFF, unique on the floor) or ``sas_sequence`` (the next ticket's, 0..0xFFFFFF) — a
        machine whose ID was set elsewhere, a conformance test with the SAS vectors — is taken from
        an **admin** only (403 otherwise): a chosen ID is only as secret as the person who chose it.
        422 naming the field; 409 if the validation ID belongs to another machine. The result
        never contains the ID or the sequence (:func:`validation_view`).
        """
        require_role(principal, "operator")
        if scheme not in ("system", "sas"):
            raise ValidationFailed("scheme must be 'system' or 'sas'", field="scheme")
        for name, value, top in (("sas_validation_id", sas_validation_id, SAS_MAX_ID),
                                 ("sas_sequence", sas_sequence, SAS_MAX_SEQUENCE)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= top):
                raise ValidationFailed(f"{name} must be an integer 0..{top} (3 bytes)", field=name)
        if sas_validation_id is not None or sas_sequence is not None:
            if scheme != "sas":
                raise ValidationFailed("a validation ID or sequence is for the sas scheme only",
                                       field="sas_validation_id" if sas_validation_id is not None else "sas_sequence")
            require_role(principal, "admin")
        with self.ctx.uow() as uow:
            m = self.machines.lock(uow, asset)
            numbering = m.numbering
            now = self.ctx.clock.now()
            if scheme == "sas":
                if sas_validation_id is not None:
                    if self.machines.validation_id_owner(uow, sas_validation_id, besides=m.id) is not None:  # type: ignore[arg-type]
                        raise Conflict(f"validation ID {sas_validation_id} belongs to another machine",
                                       field="sas_validation_id")
                    numbering = replace(numbering, sas_validation_id=sas_validation_id,
                                        sas_generation=numbering.sas_generation + 1)
                    uow.tickets.log("validation_id_set", actor=principal.id, at=now, location=asset,
                                    generation=numbering.sas_generation)
                elif numbering.sas_validation_id is None:
                    numbering = self.setup.draw_secret(uow, m, actor=principal.id, reason="joined sas validation")
                if sas_sequence is not None:
                    numbering = replace(numbering, sas_sequence=sas_sequence)
            numbering = replace(numbering, scheme=scheme)
            self.machines.save_numbering(uow, m.id, numbering)
            uow.tickets.log("validation_scheme", actor=principal.id, at=now, location=asset, scheme=scheme)
            uow.commit()
            return validation_view(replace(m, numbering=numbering))

    def set_credit_limit(self, principal: Principal, asset: str, limit: object) -> CreditLimitView:
        """Set a machine's credit limit in won (operator): a ticket-in that would take its credits
        above it is refused (409 ``credit-limit-exceeded``, SAS 0x84). ``None`` returns the machine to
        the floor default ``SLOTSYS_TITO_MACHINE_CREDIT_LIMIT_WON``; 0 = no limit. 422 naming
        ``credit_limit`` for anything but a non-negative integer. Logged as a ticket event."""
        require_role(principal, "operator")
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or not 0 <= limit <= 10**12):
            raise ValidationFailed("credit_limit is integer won 0..10^12, or null for the floor default",
                                   field="credit_limit")
        with self.ctx.uow() as uow:
            m = self.machines.lock(uow, asset)
            self.machines.set_credit_limit(uow, m.id, limit)  # type: ignore[arg-type]
            uow.tickets.log("credit_limit", actor=principal.id, at=self.ctx.clock.now(), location=asset,
                            credit_limit=limit)
            uow.commit()
            return CreditLimitView(machine=asset, credit_limit=effective_credit_limit(limit, self.settings),  # type: ignore[arg-type]
                                   own_limit=limit, floor_default=self.settings.machine_credit_limit_won)

    def rotate_validation_id(self, principal: Principal, asset: str, reason: object = None) -> ValidationView:
        """Draw a new SAS validation ID and sequence start for a machine from the CSPRNG (supervisor
        or admin): after a ticket was computed by someone else, a suspected leak, or by routine.
        Tickets already issued keep their numbers and stay payable; the next ticket uses the new
        ID. 409 (field ``scheme``) if the machine uses system validation (nothing to rotate); 422
        naming ``reason`` if it is not a string of at most 200 characters. Logged
        (``validation_id_rotated``); the result never contains the ID or the sequence."""
        require_role(principal, *SUPERVISOR_ROLES)
        if reason is not None and (not isinstance(reason, str) or len(reason) > 200):
            raise ValidationFailed("reason must be at most 200 characters", field="reason")
        with self.ctx.uow() as uow:
            m = self.machines.lock(uow, asset)
            if m.numbering.scheme != "sas":
                raise Conflict(f"machine {asset} uses system validation: no validation ID to rotate", field="scheme")
            numbering = self.setup.draw_secret(uow, m, actor=principal.id,
                                               reason=(reason or "rotation requested").strip())  # type: ignore[union-attr]
            uow.commit()
            view = validation_view(replace(m, numbering=numbering))
            view.rotated_at = self.ctx.clock.now().isoformat()
            return view

    def validation(self, principal: Principal, asset: str) -> ValidationView:
        """A machine's validation scheme (the machine itself, or operator / auditor / admin). Only
        the machine gets its validation ID and next sequence (it prints with them)."""
        if principal.kind == "machine":
            require_machine(principal, asset)
        else:
            require_role(principal, "operator", "auditor")
        with self.ctx.uow(readonly=True) as uow:
            return validation_view(self.machines.get(uow, asset), secret=principal.kind == "machine")
