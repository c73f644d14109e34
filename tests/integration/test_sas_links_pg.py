"""The SAS links' state on PostgreSQL: two channels' hosts publish their machines' links at once, again and again
(the rows are overwritten, never duplicated), and the console's read shows each machine's latest figures."""

from __future__ import annotations

import threading

from slotsys.kernel.context import Principal
from slotsys.sas.services.host import MachineSnapshot

OPERATOR = Principal("staff", "op", "operator")


def _snap(address: int, asset: str, polls: int) -> MachineSnapshot:
    return MachineSnapshot(address, asset, "online", True, polls, polls // 10, 0, 0, "0x7E", "ok", 0, 12.0, 48.0)


def test_concurrent_publications_overwrite_each_machine_row(pg_app):
    svc = pg_app.extensions["slotsys"].sas_links
    errors: list[BaseException] = []

    def channel(name: str, assets: list[str]) -> None:
        try:
            for polls in range(1, 41):
                svc.publish(name, [_snap(i + 1, a, polls) for i, a in enumerate(assets)])
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    a = [f"PGA{i}" for i in range(8)]
    b = [f"PGB{i}" for i in range(8)]
    threads = [threading.Thread(target=channel, args=("/dev/ttyS0", a)), threading.Thread(target=channel, args=("/dev/ttyS1", b))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    links = svc.links(OPERATOR).links
    assert [x.asset for x in links] == a + b  # by channel, then address: one row per machine
    assert {x.polls for x in links} == {40} and {x.retries for x in links} == {4}
    assert all(not x.stale and x.signature == "ok" and x.cycle_p99_ms == 48.0 for x in links)
