"""Topic discovery on small seeded corpora: clean terms, merges, sub-topics, outliers, identity."""
from __future__ import annotations

import numpy as np
import pytest

from corpuskit.enrich.embeddings import TfidfSvdEmbedder
from corpuskit.enrich.topic_quality import is_debris, npmi_coherence, topic_diversity
from corpuskit.enrich.topic_terms import class_tfidf_terms, readable_label
from corpuskit.enrich.topics import (
    K_MAX_SHARE,
    K_TOLERANCE,
    choose_n_topics,
    default_n_topics,
    discover_beats,
)
from corpuskit.text import STOP_WORDS

SPACE = ["rocket", "orbit", "satellite", "astronaut", "capsule", "launch pad", "lunar lander"]
ENERGY = ["solar", "grid", "battery", "turbine", "emissions", "heat pump", "offshore wind"]
MARKETS = ["inflation", "bond", "yields", "earnings", "payrolls", "interest rates", "central bank"]
DEBRIS = ["https://t.co/Ab12 &amp; don't", "&quot;www.example.com&quot; isn't", "@someone http://x.io/a?b=1",
          "we're the and of it's &gt;&gt;", "didn't aren't &#39;"]


def _texts(pools, n, seed=0, debris=True, prefix=""):
    rng = np.random.default_rng(seed)
    texts, labels = [], []
    for i in range(n):
        g = i % len(pools)
        words = " ".join(rng.choice(pools[g], 4, replace=False))
        junk = DEBRIS[i % len(DEBRIS)] if debris else ""
        texts.append(f"{prefix}{words} {junk}".strip())
        labels.append(g)
    return texts, np.array(labels)


def _embed(texts):
    return TfidfSvdEmbedder().fit(texts).transform(texts)


def _purity(found, labels):
    out = []
    for b in sorted(set(found.tolist()) - {-1}):
        members = labels[found == b]
        out.append(np.bincount(members).max() / len(members))
    return out


def test_debris_never_reaches_topic_or_cluster_terms():
    texts, labels = _texts([SPACE, ENERGY, MARKETS], 240)
    beats, _, _ = discover_beats(texts, _embed(texts), seed=0)
    terms = [t for b in beats for t in b.keywords] + [w for b in beats for w in b.display_name.split()]
    terms += [t for ts in class_tfidf_terms(texts, labels).values() for t in ts]
    assert terms
    for term in terms:
        word = term.strip(":,").lower()
        assert not is_debris(word), term
        assert not (set(word.split()) & (STOP_WORDS | {"don", "isn", "aren", "didn", "t", "s", "re"})), term
        assert "@" not in term and "&" not in term and "/" not in term, term


def test_readable_labels_use_the_records_casing_and_no_word_twice():
    texts = ["NASA tests a rocket", "NASA rocket launch", "the rocket launch by NASA", "nasa rocket"]
    label = readable_label(["nasa", "rocket launch", "tests"], texts)
    assert label == "NASA: rocket launch, tests"
    terms = class_tfidf_terms(texts + ["grid battery", "grid solar"], np.array([0, 0, 0, 0, 1, 1]))
    words = [w for t in terms[0] for w in t.split()]
    assert len(words) == len(set(words))
    assert readable_label([]) == ""
    headlines = ["The Best Time Of The Year", "Free Software Is The End Of Time", "China Sues The FBI Over iPhone"]
    assert readable_label(["free", "end", "software"], headlines) == "Free: end, software"   # Title Case says nothing
    # "china" is a common English word, but the place gazetteer (GeoNames) holds it: a name even in Title Case
    assert readable_label(["china", "iphone", "fbi"], headlines) == "China: iPhone, FBI"
    phones = ["my iPhone broke", "the new iPhone unlock trick", "an iPhone and an eBay listing"]
    assert readable_label(["iphone", "unlock"], phones) == "iPhone: unlock"   # not 'IPhone'
    assert readable_label(["unlock", "iphone"], phones) == "Unlock: iPhone"


