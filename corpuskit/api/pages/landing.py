"""The server's front door, ``/``: an HTML page for browsers, a JSON index for everyone else.

The HTML page shows what the corpus holds (records, span, sources, topics,
derived rows, the last run of each stage), the ``/api/v1/status`` figures,
how to get a key, one ``curl`` example per interface written with the
address the client used, and links to the reference and the OpenAPI
documents. Nothing on it needs a key and nothing on it is secret: no key,
no key prefix, no file path.
"""
from __future__ import annotations

from corpuskit.api.pages.html import (Markup, code, document, element, escape, fmt_int, inline_list,
                                      join, link, table)
from corpuskit.store.api_keys import TIERS

#: Every link the landing page and the JSON index offer: (rel, href, title, media type).
LINKS = (
    ("docs", "/docs", "API reference (HTML)", "text/html"),
    ("openapi-keyed", "/api/v1/openapi.json", "OpenAPI document of the keyed interface /api/v1",
     "application/json"),
    ("openapi-bearer", "/v1/openapi.json", "OpenAPI document of the bearer interface /v1",
     "application/json"),
    ("status", "/api/v1/status", "Status figures (no key needed)", "application/json"),
)

KEY_COMMAND = "corpuskit keys create --db CORPUS_FILE --tier research"


def examples(origin: str) -> dict:
    """One ``curl`` command per interface (and the status check), against ``origin``."""
    return {
        "keyed": f'curl -H "x-api-key: $KEY" "{origin}/api/v1/topics"',
        "bearer": f'curl -H "Authorization: Bearer $KEY" "{origin}/v1/records?limit=2"',
        "status": f'curl "{origin}/api/v1/status"',
    }


def json_index(origin: str) -> dict:
    """What ``/`` answers a client that did not ask for HTML: the same links, as JSON."""
    curl = examples(origin)
    return {
        "service": "corpuskit",
        "links": [{"rel": rel, "href": href, "title": title, "type": kind}
                  for rel, href, title, kind in LINKS],
        "interfaces": [
            {"name": "keyed", "base": "/api/v1", "openapi": "/api/v1/openapi.json",
             "auth": "x-api-key: <key> (or Authorization: Bearer <key>)", "example": curl["keyed"]},
            {"name": "bearer", "base": "/v1", "openapi": "/v1/openapi.json",
             "auth": "Authorization: Bearer <key>", "example": curl["bearer"]},
        ],
        "keys": f"{KEY_COMMAND}  (prints the key once, on its last line)",
    }


def _when(timestamp) -> Markup:
    """An ISO timestamp as ``YYYY-MM-DD HH:MM UTC`` in a ``<time>`` element (date and time never split)."""
    if not timestamp:
        return escape("\u2013")
    text = str(timestamp)
    if len(text) >= 16 and text[10:11] == "T":
        return element("time", element("span", text[:10]), " ", element("span", text[11:16] + " UTC"),
                       datetime=text)
    return element("time", text, datetime=text)


def _figures(items) -> Markup:
    return element("ul", [element("li", element("strong", value), element("span", label))
                          for value, label in items], class_="figures")


def _overview(s: dict) -> Markup:
    clock_note = {"frozen": "the newest record's time, as the corpus is finished",
                  "live": "the wall clock, as the corpus is still being collected",
                  "fixed": "fixed when the server started"}.get(s["clockMode"], s["clockMode"])
    span = (element("p", "Published from ", _when(s["firstPublishedAt"]), " to ",
                    _when(s["lastPublishedAt"]), ". Corpus clock: ", _when(s["clock"]),
                    f" ({clock_note}); every \u201clast N days\u201d counts back from it.")
            if s["records"] else element("p", "The corpus holds no record yet."))
    last = s["runs"][0] if s["runs"] else None
    last_run = (element("p", "Last run: the ", last["stage"], " stage (", code(last["runId"]), ", ", last["status"],
                        "), started ", _when(last["startedAt"]), "; ", link("#status", "every stage"), ".")
                if last else element("p", "No stage has run yet."))
    return join([
        element("h2", "The corpus", id="corpus"),
        _figures([(fmt_int(s["records"]), "records"), (fmt_int(len(s["sources"])), "sources"),
                  (fmt_int(s["topicCount"]), "topics"), (fmt_int(s["entities"]), "entities"),
                  (fmt_int(s["signals"]), "signals"), (fmt_int(s["stories"]), "current stories")]),
        span, last_run,
    ])


def _holdings(s: dict) -> Markup:
    sources = table(["Source", "Records", "Last ingested"],
                    [[join([code(x["source"]), None if x["healthy"] else element("strong", " (unhealthy)")]),
                      fmt_int(x["recordCount"]), _when(x["lastIngestedAt"])] for x in s["sources"]],
                    numeric=(1,)) if s["sources"] else element("p", "No source yet.")
    if s["topics"]:
        topics = table(["Topic", "Name (for filters)", "Records"],
                       [[join([t["displayName"], None if t["active"] else element("span", " (inactive)",
                                                                                  class_="note")]),
                         code(t["name"]), fmt_int(t["recordCount"])] for t in s["topics"]], numeric=(2,))
        rest = s["topicCount"] - len(s["topics"])
        more = element("p", f"and {fmt_int(rest)} more: ", code("GET /api/v1/topics"), " lists them all.",
                       class_="note") if rest > 0 else None
    else:
        topics, more = element("p", "No topic yet (topics come from the enrich stage)."), None
    unhealthy = any(not x["healthy"] for x in s["sources"])
    return join([
        element("h2", "Sources", id="sources"),
        element("p", "A source is unhealthy when its last collection failed; ",
                code("GET /v1/sources"), " says why.", class_="note") if unhealthy else None,
        sources,
        element("h2", "Topics", id="topics"),
        element("p", "Most records first; a record can belong to more than one topic.", class_="note"),
        topics, more,
    ])


