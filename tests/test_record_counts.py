"""The record counts analyse stores give the live answers byte for byte, and are used only while they hold."""
from __future__ import annotations

import json
from urllib.parse import quote

import pytest

from tests.api_fixtures import LABELS as V1_LABELS
from tests.api_fixtures import SOURCES as V1_SOURCES
from tests.api_fixtures import build_api_corpus
from tests.http_client import call
from tests.keyed_fixtures import ENTITIES, SOURCES, TOPICS, open_keyed_corpus

from corpuskit import open_corpus
from corpuskit.analysis.record_counts import build_record_counts
from corpuskit.api import create_app, response_cache
from corpuskit.api.ids import encode_id
from corpuskit.query import stored_counts


def _build(corpus) -> dict:
    with corpus.transaction():
        return build_record_counts(corpus)


def _bodies(app, headers, paths) -> list:
    response_cache.clear()   # no page or total remembered from the other path
    out = []
    for path in paths:
        status, _, body = call(app, "GET", path, headers)
        assert status == 200, (path, body[:200])
        out.append(body)
    return out


def _stored_and_live(app, headers, paths, monkeypatch) -> tuple[list, list, int]:
    """The answers read with the stored counts, those counted live, and how often the stored ones held."""
    held = []
    real = stored_counts.usable
    with monkeypatch.context() as m:
        m.setattr(stored_counts, "usable", lambda conn: held.append(real(conn)) or held[-1])
        stored = _bodies(app, headers, paths)
    with monkeypatch.context() as m:
        m.setattr(stored_counts, "usable", lambda conn: False)
        live = _bodies(app, headers, paths)
    return stored, live, sum(held)


def _keyed_paths(topics, sources, entities) -> list:
    paths = ["/api/v1/discourse", "/api/v1/discourse?limit=5&offset=3"]
    for topic in topics:
        paths += [f"/api/v1/discourse?topic={topic}", f"/api/v1/trends?topic={topic}",
                  f"/api/v1/trends?topic={topic}&days=365", f"/api/v1/trends?topic={topic}&days=3"]
        paths += [f"/api/v1/discourse?topic={topic}&source={s}&limit=2" for s in sources]
    paths += [f"/api/v1/discourse?source={s}" for s in sources]
    paths += [f"/api/v1/entities/{quote(name, safe='')}" for name in entities]
    return paths


def test_keyed_fixture_answers_are_the_live_ones(monkeypatch):
    corpus = open_keyed_corpus()
    try:
        key = corpus.create_key("enterprise", per_minute=10**6, per_day=10**7)
        app = create_app(corpus)
        summary = _build(corpus)
        assert summary["rebuilt"] and summary["rows"] > 0 and stored_counts.usable(corpus.conn)
        # the unenriched records count in 'climate' by their import hint
        assert stored_counts.stored_record_count(
            corpus.conn, topic=(corpus.conn.execute("SELECT id FROM topics WHERE name = 'climate'").fetchone()[0],
                                "climate")) == corpus.conn.execute(
            "SELECT count(*) FROM records r LEFT JOIN enrichment e ON e.record_id = r.id "
            "WHERE e.topic_id = (SELECT id FROM topics WHERE name = 'climate') "
            "OR (e.topic_id IS NULL AND r.topic = 'climate')").fetchone()[0] > 0
        topics = [t[0] for t in TOPICS]
        paths = _keyed_paths(topics, SOURCES, [e[1] for e in ENTITIES])
        stored, live, held = _stored_and_live(app, {"x-api-key": key}, paths, monkeypatch)
        assert stored == live
        assert held >= len(topics) * (3 + len(SOURCES))   # the stored counts answered
    finally:
        response_cache.clear()
        corpus.close()


def test_v1_fixture_answers_are_the_live_ones(monkeypatch):
    corpus = open_corpus(":memory:", now="2026-03-01T12:00:00Z")
    try:
        keys = build_api_corpus(corpus)
        key = corpus.create_key(tier="enterprise", name="tests", per_minute=10**7, per_day=10**8)
        app = create_app(corpus)
        _build(corpus)
        paths = ["/v1/records", "/v1/records?limit=3"]
        paths += [f"/v1/records?source={s}&sentiment={label}" for s in V1_SOURCES + ("gdelt",)
                  for label in V1_LABELS]
        paths += [f"/v1/records?source={s}" for s in V1_SOURCES] + [f"/v1/records?sentiment={x}" for x in V1_LABELS]
        paths += [f"/v1/entities/{encode_id(corpus, 'ent', e)}" for e in keys["entities"]]
        paths += _v1_stats_paths(corpus, V1_SOURCES, keys["topics"])
        stored, live, held = _stored_and_live(app, {"Authorization": f"Bearer {key}"}, paths, monkeypatch)
        assert stored == live
        assert held >= len(paths) - len(keys["entities"])
    finally:
        response_cache.clear()
        corpus.close()


