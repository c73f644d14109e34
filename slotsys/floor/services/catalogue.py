"""The floor's game catalogue: the shipped games (``slotsys/floor/games/*.yaml``) plus uploaded definitions, which become
assignable to a machine only after a second person approved them (dual control).

Rules
    * **Upload** (admin, operator): the YAML text of docs/game-format.md, checked by the one loader
      (``slotsys.floor.domain.game_upload.check_definition``: 422 ``validation-failed`` listing ``errors`` of
      ``{field, line, message}``); its exact par sheet is computed for every variation at upload
      (``slotsys.floor.domain.parsheet``) and stored with the text, its SHA-256, the uploader and the time. Refused
      409 naming ``id``: a shipped game's id, or an id with a pending or approved upload (an approved game's
      math never changes under the machines playing it; upload under a new id instead).
    * **Approve / reject** (admin, supervisor; never the uploader: 403 naming the ``actor``): approve all the
      variations or a list of them; reject with a reason. Decided once: the second of two racing decisions is
      409 (a conditional update on ``status = 'pending'``).
    * **Assignable** (:func:`assignable`): a shipped game and one of its variations, or an approved upload and
      one of its approved variations.
    * **Play** (:class:`UploadedGames`): ``slotsys.floor.games.load_game`` falls back to the approved uploads, so a
      machine assigned to one spins with exactly the approved text (only its approved variations).

Every upload, approval and rejection is in the audit log (``game.upload``, ``game.approve``, ``game.reject``;
subject ``game:<id>``), refusals too (outcome ``refused``).
"""

from __future__ import annotations

import dataclasses
import threading
from typing import Any

from pydantic import BaseModel

from slotsys.kernel.errors import Conflict, Forbidden, NotFound, ValidationFailed
from slotsys.floor.domain.game import GameDefinition, parse_game
from slotsys.floor.domain.game_upload import check_definition, definition_sha256
from slotsys.floor.domain.parsheet import par_sheet
from slotsys.floor.games import catalogue
from slotsys.kernel.audit_log import record, record_refusal
from slotsys.kernel.context import Principal, ServiceContext
from slotsys.kernel.checks import require_role

UPLOADERS = ("operator",)  # and admin (require_role: admin holds every role)
APPROVERS = ("supervisor",)  # and admin
READERS = ("operator", "supervisor", "auditor")  # and admin
STATUSES = ("pending", "approved", "rejected")


def assignable(uow, game_id: str, variation: str | None) -> bool:
    """Whether a machine may be assigned ``game_id`` with ``variation`` (None or "": the game's default).

    True for a shipped catalogue game and one of its variations, or for an approved upload and one of its
    approved variations; False otherwise (unknown, pending, rejected, or a variation not approved)."""
    shipped = catalogue().get(game_id)
    if shipped is not None:
        return (variation or shipped.default_variation) in shipped.variations
    row = uow.game_definitions.approved(game_id)
    if row is None:
        return False
    return (variation or row.default_variation) in (row.approved_variations or [])


def playable_definition(source: str, approved: list[str], default: str) -> GameDefinition:
    """The definition the floor plays: the stored text, restricted to its approved variations (the default kept
    if approved, else the first approved one)."""
    game = parse_game(source)
    keep = {k: v for k, v in game.variations.items() if k in approved}
    if set(keep) == set(game.variations):
        return game
    return dataclasses.replace(game, variations=keep, default_variation=default if default in keep else next(iter(keep)))


class UploadedGames:
    """``game_id`` → the approved uploaded :class:`GameDefinition` or None: the fallback of
    ``slotsys.floor.games.load_game`` (installed by the composition root). An approval is final, so a definition is
    cached for the life of the process once read (at most ``max_games``)."""

    def __init__(self, uow_factory, max_games: int = 256) -> None:
        self.uow = uow_factory
        self.max_games = max_games
        self._cache: dict[str, GameDefinition] = {}
        self._lock = threading.Lock()

    def __call__(self, game_id: str) -> GameDefinition | None:
        game = self._cache.get(game_id)
        if game is not None:
            return game
        with self.uow(readonly=True) as uow:
            row = uow.game_definitions.approved(game_id)
            if row is None:
                return None
            source, approved, default = row.source, list(row.approved_variations or []), row.default_variation
        game = playable_definition(source, approved, default)
        with self._lock:
            if len(self._cache) >= self.max_games:
                self._cache.clear()
            self._cache[game_id] = game
        return game


