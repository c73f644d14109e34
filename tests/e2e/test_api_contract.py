"""The contract an integrator generates a client from: ``/openapi.json`` walked operation by operation, and the API
checked against it where the document alone cannot say it.

* every operation has an operationId, unique and stable (``machines_spin``);
* every success response has a JSON schema that resolves (a pydantic model's: the use case's result, or the
  ``Shape`` of an answer still built as a dict) or the right non-JSON media type (PDF, PNG, CSV, XLSX, an event stream, Prometheus text);
* a route answering 201 documents 201 (not 200), and its exactly-once key records the status it answers;
* every exactly-once operation (its route calls ``once_key``) declares the required ``Idempotency-Key`` header and
  the ``Idempotent-Replayed`` response header; no other operation declares them;
* 429 and 503 declare ``Retry-After``; every error is problem+json;
* no route reads a query parameter it does not declare; every declared one has a type; a bad value
  (``?limit=abc``, ``?limit=-1``, ``?format=xml`` …) is a 422 problem naming it, never a 500 nor ignored.
"""

from __future__ import annotations

import ast
import inspect
import re
import textwrap

import pytest

from tests.helpers import conforms as _conforms
from slotsys.kernel.api.contract import BINARY_MEDIA, CSV, EVENT_STREAM, PROMETHEUS, SVG, TEXT

METHODS = ("get", "post", "put", "patch", "delete")
NON_JSON = BINARY_MEDIA | {CSV, EVENT_STREAM, PROMETHEUS, SVG, TEXT}


@pytest.fixture
def spec(app) -> dict:
    r = app.test_client().get("/openapi.json")
    assert r.status_code == 200
    return r.json


def operations(spec: dict):
    for path, item in spec["paths"].items():
        for method, op in item.items():
            if method in METHODS:
                yield path, method, op


def endpoints(app) -> dict[tuple[str, str], str]:
    """(OpenAPI path, method) → the Flask endpoint serving it."""
    out = {}
    for rule in app.url_map.iter_rules():
        path = re.sub(r"<(?:[^:<>]+:)?([^<>]+)>", r"{\1}", rule.rule)
        for m in rule.methods or ():
            out[(path, m.lower())] = rule.endpoint
    return out


def source(app, endpoint: str) -> str:
    return textwrap.dedent(inspect.getsource(inspect.unwrap(app.view_functions[endpoint])))


def resolve(spec: dict, schema: dict) -> dict:
    while "$ref" in schema:
        name = schema["$ref"].removeprefix("#/components/schemas/")
        assert name in spec["components"]["schemas"], f"unresolved {schema['$ref']}"
        schema = spec["components"]["schemas"][name]
    return schema


def test_every_operation_has_a_unique_stable_operation_id(spec):
    ids = [op.get("operationId") for _, _, op in operations(spec)]
    assert len(ids) >= 200 and all(ids), [i for i in ids if not i]
    assert len(set(ids)) == len(ids), sorted(i for i in ids if ids.count(i) > 1)
    assert all(re.fullmatch(r"[a-z][a-z0-9_]*", i) for i in ids), ids
    by_op = {(p, m): op["operationId"] for p, m, op in operations(spec)}
    assert by_op[("/api/v1/machines/{asset}/spin", "post")] == "machines_spin"
    assert by_op[("/api/v1/players/{player_id}/deposit", "post")] == "players_deposit"
    assert by_op[("/api/v1/tickets/{number}/ticket.pdf", "get")] == "tickets_ticket_pdf"
    assert by_op[("/metrics", "get")] == "system_metrics"


def test_every_success_response_has_a_schema_or_its_media_type(spec):
    models = generic = files = 0
    for path, method, op in operations(spec):
        successes = {code: r for code, r in op["responses"].items() if code.startswith("2")}
        assert successes, f"{method} {path}: no success response"
        for code, resp in successes.items():
            content = resp.get("content") or {}
            assert content, f"{method} {path} {code}: no content"
            for media, body in content.items():
                schema = body.get("schema")
                assert schema, f"{method} {path} {code} {media}: empty schema"
                if media == "application/json":
                    target = resolve(spec, schema)
                    assert target.get("type") == "object" or target.get("properties"), (path, target)
                    if "$ref" in schema:
                        models += 1
                    else:
                        generic += 1
                else:
                    assert media in NON_JSON, f"{method} {path}: {media}"
                    assert schema["type"] == ("object" if media == EVENT_STREAM else "string")
                    files += 1
    assert models >= 190 and files >= 20 and generic == 0, (models, generic, files)


