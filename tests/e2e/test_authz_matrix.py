"""Authorisation matrix: every endpoint of the app × every caller.

Callers: anonymous, every staff role of ``slotsys.kernel.security.ROLES``, the machine named in the path
with its own key (``machine``), another machine's key on that path (``other_machine``), the player named
in the path (or seated at the path's seat) with their own ``pl_…`` token (``player``) and another player's
token (``other_player``).

``ALLOWED`` is the expected table, written from the code's role checks (``require_role`` /
``require_machine`` / ``require_reader`` in the services and routes), NOT from observed responses:
``staff(...)`` lists the roles a route's ``require_role`` names (admin holds every role, as
``slotsys.staff.services.auth.require_role`` says). The endpoints are enumerated from ``app.url_map``, so a new
endpoint that is not in the table fails the test and says what to add.

Denied means 401 or 403 and nothing changed (row counts of every table and the ledger audit are the same
after the whole denied pass); allowed means the role check let the call through (any status but 401/403:
404/409/422 from the business rules are fine here).
"""

from __future__ import annotations

import uuid

import sqlalchemy as sa

from slotsys.kernel.security import ROLES

MACHINE_CALLERS = ("machine", "other_machine")
PLAYER_CALLERS = ("player", "other_player")
CALLERS = ("anonymous", *ROLES, *MACHINE_CALLERS, *PLAYER_CALLERS)


def staff(*roles: str) -> frozenset[str]:
    """Staff holding one of ``roles``; admin holds every role (require_role)."""
    return frozenset(roles) | {"admin"}


PUBLIC = frozenset(CALLERS)  # no authentication (probes, the spec, logins)
MACHINE = frozenset({"machine"})  # the machine in the path, with its own key (require_machine)
ANY_MACHINE = frozenset(MACHINE_CALLERS)  # any machine key (the endpoint names no machine)
PLAYER = frozenset({"player"})  # the player in the path / seated at the path's seat, with their own token
ANY_PLAYER = frozenset(PLAYER_CALLERS)  # any player's own token
ANY_STAFF = frozenset(ROLES)
AUTHENTICATED = ANY_STAFF | ANY_MACHINE  # any machine key or staff token (player tokens are for player endpoints)

