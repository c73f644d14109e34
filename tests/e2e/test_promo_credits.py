"""Promotional credits end to end through the HTTP API on a migrated SQLite database
(docs/promotional-credits.md): restricted and non-restricted promotional tickets played on a
machine, the stake order, the machine's meters, the cash-out of each credit type, the books, loyalty
points, the promotional ticket maximum and dual control, and the machine's credit limit."""

from __future__ import annotations

import pytest

from slotsys.kernel import accounts
from slotsys.kernel.errors import NotFound

PROMO = "/api/v1/tickets/promotional"


# ------------------------------------------------------------------ helpers
def problem(r, status, kind, field=None):
    assert r.status_code == status, r.json
    assert r.headers["Content-Type"] == "application/problem+json"
    assert r.json["type"].endswith(kind), r.json
    if field is not None:
        assert r.json["field"] == field, r.json
    return r.json


def tito_settings(app):
    """The process's TITO settings (the one instance every TITO service reads)."""
    return app.extensions["slotsys"].tito.settings


def promo_ticket(api, amount, credit_type="restricted", role="supervisor") -> dict:
    """A printed promotional ticket: a non-restricted one (or one past a cumulative limit) waits
    for dual control, so a second supervisor (admin holds every role) approves it."""
    r = api.as_staff(role, "POST", PROMO, {"amount": amount, "credit_type": credit_type})
    if r.status_code == 202:
        r = api.as_staff("admin", "POST", f"{PROMO}/requests/{r.json['request']['id']}/approve")
    assert r.status_code == 201, r.json
    return r.json["ticket"]


def ticket_in(api, asset, vn):
    return api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/ticket-in", {"validation_number": vn})


def spin(api, asset, bet=None):
    r = api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/spin", bet or {"lines": 20, "multiplier": 1})
    assert r.status_code == 200, r.json
    return r.json


def meters(api, asset) -> dict:
    r = api.as_machine(asset, "GET", f"/api/v1/machines/{asset}/meters", key=None)
    assert r.status_code == 200, r.json
    return r.json


def cash_out(api, asset) -> dict:
    r = api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/cash-out")
    assert r.status_code == 201, r.json
    return r.json


def balance(app, code) -> int:
    """An account's normal balance, read from the database (0 if never opened)."""
    with app.extensions["slotsys"].ctx.uow(readonly=True) as uow:
        try:
            return uow.ledger.balance(code)
        except NotFound:
            return 0


def balanced(api) -> dict:
    a = api.audit()
    assert a["balanced"] is True and a["tickets"]["agrees"], a
    return a


def rows(app) -> dict:
    """Row counts of the tables a refused promo or ticket-in must not touch."""
    import sqlalchemy as sa

    engine = app.extensions["slotsys"].uow.engine
    with engine.connect() as c:
        return {t: c.execute(sa.text(f"SELECT count(*) FROM {t}")).scalar_one()
                for t in ("tickets", "journal_entries", "postings", "promo_ticket_requests")}