def _status_section(s: dict) -> Markup:
    st = s["status"]
    runs = table(["Stage", "Run", "Status", "Started", "Finished"],
                 [[r["stage"], code(r["runId"]), r["status"], _when(r["startedAt"]), _when(r["finishedAt"])]
                  for r in s["runs"]], caption="Last run of each stage, newest first") if s["runs"] else \
        element("p", "No stage has run yet.")
    return join([
        element("h2", "Status", id="status"),
        element("p", "Status: ", element("strong", st["status"]), ", checked at ", _when(st["checkedAt"]),
                " (the corpus clock). The same figures as JSON: ", link("/api/v1/status", "/api/v1/status"),
                "."),
        _figures([(fmt_int(st["records24h"]), "records in the last 24\u00a0h"),
                  (fmt_int(st["activeTopics"]), "active topics"),
                  (fmt_int(st["signals48h"]), "signals in the last 48\u00a0h")]),
        runs,
    ])


def _key_section() -> Markup:
    tiers = table(["Tier", "Per minute", "Per day"],
                  [["free", fmt_int(TIERS["free"][0]), fmt_int(TIERS["free"][1])],
                   ["research", fmt_int(TIERS["research"][0]), fmt_int(TIERS["research"][1])],
                   ["enterprise", "set at creation", "set at creation"]],
                  caption="Allowances (shared by both interfaces)", numeric=(1, 2))
    return join([
        element("h2", "Use it", id="use"),
        element("h3", "1. Get a key", id="keys"),
        element("p", "Every endpoint except this page, ", link("/docs", "/docs"), ", ",
                link("/api/v1/status", "/api/v1/status"),
                " and the two OpenAPI documents needs a key. Whoever runs this server creates one on "
                "the machine that holds the corpus file (", code("CORPUS_FILE"), " below):"),
        element("pre", code(f"KEY=$({KEY_COMMAND} | tail -1)")),
        element("p", "The key is printed once, on the last line; only its hash is stored. ",
                code("corpuskit keys list"), " and ", code("corpuskit keys revoke"),
                " manage keys; ", code("python server.py"),
                " also prints a research key each time it starts."),
        tiers,
    ])


def _examples_section(origin: str) -> Markup:
    # one argument a line (shell continuations), so a phone shows the address whole
    curl = {k: v.replace(f' "{origin}', f' \\\n  "{origin}') if " -H " in v else v
            for k, v in examples(origin).items()}
    return join([
        element("h3", "2. Call the keyed interface, ", code("/api/v1"), id="examples"),
        element("p", "Send the key in ", code("x-api-key"), " (or ", code("Authorization: Bearer"),
                "). Topics, narratives, discourse, search, signals, entities, snapshots, trends, "
                "observations, clusters; offset paging."),
        element("pre", code(curl["keyed"])),
        element("h3", "or the bearer interface, ", code("/v1")),
        element("p", "Send the key as ", code("Authorization: Bearer"),
                ". Records, stories, signals, topics, entities, statistics, arcs, a signal stream; "
                "opaque ids and cursor paging."),
        element("pre", code(curl["bearer"])),
        element("h3", "The status check needs no key"),
        element("pre", code(curl["status"])),
    ])


def _reference_nav() -> Markup:
    return element("nav", element("h2", "Reference", id="reference"),
                   element("ul", [element("li", link(href, title), " ", code(href))
                                  for _, href, title, _ in LINKS]),
                   aria_label="API reference")


def _quick_links() -> Markup:
    names = {"docs": "API reference", "openapi-keyed": "OpenAPI /api/v1", "openapi-bearer": "OpenAPI /v1",
             "status": "Status (JSON)"}
    return element("nav", inline_list([link(href, names[rel]) for rel, href, _, _ in LINKS]
                                      + [link("#use", "Get a key and call it")]),
                   aria_label="Quick links")


def landing_page(summary: dict, origin: str) -> bytes:
    """The HTML landing page for ``summary`` (:func:`~corpuskit.api.pages.summary.corpus_summary`)."""
    name = summary["name"]
    body = join([
        element("header",
                element("h1", "corpuskit: ", name),
                element("p", "A corpus of public posts, enriched, analysed and narrated, served over two "
                             "HTTP interfaces. Start with the ", link("/docs", "API reference"), ".",
                        class_="lede")),
        _quick_links(),
        element("main", _overview(summary), _key_section(), _examples_section(origin),
                _holdings(summary), _status_section(summary), _reference_nav()),
        element("footer", "Served by corpuskit. Figures are read from the corpus when the page is made."),
    ])
    return document(f"corpuskit: {name}", body,
                    description=f"What the corpuskit corpus {name} holds and how to query it over HTTP.")
