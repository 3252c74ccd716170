"""Linked events: signals that read as one event to a person are linked into one.

One burst of news often raises several signals: a topic's volume and the
mentions of the name the topic is about, or two names of one story (Tesla and
Cybertruck). Two signals are **linked** when

* their episodes lie within ``window_days`` of each other: each episode spans
  its evidence days, from ``detail.weekStart`` (a weekly surge) or ``detail.day``
  to ``detail.peakDay``, and the gap between the two spans is at most
  ``window_days`` days (the week scale's window); and
* their episodes' records overlap: the records both episodes hold are at least
  ``share`` of the smaller episode (|A ∩ B| / min(|A|, |B|)); or one is the
  ``novelty`` of a name (a kind that ``names_new_entity``) and the other a
  signal on the same name (its arrival and its growth: a novelty holds the
  records of its first day, a surge of the name those of later ones, so their
  episodes cannot overlap).

An episode's records are **all** the records of the signal's series on its
episode's days, not the ten it keeps as evidence: the topic's records, the
records mentioning the name, the source's records or the records writing the
term, from the first to the last day of the episode (for a source, its records
in the topic that led its surge, the ``topic_id`` its headline names: a
source's day holds every topic's records, so any signal of that day would be
contained in it); for a sentiment shift the
topic's records in the after windows of its episode's days (from ``afterDays``
before its first day through ``peakDay``), for a divergence those of the topic
from either of its two sources. (Evidence is
chosen per kind, the first records of a day or the most extreme of a window,
so two signals of one burst rarely keep the same ten.) The sets are built and
intersected in SQL, in a temporary table, so memory does not grow with the
corpus. A signal whose stored row does not name its series (a volume surge of
a term: its row holds the term's slug, not the term) is compared by its kept
evidence records.

An **event** is a connected group of linked signals (a signal linked to one
member joins it). Its **lead** is its strongest signal: severity first
(high, medium, low), then ``sigma_score``, then the earlier ``detected_at``,
then ``signal_key``; the event's id is the lead's ``signal_key``, stable across
reruns. Each signal of an event of two or more gets ``detail.event``:
``{"id": <lead key>, "lead": <bool>, "related": [<the other members' keys, sorted>]}``;
an unlinked signal has no ``detail.event`` and is an event of its own (its id is
its own key). :func:`link_signals` recomputes the whole partition over every
stored signal at the end of each signal run, so a rerun writes the same tables.
Linking rewrites ``detail`` in place: it is not a change of the signal and
appends no ``signal_events`` row (the replay ignores ``detail.event`` when it
compares a signal with the stored one).
"""
from __future__ import annotations

import json
from datetime import date

from corpuskit.analysis.signals.evidence import _series_filter
from corpuskit.analysis.signals.kinds import new_entity_kinds, signal_kind

#: Share of the smaller episode's records two signals must share to be linked (chosen on HN and
#: Reddit, see docs/api.md "Linked events").
LINK_SHARE = 0.3
#: Largest gap, in days, between two signals' episodes for them to be linked (the week scale).
LINK_WINDOW_DAYS = 7

_RANK = {"high": 0, "medium": 1, "low": 2}


def episode_span(detail: dict, detected_at: str) -> tuple[str, str]:
    """First and last day of a signal's episode as its detail states them (see the module docstring)."""
    first = detail.get("weekStart") if detail.get("scale") == "week" else None
    first = first or detail.get("day") or detected_at[:10]
    last = detail.get("peakDay") or first
    return min(first, last), max(first, last)


def _gap_days(a: tuple[str, str], b: tuple[str, str]) -> int:
    """Days between two spans (0 when they overlap)."""
    if a[1] >= b[0] and b[1] >= a[0]:
        return 0
    earlier, later = (a, b) if a[1] < b[0] else (b, a)
    return (date.fromisoformat(later[0]) - date.fromisoformat(earlier[1])).days


def evidence_share(a: set, b: set) -> float:
    """|a ∩ b| / min(|a|, |b|); 0.0 when either set is empty."""
    if not a or not b:
        return 0.0
    return len(a & b) / min(len(a), len(b))


def strength_key(signal: dict) -> tuple:
    """Sort key putting the strongest signal first (severity, sigma, earlier detection, key)."""
    return (_RANK.get(signal["severity"], 3), -float(signal["sigma_score"] or 0.0), signal["detected_at"],
            signal["signal_key"])


