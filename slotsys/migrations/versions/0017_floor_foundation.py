"""the floor's shared records: the append-only audit log and the machine event log

Revision ID: 0017_floor_foundation
Revises: 0016_retention
"""
from alembic import op  # noqa: F401

revision = "0017_floor_foundation"
down_revision = "0016_retention"
branch_labels = None
depends_on = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
