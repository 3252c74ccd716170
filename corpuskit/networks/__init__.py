"""Interaction networks and coordinated groups of accounts.

:func:`network` builds an edge list (and its node table) of one kind from the records a filter
selects; :func:`write_network` writes it as GEXF, GraphML (through networkx, the ``networks``
extra) or CSV; :func:`coordination` finds accounts that post the same text, URL or hashtag set
within a short window more often than a time-shuffled null allows; :func:`coordination_summary`
folds its rows into groups (what the HTTP APIs serve).
"""
from corpuskit.networks.coordination import coordination, estimate_window
from corpuskit.networks.edges import KINDS, Network, network
from corpuskit.networks.export import FORMATS, write_network
from corpuskit.networks.signal_ties import signal_coordination
from corpuskit.networks.summary import coordination_summary, group_summaries

__all__ = ["FORMATS", "KINDS", "Network", "coordination", "coordination_summary", "estimate_window",
           "group_summaries", "network", "signal_coordination", "write_network"]
