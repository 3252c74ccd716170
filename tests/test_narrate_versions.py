"""Versions, slug redirects, arcs, determinism and the pluggable writer."""
from __future__ import annotations

import json
import shutil
from datetime import timedelta

import pytest

from corpuskit import open_corpus
from corpuskit.clock import from_iso, iso
from corpuskit.errors import NotFoundError, ValidationError
from corpuskit.narrate import read
from corpuskit.narrate.arcs import arc_status, build_arcs
from corpuskit.narrate.pipeline import narrate_corpus
from corpuskit.query import resolve_story_slug
from corpuskit.narrate.writer import StoryWriter
from tests.narrate_fixtures import add_records, build_fixture


@pytest.fixture
def narrated(corpus):
    ids = build_fixture(corpus)
    narrate_corpus(corpus, progress=False)
    return corpus, ids


def _current(conn, key):
    return conn.execute("SELECT * FROM stories WHERE story_key = ? AND is_current = 1", (key,)).fetchone()


def test_changed_evidence_makes_a_new_version(narrated):
    corpus, ids = narrated
    conn = corpus.conn
    v1 = _current(conn, "beat:chips")
    untouched = _current(conn, "dispatch:sig-climate-spike")
    add_records(corpus, ids, "chips", 6)
    summary = narrate_corpus(corpus, progress=False)
    v2 = _current(conn, "beat:chips")
    assert v2["version"] == 2 and v2["id"] != v1["id"] and v2["evidence_hash"] != v1["evidence_hash"]
    assert v2["slug"] == "chips-beat-report-v2"
    assert conn.execute("SELECT is_current FROM stories WHERE id = ?", (v1["id"],)).fetchone()[0] == 0
    # a dispatch of a resolved signal whose evidence did not move keeps its one version
    assert _current(conn, "dispatch:sig-climate-spike")["id"] == untouched["id"]
    assert summary["written"].get("beat_narrative", 0) >= 1 and summary["unchanged"]["dispatch"] >= 1
    # the new records are cited: the new version cites at least one of them
    new_ids = set(ids["records"]["chips"][-6:])
    cited = {c["recordId"] for c in read.story_detail(corpus, v2["id"])["citations"]}
    assert cited & new_ids
    versions = read.story_versions(corpus, v1["id"])["versions"]
    assert [v["id"] for v in versions] == [v2["id"], v1["id"]]
    assert sum(v["isCurrent"] for v in versions) == 1 and versions[0]["isCurrent"]
    assert read.story_detail(corpus, v1["id"])["versionChain"] == [v2["id"], v1["id"]]
    keyed = read.narrative_detail(corpus, v2["slug"])
    assert [v["version"] for v in keyed["versions"]] == [2, 1]
    assert keyed["versions"][1]["slug"] == "chips-beat-report"


def test_every_old_slug_redirects_to_the_canonical_one(narrated):
    corpus, ids = narrated
    conn = corpus.conn
    add_records(corpus, ids, "chips", 6)
    narrate_corpus(corpus, progress=False)
    add_records(corpus, ids, "chips", 6, seed=2)
    narrate_corpus(corpus, progress=False)
    current = _current(conn, "beat:chips")
    assert current["version"] == 3
    for slug in ("chips-beat-report", "chips-beat-report-v2", "CHIPS beat report"):
        assert resolve_story_slug(conn, slug) == (current["id"], "chips-beat-report-v3", False)
    assert resolve_story_slug(conn, "chips-beat-report-v3") == (current["id"], "chips-beat-report-v3", True)
    slugs = {r[0] for r in conn.execute("SELECT slug FROM stories")}
    registered = {r[0] for r in conn.execute("SELECT slug FROM story_slugs")}
    assert slugs <= registered
    with pytest.raises(NotFoundError):
        resolve_story_slug(conn, "chips-beat-report-v9")


def test_a_new_lead_signal_is_a_new_version_of_the_lead(narrated):
    corpus, ids = narrated
    conn = corpus.conn
    first = read.lead_story(corpus)
    conn.execute("UPDATE signals SET status = 'resolved', resolved_at = ? WHERE id = ?",
                 (iso(corpus.now()), ids["signals"]["sig-chips-spike"]))
    narrate_corpus(corpus, progress=False)
    lead = read.lead_story(corpus)
    assert lead["id"] != first["id"]
    assert conn.execute("SELECT count(*) FROM stories WHERE kind = 'lead_story' AND is_current = 1").fetchone()[0] == 1
    trigger = conn.execute("SELECT trigger_signal_id, version FROM stories WHERE id = ?", (lead["id"],)).fetchone()
    assert trigger[0] == ids["signals"]["sig-policy-shift"] and trigger[1] == 2  # sigma 3.4 > 3.1
    assert lead["slug"] == "lead-ai-policy-sentiment-turns-negative-v2"
    assert resolve_story_slug(conn, first["slug"]) == (lead["id"], lead["slug"], False)
    assert resolve_story_slug(conn, "lead") == (lead["id"], lead["slug"], False)  # the stable alias
    # the resolved signal's dispatch got a new version too (its state is evidence)
    assert _current(conn, "dispatch:sig-chips-spike")["version"] == 2


