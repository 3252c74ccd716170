"""Languages: detection, English-only stages skipping what they cannot score, Unicode tokens."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from corpuskit import open_corpus
from corpuskit.enrich.base import record_text
from corpuskit.enrich.language import LanguageDetector, covers
from corpuskit.enrich.pipeline import sentiment_and_entities
from corpuskit.enrich.sentiment import VaderScorer
from corpuskit.errors import ValidationError
from corpuskit.ingest.records import normalise
from corpuskit.text.unicode import fold, split_cjk, word_tokens

FIXTURE = Path(__file__).parent / "fixtures" / "multilingual_posts.jsonl"


@pytest.fixture(scope="module")
def mixed(tmp_path_factory):
    corpus = open_corpus(tmp_path_factory.mktemp("lang") / "mixed.db")
    corpus.import_file(FIXTURE)
    summary = corpus.enrich(progress=False)
    yield corpus, summary
    corpus.close()


def _truth():
    return {json.loads(line)["sourceId"]: json.loads(line)["sourceId"].split("-")[0]
            for line in FIXTURE.open(encoding="utf-8")}


def test_fixture_languages_detected(mixed):
    corpus, summary = mixed
    got = dict(corpus.conn.execute("SELECT source_id, language FROM records").fetchall())
    truth = _truth()
    assert len(truth) == 40 and set(truth.values()) == {"en", "es", "de", "tr", "ru", "el", "ja"}
    right = sum(got[k] == v for k, v in truth.items())
    assert right >= 38, {k: got[k] for k, v in truth.items() if got[k] != v}
    assert summary["languageExamined"] == 40
    assert summary["languages"]["en"] == 12


def test_english_scored_others_null_and_counted(mixed):
    corpus, summary = mixed
    rows = corpus.conn.execute("SELECT r.language, e.sentiment_score, e.sentiment_label, e.entities_skipped "
                               "FROM records r JOIN enrichment e ON e.record_id = r.id").fetchall()
    english = [r for r in rows if r[0] == "en"]
    other = [r for r in rows if r[0] not in ("en", "und")]
    assert all(r[1] is not None and r[2] is not None and r[3] == 0 for r in english)
    assert sum(r[1] != 0 for r in english) >= 8  # the scorer really scored them
    assert other and all(r[1] is None and r[2] is None and r[3] == 1 for r in other)
    assert summary["skipped"] == {"sentiment": len(other), "entities": len(other)}
    assert summary["nonEnglishShare"] == pytest.approx(len(other) / 40)
    mentions = corpus.conn.execute("SELECT count(*) FROM mentions m JOIN records r ON r.id = m.record_id "
                                   "WHERE r.language NOT IN ('en', 'und')").fetchone()[0]
    assert mentions == 0
    manifest = corpus.manifest()
    assert manifest["languages"]["skipped"] == {"sentiment": len(other), "entities": len(other)}
    assert manifest["languages"]["records"]["ru"] == 5


def test_incremental_run_adds_nothing(mixed):
    corpus, _ = mixed
    again = corpus.enrich(progress=False)
    assert again["recordsEnriched"] == 0 and again["skipped"] == {"sentiment": 0, "entities": 0}


@pytest.mark.parametrize("query,word", [
    ("Şahin", "şahin"), ("Sahin", "şahin"), ("метро", "метро"), ("μετρό", "μετρό"), ("μετρο", "μετρό"),
    ("vacunación", "vacunación"), ("vacunacion", "vacunación"),
    ("東京で", "東京")])  # a query has 3 characters at least; Japanese is matched by character pairs
def test_semantic_search_finds_non_latin_words(mixed, query, word):
    from corpuskit.search import search

    corpus, _ = mixed
    hits = search(corpus, query, limit=2)
    assert len(hits.rows) == 2
    for hit in hits.rows:  # each word is in exactly two records: both come first
        text = corpus.conn.execute("SELECT content_text FROM records WHERE id = ?", (hit["id"],)).fetchone()[0]
        assert word in text.lower(), (query, text)


def test_given_language_is_kept_and_normalised(tmp_path):
    assert normalise({"source": "bluesky", "contentText": "hola", "language": "es-MX",
                      "publishedAt": "2024-01-01T00:00:00Z"})["language"] == "es"
    assert normalise({"source": "bluesky", "contentText": "x",
                      "publishedAt": "2024-01-01T00:00:00Z"})["language"] == "und"
    corpus = open_corpus(tmp_path / "c.db")
    path = tmp_path / "given.jsonl"
    path.write_text(json.dumps({"source": "bluesky", "sourceId": "1", "language": "de",
                                "contentText": "This text is plainly English but the file says German",
                                "publishedAt": "2024-01-01T00:00:00Z"}) + "\n", encoding="utf-8")
    corpus.import_file(path)
    summary = corpus.enrich(progress=False)
    assert summary["languageExamined"] == 0  # the file's word is taken, not second-guessed
    assert corpus.conn.execute("SELECT language FROM records").fetchone()[0] == "de"
    assert corpus.conn.execute("SELECT sentiment_score FROM enrichment").fetchone()[0] is None


def test_detector_short_and_empty_texts_are_undetermined():
    detector = LanguageDetector()
    assert detector.detect("") == "und"
    assert detector.detect("https://example.com/x 123 !!") == "und"
    assert detector.detect("ok") == "und"
    assert detector.detect("Die Stadtverwaltung hat heute die neuen Radwege eröffnet") == "de"
    assert all(len(code) == 2 for code in detector.fit().languages_)
    with pytest.raises(ValidationError, match="min_confidence"):
        LanguageDetector(min_confidence=2).fit()


def test_default_tweet_model_labels_english_by_argmax_and_is_recorded(mixed):
    """The default scorer is the shipped tweet model: English records carry its argmax labels, the
    others none, and the manifest names the model and the languages it covers."""
    from corpuskit.enrich.tweet_model import TweetSentimentScorer

    corpus, summary = mixed
    rows = corpus.conn.execute("SELECT r.title, r.content_text, r.language, e.sentiment_score, e.sentiment_label "
                               "FROM records r JOIN enrichment e ON e.record_id = r.id ORDER BY r.id").fetchall()
    scored = [r for r in rows if r[2] in ("en", "und")]
    scores, labels = TweetSentimentScorer().score_and_label_many([record_text(r[0], r[1]) for r in scored])
    assert [r[4] for r in scored] == labels
    assert [r[3] for r in scored] == pytest.approx([round(float(s), 4) for s in scores])
    assert all(r[3] is None and r[4] is None for r in rows if r[2] not in ("en", "und"))
    stages = corpus.manifest()["stages"]["enrich"]["settings"]
    assert stages["scorer"] == TweetSentimentScorer.model_name


def test_covers_rule():
    assert covers(None, "ru") and covers({"en"}, "en") and covers({"en"}, "und") and covers({"en"}, "")
    assert not covers({"en"}, "es")


def test_sentiment_and_entities_skip_by_language():
    from corpuskit.enrich.entities import GazetteerExtractor

    scores, labels, mentions, skipped = sentiment_and_entities(
        VaderScorer(), GazetteerExtractor(), ["I love this great city", "Me encanta", "Apple is great"],
        ["en", "es", "und"])
    assert scores[0] > 0.5 and scores[1] != scores[1] and scores[2] > 0  # NaN for Spanish
    assert labels == ["positive", None, "positive"]  # no label where there is no score
    assert skipped == [False, True, False] and mentions[1] == []


def test_fold_and_cjk_tokens():
    assert fold("Şahin") == fold("Sahin") == "sahin"
    assert fold("ΕΛΛΆΔΑ") == "ελλαδα" and fold("Straße") == "strasse"
    assert fold("ガス") == "ガス"  # voicing marks are not diacritics to drop
    assert split_cjk("東京都") == ["東京", "京都"] and split_cjk("都") == ["都"]
    assert word_tokens("Москва и Μύκονος, C++ on 5G") == ["москва", "и", "μυκονοσ", "c", "on", "5g"]  # final sigma folds to σ
    assert word_tokens("日本語abc") == ["日本", "本語", "abc"]
    assert word_tokens("") == []


def test_run_notes_a_mostly_non_english_corpus(tmp_path):
    corpus = open_corpus(tmp_path / "c.db")
    corpus.import_file(FIXTURE)
    results = corpus.run(progress=False, stages=["enrich"])
    assert "70% of the records" in results["languageNote"]


def test_migration_keeps_old_scores_and_allows_null(tmp_path):
    """0011 rebuilds enrichment: rows written before it keep their scores; new rows may be NULL."""
    corpus = open_corpus(tmp_path / "c.db")
    corpus.import_file(FIXTURE)
    corpus.enrich(progress=False)
    before = corpus.conn.execute("SELECT record_id, sentiment_score FROM enrichment ORDER BY 1").fetchall()
    corpus.conn.execute("PRAGMA user_version = 10")
    corpus.close()
    again = open_corpus(tmp_path / "c.db")
    after = again.conn.execute("SELECT record_id, sentiment_score FROM enrichment ORDER BY 1").fetchall()
    assert [tuple(r) for r in after] == [tuple(r) for r in before]
    columns = {r[1]: r[3] for r in again.conn.execute("PRAGMA table_info(enrichment)")}
    assert columns["sentiment_score"] == 0 and "entities_skipped" in columns  # notnull flag off


def test_analysis_and_apis_tolerate_null_sentiment(tmp_path):
    from tests.openapi_check import checked_call

    from corpuskit.api import create_app
    from corpuskit.api.ids import encode_id

    corpus = open_corpus(tmp_path / "c.db")
    corpus.import_file(FIXTURE)
    corpus.run(progress=False)  # enrich, analyse, narrate on a corpus 70 % non-English
    key = corpus.create_key("enterprise", per_minute=10**6, per_day=10**7)
    app = create_app(corpus)
    ru = corpus.conn.execute("SELECT id FROM records WHERE source_id = 'ru-1'").fetchone()[0]
    en = corpus.conn.execute("SELECT id FROM records WHERE source_id = 'en-1'").fetchone()[0]

    status, _, body = checked_call(app, "keyed", "/api/v1/discourse?limit=100", {"x-api-key": key})
    assert status == 200
    by_id = {int(item["id"]): item for item in body["data"]}
    assert by_id[ru]["analysis"]["sentiment"] is None and by_id[ru]["language"] == "ru"
    assert by_id[en]["analysis"]["sentiment"]["score"] > 0
    topic = corpus.conn.execute("SELECT name FROM topics WHERE active = 1 ORDER BY id").fetchone()[0]
    for path in (f"/api/v1/snapshots?topic={topic}", "/api/v1/topics", f"/api/v1/topics/{topic}"):
        assert checked_call(app, "keyed", path, {"x-api-key": key})[0] == 200

    bearer = {"Authorization": f"Bearer {key}"}
    status, _, body = checked_call(app, "bearer", f"/v1/records/{encode_id(corpus, 'rec', ru)}", bearer)
    assert status == 200 and body["sentimentScore"] is None and body["sentimentLabel"] is None
    status, _, body = checked_call(app, "bearer", "/v1/records?limit=100", bearer)
    items = body["items"]
    assert status == 200 and sum(item["sentimentScore"] is None for item in items) == 28
    for path in ("/v1/stats/sentiment/timeline?days=30", "/v1/signals", "/v1/stories", "/v1/topics"):
        assert checked_call(app, "bearer", path, bearer)[0] == 200, path
    assert corpus.records()["sentimentScore"].isna().sum() == 28


def test_terms_slugs_and_sentences_read_every_script():
    from corpuskit.enrich.topic_quality import is_debris
    from corpuskit.enrich.topic_terms import slug
    from corpuskit.narrate.sentences import split_sentences
    from corpuskit.text import term_tokens

    assert term_tokens("новой линии метро") == ["новой", "линии", "метро"]
    assert term_tokens("Plan de vacunación") == ["plan", "vacunación"]  # display form kept
    assert term_tokens("東京都で") == ["東京", "京都", "都で"]
    assert term_tokens("Show HN: my C++ tool") == ["show", "hn", "c++", "tool"]
    assert slug(["vacunación", "metro"]) == "vacunacion-metro" and slug(["метро"]) == ""
    assert not is_debris("метро") and is_debris("https")
    assert split_sentences("Цены выросли. Многие семьи экономят.") == ["Цены выросли.", "Многие семьи экономят."]
    assert split_sentences("電車は遅れた。会社に遅刻した！") == ["電車は遅れた。", "会社に遅刻した！"]


def test_slugs_of_non_latin_names_are_distinct():
    from corpuskit.query.name_keys import entity_slug, story_slug

    assert entity_slug("Владимир Путин") == "владимир-путин" != entity_slug("Алексей Навальный")
    assert entity_slug("Uğur Şahin") == "ugur-sahin" and entity_slug("Søren") == "s-ren"  # as before
    assert entity_slug("AT&T") == "at-and-t" and entity_slug("!!") == "entity"
    assert story_slug("Цены снова выросли") == "цены-снова-выросли"
    assert story_slug("Søren Kierkegaard café, 2024!") == "sren-kierkegaard-cafe-2024"  # as before


GERMAN = ["Die Bundesregierung hat heute im Bundestag über das neue Klimaschutzgesetz beraten und abgestimmt.",
          "Wir müssen die Hochwasserhilfe für die betroffenen Gemeinden in Nordrhein-Westfalen schnell auszahlen.",
          "Morgen spreche ich in Düsseldorf mit den Bürgerinnen und Bürgern über die Zukunft unserer Städte.",
          "Die Pflegekräfte verdienen mehr Anerkennung und bessere Arbeitsbedingungen in allen Krankenhäusern."]
SHORT_GERMAN = ["Vielen Dank!", "Guten Morgen", "Danke 🙏💪", "Unfassbar."]


def _post(author, i, text):
    return {"source": "twitter", "sourceId": f"{author}-{i}", "author": author, "contentText": text,
            "publishedAt": f"2021-07-{i + 1:02d}T10:00:00Z"}


def test_short_records_take_the_authors_or_corpus_language(tmp_path):
    """Short replies of a German author are German, not the English a detector guesses from two words:
    the English-only steps skip them, and the coverage per language says so in the run and manifest."""
    corpus = open_corpus(tmp_path / "de.db")
    rows = [_post("politiker", i, t) for i, t in enumerate(GERMAN + SHORT_GERMAN)]
    rows += [_post("fremd", i, t) for i, t in enumerate(SHORT_GERMAN[:2])]   # no long record: the corpus's
    rows += [_post("reporter", i, t) for i, t in enumerate(
        ["The flood damage in the Ahr valley is far worse than officials said this morning.",
         "Thanks!"])]
    corpus.add_records(rows)
    summary = corpus.enrich(progress=False)
    got = dict(corpus.conn.execute("SELECT source_id, language FROM records").fetchall())
    assert {got[f"politiker-{i}"] for i in range(8)} == {"de"}
    assert got["fremd-0"] == got["fremd-1"] == "de"
    assert got["reporter-0"] == "en" and got["reporter-1"] == "de"   # one long record is too few for a prior
    coverage = summary["coverage"]
    assert coverage["de"] == {"records": 11, "sentiment": {"scored": 0, "skipped": 11},
                              "entities": {"read": 0, "skipped": 11}}
    assert coverage["en"]["sentiment"] == {"scored": 1, "skipped": 0}
    assert corpus.manifest()["languages"]["coverage"] == coverage
    mentions = corpus.conn.execute("SELECT count(*) FROM mentions m JOIN records r ON r.id = m.record_id "
                                   "WHERE r.language = 'de'").fetchone()[0]
    assert mentions == 0
    corpus.close()


def test_prior_needs_a_dominant_language(tmp_path):
    from corpuskit.enrich.pipeline import apply_language_prior

    corpus = open_corpus(tmp_path / "mixed.db")
    corpus.add_records([_post("a", 0, "x"), _post("b", 1, "y"), _post("c", 2, "z"), _post("d", 3, "w")])
    corpus.conn.executemany("UPDATE records SET language = ? WHERE id = ?", [("de", 1), ("fr", 2), ("und", 3),
                                                                             ("en", 4)])
    assert apply_language_prior(corpus.conn, [3, 4]) == 0      # de and fr, one each: no dominant language
    corpus.conn.execute("UPDATE records SET language = 'de' WHERE id = 2")
    assert apply_language_prior(corpus.conn, [3, 4]) == 2
    assert [r[0] for r in corpus.conn.execute("SELECT language FROM records ORDER BY id")] == ["de"] * 4
    corpus.close()


def test_tags_indexed_again_in_the_detected_language(tmp_path):
    pytest.importorskip("wordfreq")
    corpus = open_corpus(tmp_path / "es.db")
    corpus.add_records([_post("diario", i, t) for i, t in enumerate(
        ["El presidente habló hoy en la conferencia de prensa matutina sobre la reforma eléctrica @lopezobrador_",
         "La Secretaría de Salud informó que los contagios bajaron por tercera semana consecutiva en el país",
         "El Senado aprobó la reforma con el voto de la mayoría y la oposición anunció una controversia"])])
    assert corpus.query("obrador").ids().tolist() == []     # imported with no language: the tag whole
    corpus.enrich(progress=False)
    assert corpus.query("obrador").ids().tolist() == [1]
    corpus.close()


def test_coverage_line():
    from corpuskit.enrich.pipeline import coverage_line

    coverage = {lang: {"records": n, "sentiment": {"scored": s, "skipped": n - s},
                       "entities": {"read": s, "skipped": n - s}}
                for lang, n, s in (("es", 33000, 0), ("en", 400, 400), ("pt", 30, 0))}
    assert coverage_line(coverage, limit=2) == ("es 33,000 (sentiment 0, entities 0 read); "
                                                "en 400 (sentiment 400, entities 400 read); 1 more")


def test_story_evidence_leaves_out_the_stop_words_of_its_records_languages():
    from corpuskit.narrate.evidence import EvidenceRecord, _matrix, evidence_stop_words

    def record(i, text, language):
        return EvidenceRecord(i, "news", "", text, "", f"a{i}", "2021-05-01T10:00:00Z", "{}", language=language)

    spanish = [record(1, "El Senado aprobó la reforma de la ley que los diputados votaron", "es"),
               record(2, "La reforma eléctrica que el presidente envió al Senado", "es")]
    assert {"que", "los", "el", "la", "de"} <= set(evidence_stop_words(spanish))
    import sklearn.feature_extraction.text as sk

    vocabulary = set(sk.TfidfVectorizer(stop_words=evidence_stop_words(spanish)).fit(
        [r.text for r in spanish]).vocabulary_)
    assert "reforma" in vocabulary and "senado" in vocabulary and not {"que", "los", "la"} & vocabulary
    assert _matrix(spanish).shape[1] == len(vocabulary)
    # an English pool keeps scikit-learn's English list, no more (English stories unchanged)
    english = [record(3, "The senate passed the reform", "en"), record(4, "The reform passed", None)]
    assert set(evidence_stop_words(english)) == set(sk.ENGLISH_STOP_WORDS)


def test_a_close_call_goes_to_the_authors_language(tmp_path):
    """A Spanish news account's headline py3langid calls Aragonese (by a margin the detector itself
    finds small) is Spanish; an English tweet in the same feed stays English."""
    from corpuskit.enrich.language import LanguageDetector
    from corpuskit.enrich.pipeline import detect_languages

    corpus = open_corpus(tmp_path / "es.db")
    texts = ["El ministro anunció hoy un plan para reducir la inflación en los próximos meses",
             "Los vecinos de Jaca protestan por el cierre de la estación de tren desde el lunes",
             "Aragón y Cataluña firman un acuerdo para el tramo ferroviario de Canfranc",
             "Gran entrevista a Paula Rey sobre el nuevo disco que publica en otoño",
             "Gol de Mario Pérez en Zaragoza vs. Huesca por la Copa del Rey 2021-22 | Video",
             "El Real Zaragoza empata con el Huesca en La Romareda",
             "The central bank raised interest rates again on Thursday, the third increase this year"]
    corpus.add_records([_post("diario", i, t) for i, t in enumerate(texts)])
    detector = LanguageDetector()
    assert [detector.detect(t) for t in texts[4:]] == ["an", "an", "en"]
    detect_languages(corpus, detector, [r[0] for r in corpus.conn.execute("SELECT id FROM records")])
    got = [r[0] for r in corpus.conn.execute("SELECT language FROM records ORDER BY id")]
    assert got == ["es"] * 6 + ["en"]
    corpus.close()


def test_japanese_labels_read_words_not_character_pairs():
    from corpuskit.enrich.topic_terms import cjk_label_form, readable_label

    texts = ["ラーメンを食べたかと思ったら、うどんでした。チクショー！！ #まいにちチクショー",
             "電車に乗ったかと思ったら、バスでした。チクショー！！",
             "チクショー！！ #まいにちチクショー",
             "雪かと思ったら、雨でした。チクショー",
             "東京は雨でした"]
    assert cjk_label_form("チク クシ", texts) == "チクショー"      # pairs joined, then grown to the word
    assert cjk_label_form("思っ", texts) == "かと思ったら"
    assert cjk_label_form("東京", texts) == "東京"                 # one text: not grown into its sentence
    assert cjk_label_form("apple pie", texts) is None
    # two pairs of one word stand once
    assert readable_label(["チク", "ショ", "思っ"], texts) == "チクショー: かと思ったら"


def test_detectors_share_the_bundled_model_but_not_a_change_to_one():
    """The model is read once per process: a detector whose languages were narrowed leaves every
    other detector, and those made later, reading all of them."""
    text = "This is a lovely day in London and we are all very happy about it"
    narrowed, other = LanguageDetector().fit(), LanguageDetector().fit()
    narrowed.identifier_.set_languages(["de", "fr"])
    assert narrowed.identifier_.classify(text)[0] in ("de", "fr")
    assert other.detect(text) == "en" and LanguageDetector().detect(text) == "en"
    assert not other.identifier_.nb_ptc.flags.writeable  # the shared arrays cannot change in place
