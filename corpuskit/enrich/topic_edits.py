"""The researcher's edits of the topics: merge two, rename one, reassign outliers.

Each edit is applied at once and recorded, in order, in the corpus's ``meta`` table under
:data:`EDITS_KEY` (``[{"kind", "at", ...}]``, the corpus clock as ``at``). Every enrichment run
replays the recorded edits after it writes its records (:func:`apply_edits`), so an incremental
run, which assigns its new records with the stored topic model, keeps them: a merged topic's new
records go to the topic it was merged into, a renamed topic keeps its label, and new outliers are
reassigned by the same rule. An edit naming a topic a later refit no longer has is skipped and
reported (``skipped`` in the run's summary). ``Corpus.manifest()["topicEdits"]`` lists them.

* ``merge``: the records whose primary topic is ``other`` take ``topic``; ``other``'s assignments
  join ``topic``'s (the higher confidence where a record had both); ``other`` is retired
  (``active = 0``) and its keywords join ``topic``'s. Where the topic model holds centroids, the
  kept topic's centroid becomes the record-weighted mean of both and ``other``'s is dropped, so new
  records are scored against the merged topic.
* ``rename``: the topic's display name (its ``name``, the identifier filters use, stays).
* ``reassign_outliers``: every enriched record with no primary topic is given the topic whose
  centroid its embedding is closest to (strategy ``embeddings``: cosine at least ``threshold``) or
  whose stored assignment score is highest (strategy ``confidence``: the topic model's score,
  keywords and similarity, at least ``threshold``, below the model's own floor).
"""
from __future__ import annotations

import io
import json

import numpy as np

from corpuskit.numerics import as64, rounded, unit_rows

from corpuskit.clock import iso
from corpuskit.errors import ValidationError
from corpuskit.query import topic_by_name

EDITS_KEY = "topics.edits"
#: the outlier strategies and their default thresholds
OUTLIER_STRATEGIES = {"embeddings": 0.3, "confidence": 0.1}
#: the longest display name a rename takes
LABEL_CHARS = 120


def recorded_edits(corpus) -> list[dict]:
    """The recorded edits, oldest first."""
    return list(corpus.get_meta(EDITS_KEY, []))


def _record(corpus, edit: dict) -> dict:
    edit = {"at": iso(corpus.now()), **edit}
    corpus.set_meta(EDITS_KEY, recorded_edits(corpus) + [edit])
    return edit


def _active(conn, name: str, what: str):
    row = topic_by_name(conn, name)
    if not row["active"]:
        raise ValidationError(f"{what} {name!r} is retired (merged or no longer found); name an active topic")
    return row


# -- applying one edit -------------------------------------------------------------------------
def _merge(conn, kept, other) -> int:
    _merge_centroids(conn, kept["name"], other["name"])
    moved = conn.execute("UPDATE enrichment SET topic_id = ? WHERE topic_id = ?", (kept["id"], other["id"])).rowcount
    conn.execute(
        "INSERT INTO topic_assignments(record_id, topic_id, confidence) "
        "SELECT record_id, ?, confidence FROM topic_assignments WHERE topic_id = ? "
        "ON CONFLICT(record_id, topic_id) DO UPDATE SET confidence = max(confidence, excluded.confidence)",
        (kept["id"], other["id"]))
    conn.execute("DELETE FROM topic_assignments WHERE topic_id = ?", (other["id"],))
    keywords = json.loads(kept["keywords"] or "[]")
    keywords += [k for k in json.loads(other["keywords"] or "[]") if k not in keywords]
    conn.execute("UPDATE topics SET keywords = ? WHERE id = ?", (json.dumps(keywords), kept["id"]))
    conn.execute("UPDATE topics SET active = 0 WHERE id = ?", (other["id"],))
    return moved


def _model_state(conn):
    row = conn.execute("SELECT state, settings FROM models WHERE name = 'topics'").fetchone()
    if row is None:
        return None
    with np.load(io.BytesIO(bytes(row["state"])), allow_pickle=False) as data:
        return data["names"].tolist(), np.array(data["centroids"]), json.loads(row["settings"] or "{}")


