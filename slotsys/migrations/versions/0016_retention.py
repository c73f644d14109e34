"""data retention: idempotency purge

The purge (``slotsys.kernel.retention``) deletes idempotency records older than the retention window in
bounded batches, oldest first: ``DELETE … WHERE id IN (SELECT id … WHERE created_at < :cutoff ORDER BY
created_at LIMIT :n)``. This index on ``created_at`` makes each batch an index range scan instead of a scan of
a table that grows by gigabytes a day. On PostgreSQL it is built ``CONCURRENTLY`` (outside the migration's
transaction) so spins keep writing to the table while it builds; a build that fails leaves an INVALID index,
which the next run drops and rebuilds.

Revision ID: 0016_retention
Revises: 0015_id_ranges
"""
from alembic import op

revision = "0016_retention"
down_revision = "0015_id_ranges"
branch_labels = None
depends_on = None

INDEX = "ix_idempotency_records_created_at"
TABLE = "idempotency_records"


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        with op.get_context().autocommit_block():
            op.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {INDEX}")  # a failed earlier build leaves it INVALID
            op.create_index(INDEX, TABLE, ["created_at"], postgresql_concurrently=True)
    else:
        op.create_index(INDEX, TABLE, ["created_at"])


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        with op.get_context().autocommit_block():
            op.drop_index(INDEX, table_name=TABLE, postgresql_concurrently=True)
    else:
        op.drop_index(INDEX, table_name=TABLE)
