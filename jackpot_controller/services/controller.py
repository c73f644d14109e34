"""Transitional names for callers outside the feature (see :mod:`jackpot_controller.services.legacy`):
``CHANNEL`` lives in :mod:`jackpot_controller.domain.signage`; ``service_for(ctx)`` returns the services the
composition root built for ``ctx`` (the table service broadcasts the meters through them)."""

from __future__ import annotations

from jackpot_controller.domain.signage import CHANNEL
from jackpot_controller.services.legacy import services_of
from jackpot_controller.services.container import JackpotServices

__all__ = ["CHANNEL", "service_for"]


def service_for(ctx) -> JackpotServices:
    return services_of(ctx)