class GameUpload(BaseModel):
    """An uploaded definition (no text, no full par sheet): its SHA-256, variations, ``status`` pending | approved |
    rejected, who uploaded and decided it when (ISO 8601 UTC), the variations approved, and per variation a par
    sheet summary (``rtp_full_bet``, ``min_rtp`` / ``max_rtp`` over the bet options, ``options``,
    ``max_award_credits``, ``top_award``)."""

    id: int
    game_id: str
    name: str
    kind: str
    sha256: str
    variations: list[str]
    default_variation: str
    status: str
    uploaded_by: str
    uploaded_at: str
    approved_variations: list[str]
    decided_by: str | None
    decided_at: str | None
    reason: str
    par_sheet_summary: dict[str, dict[str, Any]]


class GameUploadDetail(GameUpload):
    """An upload with its YAML text (``definition``) and full par sheet per variation."""

    par_sheet: dict[str, Any]
    definition: str


class ShippedGame(BaseModel):
    """A catalogue game shipped with the floor (approved by shipping)."""

    game_id: str
    name: str
    variations: list[str]
    status: str


class GameUploads(BaseModel):
    games: list[GameUpload]
    catalogue: list[ShippedGame]


def _summary(sheet: dict) -> dict:
    rtps = [o["rtp"] for o in sheet.get("options", [])]
    return {"rtp_full_bet": sheet.get("rtp_full_bet"), "min_rtp": min(rtps) if rtps else None,
            "max_rtp": max(rtps) if rtps else None, "options": len(rtps),
            "max_award_credits": sheet.get("max_award_credits"), "top_award": sheet.get("top_award")}


def _view(row, *, full: bool = False) -> GameUpload:
    view = {
        "id": row.id, "game_id": row.game_id, "name": row.name, "kind": row.kind, "sha256": row.sha256,
        "variations": list(row.variations), "default_variation": row.default_variation, "status": row.status,
        "uploaded_by": row.uploaded_by, "uploaded_at": row.uploaded_at.isoformat(),
        "approved_variations": list(row.approved_variations or []), "decided_by": row.decided_by,
        "decided_at": row.decided_at.isoformat() if row.decided_at else None, "reason": row.reason,
        "par_sheet_summary": {v: _summary(s) for v, s in (row.par_sheet or {}).items()},
    }
    if full:
        return GameUploadDetail(**view, par_sheet=row.par_sheet, definition=row.source)
    return GameUpload(**view)


