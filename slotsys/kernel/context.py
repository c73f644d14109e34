"""What every use case needs, assembled once by the composition root (bootstrap.py)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from slotsys.kernel.ports import Clock, Rng
from slotsys.kernel.settings import Settings


@dataclass
class Principal:
    """Who is calling: a machine (acts only as itself) or a staff member with a role."""

    kind: str  # "machine" | "staff"
    name: str  # asset number or username
    role: str | None = None

    @property
    def id(self) -> str:
        return f"{self.kind}:{self.name}"


@dataclass
class ServiceContext:
    uow: Callable[[], Any]
    rng: Rng
    clock: Clock
    settings: Settings
    # enqueue(task_name, *args): hands work to Celery (eager in the embedded default)
    enqueue: Callable[..., None] = field(default=lambda name, *args: None)
    # publish(channel, message): the live channel (Redis pub/sub in production, in-process otherwise)
    publish: Callable[[str, str], None] = field(default=lambda channel, message: None)
