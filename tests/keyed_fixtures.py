"""A small, seeded corpus for the keyed API tests, written straight into every stage's tables.

It stands in for enrichment, analysis and narration: four topics (one
inactive), 66 records over ten days from six source kinds (three left
unenriched), entities with mentions (one with a slash and one with an
accent in its name), a signal of every kind, narratives with two versions, two
cluster runs, snapshots, and observations. The corpus clock is fixed at
:data:`NOW`.
"""
from __future__ import annotations

import json
import random
from datetime import datetime, timedelta, timezone

from corpuskit import open_corpus
from corpuskit.clock import iso

NOW = "2026-02-10T12:00:00Z"
START = datetime(2026, 1, 31, tzinfo=timezone.utc)
SOURCES = ("reddit", "bluesky", "hackernews", "arxiv", "gdelt", "news")
TOPICS = (
    ("ai-policy", "AI Policy", "policy", ["regulation", "act"], ["artificial"], True),
    ("climate", "Climate", "science", ["carbon", "heat"], ["climate"], True),
    ("chips", "Chips and Compute", "technology", ["gpu", "fab"], ["hardware"], True),
    ("retired-beat", "Retired Beat", "general", [], [], False),
)
ENTITIES = (
    ("openai-org", "OpenAI", "org"),
    ("ipcc-org", "IPCC", "org"),
    ("ac-dc-product", "AC/DC", "product"),
    ("zurich-place", "Zürich", "place"),
)
RECORDS_PER_TOPIC = 21
UNENRICHED = 3


def open_keyed_corpus(path=":memory:"):
    """A corpus at ``path`` with the fixed clock and the fixture rows."""
    corpus = open_corpus(path, now=NOW)
    build(corpus)
    return corpus


def build(corpus, seed: int = 3) -> dict:
    """Fill ``corpus``; returns ids by name for the tests."""
    rng = random.Random(seed)
    conn = corpus.conn
    ids = {"topics": {}, "entities": {}, "records": {}, "signals": {}}
    with corpus.transaction():
        for run_id, stage in (("enrich-1", "enrich"), ("analyse-1", "analyse"),
                              ("analyse-2", "analyse"), ("narrate-1", "narrate")):
            conn.execute("INSERT INTO runs(id, stage, started_at, finished_at, status) "
                         "VALUES (?,?,?,?, 'done')", (run_id, stage, NOW, NOW))
        for name, display, category, keywords, subreddits, active in TOPICS:
            cur = conn.execute(
                "INSERT INTO topics(name, display_name, description, category, keywords, subreddits, "
                "active, created_at) VALUES (?,?,?,?,?,?,?,?)",
                (name, display, f"All about {display.lower()}.", category, json.dumps(keywords),
                 json.dumps(subreddits), int(active), "2026-01-01T00:00:00Z"))
            ids["topics"][name] = cur.lastrowid
        for slug, name, kind in ENTITIES:
            cur = conn.execute("INSERT INTO entities(slug, name, type, mention_count, updated_at) "
                               "VALUES (?,?,?,0,?)", (slug, name, kind, NOW))
            ids["entities"][name] = cur.lastrowid
        n = 0
        for t_index, (topic, *_rest) in enumerate(TOPICS[:3]):
            ids["records"][topic] = []
            for i in range(RECORDS_PER_TOPIC):
                n += 1
                source = SOURCES[(i + t_index) % len(SOURCES)]
                published = START + timedelta(days=i % 10, hours=rng.randint(0, 23),
                                              minutes=rng.randint(0, 59))
                captured = published + timedelta(minutes=rng.randint(1, 120))
                cur = conn.execute(
                    "INSERT INTO records(source, source_id, content_hash, content_type, title, "
                    "content_text, url, author, published_at, captured_at, subreddit, language) "
                    "VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                    (source, f"{source}-{n}", f"hash{n}", "paper" if source == "arxiv" else "post",
                     f"{topic} headline {n}", f"Text {n} about {topic} and the week's news.",
                     f"https://example.org/{source}/{n}", f"author{n % 7}", iso(published),
                     iso(captured), "science" if source == "reddit" else None, "en"))
                rid = cur.lastrowid
                ids["records"][topic].append(rid)
                score = round(rng.uniform(-0.9, 0.9), 4)
                label = "positive" if score > 0.05 else "negative" if score < -0.05 else "neutral"
                conn.execute(
                    "INSERT INTO enrichment(record_id, sentiment_score, sentiment_label, topic_id, "
                    "themes, run_id) VALUES (?,?,?,?,?, 'enrich-1')",
                    (rid, score, label, ids["topics"][topic], json.dumps([topic, "news"])))
                conn.execute("INSERT INTO topic_assignments VALUES (?,?,?)",
                             (rid, ids["topics"][topic], 0.9))
                entity = {"ai-policy": "OpenAI", "climate": "IPCC", "chips": "AC/DC"}[topic]
                mentions = [entity] + (["Zürich"] if i % 4 == 0 else [])
                for name in mentions:
                    conn.execute("INSERT INTO mentions VALUES (?,?,?,?,?)",
                                 (rid, ids["entities"][name], name, 1 + i % 3, "[0]"))
        ids["unenriched"] = []
        for j in range(UNENRICHED):
            n += 1
            when = START + timedelta(days=9, hours=20 + j)
            cur = conn.execute(
                "INSERT INTO records(source, source_id, content_hash, title, content_text, "
                "published_at, captured_at, topic) VALUES (?,?,?,?,?,?,?, 'climate')",
                ("bluesky", f"raw-{j}", f"rawhash{j}", "", f"Fresh unprocessed post {j}",
                 iso(when), iso(when + timedelta(minutes=5))))
            ids["unenriched"].append(cur.lastrowid)
        conn.execute("UPDATE entities SET mention_count = (SELECT coalesce(sum(mention_count), 0) "
                     "FROM mentions WHERE entity_id = entities.id)")
        _signals(conn, ids)
        _stories(conn, ids)
        _clusters(conn, ids)
        _observations(conn)
    from corpuskit.analysis.snapshots import build_snapshots

    with corpus.transaction():
        build_snapshots(corpus, "analyse-2")
    return ids


