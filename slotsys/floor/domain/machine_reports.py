"""Rules for games and meters a machine reports: on a SAS floor the machine decides each outcome and the host
accounts for it. Pure domain: the checks a report must pass before any money moves, the meters-at-game-end
derivation of the game(s) played, and the meter reconciliation.

Rules (docs/machine-reported-games.md states them for the floor):

* **Mode.** A machine's ``outcome_source`` is ``server`` (the service decides each game: the spin) or
  ``machine`` (the machine decides and reports). Each refuses the other mode's requests (409).
* **Game numbers** increase strictly per machine. A number at or below the last accepted one is refused (409
  ``game_number``: ``repeated``, or ``out_of_order`` below it); the same request under the same
  Idempotency-Key is a replay and never reaches these rules. A number above the next one is accepted and the
  gap is returned as the games skipped: a SAS host records a skipped game as an exception for the floor to
  investigate (the money shows in the meters and their reconciliation), it does not refuse play.
* **Denomination and paytable** must be the machine's enrolled ones (422 ``denomination`` / ``variation``).
* **Bet**: in credits or in won (exactly one; won a whole number of credits), and one of the game definition's
  bet options (GameDefinition.bet_options): the option named (``lines``/``reels`` + ``multiplier``) must cost
  the reported bet; without one the bet must be the credits of some option (422 ``bet_credits``/``bet_won``).
* **Win**: in credits or won (exactly one), at most the game's ``max_award_credits`` (× denomination in won;
  422 ``win_credits``/``win_won``).
* **Stops**, when reported, are evaluated by the one evaluator (slotsys.floor.domain.evaluator.evaluate) and must
  give the reported win (422 ``stops``); stops need the bet option named.
* **Meters** (won; counts): ``coin_in``, ``coin_out``, ``games_played`` required, ``jackpot`` and
  ``games_won`` optional; never negative and never decreasing against the last reported set (422
  ``meters.<name>``).
* **Meters at game end**: coin-in delta = the bet, coin-out delta = the win, games-played delta ≥ 1 (the
  games played since the last report); one game's bet must be one option's cost, n games' bet between n ×
  the smallest and n × the largest; the win at most n × the maximum award.
* **Reconciliation** compares every meter the machine reported with the system's own; a difference is an
  exception (both figures), never a correction.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from slotsys.kernel.errors import DomainError
from slotsys.floor.domain.evaluator import SpinOutcome, evaluate
from slotsys.floor.domain.game import BetOption, GameDefinition, InvalidBet

__all__ = [
    "OUTCOME_SOURCES", "REQUIRED_METERS", "OPTIONAL_METERS", "ReportRefused", "GameReport", "CheckedGame",
    "DerivedPlay", "Mismatch", "check_outcome_source", "require_mode", "check_game_number", "check_game_report",
    "check_meters", "meter_deltas", "derive_play", "reconcile",
]

OUTCOME_SOURCES = ("server", "machine")
REQUIRED_METERS = ("coin_in", "coin_out", "games_played")
OPTIONAL_METERS = ("jackpot", "games_won")


class ReportRefused(DomainError):
    """A machine's report refused: ``field`` names the request field, ``reason`` a stable snake_case code
    (``repeated``, ``bet_not_offered``, ``above_max_award``, ``meter_decreased`` …), ``reported`` the figures
    the machine sent. ``status`` 422 (the report is wrong) or 409 (it conflicts with the machine's state)."""

    code = "game-report-refused"
    title = "The machine's report is refused"

    def __init__(self, field: str, reason: str, detail: str, *, reported: Any = None, status: int = 422) -> None:
        super().__init__(detail, field=field, reason=reason, reported=reported)
        self.reason = reason
        self.reported = reported
        self.status = status


def check_outcome_source(value: Any) -> str:
    """``value`` if it is ``server`` or ``machine``; else :class:`ReportRefused` (422 ``outcome_source``)."""
    if value not in OUTCOME_SOURCES:
        raise ReportRefused("outcome_source", "unknown_mode",
                            f"outcome_source must be one of {', '.join(OUTCOME_SOURCES)}; got {value!r}", reported=value)
    return value


def require_mode(actual: str, needed: str, asset: str) -> None:
    """409 ``outcome_source`` when a request of mode ``needed`` reaches a machine enrolled in ``actual``."""
    if actual != needed:
        what = "reports its own games (POST /machines/<asset>/games or /meters)" if actual == "machine" \
            else "plays server-decided games (POST /machines/<asset>/spin)"
        raise ReportRefused("outcome_source", f"machine_in_{actual}_mode",
                            f"machine {asset} is in {actual} mode: it {what}", reported=needed, status=409)


@dataclass(frozen=True)
class GameReport:
    """One game as the machine reports it. Amounts: ``bet_credits`` xor ``bet_won``, ``win_credits`` xor
    ``win_won``; ``denomination`` won per credit; ``variation`` the paytable key (None: not reported);
    ``lines``/``reels``/``multiplier`` the bet option (optional); ``choice`` the free-games choice index;
    ``stops`` one per reel and ``free_stops`` one tuple per free game (optional); ``meters`` the machine's
    meters after this game (optional)."""

    game_number: int
    denomination: int
    bet_credits: int | None = None
    bet_won: int | None = None
    win_credits: int | None = None
    win_won: int | None = None
    variation: str | None = None
    lines: int | None = None
    reels: int | None = None
    multiplier: int | None = None
    choice: int | None = None
    stops: Sequence[int] | None = None
    free_stops: Sequence[Sequence[int]] | None = None
    meters: Mapping[str, int] | None = None


@dataclass(frozen=True)
class CheckedGame:
    """A report that passed every rule: the bet option (the named one, or the first costing the bet),
    bet and win in credits, the evaluated ``outcome`` when stops were reported, and ``skipped``: the game
    numbers missing before this one (empty when it follows the last)."""

    game_number: int
    option: BetOption
    bet_credits: int
    win_credits: int
    outcome: SpinOutcome | None = None
    skipped: tuple[int, int] | None = None  # (first missing, last missing)


@dataclass(frozen=True)
class DerivedPlay:
    """The play a meters-at-game-end report stands for: ``games`` played, total ``bet_credits`` and
    ``win_credits``, and the bet ``option`` closest to the average bet (the house edge of loyalty)."""

    games: int
    bet_credits: int
    win_credits: int
    option: BetOption


@dataclass(frozen=True)
class Mismatch:
    """One meter on which the machine and the system disagree (won or counts): ``difference`` = system − machine."""

    meter: str
    system: int
    machine: int
    difference: int = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "difference", self.system - self.machine)

    def to_dict(self) -> dict[str, Any]:
        return {"meter": self.meter, "system": self.system, "machine": self.machine, "difference": self.difference}


