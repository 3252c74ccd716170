"""Quote selection: substance (fragments, handle runs, hashtag lists), display text, relevance, diversity, spread."""
from __future__ import annotations

import numpy as np

from corpuskit.narrate.citations import trace_body
from corpuskit.narrate.evidence import EvidenceRecord, StoryEvidence, rank_and_select
from corpuskit.narrate.quotes import (candidates, is_fragment, mentions_subject, near_duplicate, record_sentences,
                                      score, select, subject_terms, trim)
from corpuskit.narrate.writer import ExtractiveWriter
from corpuskit.text import term_tokens


def _rec(i, text, author=None, source="twitter", day=1):
    return EvidenceRecord(i, source, "", text, "", author or f"user{i}", f"2021-04-{day:02d}T00:00:00Z", "{}",
                          confidence=0.5)


def test_fragments_handle_runs_and_hashtag_lists_are_not_quoted():
    assert is_fragment("Phew!")
    assert is_fragment("DO NOT TAKE THE VACCINE.")  # two informative words
    assert is_fragment("#covid #vaccine #pfizer #astrazeneca #health #news")
    assert is_fragment("I Used to Be a Human Being")
    assert not is_fragment("The regulator paused the AstraZeneca vaccine after reports of blood clots.")
    assert trim("@anna @bob @carl Phew! The import ban on vaccines was lifted today.") == \
        "Phew! The import ban on vaccines was lifted today."
    assert trim("RT @news: Germany suspends AstraZeneca shots pending review https://t.co/x #covid") == \
        "Germany suspends AstraZeneca shots pending review"
    assert record_sentences("@a @b Phew!") == []
    assert record_sentences("@a @b Phew! Germany suspends AstraZeneca vaccinations pending a safety review.") == \
        ["Germany suspends AstraZeneca vaccinations pending a safety review."]


def test_quotes_are_display_text_and_trace_to_the_record():
    raw = "Pfizer &amp;amp; BioNTech\u2019s  trial in adolescents showed 100% efficacy, the companies said."
    rec = _rec(1, raw)
    [sentence] = record_sentences(raw)
    assert "&amp;" not in sentence and "\u2019" not in sentence and "  " not in sentence
    assert trace_body(f"{sentence} [1]", {1: raw}, []) == []  # verbatim after display normalisation
    assert trace_body("Pfizer said something else entirely today. [1]", {1: raw}, []) != []
    evidence = StoryEvidence("dispatch", "k", [rec, _rec(2, "The Pfizer trial in adolescents enrolled 2,260 "
                                                           "children in the United States.")])
    out = ExtractiveWriter().write(evidence)
    assert "&amp;" not in out["body"]


def test_near_duplicates_are_never_both_quoted_and_authors_are_spread():
    texts = [
        ("Germany suspends AstraZeneca vaccinations pending a safety review of blood clots.", "a"),
        ("Germany suspends AstraZeneca vaccinations pending a safety review of blood clots!!", "b"),
        ("BREAKING: Germany suspends AstraZeneca vaccinations pending safety review of clots.", "c"),
        ("France and Italy also paused AstraZeneca shots while the EMA investigates.", "f"),
        ("Italy paused AstraZeneca vaccinations in two regions while inspectors check batches.", "a"),
        ("The EMA said the benefits of the AstraZeneca vaccine still outweigh its risks.", "d"),
        ("My cat refuses to eat anything but salmon on Tuesdays these days.", "e"),
    ]
    records = [_rec(i + 1, t, author=a) for i, (t, a) in enumerate(texts)]
    cands = candidates(records)
    terms = subject_terms({"name": "AstraZeneca", "aliases": []})
    matrix = score(cands, [0.5] * len(records), terms)
    chosen = [cands[i] for i in select(cands, matrix, 6)]
    tokens = [c.tokens for c in chosen]
    assert not any(near_duplicate(tokens[i], tokens[j]) for i in range(len(tokens)) for j in range(i + 1, len(tokens)))
    assert len(chosen) == 4  # one of the three clones, France, Italy and the EMA; never the cat
    assert all(mentions_subject(c.tokens, terms) for c in chosen)
    # the authors spread: a second quote by "a" comes only once f and d are quoted and no other author is left
    assert sorted(c.author for c in chosen) == ["a", "a", "d", "f"]
    first_two = [cands[i] for i in select(cands, matrix, 2)]
    assert len({c.author for c in first_two}) == 2


def test_relevance_prefers_central_on_subject_sentences():
    records = [
        _rec(1, "Pfizer says its vaccine trial in adolescents showed strong protection against the virus."),
        _rec(2, "Pfizer adolescent trial results lift hopes for vaccinating teenagers before the autumn term."),
        _rec(3, "Weather in the north will turn colder tomorrow with some rain expected overnight."),
        _rec(4, "Regulators will review the Pfizer data on adolescents before extending the authorisation."),
    ]
    cands = candidates(records)
    terms = subject_terms({"name": "Pfizer", "aliases": []})
    matrix = score(cands, [0.9, 0.9, 0.1, 0.8], terms)
    best = max(cands, key=lambda c: c.relevance)
    assert best.ordinal in (1, 2) and best.on_subject
    weather = next(c for c in cands if c.ordinal == 3)
    assert not weather.on_subject and weather.relevance < min(c.relevance for c in cands if c.on_subject)
    chosen = select(cands, matrix, 3)
    assert 3 not in {cands[i].ordinal for i in chosen}


def test_subject_phrases_match_as_phrases():
    terms = subject_terms(beat={"display_name": "Climate Change, Global, Warming",
                                "keywords": ["climate change", "global", "warming", "world"]})
    assert "climate change" in terms and "world" not in terms  # only the first three keywords
    assert mentions_subject(term_tokens("Climate change is melting glaciers faster than expected"), terms)
    assert not mentions_subject(term_tokens("A change of climate in the boardroom at the bank"), terms)


def test_rank_and_select_skips_reposts_and_spreads_authors():
    base = "The council approved the new cycling lanes on Main Street after a long debate."
    records = [_rec(1, base, "ann"), _rec(2, base + " #cycling", "bob"), _rec(3, "Residents complained about "
               "losing parking near the market after the cycling vote.", "ann"),
               _rec(4, "Shop owners on Main Street fear fewer customers once the cycling lanes open.", "cy"),
               _rec(5, "Cycling groups celebrated the vote outside the council chamber last night.", "dee")]
    chosen = rank_and_select(records, [], 4, terms={"cycling"})
    ids = [r.id for r in chosen]
    assert not ({1, 2} <= set(ids))  # the repost is not cited beside its original
    assert len({r.author for r in chosen}) == len(chosen)
    assert all(0 <= r.confidence <= 1 and r.centrality is not None for r in chosen)
    assert np.isfinite([r.centrality for r in chosen]).all()
