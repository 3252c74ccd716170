"""Every recognised format imports from its fixture with no mapping, typed engagement included."""
import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

from corpuskit import open_corpus
from corpuskit.cli import main
from corpuskit.errors import ImportFormatError

FIXTURES = Path(__file__).parent / "fixtures" / "formats"


def load(name, source=None, **options):
    c = open_corpus(":memory:")
    report = c.import_file(FIXTURES / name, source=source, **options)
    return c, report, c.records().set_index("sourceId", drop=False)


def value(frame, sid, column):
    v = frame.loc[sid, column]
    return None if v is None or (not isinstance(v, str) and pd.isna(v)) else v


def test_twitter_v1():
    c, report, df = load("twitter_v1.jsonl")
    assert report.layout == "twitter_v1" and (report.added, report.rejected) == (4, 0)
    assert set(df["source"]) == {"twitter"}
    first = df.loc["1050118621198921728"]
    assert first["author"] == "TwitterAPI" and first["language"] == "en"
    assert first["publishedAt"] == pd.Timestamp("2018-10-10T20:19:24Z")
    assert (first["likes"], first["reposts"]) == (296, 161)
    assert value(df, "1050118621198921728", "replies") is None      # REST v1.1 has no reply_count
    assert first["url"] == "https://twitter.com/TwitterAPI/status/1050118621198921728"
    assert "👍🏻" in first["contentText"]
    # extended_tweet.full_text wins over the truncated text
    reply = df.loc["1050129390716825600"]
    assert reply["contentText"].endswith("which counts code points today.")
    assert reply["replyTo"] == "1050118621198921728" and reply["contentType"] == "comment"
    assert (reply["replies"], reply["quotes"], reply["likes"]) == (1, 0, 3)
    # a retweet is marked, links its original, and carries the original's full text, no counts
    rt = df.loc["1050306237563731968"]
    assert bool(rt["isRepost"]) and rt["repostOf"] == "1050118621198921728"
    assert rt["contentText"].startswith("RT @TwitterAPI: ") and rt["contentText"].endswith("/Nx1XZmRCXA")
    assert value(df, "1050306237563731968", "likes") is None
    assert df.loc["1050317561068204032", "quoteOf"] == "1050118621198921728"
    assert not df.loc["1050317561068204032", "isRepost"]


def test_twitter_v2_page():
    c, report, df = load("twitter_v2_page.json")
    assert report.layout == "twitter_v2" and report.added == 4
    root = df.loc["1445880548472328192"]
    assert root["author"] == "TwitterDev"             # author_id resolved through includes.users
    assert (root["likes"], root["reposts"], root["replies"], root["quotes"], root["views"]) == \
        (57, 12, 4, 3, 9120)
    assert df.loc["1445881204210012160", "replyTo"] == "1445880548472328192"
    rt = df.loc["1445882011337043968"]
    assert bool(rt["isRepost"]) and rt["repostOf"] == "1445880548472328192"
    assert rt["contentText"].endswith("Academic Research projects.")   # includes.tweets, untruncated
    es = df.loc["1445883311219888128"]
    assert es["language"] == "es" and es["quoteOf"] == "1445880548472328192"
    assert es["author"] == "investiga_es"


def test_twitter_v2_pages_as_json_lines(tmp_path):
    page = json.loads((FIXTURES / "twitter_v2_page.json").read_text())
    second = {**page, "data": page["data"][:1]}
    path = tmp_path / "pages.jsonl"
    path.write_text(json.dumps(page) + "\n" + json.dumps(second) + "\n")
    c = open_corpus(":memory:")
    report = c.import_file(path)
    assert (report.layout, report.added, report.duplicates) == ("twitter_v2", 4, 1)


def test_pushshift_plain_and_zst(tmp_path):
    c, report, df = load("pushshift_submissions.ndjson")
    assert report.layout == "pushshift" and report.added == 2
    assert df.loc["abn1z2", "subreddit"] == "science" and df.loc["abn1z2", "source"] == "reddit"
    assert df.loc["abn2q8", "contentText"] == "Which password manager do you trust?"  # [removed] body
    zstandard = pytest.importorskip("zstandard")
    packed = tmp_path / "RC_2019-01.zst"
    packed.write_bytes(zstandard.ZstdCompressor().compress(
        (FIXTURES / "pushshift_comments.ndjson").read_bytes()))
    report = c.import_file(packed)
    assert (report.layout, report.added, report.rejected) == ("pushshift", 2, 1)
    assert report.rejections == [(3, "comment body is [deleted]")]
    df = c.records().set_index("sourceId")
    # a comment on the post replies to its sourceId; a reply to a comment to the comment's
    assert df.loc["t1_ed1abcd", "replyTo"] == "abn1z2"
    assert df.loc["t1_ed1b0a1", "replyTo"] == "t1_ed1abcd"


