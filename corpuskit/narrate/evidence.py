"""Gathering the evidence for each kind of story.

Rules (all windows are measured back from the corpus clock):

- **lead_story** (one story, key ``lead``): the lead signal is the open signal
  of severity high or medium with the highest ``sigma_score``; ties go to the
  later ``detected_at``, then the lower id. When no high or medium signal is
  open, the strongest (same order) detected in the last ``lead_recent_days``
  days, open or resolved; failing that, the most recently detected high or
  medium signal. With no high or medium signal at all there is no lead (or
  the current one stays). A new lead signal makes a *new version* of the one
  lead story, so there is exactly one current lead.
- **dispatch** (key ``dispatch:<signal_key>``): one per signal of a notable
  severity (high or medium, open or resolved; its status is part of the evidence).
- **beat_narrative** (key ``beat:<topic name>``): one per active beat, i.e. a
  topic with ``active = 1`` and at least ``min_beat_records`` records in the
  last ``beat_window_days`` days.
- **entity_narrative** (key ``entity:<entity slug>``): the ``top_entities``
  entities with the most mentions in the last ``entity_window_days`` days, plus
  every entity with an open novelty signal.

Records are *direct* evidence when they are the signal's own evidence rows (or,
for beats and entities, records assigned to the beat or mentioning the entity)
and *inferred* when pulled in by similarity to the direct evidence (records on
the signal's beat in the ``signal_window_days`` days before it fired). Records
are ranked by TF-IDF cosine similarity to the centroid of the direct evidence.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import timedelta

import numpy as np
from sklearn.feature_extraction.text import TfidfVectorizer

from corpuskit.clock import from_iso, iso
from corpuskit.narrate.sentences import quotable, split_sentences

NOTABLE_SEVERITIES = ("high", "medium")
POOL_LIMIT = 300  # newest records considered per story


@dataclass
class EvidenceRecord:
    """One record a story may cite; ``ordinal`` in the writer's numbering is its index + 1."""

    id: int
    source: str
    title: str
    text: str
    url: str
    author: str
    published_at: str
    metadata_json: str
    topic_id: int | None = None
    inferred: bool = False
    confidence: float = 0.0

    @property
    def metadata(self) -> dict:
        """The record's metadata (decoded on use)."""
        value = json.loads(self.metadata_json or "{}")
        return value if isinstance(value, dict) else {}


@dataclass
class StoryEvidence:
    """Everything a :class:`~corpuskit.narrate.writer.StoryWriter` gets for one story.

    ``records`` are ranked best first; a writer cites ``records[i]`` as ``[i+1]``.
    ``terms`` are words the story is about (signal headline, cluster top terms,
    entity name) for writers that want them. ``figures`` are the numbers the
    story states (record counts, source counts, window).
    """

    kind: str
    story_key: str
    records: list[EvidenceRecord]
    signal: dict | None = None
    beat: dict | None = None
    entity: dict | None = None
    entities: list[dict] = field(default_factory=list)
    cluster: dict | None = None
    terms: list[str] = field(default_factory=list)
    figures: dict = field(default_factory=dict)
    pool_hash: str = ""


UNCHANGED = "unchanged"  # what an evidence function returns when ``skip(pool_hash)`` says so


def pool_hash(story_key: str, direct, inferred, k: int, extra) -> str:
    """Fingerprint of everything a story's evidence is computed from (before ranking).

    Equal fingerprints give equal evidence, so the pipeline can skip ranking a
    story whose current version was made from the same pool.
    """
    payload = [story_key, [r.id for r in direct], [r.id for r in inferred], k, extra]
    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode("utf-8")).hexdigest()


_RECORD_SQL = (
    "SELECT r.id, r.source, r.title, r.content_text, r.url, r.author, r.published_at, r.metadata, "
    "e.topic_id FROM records r LEFT JOIN enrichment e ON e.record_id = r.id"
)


