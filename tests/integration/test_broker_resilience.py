"""The parts of the Redis-outage fix that can be shown in seconds, on real Redis servers (the shared one on
database 3 of ``REDIS_URL``'s server, or a private ``redis-server`` that is stopped). The whole outage with
gunicorn, a worker and beat is tests/integration/test_redis_outage.py (``faults``). docs/resilience.md.

    REDIS_URL=redis://127.0.0.1:6379/3 .venv/bin/pytest tests/integration/test_broker_resilience.py
"""

from __future__ import annotations

import os
import time

import pytest
from kombu import Connection

from jackpot_controller.adapters.stream import RedisSubscription
from slotsys.server.celery_app import BROKER_TRANSPORT_OPTIONS, REDIS_TRANSPORT, make_celery
from slotsys.kernel.settings import Settings
from tests.integration._procs import PrivateRedis

pytestmark = pytest.mark.integration


@pytest.fixture
def redis_url():
    url = os.environ.get("REDIS_URL")
    if not url:
        pytest.skip("integration: set REDIS_URL to run against a real Redis")
    return url


def detached_channel(url: str, transport: str | None):
    """A channel in the state the worker's consumer leaves its task channel in after losing Redis while it
    was waiting on BRPOP (the failing worker's traceback, docs/resilience.md): ``Connection.collect()``
    could not close the channel (reading the pending BRPOP failed) but detached the transport
    (``Connection._do_close_transport``: ``transport.client = None``); the second close then
    disconnected the channel's pools and requeues the tasks still running."""
    conn = Connection(url, transport=transport, transport_options=BROKER_TRANSPORT_OPTIONS)
    chan = conn.channel()
    conn._do_close_transport()
    chan._disconnect_pools()
    return conn, chan


def test_a_channel_of_a_collected_connection_fails_with_a_connection_error_not_attribute_error(redis_url):
    # kombu's own transport: the AttributeError that made the worker exit ("Unrecoverable error")
    conn, chan = detached_channel(redis_url, None)
    with pytest.raises(AttributeError, match="hostname"):
        with chan.conn_or_acquire():  # QoS.restore_unacked / QoS.ack go through here
            pass
    # ours: a connection error, which the consumer's cleanup ignores and its ack logs ("Couldn't ack")
    conn, chan = detached_channel(redis_url, REDIS_TRANSPORT)
    with pytest.raises(conn.connection_errors) as e:
        with chan.conn_or_acquire():
            pass
    assert not isinstance(e.value, AttributeError)
    chan.connection = None  # and once kombu has dropped the channel's transport too
    with pytest.raises(conn.connection_errors):
        with chan.conn_or_acquire():
            pass
    chan.qos._delivered["tag-1"] = None  # an acks_late task still running on this channel
    with pytest.raises(conn.connection_errors):
        chan.qos.restore_unacked()
    chan.qos._delivered.clear()  # (nothing left for kombu's at-exit restore to try)


def test_the_app_uses_the_fixed_transport_and_retries_the_broker_forever(redis_url):
    app = make_celery(Settings(redis_url=redis_url, celery_eager=False))
    conf = app.conf
    assert conf.broker_connection_max_retries is None and conf.broker_connection_retry is True
    assert conf.worker_consumer == "slotsys.server.celery_consumer:Consumer"
    with app.connection_for_write() as conn:
        conn.ensure_connection(max_retries=1)
        assert type(conn.default_channel).__module__ == "slotsys.server.celery_broker"
        assert conn.default_channel.client.ping()


def test_the_signage_subscription_survives_a_redis_outage_and_resumes(tmp_path):
    """Redis stopped under an open stream: get() returns None (the stream keeps sending meters snapshots
    from PostgreSQL), and once Redis is back on the same port, published messages arrive again."""
    import redis as redislib

    r = PrivateRedis(tmp_path).start()
    try:
        sub = RedisSubscription(r.url, "slotsys:jackpots")
        pub = redislib.Redis.from_url(r.url)
        pub.publish("slotsys:jackpots", "before")
        assert _first(sub, 5) == "before"
        r.kill()
        t0 = time.monotonic()
        assert [sub.get(timeout=0.2) for _ in range(5)] == [None] * 5  # no exception while Redis is away
        assert sub.down and time.monotonic() - t0 >= 0.9  # each get waited its timeout (no busy loop)
        r.start()
        deadline = time.monotonic() + 15
        got = None
        while got != "after" and time.monotonic() < deadline:
            try:
                pub.publish("slotsys:jackpots", "after")
            except redislib.ConnectionError:
                pass
            got = _first(sub, 1)
        assert got == "after" and not sub.down
        sub.close()
        # a stream opened while Redis is away subscribes once it is back
        r.kill()
        late = RedisSubscription(r.url, "slotsys:jackpots")
        assert late.down and late.get(timeout=0.2) is None
        r.start()
        deadline, got = time.monotonic() + 15, None
        while got != "late" and time.monotonic() < deadline:
            try:
                redislib.Redis.from_url(r.url).publish("slotsys:jackpots", "late")
            except redislib.ConnectionError:
                pass
            got = _first(late, 1)
        assert got == "late"
        late.close()
    finally:
        r.stop()


def _first(sub: RedisSubscription, seconds: float) -> str | None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        msg = sub.get(timeout=0.2)
        if msg is not None:
            return msg
    return None
