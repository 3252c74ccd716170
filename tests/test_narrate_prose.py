"""Prose from words: headlines, ledes and framing in plain English, the debris check, the lead rule, and every story of
the demo and of a real file read through the quality figures."""
from __future__ import annotations

import json
from datetime import timedelta

import pytest

from corpuskit.clock import iso
from corpuskit.narrate import prose
from corpuskit.narrate.evidence import lead_signal
from corpuskit.narrate.pipeline import narrate_corpus
from corpuskit.narrate.quality import story_quality, summarise

from tests.narrate_fixtures import build_fixture

PFIZER = {"id": 1, "name": "pfizer-biontech-coronavirus", "display_name": "Pfizer Biontech, Coronavirus Vaccine, Fda View"}


def _signal(kind, detail, severity="high", sigma=5.24):
    return {"id": 9, "kind": kind, "severity": severity, "sigma_score": sigma, "detail": detail,
            "headline": "raw", "detected_at": "2021-04-02T00:00:00Z", "entity_id": None, "topic_id": 1}


def test_sentiment_headline_is_plain_english_with_rounded_numbers():
    detail = {"before": 0.137, "after": 0.4292, "delta": 0.2922, "afterDays": 21, "windowDays": 28,
              "records": 112, "direction": "positive", "day": "2021-04-01"}
    headline, framing = prose.signal_prose(_signal("sentiment_shift", detail, "medium", 3.97), PFIZER)
    assert headline == "Sentiment on Pfizer Biontech rises: +0.43, up from +0.14 over 21 days"
    assert framing == ("Over the 21 days to 1 April 2021, the average sentiment of 112 records on Pfizer Biontech, "
                       "Coronavirus Vaccine and Fda View rose to +0.43, from +0.14 in the 28 days before "
                       "(medium severity, 4.0 sigma).")
    for text in (headline, framing):
        assert prose.prose_debris(text, slugs=[PFIZER["name"]], keys=list(detail)) == []


def test_every_signal_kind_reads_as_prose():
    spike = prose.signal_prose(_signal("volume_spike", {"baseline": 1.5, "current": 35, "multiplier": 23.33,
                                                        "windowDays": 28, "day": "2021-03-11"}), PFIZER)
    assert spike[0] == "Pfizer Biontech: 35 posts in a day, 23x the usual 2"
    assert "11 March 2021" in spike[1] and "high severity, 5.2 sigma" in spike[1]
    hour = prose.signal_prose(_signal("volume_spike", {"baseline": 2.0, "current": 19, "multiplier": 9.5,
                                                       "windowDays": 14, "hour": "2021-03-11T14:00:00Z"}), PFIZER)
    assert hour[0] == "Pfizer Biontech: 19 posts in one hour, 9.5x the usual 2" and "14:00 UTC" in hour[1]
    novel = prose.signal_prose(_signal("novelty", {"entity": "Cybertruck", "mentions": 8, "baselineMentions": 0,
                                                   "windowDays": 21}), PFIZER)
    assert novel[0] == "Cybertruck emerges in posts on Pfizer Biontech: 8 mentions, against none in the previous 21 days"
    split = prose.signal_prose(_signal("divergence", {"sourceA": "reddit", "sourceB": "hackernews",
                                                      "afterA": -0.31234, "afterB": 0.2, "beforeA": 0.05,
                                                      "divergencePoints": 41.7, "day": "2021-03-11"}), PFIZER)
    assert split[0] == "Reddit and Hacker News split on Pfizer Biontech: -0.31 against +0.20"
    quiet = prose.signal_prose(_signal("volume_spike", {"baseline": 0.4, "current": 8, "multiplier": 8.0,
                                                        "windowDays": 21, "day": "2019-11-22"}), PFIZER)
    assert quiet[0] == "Pfizer Biontech: 8 posts in a day, against usually none"   # never "8x fewer than one"
    assert "fewer than one a day on average over the previous 21 days" in quiet[1]
    for headline, framing in (spike, hour, novel, split, quiet):
        assert prose.prose_debris(headline) == [] and prose.prose_debris(framing) == []


