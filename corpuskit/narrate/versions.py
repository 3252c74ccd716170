"""Story versions: a story (``story_key``) gets a new version only when its evidence changes.

The *evidence hash* covers the cited record ids (in rank order, with their
direct/inferred flag), the trigger signal's state (id, status, severity,
sigma to 3 decimals), the story's figures (record, mention and source counts
in its window) and its open-signal count. Regenerating with the same hash
writes nothing; a different hash writes version ``n + 1`` as the current one
(``is_current = 1``, the previous version drops to 0) under the slug
``<base>-v<n+1>`` (see :mod:`corpuskit.narrate.slugs`), and registers the new
slug so every older slug still resolves.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field

from corpuskit.narrate.slugs import register_slug, unique_base, version_slug
from corpuskit.query.name_keys import story_slug


@dataclass
class StoryDraft:
    """One story version ready to be written (text already produced by the writer)."""

    story_key: str
    kind: str
    headline: str
    lede: str
    body: str
    evidence_hash: str
    publish_at: str
    base_slug: str
    topic_id: int | None = None
    entity_id: int | None = None
    category: str = "general"
    signal_severity: str | None = None
    trigger_signal_id: int | None = None
    featured: bool = False
    signal_count: int = 0
    source_count: int = 0
    read_min: int = 1
    metadata: dict = field(default_factory=dict)
    refs: list = field(default_factory=list)
    external_citations: list = field(default_factory=list)
    citations: list = field(default_factory=list)  # [(record_id, confidence, inferred, credibility)]


def evidence_hash(evidence, signal_count: int) -> str:
    """The hash that decides whether a story needs a new version."""
    sig = evidence.signal
    payload = {
        "kind": evidence.kind,
        "records": [[r.id, bool(r.inferred)] for r in evidence.records],
        "signal": None if sig is None else [sig["id"], sig["status"], sig["severity"],
                                            round(float(sig["sigma_score"]), 3)],
        "figures": evidence.figures,
        "signalCount": signal_count,
    }
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def current_version(conn, story_key: str):
    """``(id, version, evidence_hash, metadata dict)`` of the current version, or None."""
    row = conn.execute(
        "SELECT id, version, evidence_hash, metadata FROM stories WHERE story_key = ? AND is_current = 1",
        (story_key,),
    ).fetchone()
    return None if row is None else (row[0], row[1], row[2], json.loads(row[3]))


def _free_slug(conn, slug: str, story_key: str) -> str:
    candidate, n = slug, 1
    while True:
        row = conn.execute("SELECT story_key FROM story_slugs WHERE slug = ?", (candidate,)).fetchone()
        taken = conn.execute("SELECT 1 FROM stories WHERE slug = ?", (candidate,)).fetchone()
        if (row is None or row[0] == story_key) and taken is None:
            return candidate
        n += 1
        candidate = f"{slug}-{n}"


def write_version(conn, draft: StoryDraft, run_id: str, generated_at: str) -> tuple[int, bool]:
    """Write ``draft`` as the story's next version unless its evidence is unchanged.

    Returns ``(current story id, created)``.
    """
    current = current_version(conn, draft.story_key)
    if current is not None and current[2] == draft.evidence_hash:
        return current[0], False
    version = 1 if current is None else current[1] + 1
    if draft.kind == "lead_story" or current is None:
        base = unique_base(conn, story_slug(draft.base_slug) or "story", draft.story_key)
    else:
        base = current[3].get("baseSlug") or story_slug(draft.base_slug)
    slug = _free_slug(conn, version_slug(base, version), draft.story_key)
    metadata = dict(draft.metadata, baseSlug=base)
    if current is not None:
        conn.execute("UPDATE stories SET is_current = 0 WHERE story_key = ?", (draft.story_key,))
    cur = conn.execute(
        "INSERT INTO stories(story_key, version, is_current, kind, slug, headline, lede, body, topic_id, "
        "entity_id, category, signal_severity, trigger_signal_id, featured, signal_count, source_count, "
        "read_min, metadata, refs, external_citations, evidence_hash, generated_at, publish_at, run_id) "
        "VALUES (?,?,1,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        (draft.story_key, version, draft.kind, slug, draft.headline, draft.lede, draft.body,
         draft.topic_id, draft.entity_id, draft.category, draft.signal_severity, draft.trigger_signal_id,
         int(bool(draft.featured)), draft.signal_count, draft.source_count, draft.read_min,
         json.dumps(metadata, sort_keys=True), json.dumps(draft.refs, sort_keys=True),
         json.dumps(draft.external_citations, sort_keys=True), draft.evidence_hash, generated_at,
         draft.publish_at, run_id),
    )
    story_id = cur.lastrowid
    conn.executemany(
        "INSERT INTO story_citations(story_id, ordinal, record_id, confidence, inferred, credibility) "
        "VALUES (?,?,?,?,?,?)",
        [(story_id, i, rid, conf, int(bool(inf)), cred)
         for i, (rid, conf, inf, cred) in enumerate(draft.citations, 1)],
    )
    register_slug(conn, slug, draft.story_key)
    if version == 1 and base != slug:
        register_slug(conn, base, draft.story_key)
    if draft.kind == "lead_story":
        register_slug(conn, "lead", draft.story_key)  # a stable alias: redirects to the current lead
    return story_id, True
