"""The full-text index: built on import, kept in step on delete/update/re-import, built by migration 0009."""
from __future__ import annotations

import re
import sqlite3
import unicodedata

import pytest

from corpuskit import open_corpus
from corpuskit.ingest.records import insert_records, normalise
from corpuskit.query import bm25_ranking, compile_query
from corpuskit.store import fulltext
from corpuskit.store import latest_version
from tests.conftest import HN_CSV, REDDIT_CSV, need_shared

ROWS = [
    {"source": "reddit", "sourceId": "a", "title": "Şahin on boosters",
     "contentText": "Uğur Şahin says #PfizerBioNTech works, thanks @BioNTech_Group", "publishedAt": "2021-01-01"},
    {"source": "reddit", "sourceId": "b", "contentText": "La vacunación avanza en España #covidvaccine",
     "publishedAt": "2021-01-02"},
    {"source": "reddit", "sourceId": "c", "contentText": "Вакцина Спутник и Ελληνικό εμβόλιο", "publishedAt": "2021-01-03"},
    {"source": "reddit", "sourceId": "d", "contentText": "東京 ワクチン 接種", "publishedAt": "2021-01-04"},
]


def ids(corpus, q):
    return corpus.query(q).ids().tolist()


@pytest.mark.parametrize("module", ["sqlite3", "sqlean"])
def test_both_drivers_ship_fts5(module):
    """Migration 0009's table (tokenizer included) works on both drivers' SQLite."""
    import importlib

    from corpuskit.store.schema import _split, migrations

    conn = importlib.import_module(module).connect(":memory:")
    conn.execute("CREATE TABLE records (id INTEGER PRIMARY KEY, title TEXT, content_text TEXT)")
    for statement in _split(migrations()[8][2]):
        conn.execute(statement)
    conn.execute("INSERT INTO records VALUES (1, '', 'Şahin')")
    conn.execute("INSERT INTO records_fts (rowid, title, body, tags) VALUES (1, '', 'Şahin', '')")
    assert conn.execute("SELECT rowid FROM records_fts WHERE records_fts MATCH 'sahin'").fetchall() == [(1,)]
    conn.execute("DELETE FROM records WHERE id = 1")
    assert conn.execute("SELECT count(*) FROM records_fts").fetchone()[0] == 0


def test_diacritics_scripts_and_markup(corpus):
    corpus.add_records(ROWS)
    assert ids(corpus, "Sahin") == ids(corpus, "ŞAHİN") == [1]
    assert ids(corpus, "vacunacion") == ids(corpus, "vacunación") == [2]
    assert ids(corpus, "вакцина") == [3]            # Cyrillic, case-folded
    assert ids(corpus, "ΕΜΒΌΛΙΟ") == [3]            # Greek, case-folded
    # the index and the queries fold Greek and Cyrillic accents too (search_fold), not only Latin ones
    assert ids(corpus, "εμβολιο") == [3]
    # unicode61 splits on spaces and punctuation only: a CJK run without spaces is one token
    assert ids(corpus, "東京") == [4]
    assert ids(corpus, "#PfizerBioNTech") == [1]     # as written
    assert ids(corpus, "pfizer") == ids(corpus, "biontech") == [1]     # by its parts
    assert ids(corpus, "@BioNTech_Group") == [1]
    assert ids(corpus, "group") == [1]
    assert ids(corpus, "vaccine") == [2]            # #covidvaccine -> covid vaccine
    assert ids(corpus, "#covidvaccine") == [2]


def test_document_columns():
    title, body, tags = fulltext.document("T &amp; U", "hi #PfizerBioNTech and @BioNTech_Group")
    assert title == "T & U"
    assert tags == "#PfizerBioNTech @BioNTech_Group Pfizer BioNTech BioNTech Group"
    assert fulltext.document("", "no markup")[2] == ""


def test_kept_in_step_on_delete_update_and_reimport(corpus):
    corpus.add_records(ROWS)
    n = corpus.conn.execute("SELECT count(*) FROM records_fts").fetchone()[0]
    assert n == 4
    again = corpus.add_records(ROWS)                 # re-import: all duplicates, nothing indexed twice
    assert again.added == 0
    assert corpus.conn.execute("SELECT count(*) FROM records_fts").fetchone()[0] == 4
    corpus.conn.execute("DELETE FROM records WHERE id = 1")
    assert ids(corpus, "sahin") == []
    assert corpus.conn.execute("SELECT count(*) FROM records_fts").fetchone()[0] == 3
    corpus.conn.execute("UPDATE records SET content_text = 'now about moderna' WHERE id = 2")
    assert ids(corpus, "vacunacion") == []           # the stale row is gone at once
    with corpus.transaction():
        assert fulltext.sync(corpus.conn) == 1       # and sync indexes the new text
    assert ids(corpus, "moderna") == [2]
    corpus.add_records([{**ROWS[0], "sourceId": "e"}])   # a new record after a delete
    assert ids(corpus, "sahin") == [5]
    assert fulltext.missing_ids(corpus.conn) == []


