"""The chart of accounts against a real floor: every account the seeded demo floor and a round of play create
maps to one GL account of the same type, and the whole journal summarises balanced."""

from __future__ import annotations

from sqlalchemy import select

from slotsys.accounting.domain import chart as C
from slotsys.kernel.adapters.db import Account, PostingRow


def test_every_account_of_a_played_floor_is_in_the_chart(api, app):
    asset = "M001"
    assert api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/bill-in", {"amount": 50_000}).status_code == 200
    assert api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/spin",
                          {"lines": 20, "multiplier": 3}).status_code == 200
    r = api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/cash-out")
    assert r.status_code == 201, r.json
    svc = app.extensions["slotsys"]
    with svc.uow() as uow:
        accounts = [(a.code, a.type) for a in uow.session.scalars(select(Account))]
        codes = dict(uow.session.execute(select(Account.id, Account.code)).all())
        postings = [(codes[p.account_id], p.amount) for p in uow.session.scalars(select(PostingRow))]
    assert len(accounts) > 20
    patterns = {C.pattern_for(code) for code, _ in accounts}  # raises UnmappedAccount for a code outside the chart
    assert {"machine:{asset}:credits", "tito:outstanding", "jackpot:{level}:liability", "house:capital"} <= patterns
    assert C.type_mismatches(accounts) == []
    summary = C.summarise(postings)
    assert summary.balanced and summary.row("4110").credits >= 6_000
