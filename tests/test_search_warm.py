"""A server worker loads the embedder and the search index before it serves, not on the first search."""
from __future__ import annotations

import gc
import json

from tests.http_client import call

from corpuskit import open_corpus, search
from corpuskit.enrich import pipeline


def test_a_worker_warms_search_before_its_first_request(demo_corpus, tmp_path, monkeypatch, capsys):
    import server

    path = tmp_path / "copy.db"
    demo_corpus.conn.execute("VACUUM INTO ?", (str(path),))
    c = open_corpus(path)
    key = c.create_key(tier="enterprise", name="tests", per_minute=10**6, per_day=10**7)
    c.close()
    loads = []
    real = pipeline.load_embedder
    monkeypatch.setattr(pipeline, "load_embedder", lambda conn: loads.append(1) or real(conn))
    monkeypatch.setattr(search, "_indexes", {})
    seen = {}

    class Server:
        def __init__(self, app):
            self.app = app

        def run(self):   # instead of serving: what the first request would find
            seen["loaded before serving"] = len(loads)
            status, _, body = call(self.app, "GET", "/api/v1/search?q=battery+recall", {"x-api-key": key})
            seen["search"] = (status, len(json.loads(body)["results"]))
            seen["loaded after the first search"] = len(loads)

    monkeypatch.setattr("corpuskit.api.wsgi_server.make_server", lambda app, sock, **kw: Server(app))
    options = {"app": {"quantised_from": None}, "driver": None, "threads": 4, "max_connections": 10,
               "idle_timeout": 30}
    try:
        server.serve_worker(path, None, None, options)
    finally:
        gc.unfreeze()
    assert seen["loaded before serving"] == 1
    assert seen["search"][0] == 200 and seen["search"][1] > 0
    assert seen["loaded after the first search"] == 1
    assert "search warmed (embedder loaded, index mapped) in" in capsys.readouterr().out


def test_warming_a_corpus_without_embeddings_does_nothing(corpus):
    assert search.warm_search(corpus) is None


def test_a_worker_whose_embedder_cannot_load_still_serves(tmp_path, monkeypatch, capsys):
    import server
    from tests.api_fixtures import build_api_corpus

    path = tmp_path / "fixture.db"
    c = open_corpus(path, now="2026-03-01T12:00:00Z")
    build_api_corpus(c)   # its embedder row holds no loadable state
    key = c.create_key(tier="enterprise", name="tests", per_minute=10**6, per_day=10**7)
    c.close()
    seen = {}

    class Server:
        def __init__(self, app):
            self.app = app

        def run(self):
            seen["status"] = call(self.app, "GET", "/v1/records?limit=1", {"Authorization": f"Bearer {key}"})[0]

    monkeypatch.setattr("corpuskit.api.wsgi_server.make_server", lambda app, sock, **kw: Server(app))
    monkeypatch.setattr(search, "_indexes", {})
    options = {"app": {"quantised_from": None}, "driver": None, "threads": 4, "max_connections": 10,
               "idle_timeout": 30}
    try:
        server.serve_worker(path, "2026-03-01T12:00:00Z", None, options)
    finally:
        gc.unfreeze()
    assert seen["status"] == 200
    assert "search not warmed:" in capsys.readouterr().out
