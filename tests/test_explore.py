"""The notebook explorer without a browser: every callback of ``corpuskit.explorer.Explorer`` and every
answer of its state, checked against the public calls they stand for (``corpus.query(...)`` and
its ``over_time``, ``records``, ``kwic``, ``terms``, ``compare``; ``corpus.signals``/``stories``)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("ipywidgets")
pytest.importorskip("bqplot")

import corpuskit  # noqa: E402
from corpuskit.errors import ValidationError  # noqa: E402
from corpuskit.explorer import Explorer, ExplorerState  # noqa: E402
from corpuskit.explorer.selection import Filters, compose, period_bounds, period_label, quoted  # noqa: E402

A, B = 'stablecoin OR "bond yields"', '"language model" OR gpu'


@pytest.fixture(scope="module")
def explorer(demo_corpus):
    return Explorer(demo_corpus, a=A, b=B)


@pytest.fixture
def fresh(demo_corpus):
    return Explorer(demo_corpus, a=A, b=B)


def _busiest_week(e: Explorer) -> int:
    return int(np.argmax(e.state.attention()["a"]["count"].to_numpy()))


# -- plain values ---------------------------------------------------------------------------------
def test_filters_compose_into_the_query_language():
    f = Filters(sources=("reddit", "hackernews"), languages=("en",), topics=("AI policy",))
    assert f.clause() == 'source:(hackernews OR reddit) AND lang:(en) AND topic:("AI policy")'
    assert compose("apple AND fbi", f) == f"(apple AND fbi) AND {f.clause()}"
    assert compose("  ", f) == "" and compose("x", Filters()) == "x"
    assert quoted("OR") == '"OR"' and quoted("a-b.c") == "a-b.c"


def test_period_bounds_and_labels():
    week = pd.Timestamp("2016-02-22", tz="UTC")
    assert period_bounds(week, "W") == ("2016-02-22T00:00:00Z", "2016-02-28T23:59:59Z")
    assert period_bounds(week, "W", since="2016-02-24T00:00:00Z") == ("2016-02-24T00:00:00Z", "2016-02-28T23:59:59Z")
    assert period_bounds(pd.Timestamp("2016-02-01"), "M") == ("2016-02-01T00:00:00Z", "2016-02-29T23:59:59Z")
    assert period_label(week, "W") == "week of 2016-02-22" and period_label(week, "M") == "2016-02"
    with pytest.raises(ValidationError):
        period_bounds(week, "Y")


def test_the_entry_points_return_an_explorer(demo_corpus):
    assert isinstance(corpuskit.explore(demo_corpus, a=A), Explorer)
    e = demo_corpus.explore(a=A, freq="D", mode="count")
    assert isinstance(e, Explorer) and e.state.freq == "D" and e.state.mode == "count"


# -- queries and the chart ----------------------------------------------------------------------------
def test_a_query_draws_its_attention_from_over_time(explorer, demo_corpus):
    state = explorer.state
    since, until = state.range()
    for which, q in (("a", A), ("b", B)):
        expected = demo_corpus.query(q).over_time(freq="W", since=since, until=until)
        pd.testing.assert_frame_equal(state.attention()[which], expected)
        line, dots = explorer.chart.lines[which], explorer.chart.dots[which]
        assert np.allclose(line.y, np.nan_to_num(expected["share"].to_numpy()))
        assert len(dots.x) == len(expected)
    assert f'ck-count-a">{demo_corpus.query(A).count()}<' in explorer.w.status.value


def test_a_syntax_error_shows_inline_with_its_caret(fresh):
    fresh.w.query["a"].value = "a AND OR b"
    assert "column 7" in fresh.w.error["a"].value and "      ^" in fresh.w.error["a"].value
    assert "a" not in fresh.state.attention() and len(fresh.chart.lines["a"].y) == 0
    assert 'ck-count-a' not in fresh.w.status.value
    fresh.w.query["a"].value = "stablecoin"
    assert fresh.w.error["a"].value == "" and len(fresh.chart.lines["a"].y) > 0


def test_the_mode_toggle_plots_raw_counts(fresh):
    fresh.w.mode.value = "count"
    assert np.array_equal(fresh.chart.lines["a"].y, fresh.state.attention()["a"]["count"].to_numpy(float))
    assert fresh.chart.figure.axes[1].label == "records"
    assert np.array_equal(fresh.chart.bands["a"].y[1], fresh.state.attention()["a"]["count_high"].to_numpy(float))


def test_the_period_toggle_redraws_by_day(fresh, demo_corpus):
    weeks = len(fresh.chart.lines["a"].x)
    fresh.w.freq.value = "D"
    days = fresh.state.attention()["a"]
    assert len(days) > weeks and len(fresh.w.period.options) == len(days) + 1
    assert days["count"].sum() == demo_corpus.query(A).count()


# -- the selected period and the panes ----------------------------------------------------------------
def test_a_click_on_the_chart_selects_its_period(fresh, demo_corpus):
    week = _busiest_week(fresh)
    fresh.chart._clicked(fresh.chart.dots["a"], {"data": {"index": week}})
    assert fresh.state.period == week and fresh.w.period.value == week
    assert list(fresh.chart.dots["a"].selected) == [week]
    since, until = fresh.state.bounds()
    expected = demo_corpus.query(A, since=since, until=until)
    assert f'ck-count-a">{expected.count()}<' in fresh.w.status.value
    assert fresh.state.attention()["a"]["count"].iloc[week] == expected.count()
    page = fresh.state.records_page()
    assert len(page) == min(20, expected.count())
    assert page["id"].tolist() == expected.records(limit=20)["id"].tolist()
    assert all(since <= p.strftime("%Y-%m-%dT%H:%M:%SZ") <= until for p in page["publishedAt"])
    assert f"<td>{page['id'].iloc[0]}</td>" in fresh.w.records.value
    fresh.w.period.value = None
    assert fresh.state.period is None and "the whole range" in fresh.w.status.value


def test_records_page_through_and_focus_b(fresh, demo_corpus):
    first = fresh.state.records_page()["id"].tolist()
    fresh.w.next.click()
    assert fresh.state.page == 1 and fresh.w.page_label.value == "page 2"
    assert fresh.state.records_page()["id"].tolist() == demo_corpus.query(A).records(limit=20, offset=20)["id"].tolist()
    fresh.w.prev.click()
    fresh.w.prev.click()
    assert fresh.state.page == 0 and fresh.state.records_page()["id"].tolist() == first
    fresh.w.focus.value = "b"
    assert fresh.state.records_page()["id"].tolist() == demo_corpus.query(B).records(limit=20)["id"].tolist()
    assert set(fresh.state.records_page().columns) == {"id", "author", "publishedAt", "source", "text", "url"}
    assert '<a href="http' in fresh.w.records.value


def test_kwic_lines_for_a_term(fresh, demo_corpus):
    assert "type a term" in fresh.w.kwic.value
    week = _busiest_week(fresh)
    fresh.on_period(week)
    fresh.w.term.value = "stablecoin"
    since, until = period_bounds(fresh.state.attention()["a"]["period"].iloc[week], "W")
    expected = demo_corpus.query(A, since=since, until=until).kwic("stablecoin", limit=50)
    pd.testing.assert_frame_equal(fresh.state.kwic(), expected)
    assert len(expected) and fresh.w.kwic.value.count("<b>") == len(expected)


def test_keyness_waits_for_its_tab_then_answers_both_ways(fresh, demo_corpus):
    assert "open this tab" in fresh.w.keyness.value and "keyness" not in fresh.timings
    fresh.w.tabs.selected_index = 2
    rest = demo_corpus.query(A).terms(n=20)
    pd.testing.assert_frame_equal(fresh.state.keyness(), rest)
    assert f"<td>{rest['term'].iloc[0]}</td>" in fresh.w.keyness.value and "keyness" in fresh.timings
    fresh.w.against.value = "other"
    other = demo_corpus.query(A).compare(demo_corpus.query(B), n=20)
    pd.testing.assert_frame_equal(fresh.state.keyness(), other)
    assert "freq_b" in fresh.w.keyness.value


def test_signals_and_stories_of_the_selection(fresh, demo_corpus):
    signals = demo_corpus.signals()
    assert len(signals), "the demo corpus raises signals"
    assert len(fresh.state.signals()) == len(signals)
    day = signals["detectedAt"].iloc[0]
    fresh.w.freq.value = "D"
    index = [p.date() for p in fresh.state.periods()].index(day.date())
    fresh.on_period(index)
    since, until = fresh.state.bounds()
    assert fresh.state.signals()["id"].tolist() == demo_corpus.signals(since=since, until=until)["id"].tolist()
    assert f"<td>{signals['id'].iloc[0]}</td>" in fresh.w.signals.value
    stories = demo_corpus.stories()
    stamp = stories["publishAt"].dt.strftime("%Y-%m-%dT%H:%M:%SZ")
    assert fresh.state.stories()["slug"].tolist() == stories[(stamp >= since) & (stamp <= until)]["slug"].tolist()
    fresh.w.period.value = None
    assert len(fresh.state.stories()) == len(stories)


def test_filters_narrow_the_queries(fresh, demo_corpus):
    source = fresh.state.facets["sources"][0]
    fresh.w.filters["sources"].value = (source,)
    assert fresh.state.composed("a") == f"({A}) AND source:({source})"
    expected = demo_corpus.query(f"({A}) AND source:({source})")
    assert f'ck-count-a">{expected.count()}<' in fresh.w.status.value
    assert set(fresh.state.records_page()["source"]) <= {source}
    first = fresh.state.periods()[1].date()
    fresh.w.filters["since"].value = first
    assert fresh.state.filters.since == f"{first.isoformat()}T00:00:00Z"
    assert fresh.state.attention()["a"]["period"].iloc[0].date() <= first
    fresh.w.filters["until"].value = first - pd.Timedelta(days=3)
    assert "after until" in fresh.w.filter_error.value


def test_state_rejects_bad_inputs(demo_corpus):
    state = ExplorerState(demo_corpus, a=A)
    for call in (lambda: state.set_freq("Y"), lambda: state.set_mode("log"), lambda: state.set_focus("c"),
                 lambda: state.set_page(-1), lambda: state.select_period(10_000),
                 lambda: state.set_filters(sources=("nowhere",)), lambda: state.keep("")):
        with pytest.raises(ValidationError):
            call()


# -- keep, code and the busy line -----------------------------------------------------------------------
def test_keep_as_subcorpus_and_as_coding_sample(demo_copy, tmp_path):
    e = Explorer(demo_copy, a=A)
    e.on_period(_busiest_week(e))
    e.w.keep_name.value = "stablecoin peak"
    e.w.keep.click()
    kept = e.state.kept["stablecoin peak"]
    assert (kept.since, kept.until) == e.state.bounds() and kept.q == A
    assert "kept as" in e.w.keep_result.value
    e.w.keep_as.value, e.w.keep_n.value = "coding sample", 5
    e.w.keep_name.value = "peak-sample"
    e.w.keep.click()
    assert "coding sample &#x27;peak-sample&#x27; stored: 5 records" in e.w.keep_result.value
    assert demo_copy.coding_sheet("peak-sample", tmp_path / "sheet.csv") == 5
    coded = pd.read_csv(tmp_path / "sheet.csv")["recordId"]
    assert set(coded) <= set(kept.ids().tolist())
    e.w.keep.click()
    assert "ck-error" in e.w.keep_result.value     # a stored sample's name is taken


def test_the_code_reproduces_the_view(fresh, demo_corpus, capsys):
    fresh.on_period(_busiest_week(fresh))
    fresh.w.term.value = "stablecoin"
    fresh.w.code.click()
    code = fresh.w.code_out.value
    assert fresh.w.code_out.layout.display is None and "corpus.query(" in code
    scope = {"corpus": demo_corpus}
    exec(code, scope)
    assert capsys.readouterr().out.strip() == str(fresh.state.counts())
    pd.testing.assert_frame_equal(scope["attention_a"], fresh.state.attention()["a"])
    pd.testing.assert_frame_equal(scope["attention_b"], fresh.state.attention()["b"])
    assert scope["records"]["id"].tolist() == fresh.state.records_page()["id"].tolist()
    pd.testing.assert_frame_equal(scope["lines"], fresh.state.kwic())
    assert scope["signals"]["id"].tolist() == fresh.state.signals()["id"].tolist()
    fresh.w.focus.value = "b"     # an open code view follows the view
    assert "records = b.records(" in fresh.w.code_out.value


def test_the_busy_line_shows_while_an_answer_is_computed(fresh, monkeypatch):
    seen = []
    original = fresh.state.records_page
    monkeypatch.setattr(fresh.state, "records_page", lambda: seen.append(fresh.w.busy.value) or original())
    fresh.w.next.click()
    assert seen and "records" in seen[0] and "ck-busy" in seen[0]
    assert fresh.w.busy.value == "" and fresh.timings["records"] >= 0


def test_keyness_shows_how_many_records_it_has_read(fresh, demo_corpus):
    # keyness reads every text of the selection (seconds at a million records): the busy line counts them
    seen = []
    fresh.w.busy.observe(lambda ch: seen.append(ch["new"]), "value")
    fresh.w.tabs.selected_index = 2
    n = demo_corpus.query(A).count()
    assert n and f'<progress class="ck-progress" value="{n}" max="{n}"></progress> {n:,} of {n:,} records' in "".join(seen)
    seen.clear()
    fresh.w.against.value = "other"
    both = n + demo_corpus.query(B).count()
    assert f"{n:,} of {both:,} records" in "".join(seen) and f"{both:,} of {both:,} records" in "".join(seen)
    assert fresh.w.busy.value == ""


def test_a_selection_is_selected_once_for_the_chart_counts_and_panes(fresh, monkeypatch):
    from corpuskit.query import subsets

    calls = []
    real = subsets.query_ids
    monkeypatch.setattr(subsets, "query_ids", lambda *a, **k: calls.append(a[1:]) or real(*a, **k))
    fresh.on_query("a", "stablecoin")
    assert len(calls) == 1          # query A over the whole range; B's ids are kept
    calls.clear()
    fresh.on_term("stablecoin")
    fresh.on_page(1)
    assert calls == []
    fresh.on_period(_busiest_week(fresh))
    assert calls == []              # A's and B's ids in the period are sliced from their whole range's
    fresh.state.timeline("a").ids   # held: nothing selected again
    fresh.on_freq("D")
    assert calls == []


def test_the_filter_lists_are_the_corpus_own(fresh, demo_corpus):
    conn = demo_corpus.conn
    facets = fresh.state.facets
    assert facets["sources"] == [r[0] for r in conn.execute("SELECT DISTINCT source FROM records ORDER BY 1")]
    assert facets["languages"] == [r[0] for r in conn.execute(
        "SELECT DISTINCT language FROM records WHERE language IS NOT NULL ORDER BY 1")]
    assert (facets["first"], facets["last"]) == tuple(conn.execute(
        "SELECT min(published_at), max(published_at) FROM records").fetchone())
    assert len(facets["sources"]) > 1 and facets["languages"]


def test_opening_imports_neither_scikit_learn_nor_scipy_stats(demo_path):
    # seconds each on a kernel's first explorer; keyness, drawn when its tab opens, imports scipy.stats then
    import os
    import subprocess
    import sys
    from pathlib import Path

    code = ("import sys\nfrom corpuskit import open_corpus\nfrom corpuskit.explorer import Explorer\n"
            f"Explorer(open_corpus({str(demo_path)!r}), a='stablecoin', b='gpu')\n"
            "print(sorted(m for m in ('sklearn', 'scipy.stats', 'corpuskit.enrich') if m in sys.modules))")
    root = str(Path(corpuskit.__file__).resolve().parents[1])
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=root, timeout=300,
                         env={**os.environ, "PYTHONPATH": root})
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == "[]"
