"""The day report's charts as SVG (matplotlib's Agg-free SVG backend through ``Figure``: no pyplot, no global
state, safe in a threaded server). Labels in Korean or English (``lang`` ``ko`` | ``en``); Hangul is drawn with
NanumGothic (``slotsys.kernel.fonts``, the font the PDF exports use) and every glyph is written as a path
(``svg.fonttype`` ``path``), so the image needs no font and loads nothing from outside the app.

Each data element carries an ``id`` (matplotlib writes an artist's ``gid`` as its group's id) so a reader, or a
test, can count the series: ``hold-<asset>`` (one bar per machine), ``theo`` (one marker, ``<use>``, per machine),
``band`` (one ``<path>`` per machine with a band); ``hour-<i>`` (one bar per hour of the gaming day); ``value-steps`` (the staircase, one
vertex per step) and ``hit-<i>`` (one mark per hit).
"""

from __future__ import annotations

import io
import threading
from collections.abc import Sequence
from functools import lru_cache

from slotsys.accounting.domain.charts import HoldPoint, HourBucket, LevelHistory
from slotsys.kernel.fonts import load_matplotlib
from slotsys.kernel.gaming_day import GamingDay

__all__ = ["hold_svg", "coin_in_svg", "jackpot_svg", "WORDS"]

WORDS = {
    "en": {"hold_title": "Actual hold against theoretical, gaming day {day}",
           "hold_y": "won", "machine": "machine", "actual": "actual hold", "theo": "theoretical hold",
           "band": "E[hold] ± {k:g}·SD (flag band)", "flagged": "outside the band", "no_machines": "no machines",
           "coin_title": "Coin-in by hour, gaming day {day}", "coin_y": "coin-in (won)",
           "hour_x": "hour starting ({zone})",
           "jp_title": "Jackpot {level}: value over gaming day {day}", "jp_y": "value (won)",
           "jp_x": "time ({zone})", "value": "value (ledger)", "hit": "hit (value when decided)"},
    "ko": {"hold_title": "실제 홀드와 이론 홀드, 영업일 {day}",
           "hold_y": "원", "machine": "머신", "actual": "실제 홀드", "theo": "이론 홀드",
           "band": "기대 홀드 ± {k:g}·표준편차 (이상 기준)", "flagged": "기준 밖", "no_machines": "머신 없음",
           "coin_title": "시간대별 코인 인, 영업일 {day}", "coin_y": "코인 인 (원)",
           "hour_x": "시작 시각 ({zone})",
           "jp_title": "잭팟 {level}: 영업일 {day}의 금액", "jp_y": "금액 (원)",
           "jp_x": "시각 ({zone})", "value": "금액 (원장)", "hit": "당첨 (결정 시 금액)"},
}


# matplotlib's rc_context swaps the process-wide rcParams: charts are drawn one at a time, so two requests never
# restore each other's settings (a chart takes 0.1-2 s; the par sheets' PNG charts do not change rcParams).
_DRAWING = threading.Lock()


@lru_cache(maxsize=1)
def _font() -> str:
    """The Hangul font's family name, registered once with matplotlib's font manager."""
    from matplotlib import font_manager

    from slotsys.kernel.fonts import font_paths

    regular, _ = font_paths()
    font_manager.fontManager.addfont(str(regular))
    return font_manager.FontProperties(fname=str(regular)).get_name()


def _figure(width: float = 10, height: float = 4.6):
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), dpi=100)
    return fig, fig.subplots()


def _svg(fig) -> bytes:
    import matplotlib

    buf = io.BytesIO()
    with matplotlib.rc_context({"svg.fonttype": "path", "svg.hashsalt": "slotsys", "font.family": [_font()],
                                "axes.unicode_minus": False}):
        fig.tight_layout()
        fig.savefig(buf, format="svg", metadata={"Date": None})
    return buf.getvalue()


def _won_axis(ax) -> None:
    from matplotlib.ticker import FuncFormatter

    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}"))
    ax.grid(axis="y", alpha=0.3)


def _words(lang: str) -> dict[str, str]:
    return WORDS.get(lang, WORDS["en"])


