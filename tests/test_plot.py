"""corpuskit.plot: each figure draws what it says on the demo corpus and returns its Axes."""
import builtins
import sys
from pathlib import Path

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")  # tests only: the library never selects a backend
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.collections import LineCollection, PolyCollection  # noqa: E402

from corpuskit import ValidationError, plot  # noqa: E402
from corpuskit.errors import MissingDependencyError  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def test_volume_by_source_stacks_every_record_and_marks_signals(demo_corpus):
    ax = plot.volume(demo_corpus, by="source")
    records = demo_corpus.records()
    stacks = [c for c in ax.collections if c.get_label() in set(records["source"])]
    assert len(stacks) == records["source"].nunique()
    signals = demo_corpus.signals()
    markers = [c for c in ax.collections if c.get_label().endswith("signal") or c.get_label().startswith("_")]
    assert sum(len(c.get_offsets()) for c in markers if c not in stacks) == len(signals)


def test_volume_by_topic_puts_signals_on_their_topic_line(demo_corpus):
    signals = demo_corpus.signals(kind="volume_spike")
    topic = signals["topic"].dropna().iloc[0]
    fig, ax = plt.subplots()
    out = plot.volume(demo_corpus, by="topic", topics=[topic], signals=signals, ax=ax)
    assert out is ax and [line.get_label() for line in ax.get_lines()] == [topic]
    line = ax.get_lines()[0]
    days = matplotlib.dates.num2date(line.get_xdata(orig=False))
    counts = dict(zip([d.date() for d in days], line.get_ydata()))
    mine = signals[signals["topic"] == topic]
    marks = np.concatenate([c.get_offsets() for c in ax.collections if not isinstance(c, PolyCollection)])
    assert len(marks) == len(mine)
    for (x, y), day in zip(marks, mine["detectedAt"]):
        assert y == counts[day.date()]   # the triangle sits on the day's count


def test_sentiment_band_contains_the_mean(demo_corpus):
    ax = plot.sentiment(demo_corpus)
    line = ax.get_lines()[0]
    band = ax.collections[0].get_paths()[0].vertices
    assert line.get_ydata().size > 30 and np.nanmax(np.abs(line.get_ydata())) <= 1
    assert np.nanmin(band[:, 1]) <= np.nanmin(line.get_ydata())
    ax2 = plot.sentiment(demo_corpus.records(), by="source")
    assert len(ax2.get_lines()) == demo_corpus.records()["source"].nunique() + 1   # + the zero line


def test_topic_heatmap_is_topics_by_days(demo_corpus):
    ax = plot.topic_heatmap(demo_corpus)
    grid = ax.images[0].get_array()
    snaps = demo_corpus.snapshots()
    assert grid.shape == (len(demo_corpus.topics()), snaps["date"].nunique())
    assert grid.sum() == snaps["totalRecords"].sum()
    shares = plot.topic_heatmap(demo_corpus, share=True).images[0].get_array()
    assert np.allclose(np.nansum(shares, axis=0)[np.nansum(grid, axis=0) > 0], 1)


def test_entity_trend_and_cluster_map(demo_corpus):
    top = demo_corpus.entities(limit=1).iloc[0]
    ax = plot.entity_trend(demo_corpus, top["slug"])
    assert sum(p.get_height() for p in ax.patches) == top["mentionCount"]
    assert top["name"] in ax.get_title()
    topic = demo_corpus.clusters()["topic"].iloc[0]
    ax = plot.cluster_map(demo_corpus, topic)
    points = demo_corpus.cluster_points(topic)
    assert sum(len(c.get_offsets()) for c in ax.collections) == len(points)
    assert len(ax.texts) == points.loc[points["clusterLabel"] >= 0, "clusterLabel"].nunique()


def _bands(ax):
    return [c for c in ax.collections if isinstance(c, PolyCollection) and "interval" in c.get_label()]


def test_volume_draws_poisson_bands(demo_corpus):
    from corpuskit.stats.intervals import poisson_interval

    topics = list(demo_corpus.topics()["name"][:2])
    ax = plot.volume(demo_corpus, by="topic", topics=topics, signals=None)
    bands = [c for c in ax.collections if isinstance(c, PolyCollection)]
    assert len(bands) == 2 and "95% interval" in [c.get_label() for c in bands]
    line = ax.get_lines()[0]
    top = bands[0].get_paths()[0].vertices[:, 1].max()
    assert top == pytest.approx(poisson_interval(line.get_ydata().max())[1])
    assert len(_bands(plot.volume(demo_corpus, by="source"))) == 1          # around the day's total
    assert not _bands(plot.volume(demo_corpus, by="source", level=None))
    wide = plot.volume(demo_corpus, by="topic", topics=topics[:1], signals=None, level=0.99)
    assert _bands(wide)[0].get_paths()[0].vertices[:, 1].max() > top


def test_sentiment_band_is_the_t_interval(demo_corpus):
    from corpuskit.stats.intervals import mean_interval

    records = demo_corpus.records()
    ax = plot.sentiment(records)
    band = ax.collections[0].get_paths()[0].vertices
    day = records["publishedAt"].dt.floor("D") == records["publishedAt"].dt.floor("D").min()
    low, high = mean_interval(records.loc[day, "sentimentScore"].dropna())
    first_x = band[:, 0].min()
    ys = band[band[:, 0] == first_x, 1]
    assert sorted(ys)[0] == pytest.approx(low) and sorted(ys)[-1] == pytest.approx(high)
    assert "(t)" in ax.get_title()
    assert not plot.sentiment(records, level=None).collections