def _signals(conn, ids):
    rows = (
        ("volume_spike", "ai-policy", "high", {"baseline": 2.0, "current": 9.0, "multiplier": 4.5},
         "2026-02-09T06:00:00Z"),
        ("sentiment_shift", "climate", "medium", {"before": 0.2, "after": -0.4},
         "2026-02-08T06:00:00Z"),
        ("novelty", "chips", "low", {"term": "AC/DC", "baselineMentions": 0},
         "2026-02-07T06:00:00Z"),
        ("divergence", "climate", "medium", {"sourceA": "reddit", "sourceB": "news",
                                             "divergencePoints": 0.6, "summary": "apart"},
         "2026-02-06T06:00:00Z"),
        ("volume_spike", "ai-policy", "low", {"baseline": 2.0, "current": 4.0, "multiplier": 2.0},
         "2026-02-02T06:00:00Z"),
    )
    for n, (kind, topic, severity, detail, detected) in enumerate(rows):
        cur = conn.execute(
            "INSERT INTO signals(signal_key, kind, topic_id, severity, sigma_score, headline, detail, "
            "detected_at, status, acknowledged, run_id, updated_at) "
            "VALUES (?,?,?,?,?,?,?,?, 'open', ?, 'analyse-2', ?)",
            (f"{kind}|{topic}|{n}", kind, ids["topics"][topic], severity, 3.0 + n,
             f"{kind.replace('_', ' ')} on {topic}", json.dumps(detail), detected, int(n == 4),
             detected))
        ids["signals"][n] = cur.lastrowid