def check_game_number(last: int, reported: int) -> tuple[int, int] | None:
    """The game numbers skipped before ``reported`` ((first, last) missing, or None when it is ``last`` + 1).
    Raises :class:`ReportRefused` 409 ``game_number`` for a number at or below ``last``."""
    if reported == last:
        raise ReportRefused("game_number", "repeated", f"game {reported} was already reported (last game {last})",
                            reported=reported, status=409)
    if reported < last:
        raise ReportRefused("game_number", "out_of_order",
                            f"game {reported} is below the last game reported ({last}): game numbers only increase",
                            reported=reported, status=409)
    return (last + 1, reported - 1) if reported > last + 1 else None


def _credits(name: str, credits: int | None, won: int | None, denomination: int) -> int:
    """Credits from exactly one of ``<name>_credits`` / ``<name>_won`` (won: whole credits)."""
    if (credits is None) == (won is None):
        raise ReportRefused(f"{name}_credits", "one_amount_required",
                            f"give exactly one of {name}_credits and {name}_won", reported={"credits": credits, "won": won})
    if credits is not None:
        if credits < 0:
            raise ReportRefused(f"{name}_credits", "negative", f"{name}_credits must be ≥ 0", reported=credits)
        return credits
    assert won is not None
    if won < 0 or won % denomination:
        raise ReportRefused(f"{name}_won", "not_whole_credits",
                            f"{name}_won must be a whole number of ₩{denomination:,} credits; got ₩{won:,}", reported=won)
    return won // denomination


