"""Supervisor and floor actions on tickets: void, expiry override, promotional tickets,
handpay receipts, and each machine's validation scheme.

**Breakage** (the house rule we follow and document): expiry never removes liability by
itself. An expired ticket stays on ``tito:outstanding`` (and in the outstanding report)
until either the cage honours it with a supervisor's approval, or a supervisor voids it;
voiding an expired ticket recognises it as breakage (``Cr tito:breakage``, revenue),
voiding a live one writes it off to ``tito:voids`` (revenue, for review: a misprint, a
ticket reported stolen before use). Both are one balanced entry with the supervisor, the
reason and the time on the ticket and in its event trail.
"""

from __future__ import annotations

from slotsys.kernel import accounts
from slotsys.kernel import ledger as L
from slotsys.kernel import credits
from tito.domain import promo
from slotsys.kernel.errors import Conflict, Forbidden, NotFound, TwoSignaturesRequired, ValidationFailed
from slotsys.kernel.money import MoneyError, require_won
from slotsys.kernel.context import Principal, ServiceContext
from slotsys.kernel.checks import require_machine
from slotsys.kernel.idempotency import fingerprint, OnceKey, run_once_dict
from slotsys.kernel.checks import require_role
from tito.adapters.repo import PromoIssueRepo, PromoRequestRepo, TicketRepo
from tito.adapters.tables import PromoTicketRequest
from tito.domain.tickets import (
    EXPIRED,
    ISSUED,
    NONRESTRICTED_PROMO,
    PROMO_TYPES,
    PROMOTIONAL,
    check_presentation,
    effective_status,
)
from tito.domain.validation import SAS_MAX_ID, SAS_MAX_SEQUENCE
from tito.services import tickets as T
from tito.services.setup import new_machine_secret
from tito.settings import get_tito_settings

SUPERVISOR_ROLES = ("supervisor",)  # admin holds every role (require_role)


class PromoAboveMaximum(ValidationFailed):
    code = "promo-above-maximum"
    title = "Promotional ticket above the maximum"


class SelfApproval(Forbidden):
    code = "dual-control-self-approval"
    title = "Dual control: a second supervisor must approve"


class RequestNotPending(Conflict):
    code = "promo-request-not-pending"
    title = "The promotional ticket request was already decided"


def _request_view(r: PromoTicketRequest) -> dict:
    return {"id": r.id, "amount": r.amount, "credit_type": r.credit_type, "station": r.station, "reason": r.reason,
            "status": r.status, "requested_by": r.requested_by, "requested_at": r.requested_at.isoformat(),
            "decided_by": r.decided_by, "decided_at": r.decided_at.isoformat() if r.decided_at else None,
            "ticket_id": r.ticket_id}


def _reason(reason: object, field: str = "reason") -> str:
    if not isinstance(reason, str) or not reason.strip() or len(reason) > 200:
        raise ValidationFailed(f"{field} is required (1-200 characters)", field=field)
    return reason.strip()


