"""server.py loads the embedder and the search index at start, before its workers fork: no first search loads them."""
from __future__ import annotations

import gc
import json

from tests.http_client import call

from corpuskit import open_corpus, search
from corpuskit.enrich import pipeline

_OPTIONS = {"app": {"quantised_from": None}, "driver": None, "threads": 4, "max_connections": 10,
            "idle_timeout": 30}


def _serve_once(monkeypatch, path, request) -> dict:
    """Run ``server.serve_worker`` on ``path`` with a server that answers ``request(app)`` and stops."""
    import server

    seen = {}

    class Server:
        def __init__(self, app):
            self.app = app

        def run(self):
            seen.update(request(self.app))

    monkeypatch.setattr("corpuskit.api.wsgi_server.make_server", lambda app, sock, **kw: Server(app))
    try:
        server.serve_worker(path, None, None, _OPTIONS)
    finally:
        gc.unfreeze()
    return seen


def test_the_first_search_after_start_loads_nothing(demo_corpus, tmp_path, monkeypatch):
    import server

    path = tmp_path / "copy.db"
    demo_corpus.conn.execute("VACUUM INTO ?", (str(path),))
    loads = []
    real = pipeline.load_embedder
    monkeypatch.setattr(pipeline, "load_embedder", lambda conn: loads.append(1) or real(conn))
    monkeypatch.setattr(search, "_indexes", {})
    c = open_corpus(path)
    key = c.create_key(tier="enterprise", name="tests", per_minute=10**6, per_day=10**7)
    line = server.warm_search_at_start(c, None)   # what main() does before it forks the workers
    c.close()
    assert line.startswith("search warmed (embedder loaded, index mapped) in ") and line.endswith(" s")
    assert len(loads) == 1

    def first_search(app):
        status, _, body = call(app, "GET", "/api/v1/search?q=battery+recall", {"x-api-key": key})
        return {"status": status, "results": len(json.loads(body)["results"]), "loads": len(loads)}

    seen = _serve_once(monkeypatch, path, first_search)   # a worker, as forked: it inherits the index
    assert seen == {"status": 200, "results": seen["results"], "loads": 1} and seen["results"] > 0


def test_a_corpus_whose_embedder_cannot_load_is_served_unwarmed(tmp_path, monkeypatch):
    import server
    from tests.api_fixtures import build_api_corpus

    path = tmp_path / "fixture.db"
    c = open_corpus(path, now="2026-03-01T12:00:00Z")
    build_api_corpus(c)   # its embedder row holds no loadable state
    key = c.create_key(tier="enterprise", name="tests", per_minute=10**6, per_day=10**7)
    monkeypatch.setattr(search, "_indexes", {})
    assert server.warm_search_at_start(c, None).startswith("search not warmed: ")
    c.close()
    seen = _serve_once(monkeypatch, path, lambda app: {
        "status": call(app, "GET", "/v1/records?limit=1", {"Authorization": f"Bearer {key}"})[0]})
    assert seen == {"status": 200}


def test_warming_a_corpus_without_embeddings_does_nothing(corpus):
    import server

    assert search.warm_search(corpus) is None
    assert server.warm_search_at_start(corpus, None) == "search not warmed: the corpus has no embeddings yet"
