"""Cross-topic observations: convergence, divergence, anomaly, milestone and trend.

Signals watch one series at a time; observations describe how topics relate
and what their histories show. Each is computed over the whole history, day by
day up to the corpus clock (nothing at day ``t`` reads a later day), so a
historical corpus yields its observations at their own dates. Consecutive days
on which the same observation holds form one *episode*: it is observed on its
first day (``observedAt`` = the end of that UTC day, or the corpus clock if
earlier), its detail describes the episode's strongest day, and its
``observation_key`` (type, subject, first day) makes a rerun update it rather
than duplicate it. An observation that no longer holds after a rerun (the data
changed) is deleted.

Series: a record counts in every topic it is assigned to, on the day of its
``publishedAt``; an entity's mentions are the summed ``mention_count`` of the
records of a topic that mention it. Severity comes from a sigma score through
:func:`corpuskit.stats.thresholds.severity_for` (the thresholds every
signal uses: 3 low, 4.5 medium, 6 high), except milestones (see below).

The rules:

* **anomaly**: a topic's day against the ``BASELINE_DAYS`` (14) days before it.
  metric ``volume``: deviation = (count - median) / max(1.4826 * MAD, sqrt(max(median, 1)))
  (a robust z with a Poisson floor); metric ``sentiment`` (days with at least
  ``MIN_SCORED`` scored records, baseline with at least 4x that): deviation =
  (day mean - baseline mean) / (max(baseline sd, 0.05) / sqrt(n)), a z test of
  the day's mean. |deviation| >= 3 holds. Detail: ``topic, metric, deviation,
  value, expected, direction, peakDay, days``.
* **divergence**: two topics moving in opposite directions over the last 7
  days against the 7 before. metric ``volume``: z = (recent - previous) /
  sqrt(recent + previous) per topic; metric ``sentiment``: Welch z of the two
  weeks' mean scores. Holds when one topic's z >= 3 and the other's <= -3;
  sigma = the smaller |z|. Detail: ``topics, metric, rising, falling, change
  (per topic: previous and recent), sigma, peakDay, days``.
* **convergence**: topics sharing rising entities. An entity is rising in a
  topic on day ``t`` when its mentions in the last 7 days are at least
  ``MIN_RISING_MENTIONS`` and their binomial z against the preceding baseline
  (up to 28 days, at least 7) is >= 3; the topics in which the same entities
  rise on the same day converge. sigma = the strongest shared entity's weakest
  z across the topics. Detail: ``topics, sharedEntities, sigma, peakDay, days``.
* **milestone**: a topic's cumulative records crossing 1,000, 2,500, 5,000,
  10,000, 25,000, ... (severity low), or a record daily volume: more records
  than on any earlier day, after at least 28 days of history and with at least
  ``MIN_RECORD_DAY`` records (severity medium). Detail: ``topic, metric,
  value`` and ``threshold`` or ``previousRecord``.
* **trend**: a sustained multi-week rise or fall. On complete ISO weeks
  (Monday to Sunday, all on or before the clock's day), four consecutive weeks
  each strictly above (below) the one before, with a Poisson z of the last
  week against the first >= 3. Detail: ``topic, metric, direction, weeks
  [{weekStart, count}], changePct, sigma``.
"""
from __future__ import annotations

import json
from array import array
from datetime import date, timedelta
from itertools import combinations

import numpy as np

from corpuskit.analysis.windows import (check_int, clock_day, day_end, day_range,
                                        parse_since)
from corpuskit.clock import iso, utc
from corpuskit.errors import ValidationError
from corpuskit.query import OBSERVATION_TYPES as TYPES
from corpuskit.query import SEVERITIES, Page
from corpuskit.query.observations import observation_rows
from corpuskit.stats.thresholds import OPEN_SIGMA, severity_for
from corpuskit.stats.windows import lagged, recent_lags, rolling_sum, trailing_sum
from corpuskit.stats.z_scores import binomial_z, mean_z, poisson_z, robust_z, welch_z

