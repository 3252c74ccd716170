"""The enrich stage: incremental, resumable, atomic per chunk, deterministic; demo quality floors."""
import json

import numpy as np
import pytest

from corpuskit import open_corpus
from corpuskit.enrich.defaults import default_extractor
from corpuskit.enrich.pipeline import load_embedder
from corpuskit.enrich.quality import demo_quality
from corpuskit.errors import BeatDefinitionError
from corpuskit.demo import build_demo


def small_demo(records=600, seed=3):
    c = open_corpus(":memory:")
    build_demo(c, seed=seed, records=records, days=30, run_stages=False, progress=False)
    return c


def plain_records(n, offset=0):
    subjects = ["OpenAI watched the rocket launch to orbit", "NASA studies a solar farm and grid batteries",
                "Bond yields and inflation worry the markets"]
    return [{"source": "reddit", "sourceId": f"p{offset + i}", "title": f"Post {offset + i}",
             "contentText": f"{subjects[i % 3]}, says report {offset + i}.",
             "publishedAt": f"2026-03-{1 + (offset + i) % 28:02d}T12:00:00Z", "subreddit": "news"}
            for i in range(n)]


def table_counts(c):
    return {t: c.conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
            for t in ("enrichment", "topic_assignments", "mentions", "record_vectors")}


def test_enrich_writes_every_table_and_a_summary():
    c = small_demo()
    summary = c.enrich(progress=False)
    n = c.count()
    assert summary["recordsEnriched"] == n == summary["totalEnriched"]
    assert summary["model"] == "corpuskit-tfidf-svd-512" and summary["dimensions"] == 512
    assert summary["topics"] == 7 and summary["discoveredTopics"] == 0 and summary["entities"] > 20
    counts = table_counts(c)
    assert counts["enrichment"] == counts["record_vectors"] == n
    assert counts["topic_assignments"] >= 0.8 * n and counts["mentions"] > n
    for score, label in c.conn.execute("SELECT sentiment_score, sentiment_label FROM enrichment"):
        assert -1 <= score <= 1
        # the default model labels by the most probable class; its score is P(pos) - P(neg)
        assert (score >= 0 if label == "positive" else score <= 0 if label == "negative" else abs(score) <= 0.5)
    # the primary topic is the best assignment
    bad = c.conn.execute(
        "SELECT count(*) FROM enrichment e WHERE e.topic_id IS NOT (SELECT topic_id FROM topic_assignments a "
        "WHERE a.record_id = e.record_id ORDER BY confidence DESC, topic_id LIMIT 1)").fetchone()[0]
    assert bad == 0
    # stored vectors are the saved model's embedding of the record, unit length
    model = load_embedder(c.conn)
    rid, blob = c.conn.execute("SELECT record_id, embedding FROM record_vectors LIMIT 1").fetchone()
    vec = np.frombuffer(blob, dtype=np.float32)
    title, text = c.conn.execute("SELECT title, content_text FROM records WHERE id=?", (rid,)).fetchone()
    from corpuskit.enrich.embeddings import embedding_text
    assert np.allclose(vec, model.transform([embedding_text(title, text)])[0], atol=1e-6)
    assert np.isclose(np.linalg.norm(vec), 1.0, atol=1e-5)
    # entity aggregates agree with the mentions (an entity whose mentions all went to another, as a
    # name cut short goes to the longer one, keeps its row with none: 0 and no first day, unlisted)
    rows = c.conn.execute(
        "SELECT e.mention_count, (SELECT sum(mention_count) FROM mentions m WHERE m.entity_id = e.id), "
        "e.first_seen, (SELECT min(r.published_at) FROM mentions m JOIN records r ON r.id = m.record_id "
        "WHERE m.entity_id = e.id) FROM entities e").fetchall()
    assert rows and all((a or None) == b and f == g for a, b, f, g in rows)
    assert sum(1 for a, *_ in rows if a) > 20
    positions = json.loads(c.conn.execute("SELECT positions FROM mentions LIMIT 1").fetchone()[0])
    assert positions == sorted(positions)


