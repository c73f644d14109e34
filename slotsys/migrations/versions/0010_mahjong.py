"""mahjong: tables, seats and recorded hands

Revision ID: 0010_mahjong
Revises: 0009_poker_room
Hand-written: only the tables of table_games/adapters/mahjong.py (stacks and fees are ledger accounts).
"""
from alembic import op
import sqlalchemy as sa

import slotsys.kernel.adapters.db

revision = "0010_mahjong"
down_revision = "0009_poker_room"
branch_labels = None
depends_on = None

TZ = slotsys.kernel.adapters.db.TZDateTime(timezone=True)
BIGID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "mahjong_tables",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("code", sa.String(20), nullable=False),
        sa.Column("name", sa.String(60), nullable=False),
        sa.Column("rules", sa.JSON(), nullable=False),
        sa.Column("point_value", sa.BigInteger(), nullable=False),
        sa.Column("fee_ppm", sa.Integer(), nullable=False),
        sa.Column("fee_unit", sa.BigInteger(), nullable=False),
        sa.Column("min_buy_in", sa.BigInteger(), nullable=False),
        sa.Column("max_buy_in", sa.BigInteger(), nullable=False),
        sa.Column("status", sa.String(10), nullable=False),
        sa.Column("hand_seq", sa.Integer(), nullable=False),
        sa.Column("riichi_pot", sa.Integer(), nullable=False),
        sa.Column("created_at", TZ, nullable=False),
        sa.CheckConstraint("status IN ('open', 'closed')", name=op.f("ck_mahjong_tables_status")),
        sa.CheckConstraint("point_value > 0 AND fee_unit > 0 AND fee_ppm >= 0 AND fee_ppm <= 1000000",
                           name=op.f("ck_mahjong_tables_money")),
        sa.CheckConstraint("min_buy_in > 0 AND max_buy_in >= min_buy_in", name=op.f("ck_mahjong_tables_buy_in")),
        sa.CheckConstraint("hand_seq >= 0 AND riichi_pot >= 0", name=op.f("ck_mahjong_tables_counters")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_mahjong_tables")),
        sa.UniqueConstraint("code", name=op.f("uq_mahjong_tables_code")),
    )
    op.create_table(
        "mahjong_seats",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("table_id", sa.Integer(), nullable=False),
        sa.Column("seat", sa.String(1), nullable=False),
        sa.Column("player_id", BIGID, nullable=False),
        sa.Column("sat_at", TZ, nullable=False),
        sa.CheckConstraint("seat IN ('E', 'S', 'W', 'N')", name=op.f("ck_mahjong_seats_seat")),
        sa.ForeignKeyConstraint(["table_id"], ["mahjong_tables.id"], name=op.f("fk_mahjong_seats_table_id_mahjong_tables")),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"], name=op.f("fk_mahjong_seats_player_id_players")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_mahjong_seats")),
        sa.UniqueConstraint("table_id", "seat", name=op.f("uq_mahjong_seats_seat")),
        sa.UniqueConstraint("table_id", "player_id", name=op.f("uq_mahjong_seats_player")),
    )
    op.create_table(
        "mahjong_hands",
        sa.Column("id", BIGID, nullable=False),
        sa.Column("table_id", sa.Integer(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(5), nullable=False),
        sa.Column("rule_set", sa.String(10), nullable=False),
        sa.Column("dealer", sa.String(1), nullable=False),
        sa.Column("winner", sa.String(1), nullable=True),
        sa.Column("discarder", sa.String(1), nullable=True),
        sa.Column("declaration", sa.JSON(), nullable=False),
        sa.Column("result", sa.JSON(), nullable=False),
        sa.Column("settlement", sa.JSON(), nullable=False),
        sa.Column("fee", sa.BigInteger(), nullable=False),
        sa.Column("entry_id", BIGID, nullable=True),
        sa.Column("recorded_by", sa.String(80), nullable=False),
        sa.Column("created_at", TZ, nullable=False),
        sa.CheckConstraint("kind IN ('win', 'draw')", name=op.f("ck_mahjong_hands_kind")),
        sa.CheckConstraint("fee >= 0", name=op.f("ck_mahjong_hands_fee")),
        sa.ForeignKeyConstraint(["table_id"], ["mahjong_tables.id"], name=op.f("fk_mahjong_hands_table_id_mahjong_tables")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_mahjong_hands")),
        sa.UniqueConstraint("table_id", "number", name=op.f("uq_mahjong_hands_number")),
    )


def downgrade() -> None:
    op.drop_table("mahjong_hands")
    op.drop_table("mahjong_seats")
    op.drop_table("mahjong_tables")
