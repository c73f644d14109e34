"""table games II: house-banked poker hands and the Caribbean progressive (issue 8)

Revision ID: 0008_table_poker
Revises: 0007_table_backers
Hand-written. Placeholder in the chain until its issue adds tables (a no-op keeps a single head).
"""
from alembic import op  # noqa: F401
import sqlalchemy as sa  # noqa: F401

revision = "0008_table_poker"
down_revision = "0007_table_backers"
branch_labels = None
depends_on = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
