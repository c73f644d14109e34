"""The SAS host's ``/metrics`` (Prometheus text format, prometheus-client): what an operator watches per channel
and per machine. Read at each scrape from the host's own counters (no second bookkeeping):

* per channel (label ``channel``): ``slotsys_sas_polls_total``, ``…_general_polls_total``, ``…_long_polls_total``,
  ``…_retries_total`` (implied NACKs: the same poll repeated), ``…_nacks_total`` (the machine NACKed),
  ``…_timeouts_total``, ``…_crc_errors_total``, ``…_truncated_total``, ``…_wrong_address_total``,
  ``…_failed_total`` (given up after the retries), ``…_exceptions_total``, ``…_unknown_exceptions_total``,
  ``…_games_total``, ``…_meter_regressions_total``, ``…_port_errors_total``, ``…_signature_mismatches_total``;
* per machine (labels ``channel``, ``address``, ``asset``): ``slotsys_sas_machine_online`` (1 online, 0 not),
  ``…_enrolled``, ``…_signature_ok`` (1 ok, 0 mismatch, absent while unknown or pending),
  ``slotsys_sas_machine_poll_cycle_p99_seconds`` (time between two general polls of the machine; SAS asks ≤ 0.2 s)
  and ``…_queued_long_polls``.

``serve(host, port)`` starts the exporter on its own thread (``slotsys sas-host --metrics-port``).
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Iterator

from prometheus_client import CollectorRegistry, start_http_server
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

from slotsys.sas.services.host import SasHost

__all__ = ["SasCollector", "serve"]

_CHANNEL_COUNTERS = (
    ("polls", "Polls sent, retries included"), ("general_polls", "General polls sent"),
    ("long_polls", "Long polls sent"), ("retries", "Polls repeated after no or a bad answer (implied NACK)"),
    ("nacks", "Polls the machine NACKed"), ("timeouts", "Polls no answer began to in time"),
    ("crc_errors", "Answers with a bad CRC"), ("truncated", "Answers cut by the inter-byte timeout"),
    ("wrong_address", "Answers from another address"), ("failed", "Polls given up after their retries"),
    ("exceptions", "Exceptions received (non-zero)"), ("unknown_exceptions", "Exceptions with a code SAS does not define"),
    ("games", "Games accounted from the machines"), ("meter_regressions", "Meters read lower than before"),
    ("port_errors", "Floor calls that failed (retried with the same key)"),
    ("signature_mismatches", "ROM signatures that did not match the approved program"),
)


class SasCollector:
    """A Prometheus collector over a running :class:`SasHost` (register it with a registry)."""

    def __init__(self, host: SasHost) -> None:
        self.host = host

    def collect(self) -> Iterator[CounterMetricFamily | GaugeMetricFamily]:
        totals = {ch.name: asdict(ch.totals()) for ch in self.host.channels}
        for field, doc in _CHANNEL_COUNTERS:
            fam = CounterMetricFamily(f"slotsys_sas_{field}", doc, labels=["channel"])
            for name, t in totals.items():
                fam.add_metric([name], t[field])
            yield fam
        online = GaugeMetricFamily("slotsys_sas_machine_online", "1 while the machine answers its polls",
                                   labels=["channel", "address", "asset"])
        enrolled = GaugeMetricFamily("slotsys_sas_machine_enrolled", "1 once the floor accepted the machine",
                                     labels=["channel", "address", "asset"])
        signature = GaugeMetricFamily("slotsys_sas_machine_signature_ok", "1: ROM signature matched; 0: mismatch",
                                      labels=["channel", "address", "asset"])
        cycle = GaugeMetricFamily("slotsys_sas_machine_poll_cycle_p99_seconds",
                                  "p99 of the time between two general polls of the machine",
                                  labels=["channel", "address", "asset"])
        queued = GaugeMetricFamily("slotsys_sas_machine_queued_long_polls", "Long polls waiting for the machine",
                                   labels=["channel", "address", "asset"])
        for ch in self.host.channels:
            for m in ch.snapshot():
                labels = [ch.name, str(m.address), m.asset]
                online.add_metric(labels, 1 if m.state == "online" else 0)
                enrolled.add_metric(labels, 1 if m.enrolled else 0)
                if m.signature in ("ok", "mismatch"):
                    signature.add_metric(labels, 1 if m.signature == "ok" else 0)
                if m.cycle_p99_ms is not None:
                    cycle.add_metric(labels, m.cycle_p99_ms / 1000)
                queued.add_metric(labels, m.queued_long_polls)
        yield from (online, enrolled, signature, cycle, queued)


def serve(host: SasHost, port: int, addr: str = "127.0.0.1") -> CollectorRegistry:
    """Serve ``host``'s metrics on ``http://addr:port/metrics`` from a daemon thread; returns the registry."""
    registry = CollectorRegistry()
    registry.register(SasCollector(host))
    start_http_server(port, addr=addr, registry=registry)
    return registry
