"""Coordinated groups: a planted campaign in a busy background is one group of all its accounts; the
same texts spread over days, and busy accounts that repeat themselves all day, are not."""
from __future__ import annotations

import json
import re
from datetime import datetime, timedelta, timezone

import numpy as np
import pytest

from corpuskit import open_corpus
from corpuskit.errors import ValidationError
from corpuskit.networks.items import text_key, url_key

START = datetime(2024, 3, 1, tzinfo=timezone.utc)
DAYS = 10
CAMPAIGN = [f"camp{i:02d}" for i in range(10)]
SLOGANS = [f"vote for the new park plan number {k} today" for k in range(5)]


def _iso(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


VOCAB = [f"w{i}" for i in range(2000)]


def _words(rng, n=8):
    return " ".join(VOCAB[i] for i in rng.integers(0, len(VOCAB), n))


def _background(rng):
    """300 ordinary accounts (busy ones among them), two all-day repeaters, and the campaign
    accounts' own ordinary posts: ~4,000 records over ten days."""
    rows = []
    for a in range(300):
        for _ in range(int(rng.integers(2, 25))):
            t = START + timedelta(seconds=int(rng.integers(0, DAYS * 86400)))
            rows.append({"author": f"user{a:03d}", "contentText": _words(rng), "publishedAt": _iso(t)})
    for hour in range(DAYS * 24):                     # two bots repeating the same slogans hourly
        for bot in ("repeater_a", "repeater_b"):
            t = START + timedelta(hours=hour, seconds=int(rng.integers(0, 30)))
            rows.append({"author": bot, "contentText": SLOGANS[hour % 5], "publishedAt": _iso(t)})
    for account in CAMPAIGN:
        for _ in range(20):
            t = START + timedelta(seconds=int(rng.integers(0, DAYS * 86400)))
            rows.append({"author": account, "contentText": _words(rng), "publishedAt": _iso(t)})
    return rows


def _texts():
    return [f"the election was stolen share before they delete it {k} #truth" for k in range(5)]


def _planted(rng):
    rows = []
    for k, text in enumerate(_texts()):
        burst = START + timedelta(days=1 + 2 * k, hours=int(rng.integers(0, 24)))
        for account in CAMPAIGN:
            rows.append({"author": account, "contentText": text,
                         "publishedAt": _iso(burst + timedelta(seconds=int(rng.integers(0, 120))))})
    return rows


def _spread(rng):
    return [{"author": account, "contentText": text,
             "publishedAt": _iso(START + timedelta(seconds=int(rng.integers(0, DAYS * 86400))))}
            for text in _texts() for account in CAMPAIGN]


def _corpus(rows):
    c = open_corpus(":memory:")
    c.add_records([{**r, "sourceId": str(i)} for i, r in enumerate(rows)], source="twitter")
    return c


@pytest.fixture(scope="module")
def planted():
    rng = np.random.default_rng(7)
    c = _corpus(_background(rng) + _planted(rng))
    yield c
    c.close()


@pytest.fixture(scope="module")
def control():
    rng = np.random.default_rng(7)
    c = _corpus(_background(rng) + _spread(rng))
    yield c
    c.close()


def test_planted_campaign_is_one_group_of_all_ten(planted):
    groups = planted.coordination(seed=0)
    assert list(groups.columns) == ["group", "author", "records", "shared", "first", "last", "evidence"]
    assert groups.attrs["window_estimated"] and 1 <= groups.attrs["window"] <= 120
    assert set(groups["group"]) == {1}, groups
    assert sorted(groups["author"]) == CAMPAIGN
    assert (groups["shared"] >= 2).all() and groups["shared"].max() == 5
    # the repeaters co-share every slogan, but as often under the null: not a group
    assert not set(groups["author"]) & {"repeater_a", "repeater_b"}


def test_evidence_names_the_shared_texts_and_their_records(planted):
    groups = planted.coordination(seed=0)
    row = groups[groups["author"] == "camp00"].iloc[0]
    keys = [text_key("", t) for t in _texts()]
    assert {e["item"] for e in row["evidence"]} <= set(keys)
    assert row["records"] == sum(len(e["records"]) for e in row["evidence"])
    for e in row["evidence"]:
        for rid in e["records"]:
            author, text = planted.conn.execute("SELECT author, content_text FROM records WHERE id = ?",
                                                (rid,)).fetchone()
            assert author == "camp00" and text_key("", text) == e["item"]
    assert row["first"] <= row["last"]


def test_same_texts_spread_over_days_are_no_group(control):
    groups = control.coordination(seed=0)
    assert groups.empty, groups
    assert control.coordination(window=120, seed=0).empty


def test_a_given_window_and_seed_give_the_same_rows(planted):
    a = planted.coordination(window=120, seed=3)
    b = planted.coordination(window=120, seed=3)
    assert a.equals(b) and sorted(a["author"]) == CAMPAIGN
    assert a.attrs["window"] == 120 and not a.attrs["window_estimated"]


def test_min_repeats_above_the_campaign_finds_nothing(planted):
    assert planted.coordination(window=120, min_repeats=6).empty


def test_a_time_bound_that_cuts_the_campaign_to_one_burst_finds_nothing(planted):
    first_burst = planted.conn.execute(
        "SELECT min(published_at) FROM records WHERE content_text LIKE 'the election%'").fetchone()[0]
    until = (datetime.strptime(first_burst, "%Y-%m-%dT%H:%M:%SZ") + timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    assert planted.coordination(window=120, until=until).empty


def test_hashtag_sets_and_urls(corpus):
    rows = []
    for k in range(3):
        for i, account in enumerate(("a", "b", "c")):
            t = START + timedelta(days=k, seconds=10 * i)
            rows.append({"author": account, "publishedAt": _iso(t),
                         "contentText": f"look #Tag{k} #other{k} https://www.news.example/story{k}?utm_source=x"})
    rng = np.random.default_rng(1)
    for account in ("a", "b", "c"):        # each account's ordinary posts: the null shuffles among them
        rows += [{"author": account, "contentText": _words(rng),
                  "publishedAt": _iso(START + timedelta(seconds=int(rng.integers(0, 30 * 86400))))}
                 for _ in range(30)]
    corpus.add_records([{**r, "sourceId": str(i)} for i, r in enumerate(rows)], source="twitter")
    # record_hashtags is written by enrichment's resolution step; fill it as that step would
    for rid, text in corpus.conn.execute("SELECT id, content_text FROM records WHERE content_text LIKE 'look%'"):
        for tag in ("tag" + text.split("#Tag")[1][0], "other" + text.split("#other")[1][0]):
            corpus.conn.execute("INSERT INTO record_hashtags(record_id, tag, written) VALUES (?, ?, ?)",
                                (rid, tag, tag))
    by_url = corpus.coordination(by="url", window=60, n_null=10)
    assert sorted(by_url["author"]) == ["a", "b", "c"] and set(by_url["shared"]) == {3}
    assert by_url["evidence"][0][0]["item"] == "news.example/story0"
    by_tags = corpus.coordination(by="hashtag_set", window=60, n_null=10)
    assert by_tags["evidence"][0][0]["item"] == "other0 tag0"


def test_keys():
    assert url_key("https://WWW.Example.com/a/?utm_source=x&b=2#frag") == "example.com/a?b=2"
    assert url_key("") is None
    assert text_key("", "RT @someone: The Election was STOLEN!!! https://t.co/x") == "the election was stolen"
    assert text_key("", "lol so true") is None


def test_bad_arguments(planted):
    with pytest.raises(ValidationError, match="by must be one of"):
        planted.coordination(by="emoji")
    with pytest.raises(ValidationError, match="window must be"):
        planted.coordination(window=-1)
    with pytest.raises(ValidationError, match="min_repeats"):
        planted.coordination(min_repeats=0)
    with pytest.raises(ValidationError, match="alpha"):
        planted.coordination(alpha=2.0)


def test_nothing_repeated_gives_an_empty_frame_and_no_estimate(corpus):
    from corpuskit.networks import estimate_window

    corpus.add_records([{"sourceId": "1", "author": "a", "contentText": "one two three four",
                         "publishedAt": "2024-01-01T00:00:00Z"}], source="twitter")
    assert corpus.coordination().empty
    with pytest.raises(ValidationError, match="give window="):
        estimate_window(corpus.conn)


@pytest.mark.parametrize("text", [
    "Switching from GMP to gcc's __int128 reduced run time by 95%",
    "Plain words only, with -- punctuation!!! and more",
    "Tom &amp; Jerry are back in town", "see example.com for the rest of it",
    "RT this is a plain retweet marker text", "[Discussion] what is the best editor",
])
def test_the_plain_text_shortcut_gives_the_normaliser_s_key(text):
    from corpuskit.text import analysis_text

    words = " ".join(re.sub(r"[\W_]+", " ", analysis_text(text).lower()).split())
    assert text_key("", text) == (words if len(words.split()) >= 4 else None)


def test_window_is_coornet_s_quantile_of_time_to_past_half_the_shares(corpus):
    from corpuskit.networks import estimate_window

    # item A at 0, 10, 100 s (past half: the 2nd share, 10 s); item B at 0, 50 s (the 2nd, 50 s)
    rows = [("a", "alpha beta gamma delta", 0), ("b", "alpha beta gamma delta", 10),
            ("c", "alpha beta gamma delta", 100), ("a", "one two three four", 1000),
            ("b", "one two three four", 1050), ("c", "only c says this here", 5000)]
    corpus.add_records([{"sourceId": str(i), "author": a, "contentText": t,
                         "publishedAt": _iso(START + timedelta(seconds=s))} for i, (a, t, s) in enumerate(rows)],
                       source="twitter")
    assert estimate_window(corpus.conn) == 14           # 10 + 0.1 * (50 - 10), rounded down
    assert estimate_window(corpus.conn, q=1.0) == 50


def test_signal_coordination_names_the_group_behind_a_signal(planted):
    from corpuskit.networks.signal_ties import signal_coordination

    groups = planted.coordination(window=120, seed=0)
    conn = planted.conn
    campaign_ids = [r for (r,) in conn.execute(
        "SELECT id FROM records WHERE content_text LIKE 'the election%' ORDER BY id LIMIT 8")]
    other_ids = [r for (r,) in conn.execute("SELECT id FROM records WHERE author = 'user001' ORDER BY id LIMIT 2")]
    for sid, ids in ((1, campaign_ids + other_ids), (2, other_ids)):
        conn.execute("INSERT INTO signals(id, signal_key, kind, severity, sigma_score, headline, detected_at, status, "
                     "run_id, updated_at) VALUES (?, ?, 'volume_spike', 'high', 5, 'h', '2024-03-02', 'open', 't', 't')",
                     (sid, f"k{sid}"))
        conn.executemany("INSERT INTO signal_evidence(signal_id, ref_kind, ref_id) VALUES (?, 'record', ?)",
                         [(sid, r) for r in ids])
    try:
        ties = signal_coordination(conn, groups)
        assert ties.to_dict("records") == [{"signalId": 1, "kind": "volume_spike", "group": 1, "accounts": 10,
                                            "records": 10, "groupRecords": 8, "share": 0.8, "mostly": True}]
        assert planted.signal_coordination(groups, mostly=0.9)["mostly"].tolist() == [False]
    finally:
        conn.execute("DELETE FROM signals")


def test_hashtags_stay_one_word_in_the_text_key():
    assert text_key("", "RT @a: Vote for the #NewPark today! https://t.co/x") == "vote for the newpark today"


def test_the_vectorised_text_keys_equal_the_one_by_one_key():
    from corpuskit.networks.items import text_keys

    texts = ["Switching from GMP to gcc's __int128 reduced run time by 95%", "Plain words only, with -- punctuation!!!",
             "Tom &amp; Jerry are back in town", "see example.com for the rest of it", "lol so true",
             "RT this is a plain retweet marker text", "rt lower case marker text here", "[Discussion] what is best",
             "Ünïcode wörds are here too", "   spaced    out\ttabs\nand lines  ", "", None, "@someone hello there you all",
             "a_b_c d-e-f g h", "#VoteNow for the new park", "just three words"]
    titles = [None, "", "A title of its own", "see example.com for the rest of it", "x", None, "Title", "", "",
              "", "Only a title with words", None, "", "", "", None]
    assert text_keys(titles, texts) == [text_key(t or "", x or "") for t, x in zip(titles, texts)]


def _signal(conn, sid, ids, detail="{}"):
    conn.execute("INSERT INTO signals(id, signal_key, kind, severity, sigma_score, headline, detail, detected_at, "
                 "status, run_id, updated_at) VALUES (?, ?, 'volume_spike', 'high', 5, 'h', ?, '2024-03-02', 'open', "
                 "'t', 't')", (sid, f"k{sid}", detail))
    conn.executemany("INSERT INTO signal_evidence(signal_id, ref_kind, ref_id) VALUES (?, 'record', ?)",
                     [(sid, r) for r in ids])


def test_a_signal_mostly_one_group_s_posts_says_so_in_its_detail(planted):
    import json

    from corpuskit.analysis.signals.coordinated import mark_coordinated
    from corpuskit.analysis.signals.linking import without_event

    conn = planted.conn
    campaign_ids = [r for (r,) in conn.execute(
        "SELECT id FROM records WHERE content_text LIKE 'the election%' ORDER BY id LIMIT 8")]
    other_ids = [r for (r,) in conn.execute("SELECT id FROM records WHERE author = 'user001' ORDER BY id LIMIT 4")]
    _signal(conn, 1, campaign_ids + other_ids[:2], json.dumps({"day": "2024-03-02"}))
    _signal(conn, 2, other_ids, json.dumps({"day": "2024-03-02", "coordination": {"group": 9}}))
    try:
        assert mark_coordinated(planted) == {"groups": 1, "coordinated": 1, "changed": 2}
        details = {i: json.loads(d) for i, d in conn.execute("SELECT id, detail FROM signals")}
        assert details[1] == {"day": "2024-03-02",
                              "coordination": {"group": 1, "accounts": 10, "records": 8, "evidence": 10,
                                                               "share": 0.8}}
        assert details[2] == {"day": "2024-03-02"}          # a stale mark is cleared
        assert mark_coordinated(planted)["changed"] == 0
        # the replay compares a stored signal without it: a mark is not a change of the signal
        assert json.loads(without_event(json.dumps(details[1]))) == {"day": "2024-03-02"}
    finally:
        conn.execute("DELETE FROM signal_evidence")
        conn.execute("DELETE FROM signals")


def test_the_export_bundle_writes_the_groups_and_every_network_with_their_codebook(planted, tmp_path):
    import pandas as pd

    from corpuskit.ingest.export_columns import NETWORK_ENDS
    from corpuskit.networks import KINDS

    assert set(NETWORK_ENDS) == set(KINDS)
    report = planted.export_bundle(tmp_path / "b", format="parquet")
    groups = pd.read_parquet(tmp_path / "b" / "coordination.parquet")
    assert sorted(groups["author"]) == CAMPAIGN and set(groups["group"]) == {1} and set(groups["shared"]) == {5}
    found = planted.coordination()
    assert groups["evidence"].map(json.loads).tolist() == found["evidence"].tolist()
    for kind in KINDS:
        edges = pd.read_parquet(tmp_path / "b" / f"network_{kind}.parquet")
        assert report.rows[f"network_{kind}"] == len(edges) == len(planted.network(kind)), kind
    codebook = (tmp_path / "b" / "codebook.md").read_text(encoding="utf-8")
    assert "coordination" in codebook and "network_shared_url" in codebook
    hidden = planted.export_bundle(tmp_path / "p", format="jsonl", pseudonymise=True, salt="s")
    assert hidden.rows["coordination"] == 10
    rows = [json.loads(line) for line in (tmp_path / "p" / "coordination.jsonl").read_text().splitlines()]
    assert all(r["author"].startswith("u_") for r in rows)


def test_a_story_on_a_coordinated_signal_says_the_accounts_acted_together():
    from corpuskit.narrate.prose import signal_prose

    signal = {"kind": "volume_spike", "severity": "high", "sigma_score": 6.0, "detected_at": "2024-03-02T10:00:00Z",
              "headline": "Volume spike in the corpus", "detail": {}}
    _, plain = signal_prose(signal)
    assert "acting together" not in plain
    signal["detail"] = {"coordination": {"group": 2, "accounts": 12, "records": 9, "evidence": 10, "share": 0.9}}
    _, told = signal_prose(signal)
    assert told == plain + " 9 of the 10 posts it rests on were posted by 12 accounts acting together " \
                           "(coordinated group 2)."
