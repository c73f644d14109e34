"""TITO rendering: every PNG decodes (zxing-cpp, a real decoder) to exactly the 18-digit number."""

from __future__ import annotations

import io
import itertools
import random

import pytest
import zxingcpp
from PIL import Image

from tito.domain.rendering import itf_barcode_png, qr_png
from tito.domain.validation import SasSecureEnhanced, SystemValidation

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _numbers() -> list[str]:
    system = SystemValidation(randbelow=random.Random(42).randrange)
    sas = SasSecureEnhanced(0x654321)
    return [
        *(system.next_number() for _ in range(4)),
        sas.next_number(),  # 004580945669109504
        sas.next_number(),  # 006429188185446104
        SasSecureEnhanced(0xFFFFFF, next_sequence=0xFFFFFF).next_number(),
        SasSecureEnhanced(0).next_number(),
    ]


NUMBERS = _numbers()


def _decode(png: bytes) -> list[zxingcpp.Barcode]:
    assert png.startswith(PNG_SIGNATURE)
    return zxingcpp.read_barcodes(Image.open(io.BytesIO(png)))


def _bar_and_space_widths(png: bytes) -> set[int]:
    image = Image.open(io.BytesIO(png)).convert("L")
    y = image.height // 3
    row = [image.getpixel((x, y)) < 128 for x in range(image.width)]
    runs = [len(list(group)) for _, group in itertools.groupby(row)]
    return set(runs[1:-1])  # without the two quiet zones


# ------------------------------------------------------------------------------ ITF


@pytest.mark.parametrize("number", NUMBERS)
def test_itf_decodes_to_exactly_the_18_digits(number):
    results = _decode(itf_barcode_png(number))
    assert [(r.format, r.text) for r in results] == [(zxingcpp.BarcodeFormat.ITF, number)]


@pytest.mark.parametrize(
    "options",
    [
        {"dpi": 203, "module_width_mm": 0.25},  # thermal ticket printer, 2-dot X
        {"dpi": 300, "module_width_mm": 0.5, "height_mm": 8},
        {"dpi": 600},
        {"human_readable": True},
    ],
)
def test_itf_decodes_at_other_sizes_and_with_text(options):
    for number in NUMBERS[:2] + NUMBERS[4:6]:
        results = _decode(itf_barcode_png(number, **options))
        assert [(r.format, r.text) for r in results] == [(zxingcpp.BarcodeFormat.ITF, number)]


@pytest.mark.parametrize(("dpi", "module_width_mm", "narrow"), [(300, 0.33, 4), (203, 0.25, 2), (600, 0.33, 8)])
def test_itf_bars_are_whole_dots_with_a_2_5_to_1_ratio(dpi, module_width_mm, narrow):
    png = itf_barcode_png(NUMBERS[0], dpi=dpi, module_width_mm=module_width_mm)
    assert _bar_and_space_widths(png) == {narrow, narrow * 5 // 2}
    image = Image.open(io.BytesIO(png))
    assert round(image.info["dpi"][0]) == dpi
    # quiet zone of 10 X on each side
    row = [image.convert("L").getpixel((x, image.height // 3)) < 128 for x in range(image.width)]
    assert row.index(True) == 10 * narrow
    assert row[::-1].index(True) == 10 * narrow


@pytest.mark.parametrize(
    ("bad", "problem"),
    [
        ("00642918818544610", "18 digits"),  # 17: python-barcode alone would pad it with a leading 0
        ("0064291881854461", "18 digits"),  # 16: even, python-barcode alone would render it
        ("0064291881854461045", "18 digits"),  # 19
        ("", "18 digits"),
        ("00642918818544610a", "digits 0-9"),
        ("00-6429-1881-8544-", "digits 0-9"),  # 18 characters, not 18 digits
        (6429188185446104, "str"),
    ],
)
def test_itf_refuses_anything_but_18_digits(bad, problem):
    with pytest.raises(ValueError, match=problem):
        itf_barcode_png(bad)


@pytest.mark.parametrize("options", [{"module_width_mm": 0}, {"height_mm": -1}, {"dpi": 0}])
def test_itf_refuses_non_positive_sizes(options):
    with pytest.raises(ValueError, match="positive"):
        itf_barcode_png(NUMBERS[0], **options)


# ------------------------------------------------------------------------------- QR


@pytest.mark.parametrize("number", NUMBERS)
def test_qr_decodes_to_exactly_the_18_digits(number):
    results = _decode(qr_png(number))
    assert [(r.format, r.text) for r in results] == [(zxingcpp.BarcodeFormat.QRCode, number)]


def test_qr_decodes_when_small():
    number = NUMBERS[5]
    results = _decode(qr_png(number, box_size_px=3))
    assert [r.text for r in results] == [number]


@pytest.mark.parametrize(
    ("bad", "problem"),
    [
        ("00642918818544610", "18 digits"),
        ("0064291881854461045", "18 digits"),
        ("", "18 digits"),
        ("0064291881854461O4", "digits 0-9"),
        (None, "str"),
    ],
)
def test_qr_refuses_anything_but_18_digits(bad, problem):
    with pytest.raises(ValueError, match=problem):
        qr_png(bad)


def test_qr_refuses_bad_sizes():
    with pytest.raises(ValueError):
        qr_png(NUMBERS[0], box_size_px=0)
    with pytest.raises(ValueError):
        qr_png(NUMBERS[0], border_modules=-1)
