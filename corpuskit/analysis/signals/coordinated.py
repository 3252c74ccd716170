"""Coordinated signals: a signal whose evidence records come mostly from one coordinated group says so.

After the replay (and the linking), :func:`mark_coordinated` runs
:func:`corpuskit.networks.coordination` over the whole corpus with its default settings (the
text of the posts, the estimated window, the time-shuffled null) and, for every stored signal
whose evidence records are at least ``MOSTLY`` that group's coordinated posts
(:func:`corpuskit.networks.signal_coordination`), writes ``detail.coordination``::

    {"group": 1, "accounts": 10, "records": 8, "evidence": 10, "share": 0.8}

``group`` is the group's number in ``Corpus.coordination()`` (and ``/api/v1/coordination``) on
the same corpus, ``accounts`` its size, ``records`` the signal's evidence records that are the
group's posts, ``evidence`` the signal's evidence records and ``share`` = records / evidence
(3 decimals). A story on the signal says its posts were "posted by N accounts acting together"
(:func:`corpuskit.narrate.prose.signal_prose`). A signal no
longer mostly one group's loses the key. Like ``detail.event`` it is written after the replay
and is not a change of the signal: the replay leaves it out when it compares (see
:func:`~corpuskit.analysis.signals.linking.without_event`), and no ``signal_events`` row is added.
"""
from __future__ import annotations

import json

from corpuskit.networks import coordination, signal_coordination
from corpuskit.networks.signal_ties import MOSTLY


def coordination_details(conn, groups) -> dict[int, dict]:
    """``{signal id: detail.coordination}`` for the signals mostly one of ``groups``' posts."""
    ties = signal_coordination(conn, groups, mostly=MOSTLY)
    return {int(t.signalId): {"group": int(t.group), "accounts": int(t.accounts), "records": int(t.groupRecords),
                              "evidence": int(t.records), "share": round(float(t.share), 3)}
            for t in ties.itertuples() if t.mostly}


def mark_coordinated(corpus) -> dict:
    """Write or clear ``detail.coordination`` on every stored signal; returns
    ``{groups, coordinated, changed}`` (groups found, signals marked, details rewritten)."""
    conn = corpus.conn
    groups = coordination(conn)
    marks = coordination_details(conn, groups) if len(groups) else {}
    changed = 0
    for signal_id, raw in conn.execute("SELECT id, detail FROM signals ORDER BY id").fetchall():
        detail = json.loads(raw) if raw else {}
        old = detail.pop("coordination", None)
        if signal_id in marks:
            detail["coordination"] = marks[signal_id]
        if detail.get("coordination") != old:
            conn.execute("UPDATE signals SET detail = ? WHERE id = ?", (json.dumps(detail, sort_keys=True), signal_id))
            changed += 1
    return {"groups": int(groups["group"].nunique()), "coordinated": len(marks),
            "changed": changed}