def test_light_verbs_weak_words_and_auxiliaries_never_lead_a_label():
    from corpuskit.text import term_phrases
    from corpuskit.text.terms import label_word

    assert not {"does", "did"} & set(term_phrases("Why does it work? It did"))        # auxiliaries: stop words
    assert not any(map(label_word, ["says", "new", "using", "best time", "years", "study finds", "released"]))
    assert all(map(label_word, ["new york", "years ago", "trump", "climate change", "cannabis use"]))
    assert readable_label(["says", "trump", "new", "china", "huawei"]) == "Trump: china, huawei"
    # "city" is common in general English: beside a name it adds nothing (tests/test_topic_labels.py)
    assert readable_label(["new", "new york", "city", "subway"], ["a subway in New York city"]) == "New York: subway"
    assert readable_label(["says", "new"]) == "Says: new"      # nothing else to say: the terms as they come


def test_a_label_says_no_word_twice_and_sentence_starts_do_not_set_casing():
    assert readable_label(["facebook", "messenger", "facebook messenger", "chat"]) == "Facebook: messenger, chat"
    texts = ["Umbrella club tonight. Rain again", "Umbrella fair. Rain all day", "a quiet umbrella and rain"]
    assert readable_label(["rain", "umbrella"], texts) == "Rain: umbrella"    # capitals at a sentence start: grammar
    headlines = ["Housing In America Is Broken", "Why Rents In America Rise", "rents rise across America, the mayor says"]
    assert readable_label(["housing", "america"], headlines).endswith("America")


def test_a_phrase_is_not_split_across_terms():
    from corpuskit.enrich.topic_terms import distinct_terms

    counts = {"new": 100, "york": 30, "new york": 29, "city": 20, "facebook": 80, "messenger": 24,
              "facebook messenger": 9, "rare": 2, "new rare": 2}
    # "york" is hardly ever said outside "new york", but "new" mostly is: the phrase stands beside "new"
    assert distinct_terms(["new", "city", "new york", "york"], 5, counts) == ["new", "city", "new york"]
    assert distinct_terms(["new", "york", "city"], 5, counts) == ["new", "new york", "city"]
    counts["new york"] = 30   # the phrase carries 30% of the uses of "new" as well: it stands for both
    assert distinct_terms(["new", "york", "city"], 5, counts) == ["new york", "city"]
    # "messenger" is said alone more often than in "facebook messenger"; "new rare" is said twice only
    assert distinct_terms(["facebook", "messenger"], 5, counts) == ["facebook", "messenger"]
    assert distinct_terms(["new", "rare"], 5, counts) == ["new", "rare"]
    texts = [f"New York {w} news" for w in ("subway", "rent", "mayor", "taxi", "parks", "schools", "budget",
                                            "police", "transit", "housing", "zoning", "bridges")]
    texts += [f"new {w} released" for w in ("phone", "laptop", "app", "model", "game", "tool", "chip", "car")] * 4
    labels = np.array([0] * 12 + [1] * 32)
    terms = class_tfidf_terms(texts + ["York"], np.append(labels, 0))
    assert "new york" in terms[0] and "york" not in terms[0] and "new" not in terms[0]
    assert readable_label(terms[0], texts).startswith("New York")


def test_a_title_format_does_not_label_a_topic():
    from corpuskit.enrich.topic_terms import format_prefixes

    texts, labels = _texts([SPACE, ENERGY, MARKETS], 240, debris=False)
    texts = [f"Ask Board: {t}" if i % 3 == 0 else t for i, t in enumerate(texts)]
    assert format_prefixes(texts) == ["ask board"]
    beats, _, found = discover_beats(texts, _embed(texts), seed=0)
    assert beats and not any("ask" in b.display_name.lower() or "ask" in b.name for b in beats)
    assert min(_purity(found, labels)) >= 0.95
    assert readable_label(["ask board", "hiring", "remote"], formats=["ask board"]) == "Hiring: remote"
    # a name is said mid-sentence too: opening titles does not make it a format
    names = [f"Tesla: {w} deliveries" for w in SPACE * 5] + [f"why tesla {w} matters" for w in ENERGY * 5]
    assert format_prefixes(names) == [] and format_prefixes(["Show Board: a thing"] * 30) == ["show board"]


