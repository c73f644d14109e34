"""Slow clients against the node, behind nginx (docker/nginx.conf) and straight at gunicorn, in one run.

    .venv/bin/python bench/slow_clients.py [--slowloris 500] [--slow-body 500] [--seconds 10] [--machines 8]

One gunicorn as production runs it (slotsys.server.gunicorn_conf, 2 workers × 4 threads, SQLite floor, tasks in-process)
and one nginx rendered from the production template (tests/e2e/_nginx.py). For each shape (via nginx, straight
at gunicorn): ``--machines`` machines spin every 0.2 s (each from its own loopback address) and a probe GETs
/healthz every 0.25 s, first with no attack (the baseline of the same run), then while ``--slowloris``
connections trickle header bytes and ``--slow-body`` connections (a machine's key, Content-Length 60,000)
trickle their body, one byte per connection per second (tests/e2e/_slowclients.py; the attacker runs in a
process of its own, so it does not share the GIL with the measured clients). Every request has a 5 s
timeout (a machine's). Prints spins and /healthz p50 / p99 / max of the answered ones and how many failed.
Loopback only; needs nginx (apt-get install -y nginx) and ~2,500 open files.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--slowloris", type=int, default=500)
    ap.add_argument("--slow-body", type=int, default=500)
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--machines", type=int, default=8)
    args = ap.parse_args()

    from slotsys.kernel.settings import Settings
    from tests.conftest import _make_app
    from tests.e2e._gunicorn import gunicorn
    from tests.e2e._nginx import nginx, nginx_binary
    from tests.e2e._slowclients import Floor, SlowClientsProcess, raise_open_files

    import logging

    if not nginx_binary():
        sys.exit("nginx is not installed: apt-get install -y nginx")
    raise_open_files(2 * (args.slowloris + args.slow_body) + 1000)
    tmp = Path(tempfile.mkdtemp(prefix="slotsys-slow-clients-"))
    db = f"sqlite:///{tmp / 'floor.db'}"
    app = _make_app(Settings(database_url=db, redis_url=None, celery_eager=True, credentials_file=tmp / "creds.json"))
    keys = {m["asset"]: m["key"] for m in app.config["DEMO_CREDENTIALS"]["machines"]}
    app.extensions["slotsys"].jackpots.driver.stop()
    app.extensions["slotsys"].uow.engine.dispose()
    logging.getLogger("httpx").setLevel(logging.WARNING)  # not a line per request
    spinners = [f"M{n:03d}" for n in range(1, 21, 2)] + [f"V{n:03d}" for n in range(1, 11, 2)]  # lines games
    machines = {a: keys[a] for a in spinners[: args.machines]}

    rows = []
    with gunicorn(db, tmp, workers=2, threads=4, SLOTSYS_TRUST_PROXY_REQUEST_START="true") as g:
        web_port = int(g["base"].rsplit(":", 1)[1])
        with nginx(tmp, web_port=web_port) as n:
            for shape, base, port, net in (("via nginx", n["base"], n["port"], 10), ("straight at gunicorn", g["base"], web_port, 40)):
                floor = Floor(base, machines, pause=0.2, timeout=5.0)
                floor.credit(notes=4)
                rows.append((shape, "no attack", floor.run(args.seconds).summary(), None))
                attack = SlowClientsProcess("127.0.0.1", port, slowloris=args.slowloris, slow_body=args.slow_body,
                                            machine_key=keys["M002"], per_address=20, net=net).start()
                try:
                    seen = floor.run(args.seconds).summary()
                    held = dict(attack.poll().open_now)
                finally:
                    attack.stop()
                rows.append((shape, f"{args.slowloris} slowloris + {args.slow_body} slow bodies", seen, held))
                time.sleep(2)  # let the node recover before the next shape

    print(f"\nslow clients, {args.machines} machines spinning every 0.2 s + /healthz every 0.25 s, {args.seconds:.0f} s a "
          f"phase, 5 s timeout; gunicorn 2 workers x 4 threads (SQLite floor); nginx from docker/nginx.conf")
    print(f"{'shape':<22} {'phase':<34} {'spins ok/shed/failed':>20} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8} "
          f"{'healthz ok/failed':>17} {'p50 ms':>7} {'p99 ms':>7} {'max ms':>7}")
    for shape, phase, s, _held in rows:
        sp, hz = s["spins"], s["healthz"]
        print(f"{shape:<22} {phase:<34} {sp['ok']:>8}/{sp['shed']:>4}/{sp['failed']:<6} {sp['p50_ms']:>8} {sp['p99_ms']:>8} "
              f"{sp['max_ms']:>8} {hz['ok']:>9}/{hz['failed']:<7} {hz['p50_ms']:>7} {hz['p99_ms']:>7} {hz['max_ms']:>7}")
    for shape, _phase, s, held in rows:
        if held:
            print(f"{shape}: attack connections still open at the end {held}; failures "
                  f"{sorted(set(st for st in s['spins']['statuses'] if st != '200'))}")


if __name__ == "__main__":
    main()
