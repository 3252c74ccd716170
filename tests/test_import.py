"""File import: formats, known layouts, --map, dedupe, bad rows, strict mode."""
import csv
import json

import pytest

from corpuskit import open_corpus
from corpuskit.errors import ImportFormatError, StrictImportError, ValidationError
from tests.conftest import HN_CSV, REDDIT_CSV, ROOT, need_shared


def write_csv(path, header, rows):
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(header)
        w.writerows(rows)
    return path


def write_jsonl(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


HN_HEADER = ["id", "title", "url", "num_points", "num_comments", "author", "created_at"]


def test_hackernews_layout_without_map(corpus, tmp_path):
    path = write_csv(tmp_path / "hn.csv", HN_HEADER, [
        ["1", "Show HN: a thing", "http://x.org/a", "5", "2", "alice", "8/4/2016 11:52"],
        ["2", "Ask HN: why?", "", "3", "9", "bob", "12/31/2015 0:05"],
    ])
    report = corpus.import_file(path)
    assert (report.layout, report.read, report.added, report.rejected) == ("hackernews_csv", 2, 2, 0)
    df = corpus.records()
    assert list(df["source"]) == ["hackernews", "hackernews"]
    ask = df[df.sourceId == "2"].iloc[0]
    assert ask.url == "https://news.ycombinator.com/item?id=2"
    assert ask.metadata == {"num_comments": "9", "num_points": "3"}
    assert str(ask.publishedAt) == "2015-12-31 00:05:00+00:00"


def test_reddit_layout_and_unix_seconds(corpus, tmp_path):
    path = write_csv(tmp_path / "r.csv", ["id", "subreddit", "subreddit_language", "author", "timestamp", "title"],
                     [["abc", "science", "en", "[deleted]", "1546302005", "Mars has water"]])
    report = corpus.import_file(path)
    assert report.layout == "reddit_csv"
    rec = corpus.records().iloc[0]
    assert (rec.source, rec.subreddit, rec.language) == ("reddit", "science", "en")
    assert rec.publishedAt.isoformat() == "2019-01-01T00:20:05+00:00"


def test_twitter_export_layout(corpus, tmp_path):
    path = write_csv(tmp_path / "t.csv", ["id", "date", "text", "user_name"],
                     [["99", "2022-05-01T10:00:00+02:00", "hello world", "carol"]])
    report = corpus.import_file(path)
    rec = corpus.records().iloc[0]
    assert report.layout == "twitter_export"
    assert (rec.source, rec.author, rec.contentText) == ("twitter", "carol", "hello world")
    assert rec.publishedAt.isoformat() == "2022-05-01T08:00:00+00:00"


@pytest.mark.parametrize("extra, url", [
    ({}, "https://twitter.com/i/web/status/99"),                          # display name only
    ({"user_screen_name": "rroh"}, "https://twitter.com/rroh/status/99"),
    ({"username": "@rachel_roh"}, "https://twitter.com/rachel_roh/status/99"),
    ({"screen_name": "not a handle!"}, "https://twitter.com/i/web/status/99"),
])
def test_tweet_urls_use_the_handle_never_the_display_name(corpus, tmp_path, extra, url):
    path = write_csv(tmp_path / "t.csv", ["id", "date", "text", "user_name", *extra],
                     [["99", "2022-05-01", "hello", "Rachel Roh", *extra.values()]])
    corpus.import_file(path)
    rec = corpus.records().iloc[0]
    assert (rec.url, rec.author) == (url, "Rachel Roh")


def test_pushshift_submission_jsonl(corpus, tmp_path):
    path = write_jsonl(tmp_path / "ps.jsonl", [
        {"id": "x1", "subreddit": "technology", "author": "dan", "created_utc": 1600000000,
         "title": "New chip", "selftext": "It is fast.", "score": 10, "permalink": "/r/technology/comments/x1/new_chip/"},
    ])
    corpus.import_file(path)
    rec = corpus.records().iloc[0]
    assert rec.contentText == "It is fast."
    assert rec.url == "https://www.reddit.com/r/technology/comments/x1/new_chip/"
    assert rec.metadata["score"] == 10


def test_map_columns_and_topic_hint(corpus, tmp_path):
    path = write_csv(tmp_path / "custom.csv", ["post_id", "body", "when", "who"],
                     [["p1", "Some text here", "2020-02-02", "eve"]])
    report = corpus.import_file(path, source="bluesky", topic="misc",
                                mapping=["sourceId=post_id", "contentText=body", "publishedAt=when", "author=who"])
    assert report.added == 1
    rec = corpus.records().iloc[0]
    assert (rec.source, rec.sourceId, rec.author, rec.topic) == ("bluesky", "p1", "eve", "misc")


def test_unknown_layout_needs_map(corpus, tmp_path):
    path = write_csv(tmp_path / "odd.csv", ["a", "b"], [["1", "2"]])
    with pytest.raises(ImportFormatError, match=r"holds the record's text and time: no text column.*no time column.*columns are: a, b.*--map"):
        corpus.import_file(path, source="news")


@pytest.mark.parametrize("bad, message", [
    (["nonsense"], "expected FIELD=COLUMN"),
    (["colour=body"], "unknown field 'colour'"),
    (["contentText=missing_col"], "not in the file: missing_col"),
])
def test_bad_map(corpus, tmp_path, bad, message):
    path = write_csv(tmp_path / "c.csv", ["body", "when"], [["x", "2020-01-01"]])
    with pytest.raises(ImportFormatError, match=message):
        corpus.import_file(path, source="news", mapping=bad + ["publishedAt=when"])


def test_unknown_source_and_missing_source(corpus, tmp_path):
    path = write_csv(tmp_path / "c.csv", ["body", "when"], [["x", "2020-01-01"]])
    # source names are open (issue 27): a bad slug is refused, any lower-case slug is stored
    with pytest.raises(ValidationError, match="invalid source name 'My Space'"):
        corpus.import_file(path, source="My Space", mapping=["contentText=body", "publishedAt=when"])
    assert corpus.count() == 0
    with pytest.raises(ImportFormatError, match="pass --source"):
        corpus.import_file(path, mapping=["contentText=body", "publishedAt=when"])


def test_bad_files(corpus, tmp_path):
    with pytest.raises(ImportFormatError, match="no such file"):
        corpus.import_file(tmp_path / "absent.csv")
    (tmp_path / "x.xlsx").write_text("?")
    with pytest.raises(ImportFormatError, match="unknown file type"):
        corpus.import_file(tmp_path / "x.xlsx")
    (tmp_path / "empty.csv").write_text("")
    with pytest.raises(ImportFormatError, match="empty CSV"):
        corpus.import_file(tmp_path / "empty.csv")
    (tmp_path / "bad.parquet").write_bytes(b"not parquet")
    with pytest.raises(ImportFormatError, match="Parquet"):
        corpus.import_file(tmp_path / "bad.parquet")


def test_bad_rows_reported_and_rest_imported(corpus, tmp_path):
    path = write_csv(tmp_path / "hn.csv", HN_HEADER, [
        ["1", "fine", "", "1", "1", "a", "8/4/2016 11:52"],
        ["2", "", "", "1", "1", "b", "8/4/2016 11:52"],
        ["3", "bad date", "", "1", "1", "c", "31/31/2016 99:00"],
        ["4", "also fine", "", "1", "1", "d", "8/5/2016 1:00"],
    ])
    report = corpus.import_file(path)
    assert (report.read, report.added, report.rejected) == (4, 2, 2)
    assert report.rejections[0][0] == 2 and "no text" in report.rejections[0][1]
    assert report.rejections[1][0] == 3 and "unparseable date" in report.rejections[1][1]


def test_malformed_jsonl_line_is_rejected_with_line_number(corpus, tmp_path):
    path = tmp_path / "x.jsonl"
    path.write_text(json.dumps({"source": "news", "contentText": "ok", "publishedAt": "2020-01-01"}) + "\n{oops\n")
    report = corpus.import_file(path)
    assert report.added == 1 and report.rejections == [(2, "malformed JSON line")]


def test_strict_aborts_and_writes_nothing(corpus, tmp_path):
    path = write_csv(tmp_path / "hn.csv", HN_HEADER, [
        ["1", "fine", "", "1", "1", "a", "8/4/2016 11:52"],
        ["2", "", "", "1", "1", "b", "8/4/2016 11:52"],
    ])
    with pytest.raises(StrictImportError, match="row 2: no text"):
        corpus.import_file(path, strict=True)
    assert corpus.count() == 0
    assert corpus.conn.execute("SELECT count(*) FROM runs").fetchone()[0] == 0


@pytest.mark.parametrize("where", ["staging", "store"])
def test_failure_midway_leaves_file_unchanged(tmp_path, monkeypatch, where):
    # (the import stages rows outside the corpus, then stores them in one transaction:
    # a failure while staging or while storing must leave the file as it was)
    c = open_corpus(tmp_path / "c.db")
    path = write_csv(tmp_path / "hn.csv", HN_HEADER,
                     [[str(i), f"title {i}", "", "1", "1", "a", "8/4/2016 11:52"] for i in range(5000)])
    from corpuskit.ingest.staging import Stage

    calls = {"n": 0}
    real = getattr(Stage, "write" if where == "staging" else "store")

    def flaky(self, *args):
        calls["n"] += 1
        if where == "store" or calls["n"] == 2:
            if where == "store":
                real(self, *args)   # the rows are in records, inside the transaction
            raise OSError("disk full")
        return real(self, *args)

    monkeypatch.setattr(Stage, "write" if where == "staging" else "store", flaky)
    with pytest.raises(OSError):
        c.import_file(path)
    assert c.count() == 0
    assert c.conn.execute("SELECT count(*) FROM runs").fetchone()[0] == 0
    monkeypatch.undo()
    assert c.import_file(path).added == 5000   # nothing of the failed import is left behind


def test_reimport_adds_nothing_and_hash_dedupe(corpus, tmp_path):
    # (this test used to expect the second row dropped: the content key had no time, so a
    # text recurring on another day was lost; the key now includes publishedAt)
    path = write_csv(tmp_path / "c.csv", ["body", "when"], [["same text", "2020-01-01"], ["same text", "2020-01-02"],
                                                             ["other", "2020-01-03"], ["same text", "2020-01-01"]])
    m = ["contentText=body", "publishedAt=when"]
    first = corpus.import_file(path, source="news", mapping=m)
    # no sourceId: dedupe on source + title + text + publishedAt
    assert (first.added, first.duplicates, first.duplicates_by) == (3, 1, {"id": 0, "content": 1})
    second = corpus.import_file(path, source="news", mapping=m)
    assert (second.added, second.duplicates) == (0, 4)
    assert "duplicates 4" in second.summary() and "4 by content" in second.summary()


def test_real_hacker_news_csv(tmp_path):
    path = need_shared(HN_CSV)
    c = open_corpus(tmp_path / "hn.db")
    report = c.import_file(path)
    assert (report.read, report.added, report.rejected) == (20099, 20099, 0)
    again = c.import_file(path)
    assert (again.added, again.duplicates) == (0, 20099)
    assert c.now().isoformat() == "2016-09-26T03:13:00+00:00"


def test_real_reddit_csv(tmp_path):
    path = need_shared(REDDIT_CSV)
    c = open_corpus(tmp_path / "r.db")
    report = c.import_file(path)
    assert (report.read, report.added, report.rejected) == (14384, 14384, 0)
    assert c.import_file(path).added == 0
    assert set(c.records()["subreddit"]) == {"science", "technology"}


# -- duplicates: which rule, and how many each dropped -------------------------------------------
HEADLINES = ROOT / "tests" / "fixtures" / "recurring_headlines.csv"
HEADLINE_MAP = ["title=headline", "publishedAt=date"]


def test_recurring_headlines_are_kept_exact_repeats_dropped(corpus):
    # 12 rows: one headline on 3 days (and once more by another publisher), a weekly
    # headline on 3 Mondays, and 4 exact repeats. The old key (source + title + text)
    # kept 4 of them.
    report = corpus.import_file(HEADLINES, source="news", mapping=HEADLINE_MAP)
    assert (report.read, report.added, report.duplicates) == (12, 8, 4)
    assert report.duplicates_by == {"id": 0, "content": 4}
    titles = corpus.records()["title"].tolist()
    assert titles.count("Tesla stock: what to watch this week") == 3
    assert titles.count("Tesla shares fall as deliveries miss estimates") == 3
    again = corpus.import_file(HEADLINES, source="news", mapping=HEADLINE_MAP)
    assert (again.added, again.duplicates_by) == (0, {"id": 0, "content": 12})
    assert corpus.count() == 8


def test_author_is_part_of_the_content_key(corpus):
    report = corpus.import_file(HEADLINES, source="news", mapping=HEADLINE_MAP + ["author=publisher"])
    # the same headline at the same minute from two publishers is two records
    assert (report.added, report.duplicates_by) == (9, {"id": 0, "content": 3})


@pytest.mark.parametrize("dedupe, added, by, rejected", [
    ("auto", 11, {"id": 1, "content": 0}, 0),     # the id decides for rows that have one
    ("id", 11, {"id": 1, "content": 0}, 0),
    ("content", 9, {"id": 1, "content": 2}, 0),   # the content key too, ids still unique
    ("none", 11, {"id": 1, "content": 0}, 0),     # a sourceId still names one record
])
def test_dedupe_rules_with_a_mapped_id_column(corpus, dedupe, added, by, rejected):
    report = corpus.import_file(HEADLINES, source="news", dedupe=dedupe,
                                mapping=HEADLINE_MAP + ["sourceId=story_id", "author=publisher"])
    assert (report.added, report.duplicates_by, report.rejected) == (added, by, rejected)
    assert report.dedupe == dedupe and f"dedupe {dedupe}" in report.summary()
    assert corpus.conn.execute("SELECT count(DISTINCT source_id) FROM records").fetchone()[0] == added
    second = corpus.import_file(HEADLINES, source="news", dedupe=dedupe,
                                mapping=HEADLINE_MAP + ["sourceId=story_id", "author=publisher"])
    assert second.added == 0 and second.duplicates == 12


def test_dedupe_none_keeps_every_row_without_an_id(corpus):
    report = corpus.import_file(HEADLINES, source="news", mapping=HEADLINE_MAP, dedupe="none")
    assert (report.added, report.duplicates) == (12, 0)
    assert corpus.import_file(HEADLINES, source="news", mapping=HEADLINE_MAP,
                              dedupe="none").added == 12   # asked for: no dedupe at all
    assert corpus.import_file(HEADLINES, source="news", mapping=HEADLINE_MAP).added == 0


def test_dedupe_id_rejects_rows_without_an_id(corpus):
    report = corpus.import_file(HEADLINES, source="news", mapping=HEADLINE_MAP, dedupe="id")
    assert (report.added, report.rejected) == (0, 12)
    assert "--map sourceId=COLUMN" in report.rejections[0][1]
    with pytest.raises(StrictImportError, match="row 1: no sourceId"):
        corpus.import_file(HEADLINES, source="news", mapping=HEADLINE_MAP, dedupe="id", strict=True)
    with pytest.raises(ValidationError, match="unknown dedupe rule 'fuzzy'"):
        corpus.import_file(HEADLINES, source="news", mapping=HEADLINE_MAP, dedupe="fuzzy")


def test_cli_dedupe_option_and_summary(tmp_path, capsys):
    from corpuskit.cli import main

    db = str(tmp_path / "c.db")
    args = ["import", str(HEADLINES), "--db", db, "--source", "news", "--quiet",
            "--map", "title=headline", "--map", "publishedAt=date"]
    assert main(args) == 0
    assert "read 12, added 8, duplicates 4, rejected 0 (dedupe auto: 4 by content)" in capsys.readouterr().out
    args[3] = str(tmp_path / "ids.db")
    assert main(args + ["--map", "sourceId=story_id", "--dedupe", "id"]) == 0
    assert "added 11, duplicates 1, rejected 0 (dedupe id: 1 by id)" in capsys.readouterr().out
    assert main(args + ["--dedupe", "id"]) == 0   # no id column named: every row rejected
    out, err = capsys.readouterr()
    assert "added 0, duplicates 0, rejected 12" in out and "rejected row 1: no sourceId" in err


def test_an_old_corpus_is_rehashed_with_the_new_content_key(tmp_path):
    """A corpus written before 0007 (key without time and author) still dedupes a re-import."""
    import sqlite3

    from corpuskit.ingest.records import content_hash

    path = tmp_path / "old.db"
    c = open_corpus(path)
    c.import_file(HEADLINES, source="news", mapping=HEADLINE_MAP)
    c.add_records([{"source": "twitter", "sourceId": "7", "author": "Rachel Roh", "contentText": "hi",
                    "publishedAt": "2021-01-01", "url": "https://twitter.com/Rachel Roh/status/7"},
                   {"source": "twitter", "sourceId": "8", "author": "Rachel Roh", "contentText": "hi",
                    "publishedAt": "2021-01-01", "url": "https://twitter.com/rroh/status/8"}])
    c.close()
    raw = sqlite3.connect(path)   # make it look like a 0006 file with the old hashes
    raw.execute("DROP INDEX records_source_hash")
    raw.execute("UPDATE records SET content_hash = 'old-' || id")
    raw.execute("CREATE UNIQUE INDEX records_source_hash ON records(source, content_hash) "
                "WHERE source_id IS NULL")
    for column in ("pid", "host", "process_started"):
        raw.execute(f"ALTER TABLE runs DROP COLUMN {column}")
    for column in ("likes", "reposts", "replies", "quotes", "views", "reply_to", "quote_of",
                   "repost_of", "is_repost"):   # added by 0010
        raw.execute(f"ALTER TABLE records DROP COLUMN {column}")
    raw.execute("PRAGMA user_version = 6")
    raw.execute("PRAGMA application_id = 0")    # and unmarked, as 0006 files were
    raw.execute("DELETE FROM meta WHERE key = 'corpuskit'")
    raw.commit()
    raw.close()
    c = open_corpus(path)
    assert c.get_meta("corpuskit")["application"] == "corpuskit"
    row = c.conn.execute("SELECT * FROM records ORDER BY id LIMIT 1").fetchone()
    assert row["content_hash"] == content_hash("news", row["author"], row["title"],
                                               row["content_text"], row["published_at"])
    assert c.import_file(HEADLINES, source="news", mapping=HEADLINE_MAP).added == 0
    # URLs built from a display name are replaced; a URL with a real handle is kept
    assert c.records(source="twitter")["url"].tolist() == [
        "https://twitter.com/i/web/status/7", "https://twitter.com/rroh/status/8"]


def test_rows_stored_by_another_writer_meanwhile_are_still_duplicates(tmp_path, monkeypatch):
    """The import checks stored rows before taking the lock, and again if someone committed since."""
    from corpuskit.ingest.staging import Stage

    path = tmp_path / "c.db"
    c = open_corpus(path)
    real = Stage.mark_stored

    def then_another_writer(self):
        real(self)
        monkeypatch.setattr(Stage, "mark_stored", real)
        other = open_corpus(path)   # its own connection: a commit the import has not seen
        other.import_file(HEADLINES, source="news", mapping=HEADLINE_MAP)
        other.close()

    monkeypatch.setattr(Stage, "mark_stored", then_another_writer)
    report = c.import_file(HEADLINES, source="news", mapping=HEADLINE_MAP)
    assert (report.added, report.duplicates_by) == (0, {"id": 0, "content": 12})
    assert c.count() == 8