# ------------------------------------------------------------------ play
def test_the_testers_case_a_promotional_ticket_is_played_and_the_rest_cashed_out_as_promotional(api, app):
    """A ₩200,000 restricted promotional ticket in M001: the spins stake it (not the cashable meter,
    which is empty), wins go to cashable credits, and the cash-out prints the remaining restricted
    credits on a promotional ticket and the wins on a cashable one. Nothing is created or lost."""
    expense0, outstanding0 = balance(app, "tito:promo_expense"), balance(app, accounts.TICKETS_OUTSTANDING)
    hold0 = balance(app, accounts.machine_hold("M001"))
    t = promo_ticket(api, 200_000)
    assert t["type"] == "promotional"
    r = ticket_in(api, "M001", t["validation_number"])
    assert r.status_code == 200, r.json
    assert r.json["restricted_credits"] == 200_000 and r.json["promo_credits"] == 200_000 and r.json["credits"] == 0
    m = meters(api, "M001")
    assert (m["credits"], m["restricted_credits"], m["nonrestricted_credits"]) == (0, 200_000, 0)

    bets = wins = game_wins = jackpots = 0
    restricted = 200_000
    for _ in range(5):
        g = spin(api, "M001")
        bet = g["bet"]["won"]
        assert g["stake"] == {"restricted": bet, "nonrestricted": 0, "cashable": 0}  # free play first
        restricted -= bet
        assert g["restricted_credits"] == restricted and g["promo_credits"] == restricted
        jp = sum(j.get("amount", 0) for j in g["jackpots"])
        assert g["credits"] == g["credits_before"] + g["total_win"] + jp  # wins go to cashable credits
        bets += bet
        game_wins += g["total_win"]
        jackpots += jp
        wins += g["credits"] - g["credits_before"]
    m = meters(api, "M001")
    assert m["meters"]["restricted_coin_in"] == bets and m["meters"]["coin_in"] == bets
    assert m["meters"]["cashable_coin_in"] == 0 and m["meters"]["nonrestricted_coin_in"] == 0
    assert m["credits"] == wins and m["restricted_credits"] == restricted

    out = cash_out(api, "M001")
    by_type = {t["type"]: t["amount"] for t in out["tickets"]}
    assert by_type["promotional"] == restricted  # the restricted credits stay promotional: never cash
    assert by_type.get("cashable", 0) == wins
    assert out["credits"] == 0 and out["promo_credits"] == 0
    # the books: nothing created or lost. The promotion cost ₩200,000 (expense); the game kept the
    # promotional stakes less its wins (hold); the rest is on tickets still outstanding.
    assert balance(app, "tito:promo_expense") - expense0 == 200_000 == bets + restricted
    game_kept = balance(app, accounts.machine_hold("M001")) - hold0
    outstanding = balance(app, accounts.TICKETS_OUTSTANDING) - outstanding0
    assert game_kept == bets - game_wins
    assert outstanding == restricted + wins == restricted + game_wins + jackpots
    assert game_kept + outstanding == 200_000 + jackpots  # a jackpot award comes from its level, not the promo
    assert balance(app, accounts.machine_restricted("M001")) == 0 and balance(app, accounts.machine_credits("M001")) == 0
    balanced(api)


def test_stake_order_restricted_then_nonrestricted_then_cashable_and_wins_to_cashable(api, app):
    asset = "M003"
    for note in (5_000, 5_000):
        assert api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/bill-in", {"amount": note}).status_code == 200
    assert ticket_in(api, asset, promo_ticket(api, 1_500)["validation_number"]).status_code == 200
    assert ticket_in(api, asset, promo_ticket(api, 2_500, "nonrestricted")["validation_number"]).status_code == 200
    m = meters(api, asset)
    assert (m["credits"], m["restricted_credits"], m["nonrestricted_credits"], m["promo_credits"]) == (
        10_000, 1_500, 2_500, 4_000)
    staked = {"restricted": 0, "nonrestricted": 0, "cashable": 0}
    expected = [{"restricted": 1_500, "nonrestricted": 500, "cashable": 0},
                {"restricted": 0, "nonrestricted": 2_000, "cashable": 0},
                {"restricted": 0, "nonrestricted": 0, "cashable": 2_000}]
    for want in expected:
        g = spin(api, asset)
        assert g["bet"]["won"] == 2_000
        assert g["stake"] == want
        # wins only ever land on the cashable meter
        assert g["credits"] == g["credits_before"] - want["cashable"] + g["total_win"] + sum(
            j.get("amount", 0) for j in g["jackpots"])
        for k in staked:
            staked[k] += want[k]
    m = meters(api, asset)
    assert m["restricted_credits"] == 0 and m["nonrestricted_credits"] == 0
    assert m["meters"]["restricted_coin_in"] == staked["restricted"]
    assert m["meters"]["nonrestricted_coin_in"] == staked["nonrestricted"]
    assert m["meters"]["cashable_coin_in"] == staked["cashable"] and m["meters"]["coin_in"] == 6_000
    # the recall shows what the promotional credits paid
    games = api.as_machine(asset, "GET", f"/api/v1/machines/{asset}/games", key=None)
    assert games.status_code == 200 and [g["stake"] for g in games.json["games"]] == expected[::-1]
    balanced(api)


