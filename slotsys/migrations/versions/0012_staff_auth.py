"""staff authentication: throttling, lock-out, token revocation

Revision ID: 0012_staff_auth
Revises: 0011_screens
Hand-written: the per-username sign-in lock-out (survives a restart) and the staff sign-in audit trail
(slotsys/staff/services/auth.py, docs/staff-auth.md). Tokens are revoked by deleting their rows: no column changes.
"""
from alembic import op
import sqlalchemy as sa

import slotsys.kernel.adapters.db

revision = "0012_staff_auth"
down_revision = "0011_screens"
branch_labels = None
depends_on = None

TZ = slotsys.kernel.adapters.db.TZDateTime(timezone=True)
ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "staff_login_throttle",
        sa.Column("username", sa.String(200), nullable=False),
        sa.Column("failures", sa.Integer(), nullable=False),
        sa.Column("window_start", TZ, nullable=True),
        sa.Column("locked_until", TZ, nullable=True),
        sa.PrimaryKeyConstraint("username", name="pk_staff_login_throttle"),
    )
    op.create_table(
        "staff_auth_events",
        sa.Column("id", ID, nullable=False),
        sa.Column("at", TZ, nullable=False),
        sa.Column("kind", sa.String(24), nullable=False),
        sa.Column("username", sa.String(200), nullable=False),
        sa.Column("address", sa.String(64), nullable=True),
        sa.Column("actor", sa.String(60), nullable=True),
        sa.Column("detail", sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_staff_auth_events"),
    )
    op.create_index("ix_staff_auth_events_username_at", "staff_auth_events", ["username", "at"], unique=False)
    op.create_index("ix_staff_auth_events_kind_at", "staff_auth_events", ["kind", "at"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_staff_auth_events_kind_at", table_name="staff_auth_events")
    op.drop_index("ix_staff_auth_events_username_at", table_name="staff_auth_events")
    op.drop_table("staff_auth_events")
    op.drop_table("staff_login_throttle")
