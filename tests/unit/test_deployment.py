"""docker/compose.yaml, docker/Dockerfile and .dockerignore: the deployment's essentials, checked by parsing
them (no Docker engine runs in CI). A compose file that regressed on any of these would not start or not
recover: a root-owned credentials path, a missing restart policy, a web command overriding the worker class."""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = yaml.safe_load((ROOT / "docker" / "compose.yaml").read_text())
SERVICES = COMPOSE["services"]
DOCKERFILE = (ROOT / "docker" / "Dockerfile").read_text()
APP_SERVICES = ("migrate", "web", "streams", "worker", "beat", "sequencer")
LONG_RUNNING = ("postgres", "redis", "web", "streams", "proxy", "worker", "beat", "sequencer")


def _cmd(service: str) -> list[str]:
    return SERVICES[service]["command"]


def _dockerfile_cmd() -> list[str]:
    m = re.search(r"^CMD (\[.*\])\s*$", DOCKERFILE, re.M)
    assert m, "the Dockerfile has an exec-form CMD"
    return json.loads(m.group(1))


def test_every_long_running_service_restarts_and_has_a_healthcheck():
    assert set(LONG_RUNNING) | {"migrate"} == set(SERVICES)
    for name in LONG_RUNNING:
        assert SERVICES[name].get("restart") == "unless-stopped", name
        test = SERVICES[name].get("healthcheck", {}).get("test")
        assert isinstance(test, list) and test[0] in ("CMD", "CMD-SHELL") and len(test) > 1, name
    assert SERVICES["migrate"]["restart"] == "no"  # one-shot


def test_app_services_run_as_non_root_and_keep_credentials_on_the_named_volume():
    assert "credentials" in COMPOSE["volumes"]
    for name in APP_SERVICES:
        svc = SERVICES[name]
        assert svc.get("user") and not str(svc["user"]).startswith(("0", "root")), name
        assert "credentials:/var/lib/slotsys" in svc["volumes"], name
        creds = svc["environment"]["SLOTSYS_CREDENTIALS_FILE"]
        assert creds.startswith("/var/lib/slotsys/"), name
    # the image: a non-root user that owns the volume's mount point (Docker seeds a new named volume from it)
    assert re.search(r"^USER slotsys\s*$", DOCKERFILE, re.M)
    assert "useradd --system --uid 1000" in DOCKERFILE
    assert "chown slotsys:slotsys /var/lib/slotsys" in DOCKERFILE
    assert "SLOTSYS_CREDENTIALS_FILE=/var/lib/slotsys/" in DOCKERFILE
    assert SERVICES["migrate"]["command"][-1].endswith("slotsys migrate && slotsys seed")


def test_web_keeps_the_conf_worker_class_and_matches_the_image_cmd():
    web = _cmd("web")
    for cmd in (web, _dockerfile_cmd()):
        assert cmd[:3] == ["gunicorn", "-c", "python:slotsys.server.gunicorn_conf"]
        assert not any(a.startswith(("--worker-class", "-k")) for a in cmd), cmd
        assert cmd[-1] == "slotsys.app.wsgi:app"
    assert web == _dockerfile_cmd()
    conf = (ROOT / "slotsys" / "server" / "gunicorn_conf.py").read_text()
    assert 'worker_class = "slotsys.server.gunicorn_worker.AdmissionWorker"' in conf
    assert web[web.index("--bind") + 1] == "0.0.0.0:8000"


def test_proxy_and_streams():
    proxy = SERVICES["proxy"]
    assert proxy["image"].startswith("nginx:")  # the official (Debian-based) image
    # docker/nginx.conf is a template rendered by the image's entrypoint from nginx.env
    assert "./nginx.conf:/etc/nginx/templates/nginx.conf.template:ro" in proxy["volumes"]
    assert proxy["env_file"] == "nginx.env"
    assert proxy["environment"]["NGINX_ENVSUBST_FILTER"] == "^SLOTSYS_PROXY_"
    assert SERVICES["web"]["environment"]["SLOTSYS_TRUST_PROXY_REQUEST_START"] == "true"
    assert "ports" not in SERVICES["web"]  # only the proxy faces clients
    assert "8080:8080" in proxy["ports"]
    assert set(proxy["depends_on"]) == {"web", "streams"}
    streams = SERVICES["streams"]
    assert streams["command"] == ["slotsys", "streams", "--host", "0.0.0.0", "--port", "8001"]
    assert streams["build"] == SERVICES["web"]["build"]  # the same app image
    for name in ("web", "streams", "worker", "beat"):
        assert SERVICES[name]["depends_on"]["migrate"] == {"condition": "service_completed_successfully"}


def test_exactly_one_beat():
    beats = [n for n, s in SERVICES.items() if "beat" in s.get("command", [])]
    assert beats == ["beat"]
    assert "replicas" not in SERVICES["beat"].get("deploy", {})


def test_dockerignore_keeps_the_build_context_small():
    ignored = {line.strip() for line in (ROOT / ".dockerignore").read_text().splitlines()
               if line.strip() and not line.startswith("#")}
    assert {".venv", "var", ".git", "**/__pycache__", ".pytest_cache"} <= ignored
    # everything the Dockerfile copies stays in the context
    for src in re.findall(r"^COPY (.+) \S+$", DOCKERFILE, re.M):
        for path in src.split():
            assert path not in ignored, path


def test_only_the_sequencer_service_folds_jackpot_wagers_with_a_standby():
    """Every app service runs the ``process`` sequencer mode (no web process folds); the sequencer service
    runs ``slotsys sequencer`` twice (one active by lease, one standby)."""
    for name in APP_SERVICES:
        assert SERVICES[name]["environment"]["SLOTSYS_JACKPOT_SEQUENCER"] == "process", name
    seq = SERVICES["sequencer"]
    assert seq["command"][:2] == ["slotsys", "sequencer"] and seq["deploy"]["replicas"] >= 2
