"""The narrative read functions (used by both HTTP interfaces) on hand-built story rows."""
from __future__ import annotations

import json

import pytest

from corpuskit.api.keyed import queries as keyed_queries
from corpuskit.errors import NotFoundError, ValidationError
from corpuskit.narrate import read
from corpuskit.query import resolve_story_slug
from tests.narrate_fixtures import build_fixture


def _story(conn, key, version, slug, kind="beat_narrative", current=1, topic_id=None, entity_id=None,
           trigger=None, generated="2026-01-20T00:00:00Z", publish="2026-01-19T00:00:00Z",
           citations=(), featured=0):
    cur = conn.execute(
        "INSERT INTO stories(story_key, version, is_current, kind, slug, headline, lede, body, topic_id, "
        "entity_id, category, signal_severity, trigger_signal_id, featured, signal_count, source_count, "
        "read_min, metadata, refs, external_citations, evidence_hash, generated_at, publish_at, run_id) "
        "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        (key, version, current, kind, slug, f"Headline {key} v{version}", "A lede.", f"Body v{version}. [1]",
         topic_id, entity_id, "technology", "high" if trigger else None, trigger, featured, 2, 1, 1,
         json.dumps({"summary": "One sentence."}),
         json.dumps([{"refType": "beat", "refSlug": "chips", "displayText": "Chips and Compute"}]),
         json.dumps([{"url": "https://example.org/a", "title": "A"}]), f"h{version}", generated, publish,
         "narrate-1"),
    )
    for ordinal, rid in enumerate(citations, 1):
        conn.execute("INSERT INTO story_citations VALUES (?,?,?,?,?,?)",
                     (cur.lastrowid, ordinal, rid, 0.5, ordinal % 2, 0.6))
    conn.execute("INSERT OR IGNORE INTO story_slugs VALUES (?, ?)", (slug, key))
    return cur.lastrowid


@pytest.fixture
def stories(corpus):
    ids = build_fixture(corpus)
    conn = corpus.conn
    chips = ids["topics"]["chips"]
    recs = ids["records"]["chips"][:3]
    sig = ids["signals"]["sig-chips-spike"]
    made = {
        "b1": _story(conn, "beat:chips", 1, "chips-beat-report", current=0, topic_id=chips,
                     generated="2026-01-10T00:00:00Z", citations=recs[:2]),
        "b2": _story(conn, "beat:chips", 2, "chips-beat-report-v2", topic_id=chips, citations=recs),
        "lead": _story(conn, "lead", 1, "lead-chips-volume", kind="lead_story", topic_id=chips,
                       trigger=sig, citations=recs[:2], featured=1),
        "ent": _story(conn, "entity:nvidia", 1, "nvidia-narrative", kind="entity_narrative",
                      topic_id=chips, entity_id=ids["entities"]["nvidia"], citations=recs[1:],
                      publish="2026-01-05T00:00:00Z"),
    }
    cur = conn.execute("INSERT INTO arcs(arc_key, slug, title, arc_status, story_count, last_updated_at, run_id) "
                       "VALUES ('beat:chips', 'beat-chips', 'Chips and Compute', 'active', 3, "
                       "'2026-01-19T00:00:00Z', 'narrate-1')")
    for key in ("beat:chips", "lead", "entity:nvidia"):
        conn.execute("INSERT INTO arc_stories VALUES (?, ?)", (cur.lastrowid, key))
    return corpus, ids, made


def test_lead_story_shape(stories):
    corpus, ids, made = stories
    lead = read.lead_story(corpus)
    assert set(lead) == {"id", "slug", "headline", "lede", "publishAt", "readMin", "beat",
                         "signalCount", "sourceCount", "stub"}
    assert lead["id"] == made["lead"] and lead["beat"] == "chips" and lead["stub"] is True


def test_no_lead_is_not_found(corpus):
    with pytest.raises(NotFoundError, match="lead"):
        read.lead_story(corpus)


def test_story_detail_version_chain_and_canonical_slug(stories):
    corpus, _, made = stories
    old = read.story_detail(corpus, made["b1"])
    assert old["slug"] == "chips-beat-report-v2"  # canonical, even for an old version
    assert old["body"].startswith("Body v1")
    assert old["versionChain"] == [made["b2"], made["b1"]]
    assert [c["recordId"] for c in old["citations"]] == sorted(c["recordId"] for c in old["citations"])
    assert all(isinstance(c["inferred"], bool) for c in old["citations"])
    for bad in (10 ** 9, "abc", None):
        with pytest.raises(NotFoundError):
            read.story_detail(corpus, bad)


