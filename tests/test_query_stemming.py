"""An optional Snowball stemmer per language for queries: a name or word found however it is inflected."""
import pytest

from corpuskit import open_corpus
from corpuskit.errors import ValidationError
from corpuskit.text.stemming import LANGUAGES, stem

ROWS = [
    {"sourceId": "1", "contentText": "Laschets Rede im Landtag", "publishedAt": "2021-07-01"},
    {"sourceId": "2", "contentText": "Armin Laschet besucht das Hochwassergebiet", "publishedAt": "2021-07-02"},
    {"sourceId": "3", "contentText": "Danke @ArminLaschet und #Laschet", "publishedAt": "2021-07-03"},
    {"sourceId": "4", "contentText": "Las vacunas llegan; la vacunación empieza", "publishedAt": "2021-07-04"},
    {"sourceId": "5", "contentText": "Una vacuna más", "publishedAt": "2021-07-05"},
]


@pytest.fixture
def corpus():
    c = open_corpus(":memory:")
    c.add_records(ROWS, source="forum")
    return c


def ids(corpus, q, **options):
    return sorted(corpus.query(q, **options).records()["sourceId"])


def test_a_name_is_found_with_its_genitive_only_with_the_stemmer(corpus):
    assert ids(corpus, "laschet") == ["2", "3"]                   # word, handle part, hashtag
    assert ids(corpus, "laschet", stem="de") == ["1", "2", "3"]   # and "Laschets"


@pytest.mark.parametrize("language, word, inflected", [
    ("de", "Laschets", "laschet"), ("es", "vacunas", "vacun"), ("en", "vaccines", "vaccin"),
    ("fr", "élections", "elect"), ("ru", "вакцины", "вакцин"), ("pt", "vacinas", "vacin"),
])
def test_one_stemmer_per_language(language, word, inflected):
    assert stem(word, language) == inflected


def test_spanish_inflections(corpus):
    assert ids(corpus, "vacunas") == ["4"]
    assert ids(corpus, "vacunas", stem="es") == ["4", "5"]
    assert ids(corpus, '"la vacunación"', stem="es") == ["4"]      # a phrase is matched as written


def test_an_unknown_language_is_refused():
    assert {"de", "es", "en", "fr", "ru", "it", "pt", "tr", "ar", "nl"} <= set(LANGUAGES)
    with pytest.raises(ValidationError, match="no stemmer for the language 'ja'; stemmers exist for ar, "):
        open_corpus(":memory:").query("x", stem="ja")
