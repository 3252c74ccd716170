"""The query language: every operator and field, errors with positions, the Subcorpus."""
from __future__ import annotations

import numpy as np
import pytest

from corpuskit import open_corpus
from corpuskit.errors import ValidationError
from corpuskit.query import QuerySyntaxError, compile_query

ROWS = [
    ("a", "reddit", "alice", "en", "2021-01-05", "mRNA vaccines from Pfizer are here"),
    ("b", "reddit", "bob", "en", "2021-01-20", "Moderna mRNA booster dose announced"),
    ("c", "hackernews", "carol", "de", "2021-02-01T12:00:00Z", "Pfizer booster approved; vaccination continues"),
    ("d", "hackernews", "Alice", "en", "2021-02-10", "nothing about medicine, only rust and python"),
    ("e", "bluesky", "dave", "es", "2021-03-01", "la vacunación con pfizer y el refuerzo booster"),
]


@pytest.fixture
def small(corpus):
    corpus.add_records([{"source": s, "sourceId": sid, "author": au, "language": lang, "publishedAt": day,
                         "contentText": text, "topic": "health" if sid in "abc" else None}
                        for sid, s, au, lang, day, text in ROWS])
    return corpus


def q(corpus, text, **kw):
    sub = corpus.query(text, **kw)
    got = sub.ids().tolist()
    assert sub.count() == len(got)
    return got


def test_terms_phrases_and_operators(small):
    assert q(small, "pfizer") == [1, 3, 5]
    assert q(small, '"mRNA" AND (pfizer OR moderna) NOT booster') == [1]
    assert q(small, "pfizer booster") == q(small, "pfizer AND booster") == [3, 5]      # implicit AND
    assert q(small, "pfizer OR moderna") == [1, 2, 3, 5]
    assert q(small, "pfizer -booster") == q(small, "pfizer NOT booster") == [1]
    assert q(small, "NOT pfizer") == q(small, "-pfizer") == [2, 4]
    assert q(small, "+pfizer") == [1, 3, 5]
    assert q(small, '"booster approved"') == [3]
    assert q(small, '"approved booster"') == []
    assert q(small, "vacc*") == [1, 3]
    assert q(small, "vac*") == [1, 3, 5]                        # vacunación, diacritics folded
    assert q(small, '"pfizer booster"~1') == [3]
    assert q(small, '"pfizer booster"~5') == [3, 5]
    assert q(small, "pfizer OR booster AND moderna") == [1, 2, 3, 5]   # AND binds tighter
    assert q(small, "(pfizer OR booster) AND moderna") == [2]


def test_fields(small):
    assert q(small, "source:hackernews") == [3, 4]
    assert q(small, "source:(reddit OR bluesky) pfizer") == [1, 5]
    assert q(small, "author:alice") == [1, 4]                   # case-insensitive
    assert q(small, "lang:DE") == [3]
    assert q(small, "topic:health -moderna") == [1, 3]
    assert q(small, "published:[2021-01-01 TO 2021-02-01]") == [1, 2, 3]   # the whole last day
    assert q(small, "published:{2021-01-05 TO 2021-02-01}") == [2]
    assert q(small, "published:[2021-02-01 TO *]") == [3, 4, 5]
    assert q(small, "published:2021-01-20") == [2]
    assert q(small, "pfizer OR source:bluesky") == [1, 3, 5]
    assert q(small, "NOT source:reddit") == [3, 4, 5]
    assert q(small, "pfizer", since="2021-01-10", until="2021-02-28") == [3]


def test_entity_and_sentiment_fields(demo_corpus):
    name = demo_corpus.conn.execute("SELECT name FROM entities ORDER BY mention_count DESC LIMIT 1").fetchone()[0]
    want = [r[0] for r in demo_corpus.conn.execute(
        "SELECT DISTINCT m.record_id FROM mentions m JOIN entities en ON en.id = m.entity_id WHERE en.name = ? "
        "ORDER BY 1", (name,))]
    assert q(demo_corpus, f'entity:"{name}"') == want and want
    assert q(demo_corpus, f'entity:"{name.upper()}"') == want
    neg = [r[0] for r in demo_corpus.conn.execute(
        "SELECT record_id FROM enrichment WHERE sentiment_label = 'negative' ORDER BY 1")]
    assert q(demo_corpus, "sentiment:negative") == neg and neg
    topic = demo_corpus.conn.execute("SELECT name FROM topics ORDER BY id LIMIT 1").fetchone()[0]
    assert q(demo_corpus, f"topic:{topic}") == sorted(demo_corpus.records(topic=topic)["id"].tolist())


