"""screens and operations (issues 10, 11)

Revision ID: 0011_screens
Revises: 0010_mahjong
Hand-written. Placeholder in the chain until its issue adds tables (a no-op keeps a single head).
"""
from alembic import op  # noqa: F401
import sqlalchemy as sa  # noqa: F401

revision = "0011_screens"
down_revision = "0010_mahjong"
branch_labels = None
depends_on = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
