"""Ledger persistence: accounts with cached balances, append-only journal and postings."""

from __future__ import annotations

import json
from collections import deque
from typing import Iterable

from sqlalchemy import BigInteger, and_, bindparam, func, insert, or_, select, text, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from slotsys.kernel.adapters.db import Account, JournalEntryRow, PostingRow, utcnow
from slotsys.kernel.adapters.write_behind import defer_first, execute_or_defer
from slotsys.kernel.errors import InsufficientFunds, NotFound
from slotsys.kernel.ledger import AccountType, JournalEntry


_ACCOUNTS = Account.__table__  # hot-path statements use the Core table (no ORM persistence layer)
_ENTRIES = JournalEntryRow.__table__
# Built once (SQLAlchemy caches their compiled form); run on the session's connection.
_ADD_TO_BALANCE = (
    update(_ACCOUNTS)
    .where(_ACCOUNTS.c.id == bindparam("acc_id"))
    .values(balance=_ACCOUNTS.c.balance + bindparam("delta", type_=BigInteger()))
    .returning(_ACCOUNTS.c.balance, _ACCOUNTS.c.normal_sign, _ACCOUNTS.c.non_negative)
)
_NEW_ENTRY = insert(_ENTRIES).returning(_ENTRIES.c.id)
_NEW_POSTINGS = insert(PostingRow.__table__).inline()
_BALANCE_OF = select(_ACCOUNTS.c.balance, _ACCOUNTS.c.normal_sign).where(_ACCOUNTS.c.code == bindparam("code"))

# PostgreSQL: an entry in two statements (instead of one per account, one for the entry and one for its postings).
# ``_LOCK_ACCOUNTS_PG`` locks the entry's accounts in id order (the fixed lock order of the statement-per-account
# form: concurrent entries cannot deadlock) with the lock the balance UPDATE takes itself, FOR NO KEY UPDATE (FOR
# UPDATE would block other entries' postings checking their foreign key, in posting order: a deadlock), and returns
# the newest balances, on which the non-negative check is made. ``_WRITE_ENTRY_PG`` then moves the balances and
# inserts the entry and its postings (in the entry's order). The write is a statement of its own on purpose: its
# snapshot is taken after the locks are held, so it never meets a row changed meanwhile (one statement doing lock,
# check and write shares the snapshot taken before the lock wait, and let a short entry reach the CHECK under
# concurrent load: tests/integration/test_ledger_post_pg.py races it). Every data-modifying part of a WITH runs to
# completion whether or not the final SELECT reads it; the CHECK ``non_negative`` stays the database's own guard.
_LOCK_ACCOUNTS_PG = text(
    "SELECT id, balance, normal_sign, non_negative FROM accounts WHERE id = ANY(CAST(:acc_ids AS integer[])) "
    "ORDER BY id FOR NO KEY UPDATE")
_WRITE_ENTRY_PG = text("""
WITH v AS (SELECT * FROM unnest(CAST(:acc_ids AS integer[]), CAST(:deltas AS bigint[])) AS v(account_id, delta)),
upd AS (UPDATE accounts a SET balance = a.balance + v.delta FROM v WHERE a.id = v.account_id
        RETURNING a.id, a.balance * a.normal_sign AS after),
e AS (INSERT INTO journal_entries (kind, memo, refs, created_at)
      VALUES (:kind, :memo, CAST(:refs AS json), :created_at) RETURNING id),
p AS (INSERT INTO postings (entry_id, account_id, amount, memo)
      SELECT e.id, x.account_id, x.amount, x.memo
      FROM e CROSS JOIN unnest(CAST(:p_accounts AS integer[]), CAST(:p_amounts AS bigint[]), CAST(:p_memos AS text[]))
           WITH ORDINALITY AS x(account_id, amount, memo, ord)
      ORDER BY x.ord)
SELECT (SELECT id FROM e) AS entry_id, (SELECT array_agg(id) FROM upd) AS ids, (SELECT array_agg(after) FROM upd) AS afters
""")

# Group commit (``LedgerRepo.hold``): the batch's accounts locked in one statement (id order, as above) with as many
# journal entry ids reserved as it will post, and every entry of the batch written by one statement with the commit
# (balances moved by each account's net over the batch: an UPDATE … FROM applies one row per account).
# By id, or by code: ids resolved in the statement that locks them (a batch whose codes are not all cached, such
# as a machine's promotional accounts that do not exist yet, costs no lookup of its own).
_HOLD = ("SELECT id, balance, normal_sign, non_negative, (SELECT array_agg(nextval(pg_get_serial_sequence("
         "'journal_entries', 'id'))) FROM generate_series(1, :n)) AS entry_ids, code "
         "FROM accounts WHERE {where} ORDER BY id FOR NO KEY UPDATE")
