"""The explorer's state and every answer it shows, without a widget: each callback of the panel is a
method here, so it is tested in Python without a browser (``tests/test_explore.py``).

Every answer goes through the public library: ``corpus.query(...)`` gives a
:class:`~corpuskit.subcorpus.Subcorpus`, and its ``over_time``, ``records``, ``kwic``, ``terms`` and
``compare`` give the chart and the panes; ``corpus.signals`` and ``corpus.stories`` the signals and
stories of the selection; ``corpus.sample`` a kept coding sample. :meth:`ExplorerState.code` prints
those same calls, so a view is reproduced by running its code.
"""
from __future__ import annotations

import pandas as pd

from corpuskit.analysis.attention import attention_frame
from corpuskit.errors import ValidationError
from corpuskit.explorer.selection import FREQUENCIES, PANDAS_FREQ, Filters, compose, period_bounds, period_label
from corpuskit.explorer.record_times import RecordTimes
from corpuskit.explorer.timeline import Timeline
from corpuskit.query import QuerySyntaxError
from corpuskit.query.overview import record_facets

QUERIES = ("a", "b")
#: What the chart plots: each query's share of all records, or its raw count.
MODES = ("share", "count")
#: What keyness sets the focused query against: the other query, or the rest of the corpus.
AGAINST = ("other", "rest")
KWIC_LIMIT = 50
KEY_TERMS = 20
RECORD_COLUMNS = ("id", "author", "publishedAt", "source", "text", "url")
_PAGE_COLUMNS = ["id", "author", "publishedAt", "source", "title", "contentText", "url"]
#: Selections whose Subcorpus (and its ids) is kept, oldest dropped first.
SUBCORPORA_KEPT = 16


