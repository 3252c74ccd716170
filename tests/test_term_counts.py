"""The corpus-wide term counts analyse keeps give keyness against the rest exactly as counted live, and
are used only while they describe the records as they are."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from corpuskit.analysis.keyterms import distinctive_terms
from corpuskit.analysis.term_counts import build_term_counts, stored_terms
from corpuskit.stats.keyness import benjamini_hochberg, weighted_benjamini_hochberg

QUERIES = ("vaccine", "stablecoin OR \"bond yields\"", "telescope AND NOT gpu", "a*")


def _table(conn) -> dict:
    return dict(conn.execute("SELECT term, n FROM term_counts"))


def _meta(conn) -> str:
    return conn.execute("SELECT value FROM meta WHERE key = 'term_counts'").fetchone()[0]


def test_weighted_benjamini_hochberg_equals_the_expanded_list():
    rng = np.random.default_rng(3)
    p = np.round(rng.random(60), 2)            # ties within and across entries
    w = rng.integers(1, 5, size=60)
    expanded = benjamini_hochberg(np.repeat(p, w))
    ends = np.cumsum(w) - 1
    assert np.array_equal(weighted_benjamini_hochberg(p, w), expanded[ends])
    assert np.array_equal(weighted_benjamini_hochberg(p, np.ones(60, dtype=int)), benjamini_hochberg(p))


@pytest.mark.parametrize("q", QUERIES)
def test_stored_keyness_against_the_rest_equals_the_live_count(demo_corpus, q):
    assert stored_terms(demo_corpus.conn) is not None, "analyse keeps the term counts"
    ids = demo_corpus.query(q).ids()
    assert len(ids)
    stored = distinctive_terms(demo_corpus, ids, n=None)
    live = distinctive_terms(demo_corpus, ids, n=None, stored=False)
    assert len(live) > 5
    pd.testing.assert_frame_equal(stored, live, check_exact=True)
    for min_freq in (1, 6):
        pd.testing.assert_frame_equal(distinctive_terms(demo_corpus, ids, n=10, min_freq=min_freq),
                                      distinctive_terms(demo_corpus, ids, n=10, min_freq=min_freq, stored=False),
                                      check_exact=True)


def test_subcorpus_terms_read_only_the_selection_while_the_counts_hold(demo_corpus, monkeypatch):
    from corpuskit.analysis import keyterms, term_tally

    read = []
    real = keyterms.iter_texts
    for module in (keyterms, term_tally):     # the live count reads through the one, the stored through the other
        monkeypatch.setattr(module, "iter_texts", lambda conn, ids, *a: read.append(ids) or real(conn, ids, *a))
    sub = demo_corpus.query("vaccine")
    assert len(sub.terms(n=5)) == 5
    assert read and all(ids is not None and len(ids) == len(sub.ids()) for ids in read)


def test_an_edit_makes_the_counts_unusable_until_analyse_counts_again(demo_copy):
    conn = demo_copy.conn
    built = (_table(conn), _meta(conn))
    assert stored_terms(conn) is not None
    with demo_copy.transaction():
        conn.execute("UPDATE records SET content_text = 'zebra zebra zebra quagga' WHERE id = 5")
    assert stored_terms(conn) is None
    summary = build_term_counts(demo_copy)
    assert summary["rebuilt"] and summary["records"] == demo_copy.count()
    assert _table(conn)["zebra"] == 3 and stored_terms(conn) is not None
    with demo_copy.transaction():
        conn.execute("DELETE FROM records WHERE id = 5")
    assert stored_terms(conn) is None
    build_term_counts(demo_copy)
    assert "zebra" not in _table(conn)
    rows = conn.execute("SELECT id FROM records ORDER BY id").fetchall()
    assert _table(conn) != built[0]      # record 5's own terms are gone
    ids = demo_copy.query("vaccine").ids()
    pd.testing.assert_frame_equal(distinctive_terms(demo_copy, ids, n=None),
                                  distinctive_terms(demo_copy, ids, n=None, stored=False), check_exact=True)
    assert len(rows) == demo_copy.count()


def test_appended_records_are_counted_and_added(demo_copy):
    conn = demo_copy.conn
    last = conn.execute("SELECT max(id) FROM records").fetchone()[0]
    with demo_copy.transaction():
        conn.execute("INSERT INTO records(source, source_id, content_hash, title, content_text, url, author, "
                     "published_at, captured_at, language) SELECT source, source_id || '-x', content_hash || '-x', "
                     "title, content_text || ' zebra quagga', url, author, published_at, captured_at, language "
                     "FROM records WHERE id > ? - 40", (last,))
    assert stored_terms(conn) is None
    summary = build_term_counts(demo_copy)
    assert not summary["rebuilt"] and summary["records"] == 40
    incremental = (_table(conn), _meta(conn))
    # a record written below the newest id is an edit: every record is counted again, to the same table
    with demo_copy.transaction():
        conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('records_edits', '7')")
    assert stored_terms(conn) is None
    assert build_term_counts(demo_copy)["rebuilt"]
    assert _table(conn) == incremental[0]
    rebuilt, before = json.loads(_meta(conn)), json.loads(incremental[1])
    assert (rebuilt["tokens"], rebuilt["histogram"]) == (before["tokens"], before["histogram"])
    assert _table(conn)["zebra quagga"] == 40
    ids = demo_copy.query("zebra").ids()
    pd.testing.assert_frame_equal(distinctive_terms(demo_copy, ids, n=None),
                                  distinctive_terms(demo_copy, ids, n=None, stored=False), check_exact=True)


def test_a_record_inserted_below_the_newest_id_is_an_edit(demo_copy):
    conn = demo_copy.conn
    with demo_copy.transaction():
        conn.execute("DELETE FROM records WHERE id = 3")
    build_term_counts(demo_copy)
    assert stored_terms(conn) is not None
    with demo_copy.transaction():
        conn.execute("INSERT INTO records(id, source, source_id, content_hash, title, content_text, url, author, "
                     "published_at, captured_at, language) SELECT 3, source, source_id || '-y', "
                     "content_hash || '-y', title, content_text, url, author, published_at, captured_at, language "
                     "FROM records WHERE id = 4")
    assert stored_terms(conn) is None
