"""machine-reported games and meter reconciliation

Revision ID: 0020_machine_games
Revises: 0019_machine_alerts
"""
from alembic import op  # noqa: F401

revision = "0020_machine_games"
down_revision = "0019_machine_alerts"
branch_labels = None
depends_on = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
