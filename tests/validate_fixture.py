"""A small corpus whose sentiment labels are written by hand, for the validation tests.

``labelled_corpus(n, labels, seed)`` adds ``n`` records over three sources, two
topic hints and 28 days, then writes an ``enrichment`` row per record with the
sentiment label from ``labels`` (a list, cycled) so tests know every label.
"""
from __future__ import annotations

import csv

import numpy as np

from corpuskit import open_corpus

CODEBOOK = {
    "name": "test study",
    "variables": {
        "sentiment": {"values": ["negative", "neutral", "positive"], "level": "ordinal"},
        "relevant": {"values": ["yes", "no"]},
    },
}


def labelled_corpus(n: int = 600, labels=None, seed: int = 3, path=":memory:"):
    """An in-memory corpus of ``n`` records with known sources, topic hints, days and labels."""
    corpus = open_corpus(path)
    sources = ["reddit", "hackernews", "bluesky"]
    topics = ["science", "tech"]
    rows = []
    for i in range(n):
        rows.append({"source": sources[i % 3], "sourceId": f"r{i}", "title": f"Title {i}",
                     "contentText": f"Text of record number {i}.", "topic": topics[(i // 3) % 2],
                     "publishedAt": f"2024-01-{1 + (i * 7) % 28:02d}T12:00:00Z"})
    corpus.add_records(rows)
    if labels is None:
        rng = np.random.default_rng(seed)
        labels = list(rng.choice(["negative", "neutral", "positive"], size=n, p=[0.2, 0.5, 0.3]))
    ids = [r[0] for r in corpus.conn.execute("SELECT id FROM records ORDER BY id")]
    with corpus.transaction():
        corpus.conn.executemany(
            "INSERT INTO enrichment(record_id, sentiment_score, sentiment_label, run_id) VALUES (?,?,?,?)",
            [(rid, 0.0, str(labels[k % len(labels)]), "test-1") for k, rid in enumerate(ids)])
    return corpus


def write_sheet(path, rows: list[dict]) -> None:
    """Write coding-sheet rows (dicts, the sheet's columns) back as CSV, as a coder saves a filled sheet."""
    with open(path, "w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
