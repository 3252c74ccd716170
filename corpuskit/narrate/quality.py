"""Reader-facing quality figures of a corpus's current stories (used by the tests and ``benchmarks/bench_narrate.py``).

Per story, from the stored tables only:

- **quotes**: the ``sentence [n]`` units of the body (framing paragraphs excluded), the quoted words
  of an attributed unit (:func:`corpuskit.narrate.attribution.quoted_text`);
- **on subject**: a quote names the story's subject, i.e. one of the phrases of
  :func:`corpuskit.narrate.quotes.subject_terms` for the story's entity (entity
  narratives, and dispatches or leads on an entity's signal), else for its beat,
  its trigger signal's term and, for a beat narrative built around a growing
  cluster, that cluster's first three terms;
- **near-duplicate pairs**: quote pairs with :func:`corpuskit.narrate.quotes.near_duplicate`;
- **fragments**: quotes that :func:`corpuskit.narrate.quotes.is_fragment` rejects,
  or that keep a leading @handle run or an HTML entity;
- **authors**: distinct authors of the quoted records (deleted ones not counted);
- **debris**: findings of :func:`corpuskit.narrate.prose.prose_debris` in the
  headline, lede, summary and framing paragraphs (topic slugs and every signal
  detail key of the corpus checked).
"""
from __future__ import annotations

import json
import re

from corpuskit.narrate.attribution import quoted_text
from corpuskit.narrate.citations import MARKER
from corpuskit.narrate.evidence import entity_dict, signal_dict, topic_dict
from corpuskit.narrate.prose import prose_debris
from corpuskit.query import SignalNotFound, signal_row
from corpuskit.narrate.quotes import is_fragment, mentions_subject, near_duplicate, subject_terms
from corpuskit.text import term_tokens

_ENTITY = re.compile(r"&(?:[a-zA-Z]{2,8}|#\d{2,6});")


def quotes_of(body: str, framing: list[str]) -> list[tuple[str, int]]:
    """``(sentence, ordinal)`` for every quoted sentence of a body (framing paragraphs skipped)."""
    out = []
    framing = {" ".join(f.split()) for f in framing}
    for paragraph in (p for p in body.split("\n\n") if p.strip()):
        if " ".join(paragraph.split()) in framing:
            continue
        parts = MARKER.split(paragraph)
        for sentence, n in zip(parts[0::2], parts[1::2]):
            if sentence.strip():
                out.append((quoted_text(" ".join(sentence.split())), int(n)))
    return out


def _subject(conn, story, meta) -> set[str]:
    signal = None
    if story["trigger_signal_id"] is not None:
        try:
            signal = signal_dict(signal_row(conn, story["trigger_signal_id"]))
        except SignalNotFound:
            signal = None
    entity = None
    if story["kind"] == "entity_narrative" or (signal is not None and signal["entity_id"] is not None):
        entity = entity_dict(conn, story["entity_id"] if story["kind"] == "entity_narrative" else signal["entity_id"])
    cluster = None
    traced = [f.get("tracedTo") or {} for f in meta.get("framing") or []]
    if story["kind"] == "beat_narrative" and any("cluster" in t for t in traced):
        cid = next(t["cluster"] for t in traced if "cluster" in t)
        row = conn.execute("SELECT top_terms FROM clusters WHERE id = ?", (cid,)).fetchone()
        cluster = {"top_terms": json.loads(row[0])} if row else None
    return subject_terms(entity, topic_dict(conn, story["topic_id"]), signal, cluster)


def story_quality(conn) -> list[dict]:
    """One dict per current story (see the module docstring), in story id order."""
    slugs = [r[0] for r in conn.execute("SELECT name FROM topics")]
    keys = set()
    for (detail,) in conn.execute("SELECT DISTINCT detail FROM signals"):
        try:
            keys.update(k for k in json.loads(detail or "{}") if any(c.isupper() for c in k) or "_" in k)
        except ValueError:
            pass
    out = []
    for story in conn.execute("SELECT * FROM stories WHERE is_current = 1 ORDER BY id").fetchall():
        meta = json.loads(story["metadata"])
        framing = [f["text"] for f in meta.get("framing") or []]
        quoted = quotes_of(story["body"], framing)
        authors = dict(conn.execute(
            "SELECT c.ordinal, r.author FROM story_citations c JOIN records r ON r.id = c.record_id "
            "WHERE c.story_id = ?", (story["id"],)).fetchall())
        phrases = _subject(conn, story, meta)
        tokens = [term_tokens(q) for q, _ in quoted]
        on = [mentions_subject(t, phrases) for t in tokens]
        dup_pairs = [(quoted[i][0], quoted[j][0]) for i in range(len(quoted)) for j in range(i + 1, len(quoted))
                     if near_duplicate(tokens[i], tokens[j])]
        fragments = [q for q, _ in quoted if is_fragment(q) or _ENTITY.search(q) or q.lstrip().startswith("@")]
        debris = []
        for field in ("headline", "lede"):
            debris += [f"{field}: {d}" for d in prose_debris(story[field], slugs, keys)]
        for field, text in [("summary", meta.get("summary", ""))] + [("framing", f) for f in framing]:
            debris += [f"{field}: {d}" for d in prose_debris(text, slugs, keys)]
        named = {str(authors.get(n) or "").lower() for _, n in quoted}
        out.append({
            "id": story["id"], "storyKey": story["story_key"], "kind": story["kind"], "headline": story["headline"],
            "writer": meta.get("writer"), "quotes": len(quoted), "onSubject": sum(on),
            "offSubject": [q for (q, _), ok in zip(quoted, on) if not ok],
            "nearDuplicates": dup_pairs, "fragments": fragments, "debris": debris,
            "authors": len(named - {"", "[deleted]", "[removed]"}),
        })
    return out


def summarise(rows: list[dict]) -> dict:
    """Corpus-level figures: on-subject share, near-duplicate pairs, fragments, authors per story, stories with debris."""
    quotes = sum(r["quotes"] for r in rows)
    authors = sorted(r["authors"] for r in rows)
    return {
        "stories": len(rows),
        "quotes": quotes,
        "onSubjectShare": round(sum(r["onSubject"] for r in rows) / quotes, 3) if quotes else None,
        "nearDuplicatePairs": sum(len(r["nearDuplicates"]) for r in rows),
        "fragments": sum(len(r["fragments"]) for r in rows),
        "storiesWithDebris": sum(bool(r["debris"]) for r in rows),
        "authorsPerStory": {"min": authors[0], "median": authors[len(authors) // 2], "max": authors[-1]}
        if authors else None,
    }
