"""The in-process fan-out used by the embedded default."""

def test_in_process_broadcast_survives_a_lagging_subscriber():
    from slotsys.kernel.adapters.broadcast import InProcessPublisher

    pub = InProcessPublisher()
    slow, fast = pub.subscribe(), pub.subscribe()
    for i in range(1_500):  # the slow one never reads: its queue fills at 1,000
        pub.publish("c", str(i))
        fast.get_nowait()
    assert slow.qsize() == 1_000 and fast.qsize() == 0
    pub.unsubscribe(slow)
    pub.publish("c", "after")
    assert fast.get_nowait() == ("c", "after") and slow.qsize() == 1_000


def test_meters_broadcast_is_throttled_but_the_last_fold_of_a_burst_is_always_sent():
    """Folds inside ``meters_publish_interval_s`` are coalesced into one trailing broadcast that reads the
    meters at the interval's end; a hit always broadcasts at once."""
    import time
    from types import SimpleNamespace

    from jackpot_controller.services.signage import Signage
    from jackpot_controller.settings import JackpotSettings

    sent: list[tuple[float, int]] = []
    meter = {"value": 0}

    class Service(Signage):
        def meters_message(self) -> dict:
            return {"event": "meters", "value": meter["value"]}

    svc = Service(SimpleNamespace(), JackpotSettings(meters_publish_interval_s=0.2),
                  lambda channel, message: sent.append((time.monotonic(), message)), machines=None)
    start = time.monotonic()
    for v in range(1, 6):  # a burst of five folds in well under one interval
        meter["value"] = v
        svc.publish_meters()
    assert len(sent) == 1 and '"value": 1' in sent[0][1]  # the first goes at once
    deadline = time.monotonic() + 2
    while len(sent) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert len(sent) == 2 and '"value": 5' in sent[1][1]  # one trailing broadcast, with the latest meters
    assert sent[1][0] - start >= 0.19
    time.sleep(0.3)
    assert len(sent) == 2  # nothing else was pending
    meter["value"] = 6
    svc.publish_meters(force=True)  # a hit: at once, whatever the interval
    assert len(sent) == 3 and '"value": 6' in sent[2][1]
