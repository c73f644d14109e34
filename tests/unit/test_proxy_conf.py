"""The reverse proxy's template (docker/nginx.conf) and its defaults (docker/nginx.env) agree with each other
and with the app. nginx itself checks and runs it in tests/e2e/test_proxy.py."""

from __future__ import annotations

import re

from slotsys.kernel.settings import Settings
from tests.e2e._nginx import TEMPLATE, defaults, render


def _size(v: str) -> int:
    m = re.fullmatch(r"(\d+)([kKmM]?)", v)
    assert m, v
    return int(m.group(1)) * {"": 1, "k": 1024, "m": 1024 * 1024}[m.group(2).lower()]


def test_every_setting_the_template_uses_has_a_default_and_every_default_is_used():
    used = set(re.findall(r"\$\{(SLOTSYS_PROXY_[A-Z0-9_]+)\}", TEMPLATE.read_text()))
    assert used == set(defaults())


def test_the_body_limit_is_the_apps():
    assert _size(defaults()["SLOTSYS_PROXY_MAX_BODY"]) == Settings.model_fields["max_body_bytes"].default


def test_production_rendering():
    conf = render()
    assert not [line for line in conf.splitlines() if "${" in line.split("#", 1)[0]]
    assert "listen 8080 " in conf and "server web:8000;" in conf and "server streams:8001;" in conf
    assert 'proxy_set_header X-Request-Start "t=$msec";' in conf  # nginx's variable, untouched by the rendering
    assert "proxy_request_buffering on;" in conf
    for path in ("/api/v1/jackpots/stream", "/api/v1/screens/jackpot-stream"):
        block = conf.split(f"location = {path} {{", 1)[1].split("}", 1)[0]
        assert "proxy_pass http://streams;" in block and "proxy_buffering off;" in block
