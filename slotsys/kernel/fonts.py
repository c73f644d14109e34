"""The Hangul font every printed document uses (tickets, day reports, the screens): NanumGothic (SIL OFL), shipped
by the ``koreanize-matplotlib`` wheel, so nothing is downloaded or installed by hand.

Standard library only.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path


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

