"""Keyword in context: case- and diacritic-insensitive, Unicode-aware, sorted, with its word windows."""
import re

import pandas as pd
import pytest

from corpuskit.analysis.kwic import KWIC_COLUMNS, fold, kwic, term_pattern
from corpuskit.errors import ValidationError
from tests.conftest import HN_CSV, need_shared

TEXTS = [
    ("BioNTech chief", "Uğur Şahin says the VACCINE works. Vaccination &amp; vacunación rise; ŞAHIN again",
     "2021-01-02T00:00:00Z"),
    ("", "Вакцина работает, сказал Шахин. Straße closed; #PfizerBioNTech @BioNTech_Group", "2021-01-01T00:00:00Z"),
    ("", "no match here", "2021-01-03T00:00:00Z"),
]


@pytest.fixture
def small(corpus):
    for i, (title, text, published) in enumerate(TEXTS, start=1):
        corpus.conn.execute("INSERT INTO records(source, source_id, content_hash, title, content_text, published_at, "
                            "captured_at) VALUES ('news', ?, ?, ?, ?, ?, ?)", (str(i), str(i), title, text,
                                                                            published, published))
    return corpus


def test_ascii_term_finds_diacritics_in_any_case(small):
    table = kwic(small, [1, 2, 3], "Sahin", window=3)
    assert list(table.columns) == list(KWIC_COLUMNS)
    assert table["match"].tolist() == ["Şahin", "ŞAHIN"]
    first = table.iloc[0]
    assert (first["left"], first["right"]) == ("BioNTech chief Uğur", "says the VACCINE")
    assert (first["recordId"], first["publishedAt"], first["source"]) == (1, "2021-01-02T00:00:00Z", "news")
    assert kwic(small, [1], "vacunacion")["match"].tolist() == ["vacunación"]   # entity unescaped: & shown
    assert kwic(small, [1], "vacunacion", window=1)["left"].tolist() == ["&"]


def test_phrases_prefixes_and_other_scripts(small):
    assert kwic(small, [1], "ugur sahin")["match"].tolist() == ["Uğur Şahin"]
    assert kwic(small, [1], "vacc*")["match"].tolist() == ["VACCINE", "Vaccination"]
    assert kwic(small, [1], "vaccine")["match"].tolist() == ["VACCINE"]       # whole words only
    assert kwic(small, [2], "вакцина")["match"].tolist() == ["Вакцина"]
    assert kwic(small, [2], "шахин")["match"].tolist() == ["Шахин"]
    assert kwic(small, [2], "strasse")["match"].tolist() == ["Straße"]
    assert kwic(small, [2], "#pfizerbiontech")["match"].tolist() == ["#PfizerBioNTech"]
    assert kwic(small, [2], "biontech_group")["match"].tolist() == ["BioNTech_Group"]


def test_a_japanese_word_inside_a_clause(corpus):
    corpus.conn.execute("INSERT INTO records(source, source_id, content_hash, content_text, published_at, "
                        "captured_at) VALUES ('twitter', 'j', 'j', 'まいにちチクショー、コウメ太夫です AKB48ライブ', "
                        "'2021-01-01', '2021-01-01')")
    assert kwic(corpus, [1], "太夫", window=1)["match"].tolist() == ["太夫"]
    assert kwic(corpus, [1], "チクショー")["match"].tolist() == ["チクショー"]
    assert kwic(corpus, [1], "akb48")["match"].tolist() == ["AKB48"]   # a Latin edge still whole
    assert kwic(corpus, [1], "akb4")["match"].tolist() == []
    assert kwic(corpus, [1], "akb*")["match"].tolist() == ["AKB48"]    # a prefix stops at the kana


def test_order_window_limit_and_empty(small):
    table = kwic(small, [3, 2, 1, 1], "biontech", window=0)
    # record 2 was published first; within a record, by position
    assert table["recordId"].tolist() == [1] and table["left"].tolist() == [""]
    both = kwic(small, [1, 2], "sahin")
    assert both["recordId"].tolist() == [1, 1]
    assert kwic(small, [1, 2], "s*").iloc[0]["recordId"] == 2            # 2021-01-01 before 2021-01-02
    assert len(kwic(small, [1, 2], "s*", limit=1)) == 1
    assert kwic(small, [3], "sahin").empty and kwic(small, [], "sahin").empty
    assert kwic(small, [999], "sahin").empty


def test_bad_terms_and_parameters(small):
    for bad in ("", "   ", None, "!!!"):
        with pytest.raises(ValidationError):
            kwic(small, [1], bad)
    with pytest.raises(ValidationError, match="may only end"):
        kwic(small, [1], "va*c")
    with pytest.raises(ValidationError, match="window"):
        kwic(small, [1], "sahin", window=-1)
    with pytest.raises(ValidationError, match="limit"):
        kwic(small, [1], "sahin", limit=0)
    assert fold("Şahin Karikó") == "sahin kariko" and term_pattern("vacc*").fullmatch("vaccines")


def test_kwic_equals_a_regex_scan_on_real_hacker_news(tmp_path):
    from corpuskit import open_corpus

    c = open_corpus(tmp_path / "hn.db")
    c.import_file(need_shared(HN_CSV))
    ids = [r[0] for r in c.conn.execute("SELECT id FROM records")]
    table = kwic(c, ids, "rust", window=4)
    titles = [r[0] for r in c.conn.execute("SELECT title FROM records")]
    expected = sum(len(re.findall(r"(?<!\w)rust(?!\w)", t, flags=re.IGNORECASE)) for t in titles)
    assert len(table) == expected > 20
    assert set(table["match"].str.lower()) == {"rust"}
    c.close()


def _scrambled(corpus, n=600):
    """``n`` records whose ids do not follow their times (ids run forward, days back and forth)."""
    rows = []
    for i in range(n):
        day = (i * 37) % 300
        stamp = f"2021-{1 + day // 28:02d}-{1 + day % 28:02d}T{i % 24:02d}:00:00Z"
        text = " ".join(["stablecoin" if (i + k) % 3 == 0 else f"word{k}" for k in range(i % 7 + 2)]) + " bond yields"
        rows.append(("news", str(i), str(i), f"title {i}", text, stamp, stamp))
    corpus.conn.executemany("INSERT INTO records(source, source_id, content_hash, title, content_text, "
                            "published_at, captured_at) VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
    return corpus


@pytest.mark.parametrize("term", ["stablecoin", "bond yields", "word*"])
def test_a_limited_concordance_is_the_first_lines_of_the_whole_one(corpus, term):
    _scrambled(corpus)
    ids = [r[0] for r in corpus.conn.execute("SELECT id FROM records")]
    whole = kwic(corpus, ids, term)
    assert len(whole) > 300
    for limit in (1, 3, 50, len(whole) + 5):
        pd.testing.assert_frame_equal(kwic(corpus, ids, term, limit=limit),
                                      whole.head(limit).reset_index(drop=True))
