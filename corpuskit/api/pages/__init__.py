"""The server's two pages for people: ``/`` (what the corpus holds, how to call it) and ``/docs``.

:func:`install` adds both routes to the app :func:`corpuskit.api.create_app`
builds. Neither needs a key; both answer ``HEAD``; every other unknown path
keeps the JSON ``{"error": ...}`` answer. ``/`` gives HTML to a client whose
``Accept`` names ``text/html`` and a JSON index of the same links to anyone
else; ``/docs`` is always HTML.
"""
from __future__ import annotations

import threading
import time

import bottle

from corpuskit.api.pages.html import CONTENT_SECURITY_POLICY
from corpuskit.api.pages.landing import json_index, landing_page
from corpuskit.api.pages.negotiation import origin, prefers_html
from corpuskit.api.pages.reference import reference_page
from corpuskit.api.pages.summary import corpus_summary

#: The landing page's figures are read at most this often per process (seconds): the
#: page needs no key, so a flood of it must not turn into a flood of aggregate queries.
SUMMARY_SECONDS = 5.0


class _SummaryCache:
    """``corpus_summary(corpus)``, re-read when older than ``seconds``."""

    def __init__(self, corpus, seconds: float):
        self.corpus, self.seconds = corpus, seconds
        self._lock = threading.Lock()
        self._value, self._at = None, float("-inf")

    def get(self) -> dict:
        with self._lock:
            now = time.monotonic()
            if self._value is None or now - self._at >= self.seconds:
                self._value, self._at = corpus_summary(self.corpus), now
            return self._value


def _html(body: bytes, cache: str) -> bytes:
    response = bottle.response
    response.content_type = "text/html; charset=utf-8"
    response.set_header("Content-Security-Policy", CONTENT_SECURITY_POLICY)
    response.set_header("X-Content-Type-Options", "nosniff")
    response.set_header("Referrer-Policy", "no-referrer")
    response.set_header("Cache-Control", cache)
    return body


def install(app: bottle.Bottle, corpus, summary_seconds: float = SUMMARY_SECONDS) -> None:
    """Register ``GET``/``HEAD`` ``/`` and ``/docs`` on ``app`` for ``corpus``."""
    summary = _SummaryCache(corpus, summary_seconds)

    def root():
        bottle.response.set_header("Vary", "Accept")
        if prefers_html(bottle.request.headers.get("Accept")):
            return _html(landing_page(summary.get(), origin(bottle.request.environ)), "no-cache")
        bottle.response.set_header("Cache-Control", "no-cache")
        return json_index(origin(bottle.request.environ))

    def docs():
        return _html(reference_page(), "public, max-age=300")

    app.route("/", "GET", root)
    app.route("/docs", "GET", docs)


__all__ = ["install"]