def _records(conn, where: str, args, limit: int = POOL_LIMIT) -> list[EvidenceRecord]:
    rows = conn.execute(
        f"{_RECORD_SQL} WHERE {where} ORDER BY r.published_at DESC, r.id DESC LIMIT ?",
        list(args) + [limit],
    ).fetchall()
    return [EvidenceRecord(r[0], r[1], r[2] or "", r[3] or "", r[4] or "", r[5] or "", r[6],
                           r[7] or "{}", r[8]) for r in rows]


def has_quotable(record: EvidenceRecord) -> bool:
    """Whether the record has at least one sentence a story could quote."""
    return any(quotable(s) for s in split_sentences(record.text)[:40])


def _matrix(records: list[EvidenceRecord]):
    texts = [f"{r.title} {r.text}" for r in records]
    try:
        vec = TfidfVectorizer(stop_words="english", sublinear_tf=True, min_df=1)
        return vec.fit_transform(texts)
    except ValueError:  # only stop words
        return None


def _unit(v):
    n = np.linalg.norm(v)
    return v / n if n > 0 else v


def rank_and_select(direct: list[EvidenceRecord], inferred: list[EvidenceRecord], k: int,
                    min_records: int = 2) -> list[EvidenceRecord]:
    """Choose up to ``k`` records: direct evidence first, inferred ones to fill up.

    Within each group records are ranked by cosine similarity to the centroid
    of the direct evidence (of every candidate when there is none), at most
    ``ceil(k / 2)`` per source kind while others remain. Each chosen record's
    ``confidence`` is then its similarity to the centroid of the chosen set.
    Returns fewer than ``min_records`` only when the pool has too few.
    """
    seen, pool = set(), []
    for r, is_inferred in [(r, False) for r in direct] + [(r, True) for r in inferred]:
        if r.id in seen or not has_quotable(r):
            continue
        seen.add(r.id)
        r.inferred = is_inferred
        pool.append(r)
    if len(pool) < min_records:
        return []
    matrix = _matrix(pool)
    if matrix is None:
        return []
    dense = matrix.toarray()
    n_direct = sum(not r.inferred for r in pool)
    centroid = _unit(dense[:n_direct].mean(axis=0) if n_direct else dense.mean(axis=0))
    sims = dense @ centroid
    order = sorted(range(len(pool)), key=lambda i: (pool[i].inferred, -round(float(sims[i]), 9), pool[i].id))
    per_source_cap = max(1, -(-k // 2))
    chosen, counts, skipped = [], {}, []
    for i in order:
        if len(chosen) >= k:
            break
        src = pool[i].source
        if counts.get(src, 0) >= per_source_cap:
            skipped.append(i)
            continue
        counts[src] = counts.get(src, 0) + 1
        chosen.append(i)
    for i in skipped:
        if len(chosen) >= k:
            break
        chosen.append(i)
    chosen_centroid = _unit(dense[chosen].mean(axis=0))
    result = []
    for i in chosen:
        rec = pool[i]
        rec.confidence = round(float(np.clip(dense[i] @ chosen_centroid, 0.0, 1.0)), 4)
        result.append(rec)
    return result


# -- rows the rules read ------------------------------------------------------
def signal_dict(row) -> dict:
    """A signals row as a plain dict (``detail`` decoded)."""
    keys = ("id", "signal_key", "kind", "topic_id", "entity_id", "source", "severity", "sigma_score",
            "headline", "detail", "detected_at", "status")
    out = {k: row[k] for k in keys}
    out["detail"] = json.loads(out["detail"] or "{}")
    return out


def lead_signal(conn, now=None, recent_days: int = 7) -> dict | None:
    """The signal the lead story is about (rule in the module docstring), or None."""
    strongest = "ORDER BY sigma_score DESC, detected_at DESC, id ASC LIMIT 1"
    row = conn.execute(
        f"SELECT * FROM signals WHERE status = 'open' AND severity IN ('high', 'medium') {strongest}"
    ).fetchone()
    if row is None and now is not None:
        row = conn.execute(
            f"SELECT * FROM signals WHERE severity IN ('high', 'medium') AND detected_at > ? {strongest}",
            (iso(now - timedelta(days=recent_days)),),
        ).fetchone()
    if row is None:
        row = conn.execute(
            "SELECT * FROM signals WHERE severity IN ('high', 'medium') "
            "ORDER BY detected_at DESC, sigma_score DESC, id ASC LIMIT 1"
        ).fetchone()
    return signal_dict(row) if row else None


def notable_signals(conn, severities=NOTABLE_SEVERITIES) -> list[dict]:
    """Signals that get a dispatch, in ``signal_key`` order."""
    marks = ",".join("?" for _ in severities)
    rows = conn.execute(
        f"SELECT * FROM signals WHERE severity IN ({marks}) ORDER BY signal_key", list(severities)
    ).fetchall()
    return [signal_dict(r) for r in rows]


def topic_dict(conn, topic_id) -> dict | None:
    """A topics row as a dict, or None."""
    if topic_id is None:
        return None
    row = conn.execute("SELECT id, name, display_name, category, keywords FROM topics WHERE id = ?",
                       (topic_id,)).fetchone()
    if row is None:
        return None
    return {"id": row[0], "name": row[1], "display_name": row[2], "category": row[3],
            "keywords": json.loads(row[4] or "[]")}


def entity_dict(conn, entity_id) -> dict | None:
    """An entities row as a dict, or None."""
    if entity_id is None:
        return None
    row = conn.execute("SELECT id, slug, name, type FROM entities WHERE id = ?", (entity_id,)).fetchone()
    return {"id": row[0], "slug": row[1], "name": row[2], "type": row[3]} if row else None


def active_beats(conn, now, window_days: int, min_records: int) -> list[tuple[dict, int]]:
    """``(topic, records in window)`` for each active beat, by topic name."""
    since = iso(now - timedelta(days=window_days))
    rows = conn.execute(
        "SELECT t.id, count(DISTINCT ta.record_id) FROM topics t "
        "JOIN topic_assignments ta ON ta.topic_id = t.id JOIN records r ON r.id = ta.record_id "
        "WHERE t.active = 1 AND r.published_at > ? AND r.published_at <= ? "
        "GROUP BY t.id HAVING count(DISTINCT ta.record_id) >= ? ORDER BY t.name",
        (since, iso(now), min_records),
    ).fetchall()
    return [(topic_dict(conn, r[0]), r[1]) for r in rows]


def prominent_entities(conn, now, window_days: int, top_n: int) -> list[tuple[dict, int]]:
    """``(entity, mentions in window)``: the top ``top_n`` by mentions plus open-novelty entities."""
    since = iso(now - timedelta(days=window_days))
    counts = {r[0]: r[1] for r in conn.execute(
        "SELECT m.entity_id, sum(m.mention_count) FROM mentions m JOIN records r ON r.id = m.record_id "
        "WHERE r.published_at > ? AND r.published_at <= ? GROUP BY m.entity_id",
        (since, iso(now)),
    )}
    top = sorted(counts, key=lambda e: (-counts[e], e))[:top_n]
    novel = [r[0] for r in conn.execute(
        "SELECT DISTINCT entity_id FROM signals WHERE kind = 'novelty' AND status = 'open' "
        "AND entity_id IS NOT NULL")]
    chosen = sorted(set(top) | set(novel))
    out = [(entity_dict(conn, e), counts.get(e, 0)) for e in chosen]
    return sorted([o for o in out if o[0] is not None], key=lambda o: o[0]["slug"])


def open_signal_count(conn, topic_id=None, entity_id=None) -> int:
    """Open signals on a beat, or on an entity."""
    if entity_id is not None:
        return conn.execute("SELECT count(*) FROM signals WHERE status = 'open' AND entity_id = ?",
                            (entity_id,)).fetchone()[0]
    if topic_id is None:
        return 0
    return conn.execute("SELECT count(*) FROM signals WHERE status = 'open' AND topic_id = ?",
                        (topic_id,)).fetchone()[0]


def latest_cluster(conn, topic_id) -> dict | None:
    """The largest cluster of the newest analysis run on ``topic_id``, or None."""
    row = conn.execute(
        "SELECT id, lineage_id, record_count, top_terms, summary_label FROM clusters "
        "WHERE topic_id = ? AND run_id = (SELECT run_id FROM clusters WHERE topic_id = ? "
        "ORDER BY created_at DESC, id DESC LIMIT 1) ORDER BY record_count DESC, id LIMIT 1",
        (topic_id, topic_id),
    ).fetchone()
    if row is None:
        return None
    return {"id": row[0], "lineage_id": row[1], "record_count": row[2],
            "top_terms": json.loads(row[3] or "[]"), "summary_label": row[4]}


def cited_entities(conn, record_ids, limit: int = 5) -> list[dict]:
    """Entities most mentioned among ``record_ids`` (for references), most first."""
    if not record_ids:
        return []
    marks = ",".join("?" for _ in record_ids)
    rows = conn.execute(
        f"SELECT e.id, e.slug, e.name, e.type, sum(m.mention_count) AS n FROM mentions m "
        f"JOIN entities e ON e.id = m.entity_id WHERE m.record_id IN ({marks}) "
        f"GROUP BY e.id ORDER BY n DESC, e.slug LIMIT ?", list(record_ids) + [limit],
    ).fetchall()
    return [{"id": r[0], "slug": r[1], "name": r[2], "type": r[3], "mentions": r[4]} for r in rows]


def _topic_where(alias="r"):
    return (f"{alias}.id IN (SELECT record_id FROM topic_assignments WHERE topic_id = ? "
            f"UNION SELECT record_id FROM enrichment WHERE topic_id = ?)")


# -- evidence per kind ----------------------------------------------------------
def signal_evidence(conn, signal: dict, kind: str, story_key: str, k: int, window_days: int, skip=None):
    """Evidence for a dispatch or the lead story about ``signal`` (None if too thin).

    ``skip(pool_hash) -> bool``, when given, lets the caller stop before the
    ranking (the function then returns :data:`UNCHANGED`).
    """
    direct_ids = [r[0] for r in conn.execute(
        "SELECT ref_id FROM signal_evidence WHERE signal_id = ? AND ref_kind = 'record' ORDER BY ref_id",
        (signal["id"],))]
    direct = []
    if direct_ids:
        marks = ",".join("?" for _ in direct_ids)
        direct = _records(conn, f"r.id IN ({marks})", direct_ids)
    detected = signal["detected_at"]
    since = iso(from_iso(detected) - timedelta(days=window_days))
    inferred = []
    if signal["topic_id"] is not None:
        inferred = _records(conn, f"{_topic_where()} AND r.published_at > ? AND r.published_at <= ?",
                            [signal["topic_id"], signal["topic_id"], since, detected])
    elif signal["entity_id"] is not None:
        inferred = _records(conn, "r.id IN (SELECT record_id FROM mentions WHERE entity_id = ?) "
                            "AND r.published_at > ? AND r.published_at <= ?",
                            [signal["entity_id"], since, detected])
    figures = {"directRecords": len(direct_ids), "windowDays": window_days}
    digest = pool_hash(story_key, direct, inferred, k, [signal["id"], figures])
    if skip is not None and skip(digest):
        return UNCHANGED
    chosen = rank_and_select(direct, inferred, k)
    if len(chosen) < 2:
        return None
    topic_id = signal["topic_id"] if signal["topic_id"] is not None else _dominant_topic(chosen)
    cluster = latest_cluster(conn, topic_id) if topic_id is not None else None
    terms = _words(signal["headline"])
    entity = entity_dict(conn, signal["entity_id"])
    return StoryEvidence(
        kind=kind, story_key=story_key, records=chosen, signal=signal, beat=topic_dict(conn, topic_id),
        entity=entity, entities=cited_entities(conn, [r.id for r in chosen]), cluster=cluster, terms=terms,
        figures=figures, pool_hash=digest,
    )


def beat_evidence(conn, beat: dict, n_records: int, now, k: int, window_days: int, signal: dict | None,
                  skip=None):
    """Evidence for the beat narrative of ``beat`` (None if too thin; ``skip`` as in :func:`signal_evidence`)."""
    since = iso(now - timedelta(days=window_days))
    direct = _records(conn, f"{_topic_where()} AND r.published_at > ? AND r.published_at <= ?",
                      [beat["id"], beat["id"], since, iso(now)])
    cluster = latest_cluster(conn, beat["id"])
    sources = conn.execute(
        f"SELECT count(DISTINCT r.source) FROM records r WHERE {_topic_where()} "
        "AND r.published_at > ? AND r.published_at <= ?", (beat["id"], beat["id"], since, iso(now)),
    ).fetchone()[0]
    figures = {"records": n_records, "sources": sources, "windowDays": window_days}
    if cluster is not None:  # the framing sentence states these
        figures["cluster"] = [cluster["lineage_id"], cluster["record_count"], cluster["top_terms"][:3]]
    digest = pool_hash(f"beat:{beat['name']}", direct, [], k,
                       [figures, signal["id"] if signal else None, beat["display_name"]])
    if skip is not None and skip(digest):
        return UNCHANGED
    chosen = rank_and_select(direct, [], k)
    if len(chosen) < 2:
        return None
    terms = list(beat["keywords"]) + (cluster["top_terms"] if cluster else [])
    if signal:
        terms += _words(signal["headline"])
    return StoryEvidence(
        kind="beat_narrative", story_key=f"beat:{beat['name']}", records=chosen, signal=signal, beat=beat,
        entities=cited_entities(conn, [r.id for r in chosen]), cluster=cluster, terms=terms,
        figures=figures, pool_hash=digest,
    )


def entity_evidence(conn, entity: dict, mentions: int, now, k: int, window_days: int,
                    signal: dict | None, skip=None):
    """Evidence for the entity narrative of ``entity`` (None if too thin; ``skip`` as in :func:`signal_evidence`)."""
    since = iso(now - timedelta(days=window_days))
    direct = _records(conn, "r.id IN (SELECT record_id FROM mentions WHERE entity_id = ?) "
                      "AND r.published_at > ? AND r.published_at <= ?", [entity["id"], since, iso(now)])
    n_records, sources = conn.execute(
        "SELECT count(*), count(DISTINCT r.source) FROM records r WHERE r.id IN "
        "(SELECT record_id FROM mentions WHERE entity_id = ?) AND r.published_at > ? AND r.published_at <= ?",
        (entity["id"], since, iso(now)),
    ).fetchone()
    figures = {"mentions": mentions, "records": n_records, "sources": sources, "windowDays": window_days}
    digest = pool_hash(f"entity:{entity['slug']}", direct, [], k,
                       [figures, signal["id"] if signal else None, entity["name"]])
    if skip is not None and skip(digest):
        return UNCHANGED
    chosen = rank_and_select(direct, [], k)
    if len(chosen) < 2:
        return None
    topic_id = _dominant_topic(chosen)
    return StoryEvidence(
        kind="entity_narrative", story_key=f"entity:{entity['slug']}", records=chosen, signal=signal,
        beat=topic_dict(conn, topic_id), entity=entity,
        entities=cited_entities(conn, [r.id for r in chosen]), terms=_words(entity["name"]),
        figures=figures, pool_hash=digest,
    )


def _dominant_topic(records: list[EvidenceRecord]):
    counts = {}
    for r in records:
        if r.topic_id is not None:
            counts[r.topic_id] = counts.get(r.topic_id, 0) + 1
    return min(counts, key=lambda t: (-counts[t], t)) if counts else None


def _words(text: str) -> list[str]:
    return [w for w in "".join(c.lower() if c.isalnum() else " " for c in text or "").split() if len(w) > 2]
