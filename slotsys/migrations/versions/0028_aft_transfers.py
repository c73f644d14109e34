"""cashless AFT transfers between a player's wallet and a SAS machine

Revision ID: 0028_aft_transfers
Revises: 0027_loyalty_gaming_day
Hand-written: ``aft_transfers`` (``slotsys.players.adapters.tables.AftTransferRow``): one row per AFT a carded
player asked for at a SAS machine (SAS 6.02 §8), its unique SAS transaction ID (≤ 20 ASCII), state pending → sent
→ completed / failed / expired, amounts in won, timestamps and the hold and settlement journal entries
(``slotsys.players.services.aft``).
"""
from alembic import op
import sqlalchemy as sa

import slotsys.kernel.adapters.db

revision = "0028_aft_transfers"
down_revision = "0027_loyalty_gaming_day"
branch_labels = None
depends_on = None

TZ = slotsys.kernel.adapters.db.TZDateTime(timezone=True)
BIGID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "aft_transfers",
        sa.Column("id", BIGID, nullable=False),
        sa.Column("transaction_id", sa.String(20), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("machine_id", sa.Integer(), nullable=False),
        sa.Column("session_id", BIGID, nullable=True),
        sa.Column("direction", sa.String(10), nullable=False),
        sa.Column("amount_won", sa.BigInteger(), nullable=False),
        sa.Column("moved_won", sa.BigInteger(), nullable=False),
        sa.Column("state", sa.String(10), nullable=False),
        sa.Column("status_code", sa.SmallInteger(), nullable=True),
        sa.Column("reason", sa.String(200), nullable=False),
        sa.Column("gaming_day", sa.Date(), nullable=False),
        sa.Column("requested_by", sa.String(80), nullable=False),
        sa.Column("created_at", TZ, nullable=False),
        sa.Column("expires_at", TZ, nullable=False),
        sa.Column("sent_at", TZ, nullable=True),
        sa.Column("settled_at", TZ, nullable=True),
        sa.Column("hold_entry_id", BIGID, nullable=True),
        sa.Column("settle_entry_id", BIGID, nullable=True),
        sa.CheckConstraint("amount_won > 0 AND moved_won >= 0", name=op.f("ck_aft_transfers_amounts")),
        sa.CheckConstraint("direction IN ('to_machine', 'to_wallet')", name=op.f("ck_aft_transfers_direction")),
        sa.CheckConstraint("state IN ('pending', 'sent', 'completed', 'failed', 'expired')",
                           name=op.f("ck_aft_transfers_state")),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"], name=op.f("fk_aft_transfers_player_id_players")),
        sa.ForeignKeyConstraint(["machine_id"], ["machines.id"], name=op.f("fk_aft_transfers_machine_id_machines")),
        sa.ForeignKeyConstraint(["session_id"], ["player_sessions.id"],
                                name=op.f("fk_aft_transfers_session_id_player_sessions")),
        sa.ForeignKeyConstraint(["hold_entry_id"], ["journal_entries.id"],
                                name=op.f("fk_aft_transfers_hold_entry_id_journal_entries")),
        sa.ForeignKeyConstraint(["settle_entry_id"], ["journal_entries.id"],
                                name=op.f("fk_aft_transfers_settle_entry_id_journal_entries")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_aft_transfers")),
        sa.UniqueConstraint("transaction_id", name=op.f("uq_aft_transfers_transaction_id")),
    )
    op.create_index(op.f("ix_aft_transfers_player_id"), "aft_transfers", ["player_id"])
    op.create_index("ix_aft_transfers_machine_state", "aft_transfers", ["machine_id", "state"])


def downgrade() -> None:
    op.drop_index("ix_aft_transfers_machine_state", table_name="aft_transfers")
    op.drop_index(op.f("ix_aft_transfers_player_id"), table_name="aft_transfers")
    op.drop_table("aft_transfers")
