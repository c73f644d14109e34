"""loyalty's daily transfer limits count in the casino's gaming day

Revision ID: 0027_loyalty_gaming_day
Revises: 0026_sas_link_state
Hand-written. The loyalty program kept its own gaming day (``loyalty_program.gaming_day_start_hour_utc``, a UTC
hour, default 21 = 06:00 KST) and labelled ``wallet_transfers.gaming_day`` with the UTC date a day starts on, one
day before the casino's label. From now on the daily limits count in THE gaming day (settings
``SLOTSYS_GAMING_DAY_START_HOUR`` / ``SLOTSYS_GAMING_DAY_TZ``, ``slotsys.kernel.gaming_day``): every transfer is
relabelled with the casino's gaming day of its ``created_at``, and the program's column goes (with its part of
the ``times`` check).
"""
from alembic import op
import sqlalchemy as sa

revision = "0027_loyalty_gaming_day"
down_revision = "0026_sas_link_state"
branch_labels = None
depends_on = None


def _gaming_day():
    from slotsys.kernel.gaming_day import GamingDay
    from slotsys.kernel.settings import get_settings

    s = get_settings()
    return GamingDay(s.gaming_day_start_hour, s.gaming_day_tz)


def _relabel(label_of) -> None:
    from datetime import timezone

    conn = op.get_bind()
    t = sa.table("wallet_transfers", sa.column("id", sa.BigInteger), sa.column("created_at", sa.DateTime(timezone=True)),
                 sa.column("gaming_day", sa.Date))
    rows = conn.execute(sa.select(t.c.id, t.c.created_at, t.c.gaming_day)).all()
    for rid, created, old in rows:
        if created.tzinfo is None:  # SQLite hands back naive UTC
            created = created.replace(tzinfo=timezone.utc)
        new = label_of(created)
        if new != old:
            conn.execute(t.update().where(t.c.id == rid).values(gaming_day=new))


def upgrade() -> None:
    day = _gaming_day()
    _relabel(day.day_of)
    with op.batch_alter_table("loyalty_program") as b:
        b.drop_constraint(op.f("ck_loyalty_program_times"), type_="check")
        b.drop_column("gaming_day_start_hour_utc")
        b.create_check_constraint(op.f("ck_loyalty_program_times"), "redemption_hold_seconds > 0")


def downgrade() -> None:
    from datetime import timedelta

    with op.batch_alter_table("loyalty_program") as b:
        b.drop_constraint(op.f("ck_loyalty_program_times"), type_="check")
        b.add_column(sa.Column("gaming_day_start_hour_utc", sa.SmallInteger(), nullable=False, server_default="21"))
        b.create_check_constraint(op.f("ck_loyalty_program_times"),
                                  "gaming_day_start_hour_utc BETWEEN 0 AND 23 AND redemption_hold_seconds > 0")
    _relabel(lambda created: (created - timedelta(hours=21)).date())
