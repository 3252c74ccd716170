"""The :class:`~corpuskit.corpus.Corpus` methods on one noun. Networks of who talks to whom, and accounts
that act together."""
from __future__ import annotations

import pandas as pd


class NetworkMethods:
    """Networks of who talks to whom, and accounts that act together."""

    def network(self, kind: str, since=None, until=None, query=None, min_weight: int = 1) -> pd.DataFrame:
        """The ``kind`` interaction network as an edge list: ``source, target, weight, first, last,
        records`` (record ids), heaviest first, ties by source then target.

        Kinds: mention, reply, repost, quote, cohashtag, coentity, shared_url, coauthor_topic
        (see :mod:`corpuskit.networks.edges` and docs/api.md, "Networks"). ``since``/``until``
        bound ``publishedAt``; ``query`` is a query-language text or a :meth:`query` Subcorpus;
        ``min_weight`` drops lighter edges. :class:`ValidationError` for a bad kind or value.
        """
        from corpuskit.networks import network

        return network(self.conn, kind, since=since, until=until, query=query, min_weight=min_weight).edges

    def network_nodes(self, kind: str, since=None, until=None, query=None, min_weight: int = 1) -> pd.DataFrame:
        """The nodes of :meth:`network` (same arguments): ``node, type, records, first, last,
        dominantTopic, meanSentiment``, most records first, ties by node."""
        from corpuskit.networks import network

        return network(self.conn, kind, since=since, until=until, query=query, min_weight=min_weight).nodes

    def export_network(self, path, kind: str = "mention", format: str | None = None, since=None, until=None,
                       query=None, min_weight: int = 1):
        """Write :meth:`network` to ``path`` as gexf or graphml (networkx: the ``networks`` extra) or
        csv (edges, and ``<stem>_nodes.csv``); ``format`` defaults to the extension. Returns the path."""
        from corpuskit.networks import network, write_network

        net = network(self.conn, kind, since=since, until=until, query=query, min_weight=min_weight)
        return write_network(net, path, format=format)

    def coordination(self, window=None, min_repeats: int = 2, by: str = "text", since=None, until=None,
                     query=None, n_null: int = 20, alpha: float = 0.05, seed: int = 0) -> pd.DataFrame:
        """Coordinated groups: one row per (group, author) with ``group, author, records, shared,
        first, last, evidence``.

        Accounts are linked when they post the same normalised text, URL or hashtag set (``by``)
        within ``window`` seconds (estimated from the corpus as CooRnet does when None) on at least
        ``min_repeats`` items, more often than ``n_null`` seeded draws that shuffle each account's
        posting times among its own posts allow (Benjamini–Hochberg at ``alpha``); groups are the
        connected components. ``attrs`` holds the window and the test's counts. See
        :mod:`corpuskit.networks.coordination` and docs/api.md, "Coordination".
        """
        from corpuskit.networks import coordination

        return coordination(self.conn, window=window, min_repeats=min_repeats, by=by, since=since,
                            until=until, query=query, n_null=n_null, alpha=alpha, seed=seed)

    def signal_coordination(self, groups: pd.DataFrame | None = None, mostly: float = 0.5, **settings) -> pd.DataFrame:
        """Which signals a coordinated group drives: per signal with evidence records among a group's
        coordinated posts, ``signalId, kind, group, accounts, records, groupRecords, share, mostly``
        (``share >= mostly``). ``groups`` is a :meth:`coordination` result (computed with
        ``settings`` when None). See :mod:`corpuskit.networks.signal_ties`."""
        from corpuskit.networks.signal_ties import signal_coordination

        return signal_coordination(self.conn, self.coordination(**settings) if groups is None else groups,
                                   mostly=mostly)
