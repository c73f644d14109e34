"""game definitions uploaded and approved under dual control; staff sessions named, with issue time and address

Revision ID: 0022_game_approvals
Revises: 0020_machine_games
Hand-written: ``game_definitions`` (``slotsys.floor.adapters.game_definitions.GameDefinitionRow``: the uploaded YAML, its
SHA-256, the par sheet computed at upload, uploader, and the second person's decision) and three nullable columns
of ``staff_tokens`` (``session_id``, ``issued_at``, ``address``: the sessions list). Tokens issued before this
migration get a session id from their digest's first 16 hex digits (the digest of a random token: it reveals
nothing of the token).
"""
from alembic import op
import sqlalchemy as sa

import slotsys.kernel.adapters.db

revision = "0022_game_approvals"
down_revision = "0020_machine_games"
branch_labels = None
depends_on = None

TZ = slotsys.kernel.adapters.db.TZDateTime(timezone=True)
ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "game_definitions",
        sa.Column("id", ID, nullable=False),
        sa.Column("game_id", sa.String(64), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("source", sa.Text(), nullable=False),
        sa.Column("sha256", sa.String(64), nullable=False),
        sa.Column("variations", sa.JSON(), nullable=False),
        sa.Column("default_variation", sa.String(32), nullable=False),
        sa.Column("par_sheet", sa.JSON(), nullable=False),
        sa.Column("status", sa.String(10), nullable=False),
        sa.Column("uploaded_by", sa.String(60), nullable=False),
        sa.Column("uploaded_at", TZ, nullable=False),
        sa.Column("approved_variations", sa.JSON(), nullable=False),
        sa.Column("decided_by", sa.String(60), nullable=True),
        sa.Column("decided_at", TZ, nullable=True),
        sa.Column("reason", sa.String(400), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_game_definitions"),
    )
    op.create_index("ix_game_definitions_game_id_status", "game_definitions", ["game_id", "status"])
    live = sa.text("status IN ('pending', 'approved')")
    op.create_index("ix_game_definitions_live_game_id", "game_definitions", ["game_id"], unique=True,
                    postgresql_where=live, sqlite_where=live)
    op.add_column("staff_tokens", sa.Column("session_id", sa.String(16), nullable=True))
    op.add_column("staff_tokens", sa.Column("issued_at", TZ, nullable=True))
    op.add_column("staff_tokens", sa.Column("address", sa.String(64), nullable=True))
    op.execute("UPDATE staff_tokens SET session_id = substr(token_hash, 1, 16) WHERE session_id IS NULL")
    op.create_index("ix_staff_tokens_session_id", "staff_tokens", ["session_id"], unique=True)


def downgrade() -> None:
    op.drop_index("ix_staff_tokens_session_id", table_name="staff_tokens")
    with op.batch_alter_table("staff_tokens") as batch:
        batch.drop_column("address")
        batch.drop_column("issued_at")
        batch.drop_column("session_id")
    op.drop_index("ix_game_definitions_live_game_id", table_name="game_definitions")
    op.drop_index("ix_game_definitions_game_id_status", table_name="game_definitions")
    op.drop_table("game_definitions")
