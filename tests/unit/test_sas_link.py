"""The host's per-machine link state machine with a fake clock: response / inter-byte timeouts, implied NACK
retries, busy, offline after N missed polls and back online; the machine's exception queue rules."""

from __future__ import annotations

from slotsys.sas.domain.crc import append_crc
from slotsys.sas.domain.exception_queue import ExceptionQueue
from slotsys.sas.domain.framing import general_poll, long_poll
from slotsys.sas.domain.link import LinkState, LinkTimings, MachineLink, PollTransaction, TxOutcome, percentile
from slotsys.sas.domain.messages import CurrentCredits

T = LinkTimings()  # SAS timings: 20 ms response, 5 ms inter-byte, 2 retries, offline after 5


def chars(data: bytes):
    return [(b, False) for b in data]


def test_general_poll_answered():
    link = MachineLink(1, T)
    tx = PollTransaction(link, 1, None, general_poll(1), T)
    assert tx.start(0.0) == b"\x81"
    tx.feed(chars(b"\x7f"), 0.002)
    assert tx.outcome is TxOutcome.OK and tx.result.frame == b"\x7f"
    assert link.counters.general_polls == 1 and link.counters.retries == 0


def test_response_timeout_retries_then_fails_and_counts():
    link = MachineLink(1, T)
    frame = long_poll(1, 0x1A, crc=False)
    tx = PollTransaction(link, 1, 0x1A, frame, T)
    tx.start(0.0)
    tx.tick(0.019)
    assert tx.outcome is TxOutcome.PENDING and not tx.resend  # 20 ms not yet passed
    tx.tick(0.021)
    assert tx.resend  # implied NACK: the same poll again
    assert tx.start(0.021) == frame
    tx.tick(0.042)
    assert tx.resend
    tx.start(0.042)
    tx.tick(0.063)
    assert tx.outcome is TxOutcome.FAILED and tx.attempts == 3
    assert (link.counters.polls, link.counters.retries, link.counters.timeouts) == (3, 2, 3)


def test_inter_byte_timeout_truncates_then_retry_succeeds():
    link = MachineLink(1, T)
    tx = PollTransaction(link, 1, 0x1A, long_poll(1, 0x1A, crc=False), T)
    tx.start(0.0)
    good = CurrentCredits(10).encode(1)
    tx.feed(chars(good[:3]), 0.004)
    tx.tick(0.0085)  # 4.5 ms since the last byte: still waiting
    assert tx.outcome is TxOutcome.PENDING and not tx.resend
    tx.tick(0.0095)  # 5.5 ms gap: truncated
    assert tx.resend and link.counters.truncated == 1
    tx.start(0.01)
    tx.feed(chars(good), 0.012)
    assert tx.outcome is TxOutcome.OK and tx.result.frame == good


def test_bad_crc_and_wrong_address_are_retried():
    link = MachineLink(1, T)
    tx = PollTransaction(link, 1, 0x1A, long_poll(1, 0x1A, crc=False), T)
    tx.start(0.0)
    bad = bytearray(CurrentCredits(10).encode(1))
    bad[3] ^= 0x01
    tx.feed(chars(bytes(bad)), 0.003)
    assert tx.resend and link.counters.crc_errors == 1
    tx.start(0.004)
    tx.feed(chars(CurrentCredits(10).encode(2)), 0.006)
    assert tx.resend and link.counters.wrong_address == 1
    tx.start(0.007)
    tx.feed(chars(CurrentCredits(10).encode(1)), 0.009)
    assert tx.outcome is TxOutcome.OK


def test_busy_is_not_retried():
    link = MachineLink(1, T)
    tx = PollTransaction(link, 1, 0x8A, long_poll(1, 0x8A, bytes(5)), T)
    tx.start(0.0)
    tx.feed(chars(b"\x01\x00"), 0.002)
    assert tx.outcome is TxOutcome.BUSY and link.counters.busy == 1 and tx.attempts == 1


def test_ack_only_waits_the_inter_byte_window():
    link = MachineLink(1, T)
    tx = PollTransaction(link, 1, 0x01, long_poll(1, 0x01), T)
    tx.start(0.0)
    tx.feed(chars(b"\x01"), 0.002)
    assert tx.outcome is TxOutcome.PENDING
    tx.tick(0.008)
    assert tx.outcome is TxOutcome.OK and tx.result.frame == b"\x01"


def test_address_zero_poll_expects_nothing():
    tx = PollTransaction(None, 0, None, general_poll(0), T)
    tx.start(0.0)
    assert tx.outcome is TxOutcome.OK


def test_offline_after_n_missed_polls_and_back_online():
    link = MachineLink(1, T)
    assert link.result(True, 0.0) == "online"
    changes = [link.result(False, 0.2 * i) for i in range(1, 6)]
    assert changes == [None, None, None, None, "offline"] and link.state is LinkState.OFFLINE
    assert link.result(False, 1.2) is None  # stays offline, reported once
    assert link.result(True, 1.4) == "online" and link.missed == 0


def test_poll_cycle_intervals_and_percentiles():
    link = MachineLink(1, T)
    for t in (0.0, 0.2, 0.41, 0.6):
        PollTransaction(link, 1, None, general_poll(1), T).start(t)
    assert [round(x, 2) for x in link.intervals] == [0.2, 0.21, 0.19]
    assert percentile(link.intervals, 0.5) == link.intervals[0] and percentile([], 0.5) is None


# ------------------------------------------------------------------ the machine's exception queue
def test_queue_fifo_priority_first_and_ack():
    q = ExceptionQueue()
    q.push(0x11, 0.0)
    q.push(0x12, 0.0)
    q.push(0x67, 0.0)  # ticket inserted: priority
    assert q.head(0.0) == 0x67
    q.clear(0x67)
    assert q.head(0.0) == 0x11
    q.acked(0x11, 0.0)
    assert q.head(0.0) == 0x12
    q.acked(0x12, 0.0)
    assert q.head(0.0) == 0x00


def test_queue_overflow_drops_oldest_and_reports_0x70():
    q = ExceptionQueue(capacity=20)
    for i in range(22):
        q.push(0x11 if i % 2 == 0 else 0x12, 0.0)
    assert len(q.queued) == 20 and q.lost == 2
    assert q.head(0.0) == 0x70  # priority: before every queued exception
    q.acked(0x70, 0.0)
    assert q.head(0.0) == 0x11


def test_sticky_priority_reissued_until_serviced():
    q = ExceptionQueue()
    q.push(0x51, 0.0)
    assert q.head(0.0) == 0x51
    q.acked(0x51, 0.0)
    assert q.head(1.0) == 0x00  # hidden after its ACK …
    assert q.head(15.5) == 0x51  # … reissued every 15 s until long poll 1B services it (§7.8.1)
    q.clear(0x51)
    assert q.head(31.0) == 0x00


def test_crc_helper_for_fixture():
    assert append_crc(b"\x01\x21\x00\x00") == bytes.fromhex("012100005c45")
