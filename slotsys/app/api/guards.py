"""Hostile input at the edge of the app, before any route runs (docs/hostile-input.md):

* ids in the path: :class:`IdConverter` (``<int:…>``) plus :func:`path_id_out_of_range` — every id and number
  column is SQL INTEGER (32-bit signed), so a path integer outside 1 … 2,147,483,647 is a 422 naming the path
  variable, never a database error;
* JSON bodies: :class:`StrictJSONProvider` reads a body as UTF-8 only (RFC 8259 §8.1: JSON exchanged between
  systems MUST be UTF-8; Python's ``json.loads(bytes)`` would also take UTF-16 and UTF-32) and refuses a
  duplicate object key anywhere in it (RFC 8259 §4 leaves duplicates undefined; the last one silently won):
  400 problem naming the key, or ``body`` for the encoding (:class:`MalformedBody`);
* response headers: :func:`security_headers` — Content-Security-Policy, ``X-Frame-Options: DENY``,
  ``X-Content-Type-Options: nosniff``, ``Referrer-Policy`` (OWASP Secure Headers); the Swagger UI page gets a
  policy that allows exactly its own inline scripts by hash (CSP Level 2 hash sources).
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from typing import Any
from urllib.parse import urlsplit

from flask import Request, Response
from flask.json.provider import DefaultJSONProvider
from werkzeug.exceptions import RequestEntityTooLarge
from werkzeug.routing import IntegerConverter

from slotsys.kernel.api.common import MAX_ID
from slotsys.kernel.errors import DomainError

__all__ = ["IdConverter", "MalformedBody", "StrictJSONProvider", "path_id_out_of_range", "security_headers",
           "PAGE_CSP", "API_CSP"]


class MalformedBody(DomainError):
    """400: the body is not one UTF-8 JSON text with unique keys (``field``: the duplicated key, or ``body``)."""

    status = 400
    code = "malformed-body"
    title = "Bad request"


# ------------------------------------------------------------------ ids in the path
class IdConverter(IntegerConverter):
    """``<int:…>``: ASCII digits, any length (so an out-of-range id reaches :func:`path_id_out_of_range` and is
    a 422 naming the variable, rather than a 404 or a database error). Values longer than 20 digits are
    reported as ``10**20`` (out of range) without converting thousands of digits."""

    regex = r"\d+"

    def to_python(self, value: str) -> int:
        if len(value) > 20:
            return 10**20
        return int(value)


def path_id_out_of_range(rule, view_args: dict[str, Any] | None) -> str | None:
    """The name of the first ``<int:…>`` path variable of ``rule`` outside 1 … :data:`MAX_ID`, else None."""
    if rule is None or not view_args:
        return None
    for name, conv in getattr(rule, "_converters", {}).items():
        value = view_args.get(name)
        if isinstance(conv, IdConverter) and isinstance(value, int) and not 1 <= value <= MAX_ID:
            return name
    return None


# ------------------------------------------------------------------ JSON bodies
def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj: dict[str, Any] = {}
    for key, value in pairs:
        if key in obj:
            raise MalformedBody(f"the key {key!r} appears more than once in a JSON object", field=key[:100] or "body")
        obj[key] = value
    return obj


def decode_utf8(data: bytes | bytearray | str) -> str:
    """The body as text, if it is UTF-8 (no byte order mark, no NUL byte: UTF-16/32 JSON has NUL bytes for
    ASCII). Raises :class:`MalformedBody` (field ``body``) naming the problem."""
    if isinstance(data, str):
        return data
    raw = bytes(data)
    if raw[:2] in (b"\xff\xfe", b"\xfe\xff") or b"\x00" in raw:
        raise MalformedBody("the JSON body must be UTF-8: this looks like UTF-16 or UTF-32", field="body",
                            encoding="utf-8")
    if raw[:3] == b"\xef\xbb\xbf":
        raise MalformedBody("the JSON body must be UTF-8 without a byte order mark (RFC 8259 §8.1)", field="body",
                            encoding="utf-8")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise MalformedBody(f"the JSON body is not valid UTF-8 (byte {e.start})", field="body",
                            encoding="utf-8") from None


class StrictJSONProvider(DefaultJSONProvider):
    """Flask's JSON provider, but :meth:`loads` takes UTF-8 only and refuses duplicate keys (MalformedBody).
    Dumping is unchanged."""

    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        kwargs.setdefault("object_pairs_hook", _unique_keys)
        return json.loads(decode_utf8(s), **kwargs)


_READ_STEP = 64 * 1024  # bytes asked of the server's input stream at a time


class StrictRequest(Request):
    """A declared ``charset`` other than UTF-8 is refused before the body is read (400 naming ``Content-Type``).

    A body of unknown length (``Transfer-Encoding: chunked``: no ``Content-Length``, the server terminates the
    stream and says so with ``wsgi.input_terminated``, PEP 3333 / mod_wsgi) is read to at most
    ``max_content_length`` + 1 bytes: one byte past the limit raises :class:`RequestEntityTooLarge` (413, and
    the app answers ``Connection: close``). werkzeug's own stream (:func:`werkzeug.wsgi.get_input_stream`, a
    ``LimitedStream`` with ``is_max=True``) stops silently at the limit on a single ``read()`` and only raises
    on a further read, so ``get_data()`` returned the first 64 KiB and a padded body's prefix parsed as JSON
    (``{"amount": 1000}`` + 70,000 spaces + anything: credited ₩1,000)."""

    def get_data(self, cache: bool = True, as_text: bool = False, parse_form_data: bool = False):  # type: ignore[override]
        if getattr(self, "_cached_data", None) is None and self.body_of_unknown_length():
            data = self._read_bounded(self.max_content_length)  # type: ignore[arg-type]
            if not cache:
                return data.decode(errors="replace") if as_text else data
            self._cached_data = data
        return super().get_data(cache=cache, as_text=as_text, parse_form_data=parse_form_data)  # type: ignore[call-overload]

    def body_of_unknown_length(self) -> bool:
        """True for a body without ``Content-Length`` that the server delimits (chunked), when a limit is set."""
        return (self.content_length is None and self.max_content_length is not None
                and bool(self.environ.get("wsgi.input_terminated")))

    def body_length(self) -> int:
        """The body's size in bytes: ``Content-Length`` if sent, else the length of the bounded read (which
        raises :class:`RequestEntityTooLarge` above the limit); 0 when there is no body."""
        if self.content_length is not None:
            return self.content_length
        if self.body_of_unknown_length():
            return len(self.get_data())
        return 0

    def _read_bounded(self, limit: int) -> bytes:
        """At most ``limit`` + 1 bytes from the server's input stream; 413 if there were more than ``limit``."""
        raw = self.environ["wsgi.input"]
        buf = bytearray()
        while len(buf) <= limit:
            chunk = raw.read(min(_READ_STEP, limit + 1 - len(buf)))
            if not chunk:
                break
            buf += chunk
        if len(buf) > limit:
            raise RequestEntityTooLarge()
        return bytes(buf)

    def get_json(self, force: bool = False, silent: bool = False, cache: bool = True):  # type: ignore[override]
        charset = (self.mimetype_params.get("charset") or "utf-8").lower()
        if charset not in ("utf-8", "utf8") and not silent:
            raise MalformedBody(f"charset={charset} is not accepted: send the JSON body as UTF-8",
                                field="Content-Type", encoding="utf-8")
        return super().get_json(force=force, silent=silent, cache=cache)


