"""Machine use cases: bill-in, spin, cash-out, ticket-in, meters, game recall.

Each runs in one transaction; money-moving ones are exactly-once per Idempotency-Key.
Lock order in every transaction: machine row → jackpot level rows (id order; only when the
jackpot fold runs in the spin, i.e. on SQLite) → ticket row → account rows (id order).
"""

from __future__ import annotations

import structlog

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from slotsys.floor.domain.machine import Machine
from slotsys.floor.settings import PlaySettings
from slotsys.floor.services.ports import Games, JackpotPort, LoyaltyPort, TicketPort
from slotsys.kernel import accounts
from slotsys.kernel import ledger as L
from slotsys.kernel import credits as promo
from slotsys.kernel.errors import DomainError, InsufficientFunds, LockWaitExceeded, MachineLocked, ValidationFailed
from slotsys.floor.domain.evaluator import spin as play
from slotsys.floor.domain.game import InvalidBet
from slotsys.floor.domain.machine_reports import require_mode
from slotsys.kernel.money import MoneyError, credits_to_won, require_won
from slotsys.kernel.checks import require_machine
from slotsys.kernel.context import Principal, ServiceContext
from slotsys.kernel.group_commit import ALONE, GroupCommit, Item
from slotsys.kernel.idempotency import Once, OnceKey, require_key, run_once

log = structlog.get_logger("slotsys.floor")

BILL_DENOMINATIONS = (1_000, 5_000, 10_000, 50_000)  # Korean won notes accepted by the bill validators


def _active(m: Machine) -> None:
    if m.status != "active":
        raise MachineLocked(f"machine {m.asset_number} is locked: {m.lock_reason or m.status}")


def _credits(uow, asset: str) -> int:
    return uow.ledger.balance(accounts.machine_credits(asset))


def stake(bet_won: int, meters: promo.Credits, field: str = "multiplier") -> promo.Stake:
    """The bet staked from the credit meters (restricted promo first, then non-restricted, then cashable:
    ``slotsys.kernel.credits.stake``). Raises ``InsufficientFunds`` (409 naming ``field``) when they cannot cover it."""
    split = promo.stake(bet_won, meters)
    if split is None:
        raise InsufficientFunds(
            f"credits ₩{meters.total:,} are less than the bet ₩{bet_won:,} (cashable ₩{meters.cashable:,}, "
            f"restricted ₩{meters.restricted:,}, non-restricted ₩{meters.nonrestricted:,})",
            field=field, credits=meters.to_dict(), bet=bet_won)
    return split


@dataclass(frozen=True)
class SpinRequest:
    """A spin waiting for its group commit (:meth:`FloorService.spin`)."""

    asset: str
    bet: dict
    key: OnceKey


@dataclass(frozen=True)
class PlayPorts:
    """What accounting a game needs beyond the floor: the game library, the jackpot controller, loyalty."""

    games: Games
    jackpots: JackpotPort
    loyalty: LoyaltyPort