def test_labels_terms_and_the_debris_check():
    assert prose.clean_label("Vaccination, Pfizerbiontech, https, @cdcgov, 2021") == ["Vaccination",
                                                                                        "Pfizerbiontech"]
    assert prose.clean_terms(["https", "vaccination", "t.co", "amp", "pfizer", "vaccination"]) == \
        ["vaccination", "pfizer"]
    assert prose.join_words(["a", "b", "c"]) == "a, b and c"
    found = prose.prose_debris("after 0.4292, afterDays 2, windowDays 7 on covid-vaccine-pfizer &amp; https://x.co",
                               slugs=["covid-vaccine-pfizer"], keys=["afterDays"])
    kinds = " ".join(found)
    for expected in ("detail key 'afterDays'", "camelCase 'windowDays'", "unrounded '0.4292'", "topic slug",
                     "URL part", "HTML entity"):
        assert expected in kinds
    assert prose.prose_debris("The iPhone 7 and eBay, +0.43 from -0.12, 4.6x the usual 12") == []
    assert prose.prose_debris("Google (Chrome, uBlock Origin)") == []  # brands: one lower-case letter first
    assert prose.prose_debris("the baselineRecords were 4") == ["camelCase 'baselineRecords'"]
    assert prose.prose_debris("@a @b @c Phew!") == ["leading @handle run"]


def test_entity_prose_says_what_changed():
    change = {"mentions": 120, "previousMentions": 38, "records": 101, "windowDays": 7, "sentiment": -0.21,
              "previousSentiment": 0.05, "with": ["EMA", "Germany", "Pfizer"]}
    headline, framing = prose.entity_prose({"name": "AstraZeneca"}, change)
    assert headline == "AstraZeneca mentions triple: 120 in 7 days, from 38; sentiment falls to -0.21 from +0.05"
    assert framing.endswith("It appeared most often with EMA, Germany and Pfizer.")
    assert "from +0.05" in framing and prose.prose_debris(framing) == []
    new = prose.entity_prose({"name": "Cybertruck"}, dict(change, previousMentions=0, sentiment=None))[0]
    assert new == "Cybertruck: 120 mentions in 7 days, none in the 7 days before"


def test_the_lead_rule_is_severity_then_sigma_then_recency(corpus):
    ids = build_fixture(corpus)
    conn = corpus.conn
    with corpus.transaction():  # a medium signal with a higher sigma than the high spike, the same day
        conn.execute(
            "INSERT INTO signals(signal_key, kind, topic_id, entity_id, severity, sigma_score, headline, detail, "
            "detected_at, status, resolved_at, run_id, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
            ("sig-loud-medium", "sentiment_shift", ids["topics"]["chips"], None, "medium", 9.9, "x", "{}",
             iso(corpus.now()), "open", None, "analyse-1", iso(corpus.now())))
    assert lead_signal(conn, corpus.now())["id"] == ids["signals"]["sig-chips-spike"]  # high beats sigma 9.9
    narrate_corpus(corpus, progress=False)
    trigger = conn.execute("SELECT trigger_signal_id FROM stories WHERE kind = 'lead_story' AND is_current = 1")
    assert trigger.fetchone()[0] == ids["signals"]["sig-chips-spike"]


def _assert_readable(conn, min_stories):
    rows = story_quality(conn)
    summary = summarise(rows)
    assert summary["stories"] >= min_stories
    assert [r["debris"] for r in rows if r["debris"]] == []
    assert [r["fragments"] for r in rows if r["fragments"]] == []
    assert [r["nearDuplicates"] for r in rows if r["nearDuplicates"]] == []
    assert summary["onSubjectShare"] >= 0.9, [r["offSubject"] for r in rows if r["offSubject"]]
    for story in conn.execute("SELECT headline, lede, metadata FROM stories WHERE is_current = 1"):
        assert "&amp;" not in story[0] + story[1] + json.loads(story[2])["summary"]
    return summary


def test_every_demo_story_reads_as_prose(demo_corpus):
    _assert_readable(demo_corpus.conn, min_stories=10)


def test_every_story_of_a_real_file_reads_as_prose(reddit_two_months_run):
    """The Reddit file's first two months, every stage run (the session's shared real-file build)."""
    summary = _assert_readable(reddit_two_months_run.conn, min_stories=5)
    assert summary["authorsPerStory"]["median"] >= 2


