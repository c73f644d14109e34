"""floor administration: zones and banks as data, machine enrolment fields, floor plan

Revision ID: 0018_floor_admin
Revises: 0017_floor_foundation
"""
from alembic import op  # noqa: F401

revision = "0018_floor_admin"
down_revision = "0017_floor_foundation"
branch_labels = None
depends_on = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