def hold_svg(points: Sequence[HoldPoint], k: float, day: str, lang: str = "en") -> bytes:
    """Bars of each machine's actual hold (red when flagged), a diamond at its theoretical hold and the band
    E[hold] ± k·SD as an error bar. One artist per series (a floor of 500 machines draws in about a second);
    tick labels thinned to at most 80."""
    load_matplotlib()  # first: one thread imports matplotlib (see kernel.fonts)
    from matplotlib.patches import Patch

    w = _words(lang)
    with _fonts():
        fig, ax = _figure(max(8.0, min(24.0, 2 + 0.35 * len(points))))
        xs = list(range(len(points)))
        bars = ax.bar(xs, [p.hold for p in points], 0.6,
                      color=["tab:red" if p.flagged else "tab:blue" for p in points])
        for p, patch in zip(points, bars.patches):
            patch.set_gid(f"hold-{p.asset}")
        (theo,) = ax.plot(xs, [p.theo for p in points], "D", color="black", markersize=4, label=w["theo"])
        theo.set_gid("theo")
        banded = [(i, p) for i, p in zip(xs, points) if p.low is not None and p.high is not None]
        handles = [Patch(color="tab:blue", label=w["actual"]), theo]
        if any(p.flagged for p in points):
            handles.insert(1, Patch(color="tab:red", label=w["flagged"]))
        if banded:
            band = ax.errorbar([i for i, _ in banded], [p.expected for _, p in banded],
                               yerr=[[p.expected - (p.low or 0.0) for _, p in banded],
                                     [(p.high or 0.0) - p.expected for _, p in banded]],
                               fmt="none", ecolor="tab:orange", capsize=3, label=w["band"].format(k=k))
            band.lines[2][0].set_gid("band")
            handles.append(band)
        step = max(1, -(-len(points) // 80))
        ax.set_xticks(xs[::step], [p.asset for p in points][::step], rotation=90, fontsize=7)
        if not points:
            ax.text(0.5, 0.5, w["no_machines"], ha="center", transform=ax.transAxes)
        ax.axhline(0, color="grey", linewidth=0.8)
        _won_axis(ax)
        ax.set_xlabel(w["machine"])
        ax.set_ylabel(w["hold_y"])
        ax.set_title(w["hold_title"].format(day=day))
        ax.legend(handles=handles, fontsize=8, loc="best")
        return _svg(fig)


def coin_in_svg(hours: Sequence[HourBucket], gd: GamingDay, day: str, lang: str = "en") -> bytes:
    """One bar per hour of the gaming day (its local start time under it)."""
    load_matplotlib()  # first: one thread imports matplotlib (see kernel.fonts)
    w = _words(lang)
    with _fonts():
        fig, ax = _figure()
        for h in hours:
            bar = ax.bar(h.index, h.coin_in, 0.8, color="tab:green")
            bar.patches[0].set_gid(f"hour-{h.index}")
        ax.set_xticks([h.index for h in hours], [h.label for h in hours], rotation=90, fontsize=8)
        _won_axis(ax)
        zone = gd.local(hours[0].start).strftime("%Z") if hours else gd.zone
        ax.set_xlabel(w["hour_x"].format(zone=zone))
        ax.set_ylabel(w["coin_y"])
        ax.set_title(w["coin_title"].format(day=day))
        return _svg(fig)


def jackpot_svg(history: LevelHistory, gd: GamingDay, lang: str = "en") -> bytes:
    """The level's value as a staircase (``where="post"``: a value holds until the next step) with a mark at
    each hit; the time axis in local wall-clock time."""
    load_matplotlib()  # first: one thread imports matplotlib (see kernel.fonts)
    from matplotlib.dates import DateFormatter

    w = _words(lang)
    with _fonts():
        fig, ax = _figure()
        tz = gd.tz
        xs = [s.at.astimezone(tz) for s in history.steps]
        (line,) = ax.step(xs, [s.value for s in history.steps], where="post", color="tab:purple", label=w["value"])
        line.set_gid("value-steps")
        for i, h in enumerate(history.hits):
            (mark,) = ax.plot([h.at.astimezone(tz)], [h.value], "*", color="tab:red", markersize=11,
                              label=w["hit"] if i == 0 else None)
            mark.set_gid(f"hit-{i}")
        ax.xaxis.set_major_formatter(DateFormatter("%H:%M", tz=tz))
        ax.set_xlim(history.start.astimezone(tz), history.end.astimezone(tz))
        _won_axis(ax)
        ax.set_xlabel(w["jp_x"].format(zone=gd.local(history.start).strftime("%Z")))
        ax.set_ylabel(w["jp_y"])
        ax.set_title(w["jp_title"].format(level=history.level, day=history.day.isoformat()))
        _legend(ax)
        return _svg(fig)


def _legend(ax) -> None:
    handles, labels = ax.get_legend_handles_labels()
    seen: dict[str, object] = {}
    for h, label in zip(handles, labels):
        seen.setdefault(label, h)
    if seen:
        ax.legend(list(seen.values()), list(seen), fontsize=8, loc="best")


class _fonts:
    """The Hangul font as matplotlib's family while a chart is drawn (text is laid out when drawn), one chart at a
    time (``_DRAWING``)."""

    def __enter__(self) -> None:
        import matplotlib

        family = _font()  # registered before the lock: font_manager has its own
        _DRAWING.acquire()
        try:
            self._rc = matplotlib.rc_context({"font.family": [family], "axes.unicode_minus": False})
            self._rc.__enter__()
        except BaseException:
            _DRAWING.release()
            raise

    def __exit__(self, *exc) -> None:
        try:
            self._rc.__exit__(*exc)
        finally:
            _DRAWING.release()