def account_game(uow, ctx: ServiceContext, ports: PlayPorts, m: Machine, *, meters: promo.Credits, carded: bool, option,
                 split: promo.Stake, bet_won: int, win_won: int, outcome, od: dict, game_number: int, games: int = 1,
                 games_won: int | None = None, guard: dict | None = None, game_id: str = "", kind: str = "machine.spin") -> dict:
    """Account for one decided game (or, from meters, ``games`` games) on the locked machine ``m``, inside the
    caller's transaction, whoever decided it (the spin, or the machine: ``slotsys.floor.services.reported_games``).

    Posts ONE balanced ledger entry (``kind``: ``Dr`` each credit meter staked (``split``) / ``Cr
    machine:<a>:hold``, then the win ``Dr hold / Cr machine:<a>:credits``; won), records the wager with the
    jackpot controller (``outcome.progressive`` for progressive keys), adds the meters (coin-in, coin-out,
    jackpot, games played (``games``) and won (``games_won``, default 1 if anything was won), promotional
    played; ``game_seq`` set to ``game_number``), accrues the carded
    player's points (``loyalty_play.on_game``), applies the award ``guard`` lock when given and keeps the recall
    (``game_rounds``: ``od`` with the stake and each win's ``pay_won``). Returns ``{"entry", "jackpots"
    (awards decided in this transaction), "jackpot_won", "credits_before", "credits" (cashable after),
    "player"}``."""
    asset = m.asset_number
    before = meters.cashable
    e = L.EntryBuilder(kind, f"game on {asset}")
    e.add(debit=accounts.machine_restricted(asset), credit=accounts.machine_hold(asset), amount=split.restricted,
          memo="coin-in restricted promo")
    e.add(debit=accounts.machine_nonrestricted(asset), credit=accounts.machine_hold(asset), amount=split.nonrestricted,
          memo="coin-in non-restricted promo")
    e.add(debit=accounts.machine_credits(asset), credit=accounts.machine_hold(asset), amount=split.cashable, memo="coin-in")
    e.add(debit=accounts.machine_hold(asset), credit=accounts.machine_credits(asset), amount=win_won, memo="coin-out")
    entry_id = uow.ledger.post(e.build({"machine": asset, "game": game_number}))
    # Jackpots: the wager joins the controller's ordered queue (no pool row is locked here);
    # its awards are listed when the hit is decided in this transaction (embedded SQLite),
    # otherwise the sequencer folds it within a second and pays any award as a bonus.
    jp, jackpot_won = ports.jackpots.on_wager(uow, m, bet_won, game_number, outcome)
    after = before - split.cashable + win_won + jackpot_won
    uow.machines.add_meters(
        m, coin_in=bet_won, coin_out=win_won, jackpot_out=jackpot_won, games_played=games,
        games_won=games_won if games_won is not None else (1 if (win_won or jackpot_won) else 0),
        restricted_played=split.restricted, nonrestricted_played=split.nonrestricted,
        set_values={"game_seq": game_number},
    )
    # players: the carded session's meters (same deltas) and points (promotional coin-in earns
    # none unless SLOTSYS_LOYALTY_PROMO_EARNS_POINTS); None when uncarded
    player = ports.loyalty.on_game(uow, m, option, coin_in=bet_won, coin_out=win_won, jackpot_out=jackpot_won,
                                   now=ctx.clock.now(), carded=carded, games=games, cashable_coin_in=split.cashable,
                                   promotional_coin_in=split.promotional,
                                   house_edge=ports.games.house_edge(m.game_id, m.variation or None, option)
                                   if carded else None)
    if split.promotional:
        od["stake"] = split.to_dict()  # the recall shows what the promotional credits paid
    for w in od.get("wins", []) + [w for f in od.get("free_games", []) for w in f["wins"]]:
        w["pay_won"] = credits_to_won(w["pay_credits"], m.denomination)
    if guard:
        m.lock(f"award guard: game {game_number} won {guard['win_credits']} credits "
               f"(₩{guard['win_won']:,}) > max award {guard['max_award_credits']} credits")
        od["award_guard"] = guard
        log.warning("award_guard_lock", machine=asset, game=game_id, game_number=game_number, **guard)
    uow.rounds.add(
        machine_id=m.id, game_number=game_number, bet=option.to_dict(), bet_won=bet_won, win_won=win_won,
        outcome=od, jackpots=jp, credits_before=before, credits_after=after, entry_id=entry_id,
    )
    return {"entry": entry_id, "jackpots": jp, "jackpot_won": jackpot_won, "credits_before": before,
            "credits": after, "player": player}


class BillInResult(BaseModel):
    machine: str
    amount: int
    credits: int
    entry: int


class SpinResult(BaseModel):
    """One game played (the spin's answer); amounts in won, ``*_credits`` in credits."""

    machine: str
    game_number: int
    game: str
    denomination: int
    bet: dict[str, Any]  # the bet option (lines / reels, multiplier, credits) and its ``won``
    stops: list[int]
    window: list[list[str]]
    wins: list[dict[str, Any]]
    free_games_awarded: int
    choice: int | None
    free_games: list[dict[str, Any]]
    progressive: list[str]
    award_guard: dict[str, Any] | None
    total_win_credits: int
    total_win: int
    jackpots: list[dict[str, Any]]
    credits_before: int
    credits: int
    stake: dict[str, int]
    restricted_credits: int
    nonrestricted_credits: int
    promo_credits: int
    entry: int
    player: dict[str, Any] | None


class CashOutResult(BaseModel):
    """The cash-out: one ticket per credit type (``ticket`` is the first), the credits left (0)."""

    model_config = {"extra": "allow"}  # TITO's ticket views as they are
    machine: str
    ticket: dict[str, Any]
    tickets: list[dict[str, Any]]
    credits: int
    promo_credits: int


