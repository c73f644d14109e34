"""``?format=csv&table=<name>`` on the report endpoints: one table of the report as a CSV download, made by the
pure :mod:`slotsys.kernel.export` (formula cells neutralised, RFC 4180, UTF-8 with BOM). The reports screen's
CSV buttons download these."""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from flask import Response
from pydantic import Field

from slotsys.kernel.api.common import QueryModel
from slotsys.kernel import export
from slotsys.kernel.errors import ValidationFailed


class ExportQuery(QueryModel):
    """``format``: ``json`` (default) or ``csv``; ``table``: which table of the report as CSV (default the first)."""

    format: Literal["json", "csv"] = "json"
    table: Annotated[str, Field(max_length=100, description="a table of the report, e.g. dates.tickets")] | None = None


def report(data: dict[str, Any], query: ExportQuery, name: str) -> Any:
    """``data`` as JSON, or (``format=csv``) its table ``query.table`` as ``text/csv`` named
    ``slotsys-<name>-<table>.csv``. 422 naming ``table`` if the report has no such table."""
    if query.format != "csv":
        return data
    tables = export.tables_of(data)
    wanted = query.table or (tables[0].name if tables else None)
    table = next((t for t in tables if t.name == wanted), None)
    if table is None:
        raise ValidationFailed(f"table must be one of: {', '.join(t.name for t in tables) or '(none)'}", field="table")
    file = re.sub(r"\W+", "_", f"slotsys-{name}-{table.name}") + ".csv"
    return Response(export.to_csv(table.columns, table.rows), mimetype="text/csv",
                    headers={"Content-Disposition": f'attachment; filename="{file}"', "Cache-Control": "no-store"})


__all__ = ["ExportQuery", "report"]
