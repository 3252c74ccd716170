"""Signals and clusters on the session demo corpus (6,000 records, 60 days, every stage run).

The issue's floors (every planted event, >= 80% precision) are measured on the
default 20,000-record demo by ``benchmarks/bench_signals_quality.py``; at 6,000
records some events have too few records per source and day to be
separable, so the floors here are lower on recall and the same on precision.
"""
from __future__ import annotations

from corpuskit.analysis.clusters import latest_clusters
from corpuskit.analysis.signals.evaluate import evaluate


def test_demo_signal_quality_floors(demo_corpus):
    result = evaluate(demo_corpus)
    assert len(result["events"]) == 9
    assert result["recall"] >= 7 / 9, result["events"]
    assert result["strong"] >= 5
    assert result["precision"] >= 0.8, result["unmatched"]
    assert max(result["highPerBeatPer30Days"].values()) <= 3
    detected = {e["kind"] for e in result["events"] if e["detected"]}
    assert detected == {"volume_spike", "sentiment_shift", "novelty", "divergence"}


def test_demo_signals_have_evidence_and_events(demo_corpus):
    conn = demo_corpus.conn
    n = conn.execute("SELECT count(*) FROM signals").fetchone()[0]
    assert n > 0
    assert conn.execute("SELECT count(DISTINCT signal_id) FROM signal_evidence WHERE ref_kind = 'record'"
                        ).fetchone()[0] == n
    assert conn.execute("SELECT count(*) FROM signal_events WHERE change = 'new'").fetchone()[0] == n
    assert conn.execute("SELECT count(*) FROM signals WHERE detected_at > ?",
                        (demo_corpus.now().strftime("%Y-%m-%dT%H:%M:%SZ"),)).fetchone()[0] == 0


def test_demo_clusters(demo_corpus):
    rows = latest_clusters(demo_corpus, limit=100)
    assert len(rows) >= 7
    beats = {r["topic"] for r in rows}
    assert len(beats) >= 5
    assert sum(r["metadata"]["silhouetteScore"] for r in rows) / len(rows) > 0
    assert all(r["topTerms"] and r["summaryLabel"] for r in rows)
