"""promotional credits: restricted/non-restricted play, limits

Revision ID: 0013_promo_credits
Revises: 0012_staff_auth
Hand-written (docs/promotional-credits.md): the machine meters of restricted and non-restricted
promotional credits played, the machine's credit limit (NULL = the floor's default setting), and
the dual-control requests of promotional tickets above the threshold.
"""
import sqlalchemy as sa
from alembic import op

revision = "0013_promo_credits"
down_revision = "0012_staff_auth"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("machines", schema=None) as batch_op:
        batch_op.add_column(sa.Column("restricted_played", sa.BigInteger(), server_default="0", nullable=False))
        batch_op.add_column(sa.Column("nonrestricted_played", sa.BigInteger(), server_default="0", nullable=False))
        batch_op.add_column(sa.Column("credit_limit", sa.BigInteger(), nullable=True))
    op.create_table(
        "promo_ticket_requests",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("amount", sa.BigInteger(), nullable=False),
        sa.Column("credit_type", sa.String(length=16), nullable=False),
        sa.Column("station", sa.String(length=20), nullable=False),
        sa.Column("reason", sa.String(length=200), nullable=False),
        sa.Column("status", sa.String(length=12), nullable=False),
        sa.Column("requested_by", sa.String(length=80), nullable=False),
        sa.Column("requested_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("decided_by", sa.String(length=80), nullable=True),
        sa.Column("decided_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("ticket_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=True),
        sa.ForeignKeyConstraint(["ticket_id"], ["tickets.id"], name="fk_promo_ticket_requests_ticket_id_tickets"),
        sa.PrimaryKeyConstraint("id", name="pk_promo_ticket_requests"),
    )
    op.create_index("ix_promo_ticket_requests_status", "promo_ticket_requests", ["status"])


def downgrade() -> None:
    op.drop_index("ix_promo_ticket_requests_status", table_name="promo_ticket_requests")
    op.drop_table("promo_ticket_requests")
    with op.batch_alter_table("machines", schema=None) as batch_op:
        batch_op.drop_column("credit_limit")
        batch_op.drop_column("nonrestricted_played")
        batch_op.drop_column("restricted_played")