# endpoint → who may call it. Derived from the code (file: the check).
ALLOWED: dict[str, frozenset[str]] = {
    # slotsys/app/api/system.py, APIFlask's own spec/docs, Flask static: open
    "system.healthz": PUBLIC, "system.readyz": PUBLIC, "system.metrics": PUBLIC,
    "openapi.spec": PUBLIC, "openapi.docs": PUBLIC, "openapi.swagger_ui_oauth_redirect": PUBLIC, "static": PUBLIC,
    "apidocs.static": PUBLIC,  # Swagger UI files for /docs (slotsys/web/apidocs.py)
    # slotsys/staff/api/routes.py
    "staff.login": PUBLIC,
    "staff.logout": ANY_STAFF, "staff.change_password": ANY_STAFF,  # services/staff.py require_staff
    "staff.unlock": staff(), "staff.deactivate": staff(), "staff.reset_password": staff(),
    "staff.auth_events": staff("auditor"),
    "staff.floor": staff("operator", "attendant", "auditor"),
    "staff.audit": staff("auditor"),
    # slotsys/floor/api/machines.py + services/floor.py require_machine
    "machines.bill_in": MACHINE, "machines.spin": MACHINE, "machines.cash_out": MACHINE, "machines.ticket_in": MACHINE,
    "machines.meters": MACHINE | staff("operator", "attendant", "auditor"),
    # slotsys/floor/api/reported_games.py + services/machine_games.py require_machine / the route's require_role
    "machine_games.report_game": MACHINE, "machine_games.report_meters": MACHINE,
    "machine_games.reconciliation": staff("operator", "attendant", "auditor"),
    "sas.links": staff("operator", "attendant", "auditor", "supervisor"),
    "machines.recall": MACHINE | staff("operator", "attendant", "auditor"),
    # slotsys/floor/api/admin.py + services/floor_admin.py (WRITERS operator; ADMIN admin; READERS operator,
    # attendant, auditor; a zone's or bank's retirement needs admin, the matrix's body renames it)
    "floor_admin.enrol": staff("operator"), "floor_admin.update_machine": staff("operator"),
    "floor_admin.enable": staff("operator"), "floor_admin.disable": staff("operator"),
    "floor_admin.move": staff("operator"), "floor_admin.change_game": staff("operator"),
    "floor_admin.rotate_key": staff(), "floor_admin.retire": staff(),
    "floor_admin.list_machines": staff("operator", "attendant", "auditor"),
    "floor_admin.get_machine": staff("operator", "attendant", "auditor"),
    "floor_admin.list_zones": staff("operator", "attendant", "auditor"),
    "floor_admin.create_zone": staff("operator"), "floor_admin.update_zone": staff("operator"),
    "floor_admin.list_banks": staff("operator", "attendant", "auditor"),
    "floor_admin.create_bank": staff("operator"), "floor_admin.update_bank": staff("operator"),
    "floor_admin.floor_plan": staff("operator", "attendant", "auditor"),
    # slotsys/players/services/sessions.py
    "player_machines.card_in": MACHINE,
    "player_machines.card_out": MACHINE | staff("attendant", "host"),
    "player_machines.current_session": MACHINE | staff("attendant", "host", "operator", "auditor"),
    "player_machines.to_machine": MACHINE, "player_machines.to_wallet": MACHINE,
    "player_machines.cash_out_to_wallet": MACHINE, "player_machines.redeem_request": MACHINE,
    "player_machines.redeem_ack": MACHINE, "player_machines.redeem_cancel": MACHINE,
    # players/services/aft.py require_machine; get: the machine or require_role
    "player_machines.aft_to_machine": MACHINE, "player_machines.aft_to_wallet": MACHINE,
    "player_machines.aft_transfer": MACHINE | staff("attendant", "host", "operator", "auditor"),
    "player_machines.aft_resolve": staff("supervisor"),  # aft.py resolve: require_role
    # slotsys/players/services/players.py (READ_ROLES = host, cashier, pit, auditor; require_reader: the player too)
    "players.login": PUBLIC,
    "players.enrol": staff("host"),
    "players.find": staff("host", "cashier", "pit", "auditor"),
    "players.config": staff("host", "pit", "auditor"),
    "players.update_program": staff(), "players.put_rule": staff(), "players.put_tier": staff(),
    "players.expire_points": staff(),
    "players.card_lost": PLAYER | staff("host"),
    "players.card_unblock": staff("host"),
    "players.view": PLAYER | staff("host", "cashier", "pit", "auditor"),
    "players.session_history": PLAYER | staff("host", "cashier", "pit", "auditor"),
    "players.points": PLAYER | staff("host", "cashier", "pit", "auditor"),
    "players.statement": PLAYER | staff("host", "cashier", "pit", "auditor"),
    "players.issue_card": staff("host"),
    "players.deposit": staff("cashier"), "players.withdraw": staff("cashier"),
    "players.redeem": staff("host", "cashier"),
    "players.rate": staff("pit"),
    # tito/api/routes.py + tito/services/{cage,printing,admin,kiosk,reports,machine_in}.py
    "tickets.lookup": staff("cashier", "auditor", "operator", "supervisor"),
    "tickets.barcode": AUTHENTICATED, "tickets.qr": AUTHENTICATED,
    "tickets.ticket_png": MACHINE | staff("cashier", "attendant", "supervisor", "operator", "auditor"),  # issuer only
    "tickets.ticket_pdf": MACHINE | staff("cashier", "attendant", "supervisor", "operator", "auditor"),
    "tickets.void": staff("supervisor"), "tickets.expiry_override": staff("supervisor"),
    "tickets.promotional": staff("supervisor"),
    "tickets.promotional_requests": staff("supervisor", "operator", "auditor"),
    "tickets.promotional_approve": staff("supervisor"), "tickets.promotional_refuse": staff("supervisor"),
    "tickets.set_credit_limit": staff("operator"),
    "tickets.ticket_in_authorize": MACHINE, "tickets.ticket_in_commit": MACHINE, "tickets.ticket_in_reject": MACHINE,
    "tickets.handpay": staff("attendant"),
    "tickets.get_validation": MACHINE | staff("operator", "auditor"),
    "tickets.set_validation": staff("operator"),
    "tickets.rotate_validation_id": staff("supervisor"),
    "tickets.redeem": staff("cashier"), "tickets.open_session": staff("cashier"),
    "tickets.current_session": staff("cashier"), "tickets.close_session": staff("cashier"),
    "tickets.kiosk_redeem": staff("kiosk"),
    "tickets.kiosk_status": staff("cashier", "supervisor", "auditor", "kiosk"),  # kiosk: its own code only
    "tickets.kiosk_fill": staff("cashier", "supervisor"),
    "tickets.report_issued": staff("auditor"), "tickets.report_redeemed": staff("auditor"),
    "tickets.report_outstanding": staff("auditor"), "tickets.report_expired": staff("auditor"),
    "tickets.report_voided": staff("auditor"), "tickets.report_reconciliation": staff("auditor"),
    "tickets.report_security": staff("auditor", "supervisor"),
    # jackpot_controller/api/routes.py + its services
    "jackpots.levels": AUTHENTICATED, "jackpots.stream": AUTHENTICATED,
    "jackpots.create_level": staff("operator"), "jackpots.edit_level": staff("operator"),
    "jackpots.pause": staff("operator"), "jackpots.resume": staff("operator"), "jackpots.correct": staff("operator"),
    "jackpots.move_machine": staff("operator"), "jackpots.verify": staff("operator"),
    "jackpots.level": staff("operator", "auditor", "attendant"), "jackpots.hits": staff("operator", "auditor", "attendant"),
    "jackpots.handpays": staff("attendant", "operator", "auditor"),
    "jackpots.handpay": staff("attendant"),
    "jackpots.events": staff("auditor", "operator"),
    "jackpots.queue": staff("operator", "auditor"),
    # table_games/services/poker_room.py (READ_ROLES pit, supervisor, operator, auditor, host; MANAGER_ROLES pit,
    # supervisor, operator; DEALER_ROLES pit, supervisor; a player's token: any table or hand (a hand shows only the
    # viewer's own cards), and for themselves: seat, buy-in, cash-out, acting in a hand they are dealt into)
    "poker.list_tables": staff("pit", "supervisor", "operator", "auditor", "host"),
    "poker.create_table": staff("pit", "supervisor", "operator"),
    "poker.get_table": ANY_PLAYER | staff("pit", "supervisor", "operator", "auditor", "host"),
    "poker.sit": PLAYER | staff("pit", "supervisor"), "poker.buy_in": PLAYER | staff("pit", "supervisor"),
    "poker.cash_out": PLAYER | staff("pit", "supervisor"),
    "poker.start_hand": staff("pit", "supervisor"),
    "poker.list_hands": staff("pit", "supervisor", "operator", "auditor", "host"),
    "poker.get_hand": ANY_PLAYER | staff("pit", "supervisor", "operator", "auditor", "host"),
    "poker.act": PLAYER | staff("pit", "supervisor"),
    "poker.hand_phh": staff("pit", "supervisor", "operator", "auditor", "host"),
    "poker.replay_hand": staff("pit", "supervisor", "operator", "auditor", "host"),
    "poker.replay_phh": staff("pit", "supervisor", "operator", "auditor", "host"),
    # table_games/services/mahjong.py (require_reader: any player token, or READ_ROLES pit, supervisor, operator,
    # auditor, host; SCORER_ROLES pit, supervisor)
    "mahjong.score": ANY_PLAYER | staff("pit", "supervisor", "operator", "auditor", "host"),
    "mahjong.list_tables": ANY_PLAYER | staff("pit", "supervisor", "operator", "auditor", "host"),
    "mahjong.get_table": ANY_PLAYER | staff("pit", "supervisor", "operator", "auditor", "host"),
    "mahjong.list_hands": ANY_PLAYER | staff("pit", "supervisor", "operator", "auditor", "host"),
    "mahjong.get_hand": ANY_PLAYER | staff("pit", "supervisor", "operator", "auditor", "host"),
    "mahjong.create_table": staff("pit", "supervisor"), "mahjong.sit": staff("pit", "supervisor"),
    "mahjong.top_up": staff("pit", "supervisor"), "mahjong.leave": staff("pit", "supervisor"),
    "mahjong.score_hand": staff("pit", "supervisor"), "mahjong.draw": staff("pit", "supervisor"),
    # slotsys/web/pages.py: the pages and their assets are open (each page logs its user in, then calls the API)
    "web.index": PUBLIC, "web.console": PUBLIC, "web.floor_admin": PUBLIC, "web.machine": PUBLIC, "web.jackpots": PUBLIC,
    "web.par_sheets": PUBLIC, "web.cashier": PUBLIC, "web.receipt": PUBLIC, "web.kiosk": PUBLIC,
    "web.signage": PUBLIC, "web.reports": PUBLIC, "web.font": PUBLIC, "web.static": PUBLIC,
    "web.games": PUBLIC, "web.staff": PUBLIC, "web.audit_log": PUBLIC,
    "web.alerts": PUBLIC, "web.handpays": PUBLIC,
    # slotsys/app/api/screens.py + services/screens.py
    # slotsys/floor/api/events.py + services/floor_events.py (READ_ROLES attendant, supervisor, operator, auditor;
    # alert transitions and handpay signatures: attendant, supervisor)
    "floor_events.report_events": MACHINE,
    "floor_events.machine_events": staff("attendant", "supervisor", "operator", "auditor"),
    "floor_events.vocabulary": AUTHENTICATED,
    "floor_events.alerts": staff("attendant", "supervisor", "operator", "auditor"),
    "floor_events.acknowledge": staff("attendant", "supervisor"),
    "floor_events.dispatch": staff("attendant", "supervisor"),
    "floor_events.resolve": staff("attendant", "supervisor"),
    "floor_events.handpays": staff("attendant", "supervisor", "operator", "auditor"),
    "floor_events.sign_handpay": staff("attendant", "supervisor"),
    "screens.floor_overview": staff("operator", "attendant", "auditor"),
    "screens.floor_machine": staff("operator", "attendant", "auditor"),
    "screens.games": staff("operator", "auditor"), "screens.par_sheet": staff("operator", "auditor"),
    "screens.par_chart": staff("operator", "auditor"),
    "screens.stream_token": ANY_STAFF,  # any staff role; machines and players get 401
    "screens.ticket_check": staff("cashier", "supervisor"),
    # authorised by the ?token= minted by stream_token (EventSource sends no header), whoever sends the request;
    # without a valid token every caller is refused: test_the_screens_stream_needs_its_token
    "screens.jackpot_stream": PUBLIC,
    # slotsys/floor/api/catalogue.py → services/game_catalogue.py (UPLOADERS operator, APPROVERS supervisor, READERS
    # operator, supervisor, auditor), services/staff_admin.py (admin), services/audit_reader.py (auditor)
    "administration.upload_game": staff("operator"),
    "administration.list_uploads": staff("operator", "supervisor", "auditor"),
    "administration.get_upload": staff("operator", "supervisor", "auditor"),
    "administration.approve_game": staff("supervisor"), "administration.reject_game": staff("supervisor"),
    "administration.create_user": staff(), "administration.list_users": staff(), "administration.update_user": staff(),
    "administration.list_sessions": staff(), "administration.end_session": staff(),
    "administration.audit_log": staff("auditor"),
    # table_games/services/tables.py (READ_ROLES pit, operator, auditor, host; DEALER_ROLES pit, operator;
    # MANAGER_ROLES operator; a player's own token for their bets, decisions on their box, their seat's backers)
    "tables.list_tables": staff("pit", "operator", "auditor", "host"),
    "tables.get_table": staff("pit", "operator", "auditor", "host"),
    "tables.house_edges": staff("pit", "operator", "auditor", "host"),
    "tables.get_round": staff("pit", "operator", "auditor", "host"),
    "tables.replay": staff("pit", "operator", "auditor", "host"),
    "tables.get_roadmaps": staff("pit", "operator", "auditor", "host"),
    "tables.create_table": staff("operator"), "tables.update_table": staff("operator"),
    "tables.sit": staff("pit", "operator"), "tables.leave": staff("pit", "operator"),
    "tables.open_round": staff("pit", "operator"), "tables.no_more_bets": staff("pit", "operator"),
    "tables.new_shoe": staff("pit", "operator"), "tables.settle": staff("pit", "operator", "supervisor"),
    "tables.deal": staff("pit", "operator"),
    "tables.colour_buy_in": staff("pit", "operator"), "tables.colour_cash_out": staff("pit", "operator"),
    "tables.place_bet": PLAYER | staff("pit", "operator"),
    "tables.decide": PLAYER | staff("pit", "operator"),
    "tables.list_backers": PLAYER | staff("pit", "operator", "auditor", "host"),
    "tables.grant_backer": PLAYER | staff("pit", "operator"),
    "tables.revoke_backer": PLAYER | staff("pit", "operator"),
    # pai gow: any player token passes the role check; whether the place / seat is the caller's own is a
    # data check after it (403 field box / seat: test_tables_poker_api::..._with_the_players_own_token)
    "tables.take_bank": frozenset(PLAYER_CALLERS) | staff("pit", "operator"),
    "tables.house_way": frozenset(PLAYER_CALLERS) | staff("pit", "operator", "auditor", "host"),
    "tables.optimal_setting": frozenset(PLAYER_CALLERS) | staff("pit", "operator", "auditor", "host"),
    # slotsys/accounting/services/days.py (CLOSERS auditor; READERS auditor, supervisor) and drops.py (COUNTERS
    # cashier, attendant, supervisor; ACCEPTERS, SCHEDULERS supervisor; VARIANCE_READERS supervisor, auditor)
    "accounting.close_day": staff("auditor"),
    "accounting.day_report": staff("auditor", "supervisor"), "accounting.day_journal": staff("auditor", "supervisor"),
    "accounting.export_xlsx": staff("auditor", "supervisor"), "accounting.export_pdf": staff("auditor", "supervisor"),
    "accounting.export_csv": staff("auditor", "supervisor"),
    "accounting.closed_days": staff("auditor", "supervisor"), "accounting.chart_hold": staff("auditor", "supervisor"),
    "accounting.chart_coin_in": staff("auditor", "supervisor"), "accounting.chart_jackpot": staff("auditor", "supervisor"),
    "accounting.drop_count": staff("cashier", "attendant", "supervisor"),
    "accounting.drop_schedule": staff("supervisor"),
    "accounting.accept_variance": staff("supervisor"),
    "accounting.variances": staff("supervisor", "auditor"),
}

