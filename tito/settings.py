"""TITO settings, from the environment only (``SLOTSYS_TITO_*``; pydantic-settings).

The composition root (``slotsys.app.bootstrap``) reads them once per process and passes the one
:class:`TitoSettings` to every TITO service's constructor; the services read its fields at each use
(so a test may change a field of the process's instance: ``services.tito.settings``).

The ticket expiry itself is the floor-wide ``SLOTSYS_TICKET_EXPIRY_DAYS`` (default 30, the
G2S default); casino name and site are ``SLOTSYS_CASINO_NAME`` / ``SLOTSYS_CASINO_SITE``.
"""

from __future__ import annotations

from datetime import timedelta
from zoneinfo import ZoneInfo

from pydantic import AliasChoices, Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from tito.domain.guard import GuardPolicy


class TitoSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="SLOTSYS_TITO_", extra="ignore")

    hold_seconds: float = Field(15.0, gt=0, description="machine ticket-in authorisation hold (G2S: 15 s)")
    ticket_limit_won: int = Field(10_000_000, ge=0, description="largest cash-out ticket; above it a handpay (0 = no limit)")
    # a handpay at or above it needs two signers: paid only through the handpay queue (/api/v1/handpays), never by
    # the single-signer /api/v1/machines/<asset>/handpay (the same setting as the queue's)
    handpay_two_person_won: int = Field(10_000_000, ge=0, validation_alias=AliasChoices(
        "handpay_two_person_won", "SLOTSYS_HANDPAY_TWO_PERSON_WON"))
    timezone: str = Field("Asia/Seoul", description="casino local time: ticket faces and report dates (unset: the "
                          "gaming day's SLOTSYS_GAMING_DAY_TZ)")
    guard_max_failures: int = Field(10, ge=1, description="unknown / mistyped numbers per window before a lock-out")
    guard_window_seconds: int = Field(300, gt=0)
    guard_lockout_seconds: int = Field(300, ge=0)
    station_expiry_days: int | None = Field(None, ge=1, description="expiry of station-issued promotional tickets")
    # Promotional tickets and machine credit limits (docs/promotional-credits.md)
    promo_max_won: int = Field(5_000_000, ge=0, description="largest promotional ticket a station prints (0 = no limit)")
    promo_dual_control_won: int = Field(
        1_000_000, ge=0, description="one issuer's promotional tickets in the window plus a new one above this need "
                                     "a second supervisor's approval (0 = never)")
    promo_window_hours: float = Field(
        24.0, gt=0, description="rolling window of the cumulative promotional limits (issuer and floor), hours")
    promo_floor_cap_won: int = Field(
        20_000_000, ge=0, description="all promotional tickets on the floor in the window above this: every issue "
                                      "needs a second supervisor (0 = no cap)")
    promo_nonrestricted_dual_control_won: int = Field(
        0, ge=0, description="a non-restricted (cashable) promotional ticket above this needs a second supervisor "
                             "(0 = every one does)")
    machine_credit_limit_won: int = Field(
        10_000_000, ge=0, description="default machine credit limit: ticket-in above it is refused (0 = no limit)")

    @property
    def hold(self) -> timedelta:
        return timedelta(seconds=self.hold_seconds)

    @property
    def tz(self) -> ZoneInfo:
        return ZoneInfo(self.timezone)

    @property
    def promo_window(self) -> timedelta:
        return timedelta(hours=self.promo_window_hours)

    @property
    def guard(self) -> GuardPolicy:
        return GuardPolicy(self.guard_max_failures, timedelta(seconds=self.guard_window_seconds),
                           timedelta(seconds=self.guard_lockout_seconds))
