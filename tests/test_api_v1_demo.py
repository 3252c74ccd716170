"""/v1 on the session demo corpus (a copy, since serving writes keys, counters and id secrets)."""
from __future__ import annotations

import json

import pytest

from corpuskit import open_corpus
from corpuskit.api import create_app
from tests.http_client import assert_json_error, call


@pytest.fixture(scope="module")
def demo_v1(demo_corpus, tmp_path_factory):
    path = tmp_path_factory.mktemp("demo-api") / "copy.db"
    demo_corpus.conn.execute("VACUUM INTO ?", (str(path),))
    corpus = open_corpus(path)
    key = corpus.create_key(tier="enterprise", per_minute=10**6, per_day=10**7)
    app = create_app(corpus)
    headers = {"Authorization": f"Bearer {key}"}

    def get(path):
        status, _, body = call(app, "GET", path, headers)
        return status, json.loads(body)

    yield get
    corpus.close()


def test_demo_lists_and_details(demo_v1):
    status, records = demo_v1("/v1/records?limit=100")
    assert status == 200 and records["total"] >= 1000 and len(records["items"]) == 100
    status, detail = demo_v1(f"/v1/records/{records['items'][0]['id']}")
    assert status == 200 and detail["content"]
    status, emb = demo_v1(f"/v1/records/{records['items'][0]['id']}/embedding")
    assert status == 200 and emb["dimensions"] == 512 and len(emb["embedding"]) == 512
    status, topics = demo_v1("/v1/topics")
    assert status == 200 and topics["total"] > 0
    status, topic = demo_v1(f"/v1/topics/{topics['items'][0]['id']}")
    assert status == 200 and topic["keywords"]
    status, signals = demo_v1("/v1/signals?limit=100")
    assert status == 200 and signals["total"] > 0
    assert {s["kind"] for s in signals["items"]} <= {"velocity", "novelty", "divergence"}
    status, sig = demo_v1(f"/v1/signals/{signals['items'][0]['id']}/evidence")
    assert status == 200 and sig["records"]
    for kind in ("divergence", "velocity"):          # quality flags on both shapes of detail
        item = next(s for s in signals["items"] if s["kind"] == kind)
        status, detail = demo_v1(f"/v1/signals/{item['id']}")
        quality = detail["quality"] if kind == "divergence" else detail["detail"]["quality"]
        assert status == 200 and {"baselineDays", "corpusEdge", "gap", "duplicateShare"} <= set(quality)
    status, timeline = demo_v1("/v1/stats/global/timeline?days=60")
    assert status == 200 and len(timeline["timeline"]) == 60
    assert sum(d["recordCount"] for d in timeline["timeline"]) > 0


def test_demo_stories_and_entities(demo_v1):
    status, stories = demo_v1("/v1/stories?limit=5")
    assert status == 200 and stories["total"] > 0
    status, story = demo_v1(f"/v1/stories/{stories['items'][0]['id']}")
    assert status == 200 and story["citations"]
    status, by_slug = demo_v1(f"/v1/stories/by-slug/{story['slug']}")
    assert status == 200 and by_slug["slug"] == story["slug"]
    status, lead = demo_v1("/v1/stories/lead")
    assert status in (200, 404)
    if status == 404:
        assert_json_error(status, lead)
    status, entities = demo_v1("/v1/entities?limit=5")
    assert status == 200 and entities["total"] > 0
    status, entity = demo_v1(entities["items"][0]["canonicalPath"])
    assert status == 200 and entity["id"] == entities["items"][0]["id"]
