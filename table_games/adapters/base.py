"""What the table-games repositories share: a unit of work's session, add/delete with a flush, and
tables looked up by their unique ``code`` (optionally locked ``FOR UPDATE``)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from slotsys.kernel.errors import NotFound


class ByCodeRepo:
    """Subclasses set ``model`` (a mapped class with a unique ``code``) and ``noun`` (for the 404)."""

    model: Any
    noun = "table"

    def __init__(self, session: Session) -> None:
        self.s = session

    def add(self, obj) -> None:
        self.s.add(obj)
        self.s.flush()

    def delete(self, obj) -> None:
        self.s.delete(obj)
        self.s.flush()

    def all(self) -> list:
        return list(self.s.scalars(select(self.model).order_by(self.model.code)))

    def find(self, code: str):
        return self.s.scalar(select(self.model).where(self.model.code == code))

    def get(self, code: str, *, for_update: bool = False):
        """The table by code (404 field ``code``); ``for_update`` locks its row and reloads it in the same
        statement (the identity map must not hide a change committed while we waited for the lock)."""
        stmt = select(self.model).where(self.model.code == code)
        if for_update:
            stmt = stmt.with_for_update().execution_options(populate_existing=True)
        t = self.s.scalar(stmt)
        if t is None:
            raise NotFound(f"no {self.noun} {code!r}", field="code")
        return t
