"""Korean mode of the API and the pages: a refusal's problem+json title (and a fixed-sentence detail) comes in the
request's Accept-Language, English by default; the machine-readable members never change; the pages carry the
screens' words from the same catalogue."""

from __future__ import annotations

import json
import re
import uuid

from slotsys.app.web.messages import SCREEN
from slotsys.kernel.api import i18n

KO = {"Accept-Language": "ko-KR,ko;q=0.9,en;q=0.8"}


def _redeemed_ticket(api) -> str:
    assert api.as_machine("M001", "POST", "/api/v1/machines/M001/bill-in", {"amount": 10_000}).status_code == 200
    r = api.as_machine("M001", "POST", "/api/v1/machines/M001/cash-out")
    assert r.status_code == 201, r.json
    vn = r.json["ticket"]["validation_number"]
    assert api.as_staff("cashier", "POST", "/api/v1/cage/redeem", {"validation_number": vn}).status_code == 200
    return vn


def _redeem(api, vn: str, headers: dict | None = None):
    h = {"Authorization": f"Bearer {api.staff_token('cashier')}", "Idempotency-Key": uuid.uuid4().hex, **(headers or {})}
    return api.client.post("/api/v1/cage/redeem", json={"validation_number": vn}, headers=h)


def test_redeeming_a_ticket_twice_is_refused_in_korean_when_asked_and_in_english_by_default(api):
    vn = _redeemed_ticket(api)
    en, ko = _redeem(api, vn), _redeem(api, vn, KO)
    assert en.status_code == ko.status_code == 409
    assert en.json["title"] == "Ticket already redeemed"
    assert ko.json["title"] == "이미 지급된 티켓입니다"
    assert en.headers["Content-Language"] == "en" and ko.headers["Content-Language"] == "ko"
    assert "Accept-Language" in ko.headers["Vary"]
    # only human text changes: the type, status, the refusal's reason and facts are the same in both languages
    same = {k: v for k, v in en.json.items() if k != "title"}
    assert same == {k: v for k, v in ko.json.items() if k != "title"}
    assert ko.json["type"].endswith("/ticket-already-redeemed") and ko.json["redeemed_location"] == "MAIN"
    # a language without a catalogue is answered in English
    assert _redeem(api, vn, {"Accept-Language": "fr-FR"}).json["title"] == "Ticket already redeemed"


def test_validation_not_found_malformed_and_unauthenticated_refusals_are_titled_in_korean(api):
    token = {"Authorization": f"Bearer {api.staff_token('cashier')}"}
    r = api.client.post("/api/v1/cage/redeem", json={"validation_number": "12"},
                        headers={**token, **KO, "Idempotency-Key": uuid.uuid4().hex})
    assert r.status_code == 422 and r.json["title"] == "요청이 올바르지 않습니다"
    assert r.json["type"].endswith("/validation-failed") and r.json["field"] == "validation_number"
    r = api.client.get("/api/v1/no-such-thing", headers={**token, **KO})
    assert r.status_code == 404 and r.json["title"] == i18n.translate("Not Found", "ko") != "Not Found"
    r = api.client.post("/api/v1/cage/redeem", data="{", content_type="application/json",
                        headers={**token, **KO, "Idempotency-Key": uuid.uuid4().hex})
    assert r.status_code == 400 and r.json["title"] == "잘못된 요청"
    assert r.json["detail"] == "요청 본문이 올바른 JSON(UTF-8)이 아닙니다" and r.json["field"] == "body"
    r = api.client.get("/api/v1/cage/sessions/current", headers=KO)  # no token
    assert r.status_code == 401 and r.json["title"] == "인증이 필요합니다"
    assert r.headers["WWW-Authenticate"].startswith("Bearer")


def _page_catalogue(html: str) -> dict:
    m = re.search(r'<script type="application/json" id="ss-messages">(.*?)</script>', html, re.S)
    assert m, "the page carries no catalogue"
    return json.loads(m.group(1))


def test_the_screens_carry_every_word_from_the_catalogue_in_both_languages(api):
    for path in ("/console", "/cashier", "/reports"):
        r = api.client.get(path)
        assert r.status_code == 200
        cat = _page_catalogue(r.get_data(as_text=True))
        assert cat["languages"] == ["en", "ko"]
        assert set(cat["messages"]) == set(SCREEN)
        for key in ("m_bills_in", "m_tickets_in_count", "state_in_play", "tstatus_redeemed", "col_validation_number",
                    "zone_VIP"):
            assert cat["messages"][key]["ko"] != cat["messages"][key]["en"], key
        assert cat["messages"]["m_bills_in"] == {"en": "Bills in", "ko": "지폐 투입"}
        assert cat["refusals"]["already_redeemed"]["ko"] == "이미 지급된 티켓입니다"
    # every meter the machine page shows has a catalogue name
    meters = api.as_machine("M001", "GET", "/api/v1/machines/M001/meters", key=None).json["meters"]
    assert [k for k in meters if f"m_{k}" not in SCREEN] == []


def test_the_index_lists_the_screens_with_their_korean_titles(api):
    html = api.client.get("/").get_data(as_text=True)
    assert "운영 콘솔: 플로어" in html and "캐셔 스테이션" in html