def _v1_stats_paths(corpus, sources, topic_ids) -> list:
    """The /v1 timelines, the topic distribution and topic details (daily and per-topic counts)."""
    paths = ["/v1/stats/global/timeline", "/v1/stats/global/timeline?days=365", "/v1/stats/topics/distribution"]
    paths += [f"/v1/stats/sources/{s}/timeline?days={d}" for s in sources for d in (7, 365)]
    for tid in topic_ids:
        top = encode_id(corpus, "top", tid)
        paths += [f"/v1/topics/{top}", f"/v1/stats/topics/{top}/timeline",
                  f"/v1/stats/topics/{top}/timeline?days=365"]
    return paths


def test_demo_answers_are_the_live_ones(demo_copy, monkeypatch):
    conn = demo_copy.conn
    assert stored_counts.usable(conn)      # analyse (run by the demo) built them
    key = demo_copy.create_key(tier="enterprise", name="tests", per_minute=10**7, per_day=10**8)
    app = create_app(demo_copy)
    topics = [r[0] for r in conn.execute("SELECT name FROM topics ORDER BY id")]
    sources = [r[0] for r in conn.execute("SELECT DISTINCT source FROM records ORDER BY 1")]
    entities = [r[0] for r in conn.execute("SELECT name FROM entities ORDER BY mention_count DESC, id LIMIT 5")]
    keyed = _keyed_paths(topics, sources, entities)
    stored, live, held = _stored_and_live(app, {"x-api-key": key}, keyed, monkeypatch)
    assert stored == live and held >= len(topics) * (3 + len(sources))
    v1 = [f"/v1/records?source={s}&sentiment={x}" for s in sources for x in ("positive", "neutral", "negative")]
    v1 += [f"/v1/records?source={s}" for s in sources] + ["/v1/records?sentiment=negative", "/v1/records"]
    v1 += [f"/v1/entities/{encode_id(demo_copy, 'ent', r[0])}"
           for r in conn.execute("SELECT id FROM entities ORDER BY mention_count DESC, id LIMIT 5")]
    v1 += _v1_stats_paths(demo_copy, sources, [r[0] for r in conn.execute("SELECT id FROM topics ORDER BY id")])
    v1_key = {"Authorization": f"Bearer {key}"}
    stored, live, held = _stored_and_live(app, v1_key, v1, monkeypatch)
    assert stored == live and held >= len(sources) * 4


def _table(conn) -> tuple:
    return (conn.execute("SELECT * FROM record_counts ORDER BY topic_id, topic_hint, source, sentiment, day")
            .fetchall(),
            conn.execute("SELECT * FROM topic_day_counts ORDER BY topic_id, day").fetchall())


def _rebuilt(corpus) -> tuple:
    with corpus.transaction():
        corpus.conn.execute("DELETE FROM meta WHERE key = ?", (stored_counts.META_KEY,))
    assert _build(corpus)["rebuilt"]
    return _table(corpus.conn)


def _new_run(conn, stage: str, n: int) -> str:
    run_id = f"{stage}-test-{n}"
    conn.execute("INSERT INTO runs(id, stage, started_at, status) VALUES (?, ?, '2026-01-01T00:00:00Z', 'done')",
                 (run_id, stage))
    return run_id


def test_a_new_day_updates_only_its_day_and_matches_a_rebuild(demo_copy):
    conn = demo_copy.conn
    assert _build(demo_copy)["days"] == 0          # unchanged inputs: nothing to do
    last_day, topic_id = conn.execute(
        "SELECT max(day), (SELECT min(topic_id) FROM enrichment WHERE topic_id IS NOT NULL) FROM records").fetchone()
    new_day = f"{int(last_day[:4]) + 1}{last_day[4:]}"
    with demo_copy.transaction():
        imported, enriched = _new_run(conn, "import", 1), _new_run(conn, "enrich", 1)
        for i, (label, topic) in enumerate((("positive", topic_id), ("negative", None), ("neutral", topic_id))):
            rid = conn.execute(
                "INSERT INTO records(source, source_id, content_hash, content_text, published_at, captured_at, "
                "topic, run_id) VALUES ('reddit', ?, ?, 'new text', ?, ?, ?, ?)",
                (f"new{i}", f"h{i}", f"{new_day}T10:00:0{i}Z", f"{new_day}T11:00:00Z",
                 "hinted" if topic is None else None, imported)).lastrowid
            conn.execute("INSERT INTO enrichment(record_id, sentiment_score, sentiment_label, topic_id, run_id) "
                         "VALUES (?, 0.1, ?, ?, ?)", (rid, label, topic, enriched))
            if topic is not None:
                conn.execute("INSERT INTO topic_assignments(record_id, topic_id, confidence) VALUES (?, ?, 0.8)",
                             (rid, topic))
    assert not stored_counts.usable(conn)           # the stamp moved: readers count live
    summary = _build(demo_copy)
    assert not summary["rebuilt"] and summary["days"] == 1 and stored_counts.usable(conn)
    updated = _table(conn)
    assert updated == _rebuilt(demo_copy)
    assert stored_counts.stored_record_count(conn, source="reddit", sentiment="negative") == conn.execute(
        "SELECT count(*) FROM records r JOIN enrichment e ON e.record_id = r.id "
        "WHERE r.source = 'reddit' AND e.sentiment_label = 'negative'").fetchone()[0]


