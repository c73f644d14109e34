"""The API contract in ``/openapi.json``: what each operation answers, declared beside the route.

A route says what a success looks like with :func:`answers`::

    @bp.post("/<asset>/spin")
    @bp.input(SpinIn, arg_name="body")
    @bp.doc(summary="Play one game; needs Idempotency-Key", **AUTH_DOC)
    @answers(SpinResult, once=True)
    def spin(asset: str, body: SpinIn): ...

and :func:`document_contract` (an OpenAPI spec processor, run before
:func:`slotsys.kernel.api.problems.document_problems`) writes it into the document:

* ``operationId`` on every operation: the endpoint with ``_`` for ``.`` (``machines_spin``), plus ``_<method>``
  when one view answers several methods; stable as long as the endpoint keeps its name;
* the success response(s): the status the route answers (201 where it creates), the pydantic model's JSON schema
  (``mode="serialization"``, the shape of ``model_dump(mode="json")``) as a ``#/components/schemas`` reference, or
  the media type of a file or stream (PDF, PNG, SVG, CSV, XLSX, ``text/event-stream``, Prometheus text);
* exactly-once operations (``once=True``: the route calls ``once_key``): the required ``Idempotency-Key`` request
  header, the ``Idempotent-Replayed`` response header on success;
* the refusals every operation may answer beyond its own: 403 for authenticated ones, 409 on a state-changing one,
  400, 413 and 415 where it takes a body, 422 where a path variable, query parameter, body or key is validated, 429 where the use case throttles
  (``throttled=True``), 503 on any that reads the database; 429 and 503 with ``Retry-After``.

A model may be named by its class name (a string) when the route module may not import it (a feature's result
another feature owns): it is then looked up among the models other routes declare (an unknown name fails the
document's generation, so the contract tests catch it); the composition root makes such models known with
:func:`provide`.

Only the document changes: :func:`answers` neither validates nor serialises the route's answer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from pydantic import BaseModel, ConfigDict
from pydantic.json_schema import models_json_schema

PDF = "application/pdf"
PNG = "image/png"
CSV = "text/csv"
XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
SVG = "image/svg+xml"  # a chart (XML text)
EVENT_STREAM = "text/event-stream"
TEXT = "text/plain"
PROMETHEUS = "text/plain; version=1.0.0"  # prometheus_client's CONTENT_TYPE_LATEST (0.26: 1.0.0, UTF-8 names)
BINARY_MEDIA = {PDF, PNG, XLSX}

IDEMPOTENCY_KEY = {
    "name": "Idempotency-Key", "in": "header", "required": True,
    "description": "The client's key of this request (1-200 printable ASCII characters): a retry with the same key "
                   "answers the first result and moves nothing; the same key with another request is a 422.",
    "schema": {"type": "string", "minLength": 1, "maxLength": 200, "pattern": "^[!-~]+$"},
}
REPLAYED_HEADER = {"description": "`true` when this answer is the replay of an earlier request with the same "
                                  "Idempotency-Key (nothing was moved again)",
                   "schema": {"type": "string", "enum": ["true"]}}
RETRY_AFTER_HEADER = {"description": "seconds to wait before retrying (RFC 9110 §10.2.3)",
                      "schema": {"type": "integer", "minimum": 1}}

_REASONS = {200: "OK", 201: "Created", 202: "Accepted (pending a second approval)", 204: "No Content"}
_ERRORS = {400: "Bad request: the body is not valid JSON (UTF-8, no duplicate keys, not nested too deeply)",
           403: "Forbidden: the caller's role or identity may not do this",
           413: "The body is larger than the server accepts",
           415: "The body is not application/json",
           409: "Conflict: the state does not allow it (e.g. already done, insufficient funds, machine locked)",
           422: "The request is not valid (the field is named)",
           429: "Too many attempts: retry after Retry-After seconds",
           503: "Service unavailable or busy: retry after Retry-After seconds (with the same Idempotency-Key)"}


@dataclass(frozen=True)
class Contract:
    model: type[BaseModel] | str | dict | None
    status: tuple[int, ...]
    media: tuple[str, ...] = ()
    once: bool = False
    throttled: bool = False
    description: str | None = None


_models: dict[str, type[BaseModel]] = {}


def answers(model: type[BaseModel] | str | dict | None = None, *, status: int | tuple[int, ...] = 200,
            media: str | tuple[str, ...] = (), once: bool = False, throttled: bool = False,
            description: str | None = None) -> Callable:
    """Declare what a route answers on success (documentation only; see the module's docstring).

    ``model``: the pydantic model of the JSON body (a :class:`Shape` for an answer still built as a dict), its
    class name, or a JSON schema dict; ``status``: the success status, or several (``(200, 201)``: 201 when it created);
    ``media``: the media type(s) of a non-JSON answer, or ``CSV`` beside the JSON of a report's ``?format=csv``;
    ``once``: an exactly-once operation (needs ``Idempotency-Key``); ``throttled``: may answer 429."""
    statuses = (status,) if isinstance(status, int) else tuple(status)
    medias = (media,) if isinstance(media, str) else tuple(media)
    if isinstance(model, type) and issubclass(model, BaseModel):
        known = _models.setdefault(model.__name__, model)
        if known is not model:
            raise ValueError(f"two response models are named {model.__name__}: {known.__module__}, {model.__module__}")

    def mark(fn):
        fn._contract = Contract(model, statuses, medias, once, throttled, description)
        return fn

    return mark


def provide(*models: type[BaseModel]) -> None:
    """Make ``models`` known by name to the routes that may not import them (the composition root calls this for a
    feature's results another feature's routes answer)."""
    for model in models:
        known = _models.setdefault(model.__name__, model)
        if known is not model:
            raise ValueError(f"two response models are named {model.__name__}: {known.__module__}, {model.__module__}")


def contract_of(view) -> Contract | None:
    return getattr(view, "_contract", None)


def _path(rule: str) -> str:
    import re

    return re.sub(r"<(?:[^:<>]+:)?([^<>]+)>", r"{\1}", rule)


SSE_EVENT = {
    "type": "object", "description": "one Server-Sent Event (WHATWG HTML §9.2): `event: <name>` and `data: <JSON>`",
    "properties": {"event": {"type": "string", "description": "meters, hit, … (end when the stream ends)"},
                   "data": {"type": "string", "description": "the event as JSON text"},
                   "id": {"type": "string"}, "retry": {"type": "integer", "minimum": 0}},
}


def _media_schema(media: str) -> dict:
    if media in BINARY_MEDIA:
        return {"type": "string", "format": "binary"}
    if media == EVENT_STREAM:
        return SSE_EVENT
    return {"type": "string"}


def document_contract(app, spec: dict) -> dict:
    """OpenAPI spec processor: operationIds, success schemas and media types, the exactly-once headers and the
    refusals (see the module's docstring) of every operation of ``app``."""
    ops: dict[tuple[str, str], tuple[str, Any, int]] = {}
    for rule in app.url_map.iter_rules():
        methods = sorted(m for m in (rule.methods or ()) if m in ("GET", "POST", "PUT", "PATCH", "DELETE"))
        for m in methods:
            ops[(_path(rule.rule), m.lower())] = (rule.endpoint, app.view_functions[rule.endpoint], len(methods))

    models = sorted({id(m): m for m in _models.values()}.values(), key=lambda m: m.__name__)
    refs: dict[str, dict] = {}
    if models:
        mapping, top = models_json_schema([(m, "serialization") for m in models],
                                          ref_template="#/components/schemas/{model}")
        schemas = spec.setdefault("components", {}).setdefault("schemas", {})
        for name, schema in top.get("$defs", {}).items():
            if name in schemas and schemas[name] != schema:
                raise ValueError(f"the response schema {name} differs from a request schema of the same name")
            schemas[name] = schema
        refs = {m.__name__: mapping[(m, "serialization")] for m in models}

    for path, item in spec.get("paths", {}).items():
        for method, op in item.items():
            if not isinstance(op, dict) or "responses" not in op:
                continue
            endpoint, view, n_methods = ops[(path, method)]
            op["operationId"] = endpoint.replace(".", "_") + (f"_{method}" if n_methods > 1 else "")
            c = contract_of(view)
            if c is None:
                continue
            _document(op, c, refs, path, method)
    return spec


def _document(op: dict, c: Contract, refs: dict[str, dict], path: str, method: str) -> None:
    responses = op["responses"]
    stale = [code for code in responses if code.startswith("2") and int(code) not in c.status]
    for code in stale:
        del responses[code]
    content: dict[str, Any] = {}
    if isinstance(c.model, dict):
        content["application/json"] = {"schema": c.model}
    elif isinstance(c.model, str):
        if c.model not in refs:
            raise ValueError(f"{path} {method}: no route declares a response model named {c.model}")
        content["application/json"] = {"schema": refs[c.model]}
    elif c.model is not None:
        content["application/json"] = {"schema": refs[c.model.__name__]}
    for media in c.media:
        content[media] = {"schema": _media_schema(media)}
    for status in c.status:
        resp: dict[str, Any] = {"description": c.description or _REASONS.get(status, "Success"), "content": content}
        if c.once:
            resp["headers"] = {"Idempotent-Replayed": REPLAYED_HEADER}
        responses[str(status)] = resp

    params = op.setdefault("parameters", [])
    if c.once and not any(p.get("in") == "header" and p.get("name") == "Idempotency-Key" for p in params):
        params.append(dict(IDEMPOTENCY_KEY))
    secured = bool(op.get("security"))
    validated = c.once or any(p.get("in") in ("path", "query") for p in params) or "requestBody" in op
    extra = []
    if secured:
        extra.append(403)
    if method != "get" or c.once:
        extra.append(409)
    if "requestBody" in op:
        extra += [400, 413, 415]
    if validated:
        extra.append(422)
    if c.throttled:
        extra.append(429)
    if path not in ("/healthz", "/metrics"):
        extra.append(503)
    for code in extra:
        resp = responses.setdefault(str(code), {"description": _ERRORS[code]})
        if code in (429, 503):
            resp.setdefault("headers", {})["Retry-After"] = RETRY_AFTER_HEADER


class Shape(BaseModel):
    """The documented shape of an answer its service still builds as a plain dict: the top-level fields it always
    has, typed as far as they are stable; items and any further fields are open (``additionalProperties``)."""

    model_config = ConfigDict(extra="allow")