class GameCatalogueService:
    def __init__(self, ctx: ServiceContext) -> None:
        self.ctx = ctx

    def _refuse(self, principal: Principal, action: str, subject: str, err: Exception) -> None:
        record_refusal(self.ctx.uow, principal, action, subject, str(err),
                       detail={"field": getattr(err, "field", None)})

    def upload(self, principal: Principal, text: str) -> GameUpload:
        """Upload a definition (admin, operator). Returns the upload's view (``status`` ``pending``) with its par
        sheet summary per variation. 422 ``errors`` ``[{field, line, message}]``; 409 naming ``id``."""
        require_role(principal, *UPLOADERS)
        game, errors = check_definition(text)
        if game is None:
            err = ValidationFailed("the game definition is not valid: " + "; ".join(
                f"{e['field']}" + (f" (line {e['line']})" if e["line"] else "") + f": {e['message']}" for e in errors),
                field=errors[0]["field"], errors=errors)
            self._refuse(principal, "game.upload", "game:?", err)
            raise err
        subject = f"game:{game.id}"
        if game.id in catalogue():
            err = Conflict(f"{game.id!r} is a shipped catalogue game: upload under another id", field="id")
            self._refuse(principal, "game.upload", subject, err)
            raise err
        try:
            sheets = {v: par_sheet(game, v).to_dict() for v in game.variations}
        except ValueError as e:  # the math cannot be certified: never assignable
            err = ValidationFailed(f"the par sheet cannot be computed: {e}", field="definition",
                                   errors=[{"field": "definition", "line": None, "message": str(e)}])
            self._refuse(principal, "game.upload", subject, err)
            raise err from None
        now = self.ctx.clock.now()
        with self.ctx.uow() as uow:
            live = uow.game_definitions.live(game.id)
            if live is not None:
                err = Conflict(f"{game.id!r} already has a {live.status} upload (#{live.id}): upload under another "
                               "id, or have the pending one rejected first", field="id", upload_id=live.id)
                uow.rollback()
                self._refuse(principal, "game.upload", subject, err)
                raise err
            try:  # a racing upload of the same id (the table's partial unique index)
                row = uow.game_definitions.add(
                    game_id=game.id, name=game.name, kind=game.kind, source=text, sha256=definition_sha256(text),
                    variations=list(game.variations), default_variation=game.default_variation, par_sheet=sheets,
                    status="pending", uploaded_by=principal.name, uploaded_at=now, approved_variations=[], reason="")
            except Conflict as err:
                uow.rollback()
                self._refuse(principal, "game.upload", subject, err)
                raise
            view = _view(row)
            record(uow, principal, "game.upload", subject, after={
                "upload_id": row.id, "sha256": row.sha256, "variations": list(game.variations), "status": "pending",
                "rtp_full_bet": {v: s["rtp_full_bet"] for v, s in sheets.items()}}, at=now)
            uow.commit()
        return view

    def list(self, principal: Principal, *, status: str | None = None, limit: int = 100) -> GameUploads:
        """Uploads, newest first (admin, operator, supervisor, auditor): ``{"games": [view…]}`` (no text, no full
        par sheet), plus ``catalogue``: the shipped games ``[{game_id, name, variations}]`` (approved by shipping)."""
        require_role(principal, *READERS)
        with self.ctx.uow(readonly=True) as uow:
            rows = uow.game_definitions.recent(status=status, limit=limit)
            games = [_view(r) for r in rows]
        shipped = [ShippedGame(game_id=g.id, name=g.name, variations=list(g.variations), status="approved")
                   for g in catalogue().values()]
        return GameUploads(games=games, catalogue=shipped)

    def get(self, principal: Principal, upload_id: int) -> GameUploadDetail:
        """One upload with its text (``definition``) and full par sheet per variation; 404 naming ``id``."""
        require_role(principal, *READERS)
        with self.ctx.uow(readonly=True) as uow:
            row = uow.game_definitions.get(upload_id)
            if row is None:
                raise NotFound(f"no game upload #{upload_id}", field="id")
            return _view(row, full=True)

    def approve(self, principal: Principal, upload_id: int, *, variations: list[str] | None = None,
                reason: str = "") -> GameUpload:
        """The second person approves (admin, supervisor): every variation, or ``variations``. 404 ``id``;
        403 naming ``actor`` for the uploader; 422 ``variations``; 409 already decided."""
        return self._decide(principal, upload_id, "approved", variations=variations, reason=reason)

    def reject(self, principal: Principal, upload_id: int, *, reason: str) -> GameUpload:
        """The second person rejects (admin, supervisor) with a ``reason`` (422 if blank); same refusals as
        :meth:`approve`. The game id may then be uploaded again."""
        return self._decide(principal, upload_id, "rejected", reason=reason)

    def _decide(self, principal: Principal, upload_id: int, status: str, *, variations: list[str] | None = None,
                reason: str = "") -> GameUpload:
        require_role(principal, *APPROVERS)
        action = "game.approve" if status == "approved" else "game.reject"
        now = self.ctx.clock.now()
        with self.ctx.uow() as uow:
            row = uow.game_definitions.get(upload_id)
            if row is None:
                raise NotFound(f"no game upload #{upload_id}", field="id")
            subject = f"game:{row.game_id}"
            err: Exception | None = None
            chosen = list(row.variations) if variations is None else list(dict.fromkeys(variations))
            if row.uploaded_by == principal.name:
                err = Forbidden(f"{principal.name} uploaded this definition: a second person must "
                                f"{'approve' if status == 'approved' else 'reject'} it", field="actor",
                                actor=principal.name)
            elif row.status != "pending":
                err = Conflict(f"upload #{upload_id} is already {row.status} (by {row.decided_by})", field="id",
                               status_now=row.status)
            elif status == "rejected" and not reason.strip():
                err = ValidationFailed("a rejection needs a reason", field="reason")
            elif status == "approved" and (not chosen or any(v not in row.variations for v in chosen)):
                err = ValidationFailed(f"variations must be a non-empty list of {', '.join(row.variations)}",
                                       field="variations")
            elif not uow.game_definitions.decide(upload_id, status=status, by=principal.name, at=now,
                                                 reason=reason.strip(),
                                                 approved_variations=chosen if status == "approved" else []):
                err = Conflict(f"upload #{upload_id} was decided by someone else just now", field="id")
            if err is not None:
                uow.rollback()
                self._refuse(principal, action, subject, err)
                raise err
            record(uow, principal, action, subject, before={"status": "pending"},
                   after={"status": status, "upload_id": upload_id, "sha256": row.sha256,
                          **({"variations": chosen} if status == "approved" else {})},
                   reason=reason.strip(), at=now)
            uow.commit()
        with self.ctx.uow(readonly=True) as uow:
            return _view(uow.game_definitions.get(upload_id))