@pytest.mark.parametrize("path, media", [
    ("/api/v1/tickets/{number}/ticket.pdf", "application/pdf"),
    ("/api/v1/tickets/{number}/ticket.png", "image/png"),
    ("/api/v1/tickets/{number}/qr.png", "image/png"),
    ("/api/v1/tickets/{number}/barcode.png", "image/png"),
    ("/api/v1/games/{game_id}/par-sheet/{chart}.png", "image/png"),
    ("/api/v1/accounting/days/{day}/export.pdf", "application/pdf"),
    ("/api/v1/accounting/days/{day}/export.csv", "text/csv"),
    ("/api/v1/accounting/days/{day}/export.xlsx",
     "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"),
    ("/api/v1/jackpots/stream", "text/event-stream"),
    ("/api/v1/screens/jackpot-stream", "text/event-stream"),
    ("/api/v1/poker/tables/{code}/hands/{number}/phh", "text/plain"),
    ("/metrics", "text/plain; version=1.0.0"),
])
def test_files_and_streams_are_documented_with_their_media_type(spec, path, media):
    content = spec["paths"][path]["get"]["responses"]["200"]["content"]
    assert list(content) == [media]


def test_reports_document_their_csv_download_beside_the_json(spec):
    reports = [(p, op) for p, m, op in operations(spec)
               if any(q["name"] == "format" and q["in"] == "query" for q in op.get("parameters", []))]
    assert len(reports) >= 11
    for path, op in reports:
        assert set(op["responses"]["200"]["content"]) == {"application/json", "text/csv"}, path


def test_the_metrics_media_type_is_what_the_endpoint_sends(app, spec):
    r = app.test_client().get("/metrics")
    assert r.status_code == 200
    assert r.headers["Content-Type"].startswith(next(iter(spec["paths"]["/metrics"]["get"]["responses"]["200"]["content"])))


def test_created_answers_are_documented_as_201(app, spec):
    eps = endpoints(app)
    created = 0
    for path, method, op in operations(spec):
        src = source(app, eps[(path, method)])
        if re.search(r"status=201\b|, 201\)?$|\b201 if\b|else 201\b", src, re.M):
            created += 1
            assert "201" in op["responses"], f"{method} {path} answers 201"
            if not re.search(r"\b200\b", src):  # 200 only where the route may answer it (a day already closed)
                assert "200" not in op["responses"], f"{method} {path} documents 200 but answers 201"
    assert created >= 33
    # the two whose status is a function of the outcome (named functions the regex does not follow)
    assert {"200", "201"} <= set(spec["paths"]["/api/v1/accounting/days/{day}/close"]["post"]["responses"])
    promo = spec["paths"]["/api/v1/tickets/promotional"]["post"]["responses"]
    assert {"201", "202"} <= set(promo) and "200" not in promo


def test_exactly_once_operations_declare_their_headers(app, spec):
    eps = endpoints(app)
    once = 0
    for path, method, op in operations(spec):
        calls_once_key = "once_key(" in source(app, eps[(path, method)])
        keys = [p for p in op.get("parameters", []) if p["in"] == "header" and p["name"] == "Idempotency-Key"]
        assert bool(keys) == calls_once_key, f"{method} {path}"
        if not calls_once_key:
            continue
        once += 1
        assert keys[0]["required"] is True and keys[0]["schema"]["maxLength"] == 200
        for code, resp in op["responses"].items():
            if code.startswith("2"):
                assert "Idempotent-Replayed" in resp["headers"], f"{method} {path} {code}"
        for code in ("409", "422", "503"):
            assert code in op["responses"], f"{method} {path} {code}"
    assert once >= 55


def test_retry_after_and_problem_json_on_refusals(spec):
    throttled = 0
    for path, method, op in operations(spec):
        for code, resp in op["responses"].items():
            if code[:1] in "45" or code == "default":
                assert list(resp["content"]) == ["application/problem+json"], f"{method} {path} {code}"
            if code in ("429", "503"):
                assert resp["headers"]["Retry-After"]["schema"] == {"type": "integer", "minimum": 1}
        throttled += "429" in op["responses"]
        if path.startswith("/api/v1/") and op.get("security"):
            assert "403" in op["responses"], f"{method} {path}"
        if method != "get":
            assert "409" in op["responses"], f"{method} {path}"
        if "requestBody" in op:
            assert {"400", "413", "415", "422"} <= set(op["responses"]), f"{method} {path}"
    assert throttled >= 10
    login = spec["paths"]["/api/v1/auth/login"]["post"]["responses"]
    assert "429" in login and "503" in login


