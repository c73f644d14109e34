"""machine heartbeat, alerts and the handpay sign-off

Revision ID: 0019_machine_alerts
Revises: 0018_floor_admin
Hand-written: ``machine_links`` (per machine: last heard, online / offline since), ``alerts`` (attendant
alerts: open → acknowledged → dispatched → resolved, who and when) and ``handpays`` (the handpay queue with its
two signers), see ``slotsys.floor.adapters.events``.
"""
from alembic import op
import sqlalchemy as sa

import slotsys.kernel.adapters.db

revision = "0019_machine_alerts"
down_revision = "0018_floor_admin"
branch_labels = None
depends_on = None

TZ = slotsys.kernel.adapters.db.TZDateTime(timezone=True)
ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "machine_links",
        sa.Column("machine_id", sa.Integer(), nullable=False),
        sa.Column("last_heard_at", TZ, nullable=False),
        sa.Column("online", sa.Boolean(), nullable=False),
        sa.Column("offline_since", TZ, nullable=True),
        sa.ForeignKeyConstraint(["machine_id"], ["machines.id"], name="fk_machine_links_machine_id_machines"),
        sa.PrimaryKeyConstraint("machine_id", name="pk_machine_links"),
    )
    op.create_index("ix_machine_links_online_heard", "machine_links", ["online", "last_heard_at"])
    op.create_table(
        "alerts",
        sa.Column("id", ID, nullable=False),
        sa.Column("machine_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(40), nullable=False),
        sa.Column("severity", sa.String(8), nullable=False),
        sa.Column("security", sa.Boolean(), nullable=False),
        sa.Column("state", sa.String(12), nullable=False),
        sa.Column("event_id", ID, nullable=True),
        sa.Column("repeats", sa.Integer(), nullable=False),
        sa.Column("detail", sa.JSON(), nullable=False),
        sa.Column("opened_at", TZ, nullable=False),
        sa.Column("acknowledged_at", TZ, nullable=True),
        sa.Column("acknowledged_by", sa.String(60), nullable=True),
        sa.Column("dispatched_at", TZ, nullable=True),
        sa.Column("dispatched_by", sa.String(60), nullable=True),
        sa.Column("dispatched_to", sa.String(60), nullable=True),
        sa.Column("resolved_at", TZ, nullable=True),
        sa.Column("resolved_by", sa.String(60), nullable=True),
        sa.Column("resolution", sa.String(400), nullable=False),
        sa.ForeignKeyConstraint(["machine_id"], ["machines.id"], name="fk_alerts_machine_id_machines"),
        sa.ForeignKeyConstraint(["event_id"], ["machine_events.id"], name="fk_alerts_event_id_machine_events"),
        sa.PrimaryKeyConstraint("id", name="pk_alerts"),
    )
    op.create_index("ix_alerts_state_opened", "alerts", ["state", "opened_at"])
    op.create_index("ix_alerts_machine_kind_state", "alerts", ["machine_id", "kind", "state"])
    op.create_table(
        "handpays",
        sa.Column("id", ID, nullable=False),
        sa.Column("machine_id", sa.Integer(), nullable=False),
        sa.Column("source", sa.String(16), nullable=False),
        sa.Column("hit_id", ID, nullable=True),
        sa.Column("amount", sa.BigInteger(), nullable=False),
        sa.Column("state", sa.String(10), nullable=False),
        sa.Column("created_at", TZ, nullable=False),
        sa.Column("signer1", sa.String(60), nullable=True),
        sa.Column("signer1_role", sa.String(20), nullable=True),
        sa.Column("signed1_at", TZ, nullable=True),
        sa.Column("signer2", sa.String(60), nullable=True),
        sa.Column("signer2_role", sa.String(20), nullable=True),
        sa.Column("signed2_at", TZ, nullable=True),
        sa.Column("paid_at", TZ, nullable=True),
        sa.Column("payout", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(["machine_id"], ["machines.id"], name="fk_handpays_machine_id_machines"),
        sa.PrimaryKeyConstraint("id", name="pk_handpays"),
        sa.UniqueConstraint("hit_id", name="uq_handpays_hit_id"),
    )
    op.create_index("ix_handpays_state_created", "handpays", ["state", "created_at"])
    op.create_index("ix_handpays_machine_state", "handpays", ["machine_id", "state"])


def downgrade() -> None:
    op.drop_index("ix_handpays_machine_state", table_name="handpays")
    op.drop_index("ix_handpays_state_created", table_name="handpays")
    op.drop_table("handpays")
    op.drop_index("ix_alerts_machine_kind_state", table_name="alerts")
    op.drop_index("ix_alerts_state_opened", table_name="alerts")
    op.drop_table("alerts")
    op.drop_index("ix_machine_links_online_heard", table_name="machine_links")
    op.drop_table("machine_links")