def test_an_older_record_enriched_again_rebuilds(demo_copy):
    conn = demo_copy.conn
    rid, label = conn.execute("SELECT record_id, sentiment_label FROM enrichment ORDER BY record_id LIMIT 1").fetchone()
    other = "negative" if label != "negative" else "positive"
    with demo_copy.transaction():
        run = _new_run(conn, "enrich", 2)
        conn.execute("UPDATE enrichment SET sentiment_label = ?, run_id = ? WHERE record_id = ?", (other, run, rid))
    assert not stored_counts.usable(conn)
    summary = _build(demo_copy)
    assert summary["rebuilt"] and stored_counts.usable(conn)
    assert stored_counts.stored_record_count(conn, sentiment=other) == conn.execute(
        "SELECT count(*) FROM enrichment WHERE sentiment_label = ?", (other,)).fetchone()[0]


def test_stale_counts_are_never_used(monkeypatch):
    corpus = open_keyed_corpus()
    try:
        key = corpus.create_key("enterprise", per_minute=10**6, per_day=10**7)
        app = create_app(corpus)
        _build(corpus)
        conn = corpus.conn
        topic = TOPICS[0][0]
        before = _bodies(app, {"x-api-key": key}, [f"/api/v1/discourse?topic={topic}"])[0]
        with corpus.transaction():   # a record written by hand, with no run and no analyse after it
            conn.execute("INSERT INTO records(source, source_id, content_hash, content_text, published_at, "
                         "captured_at, topic) VALUES ('reddit', 'late', 'hx', 'late text', ?, ?, ?)",
                         ("2026-02-10T10:00:00Z", "2026-02-10T10:00:00Z", topic))
        assert not stored_counts.usable(conn)
        assert stored_counts.stored_record_count(conn, source="reddit") is None
        assert stored_counts.stored_topic_days(conn, 1, "2026-01-01", "2026-03-01") is None
        stale = _bodies(app, {"x-api-key": key}, [f"/api/v1/discourse?topic={topic}"])[0]
        assert stale != before
        total = json.loads(stale)["pagination"]["total"]
        assert total == json.loads(before)["pagination"]["total"] + 1
        # and a meta value that is not a stamp is not trusted either
        with corpus.transaction():
            corpus.set_meta(stored_counts.META_KEY, "not a stamp")
        assert not stored_counts.usable(conn)
        assert _build(corpus)["rebuilt"] and stored_counts.usable(conn)
    finally:
        response_cache.clear()
        corpus.close()


_SAMPLES = ("SELECT r.id, r.source, r.title, r.url, r.published_at, e.sentiment_score, e.sentiment_label, "
            "CASE WHEN coalesce(r.title, '') = '' THEN substr(r.content_text, 1, 2000) END AS text_head "
            "FROM records r JOIN topic_assignments ta ON ta.record_id = r.id "
            "LEFT JOIN enrichment e ON e.record_id = r.id WHERE ta.topic_id = ? "
            "ORDER BY ta.confidence DESC, r.published_at DESC, r.id DESC LIMIT ?")


@pytest.mark.parametrize("ties_by_records", [0, 10**9])
def test_topic_samples_are_the_most_confident_newest_first(demo_copy, monkeypatch, ties_by_records):
    from corpuskit.query import topics as queries

    monkeypatch.setattr(queries, "_TIES_BY_RECORDS", ties_by_records)   # both ways of reading the ties
    conn = demo_copy.conn
    with demo_copy.transaction():   # ties at the top, and one record above them
        tid = conn.execute("SELECT topic_id FROM topic_assignments GROUP BY topic_id ORDER BY count(*) DESC "
                           "LIMIT 1").fetchone()[0]
        conn.execute("UPDATE topic_assignments SET confidence = 0.99 WHERE topic_id = ? AND record_id % 3 = 0",
                     (tid,))
        conn.execute("UPDATE topic_assignments SET confidence = 1.0 WHERE topic_id = ? AND record_id = "
                     "(SELECT min(record_id) FROM topic_assignments WHERE topic_id = ?)", (tid, tid))
    topics = [r[0] for r in conn.execute("SELECT id FROM topics ORDER BY id")] + [10**6]
    for topic in topics:
        for n in (1, 5, 50):
            assert queries.topic_sample_records(conn, topic, n) == conn.execute(_SAMPLES, (topic, n)).fetchall()
