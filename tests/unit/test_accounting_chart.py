"""The chart of accounts (slotsys.accounting.domain.chart) covers every account code the product posts to.

Three checks: every chart entry's ``source`` builds codes its pattern matches; a scan of the source of every
package finds each string or f-string shaped like an account code and requires a chart pattern for it (or a
listed reason why it is no account); the journal summary refuses a code the chart does not cover.
"""

from __future__ import annotations

import ast
import functools
import importlib
import pathlib
import re

import pytest

from slotsys.accounting.domain import chart as C
from slotsys.kernel import accounts
from slotsys.kernel import ledger as L
from slotsys.kernel.ledger import AccountType

ROOT = pathlib.Path(__file__).resolve().parents[2]
PACKAGES = ("slotsys", "tito", "jackpot_controller", "table_games")
CODE_SHAPE = re.compile(r"^[a-z][a-z_]*(:(\{\}|[A-Za-z0-9_]+))+$")

# Colon-separated strings of the code base that are not ledger accounts, by first segment (or whole template).
NOT_ACCOUNTS = {
    "bank:{}": "audit-log subject", "zone:{}": "audit-log subject", "machine:{}": "audit-log subject / principal",
    "game:{}": "audit-log subject", "handpay:{}": "audit-log subject", "aft:{}": "audit-log subject", "user:{}": "revoked-token announcement",
    "token:{}": "revoked-token announcement", "staff:{}": "actor of a ticket event", "station:{}": "TITO counter",
    "system": "actor of a system job", "slotsys": "Redis channel or key", "tab": "matplotlib colour",
    # roulette / sic bo / blackjack bet and action keys of table_games.domain
    "column": "bet key", "dozen": "bet key", "double": "bet key", "final": "bet key", "neighbours": "bet key",
    "single": "bet key", "six_line": "bet key", "split": "bet key", "straight": "bet key", "street": "bet key",
    "total": "bet key", "triple": "bet key",
    # the SAS emulator's action log and the in-memory floor's AFT status (slotsys.sas)
    "cash_out:{}": "emulator action", "failed:0x": "AFT status",
    # the SAS floor adapter's exactly-once keys and fingerprints (slotsys.sas.adapters.floor_services)
    "sas:{}": "exactly-once key", "bill:{}:{}:{}": "exactly-once fingerprint",
    "game:{}:{}:{}:{}:{}": "exactly-once fingerprint", "reject:{}": "exactly-once fingerprint",
}
# Templates whose variable segment takes a closed set of values (the builder refuses any other).
CLOSED_VALUES = {"loyalty:comps:{}": ("promo", "cash")}


@functools.lru_cache(maxsize=1)
def _source_templates() -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for pkg in PACKAGES:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            rel = path.relative_to(ROOT)
            if rel.parts[:2] == ("slotsys", "accounting") or "migrations" in rel.parts:
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.JoinedStr):
                    text = "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)
                elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                    text = node.value
                else:
                    continue
                if CODE_SHAPE.match(text):
                    found.setdefault(text, []).append(f"{rel}:{node.lineno}")
    return found


def _samples(template: str) -> list[str]:
    """Codes the template can build: each closed value, else its variables filled with V1, V2 …"""
    if template in CLOSED_VALUES:
        return [template.replace("{}", v) for v in CLOSED_VALUES[template]]
    n = iter(range(1, 100))
    return [re.sub(r"\{\}", lambda _: f"V{next(n)}", template)]


def test_the_source_scan_finds_the_known_builders():
    found = _source_templates()
    for template in ("machine:{}:credits", "tito:outstanding", "jackpot:{}:payable", "poker:{}:stack:{}",
                     "cage:{}:drawer:{}", "kiosk:{}:cassette", "loyalty:comps:{}"):
        assert template in found, template


def test_every_account_code_shaped_string_in_the_code_base_maps_to_one_gl_account():
    unmapped = []
    for template, where in sorted(_source_templates().items()):
        if template in NOT_ACCOUNTS or template.split(":")[0] in NOT_ACCOUNTS:
            continue
        for code in _samples(template):
            try:
                C.gl_for(code)
            except C.UnmappedAccount:
                unmapped.append(f"{template} ({', '.join(where[:2])})")
    assert not unmapped, "account codes without a GL account (add them to CHART or NOT_ACCOUNTS): " + "; ".join(unmapped)


def test_every_chart_entry_is_built_by_its_source_and_every_pattern_is_used():
    used = {t for t in _source_templates()}
    for g in C.CHART:
        module, _, name = g.source.rpartition(".")
        obj = getattr(importlib.import_module(module), name)
        if callable(obj):
            if name == "comp_expense":
                code = obj(g.pattern.rsplit(":", 1)[1])
            else:
                argc = obj.__code__.co_argcount
                code = obj(*[f"S{i}" for i in range(argc)])
        else:
            code = obj
        assert C.gl_for(code) is g, (g.pattern, code)
        template = re.sub(r"\{[a-z_]+\}", "{}", g.pattern)
        assert template in used or g.pattern in {f"loyalty:comps:{v}" for v in CLOSED_VALUES["loyalty:comps:{}"]}, \
            f"{g.pattern} is in the chart but no code builds it"