def test_compressed_file_of_no_platform_is_refused(tmp_path):
    zstandard = pytest.importorskip("zstandard")
    packed = tmp_path / "rows.jsonl.zst"
    packed.write_bytes(zstandard.ZstdCompressor().compress(
        (FIXTURES / "common_names.jsonl").read_bytes()))
    with pytest.raises(ImportFormatError, match="decompress it"):
        open_corpus(":memory:").import_file(packed, source="forum")


def test_bluesky_jetstream():
    c, report, df = load("bluesky_jetstream.jsonl")
    assert report.layout == "bluesky" and (report.added, report.rejected) == (3, 3)
    reasons = dict(report.rejections)
    assert "app.bsky.feed.like" in reasons[4] and "delete" in reasons[5]
    assert "identity event" in reasons[6]
    root = "at://did:plc:eygmaihciaxprqvxpfvl6flk/app.bsky.feed.post/3l3qo2vuowo2b"
    reply = df.loc["at://did:plc:ewvi7nxzyoun6zhxrhs64oiz/app.bsky.feed.post/3l3qo36a4ry2t"]
    assert reply["replyTo"] == root and reply["contentType"] == "comment"
    quote = df.loc["at://did:plc:q6gjnaw2blty4crticxkmujt/app.bsky.feed.post/3l3qo3ab4zz2t"]
    assert quote["quoteOf"] == root and quote["language"] == "de"
    assert df.loc[root, "publishedAt"] == pd.Timestamp("2024-09-09T19:46:02Z")


def test_bluesky_post_views():
    c, report, df = load("bluesky_posts.json")
    assert report.layout == "bluesky" and report.added == 2
    post = df.loc["at://did:plc:z72i7hdynmk6r22z27h6tvur/app.bsky.feed.post/3kgbz6tapsc2s"]
    assert post["author"] == "bsky.app"
    assert (post["likes"], post["reposts"], post["replies"], post["quotes"]) == (3120, 845, 120, 61)
    reply = df.loc["at://did:plc:4llrhdclvdlmmynkwsmg5tdc/app.bsky.feed.post/3kgc2ab7xzk2a"]
    assert reply["replyTo"] == post["sourceId"]


def test_mastodon_statuses():
    c, report, df = load("mastodon_statuses.json")
    assert report.layout == "mastodon" and report.added == 3
    assert set(df["source"]) == {"mastodon"}
    first = df.loc["https://mastodon.social/users/Gargron/statuses/109364126315049180"]
    # content is HTML: stripped to text, entities unescaped
    assert first["contentText"] == ("Welcome to everyone who joined this week! A few tips: "
                                    "#introductions is a good place to start, and you can follow "
                                    "hashtags now.\n\nContent warnings & alt text are appreciated.")
    assert (first["likes"], first["reposts"], first["replies"]) == (1022, 241, 58)
    assert first["author"] == "Gargron" and first["url"] == "https://mastodon.social/@Gargron/109364126315049180"
    reply = df.loc["https://chaos.social/users/beispiel/statuses/109364201133405060"]
    assert reply["author"] == "beispiel@chaos.social" and reply["language"] == "de"
    assert reply["replyTo"] == "109364126315049180"
    boost = df.loc["https://fosstodon.org/users/reader/statuses/109364300000000001/activity"]
    assert bool(boost["isRepost"]) and boost["repostOf"] == first["sourceId"]
    assert boost["contentText"] == first["contentText"] and boost["author"] == "reader"


