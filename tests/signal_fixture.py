"""A small seeded corpus written straight into the enrichment tables, with planted events.

Used by ``test_signals*.py`` and ``test_clusters.py`` so the analysis tests do
not depend on the enrichment stage or the demo generator.
"""
from __future__ import annotations

import hashlib
import json
from datetime import date, timedelta

import numpy as np

TOPICS = [("ai-policy", "AI Policy"), ("climate", "Climate"), ("markets", "Markets")]
SOURCES = ["hackernews", "news", "reddit"]
START = date(2025, 1, 1)


def build_fixture(corpus, days: int = 50, per_day: int = 30, seed: int = 3, events: bool = True,
                  vectors: bool = False) -> dict:
    """Write a seeded corpus; return the planted events ``[{kind, topic, day, ...}]``.

    Events (when ``events``): a 3x volume spike on ai-policy on day 35, a
    sentiment drop on climate from day 30 (three days), a new entity
    ``Zeta Corp`` in markets on day 40, and reddit turning negative on markets
    on days 45-46 while news stays put.
    """
    rng = np.random.default_rng(seed)
    conn = corpus.conn
    planted = []
    if events:
        planted = [
            {"kind": "volume_spike", "topic": "ai-policy", "day": (START + timedelta(35)).isoformat()},
            {"kind": "sentiment_shift", "topic": "climate", "day": (START + timedelta(30)).isoformat()},
            {"kind": "novelty", "topic": "markets", "day": (START + timedelta(40)).isoformat(),
             "entity": "Zeta Corp"},
            {"kind": "divergence", "topic": "markets", "day": (START + timedelta(45)).isoformat(),
             "sources": ["news", "reddit"]},
        ]
    with corpus.transaction():
        for i, (name, label) in enumerate(TOPICS, start=1):
            conn.execute("INSERT INTO topics(id, name, display_name, keywords, created_at) VALUES (?,?,?,?,?)",
                         (i, name, label, "[]", "2025-01-01T00:00:00Z"))
        entities = {}
        eid = 1
        for name, _ in TOPICS:
            for j in range(6):
                ename = f"{name.split('-')[0].title()} Entity {j}"
                entities.setdefault(name, []).append(eid)
                conn.execute("INSERT INTO entities(id, slug, name, type, updated_at) VALUES (?,?,?,?,?)",
                             (eid, ename.lower().replace(" ", "-"), ename, "org", "2025-01-01T00:00:00Z"))
                eid += 1
        zeta = eid
        conn.execute("INSERT INTO entities(id, slug, name, type, updated_at) VALUES (?,?,?,?,?)",
                     (zeta, "zeta-corp", "Zeta Corp", "org", "2025-01-01T00:00:00Z"))
        words = {name: [f"{name.split('-')[0]}{k}" for k in range(40)] for name, _ in TOPICS}
        rid = 0
        for d in range(days):
            day = START + timedelta(d)
            for t, (name, _) in enumerate(TOPICS, start=1):
                n = rng.poisson(per_day)
                if events and name == "ai-policy" and d == 35:
                    n = per_day * 3
                for _ in range(n):
                    rid += 1
                    source = SOURCES[rng.integers(len(SOURCES))]
                    mean = 0.05
                    if events and name == "climate" and 30 <= d <= 32:
                        mean = -0.45
                    if events and name == "markets" and 45 <= d <= 46 and source == "reddit":
                        mean = -0.6
                    score = float(np.clip(rng.normal(mean, 0.3), -1, 1))
                    sub = rng.integers(3)
                    text = " ".join(rng.choice(words[name][sub * 12:(sub + 1) * 12 + 4], size=12))
                    ts = f"{day.isoformat()}T{rng.integers(24):02d}:{rng.integers(60):02d}:00Z"
                    conn.execute(
                        "INSERT INTO records(id, source, source_id, content_hash, title, content_text, "
                        "published_at, captured_at, metadata) VALUES (?,?,?,?,?,?,?,?,?)",
                        (rid, source, f"s{rid}", hashlib.sha1(str(rid).encode()).hexdigest(),
                         f"{name} story {rid}", text, ts, ts, json.dumps({"sub": int(sub)})))
                    label = "positive" if score > 0.05 else "negative" if score < -0.05 else "neutral"
                    conn.execute("INSERT INTO enrichment(record_id, sentiment_score, sentiment_label, topic_id, "
                                 "run_id) VALUES (?,?,?,?,?)", (rid, score, label, t, "enrich-1"))
                    conn.execute("INSERT INTO topic_assignments(record_id, topic_id, confidence) VALUES (?,?,?)",
                                 (rid, t, 0.9))
                    if rng.random() < 0.3:
                        e = int(rng.choice(entities[name]))
                        conn.execute("INSERT INTO mentions(record_id, entity_id, surface, mention_count, positions) "
                                     "VALUES (?,?,?,?,?)", (rid, e, "x", 1, "[0]"))
                    if events and name == "markets" and d == 40 and rng.random() < 0.5:
                        conn.execute("INSERT INTO mentions(record_id, entity_id, surface, mention_count, positions) "
                                     "VALUES (?,?,?,?,?)", (rid, zeta, "Zeta Corp", 1, "[0]"))
                    if vectors:
                        centre = np.zeros(512, dtype=np.float32)
                        centre[(t - 1) * 20 + sub * 5:(t - 1) * 20 + sub * 5 + 5] = 1.0
                        vec = centre + rng.normal(0, 0.15, 512).astype(np.float32)
                        vec /= np.linalg.norm(vec)
                        conn.execute("INSERT INTO record_vectors(record_id, embedding) VALUES (?, ?)",
                                     (rid, vec.astype(np.float32).tobytes()))
    return {"events": planted}