def test_incremental_runs_touch_only_new_records(corpus):
    corpus.add_records(plain_records(60))
    first = corpus.enrich(progress=False, chunk_size=25)
    assert first["recordsEnriched"] == 60
    model_run = corpus.conn.execute("SELECT run_id FROM models WHERE name='embedder'").fetchone()[0]
    assert corpus.enrich(progress=False)["recordsEnriched"] == 0
    corpus.add_records(plain_records(15, offset=100))
    third = corpus.enrich(progress=False)
    assert third["recordsEnriched"] == 15 and third["totalEnriched"] == 75
    assert corpus.conn.execute("SELECT run_id FROM models WHERE name='embedder'").fetchone()[0] == model_run
    runs = {r[0]: r[1] for r in corpus.conn.execute("SELECT run_id, count(*) FROM enrichment GROUP BY run_id")}
    assert runs == {first["runId"]: 60, third["runId"]: 15}
    refit = corpus.enrich(progress=False, refit=True)
    assert refit["recordsEnriched"] == 75 and refit["refitted"]
    assert corpus.conn.execute("SELECT run_id FROM models WHERE name='embedder'").fetchone()[0] == refit["runId"]
    assert table_counts(corpus)["record_vectors"] == 75


class Exploding(type(default_extractor())):
    """The default extractor, failing on the chunk holding a given record text (so the chunks it
    finishes are what a clean run writes)."""

    def __init__(self, trigger):
        super().__init__()
        self.trigger = trigger

    def extract_many(self, texts):
        if any(self.trigger in t for t in texts):
            raise RuntimeError("simulated crash")
        return super().extract_many(texts)


def test_interruption_keeps_finished_chunks_and_nothing_half_written(corpus):
    corpus.add_records(plain_records(100))
    with pytest.raises(RuntimeError, match="simulated crash"):
        corpus.enrich(progress=False, chunk_size=30, extractor=Exploding("report 75."))
    counts = table_counts(corpus)
    assert counts["enrichment"] == counts["record_vectors"] == 60  # two whole chunks
    orphans = corpus.conn.execute(
        "SELECT (SELECT count(*) FROM mentions WHERE record_id NOT IN (SELECT record_id FROM enrichment)) + "
        "(SELECT count(*) FROM topic_assignments WHERE record_id NOT IN (SELECT record_id FROM enrichment)) + "
        "(SELECT count(*) FROM record_vectors WHERE record_id NOT IN (SELECT record_id FROM enrichment))"
    ).fetchone()[0]
    assert orphans == 0
    total = corpus.conn.execute("SELECT sum(mention_count) FROM entities").fetchone()[0]
    assert total == corpus.conn.execute("SELECT sum(mention_count) FROM mentions").fetchone()[0]
    assert corpus.conn.execute("SELECT status FROM runs ORDER BY rowid DESC LIMIT 1").fetchone()[0] == "failed"
    resumed = corpus.enrich(progress=False, chunk_size=30)
    assert resumed["recordsEnriched"] == 40 and table_counts(corpus)["enrichment"] == 100


def test_corpus_without_beats_discovers_them(corpus):
    corpus.add_records(plain_records(150))
    summary = corpus.enrich(progress=False, n_topics=3)
    topics = corpus.conn.execute("SELECT name, discovered, category, keywords FROM topics").fetchall()
    assert summary["discoveredTopics"] == len(topics) == 3
    assert all(t[1] == 1 and t[2] == "discovered" and json.loads(t[3]) for t in topics)
    assigned = corpus.conn.execute("SELECT count(*) FROM enrichment WHERE topic_id IS NOT NULL").fetchone()[0]
    assert assigned >= 0.9 * 150
    # new records reuse the discovered beats and their centroids
    corpus.add_records(plain_records(10, offset=500))
    corpus.enrich(progress=False)
    assert corpus.conn.execute("SELECT count(*) FROM topics").fetchone()[0] == 3


