"""Repositories of the floor: machines, game rounds, staff."""

from __future__ import annotations


from sqlalchemy import BigInteger, String, any_, bindparam, insert, select, update
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.orm import Session
from sqlalchemy.orm.attributes import set_committed_value

from slotsys.kernel.adapters.db import Account, utcnow
from slotsys.kernel.adapters.write_behind import execute_or_defer
from slotsys.floor.adapters.tables import GameRound, Machine, Zone, machines
from slotsys.floor.adapters.foreign import player_sessions
from slotsys.kernel.errors import NotFound
from slotsys.kernel.accounts import machine_credits, machine_nonrestricted, machine_restricted
from slotsys.kernel.credits import Credits


_METER_UPDATES: dict[tuple, object] = {}
_ACC = Account.__table__
_MACHINE = select(Machine).where(Machine.asset_number == bindparam("asset"))  # built once: compiled form cached
_MACHINE_LOCKED = _MACHINE.with_for_update()
# group commit (PostgreSQL): a batch's machines locked in one statement, in id order (the order of every batch)
_MACHINES_LOCKED = (select(Machine).where(Machine.asset_number == any_(bindparam("assets", type_=ARRAY(String))))
                    .order_by(Machine.id).with_for_update())
_CARDED = (select(player_sessions.c.machine_id).distinct()
           .where(player_sessions.c.machine_id == any_(bindparam("mids", type_=ARRAY(BigInteger))),
                  player_sessions.c.status == "open"))
# the spin's second read (built once; SQLAlchemy caches its compiled form): the three credit meters in won
# (cashable, restricted and non-restricted promotional; NULL for a promo meter never opened) and whether a
# player is carded in
def _balance_of(param: str):
    return select(_ACC.c.balance * _ACC.c.normal_sign).where(_ACC.c.code == bindparam(param)).scalar_subquery()


_CREDITS = select(_balance_of("code"), _balance_of("restricted"), _balance_of("nonrestricted"))
_CREDITS_AND_CARDED = select(
    _balance_of("code"), _balance_of("restricted"), _balance_of("nonrestricted"),
    select(player_sessions.c.id)
    .where(player_sessions.c.machine_id == bindparam("mid"), player_sessions.c.status == "open").exists(),
)


def _credits(row, code: str) -> Credits:
    if row[0] is None:
        raise NotFound(f"account {code!r} does not exist")
    return Credits(int(row[0]), int(row[1] or 0), int(row[2] or 0))


