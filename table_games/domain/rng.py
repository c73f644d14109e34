"""Randomness for the table engines, injected as a port with ``randbelow(n)``.

* live play: :class:`slotsys.kernel.ports.Csprng` (the operating system's CSPRNG);
* simulations and tests: :class:`SeededRng` (reproducible);
* **input mode**: :class:`ScriptedRng` -- a dealer or a test supplies the outcome (a pocket, the dice, a
  wheel stop) and the engine draws it through the very same ``randbelow`` call it makes in live play.
  A scripted value that the draw cannot produce (``value >= n``) is refused, naming the field.
"""

from __future__ import annotations

import random
from collections.abc import Iterable

from table_games.domain.errors import TableRuleError


class SeededRng:
    """A reproducible ``randbelow`` (Mersenne Twister): simulations and tests only, never live play."""

    def __init__(self, seed: int | str | None = 0) -> None:
        self._r = random.Random(seed)

    def randbelow(self, n: int) -> int:
        return self._r.randrange(n)


class ScriptedRng:
    """Input mode: returns the given values, in order, from ``randbelow``.

    ``field`` names the request field a wrong value is reported against (``"number"``, ``"dice"`` ...).
    """

    def __init__(self, values: Iterable[int], *, field: str = "outcome") -> None:
        self._values = list(values)
        self._i = 0
        self.field = field

    def randbelow(self, n: int) -> int:
        if self._i >= len(self._values):
            raise TableRuleError(self.field, "the outcome given is incomplete")
        v = self._values[self._i]
        if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < n:
            raise TableRuleError(self.field, f"{v!r} is not a possible outcome here")
        self._i += 1
        return v

    @property
    def exhausted(self) -> bool:
        return self._i >= len(self._values)