# Endpoints whose allowed calls change state other rows rely on: run them last, in this order.
# staff.logout revokes each caller's token, so nothing may run after it.
RUN_LAST = ("players.card_unblock", "players.card_lost", "staff.logout")


class Floor:
    """The demo floor with a ticket issued by M001 and player 1 seated at BAC-01 seat 1."""

    def __init__(self, api, tables: bool = True) -> None:
        self.api = api
        creds = api.creds
        self.players = creds["players"]
        self.p1, self.p2, self.p3 = self.players[0], self.players[1], self.players[2]
        assert api.as_machine("M001", "POST", "/api/v1/machines/M001/bill-in", {"amount": 50_000}).status_code == 200
        r = api.as_machine("M001", "POST", "/api/v1/machines/M001/cash-out")
        assert r.status_code == 201, r.json
        self.ticket = _first_ticket(r.json)
        self.level = api.as_staff("operator", "GET", "/api/v1/jackpots/levels", key=None).json["levels"][0]["code"]
        if tables:
            self._tables()
            self._poker()
        self.player_tokens = {}
        for name, p in (("player", self.p1), ("other_player", self.p2)):
            r = api.client.post("/api/v1/players/login", json={"card_number": p["card_number"], "pin": p["pin"]})
            assert r.status_code == 200, r.json
            self.player_tokens[name] = r.json["token"]
        for role in ROLES:
            api.staff_token(role)  # log every role in before the snapshot
        self.staff_login = next(s for s in api.creds["staff"] if s["role"] == "operator")

    def _tables(self) -> None:
        api = self.api
        r = api.as_staff("pit", "POST", "/api/v1/tables/BAC-01/seats", {"seat": "1", "player_id": self.p1["player"]})
        assert r.status_code == 201, r.json
        # a blackjack round where player 1's box 1 is to act (for the decisions row)
        p1 = self.p1["player"]
        assert api.as_staff("pit", "POST", "/api/v1/tables/BJ-01/seats", {"seat": "1", "player_id": p1}).status_code == 201
        self.bj_round = api.as_staff("pit", "POST", "/api/v1/tables/BJ-01/rounds", key=None).json["round"]
        r = api.as_staff("pit", "POST", f"/api/v1/tables/BJ-01/rounds/{self.bj_round}/bets",
                         {"spot": "main", "amount": 10_000, "player_id": p1, "box": "1"})
        assert r.status_code == 201, r.json
        assert api.as_staff("pit", "POST", f"/api/v1/tables/BJ-01/rounds/{self.bj_round}/no-more-bets",
                            key=None).status_code == 200
        r = api.as_staff("pit", "POST", f"/api/v1/tables/BJ-01/rounds/{self.bj_round}/deal",
                         {"cards": ["8H", "6D", "8S"]}, key=None)
        assert r.status_code == 201 and r.json["to_act"] is not None, r.json

    def _poker(self) -> None:
        """Players 1 and 3 seated at the demo no-limit table with a buy-in, and a hand in play (player 2 not in it)."""
        api = self.api
        for seat, p in ((2, self.p1), (3, self.p3)):
            r = api.as_staff("cashier", "POST", f"/api/v1/players/{p['player']}/deposit", {"amount": 200_000})
            assert r.status_code == 200, r.json
            r = api.as_staff("pit", "POST", "/api/v1/poker/tables/PK-NL-01/seats", {"seat": seat, "player_id": p["player"]},
                             key=None)
            assert r.status_code == 201, r.json
            r = api.as_staff("pit", "POST", "/api/v1/poker/tables/PK-NL-01/buy-in",
                             {"player_id": p["player"], "amount": 100_000})
            assert r.status_code == 200, r.json
        r = api.as_staff("pit", "POST", "/api/v1/poker/tables/PK-NL-01/hands", key=None)
        assert r.status_code == 201, r.json
        self.poker_hand = r.json["hand"]

    def headers(self, caller: str) -> dict:
        if caller == "anonymous":
            return {}
        if caller in ROLES:
            token = self.api.staff_token(caller)
        elif caller == "machine":
            token = self.api.key("M001")
        elif caller == "other_machine":
            token = self.api.key("M002")
        else:
            token = self.player_tokens[caller]
        return {"Authorization": f"Bearer {token}"}

    # -- the request for an endpoint: path values, body, query
    def path_values(self, endpoint: str) -> dict:
        v = {"asset": "M001", "player_id": self.p1["player"], "card_number": self.p1["card_number"],
             "number": self.ticket, "hit_id": 999_999, "redemption_id": 999_999, "transfer_id": 999_999, "request_id": 999_999, "filename": "nothing.txt",
             "seat": "1", "box": "1", "username": "authz-nobody",  # no such staff user: admin actions 404
             "upload_id": 999_999, "session_id": "0000000000000000",  # no such game upload / staff session: 404
             "alert_id": 999_999, "handpay_id": 999_999,  # no such alert / handpay: 404
             "day": "2000-01-03", "variance_id": 999_999, "level": "MINOR"}  # a gaming day before the floor existed; no such variance
        if endpoint.startswith("tables."):
            v.update(code="BAC-01", number=1)
        elif endpoint.startswith("jackpots."):
            v.update(code=self.level)
        elif endpoint.startswith("tickets.kiosk"):
            v.update(code="kiosk1")
        elif endpoint == "players.put_tier":
            v.update(code="AUTHZ")
        if endpoint.startswith("floor_admin."):  # M020: rotating, disabling or retiring it disturbs no other row
            v.update(asset="M020", code="M4" if endpoint.endswith("_bank") else "MASS")
        if endpoint.startswith("poker."):
            v.update(code="PK-NL-01", number=getattr(self, "poker_hand", 1))
        elif endpoint.startswith("mahjong."):
            v.update(code="MJ-01", seat="E", number=1)
        if endpoint.startswith(("screens.", "web.")):
            v.update(game_id="dragon_pearl_50", chart="rtp", zone="VIP", name="NanumGothic", filename="app.js")
        if endpoint == "players.issue_card":
            v["player_id"] = self.p3["player"]  # a replacement card must not retire the card the other rows use
        if endpoint == "tables.decide":
            v.update(code="BJ-01", number=getattr(self, "bj_round", 1))
        if endpoint == "tables.leave":
            v["seat"] = "7"  # nobody sits there: player 1 stays seated for the player rows
        if endpoint == "tables.revoke_backer":
            v["player_id"] = self.p2["player"]
        return v

    def body(self, endpoint: str):
        card = {"card_number": self.p1["card_number"], "pin": self.p1["pin"]}
        t = self.ticket
        p1 = self.p1["player"]
        bodies = {
            "staff.login": {"username": self.staff_login["username"], "password": self.staff_login["password"]},
            "players.login": dict(card),
            # a wrong current password: 422, nobody's password (nor tokens) change
            "staff.change_password": {"old_password": "not-the-password", "new_password": "authz-matrix-new-1"},
            "staff.reset_password": {"new_password": "authz-matrix-new-1"},
            "machines.bill_in": {"amount": 10_000},
            "machines.spin": {"lines": 1, "multiplier": 1},
            "floor_events.report_events": {"kind": "printer_paper_low"},
            "floor_events.dispatch": {}, "floor_events.resolve": {"note": "authz matrix"},
            "machine_games.report_game": {"game_number": 1, "denomination": 100, "bet_credits": 1, "win_credits": 0},
            "machine_games.report_meters": {"meters": {"coin_in": 100, "coin_out": 0, "games_played": 1}},
            "machines.ticket_in": {"validation_number": t},
            "player_machines.card_in": {"card_number": self.p1["card_number"]},
            "player_machines.to_machine": {**card, "amount": 1_000},
            "player_machines.to_wallet": {**card, "amount": 1_000},
            "player_machines.cash_out_to_wallet": dict(card),
            "player_machines.aft_to_machine": {**card, "amount": 1_000},
            "player_machines.aft_to_wallet": {**card, "amount": 1_000},
            "player_machines.aft_resolve": {"outcome": "failed", "reason": "authz matrix"},
            "player_machines.redeem_request": {**card, "points": 1, "kind": "promo"},
            "players.enrol": {"name": "Authz Matrix", "pin": "1234"},
            "players.update_program": {"points_idle_days": 365},
            "players.put_rule": {"scope": "machine", "key": "M019", "basis": "coin_in", "won_per_point": 1_000},
            "players.put_tier": {"name": "Authz", "threshold_points": 10**11, "multiplier_permille": 1_000},
            "players.issue_card": {"pin": "1234"},
            "players.deposit": {"amount": 10_000},
            "players.withdraw": {**card, "amount": 1_000},
            "players.redeem": {**card, "points": 1, "kind": "promo"},
            "players.rate": {"table": "BAC-01", "area": "PIT", "game": "baccarat", "average_bet": 10_000, "minutes": 30,
                             "decisions_per_hour": 60, "house_edge_ppm": 12_000},
            "tickets.void": {"reason": "authz"}, "tickets.expiry_override": {"reason": "authz"},
            "tickets.promotional": {"amount": 1_000},
            "tickets.promotional_refuse": {"reason": "authz"},
            "tickets.set_credit_limit": {"credit_limit": None},
            "tickets.ticket_in_authorize": {"validation_number": t},
            "tickets.ticket_in_commit": {"validation_number": t, "transaction_id": "authz"},
            "tickets.ticket_in_reject": {"validation_number": t, "transaction_id": "authz"},
            "tickets.set_validation": {"scheme": "system"},
            "tickets.rotate_validation_id": {"reason": "authz"},
            "tickets.redeem": {"validation_number": t},
            "tickets.open_session": {"drawer": "D9", "opening_float": 0},
            "tickets.close_session": {"counted_cash": 0},
            "tickets.kiosk_redeem": {"validation_number": t},
            "tickets.kiosk_fill": {"amount": 1_000},
            "jackpots.create_level": {"code": "AUTHZ", "name": "Authz", "kind": "standalone", "scope": "machine",
                                      "machine": "M001", "combination": "authz", "reset": 1_000_000,
                                      "ceiling": 2_000_000, "rate_ppm": 10_000},
            "jackpots.edit_level": {"name": "Renamed by the authz matrix"},
            "jackpots.pause": {"reason": "authz"}, "jackpots.resume": {"reason": "authz"},
            "jackpots.correct": {"value": 1, "reason": "authz"},
            "jackpots.verify": {"decision": "pay", "reason": "authz"},
            "jackpots.move_machine": {"zone": "MASS"},
            "tables.create_table": {"code": "AUTHZ-1", "game": "roulette"},
            "tables.update_table": {"status": "open"},
            "tables.sit": {"seat": "5", "player_id": self.p3["player"]},
            "tables.grant_backer": {"player_id": self.p2["player"]},
            "tables.place_bet": {"spot": "player", "amount": 1_000, "player_id": p1},
            "tables.settle": {}, "tables.deal": {}, "tables.take_bank": {"seat": "1"},
            "tables.decide": {"box": "1", "action": "stand"},
            "tables.colour_buy_in": {"player_id": p1, "colour": "red", "chip_value": 1_000, "amount": 10_000},
            "tables.colour_cash_out": {"player_id": p1},
            "poker.create_table": {"code": "AUTHZ-PK", "rules": {"variant": "NL", "seats": 6}},
            "poker.sit": {"seat": 5, "player_id": p1}, "poker.buy_in": {"player_id": p1, "amount": 50_000},
            "poker.cash_out": {"player_id": p1}, "poker.act": {"action": "call"},
            "poker.replay_phh": {"phh": "variant = 'NT'"},
            "floor_admin.enrol": {"asset_number": "AZ001", "bank": "M4", "game": "dragon_pearl_50",
                                  "denomination": 100, "x": 40, "y": 40},
            "floor_admin.update_machine": {"serial": "AUTHZ-1"},
            "floor_admin.rotate_key": {"reason": "authz"}, "floor_admin.retire": {"reason": "authz"},
            "floor_admin.enable": {"reason": "authz"}, "floor_admin.disable": {"reason": "authz"},
            "floor_admin.move": {"bank": "M4", "reason": "authz"},
            "floor_admin.change_game": {"game": "tiger_reels_243", "reason": "authz"},
            "floor_admin.create_zone": {"code": "AUTHZ", "name": "Authz"},
            "floor_admin.update_zone": {"name": "Mass zone (authz)"},
            "floor_admin.create_bank": {"code": "AZ1", "name": "Authz", "zone": "MASS"},
            "floor_admin.update_bank": {"name": "Bank M4 (authz)"},
            "mahjong.score": {"hand": "123m456p789s11z", "win_tile": "1z"},
            "mahjong.create_table": {"code": "AUTHZ-MJ"},
            "mahjong.sit": {"seat": "E", "player_id": p1, "buy_in": 100_000},
            "mahjong.top_up": {"amount": 10_000},
            "mahjong.score_hand": {"number": 1, "winner": "E", "hand": "123m456p789s11z", "win_tile": "1z",
                                   "tsumo": True},
            "mahjong.draw": {"number": 1},
            # an invalid definition / a too-short password: 422 for the allowed, nothing stored
            "administration.upload_game": {"definition": "id: authz"},
            "administration.approve_game": {}, "administration.reject_game": {"reason": "authz"},
            "administration.create_user": {"username": "authz-user", "password": "short", "role": "host"},
            "administration.update_user": {"active": True},
            "accounting.drop_count": {"day": "2000-01-03", "bills": {"10000": 1}},
            "accounting.drop_schedule": {"weekdays": [1, 2, 3, 4, 5, 6, 7], "reason": "authz"},
            "accounting.accept_variance": {"reason": "authz"},
        }
        return bodies.get(endpoint)

    def query(self, endpoint: str) -> str:
        if endpoint == "screens.jackpot_stream":
            r = self.api.as_staff("operator", "POST", "/api/v1/screens/stream-token", key=None)
            assert r.status_code == 200, r.json
            return f"?token={r.json['token']}"
        return {"jackpots.stream": "?max_seconds=0", "players.find": f"?card_number={self.p1['card_number']}"}.get(
            endpoint, "")


