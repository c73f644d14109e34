"""The printable ticket of every type, as PNG and as PDF (rasterised with PDFium), read back with a
real decoder (zxing-cpp); the face carries every field GLI-13 asks for."""

from __future__ import annotations

import io
from datetime import datetime

import pypdfium2 as pdfium
import pytest
import zxingcpp
from PIL import Image

from tito.domain.printable import PAGE_MM, TicketFace, ticket_pdf, ticket_png
from tito.domain.validation import SystemValidation, sas_secure_enhanced_number

NUMBERS = [sas_secure_enhanced_number(0x654321, 1), SystemValidation(lambda n: n // 7).next_number(),
           sas_secure_enhanced_number(0, 0)]


def decode(image: Image.Image, fmt) -> list[str]:
    return [r.text for r in zxingcpp.read_barcodes(image, formats=fmt)]


def face(ticket_type: str, vn: str, amount: int = 1_234_500) -> TicketFace:
    return TicketFace("Grand Seoul Casino", "Seoul, Gangnam", ticket_type, vn, amount,
                      datetime(2026, 11, 29, 23, 7, 33), "M001", 42, 30)


@pytest.mark.parametrize("ticket_type,title", [("cashable", "CASHOUT TICKET"), ("promotional", "PROMOTIONAL TICKET"),
                                               ("handpay_receipt", "HANDPAY RECEIPT")])
@pytest.mark.parametrize("dpi", [203, 300])
def test_printable_png_of_every_type_decodes_to_its_number(ticket_type, title, dpi):
    vn = NUMBERS[0] if ticket_type == "cashable" else NUMBERS[1]
    img = Image.open(io.BytesIO(ticket_png(face(ticket_type, vn), dpi=dpi)))
    assert round(img.info["dpi"][0]) == dpi  # PNG stores dots per metre
    assert img.size == (round(PAGE_MM[0] / 25.4 * dpi), round(PAGE_MM[1] / 25.4 * dpi))  # 156 × 65 mm
    assert decode(img, zxingcpp.BarcodeFormat.ITF) == [vn]


@pytest.mark.parametrize("ticket_type,title", [("cashable", "CASHOUT TICKET"), ("promotional", "PROMOTIONAL TICKET"),
                                               ("handpay_receipt", "HANDPAY RECEIPT")])
def test_printable_pdf_has_the_face_and_a_decodable_barcode(ticket_type, title):
    vn = NUMBERS[1]
    doc = pdfium.PdfDocument(ticket_pdf(face(ticket_type, vn, 12_300)))
    assert len(doc) == 1
    page = doc[0]
    w_pt, h_pt = page.get_size()
    assert (round(w_pt / 72 * 25.4), round(h_pt / 72 * 25.4)) == (156, 65)
    text = page.get_textpage().get_text_range()
    for expected in ("GRAND SEOUL CASINO", "Seoul, Gangnam", title, f"{vn[:2]}-{vn[2:6]}-{vn[6:10]}-{vn[10:14]}-{vn[14:]}",
                     "₩12,300", "일만이천삼백원", "TWELVE THOUSAND THREE HUNDRED WON", "2026-11-29", "23:07:33",
                     "TICKET # 0042", "ASSET# M001", "VOID AFTER 30 DAYS"):
        assert expected in text, expected
    img = page.render(scale=300 / 72).to_pil()
    assert decode(img, zxingcpp.BarcodeFormat.ITF) == [vn]


def test_long_amounts_still_fit_and_decode():
    vn = NUMBERS[2]
    img = Image.open(io.BytesIO(ticket_png(face("cashable", vn, 987_654_321_987))))
    assert decode(img, zxingcpp.BarcodeFormat.ITF) == [vn]
