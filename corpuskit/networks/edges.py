"""Interaction networks as edge lists with time and weight, and the table of their nodes.

Each kind turns the selected records into *occurrences* (one per record and edge it makes) and
*memberships* (one per record and node it touches); an edge's ``weight`` is the number of records
that make it (``shared_url``: the number of distinct URLs the two authors both shared), ``first``
and ``last`` the earliest and latest of those records' times, ``records`` their ids ascending.

| kind | source → target | directed |
|---|---|---|
| ``mention`` | author → @handle in the text (the corpus's spelling of an author of that name, else the handle lower-cased) | yes |
| ``reply``, ``repost``, ``quote`` | author → author of the post ``reply_to`` / ``repost_of`` / ``quote_of`` names (same source; a post not in the corpus makes no edge) | yes |
| ``cohashtag`` | hashtag — hashtag, in one record | no |
| ``coentity`` | entity slug — entity slug, in one record | no |
| ``shared_url`` | author — author, both shared the URL | no |
| ``coauthor_topic`` | author → topic (the record's primary topic), bipartite | yes |

Undirected edges are listed once, ``source < target``. Rows are ordered by weight descending,
then source, then target. Nodes carry ``records`` (the selected records that touch them: an
author's posts, a hashtag's or entity's records, a topic's records), ``first``/``last`` seen,
``dominantTopic`` (their records' most common primary topic, ties by name) and
``meanSentiment`` (mean of their records' sentiment scores; NaN before enrichment).
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from itertools import combinations

import pandas as pd

from corpuskit.errors import ValidationError
from corpuskit.networks.items import url_keys
from corpuskit.networks.selection import record_filter, select
from corpuskit.query import RecordFilter
from corpuskit.text import find_handles

#: The network kinds, and whether their edges have a direction.
KINDS = {"mention": True, "reply": True, "repost": True, "quote": True, "cohashtag": False,
         "coentity": False, "shared_url": False, "coauthor_topic": True}
EDGE_COLUMNS = ["source", "target", "weight", "first", "last", "records"]
NODE_COLUMNS = ["node", "type", "records", "first", "last", "dominantTopic", "meanSentiment"]
_LINK_COLUMN = {"reply": "reply_to", "repost": "repost_of", "quote": "quote_of"}
_NODE_TYPE = {"mention": "account", "reply": "account", "repost": "account", "quote": "account",
              "cohashtag": "hashtag", "coentity": "entity", "shared_url": "account"}


@dataclass(frozen=True)
class Network:
    """One network: ``edges`` (:data:`EDGE_COLUMNS`), ``nodes`` (:data:`NODE_COLUMNS`), its kind."""

    kind: str
    directed: bool
    edges: pd.DataFrame
    nodes: pd.DataFrame


class _Rows:
    """Per-record facts the node table needs: time, sentiment and topic by record id."""

    def __init__(self):
        self.time, self.sentiment, self.topic = {}, {}, {}

    def keep(self, rid, published, sentiment, topic):
        self.time[rid], self.sentiment[rid], self.topic[rid] = published, sentiment, topic


def network(conn, kind: str, since=None, until=None, query=None, min_weight: int = 1,
            rfilter: RecordFilter | None = None) -> Network:
    """The ``kind`` network of the selected records (see the module docstring); ``rfilter``, a whole
    :class:`~corpuskit.query.RecordFilter` (the export's), replaces ``since``, ``until`` and ``query``."""
    if kind not in KINDS:
        raise ValidationError(f"kind must be one of {', '.join(KINDS)}, not {kind!r}")
    if isinstance(min_weight, bool) or not isinstance(min_weight, int) or min_weight < 1:
        raise ValidationError(f"min_weight must be a whole number >= 1, not {min_weight!r}")
    rfilter = record_filter(since, until, query) if rfilter is None else rfilter
    rows = _Rows()
    occurrences, members = _BUILDERS[kind](conn, rfilter, rows)
    edges = _edges(occurrences, rows, kind)
    edges = edges[edges["weight"] >= min_weight].reset_index(drop=True)
    nodes = _nodes(members, rows, edges, kind)
    return Network(kind, KINDS[kind], edges, nodes)


def _authors(conn, rfilter, rows, extra=(), condition=None):
    """Yield (record id, author, extra values...) of the selection, keeping each record's facts."""
    for rid, author, published, sentiment, topic, *rest in select(conn, rfilter, extra, condition):
        rows.keep(rid, published, sentiment, topic)
        yield rid, author, *rest


def _mention(conn, rfilter, rows):
    cases = {a.lower(): a for (a,) in conn.execute(
        "SELECT DISTINCT author FROM records WHERE author != '' ORDER BY author DESC")}
    occ, members = [], []
    for rid, author, title, text in _authors(conn, rfilter, rows, ("r.title", "r.content_text")):
        members.append((rid, author))
        for handle in dict.fromkeys(h.lower() for h in find_handles(f"{title}\n{text}")):
            target = cases.get(handle, handle)
            if target != author:
                occ.append((rid, author, target, None))
                members.append((None, target))
    return occ, members


def _linked(column):
    def build(conn, rfilter, rows):
        occ, members = [], []
        extra = (f"CASE WHEN r.{column} IS NULL THEN NULL ELSE (SELECT p.author FROM records p "
                 f"WHERE p.source = r.source AND p.source_id = r.{column} AND p.author != '') END",)
        for rid, author, target in _authors(conn, rfilter, rows, extra):
            members.append((rid, author))
            if target is not None and target != author:
                occ.append((rid, author, target, None))
                members.append((None, target))
        return occ, members
    return build


def _cooccurring(sql_items):
    def build(conn, rfilter, rows):
        occ, members = [], []
        extra = (f"(SELECT group_concat(x, char(31)) FROM ({sql_items}))",)
        for rid, _author, items in _authors(conn, rfilter, rows, extra):
            names = sorted(set(items.split("\x1f"))) if items else []
            members.extend((rid, n) for n in names)
            occ.extend((rid, a, b, None) for a, b in combinations(names, 2))
        return occ, members
    return build


def _shared_url(conn, rfilter, rows):
    sharers = defaultdict(lambda: defaultdict(list))
    members = []
    for rid, author, url, title, text in _authors(conn, rfilter, rows, ("r.url", "r.title", "r.content_text")):
        members.append((rid, author))
        for key in url_keys(url, title, text):
            sharers[key][author].append(rid)
    occ = []
    for key, by_author in sharers.items():
        for a, b in combinations(sorted(by_author), 2):
            occ.extend((rid, a, b, key) for rid in by_author[a] + by_author[b])
    return occ, members


def _coauthor_topic(conn, rfilter, rows):
    occ, members = [], []
    for rid, author in _authors(conn, rfilter, rows):
        members.append((rid, author))
        topic = rows.topic[rid]
        if topic is not None:
            occ.append((rid, author, topic, None))
            members.append((rid, topic))
    return occ, members


_BUILDERS = {
    "mention": _mention,
    "reply": _linked("reply_to"), "repost": _linked("repost_of"), "quote": _linked("quote_of"),
    "cohashtag": _cooccurring("SELECT tag AS x FROM record_hashtags WHERE record_id = r.id"),
    "coentity": _cooccurring("SELECT en.slug AS x FROM mentions m JOIN entities en ON en.id = m.entity_id "
                             "WHERE m.record_id = r.id"),
    "shared_url": _shared_url,
    "coauthor_topic": _coauthor_topic,
}


def _edges(occurrences, rows: _Rows, kind: str) -> pd.DataFrame:
    if not occurrences:
        return pd.DataFrame({c: pd.Series(dtype=t) for c, t in zip(
            EDGE_COLUMNS, ("object", "object", "int64", "object", "object", "object"))})
    occ = pd.DataFrame(occurrences, columns=["record", "source", "target", "item"])
    occ["time"] = occ["record"].map(rows.time)
    grouped = occ.groupby(["source", "target"], sort=False)
    weight = grouped["item"].nunique() if kind == "shared_url" else grouped["record"].nunique()
    out = pd.DataFrame({
        "weight": weight.astype("int64"),
        "first": grouped["time"].min(), "last": grouped["time"].max(),
        "records": grouped["record"].agg(lambda s: sorted(set(int(x) for x in s))),
    }).reset_index()
    out = out.sort_values(["weight", "source", "target"], ascending=[False, True, True], kind="mergesort")
    return out[EDGE_COLUMNS].reset_index(drop=True)


def _nodes(members, rows: _Rows, edges: pd.DataFrame, kind: str) -> pd.DataFrame:
    in_edges = set(edges["source"]) | set(edges["target"])
    table = pd.DataFrame([(r, n) for r, n in members if n in in_edges], columns=["record", "node"])
    table = table.drop_duplicates()
    known = table.dropna(subset=["record"]).astype({"record": "int64"})
    known = known.assign(time=known["record"].map(rows.time), topic=known["record"].map(rows.topic),
                         sentiment=known["record"].map(rows.sentiment).astype(float))
    grouped = known.groupby("node")
    out = pd.DataFrame(index=pd.Index(sorted(in_edges), name="node"))
    out["records"] = grouped["record"].nunique().reindex(out.index).fillna(0).astype("int64")
    out["first"] = grouped["time"].min().reindex(out.index)
    out["last"] = grouped["time"].max().reindex(out.index)
    out["dominantTopic"] = _dominant(known).reindex(out.index)
    out["meanSentiment"] = grouped["sentiment"].mean().reindex(out.index)
    out["type"] = _types(out.index, edges, kind)
    out = out.reset_index()
    out = out.sort_values(["records", "node"], ascending=[False, True], kind="mergesort")
    return out[NODE_COLUMNS].reset_index(drop=True)


def _dominant(known: pd.DataFrame) -> pd.Series:
    topics = known.dropna(subset=["topic"])
    if topics.empty:
        return pd.Series(dtype=object)
    counts = topics.groupby(["node", "topic"]).size().rename("n").reset_index()
    counts = counts.sort_values(["node", "n", "topic"], ascending=[True, False, True], kind="mergesort")
    return counts.drop_duplicates("node").set_index("node")["topic"]


def _types(index, edges: pd.DataFrame, kind: str) -> list[str]:
    if kind != "coauthor_topic":
        return [_NODE_TYPE[kind]] * len(index)
    topics = set(edges["target"])
    return ["topic" if n in topics else "account" for n in index]
