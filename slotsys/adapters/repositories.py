"""Repositories of the floor: machines, game rounds, staff."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session

from slotsys.adapters.db import GameRound, Machine, StaffToken, StaffUser, Zone
from slotsys.domain.errors import NotFound


class MachineRepo:
    def __init__(self, session: Session) -> None:
        self.s = session

    def by_key_hash(self, key_hash: str) -> Machine | None:
        return self.s.scalar(select(Machine).where(Machine.key_hash == key_hash))

    def get(self, asset: str, *, for_update: bool = False) -> Machine:
        """The machine by asset number; ``for_update`` takes its row lock (spins on one
        machine are serialised, and the machine row is always the first lock taken)."""
        stmt = select(Machine).where(Machine.asset_number == asset)
        if for_update:
            stmt = stmt.with_for_update()
        m = self.s.scalar(stmt)
        if m is None:
            raise NotFound(f"machine {asset!r} is not on the floor", field="asset")
        return m

    def get_by_id(self, machine_id: int) -> Machine:
        m = self.s.get(Machine, machine_id)
        if m is None:
            raise NotFound(f"machine id {machine_id} not found")
        return m

    def all(self) -> list[Machine]:
        return list(self.s.scalars(select(Machine).order_by(Machine.zone, Machine.asset_number)))

    def add(self, machine: Machine) -> Machine:
        self.s.add(machine)
        self.s.flush()
        return machine

    def add_meters(self, machine_id: int, **deltas: int) -> None:
        values = {k: getattr(Machine, k) + v for k, v in deltas.items() if v}
        if values:
            self.s.execute(update(Machine).where(Machine.id == machine_id).values(**values))

    def zones(self) -> list[Zone]:
        return list(self.s.scalars(select(Zone).order_by(Zone.code)))

    def ensure_zone(self, code: str, name: str) -> None:
        if self.s.get(Zone, code) is None:
            self.s.add(Zone(code=code, name=name))
            self.s.flush()


class GameRoundRepo:
    def __init__(self, session: Session) -> None:
        self.s = session

    def add(self, rnd: GameRound) -> GameRound:
        self.s.add(rnd)
        self.s.flush()
        return rnd

    def recent(self, machine_id: int, limit: int = 10) -> list[GameRound]:
        return list(
            self.s.scalars(
                select(GameRound).where(GameRound.machine_id == machine_id).order_by(GameRound.game_number.desc()).limit(limit)
            )
        )


class StaffRepo:
    def __init__(self, session: Session) -> None:
        self.s = session

    def by_username(self, username: str) -> StaffUser | None:
        return self.s.scalar(select(StaffUser).where(StaffUser.username == username))

    def add(self, user: StaffUser) -> StaffUser:
        self.s.add(user)
        self.s.flush()
        return user

    def add_token(self, token_hash: str, user_id: int, expires_at: datetime) -> None:
        self.s.add(StaffToken(token_hash=token_hash, user_id=user_id, expires_at=expires_at))
        self.s.flush()

    def user_for_token(self, token_hash: str, now: datetime) -> StaffUser | None:
        return self.s.scalar(
            select(StaffUser)
            .join(StaffToken, StaffToken.user_id == StaffUser.id)
            .where(StaffToken.token_hash == token_hash, StaffToken.expires_at > now, StaffUser.active.is_(True))
        )

    def purge_tokens(self, now: datetime) -> None:
        self.s.execute(delete(StaffToken).where(StaffToken.expires_at <= now))
