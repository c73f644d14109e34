"""Staff sign-in, bearer-token authentication (machines and staff), revocation and the sign-in audit.

Rules (docs/staff-auth.md; the pure parts in ``slotsys.staff.domain.auth``):

* **Throttling.** A sign-in is refused with 429 + ``Retry-After`` (``LoginThrottled``), before any
  password is checked, when its client address has used up ``Settings.staff_login_address_limit``
  failures (``limits``, Redis or memory) or its username is locked out (``staff_login_throttle``
  row: ``staff_lockout_failures`` failures within ``staff_lockout_window_s`` lock it for
  ``staff_lockout_s``, or until an admin unlocks it). Unknown usernames are counted and locked the
  same way.
* **Same work for every username.** An unknown or deactivated username is verified against a dummy
  scrypt hash, and every failure writes the same rows, so the response time does not tell whether
  the username exists.
* **Bounded hashing** (:class:`HashGate`). scrypt runs in at most ``staff_login_hash_slots`` threads
  per process, busy at most ``staff_login_hash_duty`` of the time, with one waiter per slot; any other
  sign-in is refused at once 503 + Retry-After (``LoginBusy``). The hash runs outside any database
  transaction.
* **Revocation.** Logout deletes the presented token; deactivation, a password change or an admin
  reset delete every token of the user. Each revocation evicts the token(s) from this process's
  cache and is published (Redis pub/sub) to every other process; every cached staff token is
  re-checked in the database at least every ``staff_auth_cache_s`` (≤ 1 s), so a revocation or an
  expiry moved in the database holds on every node within 1 s even without Redis.
* **Audit.** ``staff_auth_events`` rows: login, login_failed, locked_out, unlocked, logout,
  deactivated, password_changed, password_reset (throttled attempts are logged, not stored, so a
  flood of 429s writes nothing).
"""

from __future__ import annotations

import contextlib
import threading
import time
from datetime import datetime, timedelta

import structlog

from slotsys.kernel.errors import Conflict, NotFound, Unauthorized, ValidationFailed
from slotsys.kernel.security import ROLES, dummy_hash, hash_password, new_token, token_digest, verify_password
from slotsys.staff.domain.auth import (
    LockoutPolicy,
    LockoutState,
    LoginBusy,
    LoginThrottled,
    locked_until,
    password_problem,
    record_failure,
    retry_after_s,
)
from slotsys.kernel import audit_log
from slotsys.kernel.checks import require_role, require_staff
from slotsys.kernel.context import Principal, ServiceContext
from slotsys.staff.services.results import (
    AuthEvent,
    AuthEvents,
    Deactivated,
    LoggedOut,
    StaffToken,
    TokensRevoked,
    Unlocked,
)

log = structlog.get_logger("slotsys.auth")


