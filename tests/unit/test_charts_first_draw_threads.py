"""The first charts a fresh process draws may come from several threads at once (the day report's page asks for
its three SVGs together; gunicorn serves them on three threads). matplotlib's modules import each other
circularly, so importing them from several threads at once can hand a thread a half-initialised module
(``cannot import name … from partially initialized module 'matplotlib.ticker'``) and leave matplotlib broken for the
process (``module 'matplotlib' has no attribute 'get_data_path'``): every chart a 500 until a restart. Found when
the CI's browser test of the day report loaded the three charts at once."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

_SCRIPT = textwrap.dedent("""
    import sys, threading
    from datetime import date, datetime, timezone
    sys.path.insert(0, sys.argv[1])
    from slotsys.accounting.adapters import charts_svg as C
    from slotsys.accounting.domain.charts import LevelHistory
    from slotsys.app.screens import _chart
    from slotsys.kernel.gaming_day import GamingDay

    gd, t = GamingDay(), datetime(2026, 12, 1, tzinfo=timezone.utc)
    draws = [lambda: C.hold_svg([], 3.0, "2026-12-01"), lambda: C.coin_in_svg([], gd, "2026-12-01", "ko"),
             lambda: C.jackpot_svg(LevelHistory("MASS_MINOR", date(2026, 12, 1), t, t, [], []), gd),
             lambda: _chart("dragon_pearl_50", "", "rtp")] * 2
    start, errors = threading.Barrier(len(draws)), []

    def draw(fn):
        start.wait()
        try:
            fn()
        except Exception as e:
            errors.append(repr(e)[:200])

    threads = [threading.Thread(target=draw, args=(fn,)) for fn in draws]
    [th.start() for th in threads]
    [th.join() for th in threads]
    print(errors)
    sys.exit(1 if errors else 0)
""")


def test_the_first_charts_of_a_process_drawn_by_several_threads_at_once():
    for _ in range(3):  # a fresh interpreter each time: the race is in the first imports
        r = subprocess.run([sys.executable, "-c", _SCRIPT, str(ROOT)], capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
