"""The pure promotional-ticket issue rule (tito/domain/promo.py, docs/promotional-credits.md):
cumulative dual control per issuer, the floor cap, non-restricted tickets, the maximum."""

from __future__ import annotations

import pytest

from tito.domain.promo import DUAL_CONTROL, ISSUE, PromoPolicy, promo_issue_decision
from slotsys.kernel.credits import NONRESTRICTED, RESTRICTED

POLICY = PromoPolicy(maximum=5_000_000, issuer_dual_control_above=1_000_000, floor_cap=20_000_000,
                     nonrestricted_dual_control_above=0)


def decide(amount, credit_type=RESTRICTED, issuer=0, floor=0, policy=POLICY):
    return promo_issue_decision(amount, credit_type, issuer_total=issuer, floor_total=floor, policy=policy)


def test_a_small_restricted_ticket_from_a_fresh_issuer_prints_at_once():
    assert decide(50_000) == decide(1_000_000) == decide(400_000, issuer=600_000)
    assert decide(50_000).outcome == ISSUE and decide(50_000).reasons == ()


def test_the_cumulative_total_not_the_single_ticket_crosses_the_threshold():
    # six ₩1,000,000 tickets: the first is at the threshold (not above), the second is not
    assert decide(1_000_000, issuer=0).outcome == ISSUE
    assert decide(1_000_000, issuer=1_000_000).reasons == ("issuer_cumulative",)
    # splitting does not help: ₩1 more than the threshold over any number of tickets
    assert decide(1, issuer=1_000_000).reasons == ("issuer_cumulative",)
    assert decide(1, issuer=999_999).outcome == ISSUE


def test_every_non_restricted_ticket_needs_dual_control_by_default():
    for amount in (1, 10_000, 1_000_000):
        assert decide(amount, NONRESTRICTED).reasons == ("nonrestricted",)
    lower = PromoPolicy(5_000_000, 1_000_000, 20_000_000, nonrestricted_dual_control_above=100_000)
    assert decide(100_000, NONRESTRICTED, policy=lower).outcome == ISSUE
    assert decide(100_001, NONRESTRICTED, policy=lower).reasons == ("nonrestricted",)
    assert decide(10, NONRESTRICTED, policy=PromoPolicy(nonrestricted_dual_control_above=None)).outcome == ISSUE


def test_above_the_floor_cap_every_issue_needs_dual_control_whoever_asks():
    assert decide(10_000, issuer=0, floor=19_990_000).outcome == ISSUE
    assert decide(10_001, issuer=0, floor=19_990_000).reasons == ("floor_cap",)
    assert decide(2_000_000, NONRESTRICTED, issuer=0, floor=20_000_000).reasons == (
        "nonrestricted", "issuer_cumulative", "floor_cap")


def test_zero_switches_the_cumulative_limits_off_and_the_maximum_still_refuses():
    off = PromoPolicy(maximum=0, issuer_dual_control_above=0, floor_cap=0, nonrestricted_dual_control_above=None)
    assert decide(10**12, issuer=10**12, floor=10**12, policy=off).outcome == ISSUE
    with pytest.raises(ValueError, match="maximum"):
        decide(5_000_001)
    assert decide(5_000_000).outcome == DUAL_CONTROL


@pytest.mark.parametrize("bad", [dict(amount=-1), dict(issuer=-1), dict(floor=-1), dict(credit_type="cashable")])
def test_negative_amounts_and_unknown_credit_types_are_refused(bad):
    with pytest.raises(ValueError):
        decide(**{"amount": 1, **bad})
