"""Hashtags in the HTTP detail answers (extensions, docs/api.md): a record's ``metadata.hashtags``
on ``/v1/records/{id}``, and the hashtags resolving to an entity on ``/v1/entities/{id}`` and
``/api/v1/entities/:name``; every answer checked against the OpenAPI documents."""
from __future__ import annotations

from urllib.parse import quote

import pytest

from corpuskit.api import create_app
from corpuskit.api.auth import clear_cache
from corpuskit.api.ids import encode_id
from corpuskit.query import entity_hashtags, record_hashtags
from tests.openapi_check import checked_call
from tests.test_entity_resolution import build


@pytest.fixture(scope="module")
def served():
    corpus = build()
    key = corpus.create_key("enterprise", per_minute=10**6, per_day=10**7)
    app = create_app(corpus)

    def get(interface, path):
        headers = {"Authorization": f"Bearer {key}"} if interface == "bearer" else {"x-api-key": key}
        status, _, body = checked_call(app, interface, path, headers)
        assert status == 200, (path, status, body)
        return body

    get.corpus = corpus
    yield get
    clear_cache()
    corpus.close()


def _entity(corpus, name):
    return corpus.conn.execute("SELECT id FROM entities WHERE name = ?", (name,)).fetchone()[0]


def test_read_layer(served):
    conn = served.corpus.conn
    # record 10: "#PfizerBioNTech jab done #CovidVaccine #covidvaccine" -> two tags, as first written
    assert record_hashtags(conn, 10) == ["CovidVaccine", "PfizerBioNTech"]
    assert record_hashtags(conn, 1) == [] and record_hashtags(conn, 10**6) == []
    pfizer = _entity(served.corpus, "Pfizer")
    assert entity_hashtags(conn, [pfizer]) == [("pfizerbiontech", "PfizerBioNTech", 1)]
    assert entity_hashtags(conn, []) == [] and entity_hashtags(conn, [10**6]) == []
    assert entity_hashtags(conn, [pfizer], limit=0) == []


def test_v1_record_detail_carries_its_hashtags_in_metadata(served):
    corpus = served.corpus
    body = served("bearer", f"/v1/records/{encode_id(corpus, 'rec', 10)}")
    assert body["metadata"]["hashtags"] == ["CovidVaccine", "PfizerBioNTech"]
    plain = served("bearer", f"/v1/records/{encode_id(corpus, 'rec', 1)}")
    assert "hashtags" not in plain["metadata"]


def test_v1_entity_detail_lists_the_hashtags_that_resolve_to_it(served):
    corpus = served.corpus
    body = served("bearer", f"/v1/entities/{encode_id(corpus, 'ent', _entity(corpus, 'Katalin Karikó'))}")
    assert body["hashtags"] == [{"tag": "katalinkariko", "written": "KatalinKariko", "records": 1}]
    lone = served("bearer", f"/v1/entities/{encode_id(corpus, 'ent', _entity(corpus, 'Russia'))}")
    assert lone["hashtags"] == []


def test_keyed_entity_profile_lists_the_hashtags_that_resolve_to_it(served):
    body = served("keyed", f"/api/v1/entities/{quote('BioNTech')}")
    assert body["hashtags"] == [{"tag": "pfizerbiontech", "written": "PfizerBioNTech", "records": 1}]
    assert served("keyed", "/api/v1/entities/Russia")["hashtags"] == []
