"""Bets and settlements, common to every table game.

A :class:`Bet` is money a player put on a spot (integer won). ``box`` is the seat/box whose spot it is
(baccarat seat, blackjack box); a bet whose ``player`` is not the box's seated player is a spectator
backing that box. ``cap`` is set when a dealer accepted a bet over the spot's maximum by mistake: the bet
is then paid or taken only up to ``cap`` (its *action*), and the excess is handed back (roulette page
§3-4-가, DESIGN §5).

A :class:`Settlement` says, per bet, the stake returned, the win paid and the commission charged; the
player is credited ``payout = stake_returned + win - commission`` (``net = payout - amount``). Wins are
computed by :mod:`slotsys.kernel.money` only (payouts round down, commissions round up to the unit).

:class:`Void` is the outcome of a misdeal or a "no game" (ball off the wheel, dice not flat): every
game's ``settle`` returns every bet in full.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

PUSH, WIN, LOSE, VOID, HALF = "push", "win", "lose", "void", "half"


@dataclass(frozen=True)
class Bet:
    spot: str
    amount: int
    player: str = "p1"
    box: str | None = None
    cap: int | None = None
    id: str | None = None

    @property
    def action(self) -> int:
        """The part of the bet in play (the whole bet unless a dealer's mistake let it exceed the maximum)."""
        return self.amount if self.cap is None else min(self.amount, self.cap)

    @property
    def excess(self) -> int:
        return self.amount - self.action

    @property
    def scope(self) -> str:
        """Whose spot the bet sits on (the box, or the player's own layout position)."""
        return self.box if self.box is not None else self.player

    def to_dict(self) -> dict[str, Any]:
        d = {"spot": self.spot, "amount": self.amount, "player": self.player}
        if self.box is not None:
            d["box"] = self.box
        if self.cap is not None:
            d["cap"] = self.cap
        if self.id is not None:
            d["id"] = self.id
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Bet:
        return cls(spot=d["spot"], amount=d["amount"], player=d.get("player", "p1"), box=d.get("box"),
                   cap=d.get("cap"), id=d.get("id"))

    def with_(self, **kw: Any) -> Bet:
        return replace(self, **kw)


@dataclass(frozen=True)
class Settlement:
    bet: Bet
    result: str  # win | lose | push | void | half (surrender)
    stake_returned: int
    win: int = 0
    commission: int = 0

    @property
    def payout(self) -> int:
        """What the player is credited."""
        return self.stake_returned + self.win - self.commission

    @property
    def net(self) -> int:
        return self.payout - self.bet.amount

    def to_dict(self) -> dict[str, Any]:
        return {"bet": self.bet.to_dict(), "result": self.result, "stake_returned": self.stake_returned,
                "win": self.win, "commission": self.commission, "payout": self.payout, "net": self.net}


@dataclass(frozen=True)
class Void:
    """A misdeal / "no game": every bet is returned."""

    reason: str = "no game"
    kind: str = field(default="void", init=False)

    def to_dict(self) -> dict[str, Any]:
        return {"void": True, "reason": self.reason}


# ---------------------------------------------------------------------- helpers for the games' settle()
def won(bet: Bet, win: int, commission: int = 0) -> Settlement:
    """The bet wins ``win`` (already computed on ``bet.action``): the whole stake comes back."""
    return Settlement(bet, WIN, bet.amount, win, commission)


def lost(bet: Bet) -> Settlement:
    """The bet loses its action; an over-maximum excess is handed back."""
    return Settlement(bet, LOSE, bet.excess)


def pushed(bet: Bet) -> Settlement:
    return Settlement(bet, PUSH, bet.amount)


def voided(bet: Bet) -> Settlement:
    return Settlement(bet, VOID, bet.amount)


def returned_part(bet: Bet, returned_of_action: int, result: str = HALF) -> Settlement:
    """Part of the action comes back (surrender), plus any excess."""
    return Settlement(bet, result, bet.excess + returned_of_action)


def void_all(bets) -> list[Settlement]:
    return [voided(b) for b in bets]
