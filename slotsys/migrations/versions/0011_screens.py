"""screens: an index for the floor's "today" figures

Revision ID: 0011_screens
Revises: 0010_mahjong
Hand-written: the operator console sums today's games by time (slotsys/floor/read_model.py).
"""
from alembic import op

revision = "0011_screens"
down_revision = "0010_mahjong"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_game_rounds_created_at", "game_rounds", ["created_at"])


def downgrade() -> None:
    op.drop_index("ix_game_rounds_created_at", table_name="game_rounds")
