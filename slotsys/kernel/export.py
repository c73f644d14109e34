"""Reports as CSV files for spreadsheet programs: the tables of a report and their safe CSV text. Pure.

CSV injection (OWASP "CSV Injection"): a spreadsheet program evaluates a cell that starts with ``=``, ``+``,
``-`` or ``@`` as a formula, and a leading tab or carriage return can hide such a start; a void reason typed as
``=HYPERLINK(…)`` would become a live formula on the auditor's desk. Every *text* cell starting with one of
:data:`FORMULA_PREFIXES` is written with a leading apostrophe (``'``), which spreadsheets show as text and do
not evaluate; numbers are numbers (``-5000`` is not a formula) and are written as they are. Quoting follows
RFC 4180 (the standard library's ``csv`` writer, CRLF line ends); the text starts with a UTF-8 byte order
mark so spreadsheet programs read Hangul correctly.

A report's *tables* are found as the screens show them (``slotsys/web/static/reports.js``): every list of
objects at any depth is a table named by its dotted path (``dates.tickets``); a row's nested lists of objects
become their own table (``<path>.<key>``), its nested objects flattened to dotted columns, its other lists
written as JSON.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass, field
from typing import Any

FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")
BOM = "\ufeff"


@dataclass
class Table:
    """One table of a report: ``name`` (dotted path), ``rows`` (flat dicts), ``columns`` in first-seen order."""

    name: str
    rows: list[dict[str, Any]] = field(default_factory=list)

    @property
    def columns(self) -> list[str]:
        cols: dict[str, None] = {}
        for r in self.rows:
            cols.update(dict.fromkeys(r))
        return list(cols)


def safe_cell(value: Any) -> str:
    """One cell's text: ``None`` → ``""``, booleans ``true``/``false``, numbers as they are, lists and objects as
    JSON, text starting with a formula prefix (:data:`FORMULA_PREFIXES`) with a leading ``'``."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value) if isinstance(value, float) else str(value)
    if isinstance(value, (list, dict)):
        value = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    text = str(value)
    return "'" + text if text.startswith(FORMULA_PREFIXES) else text


def to_csv(columns: list[str], rows: list[dict[str, Any]]) -> str:
    """RFC 4180 CSV (CRLF) with a BOM: a header of ``columns`` (neutralised too), then one line per row."""
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\r\n")
    w.writerow([safe_cell(c) for c in columns])
    for r in rows:
        w.writerow([safe_cell(r.get(c)) for c in columns])
    return BOM + out.getvalue()


def _is_rows(v: Any) -> bool:
    return isinstance(v, list) and bool(v) and isinstance(v[0], dict)


def _flat(obj: dict[str, Any], prefix: str = "", out: dict[str, Any] | None = None) -> dict[str, Any]:
    out = {} if out is None else out
    for k, v in obj.items():
        key = f"{prefix}.{k}" if prefix else str(k)
        if isinstance(v, dict):
            _flat(v, key, out)
        else:
            out[key] = v
    return out


def tables_of(report: dict[str, Any], path: str = "", out: list[Table] | None = None) -> list[Table]:
    """Every table of ``report`` in document order (see the module docstring)."""
    out = [] if out is None else out
    for k, v in report.items():
        p = f"{path}.{k}" if path else str(k)
        if _is_rows(v):
            table = Table(p)
            out.append(table)
            children: dict[str, list[dict[str, Any]]] = {}
            for r in v:
                own = {}
                for ck, cv in (r.items() if isinstance(r, dict) else ()):
                    if _is_rows(cv):
                        children.setdefault(ck, []).extend(_flat(c) for c in cv if isinstance(c, dict))
                    else:
                        own[ck] = cv
                table.rows.append(_flat(own))
            out.extend(Table(f"{p}.{ck}", rows) for ck, rows in children.items())
        elif isinstance(v, list):
            out.append(Table(p))
        elif isinstance(v, dict):
            tables_of(v, p, out)
    return out
