"""The narrate stage on the seeded fixture: kinds, traceability, citations, fields, links to signals."""
from __future__ import annotations

import json
import math
import re

import pytest

from corpuskit.clock import iso
from corpuskit.errors import ValidationError
from corpuskit.narrate import read
from corpuskit.narrate.attribution import quoted_text
from corpuskit.narrate.citations import external_citations, trace_body
from corpuskit.narrate.evidence import EvidenceRecord
from corpuskit.narrate.pipeline import narrate_corpus
from corpuskit.text import display_text
from tests.narrate_fixtures import build_fixture

WS = re.compile(r"\s+")


def _flat(text):
    return WS.sub(" ", text).strip()


@pytest.fixture
def narrated(corpus):
    ids = build_fixture(corpus)
    summary = narrate_corpus(corpus, progress=False)
    return corpus, ids, summary


def _stories(corpus, current_only=False):
    sql = "SELECT * FROM stories" + (" WHERE is_current = 1" if current_only else "") + " ORDER BY id"
    return corpus.conn.execute(sql).fetchall()


def _citation_texts(corpus, story_id):
    rows = corpus.conn.execute(
        "SELECT c.ordinal, r.content_text FROM story_citations c JOIN records r ON r.id = c.record_id "
        "WHERE c.story_id = ? ORDER BY c.ordinal", (story_id,)).fetchall()
    return {r[0]: r[1] for r in rows}


def assert_traceable(corpus, story):
    """Each body sentence with a marker [n] occurs verbatim in record n's display text; the rest is framing."""
    texts = {n: display_text(t) for n, t in _citation_texts(corpus, story["id"]).items()}
    framing = [_flat(f["text"]) for f in json.loads(story["metadata"])["framing"]]
    marked = 0
    for paragraph in [p for p in story["body"].split("\n\n") if p.strip()]:
        if _flat(paragraph) in framing:
            continue
        units = re.findall(r"(.+?)\s*\[(\d+)\]\s*", paragraph)
        assert "".join(u[0] for u in units).replace(" ", "") == re.sub(r"\[\d+\]", "", paragraph).replace(" ", ""), \
            f"unmarked text in {story['story_key']}: {paragraph!r}"
        for sentence, n in units:
            assert _flat(quoted_text(" ".join(sentence.split()))) in texts[int(n)], (story["story_key"], sentence, n)
            marked += 1
    assert marked >= 2
    assert trace_body(story["body"], texts, framing) == []


def test_every_kind_is_written(narrated):
    corpus, ids, summary = narrated
    kinds = {r["kind"] for r in _stories(corpus)}
    assert kinds == {"lead_story", "beat_narrative", "dispatch", "entity_narrative"}
    assert summary["current"]["lead_story"] == 1
    # one beat narrative per active beat, one dispatch per high/medium signal
    assert summary["current"]["beat_narrative"] == 3
    notable = corpus.conn.execute("SELECT count(*) FROM signals WHERE severity IN ('high','medium')").fetchone()[0]
    assert summary["current"]["dispatch"] == notable == 4
    keys = {r["story_key"] for r in _stories(corpus)}
    assert "dispatch:sig-climate-div" not in keys  # low severity gets no dispatch
    assert {"entity:zephyr-labs", "entity:nvidia"} <= keys


def test_lead_follows_the_stated_rule(narrated):
    corpus, ids, _ = narrated
    lead = read.lead_story(corpus)
    row = corpus.conn.execute("SELECT trigger_signal_id FROM stories WHERE id = ?", (lead["id"],)).fetchone()
    assert row[0] == ids["signals"]["sig-chips-spike"]  # open high, sigma 5.2: the strongest
    assert lead["beat"] == "chips" and lead["signalCount"] >= 1 and lead["sourceCount"] >= 2


def test_every_sentence_traces_to_a_cited_record(narrated):
    corpus, _, _ = narrated
    for story in _stories(corpus):
        assert_traceable(corpus, story)


