"""What the table-games repositories share: a unit of work's session, tables looked up by their unique ``code``
(optionally locked ``FOR UPDATE``), and records handed to the services as domain objects (never rows).

A repository copies a row's JSON fields into the record it returns (and back when it stores one), so a service
holding a record never aliases a row: it changes the record and gives it back (``save…``)."""

from __future__ import annotations

import copy
from typing import Any, Generic, TypeVar

from sqlalchemy import select
from sqlalchemy.orm import Session

from slotsys.kernel.errors import NotFound

R = TypeVar("R")


def copied(value: Any) -> Any:
    """A deep copy of a JSON value (None stays None)."""
    return copy.deepcopy(value)


class ByCodeRepo(Generic[R]):
    """Subclasses set ``model`` (a mapped class with a unique ``code``), ``noun`` (for the 404) and
    :meth:`record` (the row as a domain record)."""

    model: Any
    noun = "table"

    def __init__(self, session: Session) -> None:
        self.s = session

    def record(self, row: Any) -> R:
        raise NotImplementedError

    def _insert(self, row: Any) -> Any:
        self.s.add(row)
        self.s.flush()
        return row

    def _row(self, code: str, *, for_update: bool = False) -> Any:
        stmt = select(self.model).where(self.model.code == code)
        if for_update:  # lock and reload in one statement: the identity map must not hide a committed change
            stmt = stmt.with_for_update().execution_options(populate_existing=True)
        row = self.s.scalar(stmt)
        if row is None:
            raise NotFound(f"no {self.noun} {code!r}", field="code")
        return row

    def _by_id(self, row_id: int) -> Any:
        row = self.s.get(self.model, row_id)
        if row is None:
            raise NotFound(f"no {self.noun} #{row_id}", field="code")
        return row

    def all(self) -> list[R]:
        return [self.record(t) for t in self.s.scalars(select(self.model).order_by(self.model.code))]

    def find(self, code: str) -> R | None:
        row = self.s.scalar(select(self.model).where(self.model.code == code))
        return None if row is None else self.record(row)

    def get(self, code: str, *, for_update: bool = False) -> R:
        """The table by code (404 field ``code``); ``for_update`` locks its row and reloads it in the same
        statement."""
        return self.record(self._row(code, for_update=for_update))
