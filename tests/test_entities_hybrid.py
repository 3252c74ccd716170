"""The default entity extractor on tweets: whole names, hashtags and handles, promotion, merging."""
import json
import random
import sys
import types
import unicodedata
from importlib import resources

import pytest

from corpuskit.enrich.base import Mention
from corpuskit.enrich.crf import CrfTagger, decode, load_info, spans_from_tags, tokenize
from corpuskit.enrich.entities import SpacyExtractor
from corpuskit.query.name_keys import alias_key
from corpuskit.query.name_keys import entity_slug as slugify
from corpuskit.enrich.entity_extractor import HybridExtractor, aligned_display
from corpuskit.enrich.pipeline import make_extractor
from corpuskit.errors import ValidationError

# (author, day, text): written for these tests in the way vaccine tweets are written
TWEETS = [
    ("ana", "2021-03-01", "Great interview with Uğur Şahin on the #AstraZenecaBioNTech shot &amp; what comes next"),
    ("ben", "2021-03-01", "Thanks @BioNTech_Group for the jab! Arm is sore but fine"),
    ("cai", "2021-03-02", "Listening to Uğur Şahin and Katalin Karikó talk mRNA"),
    ("dee", "2021-03-02", "Karikó deserves the Nobel, says Uğur Şahin"),
    ("eli", "2021-03-03", "Why did Khamenei’s office ban US vaccines? Khamenei’s logic escapes me"),
    ("fay", "2021-03-03", "Khamenei's ban is politics, not science"),
    ("gus", "2021-03-04", "India rolls out Covaxin while Sputnik waits; will the NHS buy Covaxin?"),
    ("hal", "2021-03-04", "the NHS has done well, and Covaxin data looks fine"),
    ("ivy", "2021-03-05", "Russia says Sputnik is 91% effective; Covaxin trial results due"),
    ("jon", "2021-03-05", "Cathie Wood is buying biotech again. Cathie Wood loves mRNA"),
    ("kim", "2021-03-06", "Arm is sore after dose two. Deny it all you like"),
    ("lou", "2021-03-06", "Arm is sore, head aches. Deny everything"),
    ("max", "2021-03-07", "Arm is sore today. Deny, deny, deny"),
    ("ned", "2021-03-07", "my arm hurts, sore arm all day, the arm is fine now"),
    ("ana", "2021-03-08", "Sputnik and Covaxin approvals: the NHS view from Uğur Şahin? no, from Karikó"),
    ("ben", "2021-03-08", "Cathie Wood on the NHS and Sputnik, odd mix"),
    ("cai", "2021-03-09", "Khamenei’s speech today repeated the ban"),
    ("dee", "2021-03-09", "Cathie Wood says the AT&amp;T deal is off"),
    ("eli", "2021-03-10", "I read that Katalin Karikó spoke with Cathie Wood"),
    ("fay", "2021-03-10", "#AstraZenecaBioNTech supply to the NHS is steady, Sputnik is not"),
    ("gus", "2021-03-11", "Good thread on Karikó and Uğur Şahin by a science writer"),
    ("hal", "2021-03-11", "Khamenei’s aides and Karikó in one headline, wild"),
    ("ivy", "2021-03-12", "so Khamenei said no, and Karikó said science"),
    ("jon", "2021-03-12", "my arm is so sore lol"),
]


def fitted() -> HybridExtractor:
    return HybridExtractor().fit([t for _, _, t in TWEETS], authors=[a for a, _, _ in TWEETS],
                                 days=[d for _, d, _ in TWEETS])


@pytest.fixture(scope="module")
def extractor():
    return fitted()


def names(mentions):
    return {m.name: m for m in mentions}


