"""In-memory fakes of the players' repository (``uow.players``) and of the cage's cash desk, for service unit tests
with no database. They keep real state and apply the rules of the tables where a use case could tell them apart:
a player not enrolled is ``NotFound`` (field ``player_id``); one open session per machine and one per player (the
partial unique indexes: ``Conflict``); a points-journal row never moves zero points; the program must be
configured; card numbers are unique.

:func:`players_context` builds a :class:`~slotsys.kernel.context.ServiceContext` over the floor's
:class:`~tests.fakes.floor.FakeMachines` (whose "is a player carded in" reads these sessions, as the SQL
``get_for_play`` reads ``player_sessions``) and the players' repository, with a loyalty program, tiers and a
default accrual rule configured.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from slotsys.floor.domain.machine import Machine
from slotsys.kernel import accounts
from slotsys.kernel.errors import Conflict, NotFound
from slotsys.kernel.ledger import AccountType
from slotsys.players.domain.player import Player, PlayerSession
from tests.fakes.floor import FakeMachines, FakeRounds
from tests.fakes.kernel import FakeLedger, SeqRng, fake_context


class Record:
    """A stored row: its fields as attributes (``id`` assigned on insert), like the ORM rows the SQL repository
    returns."""

    def __init__(self, **fields: Any) -> None:
        self.__dict__.update(fields)

    def __repr__(self) -> str:  # pragma: no cover - test diagnostics
        return f"Record({self.__dict__!r})"


# the columns' defaults (slotsys/players/adapters/tables.py) for the records ``new`` makes
DEFAULTS: dict[str, dict[str, Any]] = {
    "program": {"points_idle_days": 365, "promo_won_per_point": 10, "cash_won_per_point": 5,
                "per_transfer_max_won": 5_000_000, "daily_to_machine_max_won": 20_000_000,
                "daily_to_wallet_max_won": 100_000_000, "redemption_hold_seconds": 60,
                "updated_at": None},
    "tier": {},
    "rule": {"key": "", "updated_at": None},
    "card": {"status": "active", "pin_failures": 0, "pin_last_failure_at": None, "status_changed_at": None},
    "redemption": {"machine_id": None, "expires_at": None, "settled_at": None, "entry_id": None},
    "transfer": {"session_id": None, "via": "aft", "cashable_won": 0, "promo_won": 0},
    "rating": {},
    "aft": {"session_id": None, "moved_won": 0, "state": "pending", "status_code": None, "reason": "",
            "sent_at": None, "settled_at": None, "hold_entry_id": None, "settle_entry_id": None},
}


class FakePlayers:
    """``uow.players``: players, cards, sessions, the points journal, redemptions, transfers, ratings, tokens and the
    program's configuration, in plain lists. ``machines``: the floor's machine repository (the sessions' views read
    a machine's meters now)."""

    def __init__(self, machines: FakeMachines | None = None) -> None:
        self.machines = machines
        self.program_row: Record | None = None
        self.tier_rows: dict[str, Record] = {}
        self.rule_rows: list[Record] = []
        self.players: list[Player] = []
        self.sessions: list[PlayerSession] = []
        self.records: dict[str, list[Record]] = {"card": [], "redemption": [], "transfer": [], "rating": [], "aft": []}
        self.card_events_log: list[dict] = []
        self.journal_rows: list[Record] = []
        self.tokens: dict[str, tuple[int, datetime]] = {}

    # -- configuration
    def program(self) -> Record:
        if self.program_row is None:
            raise NotFound("the loyalty program is not configured (seed it)")
        return self.program_row

    def program_exists(self) -> bool:
        return self.program_row is not None

    def tiers(self) -> list[Record]:
        return sorted(self.tier_rows.values(), key=lambda t: t.threshold_points)

    def tier(self, code: str) -> Record | None:
        return self.tier_rows.get(code)

    def rules(self) -> list[Record]:
        return sorted(self.rule_rows, key=lambda r: (r.scope, r.key))

    def rule(self, scope: str, key: str) -> Record | None:
        return next((r for r in self.rule_rows if r.scope == scope and r.key == key), None)

    # -- inserts
    def add(self, obj):
        """A new :class:`Player` or :class:`PlayerSession` (its ``id`` assigned)."""
        if isinstance(obj, Player):
            obj.id = len(self.players) + 1
            self.players.append(obj)
        elif isinstance(obj, PlayerSession):
            if obj.status == "open" and (self.open_session_for_machine(obj.machine_id) is not None
                                         or self.open_session_for_player(obj.player_id) is not None):
                raise Conflict("uq_player_sessions_open: one open session per machine and per player")
            obj.id = len(self.sessions) + 1
            self.sessions.append(obj)
        else:  # pragma: no cover - the services add only these two
            raise TypeError(f"cannot add {type(obj).__name__}")
        return obj

    def new(self, record: str, /, **fields):
        """A new ``record`` (program, tier, rule, card, redemption, transfer, rating) with the columns' defaults."""
        row = Record(**{**DEFAULTS[record], **fields})
        if record == "program":
            row.id = 1
            self.program_row = row
        elif record == "tier":
            self.tier_rows[row.code] = row
        elif record == "rule":
            if self.rule(row.scope, row.key) is not None:
                raise Conflict("accrual_rules scope_key is unique")
            row.id = len(self.rule_rows) + 1
            self.rule_rows.append(row)
        else:
            rows = self.records[record]
            if record == "card" and self.card_exists(row.card_number):
                raise Conflict("player_cards.card_number is unique")
            if record == "aft" and self.aft_by_transaction(row.transaction_id) is not None:
                raise Conflict("aft_transfers.transaction_id is unique")
            row.id = len(rows) + 1
            rows.append(row)
        return row

    # -- players and cards
    def get(self, player_id: int, *, for_update: bool = False) -> Player:
        p = next((p for p in self.players if p.id == player_id), None)
        if p is None:
            raise NotFound(f"player {player_id} is not enrolled", field="player_id")
        return p

    def by_names(self, names: list[str]) -> list[Player]:
        return [p for p in self.players if p.name in names]

    def card(self, card_number: str, *, for_update: bool = False) -> Record | None:
        return next((c for c in self.records["card"] if c.card_number == card_number), None)

    def card_exists(self, card_number: str) -> bool:
        return self.card(card_number) is not None

    def card_by_id(self, card_id: int) -> Record:
        return next(c for c in self.records["card"] if c.id == card_id)

    def refresh(self, obj) -> None:
        """The rows are the state itself: nothing to read again."""

    def cards_of(self, player_id: int) -> list[Record]:
        return [c for c in self.records["card"] if c.player_id == player_id]

    def card_event(self, card, kind: str, by: str, at: datetime, **detail) -> None:
        self.card_events_log.append({"card_id": card.id, "player_id": card.player_id, "kind": kind, "by": by,
                                     "at": at, "detail": detail})

    def idle_players(self, before: datetime) -> list[int]:
        return [p.id for p in self.players if p.points_milli > 0 and p.last_activity_at <= before]

    # -- sessions
    def open_session_for_machine(self, machine_id: int) -> PlayerSession | None:
        return next((s for s in self.sessions if s.machine_id == machine_id and s.status == "open"), None)

    def open_session_for_player(self, player_id: int) -> PlayerSession | None:
        return next((s for s in self.sessions if s.player_id == player_id and s.status == "open"), None)

    def sessions_of(self, player_id: int, limit: int = 50) -> list[tuple[PlayerSession, Machine]]:
        mine = [s for s in reversed(self.sessions) if s.player_id == player_id][:limit]
        return [(s, self.machines.get_by_id(s.machine_id)) for s in mine]

    # -- points
    def journal(self, player_id: int, limit: int = 100) -> list[Record]:
        return [j for j in reversed(self.journal_rows) if j.player_id == player_id][:limit]

    def add_journal(self, **fields) -> Record:
        if not fields["points_milli"]:
            raise ValueError("points_journal: points_milli <> 0")
        row = Record(**{"session_id": None, "rating_id": None, "redemption_id": None, "entry_id": None, "memo": "",
                        **fields})
        row.id = len(self.journal_rows) + 1
        self.journal_rows.append(row)
        return row

    # -- redemptions
    def redemption(self, redemption_id: int, *, for_update: bool = False) -> Record | None:
        return next((r for r in self.records["redemption"] if r.id == redemption_id), None)

    def stale_holds(self, player_id: int, now: datetime) -> list[Record]:
        return [r for r in self.records["redemption"]
                if r.player_id == player_id and r.status == "pending" and r.expires_at <= now]

    def live_held_milli(self, player_id: int, now: datetime) -> int:
        return 1_000 * sum(r.points for r in self.records["redemption"]
                           if r.player_id == player_id and r.status == "pending" and r.expires_at > now)

    # -- transfers
    def transferred_on(self, player_id: int, day: date, direction: str) -> int:
        return sum(t.cashable_won + t.promo_won for t in self.records["transfer"]
                   if t.player_id == player_id and t.gaming_day == day and t.direction == direction) + sum(
            a.amount_won for a in self.records["aft"] if a.player_id == player_id and a.gaming_day == day
            and a.direction == direction and a.state in ("pending", "sent"))

    # -- AFT transfers
    def aft(self, transfer_id: int, *, for_update: bool = False) -> Record | None:
        return next((a for a in self.records["aft"] if a.id == transfer_id), None)

    def aft_by_transaction(self, transaction_id: str, *, for_update: bool = False) -> Record | None:
        return next((a for a in self.records["aft"] if a.transaction_id == transaction_id), None)

    def aft_open(self, machine_id: int, *, for_update: bool = False) -> list[Record]:
        return [a for a in self.records["aft"] if a.machine_id == machine_id and a.state in ("pending", "sent")]

    def aft_stale_machines(self, now: datetime) -> list[int]:
        return sorted({a.machine_id for a in self.records["aft"] if a.state == "pending" and a.expires_at <= now})

    def aft_totals(self, machine_id: int) -> dict[str, int]:
        out = {"aft_in": 0, "aft_in_count": 0, "aft_out": 0, "aft_out_count": 0}
        for a in self.records["aft"]:
            if a.machine_id == machine_id and a.state == "completed" and a.moved_won > 0:
                name = "aft_in" if a.direction == "to_machine" else "aft_out"
                out[name] += a.moved_won
                out[f"{name}_count"] += 1
        return out

    def transfers_of(self, player_id: int, limit: int = 50) -> list[tuple[Record, str]]:
        mine = [t for t in reversed(self.records["transfer"]) if t.player_id == player_id][:limit]
        return [(t, self.machines.get_by_id(t.machine_id).asset_number) for t in mine]

    # -- ratings
    def ratings_of(self, player_id: int, limit: int = 50) -> list[Record]:
        return [r for r in reversed(self.records["rating"]) if r.player_id == player_id][:limit]

    # -- player tokens
    def add_token(self, token_hash: str, player_id: int, expires_at: datetime) -> None:
        self.tokens[token_hash] = (player_id, expires_at)

    def player_for_token(self, token_hash: str, now: datetime) -> int | None:
        found = self.tokens.get(token_hash)
        return found[0] if found is not None and found[1] > now else None

    def revoke_tokens(self, player_id: int) -> None:
        self.tokens = {h: v for h, v in self.tokens.items() if v[0] != player_id}


class CardedMachines(FakeMachines):
    """The floor's fake machines, where a machine is carded when the players hold an open session on it (as the SQL
    ``get_for_play`` reads ``player_sessions`` under the machine's row lock), and ``refresh`` reads nothing."""

    def __init__(self, ledger, machines: list[Machine] = ()) -> None:
        super().__init__(ledger, machines)
        self.players: FakePlayers | None = None

    def get_for_play(self, asset: str):
        m, credits, _ = super().get_for_play(asset)
        return m, credits, self.players.open_session_for_machine(m.id) is not None

    def refresh(self, machine) -> None:
        """The machine is the state itself: nothing to read again."""


class NoOpenDrawer(Conflict):
    code = "no-open-drawer-session"
    title = "No open drawer session"


@dataclass
class FakeCashDesk:
    """The cage's cash desk port: every cashier in ``open_drawers`` has an open drawer (its ledger account is
    ``cashier_drawer(drawer, MAIN)``, created with the first call); others get ``Conflict``
    (``no-open-drawer-session``)."""

    open_drawers: dict[str, str] = field(default_factory=lambda: {"cashier": "D1"})

    def open_drawer_account(self, uow, cashier: str) -> str:
        drawer = self.open_drawers.get(cashier)
        if drawer is None:
            raise NoOpenDrawer("open a drawer session before taking or paying cash", field="drawer")
        code = accounts.cashier_drawer(drawer, accounts.MAIN_CAGE)
        uow.ledger.ensure_account(code, AccountType.ASSET)
        return code


TIERS = (("CLASSIC", "Classic", 0, 1_000), ("GOLD", "Gold", 5_000, 1_250))


def players_context(*machines: Machine, rules=(("default", "", "coin_in", 1_000),), **program: int):
    """A context over the in-memory unit of work: the floor's ``machines`` (carded by these players' sessions), game
    ``rounds``, the ``players`` with the program (``program`` overrides its defaults), :data:`TIERS` and
    ``rules`` (scope, key, basis, won per point) configured. ``ctx.uow.repos`` holds the repositories."""
    ledger = FakeLedger()
    fleet = CardedMachines(ledger, list(machines))
    players = FakePlayers(fleet)
    fleet.players = players
    players.new("program", **program)
    for code, name, threshold, permille in TIERS:
        players.new("tier", code=code, name=name, threshold_points=threshold, multiplier_permille=permille)
    for scope, key, basis, won_per_point in rules:
        players.new("rule", scope=scope, key=key, basis=basis, won_per_point=won_per_point)
    for kind in ("promo", "cash"):
        ledger.ensure_account(accounts.comp_expense(kind), AccountType.EXPENSE)
    return fake_context(rng=SeqRng(*range(1, 98)), ledger=ledger, machines=fleet, players=players,
                        rounds=FakeRounds())
