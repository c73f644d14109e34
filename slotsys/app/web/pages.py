"""The people's screens: server-rendered pages + small vanilla JavaScript.

Pages and their static assets are reachable without a token: each page logs the staff member in
through ``POST /api/v1/auth/login``, keeps the bearer token in ``sessionStorage`` and calls the
JSON API with ``Authorization: Bearer``; the token never appears in a URL. Every asset is served
from ``slotsys/web/static`` (no CDN, no external network).
"""

from __future__ import annotations

import io
import re
from functools import lru_cache

from flask import Blueprint, Response, abort, current_app, render_template

bp = Blueprint("web", __name__, template_folder="templates", static_folder="static", static_url_path="/assets")

PAGES = (  # (path, English title, Korean title, who)
    ("/console", "Operator console: the floor", "운영 콘솔: 플로어", "operator"),
    ("/console/floor", "Floor administration: machines, zones, banks", "플로어 관리", "operator"),
    ("/console/jackpots", "Jackpot levels", "잭팟 레벨", "operator"),
    ("/console/par-sheets", "Par sheets", "파 시트", "operator"),
    ("/console/alerts", "Attendant alerts (live)", "어텐던트 알림 (실시간)", "attendant"),
    ("/console/handpays", "Handpay queue and sign-off", "핸드페이 대기열과 서명", "attendant, supervisor"),
    ("/cashier", "Cashier station", "캐셔 스테이션", "cashier"),
    ("/kiosk", "Ticket kiosk", "티켓 키오스크", "kiosk1"),
    ("/signage/VIP", "Jackpot signage: VIP", "잭팟 사이니지: VIP", "any staff"),
    ("/signage/MASS", "Jackpot signage: MASS", "잭팟 사이니지: MASS", "any staff"),
    ("/reports", "Reports", "보고서", "auditor"),
    ("/console/games", "Games: upload and approval", "게임: 업로드와 승인", "operator, supervisor"),
    ("/console/staff", "Staff", "직원", "admin"),
    ("/console/audit-log", "Audit log", "감사 로그", "auditor"),
)


def _page(template: str, **kw):
    return render_template(template, casino=current_app.extensions["slotsys"].settings.casino_name, **kw)


@bp.get("/")
def index():
    return _page("index.html", pages=PAGES)


@bp.get("/console")
def console():
    return _page("console.html")


@bp.get("/console/floor")
def floor_admin():
    return _page("floor_admin.html")


@bp.get("/console/machines/<asset>")
def machine(asset: str):
    if not re.fullmatch(r"[A-Za-z0-9_-]{1,20}", asset):
        abort(404)
    return _page("machine.html", asset=asset)


@bp.get("/console/alerts")
def alerts():
    return _page("alerts.html")


@bp.get("/console/handpays")
def handpays():
    return _page("handpays.html")


@bp.get("/console/jackpots")
def jackpots():
    return _page("jackpots.html")


@bp.get("/console/par-sheets")
def par_sheets():
    return _page("parsheets.html")


@bp.get("/console/games")
def games():
    return _page("games.html")


@bp.get("/console/staff")
def staff():
    return _page("staff.html")


@bp.get("/console/audit-log")
def audit_log():
    return _page("auditlog.html")


@bp.get("/cashier")
def cashier():
    return _page("cashier.html")


@bp.get("/cashier/receipt/<number>")
def receipt(number: str):
    if not re.fullmatch(r"[0-9 -]{1,30}", number):
        abort(404)
    return _page("receipt.html", number=number)


@bp.get("/kiosk")
def kiosk():
    return _page("kiosk.html")


@bp.get("/signage/<zone>")
def signage(zone: str):
    if not re.fullmatch(r"[A-Za-z0-9_-]{1,20}", zone):
        abort(404)
    return _page("signage.html", zone=zone)


@bp.get("/reports")
def reports():
    return _page("reports.html")


@bp.get("/assets/fonts/<name>.woff")
def font(name: str):
    """NanumGothic (SIL OFL) for Hangul, from the koreanize-matplotlib dependency the printed tickets
    already use (not copied into the repository: 4.6 MB each), as WOFF without its VTT source tables
    (TSI*: Chromium's font sanitizer rejects the empty TSI3)."""
    if name not in ("NanumGothic", "NanumGothicBold"):
        abort(404)
    return Response(_web_font(name), mimetype="font/woff", headers={"Cache-Control": "public, max-age=604800"})


@lru_cache(maxsize=2)
def _web_font(name: str) -> bytes:
    from fontTools.ttLib import TTFont  # fonttools comes with matplotlib

    from slotsys.kernel.fonts import font_paths

    regular, bold = font_paths()
    font = TTFont(str(bold if name == "NanumGothicBold" else regular))
    for tag in [t for t in font.keys() if t.startswith("TSI")]:
        del font[tag]
    font.flavor = "woff"
    buf = io.BytesIO()
    font.save(buf)
    return buf.getvalue()


def register_screens(app) -> None:
    """Register the pages and the read-only API they need (``slotsys.app.api.screens``)."""
    from slotsys.app.api.screens import bp as screens_api

    app.register_blueprint(screens_api)
    app.register_blueprint(bp)