def test_trace_body_catches_an_untraced_sentence():
    texts = {1: "Alpha beta gamma delta epsilon.", 2: "Zeta eta theta iota kappa."}
    assert trace_body("Alpha beta gamma delta epsilon. [1]", texts, []) == []
    assert trace_body("Zeta eta theta iota kappa. [1]", texts, []) != []
    assert trace_body("Made up words here. [2]", texts, []) != []
    assert trace_body("A framing line.\n\nAlpha beta gamma delta epsilon. [1]", texts, ["A framing line."]) == []
    assert trace_body("Alpha beta gamma delta epsilon. [1] dangling", texts, []) != []
    assert trace_body("Alpha beta gamma delta epsilon. [3]", texts, []) != []


def test_citations_fields_and_counts(narrated):
    corpus, _, _ = narrated
    for story in _stories(corpus):
        cites = corpus.conn.execute("SELECT * FROM story_citations WHERE story_id = ? ORDER BY ordinal",
                                    (story["id"],)).fetchall()
        assert len(cites) >= 2
        assert [c["ordinal"] for c in cites] == list(range(1, len(cites) + 1))
        assert len({c["record_id"] for c in cites}) == len(cites)
        assert all(0 <= c["confidence"] <= 1 and 0 <= c["credibility"] <= 1 for c in cites)
        # markers are numbered in order of first appearance
        first = []
        for n in map(int, re.findall(r"\[(\d+)\]", story["body"])):
            if n not in first:
                first.append(n)
        assert first == list(range(1, len(first) + 1))
        sources = corpus.conn.execute(
            "SELECT count(DISTINCT r.source) FROM story_citations c JOIN records r ON r.id = c.record_id "
            "WHERE c.story_id = ?", (story["id"],)).fetchone()[0]
        assert story["source_count"] == sources
        words = len(re.sub(r"\[\d+\]", "", story["body"]).split())
        assert story["read_min"] == max(1, math.ceil(words / 200))


def test_inferred_only_for_records_pulled_in_by_similarity(narrated):
    corpus, ids, _ = narrated
    story = corpus.conn.execute("SELECT id FROM stories WHERE story_key = 'dispatch:sig-policy-shift'").fetchone()
    cites = corpus.conn.execute("SELECT record_id, inferred FROM story_citations WHERE story_id = ?",
                                (story[0],)).fetchall()
    evidence = {r[0] for r in corpus.conn.execute(
        "SELECT ref_id FROM signal_evidence WHERE signal_id = ? AND ref_kind = 'record'",
        (ids["signals"]["sig-policy-shift"],))}
    assert len(evidence) == 1 and len(cites) >= 2  # one direct record, the rest pulled in
    for rid, inferred in cites:
        assert bool(inferred) == (rid not in evidence)
    beat = corpus.conn.execute("SELECT id FROM stories WHERE kind = 'beat_narrative' LIMIT 1").fetchone()
    assert not any(c["inferred"] for c in read.story_detail(corpus, beat[0])["citations"])


def test_spec_fields(narrated):
    corpus, ids, _ = narrated
    for story in _stories(corpus):
        meta = json.loads(story["metadata"])
        assert isinstance(meta["summary"], str) and meta["summary"].strip()
        assert story["generated_at"] == iso(corpus.now())  # the corpus clock, not the wall clock
        assert story["publish_at"] <= story["generated_at"]
        refs = json.loads(story["refs"])
        assert all(set(r) == {"refType", "refSlug", "displayText"} for r in refs)
        assert refs[0]["refType"] == "beat"
        topic = corpus.conn.execute("SELECT category FROM topics WHERE id = ?", (story["topic_id"],)).fetchone()
        assert story["category"] == topic[0]
        assert story["featured"] == int(story["kind"] == "lead_story" or
                                        (story["kind"] == "dispatch" and story["signal_severity"] == "high"))
    detail = read.narrative_detail(corpus, "nvidia-narrative")
    assert detail["entityName"] == "Nvidia" and detail["type"] == "entity_narrative"
    assert {"refType": "entity", "refSlug": "nvidia", "displayText": "Nvidia"} in detail["references"]
    assert len(detail["sourceDiscourseIds"]) >= 2
    dispatch = read.narrative_detail(corpus, "chips-and-compute-volume-3-1x-its-baseline")
    assert dispatch["triggerSignal"] == {"type": "volume_spike", "severity": "high"}
    assert dispatch["signalSeverity"] == "high" and dispatch["featured"] is True
    framing = dispatch["metadata"]["framing"][0]
    assert framing["tracedTo"] == {"signal": ids["signals"]["sig-chips-spike"]}
    assert "5.2 sigma" in framing["text"]


