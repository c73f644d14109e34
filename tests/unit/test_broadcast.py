"""The in-process fan-out used by the embedded default."""

def test_in_process_broadcast_survives_a_lagging_subscriber():
    from slotsys.adapters.broadcast import InProcessPublisher

    pub = InProcessPublisher()
    slow, fast = pub.subscribe(), pub.subscribe()
    for i in range(1_500):  # the slow one never reads: its queue fills at 1,000
        pub.publish("c", str(i))
        fast.get_nowait()
    assert slow.qsize() == 1_000 and fast.qsize() == 0
    pub.unsubscribe(slow)
    pub.publish("c", "after")
    assert fast.get_nowait() == ("c", "after") and slow.qsize() == 1_000
