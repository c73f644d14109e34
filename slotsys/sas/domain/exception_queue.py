"""A machine's exception queue (SAS 6.02 §2.2.1): a FIFO of at least 20 queued exceptions in non-volatile
memory, plus priority exceptions that are never queued.

Rules:
* queued exceptions are reported oldest first; when the FIFO is full the OLDEST is lost and exception 0x70
  (buffer overflow) is reported at the next opportunity (it is a priority exception);
* a pending priority exception is always reported before any queued one (oldest priority first);
* the head is removed when the host implicitly ACKs it (its next different poll, §3.1), unless the host polled
  three times for it (§3.2: the machine must not dispose of it then; it is reported again);
* some priority exceptions are "serviced", not just ACKed (0x51 until long poll 1B, 0x3D until 4D, 0x57 until
  57, 0x67 until 70, 0x6F while locked): after an ACK they stay hidden for ``reissue_s`` and come back until
  :meth:`clear` is called (0x51 every 15 s, §7.8.1).
"""

from __future__ import annotations

from collections import OrderedDict, deque
from dataclasses import dataclass

from slotsys.sas.domain.codes import PRIORITY_EXCEPTIONS

__all__ = ["ExceptionQueue", "STICKY_REISSUE_S"]

STICKY_REISSUE_S: dict[int, float] = {0x51: 15.0, 0x3D: 5.0, 0x57: 2.0, 0x67: 2.0, 0x6F: 5.0}


@dataclass
class _Priority:
    code: int
    visible_at: float


class ExceptionQueue:
    """``capacity`` queued exceptions (≥ 20 per SAS) and the pending priority exceptions."""

    def __init__(self, capacity: int = 20) -> None:
        if capacity < 1:
            raise ValueError("capacity must be ≥ 1")
        self.capacity = capacity
        self.queued: deque[int] = deque()
        self.priority: "OrderedDict[int, _Priority]" = OrderedDict()
        self.lost = 0

    def __len__(self) -> int:
        return len(self.queued) + len(self.priority)

    def push(self, code: int, now: float) -> None:
        """Add exception ``code`` (0x01..0xFF). A priority code already pending stays once."""
        if not 0 < code <= 0xFF:
            raise ValueError(f"exception code 0x{code:X} is not 01..FF")
        if code in PRIORITY_EXCEPTIONS:
            item = self.priority.get(code)
            if item is None:
                self.priority[code] = _Priority(code, now)
            else:
                item.visible_at = min(item.visible_at, now)
            return
        self.queued.append(code)
        if len(self.queued) > self.capacity:
            self.queued.popleft()
            self.lost += 1
            self.push(0x70, now)

    def head(self, now: float) -> int:
        """The exception the next general poll reports (0x00: no activity)."""
        for item in self.priority.values():
            if item.visible_at <= now:
                return item.code
        return self.queued[0] if self.queued else 0x00

    def acked(self, code: int, now: float) -> None:
        """The host implicitly ACKed ``code`` (the last one reported)."""
        if code in self.priority:
            if code in STICKY_REISSUE_S:
                self.priority[code].visible_at = now + STICKY_REISSUE_S[code]
            else:
                del self.priority[code]
        elif self.queued and self.queued[0] == code:
            self.queued.popleft()

    def clear(self, code: int) -> None:
        """The condition behind priority exception ``code`` was serviced (or ended): stop reporting it."""
        self.priority.pop(code, None)

    def pending(self, code: int) -> bool:
        return code in self.priority or code in self.queued
