"""table games I: tables, seats, rounds, bets, roulette colour stacks

Revision ID: 0006_tables
Revises: 0005_merge
Hand-written: only the tables of table_games/adapters/tables.py.
"""
from alembic import op
import sqlalchemy as sa

import slotsys.kernel.adapters.db

revision = "0006_tables"
down_revision = "0005_merge"
branch_labels = None
depends_on = None

TZ = slotsys.kernel.adapters.db.TZDateTime(timezone=True)
BIGID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "game_tables",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("code", sa.String(20), nullable=False),
        sa.Column("game", sa.String(30), nullable=False),
        sa.Column("name", sa.String(60), nullable=False),
        sa.Column("rules", sa.JSON(), nullable=False),
        sa.Column("limits", sa.JSON(), nullable=False),
        sa.Column("chip_unit", sa.BigInteger(), nullable=False),
        sa.Column("commission_unit", sa.BigInteger(), nullable=False),
        sa.Column("status", sa.String(10), nullable=False),
        sa.Column("round_seq", sa.Integer(), nullable=False),
        sa.Column("shoe_no", sa.Integer(), nullable=False),
        sa.Column("shoe", sa.JSON(), nullable=True),
        sa.Column("created_at", TZ, nullable=False),
        sa.CheckConstraint("status IN ('open', 'closed', 'private')", name=op.f("ck_game_tables_status")),
        sa.CheckConstraint("chip_unit > 0 AND commission_unit > 0", name=op.f("ck_game_tables_units")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_game_tables")),
        sa.UniqueConstraint("code", name=op.f("uq_game_tables_code")),
    )
    op.create_table(
        "table_seats",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("table_id", sa.Integer(), nullable=False),
        sa.Column("seat", sa.String(10), nullable=False),
        sa.Column("player_id", BIGID, nullable=False),
        sa.Column("sat_at", TZ, nullable=False),
        sa.ForeignKeyConstraint(["table_id"], ["game_tables.id"], name=op.f("fk_table_seats_table_id_game_tables")),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"], name=op.f("fk_table_seats_player_id_players")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_table_seats")),
        sa.UniqueConstraint("table_id", "seat", name=op.f("uq_table_seats_seat")),
    )
    op.create_table(
        "table_rounds",
        sa.Column("id", BIGID, nullable=False),
        sa.Column("table_id", sa.Integer(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(15), nullable=False),
        sa.Column("mode", sa.String(10), nullable=True),
        sa.Column("shoe_no", sa.Integer(), nullable=False),
        sa.Column("state", sa.JSON(), nullable=True),
        sa.Column("outcome", sa.JSON(), nullable=True),
        sa.Column("settlements", sa.JSON(), nullable=True),
        sa.Column("house_net", sa.BigInteger(), nullable=True),
        sa.Column("opened_at", TZ, nullable=False),
        sa.Column("settled_at", TZ, nullable=True),
        sa.CheckConstraint("status IN ('betting', 'no_more_bets', 'settled', 'void')", name=op.f("ck_table_rounds_status")),
        sa.ForeignKeyConstraint(["table_id"], ["game_tables.id"], name=op.f("fk_table_rounds_table_id_game_tables")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_table_rounds")),
        sa.UniqueConstraint("table_id", "number", name=op.f("uq_table_rounds_number")),
    )
    op.create_table(
        "table_bets",
        sa.Column("id", BIGID, nullable=False),
        sa.Column("round_id", BIGID, nullable=False),
        sa.Column("player_id", BIGID, nullable=False),
        sa.Column("spot", sa.String(40), nullable=False),
        sa.Column("box", sa.String(10), nullable=True),
        sa.Column("amount", sa.BigInteger(), nullable=False),
        sa.Column("cap", sa.BigInteger(), nullable=True),
        sa.Column("entry_id", BIGID, nullable=True),
        sa.Column("colour", sa.String(20), nullable=True),
        sa.Column("placed_by", sa.String(80), nullable=False),
        sa.Column("created_at", TZ, nullable=False),
        sa.CheckConstraint("amount > 0", name=op.f("ck_table_bets_amount")),
        sa.ForeignKeyConstraint(["round_id"], ["table_rounds.id"], name=op.f("fk_table_bets_round_id_table_rounds")),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"], name=op.f("fk_table_bets_player_id_players")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_table_bets")),
    )
    op.create_index(op.f("ix_table_bets_round_id"), "table_bets", ["round_id"])
    op.create_table(
        "table_colour_stacks",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("table_id", sa.Integer(), nullable=False),
        sa.Column("player_id", BIGID, nullable=False),
        sa.Column("colour", sa.String(20), nullable=False),
        sa.Column("chip_value", sa.BigInteger(), nullable=False),
        sa.Column("chips", sa.BigInteger(), nullable=False),
        sa.CheckConstraint("chip_value > 0 AND chips >= 0", name=op.f("ck_table_colour_stacks_chips")),
        sa.ForeignKeyConstraint(["table_id"], ["game_tables.id"], name=op.f("fk_table_colour_stacks_table_id_game_tables")),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"], name=op.f("fk_table_colour_stacks_player_id_players")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_table_colour_stacks")),
        sa.UniqueConstraint("table_id", "colour", name=op.f("uq_table_colour_stacks_colour")),
        sa.UniqueConstraint("table_id", "player_id", name=op.f("uq_table_colour_stacks_player")),
    )


def downgrade() -> None:
    op.drop_table("table_colour_stacks")
    op.drop_index(op.f("ix_table_bets_round_id"), table_name="table_bets")
    op.drop_table("table_bets")
    op.drop_table("table_rounds")
    op.drop_table("table_seats")
    op.drop_table("game_tables")
