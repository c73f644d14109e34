"""slotsys.kernel.export: the reports' CSV (pure)."""

from __future__ import annotations

import csv
import io

import pytest

from slotsys.kernel.export import safe_cell, tables_of, to_csv


@pytest.mark.parametrize("text", ["=1+1", "+1", "-1+1", "@SUM(A1)", "\t=1", "\r=1", "=HYPERLINK(\"http://x\")"])
def test_formula_like_text_gets_a_leading_apostrophe(text):
    assert safe_cell(text) == "'" + text


@pytest.mark.parametrize("value, cell", [(-5000, "-5000"), (0, "0"), (1.5, "1.5"), (None, ""), (True, "true"),
                                         ("a=b", "a=b"), ("정산", "정산"), ([1, "=x"], '[1,"=x"]'), ("'=1", "'=1")])
def test_numbers_and_ordinary_text_are_kept(value, cell):
    assert safe_cell(value) == cell


def test_to_csv_is_rfc4180_with_a_bom_and_neutralised_headers_and_cells():
    text = to_csv(["reason", "=col"], [{"reason": 'a, "b"\nc'}, {"reason": "=cmd|' /C calc'!A0", "=col": -1}])
    assert text.startswith("\ufeff") and text.endswith("\r\n")
    rows = list(csv.reader(io.StringIO(text[1:], newline="")))
    assert rows == [["reason", "'=col"], ['a, "b"\nc', ""], ["'=cmd|' /C calc'!A0", "-1"]]


def test_tables_of_names_tables_as_the_reports_screen_does():
    report = {"report": "outstanding", "dates": [{"date": "2026-12-01", "total": 5, "tickets": [
        {"validation_number": "1", "amount": 5, "meta": {"by": "M001"}}]}], "empty": [], "nested": {"hits": [{"a": 1}]}}
    tables = {t.name: t for t in tables_of(report)}
    assert list(tables) == ["dates", "dates.tickets", "empty", "nested.hits"]
    assert tables["dates"].rows == [{"date": "2026-12-01", "total": 5}]
    assert tables["dates.tickets"].columns == ["validation_number", "amount", "meta.by"]
    assert tables["empty"].rows == []
