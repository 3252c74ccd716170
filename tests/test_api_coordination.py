"""``/api/v1/coordination`` and ``/v1/coordination`` (extension): the planted campaign of
tests/test_coordination.py as one group on both interfaces, every parameter validated, keys required.

Every answer is checked against its interface's OpenAPI document (``checked_call``).
"""
from __future__ import annotations

import numpy as np
import pytest

from corpuskit.api import create_app
from corpuskit.api.auth import clear_cache
from tests.http_client import assert_json_error
from tests.openapi_check import checked_call
from tests.test_coordination import CAMPAIGN, _background, _corpus, _planted


@pytest.fixture(scope="module")
def api():
    rng = np.random.default_rng(7)
    corpus = _corpus(_background(rng) + _planted(rng))
    key = corpus.create_key("enterprise", per_minute=10**6, per_day=10**7)
    app = create_app(corpus)

    def get(interface, path, headers=None):
        auth = {"x-api-key": key} if interface == "keyed" else {"Authorization": f"Bearer {key}"}
        return checked_call(app, interface, path, auth if headers is None else headers)

    get.corpus, get.key = corpus, key
    yield get
    clear_cache()
    corpus.close()


def _ok(api, interface, path):
    status, _, body = api(interface, path)
    assert status == 200, (path, body)
    return body


def test_keyed_lists_the_campaign_as_one_group_with_its_texts_and_records(api):
    body = _ok(api, "keyed", "/api/v1/coordination?window=120&items=5")
    assert body["pagination"] == {"total": 1, "limit": 20, "offset": 0, "hasMore": False}
    group = body["data"][0]
    assert group["group"] == 1 and group["accounts"] == 10
    assert [m["account"] for m in group["members"]] == CAMPAIGN
    assert group["itemCount"] == 5 and len(group["items"]) == 5
    assert group["items"][0]["item"] == "the election was stolen share before they delete it 0 truth"
    assert all(i["accounts"] == 10 and len(i["records"]) == 10 for i in group["items"])
    texts = {r for (r,) in api.corpus.conn.execute(
        f"SELECT content_text FROM records WHERE id IN ({','.join(group['items'][0]['records'])})")}
    assert texts == {"the election was stolen share before they delete it 0 #truth"}
    assert [i["first"] for i in group["items"]] == sorted(i["first"] for i in group["items"])
    assert body["settings"]["window"] == 120 and body["settings"]["windowEstimated"] is False


def test_bearer_names_records_by_opaque_ids(api):
    body = _ok(api, "bearer", "/v1/coordination?window=120&items=1")
    assert body["total"] == 1 and body["groups"][0]["accounts"] == 10
    assert all(r.startswith("rec_") for r in body["groups"][0]["items"][0]["records"])
    keyed = _ok(api, "keyed", "/api/v1/coordination?window=120&items=1")
    assert body["groups"][0]["members"] == keyed["data"][0]["members"]


def test_filters_and_paging(api):
    assert _ok(api, "keyed", "/api/v1/coordination?window=120&min_repeats=6")["data"] == []
    assert _ok(api, "keyed", "/api/v1/coordination?window=120&offset=1")["data"] == []
    assert _ok(api, "keyed", "/api/v1/coordination?window=120&query=nothingmatchesthisword")["data"] == []
    assert _ok(api, "keyed", "/api/v1/coordination?window=120&since=2024-03-01&until=2024-03-11")["data"]
    assert _ok(api, "bearer", "/v1/coordination?by=url")["groups"] == []


@pytest.mark.parametrize("query, contains", [
    ("by=emoji", "by"), ("window=0", "window"), ("window=abc", "window"), ("min_repeats=0", "min_repeats"),
    ("items=-1", "items"), ("limit=0", "limit"), ("offset=-1", "offset"), ("since=yesterday", "since"),
    ("since=2024-03-05&until=2024-03-01", "since"), ("query=%28unclosed", "query"),
])
def test_bad_parameters_are_400_on_both(api, query, contains):
    for interface, path in (("keyed", "/api/v1/coordination"), ("bearer", "/v1/coordination")):
        code, headers, body = api(interface, f"{path}?{query}")
        assert_json_error(code, body, 400, headers)
        assert contains in body["error"], body


def test_a_key_is_required(api):
    for interface, path in (("keyed", "/api/v1/coordination"), ("bearer", "/v1/coordination")):
        code, headers, body = api(interface, path, headers={})
        assert_json_error(code, body, 401, headers)



def test_a_query_naming_an_unknown_topic_selects_nothing(api):
    for interface, path, key in (("keyed", "/api/v1/coordination", "data"), ("bearer", "/v1/coordination", "groups")):
        assert _ok(api, interface, f"{path}?window=120&query=topic%3Anosuchtopic")[key] == []


def test_groups_are_computed_once_per_setting_and_data_version(api, monkeypatch):
    """Pages, item counts and either interface reuse one run of the null model per setting; another
    setting or another query runs it again (the hostile-parameter sweep ran it 472 times)."""
    import corpuskit.networks as networks
    from corpuskit.api import response_cache

    response_cache.clear()
    runs, real = [], networks.coordination
    monkeypatch.setattr(networks, "coordination", lambda *a, **k: runs.append(k) or real(*a, **k))
    assert api("keyed", "/api/v1/coordination?window=120&items=0")[0] == 400 and runs == []  # no run for a 400
    for path in ("/api/v1/coordination?window=120&items=5", "/api/v1/coordination?window=120&offset=1",
                 "/api/v1/coordination?window=120&limit=1&items=2"):
        _ok(api, "keyed", path)
    _ok(api, "bearer", "/v1/coordination?window=120&items=1")
    assert len(runs) == 1
    _ok(api, "keyed", "/api/v1/coordination?window=120&min_repeats=3")
    _ok(api, "keyed", "/api/v1/coordination?window=120&query=truth")
    assert len(runs) == 3
    assert [r["min_repeats"] for r in runs] == [2, 3, 2] and runs[2]["query"] is not None
    cut = _ok(api, "keyed", "/api/v1/coordination?window=120&items=2")
    assert len(cut["data"][0]["items"]) == 2 and len(runs) == 3
