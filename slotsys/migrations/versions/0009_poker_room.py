"""poker room: hold'em tables, seats, hands and hand histories

Revision ID: 0009_poker_room
Revises: 0008_table_poker
Hand-written: the tables of table_games/adapters/poker_room.py.
"""
from alembic import op
import sqlalchemy as sa

import slotsys.kernel.adapters.db

revision = "0009_poker_room"
down_revision = "0008_table_poker"
branch_labels = None
depends_on = None

TZ = slotsys.kernel.adapters.db.TZDateTime(timezone=True)
BIGID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "poker_tables",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("code", sa.String(20), nullable=False),
        sa.Column("name", sa.String(60), nullable=False),
        sa.Column("rules", sa.JSON(), nullable=False),
        sa.Column("status", sa.String(10), nullable=False),
        sa.Column("button_seat", sa.Integer(), nullable=True),
        sa.Column("hand_seq", sa.Integer(), nullable=False),
        sa.Column("created_at", TZ, nullable=False),
        sa.CheckConstraint("status IN ('open', 'closed')", name=op.f("ck_poker_tables_status")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_poker_tables")),
        sa.UniqueConstraint("code", name=op.f("uq_poker_tables_code")),
    )
    op.create_table(
        "poker_seats",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("table_id", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("player_id", BIGID, nullable=False),
        sa.Column("sat_at", TZ, nullable=False),
        sa.CheckConstraint("seat >= 1 AND seat <= 10", name=op.f("ck_poker_seats_seat")),
        sa.ForeignKeyConstraint(["table_id"], ["poker_tables.id"], name=op.f("fk_poker_seats_table_id_poker_tables")),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"], name=op.f("fk_poker_seats_player_id_players")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_poker_seats")),
        sa.UniqueConstraint("table_id", "seat", name=op.f("uq_poker_seats_seat")),
        sa.UniqueConstraint("table_id", "player_id", name=op.f("uq_poker_seats_player")),
    )
    op.create_table(
        "poker_hands",
        sa.Column("id", BIGID, nullable=False),
        sa.Column("table_id", sa.Integer(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(10), nullable=False),
        sa.Column("rules", sa.JSON(), nullable=False),
        sa.Column("button_seat", sa.Integer(), nullable=False),
        sa.Column("seats", sa.JSON(), nullable=False),
        sa.Column("starting_stacks", sa.JSON(), nullable=False),
        sa.Column("deck", sa.JSON(), nullable=False),
        sa.Column("actions", sa.JSON(), nullable=False),
        sa.Column("phh", sa.Text(), nullable=True),
        sa.Column("finishing_stacks", sa.JSON(), nullable=True),
        sa.Column("rake", sa.BigInteger(), nullable=False),
        sa.Column("results", sa.JSON(), nullable=True),
        sa.Column("entry_id", BIGID, nullable=True),
        sa.Column("started_at", TZ, nullable=False),
        sa.Column("ended_at", TZ, nullable=True),
        sa.CheckConstraint("status IN ('in_play', 'complete')", name=op.f("ck_poker_hands_status")),
        sa.CheckConstraint("rake >= 0", name=op.f("ck_poker_hands_rake")),
        sa.ForeignKeyConstraint(["table_id"], ["poker_tables.id"], name=op.f("fk_poker_hands_table_id_poker_tables")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_poker_hands")),
        sa.UniqueConstraint("table_id", "number", name=op.f("uq_poker_hands_number")),
    )


def downgrade() -> None:
    op.drop_table("poker_hands")
    op.drop_table("poker_seats")
    op.drop_table("poker_tables")
