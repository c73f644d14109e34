"""The slot floor's own settings (environment only, ``SLOTSYS_*``; read once by the composition root)."""

from __future__ import annotations

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from slotsys.floor.domain import alerts as A


class EventsSettings(BaseSettings):
    """``SLOTSYS_*`` settings of machine events, heartbeat, alerts and handpays."""

    model_config = SettingsConfigDict(env_prefix="SLOTSYS_", extra="ignore")

    machine_offline_after_s: float = Field(60.0, gt=0, description="a machine not heard this long is offline")
    machine_heartbeat_write_s: float = Field(
        10.0, ge=0, description="a machine's last-heard time is written at most this often per process")
    machine_heard_batch_s: float = Field(
        1.0, ge=0, description="a due last-heard write of a machine this process has written before waits at most "
                               "this long to go with the others in one statement (0: each at once)")
    machine_offline_sweep_s: float = Field(5.0, gt=0, description="how often the offline sweep runs")
    drop_windows: str = Field("", description="scheduled drop windows, casino-local HH:MM-HH:MM, comma-separated")
    handpay_two_person_won: int = Field(A.TWO_PERSON_DEFAULT_WON, ge=0,
                                        description="handpays at or above this need a second signer")
    timezone: str = Field("Asia/Seoul", validation_alias="SLOTSYS_TITO_TIMEZONE")


class PlaySettings(BaseSettings):
    """``SLOTSYS_*`` settings of the spin."""

    model_config = SettingsConfigDict(env_prefix="SLOTSYS_", extra="ignore")

    spin_group_commit_max: int = Field(
        16, ge=1, le=256,
        description="on PostgreSQL, the most concurrent spins of one process run as one transaction (group commit: "
                    "one claim, one machine lock, one account lock and one write statement for the batch); 1: each "
                    "spin in a transaction of its own")
    spin_group_commit_leaders: int = Field(
        1, ge=1, le=16,
        description="how many such batches one process runs at once (the database waits of one overlap the "
                    "Python work of another); a machine is never in two at once")
    spin_group_commit_lock_wait_ms: int = Field(
        200, ge=1, le=60_000,
        description="a batch waiting longer than this for a machine or account row another transaction holds "
                    "gives up (PostgreSQL lock_timeout) and its spins run one by one, each waiting for its own rows")
