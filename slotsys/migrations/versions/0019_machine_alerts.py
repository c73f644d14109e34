"""machine heartbeat, alerts and the handpay sign-off

Revision ID: 0019_machine_alerts
Revises: 0018_floor_admin
"""
from alembic import op  # noqa: F401

revision = "0019_machine_alerts"
down_revision = "0018_floor_admin"
branch_labels = None
depends_on = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
