"""table games II: house-banked poker hands and the Caribbean progressive

Revision ID: 0008_table_poker
Revises: 0007_table_backers
Hand-written: ``game_tables.progressive_level``, the jackpot controller's ``table`` level that a table's
progressive side bet feeds (table_games/adapters/tables.py). Hands, decisions and banking live in the
existing ``table_rounds.state`` / ``outcome`` JSON.
"""
from alembic import op
import sqlalchemy as sa

revision = "0008_table_poker"
down_revision = "0007_table_backers"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("game_tables") as b:
        b.add_column(sa.Column("progressive_level", sa.String(40), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("game_tables") as b:
        b.drop_column("progressive_level")
