"""Merge the jackpot, TITO and players branches into one head.

Revision ID: 0005_merge
Revises: 0002_jackpots, 0003_tito, 0004_players
"""

revision = "0005_merge"
down_revision = ("0002_jackpots", "0003_tito", "0004_players")
branch_labels = None
depends_on = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
