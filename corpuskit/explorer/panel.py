"""The explorer's widgets and how they call :class:`~corpuskit.explorer.state.ExplorerState`.

:class:`Explorer` lays the widgets out (:mod:`corpuskit.explorer.layout`) and holds one ``on_*``
method per interaction; each sets the state and redraws what it changed, so a test calls
``on_query("a", "apple")`` or ``on_period(3)`` and reads the widgets' values, with no browser.
Answers that grow with the selection (keyness reads the selection's texts; the rest of the corpus
comes from the term counts analyse keeps) run only when their tab is open, behind the busy indicator.
"""
from __future__ import annotations

import time
from contextlib import contextmanager

from corpuskit.errors import CorpusKitError
from corpuskit.explorer import views
from corpuskit.explorer.chart import AttentionChart
from corpuskit.explorer.layout import build_widgets
from corpuskit.explorer.selection import period_label
from corpuskit.explorer.state import ExplorerState

#: Tabs of the linked panes, in order.
TABS = ("records", "kwic", "keyness", "signals")


class Explorer:
    """An explorer panel on ``corpus``: ``explorer.widget`` is what a notebook displays.

    ``timings`` holds the seconds of the last redraw of each part (the chart, each pane)."""

    def __init__(self, corpus, a: str = "", b: str = "", freq: str = "W", mode: str = "share"):
        self.state = ExplorerState(corpus, freq=freq, mode=mode)
        self.chart = AttentionChart(self.on_period)
        self.w = build_widgets(self.state, self.chart.figure)
        self.timings: dict = {}
        self._signals_drawn = None
        # the first queries are set before the observers are wired, which would redraw once more
        self.w.query["a"].value, self.w.query["b"].value = a, b
        self._wire()
        self.on_query("a", a)
        if b:
            self.on_query("b", b)

    @property
    def widget(self):
        """The panel (an ``ipywidgets.VBox``)."""
        return self.w.panel

    def _ipython_display_(self):
        from IPython.display import display

        display(self.widget)

    def _wire(self) -> None:
        w = self.w
        for which in ("a", "b"):
            w.query[which].observe(lambda ch, which=which: self.on_query(which, ch["new"]), "value")
        for name in ("since", "until", "sources", "languages", "topics"):
            w.filters[name].observe(lambda ch: self.on_filters(), "value")
        w.freq.observe(lambda ch: self.on_freq(ch["new"]), "value")
        w.mode.observe(lambda ch: self.on_mode(ch["new"]), "value")
        w.period.observe(lambda ch: self.on_period(ch["new"]), "value")
        w.focus.observe(lambda ch: self.on_focus(ch["new"]), "value")
        w.against.observe(lambda ch: self.on_against(ch["new"]), "value")
        w.term.observe(lambda ch: self.on_term(ch["new"]), "value")
        w.tabs.observe(lambda ch: self.on_tab(ch["new"]), "selected_index")
        w.prev.on_click(lambda _: self.on_page(-1))
        w.next.on_click(lambda _: self.on_page(1))
        w.keep.on_click(lambda _: self.on_keep())
        w.code.on_click(lambda _: self.on_code())

    @contextmanager
    def busy(self, what: str):
        """Show the busy indicator while ``what`` is computed; record its seconds in ``timings``.

        Yields a callable ``progress(done, total)`` that shows how far ``what`` has come (records
        read of those to read) on the indicator."""
        self.w.busy.value = views.busy_html(what)
        start = time.perf_counter()
        try:
            yield lambda done, total: setattr(self.w.busy, "value", views.busy_html(what, done, total))
        finally:
            self.timings[what] = time.perf_counter() - start
            self.w.busy.value = ""

    # -- callbacks ----------------------------------------------------------------------------------
    def on_query(self, which: str, text: str) -> None:
        """Query A or B typed: show its error inline, or redraw the chart and panes."""
        self.w.error[which].value = views.error_html(self.state.set_query(which, text))
        self.redraw()

    def on_filters(self) -> None:
        """A date, source, language or topic filter changed."""
        f = self.w.filters
        try:
            since, until = f["since"].value, f["until"].value
            self.state.set_filters(since=since and f"{since.isoformat()}T00:00:00Z",
                                   until=until and f"{until.isoformat()}T23:59:59Z", sources=f["sources"].value,
                                   languages=f["languages"].value, topics=f["topics"].value)
            self.w.filter_error.value = ""
        except CorpusKitError as err:
            self.w.filter_error.value = views.error_html(str(err))
            return
        self.redraw()

    def on_freq(self, freq: str) -> None:
        """Days, weeks or months on the chart."""
        self.state.set_freq(freq)
        self.redraw()

    def on_mode(self, mode: str) -> None:
        """Share with its interval, or raw counts."""
        self.state.set_mode(mode)
        self.draw_chart()

    def on_period(self, index) -> None:
        """A period picked, on the chart or in the period list (None: the whole range)."""
        if index == self.state.period:
            return
        self.state.select_period(index)
        if self.w.period.value != index:
            self.w.period.value = index
        self.draw_chart()
        self.draw_panes()

    def on_focus(self, which: str) -> None:
        """The panes show query A or B."""
        self.state.set_focus(which)
        self.draw_panes()

    def on_against(self, against: str) -> None:
        """Keyness against the other query or the rest of the corpus."""
        self.state.set_against(against)
        self.draw_keyness()

    def on_term(self, term: str) -> None:
        """The KWIC term typed."""
        self.state.set_term(term)
        self.draw_kwic()

    def on_tab(self, index) -> None:
        """A pane's tab opened: draw it if it is drawn only when shown."""
        if index is not None and TABS[index] == "keyness":
            self.draw_keyness()
        elif index is not None and TABS[index] == "kwic":
            self.draw_kwic()

    def _tab(self) -> str:
        return TABS[self.w.tabs.selected_index or 0]

    def on_page(self, step: int) -> None:
        """The previous or next page of records."""
        self.state.set_page(max(0, self.state.page + step))
        self.draw_records()

    def on_keep(self) -> None:
        """Keep the selection as a named subcorpus or a coding sample."""
        try:
            kept = self.state.keep(self.w.keep_name.value, as_sample=self.w.keep_as.value == "coding sample",
                                   n=self.w.keep_n.value)
        except CorpusKitError as err:
            self.w.keep_result.value = views.error_html(str(err))
            return
        if self.w.keep_as.value == "coding sample":
            message = f"coding sample {kept.name!r} stored: {len(kept.records)} records (corpus.codes(sample=...))"
        else:
            message = f"kept as explorer.state.kept[{self.w.keep_name.value.strip()!r}]: {kept!r}"
        self.w.keep_result.value = f'<span class="ck-kept">{views.html.escape(message)}</span>'

    def on_code(self) -> None:
        """Show the Python that reproduces the view."""
        self.w.code_out.value = self.state.code()
        self.w.code_out.layout.display = None

    # -- drawing ----------------------------------------------------------------------------------
    def redraw(self) -> None:
        """Redraw the period list, the chart and the panes after a change of query or filter."""
        if any(self.state.composed(which) for which in ("a", "b")):
            # every record's time is read on the first query (a second or so at a million records)
            with self.busy("publication times") as progress:
                self.state.times.refresh(progress)
        with self.busy("chart"):
            frames = self.state.attention()
        options = [("the whole range", None)] + [(period_label(p, self.state.freq), i)
                                                 for i, p in enumerate(self.state.periods())]
        with self.w.period.hold_trait_notifications():
            self.w.period.options = options
            self.w.period.value = None
        self.chart.show(frames, self.state.mode, self.state.period)
        self.draw_panes()

    def draw_chart(self) -> None:
        self.chart.show(self.state.attention(), self.state.mode, self.state.period)

    def draw_panes(self) -> None:
        """The status line and every pane (keyness, and the KWIC lines of a term, only while their tab
        is open)."""
        with self.busy("counts"):
            self.w.status.value = views.status_html(self.state, self.state.counts())
        self.draw_records()
        if not self.state.term or self._tab() == "kwic":
            self.draw_kwic()
        else:
            # a term absent from the selection reads every text of it: drawn when its tab is open
            self.w.kwic.value = '<i class="ck-kwic ck-empty">open this tab to see the lines of the term</i>'
        self.draw_signals()
        if self._tab() == "keyness":
            self.draw_keyness()
        else:
            self.w.keyness.value = '<i class="ck-keyness ck-empty">open this tab to compute keyness</i>'
        if self.w.code_out.layout.display is None:
            self.on_code()

    def draw_records(self) -> None:
        with self.busy("records"):
            frame = self.state.records_page()
        self.w.records.value = views.table_html(frame, "ck-records", "no records in the selection")
        self.w.page_label.value = f"page {self.state.page + 1}"

    def draw_kwic(self) -> None:
        with self.busy("kwic"):
            self.w.kwic.value = views.kwic_html(self.state.kwic(), self.state.term)

    def draw_keyness(self) -> None:
        with self.busy("keyness") as progress:
            frame = self.state.keyness(progress)
        self.w.keyness.value = views.table_html(frame, "ck-keyness", "no key terms (an empty side or too few words)")

    def draw_signals(self) -> None:
        with self.busy("signals"):
            signals, stories = self.state.signals(), self.state.stories()
        drawn = self._signals_drawn
        if drawn is not None and drawn[0] is signals and drawn[1] is stories:     # remembered: drawn already
            return
        self._signals_drawn = (signals, stories)
        self.w.signals.value = ("<h4>signals</h4>" + views.table_html(signals, "ck-signals", "no signal in the selection")
                                + "<h4>stories</h4>" + views.table_html(stories, "ck-stories", "no story in the selection"))


def explore(corpus, a: str = "", b: str = "", freq: str = "W", mode: str = "share") -> Explorer:
    """An explorer on ``corpus`` (see :class:`Explorer`); ``a``/``b`` are the first queries, ``freq``
    the chart's period (``D``, ``W``, ``M``) and ``mode`` ``share`` or ``count``."""
    return Explorer(corpus, a=a, b=b, freq=freq, mode=mode)
