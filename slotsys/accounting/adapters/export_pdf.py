"""A report :class:`~slotsys.accounting.domain.report.Document` as a PDF (ReportLab platypus), A4 landscape.

Every page carries the title, the gaming day with its zone (``GamingDay.describe``) and, in the footer, the
time the document was made and ``쪽 x / y · page x of y`` (the total is known only after the last page: the
canvas keeps each page's state and draws the numbers when the document is saved). Then the key facts, one
table per section (the columns marked ``pdf``; the column labels in Korean over English, repeated on every
page a table continues on; the totals row in bold) and, last, kept on one page, the signature block: the
auditor and a second person, each with name, signature and date-time lines.

Font: NanumGothic (SIL Open Font License), with Hangul, Latin and ₩, from the ``koreanize-matplotlib`` package
as the printed tickets find it (``slotsys.kernel.fonts.font_paths``), embedded as a subset. A character the
font lacks (the minus sign U+2212) is printed as its nearest ASCII one.
"""

from __future__ import annotations

import io
import threading
from typing import Any

from reportlab.lib import colors
from reportlab.lib.pagesizes import A4, landscape
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen import canvas
from reportlab.platypus import KeepTogether, LongTable, Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle
from xml.sax.saxutils import escape

from slotsys.accounting.domain.report import SIGNATORIES, Column, Document, Section
from slotsys.kernel.fonts import font_paths

__all__ = ["to_pdf", "FONT", "FONT_BOLD"]

FONT, FONT_BOLD = "NanumGothic", "NanumGothic-Bold"
PAGE = landscape(A4)
MARGIN = 12 * mm
_lock = threading.Lock()
_cmap: dict[int, int] = {}
_FALLBACK = {"\u2212": "-", "\u2009": " ", "\u202f": " "}


def _fonts() -> None:
    with _lock:
        if _cmap:
            return
        regular, bold = font_paths()
        names = pdfmetrics.getRegisteredFontNames()
        if FONT not in names:
            pdfmetrics.registerFont(TTFont(FONT, str(regular)))
        if FONT_BOLD not in names:
            pdfmetrics.registerFont(TTFont(FONT_BOLD, str(bold)))
        _cmap.update(pdfmetrics.getFont(FONT).face.charToGlyph)


def _safe(text: str) -> str:
    return "".join(ch if ord(ch) in _cmap or ch in "\n" else _FALLBACK.get(ch, "?") for ch in text)


def _fmt(value: Any, kind: str) -> str:
    if value is None:
        return ""
    if kind in ("won", "count") and isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    if kind == "pct" and isinstance(value, (int, float)):
        return f"{value * 100:.2f}%"
    if kind == "num" and isinstance(value, (int, float)):
        return f"{value:,.2f}"
    if kind == "flag":
        return "예 YES" if value else ""
    return str(value)


