"""The chart of accounts: every ledger account code the product posts to, mapped to a general-ledger (GL)
account, and the day's journal summarised per GL account. Pure.

The product's ledger (``slotsys.kernel.ledger``) keeps one account per machine, player, table, level …
(``machine:M001:credits``); the general ledger an accountant closes keeps one account per *kind*
(2100 "machine credit meters"). :data:`CHART` maps each account-code **pattern** to its GL account: number,
Korean and English name, type and normal balance. A pattern is the code with its variable segments in braces
(``machine:{asset}:credits``); a variable segment is one or more characters other than ``:``, so
``cage:{cage}:drawer`` and ``cage:{cage}:drawer:{drawer}`` are different accounts.

GL numbering: 1xxx assets, 2xxx liabilities, 3xxx equity, 4xxx revenue, 5xxx expenses (the usual order of a
Korean K-IFRS trial balance); within each, 100s group the floor (slots), TITO, jackpots, players, tables.

Sign convention (as the ledger): a posting's amount is debit-positive won. A GL row's ``debits`` and
``credits`` are both ≥ 0 (sums of the positive and of the negated negative postings); ``net`` = debits −
credits (debit-positive); ``normal_net`` = net × normal sign (+1 debit-normal: assets, expenses; −1
credit-normal: liabilities, equity, revenue), i.e. the movement as an accountant reads it.

Every code must match exactly one pattern: :func:`gl_for` raises :class:`UnmappedAccount` for a code that
matches none, so a new account kind cannot reach the day's journal summary without a GL account.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from slotsys.kernel.ledger import AccountType

__all__ = ["GLAccount", "CHART", "UnmappedAccount", "gl_for", "pattern_for", "account_movements", "normal_balances",
           "JournalRow", "JournalSummary", "summarise", "summarise_totals", "type_mismatches"]

A, L, E, R, X = AccountType.ASSET, AccountType.LIABILITY, AccountType.EQUITY, AccountType.REVENUE, AccountType.EXPENSE


class UnmappedAccount(KeyError):
    """An account code that matches no pattern of the chart (``code``)."""

    def __init__(self, code: str) -> None:
        super().__init__(f"account {code!r} matches no pattern of the chart of accounts")
        self.code = code


@dataclass(frozen=True)
class GLAccount:
    """One GL account: ``number``, ``pattern`` of the ledger codes it gathers, ``name_ko`` / ``name_en``,
    ``type``, ``source`` (the function that builds the code) and ``note`` (what moves it)."""

    number: str
    pattern: str
    name_ko: str
    name_en: str
    type: AccountType
    source: str
    note: str = ""

    @property
    def normal_sign(self) -> int:
        return self.type.normal_sign

    @property
    def normal_balance(self) -> str:
        return "debit" if self.normal_sign > 0 else "credit"

    @property
    def regex(self) -> re.Pattern[str]:
        return _compile(self.pattern)

    def to_dict(self) -> dict[str, Any]:
        return {"gl": self.number, "pattern": self.pattern, "name_ko": self.name_ko, "name_en": self.name_en,
                "type": self.type.value, "normal_balance": self.normal_balance, "source": self.source,
                "note": self.note}


def _compile(pattern: str) -> re.Pattern[str]:
    parts = re.split(r"(\{[a-z_]+\})", pattern)
    return re.compile("^" + "".join("[^:]+" if p.startswith("{") else re.escape(p) for p in parts if p) + "$")


CHART: tuple[GLAccount, ...] = (
    # ---- assets
    GLAccount("1110", "cage:{cage}:drawer", "케이지 금고", "Cage bank (vault)", A, "slotsys.kernel.accounts.cage_bank",
              "floats out to drawers and kiosks, handpays paid, house capital in"),
    GLAccount("1120", "cage:{cage}:drawer:{drawer}", "출납 창구 시재", "Cashier drawers", A,
              "slotsys.kernel.accounts.cashier_drawer", "opening float, tickets redeemed at the cage, count-out"),
    GLAccount("1130", "kiosk:{code}:cassette", "키오스크 현금함", "Kiosk cassettes", A,
              "slotsys.kernel.accounts.kiosk_cassette", "fills from the cage bank, tickets paid out"),
    GLAccount("1210", "machine:{asset}:drop", "슬롯머신 드롭 (빌 스태커)", "Slot drop (bill stackers)", A,
              "slotsys.kernel.accounts.machine_drop", "bills inserted; drops taken to the count room"),
    # ---- liabilities
    GLAccount("2110", "machine:{asset}:credits", "머신 크레딧 (현금성)", "Machine credit meters (cashable)", L,
              "slotsys.kernel.accounts.machine_credits", "bills and tickets in, wins, awards; stakes and cash-outs"),
    GLAccount("2120", "machine:{asset}:promo", "머신 프로모션 크레딧 (제한)", "Machine promotional credits (restricted)", L,
              "slotsys.kernel.accounts.machine_restricted", "promotional tickets and transfers in, promotional stakes"),
    GLAccount("2130", "machine:{asset}:nonrestricted", "머신 프로모션 크레딧 (비제한)",
              "Machine promotional credits (non-restricted)", L, "slotsys.kernel.accounts.machine_nonrestricted",
              "non-restricted promotional credits in, stakes and cash-outs"),
    GLAccount("2140", "machine:{asset}:aft_in_transit", "AFT 이체 중 (지갑 → 머신)", "AFT transfers in transit",
              L, "slotsys.kernel.accounts.aft_in_transit",
              "wallet money held for an AFT to the machine; settled to its credits, or back to the wallet"),
    GLAccount("2210", "tito:outstanding", "미상환 티켓", "Outstanding tickets (TITO)", L,
              "slotsys.kernel.accounts.TICKETS_OUTSTANDING", "tickets printed; redeemed, voided"),
    GLAccount("2310", "jackpot:{level}:liability", "잭팟 미터 (표시)", "Jackpot meters (visible value)", L,
              "slotsys.kernel.accounts.jackpot_liability", "contributions, seed; awards"),
    GLAccount("2320", "jackpot:{level}:reserve", "잭팟 적립금 (리셋 재원)", "Jackpot reserves (reset pools)", L,
              "slotsys.kernel.accounts.jackpot_reserve", "the hidden share of contributions; resets"),
    GLAccount("2330", "jackpot:{level}:overflow", "잭팟 초과 적립금", "Jackpot overflow pools", L,
              "slotsys.kernel.accounts.jackpot_overflow", "contributions past a level's ceiling"),
    GLAccount("2340", "jackpot:{level}:payable", "잭팟 미지급금", "Jackpot awards payable", L,
              "slotsys.kernel.accounts.jackpot_payable", "awards decided; paid to credits or by hand"),
    GLAccount("2410", "player:{player}:cashable", "플레이어 지갑 (현금성)", "Player wallets (cashable)", L,
              "slotsys.kernel.accounts.player_cashable", "deposits, transfers from machines and tables; withdrawals"),
    GLAccount("2420", "player:{player}:promo", "플레이어 지갑 (프로모션)", "Player wallets (promotional)", L,
              "slotsys.kernel.accounts.player_promo", "promotional credits granted; transferred to machines"),
    GLAccount("2510", "table:{code}:bets", "테이블 진행 중 베팅", "Table bets in play", L,
              "slotsys.kernel.accounts.table_bets", "stakes of an open round; settled"),
    GLAccount("2520", "table:{code}:chips", "룰렛 컬러 칩", "Roulette colour chips", L,
              "slotsys.kernel.accounts.table_chips", "chips bought in; cashed back"),
    GLAccount("2530", "poker:{code}:stack:{player}", "포커 테이블 칩 스택", "Poker table stacks", L,
              "slotsys.kernel.accounts.poker_stack", "buy-ins, pots won; cash-outs"),
    GLAccount("2540", "mahjong:{code}:stack:{player}", "마작 테이블 점수봉 스택", "Mahjong table stacks", L,
              "slotsys.kernel.accounts.mahjong_stack", "buy-ins, hands scored; cash-outs"),
    GLAccount("2550", "mahjong:{code}:pot", "마작 리치봉 이월", "Mahjong riichi pots", L,
              "slotsys.kernel.accounts.mahjong_pot", "riichi sticks of drawn hands; taken by the next winner"),
    # ---- equity
    GLAccount("3110", "house:capital", "자본금 (개시 시재)", "House capital (opening floats)", E,
              "slotsys.kernel.accounts.HOUSE_CAPITAL", "the opening float of the cage"),
    # ---- revenue
    GLAccount("4110", "machine:{asset}:hold", "슬롯 게임 수익 (홀드)", "Slot win (hold)", R,
              "slotsys.kernel.accounts.machine_hold", "stakes (credit); wins (debit)"),
    GLAccount("4210", "table:{code}:hold", "테이블 게임 수익", "Table game win", R,
              "slotsys.kernel.accounts.table_hold", "losing stakes (credit); winnings paid (debit)"),
    GLAccount("4220", "poker:{code}:rake", "포커 레이크", "Poker rake", R,
              "slotsys.kernel.accounts.poker_rake", "the rake of each pot"),
    GLAccount("4230", "mahjong:{code}:fees", "마작 수수료", "Mahjong fees", R,
              "slotsys.kernel.accounts.mahjong_fees", "the house fee on scored hands"),
    GLAccount("4310", "tito:voids", "티켓 무효 처리 수익", "Voided tickets", R,
              "slotsys.kernel.accounts.TICKETS_VOIDS", "live tickets a supervisor voided"),
    GLAccount("4320", "tito:breakage", "만료 티켓 수익 (브레이크지)", "Ticket breakage (expired)", R,
              "slotsys.kernel.accounts.TICKETS_BREAKAGE", "expired tickets a supervisor voided"),
    GLAccount("4410", "cage:{cage}:variance", "케이지 과부족", "Cage overages and shortages", R,
              "slotsys.kernel.accounts.cage_variance", "overages (credit) and shortages (debit) at count-out"),
    # ---- expenses
    GLAccount("5110", "jackpot:{level}:contributions", "잭팟 적립 비용", "Jackpot contributions", X,
              "slotsys.kernel.accounts.jackpot_contributions", "the wagers' contributions to the meters"),
    GLAccount("5120", "jackpot:{level}:seed", "잭팟 시드 비용", "Jackpot seed (house funding)", X,
              "slotsys.kernel.accounts.jackpot_seed", "start and reset values funded by the house"),
    GLAccount("5130", "jackpot:{level}:adjustments", "잭팟 조정", "Jackpot adjustments", X,
              "slotsys.kernel.accounts.jackpot_adjustments", "authorised corrections of a meter"),
    GLAccount("5210", "loyalty:comps:promo", "포인트 교환 (프로모션 크레딧)", "Comps: points as promotional credits", X,
              "slotsys.kernel.accounts.comp_expense", "points redeemed as promotional credits"),
    GLAccount("5220", "loyalty:comps:cash", "포인트 교환 (현금성)", "Comps: points as cash", X,
              "slotsys.kernel.accounts.comp_expense", "points redeemed as cashable credits"),
    GLAccount("5310", "tito:promo_expense", "프로모션 티켓 비용", "Promotional tickets issued", X,
              "slotsys.kernel.accounts.PROMO_EXPENSE", "promotional tickets a station printed"),
)

_BY_NUMBER = {g.number: g for g in CHART}
_COMPILED = [(g, g.regex) for g in CHART]
_cache: dict[str, GLAccount] = {}


def _check_chart() -> None:
    numbers = [g.number for g in CHART]
    if len(set(numbers)) != len(numbers):
        raise AssertionError("GL numbers of the chart must be unique")
    patterns = [g.pattern for g in CHART]
    if len(set(patterns)) != len(patterns):
        raise AssertionError("patterns of the chart must be unique")


_check_chart()


def gl_for(code: str) -> GLAccount:
    """The GL account of ledger account ``code``. Raises :class:`UnmappedAccount` when no pattern matches and
    ``AssertionError`` if two do (the chart would be ambiguous)."""
    hit = _cache.get(code)
    if hit is not None:
        return hit
    found = [g for g, rx in _COMPILED if rx.match(code)]
    if not found:
        raise UnmappedAccount(code)
    if len(found) > 1:
        raise AssertionError(f"account {code!r} matches several patterns: {[g.pattern for g in found]}")
    _cache[code] = found[0]
    return found[0]


def pattern_for(code: str) -> str:
    return gl_for(code).pattern


def account_movements(postings: Iterable[tuple[str, int]]) -> dict[str, tuple[int, int]]:
    """``(account code, debit-positive amount)`` postings → ``{code: (debits, credits)}``, both ≥ 0 won."""
    out: dict[str, list[int]] = {}
    for code, amount in postings:
        if isinstance(amount, bool) or not isinstance(amount, int):
            raise ValueError(f"posting to {code}: amount must be integer won")
        m = out.setdefault(code, [0, 0])
        if amount >= 0:
            m[0] += amount
        else:
            m[1] -= amount
    return {c: (d, cr) for c, (d, cr) in out.items()}


def normal_balances(postings: Iterable[tuple[str, int]]) -> dict[str, int]:
    """Each account's balance from its postings (e.g. every posting up to a day's close), as an accountant
    reads it: Σ amount × the normal sign of its GL account. Raises :class:`UnmappedAccount`."""
    out: dict[str, int] = {}
    for code, amount in postings:
        out[code] = out.get(code, 0) + amount
    return {c: v * gl_for(c).normal_sign for c, v in out.items()}


@dataclass(frozen=True)
class JournalRow:
    """One GL account's movement: ``debits``, ``credits`` (≥ 0), ``net`` (debit-positive), ``normal_net``
    (net × normal sign), ``accounts`` (ledger accounts posted to) and ``postings`` (count)."""

    gl: GLAccount
    debits: int
    credits: int
    accounts: int
    postings: int

    @property
    def net(self) -> int:
        return self.debits - self.credits

    @property
    def normal_net(self) -> int:
        return self.net * self.gl.normal_sign

    def to_dict(self) -> dict[str, Any]:
        return {"gl": self.gl.number, "name_ko": self.gl.name_ko, "name_en": self.gl.name_en,
                "type": self.gl.type.value, "normal_balance": self.gl.normal_balance, "debits": self.debits,
                "credits": self.credits, "net": self.net, "normal_net": self.normal_net,
                "accounts": self.accounts, "postings": self.postings}


@dataclass(frozen=True)
class JournalSummary:
    """The journal of a period per GL account (``rows`` in GL order) with ``debits`` = ``credits`` totals
    (a balanced journal) and ``entries`` (journal entries summarised, when the caller gave them)."""

    rows: tuple[JournalRow, ...]
    debits: int
    credits: int
    entries: int | None = None

    @property
    def balanced(self) -> bool:
        return self.debits == self.credits

    def row(self, number: str) -> JournalRow:
        for r in self.rows:
            if r.gl.number == number:
                return r
        raise KeyError(number)

    def to_dict(self) -> dict[str, Any]:
        return {"rows": [r.to_dict() for r in self.rows],
                "total": {"debits": self.debits, "credits": self.credits, "net": self.debits - self.credits},
                "balanced": self.balanced, "entries": self.entries}


def summarise(postings: Iterable[tuple[str, int]], *, entries: int | None = None) -> JournalSummary:
    """The period's postings (``(account code, debit-positive won)``) per GL account. Raises
    :class:`UnmappedAccount` for a code the chart does not cover and ``ValueError`` for a non-integer amount.
    The totals are the sums of the rows; ``balanced`` is False when the postings do not sum to zero (a
    journal that lost a leg: reported, not corrected)."""
    acc: dict[str, list[int]] = {}
    codes: dict[str, set[str]] = {}
    for code, amount in postings:
        if isinstance(amount, bool) or not isinstance(amount, int):
            raise ValueError(f"posting to {code}: amount must be integer won")
        g = gl_for(code)
        a = acc.setdefault(g.number, [0, 0, 0])
        if amount >= 0:
            a[0] += amount
        else:
            a[1] -= amount
        a[2] += 1
        codes.setdefault(g.number, set()).add(code)
    rows = tuple(JournalRow(_BY_NUMBER[n], d, c, len(codes[n]), k) for n, (d, c, k) in sorted(acc.items()))
    return JournalSummary(rows, sum(r.debits for r in rows), sum(r.credits for r in rows), entries)


def summarise_totals(movements: Iterable[tuple[str, int, int, int]], *, entries: int | None = None) -> JournalSummary:
    """:func:`summarise` from postings already summed per ledger account: ``(code, debits, credits, postings)``
    with debits and credits ≥ 0 won (what a database returns for a day's journal grouped by account). Raises
    :class:`UnmappedAccount` and ``ValueError`` (a negative or non-integer sum) as :func:`summarise`."""
    acc: dict[str, list[int]] = {}
    codes: dict[str, set[str]] = {}
    for code, debits, credits, n in movements:
        for v in (debits, credits, n):
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise ValueError(f"account {code}: sums must be integers ≥ 0")
        g = gl_for(code)
        a = acc.setdefault(g.number, [0, 0, 0])
        a[0] += debits
        a[1] += credits
        a[2] += n
        codes.setdefault(g.number, set()).add(code)
    rows = tuple(JournalRow(_BY_NUMBER[n], d, c, len(codes[n]), k) for n, (d, c, k) in sorted(acc.items()))
    return JournalSummary(rows, sum(r.debits for r in rows), sum(r.credits for r in rows), entries)


def type_mismatches(accounts: Iterable[tuple[str, str]]) -> list[dict[str, str]]:
    """Ledger accounts (``(code, type)`` as the accounts table keeps them) whose type differs from their GL
    account's: ``[{"code", "ledger_type", "gl", "gl_type"}]``. Raises :class:`UnmappedAccount` as
    :func:`gl_for`."""
    out = []
    for code, typ in accounts:
        g = gl_for(code)
        if g.type.value != typ:
            out.append({"code": code, "ledger_type": typ, "gl": g.number, "gl_type": g.type.value})
    return out


def chart_table() -> list[dict[str, Any]]:
    """The chart as rows (docs and the export's chart sheet)."""
    return [g.to_dict() for g in CHART]


def by_pattern() -> Mapping[str, GLAccount]:
    return {g.pattern: g for g in CHART}
