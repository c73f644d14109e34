"""mahjong: tables, hands and settlements (issue 9)

Revision ID: 0010_mahjong
Revises: 0009_poker_room
Hand-written. Placeholder in the chain until its issue adds tables (a no-op keeps a single head).
"""
from alembic import op  # noqa: F401
import sqlalchemy as sa  # noqa: F401

revision = "0010_mahjong"
down_revision = "0009_poker_room"
branch_labels = None
depends_on = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
