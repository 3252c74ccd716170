"""Pseudonymised exports: no original author or handle in any cell of any table."""
import json
import re

import pandas as pd
import pytest

from corpuskit import ValidationError, open_corpus
from corpuskit.cli import main
from corpuskit.ingest.export_columns import TABLES
from corpuskit.ingest.pseudonymise import Pseudonymiser

AUTHORS = ["zed_quux42", "Mira.Voss", "tallpinecone", "qbert-77", "ann_bluesky.bsky.social", "lumen_tg"]
RECORDS = [
    {"source": "twitter", "sourceId": "101", "author": "zed_quux42",
     "title": "", "contentText": "Agree with @Mira.Voss on the grid plan, see https://twitter.com/tallpinecone/status/9",
     "url": "https://twitter.com/zed_quux42/status/101", "publishedAt": "2024-03-01T10:00:00Z",
     "metadata": {"user_screen_name": "zed_quux42", "retweets": 3}},
    {"source": "reddit", "sourceId": "t3_a", "author": "Mira.Voss", "subreddit": "energy",
     "title": "Grid plan thread from u/qbert-77", "contentText": "More at https://www.reddit.com/user/qbert-77/ "
     "and https://reddit.com/u/tallpinecone. Mail me at mira@example.org",
     "url": "https://www.reddit.com/r/energy/comments/a/grid_plan/", "publishedAt": "2024-03-01T11:00:00Z"},
    {"source": "bluesky", "sourceId": "at://x/1", "author": "ann_bluesky.bsky.social",
     "contentText": "Boosting @zed_quux42 and @qbert-77@mastodon.social: https://mastodon.social/@qbert-77/1234",
     "url": "https://bsky.app/profile/ann_bluesky.bsky.social/post/1", "publishedAt": "2024-03-02T09:00:00Z"},
    {"source": "news", "sourceId": "5", "author": "lumen_tg",
     "contentText": "Channel https://t.me/lumen_tg and video https://www.youtube.com/@tallpinecone/videos",
     "publishedAt": "2024-03-02T10:00:00Z", "metadata": {"from": {"username": "lumen_tg"}}},
    {"source": "youtube", "sourceId": "v1", "author": "tallpinecone", "contentText": "Grid plan explained by "
     "@TallPineCone, thanks @ann_bluesky.bsky.social", "publishedAt": "2024-03-03T10:00:00Z"},
    {"source": "news", "sourceId": "n1", "author": "qbert-77", "contentText": "Grid plan passes the vote.",
     "publishedAt": "2024-03-03T12:00:00Z"},
]


def cells(path, fmt="jsonl"):
    """Every string in every cell of every table of the bundle (nested values flattened)."""
    out = []

    def walk(v):
        if isinstance(v, dict):
            for k, x in v.items():
                walk(k)
                walk(x)
        elif isinstance(v, (list, tuple)):
            for x in v:
                walk(x)
        elif isinstance(v, str):
            out.append(v)

    for table in TABLES:
        for line in (path / f"{table}.{fmt}").read_text(encoding="utf-8").splitlines():
            walk(json.loads(line))
    return out


@pytest.fixture(scope="module")
def handles_corpus(tmp_path_factory):
    path = tmp_path_factory.mktemp("pseudo") / "p.db"
    c = open_corpus(path)
    c.add_records(RECORDS)
    c.enrich(progress=False)
    yield c
    c.close()


def _leaks(values, names):
    found = []
    for v in values:
        low = v.lower()
        for name in names:
            if name.lower() in low:
                found.append((name, v))
    return found


def test_no_original_author_or_handle_in_any_cell(handles_corpus, tmp_path):
    before = cells_of(handles_corpus, tmp_path / "plain")
    assert _leaks(before, AUTHORS)            # the plain export does name them
    report = handles_corpus.export_bundle(tmp_path / "p", format="jsonl", pseudonymise=True, salt="s1")
    assert report.salt == "s1" and not (tmp_path / "p" / "salt.txt").exists()
    after = cells(tmp_path / "p")
    assert _leaks(after, AUTHORS) == []
    records = [json.loads(x) for x in (tmp_path / "p" / "records.jsonl").read_text().splitlines()]
    assert all(re.fullmatch(r"u_[0-9a-f]{16}", r["author"]) for r in records)
    text = " ".join(r["contentText"] for r in records)
    assert "mira@example.org" in text          # an e-mail address is not a handle
    assert "https://twitter.com/u_" in text and "/status/9" in text   # the status id stays
    assert records[0]["metadata"]["retweets"] == 3
    # one author, one pseudonym: as author, as @handle and in a profile link
    ann = Pseudonymiser("s1").pseudonym("ann_bluesky.bsky.social")
    assert records[2]["author"] == ann and f"@{ann}" in records[4]["contentText"]
    assert records[2]["url"] == f"https://bsky.app/profile/{ann}/post/1"
    tall = Pseudonymiser("s1").pseudonym("tallpinecone")
    assert f"@{tall}" in records[4]["contentText"]      # @TallPineCone: handles fold case
    codebook = (tmp_path / "p" / "codebook.md").read_text(encoding="utf-8")
    assert "Pseudonymised:" in codebook and "*pseudonymised*" in codebook