_HOLD_PG = text(_HOLD.format(where="id = ANY(CAST(:acc_ids AS integer[]))"))
_HOLD_BY_CODE_PG = text(_HOLD.format(where="code = ANY(CAST(:codes AS varchar[]))"))
_RESERVE_ENTRY_IDS_PG = text(
    "SELECT nextval(pg_get_serial_sequence('journal_entries', 'id')) FROM generate_series(1, :n)")
_WRITE_ENTRIES_PG = text("""
WITH v AS (SELECT * FROM unnest(CAST(:acc_ids AS integer[]), CAST(:deltas AS bigint[])) AS v(account_id, delta)),
upd AS (UPDATE accounts a SET balance = a.balance + v.delta FROM v WHERE a.id = v.account_id),
e AS (INSERT INTO journal_entries (id, kind, memo, refs, created_at)
      SELECT * FROM unnest(CAST(:e_ids AS bigint[]), CAST(:e_kinds AS varchar[]), CAST(:e_memos AS varchar[]),
                           CAST(:e_refs AS json[]), CAST(:e_at AS timestamptz[])))
INSERT INTO postings (entry_id, account_id, amount, memo)
SELECT x.entry_id, x.account_id, x.amount, x.memo
FROM unnest(CAST(:p_entries AS bigint[]), CAST(:p_accounts AS integer[]), CAST(:p_amounts AS bigint[]),
            CAST(:p_memos AS varchar[])) WITH ORDINALITY AS x(entry_id, account_id, amount, memo, ord)
ORDER BY x.ord
""")


