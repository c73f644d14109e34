"""Promotional credits on the real PostgreSQL (write-behind spin path, row locks): promotional
tickets inserted (two-phase), played concurrently on several machines, cashed out, with the ledger
audit balanced and every won accounted for; two concurrent approvals of one dual-control request
print one ticket (docs/promotional-credits.md)."""

from __future__ import annotations

import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest

from slotsys.kernel import accounts
from slotsys.kernel.errors import NotFound

pytestmark = pytest.mark.integration

MACHINES = ("M003", "M005", "M007", "M009")
PROMO = "/api/v1/tickets/promotional"


def _post(client, token, path, body=None):
    return client.post(path, json=body, headers={"Authorization": f"Bearer {token}", "Idempotency-Key": uuid.uuid4().hex})


def _balance(app, code) -> int:
    with app.extensions["slotsys"].ctx.uow(readonly=True) as uow:
        try:
            return uow.ledger.balance(code)
        except NotFound:
            return 0


def _promo(api, amount, credit_type):
    r = api.as_staff("supervisor", "POST", PROMO, {"amount": amount, "credit_type": credit_type})
    if r.status_code == 202:  # non-restricted: dual control, a second supervisor approves
        r = api.as_staff("admin", "POST", f"{PROMO}/requests/{r.json['request']['id']}/approve")
    assert r.status_code == 201, r.json
    return r.json["ticket"]["validation_number"]


def test_promo_tickets_inserted_played_concurrently_and_cashed_out_balance_the_books(pg_app, pg_api):
    api = pg_api
    expense0, outstanding0 = _balance(pg_app, "tito:promo_expense"), _balance(pg_app, accounts.TICKETS_OUTSTANDING)
    hold0 = {a: _balance(pg_app, accounts.machine_hold(a)) for a in MACHINES}
    for asset in MACHINES:  # two-phase ticket-in of a restricted and a non-restricted promotional ticket
        for amount, kind in ((30_000, "restricted"), (20_000, "nonrestricted")):
            vn = _promo(api, amount, kind)
            auth = api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/ticket-in/authorize", {"validation_number": vn})
            assert auth.status_code == 200, auth.json
            assert auth.json["credit_meter"] == ("promotional" if kind == "restricted" else "nonrestricted")
            done = api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/ticket-in/commit",
                                  {"validation_number": vn, "transaction_id": auth.json["transaction_id"]})
            assert done.status_code == 200, done.json
    assert _balance(pg_app, "tito:promo_expense") - expense0 == 200_000

    def play(asset: str) -> dict:
        c, key = pg_app.test_client(), api.key(asset)
        acc = {"bets": 0, "wins": 0, "restricted": 0, "nonrestricted": 0, "cashable": 0}
        for _ in range(30):
            r = _post(c, key, f"/api/v1/machines/{asset}/spin", {"lines": 20, "multiplier": 1})
            if r.status_code == 409 and r.json["type"].endswith("insufficient-funds"):
                break
            assert r.status_code == 200, r.json
            g = r.json
            assert sum(g["stake"].values()) == g["bet"]["won"]
            assert g["stake"]["cashable"] == 0 or g["promo_credits"] == 0  # promotional credits go first
            acc["bets"] += g["bet"]["won"]
            acc["wins"] += g["total_win"]
            for k in ("restricted", "nonrestricted", "cashable"):
                acc[k] += g["stake"][k]
        return acc

    with ThreadPoolExecutor(max_workers=len(MACHINES)) as pool:
        played = dict(zip(MACHINES, pool.map(play, MACHINES)))

    tickets_out = 0
    for asset in MACHINES:
        p = played[asset]
        m = api.as_machine(asset, "GET", f"/api/v1/machines/{asset}/meters", key=None).json
        assert m["meters"]["restricted_coin_in"] == p["restricted"]
        assert m["meters"]["nonrestricted_coin_in"] == p["nonrestricted"]
        assert m["meters"]["cashable_coin_in"] == p["cashable"]
        restricted_left = 30_000 - p["restricted"]
        assert m["restricted_credits"] == restricted_left
        # the game kept the stakes less the wins (a mystery award, if any, comes from its level's payable)
        assert _balance(pg_app, accounts.machine_hold(asset)) - hold0[asset] == p["bets"] - p["wins"]
        if m["credits"] + m["promo_credits"] == 0:
            continue
        out = api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/cash-out")
        assert out.status_code == 201, out.json
        by_type = {t["type"]: t["amount"] for t in out.json["tickets"]}
        assert by_type.get("promotional", 0) == restricted_left
        assert by_type.get("cashable", 0) == m["credits"] + m["nonrestricted_credits"]
        tickets_out += sum(by_type.values())
        for code in (accounts.machine_credits(asset), accounts.machine_restricted(asset), accounts.machine_nonrestricted(asset)):
            assert _balance(pg_app, code) == 0

    # nothing created or lost: the promotion (expense) = what the games kept + what is on tickets,
    # less the mystery awards the sequencer paid onto these machines meanwhile
    kept = sum(_balance(pg_app, accounts.machine_hold(a)) - hold0[a] for a in MACHINES)
    outstanding = _balance(pg_app, accounts.TICKETS_OUTSTANDING) - outstanding0
    assert outstanding == tickets_out
    jackpots = sum(api.as_machine(a, "GET", f"/api/v1/machines/{a}/meters", key=None).json["meters"]["jackpot_out"]
                   for a in MACHINES)
    assert kept + outstanding == 200_000 + jackpots
    audit = api.audit()
    assert audit["balanced"] is True and audit["tickets"]["agrees"], audit


