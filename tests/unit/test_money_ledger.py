import pytest

from slotsys.kernel import accounts
from slotsys.kernel import ledger as L
from slotsys.kernel.money import (
    MoneyError,
    commission_ceil,
    contribution_milli,
    milli_split,
    payout_floor,
    require_won,
)


def test_rounding_rules():
    assert milli_split(30_123_456) == (30_123, 456)
    assert contribution_milli(6_000, 10_000) == 60_000  # ₩6,000 at 1% = ₩60
    assert contribution_milli(3_500, 4_500) == 15_750  # 0.45% of ₩3,500 = ₩15.75
    assert contribution_milli(1, 1) == 0  # sub-milli part is not accrued (rounded down)
    assert payout_floor(1_500, 3, 2) == 2_250 and payout_floor(1_001, 3, 2) == 1_501  # 3:2 rounds down
    assert payout_floor(5_001, 1, 2) == 2_500  # no-commission banker six pays half, down
    assert commission_ceil(15_700, 50_000, 100) == 800  # 5% of ₩15,700 = ₩785 → ₩800
    assert commission_ceil(20_000, 50_000, 100) == 1_000  # exact stays exact


@pytest.mark.parametrize("bad", [0, -5, 1.5, True, "100", None])
def test_require_won_refuses_non_positive_and_non_integers(bad):
    with pytest.raises(MoneyError):
        require_won(bad)


def test_entry_must_balance_and_be_integer():
    with pytest.raises(L.UnbalancedEntry):
        L.JournalEntry("x", (L.Posting("a", 5), L.Posting("b", -4)))
    with pytest.raises(L.UnbalancedEntry):
        L.JournalEntry("x", ())
    with pytest.raises(L.UnbalancedEntry):
        L.JournalEntry("x", (L.Posting("a", 0), L.Posting("b", 0)))
    with pytest.raises(L.UnbalancedEntry):
        L.EntryBuilder("x").add(debit="a", credit="b", amount=-1)
    with pytest.raises(L.UnbalancedEntry):
        L.EntryBuilder("x").add(debit="a", credit="b", amount=1.0)


def test_spin_entry_nets_per_account():
    e = (
        L.EntryBuilder("machine.spin")
        .add(debit=accounts.machine_credits("M1"), credit=accounts.machine_hold("M1"), amount=6_000)
        .add(debit=accounts.machine_hold("M1"), credit=accounts.machine_credits("M1"), amount=2_000)
        .add(debit=accounts.machine_hold("M1"), credit=accounts.machine_credits("M1"), amount=0)
        .build()
    )
    assert sum(p.amount for p in e.postings) == 0
    assert len(e.postings) == 4  # the zero leg is skipped
    assert e.net_by_account() == {accounts.machine_credits("M1"): 4_000, accounts.machine_hold("M1"): -4_000}
    # credits are a liability: 4,000 debit-positive = 4,000 fewer credits owed to the player
    assert L.normal_balance(-10_000 + 4_000, L.AccountType.LIABILITY) == 6_000
    assert L.violates_non_negative(1, L.AccountType.LIABILITY)

