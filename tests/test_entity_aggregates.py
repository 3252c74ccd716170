"""The per-entity sums analyse stores give the answers computed live, and are used only while they hold."""
from __future__ import annotations

from corpuskit.analysis import entity_aggregates as aggregates
from corpuskit.analysis import entity_stats


def _answers(corpus, ids):
    names = sorted({corpus.conn.execute("SELECT name FROM entities WHERE id = ?", (eid,)).fetchone()[0]
                    for eid in ids})
    return (entity_stats.entity_list_rows(corpus, ids),
            [entity_stats.entity_detail(corpus, eid) for eid in ids],
            entity_stats.trending_entities(corpus, 1000),
            [entity_stats.entity_profile(corpus, name) for name in names])


def _live(corpus, ids, monkeypatch):
    with monkeypatch.context() as m:
        m.setattr(aggregates, "usable", lambda corpus: False)
        return _answers(corpus, ids)


def test_stored_sums_give_the_live_answers(demo_copy, monkeypatch):
    assert aggregates.usable(demo_copy)       # the demo ran analyse (and narrate) last
    stored = demo_copy.conn.execute("SELECT count(*) FROM entity_aggregates").fetchone()[0]
    mentioned = demo_copy.conn.execute("SELECT count(DISTINCT entity_id) FROM mentions").fetchone()[0]
    assert stored == mentioned > 20
    ids = [r[0] for r in demo_copy.conn.execute("SELECT id FROM entities ORDER BY id")]
    calls = []
    real = aggregates.stored_detail
    monkeypatch.setattr(aggregates, "stored_detail", lambda c, e: calls.append(e) or real(c, e))
    assert _answers(demo_copy, ids) == _live(demo_copy, ids, monkeypatch)
    assert len(calls) == len(ids)             # the stored path was the one taken


def test_stale_sums_are_not_used(demo_copy, monkeypatch):
    conn = demo_copy.conn
    eid, rid = conn.execute(
        "SELECT e.id, r.id FROM entities e, records r WHERE NOT EXISTS (SELECT 1 FROM mentions m "
        "WHERE m.entity_id = e.id AND m.record_id = r.id) ORDER BY e.mention_count DESC, r.id LIMIT 1").fetchone()
    with demo_copy.transaction():     # a mention written by hand, with no run
        conn.execute("INSERT INTO mentions(record_id, entity_id, surface, mention_count, positions) "
                     "VALUES (?, ?, 'x', 5, '[0]')", (rid, eid))
    assert not aggregates.usable(demo_copy)
    answers = _answers(demo_copy, [eid])
    assert answers == _live(demo_copy, [eid], monkeypatch)
    assert answers[0][0]["mentionCount"] == conn.execute(
        "SELECT sum(mention_count) FROM mentions WHERE entity_id = ?", (eid,)).fetchone()[0]

    summary = demo_copy.analyse(progress=False, steps=["snapshots"])
    assert summary["entityAggregates"]["rebuilt"] and aggregates.usable(demo_copy)
    assert _answers(demo_copy, [eid]) == answers
    again = demo_copy.analyse(progress=False, steps=["snapshots"])
    assert not again["entityAggregates"]["rebuilt"]


def test_a_run_of_a_writing_stage_makes_the_sums_stale(demo_copy):
    assert aggregates.usable(demo_copy)
    with demo_copy.run_stage("narrate"):
        pass
    assert aggregates.usable(demo_copy)       # narrate writes none of the inputs
    with demo_copy.run_stage("enrich"):
        pass
    assert not aggregates.usable(demo_copy)


def _table(corpus):
    return [tuple(r) for r in corpus.conn.execute("SELECT * FROM entity_aggregates ORDER BY entity_id")]


def test_a_new_day_updates_the_sums_of_the_entities_it_mentions(demo_copy, monkeypatch):
    conn = demo_copy.conn
    last = conn.execute("SELECT max(published_at) FROM records").fetchone()[0]
    texts = [r[0] for r in conn.execute(
        "SELECT content_text FROM records r WHERE EXISTS (SELECT 1 FROM mentions m WHERE m.record_id = r.id) "
        "ORDER BY id LIMIT 40")]
    sources = ("reddit", "hackernews", "bluesky", "news")
    demo_copy.add_records([{"source": sources[i % 4], "sourceId": f"new-day-{i}", "contentText": text,
                            "publishedAt": last[:10] + "T23:59:00Z", "author": f"a{i}"}
                           for i, text in enumerate(texts)])
    demo_copy.enrich(progress=False)
    assert not aggregates.usable(demo_copy)
    summary = demo_copy.analyse(progress=False, steps=["snapshots"])["entityAggregates"]
    assert not summary["rebuilt"] and summary["updated"] > 0 and aggregates.usable(demo_copy)
    updated = _table(demo_copy)
    ids = [r[0] for r in conn.execute("SELECT id FROM entities ORDER BY id")]
    assert _answers(demo_copy, ids) == _live(demo_copy, ids, monkeypatch)

    with demo_copy.transaction():   # forget the last build: the next one computes every entity again
        conn.execute("DELETE FROM meta WHERE key = ?", (aggregates.META_KEY,))
    assert demo_copy.analyse(progress=False, steps=["snapshots"])["entityAggregates"]["rebuilt"]
    assert _table(demo_copy) == updated
