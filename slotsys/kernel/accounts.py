"""The one chart of account codes: every ledger account the product posts to is named here, and only here.

A code is ``<owner>:<id>:<purpose>`` (e.g. ``machine:M001:credits``). Each builder's docstring gives the account's
type (asset, liability, equity, revenue, expense; see :class:`slotsys.kernel.ledger.AccountType`) and whether it
may never go negative. Features import these builders; nobody formats an account code elsewhere.

Pure: standard library only.
"""

from __future__ import annotations

from slotsys.kernel.ledger import AccountType

# ------------------------------------------------------------------ machines
def machine_credits(asset: str) -> str:
    """Liability: credits on the machine's credit meter, owed to the player."""
    return f"machine:{asset}:credits"


def machine_drop(asset: str) -> str:
    """Asset: cash in the machine's bill stacker."""
    return f"machine:{asset}:drop"


def machine_hold(asset: str) -> str:
    """Revenue: the machine's game win (coin-in minus coin-out)."""
    return f"machine:{asset}:hold"


def aft_in_transit(asset: str) -> str:
    """Liability (non-negative): wallet money held for AFT transfers to the machine not yet settled (SAS 6.02 §8:
    requested, sent to the machine, its final status not known yet); credited to the machine's credits on success,
    back to the wallet on failure or expiry."""
    return f"machine:{asset}:aft_in_transit"


TICKETS_OUTSTANDING = "tito:outstanding"  # liability: unredeemed cash-out tickets
HOUSE_CAPITAL = "house:capital"  # equity: opening floats


def cage_bank(cage: str) -> str:
    """Asset: the cage's bank (vault, `cage:<cage>:drawer`), source and sink of drawer floats and the cash side of
    cage payouts."""
    return f"cage:{cage}:drawer"


def jackpot_liability(level: str) -> str:
    """Liability: the whole-won part of a jackpot level's meter."""
    return f"jackpot:{level}:liability"


def jackpot_contributions(level: str) -> str:
    """Expense: contributions of wagers to a level's meter."""
    return f"jackpot:{level}:contributions"


def jackpot_seed(level: str) -> str:
    """Expense: the reset (seed) value funded by the house at each cycle."""
    return f"jackpot:{level}:seed"


# Player wallets and loyalty (docs/architecture.md "Players").
def player_cashable(player_id: int) -> str:
    """Liability (non-negative): the player's cashable wallet, usable on machines and tables."""
    return f"player:{player_id}:cashable"


def player_promo(player_id: int) -> str:
    """Liability (non-negative): the player's promotional (non-cashable) wallet."""
    return f"player:{player_id}:promo"


def comp_expense(kind: str) -> str:
    """Expense: the value of points redeemed as ``promo`` credits or ``cash`` (recognised at redemption)."""
    if kind not in ("promo", "cash"):
        raise ValueError("a comp is promo or cash")
    return f"loyalty:comps:{kind}"


# Table games (table_games; docs/architecture.md "Table games").
def table_bets(code: str) -> str:
    """Liability (non-negative): stakes in play on a table's open round, owed back or lost at settlement."""
    return f"table:{code}:bets"


def table_hold(code: str) -> str:
    """Revenue: a table's win (losing stakes in, winnings paid out)."""
    return f"table:{code}:hold"


def table_chips(code: str) -> str:
    """Liability (non-negative): the value of the roulette colour chips players hold at a table."""
    return f"table:{code}:chips"


# Promotional credits on a machine (docs/promotional-credits.md; SAS credit types).
def machine_restricted(asset: str) -> str:
    """Liability (non-negative): restricted (non-cashable) promotional credits on the machine. The
    historical code ``machine:<asset>:promo`` is kept."""
    return f"machine:{asset}:promo"


def machine_nonrestricted(asset: str) -> str:
    """Liability (non-negative): non-restricted promotional credits on the machine (cashable by the
    player: a cash-out pays them on the cashable ticket)."""
    return f"machine:{asset}:nonrestricted"


