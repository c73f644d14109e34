"""TITO: ticket states, voids and approvals, event log, brute-force guard, drawer sessions,
station counters; machine validation scheme (SAS secure enhanced) and handpay meters.

Hand-written: touches only the TITO tables and the TITO columns of ``machines``.

Revision ID: 0003_tito
Revises: 0001
"""

from alembic import op
import sqlalchemy as sa

import slotsys.kernel.adapters.db

revision = "0003_tito"
down_revision = "0001"
branch_labels = None
depends_on = None

TZ = slotsys.kernel.adapters.db.TZDateTime(timezone=True)
ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    # -- machines: validation scheme and handpay meters (plain ADD COLUMN: no table rebuild)
    op.add_column("machines", sa.Column("validation_scheme", sa.String(8), nullable=False, server_default="system"))
    op.add_column("machines", sa.Column("sas_validation_id", sa.Integer(), nullable=True))
    op.add_column("machines", sa.Column("sas_sequence", sa.Integer(), nullable=False, server_default="0"))
    op.add_column("machines", sa.Column("handpay_out", sa.BigInteger(), nullable=False, server_default="0"))
    op.add_column("machines", sa.Column("handpay_out_count", sa.Integer(), nullable=False, server_default="0"))
    op.create_index("ix_machines_sas_validation_id", "machines", ["sas_validation_id"], unique=True)

    op.create_table(
        "drawer_sessions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("cage", sa.String(20), nullable=False),
        sa.Column("drawer", sa.String(20), nullable=False),
        sa.Column("cashier", sa.String(60), nullable=False),
        sa.Column("status", sa.String(8), nullable=False),
        sa.Column("open_drawer", sa.String(41), nullable=True),
        sa.Column("open_cashier", sa.String(60), nullable=True),
        sa.Column("opening_float", sa.BigInteger(), nullable=False),
        sa.Column("opened_at", TZ, nullable=False),
        sa.Column("closed_at", TZ, nullable=True),
        sa.Column("expected_cash", sa.BigInteger(), nullable=True),
        sa.Column("counted_cash", sa.BigInteger(), nullable=True),
        sa.Column("variance", sa.BigInteger(), nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_drawer_sessions"),
        sa.UniqueConstraint("open_drawer", name="uq_drawer_sessions_open_drawer"),
        sa.UniqueConstraint("open_cashier", name="uq_drawer_sessions_open_cashier"),
    )

    # -- tickets: new columns; issued_machine_id becomes nullable (station-issued promo tickets)
    with op.batch_alter_table("tickets") as b:
        b.alter_column("issued_machine_id", existing_type=sa.Integer(), nullable=True)
        b.add_column(sa.Column("scheme", sa.String(8), nullable=False, server_default="system"))
        b.add_column(sa.Column("issued_by", sa.String(20), nullable=False, server_default=""))
        b.add_column(sa.Column("pending_location", sa.String(60), nullable=True))
        b.add_column(sa.Column("pending_txn", sa.String(32), nullable=True))
        b.add_column(sa.Column("pending_since", TZ, nullable=True))
        b.add_column(sa.Column("pending_until", TZ, nullable=True))
        b.add_column(sa.Column("redeemed_session_id", sa.Integer(), nullable=True))
        b.add_column(sa.Column("voided_at", TZ, nullable=True))
        b.add_column(sa.Column("voided_by", sa.String(60), nullable=True))
        b.add_column(sa.Column("void_reason", sa.String(200), nullable=True))
        b.add_column(sa.Column("expiry_override_by", sa.String(60), nullable=True))
        b.add_column(sa.Column("expiry_override_at", TZ, nullable=True))
        b.add_column(sa.Column("expiry_override_reason", sa.String(200), nullable=True))
        b.add_column(sa.Column("void_entry_id", ID, nullable=True))
        b.create_foreign_key("fk_tickets_redeemed_session_id_drawer_sessions", "drawer_sessions",
                             ["redeemed_session_id"], ["id"])
        b.create_foreign_key("fk_tickets_void_entry_id_journal_entries", "journal_entries", ["void_entry_id"], ["id"])
        b.create_index("ix_tickets_issued_at", ["issued_at"], unique=False)
        b.create_index("ix_tickets_redeemed_at", ["redeemed_at"], unique=False)
    op.execute("UPDATE tickets SET issued_by = (SELECT asset_number FROM machines WHERE machines.id = tickets.issued_machine_id) "
               "WHERE issued_machine_id IS NOT NULL")

    op.create_table(
        "ticket_events",
        sa.Column("id", ID, nullable=False),
        sa.Column("ticket_id", ID, nullable=True),
        sa.Column("validation_number", sa.String(18), nullable=True),
        sa.Column("kind", sa.String(24), nullable=False),
        sa.Column("channel", sa.String(12), nullable=True),
        sa.Column("location", sa.String(60), nullable=True),
        sa.Column("actor", sa.String(80), nullable=False),
        sa.Column("at", TZ, nullable=False),
        sa.Column("detail", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(["ticket_id"], ["tickets.id"], name="fk_ticket_events_ticket_id_tickets"),
        sa.PrimaryKeyConstraint("id", name="pk_ticket_events"),
    )
    op.create_index("ix_ticket_events_ticket_id", "ticket_events", ["ticket_id"], unique=False)
    op.create_index("ix_ticket_events_kind_at", "ticket_events", ["kind", "at"], unique=False)

    op.create_table(
        "tito_terminal_guard",
        sa.Column("terminal", sa.String(80), nullable=False),
        sa.Column("window_start", TZ, nullable=True),
        sa.Column("failures", sa.Integer(), nullable=False),
        sa.Column("blocked_until", TZ, nullable=True),
        sa.PrimaryKeyConstraint("terminal", name="pk_tito_terminal_guard"),
    )
    op.create_table(
        "tito_counters",
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("value", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("name", name="pk_tito_counters"),
    )


def downgrade() -> None:
    op.drop_table("tito_counters")
    op.drop_table("tito_terminal_guard")
    op.drop_index("ix_ticket_events_kind_at", table_name="ticket_events")
    op.drop_index("ix_ticket_events_ticket_id", table_name="ticket_events")
    op.drop_table("ticket_events")
    with op.batch_alter_table("tickets") as b:
        b.drop_index("ix_tickets_redeemed_at")
        b.drop_index("ix_tickets_issued_at")
        b.drop_constraint("fk_tickets_void_entry_id_journal_entries", type_="foreignkey")
        b.drop_constraint("fk_tickets_redeemed_session_id_drawer_sessions", type_="foreignkey")
        for col in ("void_entry_id", "expiry_override_reason", "expiry_override_at", "expiry_override_by",
                    "void_reason", "voided_by", "voided_at", "redeemed_session_id", "pending_until",
                    "pending_since", "pending_txn", "pending_location", "issued_by", "scheme"):
            b.drop_column(col)
        b.alter_column("issued_machine_id", existing_type=sa.Integer(), nullable=False)
    op.drop_table("drawer_sessions")
    op.drop_index("ix_machines_sas_validation_id", table_name="machines")
    for col in ("handpay_out_count", "handpay_out", "sas_sequence", "sas_validation_id", "validation_scheme"):
        op.drop_column("machines", col)
