"""Enrichment streams: chunks fetched a bounded number ahead of the writer; a seeded fit sample."""
from __future__ import annotations

import json

import numpy as np
import pytest

from corpuskit import open_corpus
from corpuskit.enrich import pipeline
from corpuskit.errors import ValidationError
from corpuskit.demo import build_demo


def small_demo(records=300, seed=11):
    c = open_corpus(":memory:")
    build_demo(c, seed=seed, records=records, days=30, run_stages=False, progress=False)
    return c


@pytest.mark.parametrize("workers", [1, 2])
def test_chunks_are_fetched_a_bounded_number_ahead_of_the_writer(monkeypatch, workers):
    c = small_demo()
    fetched, written, most_ahead = [], [], [0]
    real_fetch, real_write = pipeline._fetch, pipeline._write_chunk

    def fetch(conn, ids=None):
        rows = real_fetch(conn, ids)
        if ids is not None and len(ids) <= 25:  # a chunk (the fit reads the whole corpus at once)
            fetched.append(len(rows))
            most_ahead[0] = max(most_ahead[0], len(fetched) - len(written))
        return rows

    def write(corpus, rows, *args):
        written.append(len(rows))
        return real_write(corpus, rows, *args)

    monkeypatch.setattr(pipeline, "_fetch", fetch)
    monkeypatch.setattr(pipeline, "_write_chunk", write)
    monkeypatch.setattr(pipeline, "LOOKAHEAD_RECORDS", 75)  # 3 chunks of 25
    summary = c.enrich(progress=False, chunk_size=25, workers=workers)
    assert summary["recordsEnriched"] == 300 == sum(written) == sum(fetched)
    assert len(written) == 12
    # the pool keeps max(2 x workers, 75 // 25) chunks in flight; inline, one chunk at a time
    assert most_ahead[0] == (max(2 * workers, 3) if workers > 1 else 1)


def test_fit_rows_are_a_seeded_sample_when_the_corpus_is_bigger():
    c = small_demo()
    rows, complete = pipeline._fit_rows(c.conn, seed=0, limit=1000)
    assert complete and len(rows) == 300
    sample, complete = pipeline._fit_rows(c.conn, seed=0, limit=120)
    ids = [r["id"] for r in sample]
    assert not complete and len(ids) == 120 == len(set(ids)) and ids == sorted(ids)
    assert ids == [r["id"] for r in pipeline._fit_rows(c.conn, seed=0, limit=120)[0]]
    assert ids != [r["id"] for r in pipeline._fit_rows(c.conn, seed=1, limit=120)[0]]


def test_enrich_fitted_on_a_sample_covers_every_record_and_is_deterministic():
    a, b, full = small_demo(), small_demo(), small_demo()
    for c in (a, b):
        c.enrich(progress=False, fit_sample=120, chunk_size=64)
    full.enrich(progress=False, chunk_size=64)

    def vectors(c):
        rows = c.conn.execute("SELECT embedding FROM record_vectors ORDER BY record_id")
        return [bytes(r[0]) for r in rows]

    assert a.conn.execute("SELECT count(*) FROM enrichment").fetchone()[0] == 300
    assert len(vectors(a)) == 300 and vectors(a) == vectors(b)
    assert vectors(a) != vectors(full)  # the sample, not the whole corpus, fitted the embedder
    stored = np.frombuffer(vectors(a)[0], dtype=np.float32)
    assert np.isclose(np.linalg.norm(stored), 1.0, atol=1e-5)
    with pytest.raises(ValidationError, match="fit_sample"):
        a.enrich(progress=False, fit_sample=0)


def test_cli_fit_sample(tmp_path, capsys):
    from corpuskit.cli import main

    path = tmp_path / "c.db"
    c = open_corpus(path)
    build_demo(c, seed=11, records=300, days=30, run_stages=False, progress=False)
    c.close()
    assert main(["enrich", "--db", str(path), "--fit-sample", "120", "--quiet"]) == 0
    assert '"recordsEnriched": 300' in capsys.readouterr().out
    settings = open_corpus(path).conn.execute(
        "SELECT settings FROM runs WHERE stage = 'enrich' ORDER BY rowid DESC").fetchone()[0]
    assert json.loads(settings)["fit_sample"] == 120 and json.loads(settings)["cluster"] is None
    assert main(["enrich", "--db", str(path), "--fit-sample", "0", "--quiet"]) == 2
    assert "fit_sample must be a positive integer" in capsys.readouterr().err
