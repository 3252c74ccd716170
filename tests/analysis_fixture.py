"""A tiny builder of hand-made enriched corpora for the analysis tests.

It writes straight into the tables enrichment and detection fill (topics,
records, enrichment, topic_assignments, entities, entity_aliases, mentions,
signals), so the aggregates can be checked against numbers worked out by hand.
"""
from __future__ import annotations

import itertools
import json

NOW = "2024-03-31T12:00:00Z"


def label_of(score: float) -> str:
    if score > 0.05:
        return "positive"
    if score < -0.05:
        return "negative"
    return "neutral"


class Fixture:
    """Adds rows to ``corpus``; each method returns the new row's integer id."""

    def __init__(self, corpus):
        self.corpus = corpus
        self.conn = corpus.conn
        self._ids = itertools.count(1)
        self.topics: dict[str, int] = {}
        self.entities: dict[str, int] = {}

    def topic(self, name: str, display_name: str | None = None, category: str = "general",
              active: bool = True) -> int:
        cur = self.conn.execute(
            "INSERT INTO topics(name, display_name, category, active, created_at) VALUES (?,?,?,?,?)",
            (name, display_name or name.replace("-", " ").title(), category, int(active),
             "2024-01-01T00:00:00Z"))
        self.topics[name] = cur.lastrowid
        return cur.lastrowid

    def entity(self, name: str, type: str = "org", slug: str | None = None,
               aliases: tuple = ()) -> int:
        cur = self.conn.execute(
            "INSERT INTO entities(slug, name, type, updated_at) VALUES (?,?,?,?)",
            (slug or f"{name.lower().replace(' ', '-')}-{type}", name, type, "2024-01-01T00:00:00Z"))
        eid = cur.lastrowid
        self.entities[f"{name}|{type}"] = eid
        self.entities.setdefault(name, eid)
        for surface in (name,) + tuple(aliases):
            self.conn.execute("INSERT OR IGNORE INTO entity_aliases(alias_key, entity_id, surface) "
                              "VALUES (?,?,?)", (f"{surface.lower()}|{eid}", eid, surface))
        return eid

    def record(self, when: str, source: str = "reddit", topics=(), score: float | None = 0.0,
               entities: dict | None = None, text: str | None = None,
               captured: str | None = None) -> int:
        """One record; ``when`` is a day 'YYYY-MM-DD' (noon) or a full timestamp.

        ``topics`` are topic names; ``entities`` maps an entity name (or
        'name|type') to its mention count in the record; ``score=None`` leaves
        the record unenriched.
        """
        n = next(self._ids)
        published = when if "T" in when else f"{when}T12:00:00Z"
        cur = self.conn.execute(
            "INSERT INTO records(source, source_id, content_hash, title, content_text, "
            "published_at, captured_at) VALUES (?,?,?,?,?,?,?)",
            (source, f"s{n}", f"h{n}", f"title {n}", text or f"text of record {n}", published,
             captured or published))
        rid = cur.lastrowid
        if score is not None:
            first_topic = self.topics[topics[0]] if topics else None
            self.conn.execute(
                "INSERT INTO enrichment(record_id, sentiment_score, sentiment_label, topic_id, run_id) "
                "VALUES (?,?,?,?,?)", (rid, score, label_of(score), first_topic, "enrich-1"))
        for name in topics:
            self.conn.execute("INSERT INTO topic_assignments(record_id, topic_id, confidence) "
                              "VALUES (?,?,?)", (rid, self.topics[name], 0.9))
        for name, count in (entities or {}).items():
            eid = self.entities[name]
            self.conn.execute(
                "INSERT INTO mentions(record_id, entity_id, surface, mention_count, positions) "
                "VALUES (?,?,?,?,?)", (rid, eid, name.split("|")[0], count, json.dumps([0] * count)))
        return rid

    def records(self, n: int, when: str, **kwargs) -> list[int]:
        return [self.record(when, **kwargs) for _ in range(n)]

    def signal(self, topic: str, detected_at: str, kind: str = "volume_spike",
               entity: str | None = None, status: str = "open", severity: str = "medium") -> int:
        n = next(self._ids)
        cur = self.conn.execute(
            "INSERT INTO signals(signal_key, kind, topic_id, entity_id, severity, sigma_score, "
            "headline, detected_at, status, run_id, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
            (f"k{n}", kind, self.topics[topic], self.entities[entity] if entity else None,
             severity, 4.0, f"signal {n}", detected_at, status, "analyse-0", detected_at))
        return cur.lastrowid

    def story(self, entity: str, headline: str, body: str, generated_at: str,
              current: bool = True, version: int = 1) -> int:
        eid = self.entities[entity]
        cur = self.conn.execute(
            "INSERT INTO stories(story_key, version, is_current, kind, slug, headline, lede, body, "
            "entity_id, evidence_hash, generated_at, publish_at, run_id) "
            "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (f"entity|{eid}", version, int(current), "entity_narrative",
             f"{entity.lower()}-v{version}", headline, "lede", body, eid, "x", generated_at,
             generated_at, "narrate-1"))
        return cur.lastrowid


def table_rows(corpus, table: str, order: str) -> list[tuple]:
    """Every row of ``table`` as tuples, in ``order``: for determinism checks."""
    return [tuple(r) for r in corpus.conn.execute(f"SELECT * FROM {table} ORDER BY {order}")]