def _merge_centroids(conn, kept: str, other: str) -> None:
    """Fold ``other``'s centroid into ``kept``'s in the stored discovered-topic model."""
    state = _model_state(conn)
    if state is None or not state[2].get("discovered") or kept not in state[0] or other not in state[0]:
        return   # a beat file's model keeps the retired beat, which scores nothing once inactive
    names, centroids, settings = state
    k, o = names.index(kept), names.index(other)
    sizes = dict(conn.execute("SELECT t.name, count(e.record_id) FROM topics t LEFT JOIN enrichment e "
                              "ON e.topic_id = t.id WHERE t.name IN (?, ?) GROUP BY t.name", (kept, other)))
    merged = centroids[k] * max(sizes.get(kept, 0), 1) + centroids[o] * max(sizes.get(other, 0), 1)
    centroids[k] = merged / (np.linalg.norm(merged) or 1.0)
    keep = [i for i in range(len(names)) if i != o]
    buf = io.BytesIO()
    np.savez(buf, names=np.array([names[i] for i in keep], dtype=str), centroids=centroids[keep])
    settings["beats"] = [names[i] for i in keep]
    conn.execute("UPDATE models SET state = ?, settings = ? WHERE name = 'topics'",
                 (buf.getvalue(), json.dumps(settings, sort_keys=True)))


def _vectors(conn, record_ids):
    out_ids, rows = [], []
    for start in range(0, len(record_ids), 500):
        part = record_ids[start:start + 500]
        for rid, blob in conn.execute("SELECT record_id, embedding FROM record_vectors WHERE record_id IN "
                                      f"({','.join('?' * len(part))})", part):
            out_ids.append(rid)
            rows.append(np.frombuffer(blob, dtype=np.float32))
    return out_ids, (np.vstack(rows) if rows else np.zeros((0, 1), dtype=np.float32))


def _reassign(conn, strategy: str, threshold: float) -> int:
    outliers = [r[0] for r in conn.execute("SELECT record_id FROM enrichment WHERE topic_id IS NULL "
                                           "ORDER BY record_id")]
    state = _model_state(conn)
    if not outliers or state is None:
        return 0
    names, centroids, _ = state
    active = {r["name"]: r["id"] for r in conn.execute("SELECT id, name FROM topics WHERE active = 1")}
    usable = [i for i, n in enumerate(names) if n in active]
    if not usable:
        return 0
    ids, vectors = _vectors(conn, outliers)
    if not ids:
        return 0
    sim = rounded(as64(vectors) @ unit_rows(centroids[usable]).T, 4)  # decided on the stored value
    if strategy == "confidence":
        from corpuskit.enrich.topics import BeatAssigner

        from corpuskit.enrich.topics import beats_from_rows

        by_name = {b["name"]: b for b in conn.execute("SELECT * FROM topics WHERE active = 1")}
        assigner = BeatAssigner(**_assigner_settings(conn)).fit(
            beats_from_rows([by_name[names[i]] for i in usable]), [], [], None, centroids=centroids[usable])
        texts = _texts(conn, ids)
        score = assigner.confidence([texts[i] for i in ids], [None] * len(ids), vectors)
    else:
        score = sim
    best = score.argmax(axis=1)
    top = score[np.arange(len(ids)), best]
    moved = 0
    for rid, b, s in zip(ids, best, top):
        if s >= threshold:
            tid = active[names[usable[int(b)]]]
            conn.execute("UPDATE enrichment SET topic_id = ? WHERE record_id = ?", (tid, rid))
            conn.execute("INSERT OR REPLACE INTO topic_assignments(record_id, topic_id, confidence) "
                         "VALUES (?,?,?)", (rid, tid, round(float(s), 4)))
            moved += 1
    return moved


def _texts(conn, ids) -> dict:
    out = {}
    for start in range(0, len(ids), 500):
        part = ids[start:start + 500]
        out.update(conn.execute("SELECT id, coalesce(title, '') || ' ' || coalesce(content_text, '') FROM records "
                                f"WHERE id IN ({','.join('?' * len(part))})", part).fetchall())
    return out


