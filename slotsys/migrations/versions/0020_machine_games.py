"""machine-reported games and meter reconciliation

Revision ID: 0020_machine_games
Revises: 0019_machine_alerts
Hand-written: ``machines.outcome_source`` (``server``: the service decides each game; ``machine``: the machine
decides and reports it) and ``machine_meter_reports`` (every meter set a machine reported, append-only: the
baseline of the next meters-at-game-end report and the machine's side of the reconciliation), see
``slotsys.floor.adapters.meter_reports``.
"""
from alembic import op
import sqlalchemy as sa

import slotsys.kernel.adapters.db

revision = "0020_machine_games"
down_revision = "0019_machine_alerts"
branch_labels = None
depends_on = None

TZ = slotsys.kernel.adapters.db.TZDateTime(timezone=True)
ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    with op.batch_alter_table("machines") as batch:
        batch.add_column(sa.Column("outcome_source", sa.String(8), nullable=False, server_default="server"))
    op.create_table(
        "machine_meter_reports",
        sa.Column("id", ID, nullable=False),
        sa.Column("machine_id", sa.Integer(), nullable=False),
        sa.Column("at", TZ, nullable=False),
        sa.Column("source", sa.String(8), nullable=False),
        sa.Column("game_number", sa.BigInteger(), nullable=False),
        sa.Column("coin_in", sa.BigInteger(), nullable=False),
        sa.Column("coin_out", sa.BigInteger(), nullable=False),
        sa.Column("games_played", sa.BigInteger(), nullable=False),
        sa.Column("jackpot", sa.BigInteger(), nullable=True),
        sa.Column("games_won", sa.BigInteger(), nullable=True),
        sa.ForeignKeyConstraint(["machine_id"], ["machines.id"], name="fk_machine_meter_reports_machine_id_machines"),
        sa.PrimaryKeyConstraint("id", name="pk_machine_meter_reports"),
    )
    op.create_index("ix_machine_meter_reports_machine_id", "machine_meter_reports", ["machine_id", "id"])


def downgrade() -> None:
    op.drop_index("ix_machine_meter_reports_machine_id", table_name="machine_meter_reports")
    op.drop_table("machine_meter_reports")
    with op.batch_alter_table("machines") as batch:
        batch.drop_column("outcome_source")