class MachineRepo:
    def __init__(self, session: Session) -> None:
        self.s = session
        # group commit: what get_for_play answers for machines a batch has read already (asset → its answer)
        self.prepared: dict[str, tuple[Machine, Credits, bool]] = {}

    def lock_many(self, assets: list[str]) -> dict[str, Machine]:
        """Group commit (PostgreSQL): the machines ``assets`` (those on the floor) with their row locks, taken in
        one statement in id order; by asset."""
        return {m.asset_number: m for m in self.s.scalars(_MACHINES_LOCKED, {"assets": list(assets)})}

    def carded_many(self, machine_ids: list[int]) -> set[int]:
        """Of ``machine_ids``, those with an open player session (one statement; the caller holds their locks)."""
        return set(self.s.scalars(_CARDED, {"mids": list(machine_ids)})) if machine_ids else set()

    def by_key_hash(self, key_hash: str) -> Machine | None:
        return self.s.scalar(select(Machine).where(Machine.key_hash == key_hash))

    def get(self, asset: str, *, for_update: bool = False) -> Machine:
        """The machine by asset number; ``for_update`` takes its row lock (spins on one
        machine are serialised, and the machine row is always the first lock taken)."""
        m = self.s.scalar(_MACHINE_LOCKED if for_update else _MACHINE, {"asset": asset})
        if m is None:
            raise NotFound(f"machine {asset!r} is not on the floor", field="asset")
        return m

    def get_for_play(self, asset: str) -> tuple[Machine, Credits, bool]:
        """The spin's reads: the machine row locked (as ``get(for_update=True)``), then, in a second
        statement, its three credit meters in won (cashable, restricted and non-restricted
        promotional: :class:`slotsys.kernel.credits.Credits`) and whether a player session is open
        on it (two round trips instead of three).

        They cannot be one statement: under READ COMMITTED a ``SELECT … FOR UPDATE`` that waits for
        the lock returns the newest machine row, but its subqueries keep the snapshot taken before
        the wait, so a cash-out, handpay, award or card-in committed meanwhile would be missed (a
        spin staked on credits already gone). The second statement's snapshot is taken after the
        lock, and everything that changes a machine's credits or sessions takes this lock first.
        """
        if asset in self.prepared:  # read by the batch this transaction runs (group commit)
            return self.prepared.pop(asset)
        m = self.get(asset, for_update=True)  # raises NotFound
        code = machine_credits(asset)
        row = self.s.execute(_CREDITS_AND_CARDED, {"code": code, "restricted": machine_restricted(asset),
                                                   "nonrestricted": machine_nonrestricted(asset), "mid": m.id}).one()
        return m, _credits(row, code), bool(row[3])

    def credits(self, asset: str) -> Credits:
        """The machine's three credit meters in won, in one statement (the caller holds its row lock
        when it acts on them). Raises NotFound if the machine has no credit meter."""
        code = machine_credits(asset)
        row = self.s.execute(_CREDITS, {"code": code, "restricted": machine_restricted(asset),
                                        "nonrestricted": machine_nonrestricted(asset)}).one()
        return _credits(row, code)

    def refresh(self, machine: Machine) -> None:
        """Read the machine again from the database (its row lock is held: the values are current)."""
        self.s.refresh(machine)

    def get_by_id(self, machine_id: int) -> Machine:
        m = self.s.get(Machine, machine_id)
        if m is None:
            raise NotFound(f"machine id {machine_id} not found")
        return m

    def all(self, *, include_retired: bool = False) -> list[Machine]:
        """The machines on the floor (``include_retired``: with the retired ones, whose history stays)."""
        q = select(Machine).order_by(Machine.zone, Machine.asset_number)
        if not include_retired:
            q = q.where(Machine.retired_at.is_(None))
        return list(self.s.scalars(q))

    def add(self, machine: Machine) -> Machine:
        self.s.add(machine)
        self.s.flush()
        return machine

    def add_meters(self, machine: Machine | int, *, set_values: dict | None = None, **deltas: int) -> None:
        """Add ``deltas`` to the machine's meters (won / counts) and set ``set_values`` columns,
        in one UPDATE (Core: no ORM flush on the spin path). Given the loaded ``Machine``, its
        ``set_values`` attributes are updated in memory too, without a second UPDATE. Every meter named is in
        the statement, zero or not, so one call site has one statement shape (a group commit's spins then update
        their machines in one multi-row UPDATE); nothing is sent when every delta is zero and nothing is set."""
        machine_id = machine if isinstance(machine, int) else machine.id
        sets = set_values or {}
        if any(deltas.values()) or sets:
            shape = (tuple(sorted(deltas)), tuple(sorted(sets)))
            stmt = _METER_UPDATES.get(shape)
            if stmt is None:  # one compiled statement per shape (a handful: spin, bill-in, ticket ...)
                t = machines
                stmt = update(t).where(t.c.id == bindparam("mid")).values(
                    **{k: t.c[k] + bindparam(f"d_{k}", type_=BigInteger()) for k in shape[0]},
                    **{k: bindparam(f"s_{k}") for k in shape[1]},
                )
                _METER_UPDATES[shape] = stmt
            params = {"mid": machine_id, **{f"d_{k}": v for k, v in deltas.items()}, **{f"s_{k}": v for k, v in sets.items()}}
            execute_or_defer(self.s, stmt, params)
        if not isinstance(machine, int):
            for k, v in (set_values or {}).items():
                set_committed_value(machine, k, v)

    def zones(self) -> list[Zone]:
        return list(self.s.scalars(select(Zone).order_by(Zone.code)))

    def ensure_zone(self, code: str, name: str) -> None:
        if self.s.get(Zone, code) is None:
            self.s.add(Zone(code=code, name=name))
            self.s.flush()


_NEW_ROUND = insert(GameRound.__table__).inline()  # no implicit RETURNING: it may go with the commit


class GameRoundRepo:
    def __init__(self, session: Session) -> None:
        self.s = session

    def add(self, **row) -> None:
        """Record one game (columns of :class:`GameRound`); a Core INSERT, no ORM object."""
        row.setdefault("created_at", utcnow())
        execute_or_defer(self.s, _NEW_ROUND, row)

    def recent(self, machine_id: int, limit: int = 10) -> list[GameRound]:
        return list(
            self.s.scalars(
                select(GameRound).where(GameRound.machine_id == machine_id).order_by(GameRound.game_number.desc()).limit(limit)
            )
        )


