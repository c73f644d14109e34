"""Alembic environment: the URL comes from the config (set by slotsys.migrate) or DATABASE_URL."""

from alembic import context

import jackpot_controller.adapters.tables  # noqa: F401  (register tables)
import tito.adapters.tables  # noqa: F401
from slotsys.adapters.db import Base, make_engine
from slotsys.settings import get_settings

config = context.config
url = config.get_main_option("sqlalchemy.url") or get_settings().database_url


def run_migrations_offline() -> None:
    context.configure(url=url, target_metadata=Base.metadata, literal_binds=True, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    engine = make_engine(url)
    with engine.connect() as connection:
        context.configure(connection=connection, target_metadata=Base.metadata, render_as_batch=True)
        with context.begin_transaction():
            context.run_migrations()
    engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
