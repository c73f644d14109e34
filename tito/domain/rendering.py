"""Machine-readable renderings of an 18-digit TITO validation number, as PNG bytes.

- :func:`itf_barcode_png`: Interleaved 2 of 5, the symbology TITO ticket printers
  and bill validators read. python-barcode encodes the digits into bars; we
  rasterise them with Pillow at whole printer dots so that every narrow bar is the
  same width and every wide bar is the same width (python-barcode's own image
  writer positions bars in floating-point millimetres, which gives uneven widths).
- :func:`qr_png`: a QR code (qrcode), for phone/kiosk scanning.

Both refuse anything but exactly 18 ASCII digits with ``ValueError`` (python-barcode's
ITF would silently prefix a "0" to an odd-length number). Neither checks the
number's check digits: that is :func:`tito.domain.validation.check`'s job at issue.

Pure rendering: no I/O beyond building the bytes.
"""

from __future__ import annotations

import io
from typing import Final

import qrcode
from barcode.itf import ITF
from PIL import Image, ImageDraw, ImageFont
from qrcode.constants import ERROR_CORRECT_M

from tito.domain.validation import LENGTH, format_for_reading

__all__ = ["itf_barcode_png", "itf_modules", "qr_png"]

_MM_PER_INCH: Final = 25.4
_NARROW_MODULES: Final = 2  # a narrow element is 2 modules ...
_WIDE_MODULES: Final = 5  # ... a wide one 5: wide:narrow = 2.5:1 (ITF allows 2.25..3)
_QUIET_ZONE_X: Final = 10  # quiet zone each side, in narrow-element widths (ITF minimum 10X)


def _require_18_digits(number: object, what: str) -> str:
    if not isinstance(number, str):
        raise ValueError(f"{what} needs the validation number as a str of {LENGTH} digits, got {type(number).__name__}")
    if len(number) != LENGTH:
        raise ValueError(f"{what} needs exactly {LENGTH} digits, got {len(number)} characters: {number!r}")
    if not all("0" <= ch <= "9" for ch in number):
        raise ValueError(f"{what} needs only the digits 0-9, got {number!r}")
    return number


def _png(image: Image.Image, dpi: int) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", dpi=(dpi, dpi))
    return buffer.getvalue()


def itf_modules(number: str) -> str:
    """The Interleaved 2 of 5 symbol of exactly the 18 digits of ``number`` as a module string.

    ``"1"`` is one bar module, ``"0"`` one space module, start and stop patterns
    included, quiet zones not; a narrow element is 2 modules and a wide one 5
    (wide:narrow = 2.5:1). Every renderer (PNG here, the printable ticket's PNG and
    PDF) draws these same modules. Raises ``ValueError`` unless ``number`` is a
    ``str`` of exactly 18 ASCII digits.
    """
    number = _require_18_digits(number, "ITF barcode")
    symbol = ITF(number, narrow=_NARROW_MODULES, wide=_WIDE_MODULES)
    if symbol.get_fullcode() != number:  # python-barcode must not have padded or changed it
        raise ValueError(f"ITF encoder changed the number: {symbol.get_fullcode()!r} != {number!r}")
    return symbol.build()[0]


def itf_barcode_png(
    number: str,
    *,
    module_width_mm: float = 0.33,
    height_mm: float = 12.0,
    dpi: int = 300,
    human_readable: bool = False,
) -> bytes:
    """An Interleaved 2 of 5 barcode of exactly the 18 digits of ``number``, as a PNG.

    - ``module_width_mm``: the narrow-element width X in millimetres. It is rounded to
      an even number of dots at ``dpi`` (at least 2) so that narrow (2 dots per module
      x 2) and wide (x 5) elements are whole dots: wide:narrow = 2.5:1. The default
      0.33 mm becomes 4 dots = 0.339 mm at 300 dpi.
    - ``height_mm``: bar height in millimetres (default 12 mm, above the ITF minimum
      of 15% of the symbol width for these 18 digits at the default X).
    - ``dpi``: raster resolution, also stored in the PNG so printers keep the size
      (203 or 300 for ticket printers).
    - quiet zone: 10 X each side, plus 1 X top and bottom margins.
    - ``human_readable``: also print the number grouped 2-4-4-4-4 under the bars.

    Returns PNG bytes (1-bit black on white). Raises ``ValueError`` naming the problem
    unless ``number`` is a ``str`` of exactly 18 ASCII digits, or if a size is not
    positive.
    """
    number = _require_18_digits(number, "ITF barcode")
    if module_width_mm <= 0 or height_mm <= 0 or dpi <= 0:
        raise ValueError(
            f"module_width_mm, height_mm and dpi must be positive, got {module_width_mm}, {height_mm}, {dpi}"
        )
    dots_per_mm = dpi / _MM_PER_INCH
    module_px = max(1, round(module_width_mm * dots_per_mm / _NARROW_MODULES))
    x_px = module_px * _NARROW_MODULES
    bar_height_px = max(1, round(height_mm * dots_per_mm))

    modules = itf_modules(number)

    quiet_px = _QUIET_ZONE_X * x_px
    margin_px = x_px
    text_px = 0
    font = None
    label = format_for_reading(number) if human_readable else ""
    if human_readable:
        font = ImageFont.load_default(size=max(8, round(3.0 * dots_per_mm)))  # ~3 mm tall digits
        text_px = int(font.getbbox(label, anchor="mt")[3]) + 2 * margin_px

    width = 2 * quiet_px + len(modules) * module_px
    height = margin_px + bar_height_px + margin_px + text_px
    image = Image.new("1", (width, height), 1)
    draw = ImageDraw.Draw(image)
    x = quiet_px
    for bit in modules:
        if bit == "1":
            draw.rectangle((x, margin_px, x + module_px - 1, margin_px + bar_height_px - 1), fill=0)
        x += module_px
    if font is not None:
        draw.text((width // 2, margin_px + bar_height_px + margin_px), label, font=font, fill=0, anchor="mt")
    return _png(image, dpi)


def qr_png(number: str, *, box_size_px: int = 8, border_modules: int = 4) -> bytes:
    """A QR code whose content is exactly the 18 digits of ``number``, as a PNG.

    Numeric mode, error correction level M (~15% damage tolerated), version chosen to
    fit (version 1, 21 x 21 modules, for 18 digits). ``box_size_px``: pixels per module;
    ``border_modules``: quiet zone in modules (QR's minimum is 4). Raises ``ValueError``
    naming the problem unless ``number`` is a ``str`` of exactly 18 ASCII digits, or if
    ``box_size_px`` < 1 or ``border_modules`` < 0.
    """
    number = _require_18_digits(number, "QR code")
    if box_size_px < 1 or border_modules < 0:
        raise ValueError(f"box_size_px must be >= 1 and border_modules >= 0, got {box_size_px}, {border_modules}")
    code = qrcode.QRCode(error_correction=ERROR_CORRECT_M, box_size=box_size_px, border=border_modules)
    code.add_data(number)
    code.make(fit=True)
    image = code.make_image(fill_color="black", back_color="white").get_image()
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()
