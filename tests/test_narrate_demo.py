"""The narrate stage on the session demo corpus (built with every stage by ``build_demo``)."""
from __future__ import annotations

import json

from corpuskit.narrate import read
from corpuskit.narrate.citations import trace_body
from corpuskit.narrate.evidence import lead_signal, notable_signals
from corpuskit.query import resolve_story_slug


def test_demo_has_stories_of_every_kind(demo_corpus):
    kinds = dict(demo_corpus.conn.execute(
        "SELECT kind, count(*) FROM stories WHERE is_current = 1 GROUP BY kind").fetchall())
    assert set(kinds) == {"lead_story", "beat_narrative", "dispatch", "entity_narrative"}
    assert kinds["lead_story"] == 1
    beats = demo_corpus.conn.execute("SELECT count(*) FROM topics WHERE active = 1").fetchone()[0]
    assert 1 <= kinds["beat_narrative"] <= beats


def test_demo_stories_are_traced_and_cited(demo_corpus):
    conn = demo_corpus.conn
    rows = conn.execute("SELECT id, story_key, body, metadata FROM stories").fetchall()
    assert rows
    for sid, key, body, meta in rows:
        texts = dict(conn.execute(
            "SELECT c.ordinal, r.content_text FROM story_citations c JOIN records r ON r.id = c.record_id "
            "WHERE c.story_id = ?", (sid,)).fetchall())
        assert len(texts) >= 2, key
        assert trace_body(body, texts, [f["text"] for f in json.loads(meta)["framing"]]) == [], key


def test_demo_lead_follows_the_rule_and_dispatches_cover_notable_signals(demo_corpus):
    conn = demo_corpus.conn
    lead = read.lead_story(demo_corpus)
    expected = lead_signal(conn, demo_corpus.now())
    trigger = conn.execute("SELECT trigger_signal_id FROM stories WHERE id = ?", (lead["id"],)).fetchone()[0]
    assert expected is not None and trigger == expected["id"]
    strong = conn.execute("SELECT count(*) FROM signals WHERE severity IN ('high', 'medium')").fetchone()[0]
    notable = len(notable_signals(conn))   # one per linked event: the lead of each
    assert 1 <= notable < strong
    dispatches = conn.execute(
        "SELECT count(DISTINCT story_key) FROM stories WHERE kind = 'dispatch'").fetchone()[0]
    assert dispatches >= 0.8 * notable  # only signals with under 2 quotable records are skipped
    linked = conn.execute("SELECT count(*) FROM signals WHERE narrative_id IS NOT NULL").fetchone()[0]
    assert linked >= dispatches


def test_demo_read_functions_answer_for_every_story(demo_corpus):
    conn = demo_corpus.conn
    for sid, slug, kind in conn.execute("SELECT id, slug, kind FROM stories WHERE is_current = 1").fetchall():
        assert resolve_story_slug(conn, slug) == (sid, slug, True)
        detail = read.narrative_detail(demo_corpus, slug)
        assert detail["metadata"]["summary"]
        assert any(r["refType"] == "beat" for r in detail["references"]) or detail["topic"] is None
        if kind == "entity_narrative":
            assert detail["entityName"]
        sources = read.story_sources(demo_corpus, sid)["sources"]
        assert all(0 <= s["credibilityScore"] <= 1 for s in sources)
    arcs = read.list_arcs(demo_corpus)["items"]
    assert arcs and {a["arcStatus"] for a in arcs} <= {"active", "dormant", "concluded"}
    assert all(read.arc_detail(demo_corpus, a["slug"])["storyCount"] == a["storyCount"] for a in arcs)


def test_demo_narration_is_deterministic(demo_path, tmp_path):
    import shutil

    from corpuskit import open_corpus

    dumps = []
    for name in ("a.db", "b.db"):
        path = tmp_path / name
        shutil.copy(demo_path, path)
        wal = demo_path.with_name(demo_path.name + "-wal")
        if wal.exists():
            shutil.copy(wal, path.with_name(name + "-wal"))
        c = open_corpus(path)
        with c.transaction():
            for table in ("story_citations", "story_slugs", "arc_stories", "arcs", "stories"):
                c.conn.execute(f"DELETE FROM {table}")
        c.narrate(progress=False)
        dumps.append([[tuple(r) for r in c.conn.execute(f"SELECT * FROM {t} ORDER BY 1, 2")]
                      for t in ("stories", "story_citations", "story_slugs", "arcs", "arc_stories")])
        c.close()
    assert dumps[0] == dumps[1] and dumps[0][0]
