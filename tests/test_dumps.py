"""Bulk dump importers: Pushshift NDJSON (plain and .zst), Bluesky firehose JSONL, Hacker News items JSON."""
from __future__ import annotations

import gzip
import json

import pytest
import zstandard

from corpuskit.cli import main
from corpuskit.errors import ImportFormatError, StrictImportError
from corpuskit.ingest.dumps import detect_kind, import_dump

SUBMISSIONS = [
    {"id": "abc1", "subreddit": "science", "author": "alice", "created_utc": 1546300800,
     "title": "Mars rover finds ancient lake", "selftext": "", "url": "https://example.org/mars",
     "permalink": "/r/science/comments/abc1/mars_rover/", "score": 120, "num_comments": 14,
     "is_self": False, "over_18": False, "preview": {"images": [{"source": {"url": "x"}}]},
     "link_flair_text": None},
    {"id": "abc2", "subreddit": "technology", "author": "bob", "created_utc": "1546304400",
     "title": "Self post with text", "selftext": "Body of the post.", "is_self": True,
     "permalink": "/r/technology/comments/abc2/self_post/", "score": 3, "num_comments": 0},
    {"id": "abc3", "subreddit": "science", "author": "[deleted]", "created_utc": 1546308000,
     "title": "Removed but titled", "selftext": "[removed]", "is_self": True, "score": 1},
]
COMMENTS = [
    {"id": "ed1", "subreddit": "science", "author": "carol", "created_utc": 1546310000,
     "body": "Great find!", "link_id": "t3_abc1", "parent_id": "t3_abc1", "score": 5},
    {"id": "ed2", "subreddit": "science", "author": "[deleted]", "created_utc": 1546310100,
     "body": "[deleted]", "link_id": "t3_abc1", "parent_id": "t1_ed1", "score": 0},
    {"id": "abc1", "subreddit": "science", "author": "dave", "created_utc": 1546310200,
     "body": "Same base-36 id as a post", "link_id": "t3_abc1", "parent_id": "t3_abc1",
     "permalink": "/r/science/comments/abc1/mars_rover/abc1/"},
]
BLUESKY = [
    # Jetstream
    {"did": "did:plc:aaa", "time_us": 1725911162329308, "kind": "commit",
     "commit": {"rev": "3l3", "operation": "create", "collection": "app.bsky.feed.post",
                "rkey": "3l3qo2vuowo2b", "cid": "bafyA",
                "record": {"$type": "app.bsky.feed.post", "createdAt": "2024-09-09T19:46:02.102Z",
                           "langs": ["en"], "text": "Hello from the firehose"}}},
    {"did": "did:plc:aaa", "time_us": 1725911162329400, "kind": "commit",
     "commit": {"operation": "create", "collection": "app.bsky.feed.like", "rkey": "3l3x",
                "record": {"$type": "app.bsky.feed.like", "createdAt": "2024-09-09T19:46:03Z"}}},
    {"did": "did:plc:aaa", "time_us": 1725911162329500, "kind": "commit",
     "commit": {"operation": "delete", "collection": "app.bsky.feed.post", "rkey": "3l3old"}},
    # repo operation with a path
    {"repo": "did:plc:bbb", "path": "app.bsky.feed.post/3kxyz", "action": "create", "cid": "bafyB",
     "record": {"$type": "app.bsky.feed.post", "createdAt": "2024-09-09T20:00:00Z", "langs": ["pt-BR"],
                "text": "Olá!", "reply": {"parent": {"uri": "at://did:plc:aaa/app.bsky.feed.post/3l3qo2vuowo2b"},
                                          "root": {"uri": "at://did:plc:aaa/app.bsky.feed.post/3l3qo2vuowo2b"}}}},
    # flat
    {"did": "did:plc:ccc", "rkey": "3kflat", "handle": "ccc.bsky.social", "text": "Flat export line",
     "createdAt": "2024-09-10T08:00:00Z", "langs": []},
]
HN_ITEMS = [
    {"id": 8863, "type": "story", "by": "dhouston", "time": 1175714200, "title": "My YC app: Dropbox",
     "url": "http://www.getdropbox.com/u/2/screencast.html", "score": 111, "descendants": 71,
     "kids": [8952, 9224]},
    {"id": 2921983, "type": "comment", "by": "norvig", "time": 1314211127, "parent": 2921506,
     "text": "Aw shucks, guys ... you make me blush with your compliments.<p>Tell you what, "
             "Ill make a deal: I&#x27;ll keep writing", "kids": [2922097]},
    {"id": 192327, "type": "job", "by": "justin", "time": 1210981217, "title": "Justin.tv is looking",
     "text": "", "url": "", "score": 6},
    {"id": 5, "deleted": True, "type": "comment", "time": 1160418628},
    {"id": 6, "type": "comment", "by": "spam", "time": 1160418700, "text": "buy", "dead": True},
]