def test_signal_count_counts_open_signals_on_the_beat(narrated):
    corpus, ids, _ = narrated
    row = corpus.conn.execute("SELECT signal_count FROM stories WHERE story_key = 'beat:chips'").fetchone()
    assert row[0] == 2  # the open spike and the open novelty signal on chips
    row = corpus.conn.execute("SELECT signal_count FROM stories WHERE story_key = 'beat:climate'").fetchone()
    assert row[0] == 1  # the divergence is open, the spike resolved


def test_external_citations_and_sources_view(narrated):
    corpus, _, _ = narrated
    for story in _stories(corpus):
        view = read.story_sources(corpus, story["id"])
        urls = [c["url"] for c in view["externalCitations"]]
        assert len(urls) == len(set(urls))
        assert {s["url"] for s in view["sources"]} <= set(urls)
        assert all(c["title"] for c in view["externalCitations"])
        assert all(0 <= s["credibilityScore"] <= 1 for s in view["sources"])
    linked = [c for s in _stories(corpus) for c in json.loads(s["external_citations"])
              if c["url"].startswith("https://example.org/")]
    assert linked and all("linked from" in c["title"] for c in linked)


def test_external_citations_dedupe_and_strip_punctuation():
    rec = EvidenceRecord(1, "news", "T", "See https://a.org/x. And https://a.org/x/ again.", "https://a.org/x",
                         "", "2026-01-01T00:00:00Z", "{}")
    other = EvidenceRecord(2, "reddit", "", "Nothing here at all to link to.", "", "", "2026-01-01T00:00:00Z", "{}")
    assert external_citations([rec, other]) == [{"url": "https://a.org/x", "title": "T"}]


def test_signals_link_back_to_stories(narrated):
    corpus, ids, _ = narrated
    conn = corpus.conn
    sig = ids["signals"]["sig-chips-spike"]
    narrative = conn.execute("SELECT narrative_id FROM signals WHERE id = ?", (sig,)).fetchone()[0]
    kind = conn.execute("SELECT kind FROM stories WHERE id = ?", (narrative,)).fetchone()[0]
    assert kind == "dispatch"  # the dispatch wins over the lead for the same signal
    stories = {r[0] for r in conn.execute(
        "SELECT ref_id FROM signal_evidence WHERE signal_id = ? AND ref_kind = 'story'", (sig,))}
    triggered = {r[0] for r in conn.execute(
        "SELECT id FROM stories WHERE trigger_signal_id = ? AND is_current = 1", (sig,))}
    assert stories == triggered and len(stories) >= 2
    low = ids["signals"]["sig-climate-div"]
    # the divergence is the climate beat's strongest open signal, so the beat narrative is its story
    assert conn.execute("SELECT narrative_id FROM signals WHERE id = ?", (low,)).fetchone()[0] is not None


def test_rerun_with_same_evidence_writes_nothing(narrated):
    corpus, _, _ = narrated
    before = [tuple(r) for r in _stories(corpus)]
    summary = narrate_corpus(corpus, progress=False)
    assert summary["written"] == {} and sum(summary["unchanged"].values()) == len(before)
    assert [tuple(r) for r in _stories(corpus)] == before


