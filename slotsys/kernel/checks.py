"""The role and machine checks every use case makes of its caller (a :class:`~slotsys.kernel.context.Principal`).

Raises :class:`~slotsys.kernel.errors.Forbidden` (403) when the caller may not act.
"""

from __future__ import annotations

from slotsys.kernel.context import Principal
from slotsys.kernel.errors import Forbidden


def require_staff(principal: Principal) -> None:
    """403 unless the caller is a staff member (any role)."""
    if principal.kind != "staff":
        raise Forbidden("this endpoint is for staff")



def require_role(principal: Principal, *roles: str) -> None:
    """403 unless a staff principal holds one of ``roles`` (admin holds every role)."""
    if principal.kind != "staff":
        raise Forbidden("this endpoint is for staff")
    if principal.role != "admin" and principal.role not in roles:
        raise Forbidden(f"role {principal.role!r} may not do this (needs {' or '.join(roles)})")


def require_machine(principal: Principal, asset: str) -> None:
    """A machine key acts only for its own machine (403 otherwise)."""
    if principal.kind != "machine":
        raise Forbidden("this endpoint is for machines (use the machine's key)")
    if principal.name != asset:
        raise Forbidden(f"machine {principal.name!r} may not act as machine {asset!r}")