def test_routes_read_only_declared_query_parameters(app, spec):
    """No route reads ``request.args`` (or ``request.values``) itself: its query parameters come from a declared
    ``QueryModel``, so they are in the document with their types and a bad value is a 422 before the route runs."""
    eps = endpoints(app)
    documented = {eps[(path, method)] for path, method, _ in operations(spec)}
    assert len(documented) >= 195
    for endpoint in sorted(documented):
        assert not re.search(r"request\.(args|values)", source(app, endpoint)), endpoint
    declared = 0
    for path, _method, op in operations(spec):
        for p in op.get("parameters", []):
            if p["in"] == "query":
                declared += 1
                schema = p["schema"]
                assert schema.get("type") or schema.get("anyOf") or schema.get("enum") or schema.get("$ref"), (path, p)
    assert declared >= 60
    token = {p["name"] for p in spec["paths"]["/api/v1/screens/jackpot-stream"]["get"]["parameters"]}
    assert "token" in token


def test_an_exactly_once_route_records_the_status_it_answers_with_its_key():
    """``reply_once(…, status=S)`` goes with ``once_key(…, status=S)`` (201, or the function deciding 200/201/202):
    the record keeps the status the first answer had, so a replay from a record in an older shape answers it too."""
    import glob

    checked = 0
    for path in glob.glob("**/api/*.py", recursive=True):
        tree = ast.parse(open(path, encoding="utf-8").read())
        for fn in (n for n in tree.body if isinstance(n, ast.FunctionDef)):
            calls = [n for n in ast.walk(fn) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)]
            answered = {ast.dump(k.value) for c in calls if c.func.id == "reply_once" for k in c.keywords
                        if k.arg == "status"}
            if not answered:
                continue
            assert len(answered) == 1 and "Lambda" not in next(iter(answered)), f"{path}:{fn.name}: name the function"
            keys = [c for c in calls if c.func.id == "once_key"]
            assert keys, f"{path}:{fn.name}"
            for c in keys:
                checked += 1
                recorded = {ast.dump(k.value) for k in c.keywords if k.arg == "status"}
                assert recorded == answered, f"{path}:{fn.name}"
    assert checked >= 20


def test_a_201_replay_answers_201_marked_replayed(api):
    first = api.as_staff("host", "POST", "/api/v1/players", {"name": "Contract Kim", "pin": "2468"}, key="enrol-1")
    again = api.as_staff("host", "POST", "/api/v1/players", {"name": "Contract Kim", "pin": "2468"}, key="enrol-1")
    assert first.status_code == 201 and "Idempotent-Replayed" not in first.headers
    assert again.status_code == 201 and again.headers["Idempotent-Replayed"] == "true"
    assert again.json == first.json


def test_the_exactly_once_record_keeps_201(app, api):
    api.as_staff("host", "POST", "/api/v1/players", {"name": "Contract Lee", "pin": "1357"}, key="enrol-2")
    import sqlalchemy as sa

    with app.extensions["slotsys"].uow.engine.connect() as c:
        codes = c.execute(sa.text("SELECT status_code FROM idempotency_records WHERE key = 'enrol-2'")).scalars().all()
    assert codes == [201]


@pytest.mark.parametrize("amount, status", [(10_000, 201), (2_000_000, 202)])  # 202: pending dual control
def test_the_record_keeps_the_status_the_outcome_decided(app, api, amount, status):
    key = f"promo-{amount}"
    r = api.as_staff("supervisor", "POST", "/api/v1/tickets/promotional", {"amount": amount, "reason": "contract"},
                     key=key)
    assert r.status_code == status, r.json
    again = api.as_staff("supervisor", "POST", "/api/v1/tickets/promotional", {"amount": amount, "reason": "contract"},
                         key=key)
    assert again.status_code == status and again.headers["Idempotent-Replayed"] == "true"
    import sqlalchemy as sa

    with app.extensions["slotsys"].uow.engine.connect() as c:
        codes = c.execute(sa.text("SELECT status_code FROM idempotency_records WHERE key = :k"), {"k": key}).scalars()
        assert list(codes) == [status]