def _story(conn, key, version, current, kind, slug, headline, topic_id, entity_id, featured,
           generated, trigger, citations, severity="medium"):
    cur = conn.execute(
        "INSERT INTO stories(story_key, version, is_current, kind, slug, headline, lede, body, topic_id, "
        "entity_id, category, signal_severity, trigger_signal_id, featured, metadata, refs, "
        "evidence_hash, generated_at, publish_at, run_id) "
        "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?, 'narrate-1')",
        (key, version, int(current), kind, slug, headline, f"Lede of {headline}.",
         f"Body of {headline}. It cites records.", topic_id, entity_id, "policy", severity, trigger,
         int(featured), json.dumps({"summary": f"Summary of {headline}"}),
         json.dumps([{"refType": "beat", "refSlug": "ai-policy", "displayText": "AI Policy"}]),
         f"ev{slug}", generated, generated))
    for ordinal, rid in enumerate(citations, start=1):
        conn.execute("INSERT INTO story_citations(story_id, ordinal, record_id, confidence, inferred) "
                     "VALUES (?,?,?,?,0)", (cur.lastrowid, ordinal, rid, 0.8))
    conn.execute("INSERT OR REPLACE INTO story_slugs(slug, story_key) VALUES (?,?)", (slug, key))
    return cur.lastrowid


def _stories(conn, ids):
    t, e, r = ids["topics"], ids["entities"], ids["records"]
    _story(conn, "beat|ai-policy", 1, False, "beat_narrative", "ai-policy-week-v1",
           "AI policy week", t["ai-policy"], None, False, "2026-02-05T08:00:00Z",
           ids["signals"][4], r["ai-policy"][:2])
    ids["beat_story"] = _story(conn, "beat|ai-policy", 2, True, "beat_narrative", "ai-policy-week",
                               "AI policy week, updated", t["ai-policy"], None, True,
                               "2026-02-09T08:00:00Z", ids["signals"][0], r["ai-policy"][:3],
                               severity="high")
    _story(conn, "lead", 1, True, "lead_story", "lead-carbon", "Carbon takes the lead",
           t["climate"], None, True, "2026-02-08T09:00:00Z", ids["signals"][1], r["climate"][:3])
    _story(conn, "dispatch|chips", 1, True, "dispatch", "chips-dispatch", "Chip dispatch",
           t["chips"], None, False, "2026-02-07T09:00:00Z", None, r["chips"][:1], severity=None)
    _story(conn, "entity|openai", 1, True, "entity_narrative", "openai-profile", "OpenAI in focus",
           t["ai-policy"], e["OpenAI"], False, "2026-02-06T09:00:00Z", None, r["ai-policy"][3:5])
    conn.execute("UPDATE signals SET narrative_id = ? WHERE id = ?",
                 (ids["beat_story"], ids["signals"][0]))


def _clusters(conn, ids):
    for run_id, created in (("analyse-1", "2026-02-01T00:00:00Z"), ("analyse-2", "2026-02-10T00:00:00Z")):
        for topic in ("ai-policy", "climate"):
            for label in (0, 1):
                cur = conn.execute(
                    "INSERT INTO clusters(run_id, topic_id, cluster_label, lineage_id, record_count, "
                    "top_terms, summary_label, metadata, created_at) VALUES (?,?,?,?,?,?,?,?,?)",
                    (run_id, ids["topics"][topic], label, f"{topic}-{label}", 5 + label,
                     json.dumps([topic, f"term{label}"]), f"{topic} cluster {label}",
                     json.dumps({"silhouetteScore": 0.41 + label / 10}), created))
                for rid in ids["records"][topic][label * 5: label * 5 + 5]:
                    conn.execute("INSERT INTO cluster_members VALUES (?,?)", (cur.lastrowid, rid))


def _observations(conn):
    rows = (
        ("convergence", "AI policy and chips share rising entities", "medium",
         {"topics": ["ai-policy", "chips"], "sharedEntities": ["OpenAI"]}, "2026-02-09T00:00:00Z"),
        ("anomaly", "Climate volume far above normal", "high",
         {"metric": "volume", "deviation": 3.2, "topic": "climate"}, "2026-02-08T00:00:00Z"),
        ("milestone", "Chips passes 20 records", "low", {"topic": "chips", "count": 21},
         "2026-02-03T00:00:00Z"),
    )
    for n, (kind, headline, severity, detail, observed) in enumerate(rows):
        conn.execute("INSERT INTO observations(observation_key, type, headline, detail, severity, "
                     "observed_at, run_id) VALUES (?,?,?,?,?,?, 'analyse-2')",
                     (f"obs{n}", kind, headline, json.dumps(detail), severity, observed))