# ------------------------------------------------------------------ jackpot levels
# Invariants (checked by ``GET /api/v1/audit/ledger``): ``jackpot:<L>:liability`` = floor(value_milli / 1000),
# ``:reserve`` = floor(reserve_milli / 1000), ``:overflow`` = floor(overflow_milli / 1000), ``:payable`` = the
# level's decided, unpaid hits. Expenses: ``:contributions``, ``:seed`` (house funding of starts, resets and
# second-hit top-ups), ``:adjustments`` (authorised corrections).
def jackpot_reserve(level: str) -> str:
    """Liability: the level's hidden (reserve) pool, whole won."""
    return f"jackpot:{level}:reserve"


def jackpot_overflow(level: str) -> str:
    """Liability: the level's overflow pool, whole won."""
    return f"jackpot:{level}:overflow"


def jackpot_payable(level: str) -> str:
    """Liability (non-negative): awards decided and not yet paid (credit, handpay, verification)."""
    return f"jackpot:{level}:payable"


def jackpot_adjustments(level: str) -> str:
    """Expense: authorised value corrections (debit raises the value, credit lowers it)."""
    return f"jackpot:{level}:adjustments"


def jackpot_level_accounts(level: str) -> list[tuple[str, AccountType, bool]]:
    """(code, type, non_negative) of every account of a level."""
    return [
        (jackpot_liability(level), AccountType.LIABILITY, False),
        (jackpot_reserve(level), AccountType.LIABILITY, False),
        (jackpot_overflow(level), AccountType.LIABILITY, False),
        (jackpot_payable(level), AccountType.LIABILITY, True),
        (jackpot_contributions(level), AccountType.EXPENSE, False),
        (jackpot_seed(level), AccountType.EXPENSE, False),
        (jackpot_adjustments(level), AccountType.EXPENSE, False),
    ]


# ------------------------------------------------------------------ TITO, the cage and kiosks
TICKETS_VOIDS = "tito:voids"  # revenue: liability written off by a supervisor's void of a live ticket
TICKETS_BREAKAGE = "tito:breakage"  # revenue: expired tickets a supervisor voided (unclaimed-ticket income)
PROMO_EXPENSE = "tito:promo_expense"  # expense: promotional tickets issued by a station
MAIN_CAGE = "MAIN"


def cashier_drawer(drawer: str, cage: str = MAIN_CAGE) -> str:
    """Asset (non-negative): one cashier drawer's cash."""
    return f"cage:{cage}:drawer:{drawer}"


def cage_variance(cage: str = MAIN_CAGE) -> str:
    """Revenue: drawer overages (credit) and shortages (debit) found at count-out."""
    return f"cage:{cage}:variance"


def kiosk_cassette(code: str) -> str:
    """Asset (non-negative): the cash in a kiosk's cassettes."""
    return f"kiosk:{code}:cassette"


# ------------------------------------------------------------------ players
def player_wallet(player_id: int, wallet: str) -> str:
    """The player's ``cashable`` or ``promo`` wallet (:func:`player_cashable`, :func:`player_promo`); ``ValueError``
    for another wallet name."""
    if wallet == "cashable":
        return player_cashable(player_id)
    if wallet == "promo":
        return player_promo(player_id)
    raise ValueError("wallet must be cashable or promo")


# ------------------------------------------------------------------ the poker room and mahjong
def poker_stack(code: str, player_id: int) -> str:
    """Liability (non-negative): a player's chips at a poker table."""
    return f"poker:{code}:stack:{player_id}"


def poker_rake(code: str) -> str:
    """Revenue: the rake a poker table takes."""
    return f"poker:{code}:rake"


def mahjong_stack(code: str, player_id: int) -> str:
    """Liability (non-negative): a seated player's stack at a mahjong table."""
    return f"mahjong:{code}:stack:{player_id}"


def mahjong_pot(code: str) -> str:
    """Liability (non-negative): riichi sticks carried on the table from drawn hands."""
    return f"mahjong:{code}:pot"


def mahjong_fees(code: str) -> str:
    """Revenue: the house fee on scored hands."""
    return f"mahjong:{code}:fees"