# ------------------------------------------------------------------ response headers
PAGE_CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; font-src 'self'; "
            "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
"""The screens: their scripts, styles and fonts are the app's own files, nothing inline."""
API_CSP = "default-src 'none'; frame-ancestors 'none'"
"""Everything else (JSON, PNG, PDF, CSV): no content may run or be framed."""

_INLINE_SCRIPT = re.compile(rb"<script(?![^>]*\bsrc=)[^>]*>(.*?)</script>", re.S | re.I)
_INLINE_STYLE = re.compile(rb"<style[^>]*>(.*?)</style>", re.S | re.I)
_SRC = re.compile(rb"""<(?:script|link)\b[^>]*\b(?:src|href)=["']([^"']+)["']""", re.I)


def _hashes(pattern: re.Pattern, html: bytes) -> list[str]:
    return [f"'sha256-{base64.b64encode(hashlib.sha256(m).digest()).decode()}'" for m in pattern.findall(html)]


def docs_csp(html: bytes) -> str:
    """The Swagger UI page's policy, from the page itself: its inline ``<script>`` and ``<style>`` blocks by
    SHA-256 hash, plus the origins of the scripts and styles it links (none once its assets are served by the
    app). Swagger UI sets ``style`` attributes and injects ``<style>`` elements at run time, hence
    ``'unsafe-inline'`` for styles on this page only (a style cannot run code; scripts stay ``'self'`` plus
    hashes). Only for the app's own docs template (no request data in it)."""
    origins = sorted({f"{u.scheme}://{u.netloc}" for u in (urlsplit(s.decode("ascii", "replace"))
                                                            for s in _SRC.findall(html)) if u.scheme in ("https",)})
    extra = "".join(" " + o for o in origins)
    return (f"default-src 'self'; script-src 'self'{extra} {' '.join(_hashes(_INLINE_SCRIPT, html))}; "
            f"style-src 'self'{extra} 'unsafe-inline'; "
            f"img-src 'self' data:{extra}; connect-src 'self'; object-src 'none'; base-uri 'none'; "
            "frame-ancestors 'none'").replace("  ", " ")


def security_headers(resp: Response, endpoint: str | None) -> Response:
    """Adds the security headers to every response (the screens, the docs and the API)."""
    h = resp.headers
    h.setdefault("X-Content-Type-Options", "nosniff")
    h.setdefault("X-Frame-Options", "DENY")
    h.setdefault("Referrer-Policy", "no-referrer")
    if "Content-Security-Policy" in h:
        return resp
    if (endpoint or "").startswith("openapi.") and resp.mimetype == "text/html" and not resp.is_streamed:
        h["Content-Security-Policy"] = docs_csp(resp.get_data())
    elif (endpoint or "").startswith("web.") and resp.mimetype == "text/html":
        h["Content-Security-Policy"] = PAGE_CSP
    else:
        h["Content-Security-Policy"] = API_CSP
    return resp
