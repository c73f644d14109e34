"""Staff login and bearer-token authentication (machines and staff)."""

from __future__ import annotations

import time
from datetime import timedelta

from slotsys.adapters.db import StaffUser
from slotsys.domain.errors import Forbidden, Unauthorized, ValidationFailed
from slotsys.domain.security import ROLES, hash_password, new_token, token_digest, verify_password
from slotsys.services.context import Principal, ServiceContext


class AuthService:
    _CACHE_MAX = 20_000  # credentials remembered per process (a floor's machines and staff, with room)

    def __init__(self, ctx: ServiceContext) -> None:
        self.ctx = ctx
        # token digest → (principal, monotonic deadline, staff token expiry or None): Settings.auth_cache_s
        self._cache: dict[str, tuple[Principal, float, object]] = {}

    def login(self, username: str, password: str) -> dict:
        """Exchange a username and password for a staff bearer token (``st_…``)."""
        with self.ctx.uow() as uow:
            user = uow.staff.by_username(username)
            if user is None or not user.active or not verify_password(password, user.password_hash):
                raise Unauthorized("unknown user or wrong password")
            token = new_token("st")
            expires = self.ctx.clock.now() + timedelta(hours=self.ctx.settings.staff_token_hours)
            uow.staff.purge_tokens(self.ctx.clock.now())
            uow.staff.add_token(token_digest(token), user.id, expires)
            uow.commit()
            return {"token": token, "role": user.role, "username": user.username, "expires_at": expires.isoformat()}

    def authenticate(self, authorization: str | None) -> Principal:
        """``Authorization: Bearer <machine key or staff token>`` → Principal, or 401."""
        if not authorization:
            raise Unauthorized("an Authorization: Bearer header is required")
        scheme, _, token = authorization.partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token:
            raise Unauthorized("use Authorization: Bearer <token>")
        digest = token_digest(token)
        hit = self._cache.get(digest)
        if hit is not None and hit[1] > time.monotonic() and (hit[2] is None or hit[2] > self.ctx.clock.now()):
            return hit[0]
        found, expires = None, None
        with self.ctx.uow(readonly=True) as uow:
            if token.startswith("mk_"):
                m = uow.machines.by_key_hash(digest)
                if m is not None:
                    found = Principal("machine", m.asset_number)
            elif token.startswith("st_"):
                u = uow.staff.user_for_token(digest, self.ctx.clock.now())
                if u is not None:
                    found = Principal("staff", u.username, u.role)
                    expires = uow.staff.token_expiry(digest)
        if found is None:
            self._cache.pop(digest, None)
            raise Unauthorized("unknown or expired credentials")
        if self.ctx.settings.auth_cache_s > 0:
            if len(self._cache) >= self._CACHE_MAX:
                self._cache.clear()
            self._cache[digest] = (found, time.monotonic() + self.ctx.settings.auth_cache_s, expires)
        return found

    def create_user(self, uow, username: str, password: str, role: str) -> StaffUser:
        if role not in ROLES:
            raise ValidationFailed(f"role must be one of {', '.join(ROLES)}", field="role")
        return uow.staff.add(StaffUser(username=username, password_hash=hash_password(password), role=role))


def require_role(principal: Principal, *roles: str) -> None:
    """403 unless a staff principal holds one of ``roles`` (admin holds every role)."""
    if principal.kind != "staff":
        raise Forbidden("this endpoint is for staff")
    if principal.role != "admin" and principal.role not in roles:
        raise Forbidden(f"role {principal.role!r} may not do this (needs {' or '.join(roles)})")
