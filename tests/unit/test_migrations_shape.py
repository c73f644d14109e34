"""The migration history has exactly one head (parallel branches are merged)."""

from alembic.script import ScriptDirectory

from slotsys.app.migrate import alembic_config


def test_single_head():
    heads = ScriptDirectory.from_config(alembic_config("sqlite://")).get_heads()
    assert len(heads) == 1, heads
