"""A real nginx for the tests and benches, from the production template ``docker/nginx.conf`` and its defaults
``docker/nginx.env`` (no second copy of either): rendered with free ports and a private state directory,
started in the foreground (``daemon off``) in its own process group, stopped on exit."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path
from typing import Iterator

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = ROOT / "docker" / "nginx.conf"
DEFAULTS = ROOT / "docker" / "nginx.env"
_VAR = re.compile(r"\$\{(SLOTSYS_PROXY_[A-Z0-9_]+)\}")


def nginx_binary() -> str | None:
    """Debian's nginx (``apt-get install nginx``), or None when it is not installed."""
    return shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx", "/usr/local/sbin/nginx") if os.access(p, os.X_OK)),
                                         None)


def defaults() -> dict[str, str]:
    """``docker/nginx.env`` as a dict (``KEY=value`` lines; one pair of surrounding quotes is removed, as
    compose and a shell do)."""
    out = {}
    for line in DEFAULTS.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        key, _, value = line.partition("=")
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        out[key.strip()] = value
    return out


def render(**overrides: str) -> str:
    """The template with every ``${SLOTSYS_PROXY_*}`` filled from the defaults and ``overrides`` (names without
    the ``SLOTSYS_PROXY_`` prefix, e.g. ``LISTEN="127.0.0.1:8080"``). Nothing else is touched (nginx's own
    ``$variables`` stay). Raises KeyError for an override the template does not use, or a name with no value."""
    values = defaults()
    for k, v in overrides.items():
        name = "SLOTSYS_PROXY_" + k
        if name not in values:
            raise KeyError(f"{name} is not a setting of docker/nginx.conf (docker/nginx.env)")
        values[name] = str(v)
    text = TEMPLATE.read_text()
    missing = sorted(set(_VAR.findall(text)) - set(values))
    if missing:
        raise KeyError(f"docker/nginx.conf uses {missing}, which docker/nginx.env does not define")
    return _VAR.sub(lambda m: values[m.group(1)], text)


def _listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


@contextlib.contextmanager
def nginx(tmp: Path, *, web_port: int, streams_port: int | None = None, **overrides: str) -> Iterator[dict]:
    """nginx on a free loopback port in front of ``127.0.0.1:web_port`` (and the streams upstream on
    ``streams_port``, by default the same), state and logs under ``tmp/nginx``. ``overrides`` as in
    :func:`render`. Yields ``{"base", "port", "log", "access_log", "conf", "proc"}``."""
    from tests.integration._procs import free_port

    binary = nginx_binary()
    assert binary, "nginx is not installed (apt-get install -y nginx)"
    prefix = tmp / "nginx"
    state = prefix / "state"
    state.mkdir(parents=True, exist_ok=True)
    port = free_port()
    access_log = prefix / "access.log"
    settings = dict(LISTEN=f"127.0.0.1:{port}", WEB_UPSTREAM=f"127.0.0.1:{web_port}",
                    STREAMS_UPSTREAM=f"127.0.0.1:{streams_port or web_port}", STATE_DIR=str(state),
                    ACCESS_LOG=f"{access_log} slotsys")
    settings.update(overrides)
    conf = prefix / "nginx.conf"
    conf.write_text(render(**settings))
    # as root, nginx's workers would run as nobody, who cannot enter pytest's private temporary directory
    glob = "daemon off;" + (" user root;" if os.geteuid() == 0 else "")
    log = prefix / "nginx.log"
    with open(log, "ab") as fh:
        proc = subprocess.Popen([binary, "-p", f"{prefix}/", "-c", str(conf), "-g", glob], stdout=fh,
                                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 20
        while not _listening(port):
            assert proc.poll() is None and time.monotonic() < deadline, log.read_text(errors="replace")[-3000:]
            time.sleep(0.1)
        yield {"base": f"http://127.0.0.1:{port}", "port": port, "log": log, "access_log": access_log, "conf": conf,
               "proc": proc}
    finally:
        _stop(proc)


def _stop(proc: subprocess.Popen) -> None:
    """SIGTERM (nginx's fast shutdown: open connections are closed), then SIGKILL whatever is left of the group."""
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=15)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            pass
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pass