BAD_QUERIES = [
    ("host", "/api/v1/players/{player}/points?limit=abc", "limit"),
    ("host", "/api/v1/players/{player}/points?limit=-1", "limit"),
    ("host", "/api/v1/players/{player}/points?limit=0", "limit"),
    ("host", "/api/v1/players/{player}/points?limit=501", "limit"),
    ("host", "/api/v1/players/{player}/statement?wallet=gold", "wallet"),
    ("attendant", "/api/v1/alerts?limit=abc", "limit"),
    ("attendant", "/api/v1/alerts?before_id=x", "before_id"),
    ("attendant", "/api/v1/handpays?before_id=0", "before_id"),
    ("supervisor", "/api/v1/accounting/variances?limit=1.5", "limit"),
    ("supervisor", "/api/v1/accounting/variances?day=yesterday", "day"),
    ("operator", "/api/v1/jackpots/hits?limit=abc", "limit"),
    ("operator", "/api/v1/jackpots/hits?format=xml", "format"),
    ("auditor", "/api/v1/jackpots/events?limit=1001", "limit"),
    ("auditor", "/api/v1/staff/auth-events?limit=abc", "limit"),
    ("operator", "/api/v1/banks?zone=" + "Z" * 300, "zone"),
    ("operator", "/api/v1/jackpots/stream?max_seconds=abc", "max_seconds"),
    ("cashier", "/api/v1/tickets/000000000000000000/ticket.png?dpi=abc", "dpi"),
]


@pytest.mark.parametrize("role, url, field", BAD_QUERIES)
def test_a_bad_query_value_is_a_422_naming_it(api, role, url, field):
    player = api.creds["players"][0]["player"]
    r = api.as_staff(role, "GET", url.format(player=player), key=None)
    assert r.status_code == 422, (r.status_code, r.get_data(as_text=True)[:300])
    assert r.mimetype == "application/problem+json"
    assert r.json["field"] == field and r.json["errors"][0]["location"] == "query"
    assert field in r.json["detail"]


def test_a_bad_stream_token_query_is_refused_before_the_stream_opens(app):
    client = app.test_client()
    too_long = client.get("/api/v1/screens/jackpot-stream?token=" + "a" * 4097)
    assert too_long.status_code == 422 and too_long.json["field"] == "token"
    forged = client.get("/api/v1/screens/jackpot-stream?token=" + "a" * 500)  # the service's own refusal, as before
    assert forged.status_code == 401 and forged.json["field"] == "token"
    missing = client.get("/api/v1/screens/jackpot-stream")
    assert missing.status_code == 401 and missing.json["field"] == "token"


def test_the_jackpot_event_log_honours_format_csv(api):
    as_json = api.as_staff("auditor", "GET", "/api/v1/jackpots/events", key=None)
    assert as_json.status_code == 200 and isinstance(as_json.json["events"], list)
    as_csv = api.as_staff("auditor", "GET", "/api/v1/jackpots/events?format=csv", key=None)
    assert as_csv.status_code == 200 and as_csv.mimetype == "text/csv"
    assert as_csv.headers["Content-Disposition"] == 'attachment; filename="slotsys_jackpot_events_events.csv"'


def _bad_values(schema: dict) -> list[str]:
    """Query values the parameter's declared schema refuses."""
    out = []
    for b in (x for x in schema.get("anyOf", [schema]) if x.get("type") != "null"):
        if "enum" in b or "const" in b:
            out.append("not-one-of-them")
        elif b.get("type") == "integer":
            out += ["abc", "1.5", str(b["minimum"] - 1), str(b["maximum"] + 1)]
        elif b.get("type") == "number":
            out += ["abc", str(b["minimum"] - 1)]
        elif b.get("type") == "boolean":
            out.append("maybe")
        elif b.get("format") in ("date", "date-time"):
            out.append("yesterday")
        elif "maxLength" in b:
            out.append("x" * (b["maxLength"] + 1))
    return out


def test_every_declared_query_parameter_is_bounded_and_refuses_a_bad_value(api, spec):
    """Walks the document: each query parameter is typed and bounded (an enum, a format, a length or a range),
    and each value outside it is a 422 problem naming the parameter before the route runs (query validation comes
    before any lookup or role check, so one authenticated caller and any path variable will do)."""
    headers = {"Authorization": f"Bearer {api.staff_token('auditor')}"}
    checked = 0
    for path, method, op in operations(spec):
        params = [p for p in op.get("parameters", []) if p["in"] == "query"]
        if not params:
            continue
        url = re.sub(r"\{[^}]+\}", "1", path)
        for p in params:
            bad = _bad_values(p["schema"])
            assert bad, f"{method} {path} ?{p['name']}= is not bounded: {p['schema']}"
            for value in bad:
                r = api.client.open(url, method=method.upper(), query_string={p["name"]: value}, headers=headers)
                assert r.status_code == 422, (path, p["name"], value, r.status_code, r.get_data(as_text=True)[:200])
                assert r.mimetype == "application/problem+json" and r.json["field"] == p["name"], (path, r.json)
                checked += 1
    assert checked >= 150


