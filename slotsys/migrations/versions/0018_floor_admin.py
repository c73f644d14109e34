"""floor administration: zones and banks as data, machine enrolment fields, floor plan

Revision ID: 0018_floor_admin
Revises: 0017_floor_foundation
Hand-written: ``zones.retired_at``; ``machines`` serial, manufacturer, model, denominations offered, max bet,
floor-plan cell (unique) and ``retired_at``; ``banks`` (filled from the banks the machines already name, each in
the zone of its first machine) and ``machine_meter_snapshots`` (see ``slotsys.floor.adapters.admin``).
"""
from alembic import op
import sqlalchemy as sa

import slotsys.kernel.adapters.db

revision = "0018_floor_admin"
down_revision = "0017_floor_foundation"
branch_labels = None
depends_on = None

TZ = slotsys.kernel.adapters.db.TZDateTime(timezone=True)
ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
MACHINE_COLUMNS = ("serial", "manufacturer", "model", "denominations", "max_bet", "plan_x", "plan_y", "retired_at")


def upgrade() -> None:
    op.add_column("zones", sa.Column("retired_at", TZ, nullable=True))
    op.add_column("machines", sa.Column("serial", sa.String(40), nullable=False, server_default=""))
    op.add_column("machines", sa.Column("manufacturer", sa.String(60), nullable=False, server_default=""))
    op.add_column("machines", sa.Column("model", sa.String(60), nullable=False, server_default=""))
    op.add_column("machines", sa.Column("denominations", sa.JSON(), nullable=True))
    op.add_column("machines", sa.Column("max_bet", sa.BigInteger(), nullable=True))
    op.add_column("machines", sa.Column("plan_x", sa.Integer(), nullable=True))
    op.add_column("machines", sa.Column("plan_y", sa.Integer(), nullable=True))
    op.add_column("machines", sa.Column("retired_at", TZ, nullable=True))
    op.create_index("ix_machines_plan_cell", "machines", ["plan_x", "plan_y"], unique=True)
    op.create_table(
        "banks",
        sa.Column("code", sa.String(20), nullable=False),
        sa.Column("name", sa.String(80), nullable=False),
        sa.Column("zone", sa.String(20), nullable=False),
        sa.Column("orientation", sa.String(1), nullable=False, server_default="N"),
        sa.Column("created_at", TZ, nullable=False),
        sa.Column("retired_at", TZ, nullable=True),
        sa.ForeignKeyConstraint(["zone"], ["zones.code"], name="fk_banks_zone_zones"),
        sa.PrimaryKeyConstraint("code", name="pk_banks"),
    )
    op.execute("INSERT INTO banks (code, name, zone, orientation, created_at) "
               "SELECT bank, bank, MIN(zone), 'N', CURRENT_TIMESTAMP FROM machines WHERE bank <> '' GROUP BY bank")
    op.create_table(
        "machine_meter_snapshots",
        sa.Column("id", ID, nullable=False),
        sa.Column("machine_id", sa.Integer(), nullable=False),
        sa.Column("asset_number", sa.String(20), nullable=False),
        sa.Column("kind", sa.String(24), nullable=False),
        sa.Column("at", TZ, nullable=False),
        sa.Column("actor", sa.String(60), nullable=False),
        sa.Column("game_id", sa.String(60), nullable=False),
        sa.Column("variation", sa.String(20), nullable=False),
        sa.Column("denomination", sa.Integer(), nullable=False),
        sa.Column("meters", sa.JSON(), nullable=False),
        sa.Column("reason", sa.String(400), nullable=False),
        sa.ForeignKeyConstraint(["machine_id"], ["machines.id"], name="fk_machine_meter_snapshots_machine_id_machines"),
        sa.PrimaryKeyConstraint("id", name="pk_machine_meter_snapshots"),
    )
    op.create_index("ix_machine_meter_snapshots_machine_at", "machine_meter_snapshots", ["machine_id", "at"])


def downgrade() -> None:
    op.drop_index("ix_machine_meter_snapshots_machine_at", table_name="machine_meter_snapshots")
    op.drop_table("machine_meter_snapshots")
    op.drop_table("banks")
    op.drop_index("ix_machines_plan_cell", table_name="machines")
    # ALTER TABLE … DROP COLUMN (PostgreSQL; SQLite ≥ 3.35): no table copy, which SQLite's foreign keys to
    # zones and machines would refuse
    for name in MACHINE_COLUMNS:
        op.execute(f"ALTER TABLE machines DROP COLUMN {name}")
    op.execute("ALTER TABLE zones DROP COLUMN retired_at")
