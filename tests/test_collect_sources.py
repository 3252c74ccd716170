"""Every collector over real HTTP against a local replay server: pages, field mapping, increments."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from corpuskit.errors import CollectorError, ValidationError
from corpuskit.ingest.collectors import COLLECTORS, collect, load_state
from corpuskit.ingest.collectors.http import HttpClient, user_agent
from corpuskit.ingest.collectors.replay import ReplayServer

FIXTURES = Path(__file__).parent / "fixtures" / "collect"
QUERIES = {"hackernews": "sqlite", "reddit": "science+technology", "bluesky": "climate",
           "gdelt": "heatwave", "google_news": "renewable energy", "arxiv": "sentiment",
           "youtube": "heat pump"}
SOURCES = sorted(QUERIES)
# items in the first collection, items the rerun adds, requests of each
EXPECTED = {"hackernews": (5, 2, 2, 1), "reddit": (5, 1, 2, 1), "bluesky": (5, 1, 2, 1),
            "gdelt": (5, 1, 2, 1), "google_news": (4, 1, 1, 1), "arxiv": (5, 1, 2, 1),
            "youtube": (5, 1, 4, 2)}


@pytest.fixture
def server():
    with ReplayServer() as srv:
        srv.load_cassette(FIXTURES / "cassette_initial.json")
        yield srv


def run(corpus, server, source, **kwargs):
    client = HttpClient(source, timeout=2, sleep=lambda s: None, backoff=0.01)
    kwargs.setdefault("page_size", 3)
    if source == "youtube":
        kwargs.setdefault("api_key", "test-secret-key")
    report = collect(corpus, source, QUERIES[source], base_url=server.base_url(source),
                     client=client, **kwargs)
    return report, client


def test_every_issue_source_has_a_collector():
    assert set(COLLECTORS) == set(SOURCES)


@pytest.mark.parametrize("source", SOURCES)
def test_first_collection_walks_every_page(corpus, server, source):
    first, _, requests, _ = EXPECTED[source]
    report, client = run(corpus, server, source)
    assert report.complete and report.error is None
    assert (report.added, report.fetched, report.duplicates) == (first, first, 0)
    assert client.requests_ == requests == len(server.requests)
    frame = corpus.records(source=source)
    assert len(frame) == first
    assert frame["sourceId"].is_unique and frame["sourceId"].notna().all()
    assert (frame["contentText"].str.len() > 0).all()
    assert frame["url"].str.startswith("http").all()
    # every request was polite: our User-Agent, the query sent
    for path, params, headers in server.requests:
        assert headers["User-Agent"] == user_agent()
        assert headers["User-Agent"].startswith("corpuskit/")
    state = load_state(corpus.conn, source, report.query)
    assert state["newest"] == frame["publishedAt"].max().strftime("%Y-%m-%dT%H:%M:%SZ")
    assert "pending" not in state
    assert corpus.clock_mode == "live"
    captured = frame["capturedAt"].dt.year.unique()
    assert len(captured) == 1 and captured[0] >= 2024   # wall-clock fetch time


@pytest.mark.parametrize("source", SOURCES)
def test_rerun_fetches_only_what_is_new(corpus, server, source):
    first, new, _, rerun_requests = EXPECTED[source]
    run(corpus, server, source)
    before = load_state(corpus.conn, source, QUERIES[source] if source != "reddit"
                        else "science+technology")
    server.clear()
    server.load_cassette(FIXTURES / "cassette_rerun.json")
    report, client = run(corpus, server, source)
    assert report.complete
    assert report.added == new and report.duplicates == 0
    assert client.requests_ == rerun_requests
    assert len(corpus.records(source=source)) == first + new
    after = load_state(corpus.conn, source, report.query)
    assert after["newest"] > before["newest"]
    # a third run with nothing new adds nothing
    report, _ = run(corpus, server, source)
    assert report.added == 0 and report.complete
    assert load_state(corpus.conn, source, report.query)["newest"] == after["newest"]


def test_incremental_requests_narrow_by_time_where_the_api_allows(corpus, server):
    for source in ("hackernews", "bluesky", "gdelt", "youtube"):
        run(corpus, server, source)
    server.clear()
    server.load_cassette(FIXTURES / "cassette_rerun.json")
    for source in ("hackernews", "bluesky", "gdelt", "youtube"):
        run(corpus, server, source)
    sent = {path: params for path, params, _ in server.requests}
    assert sent["/api/v1/search_by_date"]["numericFilters"] == "created_at_i>=1714561200"
    assert sent["/xrpc/app.bsky.feed.searchPosts"]["since"] == "2024-05-01T11:00:00Z"
    assert sent["/api/v2/doc/doc"]["startdatetime"] == "20240501110000"
    assert sent["/youtube/v3/search"]["publishedAfter"] == "2024-05-01T11:00:00Z"


def test_hackernews_fields(corpus, server):
    run(corpus, server, "hackernews")
    recs = {r.sourceId: r for r in corpus.records().itertuples()}
    story = recs["40000005"]
    assert story.title == "SQLite 3.46 released with new JSON functions"
    assert story.url == "https://sqlite.org/releaselog/3_46_0.html"
    assert story.author == "chrisp" and story.contentType == "post"
    assert story.publishedAt.isoformat() == "2024-05-01T11:00:00+00:00"
    assert story.metadata["points"] == 412 and story.metadata["numComments"] == 98
    ask = recs["40000004"]
    assert ask.url == "https://news.ycombinator.com/item?id=40000004"
    assert ask.contentText.startswith("We run a small SaaS & wonder")
    comment = recs["40000002"]
    assert comment.contentType == "comment" and comment.title == ""
    assert comment.contentText == "WAL mode fixed our concurrency issues > 90% of the time."
    assert comment.metadata["storyId"] == 40000001
    sent = server.requests[0][1]
    assert sent["query"] == "sqlite" and sent["tags"] == "story" and sent["hitsPerPage"] == "3"


def test_reddit_fields(corpus, server):
    run(corpus, server, "reddit", topic="science")
    recs = {r.sourceId: r for r in corpus.records().itertuples()}
    assert set(recs) == {"1cq0e5", "1cq0d4", "1cq0c3", "1cq0b2", "1cq0a1"}
    link = recs["1cq0e5"]
    assert link.subreddit == "science" and link.author == "reefwatch"
    assert link.url.startswith("https://www.reddit.com/r/science/comments/1cq0e5/")
    assert link.metadata["linkUrl"] == "https://www.nature.com/articles/coral-2024"
    assert link.metadata["score"] == 1520 and link.metadata["num_comments"] == 211
    assert link.topic == "science"
    self_post = recs["1cq0c3"]
    assert self_post.contentText == "I have a wet-lab background & want to learn R."
    assert "linkUrl" not in self_post.metadata
    assert recs["1cq0b2"].contentText == "Removed post"   # '[removed]' body -> the title
    assert server.requests[1][1]["after"] == "t3_1cq0c3"


def test_reddit_query_names_subreddits():
    from corpuskit.ingest.collectors.reddit import RedditCollector, parse_subreddits

    assert parse_subreddits("r/science, technology+Science") == ["science", "technology"]
    assert RedditCollector(query="technology+science").state_key() == "science+technology"
    with pytest.raises(ValidationError, match="not a subreddit name"):
        parse_subreddits("science+no/slashes")


def test_bluesky_fields(corpus, server):
    run(corpus, server, "bluesky")
    recs = {r.sourceId: r for r in corpus.records().itertuples()}
    post = recs["at://did:plc:aaa111/app.bsky.feed.post/3kr5aaa"]
    assert post.url == "https://bsky.app/profile/climatedesk.bsky.social/post/3kr5aaa"
    assert post.author == "climatedesk.bsky.social" and post.language == "en"
    assert post.metadata["likeCount"] == 340 and post.metadata["did"] == "did:plc:aaa111"
    assert recs["at://did:plc:bbb222/app.bsky.feed.post/3kr4bbb"].language == "fr"
    assert recs["at://did:plc:aaa111/app.bsky.feed.post/3kr1eee"].language == "en"   # en-US
    reply = recs["at://did:plc:ccc333/app.bsky.feed.post/3kr3ccc"]
    assert reply.contentType == "comment"
    assert reply.metadata["replyParent"].startswith("at://did:plc:aaa111/")
    assert server.requests[0][1]["sort"] == "latest"
    assert server.requests[1][1]["cursor"] == "3"


def test_gdelt_fields(corpus, server):
    run(corpus, server, "gdelt")
    recs = {r.sourceId: r for r in corpus.records().itertuples()}
    art = recs["https://www.diario.es/news/ola-de-calor"]
    assert art.contentType == "article" and art.language == "es"
    assert art.title == "Ola de calor en España: alerta roja"
    assert art.metadata["sourcecountry"] == "Spain" and art.metadata["languageName"] == "Spanish"
    assert art.publishedAt.isoformat() == "2024-05-01T10:00:00+00:00"
    assert recs["https://www.zeitung.de/news/hitzewelle"].language == "de"
    first, second = (params for _, params, _ in server.requests)
    assert first["mode"] == "artlist" and first["format"] == "json" and first["sort"] == "datedesc"
    assert "enddatetime" not in first and second["enddatetime"] == "20240501090000"


def test_gdelt_refusal_text_is_a_clear_error(corpus, server):
    server.clear()
    server.add("/api/v2/doc/doc", "Your search contained a phrase that was too short.",
               content_type="text/html")
    with pytest.raises(CollectorError, match="GDELT refused the query.*too short"):
        run(corpus, server, "gdelt")


def test_google_news_fields(corpus, server):
    run(corpus, server, "google_news")
    frame = corpus.records(source="google_news")
    assert list(frame["author"]) == ["Financial Times", "The Verge", "BBC", "Reuters"]
    row = frame.iloc[-1]
    assert row["title"] == "Solar capacity doubles in two years"   # " - Reuters" removed
    assert row["url"].startswith("https://news.google.com/rss/articles/")
    assert row["contentType"] == "article" and row["language"] == "en"
    assert row["publishedAt"].isoformat() == "2024-05-01T11:00:00+00:00"   # RFC 822 in GMT
    assert row["metadata"]["publisherUrl"] == "https://www.reuters.com"
    sent = server.requests[0][1]
    assert sent == {"q": "renewable energy", "hl": "en-US", "gl": "US", "ceid": "US:en"}


def test_google_news_malformed_feed(corpus, server):
    server.clear()
    server.add("/rss/search", "<html><body>Sorry, unusual traffic</body></html>")
    with pytest.raises(CollectorError, match="google_news"):
        run(corpus, server, "google_news")
    assert corpus.count() == 0


def test_arxiv_fields(corpus, server):
    run(corpus, server, "arxiv")
    recs = {r.sourceId: r for r in corpus.records().itertuples()}
    paper = recs["2405.00105"]
    assert paper.contentType == "paper"
    assert paper.title == "Sentiment Drift in Social Media Corpora"
    assert paper.contentText == "We measure how sentiment classifiers drift over time."
    assert paper.author == "Ana Lima, Bo Chen"
    assert paper.url == "http://arxiv.org/abs/2405.00105v1"
    assert paper.metadata["primaryCategory"] == "cs.CL"
    assert paper.metadata["categories"] == ["cs.CL", "cs.SI"]
    assert paper.metadata["comment"] == "12 pages, 4 figures"
    assert recs["2405.00104"].metadata["doi"] == "10.1000/xyz123"
    assert recs["2405.00101"].metadata["version"] == 3
    first = server.requests[0][1]
    assert first["search_query"] == "all:sentiment" and first["sortBy"] == "submittedDate"
    assert server.requests[1][1]["start"] == "3"


def test_arxiv_query_syntax_and_error_entry(corpus, server):
    from corpuskit.ingest.collectors.arxiv import search_query

    assert search_query("large language models") == 'all:"large language models"'
    assert search_query("cat:cs.CL AND ti:bias") == "cat:cs.CL AND ti:bias"
    server.clear()
    server.add("/api/query", (FIXTURES / "arxiv_error.xml").read_bytes())
    with pytest.raises(CollectorError, match="arXiv refused the query.*incorrect id format"):
        run(corpus, server, "arxiv")


def test_youtube_fields(corpus, server):
    run(corpus, server, "youtube")
    recs = {r.sourceId: r for r in corpus.records().itertuples()}
    video = recs["vid00000005"]
    assert video.contentType == "video" and video.url == "https://www.youtube.com/watch?v=vid00000005"
    assert video.author == "Engineering Explained"
    assert video.contentText.startswith("A full explanation of heat pumps")   # full description
    assert video.metadata["viewCount"] == 10234 and video.metadata["duration"] == "PT12M3S"
    assert video.metadata["tags"] == ["heat pump", "hvac"]
    assert video.language == "en"
    assert recs["vid00000004"].language == "es"
    searches = [p for path, p, _ in server.requests if path.endswith("/search")]
    assert all(p["key"] == "test-secret-key" and p["order"] == "date" for p in searches)


def test_youtube_needs_a_key(corpus, server):
    with pytest.raises(CollectorError, match="YOUTUBE_API_KEY"):
        run(corpus, server, "youtube", api_key=None)
    assert server.requests == []


def test_max_records_and_since(corpus, server):
    report, client = run(corpus, server, "hackernews", max_records=2)
    assert report.added == 2 and client.requests_ == 1 and report.complete
    assert sorted(corpus.records()["sourceId"]) == ["40000004", "40000005"]
    other = type(corpus)(":memory:")
    try:
        report, _ = run(other, server, "reddit", since="2024-05-01T06:00:00Z")
        assert sorted(other.records()["sourceId"]) == ["1cq0c3", "1cq0d4", "1cq0e5"]
        assert report.complete
    finally:
        other.close()


def test_max_cut_rerun_records_the_gap(corpus, server):
    run(corpus, server, "hackernews", max_records=1)           # newest: 40000005 at 11:00
    server.clear()
    server.load_cassette(FIXTURES / "cassette_rerun.json")
    run(corpus, server, "hackernews", max_records=1)           # 40000007 only; 40000006 skipped
    state = load_state(corpus.conn, "hackernews", "sqlite")
    assert state["newest"] == "2024-05-01T14:00:00Z"
    assert state["gaps"] == [{"after": "2024-05-01T11:00:00Z", "before": "2024-05-01T14:00:00Z"}]


def test_base_url_from_environment(corpus, server, monkeypatch):
    from corpuskit.cli import collector_options

    monkeypatch.setenv("CORPUSKIT_HACKERNEWS_BASE_URL", server.base_url("hackernews"))
    client = HttpClient("hackernews", timeout=2, sleep=lambda s: None)
    report = collect(corpus, "hackernews", "sqlite", page_size=3, client=client,
                     **collector_options()["hackernews"])
    assert report.added == 5


def test_bad_parameters(corpus):
    with pytest.raises(ValidationError, match="no collector for 'myspace'"):
        collect(corpus, "myspace", "x")
    with pytest.raises(ValidationError, match="a query is required"):
        collect(corpus, "bluesky", "  ")
    with pytest.raises(ValidationError, match="max_records must be at least 1"):
        collect(corpus, "hackernews", "x", max_records=0)
    with pytest.raises(ValidationError, match="unexpected keyword"):
        collect(corpus, "reddit", "science", colour="blue")


def test_recorded_answers_are_valid_json():
    for path in FIXTURES.glob("*.json"):
        json.loads(path.read_text())


def test_youtube_search_snippet_without_details_is_unescaped():
    from corpuskit.ingest.collectors.youtube import video_to_record

    raw = video_to_record("abc", {"title": "Don&#39;t buy a heat pump &amp; regret",
                                  "publishedAt": "2024-05-01T10:00:00Z", "channelTitle": "C"})
    assert raw["title"] == raw["contentText"] == "Don't buy a heat pump & regret"
    assert raw["url"] == "https://www.youtube.com/watch?v=abc" and raw["contentType"] == "video"
