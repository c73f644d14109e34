"""What every use case needs, assembled once by the composition root (``slotsys.app.bootstrap``): the caller
(:class:`Principal`) and the service context (:class:`ServiceContext`: the unit of work, randomness, time,
settings, and the after-commit hand-offs: task queue, live channel, metrics)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from slotsys.kernel.ports import Clock, Metrics, NullMetrics, Rng
from slotsys.kernel.settings import Settings


@dataclass
class Principal:
    """Who is calling: a machine (acts only as itself) or a staff member with a role."""

    kind: str  # "machine" | "staff" | "player"
    name: str  # asset number or username
    role: str | None = None

    @property
    def id(self) -> str:
        return f"{self.kind}:{self.name}"


@dataclass
class ServiceContext:
    """``uow()`` opens one transaction (:class:`~slotsys.kernel.ports.UnitOfWork`; ``uow(readonly=True)`` for reads);
    ``rng`` the CSPRNG of live play; ``clock`` UTC now; ``settings`` the floor's settings (environment only);
    ``enqueue(task_name, *args)`` hands work to Celery (eager in the embedded default); ``publish(channel, message)``
    the live channel (Redis pub/sub in production, in-process otherwise); ``metrics`` the business counters."""

    uow: Callable[..., Any]
    rng: Rng
    clock: Clock
    settings: Settings
    enqueue: Callable[..., None] = field(default=lambda name, *args: None)
    publish: Callable[[str, str], None] = field(default=lambda channel, message: None)
    metrics: Metrics = field(default_factory=NullMetrics)
