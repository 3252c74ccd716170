"""Every signal agrees with itself, and carries its quality flags.

Consistency: the headline names the stored topic (and the stored entity),
``detail.day`` is the day of ``detectedAt``, ``detail.peakDay`` is not
before it, an hourly burst's hour lies on its peak day. Checked over every
signal of the session demo corpus and of a real file (two months of the
Reddit CSV, skipped where ``../shared/datasets`` is absent).
"""
from __future__ import annotations

import json

import numpy as np
import pytest

from corpuskit.analysis.signals.quality import duplicate_share, ingestion_gaps, near_duplicate_key
from corpuskit.analysis.signals.series import DailySeries
from corpuskit.enrich.topic_terms import inline_label


def check_all(corpus) -> int:
    conn = corpus.conn
    labels = {r[0]: inline_label(r[1]) for r in conn.execute("SELECT id, display_name FROM topics")}
    names = {r[0]: r[1] for r in conn.execute("SELECT id, name FROM entities")}
    rows = conn.execute("SELECT id, kind, topic_id, entity_id, headline, detail, detected_at "
                        "FROM signals ORDER BY id").fetchall()
    for sid, kind, topic_id, entity_id, headline, detail, detected_at in rows:
        d = json.loads(detail)
        where = f"signal {sid} ({kind}): {headline}"
        assert d["day"] == detected_at[:10], where
        assert d["peakDay"] >= d["day"], where
        if d.get("hour"):
            assert d["hour"][:10] == d["day"], where
        if topic_id is not None:
            assert labels[topic_id] in headline, where
        else:
            assert not any(f" {label}" in headline for label in labels.values() if len(label) > 3), where
        if entity_id is not None:
            assert names[entity_id] in headline, where
        q = d["quality"]
        assert 0 <= q["baselineDays"] <= d.get("windowDays", 21)
        assert q["corpusEdge"] == (q["baselineDays"] < d.get("windowDays", 21))
        assert 0 <= q["duplicateShare"] <= 1 and q["recordsChecked"] >= 0
        assert set(q["gap"]) == {"inBaseline", "onDay"}
    return len(rows)


def test_every_demo_signal_is_consistent(demo_corpus):
    assert check_all(demo_corpus) > 10


def test_every_signal_of_a_real_file_is_consistent(reddit_two_months_run):
    corpus = reddit_two_months_run
    n = check_all(corpus)
    assert n > 0


def test_near_duplicates():
    assert near_duplicate_key("RT @bob: Big news!! https://t.co/x 2021") == "big news"
    assert duplicate_share(["Big news! http://a", "big NEWS", "something else", ""]) == round(2 / 3, 3)
    assert duplicate_share([]) == 0.0


def test_ingestion_gaps():
    days = [f"2025-01-{i:02d}" for i in range(1, 31)]
    counts = np.full((2, 30), 10.0)
    counts[1] = 0.0
    counts[1, ::5] = 1                      # a source that is usually quiet: never a gap
    counts[0, 20] = 0                       # a usual source missing in the baseline
    counts[0, 25] = 0                       # and on the day
    series = DailySeries(days=days, topics=[], topic_names={}, topic_labels={}, sources=["a", "b"],
                         entities=[], entity_info={}, topic_count=np.zeros((0, 30)),
                         topic_sum=np.zeros((0, 30)), topic_sq=np.zeros((0, 30)),
                         ts_count=np.zeros((0, 2, 30)), ts_sum=np.zeros((0, 2, 30)),
                         ts_sq=np.zeros((0, 2, 30)), source_count=counts,
                         source_topic=np.zeros((2, 30), dtype=int), entity_count=np.zeros((0, 30)),
                         entity_topic=np.zeros((0, 30), dtype=int))
    base, day = ingestion_gaps(series, 25, 21)
    assert base == [{"source": "a", "day": "2025-01-21"}]
    assert day == [{"source": "a", "day": "2025-01-26"}]
    assert ingestion_gaps(series, 0, 21) == ([], [])


@pytest.mark.parametrize("flag", ["corpusEdge", "gap", "duplicateShare"])
def test_demo_signals_show_each_flag_kind(demo_corpus, flag):
    details = [json.loads(r[0]) for r in demo_corpus.conn.execute("SELECT detail FROM signals")]
    assert all(flag in d["quality"] for d in details)
