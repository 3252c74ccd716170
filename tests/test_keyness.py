"""Keyness statistics against published figures, and keyness of subcorpora on the demo and real data."""
import re

import numpy as np
import pytest

from corpuskit.analysis.keyterms import COMPARE_COLUMNS, DISTINCTIVE_COLUMNS, compare_terms, distinctive_terms
from corpuskit.errors import ValidationError
from corpuskit.stats.keyness import (benjamini_hochberg, g2_p_value, keyness_table, log_likelihood,
                                     log_ratio)
from tests.conftest import HN_CSV, need_shared


def test_log_likelihood_matches_the_ucrel_calculator_example():
    # Lancaster UCREL log-likelihood wizard (ucrel.lancs.ac.uk/llwizard.html) worked example, as given
    # in its tutorial: 52 in a 50,000-word corpus, 57 in a 75,000-word corpus -> "+ 2.65".
    # By the page's formula: E1 = 43.6, E2 = 65.4, G2 = 2 (52 ln(52/43.6) + 57 ln(57/65.4)) = 2.652.
    g2 = log_likelihood(52, 57, 50_000, 75_000)
    assert round(g2, 2) == 2.65 and g2 == pytest.approx(2.652, abs=5e-4)
    assert g2 < 3.84 and g2_p_value(g2) == pytest.approx(0.1034, abs=5e-4)  # not significant at 0.05
    # Hardie (2014) Log Ratio: log2((52/50000) / (57/75000)) = log2(1.368) = 0.453
    assert log_ratio(52, 57, 50_000, 75_000) == pytest.approx(0.453, abs=5e-4)


def test_log_likelihood_edges():
    assert log_likelihood(10, 20, 1000, 2000) == pytest.approx(0.0, abs=1e-12)   # same relative frequency
    assert log_likelihood(0, 0, 10, 10) == 0.0
    # a term absent from one side: 0 ln 0 = 0, and the Log Ratio uses 0.5 for the zero
    assert log_likelihood(10, 0, 1000, 1000) == pytest.approx(2 * 10 * np.log(2), abs=1e-9)
    assert log_ratio(10, 0, 1000, 1000) == pytest.approx(np.log2(20))
    assert log_ratio(0, 10, 1000, 1000) == pytest.approx(-np.log2(20))
    arr = log_likelihood([52, 10], [57, 20], 50_000, 75_000)
    assert arr.shape == (2,)
    with pytest.raises(ValidationError, match="need tokens"):
        log_likelihood(1, 1, 0, 10)
    with pytest.raises(ValidationError, match="between 0 and its corpus size"):
        log_likelihood(11, 1, 10, 10)


def test_benjamini_hochberg_matches_the_1995_example():
    # Benjamini & Hochberg (1995), section 4: 15 p-values; at q = 0.05 the procedure rejects the four smallest.
    p = [0.0001, 0.0004, 0.0019, 0.0095, 0.0201, 0.0278, 0.0298, 0.0344, 0.0459, 0.3240, 0.4262, 0.5719,
         0.6528, 0.7590, 1.000]
    adjusted = benjamini_hochberg(p)
    assert (adjusted <= 0.05).sum() == 4 and adjusted[3] == pytest.approx(0.0095 * 15 / 4)
    assert np.all(adjusted >= np.asarray(p)) and benjamini_hochberg([]).size == 0
    with pytest.raises(ValidationError):
        benjamini_hochberg([0.5, 1.5])


def test_keyness_table_sorted_with_direction():
    t = keyness_table(["x", "y", "z"], [50, 5, 10], [5, 50, 10], 1000, 1000)
    assert list(t["term"][:2]) == ["x", "y"] and t["G2"][0] == t["G2"][1]   # ties broken by term
    assert dict(zip(t["term"], t["direction"])) == {"x": "a", "y": "b", "z": "="}
    assert keyness_table([], [], [], 1, 1).empty
    with pytest.raises(ValidationError, match="same length"):
        keyness_table(["x"], [1, 2], [1, 2], 10, 10)


