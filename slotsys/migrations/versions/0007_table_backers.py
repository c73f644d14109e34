"""table games II: spectators' permissions to back a seated player's box

Revision ID: 0007_table_backers
Revises: 0006_tables
Hand-written: the table_backers table of table_games/adapters/tables.py.
"""
from alembic import op
import sqlalchemy as sa

import slotsys.kernel.adapters.db

revision = "0007_table_backers"
down_revision = "0006_tables"
branch_labels = None
depends_on = None

TZ = slotsys.kernel.adapters.db.TZDateTime(timezone=True)
BIGID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "table_backers",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("table_id", sa.Integer(), nullable=False),
        sa.Column("seat", sa.String(10), nullable=False),
        sa.Column("player_id", BIGID, nullable=False),
        sa.Column("granted_by_player", BIGID, nullable=False),
        sa.Column("granted_by", sa.String(80), nullable=False),
        sa.Column("granted_at", TZ, nullable=False),
        sa.ForeignKeyConstraint(["table_id"], ["game_tables.id"], name=op.f("fk_table_backers_table_id_game_tables")),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"], name=op.f("fk_table_backers_player_id_players")),
        sa.ForeignKeyConstraint(["granted_by_player"], ["players.id"],
                                name=op.f("fk_table_backers_granted_by_player_players")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_table_backers")),
        sa.UniqueConstraint("table_id", "seat", "player_id", name=op.f("uq_table_backers_backer")),
    )


def downgrade() -> None:
    op.drop_table("table_backers")