def test_beats_file_given_explicitly(corpus, tmp_path):
    corpus.add_records(plain_records(30))
    path = tmp_path / "beats.json"
    path.write_text(json.dumps([{"name": "space", "keywords": ["rocket", "orbit"]},
                                {"name": "energy", "keywords": ["solar", "grid"]}]))
    corpus.enrich(progress=False, beats=path)
    shares = dict(corpus.conn.execute(
        "SELECT t.name, count(*) FROM enrichment e JOIN topics t ON t.id = e.topic_id GROUP BY t.name"))
    assert shares == {"space": 10, "energy": 10}


def test_bad_beats_file_writes_nothing(corpus, tmp_path):
    corpus.add_records(plain_records(10))
    path = tmp_path / "beats.json"
    path.write_text("{oops")
    with pytest.raises(BeatDefinitionError, match="not valid JSON"):
        corpus.enrich(progress=False, beats=path)
    assert sum(table_counts(corpus).values()) == 0
    assert corpus.conn.execute("SELECT count(*) FROM topics").fetchone()[0] == 0


def test_empty_corpus(corpus):
    summary = corpus.enrich(progress=False)
    assert summary["recordsEnriched"] == 0 and summary["totalEnriched"] == 0


def test_bad_chunk_size(corpus):
    from corpuskit.errors import ValidationError

    with pytest.raises(ValidationError, match="chunk_size"):
        corpus.enrich(progress=False, chunk_size=0)


def _dump(c):
    out = {}
    for table, order in (("enrichment", "record_id"), ("topics", "id"), ("topic_assignments", "record_id, topic_id"),
                         ("entities", "id"), ("mentions", "record_id, entity_id"), ("entity_aliases", "alias_key")):
        out[table] = [tuple(r) for r in c.conn.execute(f"SELECT * FROM {table} ORDER BY {order}")]
    out["vectors"] = [tuple(r) for r in c.conn.execute("SELECT record_id, embedding FROM record_vectors ORDER BY record_id")]
    out["run_ids"] = None
    return out


def test_same_input_gives_identical_tables():
    a, b = small_demo(300), small_demo(300)
    a.enrich(progress=False)
    b.enrich(progress=False)
    assert _dump(a) == _dump(b)


def test_demo_quality_floors(demo_corpus):
    q = demo_quality(demo_corpus)
    assert q["topicRecords"] == demo_corpus.count()
    # the extractor has never seen the demo's vocabulary (tests/test_gazetteer_sources.py): names are
    # found from the text alone, and typing names no list knows is the weak part
    assert q["namePrecision"] >= 0.9 and q["nameRecall"] >= 0.85
    assert q["typedPrecision"] >= 0.4 and q["typedRecall"] >= 0.4
    assert q["topicAccuracy"] >= 0.9
    assert q["sentimentAgreement"] >= 0.8


def test_worker_processes_give_identical_tables():
    a, b = small_demo(400), small_demo(400)
    a.enrich(progress=False, workers=1, chunk_size=100)
    b.enrich(progress=False, workers=2, chunk_size=100)
    assert _dump(a) == _dump(b)


def test_themes_are_the_beat_keywords_in_the_text():
    c = small_demo(records=300)
    c.enrich(progress=False)
    keywords = {}
    for name, kws in c.conn.execute("SELECT name, keywords FROM topics"):
        keywords[name] = {kw.lower() for kw in json.loads(kws)}
    all_keywords = set().union(*keywords.values())
    rows = c.conn.execute("SELECT r.title, r.content_text, e.themes FROM enrichment e "
                          "JOIN records r ON r.id = e.record_id").fetchall()
    with_themes = 0
    for title, text, themes in rows:
        themes = json.loads(themes)
        assert themes == sorted(themes) and len(themes) <= 5
        lowered = f"{title} {text}".lower().replace("-", " ")
        for theme in themes:
            assert theme in {" ".join(k.replace("-", " ").split()) for k in all_keywords}
            assert theme in lowered
        with_themes += bool(themes)
    assert with_themes >= 0.5 * len(rows)