class _NumberedCanvas(canvas.Canvas):
    """Keeps every page's state and writes "page x of y" on each once the page count is known."""

    def __init__(self, *args: Any, doc: Document, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._report = doc
        self._pages: list[dict[str, Any]] = []

    def showPage(self) -> None:  # noqa: N802 - ReportLab's name
        self._pages.append(dict(self.__dict__))
        self._startPage()

    def save(self) -> None:
        total = len(self._pages)
        for state in self._pages:
            self.__dict__.update(state)
            self._decorate(total)
            super().showPage()
        super().save()

    def _decorate(self, total: int) -> None:
        w, h = PAGE
        d = self._report
        self.setFont(FONT_BOLD, 10)
        self.drawString(MARGIN, h - 9 * mm, _safe(d.title))
        self.setFont(FONT, 8)
        self.drawRightString(w - MARGIN, h - 9 * mm, _safe(f"영업일 Gaming day {d.day_label}"))
        self.setStrokeGray(0.6)
        self.line(MARGIN, h - 10.5 * mm, w - MARGIN, h - 10.5 * mm)
        self.line(MARGIN, 10.5 * mm, w - MARGIN, 10.5 * mm)
        self.drawString(MARGIN, 7 * mm, _safe(f"작성 Generated {d.generated}"))
        n = self._pageNumber
        self.drawRightString(w - MARGIN, 7 * mm, f"쪽 {n} / {total} · page {n} of {total}")


def _styles() -> dict[str, ParagraphStyle]:
    base = ParagraphStyle("base", fontName=FONT, fontSize=7, leading=8.5)
    return {"base": base,
            "head": ParagraphStyle("head", parent=base, fontName=FONT_BOLD, fontSize=6.5, leading=7.8),
            "title": ParagraphStyle("title", parent=base, fontName=FONT_BOLD, fontSize=15, leading=19),
            "h2": ParagraphStyle("h2", parent=base, fontName=FONT_BOLD, fontSize=10, leading=13, spaceBefore=8,
                                 spaceAfter=3, keepWithNext=1),
            "fact": ParagraphStyle("fact", parent=base, fontSize=9, leading=12),
            "note": ParagraphStyle("note", parent=base, fontSize=7, leading=9, textColor=colors.grey, keepWithNext=1)}


def _p(text: str, style: ParagraphStyle) -> Paragraph:
    return Paragraph(escape(_safe(text)).replace("\n", "<br/>"), style)


def _table(s: Section, st: dict[str, ParagraphStyle], width: float) -> list[Any]:
    cols: list[Column] = [c for c in s.columns if c.pdf]
    head = [_p(f"{c.ko}\n{c.en}", st["head"]) for c in cols]
    body = [[_p(_fmt(r.get(c.key), c.kind), st["base"]) if c.kind == "text" else _safe(_fmt(r.get(c.key), c.kind))
             for c in cols] for r in s.rows]
    data = [head] + body
    if s.totals is not None:
        data.append([_safe(_fmt(s.totals.get(c.key), c.kind)) for c in cols])
    if not s.rows and s.totals is None:
        data.append([_p("— 없음 none —", st["note"])] + [""] * (len(cols) - 1))
    weights = [1.6 if c.kind == "text" else 1.0 for c in cols]
    col_w = [width * w_ / sum(weights) for w_ in weights]
    t = LongTable(data, colWidths=col_w, repeatRows=1)
    style = [("FONT", (0, 0), (-1, -1), FONT, 6.8), ("GRID", (0, 0), (-1, -1), 0.25, colors.grey),
             ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#DDDDDD")), ("VALIGN", (0, 0), (-1, -1), "TOP"),
             ("LEFTPADDING", (0, 0), (-1, -1), 2), ("RIGHTPADDING", (0, 0), (-1, -1), 2)]
    for j, c in enumerate(cols):
        if c.kind != "text":
            style.append(("ALIGN", (j, 1), (j, -1), "RIGHT"))
    if s.totals is not None:
        style += [("FONT", (0, -1), (-1, -1), FONT_BOLD, 6.8), ("BACKGROUND", (0, -1), (-1, -1), colors.HexColor("#F2F2F2"))]
    t.setStyle(TableStyle(style))
    out: list[Any] = [_p(s.title, st["h2"]), t]
    if s.note:
        out.insert(1, _p(s.note, st["note"]))
    return out


def _signatures(st: dict[str, ParagraphStyle], width: float) -> KeepTogether:
    rows = [[_p("구분 Role", st["head"]), _p("성명 Name", st["head"]), _p("서명 Signature", st["head"]),
             _p("일시 Date and time", st["head"])]]
    rows += [[_p(f"{ko}\n{en}", st["fact"]), "", "", ""] for ko, en in SIGNATORIES]
    t = Table(rows, colWidths=[width * 0.22, width * 0.26, width * 0.26, width * 0.26],
              rowHeights=[None] + [16 * mm] * len(SIGNATORIES))
    t.setStyle(TableStyle([("GRID", (0, 0), (-1, -1), 0.5, colors.black), ("VALIGN", (0, 0), (-1, -1), "TOP"),
                           ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#DDDDDD"))]))
    return KeepTogether([_p("서명 Signatures", st["h2"]),
                         _p("위 내용이 사실과 같음을 확인합니다. I confirm that this report is complete and correct.",
                            st["fact"]), Spacer(1, 3 * mm), t])


def to_pdf(doc: Document) -> bytes:
    """The document as PDF bytes (see the module docstring). Raises ``RuntimeError`` when the font is
    missing."""
    _fonts()
    st = _styles()
    out = io.BytesIO()
    width = PAGE[0] - 2 * MARGIN
    tmpl = SimpleDocTemplate(out, pagesize=PAGE, leftMargin=MARGIN, rightMargin=MARGIN, topMargin=15 * mm,
                             bottomMargin=15 * mm, title=_safe(doc.title), subject=_safe(doc.day_label),
                             author="slotsys")
    story: list[Any] = [_p(doc.title, st["title"]), _p(f"영업일 Gaming day: {doc.day_label}", st["fact"]),
                        Spacer(1, 2 * mm)]
    facts = Table([[_p(k, st["head"]), _p(v, st["fact"])] for k, v in doc.summary],
                  colWidths=[width * 0.25, width * 0.75])
    facts.setStyle(TableStyle([("GRID", (0, 0), (-1, -1), 0.25, colors.grey), ("VALIGN", (0, 0), (-1, -1), "TOP")]))
    story.append(facts)
    for s in doc.sections:
        story += _table(s, st, width)
    story += [Spacer(1, 6 * mm), _signatures(st, width)]
    tmpl.build(story, canvasmaker=lambda *a, **k: _NumberedCanvas(*a, doc=doc, **k))
    return out.getvalue()
