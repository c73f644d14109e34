"""Alembic migrations build exactly the schema the models describe (no create_all anywhere)."""

import importlib
import pkgutil

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from slotsys.kernel.adapters.db import Base, make_engine
from slotsys.app.migrate import upgrade


def _import_all_tables():
    for pkg in ("slotsys.kernel.adapters", "slotsys.floor.adapters", "slotsys.players.adapters", "slotsys.staff.adapters",
             "jackpot_controller.adapters", "tito.adapters", "table_games.adapters", "slotsys.accounting.adapters",
             "slotsys.sas.adapters"):
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


def test_0014_redraws_sequential_sas_validation_ids_and_downgrades(tmp_path):
    """0014_ticket_ids: machines already on SAS secure enhanced validation with the old sequential IDs
    get IDs and sequence starts from the CSPRNG; the downgrade drops its columns (SQLite batch mode);
    upgrade → downgrade → upgrade works."""
    import sqlalchemy as sa
    from alembic import command
    from sqlalchemy.orm import Session

    from slotsys.floor.adapters.tables import Machine, Zone
    from slotsys.app.migrate import alembic_config

    url = f"sqlite:///{tmp_path / 'm.db'}"
    upgrade(url)
    engine = make_engine(url)
    with Session(engine) as s:
        s.add(Zone(code="VIP", name="VIP"))
        s.flush()
        for i in (1, 2, 3):
            s.add(Machine(asset_number=f"V00{i}", zone="VIP", bank="V1", denomination=100, game_id="g",
                          key_hash=f"k{i}", validation_scheme="sas" if i < 3 else "system",
                          sas_validation_id=0x100000 + i if i < 3 else None, sas_sequence=0))
        s.commit()
    cfg = alembic_config(url)
    command.downgrade(cfg, "0013_promo_credits")
    with engine.connect() as c:
        assert "sas_generation" not in {col["name"] for col in sa.inspect(c).get_columns("machines")}
        assert "sas_sequence" not in {col["name"] for col in sa.inspect(c).get_columns("tickets")}
    engine.dispose()
    command.upgrade(cfg, "0014_ticket_ids")
    engine = make_engine(url)
    with engine.connect() as c:
        rows = c.execute(sa.text("SELECT asset_number, sas_validation_id, sas_sequence, sas_generation FROM machines "
                                 "ORDER BY asset_number")).all()
    engine.dispose()
    (a1, id1, seq1, g1), (a2, id2, seq2, g2), (a3, id3, seq3, g3) = rows
    assert {id1, id2}.isdisjoint({0x100001, 0x100002}) and id1 != id2 and g1 == g2 == 1
    assert (seq1, seq2) != (0, 0) and (id3, g3) == (None, 0)
    upgrade(url)
    assert _diff(url) == []


def test_0027_relabels_wallet_transfers_with_the_casinos_gaming_day_and_downgrades(tmp_path):
    """0027_loyalty_gaming_day: a transfer at 05:59 KST and one at 06:00 KST, labelled by the old UTC-hour rule
    (the UTC date of 21:00 UTC), get the casino's gaming days (06:00 Asia/Seoul); the program's column goes; the
    downgrade restores the old labels and the column (SQLite batch mode)."""
    import sqlite3
    from datetime import date

    import sqlalchemy as sa
    from alembic import command

    from slotsys.app.migrate import alembic_config

    url = f"sqlite:///{tmp_path / 'm.db'}"
    cfg = alembic_config(url)
    command.upgrade(cfg, "0026_sas_link_state")
    with sqlite3.connect(tmp_path / "m.db") as c:  # foreign keys off: the rows stand alone
        c.execute("INSERT INTO wallet_transfers (id, player_id, machine_id, direction, via, cashable_won, promo_won, "
                  "gaming_day, entry_id, created_at) VALUES "
                  "(1, 1, 1, 'to_machine', 'aft', 1000, 0, '2026-12-01', 1, '2026-12-02 20:59:59.000000'),"
                  "(2, 1, 1, 'to_machine', 'aft', 1000, 0, '2026-12-02', 1, '2026-12-02 21:00:00.000000')")
    command.upgrade(cfg, "0027_loyalty_gaming_day")
    engine = make_engine(url)
    with engine.connect() as c:
        days = [r[0] for r in c.execute(sa.text("SELECT gaming_day FROM wallet_transfers ORDER BY id"))]
        assert "gaming_day_start_hour_utc" not in {col["name"] for col in sa.inspect(c).get_columns("loyalty_program")}
    engine.dispose()
    assert [date.fromisoformat(str(d)) for d in days] == [date(2026, 12, 2), date(2026, 12, 3)]
    command.downgrade(cfg, "0026_sas_link_state")
    engine = make_engine(url)
    with engine.connect() as c:
        days = [r[0] for r in c.execute(sa.text("SELECT gaming_day FROM wallet_transfers ORDER BY id"))]
        assert "gaming_day_start_hour_utc" in {col["name"] for col in sa.inspect(c).get_columns("loyalty_program")}
    engine.dispose()
    assert [date.fromisoformat(str(d)) for d in days] == [date(2026, 12, 1), date(2026, 12, 2)]
    upgrade(url)
    assert _diff(url) == []
