"""Machine-reported games and meter reconciliation: the machine decides the outcome, the system accounts for it.

Use cases (docs/machine-reported-games.md):

* :meth:`MachineGameService.report_game` — ``POST /machines/<asset>/games``: one game the machine played;
* :meth:`MachineGameService.report_meters` — ``POST /machines/<asset>/meters``: the machine's meters at game
  end, from which the game(s) are derived;
* :meth:`MachineGameService.reconciliation` — ``GET /machines/<asset>/reconciliation``: the machine's last
  reported meters against the system's, with the exceptions recorded;
* :func:`reconcile_floor` — the gaming-day close (and on demand): every machine-mode machine reconciled, each
  difference recorded as a ``meter_mismatch`` event;
* :func:`set_outcome_source` / :meth:`MachineGameService.set_outcome_source` — the enrolment setting.

The rules a report must pass are pure domain (:mod:`slotsys.floor.domain.machine_reports`); the accounting is the
spin's own (:func:`slotsys.floor.services.play.account_game`: one ledger entry, the jackpot wager, meters, loyalty,
recall), exactly once per Idempotency-Key (:func:`slotsys.kernel.idempotency.run_once`). A refused report
changes nothing and is recorded as a ``game_report_refused`` machine event in a transaction of its own.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import structlog

from slotsys.floor.domain.machine import Machine
from slotsys.kernel.errors import DomainError, Forbidden, MachineLocked, NotFound, Unauthorized
from slotsys.floor.domain.machine_reports import (
    GameReport,
    ReportRefused,
    check_game_report,
    check_meters,
    check_outcome_source,
    derive_play,
    meter_deltas,
    reconcile,
    require_mode,
)
from slotsys.kernel import audit_log
from slotsys.kernel.context import Principal, ServiceContext
from slotsys.floor.services.play import PlayPorts, account_game, stake
from slotsys.kernel.checks import require_machine
from slotsys.kernel.idempotency import fingerprint, OnceKey, run_once_dict
from slotsys.floor.services.event_log import record_system_event

log = structlog.get_logger("slotsys.machine_games")

REFUSED = "game_report_refused"
MISMATCH = "meter_mismatch"
SKIPPED = "game_number_skipped"


class _NoProgressive:
    """The jackpot wager port's view of a game reported without stops: no progressive combination."""

    progressive: tuple[str, ...] = ()


def system_meters(m: Machine) -> dict[str, int]:
    """The system's meters of ``m`` under the names a machine reports them (won; counts)."""
    return {"coin_in": m.coin_in, "coin_out": m.coin_out, "games_played": m.games_played,
            "jackpot": m.jackpot_out, "games_won": m.games_won}


def _report_dict(row) -> dict[str, int | None]:
    return {"coin_in": row.coin_in, "coin_out": row.coin_out, "games_played": row.games_played,
            "jackpot": row.jackpot, "games_won": row.games_won}


def set_outcome_source(uow, machine: Machine, source: Any) -> tuple[str, str]:
    """Set the machine's ``outcome_source`` (``server`` | ``machine``) in ``uow``'s transaction; returns
    (before, after). Raises ``ReportRefused`` 422 ``outcome_source`` for another value. The caller holds the
    machine's row lock and records the change in the audit log."""
    source = check_outcome_source(source)
    before = machine.outcome_source
    machine.outcome_source = source
    return before, source


def set_outcome_sources(uow_factory, modes: dict[str, str], *, principal: Principal | None = None,
                        reason: str = "") -> None:
    """Set several machines' ``outcome_source`` (``{asset: mode}``) in one transaction, each change audit-logged
    (``machine.outcome_source``; ``principal`` None: the system)."""
    with uow_factory() as uow:
        for asset, mode in sorted(modes.items()):
            m = uow.machines.get(asset, for_update=True)
            before, after = set_outcome_source(uow, m, mode)
            if before != after:
                audit_log.record(uow, principal, "machine.outcome_source", f"machine:{asset}",
                                 before={"outcome_source": before}, after={"outcome_source": after}, reason=reason)
        uow.commit()


def _active(m: Machine) -> None:
    if m.status != "active":
        raise MachineLocked(f"machine {m.asset_number} is locked: {m.lock_reason or m.status}")


def _reconcile_into(uow, ctx: ServiceContext, m: Machine, system: dict[str, int], machine: dict[str, int | None], *,
                    source: str, game_number: int | None, trigger: str) -> list[dict]:
    """Compare and record each difference as ONE ``meter_mismatch`` event (both figures; it opens an attendant
    alert); returns them."""
    mismatches = [x.to_dict() for x in reconcile(system, machine)]
    if mismatches:
        record_system_event(uow, ctx, m.id, MISMATCH, source=source, game_number=game_number,
                     detail={"trigger": trigger, "mismatches": mismatches, "system": system,
                             "machine": {k: v for k, v in machine.items() if v is not None}})
        log.warning("meter_mismatch", machine=m.asset_number, trigger=trigger, mismatches=mismatches)
    return mismatches