def _first_ticket(body: dict) -> str:
    tickets = body.get("tickets") or [body.get("ticket")]
    return tickets[0]["validation_number"]


def _requests(app, floor: Floor):
    """(endpoint, method, url, body) for every rule of the url_map."""
    out = []
    for rule in app.url_map.iter_rules():
        if rule.endpoint not in ALLOWED:
            continue  # test_every_endpoint_is_in_the_matrix reports it
        values = floor.path_values(rule.endpoint)
        missing = [a for a in rule.arguments if a not in values]
        assert not missing, (f"the authz matrix has no sample value for path variable(s) {missing} of "
                             f"{rule.rule}: add them to Floor.path_values in {__file__}")
        url = rule.build({a: values[a] for a in rule.arguments})[1] + floor.query(rule.endpoint)
        for method in sorted(rule.methods - {"HEAD", "OPTIONS"}):
            out.append((rule.endpoint, method, url, floor.body(rule.endpoint)))
    out.sort(key=lambda r: RUN_LAST.index(r[0]) + 1 if r[0] in RUN_LAST else 0)
    return out


def _call(api, floor: Floor, caller: str, method: str, url: str, body):
    headers = {**floor.headers(caller), "Idempotency-Key": uuid.uuid4().hex}
    r = api.client.open(url, method=method, json=body, headers=headers)
    try:
        return r.status_code, (r.get_json(silent=True) or {}) if r.is_json else {}
    finally:
        r.close()


