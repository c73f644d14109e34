"""A report :class:`~slotsys.accounting.domain.report.Document` as an XLSX workbook (openpyxl).

Layout: a first sheet ``요약 Summary`` (title, gaming day with its zone, time made, key facts, the signature
block), then one sheet per section: title rows, the column labels in Korean (row 5) and English (row 6), the
rows, and the totals row in bold. Panes freeze below the labels.

Cells: ``won`` and ``count`` columns are integers with the ``#,##0`` format, ``pct`` fractions with ``0.00%``,
``num`` floats with ``0.00``, ``flag`` booleans; None is an empty cell. Numbers are numbers, never text, and
nothing is a formula: every text cell goes through ``slotsys.kernel.export.safe_cell`` (a text starting with
``= + - @``, tab or CR gets a leading apostrophe, OWASP "CSV Injection") and is stored as a string cell, so
openpyxl does not take a text starting with ``=`` for a formula. Totals are the document's, not ``SUM()``
formulas: the workbook shows the same figures as the PDF and needs no recalculation.
"""

from __future__ import annotations

import io
import re
from typing import Any

from openpyxl import Workbook
from openpyxl.cell.cell import Cell
from openpyxl.styles import Alignment, Font, PatternFill
from openpyxl.utils import get_column_letter

from slotsys.accounting.domain.report import SIGNATORIES, Column, Document, Section
from slotsys.kernel.export import safe_cell

__all__ = ["to_xlsx", "HEADER_ROW_KO", "HEADER_ROW_EN", "FIRST_DATA_ROW"]

HEADER_ROW_KO, HEADER_ROW_EN, FIRST_DATA_ROW = 5, 6, 7
FORMATS = {"won": "#,##0", "count": "#,##0", "pct": "0.00%", "num": "0.00"}
_BOLD = Font(bold=True)
_HEAD_FILL = PatternFill("solid", fgColor="DDDDDD")
_TOTAL_FILL = PatternFill("solid", fgColor="F2F2F2")
_SHEET_BAD = re.compile(r"[\[\]:*?/\\]")


def _put(cell: Cell, value: Any, kind: str = "text") -> None:
    if value is None:
        return
    if kind in ("won", "count") and isinstance(value, int) and not isinstance(value, bool):
        cell.value = value
    elif kind in ("pct", "num") and isinstance(value, (int, float)) and not isinstance(value, bool):
        cell.value = float(value)
    elif kind == "flag" and isinstance(value, bool):
        cell.value = value
    else:
        cell.value = safe_cell(value)
        cell.data_type = "s"  # a string cell: never parsed as a formula
        return
    fmt = FORMATS.get(kind)
    if fmt:
        cell.number_format = fmt


def _text(cell: Cell, text: str) -> None:
    _put(cell, text, "text")


def _sheet_name(s: Section, used: set[str]) -> str:
    base = _SHEET_BAD.sub(" ", s.sheet)[:31].strip()
    name, n = base, 2
    while name in used:
        suffix = f" ({n})"
        name, n = base[: 31 - len(suffix)] + suffix, n + 1
    used.add(name)
    return name


def _title_rows(ws, doc: Document, subtitle: str) -> None:
    _text(ws.cell(1, 1), f"{doc.title} — {subtitle}")
    ws.cell(1, 1).font = Font(bold=True, size=13)
    _text(ws.cell(2, 1), f"영업일 Gaming day: {doc.day_label}")
    _text(ws.cell(3, 1), f"작성 Generated: {doc.generated}")


def _section_sheet(ws, doc: Document, s: Section) -> None:
    _title_rows(ws, doc, s.title)
    if s.note:
        _text(ws.cell(4, 1), s.note)
    cols: list[Column] = s.columns
    for j, c in enumerate(cols, start=1):
        for row, label in ((HEADER_ROW_KO, c.ko), (HEADER_ROW_EN, c.en)):
            cell = ws.cell(row, j)
            _text(cell, label)
            cell.font, cell.fill = _BOLD, _HEAD_FILL
            cell.alignment = Alignment(wrap_text=True, vertical="top")
        ws.column_dimensions[get_column_letter(j)].width = max(10, min(28, len(c.en) + 2))
    r = FIRST_DATA_ROW
    for row in s.rows:
        for j, c in enumerate(cols, start=1):
            _put(ws.cell(r, j), row.get(c.key), c.kind)
        r += 1
    if s.totals is not None:
        for j, c in enumerate(cols, start=1):
            cell = ws.cell(r, j)
            _put(cell, s.totals.get(c.key), c.kind)
            cell.font, cell.fill = _BOLD, _TOTAL_FILL
    ws.freeze_panes = ws.cell(FIRST_DATA_ROW, 1)


def _summary_sheet(ws, doc: Document) -> None:
    _title_rows(ws, doc, "요약 Summary")
    r = 5
    for label, value in doc.summary:
        _text(ws.cell(r, 1), label)
        ws.cell(r, 1).font = _BOLD
        _text(ws.cell(r, 2), value)
        r += 1
    r += 1
    _text(ws.cell(r, 1), "서명 Signatures")
    ws.cell(r, 1).font = _BOLD
    r += 1
    for j, head in enumerate(("구분 Role", "성명 Name", "서명 Signature", "일시 Date and time"), start=1):
        _text(ws.cell(r, j), head)
        ws.cell(r, j).font, ws.cell(r, j).fill = _BOLD, _HEAD_FILL
    for ko, en in SIGNATORIES:
        r += 1
        _text(ws.cell(r, 1), f"{ko} {en}")
    ws.column_dimensions["A"].width = 34
    for col in "BCD":
        ws.column_dimensions[col].width = 36


def to_xlsx(doc: Document) -> bytes:
    """The document as XLSX bytes (see the module docstring)."""
    wb = Workbook()
    summary = wb.active
    summary.title = "요약 Summary"
    _summary_sheet(summary, doc)
    used = {summary.title}
    for s in doc.sections:
        _section_sheet(wb.create_sheet(_sheet_name(s, used)), doc, s)
    wb.properties.title = doc.title
    wb.properties.subject = doc.day_label
    wb.properties.creator = "slotsys"
    out = io.BytesIO()
    wb.save(out)
    return out.getvalue()
