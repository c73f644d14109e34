"""Uploaded game definitions and their dual-control decision (migration 0022): the table and its repository.

One row per upload: the YAML text exactly as uploaded (``source``) and its SHA-256, the par sheet computed at
upload (``par_sheet``: variation → ``slotsys.floor.domain.parsheet.ParSheet.to_dict()``), who uploaded it and when, and
the decision: ``status`` ``pending`` → ``approved`` (with the approved ``approved_variations``) or ``rejected``
(with ``reason``), by ``decided_by`` at ``decided_at``. The decision is taken once, by a conditional UPDATE
(``status = 'pending'``), so two approvers racing decide it once.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, BigInteger, Index, Integer, String, Text, select, text, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Mapped, Session, mapped_column

from slotsys.kernel.adapters.db import Base, TZDateTime, utcnow
from slotsys.kernel.errors import Conflict


class GameDefinitionRow(Base):
    __tablename__ = "game_definitions"
    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True)
    game_id: Mapped[str] = mapped_column(String(64))
    name: Mapped[str] = mapped_column(String(200))
    kind: Mapped[str] = mapped_column(String(16))
    source: Mapped[str] = mapped_column(Text)
    sha256: Mapped[str] = mapped_column(String(64))
    variations: Mapped[list] = mapped_column(JSON, default=list)
    default_variation: Mapped[str] = mapped_column(String(32))
    par_sheet: Mapped[dict] = mapped_column(JSON, default=dict)
    status: Mapped[str] = mapped_column(String(10), default="pending")
    uploaded_by: Mapped[str] = mapped_column(String(60))
    uploaded_at: Mapped[datetime] = mapped_column(TZDateTime, default=utcnow)
    approved_variations: Mapped[list] = mapped_column(JSON, default=list)
    decided_by: Mapped[str | None] = mapped_column(String(60), nullable=True)
    decided_at: Mapped[datetime | None] = mapped_column(TZDateTime, nullable=True)
    reason: Mapped[str] = mapped_column(String(400), default="")
    __table_args__ = (
        Index("ix_game_definitions_game_id_status", "game_id", "status"),
        # at most one pending or approved upload per game id, even when two uploads race
        Index("ix_game_definitions_live_game_id", "game_id", unique=True,
              postgresql_where=text("status IN ('pending', 'approved')"),
              sqlite_where=text("status IN ('pending', 'approved')")),
    )


class GameDefinitionRepo:
    def __init__(self, session: Session) -> None:
        self.session = session

    def add(self, **values) -> GameDefinitionRow:
        """Insert an upload; ``Conflict`` naming ``id`` if the game id already has a pending or approved one."""
        row = GameDefinitionRow(**values)
        try:
            with self.session.begin_nested():
                self.session.add(row)
                self.session.flush()
        except IntegrityError:
            raise Conflict(f"{values.get('game_id')!r} already has a pending or approved upload", field="id") from None
        return row

    def get(self, definition_id: int) -> GameDefinitionRow | None:
        return self.session.get(GameDefinitionRow, definition_id)

    def live(self, game_id: str) -> GameDefinitionRow | None:
        """The pending or approved upload of ``game_id`` (at most one: a rejected one may be uploaded again)."""
        return self.session.scalar(select(GameDefinitionRow).where(
            GameDefinitionRow.game_id == game_id, GameDefinitionRow.status.in_(("pending", "approved")))
            .order_by(GameDefinitionRow.id.desc()).limit(1))

    def approved(self, game_id: str) -> GameDefinitionRow | None:
        return self.session.scalar(select(GameDefinitionRow).where(
            GameDefinitionRow.game_id == game_id, GameDefinitionRow.status == "approved")
            .order_by(GameDefinitionRow.id.desc()).limit(1))

    def recent(self, *, status: str | None = None, limit: int = 100) -> list[GameDefinitionRow]:
        q = select(GameDefinitionRow)
        if status:
            q = q.where(GameDefinitionRow.status == status)
        return list(self.session.scalars(q.order_by(GameDefinitionRow.id.desc()).limit(limit)))

    def decide(self, definition_id: int, *, status: str, by: str, at: datetime, reason: str = "",
               approved_variations: list[str] | None = None) -> bool:
        """Record the decision if the upload is still pending; whether this call decided it (one winner)."""
        n = self.session.execute(
            update(GameDefinitionRow)
            .where(GameDefinitionRow.id == definition_id, GameDefinitionRow.status == "pending")
            .values(status=status, decided_by=by, decided_at=at, reason=reason,
                    approved_variations=approved_variations or [])
            .execution_options(synchronize_session=False)).rowcount
        return n == 1