def _named_option(game: GameDefinition, report: GameReport) -> BetOption | None:
    if report.lines is None and report.reels is None and report.multiplier is None:
        return None
    try:
        return game.resolve_bet(lines=report.lines, reels=report.reels, multiplier=report.multiplier)
    except InvalidBet as e:
        raise ReportRefused(e.field, "bet_not_offered", e.message,
                            reported={"lines": report.lines, "reels": report.reels, "multiplier": report.multiplier}) from None


def check_game_report(game: GameDefinition, report: GameReport, *, denomination: int, variation: str | None,
                      last_game_number: int) -> CheckedGame:
    """Apply the module's rules to one reported game on a machine enrolled with ``denomination`` (won) and
    ``variation`` (None/"" → the game's default) whose last game was ``last_game_number``.

    Returns the :class:`CheckedGame`; raises :class:`ReportRefused` naming the first field that breaks a rule."""
    if report.denomination != denomination:
        raise ReportRefused("denomination", "denomination_mismatch",
                            f"the machine is enrolled at ₩{denomination:,} a credit; reported ₩{report.denomination:,}",
                            reported=report.denomination)
    enrolled = game.variation(variation or None).key
    if report.variation is not None and report.variation != enrolled:
        raise ReportRefused("variation", "paytable_mismatch",
                            f"the machine is enrolled with paytable {enrolled!r}; reported {report.variation!r}",
                            reported=report.variation)
    skipped = check_game_number(last_game_number, report.game_number)
    bet = _credits("bet", report.bet_credits, report.bet_won, denomination)
    bet_field = "bet_credits" if report.bet_credits is not None else "bet_won"
    option = _named_option(game, report)
    if option is not None and option.credits != bet:
        raise ReportRefused(bet_field, "bet_mismatch",
                            f"the bet option named costs {option.credits} credits; reported {bet}", reported=bet)
    if option is None:
        option = next((o for o in game.bet_options() if o.credits == bet), None)
        if option is None:
            offered = sorted({o.credits for o in game.bet_options()})
            raise ReportRefused(bet_field, "bet_not_offered",
                                f"{game.name} offers no bet of {bet} credits (offered: {', '.join(map(str, offered))})",
                                reported=bet)
    win = _credits("win", report.win_credits, report.win_won, denomination)
    win_field = "win_credits" if report.win_credits is not None else "win_won"
    if game.max_award_credits is not None and win > game.max_award_credits:
        raise ReportRefused(win_field, "above_max_award",
                            f"win {win} credits is above the game's maximum award of {game.max_award_credits} credits "
                            f"(₩{game.max_award_credits * denomination:,})", reported=win)
    outcome = None
    if report.stops is not None:
        if report.multiplier is None or (report.lines is None and report.reels is None):
            need = "lines" if game.kind == "lines" else "reels"
            raise ReportRefused(need if report.multiplier is not None else "multiplier", "bet_option_required",
                                "reported stops need the bet option (lines or reels, and multiplier) to be evaluated")
        try:
            outcome = evaluate(game, option, list(report.stops), enrolled, choice=report.choice,
                               free_stops=[list(f) for f in report.free_stops] if report.free_stops is not None else None)
        except InvalidBet as e:
            raise ReportRefused(e.field, "bet_not_offered", e.message, reported=getattr(report, e.field, None)) from None
        except ValueError as e:
            raise ReportRefused("stops", "invalid_stops", str(e), reported=list(report.stops)) from None
        if outcome.total_win_credits != win:
            raise ReportRefused("stops", "win_mismatch",
                                f"the stops evaluate to a win of {outcome.total_win_credits} credits; reported {win}",
                                reported={"stops": list(report.stops), "win_credits": win,
                                          "evaluated_win_credits": outcome.total_win_credits})
    return CheckedGame(report.game_number, option, bet, win, outcome, skipped)


