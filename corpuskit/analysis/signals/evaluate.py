"""Score detected signals against a demo corpus's planted events (its ground truth).

Rules (the quality floors of the issue are stated in these terms):

* an event is **detected** when a signal of the same kind on the event's beat
  was detected within ``tolerance`` days (default 1) of the event's first
  day, and its kind says it found the event
  (:meth:`~corpuskit.analysis.signals.detector.Detector.detects_planted`: a
  divergence must name the event's two sources, a novelty the event's entity);
* a signal **matches** an event when it is on the event's beat and was
  detected between one day before the event's first day and one day after
  its last. ``strict`` matching also asks for the same kind; the loose rule
  accepts any kind, because one planted event moves several series at once
  (a sentiment shift about Moderna is also a burst of Moderna mentions);
* the **linked events** of a planted event are the distinct ``event`` ids
  (:mod:`.linking`) of the signals that match it (loosely; any severity, and
  high and medium only); a
  linked event is **merged** when its signals match two different planted
  events and no signal of it matches both.
"""
from __future__ import annotations

import json
from datetime import date

import pandas as pd

from corpuskit.analysis.signals.kinds import signal_kind


def signals_frame(corpus) -> pd.DataFrame:
    """Every signal with its topic name, detected day and decoded detail."""
    from corpuskit.analysis.signals.linking import event_id

    rows = corpus.conn.execute(
        "SELECT s.id, s.kind, t.name AS topic, s.entity_id, s.source, s.severity, s.sigma_score, "
        "s.headline, s.detail, s.detected_at, s.status, s.resolved_at, s.signal_key FROM signals s "
        "LEFT JOIN topics t ON t.id = s.topic_id ORDER BY s.detected_at, s.id").fetchall()
    frame = pd.DataFrame([dict(r) for r in rows],
                         columns=["id", "kind", "topic", "entity_id", "source", "severity", "sigma_score",
                                  "headline", "detail", "detected_at", "status", "resolved_at", "signal_key"])
    frame["detail"] = frame["detail"].map(json.loads)
    frame["event"] = [event_id(d, k) for d, k in zip(frame["detail"], frame["signal_key"])]
    frame["day"] = frame["detected_at"].str[:10]
    return frame


def _days(a: str, b: str) -> int:
    return (date.fromisoformat(a) - date.fromisoformat(b)).days


def event_detected(event: dict, signal: dict, tolerance: int = 1) -> bool:
    """True when ``signal`` detects the planted ``event`` (see the module docstring)."""
    if signal["kind"] != event["kind"] or signal["topic"] != event["beat"]:
        return False
    if abs(_days(signal["day"], event["start"])) > tolerance:
        return False
    return signal_kind(event["kind"]).detects_planted(event, signal["detail"])


def signal_matches(signal: dict, event: dict, strict: bool = False) -> bool:
    """True when ``signal`` falls on ``event``'s beat during it (and, if ``strict``, its kind)."""
    if signal["topic"] != event["beat"] or (strict and signal["kind"] != event["kind"]):
        return False
    return _days(signal["day"], event["start"]) >= -1 and _days(signal["day"], event["end"]) <= 1


def evaluate(corpus, truth: dict | None = None) -> dict:
    """Recall per planted event and precision of high/medium signals.

    Returns ``{events: [{id, kind, beat, start, detected, signal, severity, matching,
    linkedEvents, matchingStrong, linkedEventsStrong}], mergedEvents, recall,
    strong, matched, matchedStrict, precision, precisionStrict,
    highPerBeatPer30Days: {beat: rate}, signals}``.
    """
    truth = truth or corpus.get_meta("demo_ground_truth")
    if truth is None:
        from corpuskit.errors import NotFoundError

        raise NotFoundError("this corpus has no demo ground truth (meta demo_ground_truth)")
    frame = signals_frame(corpus)
    records = frame.to_dict("records")
    events = []
    for event in truth["events"]:
        hits = [s for s in records if event_detected(event, s)]
        matching = [s for s in records if signal_matches(s, event)]
        events.append({"id": event["id"], "kind": event["kind"], "beat": event["beat"],
                       "start": event["start"], "detected": bool(hits),
                       "signal": hits[0]["headline"] if hits else None,
                       "severity": hits[0]["severity"] if hits else None,
                       "matching": len(matching), "linkedEvents": len({s["event"] for s in matching}),
                       "matchingStrong": sum(s["severity"] in ("high", "medium") for s in matching),
                       "linkedEventsStrong": len({s["event"] for s in matching
                                                  if s["severity"] in ("high", "medium")})})
    planted_of = {s["id"]: {e["id"] for e in truth["events"] if signal_matches(s, e)} for s in records}
    by_event: dict = {}
    for s in records:
        by_event.setdefault(s["event"], []).append(planted_of[s["id"]])
    merged = sorted(k for k, sets in by_event.items()
                    if len(set().union(*sets)) > 1 and not any(len(p) > 1 for p in sets))
    strong = [s for s in records if s["severity"] in ("high", "medium")]
    matched = [s for s in strong if any(signal_matches(s, e) for e in truth["events"])]
    strict = [s for s in strong if any(signal_matches(s, e, strict=True) for e in truth["events"])]
    days = truth.get("days") or max(1, frame["day"].nunique())
    high = frame[frame["severity"] == "high"].groupby("topic").size()
    per_beat = {beat: round(float(high.get(beat, 0)) * 30 / days, 2) for beat in truth.get("beats", [])}
    return {
        "events": events,
        "mergedEvents": merged,
        "recall": sum(e["detected"] for e in events) / len(events) if events else 1.0,
        "strong": len(strong), "matched": len(matched), "matchedStrict": len(strict),
        "precision": len(matched) / len(strong) if strong else 1.0,
        "precisionStrict": len(strict) / len(strong) if strong else 1.0,
        "highPerBeatPer30Days": per_beat,
        "signals": len(records),
        "unmatched": [s["headline"] + f" [{s['severity']}, {s['day']}]" for s in strong if s not in matched],
    }