def write_ndjson(path, rows, extra_lines=()):
    text = "\n".join([json.dumps(r) for r in rows] + list(extra_lines)) + "\n"
    if path.suffix == ".zst":
        path.write_bytes(zstandard.ZstdCompressor(level=3).compress(text.encode()))
    elif path.suffix == ".gz":
        path.write_bytes(gzip.compress(text.encode()))
    else:
        path.write_text(text)
    return path


@pytest.mark.parametrize("suffix", [".ndjson", ".zst", ".gz"])
def test_pushshift_submissions_and_comments(corpus, tmp_path, suffix):
    path = write_ndjson(tmp_path / f"RS_2019-01{suffix}", SUBMISSIONS + COMMENTS, ["{broken"])
    report = import_dump(corpus, path)
    assert report.layout == "pushshift_dump"
    assert (report.read, report.added, report.rejected) == (7, 5, 2)
    reasons = dict(report.rejections)
    assert reasons[5] == "comment body is [deleted]" and reasons[7] == "malformed JSON line"
    recs = {r.sourceId: r for r in corpus.records().itertuples()}
    assert set(recs) == {"abc1", "abc2", "abc3", "t1_ed1", "t1_abc1"}
    post = recs["abc1"]
    assert post.source == "reddit" and post.subreddit == "science" and post.contentType == "post"
    assert post.publishedAt.isoformat() == "2019-01-01T00:00:00+00:00"
    assert post.url == "https://www.reddit.com/r/science/comments/abc1/mars_rover/"
    assert post.metadata["linkUrl"] == "https://example.org/mars" and post.metadata["score"] == 120
    assert "preview" not in post.metadata                      # nested blobs are dropped
    assert recs["abc2"].contentText == "Body of the post."
    assert recs["abc3"].contentText == "Removed but titled"
    comment = recs["t1_ed1"]
    assert comment.contentType == "comment" and comment.title == "" and comment.contentText == "Great find!"
    assert comment.url == "https://www.reddit.com/comments/abc1/_/ed1"
    assert comment.metadata["link_id"] == "t3_abc1"
    # importing again adds nothing
    again = import_dump(corpus, path)
    assert again.added == 0 and again.duplicates == 5


def test_large_window_zst_like_the_pushshift_archives(corpus, tmp_path):
    # Streamed with no content size and a 256 MB window: a default decoder refuses such frames.
    params = zstandard.ZstdCompressionParameters.from_level(3, window_log=28)
    data = ("\n".join(json.dumps({**SUBMISSIONS[1], "id": f"z{i}", "title": f"post {i}"})
                      for i in range(300)) + "\n").encode()
    path = tmp_path / "RS_big.zst"
    with open(path, "wb") as fh, zstandard.ZstdCompressor(
            compression_params=params).stream_writer(fh) as writer:
        writer.write(data)
    with pytest.raises(zstandard.ZstdError, match="too much memory"):
        zstandard.ZstdDecompressor().stream_reader(open(path, "rb")).read()
    assert import_dump(corpus, path).added == 300


def test_bluesky_firehose_lines(corpus, tmp_path):
    path = write_ndjson(tmp_path / "posts.jsonl", BLUESKY)
    report = import_dump(corpus, path)
    assert report.layout == "bluesky_dump"
    assert (report.added, report.rejected) == (3, 2)
    reasons = sorted(r for _, r in report.rejections)
    assert reasons == ["not a post (collection 'app.bsky.feed.like')",
                       "not a post creation (operation 'delete')"]
    recs = {r.sourceId: r for r in corpus.records().itertuples()}
    jet = recs["at://did:plc:aaa/app.bsky.feed.post/3l3qo2vuowo2b"]
    assert jet.contentText == "Hello from the firehose" and jet.language == "en"
    assert jet.url == "https://bsky.app/profile/did:plc:aaa/post/3l3qo2vuowo2b"
    assert jet.publishedAt.isoformat() == "2024-09-09T19:46:02+00:00"
    assert jet.metadata["cid"] == "bafyA" and jet.metadata["timeUs"] == 1725911162329308
    reply = recs["at://did:plc:bbb/app.bsky.feed.post/3kxyz"]
    assert reply.contentType == "comment" and reply.language == "pt"
    flat = recs["at://did:plc:ccc/app.bsky.feed.post/3kflat"]
    assert flat.author == "ccc.bsky.social"
    assert flat.url == "https://bsky.app/profile/ccc.bsky.social/post/3kflat"


