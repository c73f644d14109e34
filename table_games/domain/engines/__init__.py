"""The house-banked table games behind one interface (:class:`~table_games.domain.engines.base.GameEngine`):
``GAMES[name]`` is the game's engine, one class per game carrying its whole behaviour.

* :mod:`~table_games.domain.engines.baccarat` -- baccarat (a shoe kept across rounds, roadmaps);
* :mod:`~table_games.domain.engines.blackjack` -- blackjack (dealt, then decided);
* :mod:`~table_games.domain.engines.wheels` -- roulette (with colour chips), sic bo, the big wheel;
* :mod:`~table_games.domain.engines.ante_poker` -- the ante-poker base: three card poker, Caribbean stud, Texas
  hold'em bonus; :mod:`~table_games.domain.engines.pai_gow` -- pai gow poker (players bank); both on
  :mod:`~table_games.domain.engines.poker` (a round rebuilt from its stored cards and decisions).
"""

from __future__ import annotations

from table_games.domain.engines.ante_poker import CaribbeanStud, HoldemBonus, ThreeCardPoker
from table_games.domain.engines.baccarat import Baccarat
from table_games.domain.engines.base import GameEngine
from table_games.domain.engines.blackjack import Blackjack
from table_games.domain.engines.pai_gow import PaiGowPoker
from table_games.domain.engines.wheels import BigWheel, Roulette, SicBo

GAMES: dict[str, GameEngine] = {e.name: e for e in (
    Baccarat(), Blackjack(), Roulette(), SicBo(), BigWheel(), ThreeCardPoker(), CaribbeanStud(), HoldemBonus(),
    PaiGowPoker(),
)}
TABLE_GAMES: tuple[str, ...] = tuple(GAMES)