class FloorService:
    """The machine's own use cases: bill-in, spin, cash-out, ticket-in, meters, recall."""

    def __init__(self, ctx: ServiceContext, *, games: Games, jackpots: JackpotPort, tickets: TicketPort,
                 loyalty: LoyaltyPort, settings: PlaySettings | None = None) -> None:
        self.ctx = ctx
        self.games = games
        self.tickets = tickets
        self.play_ports = PlayPorts(games=games, jackpots=jackpots, loyalty=loyalty)
        settings = settings or PlaySettings()
        group_max = settings.spin_group_commit_max
        faults = getattr(ctx.settings, "fault_delay_ms", 0) or getattr(ctx.settings, "fault_delay_after_commit_ms", 0)
        # group commit of concurrent spins (PostgreSQL; off when a test holds requests open mid-transaction)
        self.group_lock_wait_ms = settings.spin_group_commit_lock_wait_ms
        self.spin_group: GroupCommit[SpinRequest] | None = None
        if group_max > 1 and not faults:
            self.spin_group = GroupCommit(self._spin_batch, max_batch=group_max,
                                          max_leaders=settings.spin_group_commit_leaders)

    # ------------------------------------------------------------ bill-in
    def bill_in(self, principal: Principal, asset: str, amount: object, key: OnceKey) -> Once[BillInResult]:
        """A note stacked on the machine: ``Dr machine:<a>:drop / Cr machine:<a>:credits``, meter ``bills_in``.
        422 ``amount`` unless one note of :data:`BILL_DENOMINATIONS`; 409 for a locked machine."""
        require_machine(principal, asset)
        try:
            amount = require_won(amount, field="amount")
        except MoneyError as e:
            raise ValidationFailed(str(e), field="amount") from None
        if amount not in BILL_DENOMINATIONS:
            raise ValidationFailed(
                f"amount must be one note of {', '.join(f'{d:,}' for d in BILL_DENOMINATIONS)} won", field="amount"
            )

        def fn(uow) -> BillInResult:
            m = uow.machines.get(asset, for_update=True)
            _active(m)
            e = L.EntryBuilder("machine.bill_in", f"bill in {asset}")
            e.add(debit=accounts.machine_drop(asset), credit=accounts.machine_credits(asset), amount=amount)
            entry_id = uow.ledger.post(e.build({"machine": asset}))
            uow.machines.add_meters(m.id, bills_in=amount)
            return BillInResult(machine=asset, amount=amount, credits=_credits(uow, asset), entry=entry_id)

        return run_once(self.ctx, key, fn, result=BillInResult)

    # ------------------------------------------------------------ spin
    def spin(self, principal: Principal, asset: str, bet: dict, key: OnceKey) -> Once[SpinResult]:
        """Play one game. ``bet``: {"lines"|"reels": int, "multiplier": int, "choice": int | None}
        (``choice``: the free-games configuration index; None → the game's default choice).

        The result (:class:`SpinResult`): game number, bet (credits and won), reel stops, the symbol window
        ([row][reel]), each win (line or ways, symbol, count, pay in credits and won), the total win, jackpot awards
        (decided in this transaction on SQLite; on PostgreSQL the sequencer decides them within a second and pays
        them as bonuses), credits (won) before and after, and ``player``: the carded player's points after the game
        (null if uncarded). Free games play inside the game: ``free_games`` lists each (stops, window, wins) and the
        total includes them. Award guard: a total win above the game's ``max_award_credits`` is credited not at
        all; the machine locks (status "locked", lock_reason with the raw values) for attendant verification and
        ``award_guard`` carries the raw values. Errors: 422 invalid bet (naming the field), 409 insufficient
        credits / locked machine, 409 ``outcome_source`` for a machine in machine mode (it reports its own games).

        Promotional credits (``slotsys.kernel.credits``, docs/promotional-credits.md): the bet is staked from the
        restricted promo meter first, then the non-restricted one, then the cashable one (``stake``: won from
        each); every win goes to the cashable meter. ``credits`` / ``credits_before`` are the cashable meter;
        ``restricted_credits``, ``nonrestricted_credits`` and ``promo_credits`` (their sum) are after the game.
        Ledger: one entry, ``Dr`` each meter staked / ``Cr machine:<a>:hold``, then the win ``Dr hold / Cr
        machine:<a>:credits``; meters ``restricted_played`` / ``nonrestricted_played`` count the promotional part
        of coin-in.

        Transactions: on PostgreSQL the spin joins the process's group commit (:meth:`_spin_batch`, docs/decisions/
        0012): spins of other machines arriving at the same moment share its transaction; its answer, errors and
        exactly-once are those of a spin alone.
        """
        require_machine(principal, asset)
        if self.spin_group is not None:
            require_key(key.key)  # a malformed key is the caller's 422, never a batch's business
            once = self.spin_group.submit(SpinRequest(asset, bet, key), conflict=asset)
            if once is not ALONE:
                return once
        return self._spin_alone(SpinRequest(asset, bet, key))

    def _spin_alone(self, r: SpinRequest, lock_wait_ms: int | None = None) -> Once[SpinResult]:
        """One spin in its own transaction: exactly once per key (:func:`run_once`). ``lock_wait_ms``: give up
        (and roll back) when the machine's rows are not granted within it (the group's leader, which others wait
        for)."""

        def fn(uow) -> SpinResult:
            return self._play(uow, r.asset, r.bet)

        # write-behind: the postings, wager, meters, game round and stored response go with COMMIT
        once = run_once(self.ctx, r.key, fn, result=SpinResult, write_behind=True, lock_wait_ms=lock_wait_ms)
        if not once.replayed:  # after the commit; nothing for a replay
            self.ctx.metrics.game_played(once.result.bet["won"], once.result.total_win)
        return once

    def _spin_batch(self, items: list[Item[SpinRequest]]) -> None:
        """Group commit (:class:`slotsys.kernel.group_commit.GroupCommit`): concurrent spins of different machines
        as one transaction, each exactly once and each answered as if alone.

        Statements for the whole batch: the keys claimed (one INSERT, :meth:`IdempotencyRepo.claim_many`), the
        machines locked in id order (one SELECT … FOR UPDATE), their credit, promotional and hold accounts locked in
        id order with the journal entry ids reserved (:meth:`LedgerRepo.hold`), the carded ones read; then each
        spin plays as :meth:`_play` does alone, and the entries, wagers, meters, rounds and stored answers go with
        the COMMIT in one pipeline. A spin refused (a domain error: credits short, machine locked, bad bet, not
        on the floor) before it wrote anything releases its claim and is answered with its error; a replayed key
        (or one another request holds) and every spin of a batch that fails in any other way is answered
        ``alone``, to run again on the single-spin path (nothing of the batch was committed; exactly-once holds
        there as everywhere)."""
        self.ctx.metrics.spin_batch(len(items))
        if len(items) == 1:  # nobody to share a transaction with: the single-spin path, run by the leader so
            it = items[0]     # that the spins arriving meanwhile queue up for the next batch
            try:
                it.done(self._spin_alone(it.request, lock_wait_ms=self.group_lock_wait_ms))
            except LockWaitExceeded:  # rolled back: its rows are held elsewhere; it runs alone, outside the
                it.alone()            # group, where it waits for nobody but itself
            except Exception as e:  # noqa: BLE001 - refused or failed: raised again in the spin's own thread
                it.fail(e)
            return
        with self.ctx.uow() as uow:
            if not uow.write_behind():  # not PostgreSQL: every spin alone, and no more batches in this process
                self.spin_group = None
                return
            # a machine or account row another transaction holds fails the batch soon, not every spin behind it:
            # its spins then run alone, each waiting only for its own rows (the claim sets the wait)
            reqs = {(it.request.key.principal, it.request.key.key): it for it in items}
            claimed = uow.idempotency.claim_many([(p, k, it.request.key.fingerprint) for (p, k), it in reqs.items()],
                                                 lock_wait_ms=self.group_lock_wait_ms)
            mine = [(it, claimed[pk]) for pk, it in reqs.items() if pk in claimed]
            for pk, it in reqs.items():
                if pk not in claimed:
                    it.alone()  # a replay, or a key used meanwhile: the single-spin path answers it
            if not mine:
                return
            found = uow.machines.lock_many([it.request.asset for it, _ in mine])
            codes = [c for m in found.values() for c in (
                accounts.machine_credits(m.asset_number), accounts.machine_restricted(m.asset_number),
                accounts.machine_nonrestricted(m.asset_number), accounts.machine_hold(m.asset_number))]
            uow.ledger.hold(codes, entries=len(mine))
            carded = uow.machines.carded_many([m.id for m in found.values()])
            for asset, m in found.items():
                cashable = uow.ledger.held(accounts.machine_credits(asset))
                if cashable is not None:  # else get_for_play reads it alone (and names the missing account)
                    meters = promo.Credits(cashable, uow.ledger.held(accounts.machine_restricted(asset)) or 0,
                                           uow.ledger.held(accounts.machine_nonrestricted(asset)) or 0)
                    uow.machines.prepared[asset] = (m, meters, m.id in carded)
            refused: list[int] = []
            played: list[tuple[Item[SpinRequest], SpinResult]] = []
            for it, record_id in mine:
                r = it.request
                mark = uow.pending_writes()
                try:
                    out = self._play(uow, r.asset, r.bet)
                except DomainError as e:
                    if uow.pending_writes() != mark:
                        raise  # refused after writing: the batch cannot keep the others (all run alone)
                    it.fail(e)
                    refused.append(record_id)
                    continue
                code = r.key.status(out) if callable(r.key.status) else r.key.status
                uow.idempotency.complete(record_id, code, out.model_dump(mode="json"))
                played.append((it, out))
            uow.idempotency.release(refused)
            uow.commit()
        for it, out in played:
            it.done(Once(out, False))
            self.ctx.metrics.game_played(out.bet["won"], out.total_win)

    def _play(self, uow, asset: str, bet: dict) -> SpinResult:
        """One game on ``asset`` inside the caller's transaction (the use case :meth:`spin` runs once per key)."""
        # the machine's row lock, then its credits and whether a player is carded in (two statements)
        m, meters, carded = uow.machines.get_for_play(asset)
        before = meters.cashable
        _active(m)
        require_mode(m.outcome_source, "server", asset)  # a machine-mode machine reports its own games
        game = self.games.load(m.game_id)
        try:
            option = game.resolve_bet(lines=bet.get("lines"), reels=bet.get("reels"), multiplier=bet.get("multiplier"))
            choice = game.resolve_choice(bet.get("choice"))
        except InvalidBet as e:
            raise ValidationFailed(e.message, field=e.field) from None
        bet_won = credits_to_won(option.credits, m.denomination)
        if m.max_bet is not None and bet_won > m.max_bet:  # the machine's configured maximum bet (won)
            raise ValidationFailed(f"bet ₩{bet_won:,} is above this machine's maximum bet ₩{m.max_bet:,}",
                                   field="multiplier", max_bet=m.max_bet)
        split = stake(bet_won, meters)  # restricted first, then non-restricted, then cashable
        outcome = play(game, option, self.ctx.rng, m.variation or None, choice)
        # award guard: an award above the game's maximum is never credited; the machine locks
        guard = None
        win_total_won = credits_to_won(outcome.total_win_credits, m.denomination)
        if outcome.exceeds_max_award:
            guard = {"win_credits": outcome.total_win_credits, "max_award_credits": outcome.max_award_credits,
                     "win_won": win_total_won, "stops": list(outcome.stops)}
        win_won = 0 if guard else win_total_won
        game_number = m.game_seq + 1
        od = outcome.to_dict()
        acc = account_game(uow, self.ctx, self.play_ports, m, meters=meters, carded=carded, option=option,
                           split=split, bet_won=bet_won, win_won=win_won, outcome=outcome, od=od,
                           game_number=game_number, guard=guard, game_id=game.id)
        return SpinResult(
            machine=asset, game_number=game_number, game=game.id, denomination=m.denomination,
            bet={**option.to_dict(), "won": bet_won}, stops=od["stops"], window=od["window"], wins=od["wins"],
            free_games_awarded=outcome.free_games_awarded, choice=outcome.choice, free_games=od["free_games"],
            progressive=list(outcome.progressive), award_guard=guard,
            total_win_credits=outcome.total_win_credits, total_win=win_won, jackpots=acc["jackpots"],
            credits_before=before, credits=acc["credits"], stake=split.to_dict(),
            restricted_credits=meters.restricted - split.restricted,
            nonrestricted_credits=meters.nonrestricted - split.nonrestricted,
            promo_credits=meters.promotional - split.promotional, entry=acc["entry"], player=acc["player"],
        )

    # ------------------------------------------------------------ cash-out
    def cash_out(self, principal: Principal, asset: str, key: OnceKey) -> Once[CashOutResult]:
        """Cash out all credits: one TITO ticket per credit type (cashable, promotional).

        :class:`CashOutResult`; 409 if there are no credits, 409 ``handpay-required`` above the ticket limit."""
        require_machine(principal, asset)

        def fn(uow) -> CashOutResult:
            m = uow.machines.get(asset, for_update=True)
            _active(m)
            return CashOutResult(**self.tickets.cash_out(uow, m))

        return run_once(self.ctx, key, fn, result=CashOutResult)

    # ------------------------------------------------------------ ticket-in
    def ticket_in(self, principal: Principal, asset: str, validation_number: object, key: OnceKey) -> Once:
        """Credit a ticket (printed by any machine) onto this machine, exactly once: the single-call form of the
        two-phase ticket-in (TITO's)."""
        return self.tickets.ticket_in(principal, asset, validation_number, key)

    # ------------------------------------------------------------ reads
    def meters(self, principal: Principal, asset: str) -> dict:
        if principal.kind == "machine":
            require_machine(principal, asset)
        with self.ctx.uow(readonly=True) as uow:
            m = uow.machines.get(asset)
            credits = uow.machines.credits(asset)  # the three credit meters, one statement
            return self.machine_view(m, credits.cashable, bet_options=True, meters=credits)

    def recall(self, principal: Principal, asset: str, limit: int = 10) -> dict:
        """The last ``limit`` (≤ 10) games with stops, window, bet, wins and jackpots (GLI-11 recall)."""
        if principal.kind == "machine":
            require_machine(principal, asset)
        with self.ctx.uow(readonly=True) as uow:
            m = uow.machines.get(asset)
            rounds = uow.rounds.recent(m.id, min(max(limit, 1), 10))
            return {
                "machine": asset,
                "games": [
                    {
                        "game_number": r.game_number,
                        "at": r.created_at.isoformat(),
                        "bet": r.bet,
                        "bet_won": r.bet_won,
                        "win_won": r.win_won,
                        "stops": r.outcome.get("stops"),
                        "window": r.outcome.get("window"),
                        "wins": r.outcome.get("wins"),
                        "jackpots": r.jackpots,
                        "credits_before": r.credits_before,
                        "credits_after": r.credits_after,
                        # won staked from each credit meter (rounds before promotional play: all cashable)
                        "stake": r.outcome.get("stake") or {"restricted": 0, "nonrestricted": 0, "cashable": r.bet_won},
                    }
                    for r in rounds
                ],
            }

    def floor(self) -> dict:
        with self.ctx.uow(readonly=True) as uow:
            machines = uow.machines.all()
            return {
                "zones": [{"code": z.code, "name": z.name} for z in uow.machines.zones()],
                "machines": [self.machine_view(m, _credits(uow, m.asset_number)) for m in machines],
            }

    def machine_view(self, m: Machine, credits_won: int, *, bet_options: bool = False,
                     meters: promo.Credits | None = None) -> dict:
        """A machine as the API shows it: ``credits`` (cashable, won) and, given its ``meters``, the
        promotional credits (``restricted_credits``, ``nonrestricted_credits``, ``promo_credits``);
        ``meters``: coin-in split into cashable / restricted / non-restricted promotional (SAS
        "credits played" meters), the credit limit (won; the floor default when the machine has none)."""
        game = self.games.load(m.game_id)
        view = {
            "asset": m.asset_number,
            "zone": m.zone,
            "bank": m.bank,
            "denomination": m.denomination,
            "game": m.game_id,
            "game_name": game.name,
            "game_kind": game.kind,
            "variation": m.variation or game.default_variation,
            "status": m.status,
            "outcome_source": m.outcome_source,  # server: spins; machine: it reports its own games
            "credits": credits_won,
            "meters": {
                "coin_in": m.coin_in,
                "coin_out": m.coin_out,
                "jackpot_out": m.jackpot_out,
                "games_played": m.games_played,
                "games_won": m.games_won,
                "bills_in": m.bills_in,
                "tickets_in": m.tickets_in,
                "tickets_in_count": m.tickets_in_count,
                "tickets_out": m.tickets_out,
                "tickets_out_count": m.tickets_out_count,
                "game_number": m.game_seq,
                "cashable_coin_in": m.cashable_coin_in,
                "restricted_coin_in": m.restricted_played or 0,
                "nonrestricted_coin_in": m.nonrestricted_played or 0,
            },
            "credit_limit": self.tickets.credit_limit(m),
        }
        if meters is not None:
            view.update(restricted_credits=meters.restricted, nonrestricted_credits=meters.nonrestricted,
                        promo_credits=meters.promotional)
        if bet_options:
            view["bet_options"] = [o.to_dict() for o in game.bet_options()]
        return view
