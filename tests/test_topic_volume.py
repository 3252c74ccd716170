"""A topic's volume by source, read through indexes, equals the primary-topic rule's scan."""
from __future__ import annotations

import itertools

from corpuskit import open_corpus
from corpuskit.query.topics import topic_volume as _topic_volume
from corpuskit.query import PRIMARY_TOPIC_RULE


def _scan(conn, topic_id, name):
    return [tuple(r) for r in conn.execute(
        "SELECT r.source, count(*) AS n FROM records r LEFT JOIN enrichment e ON e.record_id = r.id "
        f"WHERE {PRIMARY_TOPIC_RULE} GROUP BY r.source ORDER BY n DESC, r.source", (topic_id, name))]


def test_volume_by_source_follows_the_primary_topic_rule():
    corpus = open_corpus(":memory:")
    conn = corpus.conn
    with corpus.transaction():
        ids = [conn.execute("INSERT INTO topics(name, display_name, keywords, created_at) "
                            "VALUES (?, ?, '[]', '2026-01-01T00:00:00Z')", (n, n.title())).lastrowid
               for n in ("ai", "climate")]
        sources = itertools.cycle(("reddit", "news", "bluesky", "hackernews"))
        # every combination: hinted topic (none, ai, climate) x enrichment (none, no topic, ai, climate)
        cases = [(hint, enriched) for hint in (None, "ai", "climate")
                 for enriched in ("none", None, ids[0], ids[1])]
        for i, (hint, enriched) in enumerate(cases * 3):
            rid = conn.execute(
                "INSERT INTO records(source, source_id, content_hash, content_text, published_at, "
                "captured_at, topic) VALUES (?, ?, ?, 'text', '2026-01-01T00:00:00Z', "
                "'2026-01-01T00:00:00Z', ?)", (next(sources), f"s{i}", f"h{i}", hint)).lastrowid
            if enriched != "none":
                conn.execute("INSERT INTO enrichment(record_id, sentiment_score, sentiment_label, topic_id, "
                             "run_id) VALUES (?, 0, 'neutral', ?, 'enrich-1')", (rid, enriched))
    for topic_id, name in zip(ids, ("ai", "climate")):
        expected = _scan(conn, topic_id, name)
        assert sum(n for _, n in expected) == 15      # (3 enriched with it + 2 hinted, not enriched) x 3
        assert _topic_volume(conn, topic_id, name) == expected
    assert _topic_volume(conn, 999, "unknown") == _scan(conn, 999, "unknown") == []