def test_promotion_takes_repeated_proper_nouns_and_leaves_sentence_initial_words(extractor):
    promoted = {name for name, _ in extractor.promoted_.values()}
    for expected in ("Covaxin", "Sputnik", "Cathie Wood", "Uğur Şahin", "Khamenei", "Karikó"):
        assert expected in promoted, (expected, sorted(promoted))
    assert not {"Arm", "Deny", "Arm is sore"} & promoted
    assert "arm" not in extractor.promoted_ and "deny" not in extractor.promoted_
    assert extractor.promoted_[alias_key("Cathie Wood")] == ("Cathie Wood", "person")


def test_a_phrase_hashtag_is_never_promoted_and_a_name_tag_is():
    texts = [f"Day {i}: #GetVaccinated #ModernaVaccine #CovidVaccine #MikeBrown, then Get Vaccinated" for i in range(6)]
    fit = HybridExtractor(crf=False).fit(texts, authors=list("abcdef"), days=[f"2021-01-0{i}" for i in range(1, 7)])
    assert not {"getvaccinated", "modernavaccine", "covidvaccine"} & set(fit.promoted_)
    assert fit.promoted_["mikebrown"][0] == "MikeBrown"
    assert "GetVaccinated" not in {m.name for m in fit.extract("Get Vaccinated today")}


def test_promotion_needs_distinct_authors_and_days():
    texts = ["Zentrova launched today, Zentrova is fast, we tried Zentrova again"] * 6
    one_author = HybridExtractor().fit(texts, authors=["a"] * 6, days=[f"2021-01-0{i}" for i in range(1, 7)])
    assert "zentrova" not in one_author.promoted_
    one_day = HybridExtractor().fit(texts, authors=list("abcdef"), days=["2021-01-01"] * 6)
    assert "zentrova" not in one_day.promoted_
    spread = HybridExtractor().fit(texts, authors=list("abcdef"), days=[f"2021-01-0{i}" for i in range(1, 7)])
    assert spread.promoted_["zentrova"][0] == "Zentrova"
    off = HybridExtractor(promote=False).fit(texts, authors=list("abcdef"),
                                             days=[f"2021-01-0{i}" for i in range(1, 7)])
    assert off.promoted_ == {}
    with pytest.raises(ValidationError, match="authors"):
        HybridExtractor().fit(texts, authors=["a"])


def test_tweets_come_out_with_whole_names_and_resolved_tags(extractor):
    found = [extractor.extract(t) for _, _, t in TWEETS]
    first = names(found[0])
    # the CRF retrained on WNUT 2017 + BTC (issue 44) marks Uğur Şahin a person in one text of five, below
    # the two-vote rule; "Uğur", a first name of the world list (not of the US Census), makes him a person
    assert "Uğur Şahin" in first and first["Uğur Şahin"].surface == "Uğur Şahin"
    assert first["Uğur Şahin"].type == "person"
    assert {"AstraZeneca", "BioNTech"} <= set(first)  # from #AstraZenecaBioNTech (Pfizer is a demo name: not in the gazetteers)
    assert first["AstraZeneca"].surface == "#AstraZenecaBioNTech"
    assert names(found[1])["BioNTech"].surface == "@BioNTech_Group"
    assert "Arm" not in names(found[1]) and "Arm" not in names(found[10])
    third = names(found[2])
    assert "Katalin Karikó" in third and "Uğur Şahin" in third and third["Katalin Karikó"].type == "person"
    assert "Karikó" in names(found[3])
    khamenei = names(found[4])["Khamenei"]
    assert khamenei.mention_count == 2 and khamenei.aliases == ("Khamenei",)
    assert "Khamenei" in names(found[5])
    assert {"Covaxin", "Sputnik", "NHS"} <= set(names(found[6]))
    assert names(found[6])["Covaxin"].mention_count == 2
    assert "Cathie Wood" in names(found[9])
    att = names(found[17])
    assert "AT&T" in att
    for mentions in found:
        for m in mentions:
            assert "&amp" not in m.name and "&amp" not in m.surface and "U" != m.name
            assert m.key == slugify(m.name)