class MachineGameService:
    def __init__(self, ctx: ServiceContext, *, play: PlayPorts) -> None:
        self.ctx = ctx
        self.play = play

    # ------------------------------------------------------------ enrolment setting
    def set_outcome_source(self, principal: Principal | None, asset: str, source: Any, *, reason: str = "") -> dict:
        """Switch a machine between server-decided and machine-reported play (audit-logged as
        ``machine.outcome_source``). Returns ``{"machine", "outcome_source"}``; 422 ``outcome_source``."""
        set_outcome_sources(self.ctx.uow, {asset: source}, principal=principal, reason=reason)
        return {"machine": asset, "outcome_source": source}

    # ------------------------------------------------------------ a reported game
    def report_game(self, principal: Principal, asset: str, body: dict, idem_key: str | None) -> tuple[int, dict, bool]:
        """Account for one game the machine decided. ``body``: the fields of
        :class:`slotsys.floor.domain.machine_reports.GameReport` (``meters`` optional: the machine's meters after
        the game, reconciled at once).

        Response: ``game_number``, ``game``, ``denomination``, ``bet`` (the option, ``credits``, ``won``),
        ``total_win_credits``, ``total_win`` (won), ``stops``/``window``/``wins``/``free_games`` (evaluated
        when stops were reported, else null/empty), ``progressive``, ``jackpots`` (mystery awards to pay on the
        machine as a bonus: listed when decided in this transaction, as the spin's), ``credits_before``,
        ``credits`` (cashable meter, won), ``stake``, ``skipped`` (``{"first", "last"}`` of the game numbers
        missing before this one, or null), ``reconciliation`` (``{"balanced", "mismatches"}`` or null without
        meters), ``entry``, ``player``. Errors: 409 ``outcome_source`` (server mode), 409 ``game_number``
        (repeated / out of order), 422 naming the field (see the domain rules), 409 insufficient credits."""
        require_machine(principal, asset)
        report = GameReport(**body)

        def fn(uow) -> dict:
            m, credits, carded = uow.machines.get_for_play(asset)
            _active(m)
            require_mode(m.outcome_source, "machine", asset)
            game = self.play.games.load(m.game_id)
            checked = check_game_report(game, report, denomination=m.denomination, variation=m.variation,
                                        last_game_number=m.game_seq)
            reported = check_meters(report.meters) if report.meters is not None else None
            if reported is not None:
                last = uow.meter_reports.latest(m.id)
                meter_deltas(_report_dict(last) if last else system_meters(m), reported)
            bet_won, win_won = checked.bet_credits * m.denomination, checked.win_credits * m.denomination
            split = stake(bet_won, credits, field="bet_credits" if report.bet_credits is not None else "bet_won")
            before = system_meters(m)
            if checked.outcome is not None:
                od = checked.outcome.to_dict()
            else:
                od = {"stops": None, "window": None, "wins": [], "free_games": [], "free_games_awarded": 0,
                      "choice": None, "progressive": [], "total_win_credits": checked.win_credits}
            od["decided_by"] = "machine"
            acc = account_game(uow, self.ctx, self.play, m, meters=credits, carded=carded, option=checked.option, split=split,
                               bet_won=bet_won, win_won=win_won, outcome=checked.outcome or _NoProgressive(), od=od,
                               game_number=checked.game_number, game_id=game.id, kind="machine.game_report")
            if checked.skipped:
                first, last_missing = checked.skipped
                record_system_event(uow, self.ctx, m.id, SKIPPED, source="api", game_number=checked.game_number,
                             detail={"expected": first, "reported": checked.game_number,
                                     "missing": {"first": first, "last": last_missing},
                                     "count": last_missing - first + 1})
            rec = None
            if reported is not None:
                uow.meter_reports.add(m.id, source="game", game_number=checked.game_number, meters=reported)
                after = _after(before, bet_won, win_won, acc["jackpot_won"], games=1)
                mism = _reconcile_into(uow, self.ctx, m, after, reported, source="api", game_number=checked.game_number,
                                       trigger="game_report")
                rec = {"balanced": not mism, "mismatches": mism}
            return {
                "machine": asset, "outcome_source": "machine", "game_number": checked.game_number, "game": game.id,
                "denomination": m.denomination, "bet": {**checked.option.to_dict(), "won": bet_won},
                "total_win_credits": checked.win_credits, "total_win": win_won,
                "stops": od["stops"], "window": od["window"], "wins": od["wins"], "free_games": od["free_games"],
                "progressive": od["progressive"], "jackpots": acc["jackpots"],
                "credits_before": acc["credits_before"], "credits": acc["credits"], "stake": split.to_dict(),
                "skipped": {"first": checked.skipped[0], "last": checked.skipped[1]} if checked.skipped else None,
                "reconciliation": rec, "entry": acc["entry"], "player": acc["player"],
            }

        return self._once(principal, asset, idem_key, "games", body, fn, game_number=report.game_number)

    # ------------------------------------------------------------ meters at game end
    def report_meters(self, principal: Principal, asset: str, meters: dict, idem_key: str | None) -> tuple[int, dict, bool]:
        """Account for the game(s) behind a meters-at-game-end report (``meters``: won and counts, see
        :func:`slotsys.floor.domain.machine_reports.check_meters`). The baseline is the machine's last reported
        meters (its system meters before any report). Response: ``games`` derived, ``game_number`` (the last),
        ``bet`` / ``total_win`` (won, all games), ``jackpots``, ``credits_before``, ``credits``,
        ``reconciliation``, ``entry``, ``player``. Errors: 422 ``meters.<name>`` (decreasing, no game played,
        no bet offered, above the maximum award), 409 ``outcome_source``, 409 insufficient credits."""
        require_machine(principal, asset)

        def fn(uow) -> dict:
            m, credits, carded = uow.machines.get_for_play(asset)
            _active(m)
            require_mode(m.outcome_source, "machine", asset)
            game = self.play.games.load(m.game_id)
            reported = check_meters(meters)
            last = uow.meter_reports.latest(m.id)
            before = system_meters(m)
            deltas = meter_deltas(_report_dict(last) if last else before, reported)
            play = derive_play(game, m.denomination, deltas)
            bet_won, win_won = play.bet_credits * m.denomination, play.win_credits * m.denomination
            split = stake(bet_won, credits, field="meters.coin_in")
            game_number = m.game_seq + play.games
            od = {"stops": None, "window": None, "wins": [], "free_games": [], "progressive": [],
                  "total_win_credits": play.win_credits, "decided_by": "machine", "derived_from_meters": True,
                  "games": play.games, "first_game_number": m.game_seq + 1}
            acc = account_game(uow, self.ctx, self.play, m, meters=credits, carded=carded, option=play.option, split=split,
                               bet_won=bet_won, win_won=win_won, outcome=_NoProgressive(), od=od,
                               game_number=game_number, games=play.games, games_won=deltas.get("games_won"),
                               game_id=game.id, kind="machine.meters_report")
            uow.meter_reports.add(m.id, source="meters", game_number=game_number, meters=reported)
            after = _after(before, bet_won, win_won, acc["jackpot_won"], games=play.games,
                           games_won=deltas.get("games_won"))
            mism = _reconcile_into(uow, self.ctx, m, after, reported, source="api", game_number=game_number,
                                   trigger="meters_report")
            return {
                "machine": asset, "outcome_source": "machine", "games": play.games, "game_number": game_number,
                "game": game.id, "denomination": m.denomination,
                "bet": {"credits": play.bet_credits, "won": bet_won}, "total_win_credits": play.win_credits,
                "total_win": win_won, "jackpots": acc["jackpots"], "credits_before": acc["credits_before"],
                "credits": acc["credits"], "stake": split.to_dict(),
                "reconciliation": {"balanced": not mism, "mismatches": mism}, "entry": acc["entry"],
                "player": acc["player"],
            }

        return self._once(principal, asset, idem_key, "meters", meters, fn, game_number=None)

    def _once(self, principal: Principal, asset: str, idem_key: str | None, what: str, payload: Any, fn,
              *, game_number: int | None) -> tuple[int, dict, bool]:
        try:
            r = run_once_dict(self.ctx, OnceKey(principal.id, idem_key, fingerprint("POST", f"{what}/{asset}", payload)), fn, write_behind=True)
        except DomainError as e:
            if not isinstance(e, (NotFound, Forbidden, Unauthorized)):
                self._refused(asset, e, payload, game_number)
            raise
        return r.status, r.body, r.replayed

    def _refused(self, asset: str, err: DomainError, payload: Any, game_number: int | None) -> None:
        """Record a refused report (``game_report_refused``: field, reason, reported) in its own transaction."""
        if isinstance(err, ReportRefused):
            reason, reported = err.reason, err.reported
        else:
            reason = err.code.replace("-", "_")
            key = (err.field or "").split(".")[-1]
            reported = payload.get(key) if isinstance(payload, dict) and key in payload else err.extra.get("bet")
        try:
            with self.ctx.uow() as uow:
                m = uow.machines.get(asset)
                record_system_event(uow, self.ctx, m.id, REFUSED, source="api", game_number=game_number,
                             detail={"field": err.field, "reason": reason, "reported": reported,
                                     "detail": err.detail[:300]})
                uow.commit()
        except Exception:  # the refusal itself must reach the machine even if its record cannot be written
            log.error("game_report_refused.record_failed", machine=asset, exc_info=True)
        log.info("game_report_refused", machine=asset, field=err.field, reason=reason)

    # ------------------------------------------------------------ reconciliation
    def reconciliation(self, asset: str) -> dict:
        """The machine's last reported meters against the system's (read-only; the exceptions shown are the
        ``meter_mismatch`` events recorded at each report and at the gaming-day close).

        Response: ``machine``, ``outcome_source``, ``system`` (meters, ``game_number``), ``reported`` (the last
        report's meters, ``game_number``, ``source``, ``at``; null before any), ``comparable`` (the last report
        is at the system's current game), ``mismatches`` (meter, system, machine, difference = system −
        machine), ``balanced`` (null when not comparable), ``exceptions`` (the last 20 ``meter_mismatch``),
        ``skipped_games`` and ``refused_reports`` (the last 20 of each)."""
        with self.ctx.uow(readonly=True) as uow:
            m = uow.machines.get(asset)
            return _reconciliation(uow, m)