def test_dedupe_none_and_content_rules_index_the_right_rows(corpus):
    rows = [{"source": "reddit", "contentText": f"word{i} common", "publishedAt": "2021-01-01"} for i in range(5)]
    corpus.add_records(rows + rows[:2], dedupe="content")
    assert corpus.count() == 5
    for i in range(5):
        rid = corpus.conn.execute("SELECT id FROM records WHERE content_text = ?", (f"word{i} common",)).fetchone()[0]
        assert ids(corpus, f"word{i}") == [rid]
    corpus.add_records(rows[:2], dedupe="none")
    assert corpus.count() == 7 and len(ids(corpus, "common")) == 7


def test_insert_records_path_indexes(corpus):
    recs = [normalise(r) for r in ROWS[:2]]
    with corpus.transaction():
        added, _ = insert_records(corpus.conn, recs, None)
    assert added == 2 and ids(corpus, "espana") == [2]


def test_migration_builds_index_for_an_old_corpus(tmp_path):
    path = tmp_path / "old.db"
    c = open_corpus(path)
    c.add_records(ROWS)
    c.close()
    raw = sqlite3.connect(path)      # make it a version-8 corpus: no index, no triggers
    raw.execute("DROP TRIGGER records_fts_delete")
    raw.execute("DROP TRIGGER records_fts_update")
    raw.execute("DROP TABLE records_fts")
    for column in ("likes", "reposts", "replies", "quotes", "views", "reply_to", "quote_of",
                   "repost_of", "is_repost"):   # added by 0010, which runs again
        raw.execute(f"ALTER TABLE records DROP COLUMN {column}")
    raw.execute("PRAGMA user_version = 8")
    raw.commit()
    raw.close()
    c = open_corpus(path)
    assert c.conn.execute("PRAGMA user_version").fetchone()[0] == latest_version()
    assert ids(c, "sahin") == [1] and ids(c, "vacunacion") == [2]
    c.conn.execute("DELETE FROM records WHERE id = 2")
    assert ids(c, "vacunacion") == []
    c.close()


def test_bm25_ranking(corpus):
    corpus.add_records([
        {"source": "reddit", "sourceId": str(i), "contentText": text, "publishedAt": f"2021-01-0{i + 1}"}
        for i, text in enumerate(["pfizer pfizer pfizer booster", "pfizer once among many other words here",
                                  "moderna only", "nothing relevant"])])
    ranked = bm25_ranking(corpus.conn, "pfizer moderna", limit=10)
    # the rare word in a short record first, then three pfizers before one among many words
    assert [r for r, _ in ranked] == [3, 1, 2]
    scores = [s for _, s in ranked]
    assert scores == sorted(scores, reverse=True) and all(s > 0 for s in scores)
    assert bm25_ranking(corpus.conn, 'pfizer" OR x NEAR(', limit=1)[0][0] == 1   # syntax is plain words
    assert bm25_ranking(corpus.conn, "!!!", limit=5) == []
    from corpuskit.query import Where

    assert [r for r, _ in bm25_ranking(corpus.conn, "pfizer", 10, Where().equal("r.source_id", "1"))] == [2]


# -- the real files: the index against a regular-expression scan -----------------------------------
PLAIN_TERMS = ["google", "python", "rust", "bitcoin", "climate", "startup", "linux", "apple", "privacy",
               "security", "javascript", "database", "vaccine", "cancer", "brain", "nasa", "tesla",
               "facebook", "microsoft", "amazon", "quantum", "energy", "music", "open"]
PHRASES = ["open source", "machine learning", "deep learning", "climate change", "united states",
           "silicon valley", "artificial intelligence", "real time", "new york", "show hn", "side effects",
           "the first"]


def _fold(text: str) -> str:
    text = unicodedata.normalize("NFD", text.casefold())
    return "".join(ch for ch in text if not unicodedata.combining(ch))


def _scan(docs, phrase: str) -> list[int]:
    words = [re.escape(_fold(w)) for w in phrase.split()]
    pattern = re.compile(r"(?<![^\W_])" + r"[\W_]+".join(words) + r"(?![^\W_])")
    return sorted(rid for rid, text in docs if pattern.search(text))


