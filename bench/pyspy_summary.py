"""Summarise py-spy collapsed stacks (``py-spy record --format raw``, as ``bench/floor_load.py --pyspy DIR``
writes them): the share of samples in each function (self) and under each function (inclusive), across files.

    .venv/bin/python bench/pyspy_summary.py DIR [--top 40] [--match slotsys]
"""

from __future__ import annotations

import argparse
import collections
import re
from pathlib import Path


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir")
    ap.add_argument("--top", type=int, default=40)
    ap.add_argument("--match", default="", help="inclusive table: only frames whose text contains this")
    args = ap.parse_args()
    own: collections.Counter = collections.Counter()
    incl: collections.Counter = collections.Counter()
    total = 0
    idle = 0
    for f in Path(args.dir).glob("*.txt"):
        for line in f.read_text().splitlines():
            stack, _, n = line.rpartition(" ")
            if not stack:
                continue
            n = int(n)
            frames = [re.sub(r":\d+\)$", ")", fr) for fr in stack.split(";")]
            total += n
            leaf = frames[-1]
            if any(w in leaf for w in ("select (selectors", "wait (threading", "accept (socket", "poll (selectors", "sleep (")):
                idle += n
            own[leaf] += n
            for fr in set(frames):
                incl[fr] += n
    busy = total - idle
    print(f"{total:,} samples, {idle:,} idle (waiting for work), {busy:,} busy")
    print("\n-- self (share of busy samples)")
    for fr, n in own.most_common(args.top):
        print(f"{n / max(busy, 1):7.1%}  {fr[:150]}")
    print(f"\n-- inclusive (share of busy samples){' matching ' + args.match if args.match else ''}")
    k = 0
    for fr, n in incl.most_common():
        if args.match and args.match not in fr:
            continue
        print(f"{n / max(busy, 1):7.1%}  {fr[:150]}")
        k += 1
        if k >= args.top:
            break
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
