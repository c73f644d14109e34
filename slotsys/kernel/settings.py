"""Settings, from the environment only (pydantic-settings).

``DATABASE_URL`` and ``REDIS_URL`` are read as-is; everything else is ``SLOTSYS_*``.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import AliasChoices, Field, field_validator
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
    # A table progressive award of at least this many won, won on dealer-entered cards, is paid only when a
    # supervisor settles the round (the pit's settle is refused, nothing moves): surveillance verifies the hand.
    table_progressive_verify_won: int = 1_000_000
    # Test each pooled connection with a round trip before use. Off by default: a connection the
    # server dropped fails one request with 503 (retried with the same Idempotency-Key) and the pool
    # then discards every connection of that generation; on saves nothing else and costs a round trip
    # per transaction.
    db_pool_pre_ping: bool = False
    # Seconds a verified bearer credential (machine key, staff token) is remembered per process, so a
    # request does not open a transaction just to authenticate. A re-issued machine key or a deactivated
    # staff user stops working within this time; a staff token never outlives its expiry. 0: off.
    auth_cache_s: float = 60.0
    # Admission control (slotsys/server/admission.py), behind gunicorn with slotsys.server.gunicorn_worker.AdmissionWorker:
    # a request is answered 503 + Retry-After at once, nothing applied, instead of being served late, when it
    # waited for a worker thread longer than SHED_QUEUE_MS (0: admission control off), or longer than
    # 2 × SHED_TARGET_MS while the node is overloaded (CoDel: even the shortest wait of the last
    # SHED_INTERVAL_MS exceeded SHED_TARGET_MS). The probes and /metrics are never shed. The target is near a
    # spin's own service time under load (30-40 ms), not CoDel's usual 5 ms: see docs/architecture.md.
    shed_queue_ms: int = Field(default=200, ge=0, le=600_000)
    shed_target_ms: int = Field(default=50, ge=1, le=60_000)
    shed_interval_ms: int = Field(default=100, ge=1, le=600_000)
    shed_retry_after_s: int = Field(default=1, ge=1, le=3_600)
    # Behind the reverse proxy (docker/nginx.conf, docs/proxy.md): measure that queue wait from the proxy's
    # X-Request-Start stamp (t=<epoch seconds>), i.e. also the time in gunicorn's accept backlog and socket
    # buffers. Only when nothing but the proxy reaches gunicorn and the two clocks agree (same host, or NTP);
    # a stamp in the future counts as no wait, one older than PROXY_REQUEST_START_MAX_MS as a clock out of
    # step (ignored); the worker's own measurement still applies either way.
    trust_proxy_request_start: bool = False
    proxy_request_start_max_ms: int = Field(default=60_000, ge=1, le=3_600_000)
    # How many reverse proxies stand in front of gunicorn (0: none, clients connect directly). With 1 the client's
    # address is taken from the proxy's X-Forwarded-For (docker/nginx.conf sets it to the address it saw), so the
    # per-address sign-in throttle and the logs see the client, not the proxy. Never set it on a node that
    # clients can reach without the proxy: they could then name any address.
    trusted_proxies: int = Field(default=0, ge=0, le=5)
    # FAULT INJECTION, for tests/integration/test_faults.py only; 0 (off) by default, never set in production.
    # Every Idempotency-Key use case (services/idempotency.run_once) sleeps this many ms after its work and
    # before its commit (SLOTSYS_FAULT_DELAY_MS), and after its commit before the response
    # (SLOTSYS_FAULT_DELAY_AFTER_COMMIT_MS), so a test can kill a worker or drop the database mid-request.
    fault_delay_ms: int = Field(default=0, ge=0, le=60_000)
    fault_delay_after_commit_ms: int = Field(default=0, ge=0, le=60_000)
    # Retention of idempotency records (slotsys/kernel/retention.py, docs/backup-restore.md "Retention"): records
    # older than RETENTION_DAYS are deleted, oldest first, in batches of PURGE_BATCH rows, each batch its own short
    # transaction, by beat (slotsys.purge_idempotency, every PURGE_INTERVAL_S) and by `slotsys purge-idempotency`.
    # A retry of a request older than the window is no longer recognised: keep it far above any client's retry
    # horizon (minutes). The embedded `slotsys run` (no beat) purges in a thread every PURGE_INTERVAL_S.
    idempotency_retention_days: int = Field(default=7, ge=1, le=3_650)
    idempotency_purge_batch: int = Field(default=5_000, ge=1, le=100_000)
    idempotency_purge_interval_s: int = Field(default=3_600, ge=60, le=604_800)
    # Loyalty: whether promotional coin-in (restricted and non-restricted promo credits staked) earns points
    # (docs/promotional-credits.md). Off: free play earns none; theoretical win counts it either way.
    loyalty_promo_earns_points: bool = False
    # Celery runs tasks in-process (eager) unless a broker is configured.
    celery_eager: bool | None = None
    # Long-lived jackpot streams (docs/streams.md): `slotsys streams` listens on STREAM_PORT; every stream server and
    # gunicorn worker admits at most STREAM_PER_PRINCIPAL open streams per machine or staff user (429 beyond) and
    # STREAM_MAX_TOTAL in all (503 beyond), sends a meters snapshot after STREAM_HEARTBEAT_S of silence, ends a
    # stream after STREAM_MAX_LIFETIME_S (EventSource reconnects), disconnects a client STREAM_BUFFER frames
    # behind. STREAM_HANDOFF: the gunicorn worker hands stream requests to its event loop (no thread held); off,
    # the Flask route serves them on a thread, at most STREAM_WSGI_MAX at once per process (503 beyond).
    stream_port: int = Field(default=8001, ge=1, le=65_535)
    stream_per_principal: int = Field(default=20, ge=1, le=100_000)
    stream_max_total: int = Field(default=5000, ge=1, le=1_000_000)
    stream_heartbeat_s: float = Field(default=2.0, gt=0, le=60)
    stream_max_lifetime_s: float = Field(default=900.0, gt=0, le=86_400)
    stream_buffer: int = Field(default=64, ge=1, le=100_000)
    stream_retry_after_s: int = Field(default=5, ge=1, le=3_600)
    stream_handoff: bool = True
    stream_wsgi_max: int = Field(default=2, ge=0, le=1_000)
    # At most one live meters frame per this many seconds to each stream (the latest wins; hits are never held):
    # a sign redraws no faster, and every frame is a write to every open stream. 0: every fold's meters.
    stream_meters_interval_s: float = Field(default=0.5, ge=0, le=10)
    # An AFT transfer a carded player asked for at a SAS machine that the SAS host has not taken within this many
    # seconds expires (its wallet hold returned); one already sent waits for the machine's answer (SAS 6.02 §8).
    aft_pending_timeout_s: int = Field(default=60, ge=1, le=3_600)
    # `slotsys streams` lowers its own CPU priority by this much (os.nice) at start, so that on a node it shares
    # with gunicorn the spins are served first and the signage waits (a sign can take 100 ms; a spin should
    # not). 0: unchanged.
    stream_nice: int = Field(default=5, ge=0, le=19)
    # The gaming day (slotsys/kernel/gaming_day.py, docs/accounting.md): it starts at GAMING_DAY_START_HOUR
    # o'clock local wall-clock time of the IANA zone GAMING_DAY_TZ and is labelled with the local date it starts on.
    # One policy for every report: the composition root builds the one GamingDay from these.
    gaming_day_start_hour: int = Field(default=6, ge=0, le=23)
    gaming_day_tz: str = "Asia/Seoul"
    casino_name: str = "Grand Seoul Casino"
    casino_site: str = "Seoul, Gangnam"
    ticket_expiry_days: int = 30
    staff_token_hours: int = 8  # a staff token's absolute lifetime (a shift), docs/staff-auth.md
    # Staff sign-in (slotsys/staff/services/auth.py, docs/staff-auth.md). A staff token is re-checked against the
    # database at least every STAFF_AUTH_CACHE_S (≤ 1 s), so a logout, deactivation, password change or an
    # expiry moved in the database holds on every node within 1 s even when Redis (the instant pub/sub
    # invalidation) is down. Machine keys keep AUTH_CACHE_S.
    staff_auth_cache_s: float = Field(default=1.0, ge=0, le=1.0)
    # STAFF_LOCKOUT_FAILURES failed sign-ins of one username within STAFF_LOCKOUT_WINDOW_S lock it out for
    # STAFF_LOCKOUT_S (429 + Retry-After; an admin may lift it sooner). Kept in the database.
    staff_lockout_failures: int = Field(default=5, ge=1, le=1_000)
    staff_lockout_window_s: int = Field(default=900, ge=1, le=86_400)
    staff_lockout_s: int = Field(default=900, ge=1, le=86_400)
    # Failed sign-ins allowed per client address (``limits`` notation; Redis when REDIS_URL is set, else
    # in-process memory); beyond it 429 + Retry-After without checking the password.
    staff_login_address_limit: str = "20/5 minutes"
    # Password hashes (scrypt, ~50-100 ms of CPU each) run at most STAFF_LOGIN_HASH_SLOTS at once per process,
    # busy at most STAFF_LOGIN_HASH_DUTY of the time (a slot rests after each hash); a sign-in that cannot
    # start within STAFF_LOGIN_HASH_WAIT_S, or finds another already waiting, gets 503 + Retry-After, so
    # guessing clients cannot take the CPU (nor the request threads) from spins.
    staff_login_hash_slots: int = Field(default=1, ge=1, le=64)
    staff_login_hash_duty: float = Field(default=0.25, gt=0, le=1)
    staff_login_hash_wait_s: float = Field(default=1.0, ge=0, le=30)
    cage_opening_float_won: int = 500_000_000
    max_body_bytes: int = 64 * 1024
    log_json: bool = False
    log_level: str = "INFO"
    credentials_file: Path = Field(default=VAR_DIR / "demo-credentials.json")
    host: str = "127.0.0.1"
    port: int = 8000

    @field_validator("gaming_day_tz")
    @classmethod
    def _known_zone(cls, value: str) -> str:
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError):
            raise ValueError(f"{value!r} is not an IANA time zone (e.g. Asia/Seoul)") from None
        return value

    @property
    def eager(self) -> bool:
        if self.celery_eager is not None:
            return self.celery_eager
        return not self.redis_url


@lru_cache
def get_settings() -> Settings:
    return Settings()