def _assigner_settings(conn) -> dict:
    row = conn.execute("SELECT settings FROM models WHERE name = 'topics'").fetchone()
    settings = json.loads(row[0] or "{}") if row else {}
    out = {"min_confidence": settings.get("min_confidence", 0.25)}
    if settings.get("weights"):
        out["weights"] = tuple(settings["weights"])
    return out


def _apply(conn, edit: dict) -> int | None:
    """Apply one recorded edit; the records it moved (``None`` when its topics are gone)."""
    kind = edit["kind"]
    try:
        if kind == "merge":
            kept = topic_by_name(conn, edit["topic"])
            other = topic_by_name(conn, edit["other"])
            return None if not kept["active"] else _merge(conn, kept, other)
        if kind == "rename":
            row = topic_by_name(conn, edit["topic"])
            conn.execute("UPDATE topics SET display_name = ? WHERE id = ?", (edit["label"], row["id"]))
            return 0
    except ValidationError:   # the topic is gone (a refit did not find it again)
        return None
    return _reassign(conn, edit["strategy"], edit["threshold"])


def apply_edits(corpus) -> dict:
    """Replay every recorded edit in order (idempotent); ``{"applied": n, "skipped": [edits]}``."""
    edits = recorded_edits(corpus)
    skipped = []
    with corpus.transaction():
        for edit in edits:
            if _apply(corpus.conn, edit) is None:
                skipped.append(edit)
    return {"applied": len(edits) - len(skipped), "skipped": skipped}


# -- the public edits ------------------------------------------------------------------------
def merge_topics(corpus, a: str, b: str) -> dict:
    """Merge topic ``b`` into topic ``a`` (see the module docstring); returns the recorded edit with
    ``records`` (records whose primary topic moved)."""
    conn = corpus.conn
    kept, other = _active(conn, a, "topic"), _active(conn, b, "topic")
    if kept["id"] == other["id"]:
        raise ValidationError(f"cannot merge topic {a!r} into itself")
    with corpus.transaction():
        moved = _merge(conn, kept, other)
        edit = _record(corpus, {"kind": "merge", "topic": kept["name"], "other": other["name"]})
    return {**edit, "records": moved}


def rename_topic(corpus, a: str, label: str) -> dict:
    """Give topic ``a`` the display name ``label``; returns the recorded edit."""
    row = topic_by_name(corpus.conn, a)
    if not isinstance(label, str) or not label.strip():
        raise ValidationError("label must be a non-empty text")
    label = " ".join(label.split())
    if len(label) > LABEL_CHARS:
        raise ValidationError(f"label must be at most {LABEL_CHARS} characters, not {len(label)}")
    clash = corpus.conn.execute("SELECT name FROM topics WHERE display_name = ? AND id != ? AND active = 1",
                                (label, row["id"])).fetchone()
    if clash:
        raise ValidationError(f"topic {clash[0]!r} already has the label {label!r}")
    with corpus.transaction():
        corpus.conn.execute("UPDATE topics SET display_name = ? WHERE id = ?", (label, row["id"]))
        return _record(corpus, {"kind": "rename", "topic": row["name"], "label": label})


def reassign_outliers(corpus, strategy: str = "embeddings", threshold: float | None = None) -> dict:
    """Give outliers (enriched records with no primary topic) a topic; see the module docstring.

    ``strategy`` is ``embeddings`` (cosine to the topic centroid, default threshold 0.3) or
    ``confidence`` (the topic model's score, default 0.1). Returns the recorded edit with
    ``records`` (outliers given a topic now).
    """
    if strategy not in OUTLIER_STRATEGIES:
        raise ValidationError(f"strategy must be one of {', '.join(OUTLIER_STRATEGIES)}, not {strategy!r}")
    threshold = OUTLIER_STRATEGIES[strategy] if threshold is None else threshold
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not 0 <= threshold <= 1:
        raise ValidationError(f"threshold must be a number from 0 to 1, not {threshold!r}")
    if _model_state(corpus.conn) is None:
        raise ValidationError("the corpus has no topic model yet: run enrich first")
    with corpus.transaction():
        moved = _reassign(corpus.conn, strategy, float(threshold))
        edit = _record(corpus, {"kind": "reassign_outliers", "strategy": strategy, "threshold": float(threshold)})
    return {**edit, "records": moved}
