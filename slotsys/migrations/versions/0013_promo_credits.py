"""promotional credits: restricted/non-restricted play, limits

Revision ID: 0013_promo_credits
Revises: 0012_staff_auth
"""
from alembic import op  # noqa: F401

revision = "0013_promo_credits"
down_revision = "0012_staff_auth"
branch_labels = None
depends_on = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