def test_a_rare_title_format_is_found_by_its_structure():
    """"Offer Board:" opens 0.5% of the titles, under the share rule, but has the structure of the corpus's
    formats ("Ask Board:", "Show Board:"): it is a format too, and never a topic term; a prefix of
    another shape ("Tesla:") or one said mostly mid-title is not."""
    from corpuskit.enrich.topic_terms import class_tfidf_terms, format_prefixes

    texts, labels = _texts([SPACE, ENERGY, MARKETS], 600, debris=False)
    texts = [f"Ask Board: {t}" if i % 4 == 0 else f"Show Board: {t}" if i % 4 == 1 else t
             for i, t in enumerate(texts)]
    offers = [f"Offer Board: free {w} review for open projects" for w in SPACE[:3]]
    tesla = [f"Tesla: {w} deliveries" for w in SPACE[:3]]
    mid = ["Review Board: the panel met", "why the review board met", "what the review board said"]
    corpus = texts + offers + tesla + mid
    assert len(offers) / len(corpus) < 0.01
    assert format_prefixes(corpus) == ["ask board", "offer board", "show board"]
    assert format_prefixes(offers + tesla) == []  # no common format, no family
    words = {w for f in format_prefixes(corpus) for w in f.split()}
    topic = np.array([0] * len(texts) + [1] * len(offers) + [0] * (len(tesla) + len(mid)))
    terms = class_tfidf_terms(corpus, topic, exclude=words)
    assert "offer board" not in terms[1] and "offer" not in terms[1] and "free" in " ".join(terms[1])


def test_cluster_labels_know_the_corpus_formats(corpus):
    from corpuskit.analysis.clusters import corpus_formats

    records, _ = _records([SPACE, ENERGY], 160)
    for i, r in enumerate(records):
        r["title"] = f"Ask Board: {r['title']}" if i % 4 == 0 else r["title"]
    corpus.add_records(records)
    assert corpus_formats(corpus.conn) == ["ask board"]



def test_the_formats_of_posts_without_titles_come_from_their_text(corpus):
    from corpuskit.analysis.clusters import corpus_formats

    records, _ = _records([SPACE, ENERGY], 160)
    for i, r in enumerate(records):   # posts (tweets, skeets) have no title: the text opens with the format
        r["contentText"] = f"Breaking News: {r['title']}" if i % 4 == 0 else r["title"]
        r["title"] = ""
    corpus.add_records(records)
    assert corpus_formats(corpus.conn) == ["breaking news"]


def test_near_duplicate_topics_merge():
    texts, labels = _texts([SPACE, ENERGY], 200, debris=False)
    details: dict = {}
    beats, centroids, found = discover_beats(texts, _embed(texts), n_topics=6, seed=0, details=details)
    assert details["k"] == 6 and details["merged"]          # NMF over-split; the halves merged back
    assert len(beats) == 2 and centroids.shape == (2, 512)
    assert min(_purity(found, labels)) >= 0.95


def test_distinct_topics_do_not_merge():
    texts, labels = _texts([SPACE, ENERGY, MARKETS], 240, debris=False)
    details: dict = {}
    beats, _, found = discover_beats(texts, _embed(texts), n_topics=3, seed=0, details=details)
    assert details["merged"] == [] and len(beats) == 3
    assert min(_purity(found, labels)) >= 0.95


