"""The printable TITO ticket: one face layout, drawn as a PNG (Pillow) or a PDF (ReportLab).

Face (GLI-13 ticket content, via NY 5317.38 / OK 325:85-21-18; SAS §15 ticket data):
casino name and site, the ticket type ("CASHOUT TICKET", "PROMOTIONAL TICKET",
"HANDPAY RECEIPT"), the validation number grouped 2-4-4-4-4 for reading, its
Interleaved 2 of 5 barcode, date and 24-hour time of issue (casino local time), ticket
sequence number, the amount in numerals and in words (Korean and English), the machine
asset number (or issuing station) and "VOID AFTER N DAYS".

Size: a thermal TITO ticket, 156 × 65 mm (6.14 × 2.56 in), printed landscape with the
barcode along the long edge. Coordinates below are millimetres from the top-left corner;
text baselines are given. Both backends draw the same :func:`layout`, so the PNG and the
PDF agree; text that would not fit its width is shrunk.

Fonts: NanumGothic (SIL Open Font License), which has Hangul, Latin and ₩; it ships in
the ``koreanize-matplotlib`` package, found via :func:`importlib.util.find_spec`
without importing that package. Pure apart from reading the font files.
"""

from __future__ import annotations

import io
import threading
from dataclasses import dataclass
from datetime import datetime
from typing import Final

from PIL import Image, ImageDraw, ImageFont

from slotsys.kernel.fonts import font_paths
from tito.domain.rendering import itf_modules
from tito.domain.tickets import TITLES
from tito.domain.validation import format_for_reading
from tito.domain.words import english_won_words, korean_won_words

__all__ = ["PAGE_MM", "Bars", "Text", "TicketFace", "layout", "ticket_pdf", "ticket_png"]

PAGE_MM: Final = (156.0, 65.0)
"""Width × height of the ticket in millimetres (landscape)."""

_MM_PER_PT: Final = 25.4 / 72
_MM_PER_INCH: Final = 25.4
_MARGIN: Final = 5.0
_MODULE_MM: Final = 0.17  # one module; narrow element = 2 modules = 0.34 mm (X), wide = 0.85 mm
_QUIET_MM: Final = 10 * 2 * _MODULE_MM  # ITF quiet zone: 10 X each side


@dataclass(frozen=True)
class TicketFace:
    """What a ticket shows. ``issued_at`` is in the casino's local time zone (printed as is)."""

    casino_name: str
    casino_site: str
    ticket_type: str
    validation_number: str
    amount: int
    issued_at: datetime
    issued_by: str
    sequence: int
    void_after_days: int

    @property
    def title(self) -> str:
        return TITLES.get(self.ticket_type, self.ticket_type.upper())


@dataclass(frozen=True)
class Text:
    """A line of text: baseline at ``y`` mm; ``x`` is its left, centre or right edge by ``align``."""

    x: float
    y: float
    text: str
    size_pt: float
    bold: bool = False
    align: str = "left"  # left | center | right
    max_width: float = PAGE_MM[0] - 2 * _MARGIN


@dataclass(frozen=True)
class Bars:
    """A 1-D barcode: ``modules`` ("1" bar, "0" space) of ``module_mm`` each, centred on ``cx``."""

    cx: float
    top: float
    height: float
    module_mm: float
    modules: str


def layout(face: TicketFace) -> list[Text | Bars]:
    """The face as drawing operations in millimetres (see the module docstring)."""
    w, _ = PAGE_MM
    left, right, mid = _MARGIN, w - _MARGIN, w / 2
    when = face.issued_at.strftime("%Y-%m-%d  %H:%M:%S")
    return [
        Text(left, 8.0, face.casino_name.upper(), 12, bold=True, max_width=w * 0.55),
        Text(right, 8.0, face.casino_site, 9, align="right", max_width=w * 0.38),
        Text(mid, 15.0, face.title, 15, bold=True, align="center"),
        Text(mid, 21.0, f"VALIDATION  {format_for_reading(face.validation_number)}", 11, bold=True, align="center"),
        Bars(mid, 23.0, 12.0, _MODULE_MM, itf_modules(face.validation_number)),
        Text(left, 39.5, when, 9),
        Text(right, 39.5, f"TICKET # {face.sequence:04d}", 9, bold=True, align="right"),
        Text(mid, 47.0, f"₩{face.amount:,}", 17, bold=True, align="center"),
        Text(mid, 52.5, korean_won_words(face.amount), 10, align="center"),
        Text(mid, 57.0, english_won_words(face.amount), 8, align="center"),
        Text(left, 62.0, f"VOID AFTER {face.void_after_days} DAYS", 9, bold=True),
        Text(right, 62.0, f"ASSET# {face.issued_by}", 9, align="right"),
    ]


