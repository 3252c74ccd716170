"""Interaction networks: every kind's edges and nodes on a small hand-built corpus, filters, order,
GEXF / GraphML / CSV export read back, the CLI, and the install hint when networkx is missing."""
from __future__ import annotations

import sys

import pandas as pd
import pytest

from corpuskit import open_corpus
from corpuskit.errors import ValidationError

ROWS = [
    # sourceId, author, time, text, link fields
    ("1", "alice", "2024-01-01T10:00:00Z", "hello @Bob and @carol #One #Two https://www.ex.com/a?utm_source=x", {}),
    ("2", "Bob", "2024-01-01T11:00:00Z", "reply to alice #one #three ex.com/a/", {"replyTo": "1"}),
    ("3", "carol", "2024-01-02T11:00:00Z", "RT @alice: hello", {"repostOf": "1", "isRepost": True}),
    ("4", "dave", "2024-01-03T11:00:00Z", "quoting bob about @ALICE", {"quoteOf": "2"}),
    ("5", "dave", "2024-01-03T12:00:00Z", "quoting a post that is not here #one #two", {"quoteOf": "99"}),
    ("6", "alice", "2024-01-04T09:00:00Z", "again @bob https://ex.com/b", {"replyTo": "2"}),
    ("7", "carol", "2024-01-05T09:00:00Z", "me too https://ex.com/b", {"replyTo": "6"}),
]
# record id -> (topic, sentiment, entity slugs)
ENRICHED = {1: ("tech", 0.5, ["acme", "globex"]), 2: ("tech", -0.5, ["acme", "globex"]),
            3: ("news", 0.2, ["acme"]), 4: ("news", 0.0, []), 5: ("tech", 0.1, ["acme", "globex", "initech"]),
            6: ("tech", 0.3, []), 7: ("news", 0.4, [])}


@pytest.fixture(scope="module")
def small():
    c = open_corpus(":memory:")
    c.add_records([{"sourceId": sid, "author": a, "publishedAt": t, "contentText": text, **links}
                   for sid, a, t, text, links in ROWS], source="twitter")
    conn = c.conn
    for tid, name in ((1, "tech"), (2, "news")):
        conn.execute("INSERT INTO topics(id, name, display_name, created_at) VALUES (?, ?, ?, '2024-01-01')",
                     (tid, name, name.title()))
    for eid, slug in enumerate(("acme", "globex", "initech"), 1):
        conn.execute("INSERT INTO entities(id, slug, name, type, updated_at) VALUES (?, ?, ?, 'org', '2024')",
                     (eid, slug, slug.title()))
    slugs = {"acme": 1, "globex": 2, "initech": 3}
    for rid, (topic, sentiment, entities) in ENRICHED.items():
        conn.execute("INSERT INTO enrichment(record_id, sentiment_score, sentiment_label, topic_id, run_id) "
                     "VALUES (?, ?, 'neutral', ?, 'test')", (rid, sentiment, 1 if topic == "tech" else 2))
        for slug in entities:
            conn.execute("INSERT INTO mentions(record_id, entity_id, surface, mention_count, positions) "
                         "VALUES (?, ?, ?, 1, '[]')", (rid, slugs[slug], slug))
    for rid, text in conn.execute("SELECT id, content_text FROM records").fetchall():
        for tag in {w[1:].lower() for w in text.split() if w.startswith("#")}:
            conn.execute("INSERT INTO record_hashtags(record_id, tag, written) VALUES (?, ?, ?)", (rid, tag, tag))
    yield c
    c.close()


def _edges(frame):
    return {(s, t): (w, r) for s, t, w, r in zip(frame["source"], frame["target"], frame["weight"], frame["records"])}


def test_mention_edges_resolve_handles_to_the_corpus_spelling(small):
    edges = small.network("mention")
    assert list(edges.columns) == ["source", "target", "weight", "first", "last", "records"]
    assert _edges(edges) == {("alice", "Bob"): (2, [1, 6]), ("alice", "carol"): (1, [1]),
                             ("carol", "alice"): (1, [3]), ("dave", "alice"): (1, [4])}
    row = edges.iloc[0]
    assert (row["source"], row["first"], row["last"]) == ("alice", "2024-01-01T10:00:00Z", "2024-01-04T09:00:00Z")


@pytest.mark.parametrize("kind, expected", [
    ("reply", {("Bob", "alice"): (1, [2]), ("alice", "Bob"): (1, [6]), ("carol", "alice"): (1, [7])}),
    ("repost", {("carol", "alice"): (1, [3])}),
    ("quote", {("dave", "Bob"): (1, [4])}),           # record 5 quotes a post not in the corpus: no edge
])
def test_typed_link_edges(small, kind, expected):
    assert _edges(small.network(kind)) == expected


def test_cohashtag_and_coentity_are_undirected_pairs_within_a_record(small):
    assert _edges(small.network("cohashtag")) == {("one", "two"): (2, [1, 5]), ("one", "three"): (1, [2])}
    assert _edges(small.network("coentity")) == {("acme", "globex"): (3, [1, 2, 5]), ("acme", "initech"): (1, [5]),
                                                 ("globex", "initech"): (1, [5])}


