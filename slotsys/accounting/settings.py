"""Gaming-day accounting's own settings (environment only, ``SLOTSYS_ACCOUNTING_*``; read once by the composition
root). The gaming day itself (start hour, zone) is the floor-wide ``slotsys.kernel.settings.Settings``'s."""

from __future__ import annotations

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class AccountingSettings(BaseSettings):
    """``SLOTSYS_ACCOUNTING_*``: when the beat closes a day, and the theoretical-hold flag's parameters."""

    model_config = SettingsConfigDict(env_prefix="SLOTSYS_ACCOUNTING_", extra="ignore")

    close_after_s: float = Field(120.0, ge=0, le=86_400, description=(
        "the beat closes a gaming day this many seconds after it ended (its meters are read at once): by then "
        "every transaction begun before the day's end has committed, so the day's journal is complete"))
    late_read_after_s: float = Field(600.0, gt=0, le=86_400, description=(
        "a meter read taken later than this after the day's end is reported as an exception of the day"))
    flag_k: float = Field(3.0, gt=0, le=100, description="a machine is flagged when |z| > k (theoretical hold)")
    flag_min_games: int = Field(100, ge=1, le=10**9, description="… and it played at least this many games")
    beat_interval_s: float = Field(30.0, gt=0, le=3_600, description="how often the beat looks for a day to close")