def test_the_shapes_of_dict_answers_hold_for_real_answers(api, spec):
    """The answers still built as dicts are documented by hand-written shapes (``Shape``): each is checked here
    against a real answer of its endpoint (Schemathesis reaches few of them with valid parameters)."""
    level = api.as_staff("operator", "GET", "/api/v1/jackpots/levels", key=None).json["levels"][0]["code"]
    game = api.as_staff("operator", "GET", "/api/v1/games", key=None).json["games"][0]["id"]
    api.as_machine("M001", "POST", "/api/v1/machines/M001/bill-in", {"amount": 10_000})
    ticket = api.as_machine("M001", "POST", "/api/v1/machines/M001/cash-out").json["ticket"]["validation_number"]
    reads = [
        ("operator", "/api/v1/jackpots/levels"), ("operator", f"/api/v1/jackpots/levels/{level}"),
        ("operator", "/api/v1/jackpots/hits"), ("operator", "/api/v1/jackpots/handpays"),
        ("auditor", "/api/v1/jackpots/events"), ("operator", "/api/v1/jackpots/queue"),
        ("operator", "/api/v1/machines/M001/meters"), ("operator", "/api/v1/machines/M001/games"),
        ("operator", "/api/v1/machine-events/vocabulary"), ("auditor", "/api/v1/audit/log?limit=2"),
        ("operator", "/api/v1/floor/overview"), ("operator", "/api/v1/floor/machines/M001"),
        ("cashier", f"/api/v1/screens/tickets/{ticket}/check"), ("operator", "/api/v1/games"),
        ("operator", f"/api/v1/games/{game}/par-sheet"), ("operator", "/api/v1/floor"),
        ("auditor", "/api/v1/audit/ledger"), ("pit", "/api/v1/tables/house-edges"),
        ("pit", "/api/v1/tables/BAC-01/roadmaps"),
        *[("auditor", f"/api/v1/tito/reports/{r}") for r in
          ("issued", "redeemed", "outstanding", "expired", "voided", "reconciliation", "security")],
    ]
    for role, url in reads:
        r = api.as_staff(role, "GET", url, key=None)
        assert r.status_code == 200, (url, r.json)
        template = next(p for p in spec["paths"] if re.fullmatch(re.sub(r"\{[^}]+\}", "[^/]+", p), url.split("?")[0]))
        _conforms(spec, template, "get", 200, r.json)
    machine = api.as_machine("M001", "GET", "/api/v1/machines/M001/meters", key=None)
    _conforms(spec, "/api/v1/machines/{asset}/meters", "get", 200, machine.json)
    as_machine = api.as_machine("M001", "GET", "/api/v1/jackpots/levels", key=None)
    _conforms(spec, "/api/v1/jackpots/levels", "get", 200, as_machine.json)
    token = api.as_staff("attendant", "POST", "/api/v1/screens/stream-token", key=None)
    _conforms(spec, "/api/v1/screens/stream-token", "post", 200, token.json)
    score = api.as_staff("pit", "POST", "/api/v1/mahjong/score",
                         {"hand": "234m567m345p999s11p", "win_tile": "4m", "riichi": True, "seat_wind": "S"}, key=None)
    assert score.status_code == 200, score.json
    _conforms(spec, "/api/v1/mahjong/score", "post", 200, score.json)
    import pathlib

    phh = sorted((pathlib.Path(__file__).resolve().parents[1] / "data" / "phh").glob("*.phh"))[0].read_text()
    replay = api.as_staff("auditor", "POST", "/api/v1/poker/phh/replay", {"phh": phh}, key=None)
    assert replay.status_code == 200, replay.json
    _conforms(spec, "/api/v1/poker/phh/replay", "post", 200, replay.json)


def test_the_contract_checker_catches_an_answer_outside_the_document(app, api):
    """``SLOTSYS_CHECK_CONTRACT=1`` (tests.helpers.check_contract): a success whose body breaks its documented
    schema is recorded; a conforming one is not."""
    from tests.helpers import check_contract

    mismatches = check_contract(app)
    ok = api.as_staff("host", "GET", "/api/v1/players/config", key=None)
    assert ok.status_code == 200 and mismatches == []
    app.view_functions["players.config"] = lambda: {"tiers": "not a list"}
    bad = api.as_staff("host", "GET", "/api/v1/players/config", key=None)
    assert bad.status_code == 200
    assert len(mismatches) == 1 and mismatches[0].startswith("('/api/v1/players/config', 'get', '200')")
