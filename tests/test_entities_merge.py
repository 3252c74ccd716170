"""How the default extractor merges the CRF with known names, and the CRF's features and training.

The merge tests replace the CRF by a stub that returns fixed spans, so they pin the merge rules
whatever the shipped model says.
"""
import json

import pytest

from build_lexicon import build  # tools/ (see tests/conftest.py), as is train_crf
from corpuskit.enrich.crf import (Featurizer, build_featurizer, is_demonym, load_demonyms, load_lexicon,
                                  phrase_key, tokenize)
from corpuskit.enrich.entity_extractor import HybridExtractor
from train_crf import cross_validate, folds, main as train_main


class StubTagger:
    """Returns ``spans[words joined by spaces]``: ``[(surface start word, end word, label, conf)]``."""

    def __init__(self, spans):
        self.table = spans

    def spans(self, words, max_outside=None):
        out = []
        for first, last, label, conf in self.table.get(" ".join(words), []):
            out.append((words.index(first), words.index(last), label, conf))
        return out


def with_stub(spans) -> HybridExtractor:
    x = HybridExtractor(promote=False)
    x._parts()
    x.tagger_ = StubTagger(spans)
    x.memo_ = {}
    return x


def found(x, text):
    return {(m.surface, m.name, m.type) for m in x.extract(text)}


def test_a_confident_crf_span_around_a_known_name_wins():
    text = "Just got the Huawei Mate 9 today"
    assert found(with_stub({text: [("Huawei", "9", "product", 0.9)]}), text) == {
        ("Huawei Mate 9", "Huawei Mate 9", "product")}
    # unsure: the gazetteer's name and type
    assert found(with_stub({text: [("Huawei", "9", "product", 0.3)]}), text) == {("Huawei", "Huawei", "org")}


def test_the_same_span_takes_the_gazetteer_name_and_a_longer_known_name_wins():
    text = "I love my iphone and Google Maps"
    x = with_stub({text: [("iphone", "iphone", "product", 0.9), ("Google", "Google", "corporation", 0.9)]})
    assert found(x, text) == {("iphone", "iPhone", "product"), ("Google Maps", "Google Maps", "product")}


def test_known_names_fill_in_where_the_crf_has_nothing():
    text = "YouTube and Hugging Face shipped new models"
    assert found(with_stub({}), text) == {("YouTube", "YouTube", "org"), ("Hugging Face", "Hugging Face", "org")}


def test_demonyms_and_lone_generic_heads_are_not_entities():
    text = "An American firm and some Russians at the University met"
    x = with_stub({text: [("American", "American", "group", 0.9), ("Russians", "Russians", "group", 0.9),
                          ("University", "University", "location", 0.9)]})
    assert found(x, text) == set()
    text = "I am flying American Airlines again today"
    assert found(with_stub({text: [("American", "Airlines", "corporation", 0.9)]}), text) == {
        ("American Airlines", "American Airlines", "org")}


def test_lower_case_spans_need_a_known_name_and_an_opening_common_word_needs_confidence():
    text = "flying to china with alex by the sea"
    spans = {text: [("china", "china", "location", 0.9), ("alex", "alex", "person", 0.9),
                    ("sea", "sea", "location", 0.9)]}
    out = found(with_stub(spans), text)
    assert ("china", "China", "place") in out  # the gazetteer knows it
    assert ("alex", "alex", "person") in out  # a first name in the lexicon
    assert not any(s == "sea" for s, _, _ in out)  # an ordinary word
    # case alone drops no span (cross-validation on WNUT train rejected that guard): an unsure
    # lower-case known name stays, the ordinary word still goes
    unsure = {text: [(a, b, label, 0.3) for a, b, label, _ in spans[text]]}
    assert found(with_stub(unsure), text) == {("china", "China", "place"), ("alex", "alex", "person")}
    # one common word opening a sentence needs lower_confidence (0.5)
    text = "Arm is sore today"
    assert found(with_stub({text: [("Arm", "Arm", "corporation", 0.3)]}), text) == set()
    assert {s for s, _, _ in found(with_stub({text: [("Arm", "Arm", "corporation", 0.9)]}), text)} == {"Arm"}