def test_closed_value_builders_refuse_other_values():
    with pytest.raises(ValueError):
        accounts.comp_expense("points")


def test_chart_types_follow_the_ledger_and_numbering():
    prefix = {AccountType.ASSET: "1", AccountType.LIABILITY: "2", AccountType.EQUITY: "3", AccountType.REVENUE: "4",
              AccountType.EXPENSE: "5"}
    for g in C.CHART:
        assert g.number.startswith(prefix[g.type]), g
        assert g.name_ko and g.name_en
        assert g.normal_balance == ("debit" if g.type in (AccountType.ASSET, AccountType.EXPENSE) else "credit")
    # the types the services give the accounts they create (ensure_account)
    from slotsys.kernel import accounts as JA
    created = [(c, t.value) for c, t, _ in JA.jackpot_level_accounts("GRAND")]
    created += [(accounts.machine_credits("M1"), "liability"), (accounts.machine_drop("M1"), "asset"), (accounts.machine_hold("M1"), "revenue"),
                ("cage:MAIN:variance", "revenue"), ("tito:voids", "revenue"), ("tito:promo_expense", "expense"),
                (accounts.HOUSE_CAPITAL, "equity"), (accounts.comp_expense("cash"), "expense"), ("mahjong:T1:fees", "revenue")]
    assert C.type_mismatches(created) == []
    assert C.type_mismatches([("tito:voids", "liability")]) == [
        {"code": "tito:voids", "ledger_type": "liability", "gl": "4310", "gl_type": "revenue"}]


def test_variable_segments_do_not_cross_colons():
    assert C.gl_for("cage:MAIN:drawer").number == "1110"
    assert C.gl_for("cage:MAIN:drawer:D1").number == "1120"
    assert C.gl_for("poker:P1:stack:17").number == "2530"
    for code in ("cage:MAIN:drawer:D1:x", "machine:M1", "machine:M1:credits:x", "machine::credits", "ticket:outstanding"):
        with pytest.raises(C.UnmappedAccount):
            C.gl_for(code)


def test_journal_summary_per_gl_account():
    e1 = L.EntryBuilder("machine.spin").add(debit=accounts.machine_credits("M1"), credit=accounts.machine_hold("M1"), amount=5_000) \
        .add(debit=accounts.machine_hold("M1"), credit=accounts.machine_credits("M1"), amount=2_000).build()
    e2 = L.EntryBuilder("machine.bill_in").add(debit=accounts.machine_drop("M2"), credit=accounts.machine_credits("M2"),
                                               amount=50_000).build()
    e3 = L.EntryBuilder("machine.spin").add(debit=accounts.machine_credits("M2"), credit=accounts.machine_hold("M2"), amount=1_000).build()
    postings = [(p.account, p.amount) for e in (e1, e2, e3) for p in e.postings]
    s = C.summarise(postings, entries=3)
    assert [r.gl.number for r in s.rows] == ["1210", "2110", "4110"]
    hold = s.row("4110")
    assert (hold.debits, hold.credits, hold.net, hold.normal_net, hold.accounts, hold.postings) == \
        (2_000, 6_000, -4_000, 4_000, 2, 3)
    credits = s.row("2110")
    assert (credits.debits, credits.credits, credits.normal_net) == (6_000, 52_000, 46_000)
    assert s.row("1210").normal_net == 50_000
    assert s.balanced and s.debits == s.credits == 58_000
    assert s.to_dict()["total"] == {"debits": 58_000, "credits": 58_000, "net": 0}
    assert C.account_movements(postings)[accounts.machine_hold("M1")] == (2_000, 5_000)


def test_a_posting_to_an_unmapped_account_fails_the_summary():
    with pytest.raises(C.UnmappedAccount) as e:
        C.summarise([(accounts.machine_hold("M1"), -100), ("lottery:L1:pool", 100)])
    assert e.value.code == "lottery:L1:pool"


def test_an_unbalanced_journal_is_reported_not_corrected():
    s = C.summarise([(accounts.machine_hold("M1"), -100), (accounts.machine_credits("M1"), 90)])
    assert not s.balanced and (s.debits, s.credits) == (90, 100)


def test_the_docs_table_lists_every_gl_account():
    text = (ROOT / "docs" / "accounting.md").read_text(encoding="utf-8")
    for g in C.CHART:
        assert f"| {g.number} | `{g.pattern}` | {g.name_ko} | {g.name_en} | {g.type.value} | {g.normal_balance} |" in text, g
