"""unpredictable ticket validation IDs per machine

Revision ID: 0014_ticket_ids
Revises: 0013_promo_credits
"""
from alembic import op  # noqa: F401

revision = "0014_ticket_ids"
down_revision = "0013_promo_credits"
branch_labels = None
depends_on = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
