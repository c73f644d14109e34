"""The hostile-input checks of tests/e2e/test_hostile_input.py on PostgreSQL, where NUL in text and integers
beyond BIGINT used to be 500s (SQLite stores NUL and the SQLite driver's overflow differs): every refusal a
problem naming the field, nothing changed, hostile text kept verbatim or refused, never a 5xx."""

from __future__ import annotations

from tests.e2e import test_hostile_input as hostile
from tests.e2e.test_authz_matrix import Floor


def test_hostile_bodies_on_postgresql(pg_api, pg_app):
    hostile.test_hostile_bodies_are_refused_naming_the_field_and_change_nothing(pg_api, pg_app, Floor(pg_api, tables=False))


def test_hostile_text_on_postgresql(pg_api, pg_app):
    hostile.test_hostile_text_in_every_text_field_is_refused_or_kept_verbatim(pg_api, pg_app, Floor(pg_api, tables=False))


def test_hostile_paths_queries_and_huge_path_integers_on_postgresql(pg_api, pg_app):
    for url in hostile.HOSTILE_URLS:
        hostile.test_hostile_paths_and_queries_are_problems(pg_api, url)
    hostile.test_path_ids_outside_the_integer_columns_are_422_naming_them(pg_api, pg_app)


def test_ids_above_the_integer_columns_on_postgresql(pg_api):
    """The outside tester's 500s (integer out of range for the INTEGER columns) are 422s naming the id."""
    hostile.test_ids_above_the_integer_columns_are_422_naming_them(pg_api)


def test_bad_query_parameters_on_postgresql(pg_api):
    """``?shoe_no=`` beyond INTEGER was a 500 here; every bad query parameter is a 422 naming it."""
    hostile.test_bad_query_parameters_are_422_naming_them(pg_api)


def test_duplicate_keys_on_postgresql(pg_api):
    hostile.test_duplicate_json_keys_are_400_naming_the_key_and_change_nothing(pg_api)


def test_database_unavailable_is_503_with_retry_after(pg_api, pg_app):
    """The 503 "database unavailable" said when to retry only in words: a client counted it as an error."""
    import sqlalchemy as sa

    from slotsys.kernel.adapters.db import make_engine

    api = pg_api
    token = api.staff_token("auditor")  # before the outage
    url = pg_app.extensions["slotsys"].settings.database_url
    base, name = url.rsplit("/", 1)
    admin = make_engine(base + "/postgres").execution_options(isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as c:
            c.execute(sa.text(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS false'))
            c.execute(sa.text("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = :n"), {"n": name})
        statuses = []
        for _ in range(3):  # the first may meet a terminated pooled connection, the rest a refused new one
            r = api.client.get("/api/v1/audit/ledger", headers={"Authorization": f"Bearer {token}"})
            statuses.append(r.status_code)
            assert r.status_code == 503 and r.headers["Content-Type"] == "application/problem+json", (r.status_code, r.data)
            assert int(r.headers["Retry-After"]) >= 1
        assert statuses == [503, 503, 503]
    finally:
        with admin.connect() as c:
            c.execute(sa.text(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true'))
        admin.dispose()
    pg_app.extensions["slotsys"].uow.engine.dispose()
    assert api.client.get("/api/v1/audit/ledger", headers={"Authorization": f"Bearer {token}"}).status_code == 200