def test_one_subject_corpus_yields_distinct_sub_topics():
    side = ["sore arm", "fever", "headache", "tired", "chills"]
    supply = ["doses", "shipment", "freezer", "delivery", "stock"]
    policy = ["import ban", "mandate", "approval", "regulator", "border"]
    texts, labels = _texts([side, supply, policy], 900, seed=1, prefix="#PfizerBioNTech vaccine: ")
    details: dict = {}
    # four of five words under one prefix: the fixture's texts are near duplicates of one another by
    # construction (tests/test_near_duplicates.py covers that rule), so this test fits on every text
    beats, _, found = discover_beats(texts, _embed(texts), seed=0, details=details, dedupe=False)
    assert len(beats) >= 3
    assert min(_purity(found, labels)) >= 0.9
    assert {int(np.bincount(labels[found == b]).argmax()) for b in range(len(beats))} == {0, 1, 2}
    tops = [b.keywords[:5] for b in beats]
    assert topic_diversity(tops, top_n=5) >= 0.85
    assert all(not {"vaccine", "pfizer", "biontech"} & set(b.name.split("-")) for b in beats)
    assert details["grid"] and details["k"] >= 3                # chosen from the data, not given


HEALTH = ["vaccine", "clinical trial", "patients", "hospital", "dosing", "obesity drug", "gene therapy"]
SECURITY = ["ransomware", "phishing", "malware", "passkey", "firmware", "zero-day", "encryption"]
PHONES = ["smartphone", "foldable", "earbuds", "smartwatch", "battery life", "headset", "console"]


@pytest.mark.parametrize("pools", [[SPACE, ENERGY, MARKETS], [SPACE, ENERGY, MARKETS, HEALTH, SECURITY, PHONES]])
def test_the_number_of_topics_is_chosen_from_the_data(pools):
    texts, labels = _texts(pools, 2400, seed=3)
    details: dict = {}
    # 2400 draws of four words from 7-word pools repeat texts word for word: this test of the grid
    # fits on every text (with dedupe the repeats count once: tests/test_near_duplicates.py)
    beats, _, found = discover_beats(texts, _embed(texts), seed=0, details=details, dedupe=False)
    grid = details["grid"]
    assert [k for k, _, _ in grid] == sorted({k for k, _, _ in grid}) and grid[-1][0] == default_n_topics(2400)
    eligible = [row for row in grid if row[2] <= K_MAX_SHARE] or grid   # the stated rule, from the table
    best = max(score for _, score, _ in eligible)
    assert details["k"] == max(k for k, score, _ in eligible if score >= best - K_TOLERANCE)
    assert len(beats) == len(pools)                       # the size bound is 9: the data says 3 or 6
    assert min(_purity(found, labels)) >= 0.95


def test_a_small_corpus_takes_the_size_bound_without_a_grid():
    texts, _ = _texts([SPACE, ENERGY], 40, debris=False)
    details: dict = {}
    assert choose_n_topics(texts, details=details) == default_n_topics(40) and details["grid"] == []
    assert choose_n_topics([], details=details) == 3


def test_npmi_and_diversity_figures():
    texts = ["apple banana", "apple banana", "cherry date", "cherry date"]
    assert npmi_coherence([["apple", "banana"]], texts) == pytest.approx([1.0])
    assert npmi_coherence([["apple", "cherry"]], texts) == pytest.approx([-1.0])
    assert topic_diversity([["a", "b"], ["b", "c"]]) == 0.75


def _records(pools, n, offset=0, seed=0, noise=0):
    rng = np.random.default_rng(seed)
    texts, labels = _texts(pools, n, seed=seed)
    gibberish = [f"zq{j}x" for j in range(5000)]
    for j in range(noise):
        texts.append(" ".join(rng.choice(gibberish, 5)))
        labels = np.append(labels, -1)
    return [{"source": "reddit", "sourceId": f"r{offset + i}", "title": t, "contentText": "",
             "publishedAt": f"2026-03-{1 + (offset + i) % 28:02d}T12:00:00Z"}
            for i, t in enumerate(texts)], labels


def _primary(corpus):
    return dict(corpus.conn.execute("SELECT r.source_id, t.name FROM records r JOIN enrichment e "
                                    "ON e.record_id = r.id LEFT JOIN topics t ON t.id = e.topic_id"))