def _snapshot(app) -> dict:
    engine = app.extensions["slotsys"].uow.engine
    counts = {}
    with engine.connect() as c:
        for name in sa.inspect(engine).get_table_names():
            counts[name] = c.execute(sa.text(f'SELECT count(*) FROM "{name}"')).scalar_one()
    return counts


def test_every_endpoint_is_in_the_matrix(app):
    """A new endpoint must be given its callers here, or this fails telling the developer what to add."""
    endpoints = {r.endpoint for r in app.url_map.iter_rules()}
    missing = sorted(endpoints - ALLOWED.keys())
    assert not missing, (
        f"endpoint(s) {missing} are not in the authorisation matrix: add each to ALLOWED in {__file__} with the "
        "callers its role checks let through (e.g. staff('operator'), MACHINE, PLAYER | staff('host'), PUBLIC)")
    stale = sorted(ALLOWED.keys() - endpoints)
    assert not stale, f"ALLOWED names endpoints that no longer exist: {stale}; remove them from {__file__}"


def test_authorisation_matrix(api, app):
    floor = Floor(api)
    reqs = _requests(app, floor)
    assert len(reqs) >= 100

    # 1. every denied caller first: 401/403 and nothing changes anywhere
    before_rows, before_audit = _snapshot(app), api.audit()
    wrong: list[str] = []
    denied = 0
    for endpoint, method, url, body in reqs:
        for caller in CALLERS:
            if caller in ALLOWED[endpoint]:
                continue
            status, problem = _call(api, floor, caller, method, url, body)
            denied += 1
            if status not in (401, 403):
                wrong.append(f"{caller:>13} {method} {url} → {status} {problem.get('detail', '')} (expected 401/403)")
            elif "type" not in problem:
                wrong.append(f"{caller:>13} {method} {url} → {status} without a problem+json body")
    assert not wrong, "reachable without the right role:\n" + "\n".join(wrong)
    after_rows = _snapshot(app)
    changed = {k: (before_rows[k], after_rows[k]) for k in before_rows if before_rows[k] != after_rows[k]}
    assert not changed, f"denied calls changed rows: {changed}"
    assert api.audit() == before_audit
    assert denied > 1000

    # 2. every allowed caller: the role check lets it through (the business rules may still refuse: 404/409/422)
    for endpoint, method, url, body in reqs:
        for caller in CALLERS:
            if caller not in ALLOWED[endpoint]:
                continue
            status, problem = _call(api, floor, caller, method, url, body)
            if status in (401, 403):
                wrong.append(f"{caller:>13} {method} {url} → {status} {problem.get('detail', '')} (expected allowed)")
    assert not wrong, "the right role is refused:\n" + "\n".join(wrong)
    api._tokens.clear()  # staff.logout (run last) revoked every role's token: sign in again
    assert api.audit()["balanced"] is True


def test_the_screens_stream_needs_its_token(api):
    """/api/v1/screens/jackpot-stream is authorised by its ?token=, not by a bearer header."""
    operator = {"Authorization": f"Bearer {api.staff_token('operator')}"}
    for query in ("", "?token=", "?token=forged.token", "?token=" + "x" * 500):
        r = api.client.get(f"/api/v1/screens/jackpot-stream{query}", headers=operator)
        try:
            assert r.status_code == 401 and r.headers["Content-Type"] == "application/problem+json", (query, r.status_code)
        finally:
            r.close()