def test_an_article_stays_only_when_the_crf_is_sure():
    text = "watching The Three Stooges tonight"
    assert found(with_stub({text: [("The", "Stooges", "creative-work", 0.9)]}), text) == {
        ("The Three Stooges", "The Three Stooges", "product")}
    assert found(with_stub({text: [("The", "Stooges", "creative-work", 0.4)]}), text) == {
        ("Three Stooges", "Three Stooges", "product")}


def test_demonym_list_and_plurals():
    words = load_demonyms()
    assert {"american", "russian", "muslim"} <= words and "america" not in words
    assert is_demonym("americans", words) and is_demonym("russian's", words)
    assert not is_demonym("america", words) and not is_demonym("amazon", words)


def test_features_mark_phrases_lexicon_names_demonyms_and_case():
    f = build_featurizer(frozenset({"the"}))
    words = [t[2] for t in tokenize("flying to new york with emily , the americans said")]
    feats = dict(zip(words, f.sentence(words)))
    assert "pB=lex-place" in feats["new"] and "pI=lex-place" in feats["york"]
    assert "lex=fname" in feats["emily"] and "fname" in feats["emily"]
    assert "demonym" in feats["americans"] and "common" in feats["the"]
    assert "case=lower" in feats["flying"]
    assert "-1|0=with|emily" in feats["emily"]
    title = Featurizer().sentence(["Big", "News", "From", "Apple", "Today"])
    assert "case=title" in title[0]
    assert phrase_key("New York's") == "newyorks"


def test_lexicon_ships_names_and_places():
    rows = load_lexicon()
    tags = {tag for _, tag in rows}
    assert tags == {"fname", "lname", "place"}
    assert ("London", "place") in rows and ("Emily", "fname") in rows


def test_build_lexicon_from_name_and_place_files(tmp_path):
    names, geo = tmp_path / "names", tmp_path / "geo"
    names.mkdir()
    geo.mkdir()
    (names / "dist.male.first").write_text("JAMES 3.3 3.3 1\nJOHN 3.2 6.5 2\n")
    (names / "dist.female.first").write_text("MARY 2.6 2.6 1\n")
    (names / "dist.all.last").write_text("SMITH 1.0 1.0 1\nJOHNSON 0.8 1.8 2\n")
    (geo / "countries.json").write_text(json.dumps({"FR": {"name": "France", "capital": "Paris"}}))
    (geo / "us_states.json").write_text(json.dumps({"OH": {"name": "Ohio"}}))
    (geo / "continents.json").write_text(json.dumps({"EU": {"name": "Europe"}}))
    (geo / "cities15000.json").write_text(json.dumps({
        "1": {"name": "Lyon", "population": 500_000}, "2": {"name": "Tiny", "population": 20_000},
        "3": {"name": "Saint-Étienne", "population": 170_000}}))
    rows = build(names, geo, first=2, last=1)
    assert ("James", "fname") in rows and ("Mary", "fname") in rows and ("John", "fname") not in rows
    assert ("Smith", "lname") in rows and ("Johnson", "lname") not in rows
    assert {("France", "place"), ("Paris", "place"), ("Ohio", "place"), ("Europe", "place"),
            ("Lyon", "place"), ("Saint-Étienne", "place")} <= set(rows)
    assert ("Tiny", "place") not in rows


TINY = [("I met Emily Smith in Paris".split(), ["O", "O", "B-person", "I-person", "O", "B-location"]),
        ("Apple sells the iPhone".split(), ["B-corporation", "O", "O", "B-product"]),
        ("we love Lyon and John".split(), ["O", "O", "B-location", "O", "B-person"])]


def test_folds_partition_the_documents():
    parts = folds(10, 3)
    assert sorted(i for p in parts for i in p) == list(range(10)) and len(parts) == 3
    assert parts == folds(10, 3)  # seeded


