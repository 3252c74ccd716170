"""Identity across refits: which new group continues which old one, by the members they share.

Enrichment keeps a rediscovered topic's name with it, and analysis keeps a
cluster's lineage, by the same one-to-one Jaccard matching.
"""
from __future__ import annotations


def match_lineages(new: dict[int, set], old: dict[str, set], threshold: float) -> dict[int, str]:
    """One-to-one matching of new clusters to old lineages by Jaccard overlap, best first."""
    pairs = []
    for label, members in new.items():
        for lineage, old_members in old.items():
            inter = len(members & old_members)
            if inter:
                jac = inter / len(members | old_members)
                if jac >= threshold:
                    pairs.append((-jac, label, lineage))
    taken_new, taken_old, out = set(), set(), {}
    for _, label, lineage in sorted(pairs):
        if label in taken_new or lineage in taken_old:
            continue
        out[label] = lineage
        taken_new.add(label)
        taken_old.add(lineage)
    return out
