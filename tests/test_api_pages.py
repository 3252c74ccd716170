"""The two pages for people: ``/`` (landing page or JSON index) and ``/docs`` (the API reference)."""
from __future__ import annotations

import json
import re
from html.parser import HTMLParser

import pytest
from tests.api_fixtures import NOW, build_api_corpus, insert_record
from tests.api_v1_common import V1
from tests.http_client import assert_json_error, call

from corpuskit import open_corpus
from corpuskit.api import create_app
from corpuskit.api.openapi import INTERFACES, document
from corpuskit.api.pages import _SummaryCache
from corpuskit.api.pages.negotiation import origin, prefers_html
from corpuskit.store.api_keys import list_keys

BROWSER = {"Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}
BLOCK = {"p", "li", "td", "th", "tr", "h1", "h2", "h3", "h4", "div", "pre", "br", "ul", "table", "caption", "header",
         "footer", "nav", "main", "section", "strong"}
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
HOSTILE = ['<script>alert(1)</script>', '"quoted" & \'single\'', "a&amp;b <b>bold</b>", "</td></tr></table>x"]


class PageChecker(HTMLParser):
    """Strict well-formedness for our pages: every element closed in order, unique ids, no script."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.errors, self.ids, self.links = [], [], [], []
        self.doctype, self.lang, self.title, self.text = None, None, "", []
        self._in_title = self._in_style = False

    def handle_decl(self, decl):
        self.doctype = decl

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag in ("script", "iframe", "object", "embed", "form"):
            self.errors.append(f"<{tag}> on the page")
        if "src" in attrs or any(name.startswith("on") for name in attrs):
            self.errors.append(f"<{tag}> with src or an event handler: {attrs}")
        if tag == "link":
            self.errors.append("external <link>")
        if tag == "html":
            self.lang = attrs.get("lang")
        if "id" in attrs:
            self.ids.append(attrs["id"])
        if tag == "a":
            self.links.append(attrs.get("href"))
        if tag == "title":
            self._in_title = True
        self._in_style = tag == "style"
        if tag in BLOCK:
            self.text.append(" ")
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        if tag not in VOID:
            self.errors.append(f"self-closed <{tag}/>")
        self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag):
        if tag in VOID:
            self.errors.append(f"end tag for void <{tag}>")
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1:] or 'nothing'}")
            return
        self.stack.pop()
        self._in_title = self._in_style = False
        if tag in BLOCK:
            self.text.append(" ")

    def handle_data(self, data):
        if self._in_title:
            self.title += data
        if not self._in_style:
            self.text.append(data)


def check_page(body: bytes) -> PageChecker:
    """Parse a page and assert it is well-formed, titled, in a language, and self-contained."""
    text = body.decode("utf-8")
    checker = PageChecker()
    checker.feed(text)
    checker.close()
    assert checker.errors == [], checker.errors[:5]
    assert checker.stack == [], f"unclosed: {checker.stack}"
    assert checker.doctype and checker.doctype.lower() == "doctype html"
    assert checker.lang == "en"
    assert checker.title.strip()
    assert len(checker.ids) == len(set(checker.ids)), sorted(i for i in checker.ids if checker.ids.count(i) > 1)
    assert '<meta name="viewport"' in text
    for href in checker.links:  # nothing leaves the server: relative paths and fragments only
        assert href and (href.startswith("/") and not href.startswith("//") or href.startswith("#")), href
    return checker


def page_text(checker: PageChecker) -> str:
    return re.sub(r"\s+", " ", "".join(checker.text))


@pytest.fixture(scope="module")
def v1():
    server = V1()
    yield server
    server.corpus.close()


@pytest.fixture(scope="module")
def pages(v1):
    """Both pages as a browser fetches them: ``{path: (body, checker)}``."""
    out = {}
    for path in ("/", "/docs"):
        status, headers, body = call(v1.app, "GET", path, {**BROWSER, "Host": "corpus.example:8123"})
        assert status == 200 and headers["content-type"] == "text/html; charset=utf-8", (path, status, body[:300])
        out[path] = (body, check_page(body))
    return out


# -- the landing page -----------------------------------------------------------
def test_landing_page_shows_the_corpus_status_keys_and_examples(v1, pages):
    body, checker = pages["/"]
    text = page_text(checker)
    assert "corpuskit: in-memory corpus" in checker.title
    corpus = v1.corpus
    assert re.search(r"\b45 records\b", text)                       # the fixture's 45 records
    for source in ("reddit", "hackernews", "bluesky"):
        assert source in text
    assert "Artificial intelligence" in text and "Climate" in text  # topic display names, with names
    assert "Published from 2026-02-24 00:00 UTC to 2026-03-01 12:00 UTC" in text
    status = json.loads(call(v1.app, "GET", "/api/v1/status")[2])
    assert f"{status['records24h']} records in the last 24 h" in text   # (a no-break space, collapsed here)
    assert f"{status['signals48h']} signals in the last 48 h" in text
    assert "corpuskit keys create --db CORPUS_FILE --tier research" in text
    # one curl example per interface, with the host and port the request used
    assert 'curl -H "x-api-key: $KEY" \\ "http://corpus.example:8123/api/v1/topics"' in text
    assert 'curl -H "Authorization: Bearer $KEY" \\ "http://corpus.example:8123/v1/records?limit=2"' in text
    assert 'curl "http://corpus.example:8123/api/v1/status"' in text
    for href in ("/docs", "/api/v1/openapi.json", "/v1/openapi.json", "/api/v1/status"):
        assert href in checker.links
    assert corpus.count() == 45


def test_landing_page_lists_the_last_run_of_each_stage(tmp_path):
    corpus = open_corpus(":memory:", now=NOW)
    build_api_corpus(corpus)
    with corpus.run_stage("enrich"):
        pass
    with corpus.run_stage("enrich"):
        pass
    app = create_app(corpus)
    checker = check_page(call(app, "GET", "/", BROWSER)[2])
    text = page_text(checker)
    assert "Last run: the enrich stage (enrich-2, done)" in text
    assert "enrich-1" not in text       # only the newest run of a stage
    corpus.close()


def test_landing_page_of_an_empty_corpus():
    corpus = open_corpus(":memory:")
    app = create_app(corpus)
    status, headers, body = call(app, "GET", "/", BROWSER)
    text = page_text(check_page(body))
    assert status == 200
    assert "The corpus holds no record yet." in text and "No stage has run yet." in text
    assert "No topic yet" in text and "No source yet." in text
    corpus.close()


def test_summary_cache_rereads_after_its_interval():
    corpus = open_corpus(":memory:", now=NOW)
    frozen, fresh = _SummaryCache(corpus, 3600.0), _SummaryCache(corpus, 0.0)
    assert frozen.get()["records"] == fresh.get()["records"] == 0
    with corpus.transaction():
        insert_record(corpus.conn, 1, NOW)
    assert frozen.get()["records"] == 0 and fresh.get()["records"] == 1
    corpus.close()


# -- the reference -------------------------------------------------------------------
def test_docs_lists_every_path_method_and_parameter_of_both_documents(pages):
    body, checker = pages["/docs"]
    html_text = body.decode("utf-8")
    text = page_text(checker)
    ids = set(checker.ids)
    count = 0
    for interface in INTERFACES:
        doc = document(interface)
        for path, item in doc["paths"].items():
            for method, op in item.items():
                count += 1
                anchor = re.sub(r"[^A-Za-z0-9]+", "-", f"{interface}-{op['operationId']}").strip("-")
                assert anchor in ids, (interface, path)
                # the operation's own section: from its heading to the next operation heading
                start = html_text.index(f'id="{anchor}"')
                end = html_text.find('class="op"', html_text.index(">", start))
                section = html_text[start:end if end > 0 else None]
                assert f"{method.upper()}</span><code>{path}</code>" in section, path
                for param in op.get("parameters", []):
                    assert f"<code>{param['name']}</code>" in section, (path, param["name"])
                    schema = param["schema"]
                    if "minimum" in schema and "maximum" in schema:
                        assert f"{schema['minimum']} to {schema['maximum']}" in section, (path, param["name"])
                    if "default" in schema:
                        assert f"default <code>{schema['default']}</code>" in section, (path, param["name"])
                    for value in schema.get("enum", []):
                        assert f"<code>{value}</code>" in section, (path, value)
                for status in op["responses"]:
                    assert f"<code>{status}</code>" in section, (path, status)
        for name in doc["components"]["schemas"]:
            assert f"{interface}-schema-{name}" in ids
    assert count >= 50
    for header in ("RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "RateLimit-Policy", "Retry-After"):
        assert header in text
    assert '{"error": "<message>"}' in text
    assert "Keyed interface" in text and "Bearer interface" in text


def test_docs_groups_by_interface_then_resource(pages):
    body, checker = pages["/docs"]
    html_text = body.decode("utf-8")
    keyed, bearer = html_text.index('id="keyed"'), html_text.index('id="bearer"')
    assert keyed < bearer
    for resource in ("narratives", "topics", "discourse", "search", "signals", "entities", "snapshots",
                     "trends", "compare", "observations", "clusters", "status"):
        assert keyed < html_text.index(f'id="keyed-res-{resource}"') < bearer
    for resource in ("records", "stories", "signals", "topics", "entities", "sources", "stats", "arcs", "stream"):
        assert html_text.index(f'id="bearer-res-{resource}"') > bearer
    # each bearer operation sits under its resource heading
    records, stories = html_text.index('id="bearer-res-records"'), html_text.index('id="bearer-res-stories"')
    assert records < html_text.index('id="bearer-getRecordEmbedding"') < stories


def test_every_link_on_both_pages_resolves(v1, pages):
    checked = set()
    for path, (_, checker) in pages.items():
        ids = set(checker.ids)
        for href in checker.links:
            if href.startswith("#"):
                assert href[1:] in ids, (path, href)
            elif href not in checked:
                checked.add(href)
                status, _, body = call(v1.app, "GET", href, BROWSER)
                assert status == 200, (path, href, status, body[:200])
    assert {"/", "/docs", "/api/v1/openapi.json", "/v1/openapi.json", "/api/v1/status"} <= checked


# -- negotiation, HEAD, headers, other paths ---------------------------------------------
@pytest.mark.parametrize("accept", [None, "*/*", "application/json", "text/html;q=0.5, application/json",
                                    "text/html;q=0", "text/html;q=abc", "text/*", "garbage,,;;", "x" * 5000])
def test_root_answers_json_to_clients_that_did_not_ask_for_html(v1, accept):
    headers = {} if accept is None else {"Accept": accept}
    status, response_headers, body = call(v1.app, "GET", "/", {**headers, "Host": "h.example:9"})
    assert status == 200 and response_headers["content-type"].startswith("application/json")
    assert response_headers["vary"] == "Accept"
    index = json.loads(body)
    assert {link["href"] for link in index["links"]} == {"/docs", "/api/v1/openapi.json", "/v1/openapi.json",
                                                         "/api/v1/status"}
    assert [i["base"] for i in index["interfaces"]] == ["/api/v1", "/v1"]
    assert "http://h.example:9/api/v1/topics" in index["interfaces"][0]["example"]
    assert "keys create" in index["keys"]


@pytest.mark.parametrize("accept", ["text/html", BROWSER["Accept"], "application/xhtml+xml",
                                    "application/json;q=0.5, text/html", "TEXT/HTML; charset=utf-8"])
def test_root_answers_html_to_browsers(v1, accept):
    status, headers, body = call(v1.app, "GET", "/", {"Accept": accept})
    assert status == 200 and headers["content-type"] == "text/html; charset=utf-8"
    assert headers["vary"] == "Accept"
    assert "default-src 'none'" in headers["content-security-policy"]
    assert headers["x-content-type-options"] == "nosniff"
    check_page(body)


def test_json_index_offers_the_same_links_as_the_page(v1, pages):
    index = json.loads(call(v1.app, "GET", "/")[2])
    offered = {link["href"] for link in index["links"]}
    assert offered <= set(pages["/"][1].links)


@pytest.mark.parametrize("path,headers", [("/", {}), ("/", BROWSER), ("/docs", {}), ("/docs", BROWSER)])
def test_head_answers_like_get_without_a_body(v1, path, headers):
    get_status, get_headers, get_body = call(v1.app, "GET", path, headers)
    status, head_headers, body = call(v1.app, "HEAD", path, headers)
    assert status == get_status == 200 and body == b""
    assert head_headers["content-type"] == get_headers["content-type"]
    assert int(head_headers["content-length"]) == len(get_body)


def test_other_unknown_paths_and_methods_stay_json(v1):
    for method, path, expected in (("GET", "/docs/", 404), ("GET", "/doc", 404), ("GET", "/index.html", 404),
                                   ("GET", "/docs/x", 404), ("GET", "//", 404), ("GET", "/%3Cscript%3E", 404),
                                   ("POST", "/", 405), ("PUT", "/", 405), ("DELETE", "/docs", 405)):
        status, headers, body = call(v1.app, method, path, BROWSER)
        assert_json_error(status, body, expected, headers)


# -- escaping and secrets ------------------------------------------------------------------
@pytest.fixture(scope="module")
def hostile_app():
    corpus = open_corpus(":memory:", now=NOW)
    build_api_corpus(corpus)
    with corpus.transaction():
        corpus.set_meta("name", HOSTILE[0])
        for i, name in enumerate(HOSTILE):
            cur = corpus.conn.execute("INSERT INTO topics(name, display_name, keywords, created_at) "
                                      "VALUES (?,?,?,?)", (name, HOSTILE[-1 - i], "[]", "2026-01-01T00:00:00Z"))
            rid = insert_record(corpus.conn, 100 + i, NOW, source=HOSTILE[i])
            corpus.conn.execute("INSERT INTO topic_assignments(record_id, topic_id, confidence) VALUES (?,?,?)",
                                (rid, cur.lastrowid, 1.0))
    with corpus.run_stage(HOSTILE[1]):
        pass
    yield create_app(corpus)
    corpus.close()


def test_hostile_corpus_topic_and_source_names_are_escaped(hostile_app):
    status, _, body = call(hostile_app, "GET", "/", BROWSER)
    assert status == 200
    checker = check_page(body)               # an unescaped <script> or </table> would fail here
    raw, text = body.decode("utf-8"), page_text(checker)
    assert "<script>" not in raw and "&lt;script&gt;alert(1)&lt;/script&gt;" in raw
    assert HOSTILE[0] in checker.title
    for value in HOSTILE:
        assert re.sub(r"\s+", " ", value) in text, value  # shown literally, as text
    assert "&amp;amp;b" in raw                  # an entity in a name is shown, not interpreted


@pytest.mark.parametrize("host", ['evil.example"><script>alert(1)</script>', "a b", "x:99999", "x:0",
                                  "http://other/", "[::1]:8000", "'", "h" * 400])
def test_a_hostile_host_header_never_reaches_the_page(hostile_app, host):
    status, _, body = call(hostile_app, "GET", "/", {**BROWSER, "Host": host})
    assert status == 200
    raw, text = body.decode("utf-8"), page_text(check_page(body))
    expected = "http://[::1]:8000" if host == "[::1]:8000" else "http://127.0.0.1"  # else the server's own address
    assert f'curl "{expected}/api/v1/status"' in text
    assert f'"{expected}/v1/records?limit=2"' in text
    assert "<script>" not in raw and "other/" not in raw and "99999" not in raw


def test_origin_and_accept_rules():
    base = {"SERVER_NAME": "srv", "SERVER_PORT": "8000", "wsgi.url_scheme": "http"}
    assert origin({**base, "HTTP_HOST": "example.org"}) == "http://example.org"
    assert origin({**base, "HTTP_HOST": "Example.org:443", "HTTP_X_FORWARDED_PROTO": "https"}) == \
        "https://Example.org:443"
    assert origin({**base, "HTTP_HOST": "bad host"}) == "http://srv:8000"
    assert origin({**base, "HTTP_X_FORWARDED_PROTO": "javascript"}) == "http://srv:8000"
    assert origin({"SERVER_NAME": "<x>", "SERVER_PORT": "80"}) == "http://127.0.0.1"
    assert prefers_html("text/html") and not prefers_html("*/*") and not prefers_html(None)
    assert not prefers_html("text/html;q=0.4, application/json;q=0.5")


def test_nothing_secret_on_either_page(tmp_path):
    folder = tmp_path / "private-folder"
    folder.mkdir()
    data = folder / "posts.jsonl"
    data.write_text("\n".join(json.dumps({"id": str(i), "body": f"post {i} about batteries",
                                          "created": f"2026-01-0{i + 1}T00:00:00Z"}) for i in range(3)))
    corpus = open_corpus(folder / "study.db")
    corpus.import_file(data, source="reddit", mapping={"sourceId": "id", "contentText": "body", "publishedAt": "created"})
    assert str(data) in corpus.conn.execute("SELECT settings FROM runs").fetchone()[0]  # the run knows the path
    key = corpus.create_key(tier="research", name="secret-holder", prefix="sekrit_")
    prefix = next(k.prefix for k in list_keys(corpus.conn))
    app = create_app(corpus)
    secrets = [key, prefix, "sekrit_", str(folder), "private-folder", str(data), "posts.jsonl", "secret-holder"]
    for path, headers in (("/", BROWSER), ("/", {}), ("/docs", BROWSER)):
        status, _, body = call(app, "GET", path, headers)
        assert status == 200
        raw = body.decode("utf-8")
        for secret in secrets:
            assert secret not in raw, (path, secret)
    text = page_text(check_page(call(app, "GET", "/", BROWSER)[2]))
    assert "corpuskit: study" in text and "3 records" in text      # the file's name, never its folder
    corpus.close()
