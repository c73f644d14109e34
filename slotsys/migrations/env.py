"""Alembic environment: the URL comes from the config (set by slotsys.app.migrate) or DATABASE_URL."""

from alembic import context

import importlib
import pkgutil

from slotsys.kernel.adapters.db import Base, make_engine
from slotsys.kernel.settings import get_settings

# Register every table of every package (any module under <pkg>.adapters) with Base.metadata.
for _pkg in ("slotsys.kernel.adapters", "slotsys.floor.adapters", "slotsys.players.adapters", "slotsys.staff.adapters",
             "jackpot_controller.adapters", "tito.adapters", "table_games.adapters", "slotsys.accounting.adapters",
             "slotsys.sas.adapters"):
    try:
        _mod = importlib.import_module(_pkg)
    except ImportError:
        continue
    for _info in pkgutil.iter_modules(_mod.__path__):
        importlib.import_module(f"{_pkg}.{_info.name}")

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
