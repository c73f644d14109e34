"""Staff administration (admin only): create users with a role, list them, change a role, disable / enable, list
the active sessions and end one. Sign-in, password resets, unlocks and the revocation bus stay in
``slotsys.staff.services.auth.AuthService`` (docs/staff-auth.md); this service reuses its revocation announcement.

Rules
    * usernames: 3-60 of ``A-Z a-z 0-9 . _ -``, unique (409 naming ``username``); roles: one of
      ``slotsys.kernel.security.ROLES`` (422 naming ``role``); passwords: the policy of
      ``slotsys.staff.domain.auth.password_problem`` (422 naming ``password``), hashed (scrypt) through the
      sign-in hashing gate, outside any transaction;
    * an admin cannot change their own role nor disable themselves (409 naming ``username``);
    * disabling is the sign-in service's own ``AuthService.deactivate`` (every token revoked); a role change
      evicts the user's cached tokens on every node (the next request reads the new role); ending a session
      revokes that one token; each announced on the revocation bus after the commit, so every node refuses the
      token within 1 s;
    * every change is in the audit log (``staff.create``, ``staff.role``, ``staff.disable``, ``staff.enable``,
      ``staff.session_end``; subject ``user:<username>``), never a password or a token; refusals too.
"""

from __future__ import annotations

import re

from slotsys.kernel.errors import Conflict, NotFound, ValidationFailed
from slotsys.kernel.security import ROLES, hash_password
from slotsys.staff.domain.auth import password_problem
from slotsys.kernel.audit_log import record, record_refusal
from slotsys.kernel.context import Principal, ServiceContext
from slotsys.staff.services.auth import AuthService
from slotsys.staff.services.results import (
    SessionEnded,
    StaffSession,
    StaffSessions,
    StaffUser,
    StaffUserChanged,
    StaffUserLine,
    StaffUsers,
)
from slotsys.kernel.checks import require_role

USERNAME = re.compile(r"^[A-Za-z0-9._-]{3,60}$")
SESSION_ID = re.compile(r"^[0-9a-f]{16}$")


