"""Read-only use cases behind the screens that the API did not expose yet.

* **Signage stream tokens.** A browser's ``EventSource`` cannot send an ``Authorization``
  header, so the signage page (logged in with a staff bearer token) first asks for a short-lived
  *stream token* and opens ``/api/v1/screens/jackpot-stream?token=…`` with it. The token is
  ``<payload>.<mac>``: payload = base64url of ``{"u": username, "exp": unix seconds, "s": scope}``,
  mac = HMAC-SHA256 over the payload keyed with the user's stored password hash (a server-side
  secret per user; no new setting or table, valid on every web node). It is good for
  ``STREAM_TOKEN_SECONDS`` (to open the connection; a live connection stays open), only for the
  read-only stream scope, and dies with the user (deactivated) or a password change. The staff
  bearer token itself never appears in a URL.
* **Ticket check at the cage**: what the cage would answer for a ticket now (the pure
  ``check_presentation`` rule on the row as on file), without locking or changing anything.
* **Par sheets** per game and variation, and their charts as PNG (matplotlib, Agg).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import io
import json
from datetime import datetime, timezone
from functools import lru_cache

from slotsys.kernel.errors import NotFound, Unauthorized, ValidationFailed
from slotsys.kernel.context import Principal, ServiceContext
from slotsys.kernel.checks import require_role
from tito.adapters.repo import TicketRepo
from tito.domain.tickets import CAGE, check_presentation
from tito.services import tickets as T
from slotsys.kernel.accounts import MAIN_CAGE
from slotsys.kernel.fonts import load_matplotlib

STREAM_TOKEN_SECONDS = 60
STREAM_SCOPE = "jackpot-stream"
CHART_KINDS = ("rtp", "parts", "awards")


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _mac(secret: str, payload: str) -> str:
    return _b64(hmac.new(secret.encode(), payload.encode(), hashlib.sha256).digest())


class ScreensService:
    def __init__(self, ctx: ServiceContext) -> None:
        self.ctx = ctx

    # ------------------------------------------------------------ signage stream tokens
    def stream_token(self, principal: Principal) -> dict:
        """A stream token for the staff caller: ``{"token", "expires_at" (ISO UTC), "expires_in" (s),
        "stream_url"}``. Any staff role (the stream is readable by any authenticated caller)."""
        if principal.kind != "staff":
            raise Unauthorized("stream tokens are for staff")
        now = self.ctx.clock.now()
        exp = int(now.timestamp()) + STREAM_TOKEN_SECONDS
        with self.ctx.uow(readonly=True) as uow:
            user = uow.staff.by_username(principal.name)
            if user is None or not user.active:
                raise Unauthorized("unknown or inactive user")
            payload = _b64(json.dumps({"u": user.username, "exp": exp, "s": STREAM_SCOPE},
                                      separators=(",", ":")).encode())
            token = f"{payload}.{_mac(user.password_hash, payload)}"
        return {"token": token, "expires_in": STREAM_TOKEN_SECONDS,
                "expires_at": datetime.fromtimestamp(exp, timezone.utc).isoformat(),
                "stream_url": f"/api/v1/screens/jackpot-stream?token={token}"}

    def check_stream_token(self, token: str | None) -> Principal:
        """The staff principal a stream token was minted for; 401 if missing, malformed, forged,
        expired, for another scope, or its user is gone or inactive."""
        if not token or "." not in token or len(token) > 400:
            raise Unauthorized("a stream token is required (POST /api/v1/screens/stream-token)", field="token")
        payload, mac = token.rsplit(".", 1)
        try:
            claims = json.loads(_unb64(payload))
            username, exp, scope = str(claims["u"]), int(claims["exp"]), claims["s"]
        except (ValueError, KeyError, TypeError):
            raise Unauthorized("malformed stream token", field="token") from None
        now = int(self.ctx.clock.now().timestamp())
        if scope != STREAM_SCOPE or exp < now or exp > now + STREAM_TOKEN_SECONDS + 5:
            raise Unauthorized("expired or invalid stream token", field="token")
        with self.ctx.uow(readonly=True) as uow:
            user = uow.staff.by_username(username)
            if user is None or not user.active or not hmac.compare_digest(_mac(user.password_hash, payload), mac):
                raise Unauthorized("invalid stream token", field="token")
            return Principal("staff", user.username, user.role)

    # ------------------------------------------------------------ cage ticket check
    def ticket_check(self, principal: Principal, raw_number: object) -> dict:
        """What the cage would say about a ticket now, changing nothing (cashier, supervisor).

        ``{"ticket": <ticket view with effective_status and events>, "payable": bool,
        "refusal": null | {"reason", "code" (the problem type the cage would answer), "detail",
        ...facts (redeemed_at, redeemed_channel, redeemed_location, voided_by, expires_at ...)}}``.
        422 malformed / check digit wrong, 404 not on file (as the look-up)."""
        require_role(principal, "cashier", "supervisor")
        vn = T.parse_number(raw_number)
        now = self.ctx.clock.now()
        with self.ctx.uow(readonly=True) as uow:
            view = T.lookup(uow, vn, now)
            t = TicketRepo(uow.session).get(vn)
            refusal = check_presentation(T.snapshot(t), channel=CAGE, location=MAIN_CAGE, now=now)
        out = {"ticket": view, "payable": refusal is None, "refusal": None}
        if refusal is not None:
            err = T.refusal_error(refusal)
            out["refusal"] = {"reason": refusal.reason, "code": err.code, "title": err.title,
                              "detail": refusal.detail, **refusal.extra}
        return out

    # ------------------------------------------------------------ par sheets
    def games(self) -> dict:
        """The game catalogue: ``{"games": [{"id", "name", "kind", "rows", "reels", "variations",
        "default_variation"}]}``."""
        from slotsys.floor.games import catalogue

        return {"games": [{"id": g.id, "name": g.name, "kind": g.kind, "rows": g.rows, "reels": g.reel_count,
                           "variations": list(g.variations), "default_variation": g.default_variation}
                          for g in sorted(catalogue().values(), key=lambda g: g.id)]}

    def par_sheet(self, game_id: str, variation: str | None) -> dict:
        """The exact par sheet (``slotsys par GAME --json``): RTP per bet option, hit frequency,
        SD, volatility, award probabilities and cycles; plus ``name`` and ``charts`` (kinds)."""
        game, variation = _game(game_id, variation)
        return {**_sheet(game_id, variation), "name": game.name, "kind": game.kind, "charts": list(CHART_KINDS)}

    def par_chart(self, game_id: str, variation: str | None, kind: str) -> bytes:
        """A chart of the par sheet as PNG: ``rtp`` (RTP per bet option, every variation), ``parts``
        (where the RTP comes from, per option), ``awards`` (award cycles, 1 in N, log scale)."""
        if kind not in CHART_KINDS:
            raise ValidationFailed(f"chart must be one of {', '.join(CHART_KINDS)}", field="chart")
        _, variation = _game(game_id, variation)
        return _chart(game_id, variation, kind)


def _game(game_id: str, variation: str | None):
    from slotsys.floor.games import catalogue

    games = catalogue()
    if game_id not in games:
        raise NotFound(f"game {game_id!r} is not in the catalogue", field="game")
    game = games[game_id]
    variation = variation or game.default_variation
    if variation not in game.variations:
        raise ValidationFailed(f"variation must be one of {', '.join(game.variations)}", field="variation")
    return game, variation


@lru_cache(maxsize=16)
def _sheet(game_id: str, variation: str) -> dict:
    from slotsys.floor.domain.parsheet import par_sheet
    from slotsys.floor.games import load_game

    return par_sheet(load_game(game_id), variation).to_dict()


def _option_rows(sheet: dict) -> list[dict]:
    """One option per lines / reels bought (multipliers scale bet and wins alike)."""
    seen, rows = set(), []
    for o in sheet["options"]:
        key = (o["bet"]["lines"], o["bet"]["reels"])
        if key not in seen:
            seen.add(key)
            rows.append(o)
    return rows


def _label(o: dict) -> str:
    b = o["bet"]
    return f"{b['lines']} lines" if b["lines"] else f"reels 1-{b['reels']}"


@lru_cache(maxsize=32)
def _chart(game_id: str, variation: str, kind: str) -> bytes:
    load_matplotlib()  # one thread imports matplotlib (see kernel.fonts)
    from matplotlib.figure import Figure  # no pyplot: thread-safe, no global backend state

    from slotsys.floor.games import load_game

    game = load_game(game_id)
    fig = Figure(figsize=(8, 4.2), dpi=100)
    ax = fig.subplots()
    sheet = _sheet(game_id, variation)
    if kind == "rtp":
        variations = list(game.variations)
        labels = [_label(o) for o in _option_rows(sheet)]
        width = 0.8 / max(1, len(variations))
        for i, v in enumerate(variations):
            rows = _option_rows(_sheet(game_id, v))
            ax.bar([x + i * width for x in range(len(rows))], [o["rtp"] * 100 for o in rows], width, label=f"v{v}")
        ax.set_xticks([x + width * (len(variations) - 1) / 2 for x in range(len(labels))], labels, rotation=30)
        lo = min(o["rtp"] for v in variations for o in _option_rows(_sheet(game_id, v))) * 100
        ax.set_ylim(max(0, lo - 5), 100)
        ax.set_ylabel("RTP %")
        ax.set_title(f"{game.name}: RTP per bet option")
        ax.legend()
    elif kind == "parts":
        rows = _option_rows(sheet)
        parts = sorted({k for o in rows for k in o["rtp_parts"]})
        bottom = [0.0] * len(rows)
        for p in parts:
            vals = [o["rtp_parts"].get(p, 0) * 100 for o in rows]
            ax.bar(range(len(rows)), vals, bottom=bottom, label=p)
            bottom = [b + v for b, v in zip(bottom, vals)]
        ax.set_xticks(range(len(rows)), [_label(o) for o in rows], rotation=30)
        ax.set_ylabel("RTP %")
        ax.set_title(f"{game.name} v{variation}: where the RTP comes from")
        ax.legend()
    else:
        awards = sorted(sheet["awards"], key=lambda a: a["cycle"])[:25]
        ax.barh(range(len(awards)), [a["cycle"] for a in awards], color="tab:orange")
        ax.set_yticks(range(len(awards)), [a["award"] for a in awards], fontsize=7)
        ax.set_xscale("log")
        ax.invert_yaxis()
        ax.set_xlabel("cycle: 1 in N paid games (log scale)")
        ax.set_title(f"{game.name} v{variation}: award cycles (most frequent 25)")
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    return buf.getvalue()