def test_beat_prose_from_a_growing_cluster_or_its_volume():
    beat = {"display_name": "Climate Change, Global, Warming", "name": "climate-change-global"}
    cluster = {"id": 3, "record_count": 240, "top_terms": ["https", "bushfires", "australia", "smoke"],
               "recent": 18, "earlier": 4}
    headline, framing = prose.cluster_prose(beat, cluster, 7)
    assert headline == "Climate Change: talk of bushfires, australia and smoke grows to 18 posts in 3 days, up from 4"
    assert "18 records in the last 3 days, against 4 in the 3 days before (240 in all)" in framing
    up = prose.beat_volume_prose(beat, {"records": 160, "sources": 2, "windowDays": 7, "previousRecords": 120})
    assert up[0] == "Climate Change: 160 posts in 7 days, up 33% from 120"
    assert up[1] == ("Climate Change, Global and Warming drew 160 records from 2 sources in the last 7 days, "
                     "against 120 in the 7 days before.")
    same = prose.beat_volume_prose(beat, {"records": 97, "sources": 1, "windowDays": 7, "previousRecords": 106})
    assert same[0].endswith("about as many as the 7 days before")


def test_growing_cluster_counts_recent_and_earlier_members(corpus):
    from corpuskit.narrate.evidence import growing_cluster

    ids = build_fixture(corpus)
    now = corpus.now()
    found = growing_cluster(corpus.conn, ids["topics"]["chips"], now, 14, min_recent=1)
    members = corpus.conn.execute("SELECT r.published_at FROM cluster_members m JOIN records r ON r.id = m.record_id "
                                  "WHERE m.cluster_id = ?", (ids["cluster"],)).fetchall()
    mid, start = iso(now - timedelta(days=7)), iso(now - timedelta(days=14))
    recent = sum(mid < p[0] <= iso(now) for p in members)
    earlier = sum(start < p[0] <= mid for p in members)
    assert recent >= 2 * earlier and recent >= 2  # the fixture's cluster grows in its last week
    assert (found["id"], found["recent"], found["earlier"]) == (ids["cluster"], recent, earlier)
    assert len(found["memberIds"]) == recent
    assert growing_cluster(corpus.conn, ids["topics"]["chips"], now, 14, min_recent=10 ** 6) is None


def test_corpus_story_quality_frame(corpus):
    build_fixture(corpus)
    narrate_corpus(corpus, progress=False)
    frame = corpus.story_quality()
    current = corpus.conn.execute("SELECT count(*) FROM stories WHERE is_current = 1").fetchone()[0]
    assert len(frame) == current and (frame["quotes"] >= 1).all()
    summary = frame.attrs["summary"]
    assert summary["stories"] == current and summary["quotes"] == frame["quotes"].sum()
    assert summary["storiesWithDebris"] == 0 and summary["fragments"] == 0


def test_a_discovered_label_never_nests_colons_in_a_headline():
    beat = {"name": "google-chrome", "display_name": "Google: Chrome, search"}
    assert prose.topic_name(beat, short=True) == "Google"
    assert prose.topic_name(beat) == "Google (Chrome, search)"
    headline, framing = prose.beat_volume_prose(beat, {"records": 7, "sources": 1, "windowDays": 7,
                                                       "previousRecords": 10})
    assert headline == "Google: 7 posts in 7 days, down 30% from 10"
    assert framing.startswith("Google (Chrome, search) drew 7 records from one source")
    assert headline.count(":") == 1
    # debris in the terms is dropped; a head alone, or a beat file's label, reads as before
    assert prose.topic_name({"display_name": "Vaccines: https, sore arm"}) == "Vaccines (sore arm)"
    assert prose.topic_name({"display_name": "Vaccines: https"}) == "Vaccines"
    assert prose.topic_name({"display_name": "Markets & Economy"}) == "Markets & Economy"
    # a catch-all topic names its terms even in a headline: "Miscellaneous" alone says nothing
    assert prose.topic_name({"display_name": "Miscellaneous: data, science"}, short=True) == \
        "Miscellaneous (data, science)"
    assert prose.topic_name({"name": "ai-policy", "display_name": ""}) == "ai policy"