def test_outliers_are_not_forced_into_a_topic(corpus):
    records, labels = _records([SPACE, ENERGY, MARKETS], 240, noise=40)
    corpus.add_records(records)
    summary = corpus.enrich(progress=False)
    primary = _primary(corpus)
    noise = [primary[r["sourceId"]] for r, lab in zip(records, labels) if lab < 0]
    topical = [primary[r["sourceId"]] for r, lab in zip(records, labels) if lab >= 0]
    assert sum(p is None for p in noise) >= 0.9 * len(noise)
    assert sum(p is not None for p in topical) >= 0.95 * len(topical)
    assert summary["outliers"] == sum(p is None for p in primary.values())
    outliers_assigned = corpus.conn.execute(
        "SELECT count(*) FROM topic_assignments a JOIN enrichment e ON e.record_id = a.record_id "
        "WHERE e.topic_id IS NULL").fetchone()[0]
    assert outliers_assigned == 0
    per_record = corpus.conn.execute("SELECT count(*) FROM topic_assignments").fetchone()[0] / len(records)
    assert per_record <= 1.2


def test_topic_identity_is_stable_across_incremental_and_refit_runs(corpus):
    records, _ = _records([SPACE, ENERGY, MARKETS], 240)
    corpus.add_records(records)
    corpus.enrich(progress=False)
    before = dict(corpus.conn.execute("SELECT name, id FROM topics WHERE active = 1"))
    labels_before = dict(corpus.conn.execute("SELECT name, display_name FROM topics WHERE active = 1"))
    assert len(before) == 3
    more, _ = _records([SPACE, ENERGY, MARKETS], 60, offset=1000, seed=5)
    corpus.add_records(more)
    corpus.enrich(progress=False)                              # incremental: the same topics
    assert dict(corpus.conn.execute("SELECT name, id FROM topics WHERE active = 1")) == before
    corpus.enrich(progress=False, refit=True)                  # rediscovered: identity kept
    after = dict(corpus.conn.execute("SELECT name, id FROM topics WHERE active = 1"))
    assert after == before
    assert dict(corpus.conn.execute("SELECT name, display_name FROM topics WHERE active = 1")) == labels_before
    kept = corpus.get_meta("topics.discovery")["keptIdentity"]
    assert sorted(kept) == sorted(before)


def test_a_discovered_label_reads_inside_a_signal_headline():
    from corpuskit.enrich.topic_terms import inline_label

    assert inline_label("Tesla: Elon Musk, Cybertruck") == "Tesla (Elon Musk, Cybertruck)"
    assert inline_label("Markets & Economy") == "Markets & Economy"   # a beat file's label stays
    assert inline_label("") == "" and inline_label(None) == ""


def test_merging_can_be_turned_off_and_a_merge_is_explained():
    from corpuskit.enrich.pipeline import topics_note

    texts, labels = _texts([SPACE, ENERGY], 200, debris=False)
    details: dict = {}
    beats, _, _ = discover_beats(texts, _embed(texts), n_topics=6, seed=0, details=details, merge=False)
    assert len(beats) == 6 and details["merged"] == [] and details["dissolved"] == []
    details = {}
    beats, _, _ = discover_beats(texts, _embed(texts), n_topics=6, seed=0, details=details)
    note = topics_note(6, details, len(beats), True)
    assert note.startswith(f"asked for 6 topics, kept {len(beats)}: ")
    assert "near-duplicate topics were merged into" in note and "without --merge-topics" in note
    assert topics_note(6, details, 6, True) is None and topics_note(None, details, 2, True) is None


def test_the_command_line_passes_no_merge_topics():
    from corpuskit.cli import _topic_options, build_parser

    args = build_parser().parse_args(["run", "--db", "x.db", "--topics", "20", "--no-merge-topics"])
    assert _topic_options(args) == {"n_topics": 20, "merge_topics": False}
    assert "merge_topics" not in _topic_options(build_parser().parse_args(["run", "--db", "x.db"]))
    args = build_parser().parse_args(["run", "--db", "x.db", "--topics", "20", "--merge-topics"])
    assert _topic_options(args) == {"n_topics": 20, "merge_topics": True}
    with pytest.raises(SystemExit):
        build_parser().parse_args(["run", "--db", "x.db", "--merge-topics", "--no-merge-topics"])
