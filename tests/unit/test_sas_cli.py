"""``slotsys sas-host`` / ``slotsys sas-egm`` are subcommands of the real CLI, their options passed through to the
SAS entry points; ``--machine ADDRESS=ASSET`` names the floor machine behind each address."""

from __future__ import annotations

import argparse
import os
import socket
import threading
import time

import pytest
from click.testing import CliRunner

from slotsys.app.cli import main
from slotsys.sas.adapters.links import open_pty_pair
from slotsys.sas.cli import _machine, sas_egm_main, sas_host_main


def test_the_subcommands_pass_their_options_through():
    r = CliRunner().invoke(main, ["sas-host", "-h"])
    assert r.exit_code == 0 and "--machine" in r.output and "--memory" in r.output
    r = CliRunner().invoke(main, ["sas-egm", "-h"])
    assert r.exit_code == 0 and "--pty" in r.output and "--settle" in r.output


def test_machine_option():
    assert _machine("7=V001") == (7, "V001")
    with pytest.raises(argparse.ArgumentTypeError):
        _machine("7")


def test_host_over_tcp_with_the_in_memory_floor_enrols_the_emulated_machine(capsys):
    """The two entry points against each other for a few seconds (TCP, the host's --memory floor)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    done: list[int] = []
    egm = threading.Thread(target=lambda: done.append(sas_egm_main(
        ["--tcp", f"127.0.0.1:{port}", "--address", "1", "--seconds", "4", "--settle", "0", "--no-player"])))
    egm.start()
    for _ in range(100):  # until the emulator listens (a refused connection: rc 2, said on stderr)
        rc = sas_host_main(["--tcp", f"127.0.0.1:{port}", "--machine", "1=A1", "--memory", "--seconds", "2.5",
                            "--report-every", "1", "--response-timeout-ms", "60"])
        if rc != 2:
            break
        time.sleep(0.05)
    egm.join(10)
    out = capsys.readouterr().out
    assert rc == 0 and done == [0]
    assert '"asset": "A1"' in out and '"enrolled": true' in out  # the host's snapshot of the machine it enrolled


def test_the_hosts_metrics_show_each_channels_polls_and_each_machines_link_state():
    """``--metrics-port``: a scrape while the host polls an emulated machine shows the channel's polls and the
    machine online, enrolled and within the poll cycle; a machine at an address nobody answers is offline and
    its polls time out."""
    import httpx

    def free() -> int:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            return s.getsockname()[1]

    port, metrics = free(), free()
    egm = threading.Thread(target=sas_egm_main, args=(
        ["--tcp", f"127.0.0.1:{port}", "--address", "1", "--seconds", "6", "--settle", "0", "--no-player"],))
    egm.start()
    host_done: list[int] = []

    def host() -> None:
        for _ in range(100):  # until the emulator listens (a refused connection: rc 2, said on stderr)
            rc = sas_host_main(
                ["--tcp", f"127.0.0.1:{port}", "--machine", "1=A1", "--machine", "9=A9", "--memory",
                 "--seconds", "4", "--report-every", "1", "--response-timeout-ms", "60",
                 "--metrics-port", str(metrics)])
            if rc != 2:
                host_done.append(rc)
                return
            time.sleep(0.05)

    h = threading.Thread(target=host)
    h.start()
    text, deadline = "", time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            text = httpx.get(f"http://127.0.0.1:{metrics}/metrics", timeout=2).text
        except httpx.HTTPError:
            text = ""
        if 'slotsys_sas_machine_enrolled{address="1",asset="A1",channel=' in text and \
                'slotsys_sas_machine_poll_cycle_p99_seconds{address="1"' in text:
            break
        time.sleep(0.2)
    h.join(15)
    egm.join(15)
    assert host_done == [0]
    values = {line.rsplit(" ", 1)[0]: float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
              if line.startswith("slotsys_sas_")}
    channel = f'127.0.0.1:{port}'
    assert values[f'slotsys_sas_polls_total{{channel="{channel}"}}'] > 0
    assert values[f'slotsys_sas_timeouts_total{{channel="{channel}"}}'] > 0  # address 9 never answers
    assert values[f'slotsys_sas_machine_online{{address="1",asset="A1",channel="{channel}"}}'] == 1
    assert values[f'slotsys_sas_machine_enrolled{{address="1",asset="A1",channel="{channel}"}}'] == 1
    assert values[f'slotsys_sas_machine_online{{address="9",asset="A9",channel="{channel}"}}'] == 0
    assert 0 < values[f'slotsys_sas_machine_poll_cycle_p99_seconds{{address="1",asset="A1",channel="{channel}"}}'] < 1


def test_sas_host_refuses_bad_arguments_with_a_message_not_a_traceback(capsys):
    assert sas_host_main(["--port", "/dev/nonexistent-sas", "--address", "1", "--memory"]) == 2
    assert "slotsys sas-host: error:" in capsys.readouterr().err
    master, slave, path = open_pty_pair()
    try:
        assert sas_host_main(["--port", path, "--address", "200", "--memory"]) == 2
        assert "1..127" in capsys.readouterr().err
    finally:
        os.close(slave)
        os.close(master)
