"""the floor's shared records: the append-only audit log and the machine event log

Revision ID: 0017_floor_foundation
Revises: 0016_retention
Hand-written: ``audit_log`` (privileged changes: who, when, what, before → after, reason, done or refused) and
``machine_events`` (what machines reported and what the system noticed about them), see
``slotsys.kernel.adapters.db.AuditLogRow`` and ``MachineEventRow``.
"""
from alembic import op
import sqlalchemy as sa

import slotsys.kernel.adapters.db

revision = "0017_floor_foundation"
down_revision = "0016_retention"
branch_labels = None
depends_on = None

TZ = slotsys.kernel.adapters.db.TZDateTime(timezone=True)
ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "audit_log",
        sa.Column("id", ID, nullable=False),
        sa.Column("at", TZ, nullable=False),
        sa.Column("actor", sa.String(60), nullable=False),
        sa.Column("role", sa.String(20), nullable=False),
        sa.Column("action", sa.String(40), nullable=False),
        sa.Column("subject", sa.String(80), nullable=False),
        sa.Column("outcome", sa.String(8), nullable=False),
        sa.Column("before", sa.JSON(), nullable=True),
        sa.Column("after", sa.JSON(), nullable=True),
        sa.Column("reason", sa.String(400), nullable=False),
        sa.Column("detail", sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_audit_log"),
    )
    op.create_index("ix_audit_log_at", "audit_log", ["at"])
    op.create_index("ix_audit_log_subject_at", "audit_log", ["subject", "at"])
    op.create_index("ix_audit_log_action_at", "audit_log", ["action", "at"])
    op.create_table(
        "machine_events",
        sa.Column("id", ID, nullable=False),
        sa.Column("machine_id", sa.Integer(), nullable=False),
        sa.Column("at", TZ, nullable=False),
        sa.Column("reported_at", TZ, nullable=True),
        sa.Column("kind", sa.String(40), nullable=False),
        sa.Column("sas_code", sa.SmallInteger(), nullable=True),
        sa.Column("source", sa.String(8), nullable=False),
        sa.Column("game_number", sa.BigInteger(), nullable=True),
        sa.Column("detail", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(["machine_id"], ["machines.id"], name="fk_machine_events_machine_id_machines"),
        sa.PrimaryKeyConstraint("id", name="pk_machine_events"),
    )
    op.create_index("ix_machine_events_machine_at", "machine_events", ["machine_id", "at"])
    op.create_index("ix_machine_events_kind_at", "machine_events", ["kind", "at"])


def downgrade() -> None:
    op.drop_index("ix_machine_events_kind_at", table_name="machine_events")
    op.drop_index("ix_machine_events_machine_at", table_name="machine_events")
    op.drop_table("machine_events")
    op.drop_index("ix_audit_log_action_at", table_name="audit_log")
    op.drop_index("ix_audit_log_subject_at", table_name="audit_log")
    op.drop_index("ix_audit_log_at", table_name="audit_log")
    op.drop_table("audit_log")
