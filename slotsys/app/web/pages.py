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

from slotsys.app.web.messages import REFUSALS, SCREEN
from slotsys.kernel.api import i18n

bp = Blueprint("web", __name__, template_folder="templates", static_folder="static", static_url_path="/assets")

PAGES = (  # (path, English title (its Korean: the catalogue), who)
    ("/console", "Operator console: the floor", "operator"),
    ("/console/floor", "Floor administration: machines, zones, banks", "operator"),
    ("/console/jackpots", "Jackpot levels", "operator"),
    ("/console/par-sheets", "Par sheets", "operator"),
    ("/console/alerts", "Attendant alerts (live)", "attendant"),
    ("/console/handpays", "Handpay queue and sign-off", "attendant, supervisor"),
    ("/cashier", "Cashier station", "cashier"),
    ("/kiosk", "Ticket kiosk", "kiosk1"),
    ("/signage/VIP", "Jackpot signage: VIP", "any staff"),
    ("/signage/MASS", "Jackpot signage: MASS", "any staff"),
    ("/reports", "Reports", "auditor"),
    ("/console/games", "Games: upload and approval", "operator, supervisor"),
    ("/console/staff", "Staff", "admin"),
    ("/console/audit-log", "Audit log", "auditor"),
)


@lru_cache(maxsize=1)
def screen_catalogue() -> dict:
    """The screens' words in every language, as the pages read them (``static/app.js``): ``messages`` {key: {lang:
    text}}, ``refusals`` {reason: {lang: text}}, from :mod:`slotsys.app.web.messages` and the message catalogue."""

    def each(english: str | tuple[str, str]) -> dict[str, str]:
        context, text = english if isinstance(english, tuple) else (None, english)
        return {lang: i18n.translate(text, lang, context) for lang in i18n.languages()}

    return {"languages": list(i18n.languages()), "messages": {k: each(v) for k, v in SCREEN.items()},
            "refusals": {k: each(v) for k, v in REFUSALS.items()}}


def _page(template: str, **kw):
    settings = current_app.extensions["slotsys"].settings
    return render_template(template, casino=settings.casino_name, messages=screen_catalogue(),
                           timezone=settings.gaming_day_tz, **kw)


@bp.get("/")
def index():
    pages = [(path, title, i18n.translate(title, "ko"), who) for path, title, who in PAGES]
    return _page("index.html", pages=pages)


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
