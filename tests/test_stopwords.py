"""Stop words of the corpus's languages (stopwords-iso) leave the shared vocabulary; English's always do."""
import pickle

from corpuskit.text import term_analyzer, term_tokens
from corpuskit.text.stopwords import (available_languages, corpus_languages, stop_words,
                                      vocabulary_languages)

SPANISH = "La vacuna de la covid llega a los centros de salud"
GERMAN = "Die Regierung hat das Hochwasser nicht gesehen"


def test_the_thirty_most_used_languages_on_social_media_have_a_list():
    top = {"en", "ja", "es", "pt", "ar", "th", "ko", "fr", "tr", "id", "ru", "de", "it", "tl", "hi", "fa",
           "ur", "pl", "nl", "zh", "ms", "uk", "sv", "el", "ro", "cs", "hu", "he", "vi", "ca"}
    assert top <= available_languages()
    assert {"de", "la", "los", "a"} <= stop_words(("es",)) and {"die", "das", "nicht", "hat"} <= stop_words(("de",))


def test_a_languages_function_words_leave_the_vocabulary_only_where_it_is_a_corpus_language():
    assert {"la", "los"} <= set(term_tokens(SPANISH))                # English stop words only
    with vocabulary_languages(["es"]):
        assert term_tokens(SPANISH) == ["vacuna", "covid", "llega", "centros", "salud"]
    with vocabulary_languages(["de", "en"]) as codes:
        assert codes == ("de",)
        assert term_tokens(GERMAN) == ["regierung", "hochwasser", "gesehen"]
        assert term_tokens("We will die") == []                       # "will" and "die" are German's
    assert "die" in term_tokens("We will die")                         # an English corpus keeps them


def test_an_analyzer_keeps_the_languages_it_was_made_with():
    with vocabulary_languages(["es"]):
        analyse = term_analyzer((1, 1))
    assert "los" not in analyse(SPANISH)
    assert pickle.loads(pickle.dumps(analyse))(SPANISH) == analyse(SPANISH)
    assert "los" in term_analyzer((1, 1))(SPANISH)


def test_languages_under_two_percent_are_left_out():
    assert corpus_languages({"es": 960, "en": 30, "ca": 10, "und": 200}) == ("en", "es")


def test_the_analyse_stage_run_alone_reads_without_the_corpus_languages_stop_words(tmp_path, monkeypatch):
    """``Corpus.analyse()`` on its own (not only :meth:`Corpus.run`) reads the corpus's languages."""
    from corpuskit import open_corpus
    from corpuskit.analysis import pipeline
    from corpuskit.text.stopwords import current_languages
    from tests.signal_fixture import build_fixture

    c = open_corpus(tmp_path / "c.db")
    build_fixture(c, events=False)
    with c.transaction():
        c.conn.execute("UPDATE records SET language = CASE WHEN id % 2 THEN 'es' ELSE 'en' END")
    seen = []
    monkeypatch.setitem(pipeline.RUNNERS, "signals", lambda *args: seen.append(current_languages()) or {})
    c.analyse(progress=False, steps=["signals"])
    c.close()
    assert seen == [("es",)] and current_languages() == ()