def cells_of(corpus, path):
    corpus.export_bundle(path, format="jsonl")
    return cells(path)


def test_pseudonyms_stable_within_an_export_and_differ_across_salts(handles_corpus, tmp_path):
    a1 = handles_corpus.export_bundle(tmp_path / "a1", format="jsonl", pseudonymise=True, salt="alpha")
    handles_corpus.export_bundle(tmp_path / "a2", format="jsonl", pseudonymise=True, salt="alpha")
    handles_corpus.export_bundle(tmp_path / "b", format="jsonl", pseudonymise=True, salt="beta")
    assert a1.salt == "alpha"
    same = (tmp_path / "a1" / "records.jsonl").read_text()
    assert same == (tmp_path / "a2" / "records.jsonl").read_text()
    a = pd.read_json(tmp_path / "a1" / "records.jsonl", lines=True)
    b = pd.read_json(tmp_path / "b" / "records.jsonl", lines=True)
    assert a["author"].nunique() == len(AUTHORS) == b["author"].nunique()
    assert set(a["author"]).isdisjoint(set(b["author"]))
    rnd = handles_corpus.export_bundle(tmp_path / "r", format="jsonl", pseudonymise=True, store_salt=True)
    assert re.fullmatch(r"[0-9a-f]{32}", rnd.salt)
    assert (tmp_path / "r" / "salt.txt").read_text().strip() == rnd.salt
    again = handles_corpus.export_bundle(tmp_path / "r2", format="jsonl", pseudonymise=True)
    assert again.salt != rnd.salt and not (tmp_path / "r2" / "salt.txt").exists()
    assert rnd.salt not in (tmp_path / "r2" / "manifest.json").read_text()


def test_pseudonymiser_edges():
    p = Pseudonymiser("k", authors=["news_bot"])
    assert p.pseudonym("@Alice") == p.pseudonym("alice") != Pseudonymiser("k2").pseudonym("alice")
    assert p.text("write to bob@example.com") == "write to bob@example.com"
    assert p.text("https://twitter.com/i/web/status/5") == "https://twitter.com/i/web/status/5"
    assert p.text("https://www.youtube.com/watch?v=x") == "https://www.youtube.com/watch?v=x"
    assert p.text("NEWS_BOT") == p.pseudonym("news_bot")
    assert p.text("the news bot") == "the news bot"
    assert p.text("see news_bot now") == "see news_bot now"        # free text: bare names stay
    assert p.terms("grid, news_bot, vote") == f"grid, {p.pseudonym('news_bot')}, vote"
    assert p.author("") == "" and p.author(None) is None
    assert p.text("cc @a") == "cc @" + p.pseudonym("a")
    assert p.json_text('{"owner": "zed", "n": [1, "@zed"]}') == json.dumps(
        {"n": [1, "@" + p.pseudonym("zed")], "owner": p.pseudonym("zed")}, sort_keys=True)
    with pytest.raises(ValidationError, match="salt must be a non-empty string"):
        Pseudonymiser("")


def test_pseudonymised_demo_export_names_no_author(demo_corpus, tmp_path):
    authors = {a for (a,) in demo_corpus.conn.execute("SELECT DISTINCT author FROM records WHERE author != ''")}
    demo_corpus.export_bundle(tmp_path / "d", format="jsonl", pseudonymise=True, salt="demo")
    values = cells(tmp_path / "d")
    exact = {v.strip().lstrip("@").lower() for v in values}
    assert not exact & {a.lower() for a in authors}
    handles = {m.lower() for v in values for m in re.findall(r"(?<![\w@/.])@([\w.\-]+)", v)}
    assert not handles & {a.lower() for a in authors}
    links = "\n".join(v for v in values if "bsky.app/profile/" in v or "twitter.com/" in v)
    assert not any(f"/{a}".lower() in links.lower() for a in authors if len(a) > 3)


def test_cli_pseudonymise_prints_the_salt_once(demo_path, tmp_path, capsys):
    out = tmp_path / "r.jsonl"
    assert main(["export", "--db", str(demo_path), str(out), "--pseudonymise"]) == 0
    said = capsys.readouterr().out
    salt = re.search(r"random salt ([0-9a-f]{32})", said).group(1)
    first = json.loads(out.read_text().splitlines()[0])
    c = open_corpus(demo_path)
    author = c.conn.execute("SELECT author FROM records ORDER BY published_at, id LIMIT 1").fetchone()[0]
    c.close()
    assert first["author"] == Pseudonymiser(salt).pseudonym(author)
    assert main(["export", "--db", str(demo_path), "--bundle", str(tmp_path / "b"), "--pseudonymise",
                 "--salt", "fixed"]) == 0
    assert "random salt" not in capsys.readouterr().out
    assert main(["export", "--db", str(demo_path), str(out), "--store-salt"]) == 2
    assert "--store-salt is only used with --bundle" in capsys.readouterr().err
