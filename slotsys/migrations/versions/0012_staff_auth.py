"""staff authentication: throttling, lock-out, token revocation

Revision ID: 0012_staff_auth
Revises: 0011_screens
"""
from alembic import op  # noqa: F401

revision = "0012_staff_auth"
down_revision = "0011_screens"
branch_labels = None
depends_on = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
