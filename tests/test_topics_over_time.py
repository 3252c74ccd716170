"""Topics through time: per-period counts, shares and terms; the document-topic matrix; the figure."""
import json

import numpy as np
import pandas as pd
import pytest

from corpuskit import ValidationError, open_corpus
from corpuskit.analysis.topic_periods import PERIOD_COLUMNS


def _truth(corpus) -> dict:
    truth = corpus.get_meta("demo_ground_truth")
    return json.loads(truth) if isinstance(truth, str) else truth


def test_a_planted_rise_shows_in_its_period(demo_corpus):
    spikes = [e for e in _truth(demo_corpus)["events"] if e["kind"] == "volume_spike"]
    assert spikes
    daily = demo_corpus.topics_over_time(freq="D", terms=10)
    for event in spikes:
        rows = daily[daily["topic"] == event["beat"]].set_index("period")
        day = pd.Timestamp(event["start"], tz="UTC")
        # the planted day is the topic's largest share, clear of its usual day by the interval
        assert rows["share"].idxmax() == day
        assert rows.loc[day, "share_low"] > rows["share"].median()
        # and the terms of that day, computed within the day, name what the rise was about
        name = event["entity"]["name"].lower()
        assert any(name in term or term in name.split() for term in rows.loc[day, "terms"]), (
            event, rows.loc[day, "terms"])


def test_rows_cover_every_topic_and_period_with_their_shares(demo_corpus):
    frame = demo_corpus.topics_over_time(freq="W")
    assert list(frame.columns) == PERIOD_COLUMNS
    active = sorted(demo_corpus.topics().query("active")["name"])
    periods = frame["period"].unique()
    assert len(frame) == len(active) * len(periods)
    assert frame.groupby("period")["topic"].apply(list).map(lambda t: t == active).all()
    assert (frame["period"].dt.day_of_week == 0).all()          # weeks start on Monday
    per_period = frame.groupby("period").agg(count=("count", "sum"), total=("total", "first"))
    outliers = demo_corpus.conn.execute("SELECT count(*) FROM enrichment WHERE topic_id IS NULL").fetchone()[0]
    assert per_period["total"].sum() == demo_corpus.count()
    assert per_period["total"].sum() - per_period["count"].sum() == outliers
    assert np.allclose(frame["share"], frame["count"] / frame["total"])
    assert ((frame["share_low"] <= frame["share"]) & (frame["share"] <= frame["share_high"])).all()
    assert frame["terms"].map(lambda t: len(t) <= 5 and len(set(t)) == len(t)).all()
    monthly = demo_corpus.topics_over_time(freq="M", terms=0)
    assert monthly["terms"].map(len).eq(0).all()
    assert monthly["count"].sum() == frame["count"].sum()


def test_since_until_bound_the_periods(demo_corpus):
    frame = demo_corpus.topics_over_time(freq="D", since="2026-09-10", until="2026-09-12T23:59:59Z")
    assert sorted(frame["period"].dt.strftime("%Y-%m-%d").unique()) == ["2026-09-10", "2026-09-11", "2026-09-12"]


@pytest.mark.parametrize("kwargs, match", [
    ({"freq": "fortnight"}, "freq must be one of"),
    ({"terms": -1}, "terms must be"),
    ({"terms": 2.5}, "terms must be"),
    ({"since": "not a date"}, "since"),
])
def test_bad_arguments_raise_clear_errors(demo_corpus, kwargs, match):
    with pytest.raises(ValidationError, match=match):
        demo_corpus.topics_over_time(**kwargs)


def _hand_enriched(records, topic_of):
    """An in-memory corpus with two topics and the given primary topics written by hand."""
    c = open_corpus(":memory:")
    c.add_records(records, source="news")
    conn = c.conn
    with c.transaction():
        for name in ("alpha", "beta"):
            conn.execute("INSERT INTO topics(name, display_name, created_at, discovered) VALUES (?,?,?,1)",
                         (name, name.title(), "2024-01-01T00:00:00Z"))
        ids = {r["name"]: r["id"] for r in conn.execute("SELECT id, name FROM topics")}
        for rid, topic in zip([r[0] for r in conn.execute("SELECT id FROM records ORDER BY id")], topic_of):
            conn.execute("INSERT INTO enrichment(record_id, sentiment_score, sentiment_label, topic_id, run_id) "
                         "VALUES (?, 0, 'neutral', ?, 'r')", (rid, None if topic is None else ids[topic]))
            if topic is not None:
                conn.execute("INSERT INTO topic_assignments VALUES (?,?,?)", (rid, ids[topic], 0.8))
    return c