class AuthService:
    _CACHE_MAX = 20_000  # credentials remembered per process (a floor's machines and staff, with room)

    def __init__(self, ctx: ServiceContext, *, addresses, bus) -> None:
        """``addresses``: the per-address failed sign-in limiter (``retry_after(address)``, ``hit(address)``,
        ``clear(address)``); ``bus``: the token-revocation bus between nodes (``publish(message)``,
        ``listen(callback)``): ``slotsys.staff.adapters.sign_in`` (Redis, or in-process)."""
        self.ctx = ctx
        s = ctx.settings
        # token digest → (principal, monotonic deadline, staff token expiry or None, staff user id or None)
        self._cache: dict[str, tuple[Principal, float, datetime | None, int | None]] = {}
        self.policy = LockoutPolicy(s.staff_lockout_failures, timedelta(seconds=s.staff_lockout_window_s),
                                    timedelta(seconds=s.staff_lockout_s))
        self.hash_gate = HashGate(s.staff_login_hash_slots, s.staff_login_hash_duty, s.staff_login_hash_wait_s)
        self.addresses = addresses
        self.bus = bus
        self._listening = False

    # ------------------------------------------------------------------ sign-in
    def login(self, username: str, password: str, address: str | None = None) -> StaffToken:
        """Exchange a username and password for a staff bearer token (``st_…``).

        Returns :class:`StaffToken` (``expires_at`` ISO 8601 UTC). Raises ``LoginThrottled`` (429,
        ``retry_after`` s) for a throttled address or a locked-out username, ``LoginBusy`` (503) when no
        hashing slot is free, ``Unauthorized`` (401, the same for an unknown user, a deactivated one and a
        wrong password)."""
        address = (address or "unknown")[:64]
        wait = self.addresses.retry_after(address)
        if wait is not None:
            log.warning("auth.login_throttled", by="address", username=username[:200], address=address, retry_after=wait)
            raise LoginThrottled(f"too many failed sign-ins from this address: try again in {wait} s",
                                 retry_after=wait)
        self.hash_gate.check()
        now = self.ctx.clock.now()
        with self.ctx.uow(readonly=True) as uow:
            self._refuse_if_locked(uow, username, now, address)
            user = uow.staff.by_username(username)
            known = user is not None and user.active
            stored = user.password_hash if known else dummy_hash()
            user_id, role, name = (user.id, user.role, user.username) if known else (None, None, None)
        ok = self._verify(password, stored) and known  # outside the transaction: no connection held while hashing
        now = self.ctx.clock.now()
        with self.ctx.uow() as uow:
            if ok:
                uow.staff.clear_throttle(username)
                token = new_token("st")
                expires = now + timedelta(hours=self.ctx.settings.staff_token_hours)
                uow.staff.purge_tokens(now)
                uow.staff.add_token(token_digest(token), user_id, expires, issued_at=now, address=address)
                uow.staff.auth_event("login", name, now, address=address)
                uow.commit()
                return StaffToken(token=token, role=role, username=name, expires_at=expires.isoformat())
            reason = "wrong_password" if known else ("inactive" if user is not None else "unknown_user")
            self._count_failure(uow, username, now, address, "login_failed", reason)
            uow.commit()
        self.addresses.failed(address)
        raise Unauthorized("unknown user or wrong password")

    def _refuse_if_locked(self, uow, username: str, now: datetime, address: str | None) -> None:
        row = uow.staff.throttle(username)
        until = locked_until(_state(row), now) if row is not None else None
        if until is not None:
            wait = retry_after_s(until, now)
            log.warning("auth.login_throttled", by="username", username=username[:200], address=address, retry_after=wait)
            raise LoginThrottled(f"this username is locked out after too many failed sign-ins: try again in {wait} s "
                                 "or ask an admin to unlock it", field="username", retry_after=wait)

    def _count_failure(self, uow, username: str, now: datetime, address: str | None, kind: str, reason: str) -> bool:
        """One more failure for ``username`` (row-locked), with its audit rows; whether it locked the username."""
        row = uow.staff.throttle_for_update(username)
        state, locks = record_failure(_state(row), now, self.policy)
        uow.staff.save_throttle(username[:200], state.failures, state.window_start, state.locked_until)
        uow.staff.auth_event(kind, username, now, address=address, reason=reason, failures=state.failures)
        if locks:
            uow.staff.auth_event("locked_out", username, now, address=address, failures=state.failures,
                                 until=state.locked_until.isoformat())
            log.warning("auth.locked_out", username=username[:200], address=address, until=state.locked_until.isoformat())
        return locks

    def _verify(self, password: str, stored: str) -> bool:
        with self.hash_gate.slot():
            return verify_password(password, stored)

    def _hash(self, password: str) -> str:
        with self.hash_gate.slot():
            return hash_password(password)

    # ------------------------------------------------------------------ bearer authentication
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
        found, expires, user_id = None, None, None
        with self.ctx.uow(readonly=True) as uow:
            if token.startswith("mk_"):
                m = uow.machines.by_key_hash(digest)
                if m is not None:
                    found = Principal("machine", m.asset_number)
            elif token.startswith("st_"):
                u = uow.staff.user_for_token(digest, self.ctx.clock.now())
                if u is not None:
                    found = Principal("staff", u.username, u.role)
                    expires, user_id = uow.staff.token_expiry(digest), u.id
        if found is None:
            self._cache.pop(digest, None)
            raise Unauthorized("unknown or expired credentials")
        ttl = self.ctx.settings.auth_cache_s
        self._listen()  # machine keys too: a reissued key is evicted on every node (reissue_credentials)
        if found.kind == "staff":
            ttl = min(ttl, self.ctx.settings.staff_auth_cache_s)
        if ttl > 0:
            if len(self._cache) >= self._CACHE_MAX:
                self._cache.clear()
            self._cache[digest] = (found, time.monotonic() + ttl, expires, user_id)
        return found

    def _listen(self) -> None:
        if not self._listening:
            self._listening = True
            self.bus.listen(self._on_revoked, self._forget_staff)

    def _on_revoked(self, message: str) -> None:
        """A revocation from any process: ``token:<digest>`` or ``user:<id>``."""
        kind, _, value = message.partition(":")
        if kind == "token":
            self._cache.pop(value, None)
        elif kind == "user":
            for digest, entry in list(self._cache.items()):
                if entry[3] is not None and str(entry[3]) == value:
                    self._cache.pop(digest, None)

    def _forget_staff(self) -> None:
        for digest, entry in list(self._cache.items()):
            if entry[3] is not None:
                self._cache.pop(digest, None)

    def announce_revoked(self, message: str) -> None:
        """Evict a revoked credential here and on every node: ``token:<digest>`` (a staff token or a machine
        key) or ``user:<id>`` (every token of a staff user); call it after the revoking commit."""
        self._revoked(message)

    def _revoked(self, message: str) -> None:
        self._on_revoked(message)  # this process at once, even if the bus is down
        self.bus.publish(message)

    # ------------------------------------------------------------------ the user's own token and password
    def logout(self, principal: Principal, authorization: str | None, address: str | None = None) -> LoggedOut:
        """Revoke the presented staff token (:class:`LoggedOut`: whether it was still valid); 403 for a machine
        key."""
        require_staff(principal)
        token = (authorization or "").partition(" ")[2].strip()
        digest = token_digest(token)
        now = self.ctx.clock.now()
        with self.ctx.uow() as uow:
            revoked = uow.staff.revoke_token(digest) is not None
            uow.staff.auth_event("logout", principal.name, now, address=address)
            uow.commit()
        self._revoked(f"token:{digest}")
        return LoggedOut(revoked=revoked, username=principal.name)

    def change_password(self, principal: Principal, old: str, new: str,
                        address: str | None = None) -> TokensRevoked:
        """The signed-in user changes their own password (old + new); every token of theirs is revoked.

        Returns :class:`TokensRevoked`. Raises 429 if the username is locked out, 422 naming
        ``old_password`` (wrong: counted as a failed sign-in) or ``new_password`` (policy), 503 busy."""
        require_staff(principal)
        now = self.ctx.clock.now()
        with self.ctx.uow(readonly=True) as uow:
            self._refuse_if_locked(uow, principal.name, now, address)
            user = uow.staff.by_username(principal.name)
            if user is None or not user.active:
                raise Unauthorized("unknown or expired credentials")
            stored = user.password_hash
        problem = password_problem(new, username=principal.name, current=old)
        if problem:
            raise ValidationFailed(f"the new password {problem}", field="new_password")
        if not self._verify(old, stored):
            with self.ctx.uow() as uow:
                locks = self._count_failure(uow, principal.name, now, address, "password_change_failed",
                                            "wrong_password")
                uow.commit()
            if locks:  # a stolen token must not let its holder guess the password: the lock-out ends the session
                self.revoke_all(principal.name, "locked_out", actor=None, address=address)
            raise ValidationFailed("the current password is wrong", field="old_password")
        new_hash = self._hash(new)
        return self._set_password(principal.name, new_hash, "password_changed", actor=principal.name, address=address)

    # ------------------------------------------------------------------ admin
    def reset_password(self, admin: Principal, username: str, new: str,
                       address: str | None = None) -> TokensRevoked:
        """An admin sets ``username``'s password; every token of theirs is revoked and any lock-out lifted.
        404 ``username``; 422 ``new_password`` (the policy)."""
        require_role(admin, "admin")
        problem = password_problem(new, username=username)
        if problem:
            raise ValidationFailed(f"the new password {problem}", field="new_password")
        new_hash = self._hash(new)
        return self._set_password(username, new_hash, "password_reset", actor=admin.name, address=address,
                                  audit=admin)

    def _revoking(self, username: str, change, event: str | None, *, actor: str | None, address: str | None,
                  must_exist: bool = True) -> int | None:
        """One transaction: find ``username`` (404 naming ``username``, or ``None`` when not ``must_exist``), apply
        ``change(uow, user)``, revoke every token of theirs and record ``event``; after the commit, announce
        ``user:<id>`` so every process drops them (≤ 1 s). Returns how many tokens were revoked."""
        now = self.ctx.clock.now()
        with self.ctx.uow() as uow:
            user = uow.staff.by_username(username)
            if user is None:
                if must_exist:
                    raise NotFound(f"no staff user {username!r}", field="username")
                return None
            change(uow, user)
            n = uow.staff.revoke_user_tokens(user.id)
            if event:
                uow.staff.auth_event(event, username, now, address=address, actor=actor, revoked_tokens=n)
            uow.commit()
            user_id = user.id
        self._revoked(f"user:{user_id}")
        return n

    def _set_password(self, username: str, new_hash: str, kind: str, *, actor: str, address: str | None,
                      audit: Principal | None = None) -> TokensRevoked:
        def change(uow, user) -> None:
            user.password_hash = new_hash
            uow.staff.clear_throttle(username)
            if audit is not None:  # an admin's reset is a privileged change (never the password itself)
                audit_log.record(uow, audit, "staff.password_reset", f"user:{username}")

        n = self._revoking(username, change, kind, actor=actor, address=address)
        return TokensRevoked(username=username, revoked_tokens=n)

    def revoke_all(self, username: str, kind: str, *, actor: str | None, address: str | None) -> int:
        """Revoke every token of ``username`` (``kind``: why, logged), on every node after the commit; the count
        (0 for an unknown username)."""
        n = self._revoking(username, lambda uow, user: None, None, actor=actor, address=address, must_exist=False)
        if n is None:
            return 0
        log.warning("auth.tokens_revoked", username=username, reason=kind, tokens=n,
                    at=self.ctx.clock.now().isoformat())
        return n

    def deactivate(self, admin: Principal, username: str, address: str | None = None,
                   reason: str = "") -> Deactivated:
        """Deactivate a staff user (admin): sign-in refused, every token revoked on every node within 1 s.
        Returns :class:`Deactivated`. 404 unknown username; 409 for the admin's own account (an admin cannot
        lock themselves out)."""
        require_role(admin, "admin")
        if username == admin.name:
            err = Conflict("an admin cannot deactivate their own account", field="username")
            audit_log.record_refusal(self.ctx.uow, admin, "staff.disable", f"user:{username}", str(err))
            raise err

        def change(uow, user) -> None:
            audit_log.record(uow, admin, "staff.disable", f"user:{username}", before={"active": bool(user.active)},
                             after={"active": False}, reason=reason)
            user.active = False

        n = self._revoking(username, change, "deactivated", actor=admin.name, address=address)
        return Deactivated(username=username, active=False, revoked_tokens=n)

    def unlock(self, admin: Principal, username: str, address: str | None = None) -> Unlocked:
        """Lift ``username``'s lock-out and forget its failures (admin). Returns :class:`Unlocked`."""
        require_role(admin, "admin")
        now = self.ctx.clock.now()
        with self.ctx.uow() as uow:
            row = uow.staff.throttle(username)
            was_locked = row is not None and locked_until(_state(row), now) is not None
            uow.staff.clear_throttle(username)
            uow.staff.auth_event("unlocked", username, now, address=address, actor=admin.name, was_locked=was_locked)
            audit_log.record(uow, admin, "staff.unlock", f"user:{username[:60]}", detail={"was_locked": was_locked})
            uow.commit()
        return Unlocked(username=username, was_locked=was_locked)

    def events(self, reader: Principal, *, username: str | None, kind: str | None, limit: int,
               cursor: int | None = None) -> AuthEvents:
        """The sign-in audit trail, newest first (auditor, admin): at most ``limit`` rows, of one ``username`` /
        ``kind`` when given, older than event ``cursor`` when given; ``next_cursor``: the ``cursor`` of the next
        page (the last row's id), None on the last page."""
        require_role(reader, "auditor")
        with self.ctx.uow(readonly=True) as uow:
            rows = uow.staff.auth_events(username=username, kind=kind, limit=limit + 1, before_id=cursor)
            more, rows = len(rows) > limit, rows[:limit]
            return AuthEvents(events=[AuthEvent(id=e.id, at=e.at.isoformat(), kind=e.kind, username=e.username,
                                                address=e.address, actor=e.actor, detail=e.detail) for e in rows],
                              next_cursor=rows[-1].id if more and rows else None)

    def create_user(self, uow, username: str, password: str, role: str):
        """A new active staff user in the caller's unit of work (the seed, the benches; does not commit): the
        repository's record. 422 ``role`` outside ``ROLES``. The admin use case is
        ``slotsys.staff.services.admin.StaffAdminService.create_user``."""
        if role not in ROLES:
            raise ValidationFailed(f"role must be one of {', '.join(ROLES)}", field="role")
        return uow.staff.add_user(username=username, password_hash=hash_password(password), role=role)


