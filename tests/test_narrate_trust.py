"""Stories a reader can trust: quotes attributed (by count where many said it), whole or marked as
excerpts, claims read as claims, no abuse quoted in a story not about it; all still traceable."""
from __future__ import annotations

from corpuskit.narrate.attribution import about_abuse, attribute, is_abusive, is_claim, quoted_text, whole
from corpuskit.narrate.citations import trace_body
from corpuskit.narrate.evidence import EvidenceRecord, StoryEvidence, rank_and_select
from corpuskit.narrate.writer import ExtractiveWriter


def _rec(i, text, source="twitter", author=None):
    return EvidenceRecord(i, source, "", text, "", author or f"user{i}", f"2021-05-0{i}T10:00:00Z", "{}")


def test_claims_questions_and_statements():
    assert is_claim("People who got 2 shots got 8 times more infected than the others.")
    assert is_claim("The vaccine causes heart problems in young men.")
    assert not is_claim("I am looking forward to the summer holidays with my family.")
    assert not is_claim("Did anyone else get 2 shots this week?")
    assert attribute("The vaccine causes heart problems in young men.", ["Twitter"]).startswith(
        "A Twitter post claimed: “")
    assert attribute("Did anyone else get a sore arm this week?", ["Reddit"]).startswith("A Reddit post asked:")
    assert attribute("I love the new park by the river near home.", ["Hacker News"]).startswith(
        "A Hacker News post said:")
    assert attribute("Everyone should read the new trial report today.", ["Twitter", "Reddit", "Twitter"]
                     ).startswith("Three posts (Reddit, Twitter) said:")


def test_quotes_are_whole_or_marked_and_never_cut_mid_word():
    assert whole("The trial in adolescents showed strong results.") == (
        "The trial in adolescents showed strong results.", True)
    text, is_whole = whole("People who got 2 shots got 8 times more infe…")
    assert (text, is_whole) == ("People who got 2 shots got 8 times more", False)
    assert whole("and then the trial was stopped early by the board")[1] is False  # starts mid-sentence
    unit = attribute("People who got 2 shots got 8 times more infe…", ["Twitter"])
    assert unit == "A Twitter post claimed, in part: “People who got 2 shots got 8 times more …”"
    assert "infe" not in unit
    assert quoted_text(unit) == "People who got 2 shots got 8 times more"
    assert quoted_text("Not an attributed sentence.") == "Not an attributed sentence."
    raw = "People who got 2 shots got 8 times more infe… https://t.co/x"
    assert trace_body(f"{unit} [1]", {1: raw}, []) == []
    assert trace_body("A Twitter post said: “Something nobody wrote at all.” [1]", {1: raw}, []) != []


def test_abuse_lexicon():
    assert is_abusive("What a bunch of idiots running this trial.")
    assert is_abusive("This is f*cking ridiculous news about the trial.")
    assert not is_abusive("The Scunthorpe council met on Tuesday about the trial.")
    assert not is_abusive("The dickens of a day for the trial results.")
    assert about_abuse({"online harassment"}) and about_abuse({"trolls"})
    assert not about_abuse({"covid vaccine", "pfizer"})


def _story(records, terms=("vaccine",)):
    return StoryEvidence(kind="custom", story_key="custom:x", records=records, terms=list(terms))


def test_writer_attributes_counts_and_leaves_abuse_out():
    records = [
        _rec(1, "The vaccine trial in adolescents reported strong results this week."),
        _rec(2, "The vaccine trial in adolescents reported strong results this week!", source="reddit"),
        _rec(3, "Those idiots pushing the vaccine trial should be ashamed of themselves."),
        _rec(4, "Parents asked whether the vaccine trial covered children under twelve."),
    ]
    out = ExtractiveWriter().write(_story(records))
    body = out["body"]
    assert "idiots" not in body
    assert "Two posts (Reddit, Twitter) said:" in body or "Two posts (Reddit, Twitter) claimed:" in body
    assert trace_body(body, {i + 1: r.text for i, r in enumerate(records)}, []) == []
    for paragraph in body.split("\n\n"):
        assert paragraph.startswith(("A ", "An ", "Two ", "Three "))  # every quote attributed
    # a story about abuse may quote it
    about = ExtractiveWriter().write(_story(records, terms=("idiots", "abuse")))
    assert "idiots" in about["body"]


def test_selection_skips_records_with_only_abusive_sentences():
    records = [_rec(1, "Those idiots pushing the vaccine trial should be ashamed of themselves."),
               _rec(2, "The vaccine trial in adolescents reported strong results this week."),
               _rec(3, "Parents asked whether the vaccine trial covered children under twelve.")]
    chosen = rank_and_select(records, [], 5, terms={"vaccine"})
    assert sorted(r.id for r in chosen) == [2, 3]
    chosen = rank_and_select(records, [], 5, terms={"vaccine", "abuse"})
    assert sorted(r.id for r in chosen) == [1, 2, 3]


def test_headline_names_the_distinctive_subject_of_the_evidence():
    from corpuskit.narrate.headlines import distinctive_terms

    baseline = [f"The COVID-19 vaccine rollout continues in region {i} with more clinics open." for i in range(40)]
    evidence = [f"Pfizer reports a COVID-19 vaccine trial in adolescents aged 12 to 15, group {i}." for i in range(8)]
    evidence += ["The COVID-19 vaccine rollout continues with more clinics open."] * 4
    terms = distinctive_terms(evidence, baseline, exclude={"covid-19 vaccine", "vaccine", "covid"})
    assert terms and any("adolescents" in t.lower() or "trial" in t.lower() for t in terms)
    assert not any("vaccine" in t.lower() for t in terms)  # the subject is already in the headline
    assert distinctive_terms(baseline[:5], baseline, exclude=()) == []  # nothing distinctive, nothing named
    assert distinctive_terms(evidence[:2], baseline) == []  # too few records to say
    assert "Elena Varga" in distinctive_terms(
        [f"Elena Varga warned about ransomware again, post {i}." for i in range(6)],
        [f"Ransomware hit another hospital, post {i}." for i in range(30)], exclude={"ransomware"})


