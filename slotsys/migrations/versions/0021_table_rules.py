"""table rule options

Revision ID: 0021_table_rules
Revises: 0020_machine_games
"""
from alembic import op  # noqa: F401

revision = "0021_table_rules"
down_revision = "0020_machine_games"
branch_labels = None
depends_on = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