class ExplorerState:
    """Queries A and B, the filters, the chart's period and mode, the selected period, the focused
    query, the KWIC term and the records page; and the answers they give.

    ``corpus`` is a :class:`corpuskit.Corpus`. Changing an input (``set_*``, :meth:`select_period`)
    never reads the corpus; each answer (:meth:`attention`, :meth:`records_page`, ...) reads it then.
    """

    def __init__(self, corpus, a: str = "", b: str = "", freq: str = "W", mode: str = "share",
                 page_size: int = 20):
        self.corpus = corpus
        self.facets = record_facets(corpus.conn)
        self.queries = {"a": "", "b": ""}
        self.errors: dict = {"a": None, "b": None}
        self.filters = Filters()
        self.freq, self.mode = "W", "share"
        self.period: int | None = None
        self.focus, self.against = "a", "rest"
        self.term, self.page, self.page_size = "", 0, int(page_size)
        self.kept: dict = {}
        self._attention: dict | None = None
        self._subcorpora: dict = {}
        self._timelines: dict = {}
        self._answers: dict = {}     # the signals and stories last answered, with what they hold for
        #: Every record's publication second (:class:`~corpuskit.explorer.record_times.RecordTimes`),
        #: read when a query is first answered.
        self.times = RecordTimes(corpus.conn)
        self.set_freq(freq)
        self.set_mode(mode)
        self.set_query("a", a)
        self.set_query("b", b)

    # -- inputs -------------------------------------------------------------------------------
    def set_query(self, which: str, text: str) -> str | None:
        """Set query A or B; returns the syntax error with its caret line (None when it parses).

        A query that does not parse selects nothing until it is fixed."""
        which = _choice(which, "query", QUERIES)
        self.queries[which] = (text or "").strip()
        self.errors[which] = None
        if self.queries[which]:
            try:
                self.corpus.query(self.queries[which])
            except QuerySyntaxError as err:
                self.errors[which] = str(err)
        self._changed()
        return self.errors[which]

    def set_filters(self, since=None, until=None, sources=(), languages=(), topics=()) -> None:
        """Set the date range (ISO timestamps or dates, None for open) and the sources, languages and
        topics kept (empty: all). Values outside the corpus's lists raise ValidationError."""
        from corpuskit.frames import timestamp

        for name, values in (("sources", sources), ("languages", languages), ("topics", topics)):
            unknown = sorted(set(values) - set(self.facets[name]))
            if unknown:
                raise ValidationError(f"unknown {name}: {', '.join(map(str, unknown))}")
        filters = Filters(timestamp(since, "since"), timestamp(until, "until"),
                          tuple(sorted(sources)), tuple(sorted(languages)), tuple(sorted(topics)))
        if filters.since and filters.until and filters.since > filters.until:
            raise ValidationError(f"since ({filters.since}) is after until ({filters.until})")
        self.filters = filters
        self._changed()

    def set_freq(self, freq: str) -> None:
        """Plot per day (``D``), week (``W``) or month (``M``); clears the selected period."""
        self.freq = _choice(freq, "freq", FREQUENCIES)
        self._changed()

    def set_mode(self, mode: str) -> None:
        """Plot each query's ``share`` of all records (with its interval) or its raw ``count``."""
        self.mode = _choice(mode, "mode", MODES)

    def set_focus(self, which: str) -> None:
        """Which query the panes (records, KWIC, keyness) show."""
        self.focus = _choice(which, "focus", QUERIES)
        self.page = 0

    def set_against(self, against: str) -> None:
        """Keyness against the ``other`` query or the ``rest`` of the corpus."""
        self.against = _choice(against, "against", AGAINST)

    def set_term(self, term: str) -> None:
        """The term (word, phrase or prefix*) of the KWIC pane."""
        self.term = (term or "").strip()

    def set_page(self, page: int) -> None:
        """The page of records shown (0 first)."""
        if isinstance(page, bool) or not isinstance(page, int) or page < 0:
            raise ValidationError(f"page must be a whole number from 0, not {page!r}")
        self.page = page

    def select_period(self, index: int | None) -> None:
        """Select the ``index``-th period of the chart (None: the whole range) for the panes."""
        if index is not None:
            n = len(self.periods())
            if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < n:
                raise ValidationError(f"period must be None or an index from 0 to {n - 1}, not {index!r}")
        self.period = index
        self.page = 0

    def _changed(self) -> None:
        self._attention = None
        self.period = None
        self.page = 0

    # -- what is selected ---------------------------------------------------------------------------
    def range(self) -> tuple[str | None, str | None]:
        """The chart's bounds: the filters' dates, else the first and last day with a record."""
        first, last = self.facets["first"], self.facets["last"]
        return (self.filters.since or (first and first[:10] + "T00:00:00Z"),
                self.filters.until or (last and last[:10] + "T23:59:59Z"))

    def composed(self, which: str) -> str:
        """Query A or B with the filters' clause, as ``corpus.query`` takes it ('' when unusable)."""
        if self.errors[which]:
            return ""
        return compose(self.queries[which], self.filters)

    def bounds(self) -> tuple[str | None, str | None]:
        """The selected period's first and last second, or the filters' dates for the whole range."""
        if self.period is None:
            return self.filters.since, self.filters.until
        start = self.periods()[self.period]
        return period_bounds(start, self.freq, *self.range())

    def subcorpus(self, which: str, selected: bool = True):
        """The :class:`~corpuskit.subcorpus.Subcorpus` of query A or B within the selected period
        (``selected``) or the filters' range; None when the query is empty or does not parse."""
        q = self.composed(_choice(which, "query", QUERIES))
        if not q:
            return None
        since, until = self.bounds() if selected else (self.filters.since, self.filters.until)
        # the same selection is the same Subcorpus, so its ids (remembered until the data change) are
        # selected once for the chart, the counts and every pane
        key = (q, since, until)
        sub = self._subcorpora.get(key)
        if sub is None:
            if len(self._subcorpora) >= SUBCORPORA_KEPT:
                del self._subcorpora[next(iter(self._subcorpora))]
            sub = self._subcorpora[key] = self.corpus.query(q, since=since, until=until)
            if selected and self.period is not None:
                line = self.timeline(which)
                if line is not None:     # the period's ids sliced from the whole range's, not selected again
                    ids = line.ids[line.within(since, until)]
                    ids.setflags(write=False)
                    sub.remember_ids(ids)
        return sub

    def timeline(self, which: str) -> Timeline | None:
        """The :class:`~corpuskit.explorer.timeline.Timeline` of query A or B over the filters' range
        (its ids selected once per selection, again after the data change, and their times taken from
        :attr:`times`); None when the query is unusable or a timestamp is not of the stored form."""
        sub = self.subcorpus(which, selected=False)
        if sub is None:
            return None
        key = (sub.q, sub.since, sub.until)
        held = self._timelines.get(key)
        ids = sub.ids()     # selected again after the data change, then their times taken again
        if held is None or held[0] is not ids:
            if key not in self._timelines and len(self._timelines) >= SUBCORPORA_KEPT:
                del self._timelines[next(iter(self._timelines))]
            held = self._timelines[key] = (ids, Timeline.of(ids, self.times))
        return held[1]

    def selection_label(self) -> str:
        """The selected period as a reader names it, or 'the whole range'."""
        if self.period is None:
            return "the whole range"
        return period_label(self.periods()[self.period], self.freq)

    # -- answers ----------------------------------------------------------------------------------
    def attention(self) -> dict:
        """``{query: over_time frame}`` for each usable query (``Subcorpus.over_time`` over the chart's
        range at its frequency), remembered until an input changes."""
        if self._attention is None:
            since, until = self.range()
            frames = {}
            if since is not None:
                for which in QUERIES:
                    sub = self.subcorpus(which, selected=False)
                    line = self.timeline(which)
                    if line is not None:     # the same frame from the days held in memory
                        frames[which] = attention_frame(self.corpus, line.daily(since, until), self.freq,
                                                        since, until)
                    elif sub is not None:
                        frames[which] = sub.over_time(freq=self.freq, since=since, until=until)
            self._attention = frames
        return self._attention

    def periods(self) -> list:
        """The start of each period of the chart (UTC timestamps), oldest first."""
        frames = self.attention()
        if frames:
            return list(next(iter(frames.values()))["period"])
        since, until = self.range()
        if since is None:
            return []
        index = pd.period_range(pd.Timestamp(since[:10]), pd.Timestamp(until[:10]), freq=PANDAS_FREQ[self.freq])
        return list(index.start_time.tz_localize("UTC"))

    def counts(self) -> dict:
        """``{query: records}`` of each usable query in the selection (what the panes show)."""
        out = {}
        for which in QUERIES:
            sub = self.subcorpus(which)
            if sub is not None:
                out[which] = len(sub.ids())
        return out

    def records_page(self) -> pd.DataFrame:
        """The page of the focused query's records in the selection, newest first: id, author,
        publishedAt, source, text (title, else the text) and url."""
        sub = self.subcorpus(self.focus)
        if sub is None:
            return pd.DataFrame(columns=list(RECORD_COLUMNS))
        line = self.timeline(self.focus)
        if line is None:
            page = sub.records(limit=self.page_size, offset=self.page * self.page_size)
        else:     # the page's ids from the times held in memory: the whole match is not sorted again
            keep = None if self.period is None else line.within(*self.bounds())
            ids = line.newest_first(keep, limit=self.page_size, offset=self.page * self.page_size)
            page = self._page_records(ids)
        text = page["title"].where(page["title"].notna() & (page["title"] != ""), page["contentText"])
        return page.assign(text=text)[list(RECORD_COLUMNS)].reset_index(drop=True)

    def _page_records(self, ids) -> pd.DataFrame:
        """The columns of ``Subcorpus.records`` a page shows, of the records ``ids`` in their order
        (the page alone: no record's other columns, entities or sentiment are read)."""
        import json

        from corpuskit.frames import _times

        rows = self.corpus.conn.execute(
            "SELECT id, author, published_at, source, title, content_text, url FROM records "
            "WHERE id IN (SELECT value FROM json_each(?))", (json.dumps([int(i) for i in ids]),)).fetchall()
        by_id = {r[0]: tuple(r) for r in rows}
        return _times(pd.DataFrame([by_id[int(i)] for i in ids if int(i) in by_id], columns=_PAGE_COLUMNS),
                      "publishedAt")

    def kwic(self) -> pd.DataFrame:
        """The KWIC lines of the term in the focused query's selection (first :data:`KWIC_LIMIT`)."""
        sub = self.subcorpus(self.focus)
        if sub is None or not self.term:
            return pd.DataFrame(columns=["recordId", "left", "match", "right", "publishedAt", "source"])
        return sub.kwic(self.term, limit=KWIC_LIMIT)

    def keyness(self, progress=None) -> pd.DataFrame:
        """Key terms of the focused query's selection: against the other query's selection
        (``Subcorpus.compare``) or the rest of the corpus (``Subcorpus.terms``). ``progress`` is
        passed to them (called with the records read and to read)."""
        sub = self.subcorpus(self.focus)
        if sub is None:
            return pd.DataFrame()
        if self.against == "other":
            other = self.subcorpus("b" if self.focus == "a" else "a")
            return pd.DataFrame() if other is None else sub.compare(other, n=KEY_TERMS, progress=progress)
        return sub.terms(n=KEY_TERMS, progress=progress)

    def signals(self) -> pd.DataFrame:
        """The signals detected in the selection (``corpus.signals(since=, until=)``), in the chosen
        topics when topics are filtered. Remembered while the selection's bounds, the topics and the
        data are as they were (the same frame is returned: do not change it)."""
        return self._remembered("signals", self._signals)

    def stories(self) -> pd.DataFrame:
        """The current stories published in the selection (``corpus.stories()`` by ``publishAt``),
        remembered as :meth:`signals` is."""
        return self._remembered("stories", self._stories)

    def _remembered(self, name: str, compute) -> pd.DataFrame:
        from corpuskit.query.remembered import data_version

        conn = self.corpus.conn
        version = data_version(conn)     # None while a stage runs: computed every time
        # any write at all, by this connection or another, reads them again
        key = (self.bounds(), self.filters.topics, version, conn.total_changes,
               conn.execute("PRAGMA data_version").fetchone()[0])
        held = self._answers.get(name)
        if version is None or held is None or held[0] != key:
            held = self._answers[name] = (key, compute())
        return held[1]

    def _signals(self) -> pd.DataFrame:
        since, until = self.bounds()
        frame = self.corpus.signals(since=since, until=until)
        if self.filters.topics:
            frame = frame[frame["topic"].isin(self.filters.topics)]
        return frame[["id", "kind", "topic", "severity", "headline", "detectedAt"]].reset_index(drop=True)

    def _stories(self) -> pd.DataFrame:
        since, until = self.bounds()
        frame = self.corpus.stories()
        stamp = frame["publishAt"].dt.strftime("%Y-%m-%dT%H:%M:%SZ") if len(frame) else frame["publishAt"]
        keep = pd.Series(True, index=frame.index)
        if since:
            keep &= stamp >= since
        if until:
            keep &= stamp <= until
        if self.filters.topics:
            keep &= frame["topic"].isin(self.filters.topics)
        return frame[keep][["slug", "kind", "headline", "topic", "publishAt"]].reset_index(drop=True)

    # -- keep and code ----------------------------------------------------------------------------
    def keep(self, name: str, as_sample: bool = False, n: int = 100, seed: int = 0):
        """Keep the focused query's selection under ``name``: as a subcorpus (in ``self.kept``, the
        :class:`~corpuskit.subcorpus.Subcorpus`) or, with ``as_sample``, as a stored coding sample of
        ``n`` records (fewer when fewer match) drawn with ``seed`` (``corpus.sample``)."""
        name = (name or "").strip()
        if not name:
            raise ValidationError("give the selection a name to keep it under")
        sub = self.subcorpus(self.focus)
        if sub is None:
            raise ValidationError(f"query {self.focus.upper()} is empty or does not parse: nothing to keep")
        if not as_sample:
            self.kept[name] = sub
            return sub
        size = min(int(n), len(sub.ids()))
        if size == 0:
            raise ValidationError("the selection holds no records to sample")
        return self.corpus.sample(size, name=name, seed=seed, query=sub.q, since=sub.since, until=sub.until)

    def code(self) -> str:
        """The Python that reproduces the view, for a notebook where ``corpus`` is this corpus."""
        from corpuskit.explorer.code import view_code

        return view_code(self)


def _choice(value, name: str, allowed) -> str:
    if value not in allowed:
        raise ValidationError(f"{name} must be one of {', '.join(allowed)}, not {value!r}")
    return value
