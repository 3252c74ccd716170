"""arXiv papers through the export API's Atom feed (``/api/query``).

Asked with ``search_query``, ``sortBy=submittedDate&sortOrder=descending``
and paged by ``start``/``max_results``. Each Atom ``entry`` has ``id``
(``http://arxiv.org/abs/<id>v<n>``), ``published``, ``updated``, ``title``,
``summary``, ``author/name``, ``link`` (abstract and pdf), ``category`` and
``arxiv:primary_category``, optionally ``arxiv:doi``, ``arxiv:comment``,
``arxiv:journal_ref``; ``opensearch:totalResults`` gives the size. arXiv asks
for no more than one request every 3 seconds.
"""
from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from corpuskit.errors import CollectorError
from corpuskit.ingest.collectors.base import Collector, Walk

NS = {"atom": "http://www.w3.org/2005/Atom",
      "arxiv": "http://arxiv.org/schemas/atom",
      "opensearch": "http://a9.com/-/spec/opensearch/1.1/"}
_VERSION = re.compile(r"v(\d+)$")
_FIELD = re.compile(r"\b(ti|au|abs|co|jr|cat|rn|id|all|submittedDate):", re.IGNORECASE)


def search_query(query: str) -> str:
    """arXiv ``search_query``: passed through when it uses field prefixes, else ``all:``."""
    query = " ".join(query.split())
    if _FIELD.search(query):
        return query
    return f'all:"{query}"' if " " in query else f"all:{query}"


class ArxivCollector(Collector):
    """Papers matching ``query`` (plain words, or arXiv syntax like ``cat:cs.CL AND ti:bias``)."""

    name = "arxiv"
    default_base_url = "http://export.arxiv.org/api/query"
    default_page_size = 100
    min_interval = 3.0

    def pages(self, client, walk: Walk):
        url = self.resolved_base_url()
        start = 0
        while True:
            params = {"search_query": search_query(walk.query), "start": start,
                      "max_results": walk.page_size, "sortBy": "submittedDate",
                      "sortOrder": "descending"}
            body = client.get(url, params, accept="application/atom+xml")
            total, entries = parse_feed(body, self.name, url)
            yield [entry_to_record(e) for e in entries]
            start += len(entries)
            if not entries or start >= total:
                return


def parse_feed(body: bytes, source: str = "arxiv", url: str = "") -> tuple[int, list]:
    """``(totalResults, entries)`` of an arXiv Atom answer; bad XML raises CollectorError."""
    try:
        root = ET.fromstring(body)
    except ET.ParseError as exc:
        raise CollectorError(f"{source}: malformed Atom XML from {url}: {exc}") from exc
    if root.tag != f"{{{NS['atom']}}}feed":
        raise CollectorError(f"{source}: the answer from {url} is not an Atom feed")
    total_text = root.findtext("opensearch:totalResults", default="0", namespaces=NS)
    entries = root.findall("atom:entry", NS)
    # arXiv reports a failed query as a single entry titled "Error".
    if len(entries) == 1 and (entries[0].findtext("atom:title", "", NS) or "").strip() == "Error":
        detail = " ".join((entries[0].findtext("atom:summary", "", NS) or "").split())
        raise CollectorError(f"{source}: arXiv refused the query at {url}: {detail}")
    try:
        total = int(total_text)
    except ValueError:
        total = len(entries)
    return total, entries


def _text(element, path: str) -> str:
    return " ".join((element.findtext(path, default="", namespaces=NS) or "").split())


def entry_to_record(entry) -> dict:
    """One Atom entry as a raw record."""
    abs_url = _text(entry, "atom:id")
    ident = abs_url.rsplit("/abs/", 1)[-1]
    match = _VERSION.search(ident)
    version = int(match.group(1)) if match else None
    base_id = _VERSION.sub("", ident)
    authors = [_text(a, "atom:name") for a in entry.findall("atom:author", NS)]
    pdf = ""
    page = abs_url
    for link in entry.findall("atom:link", NS):
        if link.get("title") == "pdf":
            pdf = link.get("href", "")
        elif link.get("rel") == "alternate":
            page = link.get("href", page)
    primary = entry.find("arxiv:primary_category", NS)
    meta = {
        "arxivId": base_id,
        "version": version,
        "authors": authors,
        "categories": [c.get("term") for c in entry.findall("atom:category", NS) if c.get("term")],
        "primaryCategory": primary.get("term") if primary is not None else None,
        "updated": _text(entry, "atom:updated") or None,
        "pdfUrl": pdf or None,
        "doi": _text(entry, "arxiv:doi") or None,
        "comment": _text(entry, "arxiv:comment") or None,
        "journalRef": _text(entry, "arxiv:journal_ref") or None,
    }
    return {
        "sourceId": base_id,
        "title": _text(entry, "atom:title"),
        "contentText": _text(entry, "atom:summary"),
        "url": page,
        "author": ", ".join(authors),
        "publishedAt": _text(entry, "atom:published"),
        "language": "en",
        "contentType": "paper",
        "metadata": {k: v for k, v in meta.items() if v not in (None, "", [])},
    }