def load_signals(conn) -> list[dict]:
    """Every stored signal with what linking reads: key, severity, sigma, span, kept evidence records."""
    evidence: dict[int, set] = {}
    for signal_id, record_id in conn.execute(
            "SELECT signal_id, ref_id FROM signal_evidence WHERE ref_kind = 'record'"):
        evidence.setdefault(signal_id, set()).add(record_id)
    out = []
    for row in conn.execute("SELECT id, signal_key, severity, sigma_score, detected_at, detail, kind, entity_id, "
                            "topic_id, source FROM signals ORDER BY signal_key"):
        detail = json.loads(row[5] or "{}")
        out.append({"id": row[0], "signal_key": row[1], "severity": row[2], "sigma_score": row[3],
                    "detected_at": row[4], "detail": detail, "span": episode_span(detail, row[4]),
                    "records": evidence.get(row[0], set()), "kind": row[6], "entity_id": row[7],
                    "topic_id": row[8], "source": row[9]})
    return out


def episode_series(signal: dict) -> list[tuple[dict, str, str]] | None:
    """``[(series filter, first day, last day), ...]`` whose records make a signal's episode.

    The filter is the one :mod:`.evidence` selects a series' records by (``topic_id``,
    ``entity_id``, ``source`` or ``term``); which series and days is the signal's kind's
    (:meth:`~corpuskit.analysis.signals.detector.Detector.episode_series`). ``None`` when the
    stored row does not name its series.
    """
    return signal_kind(signal.get("kind")).episode_series(signal)


def episode_overlaps(conn, signals: list[dict]) -> dict[tuple[int, int], float]:
    """``{(i, j): |A ∩ B| / min(|A|, |B|)}`` over the episode records of ``signals`` (i < j, shared > 0).

    Built in a temporary table (one ``INSERT … SELECT`` per signal, see :func:`episode_series`) and
    intersected by a self-join on the record, so no episode is loaded into Python.
    """
    conn.execute("CREATE TEMP TABLE IF NOT EXISTS link_episode(signal INTEGER NOT NULL, record INTEGER NOT NULL)")
    conn.execute("DELETE FROM temp.link_episode")
    try:
        for i, signal in enumerate(signals):
            parts = episode_series(signal)
            if parts is None:
                conn.executemany("INSERT INTO temp.link_episode VALUES (?, ?)",
                                 [(i, r) for r in sorted(signal["records"])])
                continue
            for evidence, first, last in parts:
                joins, where, args = _series_filter(evidence)
                conn.execute(f"INSERT INTO temp.link_episode SELECT DISTINCT ?, r.id FROM records r {joins} "
                             f"WHERE {where} AND r.day BETWEEN ? AND ?", (i, *args, first, last))
        conn.execute("CREATE INDEX IF NOT EXISTS temp.link_episode_record ON link_episode(record, signal)")
        sizes = dict(conn.execute("SELECT signal, count(DISTINCT record) FROM temp.link_episode GROUP BY signal"))
        shared = conn.execute(
            "SELECT a.signal, b.signal, count(DISTINCT a.record) FROM temp.link_episode a "
            "JOIN temp.link_episode b ON b.record = a.record AND b.signal > a.signal "
            "GROUP BY a.signal, b.signal ORDER BY a.signal, b.signal").fetchall()
    finally:
        conn.execute("DROP TABLE IF EXISTS temp.link_episode")
    return {(i, j): n / min(sizes[i], sizes[j]) for i, j, n in shared}


