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

from slotsys.domain import ledger as L
from slotsys.domain.errors import Conflict, ValidationFailed
from slotsys.domain.money import MoneyError, require_won
from slotsys.services.context import Principal, ServiceContext
from slotsys.services.floor import require_machine
from slotsys.services.idempotency import fingerprint, run_once
from slotsys.services.staff import require_role
from tito.adapters.repo import TicketRepo
from tito.domain.tickets import EXPIRED, ISSUED, PROMOTIONAL, check_presentation, effective_status
from tito.domain.validation import SAS_MAX_ID, SAS_MAX_SEQUENCE
from tito.services import tickets as T
from tito.services.setup import new_machine_secret
from tito.settings import get_tito_settings

SUPERVISOR_ROLES = ("supervisor",)  # admin holds every role (require_role)


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
            target = T.TICKETS_BREAKAGE if status == EXPIRED else T.TICKETS_VOIDS
            uow.ledger.ensure_account(target, L.AccountType.REVENUE)
            e = L.EntryBuilder("tito.void", f"ticket voided by {principal.name}: {why}")
            e.add(debit=L.TICKETS_OUTSTANDING, credit=target, amount=t.amount)
            entry_id = uow.ledger.post(e.build({"validation_number": vn, "by": principal.name, "reason": why}))
            repo.transition(t.id, t.status, status="voided", voided_at=now, voided_by=principal.name, void_reason=why,
                            void_entry_id=entry_id, pending_location=None, pending_txn=None, pending_until=None)
            repo.log("voided", actor=principal.id, at=now, ticket_id=t.id, reason=why, breakage=status == EXPIRED,
                     amount=t.amount)
            uow.session.refresh(t)
            return {"ticket": T.ticket_view(t), "written_off_to": target}

        r = run_once(self.ctx.uow, principal.id, idem_key, fingerprint("POST", "tickets/void", [vn, why]), fn)
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
            if t.type == PROMOTIONAL:
                raise T.PromotionalAtCage("a promotional ticket is not cashable at the cage", field="validation_number")
            t.expiry_override_by, t.expiry_override_at, t.expiry_override_reason = principal.name, now, why
            repo.log("expiry_override", actor=principal.id, at=now, ticket_id=t.id, reason=why)
            uow.commit()
            return T.ticket_view(t, now)

    # ------------------------------------------------------------ promo issue
    def issue_promotional(self, principal: Principal, amount: object, station: str | None,
                          idem_key: str | None) -> tuple[int, dict, bool]:
        """Print a promotional ticket at a station (marketing / promo booth), e.g. a free-play offer.

        (supervisor or operator; Idempotency-Key) Ledger: ``Dr tito:promo_expense /
        Cr tito:outstanding``. System validation; sequence per station; expiry
        ``SLOTSYS_TITO_STATION_EXPIRY_DAYS`` or the floor default. Played on a machine it
        credits the promo meter; never paid in cash.
        """
        require_role(principal, "supervisor", "operator")
        try:
            won = require_won(amount, field="amount")
        except MoneyError as e:
            raise ValidationFailed(str(e), field="amount") from None
        name = (station or "PROMO").upper()
        if not (1 <= len(name) <= 20 and name.replace("-", "").isalnum()):
            raise ValidationFailed("station is 1-20 letters, digits or '-'", field="station")

        def fn(uow) -> dict:
            uow.ledger.ensure_account(T.PROMO_EXPENSE, L.AccountType.EXPENSE)
            t = T.issue_ticket(uow, self.ctx, ticket_type=PROMOTIONAL, amount=won, debit_account=T.PROMO_EXPENSE,
                               station=name, actor=principal.id, expiry_days=get_tito_settings().station_expiry_days)
            return {"ticket": T.ticket_view(t)}

        r = run_once(self.ctx.uow, principal.id, idem_key, fingerprint("POST", "tickets/promotional", [won, name]), fn,
                     status=201)
        return r.status, r.body, r.replayed

    # ---------------------------------------------------------------- handpay
    def handpay(self, principal: Principal, asset: str, idem_key: str | None) -> tuple[int, dict, bool]:
        """An attendant pays a machine's cashable credits by hand; the machine prints a handpay receipt.

        (attendant; Idempotency-Key) See :func:`tito.services.tickets.issue_handpay_receipt`.
        Used when a cash-out is above the ticket limit (409 ``handpay-required``).
        """
        require_role(principal, "attendant")

        def fn(uow) -> dict:
            m = uow.machines.get(asset, for_update=True)
            return T.issue_handpay_receipt(uow, self.ctx, m, principal.name)

        r = run_once(self.ctx.uow, principal.id, idem_key, fingerprint("POST", f"handpay/{asset}", None), fn, status=201)
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