def _after(before: dict[str, int], bet_won: int, win_won: int, jackpot_won: int, *, games: int,
           games_won: int | None = None) -> dict[str, int]:
    """The system's meters after a game accounted by ``account_game`` (its meter deltas)."""
    won = games_won if games_won is not None else (1 if (win_won or jackpot_won) else 0)
    return {"coin_in": before["coin_in"] + bet_won, "coin_out": before["coin_out"] + win_won,
            "games_played": before["games_played"] + games, "jackpot": before["jackpot"] + jackpot_won,
            "games_won": before["games_won"] + won}


def _events(uow, m: Machine, kind: str) -> list[dict]:
    return [{"id": e.id, "at": e.at.isoformat(), "game_number": e.game_number, "detail": e.detail}
            for e in uow.machine_events.for_machine(m.id, kind=kind, limit=20)]


def _reconciliation(uow, m: Machine) -> dict:
    system = system_meters(m)
    last = uow.meter_reports.latest(m.id)
    # only meters reported at the system's current game compare meter for meter (a later game was reported
    # without meters: "comparable" false until the machine reports them again)
    comparable = last is not None and last.game_number == m.game_seq
    mism = [x.to_dict() for x in reconcile(system, _report_dict(last))] if comparable else []
    return {
        "machine": m.asset_number, "outcome_source": m.outcome_source,
        "system": {**system, "game_number": m.game_seq},
        "reported": ({**{k: v for k, v in _report_dict(last).items() if v is not None},
                      "game_number": last.game_number, "source": last.source, "at": last.at.isoformat()}
                     if last else None),
        "comparable": comparable, "mismatches": mism, "balanced": (not mism) if comparable else None,
        "exceptions": _events(uow, m, MISMATCH),
        "skipped_games": _events(uow, m, SKIPPED),
        "refused_reports": _events(uow, m, REFUSED),
    }


def reconcile_floor(ctx: ServiceContext, *, trigger: str = "gaming_day_close", now: datetime | None = None) -> dict:
    """Reconcile every machine in machine mode (the gaming-day close, or on demand): each machine's last
    reported meters against the system's; each machine with a difference gets ONE ``meter_mismatch`` event
    (source ``system``, both figures). Nothing is corrected. A machine whose last meters were reported before
    its current game (or never) cannot be compared: listed in ``not_comparable``. Returns ``{"machines",
    "mismatched": [asset …], "not_comparable": [asset …]}``."""
    mismatched, stale, n = [], [], 0
    with ctx.uow() as uow:
        for m in uow.machines.all():
            if m.outcome_source != "machine":
                continue
            n += 1
            last = uow.meter_reports.latest(m.id)
            if last is None or last.game_number != m.game_seq:  # no meters reported at its current game
                stale.append(m.asset_number)
                continue
            if _reconcile_into(uow, ctx, m, system_meters(m), _report_dict(last), source="system",
                               game_number=m.game_seq, trigger=trigger):
                mismatched.append(m.asset_number)
        uow.commit()
    return {"machines": n, "mismatched": mismatched, "not_comparable": stale}
