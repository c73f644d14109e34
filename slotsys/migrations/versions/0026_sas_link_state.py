"""the SAS links' state as the host last published it

Revision ID: 0026_sas_link_state
Revises: 0025_hit_bonus_meter
Hand-written: ``sas_link_states``, one row per SAS machine, overwritten by the host every few seconds
(``slotsys.sas.adapters.link_state``): the console's view of each link (polls, retries, timeouts, CRC errors, the
last exception, the program signature's status).
"""
from alembic import op
import sqlalchemy as sa

import slotsys.kernel.adapters.db

TZ = slotsys.kernel.adapters.db.TZDateTime(timezone=True)

revision = "0026_sas_link_state"
down_revision = "0025_hit_bonus_meter"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "sas_link_states",
        sa.Column("asset", sa.String(20), nullable=False),
        sa.Column("channel", sa.String(120), nullable=False),
        sa.Column("address", sa.Integer(), nullable=False),
        sa.Column("state", sa.String(20), nullable=False),
        sa.Column("enrolled", sa.Boolean(), nullable=False),
        sa.Column("polls", sa.BigInteger(), nullable=False),
        sa.Column("retries", sa.BigInteger(), nullable=False),
        sa.Column("timeouts", sa.BigInteger(), nullable=False),
        sa.Column("crc_errors", sa.BigInteger(), nullable=False),
        sa.Column("last_exception", sa.String(8), nullable=True),
        sa.Column("signature", sa.String(10), nullable=False),
        sa.Column("queued_long_polls", sa.Integer(), nullable=False),
        sa.Column("cycle_p99_ms", sa.Float(), nullable=True),
        sa.Column("reported_at", TZ, nullable=False),
        sa.PrimaryKeyConstraint("asset", name=op.f("pk_sas_link_states")),
    )


def downgrade() -> None:
    op.drop_table("sas_link_states")
