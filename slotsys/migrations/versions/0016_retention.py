"""data retention: idempotency purge

Revision ID: 0016_retention
Revises: 0015_id_ranges
"""
from alembic import op  # noqa: F401

revision = "0016_retention"
down_revision = "0015_id_ranges"
branch_labels = None
depends_on = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
