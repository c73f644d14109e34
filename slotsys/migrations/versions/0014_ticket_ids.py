"""unpredictable ticket validation IDs per machine

Revision ID: 0014_ticket_ids
Revises: 0013_promo_credits

* ``machines.sas_generation``: how many times the machine's SAS validation ID was drawn (0: never
  drawn by the host since this step; each rotation or re-enrolment adds one);
* ``tickets.sas_sequence`` / ``tickets.sas_generation``: the SAS sequence number a secure-enhanced
  ticket used and the generation of the validation ID that made it, so the security report can
  check each machine's tickets arrive in sequence (gaps, repeats) without storing the ID itself;
* data: every machine already on SAS secure-enhanced validation gets a fresh validation ID and
  sequence start from the CSPRNG (the earlier ones were sequential, 0x100001 …, so predictable).
  Tickets already issued keep their numbers. The downgrade drops the columns; the new IDs stay.
"""
import secrets

import sqlalchemy as sa
from alembic import op

revision = "0014_ticket_ids"
down_revision = "0013_promo_credits"
branch_labels = None
depends_on = None

MAX_24 = 0xFFFFFF


def upgrade() -> None:
    op.add_column("machines", sa.Column("sas_generation", sa.Integer(), nullable=False, server_default="0"))
    op.add_column("tickets", sa.Column("sas_sequence", sa.Integer(), nullable=True))
    op.add_column("tickets", sa.Column("sas_generation", sa.Integer(), nullable=True))
    conn = op.get_bind()
    machines = sa.table("machines", sa.column("id", sa.Integer), sa.column("validation_scheme", sa.String),
                        sa.column("sas_validation_id", sa.Integer), sa.column("sas_sequence", sa.Integer),
                        sa.column("sas_generation", sa.Integer))
    rows = conn.execute(sa.select(machines.c.id, machines.c.sas_validation_id)).all()
    taken = {vid for _, vid in rows if vid is not None}
    for mid, vid in rows:
        if vid is None:
            continue
        new = vid
        while new in taken:
            new = 1 + secrets.randbelow(MAX_24)
        taken.add(new)
        conn.execute(machines.update().where(machines.c.id == mid).values(
            sas_validation_id=new, sas_sequence=secrets.randbelow(MAX_24 + 1), sas_generation=1))


def downgrade() -> None:
    with op.batch_alter_table("tickets") as b:
        b.drop_column("sas_generation")
        b.drop_column("sas_sequence")
    with op.batch_alter_table("machines") as b:
        b.drop_column("sas_generation")