def check_meters(meters: Mapping[str, Any], *, field: str = "meters") -> dict[str, int | None]:
    """The reported meter set as ``{name: int | None}`` (every required and optional name). Raises
    :class:`ReportRefused` 422 ``meters.<name>`` for a missing required meter, an unknown one or a negative or
    non-integer value."""
    out: dict[str, int | None] = {}
    for name in meters:
        if name not in REQUIRED_METERS + OPTIONAL_METERS:
            raise ReportRefused(f"{field}.{name}", "unknown_meter",
                                f"unknown meter {name!r} (known: {', '.join(REQUIRED_METERS + OPTIONAL_METERS)})")
    for name in REQUIRED_METERS + OPTIONAL_METERS:
        v = meters.get(name)
        if v is None:
            if name in REQUIRED_METERS:
                raise ReportRefused(f"{field}.{name}", "meter_required", f"meter {name} is required")
            out[name] = None
            continue
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise ReportRefused(f"{field}.{name}", "invalid_meter", f"meter {name} must be an integer ≥ 0", reported=v)
        out[name] = v
    return out


def meter_deltas(previous: Mapping[str, int | None], reported: Mapping[str, int | None], *,
                 field: str = "meters") -> dict[str, int]:
    """``reported − previous`` for every meter present in both. Raises :class:`ReportRefused` 422
    ``meters.<name>`` (reason ``meter_decreased``, both figures) when a meter went backwards."""
    deltas: dict[str, int] = {}
    for name in REQUIRED_METERS + OPTIONAL_METERS:
        before, now = previous.get(name), reported.get(name)
        if before is None or now is None:
            continue
        if now < before:
            raise ReportRefused(f"{field}.{name}", "meter_decreased",
                                f"meter {name} went backwards: last reported {before:,}, now {now:,}",
                                reported={"previous": before, "reported": now})
        deltas[name] = now - before
    return deltas


def derive_play(game: GameDefinition, denomination: int, deltas: Mapping[str, int], *,
                field: str = "meters") -> DerivedPlay:
    """The play behind meter ``deltas`` (coin-in = bet, coin-out = win, games-played = games) on a machine at
    ``denomination`` won a credit. Raises :class:`ReportRefused` 422 naming the meter that breaks a rule."""
    games = deltas.get("games_played", 0)
    if games < 1:
        raise ReportRefused(f"{field}.games_played", "no_game_played",
                            "games_played must grow by at least 1 for the meters to stand for a game", reported=games)
    amounts = {}
    for name in ("coin_in", "coin_out"):
        won = deltas.get(name, 0)
        if won % denomination:
            raise ReportRefused(f"{field}.{name}", "not_whole_credits",
                                f"{name} grew by ₩{won:,}, not a whole number of ₩{denomination:,} credits", reported=won)
        amounts[name] = won // denomination
    bet, win = amounts["coin_in"], amounts["coin_out"]
    options = game.bet_options()
    costs = sorted({o.credits for o in options})
    offered = bet in costs if games == 1 else games * costs[0] <= bet <= games * costs[-1]
    if not offered:
        raise ReportRefused(f"{field}.coin_in", "bet_not_offered",
                            f"coin-in of {bet} credits over {games} game(s) is no bet {game.name} offers "
                            f"(one game: {', '.join(map(str, costs))} credits)", reported=bet)
    if game.max_award_credits is not None and win > games * game.max_award_credits:
        raise ReportRefused(f"{field}.coin_out", "above_max_award",
                            f"coin-out of {win} credits over {games} game(s) is above {games} × the maximum award of "
                            f"{game.max_award_credits} credits", reported=win)
    average = bet // games
    option = max((o for o in options if o.credits <= average), key=lambda o: o.credits, default=options[0])
    return DerivedPlay(games, bet, win, option)


def reconcile(system: Mapping[str, int], machine: Mapping[str, int | None]) -> list[Mismatch]:
    """Every meter the machine reported (not None) that differs from the system's figure of the same name."""
    return [Mismatch(name, int(system[name]), int(v)) for name, v in machine.items()
            if v is not None and name in system and int(system[name]) != int(v)]