def test_positions_point_into_the_raw_text(extractor):
    text = "Why did Khamenei’s office ban it? Ask Uğur Şahin &amp; #AstraZenecaBioNTech, said AT&amp;T"
    found = names(extractor.extract(text))
    assert [text[p:p + 8] for p in found["Khamenei"].positions] == ["Khamenei"]
    assert text[found["Uğur Şahin"].positions[0]:].startswith("Uğur Şahin")
    assert text[found["AstraZeneca"].positions[0]:].startswith("#AstraZenecaBioNTech")
    assert text[found["AT&T"].positions[0]:].startswith("AT&amp;T")
    clean, offsets = aligned_display("a\u2019s &amp; b")
    assert clean == "a's & b" and offsets == [0, 1, 2, 3, 4, 9, 10]


def test_surface_forms_merge_under_one_slug_deterministically(extractor):
    text = "NHS staff, #NHS heroes, the NHS's budget and @NHS too"
    found = extractor.extract(text)
    nhs = [m for m in found if m.key == "nhs"]
    assert len(nhs) == 1 and nhs[0].mention_count == 4
    assert {alias_key(a) for a in nhs[0].aliases} == {"nhs"}
    assert found == extractor.extract(text)
    shuffled = list(TWEETS)
    random.Random(3).shuffle(shuffled)
    again = HybridExtractor().fit([t for _, _, t in shuffled], authors=[a for a, _, _ in shuffled],
                                  days=[d for _, d, _ in shuffled])
    assert again.promoted_ == extractor.promoted_
    assert [again.extract(t) for _, _, t in TWEETS] == [extractor.extract(t) for _, _, t in TWEETS]


def test_pickles_without_the_tagger(extractor):
    import pickle

    copy = pickle.loads(pickle.dumps(extractor))
    assert copy.promoted_ == extractor.promoted_
    assert copy.extract(TWEETS[6][2]) == extractor.extract(TWEETS[6][2])


def test_crf_model_loads_from_package_data():
    folder = resources.files("corpuskit.enrich").joinpath("models")
    model = folder.joinpath("wnut17_crf.crfsuite")
    with resources.as_file(model) as path:
        assert path.stat().st_size < 10_500_000  # 9.8 MB since it learned from WNUT 2017 and BTC (2.0 MB before)
    info = load_info()
    assert "CC-BY 4.0" in info["data"] and 0 < info["max_outside"] <= 1
    tagger = CrfTagger()
    words = [t[2] for t in tokenize("Taylor Swift played Madison Square Garden in New York last night")]
    spans = tagger.spans(words)
    labels = {words[a]: label for a, _, label, _ in spans}
    assert labels.get("Taylor") == "person"
    assert all(0 <= conf <= 1 for *_, conf in spans)
    assert "B-person" in tagger.all_labels_


def test_tokenizer_keeps_unicode_names_tags_and_possessives():
    words = [t[2] for t in tokenize("Uğur Şahin’s #PfizerBioNTech @BioNTech_Group don't https://t.co/x1")]
    assert words == ["Uğur", "Şahin", "’s", "#PfizerBioNTech", "@BioNTech_Group", "do", "n't",
                     "https://t.co/x1"]


def test_decoding_spans():
    assert spans_from_tags(["B-person", "I-person", "O", "I-location"]) == [(0, 1, "person"), (3, 3, "location")]
    marg = [{"O": 0.2, "B-person": 0.7, "I-person": 0.1}, {"O": 0.6, "B-person": 0.1, "I-person": 0.3},
            {"O": 0.99, "B-person": 0.005, "I-person": 0.005}]
    assert decode(["B-person", "O", "O"], marg, 1.0) == [(0, 0, "person", pytest.approx(0.8))]
    assert decode(["B-person", "O", "O"], marg, 0.7) == [(0, 1, "person", pytest.approx(0.4))]


