"""Coordinated groups as a reader (and the HTTP APIs) see them: one entry per group, its members
and the items they shared, with the record ids of each.

:func:`coordination_summary` runs :func:`~corpuskit.networks.coordination` and folds its
(group, author) rows into groups, in group order (largest first), as plain data.
"""
from __future__ import annotations

import pandas as pd

from corpuskit.networks.coordination import coordination

_CHUNK = 500


def coordination_summary(conn, by: str = "text", window=None, min_repeats: int = 2, since=None, until=None,
                         query=None, limit: int = 20, offset: int = 0, items: int = 10) -> dict:
    """``{groups, total, settings}``: the groups ``offset .. offset + limit`` of a
    :func:`~corpuskit.networks.coordination` run (default null and seed) as :func:`group_summaries`
    writes them, how many groups there are, and the run's settings (window, whether it was
    estimated, ``by``, ``minRepeats``, ``nNull``, ``alpha``, ``seed``, pairs tested and significant)."""
    found = coordination(conn, window=window, min_repeats=min_repeats, by=by, since=since, until=until,
                         query=query)
    return summarise_groups(conn, found, limit=limit, offset=offset, items=items)


def summarise_groups(conn, found: pd.DataFrame, limit: int = 20, offset: int = 0, items: int = 10) -> dict:
    """:func:`coordination_summary` of a :func:`~corpuskit.networks.coordination` result already
    computed (``found``)."""
    numbers = sorted(found["group"].unique().tolist())
    page = found[found["group"].isin(numbers[offset:offset + limit])]
    a = found.attrs
    settings = {"by": a["by"], "window": a["window"], "windowEstimated": a["window_estimated"],
                "minRepeats": a["min_repeats"], "nNull": a["n_null"], "alpha": a["alpha"], "seed": a["seed"],
                "pairsTested": a["pairs_tested"], "significantPairs": a["significant_pairs"]}
    return {"groups": group_summaries(page, record_times(conn, page), items), "total": len(numbers),
            "settings": settings}


def record_times(conn, groups: pd.DataFrame) -> dict[int, str]:
    """``{record id: published_at}`` of every record in ``groups``' evidence."""
    ids = sorted({int(r) for evidence in groups["evidence"] for entry in evidence for r in entry["records"]})
    times = {}
    for start in range(0, len(ids), _CHUNK):
        chunk = ids[start:start + _CHUNK]
        marks = ",".join("?" * len(chunk))
        times.update(conn.execute(f"SELECT id, published_at FROM records WHERE id IN ({marks})", chunk).fetchall())
    return times


def group_summaries(groups: pd.DataFrame, times: dict[int, str], items: int = 10) -> list[dict]:
    """One dict per group of a :func:`~corpuskit.networks.coordination` result, in group order.

    ``group``, ``accounts`` (how many), ``records`` (their coordinated posts), ``first``/``last``,
    ``members`` (``account, records, shared, first, last``, by account name), ``itemCount`` and
    ``items``: the first ``items`` shared items by their first post (``times``: record id →
    time), each with ``first``, ``accounts`` (members who posted it) and ``records`` (ids, ascending).
    """
    out = []
    for group, part in groups.groupby("group", sort=True):
        shared: dict[str, dict] = {}
        for author, evidence in zip(part["author"], part["evidence"]):
            for entry in evidence:
                slot = shared.setdefault(entry["item"], {"accounts": set(), "records": set()})
                slot["accounts"].add(author)
                slot["records"].update(int(r) for r in entry["records"])
        first = {item: min(times[r] for r in slot["records"]) for item, slot in shared.items()}
        ordered = sorted(shared, key=lambda item: (first[item], item))
        out.append({
            "group": int(group), "accounts": int(len(part)), "records": int(part["records"].sum()),
            "first": min(part["first"]), "last": max(part["last"]),
            "members": [{"account": a, "records": int(r), "shared": int(s), "first": f, "last": la}
                        for a, r, s, f, la in zip(part["author"], part["records"], part["shared"],
                                                   part["first"], part["last"])],
            "itemCount": len(shared),
            "items": [{"item": item, "first": first[item], "accounts": len(shared[item]["accounts"]),
                       "records": sorted(shared[item]["records"])} for item in ordered[:items]],
        })
    return out
