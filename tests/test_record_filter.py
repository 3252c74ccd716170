"""RecordFilter, the one selection object: each field selects what the query language's field does,
the fields combine by AND, and a count over ``records r`` alone equals the count over the join."""
from __future__ import annotations

import pytest

from corpuskit.errors import ValidationError
from corpuskit.query import RECORDS_FROM, RecordFilter, compile_query
from corpuskit.query.records import record_total


def ids(corpus, flt: RecordFilter) -> list[int]:
    where = flt.where(corpus.conn)
    return [r[0] for r in corpus.conn.execute(f"SELECT r.id FROM {RECORDS_FROM}{where.sql()} ORDER BY r.id",
                                              where.args)]


def scalar(corpus, sql, *args):
    return corpus.conn.execute(sql, args).fetchone()[0]


def test_each_field_selects_what_its_query_field_does(demo_corpus):
    c = demo_corpus
    topic = scalar(c, "SELECT name FROM topics ORDER BY id LIMIT 1")
    entity = scalar(c, "SELECT name FROM entities en WHERE mention_count > 0 AND (SELECT count(*) FROM entities o "
                       "WHERE o.name = en.name COLLATE NOCASE OR o.slug = lower(en.name)) = 1 "
                       "ORDER BY mention_count DESC LIMIT 1")
    language = scalar(c, "SELECT language FROM records GROUP BY language ORDER BY count(*) DESC LIMIT 1")
    source = scalar(c, "SELECT source FROM records GROUP BY source ORDER BY count(*) DESC LIMIT 1")
    pairs = [(RecordFilter(source=source), f"source:{source}"),
             (RecordFilter(topic=topic), f"topic:{topic}"),
             (RecordFilter(entity=entity), f'entity:"{entity}"'),
             (RecordFilter(language=language.upper()), f"lang:{language}"),
             (RecordFilter(sentiment="negative"), "sentiment:negative"),
             (RecordFilter(since="2026-10-10T00:00:00Z", until="2026-10-12T12:00:00Z"),
              "published:[2026-10-10T00:00:00Z TO 2026-10-12T12:00:00Z]")]
    for flt, query in pairs:
        want = ids(c, RecordFilter(query=compile_query(query)))
        assert want, query
        assert ids(c, flt) == want, query
        assert record_total(c.conn, flt) == len(want), query
    both = ids(c, RecordFilter(source=source, sentiment="negative"))
    assert both == ids(c, RecordFilter(query=f"source:{source} AND sentiment:negative")) and both


def test_ids_primary_topic_and_capture_dates(demo_corpus):
    c = demo_corpus
    chosen = [5, 3, 11, 10**9]
    assert ids(c, RecordFilter(ids=chosen)) == [3, 5, 11]
    assert ids(c, RecordFilter(ids=[])) == []
    tid = scalar(c, "SELECT topic_id FROM enrichment WHERE topic_id IS NOT NULL LIMIT 1")
    assert ids(c, RecordFilter(primary_topic_id=tid)) == [
        r[0] for r in c.conn.execute("SELECT record_id FROM enrichment WHERE topic_id = ? ORDER BY 1", (tid,))]
    assert ids(c, RecordFilter(primary_topic_id=-2)) == []
    day = scalar(c, "SELECT substr(captured_at, 1, 10) FROM records ORDER BY id LIMIT 1")
    captured = RecordFilter(since=day, until=day + "T23:59:59Z", dates="captured")
    assert ids(c, captured) == [r[0] for r in c.conn.execute(
        "SELECT id FROM records WHERE substr(captured_at, 1, 10) = ? ORDER BY id", (day,))]
    assert not RecordFilter() and not RecordFilter(dates="captured") and RecordFilter(ids=[])
    assert RecordFilter(ids=[1, 2], query="a").describe() == {"query": "a", "ids": 2}


def test_bad_values_name_the_filter(demo_corpus):
    for flt, message in ((RecordFilter(sentiment="angry"), "sentiment must be one of"),
                         (RecordFilter(ids=["x"]), "ids must be record ids"),
                         (RecordFilter(dates="updated"), "dates must be one of"),
                         (RecordFilter(until="not a date"), "until:")):
        with pytest.raises(ValidationError, match=message):
            flt.where(demo_corpus.conn)