_lock = threading.Lock()
_pil_fonts: dict[tuple[bool, int], ImageFont.FreeTypeFont] = {}
_pdf_registered = False


def _pil_font(bold: bool, px: int) -> ImageFont.FreeTypeFont:
    key = (bold, px)
    with _lock:
        font = _pil_fonts.get(key)
        if font is None:
            font = ImageFont.truetype(str(font_paths()[1 if bold else 0]), px)
            _pil_fonts[key] = font
        return font


# ------------------------------------------------------------------------- PNG
def ticket_png(face: TicketFace, *, dpi: int = 300) -> bytes:
    """The ticket as a greyscale PNG at ``dpi`` (default 300; 203 for the common printers).

    Barcode modules are whole pixels (at least 1; 2 at 300 dpi), centred; the PNG
    stores its dpi so it prints at 156 × 65 mm. Raises ``ValueError`` for a bad number
    or amount (see :func:`layout`) or ``dpi`` < 100.
    """
    if dpi < 100:
        raise ValueError(f"dpi must be >= 100 for a readable barcode, got {dpi}")
    ops = layout(face)
    dpmm = dpi / _MM_PER_INCH
    size = (round(PAGE_MM[0] * dpmm), round(PAGE_MM[1] * dpmm))
    image = Image.new("L", size, 255)
    draw = ImageDraw.Draw(image)
    for op in ops:
        if isinstance(op, Bars):
            module_px = max(1, round(op.module_mm * dpmm))
            width = len(op.modules) * module_px
            x = round(op.cx * dpmm - width / 2)
            top, bottom = round(op.top * dpmm), round((op.top + op.height) * dpmm) - 1
            for bit in op.modules:
                if bit == "1":
                    draw.rectangle((x, top, x + module_px - 1, bottom), fill=0)
                x += module_px
            continue
        px = max(6, round(op.size_pt * _MM_PER_PT * dpmm))
        font = _pil_font(op.bold, px)
        max_px = op.max_width * dpmm
        while font.getlength(op.text) > max_px and px > 6:  # shrink to fit
            px -= 1
            font = _pil_font(op.bold, px)
        anchor = {"left": "ls", "center": "ms", "right": "rs"}[op.align]
        draw.text((op.x * dpmm, op.y * dpmm), op.text, font=font, fill=0, anchor=anchor)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", dpi=(dpi, dpi))
    return buffer.getvalue()


# ------------------------------------------------------------------------- PDF
def _register_pdf_fonts() -> None:
    global _pdf_registered
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont

    with _lock:
        if not _pdf_registered:
            regular, bold = font_paths()
            pdfmetrics.registerFont(TTFont("NanumGothic", str(regular)))
            pdfmetrics.registerFont(TTFont("NanumGothic-Bold", str(bold)))
            _pdf_registered = True


def ticket_pdf(face: TicketFace) -> bytes:
    """The ticket as a one-page vector PDF of 156 × 65 mm (ReportLab), fonts embedded (subset).

    Text is real text (searchable); the barcode is drawn as filled rectangles, one per
    bar, from the same modules as the PNG. Raises ``ValueError`` like :func:`layout`.
    """
    from reportlab.lib.units import mm
    from reportlab.pdfbase.pdfmetrics import stringWidth
    from reportlab.pdfgen import canvas

    ops = layout(face)
    _register_pdf_fonts()
    width, height = PAGE_MM[0] * mm, PAGE_MM[1] * mm
    buffer = io.BytesIO()
    c = canvas.Canvas(buffer, pagesize=(width, height), pageCompression=1)
    c.setTitle(f"{face.title} {format_for_reading(face.validation_number)}")
    c.setAuthor(face.casino_name)
    c.setFillGray(0)
    for op in ops:
        if isinstance(op, Bars):
            x = op.cx * mm - len(op.modules) * op.module_mm * mm / 2
            y = height - (op.top + op.height) * mm
            run = 0
            for i, bit in enumerate(op.modules + "0"):
                if bit == "1":
                    run += 1
                elif run:
                    c.rect(x + (i - run) * op.module_mm * mm, y, run * op.module_mm * mm, op.height * mm, stroke=0, fill=1)
                    run = 0
            continue
        name = "NanumGothic-Bold" if op.bold else "NanumGothic"
        size = op.size_pt
        while stringWidth(op.text, name, size) > op.max_width * mm and size > 4:
            size -= 0.5
        c.setFont(name, size)
        x, y = op.x * mm, height - op.y * mm
        if op.align == "center":
            c.drawCentredString(x, y, op.text)
        elif op.align == "right":
            c.drawRightString(x, y, op.text)
        else:
            c.drawString(x, y, op.text)
    c.showPage()
    c.save()
    return buffer.getvalue()