@pytest.mark.parametrize("path", [HN_CSV, REDDIT_CSV], ids=["hn", "reddit"])
def test_index_equals_regex_scan_on_real_data(path, tmp_path):
    need_shared(path)
    c = open_corpus(tmp_path / "real.db")
    c.import_file(path)
    docs = [(r[0], _fold(" ".join(fulltext.document(r[1], r[2]))))
            for r in c.conn.execute("SELECT id, title, content_text FROM records")]
    for term in PLAIN_TERMS:
        assert ids(c, term) == _scan(docs, term), term
    for phrase in PHRASES:
        assert ids(c, f'"{phrase}"') == _scan(docs, phrase), phrase
    c.close()


def test_one_folding_for_the_index_queries_kwic_and_keyness():
    from corpuskit import open_corpus
    from corpuskit.analysis.kwic import fold as kwic_fold
    from corpuskit.text.folding import search_fold

    c = open_corpus(":memory:")
    rows = [{"sourceId": "1", "contentText": "Sperrung der Hauptstraße heute", "publishedAt": "2021-07-01"},
            {"sourceId": "2", "contentText": "Die STRASSE ist frei", "publishedAt": "2021-07-02"},
            {"sourceId": "3", "contentText": "ＢＢ弾 und Ａｕｔｏ", "publishedAt": "2021-07-03"},
            {"sourceId": "4", "contentText": "Şahin und Müller", "publishedAt": "2021-07-04"}]
    c.add_records(rows, source="forum")
    ids = lambda q: sorted(c.query(q).records()["sourceId"])  # noqa: E731
    assert ids("hauptstrasse") == ids("hauptstraße") == ["1"]
    assert ids("strasse") == ids("straße") == ["2"]
    assert ids("auto") == ids("Ａｕｔｏ") == ["3"]
    assert ids("sahin") == ids("müller") == ids("muller") == ["4"]
    assert kwic_fold("Straße ＡＵＴＯ Şahin") == search_fold("Straße ＡＵＴＯ Şahin") == "strasse auto sahin"


JAPANESE = [
    {"source": "twitter", "sourceId": "j1", "contentText": "リモート打ち合わせで白塗りしていたらコウメ太夫です",
     "publishedAt": "2021-01-01"},
    {"source": "twitter", "sourceId": "j2", "contentText": "まいにちチクショー！AKB48ライブ 笑", "publishedAt": "2021-01-02"},
    {"source": "twitter", "sourceId": "j3", "contentText": "東京都の天気", "publishedAt": "2021-01-03"},
]


def test_a_japanese_word_is_found_inside_a_clause(corpus):
    """No spaces between Japanese words: the index holds a run's character pairs, a query the phrase of
    its pairs, so a word is found wherever it sits in a clause (one character: as a prefix of the pairs)."""
    corpus.add_records(JAPANESE)
    assert ids(corpus, "コウメ") == ids(corpus, "太夫") == ids(corpus, "白塗り") == [1]
    assert ids(corpus, "チクショー") == ids(corpus, "ライブ") == ids(corpus, "akb48") == [2]
    assert ids(corpus, "京都") == [3] and ids(corpus, "東京都の天気") == [3]
    assert ids(corpus, "夫") == [1] and ids(corpus, "笑") == [2]      # one character, at a run's end
    assert ids(corpus, '"コウメ 太夫"') == [] and ids(corpus, "太夫 OR 天気") == [1, 3]
    assert ids(corpus, "ウメ太*") == [1] and ids(corpus, "大阪") == []
    assert [i for i, _ in bm25_ranking(corpus.conn, "白塗り 天気", limit=5)] in ([1, 3], [3, 1])


def test_migration_16_indexes_japanese_again(tmp_path):
    path = tmp_path / "old.db"
    c = open_corpus(path)
    c.add_records(JAPANESE + ROWS[:1])
    # as version 15 wrote it: a whole run one token
    c.conn.execute("DELETE FROM records_fts")
    c.conn.executemany("INSERT INTO records_fts (rowid, title, body, tags) VALUES (?, '', ?, '')",
                       [(r[0], r[1]) for r in c.conn.execute("SELECT id, content_text FROM records")])
    c.conn.execute("PRAGMA user_version = 15")
    c.conn.commit()
    assert ids(c, "太夫") == []
    c.close()
    c = open_corpus(path)
    assert ids(c, "太夫") == [1] and ids(c, "sahin") == [4]
    c.close()
