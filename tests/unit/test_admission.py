"""Admission control's rule (slotsys/admission.py): who is shed, and the queue time the worker hands over."""

from __future__ import annotations

import threading

from slotsys import admission
from slotsys.admission import AdmissionPolicy


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