def test_not_enough_credits_of_every_kind_refuses_the_bet_and_changes_nothing(api, app):
    asset = "M005"
    assert ticket_in(api, asset, promo_ticket(api, 1_000)["validation_number"]).status_code == 200
    before = rows(app)
    r = api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/spin", {"lines": 20, "multiplier": 1})
    p = problem(r, 409, "insufficient-funds", "multiplier")
    assert p["credits"] == {"cashable": 0, "restricted": 1_000, "nonrestricted": 0}
    assert rows(app) == before and meters(api, asset)["restricted_credits"] == 1_000


def test_nonrestricted_credits_cash_out_on_the_cashable_ticket_paid_at_the_cage(api, app):
    asset = "M007"
    t = promo_ticket(api, 3_000, "nonrestricted")
    assert t["type"] == "nonrestricted_promo"
    # a promotional ticket of either kind is never cash at the cage or a kiosk
    problem(api.as_staff("cashier", "POST", "/api/v1/cage/redeem", {"validation_number": t["validation_number"]}),
            409, "ticket-promotional-not-cashable")
    r = ticket_in(api, asset, t["validation_number"])
    assert r.status_code == 200 and r.json["nonrestricted_credits"] == 3_000 and r.json["credits"] == 0
    g = spin(api, asset)
    assert g["stake"] == {"restricted": 0, "nonrestricted": 2_000, "cashable": 0}
    out = cash_out(api, asset)
    assert [t["type"] for t in out["tickets"]] == ["cashable"]
    assert out["ticket"]["amount"] == 1_000 + g["credits"]
    assert balance(app, accounts.machine_nonrestricted(asset)) == 0
    r = api.as_staff("cashier", "POST", "/api/v1/cage/redeem", {"validation_number": out["ticket"]["validation_number"]})
    assert r.status_code == 200, r.json
    balanced(api)


def test_wallet_cash_out_sends_nonrestricted_credits_to_the_cashable_wallet(api, app):
    from tests.e2e.test_players_api import card_in, enrol

    asset = "M009"
    p = enrol(api)
    assert card_in(api, asset, p["card_number"]).status_code == 201
    assert ticket_in(api, asset, promo_ticket(api, 4_000, "nonrestricted")["validation_number"]).status_code == 200
    assert ticket_in(api, asset, promo_ticket(api, 1_000)["validation_number"]).status_code == 200
    r = api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/wallet/cash-out",
                       {"card_number": p["card_number"], "pin": "2468"})
    assert r.status_code == 200, r.json
    assert r.json["cashable"] == 4_000 and r.json["promo"] == 1_000
    assert balance(app, accounts.player_cashable(p["player"])) == 4_000
    assert balance(app, accounts.player_promo(p["player"])) == 1_000
    balanced(api)


# ------------------------------------------------------------------ loyalty
@pytest.mark.parametrize("promo_earns", [False, True])
def test_promotional_coin_in_earns_points_only_if_the_program_says_so(api, app, monkeypatch, promo_earns):
    from tests.e2e.test_players_api import card_in, enrol

    monkeypatch.setattr(app.extensions["slotsys"].ctx.settings, "loyalty_promo_earns_points", promo_earns)
    asset = "M011"  # default rule: a point per ₩1,000 of coin-in
    p = enrol(api)
    assert card_in(api, asset, p["card_number"]).status_code == 201
    assert ticket_in(api, asset, promo_ticket(api, 2_000)["validation_number"]).status_code == 200
    g = spin(api, asset)
    assert g["stake"]["restricted"] == 2_000
    assert g["player"]["points_earned_milli"] == (2_000 if promo_earns else 0)
    # cashable play earns as before
    assert api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/bill-in", {"amount": 5_000}).status_code == 200
    g = spin(api, asset)
    assert g["stake"]["cashable"] == 2_000 and g["player"]["points_earned_milli"] == 2_000


# ------------------------------------------------------------------ limits
def test_a_promotional_ticket_above_the_maximum_is_refused_naming_amount_and_prints_nothing(api, app):
    before, audit0 = rows(app), api.audit()
    for amount in (1_000_000_000_000, tito_settings(app).promo_max_won + 1):
        problem(api.as_staff("supervisor", "POST", PROMO, {"amount": amount}), 422, "promo-above-maximum", "amount")
    assert rows(app) == before and api.audit()["sum_of_balances"] == audit0["sum_of_balances"] == 0
    assert balance(app, "tito:promo_expense") == 0