class TicketAdminService:
    def __init__(self, ctx: ServiceContext) -> None:
        self.ctx = ctx

    # ------------------------------------------------------------------ void
    def void(self, principal: Principal, raw_number: object, reason: object,
             idem_key: str | None) -> tuple[int, dict, bool]:
        """Void an unredeemed ticket (supervisor; Idempotency-Key), with a reason.

        Allowed from issued (or a pending whose hold passed) and expired. Ledger:
        ``Dr tito:outstanding / Cr tito:voids`` (live) or ``Cr tito:breakage`` (expired).
        409 already redeemed / voided / pending at a location; 404 not on file.
        """
        require_role(principal, *SUPERVISOR_ROLES)
        vn = T.parse_number(raw_number)
        why = _reason(reason)

        def fn(uow) -> dict:
            repo = TicketRepo(uow.session)
            t = repo.get(vn, for_update=True)
            if t is None:
                raise T.TicketNotOnFile("validation number not on file", field="validation_number")
            now = self.ctx.clock.now()
            status = effective_status(T.snapshot(t), now)
            if status not in (ISSUED, EXPIRED):
                refusal = check_presentation(T.snapshot(t), channel="cage", location="-", now=now)
                if refusal is not None:
                    raise T.refusal_error(refusal)
                raise Conflict(f"a {status} ticket cannot be voided", field="validation_number")  # pragma: no cover
            target = accounts.TICKETS_BREAKAGE if status == EXPIRED else accounts.TICKETS_VOIDS
            uow.ledger.ensure_account(target, L.AccountType.REVENUE)
            e = L.EntryBuilder("tito.void", f"ticket voided by {principal.name}: {why}")
            e.add(debit=accounts.TICKETS_OUTSTANDING, credit=target, amount=t.amount)
            entry_id = uow.ledger.post(e.build({"validation_number": vn, "by": principal.name, "reason": why}))
            repo.transition(t.id, t.status, status="voided", voided_at=now, voided_by=principal.name, void_reason=why,
                            void_entry_id=entry_id, pending_location=None, pending_txn=None, pending_until=None)
            repo.log("voided", actor=principal.id, at=now, ticket_id=t.id, reason=why, breakage=status == EXPIRED,
                     amount=t.amount)
            uow.session.refresh(t)
            return {"ticket": T.ticket_view(t), "written_off_to": target}

        r = run_once_dict(self.ctx, OnceKey(principal.id, idem_key, fingerprint("POST", "tickets/void", [vn, why])), fn)
        return r.status, r.body, r.replayed

    # -------------------------------------------------------- expiry override
    def approve_expired(self, principal: Principal, raw_number: object, reason: object) -> dict:
        """A supervisor approves paying one expired ticket at the cage (logged on the ticket).

        409 ``ticket-not-expired`` style conflict if the ticket is not expired; refusals for
        redeemed / voided tickets as everywhere. Moves no money (the cashier then pays it).
        """
        require_role(principal, *SUPERVISOR_ROLES)
        vn = T.parse_number(raw_number)
        why = _reason(reason)
        with self.ctx.uow() as uow:
            repo = TicketRepo(uow.session)
            t = repo.get(vn, for_update=True)
            if t is None:
                raise T.TicketNotOnFile("validation number not on file", field="validation_number")
            now = self.ctx.clock.now()
            status = effective_status(T.snapshot(t), now)
            if status != EXPIRED:
                refusal = check_presentation(T.snapshot(t), channel="cage", location="-", now=now)
                if refusal is not None and refusal.reason != "promotional_at_cage":
                    raise T.refusal_error(refusal)
                raise Conflict(f"ticket is {status}, not expired: nothing to approve", field="validation_number",
                               ticket_status=status)
            if t.type in PROMO_TYPES:
                raise T.PromotionalAtCage("a promotional ticket is not cashable at the cage", field="validation_number")
            t.expiry_override_by, t.expiry_override_at, t.expiry_override_reason = principal.name, now, why
            repo.log("expiry_override", actor=principal.id, at=now, ticket_id=t.id, reason=why)
            uow.commit()
            return T.ticket_view(t, now)

    # ------------------------------------------------------------ promo issue
    def issue_promotional(self, principal: Principal, amount: object, station: str | None,
                          idem_key: str | None, credit_type: str = credits.RESTRICTED,
                          reason: str | None = None) -> tuple[int, dict, bool]:
        """Print a promotional ticket at a station (marketing / promo booth), e.g. a free-play offer.

        (supervisor only — admin holds every role; an operator gets 403: printing value, and a
        non-restricted ticket is cash once on a machine, is a supervisor's act; Idempotency-Key)
        ``credit_type`` ``restricted`` (default: SAS restricted promotional, type ``promotional``:
        played on a machine it credits the restricted promo meter and is never paid in cash) or
        ``nonrestricted`` (type ``nonrestricted_promo``: credits the non-restricted meter, cashable by
        the player once on the machine). Ledger: ``Dr tito:promo_expense / Cr tito:outstanding``.
        System validation; sequence per station; expiry ``SLOTSYS_TITO_STATION_EXPIRY_DAYS`` or the
        floor default.

        Limits (:func:`tito.domain.promo.promo_issue_decision`): above
        ``SLOTSYS_TITO_PROMO_MAX_WON`` refused, 422 ``promo-above-maximum`` naming ``amount``, nothing
        printed. Dual control — nothing printed, a pending request stored (202 ``{"request",
        "dual_control": [reasons]}``) until a different supervisor approves it
        (:meth:`approve_promotional`) — when any of: a non-restricted ticket above
        ``SLOTSYS_TITO_PROMO_NONRESTRICTED_DUAL_CONTROL_WON`` (0: every one); this issuer's
        promotional tickets in the last ``SLOTSYS_TITO_PROMO_WINDOW_HOURS`` (printed or pending)
        plus this one above ``SLOTSYS_TITO_PROMO_DUAL_CONTROL_WON``; the floor's above
        ``SLOTSYS_TITO_PROMO_FLOOR_CAP_WON``. Otherwise 201 ``{"ticket"}``. Issues serialise
        floor-wide (:meth:`tito.adapters.repo.PromoIssueRepo.lock`), so concurrent issues cannot
        both pass under a cumulative limit.
        """
        require_role(principal, *SUPERVISOR_ROLES)
        try:
            won = require_won(amount, field="amount")
        except MoneyError as e:
            raise ValidationFailed(str(e), field="amount") from None
        name = (station or "PROMO").upper()
        if not (1 <= len(name) <= 20 and name.replace("-", "").isalnum()):
            raise ValidationFailed("station is 1-20 letters, digits or '-'", field="station")
        if credit_type not in credits.CREDIT_TYPES:
            raise ValidationFailed("credit_type is 'restricted' or 'nonrestricted'", field="credit_type")
        why = (reason or "").strip()[:200]
        ts = get_tito_settings()
        policy = promo.PromoPolicy(maximum=ts.promo_max_won, issuer_dual_control_above=ts.promo_dual_control_won,
                                   floor_cap=ts.promo_floor_cap_won,
                                   nonrestricted_dual_control_above=ts.promo_nonrestricted_dual_control_won)
        try:  # the maximum needs no totals: refuse before any transaction
            promo.promo_issue_decision(won, credit_type, issuer_total=0, floor_total=0, policy=policy)
        except ValueError as e:
            raise PromoAboveMaximum(str(e), field="amount", amount=won, maximum=ts.promo_max_won) from None

        def fn(uow) -> dict:
            issues = PromoIssueRepo(uow.session)
            issues.lock()
            now = self.ctx.clock.now()
            mine, floor = issues.totals(principal.id, now - ts.promo_window)
            decision = promo.promo_issue_decision(won, credit_type, issuer_total=mine, floor_total=floor,
                                                  policy=policy)
            if decision.outcome == promo.DUAL_CONTROL:
                req = PromoTicketRequest(amount=won, credit_type=credit_type, station=name, reason=why,
                                         status="pending", requested_by=principal.id, requested_at=now)
                PromoRequestRepo(uow.session).add(req)
                TicketRepo(uow.session).log("promo_requested", actor=principal.id, at=now, amount=won,
                                            request_id=req.id, credit_type=credit_type, station=name,
                                            dual_control=list(decision.reasons), issuer_total=mine, floor_total=floor)
                return {"request": _request_view(req), "dual_control": list(decision.reasons),
                        "dual_control_above": ts.promo_dual_control_won, "issuer_total": mine,
                        "floor_total": floor}
            return {"ticket": T.ticket_view(self._print_promo(uow, won, credit_type, name, principal.id))}

        r = run_once_dict(self.ctx, OnceKey(principal.id, idem_key, fingerprint("POST", "tickets/promotional", [won, name, credit_type, why])), fn, status=lambda body: 202 if "request" in body else 201)
        return r.status, r.body, r.replayed

    def _print_promo(self, uow, won: int, credit_type: str, station: str, actor: str):
        uow.ledger.ensure_account(accounts.PROMO_EXPENSE, L.AccountType.EXPENSE)
        ticket_type = PROMOTIONAL if credit_type == credits.RESTRICTED else NONRESTRICTED_PROMO
        return T.issue_ticket(uow, self.ctx, ticket_type=ticket_type, amount=won, debit_account=accounts.PROMO_EXPENSE,
                              station=station, actor=actor, expiry_days=get_tito_settings().station_expiry_days)

    def approve_promotional(self, principal: Principal, request_id: int, idem_key: str | None) -> tuple[int, dict, bool]:
        """Dual control: a second supervisor approves a pending promotional ticket request and the
        ticket is printed (Idempotency-Key; 201 ``{"ticket", "request"}``), as requested.

        403 ``dual-control-self-approval`` naming ``approved_by`` when the approver is the requester
        (two different people, the house's dual-control rule); 404 unknown ``request_id``; 409
        ``promo-request-not-pending`` naming ``request_id`` once approved or refused. The request
        row is locked, so two approvals print one ticket. Nothing changes on refusal.
        """
        require_role(principal, *SUPERVISOR_ROLES)

        def fn(uow) -> dict:
            req = self._pending(uow, request_id)
            if req.requested_by == principal.id:
                raise SelfApproval("dual control: the supervisor who asked for this ticket cannot approve it; "
                                   "a second supervisor must", field="approved_by", requested_by=req.requested_by)
            now = self.ctx.clock.now()
            t = self._print_promo(uow, req.amount, req.credit_type, req.station, req.requested_by)
            req.status, req.decided_by, req.decided_at, req.ticket_id = "approved", principal.id, now, t.id
            TicketRepo(uow.session).log("promo_approved", actor=principal.id, at=now, ticket_id=t.id,
                                        request_id=req.id, requested_by=req.requested_by, amount=req.amount)
            return {"ticket": T.ticket_view(t), "request": _request_view(req)}

        r = run_once_dict(self.ctx, OnceKey(principal.id, idem_key, fingerprint("POST", f"tickets/promotional/{request_id}/approve",
                                                                       None)), fn, status=201)
        return r.status, r.body, r.replayed

    def refuse_promotional(self, principal: Principal, request_id: int, reason: object) -> dict:
        """A supervisor (the requester too: a withdrawal) refuses a pending request; nothing is printed.
        409 ``promo-request-not-pending`` naming ``request_id`` if it was already decided."""
        require_role(principal, *SUPERVISOR_ROLES)
        why = _reason(reason)
        with self.ctx.uow() as uow:
            req = self._pending(uow, request_id)
            now = self.ctx.clock.now()
            req.status, req.decided_by, req.decided_at = "refused", principal.id, now
            req.reason = (f"{req.reason} | refused: {why}" if req.reason else f"refused: {why}")[:200]
            TicketRepo(uow.session).log("promo_refused", actor=principal.id, at=now, request_id=req.id, reason=why)
            uow.commit()
            return {"request": _request_view(req)}

    def promo_requests(self, principal: Principal, status: str | None = "pending") -> dict:
        """Promotional ticket requests (supervisor, operator, auditor), newest first, by ``status``
        (pending | approved | refused | None for all; 422 naming ``status`` otherwise)."""
        require_role(principal, "supervisor", "operator", "auditor")
        if status not in (None, "pending", "approved", "refused"):
            raise ValidationFailed("status is pending, approved or refused", field="status")
        with self.ctx.uow(readonly=True) as uow:
            return {"requests": [_request_view(r) for r in PromoRequestRepo(uow.session).list(status)]}

    @staticmethod
    def _pending(uow, request_id: int) -> PromoTicketRequest:
        req = PromoRequestRepo(uow.session).get(request_id, for_update=True)
        if req is None:
            raise NotFound(f"no promotional ticket request {request_id}", field="request_id")
        if req.status != "pending":
            raise RequestNotPending(f"request {request_id} is already {req.status} by {req.decided_by}",
                                    field="request_id", status_now=req.status)
        return req

    # ---------------------------------------------------------------- handpay
    def handpay(self, principal: Principal, asset: str, idem_key: str | None) -> tuple[int, dict, bool]:
        """An attendant pays a machine's cashable credits by hand; the machine prints a handpay receipt.

        (attendant; Idempotency-Key) See :func:`tito.services.tickets.issue_handpay_receipt`.
        Used when a cash-out is above the ticket limit (409 ``handpay-required``). A handpay at or above
        ``handpay_two_person_won`` needs two signers: 409 ``two-signatures-required`` (field ``asset``), to be
        signed in the handpay queue (``/api/v1/handpays``), nothing changed.
        """
        require_role(principal, "attendant")
        limit = get_tito_settings().handpay_two_person_won

        def fn(uow) -> dict:
            m = uow.machines.get(asset, for_update=True)
            credits = uow.machines.credits(asset)
            amount = credits.cashable + credits.nonrestricted
            if amount >= limit:
                raise TwoSignaturesRequired(f"a handpay of ₩{amount:,} needs two signatures (from ₩{limit:,}): sign "
                                            f"it in the handpay queue", field="asset", amount=amount, two_person_won=limit)
            return T.issue_handpay_receipt(uow, self.ctx, m, principal.name)

        r = run_once_dict(self.ctx, OnceKey(principal.id, idem_key, fingerprint("POST", f"handpay/{asset}", None)), fn, status=201)
        return r.status, r.body, r.replayed

    # ------------------------------------------------------ validation scheme
    def set_validation(self, principal: Principal, asset: str, scheme: object, sas_validation_id: object = None,
                       sas_sequence: object = None) -> dict:
        """Choose how a machine's tickets are numbered (operator or admin).

        ``scheme`` "system" (host CSPRNG + Damm check digit) or "sas" (SAS §15 secure enhanced). A
        machine joining "sas" without a validation ID gets one, and its sequence start, from the
        CSPRNG (:func:`tito.services.setup.new_machine_secret`). An explicit ``sas_validation_id``
        (0..0xFFFFFF, unique on the floor) or ``sas_sequence`` (the next ticket's, 0..0xFFFFFF) — a
        machine whose ID was set elsewhere, a conformance test with the SAS vectors — is taken from
        an **admin** only (403 otherwise): a chosen ID is only as secret as the person who chose it.
        422 naming the field; 409 if the validation ID belongs to another machine. The response
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
            m = uow.machines.get(asset, for_update=True)
            if scheme == "sas":
                if sas_validation_id is not None:
                    other = TicketRepo(uow.session).machine_with_validation_id(sas_validation_id, besides=m.id)
                    if other is not None:
                        raise Conflict(f"validation ID {sas_validation_id} belongs to another machine",
                                       field="sas_validation_id")
                    m.sas_validation_id = sas_validation_id
                    m.sas_generation = (m.sas_generation or 0) + 1
                    TicketRepo(uow.session).log("validation_id_set", actor=principal.id, at=self.ctx.clock.now(),
                                                location=asset, generation=m.sas_generation)
                elif m.sas_validation_id is None:
                    new_machine_secret(uow, self.ctx, m, actor=principal.id, reason="joined sas validation")
                if sas_sequence is not None:
                    m.sas_sequence = sas_sequence
            m.validation_scheme = scheme
            TicketRepo(uow.session).log("validation_scheme", actor=principal.id, at=self.ctx.clock.now(),
                                        location=asset, scheme=scheme)
            uow.commit()
            return validation_view(m)

    def set_credit_limit(self, principal: Principal, asset: str, limit: object) -> dict:
        """Set a machine's credit limit in won (operator): a ticket-in that would take its credits
        above it is refused (409 ``credit-limit-exceeded``, SAS 0x84). ``None`` returns the machine to
        the floor default ``SLOTSYS_TITO_MACHINE_CREDIT_LIMIT_WON``; 0 = no limit. 422 naming
        ``credit_limit`` for anything but a non-negative integer. Logged as a ticket event."""
        from tito.services.machine_in import credit_limit

        require_role(principal, "operator")
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or not 0 <= limit <= 10**12):
            raise ValidationFailed("credit_limit is integer won 0..10^12, or null for the floor default",
                                   field="credit_limit")
        with self.ctx.uow() as uow:
            m = uow.machines.get(asset, for_update=True)
            m.credit_limit = limit
            TicketRepo(uow.session).log("credit_limit", actor=principal.id, at=self.ctx.clock.now(), location=asset,
                                        credit_limit=limit)
            uow.commit()
            return {"machine": asset, "credit_limit": credit_limit(m), "own_limit": m.credit_limit,
                    "floor_default": get_tito_settings().machine_credit_limit_won}

    def rotate_validation_id(self, principal: Principal, asset: str, reason: object = None) -> dict:
        """Draw a new SAS validation ID and sequence start for a machine from the CSPRNG (supervisor
        or admin): after a ticket was computed by someone else, a suspected leak, or by routine.
        Tickets already issued keep their numbers and stay payable; the next ticket uses the new
        ID. 409 (field ``scheme``) if the machine uses system validation (nothing to rotate); 422
        naming ``reason`` if it is not a string of at most 200 characters. Logged
        (``validation_id_rotated``); the response never contains the ID or the sequence."""
        require_role(principal, *SUPERVISOR_ROLES)
        if reason is not None and (not isinstance(reason, str) or len(reason) > 200):
            raise ValidationFailed("reason must be at most 200 characters", field="reason")
        with self.ctx.uow() as uow:
            m = uow.machines.get(asset, for_update=True)
            if m.validation_scheme != "sas":
                raise Conflict(f"machine {asset} uses system validation: no validation ID to rotate", field="scheme")
            new_machine_secret(uow, self.ctx, m, actor=principal.id, reason=(reason or "rotation requested").strip())
            uow.commit()
            return {**validation_view(m), "rotated_at": self.ctx.clock.now().isoformat()}

    def validation(self, principal: Principal, asset: str) -> dict:
        """A machine's validation scheme (the machine itself, or operator / auditor / admin). Only
        the machine gets its validation ID and next sequence (it prints with them)."""
        if principal.kind == "machine":
            require_machine(principal, asset)
        else:
            require_role(principal, "operator", "auditor")
        with self.ctx.uow(readonly=True) as uow:
            return validation_view(uow.machines.get(asset), secret=principal.kind == "machine")


def validation_view(m, *, secret: bool = False) -> dict:
    """A machine's validation settings. The SAS validation ID and next sequence are the machine's
    secret (with the public SAS §15 algorithm they give every future ticket number): included only
    with ``secret=True`` (the machine itself); staff see the scheme, whether an ID is set and its
    generation (how many times it was drawn)."""
    view = {"machine": m.asset_number, "scheme": m.validation_scheme,
            "sas_validation_id_set": m.sas_validation_id is not None, "sas_generation": m.sas_generation or 0,
            "ticket_sequence": m.ticket_seq}
    if secret:
        view.update(sas_validation_id=m.sas_validation_id, sas_validation_id_hex=(
            f"0x{m.sas_validation_id:06X}" if m.sas_validation_id is not None else None),
            sas_next_sequence=m.sas_sequence)
    return view
