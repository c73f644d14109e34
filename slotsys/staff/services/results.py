"""What the staff use cases return: pydantic models the API renders as they are (``model_dump(mode="json")``).
Times are ISO 8601 UTC text; tokens are shown once and never stored (only their SHA-256 digests)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel


# ------------------------------------------------------------------ sign-in (slotsys.staff.services.auth)
class StaffToken(BaseModel):
    """A staff bearer token (``st_…``) with the user's role, valid until ``expires_at``."""

    token: str
    role: str
    username: str
    expires_at: str


class LoggedOut(BaseModel):
    """Whether the presented token was still valid (and is now revoked)."""

    revoked: bool
    username: str


class TokensRevoked(BaseModel):
    """A password changed or reset: every token of ``username`` revoked (``revoked_tokens`` how many)."""

    username: str
    revoked_tokens: int


class Deactivated(BaseModel):
    username: str
    active: bool
    revoked_tokens: int


class Unlocked(BaseModel):
    """A username's sign-in lock-out lifted; ``was_locked`` whether it was locked out."""

    username: str
    was_locked: bool


class AuthEvent(BaseModel):
    """A sign-in audit row: ``kind`` login | login_failed | locked_out | unlocked | logout | deactivated |
    password_changed | password_change_failed | password_reset | reactivated."""

    id: int
    at: str
    kind: str
    username: str
    address: str | None
    actor: str | None
    detail: dict[str, Any] | None


class AuthEvents(BaseModel):
    events: list[AuthEvent]
    next_cursor: int | None = None  # ?cursor= of the next (older) page; None on the last page


# ------------------------------------------------------------------ staff administration (slotsys.staff.services.admin)
class StaffUser(BaseModel):
    username: str
    role: str
    active: bool


class StaffUserLine(StaffUser):
    """A staff user and their unexpired ``sessions``."""

    sessions: int


class StaffUsers(BaseModel):
    users: list[StaffUserLine]


class StaffUserChanged(StaffUser):
    """A role change and / or enable / disable: the user after, and the tokens a disabling revoked."""

    revoked_tokens: int


class StaffSession(BaseModel):
    """An unexpired staff session (``issued_at`` / ``address`` None for tokens issued before they were kept)."""

    session_id: str | None
    username: str
    role: str
    issued_at: str | None
    expires_at: str | None
    address: str | None


class StaffSessions(BaseModel):
    sessions: list[StaffSession]


class SessionEnded(BaseModel):
    session_id: str
    username: str
    ended: bool