def test_empty_corpus_writes_no_story(corpus):
    summary = narrate_corpus(corpus, progress=False)
    assert summary["stories"] == 0 and summary["arcs"]["arcs"] == 0


@pytest.mark.parametrize("bad", [
    {"beat_window_days": 0}, {"max_citations": 1}, {"top_entities": -1},
    {"dispatch_severities": ("urgent",)}, {"arc_active_days": 10, "arc_dormant_days": 5},
    {"writer": object()},
])
def test_bad_settings_are_refused(corpus, bad):
    with pytest.raises(ValidationError):
        narrate_corpus(corpus, progress=False, **bad)
    assert corpus.conn.execute("SELECT count(*) FROM runs WHERE stage = 'narrate'").fetchone()[0] == 0


def test_sentence_splitting_and_quotability():
    from corpuskit.narrate.sentences import quotable, split_sentences

    text = ("Threads keep multiplying. mRNA comes up again, e.g. in trials. Dr. Lee agreed!  "
            "The U.S. market moved?\n\"Yes,\" she said. 3 more to go")
    assert split_sentences(text) == [
        "Threads keep multiplying.", "mRNA comes up again, e.g. in trials.", "Dr. Lee agreed!",
        "The U.S. market moved?", "\"Yes,\" she said.", "3 more to go"]
    assert split_sentences("") == [] and split_sentences(None) == []
    assert quotable("This sentence has enough words to stand.")
    assert not quotable("Too short.")
    assert not quotable("See https://example.org for the whole story today.")
    assert not quotable("A sentence that cites [2] like a story body does.")
    assert not quotable("12 34 56 78 90 11 22 33 44 55 66")


def test_stories_about_an_entity_include_its_dispatches(narrated):
    corpus, ids, _ = narrated
    zephyr = ids["entities"]["zephyr-labs"]
    kinds = sorted(i["kind"] for i in read.list_stories(corpus, entity_id=zephyr).rows)
    assert kinds == ["dispatch", "entity_narrative"]
    dispatch = read.narrative_detail(corpus, "zephyr-labs-newly-prominent-on-chips-and-compute")
    assert dispatch["entityName"] is None  # shown for entity narratives only
    assert read.entity_current_narrative(corpus, zephyr)["slug"] == "zephyr-labs-narrative"


def test_public_names_load_lazily():
    import subprocess
    import sys

    code = ("import sys, corpuskit.narrate.read; assert 'sklearn' not in sys.modules; "
            "from corpuskit.narrate import StoryWriter, Narrator, ExtractiveWriter; "
            "assert issubclass(ExtractiveWriter, StoryWriter)")
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0


def test_credibility_from_the_run_cache_equals_the_per_call_query(corpus):
    """Inside a narrate run author counts come from one pass over records; the scores are the same,
    and a deleted or empty author still counts as no author."""
    from corpuskit.narrate.credibility import author_count_cache, credibility_scores

    build_fixture(corpus)
    conn = corpus.conn
    rows = conn.execute("SELECT id, source, author, metadata FROM records ORDER BY id").fetchall()
    records = [EvidenceRecord(r[0], r[1], "", "", "", r[2] or "", "2026-01-01T00:00:00Z", r[3] or "{}", None)
               for r in rows]
    records.append(EvidenceRecord(10**9, "reddit", "", "", "", "[deleted]", "2026-01-01T00:00:00Z", "{}", None))
    conn.execute("UPDATE records SET author = '[deleted]' WHERE id = ?", (rows[0][0],))
    plain = credibility_scores(conn, records)
    with author_count_cache():
        cached = credibility_scores(conn, records)
        again = credibility_scores(conn, records[:3])
    assert cached == plain and again == {r.id: plain[r.id] for r in records[:3]}
    assert len({r.author for r in records if r.author}) > 1