def test_arc_status_rule():
    now = from_iso("2026-03-01T00:00:00Z")
    assert arc_status("2026-02-22T00:00:00Z", now) == "active"       # exactly 7 days
    assert arc_status("2026-02-21T23:59:59Z", now) == "dormant"
    assert arc_status("2026-01-30T00:00:00Z", now) == "dormant"      # exactly 30 days
    assert arc_status("2026-01-29T23:59:59Z", now) == "concluded"


def test_arcs_link_stories_by_beat_entity_and_lineage(narrated):
    corpus, ids = narrated
    conn = corpus.conn
    keys = {r[0] for r in conn.execute("SELECT arc_key FROM arcs")}
    assert {"beat:chips", "beat:ai-policy", "beat:climate", "entity:zephyr-labs", "lineage:lin-chips-0"} <= keys
    chips = read.arc_detail(corpus, "beat-chips")
    members = {r[0] for r in conn.execute(
        "SELECT a.story_key FROM arc_stories a JOIN arcs ON arcs.id = a.arc_id WHERE arcs.slug = 'beat-chips'")}
    assert {"beat:chips", "dispatch:sig-chips-spike"} <= members and "lead" not in members
    assert chips["storyCount"] == len(members) == len(chips["stories"])
    times = [s["publishAt"] for s in chips["stories"]]
    assert times == sorted(times) and chips["lastUpdatedAt"] == max(times)
    zephyr = {r[0] for r in conn.execute(
        "SELECT a.story_key FROM arc_stories a JOIN arcs ON arcs.id = a.arc_id WHERE arcs.arc_key = 'entity:zephyr-labs'")}
    assert zephyr == {"entity:zephyr-labs", "dispatch:sig-zephyr-novelty"}
    assert conn.execute("SELECT count(*) FROM arc_stories WHERE story_key = 'lead'").fetchone()[0] == 0
    statuses = {r[0] for r in conn.execute("SELECT arc_status FROM arcs")}
    assert statuses == {"active"}
    run_id = "narrate-test"
    build_arcs(conn, corpus.now() + timedelta(days=10), run_id)
    assert {r[0] for r in conn.execute("SELECT arc_status FROM arcs")} == {"dormant"}
    build_arcs(conn, corpus.now() + timedelta(days=60), run_id)
    assert {r[0] for r in conn.execute("SELECT arc_status FROM arcs")} == {"concluded"}
    ids_before = dict(conn.execute("SELECT arc_key, id FROM arcs").fetchall())
    narrate_corpus(corpus, progress=False)
    assert dict(conn.execute("SELECT arc_key, id FROM arcs").fetchall()) == ids_before  # stable ids


def _dump(path):
    c = open_corpus(path)
    out = {}
    for table in ("stories", "story_citations", "story_slugs", "arcs", "arc_stories"):
        out[table] = [tuple(r) for r in c.conn.execute(f"SELECT * FROM {table} ORDER BY 1, 2")]
    out["signals"] = [tuple(r) for r in c.conn.execute("SELECT id, narrative_id FROM signals ORDER BY id")]
    c.close()
    return out


def test_two_runs_on_copies_are_byte_identical(tmp_path):
    first = tmp_path / "a.db"
    c = open_corpus(first)
    build_fixture(c)
    c.close()
    second = tmp_path / "b.db"
    shutil.copy(first, second)
    for path in (first, second):
        c = open_corpus(path)
        narrate_corpus(c, progress=False)
        c.close()
    a, b = _dump(first), _dump(second)
    assert a == b and len(a["stories"]) >= 10


class TemplateWriter(StoryWriter):
    """A custom writer: quotes the second record first, then the first (it cites [2] before [1])."""

    name = "template"

    def write(self, evidence):
        from corpuskit.narrate.sentences import quotable, split_sentences

        picks = []
        for i in (2, 1):
            sentence = next(s for s in split_sentences(evidence.records[i - 1].text) if quotable(s))
            picks.append(f"{sentence} [{i}]")
        return {"headline": f"{evidence.kind} about {evidence.story_key}", "lede": picks[0][:-4],
                "body": " ".join(picks), "summary": "A template story."}


