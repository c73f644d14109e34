"""The signage channel (pure): its name and the Server-Sent Events frame.

Messages on :data:`CHANNEL` are JSON objects with an ``event``: ``meters`` ({event, at, levels: [{code, name,
kind, zone, value (won), cycle, status}]}) after folds and as the stream's heartbeat, ``hit`` ({event, hit, level,
name, machine, zone, status, pay_method, amount (won, or null while held for verification), new_value (won),
at}) once a hit is paid or being paid (docs/streams.md).
"""

from __future__ import annotations

CHANNEL = "slotsys:jackpots"


def sse(event: str, data: str) -> str:
    """One Server-Sent Events frame (W3C EventSource: ``event:`` and ``data:`` lines, a blank line)."""
    return f"event: {event}\ndata: {data}\n\n"