def test_above_the_dual_control_threshold_a_second_supervisor_must_approve(api, app):
    """The tester's ₩2,000,000 ticket: a pending request (nothing printed), self-approval refused,
    a different supervisor (admin holds every role) approves and the ticket is printed once."""
    before = rows(app)
    r = api.as_staff("supervisor", "POST", PROMO, {"amount": 2_000_000, "reason": "VIP birthday"})
    assert r.status_code == 202, r.json
    req = r.json["request"]
    assert req["status"] == "pending" and req["requested_by"] == "staff:supervisor" and "ticket" not in r.json
    after = rows(app)
    assert after["tickets"] == before["tickets"] and after["promo_ticket_requests"] == before["promo_ticket_requests"] + 1
    assert balance(app, "tito:promo_expense") == 0
    listed = api.as_staff("auditor", "GET", f"{PROMO}/requests", key=None)
    assert listed.status_code == 200 and [q["id"] for q in listed.json["requests"]] == [req["id"]]

    # the requester may not approve their own request
    mid = rows(app)
    problem(api.as_staff("supervisor", "POST", f"{PROMO}/requests/{req['id']}/approve"), 403,
            "dual-control-self-approval", "approved_by")
    assert rows(app) == mid
    # an operator is not a supervisor
    assert api.as_staff("operator", "POST", f"{PROMO}/requests/{req['id']}/approve").status_code == 403

    r = api.as_staff("admin", "POST", f"{PROMO}/requests/{req['id']}/approve", key="approve-1")
    assert r.status_code == 201, r.json
    t = r.json["ticket"]
    assert t["type"] == "promotional" and t["amount"] == 2_000_000
    assert r.json["request"]["status"] == "approved" and r.json["request"]["decided_by"] == "staff:admin"
    # a replay answers the same; a second approval prints nothing more
    again = api.as_staff("admin", "POST", f"{PROMO}/requests/{req['id']}/approve", key="approve-1")
    assert again.json == r.json and again.headers.get("Idempotent-Replayed") == "true"
    problem(api.as_staff("admin", "POST", f"{PROMO}/requests/{req['id']}/approve"), 409, "promo-request-not-pending",
            "request_id")
    assert balance(app, "tito:promo_expense") == 2_000_000
    # the tester's machine: the ticket is played, not refused for want of cashable credits
    r = ticket_in(api, "M002", t["validation_number"])
    assert r.status_code == 200 and r.json["restricted_credits"] == 2_000_000
    g = spin(api, "M002", {"reels": 5, "multiplier": 1})
    assert g["stake"]["restricted"] == g["bet"]["won"] > 0
    balanced(api)


def test_a_refused_request_prints_nothing(api, app):
    r = api.as_staff("supervisor", "POST", PROMO, {"amount": 1_500_000, "credit_type": "nonrestricted"})
    assert r.status_code == 202, r.json
    rid = r.json["request"]["id"]
    before = rows(app)
    r = api.as_staff("supervisor", "POST", f"{PROMO}/requests/{rid}/refuse", {"reason": "not in the campaign"})
    assert r.status_code == 200 and r.json["request"]["status"] == "refused"
    problem(api.as_staff("admin", "POST", f"{PROMO}/requests/{rid}/approve"), 409, "promo-request-not-pending",
            "request_id")
    assert rows(app)["tickets"] == before["tickets"] and balance(app, "tito:promo_expense") == 0
    problem(api.as_staff("admin", "POST", f"{PROMO}/requests/999999/approve"), 404, "not-found", "request_id")


# ------------------------------------------------ cumulative dual control (the one-person route to cash)
def issue(api, amount, credit_type="restricted", role="supervisor"):
    return api.as_staff(role, "POST", PROMO, {"amount": amount, "credit_type": credit_type})


