"""Secrets for machine keys, staff passwords and tokens (stdlib only).

* Keys and tokens: 32 random bytes (``secrets``), stored only as SHA-256 hex digests.
* Passwords: scrypt (n=2**14, r=8, p=1) with a 16-byte salt, stored as
  ``scrypt$<salt hex>$<hash hex>``; compared in constant time.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import secrets


def new_token(prefix: str) -> str:
    """A new bearer secret such as ``mk_…`` (machine key) or ``st_…`` (staff token)."""
    return f"{prefix}_{secrets.token_urlsafe(32)}"


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def hash_password(password: str) -> str:
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, n=2**14, r=8, p=1)
    return f"scrypt${salt.hex()}${digest.hex()}"


def verify_password(password: str, stored: str) -> bool:
    try:
        scheme, salt_hex, digest_hex = stored.split("$")
    except ValueError:
        return False
    if scheme != "scrypt":
        return False
    digest = hashlib.scrypt(password.encode(), salt=bytes.fromhex(salt_hex), n=2**14, r=8, p=1)
    return hmac.compare_digest(digest.hex(), digest_hex)


@functools.lru_cache(maxsize=1)
def dummy_hash() -> str:
    """A stored-password string no password matches in practice (random password, random salt), with the
    same scrypt cost as a real one: a sign-in for an unknown or deactivated username is verified against it,
    so it takes the same time as a wrong password for a real user (no user enumeration by timing)."""
    return hash_password(secrets.token_urlsafe(32))


ROLES = ("operator", "cashier", "attendant", "auditor", "admin", "supervisor", "kiosk", "host", "pit")
"""supervisor: approves TITO exceptions (voids, paying expired tickets); kiosk: a ticket redemption machine;
host: the player club (enrolment, cards, redemptions); pit: rates table play."""