def test_cross_validation_and_training_read_only_train(tmp_path):
    docs = TINY * 4
    figures = cross_validate(docs, 0.01, 0.05, 2, 20, thresholds=(1.0, 0.7))
    assert set(figures) == {1.0, 0.7}
    assert 0 <= figures[1.0]["typed"]["f1"] <= 1
    data = tmp_path / "wnut"
    data.mkdir()
    lines = "\n\n".join("\n".join(f"{w}\t{t}" for w, t in zip(words, tags)) for words, tags in docs)
    (data / "train.conll").write_text(lines + "\n")
    (data / "dev.conll").write_text(lines + "\n")
    out = tmp_path / "model"
    assert train_main([str(data), "--out", str(out), "--c1", "0.01", "--c2", "0.05", "--folds", "2",
                       "--iterations", "20", "--max-outside", "1.0"]) == 0
    info = json.loads((out / "wnut17_crf.json").read_text())
    assert info["fitted_on"] == "WNUT-17 train (train.conll)" and info["chosen_by"].startswith("2-fold")
    assert [(r["name"], r["licence"], r["documents"]) for r in info["training_sets"]] == [
        ("WNUT-17 train", "CC-BY 4.0", len(docs))]
    assert "dev_figures" in info and "test_figures" not in info
    assert (out / "wnut17_crf.crfsuite").stat().st_size > 0


@pytest.mark.parametrize("text", ["", "American", "the Americans", "#American", "University"])
def test_demonym_and_fragment_texts_alone_give_nothing(text):
    x = HybridExtractor(promote=False)
    assert [m for m in x.extract(text) if m.surface.lstrip("#") in ("American", "Americans", "University")] == []


def test_tags_resolve_only_to_the_names_they_are_made_of():
    x = HybridExtractor(promote=False)
    x._parts()
    assert x._resolve_tag("#AstraZenecaBioNTech") == [("AstraZeneca", "org"), ("BioNTech", "org")]
    assert x._resolve_tag("@BioNTech_Group") == [("BioNTech", "org")]
    assert x._resolve_tag("@thisisiceland") == [] and x._resolve_tag("#Deals_US") == []
    assert x._resolve_tag("@amandaguido") == []  # no name guessed from a handle's words


def test_gazetteer_rules_fill_in_where_the_crf_found_nothing():
    text = "The new album Will Be Released on Friday says Astrid Lindqvist"
    # "Will" is a first name and a common word: that guess is left out; "Astrid Lindqvist" fills in
    assert found(with_stub({}), text) == {("Astrid Lindqvist", "Astrid Lindqvist", "person")}
    x = with_stub({text: [("Astrid", "Astrid", "person", 0.9)]})
    assert found(x, text) == {("Astrid", "Astrid", "person")}  # the CRF's span stands
    x = HybridExtractor(promote=False, rules_fill=False)
    x._parts()
    x.tagger_, x.memo_ = StubTagger({}), {}
    assert found(x, text) == set()


def test_crf_spans_are_cut_at_punctuation():
    text = "On Max Perkins , One of the editors"
    x = with_stub({text: [("Max", "One", "person", 0.9)]})
    assert found(x, text) == {("Max Perkins", "Max Perkins", "person")}


def test_lower_case_tails_multiword_demonyms_and_head_types():
    text = "Read the email the whole Xbox team received"
    assert found(with_stub({text: [("Xbox", "team", "product", 0.9)]}), text) == {("Xbox", "Xbox", "product")}
    text = "subtitles in South Asian scripts"
    assert found(with_stub({text: [("South", "Asian", "location", 0.9)]}), text) == set()
    text = "Back door found in Allwinner Linux kernels"
    # the CRF's longer span wins; the known name at its end is its head and gives the type
    assert found(with_stub({text: [("Allwinner", "Linux", "location", 0.9)]}), text) == {
        ("Allwinner Linux", "Allwinner Linux", "product")}


def test_days_months_and_post_conventions_are_never_promoted():
    texts = [f"RT {who}: Friday plans with Zorblax Labs and the Qwertyx team" for who in "abcdefgh"]
    x = HybridExtractor().fit(texts, authors=list("abcdefgh"), days=[f"2021-01-0{i + 1}" for i in range(8)])
    assert "rt" not in x.promoted_ and "friday" not in x.promoted_
    assert "qwertyx" in x.promoted_


def test_a_lower_case_word_before_a_name_is_trimmed():
    text = "how to land Boeing 737 planes"
    assert found(with_stub({text: [("land", "Boeing", "corporation", 0.9)]}), text) == {
        ("Boeing", "Boeing", "org")}
