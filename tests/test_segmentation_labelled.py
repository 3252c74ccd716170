"""Hashtag and handle segmentation: case boundaries first, capitalised names whole, a dictionary only in
the record's language; and a floor on the labelled list of real tags (tests/data)."""
from pathlib import Path

import pytest

from corpuskit.store import fulltext
from corpuskit.text import segment_hashtag
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


def test_a_dictionary_split_only_in_the_records_language():
    assert segment_hashtag("hochwasser", language="en") == ["hoch", "wasser"]   # English list, as asked
    assert segment_hashtag("hochwasser", language="de") == ["hochwasser"]       # no German list: whole
    assert segment_hashtag("hochwasser") == ["hochwasser"]                      # unknown: common words only
    assert segment_hashtag("climatechange", language="de") == ["climatechange"]
    assert segment_hashtag("climatechange", language="en-GB") == ["climate", "change"]
    assert segment_hashtag("climatechange") == ["climate", "change"]


def test_handles_are_indexed_by_their_case_parts():
    tags = fulltext.document(None, "Danke @ABaerbock und #ArminLaschet", "de")[2].split()
    assert {"@ABaerbock", "Baerbock", "#ArminLaschet", "Armin", "Laschet"} <= set(tags)
    assert "chet" not in tags and "Las" not in tags


def test_accuracy_on_the_labelled_real_tags():
    rows = read_labelled(LABELLED)
    assert len(rows) >= 300 and {r["language"] for r in rows} == {"es", "en", "ja"}
    scores = segmentation_scores(rows)["scores"]
    n, exact, no_wrong_cut = scores[("all", "all")]
    # measured 0.814 exact and 0.966 no wrong cut (benchmarks/bench_languages.py); the exact figure is held
    # down by one-case Spanish handles (lopezobrador) that no Spanish word list splits yet
    assert no_wrong_cut >= 0.96 and exact >= 0.80
    assert scores[("es", "hashtag")][1] >= 0.89 and scores[("es", "hashtag")][2] >= 0.97
