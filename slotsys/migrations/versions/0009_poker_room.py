"""poker room: hold'em tables, seats, hands and hand histories (issue 9)

Revision ID: 0009_poker_room
Revises: 0008_table_poker
Hand-written. Placeholder in the chain until its issue adds tables (a no-op keeps a single head).
"""
from alembic import op  # noqa: F401
import sqlalchemy as sa  # noqa: F401

revision = "0009_poker_room"
down_revision = "0008_table_poker"
branch_labels = None
depends_on = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