def test_the_testers_six_nonrestricted_tickets_stop_at_202_pending_and_nothing_is_printed(api, app):
    """The outside tester's sequence: six ₩1,000,000 non-restricted tickets in a row by one
    supervisor. Each is now a pending request: no ticket, no posting; the machine has nothing to
    take in and nothing to cash out."""
    before = rows(app)
    for i in range(6):
        r = issue(api, 1_000_000, "nonrestricted")
        assert r.status_code == 202, r.json
        assert "ticket" not in r.json and r.json["request"]["status"] == "pending"
        assert "nonrestricted" in r.json["dual_control"]
        assert r.json["issuer_total"] == i * 1_000_000  # pending requests count towards the issuer's total
        if i:
            assert "issuer_cumulative" in r.json["dual_control"]
    after = rows(app)
    assert after["tickets"] == before["tickets"] and after["journal_entries"] == before["journal_entries"]
    assert after["promo_ticket_requests"] == before["promo_ticket_requests"] + 6
    assert balance(app, "tito:promo_expense") == 0 and balance(app, accounts.TICKETS_OUTSTANDING) == 0
    r = api.as_machine("M004", "POST", "/api/v1/machines/M004/cash-out")  # nothing went in, nothing comes out
    problem(r, 409, "insufficient-funds")


def test_splitting_below_the_threshold_does_not_evade_dual_control(api, app):
    """₩600,000 + ₩400,000 restricted print at once (₩1,000,000 is the threshold, not above it);
    the next ₩1 by the same supervisor waits for approval; another supervisor still has their own
    allowance; a replay of a pending request answers 202 again and stores nothing new."""
    assert issue(api, 600_000).status_code == 201
    assert issue(api, 400_000).status_code == 201
    r = api.as_staff("supervisor", "POST", PROMO, {"amount": 1, "credit_type": "restricted"}, key="split-3")
    assert r.status_code == 202 and r.json["dual_control"] == ["issuer_cumulative"], r.json
    assert r.json["issuer_total"] == 1_000_000
    n = rows(app)["promo_ticket_requests"]
    again = api.as_staff("supervisor", "POST", PROMO, {"amount": 1, "credit_type": "restricted"}, key="split-3")
    assert again.status_code == 202 and again.json == r.json and rows(app)["promo_ticket_requests"] == n
    for amount in (100, 10_000, 250_000):  # any further slice, however small
        assert issue(api, amount).status_code == 202
    assert issue(api, 900_000, role="admin").status_code == 201  # a different issuer's own total
    assert balance(app, "tito:promo_expense") == 1_900_000


def test_the_rolling_window_forgets_old_issues(api, app):
    ts = tito_settings(app)
    old = ts.promo_window_hours
    ts.promo_window_hours = 1.5 / 3600  # 1.5 s
    try:
        assert issue(api, 1_000_000).status_code == 201
        assert issue(api, 10_000).status_code == 202
        import time

        time.sleep(2.0)
        assert issue(api, 1_000_000).status_code == 201
    finally:
        ts.promo_window_hours = old


def test_above_the_floor_cap_every_issue_waits_whoever_prints(api, app, monkeypatch):
    monkeypatch.setattr(tito_settings(app), "promo_floor_cap_won", 1_500_000)
    assert issue(api, 900_000).status_code == 201
    assert issue(api, 500_000, role="admin").status_code == 201
    r = issue(api, 200_000, role="admin")
    assert r.status_code == 202 and r.json["dual_control"] == ["floor_cap"] and r.json["floor_total"] == 1_400_000
    # the approve path still prints above the cap (that is what the second supervisor is for)
    a = api.as_staff("supervisor", "POST", f"{PROMO}/requests/{r.json['request']['id']}/approve")
    assert a.status_code == 201 and a.json["ticket"]["amount"] == 200_000
    assert balance(app, "tito:promo_expense") == 1_600_000
    balanced(api)


def test_an_operator_may_not_print_promotional_tickets_of_either_kind(api, app):
    before = rows(app)
    for kind in ("restricted", "nonrestricted"):
        problem(issue(api, 10_000, kind, role="operator"), 403, "forbidden")
    assert rows(app) == before


