"""a SAS machine's meter baseline: its own meters and the floor's at its first SAS enrolment

Revision ID: 0024_sas_meter_base
Revises: 0023_day_close
Hand-written: ``machines.sas_meter_base`` (JSON, null until a SAS host first enrols the machine). A machine joining
the floor with lifetime meters (or a floor machine that played before it was SAS) is reconciled and numbered from
the difference since then (``slotsys.sas.adapters.floor_services``).
"""
from alembic import op
import sqlalchemy as sa

revision = "0024_sas_meter_base"
down_revision = "0023_day_close"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("machines") as batch:
        batch.add_column(sa.Column("sas_meter_base", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("machines") as batch:
        batch.drop_column("sas_meter_base")