@pytest.mark.parametrize("layout", ["lines", "array"])
def test_hacker_news_items(corpus, tmp_path, layout):
    path = tmp_path / "items.json"
    if layout == "array":
        path.write_text(json.dumps(HN_ITEMS, indent=1))
    else:
        write_ndjson(path, HN_ITEMS)
    report = import_dump(corpus, path)
    assert report.layout == "hackernews_dump"
    assert (report.added, report.rejected) == (3, 2)
    assert sorted(r for _, r in report.rejections) == ["dead (flagged) item", "deleted item"]
    recs = {r.sourceId: r for r in corpus.records().itertuples()}
    story = recs["8863"]
    assert story.title == "My YC app: Dropbox" and story.author == "dhouston"
    assert story.url == "http://www.getdropbox.com/u/2/screencast.html"
    assert story.publishedAt.isoformat() == "2007-04-04T19:16:40+00:00"
    assert story.metadata["score"] == 111 and story.metadata["kids"] == [8952, 9224]
    comment = recs["2921983"]
    assert comment.contentType == "comment"
    assert comment.contentText.startswith("Aw shucks") and "I'll keep writing" in comment.contentText
    assert "\n" in comment.contentText and "<p>" not in comment.contentText
    job = recs["192327"]
    assert job.url == "https://news.ycombinator.com/item?id=192327" and job.metadata["hnType"] == "job"


def test_detect_kind():
    assert detect_kind(SUBMISSIONS[0]) == detect_kind(COMMENTS[0]) == "pushshift"
    assert all(detect_kind(b) == "bluesky" for b in BLUESKY)
    assert detect_kind(HN_ITEMS[0]) == detect_kind(HN_ITEMS[3]) == "hackernews"
    assert detect_kind({"text": "hello"}) is None


def test_bad_dumps(corpus, tmp_path):
    with pytest.raises(ImportFormatError, match="no such file"):
        import_dump(corpus, tmp_path / "missing.ndjson")
    unknown = write_ndjson(tmp_path / "other.jsonl", [{"text": "hi", "when": 1}])
    with pytest.raises(ImportFormatError, match="not a known dump.*pass --kind"):
        import_dump(corpus, unknown)
    with pytest.raises(ImportFormatError, match="unknown dump kind 'tumblr'"):
        import_dump(corpus, unknown, kind="tumblr")
    broken = tmp_path / "broken.zst"
    broken.write_bytes(b"\x28\xb5\x2f\xfd" + b"garbage" * 10)
    with pytest.raises(ImportFormatError, match="cannot decompress"):
        import_dump(corpus, broken, kind="pushshift")
    bad_array = tmp_path / "bad.json"
    bad_array.write_text('[{"id": 1, "type": "story",')
    with pytest.raises(ImportFormatError, match="not valid JSON"):
        import_dump(corpus, bad_array, kind="hackernews")
    assert corpus.count() == 0


def test_strict_dump_import_writes_nothing(corpus, tmp_path):
    path = write_ndjson(tmp_path / "items.jsonl", HN_ITEMS)
    with pytest.raises(StrictImportError, match="row 4: deleted item"):
        import_dump(corpus, path, strict=True)
    assert corpus.count() == 0


def test_cli_import_dump(tmp_path, capsys):
    path = write_ndjson(tmp_path / "RC_2019-01.zst", COMMENTS)
    db = tmp_path / "c.db"
    assert main(["import-dump", str(path), "--db", str(db), "--topic", "space", "--quiet"]) == 0
    captured = capsys.readouterr()
    assert "(pushshift_dump): read 3, added 2, duplicates 0, rejected 1" in captured.out
    assert "rejected row 2: comment body is [deleted]" in captured.err
