"""a jackpot award paid on the machine: the machine's legacy bonus meter before it

Revision ID: 0025_hit_bonus_meter
Revises: 0024_sas_meter_base
Hand-written: ``jackpot_hits.bonus_meter_before`` (BIGINT won, null). A mystery award on a SAS machine waits
``at_machine`` until the machine's legacy bonus meter confirms it; the meter read before the first long poll 8A is
kept here, so a restarted host never sends a bonus the meter already shows (``jackpot_controller.services.machine_bonus``).
"""
from alembic import op
import sqlalchemy as sa

revision = "0025_hit_bonus_meter"
down_revision = "0024_sas_meter_base"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("jackpot_hits") as batch:
        batch.add_column(sa.Column("bonus_meter_before", sa.BigInteger(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("jackpot_hits") as batch:
        batch.drop_column("bonus_meter_before")