def linked_pairs(signals: list[dict], share: float = LINK_SHARE, window_days: int = LINK_WINDOW_DAYS,
                 overlaps: dict[tuple[int, int], float] | None = None) -> list[tuple[int, int, float]]:
    """``(i, j, share)`` for every pair of ``signals`` (indices, i < j) that links.

    ``overlaps``: the pairs' record shares (:func:`episode_overlaps`); by default computed from each
    signal's ``records`` set.
    """
    check_link_settings(share, window_days)
    if overlaps is None:
        by_record: dict[int, list[int]] = {}
        for i, signal in enumerate(signals):
            for record in signal["records"]:
                by_record.setdefault(record, []).append(i)
        overlaps = {(i, j): evidence_share(signals[i]["records"], signals[j]["records"])
                    for members in by_record.values() for x, i in enumerate(members) for j in members[x + 1:]}
    by_entity: dict[int, list[int]] = {}
    for i, signal in enumerate(signals):
        if signal.get("entity_id") is not None:
            by_entity.setdefault(signal["entity_id"], []).append(i)
    new_name = set(new_entity_kinds())
    same_name = {(i, j) for members in by_entity.values() for x, i in enumerate(members) for j in members[x + 1:]
                 if new_name & {signals[i].get("kind"), signals[j].get("kind")}}
    out = []
    for i, j in sorted(set(overlaps) | same_name):
        a, b = signals[i], signals[j]
        if _gap_days(a["span"], b["span"]) > window_days:
            continue
        s = overlaps.get((i, j), 0.0)
        if s >= share or (i, j) in same_name:
            out.append((i, j, round(s, 4)))
    return out


def group_events(signals: list[dict], pairs) -> list[list[int]]:
    """Connected groups of linked signals (indices), each strongest first; groups ordered by lead key."""
    parent = list(range(len(signals)))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for i, j, _ in pairs:
        ri, rj = find(i), find(j)
        if ri != rj:
            parent[max(ri, rj)] = min(ri, rj)
    groups: dict[int, list[int]] = {}
    for i in range(len(signals)):
        groups.setdefault(find(i), []).append(i)
    ordered = [sorted(g, key=lambda i: strength_key(signals[i])) for g in groups.values()]
    return sorted(ordered, key=lambda g: signals[g[0]]["signal_key"])


def check_link_settings(share, window_days) -> None:
    """:class:`ValidationError` unless ``0 < share <= 1`` and ``window_days`` is an integer ≥ 0."""
    from corpuskit.errors import ValidationError

    if isinstance(share, bool) or not isinstance(share, (int, float)) or not 0 < share <= 1:
        raise ValidationError(f"link_share must be a number in (0, 1], got {share!r}")
    if isinstance(window_days, bool) or not isinstance(window_days, int) or window_days < 0:
        raise ValidationError(f"link_window_days must be an integer >= 0, got {window_days!r}")


def link_signals(corpus, share: float = LINK_SHARE, window_days: int = LINK_WINDOW_DAYS) -> dict:
    """Recompute the linked events over every stored signal and write ``detail.event``.

    Returns ``{signals, events, linked, changed}``: stored signals, events (a lone
    signal counts as one), signals in an event of two or more, and signals whose
    detail was rewritten. Raises :class:`~corpuskit.errors.ValidationError` for a
    bad ``share`` or ``window_days``.
    """
    check_link_settings(share, window_days)
    conn = corpus.conn
    signals = load_signals(conn)
    groups = group_events(signals, linked_pairs(signals, share, window_days, episode_overlaps(conn, signals)))
    changed = linked = 0
    for group in groups:
        lead_key = signals[group[0]]["signal_key"]
        keys = sorted(signals[i]["signal_key"] for i in group)
        for i in group:
            signal = signals[i]
            detail = dict(signal["detail"])
            old = detail.pop("event", None)
            if len(group) > 1:
                linked += 1
                detail["event"] = {"id": lead_key, "lead": i == group[0],
                                   "related": [k for k in keys if k != signal["signal_key"]]}
            if detail.get("event") != old:
                conn.execute("UPDATE signals SET detail = ? WHERE id = ?",
                             (json.dumps(detail, sort_keys=True), signal["id"]))
                changed += 1
    return {"signals": len(signals), "events": len(groups), "linked": linked, "changed": changed}


#: The detail keys written after the replay (the linked event, the coordinated group): not the replay's.
AFTER_REPLAY = ("event", "coordination")


def without_event(detail_json: str | None) -> str | None:
    """A stored detail without the keys of :data:`AFTER_REPLAY`, re-serialised as the replay writes it."""
    if not detail_json:
        return detail_json
    detail = json.loads(detail_json)
    if not any(key in detail for key in AFTER_REPLAY):
        return detail_json
    for key in AFTER_REPLAY:
        detail.pop(key, None)
    return json.dumps(detail, sort_keys=True)


def event_id(detail: dict, signal_key: str) -> str:
    """The id of the event a signal belongs to: ``detail.event.id``, else its own key."""
    event = detail.get("event") if isinstance(detail, dict) else None
    return event["id"] if isinstance(event, dict) and event.get("id") else signal_key