def test_writer_headline_carries_the_key_terms():
    records = [_rec(i, f"The vaccine trial in adolescents reported strong results, said clinic {i}.")
               for i in range(1, 5)]
    ev = StoryEvidence(kind="entity_narrative", story_key="entity:x", records=records,
                       entity={"id": 1, "slug": "pfizer", "name": "Pfizer", "type": "org", "aliases": []},
                       figures={"mentions": 4, "records": 4, "windowDays": 7,
                                "change": {"mentions": 4, "previousMentions": 1, "windowDays": 7, "records": 4},
                                "keyTerms": ["adolescents", "Pfizer"]})
    out = ExtractiveWriter().write(ev)
    assert out["headline"].endswith("; talk of adolescents") and out["headlineSource"]["keyTerms"] == ["adolescents"]
    ev.figures["keyTerms"] = []
    assert "talk of" not in ExtractiveWriter().write(ev)["headline"]


def test_years_and_versions_are_not_claims():
    assert not is_claim("Tips from a Pro: An Introduction to Microscopic Photography (2015)")
    assert not is_claim("Show HN: Xcode 8 Source Code Extension to Generate Swift Initializers")
    assert not is_claim("Bidirectional Replication is coming to PostgreSQL 9.6")
    assert is_claim("Nearly 14,000 Uber and Lyft Drivers Sign Union Cards in New York")
    assert is_claim("A fast PostgreSQL client library for Python: 3x faster than psycopg2")


def test_a_headline_says_talk_of_once():
    """A beat whose development is a growing cluster already says "talk of ...": its key terms follow
    as "also ..." so the headline never reads "talk of ... talk of"."""
    records = [_rec(i, f"The reactor restart in Ohio drew protests, said group {i}.") for i in range(1, 5)]
    beat = {"id": 1, "name": "energy", "display_name": "Energy: grid, reactor", "category": "discovered",
            "keywords": ["grid", "reactor"]}
    cluster = {"id": 9, "top_terms": ["reactor restart", "ohio", "protests"], "recent": 4, "earlier": 1,
               "record_count": 5}
    ev = StoryEvidence(kind="beat_narrative", story_key="beat:energy", records=records, beat=beat,
                       cluster=cluster, figures={"records": 4, "windowDays": 14, "keyTerms": ["lawsuit"]})
    headline = ExtractiveWriter().write(ev)["headline"]
    assert headline.count("talk of") == 1 and headline.endswith("; also lawsuit"), headline
    ev.cluster = None   # the volume headline has no "talk of" of its own: the key terms bring it
    assert ExtractiveWriter().write(ev)["headline"].endswith("; talk of lawsuit")


def test_a_title_is_reported_news_not_a_claim():
    """A post's title is the headline it reports: quoted as "was headlined", never "claimed"; the same
    sentence in a post's own body is still a claim."""
    title = "To Woo Apple, Foxconn Bets $3.5B on Sharp"
    assert is_claim(title)
    assert attribute(title, ["Hacker News"], title=True) == (
        "A Hacker News post was headlined: “To Woo Apple, Foxconn Bets $3.5B on Sharp”")
    assert attribute(title, ["Hacker News", "Reddit"], title=True).startswith(
        "Two posts (Hacker News, Reddit) were headlined: “")
    assert attribute("Why does Foxconn bet $3.5B on Sharp?", ["Reddit"], title=True).startswith("A Reddit post asked:")
    unit = attribute(title, ["Hacker News"], title=True)
    assert quoted_text(unit) == title  # still traceable
    titled = [EvidenceRecord(1, "hackernews", title, title, "", "a", "2016-03-01T10:00:00Z", "{}"),
              EvidenceRecord(2, "hackernews", "Foxconn and Sharp",
                             "Sharp shareholders backed the Foxconn deal with 60 percent of the vote.", "", "b",
                             "2016-03-02T10:00:00Z", "{}")]
    body = ExtractiveWriter().write(_story(titled, terms=("foxconn",)))["body"]
    assert "was headlined: “To Woo Apple" in body
    assert "claimed: “Sharp shareholders backed the Foxconn deal" in body  # a body sentence is the poster's
    assert "claimed: “To Woo" not in body


def test_a_story_body_does_not_repeat_its_opening_sentence():
    records = [_rec(i, f"The reactor restart in Ohio drew protests, said group {i}.") for i in range(1, 5)]
    ev = StoryEvidence(kind="entity_narrative", story_key="entity:x", records=records,
                       entity={"id": 1, "slug": "ohio", "name": "Ohio", "type": "loc", "aliases": []},
                       figures={"mentions": 4, "records": 4, "windowDays": 7,
                                "change": {"mentions": 4, "previousMentions": 1, "windowDays": 7, "records": 4}})
    out = ExtractiveWriter().write(ev)
    assert out["framing"] and out["lede"] == out["framing"][0]["text"]
    assert out["lede"] not in out["body"]
    assert trace_body(out["body"], {i + 1: r.text for i, r in enumerate(records)}, []) == []
