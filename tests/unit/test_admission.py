"""Admission control's rule (slotsys/server/admission.py): who is shed, and the queue time the worker hands over."""

from __future__ import annotations

import threading

from slotsys.server import admission
from slotsys.server.admission import AdmissionPolicy


SPIN = "/api/v1/machines/M001/spin"


def test_past_the_hard_budget_a_request_is_always_shed():
    p = AdmissionPolicy(0.2, target_s=0.01, interval_s=0.1)
    assert not p.shed(SPIN, 0.0, now=0.0)
    assert not p.shed(SPIN, 0.2, now=0.01)  # at the budget: still served
    assert p.shed(SPIN, 0.2001, now=0.02)
    assert p.shed("/api/v1/cage/redeem", 3.0, now=0.03)
    assert not p.overloaded  # the interval has not ended yet


def test_a_burst_is_absorbed_but_a_standing_queue_is_drained():
    """CoDel: waits above the target throughout one interval (even the shortest) mean a standing queue; then
    anything that waited over twice the target is shed until an interval sees a short wait again."""
    p = AdmissionPolicy(0.5, target_s=0.01, interval_s=0.1)
    # a burst: one long wait, but a short one in the same interval: not overloaded, nothing shed
    assert not p.shed(SPIN, 0.3, now=0.00)
    assert not p.shed(SPIN, 0.002, now=0.05)
    assert not p.shed(SPIN, 0.3, now=0.10)  # interval 1 judged: its minimum 2 ms ≤ 10 ms
    assert not p.overloaded
    # interval 2: every wait above the target
    for i, w in enumerate((0.3, 0.05, 0.03)):
        assert not p.shed(SPIN, w, now=0.12 + i * 0.02)
    assert p.shed(SPIN, 0.025, now=0.21)  # interval 2 judged overloaded: 25 ms > 2 × 10 ms is shed
    assert p.overloaded
    assert not p.shed(SPIN, 0.015, now=0.22)  # within twice the target: served
    assert not p.shed(SPIN, 0.004, now=0.25)
    assert not p.shed(SPIN, 0.025, now=0.32)  # interval 3 saw 4 ms: no longer overloaded
    assert not p.overloaded


def test_a_quiet_interval_ends_the_overload():
    p = AdmissionPolicy(0.5, target_s=0.01, interval_s=0.1)
    for t in (0.0, 0.05, 0.10, 0.15):
        p.shed(SPIN, 0.2, now=t)
    assert p.overloaded and p.shed(SPIN, 0.03, now=0.16)
    assert not p.shed(SPIN, 0.03, now=5.0)  # nobody came for seconds: no standing queue
    assert not p.overloaded


def test_no_queue_time_or_a_zero_budget_never_sheds():
    assert not AdmissionPolicy(0.2).shed(SPIN, None)  # not behind the worker
    assert not AdmissionPolicy(0).shed(SPIN, 60.0)  # off


def test_probes_and_the_scrape_are_never_shed_nor_counted():
    p = AdmissionPolicy(0.01)
    for path in ("/healthz", "/readyz", "/metrics"):
        assert not p.shed(path, 10.0), path
    assert p.shed("/healthz/x", 10.0)  # exact paths only


def test_queue_wait_is_per_thread_and_cleared_after_the_request():
    admission.request_queued(0.5)
    seen: list = []
    t = threading.Thread(target=lambda: seen.append(admission.queue_wait_s()))
    t.start()
    t.join()
    try:
        assert seen == [None]  # another thread's request is not this one's
        assert admission.queue_wait_s() == 0.5
        admission.request_queued(-0.001)  # a clock step never makes a negative wait
        assert admission.queue_wait_s() == 0.0
    finally:
        admission.request_queued(None)
    assert admission.queue_wait_s() is None


# ---------------------------------------------------------------------------- behind the proxy: X-Request-Start
NOW = 1_800_000_000.0  # this host's wall clock in the cases below (seconds since the epoch)


def test_the_proxy_stamp_is_read_in_seconds_milliseconds_or_microseconds():
    """nginx sends t=${msec} (seconds, ms resolution); Apache's %t and other proxies send micro- or
    milliseconds: the unit is told by magnitude (New Relic's rule)."""
    pw = admission.proxy_wait_s
    assert pw("t=1799999999.750", NOW, max_s=60) == 0.25
    assert pw("t=1799999999750", NOW, max_s=60) == 0.25
    assert pw("t=1799999999750000", NOW, max_s=60) == 0.25
    assert pw("1799999999.5", NOW, max_s=60) == 0.5  # the bare number
    assert pw(" t=1799999999.5 ", NOW, max_s=60) == 0.5


def test_a_missing_or_unreadable_stamp_is_no_measurement():
    for h in (None, "", "t=", "t=abc", "t=nan", "t=inf", "t=-5", "t=0", "1.2.3", "t=1,5"):
        assert admission.proxy_wait_s(h, NOW, max_s=60) is None, h


def test_clock_skew_is_clamped_a_future_stamp_is_no_wait_and_an_implausible_age_is_ignored():
    pw = admission.proxy_wait_s
    assert pw("t=1800000000.300", NOW, max_s=60) == 0.0  # the proxy's clock 300 ms ahead: no negative wait
    assert pw("t=1799999940.000", NOW, max_s=60) == 60.0  # at the bound: believed
    assert pw("t=1799999939.999", NOW, max_s=60) is None  # beyond it: a clock out of step, not a queue
    assert pw("t=1000000000", NOW, max_s=60) is None  # years old


def test_the_wait_is_the_larger_of_the_workers_and_the_proxys():
    """The proxy's stamp can only lengthen what the worker measured: a forged or skewed stamp in the future
    never lets a request skip the queue, and without a stamp the worker's own wait stands."""
    assert admission.combined_wait_s(0.01, 0.8) == 0.8  # waited in the accept backlog / a stalled worker
    assert admission.combined_wait_s(0.3, 0.0) == 0.3  # a stamp from the future does not hide the queue
    assert admission.combined_wait_s(0.3, None) == 0.3
    assert admission.combined_wait_s(None, 0.4) == 0.4
    assert admission.combined_wait_s(None, None) is None
    policy = AdmissionPolicy(0.2)
    assert policy.shed(SPIN, admission.combined_wait_s(0.0, admission.proxy_wait_s("t=1799999999.5", NOW, max_s=60)),
                       now=0.0)
    assert not policy.shed(SPIN, admission.combined_wait_s(0.0, admission.proxy_wait_s("t=1799999999.9", NOW, max_s=60)),
                           now=0.01)