class HashGate:
    """Keeps password hashing (scrypt: CPU-bound, 50-100 ms) from starving the spins of its process.

    At most ``slots`` hashes run at once and as many requests may wait for one; the hashes use at most
    ``duty`` (0-1] of the time of each slot on average: after a hash that took t seconds of CPU its slot
    rests ``t × (1/duty - 1)`` before the next one starts. A request that finds the waiting room full, or cannot
    start within ``wait_s``, is refused at once with ``LoginBusy`` (503, ``retry_after`` 1 s), so guessing
    clients hold at most 2 × ``slots`` request threads and ``duty`` × ``slots`` of a core per process."""

    def __init__(self, slots: int, duty: float, wait_s: float) -> None:
        self._slots = threading.BoundedSemaphore(slots)
        self._room = threading.BoundedSemaphore(slots)
        self._lock = threading.Lock()
        self._rest_until = 0.0  # monotonic time before which no new hash starts
        self.duty, self.wait_s = duty, wait_s

    def check(self) -> None:
        """``LoginBusy`` at once if a request already waits for every slot (a fast path: no database work)."""
        if not self._room.acquire(blocking=False):
            raise self._busy()
        self._room.release()

    @contextlib.contextmanager
    def slot(self):
        deadline = time.monotonic() + self.wait_s
        if not self._room.acquire(blocking=False):
            raise self._busy()
        try:
            got = self._slots.acquire(timeout=self.wait_s)
        finally:
            self._room.release()
        if not got:
            raise self._busy()
        try:
            rest = self._rest_until - time.monotonic()
            if rest > 0:
                if time.monotonic() + rest > deadline:
                    raise self._busy()
                time.sleep(rest)
            t0 = time.thread_time()
            try:
                yield
            finally:
                took = time.thread_time() - t0  # CPU the hash used, not the wall time a busy box stretches it to
                with self._lock:
                    self._rest_until = max(self._rest_until, time.monotonic() + took * (1 / self.duty - 1))
        finally:
            self._slots.release()

    @staticmethod
    def _busy() -> LoginBusy:
        log.warning("auth.hashing_busy")
        return LoginBusy("sign-in is busy: retry in a second", retry_after=1)


def _state(row) -> LockoutState:
    return LockoutState(row.failures, row.window_start, row.locked_until)


