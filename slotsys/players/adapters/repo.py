"""Player tracking persistence (tables in players_tables.py).

Lock order used by the services: machine row → player row → redemption row → ledger accounts.
"""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import case, delete, func, select
from sqlalchemy.orm import Session

from slotsys.players.adapters.foreign import machines as _machines
from slotsys.players.adapters.tables import (
    AccrualRuleRow,
    AftTransferRow,
    CardEvent,
    LoyaltyProgram,
    LoyaltyTier,
    Player,
    PlayerCard,
    PlayerSession,
    PlayerToken,
    PointRedemption,
    PointsJournal,
    TableRating,
    WalletTransfer,
)
from slotsys.kernel.errors import NotFound
from slotsys.players.domain.loyalty import SESSION_METERS


class PlayerRepo:
    def __init__(self, session: Session) -> None:
        self.s = session

    # -- configuration
    def program(self) -> LoyaltyProgram:
        p = self.s.get(LoyaltyProgram, 1)
        if p is None:
            raise NotFound("the loyalty program is not configured (seed it)")
        return p

    def tiers(self) -> list[LoyaltyTier]:
        return list(self.s.scalars(select(LoyaltyTier).order_by(LoyaltyTier.threshold_points)))

    def tier(self, code: str) -> LoyaltyTier | None:
        return self.s.get(LoyaltyTier, code)

    def rules(self) -> list[AccrualRuleRow]:
        return list(self.s.scalars(select(AccrualRuleRow).order_by(AccrualRuleRow.scope, AccrualRuleRow.key)))

    def rule(self, scope: str, key: str) -> AccrualRuleRow | None:
        return self.s.scalar(select(AccrualRuleRow).where(AccrualRuleRow.scope == scope, AccrualRuleRow.key == key))

    def add(self, obj):
        self.s.add(obj)
        self.s.flush()
        return obj

    RECORDS = {"program": LoyaltyProgram, "tier": LoyaltyTier, "rule": AccrualRuleRow, "card": PlayerCard,
               "redemption": PointRedemption, "transfer": WalletTransfer, "rating": TableRating,
               "aft": AftTransferRow}

    def new(self, record: str, /, **fields):
        """Add a new ``record`` (program, tier, rule, card, redemption, transfer, rating) with ``fields`` and return
        it (its id assigned)."""
        return self.add(self.RECORDS[record](**fields))

    def program_exists(self) -> bool:
        return self.s.get(LoyaltyProgram, 1) is not None

    def card_by_id(self, card_id: int):
        """The card, read again from the database (the caller holds the locks that make it current)."""
        card = self.s.get(PlayerCard, card_id)
        self.s.refresh(card)
        return card

    def refresh(self, obj) -> None:
        """Read ``obj`` (a card the caller just locked) again from the database."""
        self.s.refresh(obj)

    # -- players and cards
    def get(self, player_id: int, *, for_update: bool = False) -> Player:
        stmt = select(Player).where(Player.id == player_id)
        if for_update:
            stmt = stmt.with_for_update()
        p = self.s.scalar(stmt)
        if p is None:
            raise NotFound(f"player {player_id} is not enrolled", field="player_id")
        if for_update:
            self.s.refresh(p)  # the identity map may hold an older read of this row
        return p

    def by_names(self, names: list[str]) -> list[Player]:
        return list(self.s.scalars(select(Player).where(Player.name.in_(names)).order_by(Player.id)))

    def card(self, card_number: str, *, for_update: bool = False) -> PlayerCard | None:
        stmt = select(PlayerCard).where(PlayerCard.card_number == card_number)
        if for_update:
            stmt = stmt.with_for_update()
        return self.s.scalar(stmt)

    def card_exists(self, card_number: str) -> bool:
        return self.s.scalar(select(PlayerCard.id).where(PlayerCard.card_number == card_number)) is not None

    def cards_of(self, player_id: int) -> list[PlayerCard]:
        return list(self.s.scalars(select(PlayerCard).where(PlayerCard.player_id == player_id).order_by(PlayerCard.id)))

    def card_event(self, card: PlayerCard, kind: str, by: str, at: datetime, **detail) -> None:
        self.s.add(CardEvent(card_id=card.id, player_id=card.player_id, kind=kind, by=by, at=at, detail=detail))
        self.s.flush()

    def card_events(self, player_id: int, limit: int = 50) -> list[CardEvent]:
        return list(self.s.scalars(
            select(CardEvent).where(CardEvent.player_id == player_id).order_by(CardEvent.id.desc()).limit(limit)))

    def idle_players(self, before: datetime) -> list[int]:
        """Players with points whose last activity is before ``before``."""
        return list(self.s.scalars(
            select(Player.id).where(Player.points_milli > 0, Player.last_activity_at <= before).order_by(Player.id)))

    # -- sessions
    def open_session_for_machine(self, machine_id: int) -> PlayerSession | None:
        return self.s.scalar(
            select(PlayerSession).where(PlayerSession.machine_id == machine_id, PlayerSession.status == "open"))

    def open_session_for_player(self, player_id: int) -> PlayerSession | None:
        return self.s.scalar(
            select(PlayerSession).where(PlayerSession.player_id == player_id, PlayerSession.status == "open"))

    def sessions_of(self, player_id: int, limit: int = 50) -> list[tuple[PlayerSession, object]]:
        """The player's sessions, newest first, each with its machine (``asset_number`` and its meters now)."""
        rows = self.s.execute(
            select(PlayerSession, *_machines.c)
            .join(_machines, _machines.c.id == PlayerSession.machine_id)
            .where(PlayerSession.player_id == player_id)
            .order_by(PlayerSession.id.desc())
            .limit(limit)
        ).all()
        return [(row[0], _MachineNow(**{k: v for k, v in row._mapping.items() if k != 'PlayerSession'})) for row in rows]

    # -- points
    def journal(self, player_id: int, limit: int = 100) -> list[PointsJournal]:
        return list(self.s.scalars(
            select(PointsJournal).where(PointsJournal.player_id == player_id).order_by(PointsJournal.id.desc()).limit(limit)))

    def add_journal(self, **fields) -> PointsJournal:
        """A points-journal row (``player_id``, ``kind``, ``points_milli`` (signed), ``balance_after_milli`` …)."""
        return self.add(PointsJournal(**fields))

    # -- redemptions
    def redemption(self, redemption_id: int, *, for_update: bool = False) -> PointRedemption | None:
        stmt = select(PointRedemption).where(PointRedemption.id == redemption_id)
        if for_update:
            stmt = stmt.with_for_update()
        r = self.s.scalar(stmt)
        if r is not None and for_update:
            self.s.refresh(r)
        return r

    def stale_holds(self, player_id: int, now: datetime) -> list[PointRedemption]:
        return list(self.s.scalars(
            select(PointRedemption)
            .where(PointRedemption.player_id == player_id, PointRedemption.status == "pending",
                   PointRedemption.expires_at <= now)
            .with_for_update()))

    def live_held_milli(self, player_id: int, now: datetime) -> int:
        """Points held by pending redemptions that have not expired (milli-points)."""
        return 1_000 * int(self.s.scalar(
            select(func.coalesce(func.sum(PointRedemption.points), 0))
            .where(PointRedemption.player_id == player_id, PointRedemption.status == "pending",
                   PointRedemption.expires_at > now)) or 0)

    # -- transfers
    def transferred_on(self, player_id: int, day: date, direction: str) -> int:
        """Won moved by the player's transfers in ``direction`` on gaming day ``day``, with the AFT transfers still
        pending or sent (a completed AFT is a transfer row)."""
        done = int(self.s.scalar(
            select(func.coalesce(func.sum(WalletTransfer.cashable_won + WalletTransfer.promo_won), 0))
            .where(WalletTransfer.player_id == player_id, WalletTransfer.gaming_day == day,
                   WalletTransfer.direction == direction)) or 0)
        open_ = int(self.s.scalar(
            select(func.coalesce(func.sum(AftTransferRow.amount_won), 0))
            .where(AftTransferRow.player_id == player_id, AftTransferRow.gaming_day == day,
                   AftTransferRow.direction == direction, AftTransferRow.state.in_(("pending", "sent")))) or 0)
        return done + open_

    # -- AFT transfers
    def aft(self, transfer_id: int, *, for_update: bool = False) -> AftTransferRow | None:
        stmt = select(AftTransferRow).where(AftTransferRow.id == transfer_id)
        return self.s.scalar(stmt.with_for_update() if for_update else stmt)

    def aft_by_transaction(self, transaction_id: str, *, for_update: bool = False) -> AftTransferRow | None:
        stmt = select(AftTransferRow).where(AftTransferRow.transaction_id == transaction_id)
        return self.s.scalar(stmt.with_for_update() if for_update else stmt)

    def aft_open(self, machine_id: int, *, for_update: bool = False) -> list[AftTransferRow]:
        """The machine's AFT transfers pending or sent, oldest first."""
        stmt = (select(AftTransferRow).where(AftTransferRow.machine_id == machine_id,
                                             AftTransferRow.state.in_(("pending", "sent")))
                .order_by(AftTransferRow.id))
        return list(self.s.scalars(stmt.with_for_update() if for_update else stmt))

    def aft_stale_machines(self, now: datetime) -> list[int]:
        """Ids of machines with a pending AFT transfer past its ``expires_at``."""
        return list(self.s.scalars(select(AftTransferRow.machine_id).where(
            AftTransferRow.state == "pending", AftTransferRow.expires_at <= now).distinct()))

    def aft_totals(self, machine_id: int) -> dict[str, int]:
        """The machine's completed AFT transfers: ``aft_in`` / ``aft_out`` (won moved) and their counts."""
        rows = self.s.execute(
            select(AftTransferRow.direction, func.coalesce(func.sum(AftTransferRow.moved_won), 0), func.count())
            .where(AftTransferRow.machine_id == machine_id, AftTransferRow.state == "completed",
                   AftTransferRow.moved_won > 0).group_by(AftTransferRow.direction)).all()
        out = {"aft_in": 0, "aft_in_count": 0, "aft_out": 0, "aft_out_count": 0}
        for direction, won, n in rows:
            name = "aft_in" if direction == "to_machine" else "aft_out"
            out[name], out[f"{name}_count"] = int(won), int(n)
        return out

    def transfers_of(self, player_id: int, limit: int = 50) -> list[tuple[WalletTransfer, str]]:
        rows = self.s.execute(
            select(WalletTransfer, _machines.c.asset_number).join(_machines, _machines.c.id == WalletTransfer.machine_id)
            .where(WalletTransfer.player_id == player_id).order_by(WalletTransfer.id.desc()).limit(limit)).all()
        return [(t, a) for t, a in rows]

    # -- ratings
    def ratings_of(self, player_id: int, limit: int = 50) -> list[TableRating]:
        return list(self.s.scalars(
            select(TableRating).where(TableRating.player_id == player_id).order_by(TableRating.id.desc()).limit(limit)))

    # -- player tokens
    def add_token(self, token_hash: str, player_id: int, expires_at: datetime) -> None:
        self.add(PlayerToken(token_hash=token_hash, player_id=player_id, expires_at=expires_at))

    def player_for_token(self, token_hash: str, now: datetime) -> int | None:
        return self.s.scalar(
            select(PlayerToken.player_id).where(PlayerToken.token_hash == token_hash, PlayerToken.expires_at > now))

    def revoke_tokens(self, player_id: int) -> None:
        self.s.execute(delete(PlayerToken).where(PlayerToken.player_id == player_id))

    # -- audit
    def audit(self) -> dict:
        """Points and sessions agree with their sources:

        * each player's points balance = the sum of its points journal, never negative, never
          below what pending redemptions hold;
        * each session's counters (coin-in, coin-out, games played, games won, added game by game)
          = the change of its machine's meters since card-in (up to now for an open session, up to
          card-out for a closed one); the jackpots its games won ≤ the change of the jackpot meter
          (which also counts awards paid outside a game: handpays, bonus awards);
        * each session's points = the sum of the journal rows it produced.
        """
        sums = (select(PointsJournal.player_id, func.sum(PointsJournal.points_milli).label("s"))
                .group_by(PointsJournal.player_id).subquery())
        journal = func.coalesce(sums.c.s, 0)
        points_mismatch = [
            {"player": pid, "balance_milli": int(b), "journal_milli": int(j)}
            for pid, b, j in self.s.execute(
                select(Player.id, Player.points_milli, journal).outerjoin(sums, sums.c.player_id == Player.id)
                .where(Player.points_milli != journal).limit(20)).all()
        ]
        negative = [
            {"player": pid, "balance_milli": int(b), "held_milli": int(h)}
            for pid, b, h in self.s.execute(
                select(Player.id, Player.points_milli, Player.points_held_milli)
                .where((Player.points_milli < 0) | (Player.points_held_milli < 0)
                       | (Player.points_held_milli > Player.points_milli)).limit(20)).all()
        ]
        held_sums = (select(PointRedemption.player_id, func.sum(PointRedemption.points).label("h"))
                     .where(PointRedemption.status == "pending").group_by(PointRedemption.player_id).subquery())
        pending = func.coalesce(held_sums.c.h, 0) * 1000
        held_mismatch = [
            {"player": pid, "held_milli": int(h), "pending_milli": int(p)}
            for pid, h, p in self.s.execute(
                select(Player.id, Player.points_held_milli, pending)
                .outerjoin(held_sums, held_sums.c.player_id == Player.id)
                .where(Player.points_held_milli != pending).limit(20)).all()
        ]
        players, outstanding = self.s.execute(
            select(func.count(Player.id), func.coalesce(func.sum(Player.points_milli), 0))).one()
        session_mismatch = []
        for meter in SESSION_METERS:
            end = case((PlayerSession.status == "open", _machines.c[meter]), else_=getattr(PlayerSession, f"end_{meter}"))
            change = end - getattr(PlayerSession, f"start_{meter}")
            for sid, value, ch in self.s.execute(
                select(PlayerSession.id, getattr(PlayerSession, meter), change)
                .join(_machines, _machines.c.id == PlayerSession.machine_id)
                .where(change.is_distinct_from(getattr(PlayerSession, meter)) if meter != "jackpot_out"
                       # jackpots: the games' own awards; the meter may also count awards paid outside a game
                       else (change < PlayerSession.jackpot_out) | change.is_(None)).limit(20)
            ).all():
                session_mismatch.append({"session": sid, "meter": meter, "session_value": int(value),
                                         "machine_change": None if ch is None else int(ch)})
        ps = (select(PointsJournal.session_id, func.sum(PointsJournal.points_milli).label("s"))
              .where(PointsJournal.session_id.is_not(None)).group_by(PointsJournal.session_id).subquery())
        ps_sum = func.coalesce(ps.c.s, 0)
        session_points = [
            {"session": sid, "session_points_milli": int(p), "journal_milli": int(j)}
            for sid, p, j in self.s.execute(
                select(PlayerSession.id, PlayerSession.points_milli, ps_sum)
                .outerjoin(ps, ps.c.session_id == PlayerSession.id)
                .where(PlayerSession.points_milli != ps_sum).limit(20)).all()
        ]
        agrees = not (points_mismatch or negative or held_mismatch or session_mismatch or session_points)
        return {
            "agrees": agrees,
            "players": int(players),
            "points_outstanding_milli": int(outstanding),
            "points_mismatches": points_mismatch[:20],
            "negative_points": negative[:20],
            "held_mismatches": held_mismatch[:20],
            "session_meter_mismatches": session_mismatch[:20],
            "session_points_mismatches": session_points[:20],
        }


class _MachineNow:
    """A session's machine as the session views read it: its asset number and meters now."""

    def __init__(self, **columns) -> None:
        self.__dict__.update(columns)
