"""Jackpot controller settings, from the environment only (``SLOTSYS_JACKPOT_*``)."""

from __future__ import annotations

from pydantic import AliasChoices, Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class JackpotSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="SLOTSYS_JACKPOT_", extra="ignore")

    handpay_threshold_won: int = Field(2_000_000, gt=0, description="awards at or above it are paid by hand")
    max_award_won: int = Field(150_000_000, gt=0, description="system maximum: a larger award locks the machine "
                                                               "for verification and is never credited")
    claim_timeout_s: float = Field(60.0, gt=0, description="commit timeout of a claim (Hit → Claimed → Awarded)")
    # Where the hit is decided: "in_spin" (the fold runs inside the spin's transaction: the
    # embedded SQLite default, whose writers serialise anyway), "async" (a sequencer thread in every
    # web process folds the recorded wagers within a second), "process" (a dedicated `slotsys sequencer`
    # process folds them, one active per floor by lease, standbys taking over; web processes never fold)
    # or "auto" (in_spin on SQLite, async on PostgreSQL).
    sequencer: str = Field("auto", pattern="^(auto|in_spin|async|process)$")
    sequencer_poll_s: float = Field(0.05, gt=0, le=5, description="the active sequencer process: the wait "
                                                                  "between folds when the queue is empty")
    standby_poll_s: float = Field(0.5, gt=0, le=30, description="a standby sequencer process: how often it "
                                                                "tries to take the lease")
    fold_batch: int = Field(2_000, gt=0, le=10_000)
    fold_interval_s: float = Field(0.2, ge=0, description="the least time between two folds of one process")
    handpay_cage: str = "MAIN"
    # a handpay at or above it needs two signers: paid only through the handpay queue (/api/v1/handpays), never
    # by the single-signer /api/v1/jackpots/hits/<id>/handpay (the same setting as the queue's)
    handpay_two_person_won: int = Field(10_000_000, ge=0, validation_alias=AliasChoices(
        "handpay_two_person_won", "SLOTSYS_HANDPAY_TWO_PERSON_WON"))
    meters_publish_interval_s: float = Field(0.5, ge=0)