def test_extractor_switch_by_name_and_object():
    assert isinstance(make_extractor(None), HybridExtractor)
    assert type(make_extractor("gazetteer")).__name__ == "GazetteerExtractor"
    assert isinstance(make_extractor("spacy"), SpacyExtractor)
    with pytest.raises(ValidationError, match="extractor must be one of"):
        make_extractor("bert")
    with pytest.raises(ValidationError, match="extract_many"):
        make_extractor(object())


def test_spacy_switch_with_a_fake_spacy(monkeypatch):
    class Ent:
        def __init__(self, text, label, start):
            self.text, self.label_, self.start_char = text, label, start

    class Nlp:
        def pipe(self, texts, batch_size):
            for text in texts:
                ents = []
                for word, label in (("Karikó", "PERSON"), ("Pfizer's", "ORG"), ("Mainz", "GPE")):
                    if word in text:
                        ents.append(Ent(word, label, text.index(word)))
                yield types.SimpleNamespace(ents=ents)

    fake = types.ModuleType("spacy")
    fake.load = lambda model, disable: Nlp()
    monkeypatch.setitem(sys.modules, "spacy", fake)
    found = make_extractor("spacy").extract("Karikó met Pfizer's team in Mainz")
    assert [(m.name, m.type) for m in found] == [("Karikó", "person"), ("Pfizer", "org"), ("Mainz", "place")]
    assert all(isinstance(m, Mention) for m in found)


def test_enrich_promotes_across_the_corpus_and_reuses_it_incrementally(corpus):
    records = [{"source": "twitter", "sourceId": str(i), "author": a, "contentText": t,
                "publishedAt": f"{d}T12:00:00Z"} for i, (a, d, t) in enumerate(TWEETS)]
    corpus.add_records(records)
    corpus.enrich(progress=False)
    rows = {r["name"]: r["type"] for r in corpus.conn.execute(
        "SELECT name, type FROM entities WHERE mention_count > 0")}
    assert {"Covaxin", "Sputnik", "Cathie Wood", "Uğur Şahin", "AstraZeneca", "BioNTech", "NHS"} <= set(rows)
    assert "Arm" not in rows and "Deny" not in rows and not any("&amp" in n for n in rows)
    saved = json.loads(corpus.conn.execute("SELECT settings FROM models WHERE name = 'entities'").fetchone()[0])
    assert "covaxin" in saved["promoted"]
    corpus.add_records([{"source": "twitter", "sourceId": "new", "author": "zed",
                         "contentText": "Covaxin is here", "publishedAt": "2021-03-11T09:00:00Z"}])
    assert corpus.enrich(progress=False)["recordsEnriched"] == 1
    got = corpus.conn.execute("SELECT e.name FROM mentions m JOIN entities e ON e.id = m.entity_id "
                              "JOIN records r ON r.id = m.record_id WHERE r.source_id = 'new'").fetchall()
    assert [r[0] for r in got] == ["Covaxin"]


@pytest.mark.parametrize("text", ["", None, "   ", "!!!???", "https://t.co/abc", "@a @b #c", "&amp;&amp;amp;",
                                  "\u200b\u200bApple\u200b is here", "e\u0301cole Macron visits Paris 🇫🇷🔥",
                                  "\n\n\nTitle\n\nBody with OpenAI", "a" * 3000])
def test_odd_inputs_give_valid_positions(extractor, text):
    for m in extractor.extract(text):
        for pos in m.positions:
            assert 0 <= pos < len(text)
            # the base letter: the raw text may write "é" decomposed ("e" + U+0301), the surface composed
            first = unicodedata.normalize("NFD", m.surface)[:1].lower()
            assert text[pos:].lstrip("\u200b")[:1].lower() in (first, "@", "#")


def test_headlines_and_lower_case_words_do_not_become_entities():
    x = HybridExtractor()
    found = names(x.extract("Newborn Brain Function Is Affected by Fetal Exposure to Serotonin"))
    assert "Newborn Brain Function" not in found and "Fetal Exposure" not in found
    found = names(x.extract("we went down to the sea and had coffee"))
    assert not found
