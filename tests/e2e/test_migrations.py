"""Alembic migrations build exactly the schema the models describe (no create_all anywhere)."""

import importlib
import pkgutil

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from slotsys.adapters.db import Base, make_engine
from slotsys.migrate import upgrade


def _import_all_tables():
    for pkg in ("slotsys.adapters", "jackpot_controller.adapters", "tito.adapters", "table_games.adapters"):
        try:
            mod = importlib.import_module(pkg)
        except ImportError:
            continue
        for info in pkgutil.iter_modules(mod.__path__):
            importlib.import_module(f"{pkg}.{info.name}")


def _diff(url):
    _import_all_tables()
    upgrade(url)
    engine = make_engine(url)
    with engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn, opts={"compare_type": False}), Base.metadata)
    engine.dispose()
    return diff


def test_migrations_match_models_on_sqlite(tmp_path):
    assert _diff(f"sqlite:///{tmp_path / 'm.db'}") == []


@pytest.mark.integration
def test_migrations_match_models_on_postgresql(pg_app):
    assert _diff(pg_app.extensions["slotsys"].settings.database_url) == []
