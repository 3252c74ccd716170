"""``q`` on both record lists: the query language over HTTP, 400 with the column on bad syntax."""
from __future__ import annotations

import json
from urllib.parse import quote

import pytest

from corpuskit import open_corpus
from corpuskit.api import create_app
from corpuskit.api.auth import clear_cache
from tests.http_client import assert_json_error, call


@pytest.fixture(scope="module")
def demo_http(demo_corpus, tmp_path_factory):
    path = tmp_path_factory.mktemp("query-api") / "copy.db"
    demo_corpus.conn.execute("VACUUM INTO ?", (str(path),))
    corpus = open_corpus(path)
    bearer = {"Authorization": "Bearer " + corpus.create_key(tier="enterprise", per_minute=10**6, per_day=10**7)}
    keyed = {"x-api-key": corpus.create_key("enterprise", per_minute=10**6, per_day=10**7)}
    app = create_app(corpus)

    def get(path, headers):
        status, _, body = call(app, "GET", path, headers)
        return status, body

    yield corpus, get, bearer, keyed
    clear_cache()
    corpus.close()


def test_v1_records_q(demo_http):
    corpus, get, bearer, _ = demo_http
    text = "vaccine OR booster"
    want = corpus.query(text).count()
    status, body = get("/v1/records?limit=5&q=" + quote(text), bearer)
    page = json.loads(body)
    assert status == 200 and page["total"] == want and 0 < want < corpus.count()
    first = json.loads(get("/v1/records?limit=5", bearer)[1])
    assert first["total"] == corpus.count()      # the cache keys on q
    cursor = page["nextCursor"]
    more = json.loads(get(f"/v1/records?limit=5&q={quote(text)}&cursor={cursor}", bearer)[1])
    assert more["items"] and not {r["id"] for r in more["items"]} & {r["id"] for r in page["items"]}
    status, body = get(f"/v1/records?limit=5&cursor={cursor}", bearer)    # a cursor belongs to its query
    assert status == 400
    status, body = get("/v1/records?q=" + quote("vaccine AND (booster"), bearer)
    assert_json_error(status, body, 400)
    assert "column 21" in json.loads(body)["error"]


def test_discourse_q(demo_http):
    corpus, get, _, keyed = demo_http
    text = "vaccine -booster source:reddit"
    want = corpus.query(text).count()
    status, body = get("/api/v1/discourse?limit=3&q=" + quote(text), keyed)
    page = json.loads(body)
    assert status == 200 and page["pagination"]["total"] == want and want > 0
    assert json.loads(get("/api/v1/discourse?limit=3", keyed)[1])["pagination"]["total"] == corpus.count()
    status, body = get("/api/v1/discourse?q=" + quote("foo:bar"), keyed)
    assert status == 400 and b"unknown field" in body and b"column 1" in body
