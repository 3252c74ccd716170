"""The explorer's widgets and where they sit; no behaviour (that is :mod:`corpuskit.explorer.panel`).

Each widget that a browser test looks for carries a ``ck-...`` CSS class.
"""
from __future__ import annotations

from types import SimpleNamespace

from corpuskit.errors import MissingDependencyError


def _ipywidgets():
    try:
        import ipywidgets
    except ImportError:
        raise MissingDependencyError("the explorer needs ipywidgets: pip install 'corpuskit[notebooks]'") from None
    return ipywidgets


def _tagged(widget, css: str):
    widget.add_class(css)
    return widget


def _query_boxes(W, w) -> list:
    rows = []
    for which, hint in (("a", 'query A, e.g. apple AND fbi'), ("b", "query B (optional), to compare")):
        w.query[which] = _tagged(W.Text(placeholder=hint, continuous_update=False, description=which.upper(),
                                        layout={"width": "95%"}), f"ck-query-{which}")
        w.error[which] = _tagged(W.HTML(""), f"ck-error-{which}")
        rows.append(W.VBox([w.query[which], w.error[which]], layout={"width": "49%", "overflow": "hidden"}))
    return rows


def _filters(W, w, state) -> W.Widget:
    facets = state.facets
    w.filters = {
        "since": W.DatePicker(description="from", layout={"width": "250px"}),
        "until": W.DatePicker(description="to", layout={"width": "250px"}),
        "sources": W.SelectMultiple(options=facets["sources"], description="sources", rows=3),
        "languages": W.SelectMultiple(options=facets["languages"], description="languages", rows=3),
        "topics": W.SelectMultiple(options=facets["topics"], description="topics", rows=3),
    }
    w.filter_error = W.HTML("")
    dates = W.VBox([w.filters["since"], w.filters["until"]])
    return W.VBox([W.HBox([dates, w.filters["sources"], w.filters["languages"], w.filters["topics"]],
                          layout={"flex_flow": "row wrap"}),
                   w.filter_error])


def _chart_controls(W, w, state) -> W.Widget:
    w.freq = W.ToggleButtons(options=[("day", "D"), ("week", "W"), ("month", "M")], value=state.freq,
                             style={"button_width": "72px"})
    w.mode = W.ToggleButtons(options=[("share", "share"), ("records", "count")], value=state.mode,
                             style={"button_width": "70px"})
    w.period = _tagged(W.Dropdown(options=[("the whole range", None)], value=None, description="period"),
                       "ck-period")
    return W.HBox([w.freq, w.mode, w.period])


def _panes(W, w) -> W.Widget:
    w.focus = W.ToggleButtons(options=[("query A", "a"), ("query B", "b")], value="a",
                              style={"button_width": "80px"})
    w.records = _tagged(W.HTML(""), "ck-records-pane")
    w.prev, w.next = W.Button(description="◀ newer"), W.Button(description="older ▶")
    w.page_label = W.Label("page 1")
    w.term = _tagged(W.Text(placeholder="a term, phrase or prefix*", description="term",
                            continuous_update=False), "ck-term")
    w.kwic = _tagged(W.HTML(""), "ck-kwic-pane")
    w.against = W.ToggleButtons(options=[("against the rest", "rest"), ("A against B", "other")], value="rest")
    w.keyness = _tagged(W.HTML(""), "ck-keyness-pane")
    w.signals = _tagged(W.HTML(""), "ck-signals-pane")
    w.tabs = W.Tab(children=[
        W.VBox([w.records, W.HBox([w.prev, w.page_label, w.next])]),
        W.VBox([w.term, w.kwic]),
        W.VBox([w.against, w.keyness]),
        w.signals,
    ])
    for i, title in enumerate(("records", "KWIC", "keyness", "signals & stories")):
        w.tabs.set_title(i, title)
    return W.VBox([w.focus, w.tabs])


def _keep_and_code(W, w) -> W.Widget:
    w.keep_name = _tagged(W.Text(placeholder="a name", description="keep as"), "ck-keep-name")
    w.keep_as = W.ToggleButtons(options=["subcorpus", "coding sample"], value="subcorpus")
    w.keep_n = W.BoundedIntText(value=100, min=1, max=100_000, description="records", layout={"width": "160px"})
    w.keep = _tagged(W.Button(description="keep", button_style="success"), "ck-keep")
    w.keep_result = _tagged(W.HTML(""), "ck-keep-result")
    w.code = _tagged(W.Button(description="code", icon="code"), "ck-code")
    w.code_out = _tagged(W.Textarea(value="", layout={"width": "100%", "height": "220px", "display": "none"}),
                         "ck-code-out")
    return W.VBox([W.HBox([w.keep_name, w.keep_as, w.keep_n, w.keep, w.code]), w.keep_result, w.code_out])


def build_widgets(state, figure) -> SimpleNamespace:
    """Every widget of the explorer on ``state``, the chart ``figure`` among them; ``.panel`` holds them all."""
    W = _ipywidgets()
    w = SimpleNamespace(query={}, error={})
    queries = W.HBox(_query_boxes(W, w))
    filters = _filters(W, w, state)
    controls = _chart_controls(W, w, state)
    w.status = _tagged(W.HTML(""), "ck-status-line")
    w.busy = _tagged(W.HTML(""), "ck-busy-line")
    panes = _panes(W, w)
    keep = _keep_and_code(W, w)
    w.panel = _tagged(W.VBox([queries, filters, controls, figure, W.HBox([w.status, w.busy]), panes, keep]),
                      "ck-explorer")
    return w