class StaffAdminService:
    def __init__(self, ctx: ServiceContext, auth: AuthService) -> None:
        self.ctx = ctx
        self.auth = auth

    def _refused(self, admin: Principal, action: str, subject: str, err: Exception) -> Exception:
        record_refusal(self.ctx.uow, admin, action, subject, str(err), detail={"field": getattr(err, "field", None)})
        return err

    # ------------------------------------------------------------------ users
    def create_user(self, admin: Principal, username: str, password: str, role: str) -> StaffUser:
        """A new active staff user (:class:`StaffUser`). 422 ``username`` / ``role`` / ``password``;
        409 ``username`` taken."""
        require_role(admin, "admin")
        subject = f"user:{username[:60]}"
        if not USERNAME.match(username):
            raise self._refused(admin, "staff.create", subject, ValidationFailed(
                "username must be 3-60 characters of letters, digits, '.', '_' or '-'", field="username"))
        if role not in ROLES:
            raise self._refused(admin, "staff.create", subject, ValidationFailed(
                f"role must be one of {', '.join(ROLES)}; got {role!r}", field="role"))
        problem = password_problem(password, username=username)
        if problem:
            raise self._refused(admin, "staff.create", subject,
                                ValidationFailed(f"the password {problem}", field="password"))
        with self.ctx.uow(readonly=True) as uow:
            taken = uow.staff.by_username(username) is not None
        if taken:
            raise self._refused(admin, "staff.create", subject,
                                Conflict(f"a staff user {username!r} already exists", field="username"))
        with self.auth.hash_gate.slot():
            digest = hash_password(password)
        with self.ctx.uow() as uow:
            if uow.staff.by_username(username) is not None:
                uow.rollback()
                raise self._refused(admin, "staff.create", subject,
                                    Conflict(f"a staff user {username!r} already exists", field="username"))
            uow.staff_sessions.add_user(username, digest, role)
            record(uow, admin, "staff.create", subject, after={"role": role, "active": True})
            uow.commit()
        return StaffUser(username=username, role=role, active=True)

    def users(self, admin: Principal) -> StaffUsers:
        """Every staff user by username, with their unexpired ``sessions`` (:class:`StaffUsers`)."""
        require_role(admin, "admin")
        now = self.ctx.clock.now()
        with self.ctx.uow(readonly=True) as uow:
            counts = uow.staff_sessions.counts(now)
            return StaffUsers(users=[StaffUserLine(username=u.username, role=u.role, active=bool(u.active),
                                                   sessions=counts.get(u.id, 0)) for u in uow.staff_sessions.users()])

    def update_user(self, admin: Principal, username: str, *, role: str | None = None, active: bool | None = None,
                    reason: str = "") -> StaffUserChanged:
        """Change ``role`` and/or ``active`` of ``username``; returns :class:`StaffUserChanged`.
        404 ``username``; 409 ``username`` for the admin's own account; 422 ``role``."""
        require_role(admin, "admin")
        subject = f"user:{username[:60]}"
        if role is not None and role not in ROLES:
            raise self._refused(admin, "staff.role", subject, ValidationFailed(
                f"role must be one of {', '.join(ROLES)}; got {role!r}", field="role"))
        if username == admin.name and (role is not None or active is False):
            raise self._refused(admin, "staff.role" if role is not None else "staff.disable", subject,
                                Conflict("an admin cannot change their own role or disable themselves",
                                         field="username"))
        with self.ctx.uow() as uow:
            user = uow.staff.by_username(username)
            if user is None:
                raise NotFound(f"no staff user {username!r}", field="username")
            user_id = user.id
            now = self.ctx.clock.now()
            if role is not None and role != user.role:
                record(uow, admin, "staff.role", subject, before={"role": user.role}, after={"role": role},
                       reason=reason)
                user.role = role
            disable = active is False and bool(user.active)
            if active is True and not user.active:
                uow.staff.auth_event("reactivated", username, now, actor=admin.name)
                record(uow, admin, "staff.enable", subject, before={"active": False}, after={"active": True},
                       reason=reason)
                user.active = True
            out = StaffUserChanged(username=username, role=user.role, active=bool(user.active), revoked_tokens=0)
            uow.commit()
        self.auth.announce_revoked(f"user:{user_id}")  # cached tokens re-read: the new role, or refused
        if disable:  # the sign-in service's own path: revoke every token, record, announce
            out.active = False
            out.revoked_tokens = self.auth.deactivate(admin, username, reason=reason).revoked_tokens
        return out

    # ------------------------------------------------------------------ sessions
    def sessions(self, admin: Principal, *, username: str | None = None) -> StaffSessions:
        """Unexpired staff sessions, newest first (:class:`StaffSessions`; ISO 8601 UTC; ``issued_at`` /
        ``address`` null for older tokens)."""
        require_role(admin, "admin")
        now = self.ctx.clock.now()
        with self.ctx.uow(readonly=True) as uow:
            rows = uow.staff_sessions.active(now, username=username)
        for r in rows:
            for k in ("issued_at", "expires_at"):
                r[k] = r[k].isoformat() if r[k] is not None else None
        return StaffSessions(sessions=[StaffSession(**r) for r in rows])

    def end_session(self, admin: Principal, session_id: str, address: str | None = None) -> SessionEnded:
        """End one session: its token is revoked on every node within 1 s (:class:`SessionEnded`); 404 naming
        ``session_id``."""
        require_role(admin, "admin")
        if not SESSION_ID.match(session_id):
            raise NotFound(f"no session {session_id[:40]!r}", field="session_id")
        now = self.ctx.clock.now()
        with self.ctx.uow() as uow:
            found = uow.staff_sessions.find(session_id)
            if found is None:
                raise NotFound(f"no session {session_id!r}", field="session_id")
            digest, username = found
            uow.staff_sessions.end(digest)
            uow.staff.auth_event("logout", username, now, address=address, actor=admin.name, session_id=session_id)
            record(uow, admin, "staff.session_end", f"user:{username}", detail={"session_id": session_id})
            uow.commit()
        self.auth.announce_revoked(f"token:{digest}")
        return SessionEnded(session_id=session_id, username=username, ended=True)

