"""The attention chart: one line per query with its 95% band, and a dot per period that selects it.

Drawn with bqplot (Apache-2.0), whose marks are ipywidgets: the chart renders wherever the widgets
do (JupyterLab, VS Code, a static HTML export with the widget state saved) and a click on a dot
comes back to Python as an event, with no matplotlib backend involved.
"""
from __future__ import annotations

import numpy as np

from corpuskit.errors import MissingDependencyError

COLOURS = {"a": "#1f77b4", "b": "#d62728"}
_COLUMNS = {"share": ("share", "share_low", "share_high"), "count": ("count", "count_low", "count_high")}


def _bqplot():
    try:
        import bqplot
    except ImportError:
        raise MissingDependencyError("the explorer's chart needs bqplot: pip install 'corpuskit[notebooks]'") from None
    return bqplot


def series(frame, mode: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(x, y, low, high)`` of one query's attention frame: x as naive datetime64, y the share or
    count (a period without records at all plots 0), low/high its interval."""
    value, low, high = _COLUMNS[mode]
    x = frame["period"].dt.tz_localize(None).to_numpy(dtype="datetime64[ns]")
    return (x, *(np.nan_to_num(frame[c].to_numpy(dtype=float)) for c in (value, low, high)))


class AttentionChart:
    """A bqplot figure of attention; ``on_select(index)`` is called with the period a click picks."""

    def __init__(self, on_select):
        bq = _bqplot()
        self.on_select = on_select
        self.x = bq.DateScale()
        self.y = bq.LinearScale(min=0.0)
        scales = {"x": self.x, "y": self.y}
        self.lines, self.bands, self.dots = {}, {}, {}
        for which, colour in COLOURS.items():
            self.bands[which] = bq.Lines(x=[], y=[[], []], scales=scales, fill="between",
                                         colors=[colour, colour], fill_colors=[colour], fill_opacities=[0.15],
                                         opacities=[0.0, 0.0])
            self.lines[which] = bq.Lines(x=[], y=[], scales=scales, colors=[colour], labels=[which.upper()])
            dots = bq.Scatter(x=[], y=[], scales=scales, colors=[colour], default_size=40,
                              interactions={"click": "select"},
                              selected_style={"stroke": "black", "stroke-width": 3, "opacity": 1.0},
                              unselected_style={"opacity": 0.6})
            dots.on_element_click(self._clicked)
            self.dots[which] = dots
        # bands under every line and dots over them all, so a band never takes a dot's click
        marks = list(self.bands.values()) + list(self.lines.values()) + list(self.dots.values())
        axes = [bq.Axis(scale=self.x, side="bottom", label="period"),
                bq.Axis(scale=self.y, side="left", tick_format=".2%", label="share of all records",
                        label_offset="62px")]
        self.figure = bq.Figure(marks=marks, axes=axes, fig_margin={"top": 20, "bottom": 40, "left": 80, "right": 20},
                                layout={"width": "100%", "height": "300px"})
        self.figure.add_class("ck-chart")

    def _clicked(self, mark, event) -> None:
        index = event.get("data", {}).get("index")
        if index is not None:
            self.on_select(int(index))

    def show(self, frames: dict, mode: str, selected: int | None) -> None:
        """Plot ``frames`` (``{query: over_time frame}``) as ``mode`` with period ``selected`` marked."""
        self.figure.axes[1].tick_format = ".2%" if mode == "share" else ",d"
        self.figure.axes[1].label = "share of all records" if mode == "share" else "records"
        # the scale follows the lines, not the bands: a nearly empty period's interval reaches far up
        tops = [float(np.nanmax(series(f, mode)[1])) for f in frames.values() if f is not None and len(f)]
        self.y.max = max(tops) * 1.25 if tops and max(tops) > 0 else None
        for which in COLOURS:
            frame = frames.get(which)
            with self.figure.hold_sync():
                if frame is None or not len(frame):
                    x = np.array([], dtype="datetime64[ns]")
                    y = low = high = np.array([])
                else:
                    x, y, low, high = series(frame, mode)
                self.lines[which].x, self.lines[which].y = x, y
                self.bands[which].x, self.bands[which].y = x, np.vstack([low, high]) if len(x) else [[], []]
                self.dots[which].x, self.dots[which].y = x, y
                self.dots[which].selected = None if selected is None or selected >= len(x) else [selected]
