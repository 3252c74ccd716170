"""A small, hand-built corpus for the HTTP tests: rows inserted straight into every table.

``build_api_corpus(corpus)`` returns a dict of the integer keys it made, so a
test can encode the ids it expects. Times are fixed (the corpus clock is set
by the caller); nothing here is random.
"""
from __future__ import annotations

import hashlib
import json
import struct
from datetime import datetime, timedelta, timezone

from corpuskit.clock import iso

NOW = datetime(2026, 3, 1, 12, 0, 0, tzinfo=timezone.utc)
SOURCES = ("reddit", "hackernews", "bluesky")
LABELS = ("positive", "neutral", "negative")
N_RECORDS = 45


def _vector(i: int) -> bytes:
    values = [((i * 31 + j * 7) % 97) / 97.0 - 0.5 for j in range(512)]
    return struct.pack("512f", *values)


def insert_record(conn, i: int, published: datetime, source: str = "reddit", label: str = "neutral") -> int:
    """One record (with enrichment); returns its id."""
    text = f"Record {i} about widgets and OpenAI's new model, said Ada Lovelace."
    cur = conn.execute(
        "INSERT INTO records(source, source_id, content_hash, title, content_text, url, author, "
        "published_at, captured_at, metadata) VALUES (?,?,?,?,?,?,?,?,?,?)",
        (source, f"s{i}", hashlib.sha256(text.encode()).hexdigest(), f"Title {i} ünïcode", text,
         f"https://example.org/{i}", f"user{i % 5}", iso(published), iso(published),
         json.dumps({"score": i})))
    record_id = cur.lastrowid
    score = {"positive": 0.6, "neutral": 0.0, "negative": -0.5}[label]
    conn.execute("INSERT INTO enrichment(record_id, sentiment_score, sentiment_label, run_id) VALUES (?,?,?,?)",
                 (record_id, score, label, "enrich-1"))
    return record_id


