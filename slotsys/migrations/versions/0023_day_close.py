"""the gaming-day close: meter reads and snapshots, closed days and their machine rows, drop schedule, drop counts,
count variances and their acceptances

Revision ID: 0023_day_close
Revises: 0022_game_approvals
Hand-written: the tables of ``slotsys.accounting.adapters.tables`` (append-only; see that module). The day's meter
read is accounting's own table, keyed by gaming day, beside the floor's ``machine_meter_snapshots`` (game changes,
retirements), which the close reads.
"""
from alembic import op
import sqlalchemy as sa

import slotsys.kernel.adapters.db

revision = "0023_day_close"
down_revision = "0022_game_approvals"
branch_labels = None
depends_on = None

TZ = slotsys.kernel.adapters.db.TZDateTime(timezone=True)
ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "day_meter_reads",
        sa.Column("gaming_day", sa.Date(), nullable=False),
        sa.Column("at", TZ, nullable=False),
        sa.Column("actor", sa.String(60), nullable=False),
        sa.Column("machines", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("gaming_day", name="pk_day_meter_reads"),
    )
    op.create_table(
        "day_meter_snapshots",
        sa.Column("id", ID, nullable=False),
        sa.Column("gaming_day", sa.Date(), nullable=False),
        sa.Column("machine_id", sa.Integer(), nullable=False),
        sa.Column("asset_number", sa.String(20), nullable=False),
        sa.Column("zone", sa.String(20), nullable=False),
        sa.Column("bank", sa.String(20), nullable=False),
        sa.Column("kind", sa.String(24), nullable=False),
        sa.Column("at", TZ, nullable=False),
        sa.Column("game_id", sa.String(60), nullable=False),
        sa.Column("variation", sa.String(20), nullable=False),
        sa.Column("denomination", sa.Integer(), nullable=False),
        sa.Column("meters", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(["gaming_day"], ["day_meter_reads.gaming_day"],
                                name="fk_day_meter_snapshots_gaming_day_day_meter_reads"),
        sa.ForeignKeyConstraint(["machine_id"], ["machines.id"], name="fk_day_meter_snapshots_machine_id_machines"),
        sa.PrimaryKeyConstraint("id", name="pk_day_meter_snapshots"),
        sa.UniqueConstraint("gaming_day", "machine_id", name="uq_day_meter_snapshots_day_machine"),
    )
    op.create_index("ix_day_meter_snapshots_machine_day", "day_meter_snapshots", ["machine_id", "gaming_day"])
    op.create_table(
        "closed_gaming_days",
        sa.Column("gaming_day", sa.Date(), nullable=False),
        sa.Column("closed_at", TZ, nullable=False),
        sa.Column("closed_by", sa.String(60), nullable=False),
        sa.Column("closed_role", sa.String(20), nullable=False),
        sa.Column("read_at", TZ, nullable=False),
        sa.Column("opened_at", TZ, nullable=True),
        sa.Column("figures", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(["gaming_day"], ["day_meter_reads.gaming_day"],
                                name="fk_closed_gaming_days_gaming_day_day_meter_reads"),
        sa.PrimaryKeyConstraint("gaming_day", name="pk_closed_gaming_days"),
    )
    op.create_table(
        "closed_day_machines",
        sa.Column("gaming_day", sa.Date(), nullable=False),
        sa.Column("asset_number", sa.String(20), nullable=False),
        sa.Column("zone", sa.String(20), nullable=False),
        sa.Column("bank", sa.String(20), nullable=False),
        sa.Column("figures", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(["gaming_day"], ["closed_gaming_days.gaming_day"],
                                name="fk_closed_day_machines_gaming_day_closed_gaming_days"),
        sa.PrimaryKeyConstraint("gaming_day", "asset_number", name="pk_closed_day_machines"),
    )
    op.create_index("ix_closed_day_machines_day_zone_bank", "closed_day_machines",
                    ["gaming_day", "zone", "bank", "asset_number"])
    op.create_table(
        "drop_schedule_rules",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("asset_number", sa.String(20), nullable=False),
        sa.Column("weekdays", sa.JSON(), nullable=True),
        sa.Column("every_days", sa.Integer(), nullable=True),
        sa.Column("anchor", sa.Date(), nullable=True),
        sa.Column("set_by", sa.String(60), nullable=False),
        sa.Column("set_at", TZ, nullable=False),
        sa.Column("reason", sa.String(400), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_drop_schedule_rules"),
    )
    op.create_index("ix_drop_schedule_rules_asset_id", "drop_schedule_rules", ["asset_number", "id"])
    op.create_table(
        "drop_counts",
        sa.Column("id", ID, nullable=False),
        sa.Column("asset_number", sa.String(20), nullable=False),
        sa.Column("stacker", sa.String(20), nullable=False),
        sa.Column("gaming_day", sa.Date(), nullable=False),
        sa.Column("counter", sa.String(60), nullable=False),
        sa.Column("counted_at", TZ, nullable=False),
        sa.Column("bills", sa.JSON(), nullable=False),
        sa.Column("tickets", sa.JSON(), nullable=False),
        sa.Column("bills_won", sa.BigInteger(), nullable=False),
        sa.Column("tickets_won", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_drop_counts"),
        sa.UniqueConstraint("asset_number", "stacker", "gaming_day", name="uq_drop_counts_stacker_day"),
    )
    op.create_table(
        "count_variances",
        sa.Column("id", ID, nullable=False),
        sa.Column("kind", sa.String(24), nullable=False),
        sa.Column("subject", sa.String(80), nullable=False),
        sa.Column("gaming_day", sa.Date(), nullable=False),
        sa.Column("counted", sa.BigInteger(), nullable=False),
        sa.Column("expected", sa.BigInteger(), nullable=False),
        sa.Column("count_difference", sa.Integer(), nullable=False),
        sa.Column("missing", sa.JSON(), nullable=False),
        sa.Column("extra", sa.JSON(), nullable=False),
        sa.Column("counter", sa.String(60), nullable=False),
        sa.Column("balanced", sa.Boolean(), nullable=False),
        sa.Column("count_id", ID, nullable=True),
        sa.Column("created_at", TZ, nullable=False),
        sa.ForeignKeyConstraint(["count_id"], ["drop_counts.id"], name="fk_count_variances_count_id_drop_counts"),
        sa.PrimaryKeyConstraint("id", name="pk_count_variances"),
        sa.UniqueConstraint("kind", "subject", "gaming_day", name="uq_count_variances_kind_subject_day"),
    )
    op.create_index("ix_count_variances_day", "count_variances", ["gaming_day"])
    op.create_table(
        "variance_acceptances",
        sa.Column("id", ID, nullable=False),
        sa.Column("variance_id", ID, nullable=False),
        sa.Column("accepted_by", sa.String(60), nullable=False),
        sa.Column("role", sa.String(20), nullable=False),
        sa.Column("reason", sa.String(400), nullable=False),
        sa.Column("at", TZ, nullable=False),
        sa.ForeignKeyConstraint(["variance_id"], ["count_variances.id"],
                                name="fk_variance_acceptances_variance_id_count_variances"),
        sa.PrimaryKeyConstraint("id", name="pk_variance_acceptances"),
        sa.UniqueConstraint("variance_id", name="uq_variance_acceptances_variance_id"),
    )


def downgrade() -> None:
    op.drop_table("variance_acceptances")
    op.drop_index("ix_count_variances_day", table_name="count_variances")
    op.drop_table("count_variances")
    op.drop_table("drop_counts")
    op.drop_index("ix_drop_schedule_rules_asset_id", table_name="drop_schedule_rules")
    op.drop_table("drop_schedule_rules")
    op.drop_index("ix_closed_day_machines_day_zone_bank", table_name="closed_day_machines")
    op.drop_table("closed_day_machines")
    op.drop_table("closed_gaming_days")
    op.drop_index("ix_day_meter_snapshots_machine_day", table_name="day_meter_snapshots")
    op.drop_table("day_meter_snapshots")
    op.drop_table("day_meter_reads")