@pytest.mark.parametrize("text,column,fragment", [
    ("a AND OR b", 7, "unexpected 'OR'"),
    ("a ) b", 3, "unexpected ')'"),
    ("a AND (b", 9, "end"),
    ('"abc', 1, "Illegal character"),
    ("foo:bar", 1, "unknown field 'foo'; the fields are source, author, lang, topic, entity, sentiment, published"),
    ("x sentiment:angry", 13, "sentiment must be one of positive, neutral, negative"),
    ("published:[x TO 2020-01-01]", 12, "published"),
    ("va?c", 1, "trailing * wildcard"),
    ("*vacc", 1, "trailing * wildcard"),
    ("pfizer~2", 1, "fuzzy"),
    ("pfizer^2", 1, "boost"),
    ("/pf.*/", 1, "regular expressions"),
    ("[a TO b]", 1, "needs a field"),
    ("#", 1, "no letter or digit"),
    ("   ", 1, "empty"),
    ("source:red*", 8, "wildcards"),
])
def test_syntax_errors_name_the_column(text, column, fragment):
    with pytest.raises(QuerySyntaxError) as info:
        compile_query(text)
    err = info.value
    assert isinstance(err, ValidationError)
    assert err.column == column, str(err)
    assert fragment in str(err)
    lines = str(err).split("\n")
    assert lines[0].startswith(f"query syntax error at column {column}")
    assert lines[2].index("^") - 2 == column - 1


def test_user_text_is_bound_never_interpolated(small):
    hostile = ["pfizer'; DROP TABLE records; --", '"a" NEAR(', "x OR 1=1", 'source:"x\' OR 1=1 --"',
               "NEAR AND", "col:umn"]
    for text in hostile:
        try:
            compiled = compile_query(text)
        except QuerySyntaxError:
            continue
        assert "DROP" not in compiled.sql and "1=1" not in compiled.sql
        small.query(text).count()
    assert small.count() == 5
    assert compile_query("pfizer").args == ('"pfizer"',)
    assert compile_query(r'"say \"hi\""').args == ('"say ""hi"""',)   # a quote inside is doubled


def test_not_a_string():
    with pytest.raises(ValidationError):
        compile_query(3)


def test_subcorpus_surface(small, tmp_path):
    sub = small.query("pfizer OR moderna")
    assert (sub.corpus, sub.q, sub.since, sub.until) == (small, "pfizer OR moderna", None, None)
    frame = sub.records()
    assert list(frame.columns) == list(small.records().columns)
    assert frame["id"].tolist() == [5, 3, 2, 1]                  # newest first
    assert sub.records(limit=2, offset=1)["id"].tolist() == [3, 2]
    ids = sub.ids()
    assert ids.dtype == np.int64 and ids.tolist() == [1, 2, 3, 5]
    a, b = sub.sample(2, seed=3), sub.sample(2, seed=3)
    assert a["id"].tolist() == b["id"].tolist() and len(a) == 2 and set(a["id"]) <= set(ids)
    assert len(sub.sample(10, seed=1)) == 4
    assert small.records(q="pfizer")["id"].tolist() == [1, 3, 5]
    for ext in ("csv", "jsonl", "parquet"):
        path = tmp_path / f"out.{ext}"
        assert sub.export(path) == 4
        other = open_corpus(":memory:")
        assert other.import_file(path).added == 4
        assert other.query("pfizer OR moderna").count() == 4
    with pytest.raises(ValidationError):
        sub.sample(-1)
    with pytest.raises(ValidationError):
        small.query("pfizer", since="not a date")
    with pytest.raises(QuerySyntaxError):
        small.records(q="a AND")


def test_cli_query(small, tmp_path, capsys):
    from corpuskit.cli import main

    path = tmp_path / "c.db"
    small.conn.execute("VACUUM INTO ?", (str(path),))
    assert main(["query", "pfizer -booster", "--db", str(path), "--count"]) == 0
    assert capsys.readouterr().out.strip() == "1"
    assert main(["query", "pfizer", "--db", str(path), "--limit", "2"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in out[:2]] == ["5", "3"] and out[-1] == "2 of 3 matching records (newest first)"
    assert main(["query", "pfizer", "--db", str(path), "--export", str(tmp_path / "p.jsonl")]) == 0
    assert len((tmp_path / "p.jsonl").read_text().splitlines()) == 3
    assert main(["query", "pfizer AND (", "--db", str(path)]) != 0
    assert "column 13" in capsys.readouterr().err
