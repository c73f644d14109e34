"""A cashier's drawer session, pure (the cage: :mod:`tito.services.cage`).

Standard library only.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

__all__ = ["OPEN", "CLOSED", "DrawerSession"]

OPEN = "open"
CLOSED = "closed"


@dataclass(frozen=True)
class DrawerSession:
    """One cashier's ``drawer`` at ``cage`` from its ``opening_float`` (won) to the count-out.

    ``status`` open | closed. Once closed: ``closed_at``, the ledger's ``expected_cash``, the
    ``counted_cash`` and the ``variance`` (counted − expected; won). Times aware UTC."""

    id: int
    cage: str
    drawer: str
    cashier: str
    status: str
    opening_float: int
    opened_at: datetime
    closed_at: datetime | None = None
    expected_cash: int | None = None
    counted_cash: int | None = None
    variance: int | None = None

    @property
    def key(self) -> str:
        """The open-drawer key ``<cage>/<drawer>`` (one open session per drawer)."""
        return f"{self.cage}/{self.drawer}"
