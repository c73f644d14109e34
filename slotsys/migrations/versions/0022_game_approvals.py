"""game definitions uploaded and approved under dual control

Revision ID: 0022_game_approvals
Revises: 0021_table_rules
"""
from alembic import op  # noqa: F401

revision = "0022_game_approvals"
down_revision = "0021_table_rules"
branch_labels = None
depends_on = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
