"""Liabilities as of a day close, each reconciled to its ledger accounts. Pure.

Each liability is kept twice: in its own record (the ticket file, the jackpot level meters, the players'
wallet balances and points) and on the ledger. At the close of a gaming day both are taken as of the day's end
and compared; the **difference (record − ledger) is reported, never hidden or netted away**, and the day's
report shows ``all_agree`` only when every difference is zero.

* **Outstanding tickets** (:func:`ticket_liability`): a ticket is outstanding at instant *t* when it was issued
  before *t* and neither redeemed nor voided before *t* (an expired ticket stays a liability until a supervisor
  voids it into breakage: ``tito.domain.tickets.OUTSTANDING_STATES``). Compared with ``tito:outstanding``.
* **Jackpot meters** (:func:`jackpot_liability`): a level keeps milli-won accumulators; the ledger carries whole
  won: ``jackpot:<L>:liability`` = ⌊value_milli / 1000⌋ (likewise ``:reserve``, ``:overflow``;
  ``money.milli_to_won_floor``) and the sub-won remainder stays on the meter, off the ledger (shown, as
  ``remainder_milli``). ``:payable`` = Σ of the level's decided awards not yet paid.
* **Player wallets** (:func:`wallet_liability`): each player's cashable and promotional wallet as the player's
  record shows it against the journal's sum of postings to ``player:<id>:cashable`` / ``:promo``.
* **Points** (:func:`points_liability`): each player's points balance (milli-points) against the sum of the
  player's points journal. Points are **not on the ledger**: they become an expense (``loyalty:comps:*``) only
  when redeemed; the report values the whole points outstanding at the program's redemption rates (won per
  point, exact integers) as a disclosed estimate, with no ledger figure to compare.

All amounts are integer won (milli-won / milli-points where named).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from slotsys.kernel import accounts as JA
from slotsys.kernel.gaming_day import GamingDay
from slotsys.kernel import accounts
from slotsys.kernel.money import MILLI_PER_WON, milli_split

__all__ = ["TicketRecord", "outstanding_as_of", "ticket_liability", "LevelMeters", "jackpot_liability",
           "WalletRecord", "wallet_liability", "PlayerPoints", "points_liability", "liabilities_report"]

MILLI_PER_POINT = 1_000

_LEVEL_ACCOUNT = {"liability": JA.jackpot_liability, "reserve": JA.jackpot_reserve, "overflow": JA.jackpot_overflow, "payable": JA.jackpot_payable}


def _level_code(level: str, part: str) -> str:
    return _LEVEL_ACCOUNT[part](level)


def _line(item: str, account: str, record: int, ledger: int | None, **extra: Any) -> dict[str, Any]:
    return {"item": item, "account": account, "record": record, "ledger": ledger,
            "difference": None if ledger is None else record - ledger, **extra}


# ---------------------------------------------------------------------------------------------- tickets
@dataclass(frozen=True)
class TicketRecord:
    """A ticket as the ticket file keeps it (aware UTC time stamps; None: not redeemed / not voided)."""

    validation_number: str
    type: str
    amount: int
    issued_at: datetime
    redeemed_at: datetime | None = None
    voided_at: datetime | None = None


def outstanding_as_of(tickets: Iterable[TicketRecord], as_of: datetime) -> list[TicketRecord]:
    """The tickets outstanding at ``as_of`` (see the module docstring), in issue order."""
    out = [t for t in tickets if t.issued_at < as_of and not (t.redeemed_at is not None and t.redeemed_at < as_of)
           and not (t.voided_at is not None and t.voided_at < as_of)]
    return sorted(out, key=lambda t: (t.issued_at, t.validation_number))


def ticket_liability(tickets: Iterable[TicketRecord], as_of: datetime, ledger_balance: int,
                     gd: GamingDay | None = None) -> dict[str, Any]:
    """Outstanding tickets at ``as_of`` against the normal balance of ``tito:outstanding`` as of the same
    instant: ``{"count", "amount", "by_type": {type: {count, amount}}, "by_issue_day": {day: {count, amount}},
    "line": reconciliation line}`` (issue days are gaming days of ``gd``, default 06:00 KST)."""
    gd = gd or GamingDay()
    out = outstanding_as_of(tickets, as_of)
    by_type: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    by_day: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for t in out:
        for acc, key in ((by_type, t.type), (by_day, gd.day_of(t.issued_at).isoformat())):
            acc[key][0] += 1
            acc[key][1] += t.amount
    amount = sum(t.amount for t in out)
    return {"count": len(out), "amount": amount,
            "by_type": {k: {"count": c, "amount": a} for k, (c, a) in sorted(by_type.items())},
            "by_issue_day": {k: {"count": c, "amount": a} for k, (c, a) in sorted(by_day.items())},
            "line": _line("outstanding tickets", accounts.TICKETS_OUTSTANDING, amount, ledger_balance, count=len(out))}


# ---------------------------------------------------------------------------------------------- jackpots
@dataclass(frozen=True)
class LevelMeters:
    """A jackpot level's accumulators at the close (milli-won) and its decided, unpaid awards (won)."""

    code: str
    value_milli: int
    reserve_milli: int
    overflow_milli: int
    unpaid_awards: tuple[int, ...] = ()