def _ids(conn, sql, *args):
    return [r[0] for r in conn.execute(sql, args)]


def test_distinctive_terms_of_a_demo_subcorpus(demo_corpus):
    ids = _ids(demo_corpus.conn, "SELECT id FROM records WHERE content_text LIKE '%vaccine%'")
    terms = distinctive_terms(demo_corpus, ids, n=15)
    assert list(terms.columns) == list(DISTINCTIVE_COLUMNS) and len(terms) == 15
    assert terms["term"].iloc[0] == "vaccine"
    assert (terms["log_ratio"] > 0).all() and (terms["p_adjusted"] < 0.001).all()
    assert terms["G2"].is_monotonic_decreasing
    assert not any(re.search(r"https?|www|\.com|href|&", t) for t in terms["term"])
    assert distinctive_terms(demo_corpus, [], n=5).empty
    with pytest.raises(ValidationError, match="positive integer"):
        distinctive_terms(demo_corpus, ids, n=0)


def test_compare_terms_between_two_demo_subcorpora(demo_corpus):
    conn = demo_corpus.conn
    a = _ids(conn, "SELECT id FROM records WHERE content_text LIKE '%vaccine%'")
    b = _ids(conn, "SELECT id FROM records WHERE content_text LIKE '%climate%'")
    table = compare_terms(demo_corpus, a, b, n=5)
    assert list(table.columns) == list(COMPARE_COLUMNS)
    assert table.groupby("direction").size().to_dict() == {"a": 5, "b": 5}
    top_a = table[table["direction"] == "a"].iloc[0]
    top_b = table[table["direction"] == "b"].iloc[0]
    assert top_a["term"] == "vaccine" and top_a["log_ratio"] > 0 and top_b["log_ratio"] < 0
    assert "climate" in set(table["term"])
    # symmetric: swapping the sides swaps the signs and keeps G2
    swapped = compare_terms(demo_corpus, b, a, n=5).set_index("term")
    assert swapped.loc["vaccine", "log_ratio"] == pytest.approx(-top_a["log_ratio"])
    assert swapped.loc["vaccine", "G2"] == pytest.approx(top_a["G2"])
    assert compare_terms(demo_corpus, a, [], n=5).empty


def test_keyness_strips_markup_and_urls(corpus):
    rows = [("<p>Mutation <a href=\"https://example.com/x\">strain</a> &amp; https://t.co/abc</p>", "1"),
            ("mutation strain www.example.org", "2"), ("mutation strain spreads", "3"),
            ("ordinary weather report today", "4"), ("weather report sunny", "5"), ("weather today", "6")]
    for text, sid in rows:
        corpus.conn.execute("INSERT INTO records(source, source_id, content_hash, content_text, published_at, "
                            "captured_at) VALUES ('news', ?, ?, ?, '2021-01-01T00:00:00Z', '2021-01-01T00:00:00Z')",
                            (sid, sid, text))
    table = compare_terms(corpus, [1, 2, 3], [4, 5, 6], n=None, min_freq=1)
    assert {"mutation", "strain", "mutation strain"} <= set(table["term"])
    assert not {"href", "https", "www", "com", "amp", "example", "tco"} & set(table["term"])


def test_distinctive_terms_on_real_hacker_news(tmp_path):
    from corpuskit import open_corpus

    c = open_corpus(tmp_path / "hn.db")
    c.import_file(need_shared(HN_CSV))
    ids = _ids(c.conn, "SELECT id FROM records WHERE lower(title) LIKE '%bitcoin%'")
    assert len(ids) > 30
    terms = distinctive_terms(c, ids, n=10)
    assert terms["term"].iloc[0] == "bitcoin" and (terms["p_adjusted"] < 0.05).all()
    crypto = {"blockchain", "btc", "ethereum", "bitfinex", "zcash", "mining", "coinbase", "crypto"}
    assert sum("bitcoin" in t or t in crypto for t in terms["term"]) >= 5
    c.close()
