"""Which signals a coordinated group drives: the share of a signal's evidence records that are the
group's coordinated posts (the record ids of its ``evidence``)."""
from __future__ import annotations

import pandas as pd

COLUMNS = ["signalId", "kind", "group", "accounts", "records", "groupRecords", "share", "mostly"]
#: The share of a signal's evidence records from one group above which the signal is "mostly" theirs.
MOSTLY = 0.5


def signal_coordination(conn, groups: pd.DataFrame, mostly: float = MOSTLY) -> pd.DataFrame:
    """One row per signal with at least one evidence record among a group's coordinated posts, for
    the group holding most of them (ties: the lower group number): ``signalId, kind, group``,
    ``accounts`` (the group's size), ``records`` (the signal's evidence records), ``groupRecords``
    (those that are the group's), ``share`` and ``mostly`` (``share >= mostly``). Highest share first,
    then signal id."""
    owner, size = {}, groups.groupby("group")["author"].nunique().to_dict() if len(groups) else {}
    for group, evidence in zip(groups["group"], groups["evidence"]):
        for entry in evidence:
            for rid in entry["records"]:
                owner[int(rid)] = int(group)
    rows = conn.execute(
        "SELECT s.id, s.kind, se.ref_id FROM signal_evidence se JOIN signals s ON s.id = se.signal_id "
        "WHERE se.ref_kind = 'record' ORDER BY s.id, se.ref_id").fetchall()
    evidence = pd.DataFrame(rows, columns=["signalId", "kind", "record"])
    if evidence.empty or not owner:
        return pd.DataFrame(columns=COLUMNS)
    evidence["group"] = evidence["record"].map(owner)
    totals = evidence.groupby("signalId").agg(kind=("kind", "first"), records=("record", "nunique"))
    counts = (evidence.dropna(subset=["group"]).astype({"group": "int64"})
              .groupby(["signalId", "group"]).size().rename("groupRecords").reset_index()
              .sort_values(["signalId", "groupRecords", "group"], ascending=[True, False, True], kind="mergesort")
              .drop_duplicates("signalId"))
    out = counts.join(totals, on="signalId")
    out["accounts"] = out["group"].map(size).astype("int64")
    out["share"] = out["groupRecords"] / out["records"]
    out["mostly"] = out["share"] >= mostly
    out = out.sort_values(["share", "signalId"], ascending=[False, True], kind="mergesort")
    return out[COLUMNS].reset_index(drop=True)