def test_shared_url_weight_counts_distinct_urls(small):
    # alice and Bob share ex.com/a (normalised), alice and carol ex.com/b
    assert _edges(small.network("shared_url")) == {("Bob", "alice"): (1, [1, 2]), ("alice", "carol"): (1, [6, 7])}


def test_coauthor_topic_is_bipartite_with_typed_nodes(small):
    assert _edges(small.network("coauthor_topic")) == {
        ("alice", "tech"): (2, [1, 6]), ("dave", "news"): (1, [4]), ("dave", "tech"): (1, [5]),
        ("Bob", "tech"): (1, [2]), ("carol", "news"): (2, [3, 7])}
    nodes = small.network_nodes("coauthor_topic").set_index("node")
    assert nodes.loc["tech", "type"] == "topic" and nodes.loc["tech", "records"] == 4
    assert nodes.loc["alice", "type"] == "account"


def test_order_is_weight_then_ids(small):
    edges = small.network("coauthor_topic")
    keys = list(zip(-edges["weight"], edges["source"], edges["target"]))
    assert keys == sorted(keys)


def test_node_attributes(small):
    nodes = small.network_nodes("mention")
    assert list(nodes.columns) == ["node", "type", "records", "first", "last", "dominantTopic", "meanSentiment"]
    alice = nodes.set_index("node").loc["alice"]
    assert alice["records"] == 2 and alice["first"] == "2024-01-01T10:00:00Z"
    assert alice["dominantTopic"] == "tech" and alice["meanSentiment"] == pytest.approx(0.4)
    entity = small.network_nodes("coentity").set_index("node").loc["acme"]
    assert entity["type"] == "entity" and entity["records"] == 4
    assert entity["meanSentiment"] == pytest.approx((0.5 - 0.5 + 0.2 + 0.1) / 4)


def test_filters_and_min_weight(small):
    assert _edges(small.network("mention", until="2024-01-01")) == {  # a bare date covers its day
        ("alice", "Bob"): (1, [1]), ("alice", "carol"): (1, [1])}
    assert _edges(small.network("mention", since="2024-01-03")) == {
        ("alice", "Bob"): (1, [6]), ("dave", "alice"): (1, [4])}
    assert _edges(small.network("mention", min_weight=2)) == {("alice", "Bob"): (2, [1, 6])}
    assert _edges(small.network("mention", query="author:dave")) == {("dave", "alice"): (1, [4])}
    assert _edges(small.network("mention", query=small.query("author:dave"))) == {("dave", "alice"): (1, [4])}
    assert set(small.network_nodes("mention", min_weight=2)["node"]) == {"alice", "Bob"}


def test_bad_arguments(small):
    with pytest.raises(ValidationError, match="kind must be one of mention, reply"):
        small.network("follows")
    with pytest.raises(ValidationError, match="min_weight"):
        small.network("mention", min_weight=0)
    with pytest.raises(ValidationError, match="format must be one of gexf, graphml, csv"):
        small.export_network("out.txt")


def test_gexf_reads_back_with_attributes(small, tmp_path):
    nx = pytest.importorskip("networkx")
    path = small.export_network(tmp_path / "m.gexf", kind="mention")
    graph = nx.read_gexf(path)
    assert graph.is_directed()
    assert set(graph.edges) == {("alice", "Bob"), ("alice", "carol"), ("carol", "alice"), ("dave", "alice")}
    assert graph.edges["alice", "Bob"]["weight"] == 2
    assert graph.edges["alice", "Bob"]["records"] == "1 6"
    assert graph.nodes["alice"]["dominantTopic"] == "tech"
    assert graph.nodes["alice"]["records"] == 2
    assert graph.nodes["alice"]["meanSentiment"] == pytest.approx(0.4)
    undirected = nx.read_graphml(small.export_network(tmp_path / "e.graphml", kind="coentity"))
    assert not undirected.is_directed() and undirected.edges["acme", "globex"]["weight"] == 3


def test_csv_writes_edges_and_nodes(small, tmp_path):
    small.export_network(tmp_path / "c.csv", kind="cohashtag")
    edges = pd.read_csv(tmp_path / "c.csv")
    nodes = pd.read_csv(tmp_path / "c_nodes.csv")
    assert list(edges["records"]) == ["1 5", "2"] and set(nodes["node"]) == {"one", "two", "three"}


def test_missing_networkx_prints_the_install_line(small, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "networkx", None)
    with pytest.raises(ImportError, match=r'pip install "corpuskit\[networks\]"'):
        small.export_network(tmp_path / "m.gexf")


def test_cli_writes_a_gexf(tmp_path, capsys):
    nx = pytest.importorskip("networkx")
    from corpuskit.cli import main

    db = tmp_path / "c.db"
    c = open_corpus(db)
    c.add_records([{"sourceId": sid, "author": a, "publishedAt": t, "contentText": text, **links}
                   for sid, a, t, text, links in ROWS], source="twitter")
    c.close()
    assert main(["network", "--db", str(db), "--kind", "mention", str(tmp_path / "out.gexf")]) == 0
    assert "4 edges" in capsys.readouterr().out
    assert nx.read_gexf(tmp_path / "out.gexf").number_of_edges() == 4
    assert main(["network", "--db", str(db), "--kind", "reply", "--min-weight", "0", str(tmp_path / "x.gexf")]) == 2