def test_a_custom_writer_plugs_in(corpus):
    build_fixture(corpus)
    summary = narrate_corpus(corpus, progress=False, writer=TemplateWriter())
    assert sum(summary["written"].values()) == summary["stories"] > 0
    row = corpus.conn.execute("SELECT * FROM stories WHERE story_key = 'beat:chips'").fetchone()
    assert row["headline"] == "beat_narrative about beat:chips"
    assert row["body"].count("[1]") == 1 and row["body"].index("[1]") < row["body"].index("[2]")
    cites = read.story_detail(corpus, row["id"])["citations"]
    assert len(cites) >= 2
    assert corpus.conn.execute("SELECT settings FROM runs WHERE stage = 'narrate'").fetchone()[0].count('"template"')
    from tests.test_narrate import assert_traceable
    assert_traceable(corpus, row)


class BadWriter(StoryWriter):
    def write(self, evidence):
        return {"headline": "h", "lede": "l", "body": "Invented sentence. [99]", "summary": "s"}


class SilentWriter(StoryWriter):
    def write(self, evidence):
        return {"headline": "h", "lede": "", "body": "b [1]", "summary": "s"}


@pytest.mark.parametrize("writer, message", [(BadWriter(), r"cited \[99\]"), (SilentWriter(), "no 'lede'"),
                                             (StoryWriter(), "not implemented")])
def test_a_broken_writer_leaves_the_corpus_as_it_was(corpus, writer, message):
    build_fixture(corpus)
    with pytest.raises((ValidationError, NotImplementedError), match=message):
        narrate_corpus(corpus, progress=False, writer=writer)
    assert corpus.conn.execute("SELECT count(*) FROM stories").fetchone()[0] == 0
    assert corpus.conn.execute("SELECT count(*) FROM story_slugs").fetchone()[0] == 0
    assert corpus.conn.execute("SELECT status FROM runs WHERE stage = 'narrate'").fetchone()[0] == "failed"


def test_lead_falls_back_to_recent_then_latest_notable_signal(narrated):
    corpus, ids = narrated
    conn = corpus.conn
    conn.execute("UPDATE signals SET status = 'resolved', resolved_at = ?", (iso(corpus.now()),))
    narrate_corpus(corpus, progress=False)
    lead = read.lead_story(corpus)
    trigger = conn.execute("SELECT trigger_signal_id FROM stories WHERE id = ?", (lead["id"],)).fetchone()[0]
    assert trigger == ids["signals"]["sig-chips-spike"]  # strongest notable signal of the last 7 days
    later = open_corpus(":memory:", now=iso(corpus.now() + timedelta(days=40)))
    try:
        from corpuskit.narrate.evidence import lead_signal

        # nothing open, nothing recent: the most recently detected notable signal
        assert lead_signal(conn, corpus.now() + timedelta(days=40))["id"] == ids["signals"]["sig-policy-shift"]
        assert lead_signal(later.conn, later.now()) is None  # no signal at all: no lead
    finally:
        later.close()
    assert conn.execute("SELECT count(*) FROM stories WHERE kind = 'lead_story' AND is_current = 1").fetchone()[0] == 1


def test_cli_narrate_command(tmp_path, capsys):
    import json

    from corpuskit.cli import main

    db = tmp_path / "c.db"
    c = open_corpus(db)
    build_fixture(c)
    c.close()
    assert main(["narrate", "--db", str(db), "--quiet"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["runId"] == "narrate-1" and out["current"]["lead_story"] == 1
    assert main(["narrate", "--db", str(db), "--quiet"]) == 0
    assert json.loads(capsys.readouterr().out)["written"] == {}


def test_unchanged_pools_skip_the_ranking(narrated, monkeypatch):
    corpus, ids = narrated
    import corpuskit.narrate.evidence as ev

    def boom(*args, **kwargs):
        raise AssertionError("ranked a story whose pool did not change")

    monkeypatch.setattr(ev, "rank_and_select", boom)
    summary = narrate_corpus(corpus, progress=False)
    assert summary["written"] == {} and summary["unchanged"]["dispatch"] == 4
    monkeypatch.undo()
    # the beat's largest cluster changes (framing or scoring terms): the beat narrative gets a new version
    corpus.conn.execute("UPDATE clusters SET top_terms = ?, record_count = 14 WHERE id = ?",
                        ('["wafer", "packaging", "fab"]', ids["cluster"]))
    summary = narrate_corpus(corpus, progress=False)
    assert summary["written"] == {"beat_narrative": 1}
    beat = _current(corpus.conn, "beat:chips")
    assert beat["version"] == 2
    assert json.loads(beat["metadata"])["figures"]["cluster"][2] == ["wafer", "packaging", "fab"]