def test_an_approved_nonrestricted_ticket_still_prints_and_becomes_cash_once_on_a_machine(api, app):
    """The approve path: the pending ₩1,000,000 non-restricted ticket, approved by a second
    supervisor, prints; inserted (two-phase) and cashed out with no game it is a cashable ticket —
    the cash route now always carries two signatures."""
    r = issue(api, 1_000_000, "nonrestricted")
    assert r.status_code == 202
    problem(api.as_staff("supervisor", "POST", f"{PROMO}/requests/{r.json['request']['id']}/approve"), 403,
            "dual-control-self-approval", "approved_by")
    a = api.as_staff("admin", "POST", f"{PROMO}/requests/{r.json['request']['id']}/approve")
    assert a.status_code == 201 and a.json["ticket"]["type"] == "nonrestricted_promo", a.json
    asset, vn = "M006", a.json["ticket"]["validation_number"]
    auth = api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/ticket-in/authorize", {"validation_number": vn})
    assert auth.status_code == 200, auth.json
    done = api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/ticket-in/commit",
                          {"validation_number": vn, "transaction_id": auth.json["transaction_id"]})
    assert done.status_code == 200, done.json
    out = cash_out(api, asset)["tickets"]
    assert [(t["type"], t["amount"]) for t in out] == [("cashable", 1_000_000)]
    # the approved ticket counts towards the requester's total: the next restricted ₩1 waits
    assert issue(api, 1).json["dual_control"] == ["issuer_cumulative"]
    balanced(api)


def test_a_machine_refuses_a_ticket_above_its_credit_limit_and_nothing_changes(api, app):
    asset = "M013"
    r = api.as_staff("operator", "PUT", f"/api/v1/machines/{asset}/credit-limit", {"credit_limit": 50_000}, key=None)
    assert r.status_code == 200 and r.json["credit_limit"] == 50_000
    assert meters(api, asset)["credit_limit"] == 50_000
    assert api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/bill-in", {"amount": 10_000}).status_code == 200
    t = promo_ticket(api, 45_000)
    before, m0 = rows(app), meters(api, asset)
    for path, body in (("ticket-in", {"validation_number": t["validation_number"]}),
                       ("ticket-in/authorize", {"validation_number": t["validation_number"]})):
        r = api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/{path}", body)
        p = problem(r, 409, "credit-limit-exceeded", "amount")
        assert p["reject_reason"] == "credit_limit_exceeded" and p["sas_status"] == "0x84"
        assert p["credit_limit"] == 50_000 and p["credits"] == 10_000
    m1 = meters(api, asset)
    assert (m1["credits"], m1["promo_credits"], m1["meters"]["tickets_in"]) == (m0["credits"], 0, m0["meters"]["tickets_in"])
    assert rows(app)["journal_entries"] == before["journal_entries"]
    status = api.as_staff("supervisor", "GET", f"/api/v1/tickets/{t['validation_number']}", key=None).json["status"]
    assert status == "issued"  # returned to the player: still good on another machine
    assert ticket_in(api, "M015", t["validation_number"]).status_code == 200

    # the floor default applies to a machine without its own limit
    monkey = tito_settings(app)
    old = monkey.machine_credit_limit_won
    monkey.machine_credit_limit_won = 4_000
    try:
        r = api.as_staff("operator", "PUT", f"/api/v1/machines/{asset}/credit-limit", {"credit_limit": None}, key=None)
        assert r.status_code == 200 and r.json["credit_limit"] == 4_000
        problem(ticket_in(api, asset, promo_ticket(api, 1_000)["validation_number"]), 409, "credit-limit-exceeded",
                "amount")
    finally:
        monkey.machine_credit_limit_won = old
    problem(api.as_staff("operator", "PUT", f"/api/v1/machines/{asset}/credit-limit", {"credit_limit": -1}, key=None),
            422, "validation-failed")
    balanced(api)


def test_migration_0013_has_a_real_downgrade(tmp_path):
    import sqlalchemy as sa
    from alembic import command

    from slotsys.app.migrate import alembic_config, upgrade

    url = f"sqlite:///{tmp_path / 'mig.db'}"
    upgrade(url)
    cfg = alembic_config(url)
    command.downgrade(cfg, "0012_staff_auth")
    engine = sa.create_engine(url)
    try:
        insp = sa.inspect(engine)
        assert "promo_ticket_requests" not in insp.get_table_names()
        assert not {"credit_limit", "restricted_played", "nonrestricted_played"} & {c["name"] for c in insp.get_columns("machines")}
        command.upgrade(cfg, "heads")
        insp = sa.inspect(engine)
        assert "promo_ticket_requests" in insp.get_table_names()
        assert {"credit_limit", "restricted_played", "nonrestricted_played"} <= {c["name"] for c in insp.get_columns("machines")}
    finally:
        engine.dispose()