def test_entity_trend_draws_error_bars_and_heatmap_hatches_uncertain_cells(demo_corpus):
    top = demo_corpus.entities(limit=1).iloc[0]
    ax = plot.entity_trend(demo_corpus, top["slug"])
    bars = [c for c in ax.collections if isinstance(c, LineCollection)]
    assert len(bars) == 1 and len(bars[0].get_segments()) == len(ax.patches)
    ax = plot.topic_heatmap(demo_corpus)
    snaps = demo_corpus.snapshots()
    average = snaps.groupby("topic")["totalRecords"].transform("mean")
    holds = (snaps["totalRecords_low"] <= average) & (average <= snaps["totalRecords_high"])
    assert len(ax.patches) == holds.sum() and 0 < holds.sum() < len(snaps)
    assert not plot.topic_heatmap(demo_corpus, level=None).patches
    assert len(plot.topic_heatmap(demo_corpus, share=True).patches) > 0
    # shares against the row's overall share: row 0 39/60 = 0.65, held by 9/10 and 30/40, not by 0/10;
    # row 1 60/100 = 0.6, held by 1/2 only (40/40 and 19/58 stand out)
    cells = plot.uncertain_cells([[9, 30, 0], [1, 40, 19]], [[10, 40, 10], [2, 40, 58]])
    assert cells.tolist() == [[True, True, False], [True, False, False]]
    # counts against the row's mean, 15: 9, 11 and 10 are ordinary days, 30 stands out
    assert plot.uncertain_cells([[9, 11, 30, 10]]).tolist() == [[True, True, False, True]]


def test_bad_arguments(demo_corpus):
    with pytest.raises(ValidationError, match="by must be source or topic"):
        plot.volume(demo_corpus, by="author")
    with pytest.raises(ValidationError, match="Corpus or a records DataFrame"):
        plot.volume([1, 2, 3])
    with pytest.raises(ValidationError, match="unknown entity"):
        plot.entity_trend(demo_corpus, "No Such Entity Anywhere")
    with pytest.raises(ValidationError, match="unknown topic"):
        plot.cluster_map(demo_corpus, "nope")


def test_missing_matplotlib_says_how_to_install(monkeypatch, demo_corpus):
    real_import = builtins.__import__

    def no_matplotlib(name, *args, **kwargs):
        if name.startswith("matplotlib"):
            raise ImportError("No module named 'matplotlib'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    with pytest.raises(MissingDependencyError, match=r"pip install 'corpuskit\[notebooks\]'"):
        plot.volume(demo_corpus)


def test_the_library_selects_no_backend():
    package = Path(sys.modules["corpuskit"].__file__).parent
    for path in package.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert "matplotlib.use(" not in text and "MPLBACKEND" not in text, path


def _subcorpus(c, word):
    return [r[0] for r in c.conn.execute("SELECT id FROM records WHERE content_text LIKE ?", (f"%{word}%",))]


def test_attention_draws_a_share_line_and_band_per_subcorpus(demo_corpus):
    from corpuskit.analysis.attention import over_time

    frames = [over_time(demo_corpus, _subcorpus(demo_corpus, w), freq="W") for w in ("vaccine", "climate")]
    ax = plot.attention(frames, labels=["vaccine", "climate"])
    assert [line.get_label() for line in ax.get_lines()] == ["vaccine", "climate"]
    assert len(ax.collections) == 2 and ax.get_ylabel() == "share of all records"
    for line, frame in zip(ax.get_lines(), frames):
        assert np.allclose(line.get_ydata(), frame["share"])
    band = ax.collections[0].get_paths()[0].vertices[:, 1]
    assert band.max() == pytest.approx(frames[0]["share_high"].max())
    counts = plot.attention(over_time(demo_corpus, _subcorpus(demo_corpus, "vaccine"), normalise=False))
    assert counts.get_ylabel() == "records" and counts.get_lines()[0].get_label() == "subcorpus 1"
    with pytest.raises(ValidationError, match="labels"):
        plot.attention(frames, labels=["one"])
    with pytest.raises(ValidationError, match="DataFrames"):
        plot.attention([])


def test_keyness_diverges_around_zero(demo_corpus):
    from corpuskit.analysis.keyterms import compare_terms

    table = compare_terms(demo_corpus, _subcorpus(demo_corpus, "vaccine"), _subcorpus(demo_corpus, "climate"), n=20)
    ax = plot.keyness(table, n=6)
    widths = [p.get_width() for p in ax.patches]
    assert len(widths) == 12 and sum(w > 0 for w in widths) == 6 and sum(w < 0 for w in widths) == 6
    at = dict(zip(ax.get_yticks(), [t.get_text() for t in ax.get_yticklabels()]))
    assert at[max(at)] == table[table["log_ratio"] > 0]["term"].iloc[0]       # the strongest A term on top
    assert at[min(at)] == table[table["log_ratio"] < 0]["term"].iloc[0]       # the strongest B term at the bottom
    with pytest.raises(ValidationError, match="term, G2 and log_ratio"):
        plot.keyness(table.drop(columns="G2"))
    with pytest.raises(ValidationError, match="n must be"):
        plot.keyness(table, n=0)
