"""The cost of reading request bodies strictly (slotsys/app/api/guards.py: UTF-8 only, duplicate keys refused)
against Flask's default JSON provider, in the same run, on the bodies the floor sends most (a spin, a bill-in,
a table bet) and on a 60 KiB body near the size limit. Pure CPU, one thread: microseconds per body.

    .venv/bin/python bench/json_strict.py [--rounds 20000]
"""

from __future__ import annotations

import argparse
import json
import time

from flask import Flask
from flask.json.provider import DefaultJSONProvider

from slotsys.app.api.guards import StrictJSONProvider

BODIES = {
    "spin": b'{"lines": 25, "multiplier": 2}',
    "bill-in": b'{"amount": 50000}',
    "table bet": b'{"spot": "banker", "amount": 100000, "player_id": 17}',
    "60 KiB": json.dumps({"rows": [{"id": i, "reason": "x" * 40} for i in range(1100)]}).encode(),
}


def per_body_us(provider, body: bytes, rounds: int) -> float:
    best = float("inf")
    for _ in range(3):  # best of three: the box is shared
        t0 = time.perf_counter()
        for _ in range(rounds):
            provider.loads(body)
        best = min(best, time.perf_counter() - t0)
    return best / rounds * 1e6


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=20_000)
    args = ap.parse_args()
    app = Flask(__name__)
    default, strict = DefaultJSONProvider(app), StrictJSONProvider(app)
    print(f"{'body':<10} {'bytes':>7} {'default µs':>11} {'strict µs':>10} {'ratio':>6}")
    for name, body in BODIES.items():
        rounds = args.rounds if len(body) < 1000 else max(50, args.rounds // 200)
        d, s = per_body_us(default, body, rounds), per_body_us(strict, body, rounds)
        print(f"{name:<10} {len(body):>7} {d:>11.2f} {s:>10.2f} {s / d:>6.2f}")


if __name__ == "__main__":
    main()
