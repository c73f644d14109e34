"""The signage channel's name under its former home, for the stream processes that import it from here
(``slotsys.server.streams.server``, ``slotsys.server.gunicorn_worker``); it lives in
:mod:`jackpot_controller.domain.signage`."""

from __future__ import annotations

from jackpot_controller.domain.signage import CHANNEL

__all__ = ["CHANNEL"]
