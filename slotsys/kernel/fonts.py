"""The Hangul font every printed document uses (tickets, day reports, the screens): NanumGothic (SIL OFL), shipped
by the ``koreanize-matplotlib`` wheel, so nothing is downloaded or installed by hand.

Standard library only at import time; :func:`load_matplotlib` imports matplotlib when a chart is first drawn.
"""

from __future__ import annotations

import importlib
import importlib.util
import threading
from pathlib import Path

# the matplotlib modules the charts draw with (Figure, artists, tick formatters, dates, fonts, the SVG and PNG writers)
_MATPLOTLIB_MODULES = ("matplotlib", "matplotlib.figure", "matplotlib.patches", "matplotlib.ticker", "matplotlib.dates",
                       "matplotlib.font_manager", "matplotlib.backends.backend_svg", "matplotlib.backends.backend_agg")
_MATPLOTLIB_LOCK = threading.Lock()
_matplotlib_loaded = False


def load_matplotlib() -> None:
    """Import the matplotlib modules charts are drawn with, once per process and by one thread. Call it before any
    ``from matplotlib… import`` on a server thread: matplotlib's modules import each other circularly, and two
    threads importing them at once can hand one a half-initialised module (``cannot import name 'Transform' from
    partially initialized module 'matplotlib.transforms'``) and leave matplotlib broken for the process. After the
    first call it is a flag check."""
    global _matplotlib_loaded
    if _matplotlib_loaded:
        return
    with _MATPLOTLIB_LOCK:
        if not _matplotlib_loaded:
            for name in _MATPLOTLIB_MODULES:
                importlib.import_module(name)
            _matplotlib_loaded = True


# ------------------------------------------------------------------------ fonts
def font_paths() -> tuple[Path, Path]:
    """(regular, bold) NanumGothic TTF paths. Raises ``RuntimeError`` if the font package is missing."""
    spec = importlib.util.find_spec("koreanize_matplotlib")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("the Hangul font (NanumGothic) is missing: install koreanize-matplotlib (NanumGothic)")
    base = Path(next(iter(spec.submodule_search_locations))) / "fonts"
    regular, bold = base / "NanumGothic.ttf", base / "NanumGothicBold.ttf"
    if not regular.is_file() or not bold.is_file():
        raise RuntimeError(f"the Hangul font (NanumGothic) is missing under {base}")
    return regular, bold