def test_two_concurrent_approvals_of_one_request_print_one_ticket(pg_app, pg_api):
    api = pg_api
    r = api.as_staff("supervisor", "POST", PROMO, {"amount": 3_000_000})
    assert r.status_code == 202, r.json
    rid = r.json["request"]["id"]
    admin = api.staff_token("admin")

    def approve(_):
        return _post(pg_app.test_client(), admin, f"{PROMO}/requests/{rid}/approve")

    with ThreadPoolExecutor(max_workers=6) as pool:
        results = list(pool.map(approve, range(6)))
    codes = sorted(r.status_code for r in results)
    assert codes == [201] + [409] * 5, [r.json for r in results]
    assert all(r.json["type"].endswith("promo-request-not-pending") for r in results if r.status_code == 409)
    assert _balance(pg_app, "tito:promo_expense") == 3_000_000
    assert api.audit()["balanced"] is True


def test_concurrent_issues_by_one_supervisor_cannot_race_past_the_cumulative_threshold(pg_app, pg_api):
    """24 concurrent ₩100,000 restricted tickets by one supervisor, threshold ₩1,000,000: the issues
    serialise on the promotional advisory lock, so exactly ten print (₩1,000,000) and the other 14 wait
    for a second supervisor; without the lock several would read the same total and print past it."""
    api = pg_api
    assert pg_app.extensions["slotsys"].tito.settings.promo_dual_control_won == 1_000_000
    token = api.staff_token("supervisor")

    def issue(_):
        return _post(pg_app.test_client(), token, PROMO, {"amount": 100_000, "credit_type": "restricted"})

    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(issue, range(24)))
    codes = sorted(r.status_code for r in results)
    assert codes == [201] * 10 + [202] * 14, [r.json for r in results]
    assert _balance(pg_app, "tito:promo_expense") == 1_000_000
    assert sorted(r.json["issuer_total"] for r in results if r.status_code == 202) == [
        1_000_000 + 100_000 * i for i in range(14)]  # each saw every earlier one, printed or pending
    pending = api.as_staff("auditor", "GET", f"{PROMO}/requests?status=pending", key=None).json["requests"]
    assert len(pending) == 14
    assert api.audit()["balanced"] is True