class LedgerRepo:
    # Account ids never change once created: cache code → id per database for the process.
    _id_cache: dict[str, dict[str, int]] = {}

    def __init__(self, session: Session) -> None:
        self.s = session
        self._ids = self._id_cache.setdefault(str(session.get_bind().url), {})
        # normal balance of each account this transaction posted to, as its UPDATE … RETURNING
        # reported it (the row stays locked until the transaction ends, so it cannot change under us)
        self._after: dict[str, int] = {}
        self._created: dict[str, int] = {}  # accounts this transaction created (ids cached once committed)
        self._held: dict[int, list] = {}  # group commit: account id → [balance, normal_sign, non_negative] locked
        self._reserved: deque[int] = deque()  # group commit: journal entry ids reserved, not posted yet
        self._batch: dict | None = None  # group commit: the parameters of _WRITE_ENTRIES_PG, filled by post()

    def forget(self, *, committed: bool = False) -> None:
        """End of the transaction: drop the balances remembered from its postings; the ids of the
        accounts it created join the process-wide cache if it ``committed``, else are forgotten."""
        self._after.clear()
        self._held.clear()
        self._reserved.clear()
        self._batch = None
        if committed:
            self._ids.update(self._created)
        self._created.clear()

    # -- accounts
    def ensure_account(self, code: str, type_: AccountType, *, non_negative: bool = False) -> int:
        acc_id = self._ids.get(code) or self._created.get(code) or self.s.scalar(select(Account.id).where(Account.code == code))
        if acc_id is None:
            acc = Account(code=code, type=type_.value, normal_sign=type_.normal_sign, non_negative=non_negative, balance=0)
            self.s.add(acc)
            self.s.flush()
            # not in the process-wide cache until committed: a rollback would leave it naming no row
            self._created[code] = acc.id
            return acc.id
        if code not in self._created:
            self._ids[code] = acc_id
        return acc_id

    def account_id(self, code: str) -> int:
        acc_id = self._ids.get(code) or self._created.get(code)
        if acc_id is None:
            acc_id = self.s.scalar(select(Account.id).where(Account.code == code))
            if acc_id is None:
                raise NotFound(f"account {code!r} does not exist")
            self._ids[code] = acc_id
        return acc_id

    def _prefetch_ids(self, codes: set[str]) -> None:
        """The ids of ``codes`` not cached yet, in one statement (a machine's first game in a process needs
        two to four: on a floor of 3,000 machines a fresh process would otherwise start with a lookup each)."""
        missing = [c for c in codes if c not in self._ids and c not in self._created]
        if len(missing) > 1:
            for code, acc_id in self.s.execute(select(Account.code, Account.id).where(Account.code.in_(missing))):
                self._ids[code] = acc_id

    def balance(self, code: str) -> int:
        """Normal balance in won (credits on a credit meter are positive). An account this
        transaction has posted to answers from its posting's RETURNING, without a round trip."""
        if code in self._after:
            return self._after[code]
        row = self.s.connection().execute(_BALANCE_OF, {"code": code}).one_or_none()
        if row is None:
            raise NotFound(f"account {code!r} does not exist")
        return row.balance * row.normal_sign

    # -- posting
    def post(self, entry: JournalEntry, *, labels: dict[str, str] | None = None) -> int:
        """Apply a balanced entry atomically; returns the journal entry id.

        Balance updates are issued in account-id order (a fixed lock order, so concurrent
        entries cannot deadlock on account rows). Raises InsufficientFunds, naming the
        account, when a non-negative account would go below zero; the caller's
        transaction must then be rolled back.
        """
        net = entry.net_by_account()  # accounts whose net change is zero need no balance update
        self._prefetch_ids({p.account for p in entry.postings})
        ids = {p.account: self.account_id(p.account) for p in entry.postings}
        conn = self.s.connection()
        if self._batch is not None:
            return self._post_held(conn, entry, net, ids, labels)
        if conn.dialect.name == "postgresql":
            return self._post_two_statements(conn, entry, net, ids, labels)
        after: dict[str, int] = {}
        for code in sorted(net, key=lambda c: ids[c]):
            label = (labels or {}).get(code, code)
            try:
                row = conn.execute(_ADD_TO_BALANCE, {"acc_id": ids[code], "delta": net[code]}).one()
            except IntegrityError:  # the database's CHECK (non-negative) refused it
                raise InsufficientFunds(f"{label} would go below zero", account=code) from None
            if row.non_negative and row.balance * row.normal_sign < 0:
                raise InsufficientFunds(
                    f"{label} would go below zero (short by {-row.balance * row.normal_sign} won)",
                    account=code,
                )
            after[code] = row.balance * row.normal_sign
        entry_id = conn.execute(
            _NEW_ENTRY, {"kind": entry.kind, "memo": entry.memo[:200], "refs": entry.refs, "created_at": utcnow()}
        ).scalar_one()
        execute_or_defer(
            self.s,
            _NEW_POSTINGS,
            [
                {"entry_id": entry_id, "account_id": ids[p.account], "amount": p.amount, "memo": p.memo[:80]}
                for p in entry.postings
            ],
        )
        self._after.update(after)  # only once the whole entry is applied
        return entry_id

    def _post_two_statements(self, conn, entry: JournalEntry, net: dict[str, int], ids: dict[str, int],
                             labels: dict[str, str] | None) -> int:
        """:meth:`post` on PostgreSQL: lock and check (``_LOCK_ACCOUNTS_PG``), then balances, entry and postings in
        one statement (``_WRITE_ENTRY_PG``); the same lock order, result, errors and messages as the
        statement-per-account form (which SQLite keeps)."""
        moved = sorted(net, key=lambda c: ids[c])
        acc_ids = [ids[c] for c in moved]
        code_of = {ids[c]: c for c in moved}
        guarded: list[str] = []  # the non-negative accounts this entry takes down
        if acc_ids:
            for acc_id, balance, sign, non_negative in conn.execute(_LOCK_ACCOUNTS_PG, {"acc_ids": acc_ids}):
                code = code_of[acc_id]
                if non_negative and net[code] * sign < 0:
                    guarded.append(code)
                if non_negative and (balance + net[code]) * sign < 0:  # rows in id order: the first short one
                    raise InsufficientFunds(f"{(labels or {}).get(code, code)} would go below zero", account=code)
        try:
            row = conn.execute(_WRITE_ENTRY_PG, {
                "acc_ids": acc_ids, "deltas": [net[c] for c in moved],
                "kind": entry.kind, "memo": entry.memo[:200], "refs": json.dumps(entry.refs), "created_at": utcnow(),
                "p_accounts": [ids[p.account] for p in entry.postings], "p_amounts": [p.amount for p in entry.postings],
                "p_memos": [p.memo[:80] for p in entry.postings],
            }).one()
        except IntegrityError as e:  # the CHECK behind the check above (never expected: the rows are locked)
            if "non_negative" not in (getattr(getattr(e.orig, "diag", None), "constraint_name", None) or ""):
                raise
            code = guarded[0] if guarded else (moved[0] if moved else "")
            raise InsufficientFunds(f"{(labels or {}).get(code, code)} would go below zero", account=code) from None
        self._after.update({code_of[i]: int(a) for i, a in zip(row.ids or (), row.afters or ())})
        return int(row.entry_id)

    # -- group commit (PostgreSQL)
    def hold(self, codes: Iterable[str], *, entries: int) -> None:
        """Group commit: lock the accounts ``codes`` (those that exist) until the transaction ends, in one statement
        and in id order (the lock order of every entry), and reserve ``entries`` journal entry ids. From then on
        :meth:`post` checks each entry against the locked balances in memory (same refusals and messages) and
        keeps it; all of them are written by one statement that goes first among the transaction's deferred writes,
        with the commit. The transaction must defer its writes (``SqlUnitOfWork.write_behind``); PostgreSQL only.
        An entry on an account not held locks it then (after the others: callers hold every account they can)."""
        codes = set(codes)
        ids = {c: self._ids.get(c) or self._created.get(c) for c in codes}
        if all(ids.values()):
            self._lock_held(self.s.connection(), sorted(set(ids.values())), reserve=entries)  # type: ignore[arg-type]
        else:  # some not cached (or not there): resolved by code in the locking statement itself
            self._lock_held(self.s.connection(), [], reserve=entries, codes=sorted(codes))
        self._batch = {"acc_ids": [], "deltas": [], "e_ids": [], "e_kinds": [], "e_memos": [], "e_refs": [],
                       "e_at": [], "p_entries": [], "p_accounts": [], "p_amounts": [], "p_memos": []}
        if not defer_first(self.s, _WRITE_ENTRIES_PG, self._batch):
            raise RuntimeError("LedgerRepo.hold needs a transaction that defers its writes (PostgreSQL)")

    def pending_entries(self) -> int:
        """How many entries :meth:`hold`'s batch has kept for the commit (0 outside a batch)."""
        return len(self._batch["e_ids"]) if self._batch is not None else 0

    def held(self, code: str) -> int | None:
        """The normal balance (won) of a held account as this transaction leaves it so far; None if not held."""
        acc_id = self._ids.get(code) or self._created.get(code)
        row = self._held.get(acc_id) if acc_id is not None else None
        return None if row is None else row[0] * row[1]

    def _lock_held(self, conn, acc_ids: list[int], *, reserve: int = 0, codes: list[str] | None = None) -> None:
        """Lock ``acc_ids`` (id order) into :attr:`_held`, reserving ``reserve`` entry ids in the same statement;
        with ``codes``, the accounts of those codes that exist instead (their ids join the process-wide cache: the
        rows are committed ones, the transaction having created none yet)."""
        if codes:
            rows = conn.execute(_HOLD_BY_CODE_PG, {"codes": codes, "n": reserve})
        elif acc_ids:
            rows = conn.execute(_HOLD_PG, {"acc_ids": acc_ids, "n": reserve})
        else:
            return
        for i, (acc_id, balance, sign, non_negative, entry_ids, code) in enumerate(rows):
            self._held[acc_id] = [int(balance), int(sign), bool(non_negative)]
            if code not in self._created:
                self._ids[code] = acc_id
            if i == 0 and entry_ids:
                self._reserved.extend(int(e) for e in entry_ids)

    def _post_held(self, conn, entry: JournalEntry, net: dict[str, int], ids: dict[str, int],
                   labels: dict[str, str] | None) -> int:
        """:meth:`post` under :meth:`hold`: checked against the held balances (the first short account in id order
        refuses the entry, which then changes nothing), kept for the one write statement with the commit."""
        moved = sorted(net, key=lambda c: ids[c])
        self._lock_held(conn, [ids[c] for c in moved if ids[c] not in self._held])
        for code in moved:
            balance, sign, non_negative = self._held[ids[code]]
            if non_negative and (balance + net[code]) * sign < 0:
                raise InsufficientFunds(f"{(labels or {}).get(code, code)} would go below zero", account=code)
        for code in moved:
            row = self._held[ids[code]]
            row[0] += net[code]
            self._after[code] = row[0] * row[1]
        entry_id = self._reserved.popleft() if self._reserved else int(
            conn.execute(_RESERVE_ENTRY_IDS_PG, {"n": 1}).scalar_one())
        b = self._batch
        assert b is not None
        deltas = dict(zip(b["acc_ids"], b["deltas"]))
        for code in moved:
            deltas[ids[code]] = deltas.get(ids[code], 0) + net[code]
        b["acc_ids"], b["deltas"] = list(deltas), list(deltas.values())
        b["e_ids"].append(entry_id)
        b["e_kinds"].append(entry.kind)
        b["e_memos"].append(entry.memo[:200])
        b["e_refs"].append(json.dumps(entry.refs))
        b["e_at"].append(utcnow())
        for p in entry.postings:
            b["p_entries"].append(entry_id)
            b["p_accounts"].append(ids[p.account])
            b["p_amounts"].append(p.amount)
            b["p_memos"].append(p.memo[:80])
        return entry_id

    # -- audit
    def audit(self) -> dict:
        """Prove the books: the sum over all accounts is zero and each cached balance equals its postings."""
        total_cached = self.s.scalar(select(func.coalesce(func.sum(Account.balance), 0)))
        total_postings = self.s.scalar(select(func.coalesce(func.sum(PostingRow.amount), 0)))
        sums = (
            select(PostingRow.account_id, func.sum(PostingRow.amount).label("s"))
            .group_by(PostingRow.account_id)
            .subquery()
        )
        rows = self.s.execute(
            select(Account.code, Account.balance, func.coalesce(sums.c.s, 0))
            .outerjoin(sums, sums.c.account_id == Account.id)
        ).all()
        mismatches = [
            {"account": code, "cached": int(bal), "postings": int(ps)} for code, bal, ps in rows if int(bal) != int(ps)
        ]
        negative = self.s.execute(
            select(Account.code, Account.balance * Account.normal_sign).where(
                Account.non_negative.is_(True), Account.balance * Account.normal_sign < 0
            )
        ).all()
        unbalanced = self.s.execute(
            select(PostingRow.entry_id).group_by(PostingRow.entry_id).having(func.sum(PostingRow.amount) != 0).limit(20)
        ).scalars().all()
        entries = self.s.scalar(select(func.count(JournalEntryRow.id)))
        return {
            "balanced": int(total_cached) == 0 and int(total_postings) == 0 and not mismatches and not negative and not unbalanced,
            "sum_of_balances": int(total_cached),
            "sum_of_postings": int(total_postings),
            "accounts": len(rows),
            "journal_entries": int(entries or 0),
            "cached_balance_mismatches": mismatches[:20],
            "negative_balances": [{"account": c, "balance": int(b)} for c, b in negative][:20],
            "unbalanced_entries": [int(e) for e in unbalanced],
        }

    def statement(self, code: str, limit: int = 50) -> list[dict]:
        return self.statement_page(code, limit)[0]

    def statement_page(self, code: str, limit: int = 50,
                       after: tuple[int, int] | None = None) -> tuple[list[dict], tuple[int, int] | None]:
        """The account's postings, newest first (entry id, then posting id, descending), at most ``limit`` of them,
        from just past ``after`` (the (entry, posting) key of the previous page's last row); and the key of this
        page's last row when more follow (else None). Keyset paging: a row posted meanwhile never shifts a page."""
        acc = self.s.execute(select(Account.id, Account.normal_sign).where(Account.code == code)).one_or_none()
        if acc is None:
            raise NotFound(f"account {code!r} does not exist")
        q = (select(JournalEntryRow.id, JournalEntryRow.kind, JournalEntryRow.created_at, PostingRow.amount,
                    PostingRow.memo, PostingRow.id.label("posting"))
             .join(PostingRow, PostingRow.entry_id == JournalEntryRow.id)
             .where(PostingRow.account_id == acc.id))
        if after is not None:
            entry, posting = after
            q = q.where(or_(JournalEntryRow.id < entry, and_(JournalEntryRow.id == entry, PostingRow.id < posting)))
        rows = self.s.execute(q.order_by(JournalEntryRow.id.desc(), PostingRow.id.desc()).limit(limit + 1)).all()
        more, rows = len(rows) > limit, rows[:limit]
        page = [
            {"entry": r.id, "kind": r.kind, "at": r.created_at.isoformat(), "amount": int(r.amount) * acc.normal_sign, "memo": r.memo}
            for r in rows
        ]
        return page, ((rows[-1].id, rows[-1].posting) if more and rows else None)
