"""One bound rule everywhere (corpuskit.query.record_filter.bound_timestamp): ``since`` and ``until``
are inclusive, so a record published exactly at either is selected; a bare date as ``until`` covers
its whole day. Checked on Where, RecordFilter (Corpus.records), the query language, the subcorpus,
/v1/records and /api/v1/discourse, with bare dates and with full timestamps."""
from __future__ import annotations

import pytest

from corpuskit import open_corpus
from corpuskit.query.record_filter import RECORDS_FROM, RecordFilter, bound_timestamp
from corpuskit.query.where import Where

STAMPS = {"before": "2021-08-19T23:59:59Z", "at_since": "2021-08-20T00:00:00Z", "mid": "2021-08-20T12:00:00Z",
          "at_until": "2021-08-21T10:00:00Z", "last_second": "2021-08-21T23:59:59Z", "after": "2021-08-22T00:00:00Z"}
#: (since, until) -> the records selected
CASES = {
    ("2021-08-20", "2021-08-21"): {"at_since", "mid", "at_until", "last_second"},
    ("2021-08-20T00:00:00Z", "2021-08-21T10:00:00Z"): {"at_since", "mid", "at_until"},
    ("2021-08-20T12:00:00Z", "2021-08-20T12:00:00Z"): {"mid"},
}


@pytest.fixture(scope="module")
def bounded(tmp_path_factory):
    c = open_corpus(tmp_path_factory.mktemp("bounds") / "b.db")
    c.add_records([{"source": "bluesky", "sourceId": name, "contentText": f"pfizer post {name}",
                    "publishedAt": stamp, "author": name} for name, stamp in STAMPS.items()])
    yield c
    c.close()


def _names(corpus, ids) -> set:
    ids = [int(i) for i in ids]
    rows = corpus.conn.execute(f"SELECT source_id FROM records WHERE id IN ({','.join('?' * len(ids))})", ids)
    return {r[0] for r in rows}


@pytest.mark.parametrize("since,until", list(CASES))
def test_where_and_record_filter(bounded, since, until):
    where = (Where().bound("r.published_at", "since", bound_timestamp(since, "since"))
             .bound("r.published_at", "until", bound_timestamp(until, "until")))
    ids = [r[0] for r in bounded.conn.execute(f"SELECT r.id FROM {RECORDS_FROM}{where.sql()}", where.args)]
    assert _names(bounded, ids) == CASES[(since, until)]
    sql, args = RecordFilter(since=since, until=until).record_ids_sql(bounded.conn)
    assert _names(bounded, [r[0] for r in bounded.conn.execute(sql, args)]) == CASES[(since, until)]
    assert set(bounded.records(since=since, until=until)["sourceId"]) == CASES[(since, until)]


@pytest.mark.parametrize("since,until", list(CASES))
def test_query_language_and_subcorpus(bounded, since, until):
    sub = bounded.query("pfizer", since=since, until=until)
    assert _names(bounded, sub.ids()) == CASES[(since, until)] and sub.count() == len(CASES[(since, until)])
    ranged = bounded.query(f'pfizer AND published:["{since}" TO "{until}"]')
    assert _names(bounded, ranged.ids()) == CASES[(since, until)]


@pytest.mark.parametrize("since,until", list(CASES))
def test_both_apis(bounded, since, until):
    from urllib.parse import quote

    from tests.openapi_check import checked_call

    from corpuskit.api import create_app

    key = bounded.create_key("enterprise", per_minute=10**6, per_day=10**7)
    app = create_app(bounded)
    status, _, body = checked_call(app, "bearer", f"/v1/records?limit=50&from={quote(since)}&to={quote(until)}",
                                   {"Authorization": f"Bearer {key}"})
    assert status == 200
    assert {item["title"].split()[-1] for item in body["items"]} == CASES[(since, until)]
    status, _, body = checked_call(app, "keyed", f"/api/v1/discourse?limit=50&since={quote(since)}"
                                                 f"&until={quote(until)}", {"x-api-key": key})
    assert status == 200
    assert {item["sourceId"] for item in body["data"]} == CASES[(since, until)]
