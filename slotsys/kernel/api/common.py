"""Helpers shared by the route modules: the services container, the caller, replies."""

from __future__ import annotations

from typing import Annotated, Any, Callable

from flask import current_app, g, request
from pydantic import BaseModel, ConfigDict, Field, field_validator

from slotsys.kernel.context import Principal
from slotsys.kernel.idempotency import Once, OnceKey, fingerprint

MAX_WON = 10**12  # bounds every amount the API accepts (BIGINT-safe)
Won = Annotated[int, Field(strict=True, gt=0, le=MAX_WON, description="integer won")]
SmallInt = Annotated[int, Field(strict=True, ge=-(10**6), le=10**6)]
MAX_ID = 2**31 - 1  # the id and number columns are SQL INTEGER (32-bit signed): 1 … MAX_ID
RecordId = Annotated[int, Field(strict=True, ge=1, le=MAX_ID,
                                description="a record id: 1 … 2,147,483,647 (the SQL INTEGER column it is looked up in)")]
"""Every id in a body (``player_id``, …): a strict integer within the column's range, else 422 naming the field. The
same bound holds for ``<int:…>`` path variables (``slotsys.app.factory``) and id query parameters (:data:`QueryId`)."""
QueryId = Annotated[int, Field(ge=1, le=MAX_ID, description="1 … 2,147,483,647")]
"""An id or number given as a query parameter (text, so not strict): ASCII digits within the column's range."""


def Limit(maximum: int):  # noqa: N802 - a type factory, used like a type: ``limit: Limit(500) = 25``
    """``?limit=`` of a list: ASCII digits, 1 … ``maximum`` (422 naming ``limit`` outside; never clamped)."""
    return Annotated[int, Field(ge=1, le=maximum, description=f"rows, 1 … {maximum}")]


class QueryModel(BaseModel):
    """The query parameters of a GET, declared with ``@bp.input(M, location="query", arg_name="query")``: a bad
    value is a 422 naming the parameter before the route runs (unknown parameters are ignored, as HTTP caches and
    browsers add their own). Text is bounded like body text; NUL is refused earlier (400, ``slotsys.app.factory``)."""

    model_config = ConfigDict(extra="ignore", str_max_length=200)


class StrictModel(BaseModel):
    model_config = ConfigDict(extra="forbid", str_max_length=200)

    @field_validator("*", mode="after")
    @classmethod
    def _no_nul(cls, value):
        """A text field never holds NUL (PostgreSQL text cannot store it): 422 naming the field."""
        if isinstance(value, str) and "\x00" in value:
            raise ValueError("must not contain the NUL character")
        return value


def services():
    return current_app.extensions["slotsys"]


def principal() -> Principal:
    """The authenticated caller (401 problem if none)."""
    p = g.get("principal")
    if p is None:
        p = services().auth.authenticate(request.headers.get("Authorization"))
        g.principal = p
    return p


def player_token_hook(endpoints: set[str] | frozenset[str]):
    """A before-request hook for a blueprint: on ``endpoints`` a ``pl_…`` bearer token (from
    /players/login) authenticates the player, before the app's own authentication (which knows machine
    keys and staff tokens only). ``bp.before_app_request(player_token_hook(PLAYER_ENDPOINTS))``."""

    def _player_token() -> None:
        if request.endpoint not in endpoints:
            return
        scheme, _, token = (request.headers.get("Authorization") or "").partition(" ")
        token = token.strip()
        if scheme.lower() == "bearer" and token.startswith("pl_"):
            g.principal = services().players.authenticate(token)

    return _player_token


def idem_key() -> str | None:
    return request.headers.get("Idempotency-Key")


def once_key(path: str, payload: Any = None, method: str = "POST", *,
             status: int | Callable[[Any], int] = 200) -> OnceKey:
    """The exactly-once identity of this HTTP request: the caller, its ``Idempotency-Key`` header and the
    fingerprint of (method, ``path``, ``payload``): the same key with another request is refused (422). ``status``:
    the status a first success answers with (a number, or a function of the result: the one given to
    :func:`reply_once`), recorded beside the result."""
    return OnceKey(principal().id, idem_key(), fingerprint(method, path, payload), status)


def reply(status: int, body: dict, replayed: bool):
    headers = {"Idempotent-Replayed": "true"} if replayed else {}
    return body, status, headers


def reply_once(once: Once, status: int | Callable[[Any], int] = 200, render: Callable[[Any], dict] | None = None):
    """The answer to an exactly-once use case: its result rendered as JSON (``render(result)``, default the
    model's own ``model_dump(mode="json")``) with ``status`` (a number, or a function of the result), and
    ``Idempotent-Replayed: true`` on a replay. A record from before typed results is answered as it was stored."""
    if once.stored is not None and once.result is None:
        code, body = once.stored
        return reply(code, body, once.replayed)
    result = once.result
    body = render(result) if render else result.model_dump(mode="json")
    return reply(status(result) if callable(status) else status, body, once.replayed)


AUTH_DOC = {"security": [{"BearerAuth": []}]}
