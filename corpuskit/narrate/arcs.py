"""Arcs: stories on the same beat, entity or cluster lineage, linked over time.

Membership (by ``story_key``, so every version belongs):

- ``beat:<topic name>``: every beat narrative and dispatch whose current
  version is on the topic, and entity narratives on it (their dominant beat).
- ``entity:<entity slug>``: the entity's narrative and the dispatches of signals
  about that entity.
- ``lineage:<lineage id>``: stories at least two of whose cited records (current
  version) belong to clusters of that lineage (the lineage holding most of them,
  ties by lineage id); an arc is made once two or more stories share a lineage.

The lead story is a rotating slot (each version may be about another beat),
so it belongs to no arc; the dispatch of its signal does.

``last_updated_at`` is the newest ``publish_at`` among the arc's story
versions (the evidence time, not the run time). ``arc_status`` by the age of
``last_updated_at`` on the corpus clock: **active** up to ``active_days`` (7),
**dormant** up to ``dormant_days`` (30), **concluded** after.
"""
from __future__ import annotations

from datetime import timedelta

from corpuskit.clock import from_iso
from corpuskit.query.name_keys import story_slug


def arc_status(last_updated_at: str, now, active_days: int = 7, dormant_days: int = 30) -> str:
    """``active``, ``dormant`` or ``concluded`` by the rule in the module docstring."""
    age = now - from_iso(last_updated_at)
    if age <= timedelta(days=active_days):
        return "active"
    if age <= timedelta(days=dormant_days):
        return "dormant"
    return "concluded"


def _lineages(conn) -> dict[str, str]:
    """``{story_key: lineage_id}`` for current stories rooted in a cluster lineage."""
    rows = conn.execute(
        "SELECT s.story_key, c.lineage_id, count(DISTINCT sc.record_id) AS n FROM stories s "
        "JOIN story_citations sc ON sc.story_id = s.id "
        "JOIN cluster_members cm ON cm.record_id = sc.record_id JOIN clusters c ON c.id = cm.cluster_id "
        "WHERE s.is_current = 1 AND s.kind != 'lead_story' AND s.story_key NOT LIKE 'period:%' GROUP BY s.story_key, c.lineage_id"
    ).fetchall()
    best = {}
    for key, lineage, n in rows:
        if n < 2:
            continue
        if key not in best or (-n, lineage) < (-best[key][1], best[key][0]):
            best[key] = (lineage, n)
    return {k: v[0] for k, v in best.items()}


def build_arcs(conn, now, run_id: str, active_days: int = 7, dormant_days: int = 30) -> dict:
    """Recompute arc membership, titles and statuses; returns ``{arcs, links}`` counts.

    Arcs are upserted by ``arc_key`` so their ids and slugs stay stable.
    """
    members: dict[str, set] = {}
    titles: dict[str, str] = {}
    current = conn.execute(
        "SELECT s.story_key, s.kind, t.name, t.display_name, e.slug, e.name, sig.entity_id, "
        "se.slug, se.name FROM stories s LEFT JOIN topics t ON t.id = s.topic_id "
        "LEFT JOIN entities e ON e.id = s.entity_id LEFT JOIN signals sig ON sig.id = s.trigger_signal_id "
        "LEFT JOIN entities se ON se.id = sig.entity_id "
        "WHERE s.is_current = 1 AND s.kind != 'lead_story' AND s.story_key NOT LIKE 'period:%' ORDER BY s.story_key"
    ).fetchall()
    for key, kind, tname, tdisplay, eslug, ename, _, sslug, sname in current:
        if tname is not None:
            members.setdefault(f"beat:{tname}", set()).add(key)
            titles[f"beat:{tname}"] = tdisplay
        if kind == "entity_narrative" and eslug is not None:
            members.setdefault(f"entity:{eslug}", set()).add(key)
            titles[f"entity:{eslug}"] = ename
        if kind == "dispatch" and sslug is not None:
            members.setdefault(f"entity:{sslug}", set()).add(key)
            titles[f"entity:{sslug}"] = sname
    by_lineage: dict[str, set] = {}
    for key, lineage in _lineages(conn).items():
        by_lineage.setdefault(lineage, set()).add(key)
    for lineage, keys in by_lineage.items():
        if len(keys) < 2:
            continue
        row = conn.execute(
            "SELECT c.summary_label, t.display_name FROM clusters c JOIN topics t ON t.id = c.topic_id "
            "WHERE c.lineage_id = ? ORDER BY c.created_at DESC, c.id DESC LIMIT 1", (lineage,)
        ).fetchone()
        members.setdefault(f"lineage:{lineage}", set()).update(keys)
        titles[f"lineage:{lineage}"] = f"{row[1]}: {row[0]}" if row else f"Cluster lineage {lineage}"
    links = 0
    for arc_key in sorted(members):
        for key in sorted(members[arc_key]):
            row = conn.execute("SELECT id FROM arcs WHERE arc_key = ?", (arc_key,)).fetchone()
            if row is None:
                slug = _arc_slug(conn, arc_key)
                conn.execute(
                    "INSERT INTO arcs(arc_key, slug, title, arc_status, story_count, last_updated_at, run_id) "
                    "VALUES (?,?,?,?,0,?,?)", (arc_key, slug, titles[arc_key], "active", "", run_id))
                row = conn.execute("SELECT id FROM arcs WHERE arc_key = ?", (arc_key,)).fetchone()
            links += conn.execute("INSERT OR IGNORE INTO arc_stories VALUES (?, ?)", (row[0], key)).rowcount
    for arc_id, arc_key in conn.execute("SELECT id, arc_key FROM arcs ORDER BY id").fetchall():
        count, last = conn.execute(
            "SELECT count(DISTINCT a.story_key), max(s.publish_at) FROM arc_stories a "
            "JOIN stories s ON s.story_key = a.story_key WHERE a.arc_id = ?", (arc_id,)
        ).fetchone()
        if not count:
            continue
        status = arc_status(last, now, active_days, dormant_days)
        title = titles.get(arc_key)
        conn.execute(
            "UPDATE arcs SET title = coalesce(?, title), arc_status = ?, story_count = ?, "
            "last_updated_at = ?, run_id = CASE WHEN title IS coalesce(?, title) AND arc_status = ? AND "
            "story_count = ? AND last_updated_at = ? THEN run_id ELSE ? END WHERE id = ?",
            (title, status, count, last, title, status, count, last, run_id, arc_id),
        )
    return {"arcs": conn.execute("SELECT count(*) FROM arcs").fetchone()[0], "links": links}


def _arc_slug(conn, arc_key: str) -> str:
    base = story_slug(arc_key.replace(":", " "), max_words=12) or "arc"
    slug, n = base, 1
    while conn.execute("SELECT 1 FROM arcs WHERE slug = ?", (slug,)).fetchone():
        n += 1
        slug = f"{base}-{n}"
    return slug