#: five different posts on one subject (not near duplicates of each other)
VARIED = ("The harbour ferry timetable changes next week", "Ferry crews at the harbour voted on new rosters",
          "A new harbour ferry terminal opens in spring", "Harbour ferry fares rise for weekend trips",
          "Commuters praise the faster harbour ferry service")


def test_a_copy_paste_flood_does_not_name_the_period():
    # a campaign: 30 accounts post one text, word for word, over three days
    flood = [{"contentText": "Toll exceeds199 importing15 shocking news thi", "author": f"account{i}",
              "publishedAt": f"2024-01-0{1 + i % 3}"} for i in range(30)]
    varied = [{"contentText": t, "publishedAt": "2024-01-02"} for t in VARIED]
    other = [{"contentText": f"Garden tomatoes and {w} grow well", "publishedAt": "2024-01-02"}
             for w in ("beans", "peas", "onions", "leeks", "kale")]
    c = _hand_enriched(flood + varied + other, ["alpha"] * 35 + ["beta"] * 5)
    try:
        frame = c.topics_over_time(freq="M", terms=5)
        alpha = frame[frame["topic"] == "alpha"].iloc[0]
        assert alpha["count"] == 35 and alpha["total"] == 40
        assert not any(w in " ".join(alpha["terms"]) for w in ("exceeds199", "importing15", "toll", "thi"))
        assert any("ferry" in t or "harbour" in t for t in alpha["terms"])
    finally:
        c.close()


def test_a_flood_with_small_edits_counts_once_per_period():
    # a campaign that varies its copies (a number, a glued word, a cut last word) is still one text
    flood = [{"contentText": f"Shocking toll exceeds {190 + i} as importers warn crowds of new{i} losses",
              "author": f"account{i}", "publishedAt": f"2024-01-0{1 + i % 3}"} for i in range(30)]
    varied = [{"contentText": t, "publishedAt": "2024-01-02"} for t in VARIED]
    other = [{"contentText": f"Garden tomatoes and {w} grow well", "publishedAt": "2024-01-02"}
             for w in ("beans", "peas", "onions", "leeks", "kale")]
    c = _hand_enriched(flood + varied + other, ["alpha"] * 35 + ["beta"] * 5)
    try:
        alpha = c.topics_over_time(freq="M", terms=5).query("topic == 'alpha'").iloc[0]
        assert alpha["count"] == 35  # every copy still counts as a record of the topic
        assert not any(w in " ".join(alpha["terms"]) for w in ("toll", "importers", "shocking", "crowds"))
        assert any("ferry" in t or "harbour" in t for t in alpha["terms"])
    finally:
        c.close()


def test_an_empty_corpus_gives_an_empty_frame(corpus):
    frame = corpus.topics_over_time()
    assert frame.empty and list(frame.columns) == PERIOD_COLUMNS
    assert corpus.topic_document_matrix().shape == (0, 0)


def test_topic_document_matrix_holds_the_stored_confidences(demo_corpus):
    matrix = demo_corpus.topic_document_matrix()
    enriched = demo_corpus.conn.execute("SELECT count(*) FROM enrichment").fetchone()[0]
    assert matrix.shape == (enriched, len(demo_corpus.topics().query("active")))
    assert list(matrix.columns) == sorted(matrix.columns) and matrix.index.is_monotonic_increasing
    stored = demo_corpus.conn.execute(
        "SELECT ta.record_id, t.name, ta.confidence FROM topic_assignments ta JOIN topics t ON t.id = ta.topic_id "
        "WHERE t.active = 1").fetchall()
    assert (matrix.to_numpy() > 0).sum() == len(stored)
    for rid, name, conf in stored[:200]:
        assert matrix.loc[rid, name] == conf
    primary = dict(demo_corpus.conn.execute(
        "SELECT e.record_id, t.name FROM enrichment e JOIN topics t ON t.id = e.topic_id").fetchall())
    best = matrix.idxmax(axis=1)
    assert all(best[rid] == name for rid, name in list(primary.items())[:500])


def test_plot_topics_over_time(demo_corpus):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from corpuskit import plot

    try:
        frame = demo_corpus.topics_over_time(freq="W")
        ax = plot.topics_over_time(frame, topics=["space", "markets-economy"])
        assert [line.get_label() for line in ax.get_lines()] == ["Space & Astronomy", "Markets & Economy"]
        assert len(ax.texts) == 2                                # each peak named by its terms
        assert len(plot.topics_over_time(demo_corpus, freq="M", top=3).get_lines()) == 3
        with pytest.raises(ValidationError, match="unknown topics"):
            plot.topics_over_time(frame, topics=["nope"])
        with pytest.raises(ValidationError, match="columns"):
            plot.topics_over_time(frame.drop(columns="terms"))
    finally:
        plt.close("all")