BASELINE_DAYS = 14
WEEK = 7
ENTITY_BASELINE_DAYS = 28
MIN_SCORED = 5
MIN_RISING_MENTIONS = 5
MIN_RECORD_DAY = 10
RECORD_HISTORY_DAYS = 28
TREND_WEEKS = 4
SENTIMENT_SD_FLOOR = 0.05
LIST_MAX = 1000
#: At most this many (topic-entity pair x day) cells are scored at once for convergences.
ENTITY_CELLS = 1 << 16


def _severity(sigma: float) -> str:
    return severity_for(abs(sigma)) or "low"


def milestone_thresholds(limit: int) -> list[int]:
    """1,000, 2,500, 5,000, 10,000, 25,000, ... up to ``limit``."""
    out, base = [], 1000
    while base <= limit:
        out += [t for t in (base, base * 5 // 2, base * 5) if t <= limit]
        base *= 10
    return out


# -- series -------------------------------------------------------------------

class _Series:
    """Dense per-topic daily arrays from the first record day to the clock's day."""

    def __init__(self, corpus):
        conn = corpus.conn
        self.last = clock_day(corpus)
        first = conn.execute("SELECT min(day) FROM records").fetchone()[0]
        first_day = date.fromisoformat(first) if first else self.last
        self.days = day_range(min(first_day, self.last), self.last)
        index = {d: i for i, d in enumerate(self.days)}
        self.topics = {r[0]: (r[1], r[2]) for r in conn.execute(
            "SELECT id, name, display_name FROM topics ORDER BY id")}
        n = len(self.days)
        self.count = {t: np.zeros(n) for t in self.topics}
        self.scored = {t: np.zeros(n) for t in self.topics}
        self.ssum = {t: np.zeros(n) for t in self.topics}
        self.ssq = {t: np.zeros(n) for t in self.topics}
        for tid, day, cnt, scored, ssum, ssq in conn.execute(
                "SELECT ta.topic_id, r.day, count(*), count(e.sentiment_score), total(e.sentiment_score), "
                "total(e.sentiment_score * e.sentiment_score) FROM records r INDEXED BY records_day "
                "CROSS JOIN topic_assignments ta ON ta.record_id = r.id "
                "LEFT JOIN enrichment e ON e.record_id = r.id "
                "WHERE r.day BETWEEN ? AND ? GROUP BY ta.topic_id, r.day",
                (self.days[0], self.days[-1])):
            i = index[day]
            self.count[tid][i], self.scored[tid][i] = cnt, scored
            self.ssum[tid][i], self.ssq[tid][i] = ssum, ssq
        self.entity_names = {}
        # (topic_id, entity_id) pairs of the entities in >= 2 topics, sorted, and their nonzero days as
        # three flat arrays (pair row, day index, mentions); :meth:`entity_block` makes a block of rows
        # dense, so no step holds every pair's days as a matrix (that grew with the corpus)
        self.entity_keys: list[tuple[int, int]] = []
        rows, cols, vals = array("q"), array("q"), array("d")
        # one pass over mentions in storage order, each mention's record and topics read by key: 7 s at a
        # million records, where driving from the day index (a random read of every mention) took 38 s;
        # the grouped rows are read as the cursor yields them (sorted by topic, entity and day)
        for tid, eid, day, mentions in conn.execute(
                "SELECT ta.topic_id, m.entity_id, r.day, sum(m.mention_count) "
                "FROM mentions m NOT INDEXED CROSS JOIN records r ON r.id = m.record_id "
                "CROSS JOIN topic_assignments ta ON ta.record_id = m.record_id "
                "WHERE r.day BETWEEN ? AND ? AND m.entity_id IN "
                "(SELECT m2.entity_id FROM mentions m2 JOIN topic_assignments t2 "
                " ON t2.record_id = m2.record_id GROUP BY m2.entity_id "
                " HAVING count(DISTINCT t2.topic_id) >= 2) "
                "GROUP BY ta.topic_id, m.entity_id, r.day ORDER BY ta.topic_id, m.entity_id, r.day",
                (self.days[0], self.days[-1])):
            if not self.entity_keys or self.entity_keys[-1] != (tid, eid):
                self.entity_keys.append((tid, eid))
            rows.append(len(self.entity_keys) - 1)
            cols.append(index[day])
            vals.append(mentions)
        self._cells = (np.frombuffer(rows, dtype=np.int64), np.frombuffer(cols, dtype=np.int64),
                       np.frombuffer(vals, dtype=np.float64))
        ids = sorted({eid for _, eid in self.entity_keys})
        for start in range(0, len(ids), 500):
            batch = ids[start:start + 500]
            self.entity_names.update(dict(conn.execute(
                f"SELECT id, name FROM entities WHERE id IN ({','.join('?' * len(batch))})",
                batch).fetchall()))

    def entity_block(self, lo: int, hi: int) -> np.ndarray:
        """Daily mentions of the pairs ``entity_keys[lo:hi]``: a dense ``[hi - lo, days]`` matrix."""
        rows, cols, vals = self._cells
        a, b = np.searchsorted(rows, [lo, hi])
        block = np.zeros((hi - lo, len(self.days)))
        block[rows[a:b] - lo, cols[a:b]] = vals[a:b]
        return block

    def name(self, tid):
        return self.topics[tid][0]

    def label(self, tid):
        return self.topics[tid][1]


def _window_sums(arr: np.ndarray, lags: np.ndarray) -> np.ndarray:
    """Per day: the sum of ``arr`` over the window of ``lags`` (NaN where it reaches before day 0).

    Summed window by window, in day order, so a day's figure is the same sum, to the
    last bit, as adding up its days.
    """
    return lagged(arr, lags).sum(axis=-1)


def _episodes(hits: dict) -> list[list]:
    """Group ``{day_index: payload}`` into runs of consecutive days."""
    runs, current, prev = [], [], None
    for t in sorted(hits):
        if prev is not None and t != prev + 1:
            runs.append(current)
            current = []
        current.append((t, hits[t]))
        prev = t
    if current:
        runs.append(current)
    return runs


def _episode_detail(run, key_sigma="sigma"):
    peak_t, peak = max(run, key=lambda item: (abs(item[1][key_sigma]), -item[0]))
    return run[0][0], peak_t, peak


# -- detectors -------------------------------------------------------------------

def _anomalies(s: _Series) -> list[dict]:
    out = []
    n = len(s.days)
    for tid in s.topics:
        count, scored, ssum, ssq = s.count[tid], s.scored[tid], s.ssum[tid], s.ssq[tid]
        volume_z, median = robust_z(count, lagged(count, recent_lags(BASELINE_DAYS)))
        base_n, base_sum, base_sq = (_window_sums(a, recent_lags(BASELINE_DAYS)) for a in (scored, ssum, ssq))
        hits = {"volume": {}, "sentiment": {}}
        for t in range(BASELINE_DAYS, n):
            if abs(volume_z[t]) >= OPEN_SIGMA:
                hits["volume"][t] = {"sigma": volume_z[t], "value": int(count[t]),
                                     "expected": float(median[t])}
            if scored[t] >= MIN_SCORED and base_n[t] >= 4 * MIN_SCORED:
                dev, mean_b = mean_z(scored[t], ssum[t], base_n[t], base_sum[t], base_sq[t],
                                     SENTIMENT_SD_FLOOR)
                if abs(dev) >= OPEN_SIGMA:
                    hits["sentiment"][t] = {"sigma": dev, "value": ssum[t] / scored[t], "expected": mean_b}
        for metric, metric_hits in hits.items():
            for direction in ("up", "down"):
                same = {t: h for t, h in metric_hits.items() if (h["sigma"] > 0) == (direction == "up")}
                for run in _episodes(same):
                    start, peak_t, peak = _episode_detail(run)
                    value, expected = peak["value"], peak["expected"]
                    if metric == "volume":
                        headline = (f"{s.label(tid)} volume {'spiked' if direction == 'up' else 'dropped'}"
                                    f" to {value} records on {s.days[peak_t]} (expected about "
                                    f"{expected:g})")
                    else:
                        value, expected = round(value, 4), round(expected, 4)
                        headline = (f"{s.label(tid)} sentiment {'rose' if direction == 'up' else 'fell'}"
                                    f" to {value:+.2f} on {s.days[peak_t]} against a baseline of "
                                    f"{expected:+.2f}")
                    out.append({
                        "type": "anomaly", "day": s.days[start], "sigma": peak["sigma"],
                        "key": f"anomaly|{s.name(tid)}|{metric}|{direction}|{s.days[start]}",
                        "headline": headline,
                        "detail": {"topic": s.name(tid), "metric": metric,
                                   "deviation": round(peak["sigma"], 2), "value": value,
                                   "expected": round(expected, 4), "direction": direction,
                                   "peakDay": s.days[peak_t], "days": len(run)},
                    })
    return out


def _weekly_changes(s: _Series, tid, kind: str, days: range) -> dict:
    """Per day ``t``: ``(z, previous, recent)`` of the last 7 days against the 7 before, for
    volume (counts) or sentiment (mean scores); None where there is too little data."""
    week = recent_lags(WEEK, lag=0)
    if kind == "volume":
        counts = _window_sums(s.count[tid], week)
        out = {}
        for t in days:
            recent, previous = float(counts[t]), float(counts[t - WEEK])
            enough = recent + previous >= 20
            out[t] = (float(poisson_z(recent, previous)), previous, recent) if enough else None
        return out
    n, total, sq = (_window_sums(a, week) for a in (s.scored[tid], s.ssum[tid], s.ssq[tid]))
    out = {}
    for t in days:
        if min(n[t - WEEK], n[t]) < 2 * MIN_SCORED:
            out[t] = None
            continue
        before = (float(n[t - WEEK]), float(total[t - WEEK]), float(sq[t - WEEK]))
        after = (float(n[t]), float(total[t]), float(sq[t]))
        z, m0, m1 = welch_z(before, after, SENTIMENT_SD_FLOOR)
        out[t] = (float(z), round(m0, 4), round(m1, 4))
    return out


def _divergences(s: _Series) -> list[dict]:
    out = []
    n = len(s.days)
    tids = sorted(s.topics, key=s.name)
    for metric in ("volume", "sentiment"):
        changes = {tid: _weekly_changes(s, tid, metric, range(2 * WEEK - 1, n)) for tid in tids}
        for a, b in combinations(tids, 2):
            hits = {}
            for t in range(2 * WEEK - 1, n):
                ca, cb = changes[a][t], changes[b][t]
                if ca is None or cb is None:
                    continue
                if min(ca[0], -cb[0]) >= OPEN_SIGMA or min(-ca[0], cb[0]) >= OPEN_SIGMA:
                    hits[t] = {"sigma": min(abs(ca[0]), abs(cb[0])), "a": ca, "b": cb}
            for run in _episodes(hits):
                start, peak_t, peak = _episode_detail(run)
                rising, falling = (a, b) if peak["a"][0] > 0 else (b, a)
                change = {s.name(a): {"previous": peak["a"][1], "recent": peak["a"][2]},
                          s.name(b): {"previous": peak["b"][1], "recent": peak["b"][2]}}
                what = "volume" if metric == "volume" else "sentiment"
                out.append({
                    "type": "divergence", "day": s.days[start], "sigma": peak["sigma"],
                    "key": f"divergence|{metric}|{s.name(a)}|{s.name(b)}|{s.days[start]}",
                    "headline": (f"{s.label(rising)} and {s.label(falling)} diverge: {what} rising "
                                 f"in one and falling in the other in the week to {s.days[peak_t]}"),
                    "detail": {"topics": [s.name(a), s.name(b)], "metric": metric,
                               "rising": s.name(rising), "falling": s.name(falling),
                               "change": change, "sigma": round(peak["sigma"], 2),
                               "peakDay": s.days[peak_t], "days": len(run)},
                })
    return out


def _rising_z(matrix: np.ndarray) -> np.ndarray:
    """For every row and day ``t``: the binomial z of the last 7 days' mentions against the
    preceding baseline (up to 28 days, at least 7); NaN where the test does not apply."""
    rows, n = matrix.shape
    recent_all = trailing_sum(matrix, WEEK)
    baseline_all = rolling_sum(matrix, ENTITY_BASELINE_DAYS, lag=WEEK)
    z = np.full((rows, n), np.nan)
    for t in range(n):
        base_len = min(ENTITY_BASELINE_DAYS, t - WEEK + 1)
        if base_len < WEEK:
            continue
        recent, baseline = recent_all[:, t], baseline_all[:, t]
        total = recent + baseline
        ok = recent >= MIN_RISING_MENTIONS
        z[ok, t] = binomial_z(recent[ok], total[ok], WEEK / (WEEK + base_len))
    return z


def _rising_hits(s: _Series) -> list[tuple[int, int, float]]:
    """``(day, pair row, z)`` of every pair of ``s.entity_keys`` rising on a day, sorted by day and row.

    :func:`_rising_z` is computed on blocks of at most ``ENTITY_CELLS`` (pair x day) cells: each row's z
    reads only its own row, so the blocks give the whole matrix's figures, and memory stays flat as the
    number of pairs grows with the corpus.
    """
    n = len(s.days)
    step = max(1, ENTITY_CELLS // max(n, 1))
    days, rows, zs = [], [], []
    for lo in range(0, len(s.entity_keys), step):
        hi = min(lo + step, len(s.entity_keys))
        z = _rising_z(s.entity_block(lo, hi))
        with np.errstate(invalid="ignore"):
            r, t = np.nonzero(z >= OPEN_SIGMA)
        days.append(t)
        rows.append(r + lo)
        zs.append(z[r, t])
    if not days:
        return []
    days, rows, zs = np.concatenate(days), np.concatenate(rows), np.concatenate(zs)
    order = np.lexsort((rows, days))
    return list(zip(days[order].tolist(), rows[order].tolist(), zs[order].tolist()))


def _convergences(s: _Series) -> list[dict]:
    keys = s.entity_keys
    by_set: dict[tuple, dict] = {}
    hits = _rising_hits(s)
    start = 0
    while start < len(hits):
        t = hits[start][0]
        end = start
        while end < len(hits) and hits[end][0] == t:
            end += 1
        rising: dict[int, dict] = {}
        for _, row, z in hits[start:end]:
            tid, eid = keys[row]
            rising.setdefault(eid, {})[tid] = z
        start = end
        groups: dict[tuple, list] = {}
        for eid, per_topic in rising.items():
            if len(per_topic) >= 2:
                topics = tuple(sorted(s.name(tid) for tid in per_topic))
                groups.setdefault(topics, []).append((eid, min(per_topic.values())))
        for topics, entities in groups.items():
            by_set.setdefault(topics, {})[t] = {
                "sigma": max(v for _, v in entities),
                "entities": sorted(s.entity_names[e] for e, _ in entities)}
    out = []
    labels = {s.name(tid): s.label(tid) for tid in s.topics}
    for topics, hits in sorted(by_set.items()):
        for run in _episodes(hits):
            start, peak_t, peak = _episode_detail(run)
            shared = sorted({e for _, h in run for e in h["entities"]})
            names = ", ".join(shared[:3]) + (f" and {len(shared) - 3} more" if len(shared) > 3 else "")
            out.append({
                "type": "convergence", "day": s.days[start], "sigma": peak["sigma"],
                "key": f"convergence|{'+'.join(topics)}|{s.days[start]}",
                "headline": f"{' and '.join(labels[t] for t in topics)} converge on {names}",
                "detail": {"topics": list(topics), "sharedEntities": shared,
                           "sigma": round(peak["sigma"], 2), "peakDay": s.days[peak_t],
                           "days": len(run)},
            })
    return out


def _milestones(s: _Series) -> list[dict]:
    out = []
    for tid in s.topics:
        count = s.count[tid]
        cumulative = np.cumsum(count)
        for threshold in milestone_thresholds(int(cumulative[-1]) if len(cumulative) else 0):
            t = int(np.argmax(cumulative >= threshold))
            out.append({
                "type": "milestone", "day": s.days[t], "severity": "low",
                "key": f"milestone|{s.name(tid)}|total|{threshold}",
                "headline": f"{s.label(tid)} passed {threshold:,} records on {s.days[t]}",
                "detail": {"topic": s.name(tid), "metric": "totalRecords", "threshold": threshold,
                           "value": int(cumulative[t])},
            })
        active = np.nonzero(count)[0]
        if not len(active):
            continue
        first = int(active[0])
        for t in range(first + RECORD_HISTORY_DAYS, len(count)):
            previous = float(count[first:t].max())
            if count[t] > previous and count[t] >= MIN_RECORD_DAY:
                out.append({
                    "type": "milestone", "day": s.days[t], "severity": "medium",
                    "key": f"milestone|{s.name(tid)}|record_day|{s.days[t]}",
                    "headline": (f"{s.label(tid)} had its busiest day yet on {s.days[t]}: "
                                 f"{int(count[t])} records (previous record {int(previous)})"),
                    "detail": {"topic": s.name(tid), "metric": "dailyVolume",
                               "value": int(count[t]), "previousRecord": int(previous)},
                })
    return out


def _trends(s: _Series) -> list[dict]:
    first = date.fromisoformat(s.days[0])
    monday = first + timedelta(days=(7 - first.weekday()) % 7)
    weeks = []
    while monday + timedelta(days=6) <= s.last:
        weeks.append(monday)
        monday += timedelta(days=7)
    out = []
    offset = {d: i for i, d in enumerate(s.days)}
    for tid in s.topics:
        counts = [float(s.count[tid][offset[w.isoformat()]:offset[w.isoformat()] + 7].sum())
                  for w in weeks]
        hits = {}
        for j in range(TREND_WEEKS - 1, len(weeks)):
            run = counts[j - TREND_WEEKS + 1:j + 1]
            steps = [b - a for a, b in zip(run, run[1:])]
            if all(x > 0 for x in steps) or all(x < 0 for x in steps):
                z = float(poisson_z(run[-1], run[0]))
                if abs(z) >= OPEN_SIGMA:
                    hits[j] = {"sigma": z, "run": run}
        for direction in ("rising", "falling"):
            same = {j: h for j, h in hits.items() if (h["sigma"] > 0) == (direction == "rising")}
            for episode in _episodes(same):
                start_j, peak_j, peak = _episode_detail(episode)
                first_week = weeks[start_j - TREND_WEEKS + 1]
                lo, hi = episode[0][0] - TREND_WEEKS + 1, episode[-1][0] + 1
                span, run = weeks[lo:hi], counts[lo:hi]
                end_day = (weeks[start_j] + timedelta(days=6)).isoformat()
                change = round(100.0 * (run[-1] - run[0]) / run[0], 1) if run[0] else None
                out.append({
                    "type": "trend", "day": end_day, "sigma": peak["sigma"],
                    "key": f"trend|{s.name(tid)}|{direction}|{first_week.isoformat()}",
                    "headline": (f"{s.label(tid)} volume {direction} for {len(run)} weeks in a row "
                                 f"({int(run[0])} to {int(run[-1])} records a week)"),
                    "detail": {"topic": s.name(tid), "metric": "weeklyVolume",
                               "direction": direction,
                               "weeks": [{"weekStart": w.isoformat(), "count": int(c)}
                                         for w, c in zip(span, run)],
                               "changePct": change, "sigma": round(peak["sigma"], 2)},
                })
    return out


DETECTORS = {"anomaly": _anomalies, "divergence": _divergences, "convergence": _convergences,
             "milestone": _milestones, "trend": _trends}


def compute_observations(corpus, types=TYPES) -> list[dict]:
    """Every observation that holds on the corpus as it is, sorted by key (nothing is written).

    Each: ``{key, type, headline, detail, severity, observedAt}``.
    """
    series = _Series(corpus)
    now = utc(corpus.now())
    out = []
    for kind in types:
        for obs in DETECTORS[kind](series):
            severity = obs.get("severity") or _severity(obs["sigma"])
            out.append({"key": obs["key"], "type": obs["type"], "headline": obs["headline"],
                        "detail": obs["detail"], "severity": severity,
                        "observedAt": iso(min(day_end(obs["day"]), now))})
    return sorted(out, key=lambda o: o["key"])


def build_observations(corpus, run_id: str, progress: bool = False) -> dict:
    """Recompute observations and bring the table in step, in one transaction.

    New keys are inserted, changed ones updated (with this run's id), ones that
    no longer hold deleted; unchanged rows are left as they are. Returns
    ``{new, updated, unchanged, deleted, byType}``.
    """
    from tqdm.auto import tqdm

    found = compute_observations(corpus)
    conn = corpus.conn
    stored = {r[0]: tuple(r[1:]) for r in conn.execute(
        "SELECT observation_key, type, headline, detail, severity, observed_at FROM observations")}
    counts = {"new": 0, "updated": 0, "unchanged": 0, "deleted": 0}
    by_type = dict.fromkeys(TYPES, 0)
    with corpus.transaction():
        for obs in tqdm(found, desc="observations", disable=not progress):
            by_type[obs["type"]] += 1
            values = (obs["type"], obs["headline"], json.dumps(obs["detail"], sort_keys=True),
                      obs["severity"], obs["observedAt"])
            old = stored.pop(obs["key"], None)
            if old == values:
                counts["unchanged"] += 1
                continue
            conn.execute(
                "INSERT INTO observations(observation_key, type, headline, detail, severity, "
                "observed_at, run_id) VALUES (?,?,?,?,?,?,?) ON CONFLICT(observation_key) DO UPDATE "
                "SET type = excluded.type, headline = excluded.headline, detail = excluded.detail, "
                "severity = excluded.severity, observed_at = excluded.observed_at, "
                "run_id = excluded.run_id", (obs["key"],) + values + (run_id,))
            counts["new" if old is None else "updated"] += 1
        for key in sorted(stored):
            conn.execute("DELETE FROM observations WHERE observation_key = ?", (key,))
            counts["deleted"] += 1
    counts["byType"] = by_type
    return counts


def observation_page(corpus, type: str | None = None, severity: str | None = None,
                     since=None, limit: int = 50, offset: int = 0) -> Page:
    """One :class:`~corpuskit.query.Page` of observations, newest ``observedAt`` first; each row
    ``{type, headline, detail, severity, observedAt}``.

    Filters: ``type`` (one of :data:`TYPES`), ``severity`` (high, medium,
    low), ``since`` (any timestamp form, on observedAt, inclusive).
    :class:`ValidationError` for an unknown type or severity, a bad ``since``,
    ``limit`` outside 1..1000 or a negative ``offset``.
    """
    limit = check_int(limit, "limit", 1, LIST_MAX)
    offset = check_int(offset, "offset", 0)
    if type in (None, ""):
        type = None
    elif type not in TYPES:
        raise ValidationError(f"type must be one of {', '.join(TYPES)}, not {type!r}")
    if severity in (None, ""):
        severity = None
    elif severity not in SEVERITIES:
        raise ValidationError(f"severity must be one of {', '.join(SEVERITIES)}, not {severity!r}")
    since = None if since in (None, "") else parse_since(since, utc(corpus.now()))
    rows, total = observation_rows(corpus.conn, type=type, severity=severity, since=since,
                                   limit=limit, offset=offset)
    data = [{"type": r[0], "headline": r[1], "detail": json.loads(r[2]), "severity": r[3],
             "observedAt": r[4]} for r in rows]
    return Page(data, total, limit, offset)
