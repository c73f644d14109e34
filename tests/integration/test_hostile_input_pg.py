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