def test_versions_newest_first_one_current(stories):
    corpus, _, made = stories
    versions = read.story_versions(corpus, made["b2"])
    assert versions["storyId"] == made["b2"]
    assert [v["id"] for v in versions["versions"]] == [made["b2"], made["b1"]]
    assert [v["isCurrent"] for v in versions["versions"]] == [True, False]


def test_sources_view(stories):
    corpus, _, made = stories
    src = read.story_sources(corpus, made["b2"])
    assert len(src["sources"]) == 3
    first = src["sources"][0]
    assert set(first) == {"recordId", "kind", "title", "url", "sentimentScore", "inferred",
                          "confidence", "credibilityScore"}
    assert src["externalCitations"] == [{"url": "https://example.org/a", "title": "A"}]


def test_slug_resolution_for_old_and_mangled_slugs(stories):
    corpus, _, made = stories
    assert resolve_story_slug(corpus.conn, "chips-beat-report-v2") == (made["b2"], "chips-beat-report-v2", True)
    assert resolve_story_slug(corpus.conn, "chips-beat-report") == (made["b2"], "chips-beat-report-v2", False)
    assert resolve_story_slug(corpus.conn, "Chips Beat Report V2") == (made["b2"], "chips-beat-report-v2", False)
    for bad in ("nope", "", "   "):
        with pytest.raises(NotFoundError):
            resolve_story_slug(corpus.conn, bad)
    by_slug = read.story_by_slug(corpus, "chips-beat-report")
    assert by_slug["id"] == made["b2"] and "citations" not in by_slug


def test_lists_counts_and_filters(stories):
    corpus, ids, made = stories
    listed = read.list_stories(corpus)
    assert listed.total == 3 and made["b1"] not in [i["id"] for i in listed.rows]
    assert [i["publishAt"] for i in listed.rows] == sorted((i["publishAt"] for i in listed.rows),
                                                               reverse=True)
    assert read.story_count(corpus, entity_id=ids["entities"]["nvidia"]) == {"count": 1}
    assert read.story_count(corpus, topic_id=ids["topics"]["climate"]) == {"count": 0}
    page = read.list_stories(corpus, limit=1, offset=1)
    assert len(page.rows) == 1 and page.total == 3
    narratives = keyed_queries.list_narratives(corpus, type="lead_story")
    assert narratives["pagination"] == {"total": 1, "limit": 20, "offset": 0, "hasMore": False}
    assert narratives["data"][0]["featured"] is True
    assert keyed_queries.list_narratives(corpus, featured=False)["pagination"]["total"] == 2
    with pytest.raises(ValidationError):
        keyed_queries.list_narratives(corpus, type="op_ed")


def test_narrative_detail_shape(stories):
    corpus, ids, made = stories
    detail = read.narrative_detail(corpus, "lead-chips-volume")
    assert detail["type"] == "lead_story" and detail["topicDisplayName"] == "Chips and Compute"
    assert detail["triggerSignal"] == {"type": "volume_spike", "severity": "high"}
    assert detail["metadata"]["summary"] == "One sentence."
    assert detail["sourceDiscourseIds"] == ids["records"]["chips"][:2]
    old = read.narrative_detail(corpus, "chips-beat-report")
    assert old["version"] == 1 and [v["version"] for v in old["versions"]] == [2, 1]
    ent = read.narrative_detail(corpus, "nvidia-narrative")
    assert ent["entityName"] == "Nvidia" and ent["triggerSignal"] is None
    with pytest.raises(NotFoundError, match="Narrative not found"):
        read.narrative_detail(corpus, "missing")
    assert read.topic_current_narrative(corpus, ids["topics"]["chips"])["version"] == 2
    assert read.topic_current_narrative(corpus, ids["topics"]["climate"]) is None
    assert read.entity_current_narrative(corpus, ids["entities"]["nvidia"])["slug"] == "nvidia-narrative"


def test_arcs(stories):
    corpus, _, made = stories
    arcs = read.list_arcs(corpus)
    assert arcs["total"] == 1
    detail = read.arc_detail(corpus, "beat-chips")
    assert detail["arcStatus"] == "active" and detail["storyCount"] == 3
    assert [s["id"] for s in detail["stories"]] == [made["ent"], made["b2"], made["lead"]]  # ties by id
    with pytest.raises(NotFoundError, match="Arc not found"):
        read.arc_detail(corpus, "nope")
