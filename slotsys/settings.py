"""Settings, from the environment only (pydantic-settings).

``DATABASE_URL`` and ``REDIS_URL`` are read as-is; everything else is ``SLOTSYS_*``.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from pydantic import AliasChoices, Field
from pydantic_settings import BaseSettings, SettingsConfigDict

VAR_DIR = Path.cwd() / "var"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="SLOTSYS_", extra="ignore")

    database_url: str = Field(
        default=f"sqlite:///{VAR_DIR / 'slotsys.db'}",
        validation_alias=AliasChoices("DATABASE_URL", "SLOTSYS_DATABASE_URL"),
    )
    redis_url: str | None = Field(default=None, validation_alias=AliasChoices("REDIS_URL", "SLOTSYS_REDIS_URL"))
    # PostgreSQL connection pool per process (SQLite ignores these)
    db_pool_size: int = 10
    db_max_overflow: int = 20
    db_pool_timeout_s: float = 30.0
    # Celery runs tasks in-process (eager) unless a broker is configured.
    celery_eager: bool | None = None
    casino_name: str = "Grand Seoul Casino"
    casino_site: str = "Seoul, Gangnam"
    ticket_expiry_days: int = 30
    staff_token_hours: int = 12
    cage_opening_float_won: int = 500_000_000
    max_body_bytes: int = 64 * 1024
    log_json: bool = False
    log_level: str = "INFO"
    credentials_file: Path = Field(default=VAR_DIR / "demo-credentials.json")
    host: str = "127.0.0.1"
    port: int = 8000

    @property
    def eager(self) -> bool:
        if self.celery_eager is not None:
            return self.celery_eager
        return not self.redis_url


@lru_cache
def get_settings() -> Settings:
    return Settings()