def build_api_corpus(corpus) -> dict:
    """Fill an empty corpus with records, topics, entities, signals, stories and arcs."""
    conn = corpus.conn
    keys: dict = {"records": [], "topics": [], "entities": [], "signals": {}, "stories": {}}
    with corpus.transaction():
        for name, label in (("ai", "Artificial intelligence"), ("climate", "Climate")):
            cur = conn.execute("INSERT INTO topics(name, display_name, keywords, created_at) VALUES (?,?,?,?)",
                               (name, label, json.dumps([name, "news"]), iso(NOW)))
            keys["topics"].append(cur.lastrowid)
        for slug, name, kind, count in (("openai", "OpenAI", "org", 30), ("ada-lovelace", "Ada Lovelace", "person", 12),
                                        ("widgets", "Widgets", "product", 12), ("unused", "Unused", "concept", 0)):
            cur = conn.execute("INSERT INTO entities(slug, name, type, mention_count, updated_at) VALUES (?,?,?,?,?)",
                               (slug, name, kind, count, iso(NOW)))
            keys["entities"].append(cur.lastrowid)
            conn.execute("INSERT INTO entity_aliases(alias_key, entity_id, surface) VALUES (?,?,?)",
                         (slug, cur.lastrowid, name))
        conn.execute("INSERT INTO models(name, kind, dimensions, state, created_at) VALUES (?,?,?,?,?)",
                     ("embedder", "corpuskit-tfidf-svd-512", 512, b"state", iso(NOW)))
        for i in range(N_RECORDS):
            # Pairs of records share a timestamp, so keyset paging must break ties by id.
            published = NOW - timedelta(hours=6 * (i // 2))
            rid = insert_record(conn, i, published, SOURCES[i % 3], LABELS[i % 3])
            keys["records"].append(rid)
            conn.execute("INSERT INTO topic_assignments(record_id, topic_id, confidence) VALUES (?,?,?)",
                         (rid, keys["topics"][i % 2], 0.9))
            if i % 5 == 0:
                conn.execute("INSERT INTO topic_assignments(record_id, topic_id, confidence) VALUES (?,?,?)",
                             (rid, keys["topics"][(i + 1) % 2], 0.3))
            for j, ent in enumerate(keys["entities"][:3]):
                conn.execute("INSERT INTO mentions(record_id, entity_id, surface, mention_count, positions) "
                             "VALUES (?,?,?,?,?)", (rid, ent, "x", 3 - j, json.dumps([10 * j, 10 * j + 40])))
            conn.execute("INSERT INTO record_vectors(record_id, embedding) VALUES (?, ?)", (rid, _vector(i)))
        rec = keys["records"]
        for key, kind, sev, status, hours in (("v", "volume_spike", "high", "open", 1),
                                              ("n", "novelty", "medium", "resolved", 2),
                                              ("d", "divergence", "low", "open", 3),
                                              ("s", "sentiment_shift", "high", "open", 4)):
            detail = ({"sourceA": "reddit", "sourceB": "hackernews", "divergencePoints": 0.42,
                       "summary": "Reddit is upbeat, HN is not"} if kind == "divergence"
                      else {"baselineMean": 3.0, "observed": 11})
            cur = conn.execute(
                "INSERT INTO signals(signal_key, kind, topic_id, entity_id, severity, sigma_score, headline, detail, "
                "detected_at, status, run_id, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                (key, kind, keys["topics"][0], keys["entities"][0], sev, 3.5, f"{kind} in AI",
                 json.dumps(detail), iso(NOW - timedelta(hours=hours)), status, "analyse-1", iso(NOW)))
            sid = cur.lastrowid
            keys["signals"][kind] = sid
            conn.execute("INSERT INTO signal_events(signal_id, change, created_at) VALUES (?,?,?)",
                         (sid, "new", iso(NOW)))
            for ref_kind, ref in (("record", rec[0]), ("record", rec[1]), ("entity", keys["entities"][0]),
                                  ("topic", keys["topics"][0])):
                conn.execute("INSERT INTO signal_evidence(signal_id, ref_kind, ref_id) VALUES (?,?,?)",
                             (sid, ref_kind, ref))
        for n in range(25):
            story_key = f"beat|{n}"
            versions = 2 if n == 0 else 1
            for v in range(1, versions + 1):
                slug = f"story-{n}" + (f"-v{v}" if v < versions else "")
                kind = "lead_story" if n == 0 else "beat_narrative"
                cur = conn.execute(
                    "INSERT INTO stories(story_key, version, is_current, kind, slug, headline, lede, body, topic_id, "
                    "entity_id, signal_severity, trigger_signal_id, signal_count, source_count, read_min, "
                    "evidence_hash, generated_at, publish_at, run_id) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                    (story_key, v, int(v == versions), kind, slug, f"Headline {n} v{v}", "Lede.",
                     "Body sentence [1]. " * 40, keys["topics"][n % 2], keys["entities"][n % 3], "high",
                     keys["signals"]["volume_spike"], 1, 2, 3, f"h{n}{v}", iso(NOW - timedelta(hours=n, minutes=v)),
                     iso(NOW - timedelta(hours=n // 2)), "narrate-1"))
                story_id = cur.lastrowid
                conn.execute("INSERT INTO story_slugs(slug, story_key) VALUES (?,?)", (slug, story_key))
                for ordinal, rid in enumerate(rec[n:n + 3], start=1):
                    conn.execute("INSERT INTO story_citations(story_id, ordinal, record_id, confidence, inferred, "
                                 "credibility) VALUES (?,?,?,?,?,?)", (story_id, ordinal, rid, 0.8, 0, 0.7))
                keys["stories"][(n, v)] = story_id
        conn.execute("INSERT INTO signal_evidence(signal_id, ref_kind, ref_id) VALUES (?,?,?)",
                     (keys["signals"]["volume_spike"], "story", keys["stories"][(1, 1)]))
        cur = conn.execute("INSERT INTO arcs(arc_key, slug, title, arc_status, story_count, last_updated_at, run_id) "
                           "VALUES (?,?,?,?,?,?,?)", ("beat:ai", "ai-arc", "The AI arc", "active", 2, iso(NOW), "narrate-1"))
        keys["arc"] = cur.lastrowid
        for n in (0, 2):
            conn.execute("INSERT INTO arc_stories(arc_id, story_key) VALUES (?,?)", (keys["arc"], f"beat|{n}"))
    return keys