def test_telegram_desktop_export():
    c, report, df = load("telegram_result.json")
    assert report.layout == "telegram" and (report.added, report.rejected) == (4, 2)
    assert [n for n, _ in report.rejections] == [1, 6]
    assert "service" in report.rejections[0][1] and "no text" in report.rejections[1][1]
    assert set(df["source"]) == {"telegram"}
    # text as a list of strings and entity objects
    assert df.loc["1234567890/3", "contentText"] == \
        "Full text of the budget proposal: https://example.org/budget.pdf — see page 4 for fares."
    # date_unixtime (UTC), not the exporting computer's local date
    assert df.loc["1234567890/2", "publishedAt"] == pd.Timestamp("2023-03-01T10:15:00Z")
    assert df.loc["1234567890/4", "replyTo"] == "1234567890/2"
    assert bool(df.loc["1234567890/5", "isRepost"])
    assert df.loc["1234567890/5", "metadata"]["forwardedFrom"] == "City Transit Authority"
    assert df.loc["1234567890/2", "author"] == "Example News Channel"


def test_youtube_comment_threads():
    c, report, df = load("youtube_comment_threads.json")
    assert report.layout == "youtube" and report.added == 3
    top = df.loc["UgzDE2tasfmrYLyNkGt4AaABAg"]
    assert top["contentText"] == "The part about quota costs at 3:12 saved me a day & a half of debugging.\nThank you!"
    assert (top["likes"], top["replies"]) == (42, 1) and top["replyTo"] == "dQw4w9WgXcQ"
    assert top["url"] == "https://www.youtube.com/watch?v=dQw4w9WgXcQ&lc=UgzDE2tasfmrYLyNkGt4AaABAg"
    reply = df.loc["UgzDE2tasfmrYLyNkGt4AaABAg.9pQ1t2u3v4w9pQ5x6y7z8A"]
    assert reply["replyTo"] == "UgzDE2tasfmrYLyNkGt4AaABAg" and reply["author"] == "@quotaqueen"
    assert set(df["contentType"]) == {"comment"}


def test_fourcat_csv():
    with pytest.raises(ImportFormatError, match="pass --source"):
        load("fourcat_4chan.csv")
    c, report, df = load("fourcat_4chan.csv", source="fourchan")
    assert report.layout == "4cat_csv" and (report.added, report.rejected) == (2, 1)
    assert report.rejections[0][0] == 3 and "no text" in report.rejections[0][1]
    op = df.loc["123456700"]
    assert op["title"] == "Captcha thread" and op["contentText"] == "Post your captcha complaints here."
    assert op["publishedAt"] == pd.Timestamp("2021-02-03T13:00:01Z")
    assert op["metadata"]["board"] == "g" and "unix_timestamp" not in op["metadata"]


def test_common_column_names_csv_and_jsonl():
    c, report, df = load("common_names.csv", source="floodwatch")
    assert report.layout == "common_names" and report.added == 2
    assert (df.loc["a1", "likes"], df.loc["a1", "reposts"], df.loc["a1", "replies"]) == (12, 4, 2)
    assert value(df, "a2", "reposts") is None
    assert df.loc["a2", "publishedAt"] == pd.Timestamp("2022-06-01T07:30:00Z")   # +02:00
    assert df.loc["a1", "author"] == "river_ops"
    c, report, df = load("common_names.jsonl", source="floodwatch")
    assert report.layout == "common_names"
    # epoch seconds and milliseconds in one file
    assert df.loc["m-1", "publishedAt"] == pd.Timestamp("2022-06-01T09:00:00Z")
    assert df.loc["m-2", "publishedAt"] == pd.Timestamp("2022-06-01T10:00:00Z")
    assert df.loc["m-2", "replyTo"] == "m-1" and df.loc["m-2", "author"] == "helper2"


def test_unrecognised_file_lists_the_formats_and_how_to_map(tmp_path):
    path = tmp_path / "odd.csv"
    path.write_text("message,posted\nhello,2020-01-01\n")
    with pytest.raises(ImportFormatError) as info:
        open_corpus(":memory:").import_file(path, source="forum")
    text = str(info.value)
    for name in ("4cat_csv", "common_names", "twitter_v1", "mastodon", "telegram", "youtube"):
        assert name in text
    assert "--map contentText=message" in text
    report = open_corpus(":memory:").import_file(path, source="forum",
                                                 mapping=["contentText=message", "publishedAt=posted"])
    assert report.added == 1


