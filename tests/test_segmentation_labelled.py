"""Hashtag and handle segmentation: case boundaries first, capitalised names whole, a dictionary only in
the record's language; and a floor on the labelled list of real tags (tests/data)."""
from pathlib import Path

import pytest

from corpuskit.store import fulltext
from corpuskit.text import hashtags, segment_hashtag
from corpuskit.text.segmentation_eval import read_labelled, segmentation_scores

LABELLED = Path(__file__).parent / "data" / "segmentation_labelled.tsv"


@pytest.mark.parametrize("tag, words", [
    ("Laschet", ["Laschet"]), ("ArminLaschet", ["Armin", "Laschet"]), ("Hochwasser", ["Hochwasser"]),
    ("Frankreich", ["Frankreich"]), ("UgurSahin", ["Ugur", "Sahin"]),
    ("JeSuisCharlie", ["Je", "Suis", "Charlie"]), ("ABaerbock", ["A", "Baerbock"]),
    ("INEMexico", ["INE", "Mexico"]), ("EFEdeportes", ["EFE", "deportes"]),
    ("AMLOenMilenio", ["AMLO", "en", "Milenio"]), ("LaMañaneraDeAMLO", ["La", "Mañanera", "De", "AMLO"]),
    ("まいにちチクショー", ["まいにちチクショー"]),
])
def test_case_boundaries_first_and_a_capitalised_name_is_never_cut(tag, words):
    for language in (None, "de", "en", "es"):
        assert segment_hashtag(tag, language=language) == words


def test_a_dictionary_split_only_in_the_records_language(monkeypatch):
    assert segment_hashtag("hochwasser") == ["hochwasser"]                      # unknown: common words only
    assert segment_hashtag("climatechange", language="en-GB") == ["climate", "change"]
    assert segment_hashtag("climatechange") == ["climate", "change"]
    # a language without a word list (wordfreq absent, or no list for it): a one-case tag stays whole;
    # English falls back on wordninja's list
    monkeypatch.setattr(hashtags, "_language_costs", lambda language: None)
    hashtags.HashtagSegmenter._split_cached.cache_clear()
    try:
        assert segment_hashtag("hochwasser", language="en") == ["hoch", "wasser"]   # English list, as asked
        for language in ("de", "es"):
            assert segment_hashtag("climatechange", language=language) == ["climatechange"]
            assert segment_hashtag("heraldodemexico", language=language) == ["heraldodemexico"]
    finally:
        hashtags.HashtagSegmenter._split_cached.cache_clear()


def test_another_languages_word_list_splits_one_case_tags():
    pytest.importorskip("wordfreq")
    assert segment_hashtag("hochwasser", language="de") == ["hochwasser"]       # one German word: whole
    assert segment_hashtag("heraldodemexico", language="es") == ["heraldo", "de", "mexico"]
    assert segment_hashtag("lopezobrador_", language="es") == ["lopez", "obrador"]
    assert segment_hashtag("ENVIVO", language="es") == ["EN", "VIVO"]
    assert segment_hashtag("CDMX", language="es") == ["CDMX"]                   # capitals under six letters
    assert segment_hashtag("COVID19", language="es") == ["COVID19"]
    assert segment_hashtag("tinabrito1", language="es") == ["tina", "brito1"]
    assert segment_hashtag("universalqro", language="es") == ["universal", "qro"]   # never u n i ... letters
    assert segment_hashtag("MILENIOForos", language="es") == ["MILENIO", "Foros"]
    assert segment_hashtag("EFEdeportes", language="es") == ["EFE", "deportes"]


@pytest.mark.parametrize("tag, language, words", [
    ("justinbieber", "en", ["justin", "bieber"]),      # a cost per piece: not just in bieber
    ("teaparty", "en", ["tea", "party"]),              # listed (as a hashtag) but rare: its words win
    ("goodnight", "en", ["goodnight"]),                # a common word stays whole
    ("mashable", "en", ["mashable"]),                  # listed; mash able is not more probable by the margin
    ("markiplier", "en", ["markiplier"]),              # not mark i plier
    ("hochwasser", "en", ["hochwasser"]),              # unknown in English: not hoc hwa ss er
    ("teamjorchel", "en", ["teamjorchel"]),            # an unknown name stays whole (not team jor chel)
    ("FLEXTHURSDAY", "en", ["FLEX", "THURSDAY"]),      # capitals, six letters or more
    ("NASCAR", "en", ["NASCAR"]),
    ("Univ_espect", "es", ["Univ", "espect"]),         # not e spect
    ("CaféyNoticias", "es", ["Café", "y", "Noticias"]),  # a one-letter word left in lower case
    ("JoesPizza", "en", ["Joes", "Pizza"]),            # s is no word: the case piece stays whole
    ("cantwait", "en", ["cant", "wait"]),
    ("top100femalelies", "en", ["top100", "female", "lies"]),  # each run of letters split on its own
    ("girostart2014", "en", ["giro", "start", "2014"]),          # a year is a word of its own
    ("FLEXCREWgotti", "en", ["FLEX", "CREW", "gotti"]),        # a piece in capitals split as a tag would be
    ("SoundCloud", "en", ["SoundCloud"]),              # two capitalised pieces that spell a common word
    ("BlackBerry", "en", ["BlackBerry"]),
    ("FoxNews", "en", ["Fox", "News"]),                # listed as one word, but rarely
    ("SinEmbargoTV", "es", ["Sin", "Embargo", "TV"]),
    ("PorSiNoLoViste", "es", ["Por", "Si", "No", "Lo", "Viste"]),  # sino is a word; Si and No are short
])
def test_the_unigram_split_with_a_wordfreq_list(tag, language, words):
    pytest.importorskip("wordfreq")
    assert segment_hashtag(tag, language=language) == words


def test_handles_are_indexed_by_their_case_parts():
    tags = fulltext.document(None, "Danke @ABaerbock und #ArminLaschet", "de")[2].split()
    assert {"@ABaerbock", "Baerbock", "#ArminLaschet", "Armin", "Laschet"} <= set(tags)
    assert "chet" not in tags and "Las" not in tags


def test_accuracy_on_the_labelled_real_tags():
    rows = read_labelled(LABELLED)
    assert len(rows) >= 300 and {r["language"] for r in rows} == {"es", "en", "ja"}
    scores = segmentation_scores(rows)["scores"]
    n, exact, no_wrong_cut, strict = scores[("all", "all")]
    # measured without wordfreq 0.849 exact, 0.967 no wrong cut (benchmarks/bench_languages.py)
    assert no_wrong_cut >= 0.96 and exact >= 0.82 and strict <= exact
    assert scores[("es", "hashtag")][1] >= 0.90 and scores[("es", "hashtag")][2] >= 0.97


def test_accuracy_on_spanish_with_its_word_list():
    pytest.importorskip("wordfreq")
    scores = segmentation_scores(read_labelled(LABELLED))["scores"]
    # measured 0.960 exact and 0.991 no wrong cut (issue 41 asks for 0.95 exact)
    assert scores[("es", "hashtag")][1] >= 0.95 and scores[("es", "handle")][1] >= 0.90
    assert scores[("all", "all")][1] >= 0.955 and scores[("all", "all")][2] >= 0.985
    assert scores[("en", "handle")][1] >= 0.95 and scores[("en", "hashtag")][1] >= 0.95
