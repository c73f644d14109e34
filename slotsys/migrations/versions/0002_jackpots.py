"""jackpot controller: progressive parameters, pools, wagers queue, folds, hits lifecycle, events

Hand-written: only the jackpot controller's tables and columns.

Revision ID: 0002_jackpots
Revises: 0001
"""
from alembic import op
import sqlalchemy as sa

import slotsys.kernel.adapters.db

revision = "0002_jackpots"
down_revision = "0001"
branch_labels = None
depends_on = None

TZ = slotsys.kernel.adapters.db.TZDateTime(timezone=True)
BIGID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    with op.batch_alter_table("jackpot_levels", schema=None) as b:
        b.add_column(sa.Column("scope", sa.String(length=10), nullable=False, server_default="floor"))
        b.add_column(sa.Column("scope_machine", sa.String(length=20), nullable=True))
        b.add_column(sa.Column("scope_bank", sa.String(length=20), nullable=True))
        b.add_column(sa.Column("start_won", sa.BigInteger(), nullable=False, server_default="0"))
        b.add_column(sa.Column("reserve_rate_ppm", sa.Integer(), nullable=False, server_default="0"))
        b.add_column(sa.Column("overflow_rule", sa.String(length=10), nullable=False, server_default="carry"))
        b.add_column(sa.Column("overflow_to", sa.String(length=40), nullable=True))
        b.add_column(sa.Column("combination", sa.String(length=40), nullable=True))
        b.add_column(sa.Column("max_award_won", sa.BigInteger(), nullable=True))
        b.add_column(sa.Column("second_hit_rule", sa.String(length=16), nullable=False, server_default="next_value"))
        b.add_column(sa.Column("pending", sa.JSON(), nullable=True))
        b.add_column(sa.Column("pending_at", TZ, nullable=True))
        b.add_column(sa.Column("reserve_milli", sa.BigInteger(), nullable=False, server_default="0"))
        b.add_column(sa.Column("overflow_milli", sa.BigInteger(), nullable=False, server_default="0"))
        b.add_column(sa.Column("cycle_started_at", TZ, nullable=True))
        b.add_column(sa.Column("contributed_milli", sa.BigInteger(), nullable=False, server_default="0"))
        b.add_column(sa.Column("seeded_won", sa.BigInteger(), nullable=False, server_default="0"))
    # levels of 0001 were zone-wide (or floor-wide) mystery levels started at their reset
    op.execute("UPDATE jackpot_levels SET scope = 'zone' WHERE zone IS NOT NULL")
    op.execute("UPDATE jackpot_levels SET start_won = reset_won")

    op.create_table(
        "jackpot_folds",
        sa.Column("id", BIGID, nullable=False),
        sa.Column("wagers", sa.Integer(), nullable=False),
        sa.Column("first_wager", sa.BigInteger(), nullable=False),
        sa.Column("last_wager", sa.BigInteger(), nullable=False),
        sa.Column("hits", sa.Integer(), nullable=False),
        sa.Column("entry_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=True),
        sa.Column("created_at", TZ, nullable=False),
        sa.ForeignKeyConstraint(["entry_id"], ["journal_entries.id"], name=op.f("fk_jackpot_folds_entry_id_journal_entries")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_jackpot_folds")),
    )
    op.create_table(
        "jackpot_wagers",
        sa.Column("id", BIGID, nullable=False),
        sa.Column("machine_id", sa.Integer(), nullable=False),
        sa.Column("asset", sa.String(length=20), nullable=False),
        sa.Column("zone", sa.String(length=20), nullable=False),
        sa.Column("bank", sa.String(length=20), nullable=False),
        sa.Column("game_number", sa.BigInteger(), nullable=False),
        sa.Column("bet_won", sa.BigInteger(), nullable=False),
        sa.Column("progressive", sa.String(length=200), nullable=False),
        sa.Column("created_at", TZ, nullable=False),
        sa.Column("fold_id", BIGID, nullable=True),
        sa.ForeignKeyConstraint(["machine_id"], ["machines.id"], name=op.f("fk_jackpot_wagers_machine_id_machines")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_jackpot_wagers")),
        sa.UniqueConstraint("machine_id", "game_number", name="uq_jackpot_wagers_machine_game"),
    )
    op.create_index("ix_jackpot_wagers_pending", "jackpot_wagers", ["id"], unique=False,
                    postgresql_where=sa.text("fold_id IS NULL"), sqlite_where=sa.text("fold_id IS NULL"))
    op.create_table(
        "jackpot_events",
        sa.Column("id", BIGID, nullable=False),
        sa.Column("kind", sa.String(length=30), nullable=False),
        sa.Column("level_code", sa.String(length=40), nullable=True),
        sa.Column("hit_id", sa.BigInteger(), nullable=True),
        sa.Column("machine", sa.String(length=20), nullable=True),
        sa.Column("actor", sa.String(length=80), nullable=False),
        sa.Column("reason", sa.String(length=300), nullable=False),
        sa.Column("detail", sa.JSON(), nullable=False),
        sa.Column("created_at", TZ, nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_jackpot_events")),
    )
    op.create_index(op.f("ix_jackpot_events_level_code"), "jackpot_events", ["level_code"], unique=False)
    op.create_table(
        "jackpot_zone_moves",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("machine_id", sa.Integer(), nullable=False),
        sa.Column("zone", sa.String(length=20), nullable=False),
        sa.Column("since", TZ, nullable=False),
        sa.Column("by", sa.String(length=80), nullable=False),
        sa.ForeignKeyConstraint(["machine_id"], ["machines.id"], name=op.f("fk_jackpot_zone_moves_machine_id_machines")),
        sa.ForeignKeyConstraint(["zone"], ["zones.code"], name=op.f("fk_jackpot_zone_moves_zone_zones")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_jackpot_zone_moves")),
    )
    op.create_index(op.f("ix_jackpot_zone_moves_machine_id"), "jackpot_zone_moves", ["machine_id"], unique=False)

    with op.batch_alter_table("jackpot_hits", schema=None) as b:
        b.add_column(sa.Column("wager_id", sa.BigInteger(), nullable=True))
        b.add_column(sa.Column("player_id", sa.BigInteger(), nullable=True))
        b.add_column(sa.Column("value_milli", sa.BigInteger(), nullable=False, server_default="0"))
        b.add_column(sa.Column("topup_won", sa.BigInteger(), nullable=False, server_default="0"))
        b.add_column(sa.Column("pay_method", sa.String(length=12), nullable=True))
        b.add_column(sa.Column("claim_token", sa.String(length=32), nullable=True))
        b.add_column(sa.Column("claimed_at", TZ, nullable=True))
        b.add_column(sa.Column("awarded_at", TZ, nullable=True))
        b.add_column(sa.Column("paid_by", sa.String(length=80), nullable=True))
        b.add_column(sa.Column("award_entry_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=True))
        b.add_column(sa.Column("note", sa.String(length=300), nullable=False, server_default=""))
        b.create_foreign_key(op.f("fk_jackpot_hits_award_entry_id_journal_entries"), "journal_entries",
                             ["award_entry_id"], ["id"])
        b.create_unique_constraint("uq_jackpot_hits_level_cycle", ["level_id", "cycle"])
    # hits of 0001 were credited in the spin's own transaction
    op.execute("UPDATE jackpot_hits SET pay_method = 'credit', awarded_at = created_at, claimed_at = created_at "
               "WHERE status = 'credited'")


def downgrade() -> None:
    with op.batch_alter_table("jackpot_hits", schema=None) as b:
        b.drop_constraint("uq_jackpot_hits_level_cycle", type_="unique")
        b.drop_constraint(op.f("fk_jackpot_hits_award_entry_id_journal_entries"), type_="foreignkey")
        for col in ("note", "award_entry_id", "paid_by", "awarded_at", "claimed_at", "claim_token", "pay_method",
                    "topup_won", "value_milli", "player_id", "wager_id"):
            b.drop_column(col)
    op.drop_index(op.f("ix_jackpot_zone_moves_machine_id"), table_name="jackpot_zone_moves")
    op.drop_table("jackpot_zone_moves")
    op.drop_index(op.f("ix_jackpot_events_level_code"), table_name="jackpot_events")
    op.drop_table("jackpot_events")
    op.drop_index("ix_jackpot_wagers_pending", table_name="jackpot_wagers")
    op.drop_table("jackpot_wagers")
    op.drop_table("jackpot_folds")
    # plain ALTER TABLE … DROP COLUMN (SQLite ≥ 3.35 has it): a batch copy of jackpot_levels would have to
    # drop a table that jackpot_hits references
    for col in ("seeded_won", "contributed_milli", "cycle_started_at", "overflow_milli", "reserve_milli",
                "pending_at", "pending", "second_hit_rule", "max_award_won", "combination", "overflow_to",
                "overflow_rule", "reserve_rate_ppm", "start_won", "scope_bank", "scope_machine", "scope"):
        op.drop_column("jackpot_levels", col)