def test_bad_engagement_value_is_a_bad_row(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("id,text,date,likes\n1,fine,2020-01-01,5\n2,bad,2020-01-01,many\n"
                    "3,negative,2020-01-01,-3\n4,thousands,2020-01-01,\"1,204\"\n")
    c = open_corpus(":memory:")
    report = c.import_file(path, source="forum")
    assert report.added == 2 and [n for n, _ in report.rejections] == [2, 3]
    assert "likes: not a whole number" in report.rejections[0][1]
    assert sorted(c.records()["likes"].tolist()) == [5, 1204]


def test_cli_imports_a_platform_file_without_a_mapping(tmp_path, capsys):
    path = tmp_path / "result.json"
    shutil.copy(FIXTURES / "telegram_result.json", path)
    assert main(["import", str(path), "--db", str(tmp_path / "c.db"), "--quiet"]) == 0
    out = capsys.readouterr()
    assert "(telegram): read 6, added 4" in out.out and "rejected row 1: a service message" in out.err


def test_engagement_round_trips_through_the_corpuskit_export(tmp_path):
    c, _, _ = load("twitter_v2_page.json")
    for fmt in ("jsonl", "csv", "parquet"):
        out = tmp_path / f"export.{fmt}"
        c.export(out)
        again = open_corpus(":memory:")
        again.import_file(out)
        cols = ["sourceId", "likes", "reposts", "replies", "quotes", "views", "replyTo", "quoteOf",
                "repostOf", "isRepost"]
        left = c.records()[cols].astype(str)
        right = again.records()[cols].astype(str)
        pd.testing.assert_frame_equal(left, right)


@pytest.mark.parametrize("header, row", [
    # rtweet's CSV and a flattened Twitter API v1.1 export
    ("status_id,screen_name,full_text,created_at", "991,ABaerbock,Hallo Welt,Wed Oct 10 20:19:24 +0000 2018"),
    ("tweet_id,user_screen_name,text,created_at", "991,ABaerbock,Hallo Welt,2018-10-10 20:19:24"),
])
def test_twitter_api_and_rtweet_column_names_need_no_mapping(tmp_path, header, row):
    path = tmp_path / "tweets.csv"
    path.write_text(header + "\n" + row + "\n")
    c = open_corpus(":memory:")
    report = c.import_file(path, source="twitter")
    assert report.layout == "common_names" and report.added == 1
    rec = c.records().iloc[0]
    assert (rec.sourceId, rec.author, rec.contentText) == ("991", "ABaerbock", "Hallo Welt")
    assert rec.publishedAt == pd.Timestamp("2018-10-10T20:19:24Z")


def test_the_error_names_the_missing_role_not_every_column(tmp_path):
    path = tmp_path / "tweets.csv"
    path.write_text("user,created_at,message\nann,2021-01-01,hello\n")
    with pytest.raises(ImportFormatError) as info:
        open_corpus(":memory:").import_file(path, source="twitter")
    text = str(info.value)
    assert text.startswith("cannot tell which column holds the record's text: no text column "
                           "(looked for text, full_text, body, content)")
    assert "no time column" not in text and "unrecognised" not in text


def test_a_failed_import_leaves_no_new_corpus_file(tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_text("user,when,message\nann,2021-01-01,hello\n")
    db = tmp_path / "new.db"
    assert main(["import", str(bad), "--db", str(db), "--source", "x", "--quiet"]) != 0
    assert "no text column" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.csv"]
    # a corpus that existed before the failed import is kept as it was
    good = tmp_path / "good.csv"
    good.write_text("id,text,date\n1,hello,2021-01-01\n")
    assert main(["import", str(good), "--db", str(db), "--source", "x", "--quiet"]) == 0
    assert main(["import", str(bad), "--db", str(db), "--source", "x", "--quiet"]) != 0
    assert db.exists() and len(open_corpus(str(db)).records()) == 1


def test_a_time_written_with_utc_after_it_is_read(tmp_path):
    # twint's export (id, created_at "2021-09-25 05:38:48 UTC", tweet, username)
    path = tmp_path / "twint.csv"
    path.write_text("id,created_at,tweet,username\n7,2021-09-25 05:38:48 UTC,チクショー！,dayukoume\n",
                    encoding="utf-8")
    c = open_corpus(":memory:")
    report = c.import_file(path, source="twitter", mapping=["contentText=tweet", "publishedAt=created_at",
                                                            "author=username", "sourceId=id"])
    assert report.added == 1
    assert c.records().iloc[0].publishedAt == pd.Timestamp("2021-09-25T05:38:48Z")
