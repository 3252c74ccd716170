"""Source names are open: any lower-case slug is stored; both APIs accept the sources a corpus holds."""
import json

import pytest

from corpuskit import open_corpus
from corpuskit.api import create_app
from corpuskit.api.auth import clear_cache
from corpuskit.errors import ValidationError
from corpuskit.ingest.records import check_source, normalise
from corpuskit.errors import RowRejected
from tests.api_v1_common import V1
from tests.http_client import assert_json_error
from tests.keyed_fixtures import open_keyed_corpus
from tests.openapi_check import checked_call


@pytest.mark.parametrize("name", ["mastodon", "telegram", "my_forum", "x", "a-b", "fourchan",
                                  "reddit", "a" * 40, "w2"])
def test_valid_slugs(name):
    assert check_source(name) == name


@pytest.mark.parametrize("name", ["", "Mastodon", "4chan", "my forum", "a" * 41, "_x", "x!",
                                  "mastodon\n", "ßource", None, 3])
def test_bad_slugs_get_a_clear_error(name):
    with pytest.raises(ValidationError, match="invalid source name.*lower-case slug"):
        check_source(name)


def test_a_row_naming_a_bad_source_is_rejected():
    with pytest.raises(RowRejected, match="invalid source name 'Tele Gram'"):
        normalise({"source": "Tele Gram", "contentText": "x", "publishedAt": "2020-01-01"})
    assert normalise({"source": "telegram", "contentText": "x", "publishedAt": "2020-01-01"})["source"] \
        == "telegram"


def test_import_stores_any_slug_and_add_records_checks_it(tmp_path):
    path = tmp_path / "toots.csv"
    path.write_text("id,text,date\n1,hello fediverse,2024-01-01T10:00:00Z\n")
    c = open_corpus(":memory:")
    assert c.import_file(path, source="mastodon").added == 1
    assert c.records(source="mastodon")["source"].tolist() == ["mastodon"]
    with pytest.raises(ValidationError, match="invalid source name"):
        c.add_records([{"contentText": "x", "publishedAt": "2024-01-01"}], source="Bad Source")
    assert c.count() == 1


def _add(corpus, source, n=3):
    corpus.add_records([{"sourceId": f"{source}-{i}", "contentText": f"post {i} from {source}",
                         "publishedAt": "2026-02-28T10:00:00Z"} for i in range(n)], source=source)


@pytest.fixture(scope="module")
def v1():
    server = V1()
    _add(server.corpus, "mastodon")
    yield server
    server.corpus.close()


def test_v1_records_accepts_a_source_the_corpus_holds(v1):
    body = v1.ok("/v1/records?source=mastodon&limit=50")
    assert len(body["items"]) == 3 and {i["source"] for i in body["items"]} == {"mastodon"}
    # a spec source kind with no records is still a valid (empty) filter
    assert v1.ok("/v1/records?source=twitter")["items"] == []
    for bad in ("telegram", "Bad%20Name"):
        status, headers, body = v1.get(f"/v1/records?source={bad}")
        assert_json_error(status, body, 400, headers)
        assert "or a source the corpus holds" in body["error"]
    status, headers, body = v1.get(f"/v1/records?source={'x' * 70}")
    assert_json_error(status, body, 400, headers)


def test_v1_source_timeline_for_an_open_source(v1):
    body = v1.ok("/v1/stats/sources/mastodon/timeline?days=7")
    assert body["sourceId"] == "mastodon" and sum(d["recordCount"] for d in body["timeline"]) == 3
    for missing in ("telegram", "Not-A-Slug"):
        status, headers, body = v1.get(f"/v1/stats/sources/{missing}/timeline")
        assert_json_error(status, body, 404, headers)


@pytest.fixture(scope="module")
def keyed():
    corpus = open_keyed_corpus()
    _add(corpus, "telegram", 2)
    key = corpus.create_key("enterprise", per_minute=10**6, per_day=10**7)
    app = create_app(corpus)

    def get(path):
        return checked_call(app, "keyed", path, {"x-api-key": key})

    yield get
    clear_cache()
    corpus.close()


def test_keyed_discourse_accepts_a_source_the_corpus_holds(keyed):
    status, _, body = keyed("/api/v1/discourse?source=telegram")
    assert status == 200, body
    data = body["data"] if isinstance(body, dict) else json.loads(body)["data"]
    assert len(data) == 2 and {d["source"] for d in data} == {"telegram"}
    status, headers, body = keyed("/api/v1/discourse?source=mastodon")
    assert_json_error(status, body, 400, headers)
