"""Write a network as GEXF or GraphML (through networkx, the ``networks`` extra) or as two CSV files.

GEXF and GraphML open in Gephi: nodes carry ``label, type, records, first, last, dominantTopic,
meanSentiment``; edges carry ``weight, first, last`` and ``records`` (the record ids, space
separated). A value that is missing (no topic, no sentiment before enrichment) is left off the
node rather than written as an empty string or NaN, which Gephi would read as a value. CSV writes
``path`` (the edges) and ``<stem>_nodes.csv`` beside it, the ``records`` column space separated.
"""
from __future__ import annotations

import math
from pathlib import Path

from corpuskit.errors import ValidationError
from corpuskit.networks.edges import Network

#: The formats :func:`write_network` writes.
FORMATS = ("gexf", "graphml", "csv")
INSTALL_HINT = 'pip install "corpuskit[networks]"'


def _networkx():
    try:
        import networkx
    except ImportError:
        raise ImportError(f"writing a network as GEXF or GraphML needs networkx: {INSTALL_HINT}") from None
    return networkx


def nodes_path(path) -> Path:
    """Where the CSV format writes the node table beside the edge file ``path``."""
    path = Path(path)
    return path.with_name(f"{path.stem}_nodes{path.suffix or '.csv'}")


def write_network(net: Network, path, format: str | None = None) -> Path:
    """Write ``net`` to ``path`` (``format`` defaults to the extension); returns the path written."""
    path = Path(path)
    format = (format or path.suffix.lstrip(".")).lower()
    if format not in FORMATS:
        raise ValidationError(f"format must be one of {', '.join(FORMATS)}, not {format!r} "
                              "(give format= or a path ending .gexf, .graphml or .csv)")
    if format == "csv":
        _frame(net.edges).to_csv(path, index=False)
        net.nodes.to_csv(nodes_path(path), index=False)
        return path
    graph = to_networkx(net)
    nx = _networkx()
    if format == "gexf":
        nx.write_gexf(graph, path)
    else:
        nx.write_graphml(graph, path)
    return path


def _frame(edges):
    return edges.assign(records=edges["records"].map(lambda ids: " ".join(map(str, ids))))


def _present(value) -> bool:
    return value is not None and not (isinstance(value, float) and math.isnan(value))


def to_networkx(net: Network):
    """``net`` as a networkx ``DiGraph`` (directed kinds) or ``Graph``, with the attributes above."""
    nx = _networkx()
    graph = nx.DiGraph() if net.directed else nx.Graph()
    graph.graph.update(kind=net.kind)
    for row in net.nodes.itertuples(index=False):
        attrs = {"label": str(row.node), "type": row.type, "records": int(row.records)}
        for name in ("first", "last", "dominantTopic"):
            if _present(getattr(row, name)):
                attrs[name] = str(getattr(row, name))
        if _present(row.meanSentiment):
            attrs["meanSentiment"] = float(row.meanSentiment)
        graph.add_node(str(row.node), **attrs)
    for row in net.edges.itertuples(index=False):
        graph.add_edge(str(row.source), str(row.target), weight=int(row.weight), first=str(row.first),
                       last=str(row.last), records=" ".join(map(str, row.records)))
    return graph
