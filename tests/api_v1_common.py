"""Shared setup for the ``/v1`` tests: a fixture corpus, an app, a key, id helpers."""
from __future__ import annotations

import json

from tests.api_fixtures import NOW, build_api_corpus
from tests.http_client import call

from corpuskit import open_corpus
from corpuskit.api import create_app
from corpuskit.api.ids import encode_id


class V1:
    """A fixture corpus served in-process, with a key whose allowance tests never exhaust."""

    def __init__(self, path=":memory:"):
        self.corpus = open_corpus(path, now=NOW)
        self.keys = build_api_corpus(self.corpus)
        self.key = self.corpus.create_key(tier="enterprise", name="tests", per_minute=10**7, per_day=10**8)
        self.app = create_app(self.corpus, heartbeat_seconds=30)
        self.auth = {"Authorization": f"Bearer {self.key}"}

    def id(self, kind: str, value: int) -> str:
        return encode_id(self.corpus, kind, value)

    def get(self, path: str, headers=None):
        """``(status, headers, decoded JSON)`` of an authenticated GET."""
        status, response_headers, body = call(self.app, "GET", path, {**self.auth, **(headers or {})})
        assert response_headers["content-type"].startswith("application/json"), (path, response_headers)
        return status, response_headers, json.loads(body.decode("utf-8"))

    def ok(self, path: str):
        status, _, body = self.get(path)
        assert status == 200, (path, status, body)
        return body

    def walk(self, path: str) -> list:
        """Every item of a cursor-paged list, following ``nextCursor`` to the end."""
        items, cursor, sep = [], None, "&" if "?" in path else "?"
        for _ in range(1000):
            body = self.ok(path + (f"{sep}cursor={cursor}" if cursor else ""))
            items += body["items"]
            cursor = body["nextCursor"]
            if cursor is None:
                return items
        raise AssertionError("paging did not end")