def jackpot_liability(levels: Iterable[LevelMeters], balances: Mapping[str, int]) -> dict[str, Any]:
    """Per level and part (liability, reserve, overflow, payable) the whole won of the meter against the ledger
    account's normal balance (``balances``: code → won; an account missing from ``balances`` compares as
    None, reported). ``{"lines": [...], "total": {record, ledger, difference}}``."""
    lines = []
    for lv in sorted(levels, key=lambda x: x.code):
        for part, milli in (("liability", lv.value_milli), ("reserve", lv.reserve_milli),
                            ("overflow", lv.overflow_milli)):
            won, rem = milli_split(milli)
            code = _level_code(lv.code, part)
            lines.append(_line(f"jackpot {lv.code} {part}", code, won, balances.get(code), level=lv.code, part=part,
                               milli=milli, remainder_milli=rem))
        code = _level_code(lv.code, "payable")
        lines.append(_line(f"jackpot {lv.code} payable", code, sum(lv.unpaid_awards), balances.get(code),
                           level=lv.code, part="payable", awards=len(lv.unpaid_awards)))
    return {"lines": lines, "total": _total(lines)}


# ---------------------------------------------------------------------------------------------- wallets
@dataclass(frozen=True)
class WalletRecord:
    """One player's wallet at the close: ``wallet`` ``cashable`` | ``promo``, ``record`` (the balance the player's
    record shows, won) and ``ledger`` (Σ postings to the wallet's account up to the close, won)."""

    player_id: int
    wallet: str
    record: int
    ledger: int

    @property
    def account(self) -> str:
        if self.wallet == "cashable":
            return accounts.player_cashable(self.player_id)
        if self.wallet == "promo":
            return accounts.player_promo(self.player_id)
        raise ValueError("a wallet is cashable or promo")


def wallet_liability(wallets: Iterable[WalletRecord]) -> dict[str, Any]:
    """Per player and wallet, record against ledger, with totals per wallet kind:
    ``{"lines": [...], "by_wallet": {kind: {record, ledger, difference, players}}, "total": {...}}``."""
    lines = [_line(f"player {w.player_id} {w.wallet}", w.account, w.record, w.ledger, player=w.player_id,
                   wallet=w.wallet) for w in sorted(wallets, key=lambda w: (w.player_id, w.wallet))]
    by_wallet = {}
    for kind in ("cashable", "promo"):
        rows = [x for x in lines if x["wallet"] == kind]
        by_wallet[kind] = {**_total(rows), "players": len(rows)}
    return {"lines": lines, "by_wallet": by_wallet, "total": _total(lines)}


# ---------------------------------------------------------------------------------------------- points
@dataclass(frozen=True)
class PlayerPoints:
    """A player's points at the close: ``balance_milli`` (the player's record), ``journal_milli`` (Σ of the
    points journal to the close), ``held_milli`` (pending machine redemptions)."""

    player_id: int
    balance_milli: int
    journal_milli: int
    held_milli: int = 0


def points_liability(players: Iterable[PlayerPoints], *, promo_won_per_point: int,
                     cash_won_per_point: int) -> dict[str, Any]:
    """Points outstanding, reconciled to the points journal (milli-points), valued at the redemption rates.
    ``{"lines": [per player: record, journal, difference (milli-points)], "points": whole points,
    "balance_milli", "held_milli", "value_promo_won", "value_cash_won", "on_ledger": False,
    "all_agree": bool}``."""
    lines, total_milli, held = [], 0, 0
    for p in sorted(players, key=lambda p: p.player_id):
        lines.append({"player": p.player_id, "record_milli": p.balance_milli, "journal_milli": p.journal_milli,
                      "difference_milli": p.balance_milli - p.journal_milli, "held_milli": p.held_milli})
        total_milli += p.balance_milli
        held += p.held_milli
    whole = sum(p["record_milli"] // MILLI_PER_POINT for p in lines)  # the value of whole points per player
    return {"lines": lines, "balance_milli": total_milli, "held_milli": held, "points": whole,
            "value_promo_won": whole * promo_won_per_point, "value_cash_won": whole * cash_won_per_point,
            "on_ledger": False, "all_agree": all(x["difference_milli"] == 0 for x in lines)}


# ---------------------------------------------------------------------------------------------- report
def _total(lines: list[dict[str, Any]]) -> dict[str, Any]:
    rec = sum(x["record"] for x in lines)
    missing = [x["account"] for x in lines if x["ledger"] is None]
    led = sum(x["ledger"] for x in lines if x["ledger"] is not None)
    return {"record": rec, "ledger": led, "difference": rec - led, "missing_accounts": missing}


def liabilities_report(*, tickets: dict[str, Any], jackpots: dict[str, Any], wallets: dict[str, Any],
                       points: dict[str, Any]) -> dict[str, Any]:
    """The four sections with one reconciliation table (``lines``: every line of every section, in won) and
    ``all_agree`` / ``differences`` (the lines whose difference is not zero or whose account is missing)."""
    lines = [{"section": "tickets", **tickets["line"]}]
    lines += [{"section": "jackpots", **x} for x in jackpots["lines"]]
    lines += [{"section": "wallets", **x} for x in wallets["lines"]]
    bad = [x for x in lines if x["difference"] != 0]
    return {"tickets": tickets, "jackpots": jackpots, "wallets": wallets, "points": points,
            "lines": [{k: x.get(k) for k in ("section", "item", "account", "record", "ledger", "difference")}
                      for x in lines],
            "total": _total(lines), "differences": [x["item"] for x in bad],
            "all_agree": not bad and points["all_agree"],
            "milli_per_won": MILLI_PER_WON}
