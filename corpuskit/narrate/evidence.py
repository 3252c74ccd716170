"""Gathering the evidence for each kind of story.

Rules (all windows are measured back from the corpus clock):

- **lead_story** (one story, key ``lead``): the lead signal is the open signal
  of severity high or medium ranked by severity (high first), then
  ``sigma_score``, then recency (the later ``detected_at``), then the lower id. When no high or medium signal is
  open, the strongest (same order) detected in the last ``lead_recent_days``
  days, open or resolved; failing that, the most recently detected high or
  medium signal. With no high or medium signal at all there is no lead (or
  the current one stays). A new lead signal makes a *new version* of the one
  lead story, so there is exactly one current lead.
- **dispatch** (key ``dispatch:<signal_key>``): one per signal of a notable
  severity (high or medium, open or resolved; its status is part of the evidence).
- **beat_narrative** (key ``beat:<topic name>``): one per active beat, i.e. a
  topic with ``active = 1`` and at least ``min_beat_records`` records in the
  last ``beat_window_days`` days, of which at least two have a quotable
  sentence that names the beat (a phrase of its label or first keywords, see
  :func:`corpuskit.narrate.quotes.subject_terms`); a beat whose records do not
  name it makes no story (it is listed as skipped).
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
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import timedelta

import numpy as np
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS, TfidfVectorizer

from corpuskit.analysis.signals.kinds import new_entity_kinds, sql_names
from corpuskit.clock import from_iso, iso
from corpuskit.narrate.attribution import about_abuse, is_abusive
from corpuskit.narrate.headlines import distinctive_terms
from corpuskit.narrate.quotes import mentions_subject, record_sentences, subject_terms, tokens_of
from corpuskit.query import EntityNotFound, entity_row

NOTABLE_SEVERITIES = ("high", "medium")
POOL_LIMIT = 300  # newest records considered per story
REPOST_JACCARD = 0.8


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
    centrality: float | None = None
    on_subject: bool | None = None
    language: str | None = None

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
    story states (record counts, source counts, window). ``signal_entity`` is the entity the
    signal counted when the story is not about it (a beat narrative told from an entity's spike):
    the signal's figures are that entity's, and the headline names it.
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
    signal_entity: dict | None = None


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
    "e.topic_id, r.language FROM records r LEFT JOIN enrichment e ON e.record_id = r.id"
)


def _records(conn, where: str, args, limit: int = POOL_LIMIT) -> list[EvidenceRecord]:
    rows = conn.execute(
        f"{_RECORD_SQL} WHERE {where} ORDER BY r.published_at DESC, r.id DESC LIMIT ?",
        list(args) + [limit],
    ).fetchall()
    return [EvidenceRecord(r[0], r[1], r[2] or "", r[3] or "", r[4] or "", r[5] or "", r[6],
                           r[7] or "{}", r[8], language=r[9]) for r in rows]


def evidence_stop_words(records) -> list[str]:
    """The stop words the evidence's TF-IDF leaves out: English's (scikit-learn's list, as always) and
    those of every other language of ``records`` (stopwords-iso, the source the topics read), so that a
    Spanish story's records are not ranked by "de", "la", "que"."""
    from corpuskit.text.stopwords import stop_words

    languages = tuple(sorted({r.language for r in records if r.language} - {"en", "und"}))
    return sorted(ENGLISH_STOP_WORDS | stop_words(languages))


def _matrix(records: list[EvidenceRecord]):
    texts = [f"{r.title} {r.text}" for r in records]
    try:
        vec = TfidfVectorizer(stop_words=evidence_stop_words(records), sublinear_tf=True, min_df=1)
        return vec.fit_transform(texts)
    except ValueError:  # only stop words
        return None


def _unit(v):
    n = np.linalg.norm(v)
    return v / n if n > 0 else v


CHUNK_CACHE = 16  # sqlite-vec chunks (1,024 vectors, 2 MB each) kept during one narrate run
_CHUNKS: ContextVar[dict | None] = ContextVar("narrate_vector_chunks", default=None)


@contextmanager
def vector_chunk_cache():
    """Within this block, sqlite-vec chunks read by :func:`stored_embeddings` are kept (at most
    :data:`CHUNK_CACHE`, oldest dropped first). The narrate stage opens it for one run: it writes no vectors."""
    token = _CHUNKS.set({})
    try:
        yield
    finally:
        _CHUNKS.reset(token)


def stored_embeddings(conn, ids) -> np.ndarray | None:
    """The stored embeddings of ``ids`` (rows in that order, L2-normalised), or None if any is missing.

    Reads the few sqlite-vec chunk blobs that hold them (a point query on the
    virtual table costs about a millisecond per row), checks one row against
    the virtual table, and falls back to point queries when the layout is not
    the one expected.
    """
    if conn is None or not ids:
        return None
    try:
        found = _chunk_vectors(conn, ids)
    except Exception:  # noqa: BLE001 - another sqlite-vec layout: ask the virtual table
        found = None
    if found is None:
        try:
            found = {}
            for start in range(0, len(ids), 500):
                chunk = list(ids[start:start + 500])
                marks = ",".join("?" for _ in chunk)
                found.update((r[0], np.frombuffer(r[1], dtype=np.float32)) for r in conn.execute(
                    f"SELECT record_id, embedding FROM record_vectors WHERE record_id IN ({marks})", chunk))
        except Exception:  # noqa: BLE001 - no vec0 table or extension: the caller uses TF-IDF
            return None
    if len(found) != len(set(ids)):
        return None
    matrix = np.stack([found[i] for i in ids]).astype(np.float64)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return np.divide(matrix, norms, out=np.zeros_like(matrix), where=norms > 0)


def _chunk_vectors(conn, ids) -> dict | None:
    where = {}
    for start in range(0, len(ids), 500):
        chunk = list(ids[start:start + 500])
        marks = ",".join("?" for _ in chunk)
        for rid, chunk_id, offset in conn.execute(
                f"SELECT coalesce(id, rowid), chunk_id, chunk_offset FROM record_vectors_rowids "
                f"WHERE rowid IN ({marks}) AND chunk_id IS NOT NULL", chunk):
            where[rid] = (chunk_id, offset)
    if len(where) != len(set(ids)):
        return None
    out = {}
    cache = _CHUNKS.get()
    for chunk_id in sorted({c for c, _ in where.values()}):
        vectors = cache.get(chunk_id) if cache is not None else None
        if vectors is None:
            blob = conn.execute("SELECT vectors FROM record_vectors_vector_chunks00 WHERE rowid = ?",
                                (chunk_id,)).fetchone()[0]
            vectors = np.frombuffer(blob, dtype=np.float32).reshape(-1, 512)
            if cache is not None:
                if len(cache) >= CHUNK_CACHE:
                    cache.pop(next(iter(cache)))
                cache[chunk_id] = vectors
        for rid, (c, offset) in where.items():
            if c == chunk_id:
                out[rid] = vectors[offset]
    probe = ids[0]
    row = conn.execute("SELECT embedding FROM record_vectors WHERE record_id = ?", (probe,)).fetchone()
    if row is None or not np.array_equal(np.frombuffer(row[0], np.float32), out[probe]):
        return None
    return out


def rank_and_select(direct: list[EvidenceRecord], inferred: list[EvidenceRecord], k: int,
                    min_records: int = 2, conn=None, terms=(), focus=()) -> list[EvidenceRecord]:
    """Choose up to ``k`` records: direct evidence first, inferred ones to fill up.

    Only records with a quotable sentence qualify (not an abusive one, see
    :mod:`corpuskit.narrate.attribution`, unless ``terms`` make the story about abuse). Records are ranked by group
    (direct, then inferred), then by whether they are in ``focus`` (the records
    of the development the story is about: a signal's evidence, a cluster's
    members; the newest record of the pool is always in it), then by whether a
    quotable sentence names the subject (contains
    one of ``terms``), then by cosine similarity to the centroid of the direct
    evidence (of every candidate when there is none) over the stored embeddings
    (TF-IDF when the corpus has none). Taking them in that order: at most one
    record per author and ``ceil(k / 2)`` per source kind while others remain,
    and never a record whose quotable words repeat one already chosen (Jaccard of
    their informative words at least
    ``REPOST_JACCARD``: the same post again). Each chosen record's
    ``confidence`` is then its TF-IDF similarity to the centroid of the chosen
    set, and ``centrality`` its similarity to the pool's centroid.
    Returns fewer than ``min_records`` only when the pool has too few.
    """
    seen, pool, sentences = set(), [], []
    abuse_ok = about_abuse(terms)
    for r, is_inferred in [(r, False) for r in direct] + [(r, True) for r in inferred]:
        if r.id in seen:
            continue
        quotable_sentences = [x for x in record_sentences(r.text) if abuse_ok or not is_abusive(x)]
        if not quotable_sentences:
            continue
        seen.add(r.id)
        r.inferred = is_inferred
        pool.append(r)
        sentences.append(quotable_sentences)
    if len(pool) < min_records:
        return []
    matrix = _matrix(pool)
    if matrix is None:
        return []
    dense = matrix.toarray()
    vectors = stored_embeddings(conn, [r.id for r in pool])
    space = vectors if vectors is not None else dense
    n_direct = sum(not r.inferred for r in pool)
    centroid = _unit(space[:n_direct].mean(axis=0) if n_direct else space.mean(axis=0))
    sims = space @ centroid
    terms, focus = set(terms), set(focus)
    newest = max(pool, key=lambda r: (r.published_at, r.id))
    focus.add(newest.id)  # a story speaks from its latest evidence
    tokens = [{t for x in s for t in tokens_of(x)} for s in sentences]
    on_subject = [any(mentions_subject(tokens_of(x), terms) for x in s) for s in sentences]
    order = sorted(range(len(pool)), key=lambda i: (pool[i].inferred, pool[i].id not in focus,
                                                    terms and not on_subject[i], -round(float(sims[i]), 9),
                                                    pool[i].id))
    per_source_cap = max(1, -(-k // 2))
    chosen, counts, authors, skipped = [], {}, set(), []

    def repeats(i):  # the same post again (a repost, a crosspost): informative words overlap by Jaccard >= 0.8
        return any(len(tokens[i] & tokens[j]) >= REPOST_JACCARD * len(tokens[i] | tokens[j]) for j in chosen)

    for i in order:
        if len(chosen) >= k:
            break
        src, author = pool[i].source, _author_key(pool[i].author)
        if repeats(i):
            continue
        if counts.get(src, 0) >= per_source_cap or (author and author in authors):
            skipped.append(i)
            continue
        counts[src] = counts.get(src, 0) + 1
        if author:
            authors.add(author)
        chosen.append(i)
    for i in skipped:
        if len(chosen) >= k:
            break
        if not repeats(i):
            chosen.append(i)
    chosen_centroid = _unit(dense[chosen].mean(axis=0))
    result = []
    for i in chosen:
        rec = pool[i]
        rec.confidence = round(float(np.clip(dense[i] @ chosen_centroid, 0.0, 1.0)), 4)
        rec.centrality = round(float(np.clip(sims[i], 0.0, 1.0)), 6)
        rec.on_subject = bool(on_subject[i])
        result.append(rec)
    return result


def _author_key(author: str) -> str:
    author = (author or "").strip().lower()
    return "" if author in ("", "[deleted]", "[removed]", "deleted", "anonymous") else author


# -- rows the rules read ------------------------------------------------------
def signal_dict(row) -> dict:
    """A signals row as a plain dict (``detail`` decoded)."""
    keys = ("id", "signal_key", "kind", "topic_id", "entity_id", "source", "severity", "sigma_score",
            "headline", "detail", "detected_at", "status")
    out = {k: row[k] for k in keys}
    out["detail"] = json.loads(out["detail"] or "{}")
    return out


STRONGEST = ("ORDER BY CASE severity WHEN 'high' THEN 0 WHEN 'medium' THEN 1 ELSE 2 END, "
             "sigma_score DESC, detected_at DESC, id ASC")


def lead_signal(conn, now=None, recent_days: int = 7) -> dict | None:
    """The signal the lead story is about (rule in the module docstring), or None."""
    strongest = STRONGEST + " LIMIT 1"
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
            "ORDER BY detected_at DESC, CASE severity WHEN 'high' THEN 0 ELSE 1 END, sigma_score DESC, id ASC "
            "LIMIT 1"
        ).fetchone()
    return signal_dict(row) if row else None


def lead_signal_between(conn, start: str, until: str) -> dict | None:
    """The strongest high or medium signal detected in ``[start, until]`` (any status), or None."""
    row = conn.execute(
        f"SELECT * FROM signals WHERE severity IN ('high', 'medium') AND detected_at >= ? AND detected_at <= ? "
        f"{STRONGEST} LIMIT 1", (start, until)).fetchone()
    return signal_dict(row) if row else None


def strongest_between(conn, start: str, until: str, topic_id=None, entity_id=None) -> dict | None:
    """The strongest signal on a beat (or entity) detected in ``[start, until]`` (any status), or None."""
    column, value = ("entity_id", entity_id) if entity_id is not None else ("topic_id", topic_id)
    row = conn.execute(
        f"SELECT * FROM signals WHERE {column} = ? AND detected_at >= ? AND detected_at <= ? {STRONGEST} LIMIT 1",
        (value, start, until)).fetchone()
    return signal_dict(row) if row else None


def notable_signals(conn, severities=NOTABLE_SEVERITIES) -> list[dict]:
    """Signals that get a dispatch, in ``signal_key`` order: one per linked event.

    A signal linked into an event (``detail.event``, see
    :mod:`corpuskit.analysis.signals.linking`) gets a dispatch only when it is the
    event's lead; the lead is the event's strongest signal, so it is notable
    whenever any member is.
    """
    marks = ",".join("?" for _ in severities)
    rows = conn.execute(
        f"SELECT * FROM signals WHERE severity IN ({marks}) ORDER BY signal_key", list(severities)
    ).fetchall()
    signals = [signal_dict(r) for r in rows]
    return [s for s in signals if not isinstance(s["detail"].get("event"), dict)
            or s["detail"]["event"].get("id") == s["signal_key"]]


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
    try:
        row = entity_row(conn, entity_id)
    except EntityNotFound:
        return None
    aliases = sorted({r[0] for r in conn.execute(
        "SELECT surface FROM entity_aliases WHERE entity_id = ? ORDER BY surface", (entity_id,))} - {row["name"]})
    return {"id": row["id"], "slug": row["slug"], "name": row["name"], "type": row["type"], "aliases": aliases[:20]}


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


def prominent_entities(conn, now, window_days: int, top_n: int, novel: bool = True) -> list[tuple[dict, int]]:
    """``(entity, mentions in window)``: the top ``top_n`` by mentions plus (when ``novel``) open-novelty entities."""
    since = iso(now - timedelta(days=window_days))
    counts = {r[0]: r[1] for r in conn.execute(
        "SELECT m.entity_id, sum(m.mention_count) FROM mentions m JOIN records r ON r.id = m.record_id "
        "WHERE r.published_at > ? AND r.published_at <= ? GROUP BY m.entity_id",
        (since, iso(now)),
    )}
    top = sorted(counts, key=lambda e: (-counts[e], e))[:top_n]
    novel = [r[0] for r in conn.execute(
        f"SELECT DISTINCT entity_id FROM signals WHERE kind IN ({sql_names(new_entity_kinds())}) "
        "AND status = 'open' AND entity_id IS NOT NULL")] if novel else []
    chosen = sorted(set(top) | set(novel))
    out = [(entity_dict(conn, e), counts.get(e, 0)) for e in chosen]
    return sorted([o for o in out if o[0] is not None], key=lambda o: o[0]["slug"])


def open_signal_count(conn, topic_id=None, entity_id=None, between=None) -> int:
    """Open signals on a beat, or on an entity; with ``between=(start, until)``, the signals
    detected in that span instead (any status: a period's story counts what was found then)."""
    column, value = ("entity_id", entity_id) if entity_id is not None else ("topic_id", topic_id)
    if value is None:
        return 0
    if between is not None:
        return conn.execute(f"SELECT count(*) FROM signals WHERE {column} = ? AND detected_at >= ? "
                            f"AND detected_at <= ?", (value, *between)).fetchone()[0]
    return conn.execute(f"SELECT count(*) FROM signals WHERE status = 'open' AND {column} = ?",
                        (value,)).fetchone()[0]


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


def growing_cluster(conn, topic_id, now, window_days: int, min_recent: int = 5) -> dict | None:
    """The fastest-growing cluster of the newest analysis run on ``topic_id``, or None.

    Growth compares a cluster's member records in the last ``window_days // 2``
    days (``recent``) with the same span before (``earlier``): the cluster with
    the highest ``(recent + 1) / (earlier + 1)`` among those with at least
    ``min_recent`` recent records and at least twice as many recent records as
    earlier ones wins; ties go to more recent records, then the lower id. Returns the cluster dict of :func:`latest_cluster` plus
    ``recent``, ``earlier`` and ``memberIds`` (its recent members).
    """
    half = max(1, window_days // 2)
    mid, start = iso(now - timedelta(days=half)), iso(now - timedelta(days=2 * half))
    rows = conn.execute(
        "SELECT c.id, c.lineage_id, c.record_count, c.top_terms, c.summary_label, "
        "sum(r.published_at > ? AND r.published_at <= ?), sum(r.published_at > ? AND r.published_at <= ?) "
        "FROM clusters c JOIN cluster_members m ON m.cluster_id = c.id JOIN records r ON r.id = m.record_id "
        "WHERE c.topic_id = ? AND c.run_id = (SELECT run_id FROM clusters WHERE topic_id = ? "
        "ORDER BY created_at DESC, id DESC LIMIT 1) GROUP BY c.id ORDER BY c.id",
        (mid, iso(now), start, mid, topic_id, topic_id),
    ).fetchall()
    best, best_key = None, None
    for row in rows:
        recent, earlier = int(row[5] or 0), int(row[6] or 0)
        if recent < min_recent or recent < 2 * earlier:
            continue
        key = ((recent + 1) / (earlier + 1), recent, -row[0])
        if best_key is None or key > best_key:
            best, best_key = row, key
    if best is None:
        return None
    members = [r[0] for r in conn.execute(
        "SELECT m.record_id FROM cluster_members m JOIN records r ON r.id = m.record_id "
        "WHERE m.cluster_id = ? AND r.published_at > ? AND r.published_at <= ? ORDER BY m.record_id",
        (best[0], mid, iso(now)))]
    return {"id": best[0], "lineage_id": best[1], "record_count": best[2], "top_terms": json.loads(best[3] or "[]"),
            "summary_label": best[4], "recent": int(best[5] or 0), "earlier": int(best[6] or 0),
            "memberIds": members}


def entity_change(conn, entity_id, now, window_days: int) -> dict:
    """What changed for an entity: mentions, records and mean sentiment in the window and the one before, co-occurring entities.

    Sentiment is the mean ``sentiment_score`` of the records mentioning the
    entity (rounded to 2 decimals; None without enriched records); ``with``
    names the three entities mentioned in most of the window's records that
    mention it (ties by name).
    """
    end, mid = iso(now), iso(now - timedelta(days=window_days))
    start = iso(now - timedelta(days=2 * window_days))
    span = ("SELECT sum(m.mention_count), count(*), avg(e.sentiment_score) FROM mentions m "
            "JOIN records r ON r.id = m.record_id LEFT JOIN enrichment e ON e.record_id = r.id "
            "WHERE m.entity_id = ? AND r.published_at > ? AND r.published_at <= ?")
    now_row = conn.execute(span, (entity_id, mid, end)).fetchone()
    before_row = conn.execute(span, (entity_id, start, mid)).fetchone()
    others = conn.execute(
        "SELECT e.name, count(DISTINCT o.record_id) AS n FROM mentions m JOIN records r ON r.id = m.record_id "
        "JOIN mentions o ON o.record_id = m.record_id AND o.entity_id != m.entity_id "
        "JOIN entities e ON e.id = o.entity_id WHERE m.entity_id = ? AND r.published_at > ? "
        "AND r.published_at <= ? GROUP BY e.id ORDER BY n DESC, e.name LIMIT 3", (entity_id, mid, end),
    ).fetchall()

    def mean(value):
        return None if value is None else round(float(value), 2)

    return {"mentions": int(now_row[0] or 0), "records": int(now_row[1] or 0), "sentiment": mean(now_row[2]),
            "previousMentions": int(before_row[0] or 0), "previousRecords": int(before_row[1] or 0),
            "previousSentiment": mean(before_row[2]) if before_row[1] else None,
            "with": [r[0] for r in others if r[1] >= 2], "windowDays": window_days}


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


def _in_topic_window() -> str:
    """WHERE fragment: published in ``(since, until]`` and in the topic (primary or assigned); takes
    ``(since, until, topic, topic)``.

    Written so that SQLite reads the window through ``records_published`` (newest first, stopping at a
    query's LIMIT) and checks each record's topic by key, instead of collecting every record of the
    topic first: 150 to 480 ms a query at 500,000 records before, 6 to 11 ms after.
    """
    return ("r.published_at > ? AND r.published_at <= ? AND ("
            "EXISTS (SELECT 1 FROM enrichment t WHERE t.record_id = r.id AND t.topic_id = ?) OR "
            "EXISTS (SELECT 1 FROM topic_assignments t WHERE t.record_id = r.id AND t.topic_id = ?))")


BASELINE_LIMIT = 1000  # newest records of the subject before the window, for the key terms
BASELINE_WINDOWS = 4  # the baseline spans this many windows before the story's window


def _key_terms(conn, records, where: str, args, subject) -> list[str]:
    """The key terms of ``records`` against the subject's records selected by ``where``/``args`` (before the
    window), for the headline (see :mod:`corpuskit.narrate.headlines`)."""
    baseline = _records(conn, where, args, limit=BASELINE_LIMIT)
    return distinctive_terms([f"{r.title} {r.text}" for r in records],
                             [f"{r.title} {r.text}" for r in baseline], exclude=subject)


# -- evidence per kind ----------------------------------------------------------
def signal_evidence(conn, signal: dict, kind: str, story_key: str, k: int, window_days: int, skip=None,
                    until: str | None = None):
    """Evidence for a dispatch or the lead story about ``signal`` (None if too thin).

    ``skip(pool_hash) -> bool``, when given, lets the caller stop before the
    ranking (the function then returns :data:`UNCHANGED`). ``until`` (a stored
    timestamp): no record published after it is evidence, and no cluster is attached
    (a period's story).
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
        inferred = _records(conn, _in_topic_window(), [since, detected, signal["topic_id"], signal["topic_id"]])
    elif signal["entity_id"] is not None:
        inferred = _records(conn, "r.id IN (SELECT record_id FROM mentions WHERE entity_id = ?) "
                            "AND r.published_at > ? AND r.published_at <= ?",
                            [signal["entity_id"], since, detected])
    figures = {"directRecords": len(direct_ids), "windowDays": window_days}
    entity = entity_dict(conn, signal["entity_id"])
    subject = subject_terms(entity, topic_dict(conn, signal["topic_id"]), signal)
    digest = pool_hash(story_key, direct, inferred, k, [signal["id"], figures, sorted(subject)])
    if until is not None:
        direct = [r for r in direct if r.published_at <= until]
        inferred = [r for r in inferred if r.published_at <= until]
        figures["directRecords"] = len(direct)
        digest = pool_hash(story_key, direct, inferred, k, [signal["id"], figures, sorted(subject), until])
    if skip is not None and skip(digest):
        return UNCHANGED
    chosen = rank_and_select(direct, inferred, k, conn=conn, terms=subject)
    if len(chosen) < 2:
        return None
    topic_id = story_topic(signal, direct, chosen)
    cluster = latest_cluster(conn, topic_id) if topic_id is not None and until is None else None
    base_since = iso(from_iso(detected) - timedelta(days=window_days * (1 + BASELINE_WINDOWS)))
    if signal["topic_id"] is not None:
        figures["keyTerms"] = _key_terms(conn, direct if len(direct) >= 3 else direct + inferred,
                                         _in_topic_window(), [base_since, since, signal["topic_id"],
                                                              signal["topic_id"]], subject)
    elif signal["entity_id"] is not None:
        figures["keyTerms"] = _key_terms(conn, direct if len(direct) >= 3 else direct + inferred,
                                         "r.id IN (SELECT record_id FROM mentions WHERE entity_id = ?) "
                                         "AND r.published_at > ? AND r.published_at <= ?",
                                         [signal["entity_id"], base_since, since], subject)
    terms = _words(signal["headline"])
    return StoryEvidence(
        kind=kind, story_key=story_key, records=chosen, signal=signal, beat=topic_dict(conn, topic_id),
        entity=entity, entities=cited_entities(conn, [r.id for r in chosen]), cluster=cluster, terms=terms,
        figures=figures, pool_hash=digest,
    )


def beat_evidence(conn, beat: dict, n_records: int, now, k: int, window_days: int, signal: dict | None,
                  skip=None, clusters: bool = True, story_key: str | None = None):
    """Evidence for the beat narrative of ``beat`` (None if too thin; ``skip`` as in :func:`signal_evidence`).

    ``clusters=False`` leaves the clusters out (a period's story: they were computed on the whole corpus);
    ``story_key`` replaces the default ``beat:<name>``."""
    story_key = story_key or f"beat:{beat['name']}"
    since = iso(now - timedelta(days=window_days))
    direct = _records(conn, _in_topic_window(), [since, iso(now), beat["id"], beat["id"]])
    focus = []
    cluster = None
    if signal is not None:
        focus = [r[0] for r in conn.execute(
            "SELECT ref_id FROM signal_evidence WHERE signal_id = ? AND ref_kind = 'record' ORDER BY ref_id",
            (signal["id"],))]
    elif clusters:
        cluster = growing_cluster(conn, beat["id"], now, window_days)
        focus = cluster["memberIds"] if cluster else []
    if cluster is None and clusters:
        cluster = latest_cluster(conn, beat["id"])
    sources = conn.execute(
        f"SELECT count(DISTINCT r.source) FROM records r WHERE {_in_topic_window()}",
        (since, iso(now), beat["id"], beat["id"]),
    ).fetchone()[0]
    before = iso(now - timedelta(days=2 * window_days))
    previous = conn.execute(
        f"SELECT count(*) FROM records r WHERE {_in_topic_window()}", (before, since, beat["id"], beat["id"]),
    ).fetchone()[0]
    figures = {"records": n_records, "sources": sources, "windowDays": window_days, "previousRecords": previous}
    if cluster is not None:  # the framing sentence states these
        figures["cluster"] = [cluster["lineage_id"], cluster["record_count"], cluster["top_terms"][:3],
                              cluster.get("recent"), cluster.get("earlier")]
    subject = subject_terms(None, beat, signal, cluster if cluster and cluster.get("recent") else None)
    digest = pool_hash(story_key, direct, [], k,
                       [figures, signal["id"] if signal else None, beat["display_name"], focus, sorted(subject)])
    if skip is not None and skip(digest):
        return UNCHANGED
    chosen = rank_and_select(direct, [], k, conn=conn, terms=subject, focus=focus)
    if len(chosen) < 2 or (subject and sum(bool(r.on_subject) for r in chosen) < 2):
        return None  # too thin, or too few records that name the beat to make a story about it
    figures["keyTerms"] = _key_terms(conn, direct, _in_topic_window(), [
        iso(now - timedelta(days=window_days * (1 + BASELINE_WINDOWS))), since, beat["id"], beat["id"]], subject)
    terms = list(beat["keywords"]) + (cluster["top_terms"] if cluster else [])
    if signal:
        terms += _words(signal["headline"])
    return StoryEvidence(
        kind="beat_narrative", story_key=story_key, records=chosen, signal=signal, beat=beat,
        entities=cited_entities(conn, [r.id for r in chosen]), cluster=cluster, terms=terms,
        figures=figures, pool_hash=digest, signal_entity=entity_dict(conn, signal["entity_id"]) if signal else None,
    )


def entity_evidence(conn, entity: dict, mentions: int, now, k: int, window_days: int,
                    signal: dict | None, skip=None, story_key: str | None = None):
    """Evidence for the entity narrative of ``entity`` (None if too thin; ``skip`` as in :func:`signal_evidence`;
    ``story_key`` replaces the default ``entity:<slug>``)."""
    story_key = story_key or f"entity:{entity['slug']}"
    since = iso(now - timedelta(days=window_days))
    direct = _records(conn, "r.id IN (SELECT record_id FROM mentions WHERE entity_id = ?) "
                      "AND r.published_at > ? AND r.published_at <= ?", [entity["id"], since, iso(now)])
    n_records, sources = conn.execute(
        "SELECT count(*), count(DISTINCT r.source) FROM records r WHERE r.id IN "
        "(SELECT record_id FROM mentions WHERE entity_id = ?) AND r.published_at > ? AND r.published_at <= ?",
        (entity["id"], since, iso(now)),
    ).fetchone()
    figures = {"mentions": mentions, "records": n_records, "sources": sources, "windowDays": window_days,
               "change": entity_change(conn, entity["id"], now, window_days)}
    subject = subject_terms(entity)
    digest = pool_hash(story_key, direct, [], k,
                       [figures, signal["id"] if signal else None, entity["name"], sorted(subject)])
    if skip is not None and skip(digest):
        return UNCHANGED
    chosen = rank_and_select(direct, [], k, conn=conn, terms=subject)
    if len(chosen) < 2:
        return None
    topic_id = _dominant_topic(chosen)
    figures["keyTerms"] = _key_terms(conn, direct, "r.id IN (SELECT record_id FROM mentions WHERE entity_id = ?) "
                                     "AND r.published_at > ? AND r.published_at <= ?", [
                                         entity["id"], iso(now - timedelta(days=window_days * (1 + BASELINE_WINDOWS))),
                                         since], subject)
    return StoryEvidence(
        kind="entity_narrative", story_key=story_key, records=chosen, signal=signal,
        beat=topic_dict(conn, topic_id), entity=entity,
        entities=cited_entities(conn, [r.id for r in chosen]), terms=_words(entity["name"]),
        figures=figures, pool_hash=digest,
    )


def story_topic(signal: dict, direct: list[EvidenceRecord], chosen: list[EvidenceRecord]):
    """The topic a signal's story is filed under: the primary topic most of the signal's own evidence
    records (``direct``; else the records ``chosen`` for the story) belong to, ties to the signal's
    topic, then the lower id. A record is counted by its primary topic only, so a signal reached
    through one shared word (a secondary assignment, an entity's topic of the day) is filed where its
    records are; the signal's topic when none of them has a topic."""
    counts: dict = {}
    for r in direct or chosen:
        if r.topic_id is not None:
            counts[r.topic_id] = counts.get(r.topic_id, 0) + 1
    if not counts:
        return signal["topic_id"] if signal["topic_id"] is not None else _dominant_topic(chosen)
    return min(counts, key=lambda t: (-counts[t], t != signal["topic_id"], t))


def _dominant_topic(records: list[EvidenceRecord]):
    counts = {}
    for r in records:
        if r.topic_id is not None:
            counts[r.topic_id] = counts.get(r.topic_id, 0) + 1
    return min(counts, key=lambda t: (-counts[t], t)) if counts else None


def _words(text: str) -> list[str]:
    return [w for w in "".join(c.lower() if c.isalnum() else " " for c in text or "").split() if len(w) > 2]
